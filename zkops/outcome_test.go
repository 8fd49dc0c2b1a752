package zkops

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/clusterops"
	"github.com/ktopo/ktopo/internal/testkit/clustertest"
	"github.com/ktopo/ktopo/internal/testkit/zktest"
	"github.com/ktopo/ktopo/zkwatch"
)

// TestVerifyCreate: topic creations whose replies are late or lost, through
// a fault proxy in front of a real ZooKeeper. verifyCreate reports what
// really happened: created exactly as planned (the late reply, or read
// back after reconnecting), not created (the request was lost, or never
// sent), created by someone else, or still unknown when it must give up.
func TestVerifyCreate(t *testing.T) {
	_, m := clustertest.NewCluster(t)
	snap := m.Snapshot()
	cs := zktest.Chroot(t)
	chroot := cs[strings.Index(cs, "/"):]
	p := zktest.StartProxy(t, zktest.Addr(t))
	ctx := context.Background()
	c, err := zkwatch.Connect(ctx, p.Addr()+chroot, zkwatch.Options{SessionTimeout: 20 * time.Second, RequestTimeout: 300 * time.Millisecond, Logger: zktest.NewLogger(t)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	direct, err := zkwatch.Connect(ctx, cs, zkwatch.Options{Logger: zktest.NewLogger(t)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(direct.Close)
	for _, d := range []string{cluster.ConfigTopicsPath, cluster.BrokerTopicsPath} {
		if err := direct.CreateAll(d); err != nil {
			t.Fatal(err)
		}
	}
	plan := func(name string, start int) *clusterops.TopicPlan {
		t.Helper()
		pl, err := clusterops.PlanTopic(snap, clusterops.TopicRequest{Name: name, Partitions: 3, ReplicationFactor: 2, StartIndex: start, ReplicaShift: -1,
			Config: map[string]string{"retention.ms": "1000"}})
		if err != nil {
			t.Fatal(err)
		}
		return pl
	}
	exists := func(pl *clusterops.TopicPlan) bool {
		ok, _, err := direct.Exists(pl.TopicPath)
		if err != nil {
			t.Fatal(err)
		}
		return ok
	}
	// fault strikes once the multi's reads are done, just before it is sent.
	var fault func()
	create := func(pl *clusterops.TopicPlan) error {
		t.Helper()
		err := createTopic(faultBefore{c, fault}, pl)
		if !MaybeWritten(err) {
			t.Fatalf("create %s: %v, want an open outcome", pl.Name, err)
		}
		return err
	}
	check := func(name string, o clusterops.Outcome, applied bool, how string) {
		t.Helper()
		if !o.Known || o.Applied != applied || o.How != how {
			t.Fatalf("%s: %+v, want known, applied %v, %q", name, o, applied, how)
		}
	}

	late := plan("late", 0)
	fault = p.HoldReplies
	err = create(late)
	p.Pass()
	check("late reply", verifyCreate(ctx, c, late, err), true, "its reply came late")

	lostReply := plan("lost-reply", 0)
	err = create(lostReply)
	if !exists(lostReply) {
		t.Fatal("the held multi did not reach the server")
	}
	p.Cut()
	go func() { time.Sleep(200 * time.Millisecond); p.Pass() }()
	check("lost reply", verifyCreate(ctx, c, lostReply, err), true, "read back after reconnecting")

	lostRequest := plan("lost-request", 0)
	must(t, c.WaitSession(ctx))
	fault = p.HoldRequests
	err = create(lostRequest)
	p.Cut()
	go func() { time.Sleep(200 * time.Millisecond); p.Pass() }()
	o := verifyCreate(ctx, c, lostRequest, err)
	check("lost request", o, false, "read back after reconnecting")
	if o.Err != nil || exists(lostRequest) {
		t.Fatalf("lost request: %+v, exists %v", o, exists(lostRequest))
	}

	// Meanwhile another client creates it with another assignment.
	raced := plan("raced", 0)
	must(t, c.WaitSession(ctx))
	err = create(raced)
	p.Cut()
	if err := createTopic(direct, plan("raced", 1)); err != nil {
		t.Fatal(err)
	}
	p.Pass()
	o = verifyCreate(ctx, c, raced, err)
	check("raced", o, false, "read back after reconnecting")
	if cluster.ErrorClass(o.Err) != cluster.ClassTopicExists || !strings.Contains(o.Err.Error(), "its assignment is not the one planned") {
		t.Fatalf("raced: %v", o.Err)
	}

	// The late answer of a multi that failed: nothing written.
	must(t, c.WaitSession(ctx))
	fault = p.HoldReplies
	err = create(late)
	p.Pass()
	if o := verifyCreate(ctx, c, late, err); !o.Known || o.Applied || !errors.Is(o.Err, zk.ErrNodeExists) || o.How != "ZooKeeper refused it" {
		t.Fatalf("late refusal: %+v", o)
	}

	// Still unknown when ctx ends: the server never answers.
	stalled := plan("stalled", 0)
	fault = p.Stall
	err = create(stalled)
	short, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	if o := verifyCreate(short, c, stalled, err); o.Known || !errors.Is(o.Err, zkwatch.ErrTimeout) {
		t.Fatalf("stalled: %+v", o)
	}
	p.Pass()

	// Without a session nothing is sent, and the outcome is not open.
	p.Cut()
	waitUntil(t, func() bool { return c.State() != zkwatch.StateConnected })
	err = createTopic(faultBefore{c, func() {}}, plan("no-session", 0))
	if MaybeWritten(err) || !errors.Is(err, zk.ErrNoServer) {
		t.Fatalf("no session: %v", err)
	}
	if n := strings.Count(err.Error(), "/config/topics/no-session"); n != 1 {
		t.Errorf("the path %d times in %q", n, err)
	}
	p.Pass()
	// A read before the multi that misses its deadline: nothing was sent.
	must(t, c.WaitSession(ctx))
	p.Stall()
	err = createTopic(c, plan("unsent", 0))
	if MaybeWritten(err) || !errors.Is(err, zkwatch.ErrTimeout) {
		t.Fatalf("stalled read before the multi: %v", err)
	}
	p.Pass()
}

// faultBefore is a session whose multi is preceded by a fault.
type faultBefore struct {
	*zkwatch.Conn
	fault func()
}

func (f faultBefore) Multi(ops ...any) ([]zk.MultiResponse, error) {
	f.fault()
	return f.Conn.Multi(ops...)
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func waitUntil(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("timed out")
		}
		time.Sleep(20 * time.Millisecond)
	}
}
