package sandbox

import (
	"context"
	"fmt"
	"maps"
	"strconv"
	"testing"
	"time"

	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/internal/testkit/zktest"
	"github.com/ktopo/ktopo/zkwatch"
)

// TestEnsembleFaults runs the sandbox on a real 3-server ensemble and
// kills one server, then the leader, then a follower, then two at once
// (no quorum), restarting each before the next, each time while the
// controller is initialising a new topic's partitions. The brokers keep
// their sessions (same registrations, same broker epochs), the controller
// stays, and every topic ends with every partition led by its preferred
// replica and its full ISR: no write of the controller is lost or applied
// twice when a server dies under it.
func TestEnsembleFaults(t *testing.T) {
	ens := zktest.SharedEnsemble(t)
	e := newEnv(t, Config{Connect: ens.Chroot(t), Brokers: 3, SessionTimeout: 15 * time.Second})
	settle := func() {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), waitDeadline)
		defer cancel()
		if err := e.zk.(*zkwatch.Conn).WaitSession(ctx); err != nil {
			t.Fatal(err)
		}
	}
	epochs := func() map[string]int64 {
		t.Helper()
		settle()
		out := map[string]int64{}
		for _, id := range e.registered() {
			_, stat, err := e.zk.Get(cluster.BrokerIDPath(mustAtoi(t, id)))
			if err != nil {
				t.Fatal(err)
			}
			out[id] = stat.Czxid
		}
		return out
	}
	online := func(topic string, n int) {
		t.Helper()
		want := map[int]*st{}
		for p, r := range rackAwareAssignment(t, 3, 1, n, 3) {
			want[p] = &st{leader: r[0], controllerEpoch: 1, isr: r, version: 0}
		}
		e.waitStates(topic, want)
	}
	e.createTopic("before", rackAwareAssignment(t, 3, 1, 6, 3), nil)
	online("before", 6)
	brokers := epochs()
	if len(brokers) != 3 {
		t.Fatalf("registered %v", brokers)
	}
	ctrl, epoch := e.controller()
	// One partition at a time, so that the controller writes while a
	// server dies.
	e.c.SetPace(30 * time.Millisecond)
	for i, fault := range []struct {
		name string
		kill func() []int
	}{
		{"server 0", func() []int { return []int{0} }},
		{"the leader", func() []int { return []int{ens.Leader()} }},
		{"a follower", func() []int { return []int{ens.Follower(-1)} }},
		{"two servers: no quorum", func() []int {
			l := ens.Leader()
			return []int{l, ens.Follower(l)}
		}},
	} {
		topic := fmt.Sprintf("during-%d", i)
		e.createTopic(topic, rackAwareAssignment(t, 3, 1, 12, 3), nil)
		waitFor(t, "the controller at work on "+topic, func() (bool, string) {
			return e.exists(cluster.PartitionStatePath(topic, 0)), ""
		})
		killed := fault.kill()
		for _, k := range killed {
			if err := ens.Kill(k); err != nil {
				t.Fatal(err)
			}
		}
		if len(killed) == 2 {
			// Without a quorum nothing moves; then one server returns.
			if err := ens.Start(killed[0]); err != nil {
				t.Fatal(err)
			}
		}
		if err := ens.Heal(); err != nil {
			t.Fatal(err)
		}
		online(topic, 12)
		if got := epochs(); !maps.Equal(got, brokers) {
			t.Fatalf("%s: broker epochs %v, were %v: a session was lost", fault.name, got, brokers)
		}
		if c, ep := e.controller(); c != ctrl || ep != epoch {
			t.Fatalf("%s: controller %d epoch %d, was %d epoch %d", fault.name, c, ep, ctrl, epoch)
		}
		t.Logf("%s: servers %v killed; %s online, brokers and controller kept", fault.name, killed, topic)
	}
	online("before", 6)
	e.c.SetPace(0)
	// The controller still works: a broker killed and restarted.
	e.kill(2)
	e.restart(2)
	e.waitRegistered("1", "2", "3")
}

func mustAtoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}
