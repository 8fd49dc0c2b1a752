package cursor

import (
	"testing"

	tea "charm.land/bubbletea/v2"
)

func TestWindow(t *testing.T) {
	w := Window{}
	w.SetH(5)
	w.SetN(100)
	w.Move(7)
	if w.Cursor != 7 || w.Offset != 3 {
		t.Fatalf("%+v", w)
	}
	w.Page(1)
	if w.Cursor != 11 {
		t.Fatalf("page: %+v", w)
	}
	w.To(1000)
	if w.Cursor != 99 || w.Offset != 95 || !w.Bottom() {
		t.Fatalf("end: %+v", w)
	}
	w.Scroll(-10)
	if w.Offset != 85 || w.Cursor != 89 {
		t.Fatalf("scroll: %+v", w)
	}
	w.SetN(3)
	if from, to := w.Visible(); from != 0 || to != 3 || w.Cursor != 2 {
		t.Fatalf("shrink: %+v", w)
	}
}

func TestWheel(t *testing.T) {
	w := Window{}
	w.SetH(5)
	w.SetN(100)
	Wheel(&w, tea.MouseWheelMsg{Button: tea.MouseWheelDown})
	if w.Offset != WheelStep || w.Cursor != WheelStep {
		t.Fatalf("down: %+v", w)
	}
	Wheel(&w, tea.MouseWheelMsg{Button: tea.MouseWheelUp})
	Wheel(&w, tea.MouseWheelMsg{Button: tea.MouseWheelLeft})
	if w.Offset != 0 || WheelNotch(tea.MouseWheelMsg{Button: tea.MouseWheelRight}) != 0 {
		t.Fatalf("up, sideways: %+v", w)
	}
}
