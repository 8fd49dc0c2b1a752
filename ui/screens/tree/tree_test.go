package tree

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	"unsafe"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/clusterwatch/zksource"
	"github.com/ktopo/ktopo/internal/testkit/fixture"
	"github.com/ktopo/ktopo/ui/keys"
	"github.com/ktopo/ktopo/ui/nav"
	"github.com/ktopo/ktopo/ui/theme"
	"github.com/ktopo/ktopo/zkwatch"
)

// fakeSource records the screen's I/O and answers nothing: the tests hand
// the screen its probes' answers themselves.
type fakeSource struct {
	mu  sync.Mutex
	log []string
}

func (f *fakeSource) note(s string)               { f.mu.Lock(); f.log = append(f.log, s); f.mu.Unlock() }
func (f *fakeSource) OpenSubtree(p string) error  { f.note("open " + p); return nil }
func (f *fakeSource) CloseSubtree(p string) error { f.note("close " + p); return nil }
func (f *fakeSource) Probe(p string) (Probe, error) {
	f.note("probe " + p)
	return Probe{}, errors.New("unanswered")
}

// calls runs the screen's commands and returns the I/O they made.
func (f *fakeSource) calls(cmd tea.Cmd) []string {
	fixture.Run(cmd)
	f.mu.Lock()
	defer f.mu.Unlock()
	out := f.log
	f.log = nil
	return out
}

func newTree(src *fakeSource) *Model {
	return New(Options{Styles: theme.New(true), Keys: keys.Default(), Location: time.UTC, Subtrees: src, Prober: src, Task: 3})
}

func loaded(spec fixture.Spec, w, h int) (*Model, *fakeSource) {
	src := &fakeSource{}
	m := newTree(src)
	m.SetSize(w, h)
	for _, b := range spec.Batches() {
		m.Apply(zksource.NodeEvents(b), b.Reset)
	}
	return m, src
}

func rootProbe() probedMsg {
	return probedMsg{path: "/", probe: Probe{Children: []string{"admin", "brokers", "cluster", "config", "consumers", "controller",
		"controller_epoch", "isr_change_notification", "latest_producer_id_block", "zookeeper"},
		Stat: &cluster.Stat{Czxid: 0, NumChildren: 10}}}
}

func TestVisibilityDrivesRequests(t *testing.T) {
	m, src := loaded(fixture.Small(), 80, 24)
	got := src.calls(m.Shown(true))
	if !slices.Equal(got, []string{"probe /"}) {
		t.Fatalf("showing the tree probes the root: %v", got)
	}
	m.probed(rootProbe())
	if !slices.Contains(m.Rows(), "/zookeeper") || !slices.Contains(m.Rows(), "/brokers") {
		t.Fatalf("rows %v", m.Rows())
	}
	// A Kafka list container is the mirror's: no request.
	if got := src.calls(m.Expand("/brokers")); !slices.Equal(got, []string{"probe /brokers"}) {
		t.Fatalf("/brokers is above Kafka's data: probe, got %v", got)
	}
	if got := src.calls(m.Expand("/brokers/ids")); len(got) != 0 {
		t.Fatalf("/brokers/ids comes from the mirror: %v", got)
	}
	// Outside Kafka's: a subtree, opened while expanded.
	if got := src.calls(m.Expand("/zookeeper")); !slices.Equal(got, []string{"open /zookeeper"}) {
		t.Fatalf("expand /zookeeper: %v", got)
	}
	m.Apply([]cluster.NodeEvent{{Type: cluster.NodeCreated, Path: "/zookeeper/quota", Stat: cluster.Stat{Czxid: 1}}}, false)
	if !slices.Contains(m.Rows(), "/zookeeper/quota") {
		t.Fatal("subtree nodes show up")
	}
	// Leaving the screen closes subtrees and stops probes.
	got = src.calls(m.Shown(false))
	if !slices.Equal(got, []string{"close /zookeeper"}) || m.isProbing("/") {
		t.Fatalf("hide: %v probing / %v", got, m.isProbing("/"))
	}
	m.Apply([]cluster.NodeEvent{{Type: cluster.NodeDeleted, Path: "/zookeeper/quota"}}, false)
	// Coming back asks again for every expanded node.
	got = src.calls(m.Shown(true))
	want := []string{"probe /", "probe /brokers", "open /zookeeper"}
	if !slices.Equal(got, want) {
		t.Fatalf("show again: %v", got)
	}
	// Collapsing releases.
	if got := src.calls(m.Collapse("/zookeeper")); !slices.Equal(got, []string{"close /zookeeper"}) {
		t.Fatalf("collapse: %v", got)
	}
	// A probe of a node that went away forgets its children.
	m.probed(probedMsg{path: "/", err: fmt.Errorf("gone")})
	if slices.Contains(m.Rows(), "/zookeeper") {
		t.Fatal("a failed probe drops what it listed")
	}
	if !slices.Contains(m.Rows(), "/brokers") {
		t.Fatal("mirror nodes stay")
	}
}

