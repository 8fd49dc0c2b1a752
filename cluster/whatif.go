package cluster

import (
	"maps"
	"slices"
	"strconv"
	"strings"
)

// The what-if: what Kafka's controller would do to the partitions if some
// brokers failed now, replayed on a snapshot with the controller's own
// rules (spec §4.4, §4.5, §4.7): the leaders on the lost brokers are
// re-elected with the Offline strategy (the first live in-sync replica in
// assignment order; an out-of-sync one only where the topic allows an
// unclean election), then the lost brokers leave the ISRs one broker after
// the other in Kafka's hash order, an ISR keeping its last member even when
// that member is dead. When the controller itself is among the lost, its
// successor's failover does the same in the other order (the ISRs first,
// then the elections), which changes only the leader epochs. A KRaft
// cluster's controller has rules of its own (whatif_kraft.go).

// PartitionFailure is one partition's fate in a FailureImpact: its state
// now and the state the controller would leave it in.
type PartitionFailure struct {
	// Partition is the partition as it is now (shared with the snapshot).
	Partition *Partition
	// Leader, ISR, LeaderEpoch and Recovering (below) are the state the
	// controller would write: the current one when it would write nothing.
	Leader      int
	ISR         []int
	LeaderEpoch int
	// Writes counts the state writes (on ZooKeeper each bumps the leader
	// epoch; on KRaft the PartitionChangeRecords, the most of any order).
	Writes int
	// MinISR is the effective min.insync.replicas under the new leader.
	MinISR int
	// kraft holds what a KRaft prediction adds when it changes the
	// eligible leader replicas, has several outcomes or could not try
	// every order (nil otherwise: a pointer, so that the many partitions
	// without keep the slice small).
	kraft *kraftFate
	// Before and After are the partition's condition now and then.
	Before, After Condition
	// Recovering: the leader would be elected from outside the ISR (an
	// unclean election, Kafka's leader_recovery_state RECOVERING).
	Recovering bool
	// OnFailed: the partition has a replica on a failed broker.
	OnFailed bool
	// LeaderLost: it is led now by a failed broker.
	LeaderLost bool

	offline, wasOffline, wasUnderMinISR bool
}

// kraftFate is a KRaft partition's eligible leader replicas after, and
// the other outcomes.
type kraftFate struct {
	elr, lke   []int
	others     []FailureOutcome
	unexplored bool
}

// Offline reports that the partition would have no live leader
// (kafka-topics --unavailable-partitions).
func (f *PartitionFailure) Offline() bool { return f.offline }

// WasOffline reports that it has no live leader now.
func (f *PartitionFailure) WasOffline() bool { return f.wasOffline }

// UnderMinISR reports that its ISR would be smaller than its min ISR
// (kafka-topics --under-min-isr-partitions, whether led or not).
func (f *PartitionFailure) UnderMinISR() bool { return len(f.ISR) < f.MinISR }

// WasUnderMinISR reports that its ISR is smaller than its min ISR now.
func (f *PartitionFailure) WasUnderMinISR() bool { return f.wasUnderMinISR }

// NewlyOffline reports that the failure would take its leader: it has one
// now and would have none.
func (f *PartitionFailure) NewlyOffline() bool { return f.offline && !f.wasOffline }

// NewlyUnderMinISR reports that the failure would take it under its min
// ISR: it is not now, and would be.
func (f *PartitionFailure) NewlyUnderMinISR() bool { return f.UnderMinISR() && !f.wasUnderMinISR }

// UnderReplicated reports that its ISR would be smaller than its
// replication factor.
func (f *PartitionFailure) UnderReplicated() bool {
	return len(f.ISR) < f.Partition.ReplicationFactor()
}

// Changed reports that its leader, ISR, eligible leader replicas or
// recovery state would change (or might, in some fencing order).
func (f *PartitionFailure) Changed() bool {
	p := f.Partition
	return f.Leader != p.Leader || !slices.Equal(f.ISR, p.ISR) || f.Recovering != (p.LeaderRecoveryState == LeaderRecovering) ||
		!slices.Equal(f.ELR(), p.ELR()) || !slices.Equal(f.LastKnownELR(), p.LastKnownELR()) || f.OrderDecides()
}

