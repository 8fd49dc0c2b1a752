package ui

import (
	"context"
	"fmt"
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/charmbracelet/x/exp/teatest/v2"
	"github.com/go-zookeeper/zk"
	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/clusterops"
	"github.com/ktopo/ktopo/internal/testkit/fixture"
	"github.com/ktopo/ktopo/ui/screens/operate"
	"github.com/ktopo/ktopo/zkops"
	"github.com/ktopo/ktopo/zkwatch"
)

// drainer returns the operation wizard, on the stack or in the background.
func drainer(a *App) *operate.Model {
	for _, s := range a.allScreens() {
		if w, ok := s.(*operate.Model); ok {
			return w
		}
	}
	return nil
}

func drainStageIs(stage string) func(*App) bool {
	return func(a *App) bool { w := drainer(a); return w != nil && w.Stage() == stage }
}

// TestDrainScreens: the drain wizard inside the shell (the popup
// composited over the preview) at both sizes; read-only mode refuses it
// with the command line's words.
func TestDrainScreens(t *testing.T) {
	for _, sz := range [][2]int{{80, 24}, {200, 60}} {
		for _, tc := range []struct {
			name string
			keys []string
		}{
			{"preview", []string{"right", "right", "d"}},
			{"confirm", []string{"right", "right", "d", "enter"}},
			{"leading", []string{"right", "right", "d", "enter", "y"}},
			{"progress", []string{"right", "right", "d", "L", "enter", "y"}},
			{"background", []string{"right", "right", "d", "L", "enter", "y", "esc"}},
		} {
			t.Run(fmt.Sprintf("%dx%d/%s", sz[0], sz[1], tc.name), func(t *testing.T) {
				a := New(Config{Source: newSource(), Writer: zkops.NewWriter(&fakeWriter{}), Mode: ModeLive, Connect: "zk1:2181/kafka",
					Now: func() time.Time { return t0 }, Location: time.UTC, Rand: rand.New(rand.NewPCG(1, 2))})
				a.update(tea.WindowSizeMsg{Width: sz[0], Height: sz[1]})
				load(a, wizardSpec())
				press(a, tc.keys...)
				if w := drainer(a); w == nil || w.Operation().Broker != 3 || (tc.name == "progress" && w.Stage() != "progress") {
					t.Fatalf("wizard %v", w)
				}
				if tc.name == "background" && (len(a.Stack()) != 0 || len(a.Tasks()) != 1 || !strings.Contains(screen(a), "⟳ Draining broker 3: 0/5 partitions")) {
					t.Fatalf("not in the background: stack %d, tasks %d\n%s", len(a.Stack()), len(a.Tasks()), screen(a))
				}
				out := screen(a)
				if n := strings.Count(out, "\n") + 1; n != sz[1] {
					t.Fatalf("%d lines", n)
				}
				for i, l := range strings.Split(out, "\n") {
					if w := ansi.StringWidth(l); w > sz[0] {
						t.Fatalf("line %d is %d wide: %q", i, w, l)
					}
				}
				golden.RequireEqual(t, out)
			})
		}
	}
	ro, _, _ := newApp(t, ModeReadOnly)
	ro.cfg.Writer = zkops.NewWriter(&fakeWriter{})
	ro.update(tea.WindowSizeMsg{Width: 80, Height: 24})
	load(ro, wizardSpec())
	press(ro, "d")
	if s, isErr := ro.Status(); len(ro.Stack()) != 0 || !isErr || s != "read-only mode: refusing to drain broker 1 (f shows what losing it would do)" {
		t.Fatalf("read-only: stack %d, status %q", len(ro.Stack()), s)
	}
	press(ro, "c")
	if s, isErr := ro.Status(); len(ro.Stack()) != 0 || !isErr || s != "read-only mode: refusing to create a topic" {
		t.Fatalf("read-only c: stack %d, status %q", len(ro.Stack()), s)
	}
	for k, want := range map[string]string{"R": "read-only mode: refusing to reassign topic metrics_raw", "a": "read-only mode: refusing to add partitions to topic metrics_raw",
		"e": "read-only mode: refusing to alter the configs of topic metrics_raw", "p": "read-only mode: refusing to start a preferred leader election"} {
		press(ro, "2", "enter", k)
		if s, isErr := ro.Status(); len(ro.Stack()) != 1 || !isErr || s != want {
			t.Fatalf("read-only %s: stack %d, status %q", k, len(ro.Stack()), s)
		}
	}
}

