package overview

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/internal/testkit/fixture"
	"github.com/ktopo/ktopo/ui/anim"
	"github.com/ktopo/ktopo/ui/keys"
	"github.com/ktopo/ktopo/ui/nav"
	"github.com/ktopo/ktopo/ui/theme"
)

func newScreen(spec fixture.Spec, w, h int) *Model {
	km := keys.Default()
	km.SetSandbox(true)
	m := New(theme.New(true), km, anim.NewSet(theme.FlashSteps))
	m.SetConnect("zk1:2181/kafka")
	m.SetSize(w, h)
	m.SetSnapshot(spec.Model().Snapshot())
	return m
}

var sizes = [][2]int{{80, 24}, {200, 60}}

func TestView(t *testing.T) {
	for _, sz := range sizes {
		for _, tc := range []struct {
			name string
			keys []string
		}{
			{"initial", nil},
			{"moved", []string{"right", "right", "down"}},
			{"offline", []string{"right", "right", "down", "right"}},
			{"rack-heading", []string{"right", "up"}},
			{"reassigning", nil},
		} {
			t.Run(fmt.Sprintf("%dx%d/%s", sz[0], sz[1], tc.name), func(t *testing.T) {
				spec := fixture.Small()
				if tc.name == "reassigning" {
					spec = fixture.Reassigning()
				}
				m := newScreen(spec, sz[0], sz[1])
				fixture.Press(m, tc.keys...)
				golden.RequireEqual(t, ansi.Strip(m.View()))
			})
		}
	}
}

func TestCursorAndActions(t *testing.T) {
	m := newScreen(fixture.Small(), 200, 60)
	if id, _ := m.Selected(); id != 1 {
		t.Fatalf("first selection %d, want broker 1", id)
	}
	fixture.Press(m, "right", "down")
	if id, _ := m.Selected(); id != 5 {
		t.Fatalf("after right, down: broker %d, want 5", id)
	}
	// broker 6 went down after registering in rack-c: shown there, offline.
	fixture.Press(m, "right", "down")
	if id, _ := m.Selected(); id != 6 {
		t.Fatalf("want broker 6 in rack-c, got %d", id)
	}
	b, _ := m.snap.Broker(6)
	if b.Live || b.Rack != "rack-c" {
		t.Fatalf("broker 6 = %+v", b)
	}
	msgs := fixture.Press(m, "enter")
	if len(msgs) != 1 || msgs[0] != (nav.OpenBroker{Broker: 6}) {
		t.Fatalf("enter: %v", msgs)
	}
	msgs = fixture.Press(m, "x")
	if len(msgs) != 1 || msgs[0] != (nav.ToggleBroker{Broker: 6}) {
		t.Fatalf("x: %v", msgs)
	}
	// broker 9 never registered: the unknown-rack column.
	fixture.Press(m, "right")
	if id, _ := m.Selected(); id != 9 {
		t.Fatalf("want broker 9 under unknown rack, got %d", id)
	}
	if r := m.racks[m.rack]; r.Kind != cluster.RackUnknown {
		t.Fatalf("rack %+v", r)
	}
}

func TestSandboxKeysDisabled(t *testing.T) {
	m := New(theme.New(true), keys.Default(), anim.NewSet(theme.FlashSteps))
	m.SetSize(80, 24)
	m.SetSnapshot(fixture.Small().Model().Snapshot())
	if msgs := fixture.Press(m, "x", "m"); len(msgs) != 0 {
		t.Fatalf("sandbox keys outside the sandbox: %v", msgs)
	}
	// Outside the sandbox p is the preferred election's wizard (Ops.Elect).
	if msgs := fixture.Press(m, "p"); len(msgs) != 1 || msgs[0] != (nav.OpenOperation{Op: nav.Operation{Kind: nav.OpElect}}) {
		t.Fatalf("p outside the sandbox: %v", msgs)
	}
}

