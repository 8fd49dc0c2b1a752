package ui

import (
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/ktopo/ktopo/ui/internal/rows"
	"github.com/ktopo/ktopo/zkwatch"
)

// View implements tea.Model.
func (a *App) View() tea.View {
	var start time.Time
	if a.cfg.Debug {
		start = time.Now()
	}
	a.Frames++
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
		b.WriteString(a.st.Banner.S(rows.Fit(" ⚠ "+ban, a.w)))
		b.WriteByte('\n')
	}
	ch := a.contentHeight()
	if a.showHelp {
		b.WriteString(a.helpView(ch))
	} else {
		b.WriteString(a.withModal(a.Focused().View(), ch))
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
	return style.Render(text), rows.Width(text) + 2
}

func (a *App) header() string {
	st := a.st
	var b strings.Builder
	w := 0
	put := func(s string, n int) { b.WriteString(s); w += n }
	put(st.Accent.S(" ktopo "), 7)
	put(st.Subtle.S("│"), 1)
	names := [tabCount]string{"Overview", "Topics", "Tree", "Events"}
	for i, n := range names {
		label := " " + itoa(i+1) + " " + n + " "
		if i == a.active && len(a.stack) == 0 {
			put(st.TabActive.S(label), len(label))
		} else if i == a.active {
			put(st.Bold.S(label), len(label))
		} else {
			put(st.TabInactive.S(label), len(label))
		}
	}
	badge, bw := a.badge()
	for _, s := range a.stack {
		t := " › " + s.Title() + " "
		if room := a.w - w - bw - 1; rows.Width(t) > room {
			t = rows.Fit(t, max(room, 0))
		}
		put(st.TabActive.S(t), rows.Width(t))
	}
	if gap := a.w - w - bw; gap >= 1 {
		return b.String() + rows.Spaces(gap) + badge
	}
	return rows.Clip(b.String(), a.w)
}

func (a *App) statusBar() string {
	st := a.st
	if a.cmdOpen {
		return rows.Clip(a.cmd.View(), a.w)
	}
	// right: connection and mirror counters
	dot, word := st.Online.S("●"), "connected"
	switch {
	case a.closed:
		dot, word = st.Danger.S("●"), "closed"
	case !a.haveState:
		dot, word = st.Warning.S("○"), "connecting"
	case a.resyncing:
		dot, word = st.Warning.S("●"), "resyncing"
	case a.state != zkwatch.StateConnected:
		dot, word = st.Danger.S("●"), a.state.String()
	case !a.loaded:
		dot, word = st.Warning.S("●"), "loading"
	}
	right := " " + word + " · " + rows.Count(a.stats.Nodes) + " znodes · " + rows.Count(a.stats.Watches) + " watches "
	rw := rows.Width(right) + 1
	rightS := dot + st.Muted.S(right)
	lw := max(a.w-rw, 0)
	var left string
	task := ""
	for _, s := range a.tasks {
		if line, _ := s.(Task).TaskStatus(); line != "" {
			task = line
			break
		}
	}
	if a.status == "" && task != "" {
		left = st.Accent.S(rows.Fit(" ⟳ "+task, lw))
	} else if a.status != "" {
		ink := st.Text
		if a.statusErr {
			ink = st.Error
		}
		left = ink.S(rows.Fit(" "+a.status, lw))
	} else {
		// "? help" first: on a narrow terminal the rest is cut. While a
		// text field has the keys, ? : and q are text: name the keys that
		// still act.
		g := &a.km.Global
		bs := append([]key.Binding{g.Help}, a.Focused().ShortHelp()...)
		bs = append(bs, g.Command, g.Back, g.Quit)
		if c, ok := a.Focused().(Capturer); ok && c.Capturing() {
			bs = append([]key.Binding{g.FieldHelp}, a.Focused().ShortHelp()...)
			bs = append(bs, g.Back, g.FieldQuit)
		}
		a.help.SetWidth(lw - 1)
		h := " " + a.help.ShortHelpView(enabled(bs))
		if hw := rows.Width(ansi.Strip(h)); hw > lw-1 {
			left = rows.PadStyled(rows.Clip(h, lw-1), lw-1, lw)
		} else {
			left = rows.PadStyled(h, hw, lw)
		}
	}
	if lw == 0 {
		return rows.Clip(rightS, a.w)
	}
	return left + rightS
}

func enabled(bs []key.Binding) []key.Binding {
	out := bs[:0:0]
	for _, b := range bs {
		if b.Enabled() {
			out = append(out, b)
		}
	}
	return out
}

// helpView is the full help: the focused screen's keys, then the global
// ones, then a legend.
func (a *App) helpView(h int) string {
	st := a.st
	g := a.km.Global
	groups := append(a.Focused().FullHelp(),
		[]key.Binding{g.Overview, g.Topics, g.Tree, g.Events, g.Create},
		[]key.Binding{g.Command, g.Help, g.Back, g.Quit})
	a.help.SetWidth(a.w - 2)
	lines := []string{
		" " + st.Bold.S("Keys") + st.Muted.S(" — "+a.Focused().Title()+"   (any key closes)"),
		"",
	}
	for _, l := range strings.Split(a.help.FullHelpView(groups), "\n") {
		lines = append(lines, " "+l)
	}
	createCmd := ""
	if g.Create.Enabled() {
		createCmd = " :create"
	}
	legend := []string{
		"",
		" " + st.Bold.S("Reading the screens"),
		" " + st.Leader.S("3") + st.Muted.S(" in a replica list is the partition's leader; ") + st.Danger.S("4!") + st.Muted.S(" is a replica out of the ISR."),
		" " + st.Muted.S("A changed cell flashes and shows old→new for a few seconds. Mouse wheel scrolls."),
		" " + st.Muted.S("Commands: :overview :topics :tree :events :topic NAME"+createCmd+" :q   (tab completes)"),
		" " + st.Muted.S("In a text field keys are typed: f1 help, esc back, ctrl+c quit."),
	}
	if a.cfg.Mode == ModeSandbox {
		legend = append(legend, " "+st.Muted.S("Sandbox: on the overview select a broker and press x to kill it; x again restarts it."))
	}
	lines = append(lines, legend...)
	for i := range lines {
		lines[i] = rows.Clip(lines[i], a.w)
	}
	return rows.Lines(lines, h)
}

// withModal composites the focused screen's popup, if any, centred over
// its content (a lipgloss layer, as gh-dash does).
func (a *App) withModal(content string, h int) string {
	m, ok := a.Focused().(Modal)
	if !ok {
		return content
	}
	pop := m.Modal()
	if pop == "" {
		return content
	}
	pw, ph := lipgloss.Width(pop), lipgloss.Height(pop)
	x, y := max((a.w-pw)/2, 0), max((h-ph)/2, 0)
	out := lipgloss.NewCompositor(lipgloss.NewLayer(content), lipgloss.NewLayer(pop).X(x).Y(y).Z(1)).Render()
	return rows.Lines(strings.Split(out, "\n"), h)
}
