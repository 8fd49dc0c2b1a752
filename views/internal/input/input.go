// Package input makes the one-line text fields of ktopo (filters, the
// command line) look alike: themed, with a steady cursor (a blinking one
// would tick the renderer forever while the field is open).
package input

import (
	"charm.land/bubbles/v2/textinput"
	"github.com/ktopo/ktopo/ui/theme"
)

// New returns a field with the given prompt.
func New(st theme.Styles, prompt string) textinput.Model {
	ti := textinput.New()
	ti.Prompt = prompt
	Restyle(&ti, st)
	return ti
}

// Restyle applies a theme to a field.
func Restyle(ti *textinput.Model, st theme.Styles) {
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
