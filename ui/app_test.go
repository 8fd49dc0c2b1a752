package ui

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/clusterwatch/zksource"
	"github.com/ktopo/ktopo/zkops"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/charmbracelet/x/exp/teatest/v2"
	"github.com/go-zookeeper/zk"
	"github.com/ktopo/ktopo/clusterwatch"
	"github.com/ktopo/ktopo/internal/testkit/fixture"
	"github.com/ktopo/ktopo/ui/anim"
	"github.com/ktopo/ktopo/ui/screens/topic"
	"github.com/ktopo/ktopo/zkwatch"
)

var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// fakeSource is a mirror fed by the test.
type fakeSource struct {
	ch     chan zkwatch.Batch
	mu     sync.Mutex
	opened []string
	closed []string
	heard  time.Time // Stats.LastHeard
}

func newSource() *fakeSource { return &fakeSource{ch: make(chan zkwatch.Batch, 8)} }

func (s *fakeSource) Next(ctx context.Context) (clusterwatch.Batch, error) {
	select {
	case <-ctx.Done():
		return clusterwatch.Batch{}, ctx.Err()
	case b, ok := <-s.ch:
		if !ok {
			return clusterwatch.Batch{}, clusterwatch.ErrClosed
		}
		return zksource.FromMirrorBatch(b), nil
	}
}
func (s *fakeSource) Stats() clusterwatch.Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return clusterwatch.Stats{LastHeard: s.heard, Counts: []clusterwatch.Count{{N: 96, Unit: "znodes"}, {N: 120, Unit: "watches"}}}
}
func (s *fakeSource) MirroredNodes() int       { return 96 }
func (s *fakeSource) Backend() cluster.Backend { return cluster.ViaZooKeeper }
func (s *fakeSource) Server() string           { return "zk1:2181" }
func (s *fakeSource) Close() error             { return nil }

// mirrorBatch is a mirror's batch as the App receives it.
func mirrorBatch(b zkwatch.Batch) batchMsg { return batchMsg(zksource.FromMirrorBatch(b)) }
func (s *fakeSource) OpenSubtree(p string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.opened = append(s.opened, p)
	return nil
}
func (s *fakeSource) CloseSubtree(p string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = append(s.closed, p)
	return nil
}

// fakeBrowser answers probes with fixed listings. The first fired
// listings of / come with a watch that has fired already, as if / changed
// at once.
type fakeBrowser struct{ fired atomic.Int32 }

func (b *fakeBrowser) ChildrenW(p string) ([]string, *zk.Stat, <-chan zk.Event, error) {
	if p == "/" {
		w := make(chan zk.Event, 1)
		if b.fired.Add(-1) >= 0 {
			w <- zk.Event{Type: zk.EventNodeChildrenChanged, Path: "/"}
		}
		return []string{"admin", "brokers", "cluster", "config", "controller", "controller_epoch", "zookeeper"}, &zk.Stat{NumChildren: 7}, w, nil
	}
	return nil, nil, nil, zk.ErrNoNode
}
func (b *fakeBrowser) Get(p string) ([]byte, *zk.Stat, error) { return nil, &zk.Stat{}, nil }

// fakeSandbox records actions.
type fakeSandbox struct {
	mu      sync.Mutex
	actions []string
	running map[int]bool
	pace    time.Duration
	moveTo  int // the broker MoveController says took over (0: it fails)
}

func (f *fakeSandbox) log(s string) { f.mu.Lock(); f.actions = append(f.actions, s); f.mu.Unlock() }
func (f *fakeSandbox) Kill(id int) error {
	f.log(fmt.Sprint("kill ", id))
	f.mu.Lock()
	f.running[id] = false
	f.mu.Unlock()
	return nil
}
func (f *fakeSandbox) Restart(id int) error { f.log(fmt.Sprint("restart ", id)); return nil }
func (f *fakeSandbox) KillTogether(ids ...int) error {
	f.log(fmt.Sprint("kill together ", ids))
	f.mu.Lock()
	for _, id := range ids {
		f.running[id] = false
	}
	f.mu.Unlock()
	return nil
}
func (f *fakeSandbox) ElectPreferred(t string) (string, error) {
	f.log("elect " + t)
	return "3 elected", nil
}
func (f *fakeSandbox) MoveController() (int, error) {
	f.log("move")
	if f.moveTo > 0 {
		return f.moveTo, nil
	}
	return -1, errors.New("no other broker")
}
func (f *fakeSandbox) SetPace(d time.Duration) {
	f.log("pace " + d.String())
	f.mu.Lock()
	f.pace = d
	f.mu.Unlock()
}
func (f *fakeSandbox) Pace() time.Duration { f.mu.Lock(); defer f.mu.Unlock(); return f.pace }
func (f *fakeSandbox) Running(id int) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.running[id]
}

