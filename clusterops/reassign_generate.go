package clusterops

import (
	"fmt"
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
	// StrategyMinimal keeps every replica that may stay and moves as few
	// as it can, rack-aware and even (assign.Rebalance). Not Kafka's.
	StrategyMinimal
)

// String is the --strategy value.
func (st Strategy) String() string {
	if st == StrategyMinimal {
		return "minimal"
	}
	return "kafka"
}

// ParseStrategy reads --strategy.
func ParseStrategy(s string) (Strategy, error) {
	switch s {
	case "kafka":
		return StrategyKafka, nil
	case "minimal":
		return StrategyMinimal, nil
	}
	return 0, fmt.Errorf("invalid --strategy %q: want kafka or minimal", s)
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
}

// TopicProposal is one topic of a --generate.
type TopicProposal struct {
	Topic string
	// Current and Proposed are the partitions' replica lists now and in
	// the chosen strategy's plan; Kafka and Minimal each strategy's plan.
	Current, Proposed, Kafka, Minimal assign.Assignment
	// KafkaResult is the kafka strategy's start index and shift.
	KafkaResult assign.Result
}

// MoveCount is how much a plan changes: replicas copied to a broker that
// does not hold them, partitions whose preferred leader changes, out of
// how many.
type MoveCount struct {
	Replicas, Leaders         int
	TotalReplicas, Partitions int
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
	// Kafka and Minimal count what each strategy moves over all topics.
	Kafka, Minimal MoveCount
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
	// The minimal strategy breaks ties by each broker's load in the topics
	// that stay where they are.
	load, leaders := loadOutside(s, moving)
	minimal, err := assign.Rebalance(brokers, current, assign.RebalanceOptions{Load: load, Leaders: leaders})
	if err != nil {
		return nil, cluster.AsKafkaError(err)
	}
	placement := assign.NewPlacement(brokers)
	for i, t := range topics {
		tp := TopicProposal{Topic: t.Name, Current: current[i], Minimal: minimal[i]}
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
		tp.Proposed = tp.Kafka
		if req.Strategy == StrategyMinimal {
			tp.Proposed = tp.Minimal
		}
		count(&g.Kafka, tp.Current, tp.Kafka)
		count(&g.Minimal, tp.Current, tp.Minimal)
		g.Topics = append(g.Topics, tp)
	}
	return g, nil
}

func count(c *MoveCount, from, to assign.Assignment) {
	r, l := assign.CountMoves(from, to)
	c.Replicas += r
	c.Leaders += l
	c.Partitions += len(to)
	for _, rs := range to {
		c.TotalReplicas += len(rs)
	}
}
