package clusterops

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/ktopo/ktopo/assign"
	"github.com/ktopo/ktopo/cluster"
)

// Strategy is how --generate places the replicas of the topics to move.
type Strategy uint8

// Strategies.
const (
	// StrategyKafka is kafka-reassign-partitions' own: every topic placed
	// afresh by AdminUtils.assignReplicasToBrokers on the listed brokers,
	// at a random start index and shift.
	StrategyKafka Strategy = iota
	// StrategyMinimal moves exactly the replicas that must move: those on
	// brokers that are not listed (a drain: the drained broker's), and in
	// a partition that moves anyway those on listed brokers that are not
	// registered (Kafka's --execute refuses a target naming one) or, on a
	// KRaft cluster, cordoned (its controller refuses a target naming
	// one); every other replica stays where it is. Each new replica goes
	// where the partition's rack spread and the load want it
	// (assign.Replace). With sizes (GenerateRequest.Sizes) the load is the
	// brokers' bytes first: within the rack rule each new replica goes to
	// the broker that will hold the fewest bytes, the largest partitions
	// placed first; the replicas that move are the same, and as each is
	// copied whole wherever it goes, no plan copies fewer bytes. Not
	// Kafka's.
	StrategyMinimal
	// StrategyBalanced keeps every replica that may stay while evening
	// the topics out over the listed brokers and racks (assign.Rebalance):
	// it also moves replicas of listed brokers that hold more than their
	// share. With sizes it then evens the listed brokers' bytes: until
	// each holds within ±assign.BalanceTolerance (10 %) of their mean
	// bytes, or no step brings the heaviest and lightest closer, it swaps
	// replicas between a heavy and a light broker (or moves one), each
	// broker's replica count staying within one of the count-balanced
	// plan's; the steps that copy nothing more come first, then those
	// that even the most per byte copied. Not Kafka's.
	StrategyBalanced
)

// Strategies are every strategy, in the order a preview offers them.
func Strategies() []Strategy { return []Strategy{StrategyMinimal, StrategyBalanced, StrategyKafka} }

// String is the --strategy value.
func (st Strategy) String() string {
	switch st {
	case StrategyMinimal:
		return "minimal"
	case StrategyBalanced:
		return "balanced"
	}
	return "kafka"
}

// ParseStrategy reads --strategy.
func ParseStrategy(s string) (Strategy, error) {
	for _, st := range Strategies() {
		if st.String() == s {
			return st, nil
		}
	}
	return 0, fmt.Errorf("invalid --strategy %q: want kafka, minimal or balanced", s)
}

// GenerateRequest is a --generate: the topics to move, the brokers to move
// them to, the rack mode and the strategy.
type GenerateRequest struct {
	Topics    []string
	Brokers   []int
	RackAware cluster.RackAwareMode
	Strategy  Strategy
	// StartIndex fixes the kafka strategy's start index and shift for
	// every topic (AdminUtils' fixedStartIndex); < 0 draws them, with Rand
	// when set.
	StartIndex int
	Rand       *rand.Rand
	// Sizes are the partitions' sizes (DescribeLogDirs'); nil or unknown:
	// the plans are by replica counts alone, and no bytes are counted.
	Sizes *cluster.Sizes
}

// TopicProposal is one topic of a --generate.
type TopicProposal struct {
	Topic string
	// Current and Proposed are the partitions' replica lists now and in
	// the chosen strategy's plan; Kafka, Minimal and Balanced each
	// strategy's plan.
	Current, Proposed, Kafka, Minimal, Balanced assign.Assignment
	// KafkaResult is the kafka strategy's start index and shift.
	KafkaResult assign.Result
}

// MoveCount is how much a plan changes: replicas copied to a broker that
// does not hold them, partitions whose preferred leader changes, out of
// how many (the same totals for every strategy: the replicas the
// partitions hold at the replication factor asked for). Offline counts,
// by broker, the replicas moved off listed brokers that are not
// registered, Cordoned those moved off cordoned brokers (a KRaft
// cluster's: Kafka refuses a target naming one, so a partition that
// moves leaves them): moves nobody asked for.
type MoveCount struct {
	Replicas, Leaders         int
	TotalReplicas, Partitions int
	Offline, Cordoned         map[int]int
	// With sizes: Bytes is what the plan copies (each added replica is a
	// copy of its partition's largest replica; a tiered topic's local
	// bytes, which is what a new follower copies), BytesIn the same by
	// receiving broker, UnknownBytes the added replicas whose partition no
	// broker reported (counted as 0 bytes), and Disk the brokers whose log
	// directories could not hold what they receive (CheckDisk): a plan
	// with any is refused (GeneratePlan.DiskError).
	Bytes        int64
	BytesIn      map[int]int64
	UnknownBytes int
	Disk         []DiskShortfall
}

