package cli

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/clusterwatch"
	"github.com/ktopo/ktopo/internal/zktest"
	"github.com/ktopo/ktopo/zkwatch"
)

// faultBefore is a session whose multi is preceded by a fault.
type faultBefore struct {
	*zkwatch.Conn
	fault func()
}

func (f faultBefore) Multi(ops ...any) ([]zk.MultiResponse, error) {
	f.fault()
	return f.Conn.Multi(ops...)
}

// TestCreateNoReply: topics create's write gets no reply (a fault proxy
// holds the reply, or the request, then cuts the connection). The command
// says so, finds out, and reports the real outcome: created (exit 0) or
// not created, nothing written (an error).
func TestCreateNoReply(t *testing.T) {
	addr := seed(t)
	chroot := addr[strings.Index(addr, "/"):]
	direct := connectTest(t, addr)
	s, err := clusterwatch.Load(context.Background(), direct, cluster.ModelOptions{})
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
			plan, err := cluster.PlanTopic(s, cluster.TopicRequest{Name: tc.name, Partitions: 2, ReplicationFactor: 2, StartIndex: 0, ReplicaShift: -1})
			if err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			z := faultBefore{c, func() {
				tc.fault(p)
				// Once the deadline has passed, the connection goes.
				time.AfterFunc(500*time.Millisecond, func() { p.Cut(); p.Pass() })
			}}
			err = createTopic(context.Background(), &out, z, plan, 20*time.Second)
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
