package sandbox

import (
	"slices"

	"github.com/ktopo/ktopo/cluster"
)

// scalaHashMapOrder is the order Kafka's controller visits brokers in
// (cluster.BrokerHashOrder, which the what-if shares).
func scalaHashMapOrder(ids []int) []int { return cluster.BrokerHashOrder(ids) }

// scalaSetAdd is the ISR a Kafka leader proposes when a follower catches
// up: its ISR is a Scala immutable Set (Partition.isrState.isr), and the
// set plus one member iterates in insertion order up to four members
// (Set1..Set4) and in hash order from five on (a HashSet, the same order as
// a HashMap's keys). Seen on Kafka 3.9.2: ISR [1,2,4,5] plus 3 is written
// [5,1,2,3,4].
func scalaSetAdd(isr []int, id int) []int {
	if slices.Contains(isr, id) {
		return slices.Clone(isr)
	}
	out := append(slices.Clone(isr), id)
	if len(out) > 4 {
		return scalaHashMapOrder(out)
	}
	return out
}
