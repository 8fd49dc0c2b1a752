package clusterops_test

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/ktopo/ktopo/assign"
	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/clusterops"
	"github.com/ktopo/ktopo/internal/testkit/fixture"
)

const gib = 1 << 30

// skewedSpec is a seeded cluster of 9 brokers in 3 racks and four topics
// of replication factor 3, each partition one replica per rack on a
// random broker of the rack; and its sizes: most partitions lognormal
// around 1 GiB, one in 15 20 to 40 GiB. usable is each broker's free
// bytes (every broker one log directory).
func skewedSpec(seed uint64, usable func(id int) int64) (fixture.Spec, *cluster.Snapshot, *cluster.Sizes) {
	rng := rand.New(rand.NewPCG(seed, 3))
	spec := fixture.Spec{ClusterID: "c", Brokers: 9, Racks: 3, Controller: 1, ControllerEpoch: 1, Time: 1}
	for _, tt := range []struct {
		name  string
		parts int
	}{{"audit", 6}, {"clicks", 48}, {"logs", 12}, {"orders", 24}} {
		topic := fixture.Topic{Name: tt.name, Partitions: tt.parts, RF: 3, Replicas: map[int][]int{}}
		for p := range tt.parts {
			var rs []int
			for _, r := range rng.Perm(3) {
				rs = append(rs, 1+r+3*rng.IntN(3)) // rack r: brokers r+1, r+4, r+7
			}
			topic.Replicas[p] = rs
		}
		spec.Topics = append(spec.Topics, topic)
	}
	s := spec.Model().Snapshot()
	b := cluster.NewSizesBuilder(time.Unix(1000, 0))
	for id := 1; id <= spec.Brokers; id++ {
		b.Broker(id, []cluster.LogDir{{Path: "/data", Total: 10 << 40, Usable: usable(id)}})
	}
	for _, t := range s.Topics() {
		for _, p := range t.Partitions {
			n := int64(math.Exp(rng.NormFloat64()) * gib)
			if rng.IntN(15) == 0 {
				n = int64((20 + 20*rng.Float64()) * gib)
			}
			for _, r := range p.Replicas {
				b.Replica(t.Name, p.ID, cluster.ReplicaSize{Broker: int32(r), Bytes: n})
			}
		}
	}
	return spec, s, b.Done(nil)
}

func plenty(int) int64 { return 5 << 40 }

// afterDrain is each live broker's bytes after strategy st's moves, the
// drained broker left out, with their mean.
func afterDrain(s *cluster.Snapshot, sz *cluster.Sizes, g *clusterops.GeneratePlan, st clusterops.Strategy, drained int) (map[int]int64, float64) {
	after := clusterops.BytesAfter(s, sz, g.Moves(st))
	delete(after, drained)
	var sum float64
	for _, n := range after {
		sum += float64(n)
	}
	return after, sum / float64(len(after))
}

