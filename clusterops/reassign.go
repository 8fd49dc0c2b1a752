package clusterops

import (
	"slices"
	"strconv"
	"strings"

	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/internal/text"
)

// Partition reassignment through ZooKeeper, as kafka-reassign-partitions.sh
// --zookeeper does it (Kafka 2.8's ReassignPartitionsCommand; 3.x's tool
// talks to the brokers instead, which write the same znodes): the target
// replicas go into /admin/reassign_partitions, which the controller reads
// when the znode is created, and the throttle configs into the topics' and
// brokers' config znodes. ktopo writes all of them in one multi.

// Messages of kafka-reassign-partitions.
const (
	// ReassignmentInProgress is its reason for refusing a reassignment
	// while another runs; MessageReassignmentExists adds its advice, which
	// only a tool on Kafka's Admin API can follow (--additional).
	ReassignmentInProgress    = "Cannot execute because there is an existing partition assignment."
	MessageReassignmentExists = ReassignmentInProgress + "  " +
		"Use --additional to override this and create a new partition assignment in addition to the existing one. " +
		"The --additional flag can also be used to change the throttle by resubmitting the current reassignment."
	MessageRunVerify = "Warning: You must run --verify periodically, until the reassignment completes, to ensure the throttle is removed."
	MessageRollback  = "Save this to use as the --reassignment-json-file option during rollback"
)

// PartitionMove is one partition of a reassignment: its replicas now (the
// topic znode's) and the target.
type PartitionMove struct {
	cluster.TopicPartition
	Current, Target []int
	// Replaces is the target of the partition's reassignment in progress
	// that this one replaces (--additional); nil when none. Current is
	// then the replicas the partition had before that one began.
	Replaces []int
}

// Adding is the target replicas that do not hold the partition yet.
func (m PartitionMove) Adding() []int { return minus(m.Target, m.Current) }

// Removing is the current replicas that the target drops.
func (m PartitionMove) Removing() []int { return minus(m.Current, m.Target) }

// TopicThrottle is one topic's throttle configs as Kafka's tool computes
// them: the leader list names every current replica of every moved
// partition ("partition:broker"), the follower list every new replica,
// each sorted as strings (Java's TreeSet).
type TopicThrottle struct {
	Topic            string
	Leader, Follower string
}

// ReassignPlan is a validated --execute: the moves, the throttles and what
// the request writes (the file, the topics' versions it was checked at).
type ReassignPlan struct {
	// Moves in the file's order.
	Moves []PartitionMove
	// Throttle is --throttle in bytes per second, -1 for none.
	Throttle int64
	// TopicThrottles (by topic) and ThrottledBrokers (ascending, each set
	// to Throttle for both rates) are set when Throttle ≥ 0.
	TopicThrottles   []TopicThrottle
	ThrottledBrokers []int
	// NodeJSON is /admin/reassign_partitions.
	NodeJSON []byte
	// TopicVersions are the moved topics' znode versions the plan was
	// made against (the multi checks them).
	TopicVersions map[string]int32
}

// CurrentJSON is the current assignment of the moved partitions in the
// file format: what --execute prints to keep for a rollback.
func (p *ReassignPlan) CurrentJSON() []byte {
	cur := make(map[cluster.TopicPartition][]int, len(p.Moves))
	for _, m := range p.Moves {
		cur[m.TopicPartition] = m.Current
	}
	return cluster.FormatReassignmentJSON(cur)
}

// Partitions are the moved partitions, sorted as Kafka prints them.
func (p *ReassignPlan) Partitions() []cluster.TopicPartition {
	tps := make([]cluster.TopicPartition, len(p.Moves))
	for i, m := range p.Moves {
		tps[i] = m.TopicPartition
	}
	slices.SortFunc(tps, cluster.CompareTopicPartitions)
	return tps
}

// StartedMessage is the tool's "Successfully started partition
// reassignments for t-0,t-1".
func (p *ReassignPlan) StartedMessage() string {
	return "Successfully started partition reassignment" + text.Plural(len(p.Moves), "", "s") + " for " + cluster.JoinPartitions(p.Partitions(), ",")
}