// recordingWriter is the App's session, recording every multi it sends
// and, when before is set, what it returns just before each.
type recordingWriter struct {
	*zkwatch.Conn
	mu     sync.Mutex
	ops    [][]any
	before func() string
	state  []string
	// hold, when set, keeps each multi's answer from its caller until it
	// is closed (the multi itself is written).
	hold chan struct{}
}

func (w *recordingWriter) Multi(ops ...any) ([]zk.MultiResponse, error) {
	w.mu.Lock()
	w.ops = append(w.ops, zkops.WithoutGuardCheck(ops))
	if w.before != nil {
		w.state = append(w.state, w.before())
	}
	hold := w.hold
	w.mu.Unlock()
	res, err := w.Conn.Multi(ops...)
	if hold != nil {
		<-hold
	}
	return res, err
}

// zkState reads, from ZooKeeper itself, the partitions topics' partitions
// broker leads and those whose replicas are not the ones of orig (topic
// → partition → replicas; nil: record it).
func zkState(t *testing.T, c *zkwatch.Conn, broker int, topics []string, orig map[string]map[int][]int) string {
	var led, changed []string
	for _, name := range topics {
		data, _, err := c.Get(cluster.TopicPath(name))
		if err != nil {
			t.Error(err)
			return ""
		}
		a, err := cluster.DecodeTopicAssignment(data)
		if err != nil {
			t.Error(err)
			return ""
		}
		if orig[name] == nil {
			orig[name] = a.Partitions
		}
		for p, rs := range a.Partitions {
			if !slices.Equal(slices.Sorted(slices.Values(rs)), slices.Sorted(slices.Values(orig[name][p]))) || len(a.AddingReplicas) > 0 {
				changed = append(changed, fmt.Sprintf("%s-%d %v", name, p, rs))
			}
			sd, _, err := c.Get(cluster.PartitionStatePath(name, p))
			if err != nil {
				continue
			}
			if st, err := cluster.DecodePartitionState(sd); err == nil && st.Leader == broker {
				led = append(led, fmt.Sprintf("%s-%d", name, p))
			}
		}
	}
	slices.Sort(led)
	slices.Sort(changed)
	return fmt.Sprintf("led by %d: %v; replicas not the original ones: %v", broker, led, changed)
}

