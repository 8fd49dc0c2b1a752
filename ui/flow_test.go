package ui

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/charmbracelet/x/exp/teatest/v2"
	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/clusterwatch/zksource"
	"github.com/ktopo/ktopo/internal/testkit/fixture"
	"github.com/ktopo/ktopo/internal/testkit/scaletree"
	"github.com/ktopo/ktopo/ui/screens/topic"
	"github.com/ktopo/ktopo/zkwatch"
)

// startFlow runs the App in a teatest program and loads the fixture.
func startFlow(t *testing.T, w, h int) (*teatest.TestModel, *fakeSource) {
	t.Helper()
	a, src, _ := newApp(t, ModeLive)
	// The animation clock runs on real ticks here: use the real clock.
	a.cfg.Now = time.Now
	tm := teatest.NewTestModel(t, a, teatest.WithInitialTermSize(w, h))
	for _, b := range fixture.Small().Batches() {
		src.ch <- b
	}
	waitOut(t, tm, "rack-a")
	return tm, src
}

func waitOut(t *testing.T, tm *teatest.TestModel, s string) {
	t.Helper()
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return bytes.Contains(b, []byte(s)) },
		teatest.WithDuration(5*time.Second), teatest.WithCheckInterval(10*time.Millisecond))
}

func send(tm *teatest.TestModel, ks ...string) {
	for _, k := range ks {
		tm.Send(fixture.Key(k))
	}
}

func final(t *testing.T, tm *teatest.TestModel) *App {
	t.Helper()
	tm.Send(tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl})
	return tm.FinalModel(t, teatest.WithFinalTimeout(5*time.Second)).(*App)
}

// TestFlowStartAndSwitch: start, then visit every tab.
func TestFlowStartAndSwitch(t *testing.T) {
	tm, _ := startFlow(t, 100, 30)
	send(tm, "2")
	waitOut(t, tm, "DELETING")
	send(tm, "3")
	waitOut(t, tm, "znodes known")
	send(tm, "4")
	waitOut(t, tm, "following")
	send(tm, "1")
	fm := final(t, tm)
	if fm.Active() != "overview" {
		t.Fatalf("tab %s", fm.Active())
	}
	golden.RequireEqual(t, ansi.Strip(fm.View().Content))
}

// TestFlowDrillDown: overview → broker → partition → topic, then back.
func TestFlowDrillDown(t *testing.T) {
	tm, _ := startFlow(t, 100, 30)
	send(tm, "right", "enter")
	waitOut(t, tm, "Broker 2")
	send(tm, "j", "enter")
	waitOut(t, tm, "REPLICAS")
	fm := final(t, tm)
	if len(fm.Stack()) != 2 {
		t.Fatalf("stack %d", len(fm.Stack()))
	}
	tp := fm.Focused().(*topic.Model)
	if tp.Name() != "__consumer_offsets" || tp.Cursor() != 1 {
		t.Fatalf("opened %s partition %d", tp.Name(), tp.Cursor())
	}
	golden.RequireEqual(t, ansi.Strip(fm.View().Content))
}

// TestFlowFilter: filter the topics, open the match.
func TestFlowFilter(t *testing.T) {
	tm, _ := startFlow(t, 100, 30)
	send(tm, "2", "/")
	tm.Type("~^p")
	send(tm, "enter")
	waitOut(t, tm, "1 of 6")
	send(tm, "enter")
	waitOut(t, tm, "min ISR 3")
	fm := final(t, tm)
	if tp := fm.Focused().(*topic.Model); tp.Name() != "payments" {
		t.Fatalf("opened %s", tp.Name())
	}
	if rows := fm.Topics().Rows(); len(rows) != 1 {
		t.Fatalf("filter kept %v", rows)
	}
}

