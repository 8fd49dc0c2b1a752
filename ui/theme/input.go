package theme

import "charm.land/bubbles/v2/textinput"

// NewInput returns a one-line text field (filters, the command line) in
// this theme, with a steady cursor: a blinking one would tick the renderer
// for as long as the field is open.
func NewInput(st Styles, prompt string) textinput.Model {
	ti := textinput.New()
	ti.Prompt = prompt
	StyleInput(&ti, st)
	return ti
}

// StyleInput applies st to a text field.
func StyleInput(ti *textinput.Model, st Styles) {
	s := textinput.DefaultStyles(st.Dark)
	s.Cursor.Blink = false
	if st.Mono {
		s = textinput.Styles{Cursor: textinput.CursorStyle{Shape: s.Cursor.Shape}}
	} else {
		s.Focused.Prompt = s.Focused.Prompt.Foreground(st.Palette.Accent).Bold(true)
		s.Blurred.Prompt = s.Blurred.Prompt.Foreground(st.Palette.Muted)
		s.Cursor.Color = st.Palette.Accent
	}
	ti.SetStyles(s)
}