// TestFlowDrain: on the sandbox (real ZooKeeper), `d` on broker 3's card,
// the exact znodes (`w`), enter, y: the leadership step first (a reorder
// of the partitions broker 3 leads as their preferred replica, then their
// preferred election), then the drain's reassignment; what is written is
// what `w` showed, in its order; when the drain's multi is sent broker 3
// leads nothing and no topic znode has a replica added; esc leaves the
// drain to the background with the status bar following it, and at the
// end broker 3 holds no replica in ZooKeeper.
func TestFlowDrain(t *testing.T) {
	var rec *recordingWriter
	f := startCreate(t, 120, 40, 0, ModeSandbox, func(c *zkwatch.Conn) zkops.ZK {
		rec = &recordingWriter{Conn: c}
		return rec
	})
	createOrders(t, f)
	topics := []string{"orders", "metrics_raw"}
	orig := map[string]map[int][]int{}
	if st := zkState(t, f.conn, 3, topics, orig); !strings.Contains(st, "led by 3: [") || strings.Contains(st, "led by 3: []") {
		t.Fatalf("broker 3 leads nothing to begin with: %s", st)
	}
	rec.mu.Lock()
	rec.before = func() string { return zkState(t, f.conn, 3, topics, orig) }
	rec.mu.Unlock()
	send(f.tm, "right", "right")
	waitApp(t, f.tm, "broker 3 selected", func(a *App) bool { id, ok := a.Overview().Selected(); return ok && id == 3 })
	send(f.tm, "d")
	waitApp(t, f.tm, "the preview", drainStageIs("preview"))
	var lead *clusterops.LeadershipFirst
	waitApp(t, f.tm, "leaders first", func(a *App) bool {
		g, err := clusterops.PlanDrain(a.Snapshot(), clusterops.DrainRequest{Broker: 3, Strategy: clusterops.StrategyMinimal})
		if err != nil {
			return false
		}
		lead = clusterops.PlanLeadershipFirst(a.Snapshot(), 3, g.Moves(clusterops.StrategyMinimal))
		return !lead.Empty() && strings.Contains(screen(a), "first: ") && strings.Contains(screen(a), " move off broker 3")
	})
	send(f.tm, "w")
	var shown [][]string
	waitApp(t, f.tm, "the exact znodes", func(a *App) bool { shown = drainer(a).Written(); return shown != nil })
	send(f.tm, "w", "enter")
	waitApp(t, f.tm, "the confirmation", drainStageIs("confirm"))
	send(f.tm, "y")
	waitApp(t, f.tm, "the reassignment written", func(a *App) bool {
		w := drainer(a)
		return w != nil && (w.Stage() == "writing" || w.Stage() == "progress" || w.Stage() == "done")
	})
	send(f.tm, "esc")
	waitApp(t, f.tm, "the drain done in the background", func(a *App) bool {
		s, _ := a.Status()
		return len(a.Stack()) == 0 && len(a.Tasks()) == 0 && strings.Contains(s, "Drained broker 3")
	})
	rec.mu.Lock()
	written, states := slices.Clone(rec.ops), slices.Clone(rec.state)
	rec.mu.Unlock()
	steps := len(shown)
	if len(lead.Reorder) == 0 || steps != 3 || len(written) != steps {
		t.Fatalf("wrote %d multis, w showed %d steps (%d reordered)", len(written), steps, len(lead.Reorder))
	}
	for i := range steps - 1 {
		if got := zkops.DescribeOps(written[i]); !slices.Equal(got, shown[i]) {
			t.Fatalf("multi %d:\n%s\nw showed:\n%s", i, strings.Join(got, "\n"), strings.Join(shown[i], "\n"))
		}
	}
	// The drain's multi: its request as w showed it (its checks are of the
	// topic versions after the reorder).
	data, last := zkops.DescribeOps(written[steps-1]), shown[steps-1]
	if data[len(data)-1] != last[len(last)-1] {
		t.Fatalf("the drain wrote %s, w showed %s", data[len(data)-1], last[len(last)-1])
	}
	if want := "led by 3: []; replicas not the original ones: []"; states[steps-1] != want {
		t.Fatalf("when the drain was written: %s, want %s", states[steps-1], want)
	}
	// ZooKeeper itself: no topic lists broker 3, no reassignment is left.
	for _, name := range topics {
		data, _, err := f.conn.Get(cluster.TopicPath(name))
		if err != nil {
			t.Fatal(err)
		}
		a, err := cluster.DecodeTopicAssignment(data)
		if err != nil {
			t.Fatal(err)
		}
		for p, rs := range a.Partitions {
			if slices.Contains(rs, 3) || len(rs) == 0 {
				t.Fatalf("%s-%d replicas %v", name, p, rs)
			}
		}
		if len(a.AddingReplicas) != 0 || len(a.RemovingReplicas) != 0 {
			t.Fatalf("%s still reassigning: %s", name, data)
		}
	}
	if ok, _, _ := f.conn.Exists(cluster.ReassignPartitionsPath); ok {
		t.Fatal("/admin/reassign_partitions is still there")
	}
	fm := final(t, f.tm)
	if b, _ := fm.Snapshot().Broker(3); b.Replicas != 0 {
		t.Fatalf("broker 3 holds %d replicas", b.Replicas)
	}
}

// TestDrainProduction: on a production context the confirmation asks for
// the broker's id to be typed; another word writes nothing and the
// popup stays open saying so, until the right one is typed.
func TestDrainProduction(t *testing.T) {
	w := &fakeWriter{}
	a := New(Config{Source: newSource(), Writer: zkops.NewWriter(w), Mode: ModeLive, Production: true, Context: "prod", Connect: "zk1:2181/kafka",
		Now: func() time.Time { return t0 }, Location: time.UTC, Rand: rand.New(rand.NewPCG(1, 2))})
	a.update(tea.WindowSizeMsg{Width: 100, Height: 30})
	load(a, wizardSpec())
	press(a, "right", "right", "d", "enter", "y", "q")
	if d := drainer(a); d == nil || d.Stage() != "confirm" || !strings.Contains(screen(a), "Production cluster: type 3 to confirm") {
		t.Fatalf("y or q acted in the production confirmation:\n%s", screen(a))
	}
	press(a, "ctrl+u", "4", "enter")
	if d := drainer(a); w.multi != 0 || d.Stage() != "confirm" || !strings.Contains(screen(a), "Not written: “4” is not 3.") {
		t.Fatalf("typed 4: %d multis, stage %s\n%s", w.multi, d.Stage(), screen(a))
	}
	press(a, "backspace", "3", "enter")
	// Written: the leadership step's first multi (the reorder).
	if w.multi != 1 || drainer(a).Stage() != "writing" {
		t.Fatalf("typed 3: %d multis, stage %s", w.multi, drainer(a).Stage())
	}
}

