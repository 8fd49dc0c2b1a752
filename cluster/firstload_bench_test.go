package cluster_test

import (
	"testing"

	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/internal/testkit/firstload"
)

// loadingModel is a model the core batch of l was applied to, still
// loading, and its first snapshot.
func loadingModel(l firstload.Load) (*cluster.Model, *cluster.Snapshot) {
	m := cluster.NewModel(cluster.ModelOptions{})
	m.SetQuiet(true)
	m.SetLoading(true)
	m.Apply(l.Core(), false)
	return m, m.Snapshot()
}

// BenchmarkFirstLoadBatch is what the TUI's model does per batch of a big
// cluster's first load and after it, as the overview asks: Apply, Snapshot
// and the leader balance. "partial" is one Partial batch of 2,500 topics'
// configs while the load is under way (each round of batches changes every
// topic's config again, so that the benchmark can run as many as it
// likes); "change" a single partition's state change once loaded. Their
// cost should follow the batch's size, not the cluster's.
func BenchmarkFirstLoadBatch(b *testing.B) {
	l := firstload.Bench()
	b.Run(l.Name("partial", true), func(b *testing.B) {
		m, s := loadingModel(l)
		var bt cluster.BalanceTracker
		bt.Balance(s)
		var batches [][]cluster.NodeEvent
		round := 0
		b.ReportAllocs()
		for b.Loop() {
			if len(batches) == 0 {
				batches = l.ConfigBatches(round)
				round++
			}
			m.Apply(batches[0], false)
			batches = batches[1:]
			bt.Balance(m.Snapshot())
		}
	})
	b.Run(l.Name("change", false), func(b *testing.B) {
		m, s := loadingModel(l)
		var bt cluster.BalanceTracker
		bt.Balance(s)
		for _, batch := range l.ConfigBatches(0) {
			m.Apply(batch, false)
			bt.Balance(m.Snapshot())
		}
		m.SetLoading(false)
		m.SetQuiet(false)
		bt.Balance(m.Snapshot())
		i := 0
		b.ReportAllocs()
		for b.Loop() {
			m.Apply(l.StateChange(i), false)
			i++
			bt.Balance(m.Snapshot())
		}
	})
}