// GeneratePlan is a --generate's result.
type GeneratePlan struct {
	Strategy Strategy
	Topics   []TopicProposal
	// Brokers are the listed brokers that are registered, as the
	// assignment used them (sorted by id, rack mode applied); Registered
	// the same with every known rack, for display; Ignored the listed
	// brokers that are not registered (Kafka leaves them out silently).
	Brokers, Registered []assign.Broker
	Ignored             []int
	// All are every registered broker with its rack.
	All []assign.Broker
	// Kafka, Minimal and Balanced count what each strategy moves over all
	// topics.
	Kafka, Minimal, Balanced MoveCount
	// Sizes are the sizes the plans were made with (nil: by counts).
	Sizes *cluster.Sizes
}

// CurrentJSON is the current assignment in the file format, as
// --generate prints it.
func (g *GeneratePlan) CurrentJSON() []byte {
	return g.format(func(t TopicProposal) assign.Assignment { return t.Current })
}

// ProposedJSON is the chosen strategy's assignment in the file format.
func (g *GeneratePlan) ProposedJSON() []byte {
	return g.format(func(t TopicProposal) assign.Assignment { return t.Proposed })
}

// format writes the topics' assignments sorted by topic then partition
// without collecting them in one map (100,000 partitions are common).
func (g *GeneratePlan) format(f func(TopicProposal) assign.Assignment) []byte {
	ts := slices.Clone(g.Topics)
	slices.SortFunc(ts, func(a, b TopicProposal) int { return strings.Compare(a.Topic, b.Topic) })
	n := 32
	for _, t := range ts {
		for _, r := range f(t) {
			n += 64 + len(t.Topic) + 12*len(r)
		}
	}
	w := cluster.NewReassignmentWriter(n)
	for _, t := range ts {
		a := f(t)
		for _, p := range a.Partitions() {
			w.Add(t.Topic, p, a[p])
		}
	}
	return w.Bytes()
}

// GenerateReassignment is --generate: each topic's current assignment and
// a proposed one on req.Brokers. The kafka strategy is
// kafka-reassign-partitions' calculateAssignment (per topic,
// assignReplicasToBrokers with the replication factor of its first
// partition over the listed brokers that are registered, sorted by id as
// AdminZkClient hands them over); the minimal one is assign.Rebalance.
// Both are always computed, so that what each moves can be compared.
// Errors are Kafka's: a topic that does not exist ("Topic t not found.",
// 3.x; 2.8's --zookeeper path skipped it silently), the rack and
// replication-factor checks.
func GenerateReassignment(s *cluster.Snapshot, req GenerateRequest) (*GeneratePlan, error) {
	g := &GeneratePlan{Strategy: req.Strategy}
	var topics []*cluster.Topic
	for _, name := range req.Topics {
		t := s.Topic(name)
		if t == nil {
			return nil, kafkaErr(cluster.ClassUnknownTopicOrPartition, "Topic "+name+" not found.")
		}
		topics = append(topics, t)
	}
	brokers, err := s.BrokerMetadatas(req.RackAware, req.Brokers)
	if err != nil {
		return nil, err
	}
	// A cordoned broker takes no new replica (Kafka's controller refuses a
	// target naming it): it keeps those it holds where nothing moves.
	brokers = withoutCordoned(s, brokers)
	g.Brokers = brokers
	g.All = s.RegisteredBrokers()
	for _, b := range g.All {
		if slices.Contains(req.Brokers, b.ID) {
			g.Registered = append(g.Registered, b)
		}
	}
	for _, id := range req.Brokers {
		if !s.IsLive(id) {
			g.Ignored = append(g.Ignored, id)
		}
	}
	current := make([]assign.Assignment, len(topics))
	moving := map[string]bool{}
	for i, t := range topics {
		moving[t.Name] = true
		a := make(assign.Assignment, len(t.Partitions))
		for _, p := range t.Partitions {
			if p.InAssignment {
				a[p.ID] = p.Replicas
			}
		}
		current[i] = a
	}
	// The minimal and balanced strategies break ties by each broker's load
	// in the topics that stay where they are.
	load, leaders := loadOutside(s, moving)
	opts := assign.RebalanceOptions{Load: load, Leaders: leaders}
	if sz := req.Sizes; sz.Known() {
		g.Sizes = sz
		opts.Size = func(ti, p int) int64 {
			if n, ok := sz.PartitionBytes(topics[ti].Name, p); ok {
				return n
			}
			return -1
		}
		opts.Bytes = bytesOutside(s, sz, moving)
	}
	listed := map[int]bool{}
	for _, id := range req.Brokers {
		listed[id] = true
	}
	minimal, err := assign.Replace(brokers, mustMove(s, current, listed), func(id int) bool { return listed[id] }, opts)
	if err != nil {
		return nil, cluster.AsKafkaError(err)
	}
	balanced, err := assign.Rebalance(brokers, current, opts)
	if err != nil {
		return nil, cluster.AsKafkaError(err)
	}
	placement := assign.NewPlacement(brokers)
	for i, t := range topics {
		tp := TopicProposal{Topic: t.Name, Current: current[i], Minimal: minimal[i], Balanced: balanced[i]}
		if n := len(current[i]); n > 0 {
			rf := len(current[i][current[i].Partitions()[0]])
			opts := assign.Options{StartIndex: req.StartIndex, ReplicaShift: -1, StartPartition: -1, Rand: req.Rand}
			res, err := placement.Assign(n, rf, opts)
			if err != nil {
				return nil, cluster.AsKafkaError(err)
			}
			tp.Kafka, tp.KafkaResult = res.Assignment, res
		} else {
			tp.Kafka = assign.Assignment{}
		}
		tp.Proposed = tp.plan(req.Strategy)
		g.count(s, tp.Current, tp.Current, &tp, listed)
		g.Topics = append(g.Topics, tp)
	}
	g.checkDisk()
	return g, nil
}

