package cmd

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/clusterops"
	"github.com/ktopo/ktopo/clusterwatch/zksource"
	"github.com/ktopo/ktopo/internal/testkit/fixture"
	"github.com/ktopo/ktopo/internal/testkit/zktest"
	"github.com/ktopo/ktopo/zkops"
	"github.com/ktopo/ktopo/zkwatch"
)

// TestCreateNoReply: topics create's write gets no reply (a fault proxy
// holds the reply, or the request, then cuts the connection). The command
// says so, finds out, and reports the real outcome: created (exit 0) or
// not created, nothing written (an error).
func TestCreateNoReply(t *testing.T) {
	addr := seed(t)
	chroot := addr[strings.Index(addr, "/"):]
	direct := connectTest(t, addr)
	s, err := zksource.Load(context.Background(), direct, cluster.ModelOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		fault   func(*zktest.Proxy)
		created bool
		say     string
	}{
		{"held-reply", (*zktest.Proxy).HoldReplies, true, "The write was applied (read back after reconnecting): topic held-reply exists exactly as planned.\n"},
		{"held-request", (*zktest.Proxy).HoldRequests, false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := zktest.StartProxy(t, zktest.Addr(t))
			c, err := zkwatch.Connect(context.Background(), p.Addr()+chroot, zkwatch.Options{RequestTimeout: 300 * time.Millisecond, Logger: zktest.NewLogger(t)})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			plan, err := clusterops.PlanTopic(s, clusterops.TopicRequest{Name: tc.name, Partitions: 2, ReplicationFactor: 2, StartIndex: 0, ReplicaShift: -1})
			if err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			z := fixture.BeforeMulti{Conn: c, Before: func() {
				tc.fault(p)
				// Once the deadline has passed, the connection goes.
				time.AfterFunc(500*time.Millisecond, func() { p.Cut(); p.Pass() })
			}}
			err = createTopic(context.Background(), &out, zkops.NewWriter(z), plan, 20*time.Second)
			lines := strings.SplitN(out.String(), "\n", 2)
			if !strings.HasPrefix(lines[0], "No reply to the write (create topic "+tc.name+": zookeeper ") || !strings.HasSuffix(lines[0], "no reply within 300ms); finding out whether it was applied…") {
				t.Fatalf("first line %q", lines[0])
			}
			if tc.created {
				if err != nil || lines[1] != tc.say {
					t.Fatalf("%v, said %q", err, lines[1])
				}
			} else if err == nil || err.Error() != "topic held-request was not created (read back after reconnecting: it does not exist); nothing was written" {
				t.Fatalf("got %v", err)
			}
			if ok, _, err := direct.Exists(plan.TopicPath); err != nil || ok != tc.created {
				t.Fatalf("exists %v (%v)", ok, err)
			}
		})
	}
}

// TestStalledServer: no command waits past its deadlines for a server that
// accepts and never answers, or that stops answering mid-session; ktopo
// events says the server is unresponsive, then connected again.
func TestStalledServer(t *testing.T) {
	addr := seed(t)
	chroot := addr[strings.Index(addr, "/"):]
	silent := zktest.StartSilent(t)
	var out, errOut bytes.Buffer
	start := time.Now()
	code := runContext(context.Background(), []string{"topics", "describe", "--zookeeper", silent + chroot, "--request-timeout", "2s"}, strings.NewReader(""), &out, &errOut)
	if code != 1 || !strings.Contains(errOut.String(), "no session with "+silent+" within 2s") || time.Since(start) > 10*time.Second {
		t.Fatalf("describe on a silent server: exit %d after %v: %s", code, time.Since(start), errOut.String())
	}

	// Connected, then the server stops answering: the one-shot load gives
	// up once the stall has lasted the request timeout.
	p := zktest.StartProxy(t, zktest.Addr(t))
	c, err := zkwatch.Connect(context.Background(), p.Addr()+chroot, zkwatch.Options{RequestTimeout: 2 * time.Second, SessionTimeout: 20 * time.Second, Logger: zktest.NewLogger(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	p.Stall()
	start = time.Now()
	_, err = zksource.Load(context.Background(), c, cluster.ModelOptions{})
	if err == nil || !strings.HasPrefix(err.Error(), "zookeeper "+p.Addr()+" has not answered for ") || time.Since(start) > 15*time.Second {
		t.Fatalf("load from a stalled server: %v after %v", err, time.Since(start))
	}
	t.Logf("load gave up after %v: %v", time.Since(start).Round(100*time.Millisecond), err)
	p.Pass()

	ev := startEvents(t, p.Addr()+chroot, "--session-timeout", "20s")
	ev.waitFor("connected", func(m map[string]any) bool { return m["kind"] == "connection" && m["state"] == "connected" })
	p.Stall()
	ev.waitFor("unresponsive", func(m map[string]any) bool { return m["kind"] == "connection" && m["state"] == "unresponsive" })
	p.Pass()
	ev.waitFor("connected again", func(m map[string]any) bool { return m["kind"] == "connection" && m["state"] == "connected" })
	ev.stop()
}