func newApp(t testing.TB, mode Mode) (*App, *fakeSource, *fakeSandbox) {
	src := newSource()
	sb := &fakeSandbox{running: map[int]bool{1: true, 2: true, 3: true, 4: true, 5: true}}
	cfg := Config{Source: src, Prober: zksource.Prober{Browser: &fakeBrowser{}}, Connect: "zk1:2181/kafka", Mode: mode,
		Now: func() time.Time { return t0 }, Location: time.UTC}
	if mode == ModeSandbox {
		cfg.Sandbox = sb
	}
	return New(cfg), src, sb
}

// load feeds the fixture through the App as the mirror would.
func load(a *App, spec fixture.Spec) {
	for _, b := range spec.Batches() {
		run(a, mirrorBatch(b))
	}
}

// run sends msg and runs the resulting commands synchronously (one level
// of follow-up messages), skipping the batch re-arm and ticks.
func run(a *App, msg tea.Msg) []tea.Msg {
	cmd := a.update(msg)
	var out []tea.Msg
	for _, m := range fixture.Run(cmd) {
		out = append(out, m)
		switch m.(type) {
		case batchMsg, batchReadyMsg, sourceClosedMsg, anim.FrameMsg, clearStatusMsg:
			continue
		}
		out = append(out, run(a, m)...)
	}
	return out
}

func press(a *App, keys ...string) {
	for _, k := range keys {
		run(a, fixture.Key(k))
	}
}

func screen(a *App) string { return ansi.Strip(a.View().Content) }

func TestWaitForBatchRearms(t *testing.T) {
	a, src, _ := newApp(t, ModeLive)
	a.update(tea.WindowSizeMsg{Width: 80, Height: 24})
	spec := fixture.Small()
	b := spec.Batches()
	cmd := a.update(mirrorBatch(b[0]))
	src.ch <- b[1]
	msgs := fixture.Run(cmd)
	found := false
	for _, m := range msgs {
		if _, ok := m.(batchReadyMsg); ok {
			found = len(a.handoff) == 1 && len((<-a.handoff).Events) == len(b[1].Events)
		}
	}
	if !found {
		t.Fatalf("the batch command must re-arm the receive: %v", msgs)
	}
	close(src.ch)
	if got := waitForBatch(src, a.handoff)(); got != (sourceClosedMsg{}) {
		t.Fatalf("closed source: %v", got)
	}
	a.update(sourceClosedMsg{})
	if !strings.Contains(screen(a), "connection closed") {
		t.Fatal("a closed mirror says so")
	}
}

func TestScreensGetDataWhetherFocusedOrNot(t *testing.T) {
	a, _, _ := newApp(t, ModeLive)
	a.update(tea.WindowSizeMsg{Width: 80, Height: 24})
	load(a, fixture.Small())
	if a.Snapshot() == nil || len(a.Topics().Rows()) != 6 {
		t.Fatalf("topics screen got %v while hidden", a.Topics().Rows())
	}
	if a.Events().Len() != 1 { // broker 6 left after the load
		t.Fatalf("events: %d", a.Events().Len())
	}
}

