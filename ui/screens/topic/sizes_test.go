package topic

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/internal/testkit/fixture"
)

var sizesAt = time.Date(2026, 12, 7, 10, 0, 0, 0, time.UTC)

// ordersSizes are sizes of orders' replicas: partition p's hold
// (p+1) × 100 MiB, except that broker 3 holds half of partition 2's
// (far behind), broker 4 copies partition 3 into another log directory
// (a future replica of 40 MiB), the follower 5 of partition 4 is 50,000
// offsets behind with nearly all the bytes, and broker 6 (down) did not
// answer.
func ordersSizes(snap *cluster.Snapshot) *cluster.Sizes {
	const mib = 1 << 20
	b := cluster.NewSizesBuilder(sizesAt)
	for _, br := range snap.Brokers() {
		if br.Live {
			b.Broker(br.ID, []cluster.LogDir{{Path: "/a", Total: 1 << 40, Usable: 1 << 39}, {Path: "/b", Total: 1 << 40, Usable: 1 << 39}})
		} else {
			b.Unreached(br.ID, "connection refused")
		}
	}
	for _, p := range snap.Topic("orders").Partitions {
		for _, r := range p.Replicas {
			if br, _ := snap.Broker(r); !br.Live {
				continue
			}
			rs := cluster.ReplicaSize{Broker: int32(r), Bytes: int64(p.ID+1) * 100 * mib}
			switch {
			case p.ID == 2 && r == 3:
				rs.Bytes /= 2
			case p.ID == 4 && r == 5:
				rs.Bytes -= 1000
				rs.OffsetLag = 50_000
			}
			b.Replica("orders", p.ID, rs)
			if p.ID == 3 && r == 4 {
				b.Replica("orders", p.ID, cluster.ReplicaSize{Broker: 4, Dir: 1, Future: true, Bytes: 40 * mib})
			}
		}
	}
	return b.Done(nil)
}

// TestSizesView: each partition's size and, where there is room, each
// replica's; the lagging replicas in the warning colour (or a "!" on the
// size when there is no room for them), the future replica marked (and
// never as lagging: it is being copied).
func TestSizesView(t *testing.T) {
	snap := fixture.Small().Model().Snapshot()
	known := ordersSizes(snap)
	for _, sz := range [][2]int{{80, 24}, {120, 30}, {200, 60}} {
		for _, tc := range []struct {
			name  string
			sizes *cluster.Sizes
		}{
			{"known", known},
			{"unknown", cluster.UnknownSizes(sizesAt, "no broker answered (broker 1: connection refused)")},
			{"stale", known.Stale(cluster.UnknownSizes(sizesAt, "broker 1: i/o timeout"))},
		} {
			t.Run(fmt.Sprintf("%dx%d/%s", sz[0], sz[1], tc.name), func(t *testing.T) {
				m, _ := newScreen(snap, "orders", sz[0], sz[1])
				m.SetSizes(tc.sizes)
				golden.RequireEqual(t, ansi.Strip(m.View()))
			})
		}
	}
	m, _ := newScreen(snap, "orders", 200, 60)
	m.SetSizes(known)
	out := ansi.Strip(m.View())
	for _, want := range []string{"REPLICA SIZES", "300 MiB", "150M", "⇢4:40M", "4.58 GiB on disk"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
	raw := m.View()
	for _, lag := range []string{"150M", "500M"} { // partition 2 on broker 3; partition 4's follower 5 by its offsets
		if !strings.Contains(raw, m.st.Warning.S(lag)) {
			t.Errorf("the lagging replica %s is not in the warning colour", lag)
		}
	}
	if strings.Contains(raw, m.st.Warning.S("300M")) {
		t.Errorf("an up-to-date replica is in the warning colour")
	}
	// Narrow: no room for the replicas; the sizes of partitions 2 and 4
	// say one of theirs lags, partition 3's that one moves.
	m.SetSize(80, 24)
	if out := ansi.Strip(m.View()); !strings.Contains(out, "300 MiB!") || !strings.Contains(out, "500 MiB!") || strings.Contains(out, "100 MiB!") || !strings.Contains(out, "400 MiB⇢") {
		t.Errorf("narrow: the lagging partitions are not marked:\n%s", out)
	}
}

// TestSizesFollowTheTopic: a partition added after the reading shows
// "—", and the rows' sizes follow the topic's partitions.
func TestSizesFollowTheTopic(t *testing.T) {
	spec := fixture.Small()
	snap := spec.Model().Snapshot()
	m, _ := newScreen(snap, "orders", 200, 60)
	m.SetSizes(ordersSizes(snap))
	spec.Topics[0].Partitions = 8
	m.SetSnapshot(spec.Model().Snapshot())
	lines := strings.Split(ansi.Strip(m.View()), "\n")
	row := func(p int) string { return lines[3+p] }
	if !strings.Contains(row(7), "—") || !strings.Contains(row(0), "100 MiB") {
		t.Errorf("rows:\n%s\n%s", row(0), row(7))
	}
}

// BenchmarkSizesView: a topic of many partitions with sizes: a frame
// costs what it costs without.
func BenchmarkSizesView(b *testing.B) {
	spec := fixture.Sized(100_000)
	if testing.Short() {
		spec = fixture.Sized(10_000)
	}
	snap := spec.Model().Snapshot()
	sb := cluster.NewSizesBuilder(sizesAt)
	for _, br := range snap.Brokers() {
		sb.Broker(br.ID, []cluster.LogDir{{Path: "/a", Total: 1 << 40, Usable: 1 << 39}})
	}
	for _, p := range snap.Topic("big").Partitions {
		for _, r := range p.Replicas {
			sb.Replica("big", p.ID, cluster.ReplicaSize{Broker: int32(r), Bytes: int64(p.ID) << 20})
		}
	}
	s := sb.Done(nil)
	m, _ := newScreen(snap, "big", 200, 60)
	m.SetSizes(s)
	b.ReportAllocs()
	for b.Loop() {
		_ = m.View()
	}
}

// BenchmarkSizesRebuild: what a change of a big topic costs the sizes
// (recomputed when the topic changes, not per frame).
func BenchmarkSizesRebuild(b *testing.B) {
	spec := fixture.Sized(100_000)
	if testing.Short() {
		spec = fixture.Sized(10_000)
	}
	snap := spec.Model().Snapshot()
	sb := cluster.NewSizesBuilder(sizesAt)
	for _, br := range snap.Brokers() {
		sb.Broker(br.ID, []cluster.LogDir{{Path: "/a", Total: 1 << 40, Usable: 1 << 39}})
	}
	for _, p := range snap.Topic("big").Partitions {
		for _, r := range p.Replicas {
			sb.Replica("big", p.ID, cluster.ReplicaSize{Broker: int32(r), Bytes: int64(p.ID) << 20})
		}
	}
	s := sb.Done(nil)
	m, _ := newScreen(snap, "big", 200, 60)
	m.SetSizes(s)
	b.ReportAllocs()
	for b.Loop() {
		m.sizedFor = nil
		m.buildSizes()
	}
}
