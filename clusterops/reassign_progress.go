package clusterops

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/internal/text"
)

// PartitionReassignProgress is one partition's reassignment as ZooKeeper
// shows it now.
type PartitionReassignProgress struct {
	PartitionMove
	Phase cluster.ReassignPhase
	// Replicas, Adding and Removing are the topic znode's; Leader and ISR
	// the state znode's.
	Replicas, Adding, Removing, ISR []int
	Leader                          int
	// InSync counts the target replicas in the ISR.
	InSync int
}

// ReassignProgress is how far a reassignment has come.
type ReassignProgress struct {
	Partitions []PartitionReassignProgress
	// Count per phase.
	Count [cluster.ReassignDone + 1]int
	// Waiting says, in words, what partitions that do not move on wait
	// for (no controller, target brokers that are not registered, …).
	Waiting []string
}

// Done reports that every partition has reached ReassignDone.
func (p ReassignProgress) Done() bool { return p.Count[cluster.ReassignDone] == len(p.Partitions) }

// ReassignTracker follows one known reassignment (its plan's moves: the command
// line's --execute and the operation wizard) through successive snapshots
// (AllReassignmentsTracker follows every one in the cluster). It
// recomputes only the partitions of topics that changed since the last
// snapshot (a *Topic that is the same pointer has not changed), so that a
// batch costs what it touched, not the size of the reassignment.
type ReassignTracker struct {
	moves []PartitionMove
	index map[cluster.TopicPartition]int
	// topics are the moved topics, sorted, with the indexes of their moves
	// and the *Topic their progress was computed from.
	topics  []trackedTopic
	pending *cluster.ReassignPartitions
	// inNode[i]: move i is in /admin/reassign_partitions (next: scratch).
	inNode, next []bool
	parts        []PartitionReassignProgress
	first        bool
}

type trackedTopic struct {
	name  string
	moves []int
	last  *cluster.Topic
	// from is the topic znode's version when the reassignment was
	// written (-1: unknown).
	from int32
}

// NewReassignTracker follows moves, written when their topics' znodes had
// versions (nil when unknown). With the versions, a partition whose
// target equals its replicas is done only once the controller has
// rewritten its topic znode, which it always does when it finishes a
// partition: the first snapshots may predate the request.
func NewReassignTracker(moves []PartitionMove, versions map[string]int32) *ReassignTracker {
	t := &ReassignTracker{moves: moves, index: make(map[cluster.TopicPartition]int, len(moves)),
		inNode: make([]bool, len(moves)), next: make([]bool, len(moves)),
		parts: make([]PartitionReassignProgress, len(moves)), first: true}
	byTopic := map[string][]int{}
	for i, m := range moves {
		t.index[m.TopicPartition] = i
		byTopic[m.Topic] = append(byTopic[m.Topic], i)
	}
	for _, name := range slices.Sorted(maps.Keys(byTopic)) {
		from, ok := versions[name]
		if !ok {
			from = -1
		}
		t.topics = append(t.topics, trackedTopic{name: name, moves: byTopic[name], from: from})
	}
	return t
}

// Update reads the reassignment's progress from s. Its cost is the
// snapshot's topic count (pointer comparisons) plus the moved partitions
// of the topics that changed, plus the size of
// /admin/reassign_partitions when it changed.
func (t *ReassignTracker) Update(s *cluster.Snapshot) ReassignProgress {
	if t.first || s.PendingReassignment() != t.pending {
		// Only the partitions that entered or left the request change.
		t.pending = s.PendingReassignment()
		clear(t.next)
		if t.pending != nil {
			for _, p := range t.pending.Partitions {
				if i, ok := t.index[cluster.TopicPartition{Topic: p.Topic, Partition: p.Partition}]; ok {
					t.next[i] = true
				}
			}
		}
		t.inNode, t.next = t.next, t.inNode
		for i := range t.inNode {
			if t.inNode[i] != t.next[i] && !t.first {
				t.parts[i] = t.partition(i, s.Topic(t.moves[i].Topic))
			}
		}
	}
	// The snapshot's topics are sorted by name, as t.topics: one walk
	// finds the ones that changed.
	all := s.Topics()
	j := 0
	for k := range t.topics {
		tt := &t.topics[k]
		for j < len(all) && all[j].Name < tt.name {
			j++
		}
		var topic *cluster.Topic
		if j < len(all) && all[j].Name == tt.name {
			topic = all[j]
		}
		if !t.first && topic == tt.last {
			continue
		}
		tt.last = topic
		for _, i := range tt.moves {
			t.parts[i] = t.partition(i, topic)
		}
	}
	t.first = false
	pr := ReassignProgress{Partitions: t.parts}
	var unregistered []int
	for _, p := range t.parts {
		pr.Count[p.Phase]++
		if p.Phase == cluster.ReassignAdding {
			for _, r := range p.Target {
				if !s.IsLive(r) && !slices.Contains(unregistered, r) {
					unregistered = append(unregistered, r)
				}
			}
		}
	}
	if w := noController(s, "carries the reassignment out"); !pr.Done() && w != "" {
		pr.Waiting = append(pr.Waiting, w)
	}
	if len(unregistered) > 0 {
		slices.Sort(unregistered)
		pr.Waiting = append(pr.Waiting, fmt.Sprintf("%s %s not registered: %s replicas cannot catch up until %s",
			text.Plural(len(unregistered), "broker", "brokers"), text.Ints(unregistered),
			text.Plural(len(unregistered), "its", "their"), text.Plural(len(unregistered), "it returns", "they return")))
	}
	return pr
}