// TestFlowChangeRF: on the sandbox (real ZooKeeper), R on topic
// metrics_raw (RF 2), + to 3, t (10 MiB/s), enter, y: every partition
// ends with three replicas in three racks, in ZooKeeper, each keeping its
// two; the throttles written with the reassignment are removed once it
// is done, by a second multi, and no throttle config is left.
func TestFlowChangeRF(t *testing.T) {
	var rec *recordingWriter
	f := startCreate(t, 120, 40, 0, ModeSandbox, func(c *zkwatch.Conn) zkops.ZK {
		rec = &recordingWriter{Conn: c}
		return rec
	})
	before := f.snapshot(t).Topic("metrics_raw")
	send(f.tm, ":")
	f.tm.Type("topic metrics_raw")
	send(f.tm, "enter")
	waitApp(t, f.tm, "the topic", func(a *App) bool { return strings.Contains(a.Focused().Title(), "metrics_raw") })
	send(f.tm, "R")
	waitApp(t, f.tm, "the preview", drainStageIs("preview"))
	send(f.tm, "+")
	waitApp(t, f.tm, "RF 3", func(a *App) bool {
		return strings.Contains(screen(a), "replication factor 2 → 3") && strings.Contains(screen(a), "3 partitions move")
	})
	send(f.tm, "t")
	waitApp(t, f.tm, "the throttle", func(a *App) bool { return strings.Contains(screen(a), "throttle 10 MiB/s") })
	send(f.tm, "enter", "y")
	waitApp(t, f.tm, "the reassignment done", drainStageIs("done"))
	waitApp(t, f.tm, "the throttles removed", func(a *App) bool {
		return strings.Contains(strings.Join(strings.Fields(ansi.Strip(a.View().Content)), " "), "; throttles removed from brokers ")
	})
	rec.mu.Lock()
	written := slices.Clone(rec.ops)
	rec.mu.Unlock()
	if len(written) != 2 || !strings.Contains(strings.Join(zkops.DescribeOps(written[0]), "\n"), `"follower.replication.throttled.replicas":"`) {
		t.Fatalf("%d multis, the first:\n%s", len(written), strings.Join(zkops.DescribeOps(written[0]), "\n"))
	}
	for _, entity := range []string{"brokers/1", "brokers/2", "brokers/3", "brokers/4", "brokers/5", "brokers/6", "topics/metrics_raw"} {
		if data, _, err := f.conn.Get("/config/" + entity); err != nil || strings.Contains(string(data), "throttled") {
			t.Fatalf("/config/%s: %s (%v)", entity, data, err)
		}
	}
	data, _, err := f.conn.Get(cluster.TopicPath("metrics_raw"))
	if err != nil {
		t.Fatal(err)
	}
	a, err := cluster.DecodeTopicAssignment(data)
	if err != nil {
		t.Fatal(err)
	}
	snap := f.snapshot(t)
	for _, p := range before.Partitions {
		rs := a.Partitions[p.ID]
		racks := map[string]bool{}
		for _, r := range rs {
			b, _ := snap.Broker(r)
			racks[b.Rack] = true
		}
		if len(rs) != 3 || len(racks) != 3 || !slices.Equal(rs[:1], p.Replicas[:1]) || !slices.Contains(rs, p.Replicas[1]) {
			t.Fatalf("metrics_raw-%d: %v → %v (%s)", p.ID, p.Replicas, rs, data)
		}
	}
	if len(a.AddingReplicas) != 0 || len(a.RemovingReplicas) != 0 {
		t.Fatalf("still reassigning: %s", data)
	}
	final(t, f.tm)
}