// State is the predicted state as the controller would write it.
func (f *PartitionFailure) State() PartitionState {
	st := PartitionState{Leader: f.Leader, LeaderEpoch: f.LeaderEpoch, ISR: f.ISR, Version: 1}
	if f.Recovering {
		st.LeaderRecoveryState = LeaderRecovering
	}
	return st
}

// FailureCounts sums the partitions of a FailureImpact (or of one topic).
type FailureCounts struct {
	// Partitions counts the partitions listed: those with a replica on a
	// failed broker and those the controller would write anyway.
	Partitions int
	// LeadersLost are led now by a failed broker; LeadersMoved of them
	// would get a new leader, the others none.
	LeadersLost, LeadersMoved int
	// Offline, UnderMinISR and UnderReplicated count the partitions in
	// that condition after the failure (a partition can be in several);
	// WasOffline, WasUnderMinISR and WasUnderReplicated those already in
	// it now; NewlyOffline and NewlyUnderMinISR those the failure would
	// put in it (in it after, not now: what to blame the failure for).
	Offline, UnderMinISR, UnderReplicated          int
	WasOffline, WasUnderMinISR, WasUnderReplicated int
	NewlyOffline, NewlyUnderMinISR                 int
	// Unclean counts the unclean elections (a leader from outside the ISR:
	// the messages it lacks are lost).
	Unclean int
	// OrderDecides counts the partitions whose leader, ISR or eligible
	// leader replicas depend on the order the controller fences the
	// failed brokers in (KRaft); the counts above take the worst.
	OrderDecides int
}

// add counts f.
func (c *FailureCounts) add(f *PartitionFailure) {
	p := f.Partition
	c.Partitions++
	if f.LeaderLost {
		c.LeadersLost++
		if f.Leader >= 0 {
			c.LeadersMoved++
		}
	}
	c.Offline += b2i(f.Offline())
	c.UnderMinISR += b2i(f.UnderMinISR())
	c.UnderReplicated += b2i(f.UnderReplicated())
	c.WasOffline += b2i(f.wasOffline)
	c.WasUnderMinISR += b2i(f.wasUnderMinISR)
	c.NewlyOffline += b2i(f.NewlyOffline())
	c.NewlyUnderMinISR += b2i(f.NewlyUnderMinISR())
	c.WasUnderReplicated += b2i(p.UnderReplicated())
	c.Unclean += b2i(f.Recovering && p.LeaderRecoveryState != LeaderRecovering)
	c.OrderDecides += b2i(f.OrderDecides())
}

func (c *FailureCounts) sum(o FailureCounts) {
	c.Partitions += o.Partitions
	c.LeadersLost += o.LeadersLost
	c.LeadersMoved += o.LeadersMoved
	c.Offline += o.Offline
	c.UnderMinISR += o.UnderMinISR
	c.UnderReplicated += o.UnderReplicated
	c.WasOffline += o.WasOffline
	c.WasUnderMinISR += o.WasUnderMinISR
	c.WasUnderReplicated += o.WasUnderReplicated
	c.NewlyOffline += o.NewlyOffline
	c.NewlyUnderMinISR += o.NewlyUnderMinISR
	c.Unclean += o.Unclean
	c.OrderDecides += o.OrderDecides
}

// TopicFailure is one topic's partitions in a FailureImpact.
type TopicFailure struct {
	Topic *Topic
	// Partitions by partition id.
	Partitions []PartitionFailure
	Counts     FailureCounts
}