// CheckReassignment is the part of planReassignment that reads nothing
// but s, whichever way the reassignment is then written: Kafka's checks,
// the moves, the throttles Kafka's tool computes (with throttle ≥ 0), the
// moved topics' versions; the ZooKeeper writer adds its multi.
func CheckReassignment(s *cluster.Snapshot, rs []cluster.Reassignment, throttle int64) (*ReassignPlan, error) {
	return checkReassignment(s, rs, throttle, false)
}

// CheckAdditionalReassignment is CheckReassignment for --additional (a
// KRaft cluster's Admin API only): the reassignments in progress are no
// refusal. A partition of rs among them is sent rs's target instead of
// theirs (its move names the one it replaces, and starts from the
// replicas the partition had before it); the throttles cover the other
// reassignments in progress too, as Kafka's tool computes them
// (calculateProposedMoveMap), so that resubmitting with --throttle
// changes the throttle of everything under way.
func CheckAdditionalReassignment(s *cluster.Snapshot, rs []cluster.Reassignment, throttle int64) (*ReassignPlan, error) {
	return checkReassignment(s, rs, throttle, true)
}

func checkReassignment(s *cluster.Snapshot, rs []cluster.Reassignment, throttle int64, additional bool) (*ReassignPlan, error) {
	if err := cluster.CheckExecute(rs); err != nil {
		return nil, err
	}
	p := &ReassignPlan{Throttle: throttle, Moves: make([]PartitionMove, 0, len(rs))}
	var missing []string
	for _, r := range rs {
		var part *cluster.Partition
		if t := s.Topic(r.Topic); t != nil {
			part = t.Partition(r.Partition)
		}
		if part == nil || !part.InAssignment {
			missing = append(missing, r.String())
			continue
		}
		mv := PartitionMove{TopicPartition: r.TopicPartition, Current: part.Replicas, Target: r.Replicas}
		if additional && part.Reassigning() {
			l := ListedReassignment{Replicas: part.Replicas, Adding: part.Adding(), Removing: part.Removing()}
			mv.Current, mv.Replaces = l.RevertsTo(), l.Target()
		}
		p.Moves = append(p.Moves, mv)
	}
	if len(missing) > 0 {
		// Kafka prints the Scala List of them.
		return nil, kafkaErr(cluster.ClassAdminCommandFailed, "The proposed assignment contains non-existent partitions: List("+strings.Join(missing, ", ")+")")
	}
	registered := s.LiveBrokerIDs()
	var unknown []int
	for _, r := range rs {
		for _, b := range r.Replicas {
			if _, ok := slices.BinarySearch(registered, b); !ok && !slices.Contains(unknown, b) {
				unknown = append(unknown, b)
			}
		}
	}
	if len(unknown) > 0 {
		return nil, kafkaErr(cluster.ClassAdminCommandFailed, "The proposed assignment contains non-existent brokerIDs: "+text.Ints(unknown))
	}
	if !additional && ReassignmentRunning(s) {
		return nil, kafkaErr(cluster.ClassReassignmentRunning, MessageReassignmentExists)
	}
	if throttle >= 0 {
		moves := p.Moves
		if additional {
			moves = append(slices.Clone(moves), ongoingMoves(s, rs)...)
		}
		p.TopicThrottles, p.ThrottledBrokers = reassignThrottles(moves)
	}
	entries := make([]cluster.PartitionReassignment, len(p.Moves))
	for i, m := range p.Moves {
		entries[i] = cluster.PartitionReassignment{Topic: m.Topic, Partition: m.Partition, Replicas: m.Target}
	}
	p.NodeJSON = cluster.EncodeReassignPartitions(entries)
	if s.KRaft() != nil {
		// A KRaft controller writes no record for a move that changes
		// nothing, so no version would ever say it was done: a move is
		// done once its partition has its target and no reassignment.
		return p, nil
	}
	p.TopicVersions = map[string]int32{}
	for _, m := range p.Moves {
		if _, ok := p.TopicVersions[m.Topic]; !ok {
			p.TopicVersions[m.Topic] = s.Topic(m.Topic).ZkVersion
		}
	}
	return p, nil
}

