package zkwatch

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/ktopo/ktopo/internal/peer"
	"github.com/ktopo/ktopo/internal/testkit/zktest"
)

// TestEnsembleFailover runs a mirror on a real 3-server ensemble and kills
// the server it is connected to, then the leader, then a follower, then two
// servers at once (no quorum), restarting each before the next. The
// session survives every fault: no reload, no re-read (the mirror sends no
// request for a fault that changed nothing), and the tree converges after
// each. Without a quorum a write is refused at once, saying why; with the
// quorum back the session and its watches resume.
func TestEnsembleFailover(t *testing.T) {
	e := zktest.SharedEnsemble(t)
	cs := e.Chroot(t)
	c := connect(t, cs, Options{SessionTimeout: 15 * time.Second, RequestTimeout: 3 * time.Second})
	direct := connect(t, cs, Options{SessionTimeout: 15 * time.Second, RequestTimeout: 3 * time.Second})
	s := newSim(t, direct, 21)
	for range 40 {
		s.step()
	}
	shape := kafkaShape()
	m, r := startMirror(t, c, shape)
	converge(t, direct, m, r, shape)
	sid := c.SessionID()
	ctx := context.Background()

	// fault runs one: kill, wait for c to be back (or to have stayed), check
	// that the mirror sent nothing, then change the tree and converge.
	fault := func(name string, kill func() []int, disconnects bool) {
		t.Helper()
		before := m.Stats().Requests
		r.mu.Lock()
		states := len(r.states)
		r.mu.Unlock()
		killed := kill()
		if disconnects {
			waitFor(t, name+": the disconnection", 10*time.Second, func() bool {
				r.mu.Lock()
				defer r.mu.Unlock()
				return slices.Contains(r.states[states:], StateDisconnected)
			})
		}
		if err := c.WaitSession(ctx); err != nil {
			t.Fatal(err)
		}
		if err := direct.WaitSession(ctx); err != nil {
			t.Fatal(err)
		}
		if c.SessionID() != sid {
			t.Fatalf("%s: session %x → %x", name, sid, c.SessionID())
		}
		if _, _, err := c.Exists("/"); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got := m.Stats().Requests - before; got != 0 {
			t.Fatalf("%s: the mirror sent %d requests for a fault that changed nothing", name, got)
		}
		r.mu.Lock()
		seen := append([]State(nil), r.states[states:]...)
		r.mu.Unlock()
		if !disconnects && slices.Contains(seen, StateDisconnected) {
			t.Fatalf("%s: disconnected (%v)", name, seen)
		}
		for range 20 {
			s.step()
		}
		converge(t, direct, m, r, shape)
		for _, i := range killed {
			if err := e.Start(i); err != nil {
				t.Fatal(err)
			}
		}
		if err := e.WaitServing(30 * time.Second); err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: killed %v, states %v", name, killed, seen)
	}

	fault("the server in use", func() []int {
		i := e.Index(c.Server())
		if i < 0 {
			t.Fatalf("connected to %s, not a server of %s", c.Server(), e.Connect())
		}
		must(t, e.Kill(i))
		return []int{i}
	}, true)
	fault("the leader", func() []int {
		l := e.Leader()
		must(t, e.Kill(l))
		return []int{l}
	}, true)
	fault("a follower not in use", func() []int {
		f := e.Follower(e.Index(c.Server()))
		must(t, e.Kill(f))
		return []int{f}
	}, false)
	fault("two servers: no quorum", func() []int {
		in := e.Index(c.Server())
		var two []int
		for i := range e.Len() {
			if i != in && len(two) < 2 {
				two = append(two, i)
			}
		}
		for _, i := range two {
			must(t, e.Kill(i))
		}
		// The survivor stops serving: its clients are dropped and every
		// attempt fails, two refused, one closed unanswered.
		waitFor(t, "the disconnection", 10*time.Second, func() bool { return c.State() != StateConnected })
		waitFor(t, "every server tried", 20*time.Second, func() bool {
			_, err := c.Create("/brokers/nope", nil, 0, open)
			var ns *NoSessionError
			if !errors.As(err, &ns) {
				t.Fatalf("write without a quorum: %v", err)
			}
			return len(ns.Problems) == 3 && strings.Count(err.Error(), "connection refused") == 2 &&
				strings.Contains(err.Error(), e.Addr(in)+": accepted the connection and closed it before the session handshake (a ZooKeeper server does that while it has no quorum)")
		})
		_, err := c.Multi(&zk.CreateRequest{Path: "/brokers/nope", Acl: open})
		t.Logf("refused: %v", err)
		// The survivor is still known for a ZooKeeper server (it answers
		// srvr, saying it serves no requests), so a new connection, asking
		// what the servers closing its handshakes are, says the same as
		// before, at its deadline.
		if p := peer.Identify(ctx, e.Addr(in), peer.Options{}); p.Kind != peer.ZooKeeper || !strings.Contains(p.Evidence, "not currently serving requests") {
			t.Errorf("a ZooKeeper server without quorum: %s (%s)", p.What(), p.Evidence)
		}
		probe := func(ctx context.Context, addr string) error {
			if p := peer.Identify(ctx, addr, peer.Options{}); p.Kind != peer.ZooKeeper {
				return fmt.Errorf("%s is %s", addr, p.What())
			}
			return nil
		}
		_, err = Connect(ctx, e.Connect(), Options{ConnectTimeout: 2 * time.Second, Logger: zktest.NewLogger(t), Probe: probe})
		if err == nil || strings.Count(err.Error(), "connection refused") != 2 ||
			!strings.Contains(err.Error(), e.Addr(in)+": accepted the connection and closed it before the session handshake") {
			t.Fatalf("connect without a quorum: %v", err)
		}
		// A quorum again: one server back (the other at the end).
		must(t, e.Start(two[0]))
		return two[1:]
	}, true)
	if ok, _, err := direct.Exists("/brokers/nope"); ok || err != nil {
		t.Fatalf("a refused write was applied (%v)", err)
	}
	if m.Stats().Loads != 1 || r.resetCount() != 1 || r.sawState(StateExpired) {
		t.Fatalf("loads %d, resets %d, states %v: want one load", m.Stats().Loads, r.resetCount(), r.states)
	}
}

