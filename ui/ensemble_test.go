package ui

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/teatest/v2"
	"github.com/go-zookeeper/zk"

	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/clusterops"
	"github.com/ktopo/ktopo/clusterwatch"
	"github.com/ktopo/ktopo/clusterwatch/zksource"
	"github.com/ktopo/ktopo/internal/testkit/fixture"
	"github.com/ktopo/ktopo/internal/testkit/zktest"
	"github.com/ktopo/ktopo/sandbox"
	"github.com/ktopo/ktopo/zkops"
	"github.com/ktopo/ktopo/zkwatch"
)

// recordingSource passes a mirror's batches on to the App and notes the
// states they carry and how many were resets.
type recordingSource struct {
	*zksource.Source
	ch     chan zkwatch.Batch
	mu     sync.Mutex
	states []clusterwatch.State
	resets int
}

func record(m *zkwatch.Mirror) *recordingSource {
	r := &recordingSource{Source: zksource.New(m, nil), ch: make(chan zkwatch.Batch)}
	go func() {
		defer close(r.ch)
		for b := range m.Batches() {
			r.mu.Lock()
			r.states = append(r.states, zksource.FromMirrorBatch(zkwatch.Batch{States: b.States}).States...)
			if b.Reset {
				r.resets++
			}
			r.mu.Unlock()
			r.ch <- b
		}
	}()
	return r
}

func (r *recordingSource) Next(ctx context.Context) (clusterwatch.Batch, error) {
	select {
	case <-ctx.Done():
		return clusterwatch.Batch{}, ctx.Err()
	case b, ok := <-r.ch:
		if !ok {
			return clusterwatch.Batch{}, clusterwatch.ErrClosed
		}
		return zksource.FromMirrorBatch(b), nil
	}
}

// mark returns how many states were seen so far; since, those seen after.
func (r *recordingSource) mark() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.states)
}

func (r *recordingSource) since(n int) []clusterwatch.State {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]clusterwatch.State(nil), r.states[n:]...)
}

func (r *recordingSource) resetCount() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.resets
}

// bannerOf is the warning line of the App's screen ("" without one).
func bannerOf(a *App) string {
	for _, l := range strings.Split(ansi.Strip(a.View().Content), "\n") {
		if i := strings.Index(l, "⚠ "); i >= 0 {
			return strings.TrimSpace(l[i+len("⚠ "):])
		}
	}
	return ""
}

// sameTree reports how the mirror's tree differs from a fresh read of the
// same shape through direct ("" when it does not): data and last write of
// every node.
func sameTree(t *testing.T, m *zkwatch.Mirror, direct *zkwatch.Conn) string {
	t.Helper()
	fresh, err := zkwatch.NewMirror(direct, zksource.Shape(), zkwatch.MirrorOptions{Once: true})
	if err != nil {
		t.Fatal(err)
	}
	defer fresh.Close()
	for b := range fresh.Batches() {
		if b.Reset {
			break
		}
	}
	want, got := fresh.Tree(), m.Tree()
	var diffs []string
	for p, w := range want {
		g, ok := got[p]
		switch {
		case !ok:
			diffs = append(diffs, "missing "+p)
		case !bytes.Equal(g.Data, w.Data) || (g.Stat == nil) != (w.Stat == nil) || g.Stat != nil && g.Stat.Mzxid != w.Stat.Mzxid:
			diffs = append(diffs, "differs "+p)
		}
	}
	for p := range got {
		if _, ok := want[p]; !ok {
			diffs = append(diffs, "extra "+p)
		}
	}
	slices.Sort(diffs)
	return strings.Join(diffs, ", ")
}

