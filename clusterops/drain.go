package clusterops

import (
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/internal/text"
)

// Draining a broker is a --generate whose topics are those with a replica
// on it and whose brokers are the other live ones: the same domain
// function (GenerateReassignment) the command line's
// `ktopo reassign --generate` runs, so the TUI's plan is the one the
// command line would propose for the same topics and brokers.

// DrainRequest asks for every replica off Broker.
type DrainRequest struct {
	Broker   int
	Strategy Strategy
	// Rand draws the kafka strategy's start index and shift (nil: random).
	Rand *rand.Rand
	// Sizes plan by bytes as well (GenerateRequest.Sizes); nil: by counts.
	Sizes *cluster.Sizes
}

// PlanDrain proposes moving every replica off req.Broker onto the other
// live brokers, rack-aware when every broker has a rack (Kafka's "safe"
// mode): the --generate whose broker list is every other broker, down
// ones included. Every strategy is computed (GeneratePlan.Kafka, .Minimal,
// .Balanced): the minimal one moves exactly the drained broker's replicas
// (and, in a partition it moves, a replica on a broker that is down:
// Kafka refuses a target naming one, MoveCount.Offline); the balanced one
// evens the topics out as well; the kafka one places them afresh on the
// live brokers, so a down broker's replicas move too. Topics marked for
// deletion are left alone (the controller ignores reassignments of them).
func PlanDrain(s *cluster.Snapshot, req DrainRequest) (*GeneratePlan, error) {
	if _, ok := s.Broker(req.Broker); !ok {
		return nil, kafkaErr(cluster.ClassAdminCommandFailed, "Broker "+strconv.Itoa(req.Broker)+" is not known.")
	}
	var topics []string
	for _, t := range s.Topics() {
		if t.MarkedForDeletion {
			continue
		}
		if slices.ContainsFunc(t.Partitions, func(p *cluster.Partition) bool { return p.InAssignment && slices.Contains(p.Replicas, req.Broker) }) {
			topics = append(topics, t.Name)
		}
	}
	var brokers []int
	live := 0
	for _, b := range s.Brokers() {
		if b.ID != req.Broker {
			brokers = append(brokers, b.ID)
			if b.Live {
				live++
			}
		}
	}
	if live == 0 {
		return nil, kafkaErr(cluster.ClassAdminCommandFailed, "Broker "+strconv.Itoa(req.Broker)+" is the only live broker: there is nowhere to move its replicas.")
	}
	return GenerateReassignment(s, GenerateRequest{Topics: topics, Brokers: brokers, RackAware: cluster.RackAwareSafe,
		Strategy: req.Strategy, StartIndex: -1, Rand: req.Rand, Sizes: req.Sizes})
}

// Moves are the partitions that strategy st changes, sorted by topic then
// partition, as PartitionMoves (current and target replicas).
func (g *GeneratePlan) Moves(st Strategy) []PartitionMove {
	var out []PartitionMove
	for _, t := range g.Topics {
		target := t.plan(st)
		for _, p := range t.Current.Partitions() {
			cur, nw := t.Current[p], target[p]
			if len(nw) == 0 || slices.Equal(cur, nw) {
				continue
			}
			out = append(out, PartitionMove{TopicPartition: cluster.TopicPartition{Topic: t.Topic, Partition: p}, Current: cur, Target: nw})
		}
	}
	slices.SortFunc(out, func(a, b PartitionMove) int {
		return cluster.CompareTopicPartitions(a.TopicPartition, b.TopicPartition)
	})
	return out
}

// Count is what strategy st moves over all topics.
func (g *GeneratePlan) Count(st Strategy) MoveCount {
	switch st {
	case StrategyMinimal:
		return g.Minimal
	case StrategyBalanced:
		return g.Balanced
	}
	return g.Kafka
}

// MovesAsReassignments are moves in the --execute file's form.
func MovesAsReassignments(moves []PartitionMove) []cluster.Reassignment {
	out := make([]cluster.Reassignment, len(moves))
	for i, m := range moves {
		out[i] = cluster.Reassignment{TopicPartition: m.TopicPartition, Replicas: m.Target}
	}
	return out
}