// TestFlowAddPartitions: on the sandbox (real ZooKeeper), a on topic
// metrics_raw (3 partitions), − down to 5, enter, y: ZooKeeper holds the
// topic znode kafka-topics --alter --partitions 5 would write, and the
// new partitions come online.
func TestFlowAddPartitions(t *testing.T) {
	f := startCreate(t, 120, 40, 0, ModeSandbox, nil)
	want, err := clusterops.PlanAddPartitions(f.snapshot(t), clusterops.AddPartitionsRequest{Topic: "metrics_raw", Partitions: 5})
	if err != nil {
		t.Fatal(err)
	}
	send(f.tm, ":")
	f.tm.Type("topic metrics_raw")
	send(f.tm, "enter")
	waitApp(t, f.tm, "the topic", func(a *App) bool { return strings.Contains(a.Focused().Title(), "metrics_raw") })
	send(f.tm, "a")
	waitApp(t, f.tm, "the preview", drainStageIs("preview"))
	send(f.tm, "-")
	waitApp(t, f.tm, "5 partitions", func(a *App) bool { return strings.Contains(screen(a), "3 → 5 partitions") })
	send(f.tm, "enter", "y")
	waitApp(t, f.tm, "the new partitions online", drainStageIs("done"))
	data, _, err := f.conn.Get(cluster.TopicPath("metrics_raw"))
	if err != nil {
		t.Fatal(err)
	}
	got, err := cluster.DecodeTopicAssignment(data)
	if err != nil {
		t.Fatal(err)
	}
	wantA, _ := cluster.DecodeTopicAssignment(want.TopicJSON)
	if fmt.Sprint(got.Partitions) != fmt.Sprint(wantA.Partitions) {
		t.Fatalf("wrote %s, kafka-topics would write %s", data, want.TopicJSON)
	}
	for p := 3; p < 5; p++ {
		if ok, _, err := f.conn.Exists(cluster.PartitionStatePath("metrics_raw", p)); !ok || err != nil {
			t.Fatalf("partition %d has no state (%v)", p, err)
		}
	}
	final(t, f.tm)
}

// TestFlowElection: on a real cluster's ZooKeeper (the sandbox's brokers,
// the TUI in live mode), broker 1 restarted so that others lead its
// partitions; p, enter, y: the znode is written, the controller elects,
// and every partition is led by its preferred replica again.
func TestFlowElection(t *testing.T) {
	f := startCreate(t, 120, 40, 0, ModeLive, nil)
	if err := f.sb.Kill(1); err != nil {
		t.Fatal(err)
	}
	waitApp(t, f.tm, "broker 1 down", func(a *App) bool { return !a.Snapshot().IsLive(1) })
	if err := f.sb.Restart(1); err != nil {
		t.Fatal(err)
	}
	waitApp(t, f.tm, "broker 1 back in sync", func(a *App) bool {
		s := a.Snapshot()
		return s.IsLive(1) && s.Health().UnderReplicated == 0
	})
	plan, err := clusterops.PlanPreferredElection(f.snapshot(t), clusterops.ElectionRequest{All: true})
	if err != nil || plan.Count(clusterops.ElectionWillMove) == 0 {
		t.Fatalf("nothing to elect (%v)", err)
	}
	send(f.tm, "p")
	waitApp(t, f.tm, "the preview", drainStageIs("preview"))
	send(f.tm, "enter", "y")
	waitApp(t, f.tm, "the election done", drainStageIs("done"))
	fm := final(t, f.tm)
	s := fm.Snapshot()
	for _, tp := range s.Topics() {
		for _, p := range tp.Partitions {
			if p.Leader != p.Replicas[0] {
				t.Fatalf("%s-%d led by %d, preferred %d", tp.Name, p.ID, p.Leader, p.Replicas[0])
			}
		}
	}
	if ok, _, _ := f.conn.Exists(cluster.PreferredReplicaElectionPath); ok {
		t.Fatal("the election znode is still there")
	}
}

