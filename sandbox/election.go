package sandbox

import (
	"fmt"
	"slices"
)

// strategyKind is one of Kafka's PartitionLeaderElectionStrategy cases.
type strategyKind uint8

const (
	offlineStrategy strategyKind = iota
	preferredStrategy
	reassignStrategy
)

// strategy is a PartitionLeaderElectionStrategy (spec §4.5).
// ControlledShutdown is not used by the sandbox.
type strategy struct {
	kind         strategyKind
	allowUnclean bool
}

var (
	offlineElection   = strategy{kind: offlineStrategy}
	preferredElection = strategy{kind: preferredStrategy}
	reassignElection  = strategy{kind: reassignStrategy}
)

// String is the case class's toString, as Kafka's failure messages print it.
func (s strategy) String() string {
	switch s.kind {
	case preferredStrategy:
		return "PreferredReplicaPartitionLeaderElectionStrategy"
	case reassignStrategy:
		return "ReassignPartitionLeaderElectionStrategy"
	default:
		return fmt.Sprintf("OfflinePartitionLeaderElectionStrategy(%t)", s.allowUnclean)
	}
}

// offlinePartitionLeaderElection: the first replica in assignment order
// that is live and in the ISR; else, when unclean election is allowed, the
// first live replica; else none (-1).
func offlinePartitionLeaderElection(assignment, isr []int, live func(int) bool, unclean bool) int {
	for _, r := range assignment {
		if live(r) && slices.Contains(isr, r) {
			return r
		}
	}
	if unclean {
		for _, r := range assignment {
			if live(r) {
				return r
			}
		}
	}
	return -1
}

// preferredReplicaPartitionLeaderElection: the assignment head, only if it
// is live and in the ISR.
func preferredReplicaPartitionLeaderElection(assignment, isr []int, live func(int) bool) int {
	if len(assignment) > 0 && live(assignment[0]) && slices.Contains(isr, assignment[0]) {
		return assignment[0]
	}
	return -1
}

// leaderForReassign computes the Reassign strategy's new state: the first
// target replica (the assignment, once the reassignment is complete) that
// is live and in the ISR leads; the ISR is unchanged.
func leaderForReassign(cur leaderAndIsr, target []int, live func(int) bool) (leaderAndIsr, bool) {
	for _, r := range target {
		if live(r) && slices.Contains(cur.isr, r) {
			return cur.newLeader(r), true
		}
	}
	return leaderAndIsr{}, false
}

// leaderForOffline computes the Offline strategy's new state (ok false when
// no leader can be elected): the ISR is filtered to live members when the
// leader was in it, else it is [leader] and the partition is RECOVERING.
func leaderForOffline(cur leaderAndIsr, assignment []int, live func(int) bool, unclean bool) (leaderAndIsr, bool) {
	leader := offlinePartitionLeaderElection(assignment, cur.isr, live, unclean)
	if leader < 0 {
		return leaderAndIsr{}, false
	}
	if slices.Contains(cur.isr, leader) {
		var isr []int
		for _, r := range cur.isr {
			if live(r) {
				isr = append(isr, r)
			}
		}
		return cur.newLeaderAndIsr(leader, isr), true
	}
	return cur.newRecoveringLeaderAndIsr(leader, []int{leader}), true
}

// leaderForPreferred computes the PreferredReplica strategy's new state:
// leader epoch + 1, ISR unchanged.
func leaderForPreferred(cur leaderAndIsr, assignment []int, live func(int) bool) (leaderAndIsr, bool) {
	leader := preferredReplicaPartitionLeaderElection(assignment, cur.isr, live)
	if leader < 0 {
		return leaderAndIsr{}, false
	}
	return cur.newLeader(leader), true
}

// removeReplicaFromIsr is doRemoveReplicasFromIsr's rule for one partition
// whose ISR contains replica: no leader if it was the leader, the replica
// dropped from the ISR unless it is the only member, leader epoch + 1.
func removeReplicaFromIsr(cur leaderAndIsr, replica int) leaderAndIsr {
	leader := cur.leader
	if leader == replica {
		leader = -1
	}
	isr := cur.isr
	if len(isr) != 1 {
		isr = make([]int, 0, len(cur.isr))
		for _, r := range cur.isr {
			if r != replica {
				isr = append(isr, r)
			}
		}
	} else {
		isr = slices.Clone(isr)
	}
	return cur.newLeaderAndIsr(leader, isr)
}