// TestEnsembleSessionExpiry: the mirror's connection to the ensemble is
// cut until its session expires; the mirror reloads on the new session
// and converges, its expired ephemeral node gone.
func TestEnsembleSessionExpiry(t *testing.T) {
	e := zktest.SharedEnsemble(t)
	cs := e.Chroot(t)
	chroot := cs[strings.Index(cs, "/"):]
	var proxies []string
	var cut []*zktest.Proxy
	for _, a := range e.Addrs() {
		p := zktest.StartProxy(t, a)
		cut = append(cut, p)
		proxies = append(proxies, p.Addr())
	}
	c := connect(t, strings.Join(proxies, ",")+chroot, Options{SessionTimeout: 2 * time.Second})
	direct := connect(t, cs, Options{})
	s := newSim(t, direct, 22)
	for range 30 {
		s.step()
	}
	registerProbe(t, c)
	shape := kafkaShape()
	m, r := startMirror(t, c, shape)
	converge(t, direct, m, r, shape)
	for _, p := range cut {
		p.Cut()
	}
	waitExpired(t, direct)
	for range 20 {
		s.step()
	}
	for _, p := range cut {
		p.Pass()
	}
	waitFor(t, "expired state and a second reset", 30*time.Second, func() bool {
		return r.sawState(StateExpired) && r.resetCount() == 2
	})
	converge(t, direct, m, r, shape)
	if m.Stats().Loads != 2 {
		t.Fatalf("loads %d", m.Stats().Loads)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestEnsembleSoak (not in -short; KTOPO_SOAK sets its length, default
// 2m) draws faults at random for a while, with writes streaming in from
// another session: a server killed, the leader, the quorum, every
// connection of the mirror's session reset or stalled for a second, 100 ms
// of latency. After each fault is healed the mirror equals the server's
// tree, and through all of them it keeps its session and its one load.
func TestEnsembleSoak(t *testing.T) {
	if testing.Short() {
		t.Skip("a soak")
	}
	length := 2 * time.Minute
	if v := os.Getenv("KTOPO_SOAK"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			t.Fatalf("KTOPO_SOAK: %v", err)
		}
		length = d
	}
	e := zktest.SharedEnsemble(t)
	cs := e.Chroot(t)
	chroot := cs[strings.Index(cs, "/"):]
	var px []*zktest.Proxy
	var addrs []string
	for _, a := range e.Addrs() {
		p := zktest.StartProxy(t, a)
		px = append(px, p)
		addrs = append(addrs, p.Addr())
	}
	c := connect(t, strings.Join(addrs, ",")+chroot, Options{SessionTimeout: 15 * time.Second, RequestTimeout: 3 * time.Second})
	direct := connect(t, cs, Options{SessionTimeout: 15 * time.Second, RequestTimeout: 3 * time.Second})
	s := newSim(t, direct, 23)
	for range 60 {
		s.step()
	}
	shape := kafkaShape()
	m, r := startMirror(t, c, shape)
	converge(t, direct, m, r, shape)
	sid := c.SessionID()
	rng := newRand(24)
	faults := []struct {
		name string
		do   func()
	}{
		{"a server", func() { must(t, e.Kill(rng.IntN(e.Len()))) }},
		{"the leader", func() { must(t, e.Kill(e.Leader())) }},
		{"the quorum", func() {
			l := e.Leader()
			must(t, e.Kill(l))
			must(t, e.Kill((l+1)%e.Len()))
		}},
		{"resets", func() {
			for _, p := range px {
				p.Reset()
			}
		}},
		{"a stall", func() {
			for _, p := range px {
				p.Stall()
			}
			time.Sleep(time.Second)
		}},
		{"latency", func() {
			for _, p := range px {
				p.Latency(100 * time.Millisecond)
			}
		}},
	}
	counts := map[string]int{}
	for end := time.Now().Add(length); time.Now().Before(end); {
		f := faults[rng.IntN(len(faults))]
		counts[f.name]++
		stop := churn(direct, m.Tree())
		f.do()
		time.Sleep(time.Duration(rng.IntN(500)) * time.Millisecond)
		stop()
		must(t, e.Heal())
		for _, p := range px {
			p.Pass()
		}
		must(t, c.WaitSession(context.Background()))
		must(t, direct.WaitSession(context.Background()))
		for range 10 {
			s.step()
		}
		converge(t, direct, m, r, shape)
	}
	if c.SessionID() != sid || m.Stats().Loads != 1 || r.resetCount() != 1 {
		t.Fatalf("session %x → %x, loads %d, resets %d", sid, c.SessionID(), m.Stats().Loads, r.resetCount())
	}
	t.Logf("faults %v; mirror %+v", counts, m.Stats())
}
