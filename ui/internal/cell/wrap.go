package cell

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// Wrap splits plain text s into lines of at most w columns (at least
// 20), at spaces only (a flag such as --bootstrap-server stays whole); a
// word wider than w is cut.
func Wrap(s string, w int) []string {
	w = max(w, 20)
	var out []string
	line := ""
	for _, word := range strings.Fields(s) {
		for Width(word) > w {
			if line != "" {
				out, line = append(out, line), ""
			}
			head := ansi.Truncate(word, w, "")
			out = append(out, head)
			word = word[len(head):]
		}
		switch {
		case line == "":
			line = word
		case Width(line)+1+Width(word) <= w:
			line += " " + word
		default:
			out, line = append(out, line), word
		}
	}
	if line != "" || len(out) == 0 {
		out = append(out, line)
	}
	return out
}

// Scroll is the h lines of lines shown from *top, which it keeps within
// them (0 when they all fit); when more lines follow, the last one shown
// says how many, painted by more.
func Scroll(lines []string, top *int, h, w int, more func(string) string) string {
	if len(lines) <= h {
		*top = 0
		return Lines(lines, h)
	}
	*top = min(max(*top, 0), len(lines)-h)
	out := lines[*top : *top+h]
	if *top+h < len(lines) {
		out = append(out[:h-1:h-1], more(Fit(" ↓ "+Count(len(lines)-*top-h+1, "more line"), w)))
	}
	return Lines(out, h)
}
