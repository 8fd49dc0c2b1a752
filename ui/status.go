package ui

import (
	"strings"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/ktopo/ktopo/clusterwatch"
	"github.com/ktopo/ktopo/ui/internal/cell"
)

// setStatus shows a message for a few seconds.
func (a *App) setStatus(s string, isErr bool) tea.Cmd {
	a.status, a.statusErr = s, isErr
	a.statusID++
	id := a.statusID
	return tea.Tick(6*time.Second, func(time.Time) tea.Msg { return clearStatusMsg{id} })
}

// clearStatusMsg: a status message's few seconds are over.
type clearStatusMsg struct{ id int }

// footer is what the status bar shows that Update sizes (View only
// draws): the connection on the right, and the room it leaves for a
// message or the keys.
type footer struct {
	help  help.Model
	right string // styled
	room  int    // columns left of right
}

// sizeFooter recomputes the status bar's right part and the width of its
// help from the connection state and the mirror's counters.
func (a *App) sizeFooter() {
	st := a.st
	dot, word := st.Online.S("●"), "connected"
	switch {
	case a.closed:
		dot, word = st.Danger.S("●"), "closed"
	case !a.haveState:
		dot, word = st.Warning.S("○"), "connecting"
	case a.resyncing:
		dot, word = st.Warning.S("●"), "resyncing"
	case a.state != clusterwatch.StateConnected:
		dot, word = st.Danger.S("●"), a.state.String()
	case !a.loaded:
		dot, word = st.Warning.S("●"), "loading"
	}
	right := " " + word
	for _, c := range a.stats.Counts {
		right += " · " + cell.Thousands(int(c.N)) + " " + c.Unit
	}
	right += " "
	a.footer.right = dot + st.Muted.S(right)
	a.footer.room = max(a.w-(cell.Width(right)+1), 0)
	a.footer.help.SetWidth(a.footer.room - 1)
}

// statusBar is the last line: the `:` line while it is open, else a
// message, a background task's progress or the keys, and the connection.
func (a *App) statusBar() string {
	st := a.st
	if a.cmdOpen {
		return cell.Clip(a.cmd.View(), a.w)
	}
	lw := a.footer.room
	var left string
	task := ""
	for _, t := range a.tasks {
		if line, _ := t.TaskStatus(); line != "" {
			task = line
			break
		}
	}
	if a.status == "" && task != "" {
		// One column kept blank before the right part, as for the help.
		left = st.Accent.S(cell.Fit(" ⟳ "+task, max(lw-1, 0))) + cell.Spaces(min(lw, 1))
	} else if a.status != "" {
		ink := st.Text
		if a.statusErr {
			ink = st.Error
		}
		msg := " " + a.status
		if _, last := a.statusOverflow(); last != "" {
			msg = last // the lines before it are above the status bar
		}
		left = ink.S(cell.Fit(msg, max(lw-1, 0))) + cell.Spaces(min(lw, 1))
	} else {
		// "? help" first: on a narrow terminal the rest is cut. While a
		// text field has the keys, ? : and q are text: name the keys that
		// still act, the screen saying what esc does there.
		g := &a.km.Global
		bs := append([]key.Binding{g.Help}, a.Focused().ShortHelp()...)
		bs = append(bs, g.Command, g.Back, g.Quit)
		if a.quitAsk != nil {
			bs = []key.Binding{g.QuitAnyway, g.Stay}
		} else if a.capturing() {
			bs = append([]key.Binding{g.FieldHelp}, a.Focused().ShortHelp()...)
			bs = append(bs, g.FieldQuit)
		}
		h := " " + a.footer.help.ShortHelpView(enabled(bs))
		if hw := cell.Width(ansi.Strip(h)); hw > lw-1 {
			left = cell.PadStyled(cell.Clip(h, lw-1), lw-1, lw)
		} else {
			left = cell.PadStyled(h, hw, lw)
		}
	}
	if lw == 0 {
		return cell.Clip(a.footer.right, a.w)
	}
	return left + a.footer.right
}

// maxStatusLines bounds the lines a long status message takes above the
// status bar.
const maxStatusLines = 4

// statusOverflow splits a status message wider than the status bar's room
// so that it is read whole: its first lines over the bottom of the screen,
// the full width, and the last one, which fits the room, in the status
// bar (nil, "" when it fits there, or there is no room above). A message
// lasts a few seconds (setStatus), then the screen is whole again.
func (a *App) statusOverflow() (above []string, last string) {
	room := a.footer.room - 1
	msg := " " + a.status
	if a.status == "" || a.cmdOpen || room <= 0 || cell.Width(msg) <= room || a.contentHeight() <= maxStatusLines+1 {
		return nil, ""
	}
	lines := strings.Split(ansi.Wrap(a.status, max(a.w-2, 10), ""), "\n")
	if end := lines[len(lines)-1]; cell.Width(end)+1 > room {
		// The last line goes on below, in the room's width.
		lines = append(lines[:len(lines)-1], strings.Split(ansi.Wrap(end, room-1, ""), "\n")...)
	}
	for i := range lines {
		lines[i] = " " + strings.TrimRight(lines[i], " ")
	}
	if len(lines)-1 > maxStatusLines {
		lines = append(lines[:maxStatusLines], cell.Fit(strings.Join(lines[maxStatusLines:], ""), room))
	}
	return lines[:len(lines)-1], lines[len(lines)-1]
}

// withStatus draws the lines of a long status message (statusOverflow)
// over the last lines of the content.
func (a *App) withStatus(content string, h int) string {
	above, _ := a.statusOverflow()
	if len(above) == 0 {
		return content
	}
	ink := a.st.Text
	if a.statusErr {
		ink = a.st.Error
	}
	lines := strings.Split(cell.Lines(strings.Split(content, "\n"), h), "\n")
	at := len(lines) - len(above)
	for i, l := range above {
		lines[at+i] = ink.S(cell.Fit(l, a.w))
	}
	return strings.Join(lines, "\n")
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
