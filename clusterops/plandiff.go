package clusterops

import "slices"

// BrokerDiff is how the brokers of two plans of one request differ, by
// id: the brokers gone since the first plan and those new in the second.
// Both lists ascend (a plan's brokers are sorted by id).
type BrokerDiff struct {
	Left, Joined []int
}

// Empty reports the same broker ids in both plans; their racks or
// registrations may still differ.
func (d BrokerDiff) Empty() bool { return len(d.Left) == 0 && len(d.Joined) == 0 }

// BrokerDiff compares the brokers p was planned on with those of q, for
// saying why a re-checked plan differs from the one an operator saw.
func (p *TopicPlan) BrokerDiff(q *TopicPlan) BrokerDiff {
	was, now := brokerIDs(p), brokerIDs(q)
	var d BrokerDiff
	for _, id := range was {
		if !slices.Contains(now, id) {
			d.Left = append(d.Left, id)
		}
	}
	for _, id := range now {
		if !slices.Contains(was, id) {
			d.Joined = append(d.Joined, id)
		}
	}
	return d
}

func brokerIDs(p *TopicPlan) []int {
	out := make([]int, len(p.Brokers))
	for i, b := range p.Brokers {
		out[i] = b.ID
	}
	return out
}
