// Package cursor is the cursor of the list screens: a Window of N rows
// shown H at a time (only the visible ones are ever rendered), moved by the
// shared list keys (Move) and the mouse wheel (Wheel).
package cursor

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/ktopo/ktopo/ui/keys"
)

// Move applies an up, down, page, top or bottom key to w and reports
// whether msg was one of them.
func Move(w *Window, km *keys.List, msg tea.KeyPressMsg) bool {
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

// WheelStep is how many rows one notch of the mouse wheel scrolls: enough
// to move through a long list, few enough to keep one's place.
const WheelStep = 3

// WheelNotch is -1 for the wheel turned up, 1 for down and 0 for anything
// else (a sideways tilt), for screens that move by their own unit.
func WheelNotch(msg tea.MouseWheelMsg) int {
	switch msg.Mouse().Button {
	case tea.MouseWheelUp:
		return -1
	case tea.MouseWheelDown:
		return 1
	}
	return 0
}

// Wheel scrolls w by WheelStep rows per notch, dragging the cursor along
// only as far as it must stay visible.
func Wheel(w *Window, msg tea.MouseWheelMsg) { w.Scroll(WheelStep * WheelNotch(msg)) }