// ongoingMoves are the reassignments in progress of partitions rs does
// not name, as moves from the replicas each had before to its target.
func ongoingMoves(s *cluster.Snapshot, rs []cluster.Reassignment) []PartitionMove {
	var out []PartitionMove
	for _, l := range ListReassignments(s) {
		if !l.Started || slices.ContainsFunc(rs, func(r cluster.Reassignment) bool { return r.TopicPartition == l.TopicPartition }) {
			continue
		}
		out = append(out, PartitionMove{TopicPartition: l.TopicPartition, Current: l.RevertsTo(), Target: l.Target()})
	}
	return out
}

// reassignThrottles is the tool's calculateProposedMoveMap,
// calculateLeaderThrottles, calculateFollowerThrottles and
// calculateReassigningBrokers for a reassignment with none running.
func reassignThrottles(moves []PartitionMove) ([]TopicThrottle, []int) {
	type sets struct{ leader, follower []string }
	byTopic := map[string]*sets{}
	var topics []string
	var brokers []int
	for _, m := range moves {
		st := byTopic[m.Topic]
		if st == nil {
			st = &sets{}
			byTopic[m.Topic] = st
			topics = append(topics, m.Topic)
		}
		p := strconv.Itoa(m.Partition) + ":"
		for _, src := range m.Current {
			st.leader = append(st.leader, p+strconv.Itoa(src))
			brokers = append(brokers, src)
		}
		for _, dst := range m.Adding() {
			st.follower = append(st.follower, p+strconv.Itoa(dst))
			brokers = append(brokers, dst)
		}
	}
	slices.Sort(topics)
	out := make([]TopicThrottle, len(topics))
	for i, t := range topics {
		st := byTopic[t]
		out[i] = TopicThrottle{Topic: t, Leader: sortedSet(st.leader), Follower: sortedSet(st.follower)}
	}
	slices.Sort(brokers)
	return out, slices.Compact(brokers)
}

// sortedSet joins the distinct strings in Java String order (a TreeSet).
func sortedSet(xs []string) string {
	slices.Sort(xs)
	return strings.Join(slices.Compact(xs), ",")
}

// ReassignmentState is one partition's state for --verify.
type ReassignmentState struct {
	cluster.TopicPartition
	// Current is the topic znode's replica list (nil when the partition
	// does not exist), Target the file's.
	Current, Target []int
	// Done: no reassignment of the partition runs (it is neither in
	// /admin/reassign_partitions nor has replicas being added or removed).
	Done bool
}

// String is --verify's line for the partition (Kafka 3.x's wording; 2.8
// said "is complete.").
func (st ReassignmentState) String() string {
	switch {
	case !st.Done:
		return "Reassignment of partition " + st.TopicPartition.String() + " is still in progress."
	case slices.Equal(st.Current, st.Target):
		return "Reassignment of partition " + st.TopicPartition.String() + " is completed."
	default:
		return "There is no active reassignment of partition " + st.TopicPartition.String() + ", but replica set is " +
			text.Ints(st.Current) + " rather than " + text.Ints(st.Target) + "."
	}
}

// VerifyReassignment is --verify: the state of each partition of the
// file, and whether any reassignment runs in the cluster (Kafka clears
// the throttles only when none does: it cannot tell which brokers an
// earlier reassignment throttled). A reassignment runs from its entry in
// /admin/reassign_partitions until the controller has written the topic
// znode with the target replicas and no adding or removing replicas.
func VerifyReassignment(s *cluster.Snapshot, rs []cluster.Reassignment) (states []ReassignmentState, ongoing bool) {
	pending := map[cluster.TopicPartition]bool{}
	if r := s.PendingReassignment(); r != nil {
		for _, p := range r.Partitions {
			pending[cluster.TopicPartition{Topic: p.Topic, Partition: p.Partition}] = true
		}
	}
	for _, r := range rs {
		st := ReassignmentState{TopicPartition: r.TopicPartition, Target: r.Replicas, Done: true}
		if t := s.Topic(r.Topic); t != nil {
			if part := t.Partition(r.Partition); part != nil && part.InAssignment {
				st.Current = part.Replicas
				st.Done = !part.Reassigning()
			}
		}
		if pending[r.TopicPartition] {
			st.Done = false
		}
		states = append(states, st)
	}
	slices.SortFunc(states, func(a, b ReassignmentState) int {
		return cluster.CompareTopicPartitions(a.TopicPartition, b.TopicPartition)
	})
	return states, len(pending) > 0 || s.Health().Reassigning > 0
}

