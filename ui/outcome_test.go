package ui

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/clusterops"
	"github.com/ktopo/ktopo/clusterwatch/zksource"
	"github.com/ktopo/ktopo/internal/testkit/fixture"
	"github.com/ktopo/ktopo/internal/testkit/zktest"
	"github.com/ktopo/ktopo/sandbox"
	"github.com/ktopo/ktopo/zkops"
	"github.com/ktopo/ktopo/zkwatch"
)

// TestFlowReplyLost: the wizard's write goes through a fault proxy that
// loses its reply, or the request itself. The wizard says the reply was
// lost, reads back once ZooKeeper answers again, and reports the real
// outcome: created exactly as previewed (then it follows the controller as
// usual), or nothing written.
func TestFlowReplyLost(t *testing.T) {
	for _, tc := range []struct {
		name    string
		fault   func(p *zktest.Proxy)
		created bool
		says    string
	}{
		{"reply", (*zktest.Proxy).HoldReplies, true, "read back after reconnecting: the topic exists exactly as previewed"},
		{"request", (*zktest.Proxy).HoldRequests, false, "read back after reconnecting: the topic does not exist. Nothing was written."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var p *zktest.Proxy
			f := startCreate(t, 120, 40, 0, ModeLive, func(c *zkwatch.Conn) zkops.ZK {
				cs := c.ConnectString()
				p = zktest.StartProxy(t, cs.Servers[0])
				w := connectVia(t, p.Addr()+cs.Chroot)
				return fixture.BeforeMulti{Conn: w, Before: func() { tc.fault(p) }}
			})
			name := "lost-" + tc.name
			f.fillForm(t, name)
			send(f.tm, "enter")
			waitApp(t, f.tm, "the preview", stageIs("preview"))
			send(f.tm, "enter", "y")
			waitApp(t, f.tm, "the lost reply", func(a *App) bool {
				s, _ := wizard(a).TaskStatus()
				return strings.Contains(s, "no reply to the write, reading back")
			})
			var out string
			waitApp(t, f.tm, "the notice", func(a *App) bool {
				out = ansi.Strip(a.View().Content)
				return strings.Contains(out, "one multi: no reply") && strings.Contains(out, "read back")
			})
			p.Cut()
			p.Pass()
			want := "failed"
			if tc.created {
				want = "done"
			}
			waitApp(t, f.tm, "the outcome", stageIs(want))
			waitApp(t, f.tm, "the outcome's note", func(a *App) bool {
				out = ansi.Strip(a.View().Content)
				return strings.Contains(strings.Join(strings.Fields(out), " "), tc.says)
			})
			ok, _, err := f.conn.Exists(cluster.TopicPath(name))
			if err != nil || ok != tc.created {
				t.Fatalf("topic exists %v (%v), want %v", ok, err, tc.created)
			}
			if tc.created {
				f.checkWritten(t, wizardPlan(t, f))
			}
		})
	}
}

// connectVia opens a session with a short request deadline, so that a
// held reply turns into an open outcome quickly.
func connectVia(t *testing.T, addr string) *zkwatch.Conn {
	t.Helper()
	c, err := zkwatch.Connect(t.Context(), addr, zkwatch.Options{RequestTimeout: 500 * time.Millisecond, Logger: zktest.NewLogger(t)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

func wizardPlan(t *testing.T, f *createFlow) *clusterops.TopicPlan {
	var pl *clusterops.TopicPlan
	waitApp(t, f.tm, "the plan", func(a *App) bool { pl = wizard(a).Plan(); return pl != nil })
	return pl
}

// TestBannerThroughFaults: the TUI's session goes through a fault proxy.
// With 200 ms of latency each way it loads and follows the cluster, no
// banner; when the server stops answering the banner says so (before
// go-zookeeper would drop the connection), and goes when it answers again;
// after connection resets the session resumes. Each time the mirror ends
// equal to the server's tree.
func TestBannerThroughFaults(t *testing.T) {
	addr := zktest.Chroot(t)
	chroot := addr[strings.Index(addr, "/"):]
	sb, err := sandbox.Start(t.Context(), sandbox.Config{Connect: addr, Brokers: 3, Racks: 3, NoAutoLeaderRebalance: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sb.Close() })
	direct := connectVia(t, addr)
	p := zktest.StartProxy(t, zktest.Addr(t))
	p.Latency(200 * time.Millisecond)
	conn, err := zkwatch.Connect(t.Context(), p.Addr()+chroot, zkwatch.Options{SessionTimeout: 20 * time.Second, Logger: zktest.NewLogger(t)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(conn.Close)
	mirror, err := zkwatch.NewMirror(conn, zksource.Shape(), zkwatch.MirrorOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { mirror.Close() })
	src := record(mirror)
	tm := teatest.NewTestModel(t, New(Config{Source: src, Mode: ModeLive, Connect: addr, Location: time.UTC}),
		teatest.WithInitialTermSize(120, 30), teatest.WithProgramOptions(tea.WithFilter(probeFilter)))
	converged := func(what string) {
		t.Helper()
		waitFor(t, what+": the mirror equals the server", func() (bool, string) {
			d := sameTree(t, mirror, direct)
			return d == "", d
		})
		waitApp(t, tm, what+": no banner", func(a *App) bool { return bannerOf(a) == "" })
	}
	waitApp(t, tm, "the brokers", func(a *App) bool { s := a.Snapshot(); return s != nil && len(s.LiveBrokerIDs()) == 3 })
	must(t, sb.Kill(2))
	waitApp(t, tm, "broker 2 gone", func(a *App) bool { return len(a.Snapshot().LiveBrokerIDs()) == 2 })
	converged("200 ms latency")
	p.Pass()

	p.Stall()
	var ban string
	waitApp(t, tm, "the not-answering banner", func(a *App) bool {
		ban = bannerOf(a)
		return strings.HasPrefix(ban, "ZooKeeper is not answering — waiting; the data shown is as of ")
	})
	if conn.State() != zkwatch.StateConnected {
		t.Fatalf("disconnected already: the banner came from go-zookeeper's timeout, not the stall")
	}
	must(t, sb.Restart(2))
	p.Pass()
	waitApp(t, tm, "broker 2 back", func(a *App) bool { return len(a.Snapshot().LiveBrokerIDs()) == 3 })
	converged("the stall")

	sid := conn.SessionID()
	for range 3 {
		p.Reset()
		must(t, conn.WaitSession(t.Context()))
	}
	must(t, sb.Kill(3))
	waitApp(t, tm, "broker 3 gone", func(a *App) bool { return len(a.Snapshot().LiveBrokerIDs()) == 2 })
	converged("resets")
	if conn.SessionID() != sid || src.resetCount() != 1 {
		t.Fatalf("session %x → %x, %d resets", sid, conn.SessionID(), src.resetCount())
	}
	t.Logf("stall banner: %s; states %v", ban, src.since(0))
}
