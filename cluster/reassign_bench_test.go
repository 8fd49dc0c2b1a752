package cluster

import (
	"strconv"
	"syscall"
	"testing"
	"time"
)

// BenchmarkPlanDrain plans the drain of one broker out of 1,000 (3 racks)
// holding 100,000 partitions (1,000 topics of 100, replication factor 3)
// with the minimal strategy: --generate's whole computation (both
// strategies, as it reports what each moves) and its two JSON documents.
func BenchmarkPlanDrain(b *testing.B) {
	const nBrokers, nTopics, nParts = 1000, 1000, 100
	m := NewModel(ModelOptions{NoChanges: true})
	m.Apply(benchCluster(nBrokers, nTopics, nParts), true)
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
	start := cpuTime()
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
	b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
}

// reassignBatches returns the ZooKeeper events of a reassignment of
// partition 0 of each of n topics (of the benchCluster shape, 10
// partitions, brokers 0..nBrokers-1) from [a,b,c] to [b,c,d], in batches
// of about 512 events as the mirror delivers them: per partition the
// controller's topic znode rewrite (RS = TRS ++ ORS, adding, removing),
// the leader epoch bump, the new replica joining the ISR, the Reassign
// election, the old replica leaving, the topic znode with the target; and
// per batch /admin/reassign_partitions with the partitions left.
func reassignBatches(nBrokers, n, nParts int) ([][]NodeEvent, []PartitionMove) {
	var batches [][]NodeEvent
	var batch []NodeEvent
	moves := make([]PartitionMove, n)
	zx := int64(1 << 40)
	ev := func(path string, data []byte) {
		zx++
		batch = append(batch, NodeEvent{Type: NodeChanged, Path: path, Data: data, Stat: Stat{Mzxid: zx, Czxid: 2}})
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
		moves[t] = PartitionMove{TopicPartition: TopicPartition{name, 0}, Current: []int{a, bb, c}, Target: []int{bb, c, d}}
		during := parts(t, nParts)
		during[0] = []int{bb, c, d, a}
		ta := NewTopicAssignment(during, "")
		ta.AddingReplicas, ta.RemovingReplicas = map[int][]int{0: {d}}, map[int][]int{0: {a}}
		ev(TopicPath(name), EncodeTopicAssignment(ta))
		state := PartitionStatePath(name, 0)
		ev(state, EncodePartitionState(PartitionState{ControllerEpoch: 1, Leader: a, LeaderEpoch: 1, ISR: []int{a, bb, c}}))
		ev(state, EncodePartitionState(PartitionState{ControllerEpoch: 1, Leader: a, LeaderEpoch: 1, ISR: []int{a, bb, c, d}}))
		ev(state, EncodePartitionState(PartitionState{ControllerEpoch: 1, Leader: bb, LeaderEpoch: 2, ISR: []int{a, bb, c, d}}))
		ev(state, EncodePartitionState(PartitionState{ControllerEpoch: 1, Leader: bb, LeaderEpoch: 3, ISR: []int{bb, c, d}}))
		done := parts(t, nParts)
		done[0] = []int{bb, c, d}
		ev(TopicPath(name), EncodeTopicAssignment(NewTopicAssignment(done, "")))
		if len(batch) >= 512 || t == n-1 {
			var left []PartitionReassignment
			for u := t + 1; u < n; u++ {
				left = append(left, PartitionReassignment{Topic: "topic-" + strconv.Itoa(u), Partition: 0,
					Replicas: []int{(u + 1) % nBrokers, (u + 2) % nBrokers, (u + 3) % nBrokers}})
			}
			if len(left) == 0 {
				zx++
				batch = append(batch, NodeEvent{Type: NodeDeleted, Path: ReassignPartitionsPath})
			} else {
				ev(ReassignPartitionsPath, EncodeReassignPartitions(left))
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
	base := benchCluster(nBrokers, nTopics, nParts)
	batches, moves := reassignBatches(nBrokers, nTopics, nParts)
	fresh := func() (*Model, *ReassignTracker) {
		m := NewModel(ModelOptions{})
		m.Apply(base, true)
		var all []PartitionReassignment
		for _, mv := range moves {
			all = append(all, PartitionReassignment{Topic: mv.Topic, Partition: 0, Replicas: mv.Target})
		}
		m.Apply([]NodeEvent{{Type: NodeCreated, Path: ReassignPartitionsPath, Data: EncodeReassignPartitions(all), Stat: Stat{Mzxid: 1 << 39}}}, false)
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
				b.Fatalf("after every batch %d of %d partitions are done", last.Count[ReassignDone], len(moves))
			}
			m, tr = fresh()
			i = 0
			b.StartTimer()
		}
		t0 := cpuTime()
		m.Apply(batches[i], false)
		last = tr.Update(m.Snapshot())
		cpu += cpuTime() - t0
		i++
	}
	b.ReportMetric(float64(len(batches[0])), "events/batch")
	b.ReportMetric(float64(cpu)/float64(b.N), "cpu-ns/op")
}

// cpuTime is the process's user and system CPU time: under a loaded
// machine it tells what a benchmark costs better than the wall clock.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkApplyBatchCPU is BenchmarkApply's apply+snapshot workload (512
// state writes a batch on the 10,000-topic cluster) with its CPU time per
// batch, the baseline of BenchmarkFollowReassignment.
func BenchmarkApplyBatchCPU(b *testing.B) {
	const nBrokers, nTopics, nParts = 30, 10_000, 10
	m := NewModel(ModelOptions{})
	m.Apply(benchCluster(nBrokers, nTopics, nParts), true)
	m.Snapshot()
	batches := benchBatches(8, 512, nBrokers, nTopics, nParts)
	zx := int64(1 << 40)
	i := 0
	start := cpuTime()
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
	b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
}
