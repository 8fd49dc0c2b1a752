package wizard

import (
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"github.com/ktopo/ktopo/ui/internal/cell"
	"github.com/ktopo/ktopo/ui/theme"
)

// Confirm is the confirmation popup both wizards ask before they write:
// two buttons, or on a production cluster a field the confirmation word
// is typed into (a word typed wrong keeps it open and says so). Warnings
// are lines the operator must read before writing (a config's effect, a
// write the cluster accepts only with a caveat): the popup shows them
// above its buttons.
type Confirm struct {
	open   bool
	button int // 0 the yes button, 1 cancel
	// production asks for word to be typed; typed is its field, wrong
	// what the last enter typed when it was not the word.
	production bool
	word       string
	typed      textinput.Model
	wrong      string // what was typed instead, after a Mistyped
	// Warnings are shown in the popup, each wrapped, above the buttons.
	Warnings []string
}

// ConfirmKeys are the popup's bindings: Yes writes (not on a production
// cluster, where only the typed word does), Cancel closes, Switch moves
// between the buttons, Choose presses the chosen one (or, production,
// checks the typed word); Back closes the production field, which takes
// every other key.
type ConfirmKeys struct {
	Yes, Cancel, Switch, Choose, Back key.Binding
}

func newConfirm(st theme.Styles, production bool) Confirm {
	in := theme.NewInput(st, "› ")
	in.SetWidth(12)
	return Confirm{production: production, typed: in}
}

// Ask opens the popup on the yes button; on a production cluster word is
// what must be typed, and the returned command focuses its field.
func (c *Confirm) Ask(word string) tea.Cmd {
	c.open, c.button, c.word, c.wrong = true, 0, word, ""
	if !c.production {
		return nil
	}
	c.typed.SetValue("")
	return c.typed.Focus()
}

// Open reports that the popup is shown.
func (c *Confirm) Open() bool { return c.open }

// Close closes the popup.
func (c *Confirm) Close() {
	c.open, c.wrong = false, ""
	c.typed.Blur()
}

// Production reports that the popup asks for a word to be typed.
func (c *Confirm) Production() bool { return c.production }

// Typing reports that the production field has the keyboard.
func (c *Confirm) Typing() bool { return c.open && c.production }

// Answer is what a key did in the popup.
type Answer uint8

// Answers.
const (
	// Pending: the popup is still open, or was cancelled.
	Pending Answer = iota
	// Yes: the operator confirmed; the popup is closed.
	Yes
	// Mistyped: on a production cluster, enter with another word typed;
	// the popup stays open and says so.
	Mistyped
)

// Key handles a key while the popup is open, and the command of the
// production field.
func (c *Confirm) Key(msg tea.KeyPressMsg, k *ConfirmKeys) (Answer, tea.Cmd) {
	if c.production {
		switch {
		case key.Matches(msg, k.Back):
			c.Close()
		case key.Matches(msg, k.Choose):
			if got := c.typed.Value(); got != c.word {
				c.wrong = got
				return Mistyped, nil
			}
			c.Close()
			return Yes, nil
		default:
			before := c.typed.Value()
			var cmd tea.Cmd
			c.typed, cmd = c.typed.Update(msg)
			if c.typed.Value() != before {
				c.wrong = "" // typing again: the mistake is behind
			}
			return Pending, cmd
		}
		return Pending, nil
	}
	switch {
	case key.Matches(msg, k.Yes):
		c.Close()
		return Yes, nil
	case key.Matches(msg, k.Cancel):
		c.Close()
	case key.Matches(msg, k.Choose):
		c.Close()
		if c.button == 0 {
			return Yes, nil
		}
	case key.Matches(msg, k.Switch):
		c.button = 1 - c.button
	}
	return Pending, nil
}

// View is the popup: body (what is written, where), the warnings, then
// the buttons (yes, Cancel) or the production field, and the keys; yes
// names the write and verb what y does ("create", "write").
func (c *Confirm) View(st *theme.Styles, body []string, yes, verb string) string {
	b := append([]string(nil), body...)
	if len(c.Warnings) > 0 {
		width := 40
		for _, l := range body {
			width = max(width, cell.Width(l))
		}
		for _, w := range c.Warnings {
			for _, l := range Wrap("⚠ "+w, width+1, 0) {
				b = append(b, st.Warning.S(l))
			}
		}
		b = append(b, "")
	}
	if c.production {
		b = append(b, st.Danger.S("Production cluster: type "+c.word+" to confirm"), c.typed.View())
		if c.wrong != "" {
			b = append(b, st.Error.S("Not written: "+quote(c.wrong)+" is not "+c.word+"."))
		} else {
			b = append(b, "")
		}
		b = append(b, st.Muted.S("enter "+verb+" · esc cancel"))
		return st.Modal.Render(strings.Join(b, "\n"))
	}
	b = append(b, Buttons(st, yes, "Cancel", c.button), "", st.Muted.S("y "+verb+" · n/esc cancel · tab switches"))
	return st.Modal.Render(strings.Join(b, "\n"))
}

// quote shows what was typed, or that nothing was.
func quote(s string) string {
	if s == "" {
		return "nothing"
	}
	return "“" + s + "”"
}
