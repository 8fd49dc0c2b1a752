package cursor

// Window is a cursor and a scroll offset over N rows shown H at a time.
type Window struct {
	N, H           int
	Cursor, Offset int
}

// SetN changes the row count, keeping the cursor in range.
func (w *Window) SetN(n int) { w.N = n; w.clamp() }

// SetH changes the visible height.
func (w *Window) SetH(h int) { w.H = max(h, 1); w.clamp() }

// Move moves the cursor by d rows.
func (w *Window) Move(d int) { w.Cursor += d; w.clamp() }

// To puts the cursor on row i.
func (w *Window) To(i int) { w.Cursor = i; w.clamp() }

// Page moves by a page (d = ±1).
func (w *Window) Page(d int) { w.Move(d * max(w.H-1, 1)) }

// Scroll moves the view by d rows (mouse wheel), dragging the cursor along
// only as far as needed to keep it visible.
func (w *Window) Scroll(d int) {
	w.Offset += d
	maxOff := max(w.N-w.H, 0)
	w.Offset = min(max(w.Offset, 0), maxOff)
	if w.Cursor < w.Offset {
		w.Cursor = w.Offset
	}
	if w.Cursor >= w.Offset+w.H {
		w.Cursor = w.Offset + w.H - 1
	}
	w.clamp()
}

// End scrolls to the first rows (d < 0) or the last.
func (w *Window) End(d int) { w.Scroll(d * max(w.N, 1)) }

// Bottom reports whether the cursor is on the last row.
func (w *Window) Bottom() bool { return w.N == 0 || w.Cursor == w.N-1 }

func (w *Window) clamp() {
	if w.H < 1 {
		w.H = 1
	}
	if w.Cursor >= w.N {
		w.Cursor = w.N - 1
	}
	if w.Cursor < 0 {
		w.Cursor = 0
	}
	if w.Cursor < w.Offset {
		w.Offset = w.Cursor
	}
	if w.Cursor >= w.Offset+w.H {
		w.Offset = w.Cursor - w.H + 1
	}
	if maxOff := max(w.N-w.H, 0); w.Offset > maxOff {
		w.Offset = maxOff
	}
	if w.Offset < 0 {
		w.Offset = 0
	}
}

// Visible returns the half-open range of rows on screen.
func (w *Window) Visible() (from, to int) {
	return w.Offset, min(w.Offset+w.H, w.N)
}
