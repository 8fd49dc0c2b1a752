package sandbox

import (
	"slices"
	"testing"
)

// TestScalaSetAdd: up to four members an added follower is appended; from
// five the set is a HashSet (Kafka 3.9.2 wrote [1,2,4,5] + 3 as [5,1,2,3,4]).
func TestScalaSetAdd(t *testing.T) {
	for _, c := range []struct {
		isr  []int
		id   int
		want []int
	}{
		{[]int{4}, 3, []int{4, 3}},
		{[]int{2, 4, 3}, 1, []int{2, 4, 3, 1}},
		{[]int{1, 2, 4, 5}, 3, []int{5, 1, 2, 3, 4}},
		{[]int{5, 1, 2, 3, 4}, 6, []int{5, 1, 6, 2, 3, 4}},
		{[]int{4, 3}, 3, []int{4, 3}},
	} {
		if got := scalaSetAdd(c.isr, c.id); !slices.Equal(got, c.want) {
			t.Errorf("scalaSetAdd(%v, %d) = %v, want %v", c.isr, c.id, got, c.want)
		}
	}
}
