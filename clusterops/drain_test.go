package clusterops_test

import (
	"math/rand/v2"
	"slices"
	"testing"

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
