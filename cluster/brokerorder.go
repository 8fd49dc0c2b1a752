package cluster

import "slices"

// BrokerHashOrder returns broker ids in the order Kafka's controller
// visits the keys of a Scala 2.13 immutable.HashMap[Int, _]: the map that
// replicas.groupBy(_.replica) builds in ReplicaStateMachine.handleStateChanges.
// When several brokers' replicas go offline in one event (brokers lost
// together, a controller failover finding several dead, a topic deletion)
// they are removed from the ISRs broker by broker in this order, which
// decides the member an ISR keeps last. Checked against Kafka 3.9.2: with
// brokers 1, 2, 4, 5 and 6 lost in one event, ISR [1,2,5] ends as [2] and
// [1,2,4,5,6] as [4] (for 1..6 the order is 5, 1, 6, 2, 3, 4). The sandbox's
// controller and the what-if (PredictFailure) both follow it.
//
// The map is a CHAMP trie keyed by Scala's improved hash of the id (a
// bijection on 32 bits, so ids never collide). Its iterator visits a
// node's inline entries in order of their 5-bit hash fragment, then its
// sub-nodes in the same order, depth first.
func BrokerHashOrder(ids []int) []int {
	type entry struct {
		id   int
		hash uint32
	}
	es := make([]entry, len(ids))
	for i, id := range ids {
		es[i] = entry{id, scalaImprovedHash(int32(id))}
	}
	out := make([]int, 0, len(ids))
	var visit func(es []entry, shift uint)
	visit = func(es []entry, shift uint) {
		frag := func(e entry) uint32 { return (e.hash >> shift) & 31 }
		slices.SortFunc(es, func(a, b entry) int { return int(frag(a)) - int(frag(b)) })
		var nodes [][]entry
		for i := 0; i < len(es); {
			j := i + 1
			for j < len(es) && frag(es[j]) == frag(es[i]) {
				j++
			}
			if j-i == 1 || shift >= 30 {
				for _, e := range es[i:j] {
					out = append(out, e.id)
				}
			} else {
				nodes = append(nodes, es[i:j])
			}
			i = j
		}
		for _, n := range nodes {
			visit(n, shift+5)
		}
	}
	visit(es, 0)
	return out
}

// scalaImprovedHash is scala.collection.Hashing.improve applied to an
// Int's hash code (the Int itself), as immutable.HashMap does.
func scalaImprovedHash(h int32) uint32 {
	x := uint32(h)
	x += ^(x << 9)
	x ^= x >> 14
	x += x << 4
	x ^= x >> 10
	return x
}
