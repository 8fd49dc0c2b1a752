package clusterops_test

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/clusterops"
	"github.com/ktopo/ktopo/internal/testkit/fixture"
)

// TestPlanDrain: the minimal drain moves exactly the drained broker's
// replicas, each to a broker of the same rack when one is left there, and
// the kafka strategy's numbers are computed next to it.
func TestPlanDrain(t *testing.T) {
	spec := fixture.Spec{ClusterID: "c", Brokers: 6, Racks: 3, Controller: 1, ControllerEpoch: 1, Time: 1,
		Topics: []fixture.Topic{{Name: "orders", Partitions: 12, RF: 3}, {Name: "clicks", Partitions: 6, RF: 2}}}
	s := spec.Model().Snapshot()
	g, err := clusterops.PlanDrain(s, clusterops.DrainRequest{Broker: 3, Strategy: clusterops.StrategyMinimal, Rand: rand.New(rand.NewPCG(1, 2))})
	if err != nil {
		t.Fatal(err)
	}
	b3, _ := s.Broker(3)
	moves := g.Moves(clusterops.StrategyMinimal)
	if c := g.Count(clusterops.StrategyMinimal); c.Replicas != b3.Replicas {
		t.Fatalf("minimal moves %d replicas, broker 3 holds %d", c.Replicas, b3.Replicas)
	}
	for _, m := range moves {
		if slices.Contains(m.Target, 3) || !slices.Contains(m.Current, 3) {
			t.Fatalf("%s: %v → %v", m.TopicPartition, m.Current, m.Target)
		}
		if w := clusterops.WarnMoves(s, []clusterops.PartitionMove{m}); w.SpreadLost != 0 || len(w.Offline) != 0 {
			t.Fatalf("%s: %v → %v warns %+v", m.TopicPartition, m.Current, m.Target, w)
		}
	}
	if g.Count(clusterops.StrategyKafka).Replicas <= b3.Replicas {
		t.Fatalf("kafka strategy moves %+v", g.Count(clusterops.StrategyKafka))
	}
	if _, err := clusterops.PlanDrain(s, clusterops.DrainRequest{Broker: 42}); err == nil {
		t.Fatal("drained an unknown broker")
	}
}

// TestPlanTopicMove: raising the replication factor with the minimal
// strategy keeps every replica and adds one per partition in a rack the
// partition lacks; lowering it keeps the preferred leader and copies
// nothing; at the same factor on an even topic nothing moves.
func TestPlanTopicMove(t *testing.T) {
	spec := fixture.Spec{ClusterID: "c", Brokers: 6, Racks: 3, Controller: 1, ControllerEpoch: 1, Time: 1,
		Topics: []fixture.Topic{{Name: "orders", Partitions: 12, RF: 2}, {Name: "clicks", Partitions: 6, RF: 3}}}
	s := spec.Model().Snapshot()
	rack := func(id int) string { return spec.Rack(id) }
	g, err := clusterops.PlanTopicMove(s, clusterops.TopicMoveRequest{Topic: "orders", RF: 3, Strategy: clusterops.StrategyMinimal, Rand: rand.New(rand.NewPCG(1, 2))})
	if err != nil {
		t.Fatal(err)
	}
	moves := g.Moves(clusterops.StrategyMinimal)
	if len(moves) != 12 || g.Count(clusterops.StrategyMinimal).Replicas != 12 {
		t.Fatalf("%d moves, %+v", len(moves), g.Count(clusterops.StrategyMinimal))
	}
	for _, m := range moves {
		racks := map[string]bool{}
		for _, r := range m.Target {
			racks[rack(r)] = true
		}
		if len(m.Target) != 3 || !slices.Equal(m.Target[:2], m.Current) && m.Target[0] != m.Current[0] || len(racks) != 3 || len(m.Removing()) != 0 {
			t.Fatalf("%s: %v → %v", m.TopicPartition, m.Current, m.Target)
		}
	}
	g, err = clusterops.PlanTopicMove(s, clusterops.TopicMoveRequest{Topic: "clicks", RF: 2, Strategy: clusterops.StrategyMinimal})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range g.Moves(clusterops.StrategyMinimal) {
		if len(m.Target) != 2 || m.Target[0] != m.Current[0] || len(m.Adding()) != 0 {
			t.Fatalf("%s: %v → %v", m.TopicPartition, m.Current, m.Target)
		}
	}
	g, err = clusterops.PlanTopicMove(s, clusterops.TopicMoveRequest{Topic: "clicks", Strategy: clusterops.StrategyMinimal})
	if err != nil || len(g.Moves(clusterops.StrategyMinimal)) != 0 {
		t.Fatalf("same RF: %v moves (%v)", g.Moves(clusterops.StrategyMinimal), err)
	}
	if _, err := clusterops.PlanTopicMove(s, clusterops.TopicMoveRequest{Topic: "clicks", RF: 7}); err == nil || err.Error() != "Replication factor: 7 larger than available brokers: 6." {
		t.Fatalf("rf 7: %v", err)
	}
}

