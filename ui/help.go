package ui

import (
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/ktopo/ktopo/ui/internal/cell"
)

// The full help (? or f1): the keys in force on the focused screen, then
// the tabs' and the shell's, then how to read the screens. Each group of
// keys is a column as wide as it needs, as many side by side as the
// window holds and the others below, so that no key is cut off; when it
// all is taller than the window it scrolls under its title line.

// openHelp shows the full help from its top.
func (a *App) openHelp() {
	a.showHelp, a.helpOff = true, 0
}

// helpKey handles a key while the help is shown: the list keys scroll it
// when it is taller than the window, q and ctrl+c quit, any other key
// closes it.
func (a *App) helpKey(msg tea.KeyPressMsg) tea.Cmd {
	if key.Matches(msg, a.km.Global.Quit) {
		return a.quit()
	}
	if a.helpScrolls() {
		l := &a.km.List
		page := max(a.contentHeight()-2, 1)
		switch {
		case key.Matches(msg, l.Up):
			a.scrollHelp(-1)
			return nil
		case key.Matches(msg, l.Down):
			a.scrollHelp(1)
			return nil
		case key.Matches(msg, l.PageUp):
			a.scrollHelp(-page)
			return nil
		case key.Matches(msg, l.PageDown):
			a.scrollHelp(page)
			return nil
		case key.Matches(msg, l.Top):
			a.helpOff = 0
			return nil
		case key.Matches(msg, l.Bottom):
			a.scrollHelp(len(a.helpBody()))
			return nil
		}
	}
	a.showHelp = false
	return nil
}

// helpWheel scrolls the help with the mouse wheel.
func (a *App) helpWheel(msg tea.MouseWheelMsg) {
	switch msg.Button {
	case tea.MouseWheelUp:
		a.scrollHelp(-3)
	case tea.MouseWheelDown:
		a.scrollHelp(3)
	}
}

// helpScrolls reports that the help is taller than the room under its
// title.
func (a *App) helpScrolls() bool { return len(a.helpBody()) > a.contentHeight()-1 }

// scrollHelp moves the help by d lines, within its length.
func (a *App) scrollHelp(d int) {
	room := max(a.contentHeight()-1, 1)
	a.helpOff = min(max(a.helpOff+d, 0), max(len(a.helpBody())-room, 0))
}

// helpView draws the help in h lines: its title, then the part of its
// body scrolled to.
func (a *App) helpView(h int) string {
	st := a.st
	body := a.helpBody()
	room := max(h-1, 0)
	// How to leave it first: the screen's name is what a narrow window cuts.
	how := " · any key closes · "
	if len(body) > room {
		off := min(a.helpOff, max(len(body)-room, 0))
		how = " · ↑/↓ pgdn scroll " + cell.Thousands(off+1) + "–" + cell.Thousands(min(off+room, len(body))) + "/" + cell.Thousands(len(body)) +
			" · other keys close · "
		body = body[off:min(off+room, len(body))]
	}
	lines := append([]string{cell.Clip(" "+st.Bold.S("Keys")+st.Muted.S(how+a.Focused().Title()), a.w)}, body...)
	return cell.Lines(lines, h)
}