func TestPreferredShare(t *testing.T) {
	m := newScreen(fixture.Small(), 80, 24)
	// broker 5 is the preferred leader of 3 partitions and leads 2 of them
	// (orders-4 is led by its second replica).
	b, ok := m.snap.Broker(5)
	if !ok || b.Preferred != 3 || b.PreferredLed != 2 {
		t.Fatalf("broker 5: %+v", b)
	}
	if !strings.Contains(m.View(), "preferred 2/3 66%") {
		t.Fatalf("card does not show the share:\n%s", m.View())
	}
}

// TestRenderCalls: the card renderer runs only for visible cards, however
// many brokers there are.
func TestRenderCalls(t *testing.T) {
	for _, n := range []int{6, 60, 600} {
		spec := fixture.Sized(1000)
		spec.Brokers = n
		m := newScreen(spec, 80, 24)
		calls := 0
		real := m.renderCard
		m.renderCard = func(b *cluster.Broker, w int, sel bool) [maxCardH]string { calls++; return real(b, w, sel) }
		m.View()
		if limit := 24 + 2; calls > limit {
			t.Fatalf("%d brokers: %d card renders for 24 lines", n, calls)
		}
	}
}

func BenchmarkView(b *testing.B) {
	for _, n := range []int{100, 10_000, 100_000} {
		spec := fixture.Sized(n)
		snap := spec.Model().Snapshot()
		for _, sz := range [][2]int{{200, 60}, {80, 24}} {
			b.Run(fmt.Sprintf("overview/%dx%d/partitions=%d", sz[0], sz[1], n), func(b *testing.B) {
				if testing.Short() && n > 10_000 {
					b.Skip("large fixture skipped under -short")
				}
				m := New(theme.New(true), keys.Default(), anim.NewSet(theme.FlashSteps))
				m.SetSize(sz[0], sz[1])
				m.SetSnapshot(snap)
				b.ReportAllocs()
				for b.Loop() {
					_ = m.View()
				}
			})
		}
	}
}

// TestLeftThrottles: a reassignment throttle set while none runs is shown
// under the cards, with what removes it; one set while a reassignment
// runs is shown as its own, with what removes it once it is done (a TUI
// opened after another quit in the middle of one).
func TestLeftThrottles(t *testing.T) {
	spec := fixture.Small()
	spec.Topics[2].Config = map[string]string{"leader.replication.throttled.replicas": "0:1,0:2"}
	m := newScreen(spec, 200, 60)
	out := strings.Join(strings.Fields(ansi.Strip(m.View())), " ")
	if !strings.Contains(out, "THROTTLES left behind: no reassignment runs, yet reassignment throttles are set on topic "+spec.Topics[2].Name) ||
		!strings.Contains(out, "ktopo reassign --verify with the plan, or ktopo configs --alter --delete-config, removes them") {
		t.Fatalf("no warning of the throttle left:\n%s", ansi.Strip(m.View()))
	}
	r := fixture.Reassigning()
	r.Topics[0].Config = map[string]string{"leader.replication.throttled.replicas": "0:1"}
	out = strings.Join(strings.Fields(ansi.Strip(newScreen(r, 200, 60).View())), " ")
	if strings.Contains(out, "left behind") || !strings.Contains(out, "THROTTLES set for the reassignment running, on topic orders") ||
		!strings.Contains(out, "once it is done, ktopo reassign --verify with its plan (ktopo reassign --list shows it)") {
		t.Fatalf("no warning of the running reassignment's throttles:\n%s", out)
	}
}