// TestDrainBytesByStrategy: on skewed clusters, the bytes each strategy
// copies to drain a broker. The minimal plan copies exactly the drained
// broker's bytes, never more than the kafka one; the balanced one ends
// every broker within assign.BalanceTolerance of its share of the bytes, with
// counts within one of the count-balanced plan's; no plan by bytes loses
// a partition's rack spread.
func TestDrainBytesByStrategy(t *testing.T) {
	const drained = 5
	for seed := range uint64(4) {
		_, s, sz := skewedSpec(seed, plenty)
		g, err := clusterops.PlanDrain(s, clusterops.DrainRequest{Broker: drained, Strategy: clusterops.StrategyMinimal, Sizes: sz, Rand: rand.New(rand.NewPCG(seed, 9))})
		if err != nil {
			t.Fatal(err)
		}
		d, _ := sz.Broker(drained)
		mn, bal, kf := g.Count(clusterops.StrategyMinimal), g.Count(clusterops.StrategyBalanced), g.Count(clusterops.StrategyKafka)
		if mn.Bytes != d.Bytes || mn.UnknownBytes != 0 {
			t.Fatalf("seed %d: minimal copies %d bytes (%d unknown), broker %d holds %d", seed, mn.Bytes, mn.UnknownBytes, drained, d.Bytes)
		}
		if mn.Bytes > kf.Bytes {
			t.Errorf("seed %d: minimal copies %d bytes, kafka %d", seed, mn.Bytes, kf.Bytes)
		}
		plain, err := clusterops.PlanDrain(s, clusterops.DrainRequest{Broker: drained, Strategy: clusterops.StrategyMinimal, Rand: rand.New(rand.NewPCG(seed, 9))})
		if err != nil {
			t.Fatal(err)
		}
		base, count := clusterops.ReplicasAfter(s, plain.Moves(clusterops.StrategyBalanced)), clusterops.ReplicasAfter(s, g.Moves(clusterops.StrategyBalanced))
		// Each broker's share of the bytes is in proportion to its
		// replicas in the count-balanced plan: rack-b's two brokers left
		// hold a replica of every partition between them, half as much
		// again as each broker of the racks of three.
		after, mean := afterDrain(s, sz, g, clusterops.StrategyBalanced, drained)
		replicas := 0
		for id, n := range base {
			if id != drained {
				replicas += n
			}
		}
		for id, n := range after {
			share := mean * float64(len(after)) * float64(base[id]) / float64(replicas)
			if math.Abs(float64(n)-share) > assign.BalanceTolerance*share {
				t.Errorf("seed %d: balanced leaves broker %d with %.1f GiB, its share %.1f GiB", seed, id, float64(n)/gib, share/gib)
			}
		}
		for id, n := range count {
			if d := n - base[id]; d < -1 || d > 1 {
				t.Errorf("seed %d: balanced by bytes leaves broker %d %d replicas, %d by counts", seed, id, n, base[id])
			}
		}
		for _, st := range []clusterops.Strategy{clusterops.StrategyMinimal, clusterops.StrategyBalanced} {
			if w := clusterops.WarnMoves(s, g.Moves(st)); w.SpreadLost != 0 {
				t.Errorf("seed %d: %s loses the rack spread of %d partitions", seed, st, w.SpreadLost)
			}
		}
		spread := func(st clusterops.Strategy, g *clusterops.GeneratePlan) float64 {
			after, mean := afterDrain(s, sz, g, st, drained)
			worst := 0.0
			for id, n := range after {
				share := mean * float64(len(after)) * float64(base[id]) / float64(replicas)
				worst = max(worst, math.Abs(float64(n)-share)/share)
			}
			return 100 * worst
		}
		t.Logf("seed %d: copies minimal %.1f GiB, balanced %.1f GiB, kafka %.1f GiB: kafka/minimal %.2f, balanced/minimal %.2f; deviation from share (worst, %%): minimal %.0f%% (by counts %.0f%%), balanced %.0f%% (by counts %.0f%%), kafka %.0f%%",
			seed, float64(mn.Bytes)/gib, float64(bal.Bytes)/gib, float64(kf.Bytes)/gib,
			float64(kf.Bytes)/float64(mn.Bytes), float64(bal.Bytes)/float64(mn.Bytes),
			spread(clusterops.StrategyMinimal, g), spread(clusterops.StrategyMinimal, plain),
			spread(clusterops.StrategyBalanced, g), spread(clusterops.StrategyBalanced, plain), spread(clusterops.StrategyKafka, g))
	}
}

// TestMinimalBytesEvensRack: the drained broker's replicas must go to
// the two other brokers of its rack (every partition has one replica per
// rack); by bytes the two end no further apart than their gap before or
// the largest partition moved, whichever is larger (each copy goes to
// the lighter of the two).
func TestMinimalBytesEvensRack(t *testing.T) {
	const drained = 5 // rack-b: 2, 5, 8
	for seed := range uint64(4) {
		_, s, sz := skewedSpec(seed, plenty)
		g, err := clusterops.PlanDrain(s, clusterops.DrainRequest{Broker: drained, Strategy: clusterops.StrategyMinimal, Sizes: sz})
		if err != nil {
			t.Fatal(err)
		}
		var largest int64
		for _, m := range g.Moves(clusterops.StrategyMinimal) {
			n, _ := sz.PartitionBytes(m.Topic, m.Partition)
			largest = max(largest, n)
			if add := m.Adding(); len(add) != 1 || add[0] != 2 && add[0] != 8 {
				t.Fatalf("%s: %v → %v", m.TopicPartition, m.Current, m.Target)
			}
		}
		b2, _ := sz.Broker(2)
		b8, _ := sz.Broker(8)
		after, _ := afterDrain(s, sz, g, clusterops.StrategyMinimal, drained)
		gap := abs(after[2] - after[8])
		if limit := max(abs(b2.Bytes-b8.Bytes), largest); gap > limit {
			t.Errorf("seed %d: brokers 2 and 8 end %d bytes apart (before %d, largest partition %d)", seed, gap, abs(b2.Bytes-b8.Bytes), largest)
		}
	}
}

func abs(n int64) int64 {
	if n < 0 {
		return -n
	}
	return n
}