// TestFlowConfigs: on the sandbox (real ZooKeeper), e on topic
// metrics_raw, retention.ms=3600000, enter, y: the config znode and its
// change notification written, and the screen says so once the mirror
// shows the override.
func TestFlowConfigs(t *testing.T) {
	f := startCreate(t, 120, 40, 0, ModeSandbox, nil)
	send(f.tm, ":")
	f.tm.Type("topic metrics_raw")
	send(f.tm, "enter")
	waitApp(t, f.tm, "the topic", func(a *App) bool { return strings.Contains(a.Focused().Title(), "metrics_raw") })
	send(f.tm, "e")
	waitApp(t, f.tm, "the editor", func(a *App) bool { w := drainer(a); return w != nil && a.capturing() })
	send(f.tm, "ctrl+u")
	f.tm.Type("retention.ms=3600000")
	send(f.tm, "enter")
	waitApp(t, f.tm, "the planned change", func(a *App) bool { return !a.capturing() })
	send(f.tm, "enter", "y")
	waitApp(t, f.tm, "written", drainStageIs("done"))
	data, _, err := f.conn.Get("/config/topics/metrics_raw")
	if err != nil {
		t.Fatal(err)
	}
	if c, err := cluster.DecodeEntityConfig(data); err != nil || len(c.Config) != 1 || c.Config[0].Key != "retention.ms" || c.Config[0].Value != "3600000" {
		t.Fatalf("config %s (%v)", data, err)
	}
	kids, _, err := f.conn.Children(cluster.ConfigChangesPath)
	if err != nil || len(kids) == 0 {
		t.Fatalf("no change notification (%v)", err)
	}
	final(t, f.tm)
}

// TestMixedRF: a topic whose partitions have different replication
// factors says so in the topics list, on its screen and in R's preview,
// which keeps every partition's.
func TestMixedRF(t *testing.T) {
	a := New(Config{Source: newSource(), Writer: zkops.NewWriter(&fakeWriter{}), Mode: ModeLive, Connect: "zk1:2181/kafka",
		Now: func() time.Time { return t0 }, Location: time.UTC, Rand: rand.New(rand.NewPCG(1, 2))})
	a.update(tea.WindowSizeMsg{Width: 120, Height: 40})
	load(a, wizardSpec())
	tp := a.Snapshot().Topic("orders")
	asg := cluster.TopicAssignment{Version: 3, Partitions: map[int][]int{}, TopicID: tp.ID}
	for _, p := range tp.Partitions {
		asg.Partitions[p.ID] = p.Replicas
	}
	asg.Partitions[0] = tp.Partitions[0].Replicas[:2]
	data := cluster.EncodeTopicAssignment(asg)
	run(a, mirrorBatch(zkwatch.Batch{Events: []zkwatch.Event{{Type: zkwatch.Changed, Path: cluster.TopicPath("orders"), Data: data,
		Stat: &zk.Stat{Czxid: 1, Mzxid: 1 << 30, Version: tp.ZkVersion + 1, DataLength: int32(len(data))}}}}))
	press(a, "2")
	if out := screen(a); !regexp.MustCompile(`orders +6 +2–3 `).MatchString(out) {
		t.Fatalf("the topics list:\n%s", out)
	}
	a.runCommand("topic orders")
	if out := screen(a); !strings.Contains(out, "Topic orders") || !strings.Contains(out, "RF 2–3 (mixed)") {
		t.Fatalf("the topic screen:\n%s", out)
	}
	press(a, "R")
	if out := screen(a); !strings.Contains(out, "replication factor 2–3 (mixed") {
		t.Fatalf("R:\n%s", out)
	}
}

// TestQuitAsks: q while a drain is between its steps asks first, naming
// what is left; n stays, y (or ctrl+c again) quits. With nothing left, q
// quits at once.
func TestQuitAsks(t *testing.T) {
	a := written(&fakeWriter{}, "d", "enter", "y")(t)
	if w := drainer(a); w == nil || w.Stage() != "writing" {
		t.Fatalf("not between steps: %v", w)
	}
	if cmd := a.update(fixture.Key("q")); cmd != nil || !strings.Contains(screen(a), "Quit now?") ||
		!strings.Contains(strings.Join(strings.Fields(screen(a)), " "), "is between its steps") {
		t.Fatalf("q did not ask:\n%s", screen(a))
	}
	if !strings.Contains(screen(a), "y quit • n/esc stay") {
		t.Fatalf("the footer does not say the answers:\n%s", screen(a))
	}
	press(a, "x", "n")
	if strings.Contains(screen(a), "Quit now?") || drainer(a) == nil {
		t.Fatalf("n did not stay:\n%s", screen(a))
	}
	a.update(fixture.Key("ctrl+c"))
	if cmd := a.update(fixture.Key("ctrl+c")); cmd == nil {
		t.Fatal("ctrl+c twice did not quit")
	} else if _, ok := cmd().(tea.QuitMsg); !ok {
		t.Fatal("ctrl+c twice did not quit")
	}
	b := fullApp(&fakeWriter{}, wizardSpec())
	if cmd := b.update(fixture.Key("q")); cmd == nil {
		t.Fatal("q with nothing left did not quit")
	}
}