func TestKeys(t *testing.T) {
	m, src := loaded(fixture.Small(), 80, 24)
	src.calls(m.Shown(true))
	m.probed(rootProbe())
	fixture.Press(m, "j") // admin
	if m.Selected() != "/admin" {
		t.Fatalf("selected %s", m.Selected())
	}
	fixture.Press(m, "l")
	if !m.Expanded("/admin") {
		t.Fatal("l expands")
	}
	fixture.Press(m, "l") // step in
	if m.Selected() != "/admin/delete_topics" {
		t.Fatalf("second l steps in: %s", m.Selected())
	}
	fixture.Press(m, "h") // to parent
	if m.Selected() != "/admin" {
		t.Fatalf("h on a collapsed node goes to the parent: %s", m.Selected())
	}
	fixture.Press(m, "h")
	if m.Expanded("/admin") {
		t.Fatal("h collapses")
	}
	fixture.Press(m, "enter")
	if !m.Expanded("/admin") {
		t.Fatal("enter toggles")
	}
}

func TestView(t *testing.T) {
	for _, sz := range [][2]int{{80, 24}, {200, 60}} {
		for _, tc := range []struct {
			name, path string
			raw        bool
		}{
			{"root", "/", false},
			{"broker", "/brokers/ids/1", false},
			{"state", "/brokers/topics/orders/partitions/1/state", false},
			{"state-raw", "/brokers/topics/orders/partitions/1/state", true},
			{"topic", "/brokers/topics/orders", false},
			{"controller", "/controller", false},
			{"config", "/config/topics/orders", false},
			{"unloaded", "/zookeeper", false},
		} {
			t.Run(fmt.Sprintf("%dx%d/%s", sz[0], sz[1], tc.name), func(t *testing.T) {
				m, src := loaded(fixture.Small(), sz[0], sz[1])
				src.calls(m.Shown(true))
				m.probed(rootProbe())
				src.calls(m.Select(tc.path))
				m.raw = tc.raw
				if m.Selected() != tc.path {
					t.Fatalf("selected %s", m.Selected())
				}
				golden.RequireEqual(t, ansi.Strip(m.View()))
			})
		}
	}
}

func TestLiveData(t *testing.T) {
	spec := fixture.Small()
	m, src := loaded(spec, 80, 24)
	src.calls(m.Select("/brokers/topics/orders/partitions/0/state"))
	before := ansi.Strip(m.View())
	st := spec.State(&spec.Topics[0], 0)
	st.Leader = 3
	ev := fixture.StateEvent("orders", 0, st, 999, spec.Time+1000)
	m.Apply(zksource.NodeEvents(zkwatch.Batch{Events: []zkwatch.Event{ev}}), false)
	after := ansi.Strip(m.View())
	if before == after {
		t.Fatal("the details did not follow a data change")
	}
	// A reset keeps the selection and the expansion.
	for _, b := range spec.Batches() {
		m.Apply(zksource.NodeEvents(b), b.Reset)
	}
	if m.Selected() != "/brokers/topics/orders/partitions/0/state" {
		t.Fatalf("after a reset: %s", m.Selected())
	}
}

func TestRenderCalls(t *testing.T) {
	for _, n := range []int{100, 10_000, 100_000} {
		if testing.Short() && n > 10_000 {
			continue
		}
		m, src := loaded(fixture.Sized(n), 80, 24)
		src.calls(m.Select("/brokers/topics/big/partitions/7/state"))
		calls := 0
		real := m.renderRow
		m.renderRow = func(r row, sel bool) string { calls++; return real(r, sel) }
		m.View()
		if calls > 24+2 {
			t.Fatalf("partitions=%d: %d row renders", n, calls)
		}
	}
}

