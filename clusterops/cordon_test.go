package clusterops

import (
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/internal/testkit/fixture"
)

// smallKRaft is the fixtures' small KRaft cluster (broker 4 cordoned,
// broker 6 fenced), with the brokers of cordon cordoned too.
func smallKRaft(cordon ...int) *cluster.Snapshot {
	spec, k := fixture.SmallKRaft()
	kk := *k
	kk.Brokers = slices.Clone(k.Brokers)
	for i := range kk.Brokers {
		if slices.Contains(cordon, kk.Brokers[i].ID) {
			kk.Brokers[i].Cordoned, kk.Brokers[i].CordonedDirs = true, kk.Brokers[i].Dirs
		}
	}
	m := spec.Model()
	m.SetKRaft(&kk)
	return m.Snapshot()
}

// kafkaTakes fails when Kafka's controller would refuse a target of moves
// (a manual assignment naming a cordoned or unregistered broker).
func kafkaTakes(t *testing.T, s *cluster.Snapshot, what string, moves []PartitionMove) {
	t.Helper()
	for _, m := range moves {
		if err := CheckKRaftManualPartition(s, m.Target, -1); err != nil {
			t.Errorf("%s: %s → %v: %v", what, m.TopicPartition, m.Target, err)
		}
	}
}

// TestCordonedBrokersInPlans: on a KRaft cluster a cordoned broker gets
// no new replica from any strategy, and a partition that moves leaves it
// (Kafka's controller refuses a target naming it), counted apart; a
// partition that does not move keeps its replica there.
func TestCordonedBrokersInPlans(t *testing.T) {
	s := smallKRaft()
	g, err := PlanDrain(s, DrainRequest{Broker: 2, Strategy: StrategyMinimal, Rand: rand.New(rand.NewPCG(1, 2))})
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range Strategies() {
		kafkaTakes(t, s, "drain of 2, "+st.String(), g.Moves(st))
	}
	moved := 0
	for _, m := range g.Moves(StrategyMinimal) {
		if !slices.Contains(m.Current, 2) {
			t.Errorf("the minimal drain of 2 moves %s, which 2 does not hold: %v → %v", m.TopicPartition, m.Current, m.Target)
		}
		if slices.Contains(m.Current, 4) {
			moved++
		}
	}
	if moved == 0 || g.Minimal.Cordoned[4] != moved {
		t.Errorf("the minimal drain moves %d partitions holding cordoned 4, counts %v", moved, g.Minimal.Cordoned)
	}
	if p := s.Topic("orders").Partition(3); !slices.Contains(p.Replicas, 4) || slices.Contains(p.Replicas, 2) {
		t.Fatalf("orders-3: %v", p.Replicas)
	}

	// A topic's move: at its replication factor the minimal strategy moves
	// the fenced broker's replicas (and the cordoned ones beside them); one
	// more replica each moves every partition off the cordoned broker.
	for _, rf := range []int{0, 4} {
		g, err := PlanTopicMove(s, TopicMoveRequest{Topic: "orders", RF: rf, Strategy: StrategyMinimal, Rand: rand.New(rand.NewPCG(3, 4))})
		if err != nil {
			t.Fatal(err)
		}
		for _, st := range Strategies() {
			kafkaTakes(t, s, "orders at RF "+strconv.Itoa(rf)+", "+st.String(), g.Moves(st))
		}
		if rf == 4 && g.Minimal.Cordoned[4] != 3 {
			t.Errorf("RF 4: the minimal strategy moves %v off cordoned brokers, want broker 4's 3", g.Minimal.Cordoned)
		}
	}
}