// ThrottleClear is what --verify does once no reassignment runs: the
// brokers and topics whose throttles it clears (in the order Kafka's tool
// prints them) and the multi that removes the throttle configs from those
// that have any.
type ThrottleClear struct {
	Brokers []int
	Topics  []string
	// Changes are the entities that had throttles.
	Changes []ConfigChange
	// Blind: the removal deletes every throttle key of Brokers and Topics,
	// set or not (Kafka's incremental deletes), so it is written even
	// when Changes knows of none.
	Blind bool
}

// BrokersMessage is "Clearing broker-level throttles on brokers 1,2,3".
func (c *ThrottleClear) BrokersMessage() string {
	return "Clearing broker-level throttles on broker" + text.Plural(len(c.Brokers), "", "s") + " " + text.Ints(c.Brokers)
}

// TopicsMessage is "Clearing topic-level throttles on topic orders".
func (c *ThrottleClear) TopicsMessage() string {
	return "Clearing topic-level throttles on topic" + text.Plural(len(c.Topics), "", "s") + " " + strings.Join(c.Topics, ",")
}

// PlanThrottleClear is the tool's clearAllThrottles: the broker throttles
// (both rates and the log directory rate) of every registered broker and
// every broker of the file, the topic throttles of every topic of the
// file. Kafka writes each entity that has one, with a change
// notification; the ZooKeeper writer does it in one multi, version-checked.
func PlanThrottleClear(s *cluster.Snapshot, z ConfigReader, rs []cluster.Reassignment) (*ThrottleClear, error) {
	brokers := s.LiveBrokerIDs()
	var topics []string
	for _, r := range rs {
		for _, b := range r.Replicas {
			if !slices.Contains(brokers, b) {
				brokers = append(brokers, b)
			}
		}
		if !slices.Contains(topics, r.Topic) {
			topics = append(topics, r.Topic)
		}
	}
	c := &ThrottleClear{Brokers: javaHashSetOrder(brokers, javaIntHash), Topics: javaHashSetOrder(topics, javaStringHash)}
	for _, b := range slices.Sorted(slices.Values(brokers)) {
		if err := c.clear(z, cluster.EntityBrokers, strconv.Itoa(b), cluster.BrokerThrottleKeys); err != nil {
			return nil, err
		}
	}
	for _, t := range slices.Sorted(slices.Values(topics)) {
		if err := c.clear(z, cluster.EntityTopics, t, cluster.TopicThrottleKeys); err != nil {
			return nil, err
		}
	}
	return c, nil
}

func (c *ThrottleClear) clear(z ConfigReader, entityType, entity string, keys []string) error {
	cfg, v, err := configMap(z, entityType, entity)
	if err != nil {
		return err
	}
	had := false
	for _, k := range keys {
		if _, ok := cfg[k]; ok {
			delete(cfg, k)
			had = true
		}
	}
	if had {
		c.Changes = append(c.Changes, ConfigChange{EntityType: entityType, Entity: entity, Config: cfg, Version: v})
	}
	return nil
}

// ThrottlesLeft lists the throttle configs set on the file's topics and on
// brokers (registered or named by the file), as "topic orders" / "broker
// 3": what a reassignment that is still running keeps.
func ThrottlesLeft(s *cluster.Snapshot, z ConfigReader, rs []cluster.Reassignment) ([]string, error) {
	c, err := PlanThrottleClear(s, z, rs)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(c.Changes))
	for i, ch := range c.Changes {
		out[i] = strings.TrimSuffix(ch.EntityType, "s") + " " + ch.Entity
	}
	return out, nil
}

