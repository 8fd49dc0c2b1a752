package topics

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/internal/testkit/fixture"
)

var sizesAt = time.Date(2026, 12, 7, 10, 0, 0, 0, time.UTC)

// specSizes are sizes of every replica of snap: each replica of topic i
// (in the snapshot's order) holds (i+1) × per bytes per partition, except
// clicks, which holds 100 times that; legacy is not reported. With prev,
// the sizes are read a minute later and each replica grew by grow bytes.
func specSizes(snap *cluster.Snapshot, per, grow int64, prev *cluster.Sizes) *cluster.Sizes {
	at := sizesAt
	if prev != nil {
		at = at.Add(time.Minute)
	}
	b := cluster.NewSizesBuilder(at)
	for _, br := range snap.Brokers() {
		b.Broker(br.ID, []cluster.LogDir{{Path: "/var/lib/kafka", Total: 1 << 40, Usable: 1 << 39}})
	}
	for i, t := range snap.Topics() {
		if t.Name == "legacy" {
			continue
		}
		n := int64(i+1) * per
		if t.Name == "clicks" {
			n *= 100
		}
		if prev != nil {
			n += grow
		}
		for _, p := range t.Partitions {
			for _, r := range p.Replicas {
				b.Replica(t.Name, p.ID, cluster.ReplicaSize{Broker: int32(r), Bytes: n})
			}
		}
	}
	return b.Done(prev)
}

// TestSizesView: the SIZE column holds each topic's bytes over all its
// replicas ("—" for one not reported), GROWTH (wide screens) its growth
// since the reading before; `s` reaches the size sort after the others.
// Unknown sizes leave the columns out, the title saying why.
func TestSizesView(t *testing.T) {
	snap := fixture.Small().Model().Snapshot()
	first := specSizes(snap, 1<<20, 0, nil)
	second := specSizes(snap, 1<<20, 6<<20, first)
	for _, sz := range [][2]int{{80, 24}, {200, 60}} {
		for _, tc := range []struct {
			name  string
			sizes *cluster.Sizes
			keys  []string
		}{
			{"first", first, nil},
			{"growing", second, nil},
			{"by-size", second, []string{"s", "s", "s", "s", "s"}},
			{"unknown", cluster.UnknownSizes(sizesAt, "no Kafka protocol (ZooKeeper only)"), nil},
			{"stale", second.Stale(cluster.UnknownSizes(sizesAt, "broker 1: i/o timeout")), nil},
		} {
			t.Run(fmt.Sprintf("%dx%d/%s", sz[0], sz[1], tc.name), func(t *testing.T) {
				m := newScreen(snap, sz[0], sz[1])
				m.SetSizes(tc.sizes)
				fixture.Press(m, tc.keys...)
				golden.RequireEqual(t, ansi.Strip(m.View()))
			})
		}
	}
	m := newScreen(snap, 200, 60)
	m.SetSizes(second)
	out := ansi.Strip(m.View())
	// orders is the fifth topic: 6 partitions × 3 replicas × (5 MiB + 6 MiB).
	if !strings.Contains(out, "198 MiB") {
		t.Errorf("orders' size is not 198 MiB:\n%s", out)
	}
	if !strings.Contains(out, "+614 KiB/s") { // 6 partitions × 6 MiB a minute (the largest replicas)
		t.Errorf("orders' growth is not shown:\n%s", out)
	}
	fixture.Press(m, "s", "s", "s", "s", "s")
	if m.Sort() != BySize {
		t.Fatalf("five s: sorted by %v, want size", m.Sort())
	}
	want := []string{"clicks", "orders", "payments", "__consumer_offsets", "audit-log", "legacy"}
	if got := m.Rows(); !slices.Equal(got, want) {
		t.Errorf("by size: %v, want %v", got, want)
	}
	// Unknown sizes: `s` passes over the size sort, and a reading that
	// says they are unknown leaves it.
	m.SetSizes(cluster.UnknownSizes(sizesAt, "no access"))
	if m.Sort() != ByName {
		t.Errorf("unknown sizes: still sorted by %v", m.Sort())
	}
	fixture.Press(m, "s", "s", "s", "s", "s")
	if m.Sort() != ByName {
		t.Errorf("five s with unknown sizes: sorted by %v, want name", m.Sort())
	}
	if out := ansi.Strip(m.View()); !strings.Contains(out, "sizes unknown: no access") || strings.Contains(out, "SIZE") {
		t.Errorf("unknown sizes are not said:\n%s", out)
	}
}

// BenchmarkSizesView: the topics with sizes, sorted by size: a frame
// costs what it costs without (the sizes are per reading); SetSizes is
// the per-reading cost.
func BenchmarkSizesView(b *testing.B) {
	spec := fixture.Sized(100_000)
	if testing.Short() {
		spec = fixture.Sized(10_000)
	}
	snap := spec.Model().Snapshot()
	s := specSizes(snap, 1<<20, 0, nil)
	b.Run("view", func(b *testing.B) {
		m := newScreen(snap, 200, 60)
		m.SetSizes(s)
		fixture.Press(m, "s", "s", "s", "s", "s")
		b.ReportAllocs()
		for b.Loop() {
			_ = m.View()
		}
	})
	b.Run("reading", func(b *testing.B) {
		m := newScreen(snap, 200, 60)
		fixture.Press(m, "s", "s", "s", "s", "s")
		b.ReportAllocs()
		for b.Loop() {
			m.SetSizes(s)
			m.sizes = nil // the same reading again
			_ = m.View()
		}
	})
}
