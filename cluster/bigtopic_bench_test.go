package cluster

import (
	"fmt"
	"testing"
)

// BenchmarkBigTopicBatch: a 512-event batch on one topic of 5,000 or 50,000
// partitions, then a snapshot (the TUI takes one per batch).
func BenchmarkBigTopicBatch(b *testing.B) {
	for _, n := range []int{5_000, 50_000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			m := NewModel(ModelOptions{})
			parts := map[int][]int{}
			for p := 0; p < n; p++ {
				parts[p] = []int{1, 2, 3}
			}
			evs := []NodeEvent{{Type: NodeCreated, Path: "/brokers/topics/big", Data: EncodeTopicAssignment(NewTopicAssignment(parts, "")), Stat: Stat{Czxid: 1}}}
			for p := 0; p < n; p++ {
				evs = append(evs, NodeEvent{Type: NodeCreated, Path: PartitionStatePath("big", p), Data: EncodePartitionState(PartitionState{Leader: 1, ISR: []int{1, 2, 3}}), Stat: Stat{Czxid: 2}})
			}
			m.Apply(evs, true)
			m.Snapshot()
			var batches [2][]NodeEvent
			for k := range batches {
				for p := 0; p < 512; p++ {
					isr := []int{1, 2, 3}
					if k == 1 {
						isr = []int{2, 3}
					}
					batches[k] = append(batches[k], NodeEvent{Type: NodeChanged, Path: PartitionStatePath("big", p), Data: EncodePartitionState(PartitionState{Leader: isr[0], ISR: isr}), Stat: Stat{Czxid: 2, Version: int32(k + 1)}})
				}
			}
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				m.Apply(batches[i%2], false)
				m.Snapshot()
				i++
			}
		})
	}
}
