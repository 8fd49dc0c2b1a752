package clusterops

import (
	"slices"

	"github.com/ktopo/ktopo/cluster"
)

// Leadership first (a drain's first step): before any data is copied,
// the leaders leave the drained broker where Kafka's controller in
// ZooKeeper mode lets them. A preferred election
// (/admin/preferred_replica_election) elects a partition's first replica
// when it is live and in the ISR; a reassignment that only reorders the
// current replicas adds none, so the controller completes it at once
// (onPartitionReassignment: every target replica is in the ISR; the topic
// znode is rewritten, /admin/reassign_partitions deleted) without moving
// the leader, which is still in the target. So a partition the broker
// leads moves now when another replica is live and in the ISR: by an
// election alone when its first replica is such a replica, by a reorder
// that puts one first (the drained broker last) and then the election
// otherwise. A partition with no other in-sync live replica cannot: its
// leadership moves with the copy, when the controller elects from the
// target.

// LeaderMove is one partition whose leadership moves off the broker now:
// its replicas (Replicas; Reorder, when it must be reordered first, is
// the order written, To first) and the broker that will lead it.
type LeaderMove struct {
	cluster.TopicPartition
	Replicas, Reorder []int
	To                int
}

// LeadershipFirst is the plan of a drain's leadership step.
type LeadershipFirst struct {
	Broker int
	// Moves are the partitions the broker leads whose leadership moves
	// now, sorted by topic and partition.
	Moves []LeaderMove
	// Reorder are the reorder-only reassignments (the partitions whose
	// first replica cannot be elected), in Moves order.
	Reorder []cluster.Reassignment
	// Elect are the partitions of the preferred election that follows:
	// every one of Moves.
	Elect []cluster.TopicPartition
	// Cannot are the partitions the broker leads with no other in-sync
	// live replica: their leadership moves with the copy.
	Cannot []cluster.TopicPartition
	// Cordoned are the partitions the broker leads whose leadership would
	// move by a reorder, which Kafka refuses: a replica of theirs is on a
	// cordoned broker (CordonedBrokers, sorted). It moves with the copy.
	Cordoned        []cluster.TopicPartition
	CordonedBrokers []int
}

// Empty reports that nothing moves first.
func (l *LeadershipFirst) Empty() bool { return l == nil || len(l.Moves) == 0 }

// To counts the leaders each broker takes over (broker id → count).
func (l *LeadershipFirst) To() map[int]int {
	out := map[int]int{}
	for _, m := range l.Moves {
		out[m.To]++
	}
	return out
}

// Same reports whether two plans move the same leaderships the same way
// (a plan re-made on a newer snapshot does what the preview showed).
func (l *LeadershipFirst) Same(o *LeadershipFirst) bool {
	if l.Empty() || o.Empty() {
		return l.Empty() == o.Empty()
	}
	return slices.EqualFunc(l.Moves, o.Moves, func(a, b LeaderMove) bool {
		return a.TopicPartition == b.TopicPartition && a.To == b.To && slices.Equal(a.Replicas, b.Replicas) && slices.Equal(a.Reorder, b.Reorder)
	})
}

// PlanLeadershipFirst plans moving the leadership of every partition
// broker leads off it before the drain's moves copy anything. The new
// leader is an in-sync live replica that stays in the partition's drain
// target (the target's first such, so the leader is one the drain keeps),
// else any other in-sync live replica. Partitions of topics being deleted,
// being reassigned or without leader state are left alone.
func PlanLeadershipFirst(s *cluster.Snapshot, broker int, moves []PartitionMove) *LeadershipFirst {
	l := &LeadershipFirst{Broker: broker}
	target := map[cluster.TopicPartition][]int{}
	for _, m := range moves {
		target[m.TopicPartition] = m.Target
	}
	for _, t := range s.Topics() {
		if t.MarkedForDeletion {
			continue
		}
		for _, p := range t.Partitions {
			if !p.InAssignment || !p.HasLeader() || p.Leader != broker || p.Reassigning() || len(p.Replicas) == 0 {
				continue
			}
			tp := cluster.TopicPartition{Topic: t.Name, Partition: p.ID}
			eligible := func(r int) bool { return r != broker && s.IsLive(r) && slices.Contains(p.ISR, r) }
			to := -1
			if first := p.Replicas[0]; eligible(first) {
				to = first
			} else {
				for _, r := range target[tp] {
					if slices.Contains(p.Replicas, r) && eligible(r) {
						to = r
						break
					}
				}
				if to < 0 {
					if i := slices.IndexFunc(p.Replicas, eligible); i >= 0 {
						to = p.Replicas[i]
					}
				}
			}
			if to < 0 {
				l.Cannot = append(l.Cannot, tp)
				continue
			}
			lm := LeaderMove{TopicPartition: tp, Replicas: p.Replicas, To: to}
			if p.Replicas[0] != to {
				if on := cordonedOf(s, p.Replicas); len(on) > 0 {
					l.Cordoned = append(l.Cordoned, tp)
					for _, id := range on {
						if !slices.Contains(l.CordonedBrokers, id) {
							l.CordonedBrokers = append(l.CordonedBrokers, id)
						}
					}
					continue
				}
				lm.Reorder = append(lm.Reorder, to)
				for _, r := range p.Replicas {
					if r != to && r != broker {
						lm.Reorder = append(lm.Reorder, r)
					}
				}
				lm.Reorder = append(lm.Reorder, broker)
				l.Reorder = append(l.Reorder, cluster.Reassignment{TopicPartition: tp, Replicas: lm.Reorder})
			}
			l.Moves = append(l.Moves, lm)
			l.Elect = append(l.Elect, tp)
		}
	}
	slices.Sort(l.CordonedBrokers)
	return l
}

