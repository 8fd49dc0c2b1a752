package quorum

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"

	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/internal/testkit/fixture"
	"github.com/ktopo/ktopo/ui/keys"
	"github.com/ktopo/ktopo/ui/nav"
	"github.com/ktopo/ktopo/ui/theme"
)

var t0 = time.Date(2026, 12, 7, 20, 0, 0, 0, time.UTC)

// report is a reading of a KRaft cluster shaped as the KRaft sandbox's
// (and Kafka 4.4's with a static quorum): 3 controllers, 6 brokers,
// broker 6 fenced and gone; down names controllers whose last fetch was
// 41 s before the reading.
func report(down ...int) cluster.QuorumReport {
	at := t0
	member := func(id int, leo int64, fetched time.Time, dir byte) cluster.QuorumMember {
		m := cluster.QuorumMember{ID: id, LogEndOffset: leo, LastFetch: fetched, LastCaughtUp: fetched}
		if dir != 0 {
			m.DirectoryID = cluster.UUID{0: dir, 6: 0x40, 8: 0x80, 15: dir}
		}
		return m
	}
	q := cluster.QuorumDetail{LeaderID: 3000, LeaderEpoch: 2, HighWatermark: 12_345, Version: 2}
	for _, id := range []int{3000, 3001, 3002} {
		v := member(id, 12_345, at.Add(-200*time.Millisecond), 0)
		if id == 3000 {
			v.LastFetch, v.LastCaughtUp = at, at
		}
		for _, d := range down {
			if d == id {
				v.LogEndOffset, v.LastFetch, v.LastCaughtUp = 12_001, at.Add(-41*time.Second), at.Add(-41*time.Second)
			}
		}
		v.Endpoints = []string{fmt.Sprintf("CONTROLLER://127.0.0.1:%d", 19092+id-2993)}
		q.Voters = append(q.Voters, v)
	}
	for id := 1; id <= 5; id++ {
		leo := int64(12_345)
		if id == 5 {
			leo = 12_300
		}
		q.Observers = append(q.Observers, member(id, leo, at.Add(-300*time.Millisecond), byte(id)))
	}
	r := cluster.QuorumReport{At: at, ClusterID: "MkU3OEVBNTcwNTJENDM2Qk", Quorum: q,
		Finalized: []cluster.Feature{{Name: "eligible.leader.replicas.version", Level: 0}, {Name: "group.version", Level: 1},
			{Name: cluster.FeatureKRaftVersion, Level: 0}, {Name: cluster.FeatureMetadataVersion, Level: 31}},
		ControllersAsked: true, FencedListed: true,
		UpgradeChecks: []cluster.UpgradeCheck{{Feature: cluster.FeatureMetadataVersion, Level: 33}, {Feature: "eligible.leader.replicas.version", Level: 1,
			Refusal: "Invalid update version 1 for feature eligible.leader.replicas.version. Broker 6 does not support this feature."}}}
	ranges := []cluster.FeatureRange{{Name: cluster.FeatureMetadataVersion, MinVersion: 7, MaxVersion: 33}, {Name: cluster.FeatureKRaftVersion, MaxVersion: 1},
		{Name: "group.version", MaxVersion: 1}, {Name: "eligible.leader.replicas.version", MaxVersion: 1}}
	for id := 1; id <= 6; id++ {
		r.Brokers = append(r.Brokers, cluster.KRaftBroker{ID: id, Fenced: id == 6, Host: "127.0.0.1", Port: 19091 + id})
		n := cluster.NodeFeatures{ID: id, Addr: fmt.Sprintf("127.0.0.1:%d", 19091+id), Supported: ranges}
		if id == 6 {
			n.Supported, n.Err = nil, "dial tcp 127.0.0.1:19097: connect: connection refused"
		}
		r.Nodes = append(r.Nodes, n)
	}
	for _, id := range []int{3000, 3001, 3002} {
		r.Nodes = append(r.Nodes, cluster.NodeFeatures{ID: id, Controller: true, Supported: ranges})
	}
	return r
}

// source is a Source fed by the test.
type source struct {
	live    cluster.QuorumReport
	liveOK  bool
	report  cluster.QuorumReport
	err     error
	reports int
}

func (s *source) LiveQuorum() (cluster.QuorumReport, bool) { return s.live, s.liveOK }
func (s *source) QuorumReport(context.Context) (cluster.QuorumReport, error) {
	s.reports++
	return s.report, s.err
}

// run runs cmd and the commands it batches, synchronously, feeding
// their messages back to m (never the ticks, which would wait).
func run(m *Model, cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	switch msg := cmd().(type) {
	case tea.BatchMsg:
		for _, c := range msg {
			run(m, c)
		}
	case tickMsg, nil:
	default:
		c, _ := m.Update(msg)
		run(m, c)
	}
}