func TestNavigation(t *testing.T) {
	a, _, _ := newApp(t, ModeLive)
	a.update(tea.WindowSizeMsg{Width: 80, Height: 24})
	load(a, fixture.Small())
	press(a, "2")
	if a.Active() != "topics" {
		t.Fatalf("2: tab %s", a.Active())
	}
	press(a, "j", "j", "enter") // clicks
	tp, ok := a.Focused().(*topic.Model)
	if !ok || tp.Name() != "clicks" {
		t.Fatalf("enter opens the topic: %T", a.Focused())
	}
	press(a, "esc")
	if len(a.Stack()) != 0 || a.Active() != "topics" {
		t.Fatal("esc goes back to the list")
	}
	press(a, "/", "q") // q is text while filtering, not quit
	if rows := a.Topics().Rows(); len(rows) != 0 {
		t.Fatalf("filter q: %v", rows)
	}
	press(a, "esc", "esc")
	if a.Active() != "overview" {
		t.Fatalf("esc from a tab goes to the overview: %s", a.Active())
	}
	press(a, "enter")
	if b, ok := a.Focused().(interface{ ID() int }); !ok || b.ID() != 1 {
		t.Fatalf("enter on a broker lists its partitions: %T", a.Focused())
	}
	press(a, "enter")
	if tp, ok := a.Focused().(*topic.Model); !ok || tp.Name() != "__consumer_offsets" || tp.Cursor() != 0 {
		t.Fatalf("enter on a broker's partition opens it: %T", a.Focused())
	}
	press(a, "4")
	if len(a.Stack()) != 0 || a.Active() != "events" {
		t.Fatal("a tab key clears the stack")
	}
	press(a, "?")
	if !a.ShowingHelp() {
		t.Fatal("? shows help")
	}
	press(a, "j")
	if a.ShowingHelp() {
		t.Fatal("any key closes help")
	}
}

// TestEscIsBack: esc goes back to the view shown before, as in k9s and
// lazygit: a number key shows its tab at the root, and esc from there
// returns to the view left, its drill-down (and crumb) with it; at a
// tab's root esc goes to the tab shown before, not to the overview; with
// none before, it does nothing.
func TestEscIsBack(t *testing.T) {
	a, _, _ := newApp(t, ModeLive)
	a.update(tea.WindowSizeMsg{Width: 120, Height: 30})
	load(a, fixture.Small())
	header := func() string { return strings.Split(screen(a), "\n")[0] }
	press(a, "2", "enter") // the topics list's first topic
	tp, ok := a.Focused().(*topic.Model)
	if !ok {
		t.Fatalf("enter: %T", a.Focused())
	}
	crumb := "› " + tp.Title()
	press(a, "3")
	if a.Active() != "tree" || strings.Contains(header(), crumb) {
		t.Fatalf("3: %s\n%s", a.Active(), header())
	}
	press(a, "esc")
	if a.Active() != "topics" || a.Focused() != tp || !strings.Contains(header(), crumb) {
		t.Fatalf("esc from the tree: %s %T\n%s", a.Active(), a.Focused(), header())
	}
	press(a, "esc")
	if a.Active() != "topics" || len(a.Stack()) != 0 {
		t.Fatalf("esc from the topic: %s, %d pushed", a.Active(), len(a.Stack()))
	}
	press(a, "4", "3", "esc")
	if a.Active() != "events" {
		t.Fatalf("4 3 esc: %s", a.Active())
	}
	press(a, "esc", "esc")
	if a.Active() != "overview" {
		t.Fatalf("back to the first tab: %s", a.Active())
	}
	press(a, "esc")
	if a.Active() != "overview" || len(a.Stack()) != 0 {
		t.Fatalf("esc with nothing before: %s", a.Active())
	}
	// A tab's own key goes to its root.
	press(a, "2", "enter", "2")
	if a.Active() != "topics" || len(a.Stack()) != 0 {
		t.Fatalf("2 on the topics tab: %d pushed", len(a.Stack()))
	}
	// A number key shows the tab's root; the drill-down left is esc's.
	press(a, "enter", "1", "2")
	if a.Active() != "topics" || len(a.Stack()) != 0 {
		t.Fatalf("1 2: %d pushed", len(a.Stack()))
	}
	press(a, "esc", "esc")
	if _, ok := a.Focused().(*topic.Model); !ok || a.Active() != "topics" {
		t.Fatalf("esc esc: %s %T", a.Active(), a.Focused())
	}
}

