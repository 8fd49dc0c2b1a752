package zkwatch

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/ktopo/ktopo/internal/testkit/zktest"
)

// proxied connects through a fault proxy in front of the package's server,
// on a fresh chroot; direct is a second session that bypasses the proxy.
func proxied(t *testing.T, o Options) (p *zktest.Proxy, c, direct *Conn) {
	t.Helper()
	cs := zktest.Chroot(t)
	chroot := cs[strings.Index(cs, "/"):]
	p = zktest.StartProxy(t, zktest.Addr(t))
	c = connect(t, p.Addr()+chroot, o)
	direct = connect(t, cs, Options{})
	return p, c, direct
}

// TestWriteWithoutSession: while there is no session, a write is refused
// at once, names the servers and why each failed, and is never sent: it
// is not applied once the session is back (go-zookeeper alone would queue
// it and send it after the caller gave up).
func TestWriteWithoutSession(t *testing.T) {
	p, c, direct := proxied(t, Options{SessionTimeout: 20 * time.Second, RequestTimeout: 2 * time.Second})
	sid := c.SessionID()
	p.Cut()
	waitFor(t, "the disconnection", 10*time.Second, func() bool { return c.State() != StateConnected })
	start := time.Now()
	_, err := c.Create("/n", []byte("1"), 0, open)
	var ns *NoSessionError
	if !errors.As(err, &ns) || !errors.Is(err, zk.ErrNoServer) || time.Since(start) > time.Second {
		t.Fatalf("create without a session: %v after %v", err, time.Since(start))
	}
	if !strings.HasPrefix(err.Error(), "zookeeper "+p.Addr()+": create /n: no session (") || !strings.HasSuffix(err.Error(), "; nothing was sent") {
		t.Fatalf("message: %v", err)
	}
	_, err = c.Multi(&zk.CreateRequest{Path: "/m", Acl: open})
	if !errors.As(err, &ns) || !strings.Contains(err.Error(), "multi create /m: no session") {
		t.Fatalf("multi without a session: %v", err)
	}
	// The proxy closes what it accepts: the servers' problem is named.
	waitFor(t, "the handshake problem", 10*time.Second, func() bool {
		_, err := c.Create("/n", nil, 0, open)
		return strings.Contains(err.Error(), p.Addr()+": accepted the connection and closed it before the session handshake")
	})
	p.Pass()
	if err := c.WaitSession(context.Background()); err != nil {
		t.Fatal(err)
	}
	if c.SessionID() != sid {
		t.Fatalf("session %x → %x", sid, c.SessionID())
	}
	for _, path := range []string{"/n", "/m"} {
		if ok, _, err := direct.Exists(path); ok || err != nil {
			t.Fatalf("%s written after all (%v)", path, err)
		}
	}
	if _, err := c.Create("/n", nil, 0, open); err != nil {
		t.Fatalf("create with the session back: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	p.Cut()
	waitFor(t, "the disconnection", 10*time.Second, func() bool { return c.State() != StateConnected })
	if err := c.WaitSession(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("WaitSession without a server: %v", err)
	}
}

// TestLateOutcome: a write whose reply is late or lost returns at its
// deadline with an open outcome; Outcome then tells how the request
// really ended.
func TestLateOutcome(t *testing.T) {
	p, c, direct := proxied(t, Options{SessionTimeout: 20 * time.Second, RequestTimeout: 300 * time.Millisecond})
	ctx := context.Background()
	outcome := func(err error) (bool, error) {
		t.Helper()
		var oe *OpError
		if !errors.As(err, &oe) || !errors.Is(err, ErrTimeout) {
			t.Fatalf("want a request deadline: %v", err)
		}
		return oe.Outcome(ctx)
	}

	// The reply is held, then delivered: applied, answered late.
	p.HoldReplies()
	_, err := c.Create("/late", []byte("1"), 0, open)
	waitFor(t, "the write on the server", 5*time.Second, func() bool { ok, _, _ := direct.Exists("/late"); return ok })
	p.Pass()
	if done, late := outcome(err); !done || late != nil {
		t.Fatalf("late reply: done %v, %v", done, late)
	}

	// The reply is held and the connection cut: applied, reply lost.
	p.HoldReplies()
	_, err = c.Create("/lost-reply", nil, 0, open)
	waitFor(t, "the write on the server", 5*time.Second, func() bool { ok, _, _ := direct.Exists("/lost-reply"); return ok })
	p.Cut()
	done, late := outcome(err)
	if !done || !errors.Is(late, zk.ErrConnectionClosed) {
		t.Fatalf("lost reply: done %v, %v", done, late)
	}
	p.Pass()

	// The request is held and the connection cut: never reached the
	// server, which the client cannot tell from a lost reply.
	if err := c.WaitSession(ctx); err != nil {
		t.Fatal(err)
	}
	p.HoldRequests()
	_, err = c.Create("/lost-request", nil, 0, open)
	p.Cut()
	if done, late := outcome(err); !done || !errors.Is(late, zk.ErrConnectionClosed) {
		t.Fatalf("lost request: done %v, %v", done, late)
	}
	p.Pass()
	if err := c.WaitSession(ctx); err != nil {
		t.Fatal(err)
	}
	if ok, _, err := c.Exists("/lost-request"); ok || err != nil {
		t.Fatalf("lost request applied (%v)", err)
	}

	// A server's answer, late.
	p.HoldReplies()
	_, err = c.Create("/late", nil, 0, open)
	p.Pass()
	if done, late := outcome(err); !done || !errors.Is(late, zk.ErrNodeExists) {
		t.Fatalf("late answer: done %v, %v", done, late)
	}

	// Outcome gives up with ctx, the request still unanswered.
	p.Stall()
	_, err = c.Create("/stalled", nil, 0, open)
	short, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	var oe *OpError
	if !errors.As(err, &oe) {
		t.Fatal(err)
	}
	if done, late := oe.Outcome(short); done || !errors.Is(late, err) {
		t.Fatalf("stalled: done %v, %v", done, late)
	}
	p.Pass()

	// An error that did not end a call early is its own outcome.
	if _, err := c.Create("/late", nil, 0, open); !errors.Is(err, zk.ErrNodeExists) {
		t.Fatal(err)
	}
	noSession := &OpError{Op: "create", Path: "/x", Err: &NoSessionError{}}
	if done, late := noSession.Outcome(ctx); !done || !errors.Is(late, noSession) {
		t.Fatalf("no session: %v %v", done, late)
	}
}

// TestMirrorUnresponsive: a server that stops answering while the
// connection stays up is reported unresponsive after StallAfter (well
// before go-zookeeper's receive timeout drops the connection), and
// connected again when it answers; the session and the mirror survive
// without a reload and converge.
func TestMirrorUnresponsive(t *testing.T) {
	p, c, direct := proxied(t, Options{SessionTimeout: 20 * time.Second})
	s := newSim(t, direct, 11)
	for range 30 {
		s.step()
	}
	shape := kafkaShape()
	m, r := startMirrorWith(t, c, shape, MirrorOptions{StallAfter: 500 * time.Millisecond})
	converge(t, direct, m, r, shape)
	heard := m.Stats().LastHeard
	if heard.IsZero() || time.Since(heard) > 10*time.Second {
		t.Fatalf("last heard %v", heard)
	}
	p.Stall()
	stalledAt := time.Now()
	for range 20 {
		s.step()
	}
	waitFor(t, "unresponsive", 10*time.Second, func() bool { return r.sawState(StateUnresponsive) })
	if c.State() != StateConnected {
		t.Fatalf("state %v: the connection should still be up", c.State())
	}
	if h := m.Stats().LastHeard; h.After(stalledAt) {
		t.Fatalf("last heard %v, after the stall began at %v", h, stalledAt)
	}
	p.Pass()
	waitFor(t, "connected again", 10*time.Second, func() bool {
		r.mu.Lock()
		defer r.mu.Unlock()
		return r.states[len(r.states)-1] == StateConnected
	})
	converge(t, direct, m, r, shape)
	if m.Stats().Loads != 1 || r.resetCount() != 1 {
		t.Fatalf("loads %d, resets %d: want no reload", m.Stats().Loads, r.resetCount())
	}
}

// TestMirrorLatency: with 200 ms each way the mirror loads and follows
// changes; no request misses its deadline and nothing is reported
// unresponsive, unless the server (or this process) itself stopped
// answering for a while: a witness connection, not proxied, keeps asking
// the server something and tells such a stall from the latency.
func TestMirrorLatency(t *testing.T) {
	p, c, direct := proxied(t, Options{SessionTimeout: 20 * time.Second})
	longest := witness(t, zktest.Addr(t))
	s := newSim(t, direct, 12)
	for range 40 {
		s.step()
	}
	p.Latency(200 * time.Millisecond)
	shape := kafkaShape()
	start := time.Now()
	m, r := startMirror(t, c, shape)
	converge(t, direct, m, r, shape)
	t.Logf("loaded in %v through 200 ms latency", time.Since(start).Round(time.Millisecond))
	for range 40 {
		s.step()
	}
	converge(t, direct, m, r, shape)
	start = time.Now()
	if _, err := c.Create("/brokers/slow", nil, 0, open); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d < 400*time.Millisecond {
		t.Fatalf("a round trip took %v: the latency is not there", d)
	}
	if m.Stats().Loads != 1 {
		t.Fatalf("states %v, loads %d: want no reload", r.states, m.Stats().Loads)
	}
	if r.sawState(StateUnresponsive) {
		// A report is right when the server really went quiet: the
		// witness then waited most of StallAfter for an answer too.
		if w := longest(); w < DefaultStallAfter/2 {
			t.Fatalf("states %v with the server answering a direct client within %v: the latency alone made the mirror report it unresponsive", r.states, w)
		} else {
			t.Logf("states %v: the server itself was unresponsive (a direct client waited %v for an answer)", r.states, w)
		}
	}
}

// witness asks the server at addr whether "/" exists, over and over on a
// connection of its own, until the test ends; longest is the longest it
// waited for an answer so far.
func witness(t *testing.T, addr string) (longest func() time.Duration) {
	t.Helper()
	w := connect(t, addr, Options{SessionTimeout: 20 * time.Second})
	var most atomic.Int64
	stop := inLoops(1, func() {
		start := time.Now()
		_, _, _ = w.Exists("/")
		if d := int64(time.Since(start)); d > most.Load() {
			most.Store(d)
		}
		time.Sleep(20 * time.Millisecond)
	})
	t.Cleanup(stop)
	return func() time.Duration { return time.Duration(most.Load()) }
}

// inLoops runs f in a loop on n goroutines until stop is called (which
// waits for them).
func inLoops(n int, f func()) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			for {
				select {
				case <-done:
					return
				default:
				}
				f()
			}
		})
	}
	return func() { close(done); wg.Wait() }
}

