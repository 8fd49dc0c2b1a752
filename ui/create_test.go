package ui

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
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
	"github.com/ktopo/ktopo/assign"
	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/clusterops"
	"github.com/ktopo/ktopo/clusterwatch/zksource"
	"github.com/ktopo/ktopo/internal/testkit/fixture"
	"github.com/ktopo/ktopo/internal/testkit/zktest"
	"github.com/ktopo/ktopo/sandbox"
	"github.com/ktopo/ktopo/ui/screens/create"
	"github.com/ktopo/ktopo/zkops"
	"github.com/ktopo/ktopo/zkwatch"
)

// wizardSpec is the shape of the cluster the flows run on: 6 brokers in
// 3 racks (for the App-level goldens, which need no ZooKeeper).
func wizardSpec() fixture.Spec {
	return fixture.Spec{
		ClusterID: "hDx3q9bTRmWvZ1o8cPzKXg", Brokers: 6, Racks: 3, Controller: 1, ControllerEpoch: 7, Time: 1_700_000_000_000,
		Topics: []fixture.Topic{{Name: "orders", Partitions: 6, RF: 3}, {Name: "metrics_raw", Partitions: 3, RF: 2}},
	}
}

func connectZK(t *testing.T, addr string) *zkwatch.Conn {
	t.Helper()
	conn, err := zkwatch.Connect(context.Background(), addr, zkwatch.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(conn.Close)
	return conn
}

// probeMsg evaluates a condition on the App inside the program's event
// loop (through the filter), so tests read the model without a race.
type probeMsg struct {
	cond func(*App) bool
	ch   chan bool
}

func probeFilter(m tea.Model, msg tea.Msg) tea.Msg {
	if p, ok := msg.(probeMsg); ok {
		p.ch <- p.cond(m.(*App))
		return nil
	}
	return msg
}

// waitApp waits until cond holds on the App.
func waitApp(t *testing.T, tm *teatest.TestModel, what string, cond func(*App) bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		ch := make(chan bool, 1)
		tm.Send(probeMsg{cond, ch})
		select {
		case ok := <-ch:
			if ok {
				return
			}
		case <-time.After(2 * time.Second):
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("timed out waiting for %s", what)
}

// wizard returns the creation wizard, on the stack or in the background.
func wizard(a *App) *create.Model {
	for _, s := range a.allScreens() {
		if w, ok := s.(*create.Model); ok {
			return w
		}
	}
	return nil
}

func stageIs(stage string) func(*App) bool {
	return func(a *App) bool { w := wizard(a); return w != nil && w.Stage() == stage }
}

// sandboxControl is the App's control over a sandbox cluster (as main
// wires it).
type sandboxControl struct{ c *sandbox.Cluster }

func (s sandboxControl) Kill(id int) error    { return s.c.Kill(id) }
func (s sandboxControl) Restart(id int) error { return s.c.Restart(id) }
func (s sandboxControl) MoveController() (int, error) {
	if err := s.c.MoveController(); err != nil {
		return -1, err
	}
	return s.c.ActiveController(), nil
}
func (s sandboxControl) Running(id int) bool     { return s.c.Running(id) }
func (s sandboxControl) SetPace(d time.Duration) { s.c.SetPace(d) }
func (s sandboxControl) Pace() time.Duration     { return s.c.Pace() }
func (s sandboxControl) ElectPreferred(topic string) (string, error) {
	sum, err := s.c.ElectPreferred(topic)
	return sum.String(), err
}

type createFlow struct {
	tm   *teatest.TestModel
	addr string
	conn *zkwatch.Conn // the test's own session, for checks and changes
	sb   *sandbox.Cluster
}

// startCreate runs the App on the real ZooKeeper with a sandbox cluster
// (6 brokers in 3 racks, the given pace) and one existing topic,
// metrics_raw, and waits for the App to see it.
func startCreate(t *testing.T, w, h int, pace time.Duration, mode Mode, wrap func(*zkwatch.Conn) zkops.ZK) *createFlow {
	t.Helper()
	f := &createFlow{addr: zktest.Chroot(t)}
	sb, err := sandbox.Start(context.Background(), sandbox.Config{Connect: f.addr, Brokers: 6, Racks: 3, Pace: pace})
	if err != nil {
		t.Fatal(err)
	}
	f.sb = sb
	t.Cleanup(func() { sb.Close() })
	f.conn = connectZK(t, f.addr)
	ui := connectZK(t, f.addr)
	mirror, err := zkwatch.NewMirror(ui, zksource.Shape(), zkwatch.MirrorOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { mirror.Close() })
	var writer zkops.ZK = ui
	if wrap != nil {
		writer = wrap(ui)
	}
	cfg := Config{Source: zksource.New(mirror, nil), Prober: zksource.Prober{Browser: ui}, Writer: zkops.NewWriter(writer), Mode: mode, Connect: f.addr,
		Rand: rand.New(rand.NewPCG(1, 2)), Location: time.UTC}
	if mode == ModeSandbox {
		cfg.Sandbox = sandboxControl{sb}
	}
	f.tm = teatest.NewTestModel(t, New(cfg), teatest.WithInitialTermSize(w, h), teatest.WithProgramOptions(tea.WithFilter(probeFilter)))
	waitApp(t, f.tm, "the brokers", func(a *App) bool {
		s := a.Snapshot()
		return s != nil && len(s.LiveBrokerIDs()) == 6 && s.Controller().BrokerID > 0
	})
	// An existing topic with '_', created as kafka-topics would.
	plan, err := clusterops.PlanTopic(f.snapshot(t), clusterops.TopicRequest{Name: "metrics_raw", Partitions: 3, ReplicationFactor: 2, StartIndex: 0, ReplicaShift: -1})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := zkops.NewWriter(f.conn).CreateTopic(context.Background(), plan, clusterops.Apply); err != nil {
		t.Fatal(err)
	}
	waitApp(t, f.tm, "metrics_raw online", func(a *App) bool {
		tp := a.Snapshot().Topic("metrics_raw")
		return tp != nil && a.Snapshot().TopicHealth(tp).Offline == 0 && tp.Health.Uninitialized == 0
	})
	return f
}

// snapshot reads the App's snapshot (inside the event loop).
func (f *createFlow) snapshot(t *testing.T) *cluster.Snapshot {
	var s *cluster.Snapshot
	waitApp(t, f.tm, "a snapshot", func(a *App) bool { s = a.Snapshot(); return s != nil })
	return s
}

// fillForm opens the wizard and types a name, 12 partitions and RF 3.
func (f *createFlow) fillForm(t *testing.T, name string) {
	t.Helper()
	send(f.tm, "c")
	waitApp(t, f.tm, "the wizard", stageIs("form"))
	f.tm.Type(name)
	send(f.tm, "tab", "ctrl+u")
	f.tm.Type("12")
	send(f.tm, "tab", "ctrl+u")
	f.tm.Type("3")
}

// rackBrokers are the sandbox's brokers as AdminZkClient hands them over.
func rackBrokers() []assign.Broker {
	var bs []assign.Broker
	for id := 1; id <= 6; id++ {
		bs = append(bs, assign.BR(id, sandbox.RackName((id-1)%3)))
	}
	return bs
}

// checkWritten reads the topic and config znodes and checks they hold
// the plan: the config byte for byte, the assignment exactly (the
// controller may have added a topic id since, as Kafka's does).
func (f *createFlow) checkWritten(t *testing.T, plan *clusterops.TopicPlan) {
	t.Helper()
	data, _, err := f.conn.Get(plan.TopicPath)
	if err != nil {
		t.Fatal(err)
	}
	got, err := cluster.DecodeTopicAssignment(data)
	if err != nil || !sameAssignment(got.Partitions, plan.Assignment()) || len(got.AddingReplicas) != 0 || len(got.RemovingReplicas) != 0 {
		t.Fatalf("wrote %s (%v), previewed %s", data, err, plan.TopicJSON)
	}
	cfg, _, err := f.conn.Get(plan.ConfigPath)
	if err != nil || !bytes.Equal(cfg, plan.ConfigJSON) {
		t.Fatalf("config %s (%v)", cfg, err)
	}
}

// TestFlowCreate: a 12-partition RF 3 topic on 6 brokers in 3 racks,
// created through the keys; the written assignment is the preview's and
// every partition comes online.
func TestFlowCreate(t *testing.T) {
	f := startCreate(t, 100, 30, 0, ModeLive, nil)
	f.fillForm(t, "payments")
	send(f.tm, "enter")
	waitApp(t, f.tm, "the preview", stageIs("preview"))
	send(f.tm, "enter")
	waitApp(t, f.tm, "the confirmation", stageIs("confirm"))
	send(f.tm, "y")
	waitApp(t, f.tm, "every partition online", stageIs("done"))
	fm := final(t, f.tm)
	w := fm.Focused().(*create.Model)
	plan := w.Plan()
	// The first preview's start index and shift are the first two draws.
	r := rand.New(rand.NewPCG(1, 2))
	s0, h0 := r.IntN(6), r.IntN(6)
	want, _ := assign.Assign(rackBrokers(), 12, 3, assign.Options{StartIndex: s0, ReplicaShift: h0, StartPartition: -1})
	if plan.Result.StartIndex != s0 || plan.Result.ReplicaShift != h0 || !sameAssignment(plan.Assignment(), want.Assignment) {
		t.Fatalf("plan %d/%d %v want %d/%d %v", plan.Result.StartIndex, plan.Result.ReplicaShift, plan.Assignment(), s0, h0, want.Assignment)
	}
	f.checkWritten(t, plan)
	for p := range 12 {
		if ok, _, err := f.conn.Exists(cluster.PartitionStatePath("payments", p)); !ok || err != nil {
			t.Fatalf("partition %d has no state (%v)", p, err)
		}
	}
	pr := w.Progress()
	if pr.Online != 12 || pr.InSync != 12 {
		t.Fatalf("progress %+v", pr)
	}
	out := ansi.Strip(fm.View().Content)
	for _, s := range []string{"Topic payments is online", "12/12 online · 12 in sync", "enter open topic"} {
		if !strings.Contains(out, s) {
			t.Errorf("missing %q:\n%s", s, out)
		}
	}
}

// TestFlowReroll: r changes the preview, and the written map with it.
func TestFlowReroll(t *testing.T) {
	f := startCreate(t, 100, 30, 0, ModeLive, nil)
	f.fillForm(t, "rerolled")
	send(f.tm, "enter")
	waitApp(t, f.tm, "the preview", stageIs("preview"))
	var first *clusterops.TopicPlan
	waitApp(t, f.tm, "the first plan", func(a *App) bool { first = wizard(a).Plan(); return true })
	send(f.tm, "r", "right")
	var second *clusterops.TopicPlan
	waitApp(t, f.tm, "the re-rolled plan", func(a *App) bool { second = wizard(a).Plan(); return second != first })
	if clusterops.SamePlan(first, second) {
		t.Fatal("re-rolling left the plan as it was")
	}
	send(f.tm, "enter", "enter") // the popup's focused button is Create
	waitApp(t, f.tm, "every partition online", stageIs("done"))
	fm := final(t, f.tm)
	plan := fm.Focused().(*create.Model).Plan()
	if plan != second {
		t.Fatal("the written plan is not the previewed one")
	}
	r := rand.New(rand.NewPCG(1, 2))
	s0, h0 := r.IntN(6), r.IntN(6)
	s1, h1 := r.IntN(6), r.IntN(6)
	for s1 == s0 && h1 == h0 {
		s1, h1 = r.IntN(6), r.IntN(6)
	}
	s1 = (s1 + 1) % 6
	want, _ := assign.Assign(rackBrokers(), 12, 3, assign.Options{StartIndex: s1, ReplicaShift: h1, StartPartition: -1})
	if !sameAssignment(plan.Assignment(), want.Assignment) {
		t.Fatalf("plan %v want %v", plan.Assignment(), want.Assignment)
	}
	f.checkWritten(t, plan)
}

func sameAssignment(a, b assign.Assignment) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if !slices.Equal(v, b[k]) {
			return false
		}
	}
	return true
}

