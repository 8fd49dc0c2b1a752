package cluster

import (
	"slices"
	"strconv"
	"strings"

	"github.com/ktopo/ktopo/internal/text"
)

// ReassignState is one partition's reassignment as the topic znode
// and the partition state show it.
type ReassignState struct {
	// Target is the replica list the reassignment ends with (the
	// assignment minus the replicas being removed, in order); Adding and
	// Removing are the topic znode's.
	Target, Adding, Removing []int
	// CatchingUp are the target replicas not yet in the ISR.
	CatchingUp []int
	Phase      ReassignPhase
}

// ReassignStateOf describes p's reassignment (Phase ReassignDone when it is
// not being reassigned).
func ReassignStateOf(p *Partition) ReassignState {
	if !p.Reassigning() {
		return ReassignState{Target: p.Replicas, Phase: ReassignDone}
	}
	r := ReassignState{Adding: p.Adding(), Removing: p.Removing()}
	for _, id := range p.Replicas {
		if !slices.Contains(p.Removing(), id) {
			r.Target = append(r.Target, id)
			if !slices.Contains(p.ISR, id) {
				r.CatchingUp = append(r.CatchingUp, id)
			}
		}
	}
	switch {
	case len(r.CatchingUp) > 0:
		r.Phase = ReassignAdding
	case !p.HasLeader() || !slices.Contains(r.Target, p.Leader):
		r.Phase = ReassignLeader
	case len(p.Removing()) > 0 && !slices.ContainsFunc(p.Removing(), func(id int) bool { return slices.Contains(p.ISR, id) }):
		r.Phase = ReassignRemoving
	default:
		r.Phase = ReassignInSync
	}
	return r
}

// ReassigningPartition is a partition being reassigned, somewhere in the
// cluster.
type ReassigningPartition struct {
	Topic     string
	Partition int
	ReassignState
	// ViaZnode: requested through /admin/reassign_partitions (Kafka's
	// tools with --zookeeper); else through the Admin API
	// (alterPartitionReassignments, the tools with --bootstrap-server),
	// which the controller records in the topic znode only.
	ViaZnode bool
	// Down are the replicas it waits for that are on brokers not registered.
	Down []int
}

// ReassignmentProgress sums the reassignments in progress.
type ReassignmentProgress struct {
	// Partitions being reassigned now, by topic and partition.
	Partitions []ReassigningPartition
	// Total counts the partitions seen reassigned since the reassignments
	// began (as far as the tracker watched), Done those of them finished.
	Total, Done int
	// CatchingUp counts the target replicas still to catch up; Adding and
	// Removing the replicas being added and removed.
	CatchingUp, Adding, Removing int
	// ByPhase counts Partitions by phase.
	ByPhase [ReassignDone]int
	// ViaZnode counts the partitions listed in /admin/reassign_partitions.
	ViaZnode int
}

// Active reports reassignments in progress.
func (r *ReassignmentProgress) Active() bool { return len(r.Partitions) > 0 }

// Reassignments lists the partitions of s being reassigned: those with
// adding or removing replicas in their topic znode, and those queued in
// /admin/reassign_partitions the controller has not started. It reads
// only the topics that have reassigning partitions.
func Reassignments(s *Snapshot) []ReassigningPartition {
	queued := map[TopicPartition]bool{}
	if r := s.PendingReassignment(); r != nil {
		for _, e := range r.Partitions {
			queued[TopicPartition{e.Topic, e.Partition}] = true
		}
	}
	var out []ReassigningPartition
	// The health counts are the sum of the topics' (partial snapshots'
	// too): none reassigning, no topic to read (a walk of every topic
	// after every batch otherwise).
	topics := s.topics
	if s.health.Reassigning == 0 {
		topics = nil
	}
	for _, t := range topics {
		if t.Health.Reassigning == 0 {
			continue
		}
		for _, p := range t.Partitions {
			if !p.Reassigning() {
				continue
			}
			k := TopicPartition{t.Name, p.ID}
			rp := ReassigningPartition{Topic: t.Name, Partition: p.ID, ReassignState: ReassignStateOf(p), ViaZnode: queued[k]}
			delete(queued, k)
			for _, id := range rp.CatchingUp {
				if !s.IsLive(id) {
					rp.Down = append(rp.Down, id)
				}
			}
			out = append(out, rp)
		}
	}
	// What the znode asks and the controller has not started (no controller,
	// or not yet read): the target replicas are the requested ones.
	if r := s.PendingReassignment(); r != nil {
		for _, e := range r.Partitions {
			k := TopicPartition{e.Topic, e.Partition}
			if !queued[k] {
				continue
			}
			delete(queued, k) // a repeated entry counts once
			rp := ReassigningPartition{Topic: e.Topic, Partition: e.Partition, ViaZnode: true,
				ReassignState: ReassignState{Target: e.Replicas, Phase: ReassignQueued}}
			if t := s.Topic(e.Topic); t != nil {
				if p := t.Partition(e.Partition); p != nil {
					for _, id := range e.Replicas {
						if !slices.Contains(p.ISR, id) {
							rp.CatchingUp = append(rp.CatchingUp, id)
						}
					}
				}
			}
			out = append(out, rp)
		}
	}
	slices.SortFunc(out, func(a, b ReassigningPartition) int {
		if c := strings.Compare(a.Topic, b.Topic); c != 0 {
			return c
		}
		return a.Partition - b.Partition
	})
	return out
}

