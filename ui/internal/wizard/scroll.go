package wizard

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/ktopo/ktopo/ui/keys"
)

// Scroller is what a wizard's scroll keys move: by d rows, by d pages,
// to the top (d < 0) or the bottom.
type Scroller interface {
	Scroll(d int)
	Page(d int)
	End(d int)
}

// ScrollKey moves s by msg when it is one of the wizard's scroll keys
// (the enabled ones), and reports whether it was.
func ScrollKey(msg tea.KeyPressMsg, km *keys.Wizard, s Scroller) bool {
	switch {
	case key.Matches(msg, km.ScrollUp):
		s.Scroll(-1)
	case key.Matches(msg, km.ScrollDown):
		s.Scroll(1)
	case key.Matches(msg, km.PageUp):
		s.Page(-1)
	case key.Matches(msg, km.PageDown):
		s.Page(1)
	case key.Matches(msg, km.Top):
		s.End(-1)
	case key.Matches(msg, km.Bottom):
		s.End(1)
	default:
		return false
	}
	return true
}
