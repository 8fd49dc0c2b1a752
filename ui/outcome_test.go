package ui

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/internal/fixture"
	"github.com/ktopo/ktopo/internal/zktest"
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
			f := startCreate(t, 120, 40, 0, ModeLive, func(c *zkwatch.Conn) cluster.ZK {
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

func wizardPlan(t *testing.T, f *createFlow) *cluster.TopicPlan {
	var pl *cluster.TopicPlan
	waitApp(t, f.tm, "the plan", func(a *App) bool { pl = wizard(a).Plan(); return pl != nil })
	return pl
}