// proxiedMirror is a mirror of a sim's tree (steps writes, seed) through
// the fault proxy, converged.
type proxiedMirror struct {
	p         *zktest.Proxy
	c, direct *Conn
	m         *Mirror
	r         *replica
	shape     Shape
}

func newProxiedMirror(t *testing.T, seed uint64, steps int) proxiedMirror {
	t.Helper()
	p, c, direct := proxied(t, Options{SessionTimeout: 20 * time.Second})
	s := newSim(t, direct, seed)
	for range steps {
		s.step()
	}
	pm := proxiedMirror{p: p, c: c, direct: direct, shape: kafkaShape()}
	pm.m, pm.r = startMirror(t, c, pm.shape)
	pm.converge(t)
	return pm
}

func (pm proxiedMirror) converge(t *testing.T) {
	t.Helper()
	converge(t, pm.direct, pm.m, pm.r, pm.shape)
}

// TestMirrorConnectionReset: connections reset (RST) mid-stream are
// resumed on the same session without a reload, and the mirror converges.
func TestMirrorConnectionReset(t *testing.T) {
	pm := newProxiedMirror(t, 13, 30)
	p, c, direct, m, r := pm.p, pm.c, pm.direct, pm.m, pm.r
	sid := c.SessionID()
	for i := range 3 {
		stop := churn(direct, m.Tree())
		time.Sleep(100 * time.Millisecond)
		p.Reset()
		time.Sleep(100 * time.Millisecond)
		stop()
		waitFor(t, "reconnection", 10*time.Second, func() bool { return c.State() == StateConnected && p.Accepts() > i+1 })
		pm.converge(t)
	}
	if c.SessionID() != sid || m.Stats().Loads != 1 || r.resetCount() != 1 {
		t.Fatalf("session %x→%x, loads %d, resets %d", sid, c.SessionID(), m.Stats().Loads, r.resetCount())
	}
}