// ListedReassignment is a reassignment in progress: a partition whose
// topic znode lists replicas being added or removed (the controller's
// partitionsBeingReassigned, whoever started it), or one requested in
// /admin/reassign_partitions that the controller has not started yet.
type ListedReassignment struct {
	cluster.TopicPartition
	// Replicas is the topic znode's list (target first, then the replicas
	// being removed); Adding and Removing its reassignment fields.
	Replicas, Adding, Removing []int
	// Requested is the target of /admin/reassign_partitions, when the
	// partition is there: started through ZooKeeper (kafka-reassign-partitions
	// --zookeeper, ktopo). A reassignment with Adding or Removing and no
	// entry there was started through the Admin API.
	Requested []int
	// Started: the controller has written Adding or Removing.
	Started bool
}

// Target is the replicas the reassignment moves the partition to.
func (l ListedReassignment) Target() []int { return minus(l.Replicas, l.Removing) }

// RevertsTo is the replicas a cancelled reassignment leaves, as a KRaft
// controller reverts it (PartitionReassignmentRevert): the replicas less
// those being added, in the order they are listed now. After a
// reassignment was replaced (--additional) that order may differ from the
// partition's before either began, and its preferred leader with it.
func (l ListedReassignment) RevertsTo() []int { return minus(l.Replicas, l.Adding) }

// String is 3.x's --list line ("t-0: replicas: 4,5,6,1,2,3. adding:
// 4,5,6. removing: 1,2,3."); a request the controller has not started is
// "t-0: requested: 4,5,6 (/admin/reassign_partitions; not started by the
// controller yet)."
func (l ListedReassignment) String() string {
	if !l.Started {
		return l.TopicPartition.String() + ": requested: " + text.Ints(l.Requested) + " (/admin/reassign_partitions; not started by the controller yet)."
	}
	s := l.TopicPartition.String() + ": replicas: " + text.Ints(l.Replicas) + "."
	if len(l.Adding) > 0 {
		s += " adding: " + text.Ints(l.Adding) + "."
	}
	if len(l.Removing) > 0 {
		s += " removing: " + text.Ints(l.Removing) + "."
	}
	return s
}

// ListReassignments returns every reassignment in progress, sorted.
func ListReassignments(s *cluster.Snapshot) []ListedReassignment {
	requested := map[cluster.TopicPartition][]int{}
	if r := s.PendingReassignment(); r != nil {
		for _, p := range r.Partitions {
			requested[cluster.TopicPartition{Topic: p.Topic, Partition: p.Partition}] = p.Replicas
		}
	}
	var out []ListedReassignment
	if s.Health().Reassigning > 0 {
		for _, t := range s.Topics() {
			if t.Health.Reassigning == 0 {
				continue
			}
			for _, p := range t.Partitions {
				if p.Reassigning() {
					tp := cluster.TopicPartition{Topic: t.Name, Partition: p.ID}
					out = append(out, ListedReassignment{TopicPartition: tp, Replicas: p.Replicas, Adding: p.Adding(),
						Removing: p.Removing(), Requested: requested[tp], Started: true})
					delete(requested, tp)
				}
			}
		}
	}
	for tp, r := range requested {
		out = append(out, ListedReassignment{TopicPartition: tp, Requested: r})
		if t := s.Topic(tp.Topic); t != nil {
			if p := t.Partition(tp.Partition); p != nil {
				out[len(out)-1].Replicas = p.Replicas
			}
		}
	}
	slices.SortFunc(out, func(a, b ListedReassignment) int {
		return cluster.CompareTopicPartitions(a.TopicPartition, b.TopicPartition)
	})
	return out
}

// Cleared are the entities the clear changes (those that had throttles),
// in its order.
func (c *ThrottleClear) Cleared() cluster.LeftThrottles {
	var l cluster.LeftThrottles
	for _, ch := range c.Changes {
		if ch.EntityType == cluster.EntityBrokers {
			l.Brokers = append(l.Brokers, ch.Entity)
		} else {
			l.Topics = append(l.Topics, ch.Entity)
		}
	}
	return l
}

// ReassignmentRunning reports a reassignment requested
// (/admin/reassign_partitions) or running (a topic znode with adding or
// removing replicas) in s: Kafka refuses another then
// (ReassignmentInProgress). cluster.Reassignments lists its partitions.
func ReassignmentRunning(s *cluster.Snapshot) bool {
	return s.PendingReassignment() != nil || s.Health().Reassigning > 0
}
