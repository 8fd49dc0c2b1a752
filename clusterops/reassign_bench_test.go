package clusterops

import (
	"strconv"
	"testing"
	"time"

	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/internal/testkit/clustertest"
)

// BenchmarkPlanDrain plans the drain of one broker out of 1,000 (3 racks)
// holding 100,000 partitions (1,000 topics of 100, replication factor 3)
// with the minimal strategy: --generate's whole computation (both
// strategies, as it reports what each moves) and its two JSON documents.
func BenchmarkPlanDrain(b *testing.B) {
	const nBrokers, nTopics, nParts = 1000, 1000, 100
	m := cluster.NewModel(cluster.ModelOptions{NoChanges: true})
	m.Apply(clustertest.Big(nBrokers, nTopics, nParts), true)
	s := m.Snapshot()
	topics := make([]string, nTopics)
	for i := range topics {
		topics[i] = "topic-" + strconv.Itoa(i)
	}
	brokers := make([]int, 0, nBrokers-1)
	for id := 0; id < nBrokers-1; id++ {
		brokers = append(brokers, id)
	}
	onDrained := 0
	for _, t := range s.Topics() {
		for _, p := range t.Partitions {
			for _, r := range p.Replicas {
				if r == nBrokers-1 {
					onDrained++
				}
			}
		}
	}
	b.ReportAllocs()
	var g *GeneratePlan
	start := clustertest.CPUTime()
	for b.Loop() {
		var err error
		g, err = GenerateReassignment(s, GenerateRequest{Topics: topics, Brokers: brokers, Strategy: StrategyMinimal, StartIndex: -1})
		if err != nil {
			b.Fatal(err)
		}
		_ = g.CurrentJSON()
		_ = g.ProposedJSON()
	}
	if g.Minimal.Replicas != onDrained {
		b.Fatalf("the minimal strategy moves %d replicas; the drained broker holds %d", g.Minimal.Replicas, onDrained)
	}
	b.ReportMetric(float64(g.Minimal.Replicas), "moved")
	b.ReportMetric(float64(clustertest.CPUTime()-start)/float64(b.N), "cpu-ns/op")
}

// reassignBatches returns the ZooKeeper events of a reassignment of
// partition 0 of each of n topics (of the benchCluster shape, 10
// partitions, brokers 0..nBrokers-1) from [a,b,c] to [b,c,d], in batches
// of about 512 events as the mirror delivers them: per partition the
// controller's topic znode rewrite (RS = TRS ++ ORS, adding, removing),
// the leader epoch bump, the new replica joining the ISR, the Reassign
// election, the old replica leaving, the topic znode with the target; and
// per batch /admin/reassign_partitions with the partitions left.
func reassignBatches(nBrokers, n, nParts int) ([][]cluster.NodeEvent, []PartitionMove) {
	var batches [][]cluster.NodeEvent
	var batch []cluster.NodeEvent
	moves := make([]PartitionMove, n)
	zx := int64(1 << 40)
	ev := func(path string, data []byte) {
		zx++
		batch = append(batch, cluster.NodeEvent{Type: cluster.NodeChanged, Path: path, Data: data, Stat: cluster.Stat{Mzxid: zx, Czxid: 2}})
	}
	parts := func(t, nParts int) map[int][]int {
		m := make(map[int][]int, nParts)
		for p := 0; p < nParts; p++ {
			m[p] = []int{(t + p) % nBrokers, (t + p + 1) % nBrokers, (t + p + 2) % nBrokers}
		}
		return m
	}
	for t := 0; t < n; t++ {
		name := "topic-" + strconv.Itoa(t)
		a, bb, c, d := t%nBrokers, (t+1)%nBrokers, (t+2)%nBrokers, (t+3)%nBrokers
		moves[t] = PartitionMove{TopicPartition: cluster.TopicPartition{Topic: name, Partition: 0}, Current: []int{a, bb, c}, Target: []int{bb, c, d}}
		during := parts(t, nParts)
		during[0] = []int{bb, c, d, a}
		ta := cluster.NewTopicAssignment(during, "")
		ta.AddingReplicas, ta.RemovingReplicas = map[int][]int{0: {d}}, map[int][]int{0: {a}}
		ev(cluster.TopicPath(name), cluster.EncodeTopicAssignment(ta))
		state := cluster.PartitionStatePath(name, 0)
		ev(state, cluster.EncodePartitionState(cluster.PartitionState{ControllerEpoch: 1, Leader: a, LeaderEpoch: 1, ISR: []int{a, bb, c}}))
		ev(state, cluster.EncodePartitionState(cluster.PartitionState{ControllerEpoch: 1, Leader: a, LeaderEpoch: 1, ISR: []int{a, bb, c, d}}))
		ev(state, cluster.EncodePartitionState(cluster.PartitionState{ControllerEpoch: 1, Leader: bb, LeaderEpoch: 2, ISR: []int{a, bb, c, d}}))
		ev(state, cluster.EncodePartitionState(cluster.PartitionState{ControllerEpoch: 1, Leader: bb, LeaderEpoch: 3, ISR: []int{bb, c, d}}))
		done := parts(t, nParts)
		done[0] = []int{bb, c, d}
		ev(cluster.TopicPath(name), cluster.EncodeTopicAssignment(cluster.NewTopicAssignment(done, "")))
		if len(batch) >= 512 || t == n-1 {
			var left []cluster.PartitionReassignment
			for u := t + 1; u < n; u++ {
				left = append(left, cluster.PartitionReassignment{Topic: "topic-" + strconv.Itoa(u), Partition: 0,
					Replicas: []int{(u + 1) % nBrokers, (u + 2) % nBrokers, (u + 3) % nBrokers}})
			}
			if len(left) == 0 {
				zx++
				batch = append(batch, cluster.NodeEvent{Type: cluster.NodeDeleted, Path: cluster.ReassignPartitionsPath})
			} else {
				ev(cluster.ReassignPartitionsPath, cluster.EncodeReassignPartitions(left))
			}
			batches = append(batches, batch)
			batch = nil
		}
	}
	return batches, moves
}

