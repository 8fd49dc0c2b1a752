package overview

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

// specSizes are sizes of every live replica of snap: each replica of
// partition p of a topic holds (p+1) × per bytes, broker 3 holds ten
// times that (it stands out), broker 2 has two log directories and broker
// 5's disk is 95 % full; broker 6 (down) did not answer.
func specSizes(snap *cluster.Snapshot, per int64) *cluster.Sizes {
	const gib = 1 << 30
	b := cluster.NewSizesBuilder(sizesAt)
	for _, br := range snap.Brokers() {
		switch {
		case !br.Live:
			b.Unreached(br.ID, "connection refused")
			continue
		case br.ID == 2:
			b.Broker(br.ID, []cluster.LogDir{{Path: "/data/kafka-a", Total: 100 * gib, Usable: 70 * gib}, {Path: "/data/kafka-b", Total: 100 * gib, Usable: 15 * gib}})
		case br.ID == 5:
			b.Broker(br.ID, []cluster.LogDir{{Path: "/var/lib/kafka", Total: 100 * gib, Usable: 5 * gib}})
		default:
			b.Broker(br.ID, []cluster.LogDir{{Path: "/var/lib/kafka", Total: 100 * gib, Usable: 60 * gib}})
		}
	}
	for _, t := range snap.Topics() {
		for _, p := range t.Partitions {
			for i, r := range p.Replicas {
				if br, ok := snap.Broker(r); !ok || !br.Live {
					continue
				}
				n := int64(p.ID+1) * per
				if r == 3 {
					n *= 10
				}
				dir := int16(0)
				if r == 2 && i%2 == 1 {
					dir = 1
				}
				b.Replica(t.Name, p.ID, cluster.ReplicaSize{Broker: int32(r), Dir: dir, Bytes: n})
			}
		}
	}
	return b.Done(nil)
}

// TestSizesView: known sizes put each broker's bytes and its log
// directories' disks on its card (the heavy broker marked, a full disk in
// the danger colour), each rack's under its heading and the summary under
// the counts; the broker that did not answer says so.
func TestSizesView(t *testing.T) {
	for _, sz := range sizes {
		t.Run(fmt.Sprintf("%dx%d", sz[0], sz[1]), func(t *testing.T) {
			m := newScreen(fixture.Small(), sz[0], sz[1])
			m.SetClock(func() time.Time { return sizesAt.Add(12 * time.Second) })
			m.SetSizes(specSizes(m.snap, 40<<20))
			out := ansi.Strip(m.View())
			for _, want := range []string{"sizes of 5 brokers", "(2 not reached), 12s ago", "held", "▲", "▕", "95%", "not reached"} {
				if !strings.Contains(out, want) {
					t.Errorf("no %q in\n%s", want, out)
				}
			}
			golden.RequireEqual(t, out)
		})
	}
	// The colours: the 95 % full disk is drawn in the danger colour, the
	// heavy broker's bytes in the warning colour.
	m := newScreen(fixture.Small(), 200, 60)
	m.SetSizes(specSizes(m.snap, 40<<20))
	out := m.View()
	if !strings.Contains(out, m.st.Danger.S(" 95%")) {
		t.Errorf("the full disk is not in the danger colour")
	}
	warn, _, _ := strings.Cut(m.st.Warning.S("x"), "x") // the warning ink's opening
	if !strings.Contains(out, warn+"15.6 GiB held ▲ 3.5× mean") {
		t.Errorf("the heavy broker does not stand out in the warning colour")
	}
	bs := m.brokerSizes[3]
	if bs.heavy == 0 {
		t.Errorf("broker 3 holds ten times the others' bytes and is not heavy: %+v", bs)
	}
	for _, id := range []int{1, 2, 4, 5} {
		if m.brokerSizes[id].heavy != 0 {
			t.Errorf("broker %d marked heavy: %+v", id, m.brokerSizes[id])
		}
	}
}

// TestSizesUnknown: unknown sizes are one muted line under the counts (in
// place of the blank line there), the cards as without sizes; stale ones are the last known, marked.
func TestSizesUnknown(t *testing.T) {
	for _, sz := range sizes {
		t.Run(fmt.Sprintf("%dx%d", sz[0], sz[1]), func(t *testing.T) {
			without := ansi.Strip(newScreen(fixture.Small(), sz[0], sz[1]).View())
			m := newScreen(fixture.Small(), sz[0], sz[1])
			m.SetSizes(cluster.UnknownSizes(sizesAt, "DescribeLogDirs: CLUSTER_AUTHORIZATION_FAILED"))
			out := ansi.Strip(m.View())
			lines, wlines := strings.Split(out, "\n"), strings.Split(without, "\n")
			if got := lines[2]; !strings.Contains(got, "sizes unknown: DescribeLogDirs: CLUSTER_AUTHORIZATION_FAILED") {
				t.Fatalf("line 3 is %q, want the reason:\n%s", got, out)
			}
			// Everything else as without sizes: the reason takes the
			// place of the blank line under the counts.
			if a, b := strings.Join(lines[3:], "\n"), strings.Join(wlines[3:], "\n"); a != b {
				t.Errorf("the cards differ from those without sizes:\n%s\nwithout:\n%s", a, b)
			}
			golden.RequireEqual(t, out)
		})
	}
	m := newScreen(fixture.Small(), 200, 60)
	known := specSizes(m.snap, 40<<20)
	m.SetSizes(known.Stale(cluster.UnknownSizes(sizesAt.Add(time.Minute), "broker 1: i/o timeout")))
	m.SetClock(func() time.Time { return sizesAt.Add(time.Minute) })
	m.SetSnapshot(fixture.Small().Model().Snapshot()) // a batch: the age is told again
	out := ansi.Strip(m.View())
	if !strings.Contains(out, "stale sizes of 5 brokers") || !strings.Contains(out, "1m0s ago (newer sizes unknown: broker 1: i/o timeout)") {
		t.Fatalf("the stale sizes are not marked:\n%s", out)
	}
	if !strings.Contains(out, "held") {
		t.Fatalf("the stale sizes are not shown:\n%s", out)
	}
}

// BenchmarkSizesView: the overview with sizes at scale costs no more per
// frame than without (the sizes are summed per reading).
func BenchmarkSizesView(b *testing.B) {
	spec := fixture.Sized(100_000)
	if testing.Short() {
		spec = fixture.Sized(10_000)
	}
	snap := spec.Model().Snapshot()
	s := specSizes(snap, 1<<20)
	m := newScreen(spec, 200, 60)
	m.SetSnapshot(snap)
	m.SetSizes(s)
	b.ReportAllocs()
	for b.Loop() {
		_ = m.View()
	}
}
