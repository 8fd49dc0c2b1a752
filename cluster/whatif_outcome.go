package cluster

import "slices"

// FailureOutcome is one state the controller may leave a partition in.
type FailureOutcome struct {
	Leader, LeaderEpoch int
	ISR                 []int
	// ELR and LastKnownELR: KRaft's eligible leader replicas (nil: none).
	ELR, LastKnownELR []int
	Recovering        bool
}

// Compare says what FailureOutcome.Matches compares besides the leader
// and the ISR.
type Compare uint8

// What Matches may compare: the eligible leader replicas (where the
// snapshot knows them), the leader recovery state (where it has it: not
// over the Kafka protocol), the leader epoch.
const (
	CompareELR Compare = 1 << iota
	CompareRecovery
	CompareEpoch
)

// Matches reports that p is in state o.
func (o *FailureOutcome) Matches(p *Partition, what Compare) bool {
	return p.Leader == o.Leader && slices.Equal(p.ISR, o.ISR) &&
		(what&CompareELR == 0 || slices.Equal(p.ELR(), o.ELR) && slices.Equal(p.LastKnownELR(), o.LastKnownELR)) &&
		(what&CompareRecovery == 0 || (p.LeaderRecoveryState == LeaderRecovering) == o.Recovering) &&
		(what&CompareEpoch == 0 || p.LeaderEpoch == o.LeaderEpoch)
}

// ELR and LastKnownELR are a KRaft partition's eligible leader replicas
// after (KIP-966), in the outcome shown; nil when none, and on ZooKeeper.
func (f *PartitionFailure) ELR() []int {
	if f.kraft != nil {
		return f.kraft.elr
	}
	return f.Partition.ELR()
}

// LastKnownELR: see ELR.
func (f *PartitionFailure) LastKnownELR() []int {
	if f.kraft != nil {
		return f.kraft.lke
	}
	return f.Partition.LastKnownELR()
}

// Others are the other states the controller may leave the partition in,
// when that depends on the order in which it fences the failed brokers
// (KRaft); the outcome shown (Leader, ISR, …) is then the worst of them.
// Nil when there is one outcome.
func (f *PartitionFailure) Others() []FailureOutcome {
	if f.kraft != nil {
		return f.kraft.others
	}
	return nil
}

// Outcome is the state shown: the only one, or the worst.
func (f *PartitionFailure) Outcome() FailureOutcome {
	return FailureOutcome{Leader: f.Leader, LeaderEpoch: f.LeaderEpoch, ISR: f.ISR, ELR: f.ELR(), LastKnownELR: f.LastKnownELR(), Recovering: f.Recovering}
}

// Outcomes are every state the controller may leave the partition in,
// the one shown first.
func (f *PartitionFailure) Outcomes() []FailureOutcome {
	return append([]FailureOutcome{f.Outcome()}, f.Others()...)
}

// Matches reports that p is in one of the states predicted.
func (f *PartitionFailure) Matches(p *Partition, what Compare) bool {
	o := f.Outcome()
	if o.Matches(p, what) {
		return true
	}
	others := f.Others()
	for i := range others {
		if others[i].Matches(p, what) {
			return true
		}
	}
	return false
}

// OrderDecides reports that the order in which the controller fences the
// failed brokers decides the partition's leader, ISR, eligible leader
// replicas or recovery state (not only its leader epoch).
func (f *PartitionFailure) OrderDecides() bool {
	others := f.Others()
	if len(others) == 0 {
		return false
	}
	o := f.Outcome()
	for i := range others {
		if !others[i].Matches(new(Partition{Leader: o.Leader, ISR: o.ISR,
			LeaderRecoveryState: recoveryState(o.Recovering)}.SetELR(o.ELR, o.LastKnownELR)), CompareELR|CompareRecovery) {
			return true
		}
	}
	return false
}

// Unexplored reports that the partition had too many failed brokers for
// every fencing order to be tried: one was (ascending ids).
func (f *PartitionFailure) Unexplored() bool { return f.kraft != nil && f.kraft.unexplored }

func recoveryState(recovering bool) int {
	if recovering {
		return LeaderRecovering
	}
	return LeaderRecovered
}
