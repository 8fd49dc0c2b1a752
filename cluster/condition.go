package cluster

// Condition is what a partition needs from an operator, from nothing
// (ConditionOnline) to the worst (ConditionBad): the word the TUI's
// partition tables show, and the test of its "only unhealthy" filter.
type Condition uint8

// Partition conditions, in increasing severity.
const (
	ConditionOnline Condition = iota
	ConditionReassigning
	ConditionUnderReplicated
	ConditionUnderMinISR
	ConditionNew
	ConditionOffline
	ConditionBad
)

var conditionNames = [...]string{"online", "reassigning", "under-replicated", "under min ISR", "new", "offline", "bad state"}

// String is the condition in words.
func (c Condition) String() string { return conditionNames[c] }

// Healthy reports a partition that needs no attention (online, or being
// reassigned with a full ISR).
func (c Condition) Healthy() bool { return c == ConditionOnline || c == ConditionReassigning }

// PartitionCondition classifies partition p of topic t, the worst
// condition first: an unreadable state znode, no state yet (the controller
// has not initialised it), no live leader, fewer in-sync replicas than
// t's min.insync.replicas, fewer than all replicas in sync, a reassignment.
func (s *Snapshot) PartitionCondition(t *Topic, p *Partition) Condition {
	return conditionOf(p, s.PartitionOffline(p), s.MinISR(t, p))
}

// conditionOf is PartitionCondition given whether p is offline and its
// effective min.insync.replicas (the what-if asks it of a state to come).
func conditionOf(p *Partition, offline bool, minISR int) Condition {
	switch {
	case p.StateErr() != nil:
		return ConditionBad
	case !p.HasState:
		return ConditionNew
	case offline:
		return ConditionOffline
	case p.UnderMinISR(minISR):
		return ConditionUnderMinISR
	case p.UnderReplicated():
		return ConditionUnderReplicated
	case p.Reassigning():
		return ConditionReassigning
	}
	return ConditionOnline
}
