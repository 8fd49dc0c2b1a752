package clusterops

import (
	"math/rand/v2"
	"slices"

	"github.com/ktopo/ktopo/assign"
	"github.com/ktopo/ktopo/cluster"
)

// Moving a topic's partitions, at its replication factor or another one:
// the --generate of one topic onto every live broker, with the target
// replication factor in place of the current one. Kafka's tool cannot
// change a replication factor itself (an operator writes the longer or
// shorter replica lists into the --execute file by hand); ktopo proposes
// them with both strategies.

// TopicMoveRequest asks for Topic's partitions on every live broker with
// RF replicas each (RF ≤ 0: each partition keeps its own, even when they
// differ).
type TopicMoveRequest struct {
	Topic    string
	RF       int
	Strategy Strategy
	Rand     *rand.Rand
	// Sizes, when known, place by bytes and count them, as
	// GenerateRequest.Sizes does.
	Sizes *cluster.Sizes
}

// sentinel is a broker id no cluster has: a replica to place, in an
// assignment handed to assign.Rebalance or assign.Replace (a replica whose
// broker is not in the list always moves).
const sentinel = -1 << 20

// PlanTopicMove proposes the topic's assignment at req.RF on the live
// brokers, rack-aware when every broker has a rack. The minimal strategy
// moves only what the replication factor asked for needs (the replicas
// added where racks and load want them, or the followers whose rack
// another replica already covers dropped first, never the preferred
// leader) and the replicas on brokers that are down; the balanced one
// also evens the topic out; the kafka one places every partition afresh
// (AdminUtils.assignReplicasToBrokers at a random start index and shift)
// at req.RF, or, keeping each partition's own, at the highest and each
// partition cut to its own (the first replicas of a rack-aware list span
// the most racks). A partition's replication factor changes only when
// req.RF asks for one. On a KRaft cluster a cordoned broker gets no new
// replica, and a partition that moves leaves it (its controller refuses
// a target naming one).
func PlanTopicMove(s *cluster.Snapshot, req TopicMoveRequest) (*GeneratePlan, error) {
	t := s.Topic(req.Topic)
	if t == nil {
		return nil, kafkaErr(cluster.ClassUnknownTopicOrPartition, "Topic "+req.Topic+" not found.")
	}
	brokers, err := s.BrokerMetadatas(cluster.RackAwareSafe, nil)
	if err != nil {
		return nil, err
	}
	g := &GeneratePlan{Strategy: req.Strategy, Brokers: brokers, All: s.RegisteredBrokers()}
	g.Registered = g.All
	current := make(assign.Assignment, len(t.Partitions))
	for _, p := range t.Partitions {
		if p.InAssignment {
			current[p.ID] = p.Replicas
		}
	}
	rackOf := map[int]string{}
	for _, b := range brokers {
		if b.HasRack {
			rackOf[b.ID] = b.Rack
		}
	}
	start := make(assign.Assignment, len(current))
	maxRF := 0
	for p, rs := range current {
		rf := req.RF
		if rf <= 0 {
			rf = len(rs)
		}
		start[p] = resize(rs, rf, rackOf)
		maxRF = max(maxRF, rf)
		// A partition that moves leaves the cordoned brokers: a KRaft
		// controller refuses a target naming one.
		if !slices.Equal(start[p], rs) || slices.ContainsFunc(rs, func(r int) bool { return !s.IsLive(r) }) {
			for j, r := range start[p] {
				if r >= 0 && cordoned(s, r) {
					start[p][j] = sentinel - 1000 - j
				}
			}
		}
	}
	load, leaders := loadOutside(s, map[string]bool{t.Name: true})
	opts := assign.RebalanceOptions{Load: load, Leaders: leaders}
	if sz := req.Sizes; sz.Known() {
		g.Sizes = sz
		opts.Size = func(_, p int) int64 {
			if n, ok := sz.PartitionBytes(t.Name, p); ok {
				return n
			}
			return -1
		}
		opts.Bytes = bytesOutside(s, sz, map[string]bool{t.Name: true})
	}
	minimal, err := assign.Replace(brokers, []assign.Assignment{start}, s.IsLive, opts)
	if err != nil {
		return nil, cluster.AsKafkaError(err)
	}
	balanced, err := assign.Rebalance(brokers, []assign.Assignment{start}, opts)
	if err != nil {
		return nil, cluster.AsKafkaError(err)
	}
	tp := TopicProposal{Topic: t.Name, Current: current, Minimal: minimal[0], Balanced: balanced[0], Kafka: assign.Assignment{}}
	if n := len(current); n > 0 {
		res, err := assign.NewPlacement(brokers).Assign(n, maxRF, assign.Options{StartIndex: -1, ReplicaShift: -1, StartPartition: -1, Rand: req.Rand})
		if err != nil {
			return nil, cluster.AsKafkaError(err)
		}
		tp.Kafka, tp.KafkaResult = res.Assignment, res
		// Partitions are numbered 0..n-1 by the placement; the topic's may
		// not be: each takes the placement's row of its rank, cut to its
		// own replication factor.
		ids := current.Partitions()
		tp.Kafka = make(assign.Assignment, n)
		for i, p := range ids {
			tp.Kafka[p] = slices.Clone(res.Assignment[i][:len(start[p])])
		}
	}
	tp.Proposed = tp.plan(req.Strategy)
	g.count(s, current, start, &tp, nil)
	g.Topics = []TopicProposal{tp}
	g.checkDisk()
	return g, nil
}

// resize is rs with rf replicas: sentinels appended to place, or
// followers dropped, those whose rack another kept replica covers first,
// the last first.
func resize(rs []int, rf int, rackOf map[int]string) []int {
	out := slices.Clone(rs)
	for i := len(out); i < rf; i++ {
		out = append(out, sentinel-i)
	}
	for len(out) > max(rf, 1) {
		drop := len(out) - 1
		for i := len(out) - 1; i > 0; i-- {
			rk, ok := rackOf[out[i]]
			if !ok {
				continue
			}
			if slices.ContainsFunc(out[:i], func(id int) bool { r, ok := rackOf[id]; return ok && r == rk }) {
				drop = i
				break
			}
		}
		out = slices.Delete(out, drop, drop+1)
	}
	return out
}

// loadOutside is every broker's replica and leader count in the topics
// that are not moving (the minimal strategy breaks ties with it).
func loadOutside(s *cluster.Snapshot, moving map[string]bool) (load, leaders map[int]int) {
	load, leaders = map[int]int{}, map[int]int{}
	for _, t := range s.Topics() {
		if moving[t.Name] {
			continue
		}
		for _, p := range t.Partitions {
			for i, r := range p.Replicas {
				load[r]++
				if i == 0 {
					leaders[r]++
				}
			}
		}
	}
	return load, leaders
}
