// Package rows holds what the list screens share: a cursor window over n
// rows (only the visible ones are ever rendered), and fast cell fitting.
package rows

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

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

// isASCII reports whether s is printable ASCII (one column per byte).
func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f {
			return false
		}
	}
	return true
}

// Width is the display width of plain (unstyled) text.
func Width(s string) int {
	if isASCII(s) {
		return len(s)
	}
	if n, ok := narrowRunes(s); ok {
		return n
	}
	return ansi.StringWidth(s)
}

// narrowRunes counts the runes of s when each is surely one column wide
// (the arrows, dashes and box characters the screens use), so the common
// case skips grapheme segmentation.
func narrowRunes(s string) (int, bool) {
	n := 0
	for _, r := range s {
		switch {
		case r < 0x20 || r == 0x7f:
			return 0, false
		case r >= 0x300 && r < 0x370, r >= 0x1100, r == utf8.RuneError:
			if r >= 0x2000 && r < 0x2c00 { // punctuation, arrows, symbols, box drawing
				break
			}
			return 0, false
		}
		n++
	}
	return n, true
}

// Fit pads or truncates plain text to exactly w columns (an ellipsis marks
// a cut).
func Fit(s string, w int) string {
	if w <= 0 {
		return ""
	}
	n := Width(s)
	switch {
	case n == w:
		return s
	case n < w:
		return s + spaces(w-n)
	}
	if w == 1 {
		return "…"
	}
	if isASCII(s) {
		return s[:w-1] + "…"
	}
	if _, ok := narrowRunes(s); ok {
		i, k := 0, 0
		for j := range s {
			if k == w-1 {
				i = j
				break
			}
			k++
		}
		return s[:i] + "…"
	}
	t := ansi.Truncate(s, w-1, "") + "…"
	if tw := ansi.StringWidth(t); tw < w {
		t += spaces(w - tw)
	}
	return t
}

// FitRight right-aligns plain text in w columns.
func FitRight(s string, w int) string {
	n := Width(s)
	if n >= w {
		return Fit(s, w)
	}
	return spaces(w-n) + s
}

// Clip cuts styled text to w columns (no padding).
func Clip(s string, w int) string {
	if w <= 0 {
		return ""
	}
	return ansi.Truncate(s, w, "…")
}

// PadStyled pads styled text whose plain width is n to w columns.
func PadStyled(s string, n, w int) string {
	if n >= w {
		return s
	}
	return s + spaces(w-n)
}

var blank = strings.Repeat(" ", 512)

func spaces(n int) string {
	if n <= len(blank) {
		return blank[:n]
	}
	return strings.Repeat(" ", n)
}

// Spaces returns n spaces.
func Spaces(n int) string {
	if n <= 0 {
		return ""
	}
	return spaces(n)
}

// Count renders n with thousands separators: 12,345.
func Count(n int) string {
	s := strconv.Itoa(n)
	if n < 0 || len(s) <= 3 {
		return s
	}
	var b strings.Builder
	pre := len(s) % 3
	if pre > 0 {
		b.WriteString(s[:pre])
	}
	for i := pre; i < len(s); i += 3 {
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(s[i : i+3])
	}
	return b.String()
}

// Lines pads a block to exactly h lines (cutting extra ones).
func Lines(lines []string, h int) string {
	if len(lines) > h {
		lines = lines[:h]
	}
	n := h
	for _, l := range lines {
		n += len(l)
	}
	var b strings.Builder
	b.Grow(n)
	for i := 0; i < h; i++ {
		if i > 0 {
			b.WriteByte('\n')
		}
		if i < len(lines) {
			b.WriteString(lines[i])
		}
	}
	return b.String()
}