// TestBlackHoleServer: two servers of three accept and never answer. When
// the server in use is lost, the client tries those two, gives up on each
// after the handshake timeout and resumes its session on the third before
// the session expires; requests meanwhile fail at their deadline. With
// only silent servers, Connect fails at its deadline.
func TestBlackHoleServer(t *testing.T) {
	silent := zktest.StartSilent(t)
	hole := zktest.StartProxy(t, zktest.Addr(t))
	hole.BlackHole()
	real := zktest.StartProxy(t, zktest.Addr(t))
	cs := zktest.Chroot(t)
	chroot := cs[strings.Index(cs, "/"):]
	// Connect may try the silent ones first too.
	c := connect(t, silent+","+hole.Addr()+","+real.Addr()+chroot, Options{SessionTimeout: 8 * time.Second, RequestTimeout: time.Second, ConnectTimeout: 15 * time.Second})
	sid := c.SessionID()
	real.Drop()
	start := time.Now()
	waitFor(t, "the disconnection", 5*time.Second, func() bool { return c.State() != StateConnected })
	// Round robin: both silent servers come before the live one again, so
	// the get fails at its deadline, well before the session is back.
	asked := time.Now()
	if _, _, err := c.Get("/"); err == nil || time.Since(asked) > 2500*time.Millisecond {
		t.Fatalf("get while reconnecting: %v after %v", err, time.Since(asked))
	}
	if err := c.WaitSession(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.Exists("/"); err != nil || c.SessionID() != sid {
		t.Fatalf("after the silent servers: %v, session %x→%x", err, sid, c.SessionID())
	}
	t.Logf("session resumed %v after the drop", time.Since(start).Round(time.Millisecond))
	start = time.Now()
	_, err := Connect(context.Background(), silent+","+hole.Addr(), Options{SessionTimeout: 2 * time.Second, ConnectTimeout: 2 * time.Second, Logger: zktest.NewLogger(t)})
	if err == nil || !strings.Contains(err.Error(), "within 2s") || time.Since(start) > 4*time.Second {
		t.Fatalf("silent servers: %v after %v", err, time.Since(start))
	}
}

// TestStallPastSessionTimeout: the server stalls for longer than the
// session timeout. Requests fail at their deadline, the mirror reports
// the stall, then the disconnection; the session expires and, once the
// server answers again, the mirror reloads on a new session and converges.
func TestStallPastSessionTimeout(t *testing.T) {
	srv := zktest.SharedServer()
	if srv == nil {
		t.Skip("needs the Apache server: the embedded one's session expiry is not on its clock")
	}
	p := zktest.StartProxy(t, zktest.Addr(t))
	cs := zktest.Chroot(t)
	chroot := cs[strings.Index(cs, "/"):]
	c := connect(t, p.Addr()+chroot, Options{SessionTimeout: 4 * time.Second, RequestTimeout: time.Second})
	direct := connect(t, cs, Options{})
	s := newSim(t, direct, 14)
	for range 30 {
		s.step()
	}
	// A broker registered through the stalled session: it must vanish.
	registerProbe(t, c)
	shape := kafkaShape()
	m, r := startMirrorWith(t, c, shape, MirrorOptions{StallAfter: 500 * time.Millisecond})
	converge(t, direct, m, r, shape)
	sid := c.SessionID()
	p.Stall()
	start := time.Now()
	if _, _, err := c.Get("/brokers/ids"); !errors.Is(err, ErrTimeout) || time.Since(start) > 2*time.Second {
		t.Fatalf("get during the stall: %v after %v", err, time.Since(start))
	}
	waitFor(t, "unresponsive, then disconnected", 15*time.Second, func() bool {
		return r.sawState(StateUnresponsive) && r.sawState(StateDisconnected)
	})
	for range 20 {
		s.step()
	}
	waitExpired(t, direct)
	p.Pass()
	waitFor(t, "expiry and a reload", 30*time.Second, func() bool { return r.sawState(StateExpired) && r.resetCount() == 2 })
	converge(t, direct, m, r, shape)
	if c.SessionID() == sid || m.Stats().Loads != 2 {
		t.Fatalf("session %x→%x, loads %d", sid, c.SessionID(), m.Stats().Loads)
	}
}

// TestResumeWithRequestsInFlight: requests keep flowing while the
// connection is reset and the session resumed with its watches, and the
// mirror converges. Under -race this checks that nothing in the
// resumption races (go-zookeeper alone reads the last zxid for the watch
// reset while its receive loop writes it; see serverConn).
func TestResumeWithRequestsInFlight(t *testing.T) {
	pm := newProxiedMirror(t, 7, 10)
	p, c, r := pm.p, pm.c, pm.r
	sid := c.SessionID()
	stop := inLoops(4, func() { _, _, _ = c.Get("/brokers/ids") })
	for i := range 8 {
		p.Reset()
		waitFor(t, "reconnection", 10*time.Second, func() bool { return c.State() == StateConnected && p.Accepts() > i+1 })
		time.Sleep(50 * time.Millisecond)
	}
	stop()
	pm.converge(t)
	if c.SessionID() != sid || r.resetCount() != 1 {
		t.Fatalf("session %x→%x, resets %d", sid, c.SessionID(), r.resetCount())
	}
	if z := c.dial.zxid.Load(); z == 0 {
		t.Fatal("the connection kept no zxid")
	}
}
