package cmd

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/ktopo/ktopo/internal/testkit/zktest"
	"github.com/ktopo/ktopo/zkwatch"
)

// TestEventsOnEnsemble follows a cluster on a real 3-server ensemble with
// ktopo events (its session through a proxy per server) while the leader
// dies, then two servers (no quorum), then its connections are cut until
// its session expires. It prints each connection change; it keeps its
// session and prints no event twice across the failovers, and after the
// expiry it resyncs and prints exactly what changed meanwhile.
func TestEventsOnEnsemble(t *testing.T) {
	ens := zktest.SharedEnsemble(t)
	cs := ens.Chroot(t)
	chroot := cs[strings.Index(cs, "/"):]
	direct := connectTest(t, cs)
	for _, n := range kafkaTree {
		if err := zktest.CreateWith(direct, n.path, []byte(n.data)); err != nil {
			t.Fatal(err)
		}
	}
	var px []*zktest.Proxy
	var addrs []string
	for _, a := range ens.Addrs() {
		p := zktest.StartProxy(t, a)
		px = append(px, p)
		addrs = append(addrs, p.Addr())
	}
	ev := startEvents(t, strings.Join(addrs, ",")+chroot, "--session-timeout", "8s", "--from-start")
	var seen []string
	next := func(what string, match func(m map[string]any) bool) {
		t.Helper()
		ev.waitFor(what, func(m map[string]any) bool {
			seen = append(seen, describeEvent(m))
			return match(m)
		})
	}
	connection := func(state string) func(map[string]any) bool {
		return func(m map[string]any) bool { return m["kind"] == "connection" && m["state"] == state }
	}
	kind := func(k string, field string, v any) func(map[string]any) bool {
		return func(m map[string]any) bool { return m["kind"] == k && m[field] == v }
	}
	next("connected", connection("connected"))
	next("the state", kind("topic_created", "topic", "orders"))
	stateAt := len(seen)

	// The leader dies: every server drops its clients for the election.
	must(t, ens.Kill(ens.Leader()))
	next("the disconnection", connection("disconnected"))
	next("the reconnection", connection("connected"))
	must(t, ens.Heal())
	setState(t, direct, `{"controller_epoch":3,"leader":2,"version":1,"leader_epoch":1,"isr":[2]}`)
	next("the leader move", kind("leader_moved", "topic", "orders"))

	// No quorum, then one server back.
	l := ens.Leader()
	down := []int{l, ens.Follower(l)}
	for _, i := range down {
		must(t, ens.Kill(i))
	}
	next("the disconnection", connection("disconnected"))
	must(t, ens.Start(down[0]))
	next("the reconnection", connection("connected"))
	must(t, ens.Heal())
	if err := direct.Delete("/brokers/ids/3", -1); err != nil {
		t.Fatal(err)
	}
	next("broker 3 gone", kind("broker_gone", "broker", 3.0))

	// Cut until the session expires. A witness session with a longer
	// timeout, cut at the same moment, expires after it: once the
	// witness's ephemeral node is gone, so is the session of events.
	witness := zktest.StartProxy(t, ens.Addr(0))
	wc, err := zkwatch.Connect(context.Background(), witness.Addr()+chroot, zkwatch.Options{SessionTimeout: 12 * time.Second, Logger: zktest.NewLogger(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer wc.Close()
	if _, err := wc.Create("/witness", nil, zk.FlagEphemeral, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	for _, p := range append(px, witness) {
		p.Cut()
	}
	next("the disconnection", connection("disconnected"))
	// Meanwhile: broker 3 returns, a topic is created, orders' state moves back.
	must(t, zktest.CreateWith(direct, "/brokers/ids/3", []byte(kafkaTree[2].data)))
	must(t, zktest.CreateWith(direct, "/brokers/topics/later", []byte(`{"version":3,"partitions":{"0":[1]},"adding_replicas":{},"removing_replicas":{}}`)))
	setState(t, direct, `{"controller_epoch":3,"leader":1,"version":1,"leader_epoch":2,"isr":[1,2]}`)
	waitUntil(t, "the sessions to expire", func() bool {
		ok, _, err := direct.Exists("/witness")
		return err == nil && !ok
	})
	for _, p := range px {
		p.Pass()
	}
	next("the expiry", connection("session expired"))
	resync := len(seen)
	next("the new session", connection("connected"))
	next("the changes since", kind("topic_created", "topic", "later"))
	// The rest of what changed comes in the same batch: a marker after it.
	must(t, zktest.CreateWith(direct, "/brokers/topics/marker", []byte(`{"version":3,"partitions":{"0":[1]},"adding_replicas":{},"removing_replicas":{}}`)))
	next("the marker", kind("topic_created", "topic", "marker"))
	after := strings.Join(seen[resync:], "\n")
	for _, want := range []string{"broker_registered 3", "topic_created later", "leader_moved orders-0", "isr_expanded orders-0"} {
		if strings.Count(after, want) != 1 {
			t.Errorf("after the resync, %q %d times:\n%s", want, strings.Count(after, want), after)
		}
	}
	// No event of the initial state was printed twice (broker 3 did
	// register again).
	state := strings.Join(seen[:stateAt], "\n")
	for _, line := range seen[stateAt:] {
		if !strings.HasPrefix(line, "connection") && line != "broker_registered 3" && strings.Contains(state, line) {
			t.Errorf("printed again: %s", line)
		}
	}
	// One line per connection change, not one per attempt.
	var conns []string
	for _, line := range seen {
		if strings.HasPrefix(line, "connection") {
			conns = append(conns, strings.TrimPrefix(line, "connection "))
		}
	}
	if got := strings.Join(conns, ","); got != "connected,disconnected,connected,disconnected,connected,disconnected,session expired,connected" {
		t.Errorf("connection events %s", got)
	}
	ev.stop()
	t.Logf("events:\n%s", strings.Join(seen, "\n"))
}

// describeEvent is an event's kind and subject, for comparisons.
func describeEvent(m map[string]any) string {
	switch {
	case m["kind"] == "connection":
		return fmt.Sprintf("connection %v", m["state"])
	case m["partition"] != nil:
		return fmt.Sprintf("%v %v-%v", m["kind"], m["topic"], m["partition"])
	case m["topic"] != nil:
		return fmt.Sprintf("%v %v", m["kind"], m["topic"])
	case m["broker"] != nil:
		return fmt.Sprintf("%v %v", m["kind"], m["broker"])
	}
	return fmt.Sprint(m["kind"])
}

func setState(t *testing.T, c *zkwatch.Conn, data string) {
	t.Helper()
	if _, err := c.Set("/brokers/topics/orders/partitions/0/state", []byte(data), -1); err != nil {
		t.Fatal(err)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