// FailureImpact is what losing Brokers now would do (PredictFailure).
type FailureImpact struct {
	// Brokers are the brokers lost together, ascending; Live those of them
	// registered now (a broker already down changes nothing by failing).
	Brokers, Live []int
	// ControllerFails: the controller is among them (or there is none), so
	// the next controller's failover does the work.
	ControllerFails bool
	// KRaft: the KRaft controller's rules were applied (whatif_kraft.go);
	// ELR: with eligible leader replicas (eligible.leader.replicas.version
	// ≥ 1); QuorumLost: the failed nodes take the metadata quorum's
	// majority, so no controller acts and nothing is predicted to change.
	KRaft, ELR, QuorumLost bool
	// Topics that have a listed partition, by name.
	Topics []TopicFailure
	// Counts over every topic.
	Counts FailureCounts
	// Deleting counts the partitions on the failed brokers of topics marked
	// for deletion: the controller's deletion handles them, not elections,
	// and they are not predicted.
	Deleting int
	// Seq is the snapshot the prediction was made on.
	Seq uint64
}

// Partition returns the fate of a partition, or nil when not listed.
func (f *FailureImpact) Partition(topic string, id int) *PartitionFailure {
	i, ok := slices.BinarySearchFunc(f.Topics, topic, func(t TopicFailure, name string) int { return strings.Compare(t.Topic.Name, name) })
	if !ok {
		return nil
	}
	ps := f.Topics[i].Partitions
	j, ok := slices.BinarySearchFunc(ps, id, func(p PartitionFailure, id int) int { return p.Partition.ID - id })
	if !ok {
		return nil
	}
	return &ps[j]
}

// PredictFailure tells what losing brokers together (one broker, or a
// rack) would do now (see FailurePredictor).
func PredictFailure(s *Snapshot, brokers ...int) *FailureImpact {
	return NewFailurePredictor(brokers...).Predict(s)
}

// FailurePredictor predicts one failure on snapshot after snapshot. It
// remembers, for each topic it saw, which partitions matter and what it
// predicted for them: while the brokers, the controller and the dynamic
// broker configs stay the same, a new snapshot costs only its changed
// topics (a *Topic never changes; a change makes a new one). Not safe for
// concurrent use.
type FailurePredictor struct {
	failed []int
	memo   map[*Topic]*topicMemo
	env    failureEnv
	hasEnv bool
}

// topicMemo is what the predictor keeps of one topic.
type topicMemo struct {
	cand []int32 // the partitions that may matter (candidates)
	// tf and deleting are the topic's prediction under the predictor's env;
	// valid when done.
	tf       TopicFailure
	deleting int
	done     bool
}

// failureEnv is what a prediction depends on besides the topic itself.
type failureEnv struct {
	live, gone   []int // live brokers; brokers whose replicas go offline, in order
	ctrl         int
	brokerConfig map[string][]ConfigEntry
	brokerMinISR map[int]int
	kraft        bool
	rules        kraftRules
}

func (e *failureEnv) same(o *failureEnv) bool {
	return slices.Equal(e.live, o.live) && slices.Equal(e.gone, o.gone) && e.ctrl == o.ctrl &&
		maps.EqualFunc(e.brokerConfig, o.brokerConfig, slices.Equal) && maps.Equal(e.brokerMinISR, o.brokerMinISR) &&
		e.kraft == o.kraft && e.rules == o.rules
}

// NewFailurePredictor predicts the failure of brokers (any order,
// duplicates ignored).
func NewFailurePredictor(brokers ...int) *FailurePredictor {
	f := slices.Clone(brokers)
	slices.Sort(f)
	return &FailurePredictor{failed: slices.Compact(f), memo: map[*Topic]*topicMemo{}}
}

// Brokers are the brokers whose failure is predicted, ascending.
func (fp *FailurePredictor) Brokers() []int { return fp.failed }

func (fp *FailurePredictor) isFailed(id int) bool {
	_, ok := slices.BinarySearch(fp.failed, id)
	return ok
}

// candidates are the partitions of t that may matter: a replica on a failed
// broker, or no leader (an election at the broker change may elect one).
func (fp *FailurePredictor) candidates(t *Topic) []int32 {
	var idx []int32
	for i, p := range t.Partitions {
		if !p.HasLeader() || slices.ContainsFunc(p.Replicas, fp.isFailed) {
			idx = append(idx, int32(i))
		}
	}
	return idx
}

