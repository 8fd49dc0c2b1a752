package tree

import (
	"fmt"
	"slices"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/clusterwatch"
	"github.com/ktopo/ktopo/internal/fixture"
	"github.com/ktopo/ktopo/ui/keys"
	"github.com/ktopo/ktopo/ui/theme"
	"github.com/ktopo/ktopo/zkwatch"
)

func loaded(spec fixture.Spec, w, h int) *Model {
	m := New(theme.New(true), keys.Default(), time.UTC)
	m.SetSize(w, h)
	for _, b := range spec.Batches() {
		m.Apply(clusterwatch.NodeEvents(b), b.Reset)
	}
	return m
}

// requests runs the screen's commands and returns the requests.
func requests(cmd tea.Cmd) []tea.Msg { return fixture.Run(cmd) }

func rootProbe() ProbedMsg {
	return ProbedMsg{Path: "/", Children: []string{"admin", "brokers", "cluster", "config", "consumers", "controller",
		"controller_epoch", "isr_change_notification", "latest_producer_id_block", "zookeeper"},
		Stat: &cluster.Stat{Czxid: 0, NumChildren: 10}}
}

func TestVisibilityDrivesRequests(t *testing.T) {
	m := loaded(fixture.Small(), 80, 24)
	got := requests(m.SetVisible(true))
	if !slices.Equal(got, []tea.Msg{ProbeMsg{Path: "/"}}) {
		t.Fatalf("showing the tree probes the root: %v", got)
	}
	m.Probed(rootProbe())
	if !slices.Contains(m.Rows(), "/zookeeper") || !slices.Contains(m.Rows(), "/brokers") {
		t.Fatalf("rows %v", m.Rows())
	}
	// A Kafka list container is the mirror's: no request.
	if got := requests(m.Expand("/brokers")); !slices.Equal(got, []tea.Msg{ProbeMsg{Path: "/brokers"}}) {
		t.Fatalf("/brokers is above Kafka's data: probe, got %v", got)
	}
	if got := requests(m.Expand("/brokers/ids")); len(got) != 0 {
		t.Fatalf("/brokers/ids comes from the mirror: %v", got)
	}
	// Outside Kafka's: a subtree, opened while expanded.
	if got := requests(m.Expand("/zookeeper")); !slices.Equal(got, []tea.Msg{OpenSubtreeMsg{Path: "/zookeeper"}}) {
		t.Fatalf("expand /zookeeper: %v", got)
	}
	m.Apply([]cluster.NodeEvent{{Type: cluster.NodeCreated, Path: "/zookeeper/quota", Stat: cluster.Stat{Czxid: 1}}}, false)
	if !slices.Contains(m.Rows(), "/zookeeper/quota") {
		t.Fatal("subtree nodes show up")
	}
	// Leaving the screen closes subtrees and stops probes.
	got = requests(m.SetVisible(false))
	if !slices.Equal(got, []tea.Msg{CloseSubtreeMsg{Path: "/zookeeper"}}) || m.Probing("/") {
		t.Fatalf("hide: %v probing / %v", got, m.Probing("/"))
	}
	m.Apply([]cluster.NodeEvent{{Type: cluster.NodeDeleted, Path: "/zookeeper/quota"}}, false)
	// Coming back asks again for every expanded node.
	got = requests(m.SetVisible(true))
	want := []tea.Msg{ProbeMsg{Path: "/"}, ProbeMsg{Path: "/brokers"}, OpenSubtreeMsg{Path: "/zookeeper"}}
	if !slices.Equal(got, want) {
		t.Fatalf("show again: %v", got)
	}
	// Collapsing releases.
	if got := requests(m.Collapse("/zookeeper")); !slices.Equal(got, []tea.Msg{CloseSubtreeMsg{Path: "/zookeeper"}}) {
		t.Fatalf("collapse: %v", got)
	}
	// A probe of a node that went away forgets its children.
	m.Probed(ProbedMsg{Path: "/", Err: fmt.Errorf("gone")})
	if slices.Contains(m.Rows(), "/zookeeper") {
		t.Fatal("a failed probe drops what it listed")
	}
	if !slices.Contains(m.Rows(), "/brokers") {
		t.Fatal("mirror nodes stay")
	}
}

func TestKeys(t *testing.T) {
	m := loaded(fixture.Small(), 80, 24)
	requests(m.SetVisible(true))
	m.Probed(rootProbe())
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
				m := loaded(fixture.Small(), sz[0], sz[1])
				requests(m.SetVisible(true))
				m.Probed(rootProbe())
				requests(m.Select(tc.path))
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
	m := loaded(spec, 80, 24)
	requests(m.Select("/brokers/topics/orders/partitions/0/state"))
	before := ansi.Strip(m.View())
	st := spec.State(&spec.Topics[0], 0)
	st.Leader = 3
	ev := fixture.StateEvent("orders", 0, st, 999, spec.Time+1000)
	m.Apply(clusterwatch.NodeEvents(zkwatch.Batch{Events: []zkwatch.Event{ev}}), false)
	after := ansi.Strip(m.View())
	if before == after {
		t.Fatal("the details did not follow a data change")
	}
	// A reset keeps the selection and the expansion.
	for _, b := range spec.Batches() {
		m.Apply(clusterwatch.NodeEvents(b), b.Reset)
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
		m := loaded(fixture.Sized(n), 80, 24)
		requests(m.Select("/brokers/topics/big/partitions/7/state"))
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
			evs = append(evs, clusterwatch.NodeEvents(bt))
		}
		for _, sz := range [][2]int{{200, 60}, {80, 24}} {
			b.Run(fmt.Sprintf("tree/%dx%d/partitions=%d", sz[0], sz[1], n), func(b *testing.B) {
				m := New(theme.New(true), keys.Default(), time.UTC)
				m.SetSize(sz[0], sz[1])
				for i, e := range evs {
					m.Apply(e, i == 0)
				}
				requests(m.Select("/brokers/topics/big/partitions/0/state"))
				fixture.Press(m, "pgdown")
				b.ReportAllocs()
				for b.Loop() {
					_ = m.View()
				}
			})
		}
	}
}
