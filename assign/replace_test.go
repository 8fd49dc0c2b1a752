package assign

import (
	"slices"
	"testing"
)

// TestReplace: only the replicas keep lets go move; each new one goes to
// the rack the partition lacks, then the least loaded broker; a leader
// that leaves gives way to a kept replica (the one leading least), the
// new replica last; a partition keeps its replication factor.
func TestReplace(t *testing.T) {
	brokers := []Broker{BR(1, "a"), BR(2, "b"), BR(4, "a"), BR(5, "b"), BR(6, "c")} // 3 (rack c) drained
	current := Assignment{
		0: {1, 2, 3}, // 3 a follower: replaced in rack c, by 6
		1: {3, 4, 5}, // 3 leads: 4 or 5 leads, 6 added last
		2: {4, 5, 6}, // untouched
		3: {2, 3},    // RF 2: a rack other than b's, the least loaded
	}
	got, err := Replace(brokers, []Assignment{current}, func(id int) bool { return id != 3 }, RebalanceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	a := got[0]
	if !slices.Equal(a[0], []int{1, 2, 6}) || !slices.Equal(a[2], []int{4, 5, 6}) {
		t.Fatalf("%v", a)
	}
	if p := a[1]; len(p) != 3 || p[2] != 6 || p[0] == 3 || !slices.Contains(p, 4) || !slices.Contains(p, 5) {
		t.Fatalf("partition 1: %v", p)
	}
	if p := a[3]; len(p) != 2 || p[0] != 2 || slices.Contains([]int{2, 5, 3}, p[1]) {
		t.Fatalf("partition 3: %v", p)
	}
	if _, err := Replace(brokers[:1], []Assignment{{0: {3, 1}}}, func(id int) bool { return id != 3 }, RebalanceOptions{}); err == nil {
		t.Fatal("placed 2 replicas on 1 broker")
	}
}
