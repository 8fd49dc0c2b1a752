package clusterops_test

import (
	"testing"

	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/clusterops"
	"github.com/ktopo/ktopo/internal/testkit/fixture"
)

// kraftSnapshot is a KRaft cluster of n brokers in racks (round robin)
// with topic orders of 12 partitions × RF 3.
func kraftSnapshot(n, racks int) *cluster.Snapshot {
	spec := fixture.Spec{ClusterID: "c", Brokers: n, Racks: racks, Controller: 3000, ControllerEpoch: 1, Time: 1,
		Topics: []fixture.Topic{{Name: "orders", Partitions: 12, RF: 3}}}
	m := spec.Model()
	m.SetKRaft(fixture.KRaftFacts(spec))
	return m.Snapshot()
}

// TestBetterAddSeed: when the KRaft controller's placer spreads added
// partitions unevenly for the seed previewed, BetterAddSeed names a seed
// that spreads them strictly better, and planning with that seed gives
// exactly the spread it promised; an even plan, a manual one and a
// ZooKeeper-mode plan get no suggestion.
func TestBetterAddSeed(t *testing.T) {
	s := kraftSnapshot(4, 2)
	suggested := 0
	for seed := range int64(40) {
		p, err := clusterops.PlanAddPartitions(s, clusterops.AddPartitionsRequest{Topic: "orders", Partitions: 24, Seed: seed, HasSeed: true})
		if err != nil {
			t.Fatal(err)
		}
		now := clusterops.SpreadOf(p.Brokers, p.Assignment())
		sg, ok := clusterops.BetterAddSeed(s, p)
		if !ok {
			continue
		}
		suggested++
		if sg.Now != now || sg.Seed == seed {
			t.Fatalf("seed %d: %+v, the plan's spread is %+v", seed, sg, now)
		}
		q, err := clusterops.PlanAddPartitions(s, clusterops.AddPartitionsRequest{Topic: "orders", Partitions: 24, Seed: sg.Seed, HasSeed: true})
		if err != nil {
			t.Fatal(err)
		}
		got := clusterops.SpreadOf(q.Brokers, q.Assignment())
		if got != sg.Better {
			t.Fatalf("seed %d suggests seed %d for %v, which places %v", seed, sg.Seed, sg.Better, got)
		}
		if got.MaxLeaders-got.MinLeaders+got.MaxReplicas-got.MinReplicas >= now.MaxLeaders-now.MinLeaders+now.MaxReplicas-now.MinReplicas {
			t.Fatalf("seed %d (%v): seed %d is no better (%v)", seed, now, sg.Seed, got)
		}
		if sg.Better.String() == "" || sg.Now.String() == sg.Better.String() {
			t.Fatalf("words: %q / %q", sg.Better, sg.Now)
		}
		// The suggested seed is the best: asked again, it has nothing better.
		if _, ok := clusterops.BetterAddSeed(s, q); ok {
			t.Fatalf("seed %d is suggested, then improved on", sg.Seed)
		}
	}
	if suggested == 0 {
		t.Fatal("no seed of 40 was improved on: the test proves nothing")
	}
	// Manual placement, and ZooKeeper mode (no seed): no suggestion.
	manual := map[int][]int{}
	for i := range 13 {
		manual[i] = s.Topic("orders").Partition(0).Replicas
	}
	manual[12] = []int{1, 2, 3}
	p, err := clusterops.PlanAddPartitions(s, clusterops.AddPartitionsRequest{Topic: "orders", Partitions: 13, Assignment: manual})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := clusterops.BetterAddSeed(s, p); ok {
		t.Error("a manual placement gets a seed")
	}
	zk := fixture.Spec{ClusterID: "c", Brokers: 4, Racks: 2, Controller: 1, ControllerEpoch: 1, Time: 1, Topics: []fixture.Topic{{Name: "orders", Partitions: 12, RF: 3}}}
	zs := zk.Model().Snapshot()
	if p, err = clusterops.PlanAddPartitions(zs, clusterops.AddPartitionsRequest{Topic: "orders", Partitions: 24}); err != nil {
		t.Fatal(err)
	}
	if _, ok := clusterops.BetterAddSeed(zs, p); ok {
		t.Error("a ZooKeeper-mode plan gets a seed")
	}
	if got := (clusterops.Spread{MinReplicas: 5, MaxReplicas: 12, MinLeaders: 4, MaxLeaders: 4}).String(); got != "replicas 5–12, leaders 4 a broker" {
		t.Errorf("%q", got)
	}
}
