// Package cursor moves a list screen's window with the shared list keys.
package cursor

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/ktopo/ktopo/ui/internal/rows"
	"github.com/ktopo/ktopo/ui/keys"
)

// Move applies an up, down, page, top or bottom key to w and reports
// whether msg was one of them.
func Move(w *rows.Window, km *keys.List, msg tea.KeyPressMsg) bool {
	switch {
	case key.Matches(msg, km.Up):
		w.Move(-1)
	case key.Matches(msg, km.Down):
		w.Move(1)
	case key.Matches(msg, km.PageUp):
		w.Page(-1)
	case key.Matches(msg, km.PageDown):
		w.Page(1)
	case key.Matches(msg, km.Top):
		w.To(0)
	case key.Matches(msg, km.Bottom):
		w.To(w.N - 1)
	default:
		return false
	}
	return true
}
