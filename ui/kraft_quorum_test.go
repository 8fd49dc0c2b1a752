package ui

import (
	"context"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/internal/testkit/fixture"
	"github.com/ktopo/ktopo/kafkawatch"
	"github.com/ktopo/ktopo/kraftsandbox"
)

// kraftSandboxControl is the App's control over the KRaft sandbox, as
// main wires it (cmd's kraftControl).
type kraftSandboxControl struct{ c *kraftsandbox.Cluster }

func (k kraftSandboxControl) Kill(id int) error            { return k.c.Kill(id) }
func (k kraftSandboxControl) Restart(id int) error         { return k.c.Restart(id) }
func (k kraftSandboxControl) Running(id int) bool          { return k.c.Running(id) }
func (k kraftSandboxControl) MoveController() (int, error) { return k.c.MoveQuorumLeader() }
func (k kraftSandboxControl) ElectPreferred(string) (string, error) {
	return "", nil
}

// firstReport is a quorum source whose whole report is read once and then
// given again as it was: what the Quorum tab shows changing can only come
// from the polls' live quorum.
type firstReport struct {
	kafkawatch.QuorumWatch
	mu    sync.Mutex
	first *cluster.QuorumReport
}

func (f *firstReport) QuorumReport(ctx context.Context) (cluster.QuorumReport, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.first == nil {
		r, err := f.QuorumWatch.QuorumReport(ctx)
		if err != nil {
			return r, err
		}
		f.first = &r
	}
	return *f.first, nil
}

// quorumTab is the Quorum tab as drawn, without its colours.
func quorumTab(a *App) string { return ansi.Strip(a.Quorum().View()) }

// TestKRaftSandboxQuorumTab runs the shell on the KRaft sandbox (in
// process: 6 brokers, 3 controllers; polled and read over the Kafka
// protocol as ktopo --sandbox kraft does) and opens the Quorum tab: it
// lists the 3 controllers as voters (the leader starred) and the 6
// brokers as observers, the majority's sentence, the features with the
// nodes' ranges; x on the leader's row kills it, and the tab shows,
// live (from the polls: the whole report is read once), the next leader
// and the killed one down in the majority's sentence; x again restarts
// it and the sentence is whole again.
func TestKRaftSandboxQuorumTab(t *testing.T) {
	c, err := kraftsandbox.Start(kraftsandbox.Config{Brokers: 6, Racks: 3, Controllers: 3, Rand: rand.New(rand.NewPCG(1, 2))})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	d := kafkawatch.Dial{}
	if d.Bootstrap, err = kafkawatch.ParseBootstrap(c.Bootstrap()); err != nil {
		t.Fatal(err)
	}
	ctrls, err := kafkawatch.ParseBootstrap(c.ControllerBootstrap())
	if err != nil {
		t.Fatal(err)
	}
	p, err := kafkawatch.Start(d, kafkawatch.Options{Interval: 200 * time.Millisecond, Progress: true})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	a := New(Config{Source: p, KRaftQuorum: &firstReport{QuorumWatch: kafkawatch.QuorumWatch{Poller: p, Dial: d, Controllers: ctrls}}, Sandbox: kraftSandboxControl{c},
		Connect: c.Bootstrap(), Mode: ModeSandbox, Location: time.UTC})
	tm := teatest.NewTestModel(t, a, teatest.WithInitialTermSize(170, 60), teatest.WithProgramOptions(tea.WithFilter(probeFilter)))
	waitApp(t, tm, "the first load", func(a *App) bool { return a.loaded })
	send(tm, "6")
	waitApp(t, tm, "the Quorum tab", func(a *App) bool { return a.Active() == "quorum" })
	has := func(wants ...string) func(*App) bool {
		return func(a *App) bool {
			v := quorumTab(a)
			return !slices.ContainsFunc(wants, func(w string) bool { return !strings.Contains(v, w) })
		}
	}
	waitApp(t, tm, "the quorum read", has("controller 3000 (epoch 1)", "3 voters: a majority is 2, so 1 may fail.", "VOTERS 3", "OBSERVERS 6",
		"metadata.version", "on all 9 nodes asked", "6 brokers registered, none fenced"))
	var view string
	waitApp(t, tm, "the view", func(a *App) bool { view = quorumTab(a); return true })
	rows := map[string]string{}
	for _, l := range strings.Split(view, "\n") {
		if f := strings.Fields(l); len(f) > 0 {
			rows[f[0]] = l
		}
	}
	for _, id := range []string{"3000★", "3001", "3002", "1", "2", "3", "4", "5", "6"} {
		if rows[id] == "" {
			t.Errorf("no row for %s:\n%s", id, view)
		}
	}
	if !strings.Contains(rows["3000★"], "leader") || !strings.Contains(rows["3001"], "follower") || !strings.Contains(rows["3001"], "CONTROLLER://") ||
		!strings.Contains(rows["4"], "observer") {
		t.Errorf("the members' rows:\n%s", view)
	}

	// x on the first voter, the leader: killed, another leads in a later
	// epoch, and the sentence names the one down.
	send(tm, "x")
	waitApp(t, tm, "the new leader and the killed one down", has("controller 3001 (epoch 2)", "3001★",
		"3 voters: a majority is 2, so 1 may fail; with controller 3000 (never fetched from this leader) down, none may: one more failure stops the quorum.",
		"follower, down"))
	waitApp(t, tm, "the status", func(a *App) bool { s, _ := a.Status(); return strings.HasPrefix(s, "Killed controller 3000") })
	send(tm, "x")
	waitApp(t, tm, "controller 3000 back", has("controller 3001 (epoch 2)", "3 voters: a majority is 2, so 1 may fail."))
	fm := final(t, tm)
	if fm.Active() != "quorum" {
		t.Errorf("active tab %q", fm.Active())
	}
}

// TestQuorumTabKRaftOnly: a ZooKeeper cluster's shell has no Quorum tab;
// :quorum says which clusters have one, 6 does nothing, and a KRaft
// cluster's shell has the tab, saying so when it cannot read the quorum.
func TestQuorumTabKRaftOnly(t *testing.T) {
	a, _, _ := newApp(t, ModeLive)
	a.update(tea.WindowSizeMsg{Width: 120, Height: 30})
	load(a, fixture.Small())
	if strings.Contains(screen(a), "Quorum") {
		t.Errorf("a ZooKeeper cluster's header names a Quorum tab:\n%s", screen(a))
	}
	press(a, "6")
	if a.Active() != "overview" {
		t.Errorf("6 on ZooKeeper switched to %q", a.Active())
	}
	a.update(fixture.Key(":"))
	for _, k := range "quorum" {
		a.update(fixture.Key(string(k)))
	}
	a.update(fixture.Key("enter"))
	if s, isErr := a.Status(); !isErr || !strings.Contains(s, "The Quorum tab is a KRaft cluster's: this cluster runs in ZooKeeper mode") {
		t.Errorf(":quorum on ZooKeeper: %q %v", s, isErr)
	}

	k, _ := kraftApp(t, nil)
	if !strings.Contains(screen(k), "6 Quorum") {
		t.Errorf("a KRaft cluster's header lacks the Quorum tab:\n%s", screen(k))
	}
	press(k, "6")
	if k.Active() != "quorum" || !strings.Contains(screen(k), "This session does not read the quorum") {
		t.Errorf("6 on KRaft without a quorum source (%q):\n%s", k.Active(), screen(k))
	}
}