// AllReassignmentsTracker follows every reassignment in the cluster,
// whoever started it, snapshot after snapshot (the overview's line), so
// that their progress can say how many partitions are done: the
// partitions seen being reassigned since the last time none was, and of
// them the ones finished. ReassignTracker follows one known plan instead.
// Not safe for concurrent use.
type AllReassignmentsTracker struct {
	seen map[TopicPartition]bool
	last ReassignmentProgress
}

// Observe reads s and returns the progress. Once no partition is being
// reassigned, the last progress stays (Total = Done) until a new
// reassignment starts.
func (rt *AllReassignmentsTracker) Observe(s *Snapshot) ReassignmentProgress {
	ps := Reassignments(s)
	if len(ps) == 0 {
		if len(rt.seen) > 0 {
			rt.last = ReassignmentProgress{Total: len(rt.seen), Done: len(rt.seen)}
			rt.seen = nil
		}
		return rt.last
	}
	if rt.seen == nil {
		rt.seen = map[TopicPartition]bool{}
	}
	pr := ReassignmentProgress{Partitions: ps}
	for i := range ps {
		p := &ps[i]
		rt.seen[TopicPartition{p.Topic, p.Partition}] = true
		pr.CatchingUp += len(p.CatchingUp)
		pr.Adding += len(p.Adding)
		pr.Removing += len(p.Removing)
		pr.ByPhase[p.Phase]++
		if p.ViaZnode {
			pr.ViaZnode++
		}
	}
	pr.Total = len(rt.seen)
	pr.Done = pr.Total - len(ps)
	rt.last = pr
	return pr
}

// LeftThrottles are the reassignment throttles set while no reassignment
// runs: what a reassignment left behind when nobody ran --verify after it
// (Kafka's tool removes them only then). They throttle the named replicas'
// next catch-up, a broker's return after a failure for one.
type LeftThrottles struct {
	// Brokers are the broker entities with a throttle rate (ids, or
	// "<default>"), sorted; Topics the topics with throttled replicas.
	Brokers, Topics []string
}

// Empty reports that nothing is left.
func (l LeftThrottles) Empty() bool { return len(l.Brokers) == 0 && len(l.Topics) == 0 }

// Names says which entities, as "brokers 1,2,3 and topics a,b": at most
// topics topic names (0: all), then how many more.
func (l LeftThrottles) Names(topics int) string {
	var on []string
	if n := len(l.Brokers); n > 0 {
		on = append(on, text.Plural(n, "broker ", "brokers ")+strings.Join(l.Brokers, ","))
	}
	if n := len(l.Topics); n > 0 {
		names, more := l.Topics, ""
		if topics > 0 && n > topics {
			names, more = names[:topics], " and "+strconv.Itoa(n-topics)+" more"
		}
		on = append(on, text.Plural(n, "topic ", "topics ")+strings.Join(names, ",")+more)
	}
	return strings.Join(on, " and ")
}

// ThrottlesLeftOver finds the throttles left in s: none while a
// reassignment is requested or running (they are then its own).
func ThrottlesLeftOver(s *Snapshot) LeftThrottles {
	if s == nil || s.PendingReassignment() != nil || s.Health().Reassigning > 0 {
		return LeftThrottles{}
	}
	return throttlesSet(s)
}

// throttlesSet are the reassignment throttles set in s.
func throttlesSet(s *Snapshot) LeftThrottles {
	var l LeftThrottles
	for entity, entries := range s.brokerConfig {
		if hasConfigKey(entries, BrokerThrottleKeys) {
			l.Brokers = append(l.Brokers, entity)
		}
	}
	slices.SortFunc(l.Brokers, text.CompareNatural)
	for _, name := range s.throttledTopics {
		if s.Topic(name) != nil {
			l.Topics = append(l.Topics, name)
		}
	}
	return l
}

// ReassignPhase is where a partition stands in a reassignment, as
// ZooKeeper shows the controller's steps (KafkaController's
// onPartitionReassignment, spec §4.13): the topic znode lists the target
// and the original replicas with the adding and removing ones, the new
// replicas copy the partition and join the ISR, the leader moves into the
// target if it is not in it, the removed replicas leave the ISR, and the
// topic znode is written with the target alone. The command line's
// tracker (ReassignTracker) and the TUI's view of every reassignment in
// the cluster (Reassignments) share it.
type ReassignPhase uint8

// Phases, in order.
const (
	// ReassignQueued: in /admin/reassign_partitions; the controller has
	// not written the topic znode yet.
	ReassignQueued ReassignPhase = iota
	// ReassignAdding: the new replicas copy the partition; not all of the
	// target is in the ISR.
	ReassignAdding
	// ReassignLeader: every target replica is in the ISR; the leader is
	// not one of them yet (the controller elects one from the target).
	ReassignLeader
	// ReassignInSync: every target replica is in sync and one leads; the
	// replicas being removed are still in the ISR.
	ReassignInSync
	// ReassignRemoving: the removed replicas left the ISR; the controller
	// has yet to write the topic znode with the target alone or (the
	// command line's tracker) to drop the partition from
	// /admin/reassign_partitions.
	ReassignRemoving
	// ReassignDone: the topic znode lists the target without adding or
	// removing replicas, and /admin/reassign_partitions no longer names the
	// partition.
	ReassignDone
)

var reassignPhaseNames = [...]string{"queued", "adding", "leader", "in sync", "removing", "done"}

// String names the phase.
func (p ReassignPhase) String() string {
	if int(p) < len(reassignPhaseNames) {
		return reassignPhaseNames[p]
	}
	return "ReassignPhase(" + strconv.Itoa(int(p)) + ")"
}