func BenchmarkView(b *testing.B) {
	for _, n := range []int{100, 10_000, 100_000} {
		spec := fixture.Sized(n)
		var evs [][]cluster.NodeEvent
		for _, bt := range spec.Batches() {
			evs = append(evs, zksource.NodeEvents(bt))
		}
		for _, sz := range [][2]int{{200, 60}, {80, 24}} {
			b.Run(fmt.Sprintf("tree/%dx%d/partitions=%d", sz[0], sz[1], n), func(b *testing.B) {
				src := &fakeSource{}
				m := newTree(src)
				m.SetSize(sz[0], sz[1])
				for i, e := range evs {
					m.Apply(e, i == 0)
				}
				src.calls(m.Select("/brokers/topics/big/partitions/0/state"))
				fixture.Press(m, "pgdown")
				b.ReportAllocs()
				for b.Loop() {
					_ = m.View()
				}
			})
		}
	}
}

// TestCommandResults: the results of the screen's commands come back to it
// addressed with its task id; a fired watch re-probes while the node is
// wanted, and a failed subtree is reported in the status bar.
func TestCommandResults(t *testing.T) {
	m, src := loaded(fixture.Small(), 80, 24)
	src.calls(m.Shown(true))
	root := rootProbe()
	root.probe.Changed = func() {}
	cmd, _ := m.Update(root)
	msgs := fixture.Run(cmd)
	if len(msgs) != 1 || msgs[0] != (nav.TaskMsg{Task: 3, Msg: probeFiredMsg{"/"}}) {
		t.Fatalf("the watch is re-armed: %v", msgs)
	}
	cmd, _ = m.Update(msgs[0].(nav.TaskMsg).Msg)
	if got := src.calls(cmd); !slices.Equal(got, []string{"probe /"}) {
		t.Fatalf("a fired watch re-probes: %v", got)
	}
	src.calls(m.Shown(false))
	if cmd, _ := m.Update(probeFiredMsg{"/"}); cmd != nil {
		t.Fatal("a hidden screen probes nothing")
	}
	if _, req := m.Update(subtreeFailedMsg{errors.New("zk: no node")}); req != (nav.ShowStatus{Text: "zk: no node", Err: true}) {
		t.Fatalf("failure: %v", req)
	}
}

// TestNoAccess: a znode the session may not read is marked in the list
// and its details say so, instead of showing it empty; a probe that is
// refused keeps the node.
func TestNoAccess(t *testing.T) {
	m, src := loaded(fixture.Small(), 120, 30)
	m.Apply([]cluster.NodeEvent{{Type: cluster.NodeChanged, Path: "/config/topics/orders", Denied: cluster.NoData}}, false)
	src.calls(m.Shown(true))
	m.probed(rootProbe())
	src.calls(m.Select("/config/topics/orders"))
	v := ansi.Strip(m.View())
	for _, want := range []string{"orders                       (no access)", "No access", "ZooKeeper's ACL does not let this session read its data", "--zk-tls-cert"} {
		if !strings.Contains(v, want) {
			t.Errorf("the view lacks %q:\n%s", want, v)
		}
	}
	if strings.Contains(v, "Decoded") {
		t.Errorf("a node without data is decoded:\n%s", v)
	}
	m.probed(probedMsg{path: "/config", probe: Probe{Denied: cluster.NoData | cluster.NoChildren}})
	if n := m.lookup("/config"); n == nil || n.denied != cluster.NoData|cluster.NoChildren {
		t.Errorf("/config after a refused probe: %+v", n)
	}
}

// mapNodes is a mirror for Options.Nodes: path → its latest event.
type mapNodes struct {
	m     map[string]zkwatch.Event
	reads int
}

func (f *mapNodes) Node(p string) ([]byte, *cluster.Stat, bool) {
	f.reads++
	ev, ok := f.m[p]
	return ev.Data, (*cluster.Stat)(ev.Stat), ok
}

