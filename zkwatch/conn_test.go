package zkwatch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/ktopo/ktopo/internal/testkit/zktest"
)

func connect(t testing.TB, cs string, o Options) *Conn {
	t.Helper()
	if o.Logger == nil {
		o.Logger = zktest.NewLogger(t)
	}
	c, err := Connect(context.Background(), cs, o)
	if err != nil {
		t.Fatalf("connect %s: %v", cs, err)
	}
	t.Cleanup(c.Close)
	return c
}

var open = zk.WorldACL(zk.PermAll)

// TestChrootIsolation: two chroots on one server do not see each other, and
// every path that comes back (create results, multi results, watch events)
// is chroot-relative.
func TestChrootIsolation(t *testing.T) {
	base := zktest.Chroot(t)
	a := connect(t, base+"/a", Options{CreateChroot: true})
	b := connect(t, base+"/b", Options{CreateChroot: true})
	if a.Chroot() != base[strings.Index(base, "/"):]+"/a" {
		t.Fatalf("chroot %q", a.Chroot())
	}
	for _, c := range []*Conn{a, b} {
		p, err := c.Create("/x", []byte(c.Chroot()), 0, open)
		if err != nil || p != "/x" {
			t.Fatalf("create: %q %v", p, err)
		}
	}
	for _, c := range []*Conn{a, b} {
		data, _, err := c.Get("/x")
		if err != nil || string(data) != c.Chroot() {
			t.Fatalf("get in %s: %q %v", c.Chroot(), data, err)
		}
		kids, _, err := c.Children("/")
		if err != nil || !reflect.DeepEqual(kids, []string{"x"}) {
			t.Fatalf("children of / in %s: %q %v", c.Chroot(), kids, err)
		}
	}
	// The raw tree has the nodes under the full paths.
	raw := zktest.Connect(t, zktest.Addr(t))
	if data, _, err := raw.Get(a.Chroot() + "/x"); err != nil || string(data) != a.Chroot() {
		t.Fatalf("raw get: %q %v", data, err)
	}

	seq, err := a.Create("/seq-", nil, zk.FlagSequence, open)
	if err != nil || seq != "/seq-0000000001" {
		t.Fatalf("sequential create returned %q, %v", seq, err)
	}

	// Watch events carry stripped paths, on the channel and to listeners.
	var mu sync.Mutex
	var heard []zk.Event
	defer a.Listen(func(ev zk.Event) {
		if ev.Type != zk.EventSession {
			mu.Lock()
			heard = append(heard, ev)
			mu.Unlock()
		}
	})()
	_, _, ch, err := a.GetW("/x")
	if err != nil {
		t.Fatal(err)
	}
	_, _, cch, err := a.ChildrenW("/")
	if err != nil {
		t.Fatal(err)
	}
	ok, _, ech, err := a.ExistsW("/later")
	if err != nil || ok {
		t.Fatalf("exists /later: %v %v", ok, err)
	}
	if _, err := b.Set("/x", []byte("b's"), -1); err != nil { // other chroot: no event in a
		t.Fatal(err)
	}
	if _, err := a.Set("/x", []byte("new"), 0); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Create("/later", nil, 0, open); err != nil {
		t.Fatal(err)
	}
	for _, w := range []struct {
		ch   <-chan zk.Event
		typ  zk.EventType
		path string
	}{{ch, zk.EventNodeDataChanged, "/x"}, {ech, zk.EventNodeCreated, "/later"}, {cch, zk.EventNodeChildrenChanged, "/"}} {
		select {
		case ev := <-w.ch:
			if ev.Type != w.typ || ev.Path != w.path {
				t.Errorf("event %v %q, want %v %q", ev.Type, ev.Path, w.typ, w.path)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("no %v event", w.typ)
		}
	}
	mu.Lock()
	var paths []string
	for _, ev := range heard {
		paths = append(paths, ev.Path)
	}
	mu.Unlock()
	slices.Sort(paths)
	if !reflect.DeepEqual(paths, []string{"/", "/later", "/x"}) {
		t.Errorf("listener heard %q", paths)
	}

	// Multi: paths prefixed, caller's requests untouched, results stripped.
	ops := []any{
		&zk.CreateRequest{Path: "/m", Data: []byte("1"), Acl: open},
		&zk.CreateRequest{Path: "/m/s-", Acl: open, Flags: zk.FlagSequence},
		&zk.SetDataRequest{Path: "/x", Data: []byte("multi"), Version: 1},
		&zk.CheckVersionRequest{Path: "/later", Version: 0},
		&zk.DeleteRequest{Path: "/seq-0000000001", Version: -1},
	}
	res, err := a.Multi(ops...)
	if err != nil {
		t.Fatal(err)
	}
	if res[0].String != "/m" || res[1].String != "/m/s-0000000000" || res[2].Stat == nil || res[2].Stat.Version != 2 {
		t.Fatalf("multi results %+v", res)
	}
	if ops[0].(*zk.CreateRequest).Path != "/m" || ops[4].(*zk.DeleteRequest).Path != "/seq-0000000001" {
		t.Fatal("multi modified the caller's requests")
	}
	if data, _, _ := b.Get("/x"); string(data) != "b's" {
		t.Fatalf("b's /x changed: %q", data)
	}
	// A failed multi returns per-op results and the first error, like *zk.Conn.
	res, err = a.Multi(&zk.CheckVersionRequest{Path: "/x", Version: 0}, &zk.DeleteRequest{Path: "/x", Version: -1})
	if !errors.Is(err, zk.ErrBadVersion) || len(res) != 2 {
		t.Fatalf("failed multi: %+v %v", res, err)
	}
	if _, err := a.Multi(&zk.CreateRequest{Path: "rel"}); err == nil {
		t.Fatal("multi with a relative path accepted")
	}
	if _, err := a.Multi("nope"); err == nil || !strings.Contains(err.Error(), "unknown operation type string") {
		t.Fatalf("multi with a bad op: %v", err)
	}

	// Server answers come back unwrapped, as from *zk.Conn.
	if _, _, err := a.Get("/missing"); !errors.Is(err, zk.ErrNoNode) {
		t.Fatalf("get missing: %v", err)
	}
	if _, err := a.Create("/x", nil, 0, open); !errors.Is(err, zk.ErrNodeExists) {
		t.Fatalf("create existing: %v", err)
	}
	if err := a.Delete("/x", 99); !errors.Is(err, zk.ErrBadVersion) {
		t.Fatalf("delete bad version: %v", err)
	}
	if _, _, err := a.Get("x"); !errors.Is(err, zk.ErrInvalidPath) {
		t.Fatalf("relative path: %v", err)
	}
	// Delete through the chroot, then the chroot root itself is "/".
	if err := a.CreateAll("/deep/er/path"); err != nil {
		t.Fatal(err)
	}
	if ok, st, err := a.Exists("/deep/er/path"); !ok || err != nil || st.NumChildren != 0 {
		t.Fatalf("exists after CreateAll: %v %v", ok, err)
	}
	if err := a.Delete("/later", -1); err != nil {
		t.Fatal(err)
	}
}

// ZK is the kind of interface the cluster package declares: *zk.Conn and
// *Conn must both satisfy it.
type ZK interface {
	Get(string) ([]byte, *zk.Stat, error)
	GetW(string) ([]byte, *zk.Stat, <-chan zk.Event, error)
	Children(string) ([]string, *zk.Stat, error)
	ChildrenW(string) ([]string, *zk.Stat, <-chan zk.Event, error)
	Exists(string) (bool, *zk.Stat, error)
	ExistsW(string) (bool, *zk.Stat, <-chan zk.Event, error)
	Create(string, []byte, int32, []zk.ACL) (string, error)
	Set(string, []byte, int32) (*zk.Stat, error)
	Delete(string, int32) error
	Multi(ops ...any) ([]zk.MultiResponse, error)
}

var (
	_ ZK = (*zk.Conn)(nil)
	_ ZK = (*Conn)(nil)
)

func TestMissingChroot(t *testing.T) {
	base := zktest.Chroot(t)
	_, err := Connect(context.Background(), base+"/nope", Options{Logger: zktest.NewLogger(t)})
	if !errors.Is(err, ErrNoChroot) || !strings.Contains(err.Error(), "/nope") || strings.Contains(err.Error(), "did you mean") {
		t.Fatalf("got %v, want ErrNoChroot naming the chroot", err)
	}
	// A typo'd chroot is offered the znode it most likely meant, where it
	// exists (newcomer 2026-12b: "/kafak" said only that it did not exist).
	c := connect(t, base, Options{})
	for _, p := range []string{"/kafka/prod", "/kafka-old", "/metrics"} {
		if err := c.CreateAll(p); err != nil {
			t.Fatal(err)
		}
	}
	servers := strings.SplitN(base, "/", 2)[0]
	root := "/" + strings.SplitN(base, "/", 2)[1]
	for _, tc := range []struct{ chroot, want string }{
		{"/kafak", "did you mean " + root + "/kafka? It exists: connect to " + servers + root + "/kafka)"},
		{"/kafak/prod", "did you mean " + root + "/kafka/prod? It exists: connect to " + servers + root + "/kafka/prod)"},
		{"/kafka-odl", "did you mean " + root + "/kafka-old?"},
		{"/kafka/prd", "did you mean " + root + "/kafka/prod?"},
		{"/kafak/staging", ""}, // /kafka/staging does not exist either
		{"/xyz", ""},
	} {
		_, err := Connect(context.Background(), base+tc.chroot, Options{Logger: zktest.NewLogger(t)})
		switch {
		case !errors.Is(err, ErrNoChroot):
			t.Errorf("%s: %v, want ErrNoChroot", tc.chroot, err)
		case tc.want == "" && strings.Contains(err.Error(), "did you mean"):
			t.Errorf("%s: %v offers what does not exist", tc.chroot, err)
		case !strings.Contains(err.Error(), tc.want):
			t.Errorf("%s: %v, want %q", tc.chroot, err, tc.want)
		}
	}
	if d := editDistance("kafak", "kafka"); d != 1 {
		t.Errorf("kafak/kafka: distance %d, want 1 (one swap)", d)
	}
}

func TestDigestAuth(t *testing.T) {
	base := zktest.Chroot(t)
	alice := connect(t, base, Options{Digest: "alice:secret"})
	acl := zk.DigestACL(zk.PermAll, "alice", "secret")
	if _, err := alice.Create("/private", []byte("hush"), 0, acl); err != nil {
		t.Fatal(err)
	}
	if data, _, err := alice.Get("/private"); err != nil || string(data) != "hush" {
		t.Fatalf("alice: %q %v", data, err)
	}
	for _, digest := range []string{"", "alice:wrong", "bob:secret"} {
		c := connect(t, base, Options{Digest: digest})
		if _, _, err := c.Get("/private"); !errors.Is(err, zk.ErrNoAuth) {
			t.Errorf("digest %q: got %v, want zk.ErrNoAuth", digest, err)
		}
		// exists needs no ACL, except on 3.8.4+ and 3.9.2+, where it
		// needs READ (ZOOKEEPER-2590). (go-zookeeper's Exists says true
		// with any error but NoNode.)
		ok, _, err := c.Exists("/private")
		if zktest.ExistsChecksRead() {
			if !errors.Is(err, zk.ErrNoAuth) {
				t.Errorf("digest %q on ZooKeeper %s: exists %v %v, want zk.ErrNoAuth", digest, zktest.Version(), ok, err)
			}
		} else if !ok || err != nil {
			t.Errorf("digest %q: exists %v %v", digest, ok, err)
		}
	}
	if _, err := Connect(context.Background(), base, Options{Digest: "nocolon"}); err == nil || !strings.Contains(err.Error(), "user:password") {
		t.Fatalf("bad digest: %v", err)
	}
}

func TestConnectErrors(t *testing.T) {
	ctx := context.Background()
	for _, cs := range []string{"", "h:99999", ":2181", "h:2181/bad/"} {
		if _, err := Connect(ctx, cs, Options{}); err == nil {
			t.Errorf("%q: no error", cs)
		}
	}
	// A closed port fails at the first attempt, long before the connect
	// timeout, naming the address and the cause.
	_, err := Connect(ctx, "127.0.0.1:1", Options{ConnectTimeout: time.Hour})
	if err == nil || err.Error() != "zookeeper 127.0.0.1:1: connect: connection refused" {
		t.Fatalf("closed port: %v", err)
	}
	_, err = Connect(ctx, "127.0.0.1:1,127.0.0.1:2/kafka", Options{ConnectTimeout: time.Hour})
	if err == nil || !strings.Contains(err.Error(), "zookeeper 127.0.0.1:1: connect: connection refused") ||
		!strings.Contains(err.Error(), "zookeeper 127.0.0.1:2: connect: connection refused") {
		t.Fatalf("two closed ports: %v", err)
	}
	_, err = Connect(ctx, "no-such-host.invalid:2181", Options{})
	if err == nil || !strings.Contains(err.Error(), "zookeeper no-such-host.invalid:2181: lookup no-such-host.invalid") {
		t.Fatalf("unresolvable host: %v", err)
	}
	// A server that accepts TCP but never answers the handshake.
	p := zktest.StartProxy(t, zktest.Addr(t))
	p.Stall()
	_, err = Connect(ctx, p.Addr(), Options{ConnectTimeout: time.Second, Logger: zktest.NewLogger(t)})
	want := fmt.Sprintf("no session with %s within 1s", p.Addr())
	if err == nil || !strings.HasPrefix(err.Error(), want) || !strings.HasSuffix(err.Error(), "did not complete the session handshake") {
		t.Fatalf("stalled server: %v, want %q…", err, want)
	}
	// ctx cancellation ends the wait too.
	cctx, cancel := context.WithCancel(ctx)
	go func() { time.Sleep(100 * time.Millisecond); cancel() }()
	_, err = Connect(cctx, p.Addr(), Options{ConnectTimeout: time.Hour, Logger: zktest.NewLogger(t)})
	if err == nil || !strings.Contains(err.Error(), "context canceled") {
		t.Fatalf("cancelled connect: %v", err)
	}
}

// TestRequestDeadline: a server that stops answering (but keeps the TCP
// connection) makes requests fail with ErrTimeout after the deadline.
func TestRequestDeadline(t *testing.T) {
	base := zktest.Chroot(t)
	p := zktest.StartProxy(t, zktest.Addr(t))
	c := connect(t, p.Addr()+base[strings.Index(base, "/"):], Options{RequestTimeout: 500 * time.Millisecond, SessionTimeout: 30 * time.Second})
	if _, err := c.Create("/n", []byte("1"), 0, open); err != nil {
		t.Fatal(err)
	}
	p.Stall()
	_, _, err := c.Get("/n")
	var oe *OpError
	if !errors.Is(err, ErrTimeout) || !errors.As(err, &oe) || oe.Server != p.Addr() ||
		err.Error() != fmt.Sprintf("zookeeper %s: get /n: no reply within 500ms", p.Addr()) {
		t.Fatalf("stalled get: %v", err)
	}
	if _, err := c.Set("/n", nil, -1); !errors.Is(err, ErrTimeout) {
		t.Fatalf("stalled set: %v", err)
	}
	p.Pass()
	// The held requests complete once traffic flows again.
	var data []byte
	for i := 0; i < 50; i++ {
		if data, _, err = c.Get("/n"); err == nil {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err != nil {
		t.Fatalf("after the stall: %v", err)
	}
	_ = data
}

// TestServerKilled: a server stopped in the middle of a stream of requests
// gives each request a clear error, none hangs past the deadline.
func TestServerKilled(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a dedicated server")
	}
	srv := zktest.StartServer(t, zktest.Options{})
	c := connect(t, srv.Addr(), Options{RequestTimeout: 2 * time.Second})
	if _, err := c.Create("/n", []byte("1"), 0, open); err != nil {
		t.Fatal(err)
	}
	errs := make(chan error, 1000)
	stop := inLoops(4, func() {
		start := time.Now()
		_, _, err := c.Get("/n")
		if d := time.Since(start); d > 2*time.Second+time.Second {
			errs <- fmt.Errorf("get took %v", d)
		}
		if err != nil {
			select {
			case errs <- err:
			default:
			}
			time.Sleep(50 * time.Millisecond)
		}
	})
	time.Sleep(200 * time.Millisecond)
	srv.Kill()
	time.Sleep(3 * time.Second)
	stop()
	close(errs)
	n := 0
	for err := range errs {
		n++
		var oe *OpError
		if !errors.As(err, &oe) || oe.Op != "get" || oe.Path != "/n" || !strings.HasPrefix(err.Error(), "zookeeper 127.0.0.1:") {
			t.Fatalf("unclear error: %v", err)
		}
		if !errors.Is(err, zk.ErrNoServer) && !errors.Is(err, zk.ErrConnectionClosed) && !errors.Is(err, ErrTimeout) {
			t.Fatalf("unexpected cause: %v", err)
		}
	}
	if n == 0 {
		t.Fatal("no request failed after the server was killed")
	}
	start := time.Now()
	_, _, err := c.Get("/n")
	t.Logf("get with the server down: %v after %v", err, time.Since(start).Round(time.Millisecond))
	if err == nil {
		t.Fatal("get succeeded with the server down")
	}
}

func TestReadOnly(t *testing.T) {
	base := zktest.Chroot(t)
	rw := connect(t, base, Options{})
	if _, err := rw.Create("/n", []byte("1"), 0, open); err != nil {
		t.Fatal(err)
	}
	ro := connect(t, base, Options{ReadOnly: true})
	if data, _, err := ro.Get("/n"); err != nil || string(data) != "1" {
		t.Fatalf("read-only get: %q %v", data, err)
	}
	for _, tc := range []struct {
		err  error
		want string
	}{
		{func() error { _, err := ro.Create("/m", nil, 0, open); return err }(), "read-only mode: refusing to create /m"},
		{func() error { _, err := ro.Set("/n", nil, -1); return err }(), "read-only mode: refusing to set /n"},
		{ro.Delete("/n", -1), "read-only mode: refusing to delete /n"},
		{ro.CreateAll("/a/b"), "read-only mode: refusing to create /a/b"},
		{func() error {
			_, err := ro.Multi(&zk.CreateRequest{Path: "/a"}, &zk.DeleteRequest{Path: "/n"})
			return err
		}(), "read-only mode: refusing to multi (create /a, delete /n)"},
	} {
		if !errors.Is(tc.err, ErrReadOnly) || tc.err.Error() != tc.want {
			t.Errorf("got %v, want %q", tc.err, tc.want)
		}
	}
	if ok, _, _ := rw.Exists("/m"); ok {
		t.Fatal("read-only create went through")
	}
}

// TestSessionEvents: listeners see the connection's session states.
func TestSessionEvents(t *testing.T) {
	p := zktest.StartProxy(t, zktest.Addr(t))
	c := connect(t, p.Addr(), Options{SessionTimeout: 10 * time.Second})
	if c.State() != StateConnected || c.SessionID() == 0 {
		t.Fatalf("state %v session %x", c.State(), c.SessionID())
	}
	states := make(chan zk.State, 100)
	defer c.Listen(func(ev zk.Event) {
		if ev.Type == zk.EventSession {
			states <- ev.State
		}
	})()
	p.Cut()
	waitState(t, states, zk.StateDisconnected)
	p.Pass()
	waitState(t, states, zk.StateHasSession)
}

func waitState(t *testing.T, ch <-chan zk.State, want zk.State) {
	t.Helper()
	timeout := time.After(20 * time.Second)
	for {
		select {
		case s := <-ch:
			if s == want {
				return
			}
		case <-timeout:
			t.Fatalf("no %v", want)
		}
	}
}

// TestHandshakeTimeout: a server that accepts the connection but never
// answers the handshake (a restarting ZooKeeper does this) is given up on
// after the handshake timeout, and the next attempt gets the session.
// go-zookeeper alone would wait 10 × 2/3 × 3 s = 20 s, past the connect
// timeout.
func TestHandshakeTimeout(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var conns []net.Conn
	defer func() {
		ln.Close()
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
		wg.Wait()
	}()
	wg.Go(func() {
		for first := true; ; first = false {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
			if first {
				continue // accepted, never served
			}
			up, err := net.Dial("tcp", zktest.Addr(t))
			if err != nil {
				c.Close()
				continue
			}
			mu.Lock()
			conns = append(conns, up)
			mu.Unlock()
			wg.Go(func() { _, _ = io.Copy(up, c); up.Close() })
			wg.Go(func() { _, _ = io.Copy(c, up); c.Close() })
		}
	})
	c := connect(t, ln.Addr().String(), Options{SessionTimeout: 3 * time.Second, ConnectTimeout: 15 * time.Second})
	if _, _, err := c.Exists("/"); err != nil {
		t.Fatal(err)
	}
	c.Close()
}
