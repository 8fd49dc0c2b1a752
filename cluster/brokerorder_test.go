package cluster

import (
	"slices"
	"testing"
)

// TestBrokerHashOrder: the iteration order of a Scala 2.13
// immutable.HashMap with Int keys, as observed through Kafka 3.9.2's
// controller (internal/testkit/fidelity). The vectors come from Kafka's own
// scala-library 2.13.15: List(1..n).groupBy(identity).keysIterator, run
// through jshell; 1..40 has keys sharing hash fragments (sub-nodes).
func TestBrokerHashOrder(t *testing.T) {
	for _, c := range []struct{ in, want []int }{
		{[]int{1, 2, 3}, []int{1, 2, 3}},
		{[]int{1, 2, 3, 4}, []int{1, 2, 3, 4}},
		{[]int{1, 2, 3, 4, 5, 6}, []int{5, 1, 6, 2, 3, 4}},
		{[]int{6, 4, 2, 1, 5}, []int{5, 1, 6, 2, 4}},
		{[]int{2, 5}, []int{5, 2}},
		{[]int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, []int{5, 10, 1, 6, 9, 2, 7, 3, 8, 4}},
		{seq(40), []int{5, 10, 14, 1, 6, 9, 13, 2, 12, 18, 11, 8, 4, 15, 24, 37, 25, 20, 29, 21, 33, 28, 38, 17, 32,
			34, 22, 27, 7, 39, 3, 35, 16, 31, 40, 26, 23, 36, 30, 19}},
		{nil, []int{}},
	} {
		if got := BrokerHashOrder(c.in); !slices.Equal(got, c.want) {
			t.Errorf("BrokerHashOrder(%v) = %v, want %v", c.in, got, c.want)
		}
	}
	// Many keys: some share 5-bit fragments and go to sub-nodes; every id
	// comes out once.
	ids := seq(1000)
	got := BrokerHashOrder(ids)
	if s := slices.Sorted(slices.Values(got)); !slices.Equal(s, ids) {
		t.Fatalf("ids lost or repeated: %d ids", len(got))
	}
}

func seq(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i + 1
	}
	return out
}
