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
//
// LedFromLastTracker gives the same snapshot after snapshot, looking only
// at the topics that changed.
func LedFromLast(s *Snapshot) map[int][]TopicPartition {
	var out map[int][]TopicPartition
	for _, t := range s.Topics() {
		for _, l := range topicLedFromLast(s, t) {
			if out == nil {
				out = map[int][]TopicPartition{}
			}
			out[l.leader] = append(out[l.leader], l.tp)
		}
	}
	return out
}

// ledPartition is a partition led from its last replica, and its leader.
type ledPartition struct {
	leader int
	tp     TopicPartition
}

// topicLedFromLast are the partitions of t LedFromLast counts, in order
// (nil when none), the liveness of their replicas read from s.
func topicLedFromLast(s *Snapshot, t *Topic) []ledPartition {
	var out []ledPartition
	for _, p := range t.Partitions {
		n := len(p.Replicas)
		if !p.InAssignment || p.Reassigning() || n < 3 || !p.HasLeader() || p.Leader != p.Replicas[n-1] || len(p.ISR) != n ||
			slices.ContainsFunc(p.Replicas, func(r int) bool { return !s.IsLive(r) || !slices.Contains(p.ISR, r) }) {
			continue
		}
		out = append(out, ledPartition{leader: p.Leader, tp: TopicPartition{Topic: t.Name, Partition: p.ID}})
	}
	return out
}

// LedFromLastTracker computes LedFromLast snapshot after snapshot, as the
// overview does after every batch, at the cost of what changed rather than
// of a walk of every partition (a million of them: tens of milliseconds a
// batch): it keeps each topic's partitions led from last (a *Topic never
// changes; a change makes a new one) while the live brokers stay the
// same, and builds the result again only when those of a changed topic
// differ. The maps it returns are never changed afterwards. Not safe for
// concurrent use.
type LedFromLastTracker struct {
	live  []int // the live brokers the memos were computed with
	led   topicTrack[[]ledPartition]
	dirty bool // a changed topic had or has partitions led from last
	out   map[int][]TopicPartition
}

// Led returns LedFromLast(s).
func (lt *LedFromLastTracker) Led(s *Snapshot) map[int][]TopicPartition {
	if live := s.LiveBrokerIDs(); !slices.Equal(live, lt.live) {
		lt.live = live
		lt.led.reset()
		lt.out, lt.dirty = nil, true
	}
	note := func(l []ledPartition) {
		if len(l) > 0 {
			lt.dirty = true
		}
	}
	lt.led.update(s, func(t *Topic) []ledPartition { return topicLedFromLast(s, t) }, note, note)
	if lt.dirty {
		lt.out, lt.dirty = nil, false
		for _, l := range lt.led.memo {
			for _, p := range l {
				if lt.out == nil {
					lt.out = map[int][]TopicPartition{}
				}
				lt.out[p.leader] = append(lt.out[p.leader], p.tp)
			}
		}
	}
	return lt.out
}
