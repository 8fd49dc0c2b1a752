package text

import "testing"

func TestText(t *testing.T) {
	for _, tc := range []struct{ got, want string }{
		{Join(nil, ", "), ""},
		{Join([]int{3}, ", "), "3"},
		{Join([]int{1, -2, 30}, ", "), "1, -2, 30"},
		{Join([]int{1, 2}, ":"), "1:2"},
		{Ints([]int{1, 2, 3}), "1,2,3"},
		{Ints(nil), ""},
		{List([]int{4, 5}), "[4,5]"},
		{List(nil), "[]"},
		{Broker(7), "7"},
		{Broker(0), "0"},
		{Broker(-1), "none"},
		{Plural(1, "is", "are"), "is"},
		{Plural(0, "is", "are"), "are"},
		{Plural(2, "is", "are"), "are"},
		{Count(1, "rack"), "1 rack"},
		{Count(0, "rack"), "0 racks"},
		{Count(1200, "partition"), "1200 partitions"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}
