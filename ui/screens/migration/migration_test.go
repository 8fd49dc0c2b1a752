package migration

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
	"github.com/ktopo/ktopo/internal/testkit/clustertest"
	"github.com/ktopo/ktopo/internal/testkit/fixture"
	"github.com/ktopo/ktopo/ui/keys"
	"github.com/ktopo/ktopo/ui/theme"
)

// scenario is a cluster in one phase of a migration, built as Kafka 3.9.2
// writes it (see cluster's migration tests), with the clock of the radar.
type scenario struct {
	t   testing.TB
	z   *clustertest.FakeZK
	m   *cluster.Model
	now time.Time
}

func migrationJSON(id, epoch int, offset int64) string {
	me := epoch
	if offset < 0 {
		me = -1
	}
	return string(cluster.EncodeMigration(cluster.MigrationState{KRaftControllerID: id, KRaftControllerEpoch: epoch, KRaftMetadataOffset: offset, KRaftMetadataEpoch: me}))
}

// newScenario: brokers 1-3 (racks a, b, c) registered, ZooKeeper controller
// 3 at epoch 1, topics "zk-era" (with a topic id, 3 partitions) and
// "legacy" (no topic id, a replica on broker 7, never registered).
func newScenario(t testing.TB) *scenario {
	z := clustertest.NewFakeZK()
	evs := []cluster.NodeEvent{
		z.Create(cluster.ClusterIDPath, string(cluster.EncodeClusterID("MkU3OEVBNTcwNTJENDM2Qk"))),
		z.Create(cluster.ControllerEpochPath, "1"),
		z.Create(cluster.ControllerPath, string(cluster.EncodeController(cluster.NewControllerInfo(2, 3, 1_700_000_000_000)))),
	}
	for id, rack := range map[int]string{1: "rack-a", 2: "rack-b", 3: "rack-c"} {
		evs = append(evs, z.Create(cluster.BrokerIDPath(id), clustertest.BrokerJSON(id, rack)))
	}
	evs = append(evs,
		z.Create(cluster.TopicPath("zk-era"), string(cluster.EncodeTopicAssignment(cluster.NewTopicAssignment(map[int][]int{0: {2, 3, 1}, 1: {3, 1, 2}, 2: {1, 2, 3}}, "9QSMDPyRQKKnWaWh9SWWOg")))),
		z.Create(cluster.PartitionStatePath("zk-era", 0), clustertest.StateJSON(1, 2, 0, 2, 3, 1)),
		z.Create(cluster.PartitionStatePath("zk-era", 1), clustertest.StateJSON(1, 3, 0, 3, 1, 2)),
		z.Create(cluster.PartitionStatePath("zk-era", 2), clustertest.StateJSON(1, 1, 0, 1, 2, 3)),
		z.Create(cluster.TopicPath("legacy"), clustertest.TopicJSON(map[int][]int{0: {1, 7}})),
		z.Create(cluster.PartitionStatePath("legacy", 0), clustertest.StateJSON(1, 1, 0, 1)),
	)
	m := cluster.NewModel(cluster.ModelOptions{})
	m.Apply(evs, true)
	return &scenario{t: t, z: z, m: m, now: time.UnixMilli(1_700_000_001_000)}
}

func (sc *scenario) apply(evs ...cluster.NodeEvent) { sc.m.Apply(evs, false) }

// to steps the cluster to a phase, writing what Kafka 3.9.2 writes.
func (sc *scenario) to(phase string) {
	z := sc.z
	switch phase {
	case "waiting-for-brokers":
		sc.apply(z.Create(cluster.MigrationPath, migrationJSON(-1, -1, -1)))
	case "dual-write":
		sc.to("waiting-for-brokers")
		sc.apply(
			z.Set(cluster.ControllerEpochPath, "4"),
			z.Del(cluster.ControllerPath),
			z.Create(cluster.ControllerPath, string(cluster.EncodeController(cluster.ControllerInfo{Version: 2, BrokerID: 3000, Timestamp: "1700000000500", KRaftControllerEpoch: 1}))),
			z.Set(cluster.MigrationPath, migrationJSON(3000, 1, -1)),
			z.Set(cluster.MigrationPath, migrationJSON(3000, 1, 33)),
		)
	case "brokers-on-kraft":
		sc.to("dual-write")
		sc.apply(
			z.Del(cluster.BrokerIDPath(1)), z.Del(cluster.BrokerIDPath(2)), z.Del(cluster.BrokerIDPath(3)),
			z.Set(cluster.PartitionStatePath("zk-era", 0), clustertest.StateJSON(1, 3, 7, 3, 2)),
			z.Set(cluster.PartitionStatePath("zk-era", 1), clustertest.StateJSON(1, 3, 7, 3, 1)),
			z.Set(cluster.MigrationPath, migrationJSON(3000, 1, 110)),
		)
	case "reverted":
		sc.apply(z.Create(cluster.MigrationPath, migrationJSON(3000, 1, 1234)))
	}
	if mg := sc.m.Snapshot().Migration(); mg.Present {
		sc.now = time.UnixMilli(mg.Mtime + 400)
	}
}

