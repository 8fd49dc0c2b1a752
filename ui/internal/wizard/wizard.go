// Package wizard holds what the TUI's wizards share (the creation wizard,
// ui/screens/create, and the operation wizard, ui/screens/operate): the
// Frame each holds (its stage, the confirmation popup with its production
// field and warnings, the exact-writes view, the note, the sandbox pace,
// the clock and the ticks, detaching to the background), the config
// field both edit overrides in, and text wrapping for their messages.
package wizard

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
	"github.com/ktopo/ktopo/ui/internal/cell"
	"github.com/ktopo/ktopo/ui/theme"
)

// Wrap splits a message into lines of at most w columns, indented by
// indent. A message that fits stays whole on one line: indented less
// (three columns) rather than wrapped when that is what it takes.
func Wrap(s string, w, indent int) []string {
	avail := max(w-indent-1, 10)
	n := cell.Width(s)
	if n <= avail {
		return []string{cell.Spaces(indent) + s}
	}
	if indent > 3 && n <= w-4 {
		return []string{"   " + s}
	}
	avail = max(w-4, 10)
	indent = min(indent, 3)
	out := strings.Split(ansi.Wrap(s, avail, ""), "\n")
	for i := range out {
		out[i] = cell.Spaces(indent) + strings.TrimRight(out[i], " ")
	}
	return out
}

// HardWrap cuts cluster.DescribeOps lines to w columns, continuing long
// ones (JSON) on the next lines.
func HardWrap(lines []string, w int) []string {
	w = max(w, 20)
	out := make([]string, 0, len(lines))
	for _, l := range lines {
		out = append(out, strings.Split(ansi.Hardwrap(l, w, true), "\n")...)
	}
	return out
}

// OpLine styles one line of cluster.DescribeOps: the verb and the path
// stand out from the data.
func OpLine(st *theme.Styles, l string) string {
	for _, verb := range []string{"create ", "set ", "check ", "delete "} {
		if strings.HasPrefix(l, verb) {
			v, rest, _ := strings.Cut(l, " ")
			path, data, _ := strings.Cut(strings.TrimLeft(rest, " "), " ")
			return st.Accent.S(cell.Fit(v, 7)) + st.Bold.S(path) + " " + data
		}
	}
	// A Kafka request's first line: its API name.
	if l != "" && l[0] >= 'A' && l[0] <= 'Z' {
		api, rest, _ := strings.Cut(l, " ")
		return st.Accent.S(api) + " " + rest
	}
	return l
}

// Buttons draws a popup's two buttons, the chosen one (0 or 1) framed.
func Buttons(st *theme.Styles, yes, no string, chosen int) string {
	y, n := "  "+yes+"  ", "  "+no+"  "
	if chosen == 0 {
		y, n = st.TabActive.S("[ "+yes+" ]"), st.Muted.S(n)
	} else {
		y, n = st.Muted.S(y), st.TabActive.S("[ "+no+" ]")
	}
	return y + "   " + n
}