// bytesOutside is each broker's bytes in the topics that are not moving:
// the replicas the brokers reported, each once (a replica being moved
// between a broker's log directories has a future copy too, which the
// broker deletes when the move is done; it is not counted).
func bytesOutside(s *cluster.Snapshot, sz *cluster.Sizes, moving map[string]bool) map[int]int64 {
	out := map[int]int64{}
	for _, t := range s.Topics() {
		if moving[t.Name] {
			continue
		}
		for _, p := range t.Partitions {
			ps, ok := sz.Partition(t.Name, p.ID)
			if !ok {
				continue
			}
			for _, r := range ps.Replicas {
				if !r.Future {
					out[int(r.Broker)] += r.Bytes
				}
			}
		}
	}
	return out
}

// checkDisk fills every strategy's Disk from what each broker receives.
func (g *GeneratePlan) checkDisk() {
	if !g.Sizes.Known() {
		return
	}
	for _, mc := range []*MoveCount{&g.Kafka, &g.Minimal, &g.Balanced} {
		mc.Disk = CheckDisk(g.Sizes, MoveBytes{Known: true, In: mc.BytesIn})
	}
}

// DiskRefusal is a plan refused because it would fill brokers' log
// directories past their usable bytes. Kafka does not check this: the
// reassignment is accepted, and a broker whose log directory fills while
// it copies marks the directory offline, with every replica in it.
type DiskRefusal struct {
	Strategy   Strategy
	Shortfalls []DiskShortfall
}

// Error is "the minimal plan would fill log directories past their
// usable bytes: broker 3 would receive 12.0 GiB but its log directories
// have 9.5 GiB usable; broker 5 would …".
func (e *DiskRefusal) Error() string {
	parts := make([]string, len(e.Shortfalls))
	for i, d := range e.Shortfalls {
		parts[i] = d.Error()
	}
	return "the " + e.Strategy.String() + " plan would fill log directories past their usable bytes: " + strings.Join(parts, "; ")
}

// DiskError is why strategy st's plan must not be written (a
// *DiskRefusal), or nil when its brokers' log directories can hold what
// they receive or no sizes are known.
func (g *GeneratePlan) DiskError(st Strategy) error {
	if d := g.Count(st).Disk; len(d) > 0 {
		return &DiskRefusal{Strategy: st, Shortfalls: d}
	}
	return nil
}