func (sc *scenario) screen(w, h int) *Model {
	m := New(theme.New(true), keys.Default(), func() time.Time { return sc.now }, time.UTC)
	m.SetSize(w, h)
	m.SetSnapshot(sc.m.Snapshot())
	return m
}

func TestView(t *testing.T) {
	for _, sz := range [][2]int{{80, 24}, {200, 60}} {
		for _, tc := range []struct {
			name, phase string
			later       time.Duration // the clock moved on, no snapshot since
		}{
			{"none", "", 0},
			{"waiting", "waiting-for-brokers", 0},
			{"dual-write", "dual-write", 0},
			{"sync-stopped", "dual-write", 6 * time.Second},
			{"brokers-on-kraft", "brokers-on-kraft", 0},
			{"finalized", "brokers-on-kraft", time.Minute},
			{"reverted", "reverted", 0},
		} {
			t.Run(fmt.Sprintf("%dx%d/%s", sz[0], sz[1], tc.name), func(t *testing.T) {
				sc := newScenario(t)
				sc.to(tc.phase)
				m := sc.screen(sz[0], sz[1])
				m.Shown(true)
				sc.now = sc.now.Add(tc.later)
				m.Update(tickMsg{gen: m.gen})
				v := m.View()
				if got := m.Status().Phase.String(); tc.phase != "" && !strings.HasPrefix(tc.name, "sync") && tc.name != "finalized" && got != tc.phase {
					t.Errorf("phase %s, want %s", got, tc.phase)
				}
				for i, l := range strings.Split(v, "\n") {
					if w := ansi.StringWidth(l); w > sz[0] {
						t.Fatalf("line %d is %d wide: %q", i, w, ansi.Strip(l))
					}
				}
				golden.RequireEqual(t, ansi.Strip(v))
			})
		}
	}
}

// TestTickFlagsStoppedSync: while shown, the radar judges again every
// second without any new snapshot: a sync that stopped is flagged once
// the offset has stood still for cluster.SyncStalledAfter.
func TestTickFlagsStoppedSync(t *testing.T) {
	sc := newScenario(t)
	sc.to("dual-write")
	m := sc.screen(80, 24)
	if cmd := m.Shown(true); cmd == nil {
		t.Fatal("shown without a tick")
	}
	for i := 0; i < 5; i++ {
		sc.now = sc.now.Add(time.Second)
		if _, ok := m.Status().Hazard(cluster.HazardSyncStopped); ok {
			t.Fatalf("flagged after %ds", i)
		}
		if cmd, _ := m.Update(tickMsg{gen: m.gen}); cmd == nil {
			t.Fatal("the tick chain stopped")
		}
	}
	if _, ok := m.Status().Hazard(cluster.HazardSyncStopped); !ok {
		t.Fatalf("not flagged after 5s: %+v", m.Status())
	}
	if !strings.Contains(ansi.Strip(m.View()), "stopped: the offset has not moved for 5.") {
		t.Errorf("view:\n%s", ansi.Strip(m.View()))
	}
	// A new offset: live again.
	sc.apply(sc.z.Set(cluster.MigrationPath, migrationJSON(3000, 1, 40)))
	m.SetSnapshot(sc.m.Snapshot())
	if _, ok := m.Status().Hazard(cluster.HazardSyncStopped); ok {
		t.Errorf("still flagged once the offset moved")
	}
	// Hidden, the chain ends; a tick of an earlier showing is dropped.
	old := m.gen
	m.Shown(false)
	if cmd, _ := m.Update(tickMsg{gen: old}); cmd != nil {
		t.Errorf("a hidden radar ticks")
	}
}