// BenchmarkFollowReassignment follows a reassignment of 10,000 partitions
// (one of each topic of a 10,000-topic × 10-partition cluster) batch by
// batch as ktopo reassign --execute does: Model.Apply, Snapshot and the
// tracker's update. Compare with BenchmarkApply's apply+snapshot (512
// state writes a batch, same cluster).
func BenchmarkFollowReassignment(b *testing.B) {
	const nBrokers, nTopics, nParts = 30, 10_000, 10
	base := clustertest.Big(nBrokers, nTopics, nParts)
	batches, moves := reassignBatches(nBrokers, nTopics, nParts)
	fresh := func() (*cluster.Model, *ReassignTracker) {
		m := cluster.NewModel(cluster.ModelOptions{})
		m.Apply(base, true)
		var all []cluster.PartitionReassignment
		for _, mv := range moves {
			all = append(all, cluster.PartitionReassignment{Topic: mv.Topic, Partition: 0, Replicas: mv.Target})
		}
		m.Apply([]cluster.NodeEvent{{Type: cluster.NodeCreated, Path: cluster.ReassignPartitionsPath, Data: cluster.EncodeReassignPartitions(all), Stat: cluster.Stat{Mzxid: 1 << 39}}}, false)
		tr := NewReassignTracker(moves, nil)
		tr.Update(m.Snapshot())
		return m, tr
	}
	m, tr := fresh()
	b.ReportAllocs()
	i := 0
	var last ReassignProgress
	var cpu time.Duration
	for b.Loop() {
		if i == len(batches) {
			b.StopTimer()
			if !last.Done() {
				b.Fatalf("after every batch %d of %d partitions are done", last.Count[cluster.ReassignDone], len(moves))
			}
			m, tr = fresh()
			i = 0
			b.StartTimer()
		}
		t0 := clustertest.CPUTime()
		m.Apply(batches[i], false)
		last = tr.Update(m.Snapshot())
		cpu += clustertest.CPUTime() - t0
		i++
	}
	b.ReportMetric(float64(len(batches[0])), "events/batch")
	b.ReportMetric(float64(cpu)/float64(b.N), "cpu-ns/op")
}

// BenchmarkApplyBatchCPU is BenchmarkApply's apply+snapshot workload (512
// state writes a batch on the 10,000-topic cluster) with its CPU time per
// batch, the baseline of BenchmarkFollowReassignment.
func BenchmarkApplyBatchCPU(b *testing.B) {
	const nBrokers, nTopics, nParts = 30, 10_000, 10
	m := cluster.NewModel(cluster.ModelOptions{})
	m.Apply(clustertest.Big(nBrokers, nTopics, nParts), true)
	m.Snapshot()
	batches := clustertest.Churn(8, 512, nBrokers, nTopics, nParts)
	zx := int64(1 << 40)
	i := 0
	start := clustertest.CPUTime()
	for b.Loop() {
		batch := batches[i%len(batches)]
		i++
		for j := range batch {
			zx++
			batch[j].Stat.Mzxid = zx
		}
		m.Apply(batch, false)
		m.Snapshot()
	}
	b.ReportMetric(float64(clustertest.CPUTime()-start)/float64(b.N), "cpu-ns/op")
}