// TestFlowAlreadyExists: someone else creates the topic between the
// confirmation and the write: Kafka's message, and nothing of ours written.
func TestFlowAlreadyExists(t *testing.T) {
	other := `{"version":3,"partitions":{"0":[1]},"adding_replicas":{},"removing_replicas":{}}`
	var f *createFlow
	f = startCreate(t, 100, 30, 0, ModeLive, func(c *zkwatch.Conn) zkops.ZK {
		return fixture.BeforeMulti{Conn: c, Before: func() {
			if err := zktest.CreateWith(f.conn, "/brokers/topics/raced", []byte(other)); err != nil {
				t.Error(err)
			}
		}}
	})
	f.fillForm(t, "raced")
	send(f.tm, "enter")
	waitApp(t, f.tm, "the preview", stageIs("preview"))
	send(f.tm, "enter", "y")
	waitApp(t, f.tm, "the failure", stageIs("failed"))
	fm := final(t, f.tm)
	out := ansi.Strip(fm.View().Content)
	for _, s := range []string{"Topic 'raced' already exists.", "Nothing was written"} {
		if !strings.Contains(out, s) {
			t.Errorf("missing %q:\n%s", s, out)
		}
	}
	if ok, _, _ := f.conn.Exists("/config/topics/raced"); ok {
		t.Fatal("our config znode was written")
	}
	// The other creator's assignment stands (the controller may add a
	// topic id, as Kafka's does).
	data, _, _ := f.conn.Get("/brokers/topics/raced")
	if a, err := cluster.DecodeTopicAssignment(data); err != nil || fmt.Sprint(a.Partitions) != "map[0:[1]]" {
		t.Fatalf("the other creator's topic was changed: %s", data)
	}
}

