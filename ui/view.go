package ui

import (
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/ktopo/ktopo/ui/internal/cell"
)

// View implements tea.Model. It only draws: what it shows was computed in
// Update (the one write is the debug timings, when KTOPO_DEBUG is set).
func (a *App) View() tea.View {
	var start time.Time
	if a.cfg.Debug {
		start = time.Now()
	}
	v := tea.NewView(a.render())
	v.AltScreen = true
	v.MouseMode = tea.MouseModeCellMotion
	v.WindowTitle = "ktopo — " + a.where()
	if a.cmdOpen {
		if c := a.cmd.Cursor(); c != nil {
			c.Y = a.h - 1
			v.Cursor = c
		}
	}
	if a.cfg.Debug {
		a.dbg.views = append(a.dbg.views, time.Since(start))
	}
	return v
}

func (a *App) where() string {
	if a.cfg.Context != "" {
		return a.cfg.Context
	}
	if a.cfg.Mode == ModeSandbox {
		return "sandbox"
	}
	return a.cfg.Connect
}

// render draws the whole screen: header, banner, content, status bar.
func (a *App) render() string {
	if a.w <= 0 || a.h <= 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString(a.header())
	b.WriteByte('\n')
	if ban := a.banner(); ban != "" {
		b.WriteString(a.st.Banner.S(cell.Fit(" ⚠ "+ban, a.w)))
		b.WriteByte('\n')
	}
	ch := a.contentHeight()
	switch {
	case a.quitAsk != nil:
		b.WriteString(a.overlay(a.Focused().View(), a.quitPopup(), ch))
	case a.showHelp:
		b.WriteString(a.helpView(ch))
	default:
		b.WriteString(a.withStatus(a.withModal(a.Focused().View(), ch), ch))
	}
	b.WriteByte('\n')
	b.WriteString(a.statusBar())
	return b.String()
}

func (a *App) badge() (string, int) {
	st := a.st
	text, style := "LIVE", st.LiveBadge
	switch a.cfg.Mode {
	case ModeSandbox:
		text, style = "SANDBOX", st.SandboxBadge
	case ModeReadOnly:
		text, style = "READ-ONLY", st.ReadOnlyBadge
	}
	if a.cfg.Context != "" {
		text += " " + a.cfg.Context
	}
	if a.cfg.Production {
		style = st.ProductionBadge
		if a.cfg.Context == "" {
			text += " PRODUCTION"
		}
	}
	return style.Render(text), cell.Width(text) + 2
}

// header is the first line: the tabs (with their number keys), the
// pushed screens' titles and the mode badge.
func (a *App) header() string {
	st := a.st
	var b strings.Builder
	w := 0
	put := func(s string, n int) { b.WriteString(s); w += n }
	put(st.Accent.S(" ktopo "), 7)
	put(st.Subtle.S("│"), 1)
	for i, t := range a.tabs {
		label := " " + t.key.Help().Key + " " + t.label + " "
		n := cell.Width(label)
		switch {
		case i == a.active && len(a.stack) == 0:
			put(st.TabActive.S(label), n)
		case i == a.active:
			put(st.Bold.S(label), n)
		default:
			put(st.TabInactive.S(label), n)
		}
	}
	badge, bw := a.badge()
	for _, s := range a.stack {
		t := " › " + s.Title() + " "
		if room := a.w - w - bw - 1; cell.Width(t) > room {
			t = cell.Fit(t, max(room, 0))
		}
		put(st.TabActive.S(t), cell.Width(t))
	}
	if gap := a.w - w - bw; gap >= 1 {
		return b.String() + cell.Spaces(gap) + badge
	}
	return cell.Clip(b.String(), a.w)
}

// capturing reports a text field with the keyboard.
func (a *App) capturing() bool {
	c, ok := a.Focused().(Capturer)
	return ok && c.Capturing()
}

// withModal composites the focused screen's popup, if any, centred over
// its content (a lipgloss layer, as gh-dash does).
func (a *App) withModal(content string, h int) string {
	m, ok := a.Focused().(Modal)
	if !ok {
		return content
	}
	return a.overlay(content, m.Modal(), h)
}

// overlay composites pop ("" for none) centred over content.
func (a *App) overlay(content, pop string, h int) string {
	if pop == "" {
		return content
	}
	pw, ph := lipgloss.Width(pop), lipgloss.Height(pop)
	x, y := max((a.w-pw)/2, 0), max((h-ph)/2, 0)
	out := lipgloss.NewCompositor(lipgloss.NewLayer(content), lipgloss.NewLayer(pop).X(x).Y(y).Z(1)).Render()
	return cell.Lines(strings.Split(out, "\n"), h)
}