// TestEnsembleTUI runs the TUI (its mirror, model and banner) and the
// sandbox's brokers and controller on a real 3-server ensemble, the TUI's
// session through a fault proxy per server. Faults, each healed before the
// next:
//
//  1. the server the TUI is connected to dies while its topic creation's
//     write is in flight (applied, the reply lost): the wizard reads back
//     after reconnecting and reports the topic created exactly as
//     previewed, then follows the controller until it is online;
//  2. the leader dies; 3. a follower the TUI does not use dies;
//  4. two servers die: no quorum. The banner says the data is stale and
//     since when; a creation is refused before anything is sent, saying
//     why; the quorum comes back;
//  5. the TUI's connections are cut until its session expires: the banner
//     says it resyncs, the mirror reloads once.
//
// Through 1–4 the TUI keeps its session and its state: no reset batch,
// and no request at all for a fault that changed nothing; after each fault
// the mirror's tree equals the server's and the banner is gone. The
// sandbox's brokers keep their sessions throughout.
func TestEnsembleTUI(t *testing.T) {
	start := time.Now()
	ens := zktest.SharedEnsemble(t)
	defer func() { t.Logf("total %v", time.Since(start).Round(100*time.Millisecond)) }()
	cs := ens.Chroot(t)
	chroot := cs[strings.Index(cs, "/"):]
	sb, err := sandbox.Start(context.Background(), sandbox.Config{Connect: cs, Brokers: 6, Racks: 3, SessionTimeout: 15 * time.Second, NoAutoLeaderRebalance: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sb.Close() })
	direct, err := zkwatch.Connect(context.Background(), cs, zkwatch.Options{SessionTimeout: 15 * time.Second, Logger: zktest.NewLogger(t)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(direct.Close)
	proxies := map[string]int{} // proxy address → server
	var px []*zktest.Proxy
	var addrs []string
	for i, a := range ens.Addrs() {
		p := zktest.StartProxy(t, a)
		px = append(px, p)
		proxies[p.Addr()] = i
		addrs = append(addrs, p.Addr())
	}
	conn, err := zkwatch.Connect(context.Background(), strings.Join(addrs, ",")+chroot, zkwatch.Options{
		SessionTimeout: 8 * time.Second, RequestTimeout: 2 * time.Second, Logger: zktest.NewLogger(t)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(conn.Close)
	inUse := func() int {
		i, ok := proxies[conn.Server()]
		if !ok {
			t.Fatalf("connected to %s", conn.Server())
		}
		return i
	}
	mirror, err := zkwatch.NewMirror(conn, zksource.Shape(), zkwatch.MirrorOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { mirror.Close() })
	src := record(mirror)
	// The wizard's write: the replies of the server in use are held just
	// before it, once armed.
	var held *zktest.Proxy
	var arm bool
	writer := fixture.BeforeMulti{Conn: conn, Before: func() {
		if arm {
			held = px[inUse()]
			held.HoldReplies()
		}
	}}
	tm := teatest.NewTestModel(t, New(Config{Source: src, Prober: zksource.Prober{Browser: conn}, Writer: zkops.NewWriter(writer), Mode: ModeLive, Connect: cs,
		Rand: rand.New(rand.NewPCG(3, 4)), Location: time.UTC}), teatest.WithInitialTermSize(120, 40), teatest.WithProgramOptions(tea.WithFilter(probeFilter)))
	f := &createFlow{tm: tm, addr: cs, conn: direct, sb: sb}
	waitApp(t, tm, "the brokers", func(a *App) bool {
		s := a.Snapshot()
		return s != nil && len(s.LiveBrokerIDs()) == 6 && s.Controller().BrokerID > 0
	})
	plan, err := clusterops.PlanTopic(f.snapshot(t), clusterops.TopicRequest{Name: "base", Partitions: 30, ReplicationFactor: 3, StartIndex: 0, ReplicaShift: -1})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := zkops.NewWriter(direct).CreateTopic(context.Background(), plan, clusterops.Apply); err != nil {
		t.Fatal(err)
	}
	online := func(topic string, n int) {
		t.Helper()
		waitApp(t, tm, topic+" online", func(a *App) bool {
			tp := a.Snapshot().Topic(topic)
			return tp != nil && len(tp.Partitions) == n && a.Snapshot().TopicHealth(tp).Offline == 0 && tp.Health.Uninitialized == 0
		})
	}
	online("base", 30)
	t.Logf("set up in %v", time.Since(start).Round(100*time.Millisecond))
	sid := conn.SessionID()
	epochs := brokerEpochs(t, direct)

	type check struct {
		disconnects bool // the TUI must lose its connection (else: must not)
		quiet       bool // nothing changed: the mirror must send no request
	}
	phase := func(name string, c check, fault func()) {
		t.Helper()
		mark, before, start := src.mark(), mirror.Stats().Requests, time.Now()
		fault()
		if err := conn.WaitSession(context.Background()); err != nil {
			t.Fatal(err)
		}
		if err := ens.Heal(); err != nil {
			t.Fatal(err)
		}
		waitApp(t, tm, name+": no banner", func(a *App) bool { return bannerOf(a) == "" })
		waitFor(t, name+": the mirror equals the server", func() (bool, string) {
			d := sameTree(t, mirror, direct)
			return d == "", d
		})
		states := src.since(mark)
		if c.disconnects != slices.Contains(states, clusterwatch.StateDisconnected) {
			t.Fatalf("%s: states %v", name, states)
		}
		if conn.SessionID() != sid || src.resetCount() != 1 {
			t.Fatalf("%s: session %x → %x, %d resets: want the session kept, no reload", name, sid, conn.SessionID(), src.resetCount())
		}
		if n := mirror.Stats().Requests - before; c.quiet && n != 0 {
			t.Fatalf("%s: the mirror sent %d requests for a fault that changed nothing", name, n)
		}
		t.Logf("%s: %v, %d requests, states %v", name, time.Since(start).Round(100*time.Millisecond), mirror.Stats().Requests-before, states)
	}

	phase("the server in use dies during a creation", check{disconnects: true}, func() {
		f.fillForm(t, "inflight")
		send(tm, "enter")
		waitApp(t, tm, "the preview", stageIs("preview"))
		arm = true
		send(tm, "enter", "y")
		waitFor(t, "the creation applied", func() (bool, string) {
			ok, _, _ := direct.Exists(cluster.TopicPath("inflight"))
			return ok && held != nil, ""
		})
		must(t, ens.Kill(proxies[held.Addr()]))
		// The reply dies with the connection.
		held.Cut()
		held.Pass()
		waitApp(t, tm, "the creation done", stageIs("done"))
		var out string
		waitApp(t, tm, "the outcome", func(a *App) bool {
			out = strings.Join(strings.Fields(ansi.Strip(a.View().Content)), " ")
			return strings.Contains(out, "read back after reconnecting: the topic exists exactly as previewed")
		})
		f.checkWritten(t, wizardPlan(t, f))
		send(tm, "esc")
		waitApp(t, tm, "the wizard closed", func(a *App) bool { return len(a.Stack()) == 0 })
	})
	online("inflight", 12)
	phase("the leader dies", check{disconnects: true, quiet: true}, func() { must(t, ens.Kill(ens.Leader())) })
	phase("a follower not in use dies", check{quiet: true}, func() { must(t, ens.Kill(ens.Follower(inUse()))) })
	phase("no quorum", check{disconnects: true, quiet: true}, func() {
		keep := inUse()
		var down []int
		for i := range ens.Len() {
			if i != keep {
				must(t, ens.Kill(i))
				down = append(down, i)
			}
		}
		var ban string
		waitApp(t, tm, "the stale-data banner", func(a *App) bool {
			ban = bannerOf(a)
			return strings.HasPrefix(ban, "Disconnected from ZooKeeper — reconnecting; the data shown is as of ")
		})
		// Every server tried: two refuse, the survivor closes unanswered.
		waitFor(t, "every server tried", func() (bool, string) {
			_, _, err := conn.Get("/")
			var ns *zkwatch.NoSessionError
			return asNoSession(err, &ns) && len(ns.Problems) == 3, fmt.Sprint(err)
		})
		f.fillForm(t, "noquorum")
		send(tm, "enter")
		waitApp(t, tm, "the preview", stageIs("preview"))
		send(tm, "enter", "y")
		waitApp(t, tm, "the refusal", stageIs("failed"))
		var out string
		waitApp(t, tm, "its reasons", func(a *App) bool {
			out = strings.Join(strings.Fields(ansi.Strip(a.View().Content)), " ")
			return strings.Contains(out, "Nothing was written")
		})
		// Through the proxies the dead servers' connections are reset; the
		// survivor's proxy passes its close on.
		for s, n := range map[string]int{"no session (": 1, "connection reset by peer": 2,
			"accepted the connection and closed it before the session handshake (a ZooKeeper server does that while it has no quorum)": 1} {
			if strings.Count(out, s) != n {
				t.Fatalf("the refusal does not say %q %d times:\n%s", s, n, out)
			}
		}
		t.Logf("banner: %s", ban)
		send(tm, "esc", "esc")
		must(t, ens.Start(down[0]))
	})
	if ok, _, err := direct.Exists(cluster.TopicPath("noquorum")); ok || err != nil {
		t.Fatalf("the refused creation was written (%v)", err)
	}
	if got := brokerEpochs(t, direct); !slices.Equal(got, epochs) {
		t.Fatalf("broker epochs %v, were %v: a broker lost its session", got, epochs)
	}

	// 5. The TUI's connections cut until its session expires.
	if _, err := conn.Create("/tui-session", nil, zk.FlagEphemeral, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	mark, cutAt := src.mark(), time.Now()
	for _, p := range px {
		p.Cut()
	}
	waitFor(t, "the session to expire", func() (bool, string) {
		ok, _, err := direct.Exists("/tui-session")
		return err == nil && !ok, ""
	})
	waitApp(t, tm, "the stale-data banner", func(a *App) bool { return strings.HasPrefix(bannerOf(a), "Disconnected from ZooKeeper") })
	for _, p := range px {
		p.Pass()
	}
	waitFor(t, "the reload", func() (bool, string) {
		st := mirror.Stats()
		return src.resetCount() == 2, fmt.Sprintf("states %v; connection %v, session %x (was %x), server %s; mirror loading %v, %d loads, %d requests",
			src.since(mark), conn.State(), conn.SessionID(), sid, conn.Server(), st.Loading, st.Loads, st.Requests)
	})
	waitApp(t, tm, "no banner", func(a *App) bool { return bannerOf(a) == "" })
	waitFor(t, "the mirror equals the server", func() (bool, string) {
		d := sameTree(t, mirror, direct)
		return d == "", d
	})
	if states := src.since(mark); !slices.Contains(states, clusterwatch.StateSessionLost) {
		t.Fatalf("states %v", states)
	}
	online("inflight", 12)
	t.Logf("expiry: %v, states %v", time.Since(cutAt).Round(100*time.Millisecond), src.since(mark))
}

// brokerEpochs lists the registrations' czxids (the broker epochs).
func brokerEpochs(t *testing.T, c *zkwatch.Conn) []int64 {
	t.Helper()
	ids, _, err := c.Children(cluster.BrokerIDsPath)
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(ids)
	var out []int64
	for _, id := range ids {
		_, st, err := c.Get(cluster.BrokerIDsPath + "/" + id)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, st.Czxid)
	}
	return out
}

func asNoSession(err error, target **zkwatch.NoSessionError) bool {
	return err != nil && errors.As(err, target)
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// waitFor polls cond until it holds (60 s at most); cond says what it saw.
func waitFor(t *testing.T, what string, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		ok, seen := cond()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s: %s", what, seen)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