// opsSpec is the operation wizard's test cluster: 6 brokers in 3 racks,
// topics of different sizes, where evening out moves more than a drain
// must.
func opsSpec() fixture.Spec {
	return fixture.Spec{ClusterID: "c", Brokers: 6, Racks: 3, Controller: 1, ControllerEpoch: 1, Time: 1,
		Topics: []fixture.Topic{{Name: "orders", Partitions: 6, RF: 3}, {Name: "metrics_raw", Partitions: 3, RF: 2}, {Name: "__consumer_offsets", Partitions: 4, RF: 3}}}
}

// TestMinimalMovesOnlyTheDrained: the minimal strategy moves exactly the
// drained broker's replicas, as `ktopo reassign --generate --strategy
// minimal` with every other broker listed does (the same plan); the
// balanced one also evens the topics out, moving more.
func TestMinimalMovesOnlyTheDrained(t *testing.T) {
	s := opsSpec().Model().Snapshot()
	g, err := clusterops.PlanDrain(s, clusterops.DrainRequest{Broker: 3, Rand: rand.New(rand.NewPCG(1, 2))})
	if err != nil {
		t.Fatal(err)
	}
	b3, _ := s.Broker(3)
	if c := g.Count(clusterops.StrategyMinimal); c.Replicas != b3.Replicas || c.TotalReplicas != g.Count(clusterops.StrategyKafka).TotalReplicas {
		t.Fatalf("minimal %+v (broker 3 holds %d), kafka %+v", c, b3.Replicas, g.Count(clusterops.StrategyKafka))
	}
	for _, m := range g.Moves(clusterops.StrategyMinimal) {
		if !slices.Equal(m.Removing(), []int{3}) || len(m.Adding()) != 1 {
			t.Fatalf("%s: %v → %v moves more than broker 3's replica", m.TopicPartition, m.Current, m.Target)
		}
	}
	if c := g.Count(clusterops.StrategyBalanced); c.Replicas <= b3.Replicas {
		t.Fatalf("balanced moves %d replicas: no more than the drain itself here", c.Replicas)
	}
	var topics []string
	for _, tp := range g.Topics {
		topics = append(topics, tp.Topic)
	}
	gen, err := clusterops.GenerateReassignment(s, clusterops.GenerateRequest{Topics: topics, Brokers: []int{1, 2, 4, 5, 6}, Strategy: clusterops.StrategyMinimal, StartIndex: -1})
	if err != nil {
		t.Fatal(err)
	}
	if !clusterops.SameMoves(gen.Moves(clusterops.StrategyMinimal), g.Moves(clusterops.StrategyMinimal)) {
		t.Fatalf("--generate --strategy minimal plans\n%v\nthe drain\n%v", gen.Moves(clusterops.StrategyMinimal), g.Moves(clusterops.StrategyMinimal))
	}
}

// TestDrainKeepsTheDownBroker: with broker 4 down, draining broker 1
// leaves broker 4's replicas where they are (minimal), except in a
// partition that moves anyway, where Kafka refuses a target naming it:
// those are counted in Offline. The kafka strategy places every replica
// afresh on the live brokers, and counts all of broker 4's it moves.
func TestDrainKeepsTheDownBroker(t *testing.T) {
	sp := opsSpec()
	sp.Down = []int{4}
	s := sp.Model().Snapshot()
	g, err := clusterops.PlanDrain(s, clusterops.DrainRequest{Broker: 1, Rand: rand.New(rand.NewPCG(1, 2))})
	if err != nil {
		t.Fatal(err)
	}
	both := 0
	for _, m := range g.Moves(clusterops.StrategyMinimal) {
		rm := m.Removing()
		switch {
		case slices.Equal(rm, []int{1}):
		case slices.Contains(rm, 1) && slices.Contains(rm, 4) && len(rm) == 2:
			both++
		default:
			t.Fatalf("%s: %v → %v", m.TopicPartition, m.Current, m.Target)
		}
		if !slices.Contains(m.Current, 1) {
			t.Fatalf("%s moves without a replica on broker 1", m.TopicPartition)
		}
	}
	if got := g.Count(clusterops.StrategyMinimal).Offline[4]; got != both {
		t.Fatalf("minimal: Offline %v, %d partitions hold both", g.Count(clusterops.StrategyMinimal).Offline, both)
	}
	b4, _ := s.Broker(4)
	if got := g.Count(clusterops.StrategyKafka).Offline[4]; got == 0 || got > b4.Replicas {
		t.Fatalf("kafka: Offline %v (broker 4 holds %d)", g.Count(clusterops.StrategyKafka).Offline, b4.Replicas)
	}
}

