package filter

import (
	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/ktopo/ktopo/ui/internal/cell"
	"github.com/ktopo/ktopo/ui/keys"
	"github.com/ktopo/ktopo/ui/theme"
)

// Field is a list screen's `/` filter: the text field, whether it has the
// keyboard, and the Matcher compiled from what it holds. It owns the rules
// of typing, so that every list screen filters alike: keys.Input.Accept
// leaves the field keeping the filter, Cancel clears it and leaves, Leave
// (unless the screen disabled it) leaves and hands the key back to the list.
type Field struct {
	in     textinput.Model
	km     keys.Input
	typing bool
	match  Matcher
	err    string
}

// NewField returns an empty field with a "/" prompt.
func NewField(st theme.Styles, km keys.Input, placeholder string) Field {
	f := Field{in: theme.NewInput(st, "/"), km: km}
	f.in.Placeholder = placeholder
	return f
}

// Typing reports whether the field has the keyboard (the screen's
// Capturing).
func (f *Field) Typing() bool { return f.typing }

// Start gives the field the keyboard.
func (f *Field) Start() tea.Cmd {
	f.typing = true
	return f.in.Focus()
}

// Matcher is the filter in force: the last text that compiled.
func (f *Field) Matcher() Matcher { return f.match }

// Err is why the text does not compile, "" when it does.
func (f *Field) Err() string { return f.err }

// Active reports a filter or an error worth clearing (what esc clears
// once the field has let go of the keyboard).
func (f *Field) Active() bool { return !f.match.Empty() || f.err != "" }

// Set replaces the text, as if typed, and reports whether the filter in
// force changed.
func (f *Field) Set(s string) bool {
	f.in.SetValue(s)
	return f.compile()
}

func (f *Field) compile() bool {
	mt, err := Compile(f.in.Value())
	if err != nil {
		f.err = err.Error()
		return false
	}
	changed := f.err != "" || mt.Text() != f.match.Text()
	f.err, f.match = "", mt
	return changed
}

// Typed is what a message did to the field.
type Typed struct {
	// Changed: the filter in force changed, the rows must be filtered again.
	Changed bool
	// HandBack: the key left the field and is the list's to act on too.
	HandBack bool
}

// Update handles a message while the field has the keyboard.
func (f *Field) Update(msg tea.Msg) (tea.Cmd, Typed) {
	if k, ok := msg.(tea.KeyPressMsg); ok {
		switch {
		case key.Matches(k, f.km.Accept):
			f.stop()
			return nil, Typed{}
		case key.Matches(k, f.km.Cancel):
			f.stop()
			return nil, Typed{Changed: f.Set("")}
		case key.Matches(k, f.km.Leave):
			f.stop()
			return nil, Typed{HandBack: true}
		}
	}
	var cmd tea.Cmd
	f.in, cmd = f.in.Update(msg)
	return cmd, Typed{Changed: f.compile()}
}

func (f *Field) stop() {
	f.typing = false
	f.in.Blur()
}

// Keys are the bindings that act while the field has the keyboard.
func (f *Field) Keys() []key.Binding { return []key.Binding{f.km.Accept, f.km.Cancel, f.km.Leave} }

// SetWidth sizes the text field.
func (f *Field) SetWidth(w int) { f.in.SetWidth(w) }

// SetStyles restyles the text field.
func (f *Field) SetStyles(st theme.Styles) { theme.StyleInput(&f.in, st) }

// View renders the text field.
func (f *Field) View() string { return f.in.View() }

// typed is the field without the blank it pads itself to its width with:
// the prompt, the text and the cursor after it (a title line cut where
// the padding ran past the window ended in a stray "…").
func (f *Field) typed() string {
	v := f.in.View()
	n := cell.Width(f.in.Prompt) + cell.Width(f.in.Value()) + 1
	if n >= cell.Width(ansi.Strip(v)) {
		return v // scrolled: the field is full
	}
	return ansi.Truncate(v, n, "")
}

// Title is what the screen's title line shows of the filter, after three
// blanks: the field while typing (and why what is typed does not compile,
// as it is typed), else why the text does not compile, else the filter in
// force followed by a muted hint; "" when there is none.
func (f *Field) Title(st *theme.Styles, hint string) string {
	switch {
	case f.typing && f.err != "":
		return "   " + f.typed() + "  " + st.Error.S(f.err)
	case f.typing:
		return "   " + f.typed()
	case f.err != "":
		return "   " + st.Error.S(f.err)
	case !f.match.Empty():
		return "   " + st.Accent.S("/"+f.match.Text()) + st.Muted.S(hint)
	}
	return ""
}