// TestLedFromLast: a broker leading fully in-sync partitions that name
// it last (a drain's leaders-first step stopped before its election) is
// shown under the cards, with what fixes it.
func TestLedFromLast(t *testing.T) {
	spec := fixture.Spec{ClusterID: "c", Brokers: 3, Racks: 3, Controller: 1, ControllerEpoch: 7, Time: 1,
		Topics: []fixture.Topic{{Name: "orders", Partitions: 2, RF: 3, Replicas: map[int][]int{0: {1, 2, 3}, 1: {2, 1, 3}}}}}
	model := spec.Model()
	m := New(theme.New(true), keys.Default(), anim.NewSet(theme.FlashSteps))
	m.SetSize(200, 60)
	m.SetSnapshot(model.Snapshot())
	if out := ansi.Strip(m.View()); strings.Contains(out, "LEADERS") {
		t.Fatalf("warned of preferred leaders:\n%s", out)
	}
	for p := range 2 {
		data := cluster.EncodePartitionState(cluster.PartitionState{ControllerEpoch: 7, Leader: 3, LeaderEpoch: 3, Version: 1, ISR: []int{1, 2, 3}})
		model.Apply([]cluster.NodeEvent{{Type: cluster.NodeChanged, Path: cluster.PartitionStatePath("orders", p), Data: data,
			Stat: cluster.Stat{Czxid: 1, Mzxid: 1 << 20, Version: 5, DataLength: int32(len(data))}}}, false)
	}
	m.SetSnapshot(model.Snapshot())
	out := strings.Join(strings.Fields(ansi.Strip(m.View())), " ")
	if !strings.Contains(out, "LEADERS broker 3 leads 2 partitions named last in their replicas (orders-0, orders-1)") ||
		!strings.Contains(out, "p (a preferred election) gives them their first replica as leader; d on broker 3 drains it") {
		t.Fatalf("no warning:\n%s", out)
	}
}

// TestKRaftView: a KRaft cluster's overview names the quorum's leader as
// the controller, lists the voters and observers with their lag, and
// shows the fenced broker as fenced and the cordoned one as cordoned.
func TestKRaftView(t *testing.T) {
	for _, sz := range sizes {
		t.Run(fmt.Sprintf("%dx%d", sz[0], sz[1]), func(t *testing.T) {
			spec, k := fixture.SmallKRaft()
			model := spec.Model()
			model.SetKRaft(k)
			m := New(theme.New(true), keys.Default(), anim.NewSet(theme.FlashSteps))
			m.SetConnect("kafka-1:9092,kafka-2:9092")
			m.SetSize(sz[0], sz[1])
			m.SetSnapshot(model.Snapshot())
			out := ansi.Strip(m.View())
			wants := []string{"voters", "3001★", "FENCED", "cordoned"}
			if sz[0] >= 120 {
				wants = append(wants, "leader 3001 (epoch 12)", "controller 3001 (epoch 12)", "fenced 6", "cordoned 4", "observers 1 2 3 4 lag 1 5", "3002 lag 20")
			} else {
				// Narrow: the header fits, nothing cut: the controller
				// without its epoch, which the quorum line keeps.
				wants = append(wants, "· controller 3001\n", "quorum (epoch 12) voters 3000 3001★ 3002+20 · 5 observers lag up to 1\n")
				for i, l := range strings.SplitN(out, "\n", 4)[:3] {
					if strings.Contains(l, "…") {
						t.Errorf("header line %d is cut: %q", i, l)
					}
				}
			}
			for _, want := range wants {
				if !strings.Contains(out, want) {
					t.Errorf("no %q in\n%s", want, out)
				}
			}
			if strings.Contains(out, "★ ctrl") {
				t.Errorf("a broker is badged as the controller, which is controller 3001:\n%s", out)
			}
			golden.RequireEqual(t, out)
		})
	}
}

// TestObserversLag: the narrow quorum line's word on the observers: a lag
// is never negative ("lag ≤0" read as if it could be), so none behind is
// "caught up"; DescribeQuorum's -1 is an unknown lag, said as such.
func TestObserversLag(t *testing.T) {
	st := theme.New(true)
	for _, tc := range []struct {
		lags []int64
		want string
	}{
		{[]int64{0, 0, 0, 0}, "caught up"},
		{[]int64{0, 20, 3}, "lag up to 20"},
		{[]int64{0, 20, -1}, "lag up to 20, 1 unknown"},
		{[]int64{0, -1, -1}, "caught up, 2 unknown"},
		{[]int64{-1, -1}, "lag unknown"},
	} {
		var rs []cluster.QuorumReplica
		for i, l := range tc.lags {
			rs = append(rs, cluster.QuorumReplica{ID: i + 1, Lag: l})
		}
		if got := ansi.Strip(observersLag(&st, rs)); got != tc.want {
			t.Errorf("%v: %q, want %q", tc.lags, got, tc.want)
		}
	}
}