// predicted is the state a partition is replayed on.
type predicted struct {
	leader, epoch int
	isr           []int
	recovering    bool
	writes        int
}

// prediction is what one Predict call shares between topics.
type prediction struct {
	s               *Snapshot
	live            func(int) bool
	ctrl            int
	controllerFails bool
	act             bool
	gone            []int
	kraft           *kraftRules // nil: ZooKeeper mode's rules
	doomed          []int       // kraftPartition's buffers
	outs            []kpart
}

// Predict replays the failure on s.
func (fp *FailurePredictor) Predict(s *Snapshot) *FailureImpact {
	out := &FailureImpact{Brokers: fp.failed, Seq: s.Seq()}
	for _, id := range fp.failed {
		if s.IsLive(id) {
			out.Live = append(out.Live, id)
		}
	}
	pr := prediction{s: s, live: func(id int) bool { return s.IsLive(id) && !fp.isFailed(id) }, ctrl: s.Controller().BrokerID}
	pr.controllerFails = pr.ctrl < 0 || fp.isFailed(pr.ctrl)
	out.ControllerFails = pr.controllerFails
	env := failureEnv{ctrl: pr.ctrl, brokerConfig: s.brokerConfig, brokerMinISR: s.brokerMinISR}
	if k := s.KRaft(); k != nil {
		env.kraft, env.rules = true, kraftRulesOf(k, fp.isFailed)
		pr.kraft = &env.rules
		out.KRaft, out.ELR, out.QuorumLost = true, env.rules.elr, env.rules.quorumLost
	}
	// The brokers whose replicas go offline, in the order the controller
	// handles them: the newly dead ones at a broker change; at a failover,
	// every broker holding replicas that is not live (on ZooKeeper: a
	// KRaft controller fences only the brokers that lose their session).
	for i := range s.brokers {
		b := &s.brokers[i]
		if b.Live {
			env.live = append(env.live, b.ID)
		}
		switch {
		case b.Replicas == 0:
		case pr.controllerFails && pr.kraft == nil && !pr.live(b.ID):
			pr.gone = append(pr.gone, b.ID)
		case b.Live && fp.isFailed(b.ID):
			pr.gone = append(pr.gone, b.ID)
		}
	}
	pr.gone = BrokerHashOrder(pr.gone)
	env.gone = pr.gone
	// Nothing happens if no registered broker is lost, nor without a
	// controller to act.
	pr.act = len(out.Live) > 0 && !env.rules.quorumLost
	// What was predicted for an unchanged topic holds while the rest is the
	// same; a leader gone but not replaced yet (the controller at work)
	// makes every topic's partitions candidates, so nothing is kept then.
	reuse := fp.hasEnv && env.same(&fp.env) && !s.deadLeaders
	fp.env, fp.hasEnv = env, true
	memo := make(map[*Topic]*topicMemo, len(fp.memo))
	listed := 0
	for _, t := range s.topics {
		tm := fp.memo[t]
		if tm == nil {
			tm = &topicMemo{cand: fp.candidates(t)}
		} else if !reuse {
			tm.done = false
		}
		memo[t] = tm
		if !tm.done {
			tm.tf, tm.deleting = fp.topic(&pr, t, tm.cand)
			tm.done = !s.deadLeaders
		}
		out.Deleting += tm.deleting
		if len(tm.tf.Partitions) > 0 {
			out.Counts.sum(tm.tf.Counts)
			listed++
		}
	}
	// The topics listed, in a slice of their size (a TopicFailure is
	// large: growing the slice by appends cost more than this second pass).
	out.Topics = make([]TopicFailure, 0, listed)
	for _, t := range s.topics {
		if tm := memo[t]; len(tm.tf.Partitions) > 0 {
			out.Topics = append(out.Topics, tm.tf)
		}
	}
	fp.memo = memo // topics no longer in the snapshot are forgotten
	return out
}