func newModel(src Source, sandbox bool, w, h int) (*Model, *time.Time) {
	now := t0
	km := keys.Default()
	km.SetSandbox(sandbox)
	m := New(theme.New(true), km, func() time.Time { return now }, time.UTC)
	m.SetSource(src)
	m.SetSize(w, h)
	m.every = 0
	return m, &now
}

// TestView: the tab at two sizes, healthy, with a voter down, without a
// leader, the quorum unreadable, and before its first reading.
func TestView(t *testing.T) {
	noLeader := report(3001, 3002)
	noLeader.Quorum.LeaderID = -1
	qerr := report()
	qerr.QuorumErr = "DescribeQuorum: kafka-1:9092: CLUSTER_AUTHORIZATION_FAILED: Cluster authorization failed."
	for _, tc := range []struct {
		name string
		r    cluster.QuorumReport
		w, h int
	}{
		{"healthy", report(), 160, 50},
		{"healthy-narrow", report(), 90, 50},
		{"one-down", report(3002), 160, 50},
		{"no-majority", noLeader, 160, 50},
		{"quorum-unknown", qerr, 120, 30},
		{"scrolled", report(), 120, 16},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := &source{live: tc.r, liveOK: true, report: tc.r}
			m, _ := newModel(src, false, tc.w, tc.h)
			run(m, m.Shown(true))
			if src.reports != 1 {
				t.Errorf("%d reports read when shown, want 1", src.reports)
			}
			golden.RequireEqual(t, ansi.Strip(m.View()))
		})
	}
	t.Run("reading", func(t *testing.T) {
		m, _ := newModel(&source{}, false, 100, 10)
		m.Shown(true) // its commands not run: nothing read yet
		if v := ansi.Strip(m.View()); !strings.Contains(v, "Metadata quorum  reading…") {
			t.Errorf("before the first reading:\n%s", v)
		}
	})
	t.Run("zookeeper", func(t *testing.T) {
		m, _ := newModel(nil, false, 100, 10)
		m.SetSnapshot(cluster.NewModel(cluster.ModelOptions{}).Snapshot())
		if v := ansi.Strip(m.View()); !strings.Contains(v, "A ZooKeeper-mode cluster has no metadata quorum") {
			t.Errorf("on ZooKeeper:\n%s", v)
		}
	})
}

// TestLive: the shown tab takes the polls' quorum at every tick, so a new
// leader and a voter going down show without a report; the whole report
// is read again only every reportEvery; a failed reading keeps the last
// one and says so; hidden, the tab's tick chain stops.
func TestLive(t *testing.T) {
	r := report()
	src := &source{live: r, liveOK: true, report: r}
	m, now := newModel(src, false, 160, 50)
	run(m, m.Shown(true))
	gen := m.gen
	if v := ansi.Strip(m.View()); !strings.Contains(v, "controller 3000 (epoch 2)") || !strings.Contains(v, "so 1 may fail.") {
		t.Fatalf("first view:\n%s", v)
	}
	moved := report(3000)
	moved.At = t0.Add(time.Second)
	moved.Quorum.LeaderID, moved.Quorum.LeaderEpoch = 3001, 3
	src.live = moved
	*now = t0.Add(time.Second)
	cmd, _ := m.Update(tickMsg{gen: gen})
	run(m, cmd)
	v := ansi.Strip(m.View())
	for _, want := range []string{"controller 3001 (epoch 3)", "3001★", "with controller 3000 (last fetch 42s ago) down, none may: one more failure stops the quorum.", "follower, down"} {
		if !strings.Contains(v, want) {
			t.Errorf("after the leader moved, the view lacks %q:\n%s", want, v)
		}
	}
	if src.reports != 1 {
		t.Errorf("%d reports read within reportEvery, want 1", src.reports)
	}
	*now = t0.Add(reportEvery)
	src.err = errors.New("no broker answered")
	cmd, _ = m.Update(tickMsg{gen: gen})
	run(m, cmd)
	if src.reports != 2 {
		t.Errorf("%d reports read after reportEvery, want 2", src.reports)
	}
	if v := ansi.Strip(m.View()); !strings.Contains(v, "could not be read again: no broker answered") || !strings.Contains(v, "metadata.version") {
		t.Errorf("a failed reading keeps the last one and says so:\n%s", v)
	}
	// A poll that cannot read the quorum says so; the registrations keep
	// the members of the last report (broker 6 is not judged by an
	// unknown quorum's empty observers).
	src.live = cluster.QuorumReport{At: t0.Add(reportEvery), QuorumErr: "DescribeQuorum: REQUEST_TIMED_OUT"}
	m.Update(liveMsg{r: src.live, ok: true})
	if got, _ := m.Report(); got.QuorumErr == "" || len(got.Quorum.Observers) != 5 {
		t.Errorf("a poll's error: %q, observers %d, want the error and the report's 5", got.QuorumErr, len(got.Quorum.Observers))
	}
	if v := ansi.Strip(m.View()); !strings.Contains(v, "unknown: DescribeQuorum: REQUEST_TIMED_OUT") || strings.Contains(v, "VOTERS") {
		t.Errorf("a poll's error shown:\n%s", v)
	}
	m.Shown(false)
	if cmd, _ := m.Update(tickMsg{gen: gen}); cmd != nil {
		t.Error("a hidden tab's tick chain goes on")
	}
}