// TestNodesFromMirror: with Options.Nodes the screen keeps no data or
// stat of the mirror's nodes and shows what the mirror holds, the same
// screens as with the copies; it reads the mirror only for the node it
// shows, again when that node's events come.
func TestNodesFromMirror(t *testing.T) {
	spec := fixture.Small()
	nodes := &mapNodes{m: map[string]zkwatch.Event{}}
	for _, ev := range spec.Events() {
		nodes.m[ev.Path] = ev
	}
	src := &fakeSource{}
	m := fedTree(spec, src, nodes)
	if len(m.held) != 0 {
		t.Fatalf("the screen keeps %d nodes' data", len(m.held))
	}
	copies, csrc := loaded(spec, 120, 40)
	src.calls(m.Shown(true))
	csrc.calls(copies.Shown(true))
	m.probed(rootProbe())
	copies.probed(rootProbe())
	if len(m.held) != 1 {
		t.Fatalf("the screen keeps %d nodes' data, want the probed root's", len(m.held))
	}
	for _, p := range []string{"/", "/brokers/ids/1", "/brokers/topics/orders/partitions/1/state", "/config/topics/orders", "/controller", "/zookeeper"} {
		src.calls(m.Select(p))
		csrc.calls(copies.Select(p))
		if got, want := ansi.Strip(m.View()), ansi.Strip(copies.View()); got != want {
			t.Fatalf("%s: from the mirror\n%s\nfrom copies\n%s", p, got, want)
		}
		if p != "/zookeeper" && !strings.Contains(ansi.Strip(m.View()), "mzxid") {
			t.Fatalf("%s: no stat shown", p)
		}
	}

	const state = "/brokers/topics/orders/partitions/0/state"
	src.calls(m.Select(state))
	before := ansi.Strip(m.View())
	reads := nodes.reads
	m.View()
	if nodes.reads != reads {
		t.Fatal("a second frame read the mirror again")
	}
	st := spec.State(&spec.Topics[0], 0)
	st.Leader = 3
	ev := fixture.StateEvent("orders", 0, st, 999, spec.Time+1000)
	nodes.m[state] = ev
	m.Apply(zksource.NodeEvents(zkwatch.Batch{Events: []zkwatch.Event{ev}}), false)
	if ansi.Strip(m.View()) == before {
		t.Fatal("the details did not follow the mirror's change")
	}
	// The mirror ahead of the batches: gone there, not yet here.
	delete(nodes.m, state)
	m.Apply(zksource.NodeEvents(zkwatch.Batch{Events: []zkwatch.Event{ev}}), false)
	if v := ansi.Strip(m.View()); !strings.Contains(v, "(none)") {
		t.Fatalf("a node gone from the mirror:\n%s", v)
	}
}

// fedTree is a 120×40 screen reading nodes, given spec's batches.
func fedTree(spec fixture.Spec, src *fakeSource, nodes Nodes) *Model {
	m := New(Options{Styles: theme.New(true), Keys: keys.Default(), Location: time.UTC, Subtrees: src, Prober: src, Nodes: nodes, Task: 3})
	m.SetSize(120, 40)
	for _, b := range spec.Batches() {
		m.Apply(zksource.NodeEvents(b), b.Reset)
	}
	return m
}

// walkNodes is mapNodes that lists its nodes too (Walker).
type walkNodes struct{ mapNodes }

func (f *walkNodes) Walk(fn func(string, *cluster.Stat, cluster.Access)) {
	for p, ev := range f.m {
		fn(p, (*cluster.Stat)(ev.Stat), cluster.Access(ev.Denied))
	}
}