// TestFlowLiveChange: a leader move arrives while the topic is open; the
// cell flashes with old → new, and the timeline has it.
func TestFlowLiveChange(t *testing.T) {
	tm, src := startFlow(t, 100, 30)
	tm.Send(tea.KeyPressMsg{Code: ':', Text: ":"})
	tm.Type("topic orders")
	send(tm, "enter")
	waitOut(t, tm, "Topic orders")
	spec := fixture.Small()
	st := spec.State(&spec.Topics[0], 2)
	st.Leader, st.ISR, st.LeaderEpoch = 5, []int{5, 4}, 9
	src.ch <- zkwatch.Batch{Events: []zkwatch.Event{fixture.StateEvent("orders", 2, st, 900, t0.UnixMilli())}}
	waitOut(t, tm, "→")
	// Read the screen before the fade and the hold end.
	time.Sleep(100 * time.Millisecond)
	fm := final(t, tm)
	if fm.Events().Len() != 3 { // broker 6 left; then leader moved and ISR shrank
		t.Fatalf("events %d", fm.Events().Len())
	}
	if c := fm.Events().Entry(2).Change; c.Kind != cluster.ChangeIsrShrank && c.Kind != cluster.ChangeLeaderMoved {
		t.Fatalf("last event %v", c.Kind)
	}
	out := ansi.Strip(fm.View().Content)
	if !bytes.Contains([]byte(out), []byte("3→5")) || !bytes.Contains([]byte(out), []byte("3,4,5→5,4")) {
		t.Fatalf("the flash shows old → new:\n%s", out)
	}
}

// BenchmarkApplyAndRender applies a 512-event batch (partition state
// changes) and renders the focused screen, as one frame of a busy cluster.
func BenchmarkApplyAndRender(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		b.Run(fmt.Sprintf("partitions=%d", n), func(b *testing.B) {
			if testing.Short() && n > 10_000 {
				b.Skip("large fixture skipped under -short")
			}
			a, _, _ := newApp(b, ModeLive)
			a.update(tea.WindowSizeMsg{Width: 200, Height: 60})
			spec := fixture.Sized(n)
			for _, bt := range spec.Batches() {
				a.applyBatch(zksource.FromMirrorBatch(bt))
			}
			a.update(fixture.Key("2"))
			big := &spec.Topics[0]
			batches := [2]zkwatch.Batch{}
			for k := range batches {
				for p := 0; p < 512; p++ {
					st := spec.State(big, p)
					if k == 1 {
						st.Leader, st.ISR = st.ISR[len(st.ISR)-1], st.ISR[:len(st.ISR)-1]
					}
					batches[k].Events = append(batches[k].Events, fixture.StateEvent("big", p, st, int64(1000+k), t0.UnixMilli()))
				}
			}
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				a.applyBatch(zksource.FromMirrorBatch(batches[i%2]))
				_ = a.View()
				i++
			}
		})
	}
}

// BenchmarkChurnBatch is one batch of the churn soak at scale: 50
// partition-state writes (leaders moving, ISRs shrinking) spread over
// 10,000 topics × 10 partitions on 30 brokers, applied with the events tab
// shown and a frame drawn: what each of the soak's 20 batches a second
// costs the TUI.
func BenchmarkChurnBatch(b *testing.B) {
	if testing.Short() {
		b.Skip("large fixture skipped under -short")
	}
	a, _, _ := newApp(b, ModeLive)
	a.update(tea.WindowSizeMsg{Width: 200, Height: 60})
	spec := fixture.Spec{ClusterID: "churn", Brokers: 30, Racks: 3, Controller: 1, ControllerEpoch: 1, Time: 1_700_000_000_000}
	for i := range 10_000 {
		spec.Topics = append(spec.Topics, fixture.Topic{Name: scaletree.Topic(i), Partitions: 10, RF: 3})
	}
	for _, bt := range spec.Batches() {
		a.applyBatch(zksource.FromMirrorBatch(bt))
	}
	a.update(fixture.Key("4"))
	r := rand.New(rand.NewPCG(1, 2))
	var batches [16]zkwatch.Batch
	for k := range batches {
		for range 50 {
			t := &spec.Topics[r.IntN(len(spec.Topics))]
			p := r.IntN(10)
			st := spec.State(t, p)
			st.Leader, st.ISR = st.ISR[1+k%2], st.ISR[:2]
			st.LeaderEpoch = k + 1
			batches[k].Events = append(batches[k].Events, fixture.StateEvent(t.Name, p, st, int64(1000+k), t0.UnixMilli()))
		}
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		a.applyBatch(zksource.FromMirrorBatch(batches[i%len(batches)]))
		_ = a.View()
		i++
	}
}