// cordonedOf are the brokers of replicas all of whose log directories
// are cordoned (a KRaft cluster's), in replicas' order.
func cordonedOf(s *cluster.Snapshot, replicas []int) []int {
	var out []int
	for _, r := range replicas {
		if b, ok := s.Broker(r); ok && b.Cordoned {
			out = append(out, r)
		}
	}
	return out
}

// ElectionPlan is the election's znode as it will be written once the
// reorder is done (what `w` shows before anything is written; the write
// plans it again with PlanPreferredElection on the snapshot after the
// reorder).
func (l *LeadershipFirst) ElectionPlan(s *cluster.Snapshot) *ElectionPlan {
	p := &ElectionPlan{Path: cluster.PreferredReplicaElectionPath, Controller: -1, Write: l.Elect, JSON: cluster.EncodePartitionsNotification(l.Elect)}
	if c := s.Controller(); c.BrokerID >= 0 && (s.KRaft() != nil || s.IsLive(c.BrokerID)) {
		p.Controller = c.BrokerID
	}
	return p
}

// MovedOff counts the partitions of the step that the broker no longer
// leads in s (led by another broker).
func (l *LeadershipFirst) MovedOff(s *cluster.Snapshot) int {
	n := 0
	for _, tp := range l.Elect {
		if p := partitionOf(s, tp); p != nil && p.HasLeader() && p.Leader != l.Broker {
			n++
		}
	}
	return n
}

// Reordered reports whether s shows every reorder done: each partition
// with the reordered replicas and nothing reassigning.
func (l *LeadershipFirst) Reordered(s *cluster.Snapshot) bool {
	if s.PendingReassignment() != nil {
		return false
	}
	for _, r := range l.Reorder {
		p := partitionOf(s, r.TopicPartition)
		if p == nil || p.Reassigning() || !slices.Equal(p.Replicas, r.Replicas) {
			return false
		}
	}
	return true
}

func partitionOf(s *cluster.Snapshot, tp cluster.TopicPartition) *cluster.Partition {
	if t := s.Topic(tp.Topic); t != nil {
		return t.Partition(tp.Partition)
	}
	return nil
}

// RebaseMoves re-plans a drain's moves on s, the snapshot after the
// leadership step: a partition whose replicas are the ones the move was
// planned from, or the step's reorder of them, keeps its target with its
// replicas now as the current ones; any other (changed otherwise, gone,
// reassigning) is stale, and the moves must be planned again.
func RebaseMoves(s *cluster.Snapshot, moves []PartitionMove, l *LeadershipFirst) (out []PartitionMove, stale []cluster.TopicPartition) {
	reorder := map[cluster.TopicPartition][]int{}
	if l != nil {
		for _, r := range l.Reorder {
			reorder[r.TopicPartition] = r.Replicas
		}
	}
	for _, m := range moves {
		p := partitionOf(s, m.TopicPartition)
		if p == nil || !p.InAssignment || p.Reassigning() ||
			(!slices.Equal(p.Replicas, m.Current) && !slices.Equal(p.Replicas, reorder[m.TopicPartition])) {
			stale = append(stale, m.TopicPartition)
			continue
		}
		out = append(out, PartitionMove{TopicPartition: m.TopicPartition, Current: p.Replicas, Target: m.Target})
	}
	return out, stale
}