// helpBody is the help under its title: the key groups in columns, then
// the legend, wrapped to the window's width.
func (a *App) helpBody() []string {
	st := a.st
	w := max(a.w, 10)
	lines := []string{""}
	lines = append(lines, a.helpColumns(w)...)
	// Each line in its words, wrapped to the window and muted, except the
	// replica-list one, coloured like the lists when it fits.
	legend := []string{
		"3 in a replica list is the partition's leader; 4! is a replica out of the ISR.",
		"A changed cell flashes and shows old→new for a few seconds. Mouse wheel scrolls.",
		"f on a broker card, or on a rack's heading (↑ from its first card): what losing it would do now.",
		"Commands: " + strings.Join(a.commandHints(), " ") + "   (tab completes commands and, after :topic, topic names; ctrl+n/ctrl+p the other matches)",
		"In a text field keys are typed: f1 help, esc back, ctrl+c quit.",
		"esc goes back: to the screen under this one, else to the tab shown before, as it was left.",
	}
	if a.cfg.Mode == ModeSandbox {
		legend = append(legend, "Sandbox: on the overview select a broker and press x to kill it; x again restarts it.")
		if a.kraftSandbox() {
			legend = append(legend, "KRaft sandbox: on the Quorum tab (6) x kills or restarts the voter or observer under the cursor.")
		}
	}
	lines = append(lines, "", " "+st.Bold.S("Reading the screens"))
	if cell.Width(legend[0]) <= w-2 {
		m := st.Muted.S
		lines = append(lines, " "+st.Leader.S("3")+m(" in a replica list is the partition's leader; ")+st.Danger.S("4!")+m(" is a replica out of the ISR."))
		legend = legend[1:]
	}
	for _, l := range legend {
		for _, part := range strings.Split(ansi.Wrap(l, w-2, ""), "\n") {
			lines = append(lines, " "+st.Muted.S(strings.TrimRight(part, " ")))
		}
	}
	return lines
}

// helpColumns lays the key groups out: one column per group, each as
// wide as its widest line, side by side while they fit in w and the rest
// in rows below; in a window too narrow for a line, its description
// wraps.
func (a *App) helpColumns(w int) []string {
	st := a.st.Help
	const gap = 4
	type column struct {
		lines []string
		width int
	}
	var cols []column
	for _, g := range a.helpGroups() {
		var c column
		kw := 0
		for _, b := range g {
			if b.Enabled() {
				kw = max(kw, cell.Width(b.Help().Key))
			}
		}
		// A description too long for the window goes on under itself.
		dw := max(w-2-kw-1, 8)
		for _, b := range g {
			if !b.Enabled() {
				continue
			}
			h := b.Help()
			for i, d := range strings.Split(ansi.Wrap(h.Desc, dw, ""), "\n") {
				d = strings.TrimRight(d, " ")
				k := cell.Spaces(kw)
				if i == 0 {
					k = st.FullKey.Render(cell.Fit(h.Key, kw))
				}
				c.lines = append(c.lines, k+" "+st.FullDesc.Render(d))
				c.width = max(c.width, kw+1+cell.Width(d))
			}
		}
		if len(c.lines) > 0 {
			cols = append(cols, c)
		}
	}
	var out []string
	for len(cols) > 0 {
		// As many columns as fit, at least one.
		n, used := 1, 1+cols[0].width
		for n < len(cols) && used+gap+cols[n].width <= w {
			used += gap + cols[n].width
			n++
		}
		if len(out) > 0 {
			out = append(out, "")
		}
		rows := 0
		for _, c := range cols[:n] {
			rows = max(rows, len(c.lines))
		}
		for r := range rows {
			var b strings.Builder
			b.WriteByte(' ')
			at := 1
			for i, c := range cols[:n] {
				if i > 0 {
					b.WriteString(cell.Spaces(gap))
					at += gap
				}
				if r < len(c.lines) {
					b.WriteString(c.lines[r])
					at += cell.Width(ansi.Strip(c.lines[r]))
				}
				if i < n-1 && r < len(c.lines) {
					pad := c.width - cell.Width(ansi.Strip(c.lines[r]))
					b.WriteString(cell.Spaces(pad))
					at += pad
				} else if i < n-1 {
					b.WriteString(cell.Spaces(c.width))
					at += c.width
				}
			}
			out = append(out, cell.Clip(strings.TrimRight(b.String(), " "), w))
		}
		cols = cols[n:]
	}
	return out
}

// helpGroups are the bindings in force as the help page shows them: the
// focused screen's, then the shell's (while a text field has the keys,
// only those that act there).
func (a *App) helpGroups() [][]key.Binding {
	g := a.km.Global
	if a.quitAsk != nil {
		return [][]key.Binding{{g.QuitAnyway, g.Stay}}
	}
	groups := a.Focused().FullHelp()
	if a.capturing() {
		return append(groups, []key.Binding{g.FieldHelp, g.FieldQuit})
	}
	return append(groups, append(a.tabKeys(), g.Create), []key.Binding{g.Command, g.Help, g.Back, g.Quit})
}