func TestCommandLine(t *testing.T) {
	a, _, _ := newApp(t, ModeLive)
	a.update(tea.WindowSizeMsg{Width: 80, Height: 24})
	load(a, fixture.Small())
	for _, tc := range []struct {
		line string
		tab  string
	}{{"topics", "topics"}, {"tree", "tree"}, {"e", "events"}, {"overview", "overview"}} {
		press(a, ":")
		for _, r := range tc.line {
			press(a, string(r))
		}
		press(a, "enter")
		if a.Active() != tc.tab {
			t.Fatalf(":%s → tab %s", tc.line, a.Active())
		}
	}
	press(a, ":", "t", "o", "p", "i", "c", "space", "o", "r", "d", "e", "r", "s", "enter")
	if tp, ok := a.Focused().(*topic.Model); !ok || tp.Name() != "orders" {
		t.Fatalf(":topic orders: %T", a.Focused())
	}
	press(a, ":", "c", "r", "e", "a", "t", "e", "enter")
	if s, isErr := a.Status(); !isErr || !strings.Contains(s, "not available") {
		t.Fatalf(":create: %q", s)
	}
	press(a, ":", "x", "y", "z", "enter")
	if s, _ := a.Status(); !strings.Contains(s, "unknown command :xyz") {
		t.Fatalf("unknown: %q", s)
	}
	// A topic that never existed is said to be missing, plainly.
	n := len(a.Stack())
	press(a, ":", "t", "o", "p", "i", "c", "space", "o", "r", "d", "enter")
	if s, isErr := a.Status(); !isErr || s != "There is no topic ord in this cluster (tab completes topic names after :topic)." {
		t.Fatalf(":topic ord: %q", s)
	}
	if len(a.Stack()) != n {
		t.Fatal(":topic ord opened a screen")
	}
	press(a, "c")
	if len(a.Stack()) != 1 {
		t.Fatal("c is disabled without a writer")
	}
	if out := run(a, fixture.Key(":")); out != nil {
		_ = out
	}
	for _, r := range "q" {
		press(a, string(r))
	}
	if msgs := run(a, fixture.Key("enter")); !slices.ContainsFunc(msgs, func(m tea.Msg) bool { _, ok := m.(tea.QuitMsg); return ok }) {
		t.Fatalf(":q quits: %v", msgs)
	}
}

// TestCommandCompletion: tab completes the command, then after ":topic "
// the topic's name; ctrl+n goes to the next match.
func TestCommandCompletion(t *testing.T) {
	a, _, _ := newApp(t, ModeLive)
	a.update(tea.WindowSizeMsg{Width: 120, Height: 30})
	load(a, fixture.Small())
	press(a, ":", "t", "o", "tab")
	if v := a.cmd.Value(); v != "topics" {
		t.Fatalf(":to<tab> = %q", v)
	}
	press(a, "esc", ":", "t", "o", "ctrl+n", "tab")
	if v := a.cmd.Value(); v != "topic" {
		t.Fatalf(":to<ctrl+n><tab> = %q", v)
	}
	press(a, "tab", "p", "tab")
	if v := a.cmd.Value(); v != "topic payments" {
		t.Fatalf(":topic<tab>p<tab> = %q", v)
	}
	press(a, "enter")
	if tp, ok := a.Focused().(*topic.Model); !ok || tp.Name() != "payments" {
		t.Fatalf("enter: %T", a.Focused())
	}
	press(a, ":", "t", "o", "p", "i", "c", "space", "o", "tab")
	if v := a.cmd.Value(); v != "topic orders" {
		t.Fatalf(":topic o<tab> = %q", v)
	}
	if got := a.completions("topic "); len(got) != len(a.snap.Topics()) {
		t.Fatalf("every topic completes after \":topic \": %v", got)
	}
}

func TestConnectionBanner(t *testing.T) {
	a, _, _ := newApp(t, ModeLive)
	a.update(tea.WindowSizeMsg{Width: 100, Height: 24})
	if !strings.Contains(screen(a), "Connecting to ZooKeeper") {
		t.Fatal("before the first batch")
	}
	load(a, fixture.Small())
	if s := screen(a); strings.Contains(s, "⚠") {
		t.Fatalf("loaded and connected: no banner\n%s", s)
	}
	run(a, batchMsg{States: []clusterwatch.State{clusterwatch.StateDisconnected}})
	s := screen(a)
	if !strings.Contains(s, "Disconnected from ZooKeeper") || !strings.Contains(s, "as of 03:04:05") {
		t.Fatalf("disconnected:\n%s", s)
	}
	if lines := strings.Count(s, "\n"); lines != 23 {
		t.Fatalf("the banner must not push the screen past the window: %d lines", lines+1)
	}
	run(a, batchMsg{States: []clusterwatch.State{clusterwatch.StateConnecting, clusterwatch.StateSessionLost, clusterwatch.StateConnected}})
	if !strings.Contains(screen(a), "session expired — resyncing") {
		t.Fatal("expired: resyncing until the reload")
	}
	run(a, mirrorBatch(fixture.Small().Batches()[0]))
	if strings.Contains(screen(a), "⚠") {
		t.Fatal("the reload clears the banner")
	}
}