// TestPlanWithoutSizes: nil sizes, and sizes that could not be read,
// give exactly the plans made without them, and count no bytes.
func TestPlanWithoutSizes(t *testing.T) {
	_, s, _ := skewedSpec(1, plenty)
	plan := func(sz *cluster.Sizes) *clusterops.GeneratePlan {
		g, err := clusterops.PlanDrain(s, clusterops.DrainRequest{Broker: 4, Strategy: clusterops.StrategyBalanced, Sizes: sz, Rand: rand.New(rand.NewPCG(1, 2))})
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	want := plan(nil)
	for _, sz := range []*cluster.Sizes{nil, cluster.UnknownSizes(time.Unix(1, 0), "no broker answered")} {
		g := plan(sz)
		for _, st := range clusterops.Strategies() {
			if !clusterops.SameMoves(g.Moves(st), want.Moves(st)) {
				t.Fatalf("%s differs with sizes %v", st, sz.Why())
			}
			if c := g.Count(st); c.Bytes != 0 || c.UnknownBytes != 0 || c.Disk != nil || g.DiskError(st) != nil {
				t.Fatalf("%s counts %+v without sizes", st, c)
			}
		}
	}
}

// TestPlanDiskRefusal: a plan that sends a broker more than its log
// directories have usable is refused, naming the broker, the bytes it
// would receive and those usable; a plan that fits is not.
func TestPlanDiskRefusal(t *testing.T) {
	_, s, sz := skewedSpec(2, func(id int) int64 {
		if id == 8 {
			return 2 * gib
		}
		return 5 << 40
	})
	g, err := clusterops.PlanDrain(s, clusterops.DrainRequest{Broker: 5, Strategy: clusterops.StrategyMinimal, Sizes: sz})
	if err != nil {
		t.Fatal(err)
	}
	mn := g.Count(clusterops.StrategyMinimal)
	if len(mn.Disk) != 1 || mn.Disk[0].Broker != 8 || mn.Disk[0].Incoming != mn.BytesIn[8] || mn.BytesIn[8] <= 2*gib {
		t.Fatalf("disk %+v, in %v", mn.Disk, mn.BytesIn)
	}
	err = g.DiskError(clusterops.StrategyMinimal)
	var refusal *clusterops.DiskRefusal
	if !errors.As(err, &refusal) || refusal.Strategy != clusterops.StrategyMinimal {
		t.Fatalf("%v", err)
	}
	msg := err.Error()
	for _, want := range []string{"the minimal plan would fill log directories", "broker 8 would receive " + cluster.FormatBytes(mn.BytesIn[8]), "2.00 GiB usable"} {
		if !strings.Contains(msg, want) {
			t.Fatalf("%q lacks %q", msg, want)
		}
	}
	_, s, sz = skewedSpec(2, plenty)
	if g, err = clusterops.PlanDrain(s, clusterops.DrainRequest{Broker: 5, Sizes: sz}); err != nil {
		t.Fatal(err)
	}
	for _, st := range clusterops.Strategies() {
		if err := g.DiskError(st); err != nil {
			t.Fatalf("%s: %v", st, err)
		}
	}
}

// TestWarnMovesSized: moves that pile a large partition on a broker warn
// it far above the mean bytes; without sizes nothing is said of bytes.
func TestWarnMovesSized(t *testing.T) {
	spec := fixture.Spec{ClusterID: "c", Brokers: 4, Controller: 1, ControllerEpoch: 1, Time: 1,
		Topics: []fixture.Topic{{Name: "t", Partitions: 4, RF: 1, Replicas: map[int][]int{0: {1}, 1: {2}, 2: {3}, 3: {4}}}}}
	s := spec.Model().Snapshot()
	b := cluster.NewSizesBuilder(time.Unix(1, 0))
	for id := 1; id <= 4; id++ {
		b.Broker(id, []cluster.LogDir{{Path: "/d", Total: 1 << 40, Usable: 1 << 40}})
	}
	for p, n := range []int64{10 * gib, 10 * gib, 10 * gib, 40 * gib} {
		b.Replica("t", p, cluster.ReplicaSize{Broker: int32(p + 1), Bytes: n})
	}
	sz := b.Done(nil)
	moves := []clusterops.PartitionMove{{TopicPartition: cluster.TopicPartition{Topic: "t", Partition: 3}, Current: []int{4}, Target: []int{1}}}
	w := clusterops.WarnMovesSized(s, sz, moves)
	// After: 1 holds 50 GiB, 2 and 3 10 GiB, 4 nothing (out of the mean):
	// mean 23.3 GiB.
	if len(w.HeavyBytes) != 1 || w.HeavyBytes[0].ID != 1 || w.HeavyBytes[0].After != 50*gib || w.HeavyBytes[0].Percent() != 114 {
		t.Fatalf("%+v", w.HeavyBytes)
	}
	if got, want := w.HeavyBytes[0].String(), "broker 1 ends with 50.0 GiB, 114% above the mean (23.3 GiB)"; got != want {
		t.Fatalf("%q, want %q", got, want)
	}
	if w := clusterops.WarnMovesSized(s, nil, moves); w.HeavyBytes != nil {
		t.Fatalf("%+v", w.HeavyBytes)
	}
}
