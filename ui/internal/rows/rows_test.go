package rows

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
	if Count(1234567) != "1,234,567" || Count(12) != "12" {
		t.Fatal(Count(1234567))
	}
}