func TestSandboxActions(t *testing.T) {
	a, _, sb := newApp(t, ModeSandbox)
	a.update(tea.WindowSizeMsg{Width: 80, Height: 24})
	load(a, fixture.Small())
	press(a, "x")
	press(a, "p")
	press(a, "m")
	want := []string{"kill 1", "elect ", "move"}
	if !slices.Equal(sb.actions, want) {
		t.Fatalf("actions %v", sb.actions)
	}
	if s, isErr := a.Status(); !isErr || s != "no other broker" {
		t.Fatalf("status %q %v", s, isErr)
	}
	sb.moveTo = 3
	press(a, "m")
	if s, isErr := a.Status(); isErr || s != "The controller moved to broker 3." {
		t.Fatalf("status %q %v", s, isErr)
	}
	// Outside the sandbox the keys do nothing.
	b, _, sb2 := newApp(t, ModeLive)
	b.update(tea.WindowSizeMsg{Width: 80, Height: 24})
	load(b, fixture.Small())
	press(b, "x", "p", "m")
	if len(sb2.actions) != 0 {
		t.Fatal("sandbox keys outside the sandbox")
	}
}

// TestPaceInKeyOrder: quick presses of the wizard's pace key reach the
// sandbox in the order they were made (the shell sets the pace in the
// Update that handled the key).
func TestPaceInKeyOrder(t *testing.T) {
	sb := &fakeSandbox{running: map[int]bool{}}
	a := New(Config{Source: newSource(), Writer: zkops.NewWriter(&fakeWriter{}), Sandbox: sb, Mode: ModeSandbox, Connect: "zk1:2181/kafka",
		Now: func() time.Time { return t0 }, Location: time.UTC, Rand: rand.New(rand.NewPCG(1, 2))})
	a.update(tea.WindowSizeMsg{Width: 100, Height: 30})
	load(a, wizardSpec())
	press(a, "c", "p", "a", "y", "enter", "enter", "y")
	if w := wizard(a); w == nil || w.Stage() != "progress" {
		t.Fatalf("the wizard is not creating: %v", w)
	}
	press(a, "p", "p", "p", "p", "p")
	want := []string{"pace 250ms", "pace 1s", "pace 3s", "pace 0s", "pace 250ms"}
	if !slices.Equal(sb.actions, want) {
		t.Fatalf("paces %v, want %v", sb.actions, want)
	}
	if s, _ := a.Status(); s != "Sandbox pace: 250ms per controller step." {
		t.Fatalf("status %q", s)
	}
}

func TestTreeRequests(t *testing.T) {
	src := newSource()
	br := &fakeBrowser{}
	br.fired.Store(1) // the first listing of / is re-probed while visible
	a := New(Config{Source: src, Prober: zksource.Prober{Browser: br}, Connect: "zk1:2181/kafka", Mode: ModeLive, Now: func() time.Time { return t0 }, Location: time.UTC})
	a.update(tea.WindowSizeMsg{Width: 80, Height: 24})
	load(a, fixture.Small())
	press(a, "3")
	if !slices.Contains(a.Tree().Rows(), "/zookeeper") {
		t.Fatalf("the root probe lists /zookeeper: %v", a.Tree().Rows())
	}
	i := slices.Index(a.Tree().Rows(), "/zookeeper")
	for range i {
		press(a, "j")
	}
	press(a, "l")
	press(a, "1") // leaving the tree closes the subtree
	src.mu.Lock()
	defer src.mu.Unlock()
	if !slices.Equal(src.opened, []string{"/zookeeper"}) || !slices.Equal(src.closed, []string{"/zookeeper"}) {
		t.Fatalf("opened %v closed %v", src.opened, src.closed)
	}
}

func TestFlashOnChange(t *testing.T) {
	a, _, _ := newApp(t, ModeLive)
	a.update(tea.WindowSizeMsg{Width: 80, Height: 24})
	spec := fixture.Small()
	load(a, spec)
	press(a, ":", "t", "o", "p", "i", "c", "space", "o", "r", "d", "e", "r", "s", "enter")
	st := spec.State(&spec.Topics[0], 0)
	st.Leader, st.ISR, st.LeaderEpoch = 2, []int{2, 3}, 3
	cmd := a.update(mirrorBatch(zkwatch.Batch{Events: []zkwatch.Event{fixture.StateEvent("orders", 0, st, 900, t0.UnixMilli())}}))
	if cmd == nil || !a.Anims().Ticking() {
		t.Fatal("a change starts the animation clock")
	}
	golden.RequireEqual(t, screen(a))
	a.update(anim.FrameMsg{Time: t0.Add(time.Hour), Gen: 1})
	if a.Anims().Ticking() || a.Anims().Len() != 0 {
		t.Fatal("the clock stops when nothing animates")
	}
}