// SameMoves reports whether two lists of moves change the same partitions
// in the same way (a plan re-made on a newer snapshot writes what the
// preview showed).
func SameMoves(a, b []PartitionMove) bool {
	return slices.EqualFunc(a, b, func(x, y PartitionMove) bool {
		return x.TopicPartition == y.TopicPartition && slices.Equal(x.Current, y.Current) && slices.Equal(x.Target, y.Target)
	})
}

// MoveWarnings are what a preview of moves warns about: partitions whose
// replicas span fewer racks after than before, partitions whose
// replication factor exceeds the racks they can use, target brokers that
// are not live, brokers the moves leave far above the mean.
type MoveWarnings struct {
	SpreadLost  int
	RFAboveRack int
	Offline     []int
	// LiveRacks counts the racks of the registered brokers, which
	// RFAboveRack is counted against; RacksDown are the racks known (from
	// an offline broker's last registration) without a registered broker;
	// RackUnknown are the offline brokers whose rack is unknown (never
	// seen registered): their racks may be others, so the racks are not
	// said to be too few, only those of the live brokers.
	LiveRacks   int
	RacksDown   []string
	RackUnknown []int
	// Heavy are the brokers the moves leave far above the mean.
	Heavy []HeavyBroker
	// HeavyBytes are the brokers the moves leave far above the mean
	// bytes (WarnMovesSized, with sizes known).
	HeavyBytes []HeavyBytesBroker
}

// HeavyBytesBroker is a broker that moves leave holding far more bytes
// than the brokers' mean (HeavyBytes): Before and After are its bytes,
// Mean the mean after the moves of the live brokers holding any.
type HeavyBytesBroker struct {
	ID            int
	Before, After int64
	Mean          float64
}

// Percent is how far above the mean the broker ends, in percent.
func (h HeavyBytesBroker) Percent() int {
	return int(math.Round((float64(h.After)/h.Mean - 1) * 100))
}

// String is the warning: "broker 3 ends with 120 GiB, 62% above the
// mean (74.0 GiB)".
func (h HeavyBytesBroker) String() string {
	return "broker " + strconv.Itoa(h.ID) + " ends with " + cluster.FormatBytes(h.After) + ", " +
		strconv.Itoa(h.Percent()) + "% above the mean (" + cluster.FormatBytes(int64(h.Mean)) + ")"
}

// RFAboveRackText is the RFAboveRack warning, in words that do not count
// racks whose brokers are down, or unknown, as no racks.
func (w MoveWarnings) RFAboveRackText() string {
	have := text.Count(w.RFAboveRack, "partition") + text.Plural(w.RFAboveRack, " has", " have")
	if len(w.RacksDown) == 0 && len(w.RackUnknown) == 0 {
		return have + " more replicas than there are racks"
	}
	head := have + " more replicas than the " + text.Count(w.LiveRacks, "rack") + " with live brokers"
	var why []string
	if len(w.RacksDown) > 0 {
		why = append(why, strings.Join(w.RacksDown, ", ")+text.Plural(len(w.RacksDown), " has", " have")+" no live broker")
	}
	if len(w.RackUnknown) > 0 {
		why = append(why, text.Plural(len(w.RackUnknown), "offline broker ", "offline brokers ")+text.Ints(w.RackUnknown)+
			": rack unknown, not registered since ktopo started")
	}
	return head + " (" + strings.Join(why, "; ") + ")"
}

// HeavyBroker is a broker that moves leave holding far more replicas than
// the brokers' mean (the create preview's "not spread evenly", for
// moves): Before and After are its replica counts, Mean the live
// brokers' mean after the moves (those left holding none aside).
type HeavyBroker struct {
	ID            int
	Before, After int
	Mean          float64
}

// Percent is how far above the mean the broker ends, in percent.
func (h HeavyBroker) Percent() int { return int(math.Round((float64(h.After)/h.Mean - 1) * 100)) }

// heavyRatio and heavyMargin make a broker heavy: at least a quarter
// above the mean, and by more than two replicas (a few replicas' unevenness
// in a small cluster is no news).
const (
	heavyRatio  = 1.25
	heavyMargin = 2
)

