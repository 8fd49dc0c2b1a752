package cluster

import "slices"

// What a reassignment tool or the TUI leaves in the cluster when it stops
// halfway, seen from the snapshot alone (a TUI opened afterwards shows it).

// RunningThrottles are the reassignment throttles set in s while a
// reassignment is requested or running (none otherwise: ThrottlesLeftOver
// finds those). They are its own: they slow its copies, and stay after it
// until --verify (or what started it) removes them.
func RunningThrottles(s *Snapshot) LeftThrottles {
	if s == nil || s.PendingReassignment() == nil && s.Health().Reassigning == 0 {
		return LeftThrottles{}
	}
	return throttlesSet(s)
}

// LedFromLast are, by broker, the partitions of replication factor 3 or
// more, every replica live and in sync, that it leads although their
// replica list names it last: how a drain's leaders-first step leaves the
// partitions it reordered (the drained broker moved last) until its
// preferred election has run. A failover leads from the last replica only
// when the others were out of sync then, so these point at such a step
// left unfinished; a preferred election moves their leaders to their
// first replica.
func LedFromLast(s *Snapshot) map[int][]TopicPartition {
	var out map[int][]TopicPartition
	for _, t := range s.Topics() {
		for _, p := range t.Partitions {
			n := len(p.Replicas)
			if !p.InAssignment || p.Reassigning() || n < 3 || !p.HasLeader() || p.Leader != p.Replicas[n-1] || len(p.ISR) != n ||
				slices.ContainsFunc(p.Replicas, func(r int) bool { return !s.IsLive(r) || !slices.Contains(p.ISR, r) }) {
				continue
			}
			if out == nil {
				out = map[int][]TopicPartition{}
			}
			out[p.Leader] = append(out[p.Leader], TopicPartition{Topic: t.Name, Partition: p.ID})
		}
	}
	return out
}