func TestAppView(t *testing.T) {
	for _, sz := range [][2]int{{80, 24}, {200, 60}} {
		for _, tc := range []struct {
			name string
			mode Mode
			keys []string
		}{
			{"overview", ModeSandbox, nil},
			{"topics", ModeLive, []string{"2"}},
			{"topic", ModeReadOnly, []string{"2", "j", "j", "j", "j", "enter"}},
			{"broker", ModeLive, []string{"enter"}},
			{"tree", ModeLive, []string{"3"}},
			{"events", ModeLive, []string{"4"}},
			{"help", ModeSandbox, []string{"?"}},
			{"command", ModeLive, []string{":", "t"}},
		} {
			t.Run(fmt.Sprintf("%dx%d/%s", sz[0], sz[1], tc.name), func(t *testing.T) {
				a, _, _ := newApp(t, tc.mode)
				a.update(tea.WindowSizeMsg{Width: sz[0], Height: sz[1]})
				load(a, fixture.Small())
				press(a, tc.keys...)
				out := screen(a)
				if n := strings.Count(out, "\n") + 1; n != sz[1] {
					t.Fatalf("%d lines, want %d", n, sz[1])
				}
				for i, l := range strings.Split(out, "\n") {
					if w := ansi.StringWidth(l); w > sz[0] {
						t.Fatalf("line %d is %d columns wide: %q", i, w, l)
					}
				}
				golden.RequireEqual(t, out)
			})
		}
	}
}

func TestNoColor(t *testing.T) {
	src := newSource()
	a := New(Config{Source: src, NoColor: true, Mode: ModeLive, Now: func() time.Time { return t0 }, Location: time.UTC})
	a.update(tea.WindowSizeMsg{Width: 80, Height: 24})
	load(a, fixture.Small())
	a.update(tea.BackgroundColorMsg{})
	out := a.View().Content
	if strings.Contains(out, "38;2;") || strings.Contains(out, "48;2;") || strings.Contains(out, "38;5;") {
		t.Fatal("NO_COLOR: colour escapes in the output")
	}
}

// frameProbe asks the program filter to record the frame count.
type frameProbe struct{}

// framed counts the App's frames: the renderer's View calls.
type framed struct {
	*App
	frames atomic.Int64
}

func (f *framed) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	_, cmd := f.App.Update(msg)
	return f, cmd
}

func (f *framed) View() tea.View {
	f.frames.Add(1)
	return f.App.View()
}

// TestIdleRendersNothing: with nothing animating the App schedules no
// ticks, so Bubble Tea renders no frames while the cluster is quiet.
func TestIdleRendersNothing(t *testing.T) {
	app, src, _ := newApp(t, ModeLive)
	a := &framed{App: app}
	var mu sync.Mutex
	var frames []int64
	filter := func(m tea.Model, msg tea.Msg) tea.Msg {
		if _, ok := msg.(frameProbe); ok {
			mu.Lock()
			frames = append(frames, m.(*framed).frames.Load())
			mu.Unlock()
		}
		return msg
	}
	tm := teatest.NewTestModel(t, a, teatest.WithInitialTermSize(80, 24), teatest.WithProgramOptions(tea.WithFilter(filter)))
	for _, b := range fixture.Small().Batches() {
		src.ch <- b
	}
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return bytes.Contains(b, []byte("rack-a")) },
		teatest.WithDuration(5*time.Second))
	time.Sleep(300 * time.Millisecond)
	tm.Send(frameProbe{})
	time.Sleep(1500 * time.Millisecond)
	tm.Send(frameProbe{})
	tm.Send(tea.KeyPressMsg{Code: 'q', Text: "q"})
	tm.WaitFinished(t, teatest.WithFinalTimeout(5*time.Second))
	mu.Lock()
	defer mu.Unlock()
	// The second probe itself may cost one frame; an idle 1.5 s costs none.
	if len(frames) != 2 || frames[1]-frames[0] > 1 {
		t.Fatalf("frames during 1.5 idle seconds: %v", frames)
	}
	t.Logf("frames at idle over 1.5 s: %d", frames[1]-frames[0])
}