// TestFlowBrokerDies: a broker dies while the controller initialises the
// partitions; the wizard says what it waits for. The pace key slows the
// sandbox's controller down.
func TestFlowBrokerDies(t *testing.T) {
	f := startCreate(t, 120, 36, 0, ModeSandbox, nil)
	f.fillForm(t, "fragile")
	send(f.tm, "enter")
	waitApp(t, f.tm, "the preview", stageIs("preview"))
	send(f.tm, "enter")
	waitApp(t, f.tm, "the confirmation", stageIs("confirm"))
	send(f.tm, "p") // no effect before the creation
	send(f.tm, "y")
	waitApp(t, f.tm, "the progress", stageIs("progress"))
	send(f.tm, "p", "p") // 0 → 250ms → 1s: one partition at a time
	waitApp(t, f.tm, "the pace", func(a *App) bool { return f.sb.Pace() == time.Second })
	waitApp(t, f.tm, "a partition online", func(a *App) bool { return wizard(a).Progress().Online >= 1 })
	if err := f.sb.Kill(4); err != nil {
		t.Fatal(err)
	}
	send(f.tm, "p") // 1s → 3s
	send(f.tm, "p") // 3s → 0: the rest at full speed
	waitApp(t, f.tm, "every partition online", stageIs("done"))
	var out string
	waitApp(t, f.tm, "the report", func(a *App) bool {
		out = ansi.Strip(a.View().Content)
		return strings.Contains(out, "waiting for: broker 4 is not registered: partition")
	})
	fm := final(t, f.tm)
	w := fm.Focused().(*create.Model)
	if w.Progress().InSync == 12 {
		t.Fatalf("no partition lost broker 4:\n%s", out)
	}
}

