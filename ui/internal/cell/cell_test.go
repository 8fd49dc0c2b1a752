package cell

import (
	"testing"

	"github.com/charmbracelet/x/ansi"
)

func TestFitAndWidth(t *testing.T) {
	for _, tc := range []struct {
		in   string
		w    int
		want string
	}{
		{"abc", 5, "abc  "},
		{"abcdef", 4, "abc…"},
		{"1→2", 5, "1→2  "},
		{"3,4,5→5,4", 6, "3,4,5…"},
		{"日本語", 4, "日… "},
		{"x", 0, ""},
	} {
		got := Fit(tc.in, tc.w)
		if got != tc.want || (tc.w > 0 && ansi.StringWidth(got) != tc.w) {
			t.Errorf("Fit(%q, %d) = %q, want %q", tc.in, tc.w, got, tc.want)
		}
	}
	for _, s := range []string{"abc", "1→2", "−3 ISR", "╭──╮", "日本", "e\u0301"} {
		if Width(s) != ansi.StringWidth(s) {
			t.Errorf("Width(%q) = %d, want %d", s, Width(s), ansi.StringWidth(s))
		}
	}
}

func TestRow(t *testing.T) {
	if got := Row("abc", 3, 5, true); got != "abc  " {
		t.Fatalf("padded %q", got)
	}
	if got := Row("abc", 3, 5, false); got != "abc" {
		t.Fatalf("plain %q", got)
	}
	if got := Row("abcdef", 6, 4, true); got != "abc…" {
		t.Fatalf("cut %q", got)
	}
}