// TestBuiltWhenShown: with a Walker the screen holds no node until it is
// first shown (batches before are ignored), then shows what a screen fed
// every batch shows, and follows the batches after.
func TestBuiltWhenShown(t *testing.T) {
	spec := fixture.Small()
	nodes := &walkNodes{mapNodes{m: map[string]zkwatch.Event{}}}
	for _, b := range spec.Batches() { // the mirror after them
		for _, ev := range b.Events {
			if ev.Type == zkwatch.Deleted {
				delete(nodes.m, ev.Path)
			} else {
				nodes.m[ev.Path] = ev
			}
		}
	}
	src := &fakeSource{}
	m := fedTree(spec, src, nodes)
	if m.count != 1 || len(m.root.kids) != 0 {
		t.Fatalf("%d nodes before the screen was shown", m.count)
	}
	fed := fedTree(spec, src, &nodes.mapNodes)
	src.calls(m.Shown(true))
	src.calls(fed.Shown(true))
	if m.count != fed.count {
		t.Fatalf("built with %d nodes, fed %d", m.count, fed.count)
	}
	check := func(when string) {
		t.Helper()
		for _, p := range []string{"/brokers/ids/1", "/brokers/topics/orders/partitions/1/state", "/config/topics/orders", "/controller"} {
			src.calls(m.Select(p))
			src.calls(fed.Select(p))
			if got, want := ansi.Strip(m.View()), ansi.Strip(fed.View()); got != want {
				t.Fatalf("%s, %s: built\n%s\nfed\n%s", when, p, got, want)
			}
		}
	}
	check("when shown")
	// A batch after: a topic deleted, a state changed.
	var evs []zkwatch.Event
	for p := range nodes.m {
		if strings.HasPrefix(p, "/brokers/topics/clicks") {
			evs = append(evs, zkwatch.Event{Type: zkwatch.Deleted, Path: p})
			delete(nodes.m, p)
		}
	}
	st := spec.State(&spec.Topics[0], 1)
	st.Leader = 3
	ev := fixture.StateEvent("orders", 1, st, 999, spec.Time+1000)
	ev.Type = zkwatch.Changed
	nodes.m[ev.Path] = ev
	evs = append(evs, ev)
	b := zksource.NodeEvents(zkwatch.Batch{Events: evs})
	m.Apply(b, false)
	fed.Apply(b, false)
	if m.count != fed.count || m.lookup("/brokers/topics/clicks") != nil {
		t.Fatalf("after a batch: built %d nodes, fed %d", m.count, fed.count)
	}
	check("after a batch")
}

// TestNodeSize: a big cluster's tree has a node per znode; it fits the
// allocator's 64-byte class.
func TestNodeSize(t *testing.T) {
	if s := unsafe.Sizeof(node{}); s > 64 {
		t.Fatalf("a node is %d bytes", s)
	}
}

// TestManyKids: the index by name of a node with many children follows
// them as they come and go.
func TestManyKids(t *testing.T) {
	m := New(Options{Styles: theme.New(true), Keys: keys.Default(), Location: time.UTC})
	var evs []cluster.NodeEvent
	for i := range 40 {
		evs = append(evs, cluster.NodeEvent{Type: cluster.NodeCreated, Path: fmt.Sprintf("/brokers/ids/%d", i), Stat: cluster.Stat{Mzxid: int64(i + 1)}})
	}
	m.Apply(evs, true)
	ids := m.lookup("/brokers/ids")
	if ids == nil || !ids.indexed || len(m.kidIdx[ids]) != 40 {
		t.Fatalf("no index of 40: %+v", ids)
	}
	for i := range 35 {
		m.Apply([]cluster.NodeEvent{{Type: cluster.NodeDeleted, Path: fmt.Sprintf("/brokers/ids/%d", i)}}, false)
	}
	if ids.indexed || len(m.kidIdx) != 0 || len(ids.kids) != 5 || m.lookup("/brokers/ids/37") == nil || m.lookup("/brokers/ids/3") != nil {
		t.Fatalf("after deletes: indexed %v, %d indexes, %d kids", ids.indexed, len(m.kidIdx), len(ids.kids))
	}
	m.Expand("/brokers")
	m.Expand("/brokers/ids")
	if got := m.Rows(); !slices.Equal(got[len(got)-5:], []string{"/brokers/ids/35", "/brokers/ids/36", "/brokers/ids/37", "/brokers/ids/38", "/brokers/ids/39"}) {
		t.Fatalf("rows %v", got)
	}
}

// TestCountsSayWhatTheyCount: the title's count of the znodes the tree
// names sits next to the status bar's, the znodes the mirror reads and
// watches, each saying what it counts (236 and 121 read as a mismatch).
func TestCountsSayWhatTheyCount(t *testing.T) {
	m := New(Options{Styles: theme.New(true), Keys: keys.Default()})
	m.SetSize(100, 10)
	m.Apply([]cluster.NodeEvent{{Type: cluster.NodeCreated, Path: "/brokers/ids/1", Stat: cluster.Stat{Mzxid: 1}}}, false)
	m.SetMirrored(1)
	if title := strings.Split(ansi.Strip(m.View()), "\n")[0]; !strings.Contains(title, "4 znodes known · 1 read and watched") {
		t.Fatalf("title %q", title)
	}
}