// TestFlowBackground: esc during the creation leaves it running; the
// status bar follows it, then announces the outcome; the events screen
// has the record.
func TestFlowBackground(t *testing.T) {
	f := startCreate(t, 100, 30, 0, ModeLive, nil)
	f.fillForm(t, "later")
	send(f.tm, "enter")
	waitApp(t, f.tm, "the preview", stageIs("preview"))
	f.sb.SetPace(100 * time.Millisecond)
	send(f.tm, "enter", "y")
	waitApp(t, f.tm, "the progress", stageIs("progress"))
	send(f.tm, "esc")
	waitApp(t, f.tm, "the wizard in the background", func(a *App) bool { return len(a.Stack()) == 0 && len(a.Tasks()) == 1 })
	var bar string
	waitApp(t, f.tm, "the status bar", func(a *App) bool {
		bar = ansi.Strip(a.statusBar())
		return strings.Contains(bar, "Creating topic later")
	})
	send(f.tm, "4")
	waitApp(t, f.tm, "the outcome", func(a *App) bool {
		s, _ := a.Status()
		return len(a.Tasks()) == 0 && strings.HasPrefix(s, "Topic later created: all 12 partitions online")
	})
	fm := final(t, f.tm)
	created, online := 0, 0
	for i := range fm.Events().Len() {
		c := fm.Events().Entry(i).Change
		if c.Topic != "later" {
			continue
		}
		switch c.Kind {
		case cluster.ChangeTopicCreated:
			created++
		case cluster.ChangePartitionAppeared:
			online++
		}
	}
	if created != 1 || online != 12 {
		t.Fatalf("events: %d created, %d partitions online", created, online)
	}
}