// TestLeadershipFirstCordoned: a partition whose leadership would move by
// a reorder is left to the copy when one of its replicas is on a
// cordoned broker (Kafka refuses the reorder); one whose first replica is
// another in-sync broker still moves by the election.
func TestLeadershipFirstCordoned(t *testing.T) {
	s := smallKRaft()
	g, err := PlanDrain(s, DrainRequest{Broker: 2, Strategy: StrategyMinimal})
	if err != nil {
		t.Fatal(err)
	}
	l := PlanLeadershipFirst(s, 2, g.Moves(StrategyMinimal))
	if got := cluster.JoinPartitions(l.Cordoned, ","); got != "__consumer_offsets-1,payments-1" || !slices.Equal(l.CordonedBrokers, []int{4}) {
		t.Errorf("cordoned %s by %v", got, l.CordonedBrokers)
	}
	if got := cluster.JoinPartitions(l.Elect, ","); got != "clicks-1,clicks-7" || len(l.Reorder) != 2 {
		t.Errorf("elect %s, reorder %v", got, l.Reorder)
	}
	for _, r := range l.Reorder {
		if err := CheckKRaftManualPartition(s, r.Replicas, -1); err != nil {
			t.Errorf("reorder %v: %v", r, err)
		}
	}

	// Broker 3 cordoned before its drain: no reorder names it; clicks-1
	// ([2,3], led by 3) moves by the election alone.
	spec, k := fixture.SmallKRaft()
	spec.Topics[2].Drift = []int{1}
	for i := range k.Brokers {
		if k.Brokers[i].ID == 3 {
			k.Brokers[i].Cordoned = true
		}
	}
	m := spec.Model()
	m.SetKRaft(k)
	s = m.Snapshot()
	g, err = PlanDrain(s, DrainRequest{Broker: 3, Strategy: StrategyMinimal})
	if err != nil {
		t.Fatal(err)
	}
	l = PlanLeadershipFirst(s, 3, g.Moves(StrategyMinimal))
	if len(l.Reorder) != 0 || cluster.JoinPartitions(l.Elect, ",") != "clicks-1" || len(l.Cordoned) == 0 || !slices.Equal(l.CordonedBrokers, []int{3, 4}) {
		t.Errorf("pre-cordoned: reorder %v, elect %v, cordoned %v by %v", l.Reorder, l.Elect, l.Cordoned, l.CordonedBrokers)
	}
}

// TestHeavyBrokers: a minimal drain that sends a rack's replicas to its
// one other broker leaves it far above the mean, which WarnMoves says.
func TestHeavyBrokers(t *testing.T) {
	spec := fixture.Spec{ClusterID: "x", Brokers: 6, Racks: 3, Controller: 1, ControllerEpoch: 1, Time: 1,
		Topics: []fixture.Topic{{Name: "a", Partitions: 12, RF: 3}, {Name: "b", Partitions: 6, RF: 3}}}
	s := spec.Model().Snapshot()
	g, err := PlanDrain(s, DrainRequest{Broker: 1, Strategy: StrategyMinimal})
	if err != nil {
		t.Fatal(err)
	}
	w := WarnMoves(s, g.Moves(StrategyMinimal))
	b4, _ := s.Broker(4)
	if len(w.Heavy) != 1 || w.Heavy[0].ID != 4 || w.Heavy[0].Before != b4.Replicas || w.Heavy[0].After != 2*b4.Replicas || w.Heavy[0].Percent() < 25 {
		t.Fatalf("heavy %+v (broker 4 holds %d)", w.Heavy, b4.Replicas)
	}
	if after := ReplicasAfter(s, g.Moves(StrategyMinimal)); after[1] != 0 || after[4] != w.Heavy[0].After {
		t.Errorf("after %v", after)
	}
}

// TestCordonedRefusal reads Kafka's refusal of a cordoned broker, and
// nothing else.
func TestCordonedRefusal(t *testing.T) {
	s := smallKRaft()
	if b, ok := CordonedRefusal(CheckKRaftManualPartition(s, []int{1, 4}, -1)); !ok || b != 4 {
		t.Errorf("cordoned: %d %v", b, ok)
	}
	if _, ok := CordonedRefusal(CheckKRaftManualPartition(s, []int{1, 9}, -1)); ok {
		t.Error("an unknown broker read as a cordoned one")
	}
}
