package overview

import (
	"runtime"
	"slices"
	"testing"

	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/internal/testkit/firstload"
	"github.com/ktopo/ktopo/ui/anim"
	"github.com/ktopo/ktopo/ui/keys"
	"github.com/ktopo/ktopo/ui/theme"
)

// BenchmarkFirstLoadBatch is what a batch of a big cluster's first load
// and a change after it cost the TUI up to the overview: Apply, Snapshot
// and SetSnapshot, on 100,000 topics × 10 partitions (firstload.Bench). "partial" is one
// Partial batch of 2,500 topics' configs while the load is under way
// (round after round, so that the benchmark can run as many as it likes);
// "change" a single partition's state change once loaded. Their cost
// should follow the batch's size, not the cluster's. "load" is the whole
// first load, batch after batch (the core one, 40 of configs, the one
// that ends it), Apply and decoding included.
func BenchmarkFirstLoadBatch(b *testing.B) {
	l := firstload.Bench()
	start := func() (*cluster.Model, *Model) {
		cm := cluster.NewModel(cluster.ModelOptions{})
		cm.SetQuiet(true)
		cm.SetLoading(true)
		cm.Apply(l.Core(), false)
		m := New(theme.New(true), keys.Default(), anim.NewSet(theme.FlashSteps))
		m.SetSize(200, 60)
		m.SetSnapshot(cm.Snapshot())
		return cm, m
	}
	b.Run(l.Name("load", true), func(b *testing.B) {
		core, batches := l.Core(), l.ConfigBatches(0)
		b.ReportAllocs()
		for b.Loop() {
			b.StopTimer()
			evs := slices.Clone(core) // Apply may rewrite events; a fresh copy each time
			runtime.GC()
			b.StartTimer()
			cm := cluster.NewModel(cluster.ModelOptions{})
			cm.SetQuiet(true)
			cm.SetLoading(true)
			cm.Apply(evs, false)
			m := New(theme.New(true), keys.Default(), anim.NewSet(theme.FlashSteps))
			m.SetSize(200, 60)
			m.SetSnapshot(cm.Snapshot())
			for _, batch := range batches {
				cm.Apply(batch, false)
				m.SetSnapshot(cm.Snapshot())
			}
			cm.SetLoading(false)
			m.SetSnapshot(cm.Snapshot())
		}
	})
	b.Run(l.Name("partial", true), func(b *testing.B) {
		cm, m := start()
		var batches [][]cluster.NodeEvent
		round := 0
		b.ReportAllocs()
		for b.Loop() {
			if len(batches) == 0 {
				batches = l.ConfigBatches(round)
				round++
			}
			cm.Apply(batches[0], false)
			batches = batches[1:]
			m.SetSnapshot(cm.Snapshot())
		}
	})
	for _, open := range []bool{false, true} {
		change(b, l, start, open)
	}
}

// change is BenchmarkFirstLoadBatch's "change": with open, a broker's
// partition list (the screen enter opens on a card) takes every snapshot
// too.
func change(b *testing.B, l firstload.Load, start func() (*cluster.Model, *Model), open bool) {
	name := l.Name("change", false)
	if open {
		name = l.Name("change+broker-open", false)
	}
	b.Run(name, func(b *testing.B) {
		cm, m := start()
		var br *Broker
		if open {
			br = NewBroker(theme.New(true), keys.Default(), 1)
			br.SetSize(200, 60)
		}
		for _, batch := range l.ConfigBatches(0) {
			cm.Apply(batch, false)
			m.SetSnapshot(cm.Snapshot())
		}
		cm.SetLoading(false)
		cm.SetQuiet(false)
		m.SetSnapshot(cm.Snapshot())
		if br != nil {
			br.SetSnapshot(cm.Snapshot())
		}
		i := 0
		b.ReportAllocs()
		for b.Loop() {
			cm.Apply(l.StateChange(i), false)
			i++
			m.SetSnapshot(cm.Snapshot())
			if br != nil {
				br.SetSnapshot(cm.Snapshot())
			}
		}
	})
}