// TestSandboxKeys: on the sandbox the cursor goes over the voters and
// observers; x asks to kill or restart the controller or broker under it,
// m to move the quorum's leader. Off the sandbox the arrows scroll.
func TestSandboxKeys(t *testing.T) {
	r := report()
	m, _ := newModel(&source{live: r, liveOK: true, report: r}, true, 160, 50)
	run(m, m.Shown(true))
	if _, req := m.Update(fixture.Key("x")); req != (nav.ToggleController{Controller: 3000}) {
		t.Errorf("x on the first voter: %#v", req)
	}
	for range 3 {
		m.Update(fixture.Key("down"))
	}
	if _, req := m.Update(fixture.Key("x")); req != (nav.ToggleBroker{Broker: 1}) {
		t.Errorf("x on the first observer: %#v", req)
	}
	if _, req := m.Update(fixture.Key("m")); req != (nav.MoveController{}) {
		t.Errorf("m: %#v", req)
	}
	if v := ansi.Strip(m.View()); !strings.Contains(v, "kill") && !strings.Contains(m.ShortHelp()[2].Help().Desc, "kill/restart node") {
		t.Errorf("help %q", m.ShortHelp()[2].Help().Desc)
	}
	live, _ := newModel(&source{live: r, liveOK: true, report: r}, false, 120, 16)
	run(live, live.Shown(true))
	if _, req := live.Update(fixture.Key("x")); req != nil {
		t.Errorf("x off the sandbox: %#v", req)
	}
	live.View()
	live.Update(fixture.Key("down"))
	if live.top != 1 {
		t.Errorf("down off the sandbox scrolls: top %d", live.top)
	}
}

// BenchmarkView is the tab's frame at 200×60 with the sandbox's cluster
// and with 1,000 observers (a large cluster's brokers): a frame between
// readings (the tab drawn once, cut to the window), and a frame after a
// reading (drawn again: once a second while shown).
func BenchmarkView(b *testing.B) {
	for _, n := range []int{5, 1000} {
		r := report()
		for id := 6; id <= n; id++ {
			r.Quorum.Observers = append(r.Quorum.Observers, cluster.QuorumMember{ID: id, LogEndOffset: 12_345, LastFetch: t0, LastCaughtUp: t0})
		}
		for _, read := range []bool{false, true} {
			name := fmt.Sprintf("quorum/200x60/observers=%d", n)
			if read {
				name += "/after-reading"
			}
			b.Run(name, func(b *testing.B) {
				m, _ := newModel(&source{live: r, liveOK: true, report: r}, false, 200, 60)
				run(m, m.Shown(true))
				b.ReportAllocs()
				for b.Loop() {
					if read {
						m.Update(liveMsg{r: r, ok: true})
					}
					_ = m.View()
				}
			})
		}
	}
}

// TestViewDrawsOnceBetweenReadings: a frame between readings does not
// draw the tab again (a thousand brokers' rows once a second, not once a
// frame); a reading, a key and a new size do.
func TestViewDrawsOnceBetweenReadings(t *testing.T) {
	r := report()
	m, _ := newModel(&source{live: r, liveOK: true, report: r}, false, 120, 20)
	run(m, m.Shown(true))
	first := m.View()
	drawn := m.cache
	if m.View() != first || &m.cache[0] != &drawn[0] {
		t.Error("a second frame drew the tab again")
	}
	moved := report(3002)
	moved.At = t0.Add(time.Second)
	m.Update(liveMsg{r: moved, ok: true})
	if v := ansi.Strip(m.View()); !strings.Contains(v, "follower, down") {
		t.Errorf("a reading did not show:\n%s", v)
	}
	m.Update(fixture.Key("pgdown"))
	if v := m.View(); v == first {
		t.Error("pgdown did not scroll")
	}
	m.SetSize(90, 20)
	m.View()
	for _, l := range m.cache {
		if w := ansi.StringWidth(l); w > 90 {
			t.Fatalf("after a new size of 90 columns, a line of %d: %q", w, ansi.Strip(l))
		}
	}
}
