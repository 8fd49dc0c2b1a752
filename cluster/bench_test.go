package cluster

import (
	"math/rand/v2"
	"runtime"
	"strconv"
	"testing"
)

// benchCluster returns the events of a cluster with nBrokers brokers in 3
// racks and nTopics topics of nParts partitions (RF 3), all healthy.
func benchCluster(nBrokers, nTopics, nParts int) []NodeEvent {
	var evs []NodeEvent
	zx := int64(1)
	add := func(path string, data []byte) {
		zx++
		evs = append(evs, NodeEvent{Type: NodeCreated, Path: path, Data: data, Stat: Stat{Czxid: zx, Mzxid: zx, Ctime: zx, Mtime: zx}})
	}
	add(ClusterIDPath, EncodeClusterID("AbCdEfGhIjKlMnOpQrStUv"))
	add(ControllerEpochPath, []byte("1"))
	add(ControllerPath, EncodeController(NewControllerInfo(2, 0, 1)))
	for b := 0; b < nBrokers; b++ {
		add(BrokerIDPath(b), []byte(brokerJSON(b, "rack-"+strconv.Itoa(b%3))))
	}
	for t := 0; t < nTopics; t++ {
		name := "topic-" + strconv.Itoa(t)
		parts := make(map[int][]int, nParts)
		for p := 0; p < nParts; p++ {
			parts[p] = []int{(t + p) % nBrokers, (t + p + 1) % nBrokers, (t + p + 2) % nBrokers}
		}
		add(TopicConfigPath(name), EncodeEntityConfig(nil))
		add(TopicPath(name), EncodeTopicAssignment(NewTopicAssignment(parts, NewTopicID().String())))
		for p := 0; p < nParts; p++ {
			r := parts[p]
			add(PartitionStatePath(name, p), EncodePartitionState(PartitionState{ControllerEpoch: 1, Leader: r[0], ISR: r}))
		}
	}
	return evs
}

// benchBatches returns k batches of n state writes on random partitions,
// alternating between "leader moved to the second replica, first dropped
// from the ISR" and back, so every application changes the model.
func benchBatches(k, n, nBrokers, nTopics, nParts int) [][]NodeEvent {
	rng := rand.New(rand.NewPCG(1, 2))
	out := make([][]NodeEvent, k)
	for i := range out {
		batch := make([]NodeEvent, n)
		for j := range batch {
			t, p := rng.IntN(nTopics), rng.IntN(nParts)
			r := []int{(t + p) % nBrokers, (t + p + 1) % nBrokers, (t + p + 2) % nBrokers}
			st := PartitionState{ControllerEpoch: 1, Leader: r[0], LeaderEpoch: 2 * i, ISR: r}
			if i%2 == 0 {
				st = PartitionState{ControllerEpoch: 1, Leader: r[1], LeaderEpoch: 2*i + 1, ISR: r[1:]}
			}
			batch[j] = NodeEvent{Type: NodeChanged, Path: PartitionStatePath("topic-"+strconv.Itoa(t), p), Data: EncodePartitionState(st)}
		}
		out[i] = batch
	}
	return out
}

// BenchmarkApply applies 512-event batches (partition state writes: leader
// moves and ISR shrinks/expands) to a 10,000-topic × 10-partition model.
// "apply" is Model.Apply alone; "apply+snapshot" adds the Snapshot a screen
// takes after every batch.
func BenchmarkApply(b *testing.B) {
	const nBrokers, nTopics, nParts = 30, 10_000, 10
	for _, withSnap := range []bool{false, true} {
		name := "apply"
		if withSnap {
			name = "apply+snapshot"
		}
		b.Run(name+"/topics=10000/partitions=100000/batch=512", func(b *testing.B) {
			m := NewModel(ModelOptions{})
			m.Apply(benchCluster(nBrokers, nTopics, nParts), true)
			m.Snapshot()
			batches := benchBatches(8, 512, nBrokers, nTopics, nParts)
			zx := int64(1 << 40)
			changes := 0
			b.ReportAllocs()
			b.ResetTimer()
			i := 0
			for b.Loop() {
				batch := batches[i%len(batches)]
				i++
				for j := range batch { // fresh zxids, as ZooKeeper would give
					zx++
					batch[j].Stat.Mzxid = zx
				}
				changes += len(m.Apply(batch, false))
				if withSnap {
					m.Snapshot()
				}
			}
			b.ReportMetric(float64(changes)/float64(b.N), "changes/op")
		})
	}
}

// BenchmarkInitialLoad is the first (reset) batch of a 10,000-topic ×
// 10-partition cluster (130,033 events), Apply plus the first Snapshot; it
// also reports the heap the model holds afterwards (measured outside the
// timed region).
func BenchmarkInitialLoad(b *testing.B) {
	evs := benchCluster(30, 10_000, 10)
	b.ReportAllocs()
	var heap float64
	for b.Loop() {
		b.StopTimer()
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		b.StartTimer()
		m := NewModel(ModelOptions{})
		m.Apply(evs, true) // the changes are left to the collector: the heap counted is the model's
		s := m.Snapshot()
		b.StopTimer()
		runtime.GC()
		runtime.ReadMemStats(&after)
		heap = float64(after.HeapAlloc-before.HeapAlloc) / (1 << 20)
		runtime.KeepAlive(s)
		b.StartTimer()
	}
	b.ReportMetric(heap, "MiB-held")
}

// BenchmarkSnapshot measures Snapshot after a small batch (one topic
// changed) and when nothing changed.
func BenchmarkSnapshot(b *testing.B) {
	m := NewModel(ModelOptions{})
	m.Apply(benchCluster(30, 10_000, 10), true)
	m.Snapshot()
	b.Run("unchanged", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			m.Snapshot()
		}
	})
	b.Run("one-topic-changed/topics=10000", func(b *testing.B) {
		b.ReportAllocs()
		zx := int64(1 << 40)
		leader := 0
		for b.Loop() {
			zx++
			leader = 1 - leader
			m.Apply([]NodeEvent{{Type: NodeChanged, Path: PartitionStatePath("topic-7", 0),
				Data: EncodePartitionState(PartitionState{ControllerEpoch: 1, Leader: 7 + leader, ISR: []int{7, 8, 9}}),
				Stat: Stat{Mzxid: zx}}}, false)
			m.Snapshot()
		}
	})
}

func BenchmarkDecodePartitionState(b *testing.B) {
	data := []byte(specState1)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := DecodePartitionState(data); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParsePath(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		ParsePath("/brokers/topics/topic-1234/partitions/7/state")
	}
}
