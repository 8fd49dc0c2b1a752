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

func TestTopicPartition(t *testing.T) {
	for _, tc := range []struct {
		topic string
		p, w  int
		want  string
	}{
		{"orders", 3, 10, "orders-3"},
		{"__consumer_offsets", 12, 21, "__consumer_offsets-12"},
		{"__consumer_offsets", 12, 18, "__consumer_off…-12"},
		{"__consumer_offsets", 2, 18, "__consumer_offs…-2"},
		{"__consumer_offsets", 22, 18, "__consumer_off…-22"},
		{"日本語トピック", 7, 8, "日本… -7"},
		{"abc", 123, 5, "…-123"},
		{"abc", 123, 4, "-123"},
		{"abc", 123, 3, "-1…"},
		{"abc", 1, 0, ""},
	} {
		got := TopicPartition(tc.topic, tc.p, tc.w)
		if got != tc.want || ansi.StringWidth(got) > max(tc.w, 0) {
			t.Errorf("TopicPartition(%q, %d, %d) = %q, want %q", tc.topic, tc.p, tc.w, got, tc.want)
		}
		if f := FitTopicPartition(tc.topic, tc.p, tc.w); ansi.StringWidth(f) != max(tc.w, 0) {
			t.Errorf("FitTopicPartition(%q, %d, %d) = %q", tc.topic, tc.p, tc.w, f)
		}
	}
}