// TestFlowInvalidName: Kafka's messages as typed; enter says why.
func TestFlowInvalidName(t *testing.T) {
	f := startCreate(t, 140, 30, 0, ModeLive, nil)
	send(f.tm, ":")
	f.tm.Type("create")
	send(f.tm, "enter")
	waitApp(t, f.tm, "the wizard", stageIs("form"))
	f.tm.Type("bad/name")
	send(f.tm, "enter")
	var out string
	waitApp(t, f.tm, "the message", func(a *App) bool {
		out = ansi.Strip(a.View().Content)
		return strings.Contains(out, "Cannot preview:")
	})
	want := "Topic name is invalid: 'bad/name' contains one or more characters other than ASCII alphanumerics, '.', '_' and '-'"
	if !strings.Contains(out, "   "+want) || !strings.Contains(out, "Cannot preview: "+want) {
		t.Fatalf("missing %q:\n%s", want, out)
	}
	send(f.tm, "ctrl+u")
	f.tm.Type("metrics.raw")
	waitApp(t, f.tm, "the collision", func(a *App) bool {
		out = ansi.Strip(a.View().Content)
		return strings.Contains(out, "Topic 'metrics.raw' collides with existing topics: metrics_raw")
	})
	send(f.tm, "esc") // a form typed into asks first
	waitApp(t, f.tm, "the question", func(a *App) bool {
		return strings.Contains(ansi.Strip(a.View().Content), "esc again closes the wizard")
	})
	send(f.tm, "esc")
	waitApp(t, f.tm, "the wizard closed", func(a *App) bool { return len(a.Stack()) == 0 })
	fm := final(t, f.tm)
	if len(fm.Tasks()) != 0 {
		t.Fatal("a wizard with nothing in flight stays in the background")
	}
	if ok, _, _ := f.conn.Exists("/brokers/topics/metrics.raw"); ok {
		t.Fatal("written")
	}
}

// fakeWriter records multis for the App-level tests without ZooKeeper.
type fakeWriter struct {
	mu    sync.Mutex
	multi int
}

func (w *fakeWriter) Exists(string) (bool, *zk.Stat, error) { return true, &zk.Stat{}, nil }

// Get finds no config znode (the operation wizard's throttles read them).
func (w *fakeWriter) Get(string) ([]byte, *zk.Stat, error) { return nil, nil, zk.ErrNoNode }
func (w *fakeWriter) Multi(ops ...any) ([]zk.MultiResponse, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.multi++
	return make([]zk.MultiResponse, len(ops)), nil
}

// TestCreateScreens: the wizard inside the shell, with the confirmation
// popup composited over the preview; creation disabled in read-only mode.
func TestCreateScreens(t *testing.T) {
	for _, sz := range [][2]int{{80, 24}, {200, 60}} {
		for _, tc := range []struct {
			name string
			keys []string
		}{
			{"form", []string{"c"}},
			{"preview", []string{"c", "p", "a", "y", "enter"}},
			{"confirm", []string{"c", "p", "a", "y", "enter", "enter"}},
		} {
			t.Run(fmt.Sprintf("%dx%d/%s", sz[0], sz[1], tc.name), func(t *testing.T) {
				src := newSource()
				a := New(Config{Source: src, Writer: zkops.NewWriter(&fakeWriter{}), Mode: ModeLive, Connect: "zk1:2181/kafka",
					Now: func() time.Time { return t0 }, Location: time.UTC, Rand: rand.New(rand.NewPCG(1, 2))})
				a.update(tea.WindowSizeMsg{Width: sz[0], Height: sz[1]})
				load(a, wizardSpec())
				press(a, tc.keys...)
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
	// In the form, ? and q are text; f1 opens the help, any key closes it
	// and the form keeps what was typed.
	a := New(Config{Source: newSource(), Writer: zkops.NewWriter(&fakeWriter{}), Mode: ModeLive, Connect: "zk1:2181/kafka", Now: func() time.Time { return t0 }})
	a.update(tea.WindowSizeMsg{Width: 120, Height: 40})
	load(a, wizardSpec())
	press(a, "c", "a", "?", "q")
	if a.ShowingHelp() || !strings.Contains(screen(a), "a?q") {
		t.Fatalf("? and q did not type into the name:\n%s", screen(a))
	}
	press(a, "f1")
	if !a.ShowingHelp() {
		t.Fatalf("f1 did not open the help:\n%s", screen(a))
	}
	press(a, "x")
	if a.ShowingHelp() || !strings.Contains(screen(a), "a?q") || len(a.Stack()) != 1 {
		t.Fatalf("after closing the help:\n%s", screen(a))
	}
	ro, _, _ := newApp(t, ModeReadOnly)
	ro.cfg.Writer = zkops.NewWriter(&fakeWriter{})
	ro.update(tea.WindowSizeMsg{Width: 80, Height: 24})
	load(ro, wizardSpec())
	press(ro, "c")
	if s, isErr := ro.Status(); len(ro.Stack()) != 0 || !isErr || s != "read-only mode: refusing to create a topic" {
		t.Fatalf("c in read-only mode: stack %d, status %q", len(ro.Stack()), s)
	}
	ro.status = ""
	ro.runCommand("create")
	if s, isErr := ro.Status(); !isErr || s != "read-only mode: refusing to create a topic" {
		t.Fatalf("status %q", s)
	}
}