// TestFlowQuitDuringDrain: on the sandbox (real ZooKeeper, the
// controller slowed), q during a drain's leaders-first step asks, y
// closes the TUI, and Finish finishes the step it started (the election
// written once the controller reordered the replicas) without writing
// the drain: broker 3 keeps its replicas and leads none of the step's
// partitions; what is left says how to drain it.
func TestFlowQuitDuringDrain(t *testing.T) {
	var rec *recordingWriter
	f := startCreate(t, 120, 40, 0, ModeSandbox, func(c *zkwatch.Conn) zkops.ZK {
		rec = &recordingWriter{Conn: c}
		return rec
	})
	createOrders(t, f)
	f.sb.SetPace(time.Second) // the reorder takes a while: the TUI quits between the steps
	// The reorder's answer is held until the TUI has closed: it never
	// reaches the wizard, and Finish goes on from what the cluster shows.
	hold := make(chan struct{})
	rec.mu.Lock()
	rec.hold = hold
	rec.mu.Unlock()
	send(f.tm, "right", "right")
	waitApp(t, f.tm, "broker 3 selected", func(a *App) bool { id, ok := a.Overview().Selected(); return ok && id == 3 })
	send(f.tm, "d")
	waitApp(t, f.tm, "the preview", func(a *App) bool { return strings.Contains(screen(a), " move off broker 3 to ") })
	send(f.tm, "enter", "y")
	waitApp(t, f.tm, "the reorder written", func(a *App) bool {
		rec.mu.Lock()
		defer rec.mu.Unlock()
		return len(rec.ops) == 1
	})
	send(f.tm, "q")
	waitApp(t, f.tm, "the question", func(a *App) bool { return strings.Contains(screen(a), "Quit now?") })
	send(f.tm, "y")
	fm := f.tm.FinalModel(t, teatest.WithFinalTimeout(5*time.Second)).(*App)
	close(hold)
	f.sb.SetPace(0)
	left := strings.Join(fm.Finish(context.Background(), 30*time.Second), "\n")
	if !strings.Contains(left, "its leaders-first step is done") || !strings.Contains(left, "To drain it: d on broker 3 in ktopo.") {
		t.Fatalf("left: %s", left)
	}
	rec.mu.Lock()
	written := slices.Clone(rec.ops)
	rec.mu.Unlock()
	if len(written) != 2 || !strings.Contains(strings.Join(zkops.DescribeOps(written[1]), "\n"), cluster.PreferredReplicaElectionPath) {
		t.Fatalf("%d multis after closing (want the reorder and the election)", len(written))
	}
	// ZooKeeper: the controller elects; broker 3 keeps its replicas.
	deadline := time.Now().Add(20 * time.Second)
	for {
		st := zkState(t, f.conn, 3, []string{"orders", "metrics_raw"}, map[string]map[int][]int{})
		if strings.HasPrefix(st, "led by 3: [];") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("broker 3 still leads: %s", st)
		}
		time.Sleep(100 * time.Millisecond)
	}
	data, _, err := f.conn.Get(cluster.TopicPath("orders"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), "3") {
		t.Fatalf("orders lost broker 3: %s", data)
	}
	a, err := cluster.DecodeTopicAssignment(data)
	if err != nil {
		t.Fatal(err)
	}
	held := 0
	for _, rs := range a.Partitions {
		if slices.Contains(rs, 3) {
			held++
		}
	}
	if held == 0 {
		t.Fatal("the drain was written")
	}
}

// createOrders creates topic orders (12 partitions, RF 3, placed from
// broker 1: broker 3 leads some) as kafka-topics would, and waits until
// the TUI shows it online and in sync.
func createOrders(t *testing.T, f *createFlow) {
	t.Helper()
	plan, err := clusterops.PlanTopic(f.snapshot(t), clusterops.TopicRequest{Name: "orders", Partitions: 12, ReplicationFactor: 3, StartIndex: 0, ReplicaShift: 0})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := zkops.NewWriter(f.conn).CreateTopic(context.Background(), plan, clusterops.Apply); err != nil {
		t.Fatal(err)
	}
	waitApp(t, f.tm, "orders online", func(a *App) bool {
		tp := a.Snapshot().Topic("orders")
		return tp != nil && a.Snapshot().TopicHealth(tp).Offline == 0 && tp.Health.Uninitialized == 0 && tp.Health.UnderReplicated == 0
	})
}
