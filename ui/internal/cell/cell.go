// Package cell fits text into the fixed-width cells of a terminal row:
// Width measures plain text, Fit and FitRight pad or cut it to a column,
// Clip cuts styled text, Lines pads a block to a height. The common cases
// (ASCII and the narrow symbols the screens use) skip grapheme
// segmentation, which is what keeps a frame cheap.
package cell

import (
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

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

// Row fits a rendered row whose plain width is n to w columns: cut when
// wider, padded when pad is set (a selected row's background then spans
// the whole window).
func Row(s string, n, w int, pad bool) string {
	switch {
	case n > w:
		return Clip(s, w)
	case pad:
		return s + Spaces(w-n)
	}
	return s
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
