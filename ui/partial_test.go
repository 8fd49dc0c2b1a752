package ui

import (
	"github.com/ktopo/ktopo/clusterwatch"
	"strconv"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/internal/testkit/fixture"
	"github.com/ktopo/ktopo/zkwatch"
)

// TestPartialLoad: while the first load is under way the banner says how
// far it is, the overview shows the brokers and the controller read so
// far and the topics tab the topics read in full; a topic whose partition
// states are still being read is left out, never shown as offline or
// uninitialised. The batch that ends the load (Loaded with the rest, or a
// Reset with everything) completes the picture, and none of it goes to
// the timeline.
func TestPartialLoad(t *testing.T) {
	t.Run("loaded", func(t *testing.T) { partialLoad(t, false) })
	t.Run("reset", func(t *testing.T) { partialLoad(t, true) })
}

func partialLoad(t *testing.T, reset bool) {
	a, _, _ := newApp(t, ModeLive)
	a.update(tea.WindowSizeMsg{Width: 160, Height: 30})
	all := fixture.Small().Events()
	var first, rest []zkwatch.Event
	for _, ev := range all {
		info := cluster.ParsePath(ev.Path)
		if info.Kind == cluster.KindPartitionState && (info.Topic == "payments" || info.Topic == "clicks" && info.Partition >= 6) {
			rest = append(rest, ev)
		} else {
			first = append(first, ev)
		}
	}
	run(a, batchMsg{States: []clusterwatch.State{clusterwatch.StateConnected}})
	if s := screen(a); !strings.Contains(s, "Loading the cluster from ZooKeeper…") {
		t.Fatalf("before any read:\n%s", s)
	}
	run(a, mirrorBatch(zkwatch.Batch{Partial: true, Events: first, Progress: zkwatch.Progress{Done: len(first), Known: len(all) + 3}}))
	snap := a.Snapshot()
	if snap == nil || !snap.Partial() || snap.LoadingTopics() != 2 {
		t.Fatalf("snapshot partial %v, loading %d", snap != nil && snap.Partial(), snap.LoadingTopics())
	}
	s := screen(a)
	want := "Loading the cluster from ZooKeeper… read " + strconv.Itoa(len(first)) + " of the " + strconv.Itoa(len(all)+3) + " znodes found so far · showing 4 topics, 2 more loading"
	if !strings.Contains(s, want) {
		t.Fatalf("banner: want %q in\n%s", want, s)
	}
	if !strings.Contains(s, "loading ·") {
		t.Fatalf("status bar:\n%s", s)
	}
	// The overview: brokers and the controller.
	for _, w := range []string{"kafka-1", "controller"} {
		if !strings.Contains(strings.ToLower(s), w) {
			t.Fatalf("overview lacks %q:\n%s", w, s)
		}
	}
	press(a, "2")
	s = screen(a)
	for _, w := range []string{"orders", "audit-log", "legacy", "__consumer_offsets"} {
		if !strings.Contains(s, w) {
			t.Fatalf("topics lack %s:\n%s", w, s)
		}
	}
	for _, w := range []string{"payments", "clicks"} {
		if strings.Contains(s, w) {
			t.Fatalf("half-read topic %s shown:\n%s", w, s)
		}
	}
	if h := snap.Health(); h.Uninitialized != 0 {
		t.Fatalf("health counts half-read topics: %+v", h)
	}
	run(a, mirrorBatch(zkwatch.Batch{Partial: true, Events: rest, Progress: zkwatch.Progress{Done: len(all), Known: len(all) + 3}}))
	if s := screen(a); !strings.Contains(s, "payments") || !strings.Contains(s, "clicks") || !strings.Contains(s, "showing 6 topics") {
		t.Fatalf("second partial batch:\n%s", s)
	}
	end := zkwatch.Batch{Loaded: true, Progress: zkwatch.Progress{Done: len(all) + 3, Known: len(all) + 3}}
	if reset {
		end.Loaded, end.Reset, end.Events = false, true, all
	}
	run(a, mirrorBatch(end))
	s = screen(a)
	if strings.Contains(s, "Loading") || strings.Contains(s, "⚠") || a.Snapshot().Partial() || !a.loaded {
		t.Fatalf("after the load:\n%s", s)
	}
	if len(a.Snapshot().Topics()) != 6 {
		t.Fatalf("%d topics after the load", len(a.Snapshot().Topics()))
	}
	if n := a.Events().Len(); n != 0 {
		t.Fatalf("the first load put %d events in the timeline", n)
	}
	// A change after the load is an event again.
	st := fixture.StateEvent("orders", 0, cluster.PartitionState{ControllerEpoch: 7, Leader: 2, LeaderEpoch: 9, ISR: []int{2}}, 99999, 1_700_000_100_000)
	run(a, mirrorBatch(zkwatch.Batch{Events: []zkwatch.Event{st}}))
	if n := a.Events().Len(); n == 0 {
		t.Fatal("a change after the load is not in the timeline")
	}
}