// topic predicts the candidate partitions idx of t.
func (fp *FailurePredictor) topic(pr *prediction, t *Topic, idx []int32) (tf TopicFailure, deleting int) {
	s := pr.s
	tf.Topic = t
	if s.deadLeaders {
		// A leader that left but was not replaced yet: its partitions are
		// candidates too.
		var all []int32
		k := 0
		for i, p := range t.Partitions {
			in := k < len(idx) && idx[k] == int32(i)
			if in {
				k++
			}
			if in || p.HasLeader() && !s.IsLive(p.Leader) {
				all = append(all, int32(i))
			}
		}
		idx = all
	}
	if t.MarkedForDeletion {
		for _, i := range idx {
			if slices.ContainsFunc(t.Partitions[i].Replicas, fp.isFailed) {
				deleting++
			}
		}
		return tf, deleting
	}
	tf.Partitions = make([]PartitionFailure, 0, len(idx))
	unclean, uncleanKnown := false, false
	mayUnclean := func() bool {
		if !uncleanKnown {
			unclean, uncleanKnown = s.UncleanLeaderElection(t, pr.ctrl, pr.controllerFails), true
		}
		return unclean
	}
	for _, i := range idx {
		p := t.Partitions[i]
		f := PartitionFailure{Partition: p, Leader: p.Leader, ISR: p.ISR, LeaderEpoch: p.LeaderEpoch,
			Recovering: p.LeaderRecoveryState == LeaderRecovering,
			OnFailed:   slices.ContainsFunc(p.Replicas, fp.isFailed),
			LeaderLost: p.HasLeader() && fp.isFailed(p.Leader)}
		switch {
		case !pr.act || !p.HasState || p.StateErr() != nil:
		case pr.kraft != nil:
			pr.kraftPartition(&f, t, mayUnclean)
		default:
			st := predicted{leader: p.Leader, epoch: p.LeaderEpoch, isr: p.ISR, recovering: f.Recovering}
			if pr.controllerFails {
				removeFromISRs(&st, p.Replicas, pr.gone)
				electOffline(&st, p.Replicas, pr.live, mayUnclean)
			} else {
				electOffline(&st, p.Replicas, pr.live, mayUnclean)
				removeFromISRs(&st, p.Replicas, pr.gone)
			}
			f.Leader, f.ISR, f.LeaderEpoch, f.Recovering, f.Writes = st.leader, st.isr, st.epoch, st.recovering, st.writes
		}
		if !f.OnFailed && f.Writes == 0 {
			continue
		}
		after := *p
		after.Leader, after.ISR = f.Leader, f.ISR
		f.MinISR = minISRFor(t, &after, s.brokerMinISR)
		f.offline = !after.HasLeader() || !pr.live(after.Leader)
		f.wasOffline = s.PartitionOffline(p)
		f.wasUnderMinISR = p.UnderMinISR(s.MinISR(t, p))
		f.Before = s.PartitionCondition(t, p)
		f.After = conditionOf(&after, f.offline, f.MinISR)
		tf.Partitions = append(tf.Partitions, f)
		tf.Counts.add(&f)
	}
	if len(tf.Partitions) == 0 {
		tf.Partitions = nil
	}
	return tf, 0
}

// electOffline is the Offline election of a partition whose leader is not
// live (spec §4.5): the first live in-sync replica in assignment order;
// with none, and the topic allowing it, the first live replica, which then
// is the ISR alone and recovering; else the state stays as it is.
func electOffline(st *predicted, replicas []int, live func(int) bool, unclean func() bool) {
	if st.leader >= 0 && live(st.leader) {
		return
	}
	leader := -1
	for _, r := range replicas {
		if live(r) && slices.Contains(st.isr, r) {
			leader = r
			break
		}
	}
	if leader >= 0 {
		isr := make([]int, 0, len(st.isr))
		for _, r := range st.isr {
			if live(r) {
				isr = append(isr, r)
			}
		}
		st.leader, st.isr, st.recovering = leader, isr, false
		st.epoch++
		st.writes++
		return
	}
	if !unclean() {
		return
	}
	for _, r := range replicas {
		if live(r) {
			st.leader, st.isr, st.recovering = r, []int{r}, true
			st.epoch++
			st.writes++
			return
		}
	}
}

