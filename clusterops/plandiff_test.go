package clusterops

import (
	"slices"
	"testing"

	"github.com/ktopo/ktopo/assign"
)

func TestBrokerDiff(t *testing.T) {
	plan := func(ids ...int) *TopicPlan {
		p := &TopicPlan{}
		for _, id := range ids {
			p.Brokers = append(p.Brokers, assign.BR(id, "r"))
		}
		return p
	}
	d := plan(1, 2, 4, 5).BrokerDiff(plan(1, 3, 5, 6))
	if !slices.Equal(d.Left, []int{2, 4}) || !slices.Equal(d.Joined, []int{3, 6}) || d.Empty() {
		t.Fatalf("%+v", d)
	}
	if d := plan(1, 2).BrokerDiff(plan(1, 2)); !d.Empty() {
		t.Fatalf("same brokers: %+v", d)
	}
}
