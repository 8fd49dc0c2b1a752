package clusterops

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/internal/testkit/clustertest"
)

// bigSizes are seeded sizes for clustertest.Big's cluster: each
// partition lognormal around 1 GiB, one in 50 ten times larger, every
// replica the partition's size, every broker one log directory of 100 TiB
// (so that no plan is refused).
func bigSizes(s *cluster.Snapshot, seed uint64) *cluster.Sizes {
	rng := rand.New(rand.NewPCG(seed, 11))
	b := cluster.NewSizesBuilder(time.Unix(1_700_000_000, 0))
	for _, br := range s.Brokers() {
		b.Broker(br.ID, []cluster.LogDir{{Path: "/data", Total: 100 << 40, Usable: 100 << 40}})
	}
	for _, t := range s.Topics() {
		for _, p := range t.Partitions {
			n := int64(math.Exp(rng.NormFloat64()) * (1 << 30))
			if rng.IntN(50) == 0 {
				n *= 10
			}
			for _, r := range p.Replicas {
				b.Replica(t.Name, p.ID, cluster.ReplicaSize{Broker: int32(r), Bytes: n})
			}
		}
	}
	return b.Done(nil)
}

// BenchmarkDrainPlanBytes plans the drain of one broker out of 1,000 (3
// racks) holding 100,000 partitions (1,000 topics of 100, replication
// factor 3) with seeded random sizes, by bytes: PlanDrain's whole
// computation (every strategy, the balanced one evened by bytes, the
// bytes and disk check of each). Under -short, 100 brokers and 10,000
// partitions.
func BenchmarkDrainPlanBytes(b *testing.B) {
	nBrokers, nTopics, nParts := 1000, 1000, 100
	if testing.Short() {
		nBrokers, nTopics = 100, 100
	}
	m := cluster.NewModel(cluster.ModelOptions{NoChanges: true})
	m.Apply(clustertest.Big(nBrokers, nTopics, nParts), true)
	s := m.Snapshot()
	sz := bigSizes(s, 1)
	drained := nBrokers - 1
	b.ReportAllocs()
	var g *GeneratePlan
	start := clustertest.CPUTime()
	for b.Loop() {
		var err error
		g, err = PlanDrain(s, DrainRequest{Broker: drained, Strategy: StrategyMinimal, Sizes: sz, Rand: rand.New(rand.NewPCG(1, 2))})
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(clustertest.CPUTime()-start)/float64(b.N), "cpu-ns/op")
	d, _ := sz.Broker(drained)
	if g.Minimal.Bytes != d.Bytes || g.Minimal.Replicas != d.Replicas {
		b.Fatalf("the minimal plan copies %d bytes in %d replicas; the drained broker holds %d in %d", g.Minimal.Bytes, g.Minimal.Replicas, d.Bytes, d.Replicas)
	}
	b.ReportMetric(float64(g.Minimal.Bytes)/(1<<30), "min-GiB")
	b.ReportMetric(float64(g.Balanced.Bytes)/(1<<30), "bal-GiB")
	b.ReportMetric(float64(g.Kafka.Bytes)/(1<<30), "kafka-GiB")
	b.ReportMetric(100*maxDeviation(BytesAfter(s, sz, g.Moves(StrategyBalanced)), drained), "bal-dev%")
}

// maxDeviation is how far from the mean the broker furthest from it is,
// as a fraction of the mean, over the brokers of after but skip.
func maxDeviation(after map[int]int64, skip int) float64 {
	var sum float64
	for id, n := range after {
		if id != skip {
			sum += float64(n)
		}
	}
	mean := sum / float64(len(after)-1)
	var dev float64
	for id, n := range after {
		if id != skip {
			dev = max(dev, math.Abs(float64(n)-mean)/mean)
		}
	}
	return dev
}