func (t *ReassignTracker) partition(i int, topic *cluster.Topic) PartitionReassignProgress {
	m := t.moves[i]
	pp := PartitionReassignProgress{PartitionMove: m, Leader: cluster.NoLeader}
	var part *cluster.Partition
	if topic != nil {
		part = topic.Partition(m.Partition)
	}
	if part == nil {
		// The topic or partition is gone (deleted meanwhile): nothing
		// will move it.
		pp.Phase = cluster.ReassignQueued
		return pp
	}
	pp.Replicas, pp.Adding, pp.Removing = part.Replicas, part.Adding(), part.Removing()
	pp.ISR, pp.Leader = part.ISR, part.Leader
	for _, r := range m.Target {
		if slices.Contains(part.ISR, r) {
			pp.InSync++
		}
	}
	switch {
	case !part.Reassigning():
		if slices.Equal(part.Replicas, m.Target) && !t.inNode[i] && t.rewritten(m.Topic, topic) {
			pp.Phase = cluster.ReassignDone
		} else if slices.Equal(part.Replicas, m.Target) {
			// The topic znode has the target; the controller drops the
			// partition from /admin/reassign_partitions next.
			pp.Phase = cluster.ReassignRemoving
		} else {
			pp.Phase = cluster.ReassignQueued
		}
	case pp.InSync < len(m.Target):
		pp.Phase = cluster.ReassignAdding
	case !slices.Contains(m.Target, part.Leader):
		pp.Phase = cluster.ReassignLeader
	case slices.ContainsFunc(part.Removing(), func(id int) bool { return slices.Contains(part.ISR, id) }):
		pp.Phase = cluster.ReassignInSync
	default:
		pp.Phase = cluster.ReassignRemoving
	}
	return pp
}

// rewritten reports whether the topic znode changed since the
// reassignment was written (always true when that version is unknown).
func (t *ReassignTracker) rewritten(name string, topic *cluster.Topic) bool {
	k, ok := slices.BinarySearchFunc(t.topics, name, func(tt trackedTopic, n string) int { return strings.Compare(tt.name, n) })
	return !ok || t.topics[k].from < 0 || topic.ZkVersion > t.topics[k].from
}

// Describe renders a partition's progress in one line for the command
// line: "orders-3: adding [5] (isr [1,2,3])", "orders-3: done (replicas [5,2,3])".
func (p PartitionReassignProgress) Describe() string {
	name := p.String() + ": "
	//exhaustive:enforce
	switch p.Phase {
	case cluster.ReassignQueued:
		return name + "requested (replicas " + text.List(p.Current) + " → " + text.List(p.Target) + ")"
	case cluster.ReassignAdding:
		return name + "adding " + text.List(p.Adding) + " (" + strconv.Itoa(p.InSync) + " of " + strconv.Itoa(len(p.Target)) + " target replicas in sync, isr " + text.List(p.ISR) + ")"
	case cluster.ReassignLeader:
		return name + "caught up (isr " + text.List(p.ISR) + "), leader " + strconv.Itoa(p.Leader) + " to move into " + text.List(p.Target)
	case cluster.ReassignInSync, cluster.ReassignRemoving:
		if len(p.Removing) == 0 {
			// The topic znode has (or keeps) the target; the controller
			// drops the partition from the request next.
			return name + "finishing (replicas " + text.List(p.Replicas) + ", leader " + strconv.Itoa(p.Leader) + ", isr " + text.List(p.ISR) + ")"
		}
		return name + "removing " + text.List(p.Removing) + " (leader " + strconv.Itoa(p.Leader) + ", isr " + text.List(p.ISR) + ")"
	case cluster.ReassignDone:
		return name + "done (replicas " + text.List(p.Replicas) + ", leader " + strconv.Itoa(p.Leader) + ", isr " + text.List(p.ISR) + ")"
	}
	return name + p.Phase.String()
}