// removeFromISRs takes the gone brokers out of the ISR one after the other
// (doRemoveReplicasFromIsr, spec §4.4): a replica of the partition that is
// in its ISR leaves it, unless it is the last member; the leader becomes
// none if it was that replica; every such step is a write.
func removeFromISRs(st *predicted, replicas, gone []int) {
	for _, b := range gone {
		if !slices.Contains(replicas, b) || !slices.Contains(st.isr, b) {
			continue
		}
		if st.leader == b {
			st.leader = -1
		}
		if len(st.isr) != 1 {
			isr := make([]int, 0, len(st.isr)-1)
			for _, r := range st.isr {
				if r != b {
					isr = append(isr, r)
				}
			}
			st.isr = isr
		}
		st.epoch++
		st.writes++
	}
}

// UncleanLeaderElection is the unclean.leader.election.enable the
// controller applies to topic t (spec §4.5): the topic's override, else
// the controller broker's config, which ZooKeeper holds only as its
// dynamic overrides (/config/brokers/<controller>, then <default>); the
// brokers' static default is false. With newController, the broker that
// will be controller is not known and only <default> is read.
func (s *Snapshot) UncleanLeaderElection(t *Topic, controller int, newController bool) bool {
	if v, ok := t.ConfigValue(UncleanLeaderElectionEnable); ok {
		return configTrue(v)
	}
	if !newController && controller >= 0 {
		if v, ok := entryValue(s.brokerConfig[strconv.Itoa(controller)], UncleanLeaderElectionEnable); ok {
			return configTrue(v)
		}
	}
	if v, ok := entryValue(s.brokerConfig[BrokerDefaultEntity], UncleanLeaderElectionEnable); ok {
		return configTrue(v)
	}
	return false
}

// UncleanLeaderElectionEnable is the config key of unclean elections, the
// same for topics and brokers.
const UncleanLeaderElectionEnable = "unclean.leader.election.enable"

// configTrue parses a boolean config as Kafka does (case-insensitive,
// trimmed); anything else is not true.
func configTrue(v string) bool { return strings.EqualFold(strings.TrimSpace(v), "true") }

func entryValue(es []ConfigEntry, k string) (string, bool) {
	for _, e := range es {
		if e.Key == k {
			return e.Value, true
		}
	}
	return "", false
}

// Troubled lists the partitions of s offline (kafka-topics
// --unavailable-partitions) and under their min ISR
// (--under-min-isr-partitions), by topic and partition.
func (s *Snapshot) Troubled() (offline, underMinISR []TopicPartition) {
	return troubled(s, nil)
}

// TroubledAfter is Troubled as the cluster would be once the failure
// happened: the predicted state of the partitions listed, s's elsewhere
// (s is the snapshot the prediction was made on).
func (f *FailureImpact) TroubledAfter(s *Snapshot) (offline, underMinISR []TopicPartition) {
	return troubled(s, f)
}

func troubled(s *Snapshot, fi *FailureImpact) (offline, underMinISR []TopicPartition) {
	for _, t := range s.topics {
		for _, p := range t.Partitions {
			off, under := s.PartitionOffline(p), p.UnderMinISR(s.MinISR(t, p))
			if fi != nil {
				if f := fi.Partition(t.Name, p.ID); f != nil {
					off, under = f.Offline(), f.UnderMinISR()
				}
			}
			if off {
				offline = append(offline, TopicPartition{t.Name, p.ID})
			}
			if under {
				underMinISR = append(underMinISR, TopicPartition{t.Name, p.ID})
			}
		}
	}
	return offline, underMinISR
}