// TestQuorumLag: with a quorum asker (ktopo --bootstrap-controller) the
// shown radar asks the KRaft quorum once a second, one question at a time,
// and shows how far ZooKeeper lags KRaft; a failed question says why; no
// question before a migration.
func TestQuorumLag(t *testing.T) {
	sc := newScenario(t)
	m := sc.screen(120, 24)
	asked := 0
	answer := func() (cluster.KRaftQuorum, error) {
		return cluster.KRaftQuorum{LeaderID: 3000, LeaderEpoch: 1, HighWatermark: 40, Voters: []int{3000}}, nil
	}
	m.SetQuorumAsker(func(context.Context) (cluster.KRaftQuorum, error) { asked++; return answer() })
	// run answers the question a message's commands hold, when the
	// screen put one out (the batch's last command; the tick before it
	// is left unrun).
	run := func(cmd tea.Cmd) {
		t.Helper()
		if !m.asking {
			return
		}
		b, ok := cmd().(tea.BatchMsg)
		if !ok || len(b) == 0 {
			t.Fatalf("asking, and no question in the commands")
		}
		m.Update(b[len(b)-1]())
	}
	run(m.Shown(true))
	if asked != 0 {
		t.Fatalf("asked %d times before any migration", asked)
	}
	sc.to("dual-write")
	m.SetSnapshot(sc.m.Snapshot())
	cmd, _ := m.Update(tickMsg{gen: m.gen})
	run(cmd)
	if asked != 1 {
		t.Fatalf("asked %d times in one tick", asked)
	}
	if st := m.Status(); !st.LagKnown || st.Lag != 6 {
		t.Fatalf("lag %d known %v, want 6 records (high watermark 40, offset 33)", st.Lag, st.LagKnown)
	}
	if v := ansi.Strip(m.View()); !strings.Contains(v, "lag              6 records behind KRaft (high watermark 40; quorum leader 3000") {
		t.Errorf("view:\n%s", v)
	}
	// While a question is out, a tick asks no other.
	m.asking = true
	m.Update(tickMsg{gen: m.gen}) // its tick is left unrun
	if asked != 1 {
		t.Errorf("asked again with a question out")
	}
	m.asking = false
	answer = func() (cluster.KRaftQuorum, error) {
		return cluster.KRaftQuorum{}, errors.New("kraft1:9093: connection refused")
	}
	cmd, _ = m.Update(tickMsg{gen: m.gen})
	run(cmd)
	if v := ansi.Strip(m.View()); !strings.Contains(v, "unknown: kraft1:9093: connection refused") {
		t.Errorf("a failed question not said:\n%s", v)
	}
}

// TestScroll: a radar taller than the screen scrolls with the list keys
// and says how much more there is.
func TestScroll(t *testing.T) {
	sc := newScenario(t)
	sc.to("brokers-on-kraft")
	m := sc.screen(80, 8)
	first := ansi.Strip(m.View())
	if !strings.Contains(first, "more line") {
		t.Fatalf("no hint of more:\n%s", first)
	}
	fixture.Press(m, "G")
	last := ansi.Strip(m.View())
	if last == first || strings.Contains(last, "more line") {
		t.Fatalf("bottom:\n%s", last)
	}
	fixture.Press(m, "g")
	if ansi.Strip(m.View()) != first {
		t.Fatal("g did not go back to the top")
	}
	m.Update(tea.MouseWheelMsg{Button: tea.MouseWheelDown})
	if ansi.Strip(m.View()) == first {
		t.Fatal("the wheel did not scroll")
	}
}

func BenchmarkView(b *testing.B) {
	for _, n := range []int{100, 10_000, 100_000} {
		spec := fixture.Sized(n)
		model := spec.Model()
		// Taken over by a KRaft controller: the radar's costliest phase.
		model.Apply([]cluster.NodeEvent{
			{Type: cluster.NodeCreated, Path: cluster.MigrationPath, Data: []byte(migrationJSON(3000, 1, 500)), Stat: cluster.Stat{Czxid: 1 << 40, Mzxid: 1 << 40, Mtime: 1}},
			{Type: cluster.NodeChanged, Path: cluster.ControllerPath, Data: cluster.EncodeController(cluster.ControllerInfo{Version: 2, BrokerID: 3000, Timestamp: "1", KRaftControllerEpoch: 1}), Stat: cluster.Stat{Czxid: 1<<40 + 1, Mzxid: 1<<40 + 1}},
		}, false)
		snap := model.Snapshot()
		for _, sz := range [][2]int{{200, 60}, {80, 24}} {
			b.Run(fmt.Sprintf("migration/%dx%d/partitions=%d", sz[0], sz[1], n), func(b *testing.B) {
				if testing.Short() && n > 10_000 {
					b.Skip("large fixture skipped under -short")
				}
				m := New(theme.New(true), keys.Default(), time.Now, time.UTC)
				m.SetSize(sz[0], sz[1])
				m.SetSnapshot(snap)
				m.View()
				b.ReportAllocs()
				for b.Loop() {
					_ = m.View()
				}
			})
		}
		b.Run(fmt.Sprintf("migration/assess/partitions=%d", n), func(b *testing.B) {
			if testing.Short() && n > 10_000 {
				b.Skip("large fixture skipped under -short")
			}
			m := New(theme.New(true), keys.Default(), time.Now, time.UTC)
			m.SetSize(200, 60)
			b.ReportAllocs()
			for b.Loop() {
				m.SetSnapshot(snap) // a new snapshot every frame: assessed again
				_ = m.View()
			}
		})
	}
}
