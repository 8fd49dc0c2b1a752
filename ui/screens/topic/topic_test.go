package topic

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/clusterwatch/zksource"
	"github.com/ktopo/ktopo/internal/testkit/fixture"
	"github.com/ktopo/ktopo/ui/anim"
	"github.com/ktopo/ktopo/ui/keys"
	"github.com/ktopo/ktopo/ui/nav"
	"github.com/ktopo/ktopo/ui/theme"
	"github.com/ktopo/ktopo/zkwatch"
)

var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

func newScreen(snap *cluster.Snapshot, name string, w, h int) (*Model, *anim.Set) {
	km := keys.Default()
	km.SetSandbox(true)
	a := anim.NewSet(theme.FlashSteps)
	m := New(theme.New(true), km, a, name, -1)
	m.SetSize(w, h)
	m.SetSnapshot(snap)
	return m, a
}

func TestView(t *testing.T) {
	for _, sz := range [][2]int{{80, 24}, {200, 60}} {
		for _, tc := range []struct {
			name, topic string
			keys        []string
		}{
			{"orders", "orders", nil},
			{"orders-unhealthy", "orders", []string{"u"}},
			{"audit-log", "audit-log", []string{"down"}},
			{"missing", "nope", nil},
			{"reassigning", "orders", nil},
			{"reassign-queued", "payments", nil},
		} {
			t.Run(fmt.Sprintf("%dx%d/%s", sz[0], sz[1], tc.name), func(t *testing.T) {
				spec := fixture.Small()
				if strings.HasPrefix(tc.name, "reassign") {
					spec = fixture.Reassigning()
				}
				m, _ := newScreen(spec.Model().Snapshot(), tc.topic, sz[0], sz[1])
				fixture.Press(m, tc.keys...)
				golden.RequireEqual(t, ansi.Strip(m.View()))
			})
		}
	}
}

// TestFlash: a leader move shows old → new while the animation runs, and
// the cell is painted with the flash ramp.
func TestFlash(t *testing.T) {
	spec := fixture.Small()
	model := spec.Model()
	m, a := newScreen(model.Snapshot(), "orders", 80, 24)
	st := spec.State(&spec.Topics[0], 0)
	st.Leader, st.ISR, st.LeaderEpoch = 2, []int{2, 3}, 3
	changes := model.Apply(zksource.NodeEvents(zkwatch.Batch{Events: []zkwatch.Event{fixture.StateEvent("orders", 0, st, 900, t0.UnixMilli())}}), false)
	if len(changes) != 2 {
		t.Fatalf("changes %v", changes)
	}
	a.Start(anim.Key{Topic: "orders", Partition: 0, Field: anim.FieldLeader}, "1", "2", t0)
	a.Start(anim.Key{Topic: "orders", Partition: 0, Field: anim.FieldISR}, "1,2,3", "2,3", t0)
	m.SetSnapshot(model.Snapshot())
	golden.RequireEqual(t, ansi.Strip(m.View()))
	if lvl := a.Level(anim.Key{Topic: "orders", Partition: 0, Field: anim.FieldLeader}); lvl != 0 {
		t.Fatalf("level right after the change: %d", lvl)
	}
	a.Step(anim.FrameMsg{Time: t0.Add(anim.Hold + time.Millisecond)})
	if _, ok := a.Delta(anim.Key{Topic: "orders", Partition: 0, Field: anim.FieldLeader}); ok {
		t.Fatal("the delta outlived its hold time")
	}
}

func TestUnhealthyAndCursor(t *testing.T) {
	m, _ := newScreen(fixture.Small().Model().Snapshot(), "orders", 80, 24)
	fixture.Press(m, "down", "down", "down", "down") // partition 4
	if m.Cursor() != 4 {
		t.Fatalf("cursor %d", m.Cursor())
	}
	fixture.Press(m, "u")
	if !m.Unhealthy() || !slices.Equal(m.Shown(), []int{1, 3, 4, 5}) {
		t.Fatalf("unhealthy: %v", m.Shown())
	}
	if m.Cursor() != 4 {
		t.Fatalf("cursor moved to %d when filtering", m.Cursor())
	}
	fixture.Press(m, "u")
	if len(m.Shown()) != 6 || m.Cursor() != 4 {
		t.Fatalf("back to all: %v cursor %d", m.Shown(), m.Cursor())
	}
	if msgs := fixture.Press(m, "p"); len(msgs) != 1 || msgs[0] != (nav.ElectPreferred{Topic: "orders"}) {
		t.Fatalf("p: %v", msgs)
	}
	// Opening on a partition puts the cursor there.
	m2 := New(theme.New(true), keys.Default(), anim.NewSet(1), "clicks", 7)
	m2.SetSize(80, 24)
	m2.SetSnapshot(fixture.Small().Model().Snapshot())
	if m2.Cursor() != 7 {
		t.Fatalf("opened on partition 7, cursor %d", m2.Cursor())
	}
}

func TestRenderCalls(t *testing.T) {
	for _, n := range []int{100, 10_000, 100_000} {
		if testing.Short() && n > 10_000 {
			continue
		}
		m, _ := newScreen(fixture.Sized(n).Model().Snapshot(), "big", 80, 24)
		calls := 0
		real := m.renderRow
		m.renderRow = func(p *cluster.Partition, sel bool) string { calls++; return real(p, sel) }
		fixture.Press(m, "pgdown", "pgdown", "j")
		m.View()
		if calls > 24+2 {
			t.Fatalf("partitions=%d: %d row renders", n, calls)
		}
	}
}

func BenchmarkView(b *testing.B) {
	for _, n := range []int{100, 10_000, 100_000} {
		snap := fixture.Sized(n).Model().Snapshot()
		for _, sz := range [][2]int{{200, 60}, {80, 24}} {
			b.Run(fmt.Sprintf("topic/%dx%d/partitions=%d", sz[0], sz[1], n), func(b *testing.B) {
				m, _ := newScreen(snap, "big", sz[0], sz[1])
				fixture.Press(m, "pgdown")
				b.ReportAllocs()
				for b.Loop() {
					_ = m.View()
				}
			})
		}
	}
}