// WarnMovesSized is WarnMoves with the brokers the moves leave far above
// the mean bytes by the sizes sz (HeavyBytes): those the moves add bytes
// to. Without sizes it is WarnMoves.
func WarnMovesSized(s *cluster.Snapshot, sz *cluster.Sizes, moves []PartitionMove) MoveWarnings {
	w := WarnMoves(s, moves)
	if !sz.Known() {
		return w
	}
	after := BytesAfter(s, sz, moves)
	ids, mean := heavyBytesOf(s, after)
	for _, id := range ids {
		var before int64
		if d, ok := sz.Broker(id); ok {
			before = d.Bytes
		}
		if after[id] > before {
			w.HeavyBytes = append(w.HeavyBytes, HeavyBytesBroker{ID: id, Before: before, After: after[id], Mean: mean})
		}
	}
	return w
}

// WarnMoves computes the warnings of moves on s.
func WarnMoves(s *cluster.Snapshot, moves []PartitionMove) MoveWarnings {
	var w MoveWarnings
	rackOf := map[int]string{}
	racks := map[string]bool{}
	for _, b := range s.RegisteredBrokers() {
		if b.HasRack {
			rackOf[b.ID] = b.Rack
			racks[b.Rack] = true
		}
	}
	w.LiveRacks = len(racks)
	for _, b := range s.Brokers() {
		switch {
		case b.Live:
		case !b.RackKnown:
			w.RackUnknown = append(w.RackUnknown, b.ID)
		case b.HasRack && !racks[b.Rack] && !slices.Contains(w.RacksDown, b.Rack):
			w.RacksDown = append(w.RacksDown, b.Rack)
		}
	}
	slices.Sort(w.RacksDown)
	spread := func(rs []int) int {
		seen := map[string]bool{}
		for _, r := range rs {
			if rk, ok := rackOf[r]; ok {
				seen[rk] = true
			}
		}
		return len(seen)
	}
	for _, m := range moves {
		if len(racks) > 0 {
			if spread(m.Target) < min(spread(m.Current), len(m.Target)) {
				w.SpreadLost++
			}
			if len(m.Target) > len(racks) {
				w.RFAboveRack++
			}
		}
		for _, r := range m.Target {
			if !s.IsLive(r) && !slices.Contains(w.Offline, r) {
				w.Offline = append(w.Offline, r)
			}
		}
	}
	slices.Sort(w.Offline)
	w.Heavy = heavyBrokers(s, moves)
	return w
}

// ReplicasAfter counts the replicas each live broker holds once moves
// are done (broker id → count).
func ReplicasAfter(s *cluster.Snapshot, moves []PartitionMove) map[int]int {
	after := map[int]int{}
	for _, b := range s.Brokers() {
		if b.Live {
			after[b.ID] = b.Replicas
		}
	}
	for _, m := range moves {
		for _, a := range m.Adding() {
			after[a]++
		}
		for _, r := range m.Removing() {
			after[r]--
		}
	}
	return after
}

// Heavy reports whether n replicas are far above mean (HeavyBroker).
func Heavy(n int, mean float64) bool {
	return float64(n) >= heavyRatio*mean && float64(n)-mean > heavyMargin
}

// heavyBrokers are the live brokers moves make heavy: more replicas than
// before, and far above the mean of the live brokers holding any after
// the moves, by id.
func heavyBrokers(s *cluster.Snapshot, moves []PartitionMove) []HeavyBroker {
	after := ReplicasAfter(s, moves)
	total, holding := 0, 0
	for id, n := range after {
		if s.IsLive(id) && n > 0 {
			total += n
			holding++
		}
	}
	if holding < 2 {
		return nil
	}
	mean := float64(total) / float64(holding)
	var out []HeavyBroker
	for _, b := range s.Brokers() {
		n := after[b.ID]
		if b.Live && n > b.Replicas && Heavy(n, mean) {
			out = append(out, HeavyBroker{ID: b.ID, Before: b.Replicas, After: n, Mean: mean})
		}
	}
	return out
}

// StaleMoves are the moves whose partition no longer has the replicas the
// move was planned from in s (changed, or gone): a preview made on an
// older snapshot must be made again before it is written.
func StaleMoves(s *cluster.Snapshot, moves []PartitionMove) []cluster.TopicPartition {
	var out []cluster.TopicPartition
	for _, m := range moves {
		var p *cluster.Partition
		if t := s.Topic(m.Topic); t != nil {
			p = t.Partition(m.Partition)
		}
		if p == nil || !p.InAssignment || p.Reassigning() || !slices.Equal(p.Replicas, m.Current) {
			out = append(out, m.TopicPartition)
		}
	}
	return out
}