// plan is strategy st's assignment.
func (t *TopicProposal) plan(st Strategy) assign.Assignment {
	switch st {
	case StrategyMinimal:
		return t.Minimal
	case StrategyBalanced:
		return t.Balanced
	}
	return t.Kafka
}

// mustMove is current with the replicas the minimal strategy must move
// beyond the unlisted brokers' as negative ids: in a partition with a
// replica off the list, those on listed brokers that are not registered
// (Kafka's --execute refuses a target naming one) or cordoned (a KRaft
// controller refuses a target naming one).
func mustMove(s *cluster.Snapshot, current []assign.Assignment, listed map[int]bool) []assign.Assignment {
	out := make([]assign.Assignment, len(current))
	for i, a := range current {
		out[i] = a
		cloned := false
		for p, rs := range a {
			if !slices.ContainsFunc(rs, func(r int) bool { return !listed[r] }) ||
				!slices.ContainsFunc(rs, func(r int) bool { return listed[r] && unusable(s, r) }) {
				continue
			}
			if !cloned {
				out[i], cloned = maps.Clone(a), true
			}
			cp := slices.Clone(rs)
			for j, r := range cp {
				if listed[r] && unusable(s, r) {
					cp[j] = sentinel - j
				}
			}
			out[i][p] = cp
		}
	}
	return out
}

// unusable reports a broker a reassignment's target cannot name: not
// registered, or (a KRaft cluster's) cordoned.
func unusable(s *cluster.Snapshot, id int) bool { return !s.IsLive(id) || cordoned(s, id) }

// cordoned reports a broker all of whose log directories are cordoned.
func cordoned(s *cluster.Snapshot, id int) bool {
	b, ok := s.Broker(id)
	return ok && b.Cordoned
}

// withoutCordoned are brokers less the cordoned ones.
func withoutCordoned(s *cluster.Snapshot, brokers []assign.Broker) []assign.Broker {
	if !slices.ContainsFunc(brokers, func(b assign.Broker) bool { return cordoned(s, b.ID) }) {
		return brokers
	}
	out := make([]assign.Broker, 0, len(brokers))
	for _, b := range brokers {
		if !cordoned(s, b.ID) {
			out = append(out, b)
		}
	}
	return out
}

// bump adds one to m[k], making m if need be.
func bump(m map[int]int, k int) map[int]int {
	if m == nil {
		m = map[int]int{}
	}
	m[k]++
	return m
}

// count adds a topic to every strategy's counts: from is its current
// assignment, sizes each partition's replica count at the replication
// factor asked for (the totals).
func (g *GeneratePlan) count(s *cluster.Snapshot, from, sizes assign.Assignment, t *TopicProposal, listed map[int]bool) {
	for _, c := range []struct {
		mc *MoveCount
		to assign.Assignment
	}{{&g.Kafka, t.Kafka}, {&g.Minimal, t.Minimal}, {&g.Balanced, t.Balanced}} {
		r, l := assign.CountMoves(from, c.to)
		c.mc.Replicas += r
		c.mc.Leaders += l
		if g.Sizes.Known() {
			g.countBytes(t.Topic, from, c.to, c.mc)
		}
		c.mc.Partitions += len(c.to)
		for _, rs := range sizes {
			c.mc.TotalReplicas += len(rs)
		}
		for p, rs := range from {
			for _, r := range rs {
				if slices.Contains(c.to[p], r) || listed != nil && !listed[r] {
					continue
				}
				switch {
				case listed != nil && !s.IsLive(r):
					c.mc.Offline = bump(c.mc.Offline, r)
				case cordoned(s, r):
					c.mc.Cordoned = bump(c.mc.Cordoned, r)
				}
			}
		}
	}
}

// countBytes adds to mc the bytes each replica that to adds to from
// copies: the partition's size, to the receiving broker.
func (g *GeneratePlan) countBytes(topic string, from, to assign.Assignment, mc *MoveCount) {
	for p, nw := range to {
		n, known := int64(-1), false
		for _, r := range nw {
			if slices.Contains(from[p], r) {
				continue
			}
			if n < 0 {
				n, known = g.Sizes.PartitionBytes(topic, p)
			}
			if !known {
				mc.UnknownBytes++
				continue
			}
			if mc.BytesIn == nil {
				mc.BytesIn = map[int]int64{}
			}
			mc.Bytes += n
			mc.BytesIn[r] += n
		}
	}
}