// TestTopicMoveMixedRF: a topic whose partitions have different
// replication factors keeps each one's with every strategy unless a
// replication factor is asked for, which every partition then gets.
func TestTopicMoveMixedRF(t *testing.T) {
	sp := opsSpec()
	m := sp.Model()
	s := m.Snapshot()
	// orders-0 reassigned to RF 2 by hand.
	tp := s.Topic("orders")
	a := cluster.TopicAssignment{Version: 3, Partitions: map[int][]int{}, TopicID: tp.ID}
	for _, p := range tp.Partitions {
		a.Partitions[p.ID] = p.Replicas
	}
	a.Partitions[0] = tp.Partitions[0].Replicas[:2]
	data := cluster.EncodeTopicAssignment(a)
	m.Apply([]cluster.NodeEvent{{Type: cluster.NodeChanged, Path: cluster.TopicPath("orders"), Data: data,
		Stat: cluster.Stat{Czxid: 1, Mzxid: 1 << 20, Version: tp.ZkVersion + 1, DataLength: int32(len(data))}}}, false)
	s = m.Snapshot()
	for _, st := range clusterops.Strategies() {
		g, err := clusterops.PlanTopicMove(s, clusterops.TopicMoveRequest{Topic: "orders", Strategy: st, Rand: rand.New(rand.NewPCG(1, 2))})
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range s.Topic("orders").Partitions {
			if got := len(g.Topics[0].Proposed[p.ID]); got != len(p.Replicas) {
				t.Fatalf("%s: orders-%d RF %d → %d, none asked for", st, p.ID, len(p.Replicas), got)
			}
		}
		g, err = clusterops.PlanTopicMove(s, clusterops.TopicMoveRequest{Topic: "orders", RF: 3, Strategy: st, Rand: rand.New(rand.NewPCG(1, 2))})
		if err != nil {
			t.Fatal(err)
		}
		for p, rs := range g.Topics[0].Proposed {
			if len(rs) != 3 {
				t.Fatalf("%s: orders-%d RF %d, 3 asked for", st, p, len(rs))
			}
		}
	}
}

// TestWarnMovesRacks: "more replicas than there are racks" counts the
// racks of the live brokers, and says so when racks are down or unknown
// rather than calling them no racks: a rack whose brokers are all offline
// (seen registered before) is named, an offline broker never seen
// registered since ktopo started has a rack nobody knows (newcomer
// 2026-12b N8: two unknown-rack brokers read as a cluster of two racks).
func TestWarnMovesRacks(t *testing.T) {
	move := clusterops.PartitionMove{TopicPartition: cluster.TopicPartition{Topic: "orders", Partition: 0}, Current: []int{3, 9, 1}, Target: []int{1, 2, 4}}
	for _, tc := range []struct {
		name  string
		down  []int
		ghost bool // a replica on broker 9, never registered
		want  string
	}{
		{"all racks live", nil, false, ""},
		{"rack-c down", []int{3, 6}, false, "1 partition has more replicas than the 2 racks with live brokers (rack-c has no live broker)"},
		{"rack unknown", []int{3, 6}, true, "1 partition has more replicas than the 2 racks with live brokers (rack-c has no live broker; offline broker 9: rack unknown, not registered since ktopo started)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			spec := fixture.Spec{ClusterID: "c", Brokers: 6, Racks: 3, Controller: 1, ControllerEpoch: 1, Time: 1, Down: tc.down,
				Topics: []fixture.Topic{{Name: "orders", Partitions: 1, RF: 3}}}
			if tc.ghost {
				spec.Topics[0].Replicas = map[int][]int{0: {3, 9, 1}}
			}
			w := clusterops.WarnMoves(spec.Model().Snapshot(), []clusterops.PartitionMove{move})
			got := ""
			if w.RFAboveRack > 0 {
				got = w.RFAboveRackText()
			}
			if got != tc.want {
				t.Errorf("%+v: %q, want %q", w, got, tc.want)
			}
		})
	}
	// Two racks and nothing down: there are too few racks, said plainly.
	spec := fixture.Spec{ClusterID: "c", Brokers: 4, Racks: 2, Controller: 1, ControllerEpoch: 1, Time: 1, Topics: []fixture.Topic{{Name: "orders", Partitions: 1, RF: 3}}}
	w := clusterops.WarnMoves(spec.Model().Snapshot(), []clusterops.PartitionMove{{TopicPartition: move.TopicPartition, Current: []int{1, 2, 3}, Target: []int{1, 2, 4}}})
	if w.RFAboveRackText() != "1 partition has more replicas than there are racks" {
		t.Errorf("%+v: %q", w, w.RFAboveRackText())
	}
}
