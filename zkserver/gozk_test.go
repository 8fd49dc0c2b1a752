package zkserver_test

import (
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/ktopo/ktopo/internal/testkit/zktest"
)

// proxy forwards TCP to a server and can cut or block the traffic, to
// simulate network trouble between go-zookeeper and the server.
type proxy struct {
	ln      net.Listener
	target  string
	mu      sync.Mutex
	conns   []net.Conn
	blocked bool
}

func newProxy(t *testing.T, target string) *proxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &proxy{ln: ln, target: target}
	t.Cleanup(func() { ln.Close(); p.cut() })
	go p.serve()
	return p
}

func (p *proxy) addr() string { return p.ln.Addr().String() }

func (p *proxy) serve() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		blocked := p.blocked
		p.mu.Unlock()
		if blocked {
			c.Close()
			continue
		}
		s, err := net.Dial("tcp", p.target)
		if err != nil {
			c.Close()
			continue
		}
		p.mu.Lock()
		p.conns = append(p.conns, c, s)
		p.mu.Unlock()
		go func() { _, _ = io.Copy(s, c); s.Close() }()
		go func() { _, _ = io.Copy(c, s); c.Close() }()
	}
}

// cut closes every proxied connection.
func (p *proxy) cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
}

func (p *proxy) block(b bool) {
	p.mu.Lock()
	p.blocked = b
	p.mu.Unlock()
	if b {
		p.cut()
	}
}

func gozk(t *testing.T, addr string, timeout time.Duration) (*zk.Conn, <-chan zk.Event) {
	t.Helper()
	c, ev, err := zk.Connect([]string{addr}, timeout, zk.WithLogInfo(false), zk.WithLogger(zktest.NewLogger(t)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c, ev
}

// waitState waits for a session event of the given state.
func waitState(t *testing.T, ev <-chan zk.Event, want zk.State) []zk.State {
	t.Helper()
	var seen []zk.State
	deadline := time.After(30 * time.Second)
	for {
		select {
		case e := <-ev:
			if e.Type == zk.EventSession {
				seen = append(seen, e.State)
				if e.State == want {
					return seen
				}
			}
		case <-deadline:
			t.Fatalf("no %v after 30s; saw %v", want, seen)
		}
	}
}

func waitWatch(t *testing.T, ch <-chan zk.Event) zk.Event {
	t.Helper()
	select {
	case e := <-ch:
		return e
	case <-time.After(30 * time.Second):
		t.Fatal("watch did not fire within 30s")
	}
	return zk.Event{}
}

// TestGoZookeeper runs the go-zookeeper end-to-end items of spec §17 (86–90)
// on both servers and compares what the client library reports.
func TestGoZookeeper(t *testing.T) {
	tgs := targets(t)
	type item struct {
		name  string
		fresh bool
		fn    func(t *testing.T, addr, prefix string) []string
	}
	items := []item{
		{"86-connect-watch", false, func(t *testing.T, addr, prefix string) []string {
			c, ev := gozk(t, addr, 10*time.Second)
			states := waitState(t, ev, zk.StateHasSession)
			if _, err := c.Create(prefix, []byte("a"), 0, zk.WorldACL(zk.PermAll)); err != nil {
				t.Fatal(err)
			}
			_, _, ch, err := c.GetW(prefix)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := c.Set(prefix, []byte("b"), -1); err != nil {
				t.Fatal(err)
			}
			e := waitWatch(t, ch)
			return []string{fmt.Sprint(states), fmt.Sprint(e.Type, e.State)}
		}},
		{"87-reconnect-keeps-session", false, func(t *testing.T, addr, prefix string) []string {
			p := newProxy(t, addr)
			c, ev := gozk(t, p.addr(), 10*time.Second)
			waitState(t, ev, zk.StateHasSession)
			sid := c.SessionID()
			c.Create(prefix, nil, 0, zk.WorldACL(zk.PermAll))
			_, _, ch, err := c.GetW(prefix)
			if err != nil {
				t.Fatal(err)
			}
			p.cut()
			waitState(t, ev, zk.StateDisconnected)
			waitState(t, ev, zk.StateHasSession)
			other, _ := gozk(t, addr, 10*time.Second)
			if _, err := other.Set(prefix, []byte("x"), -1); err != nil {
				t.Fatal(err)
			}
			e := waitWatch(t, ch)
			return []string{fmt.Sprint("sameSession=", c.SessionID() == sid), fmt.Sprint(e.Type)}
		}},
		{"88-expiry", true, func(t *testing.T, addr, prefix string) []string {
			p := newProxy(t, addr)
			c, ev := gozk(t, p.addr(), time.Second)
			waitState(t, ev, zk.StateHasSession)
			sid := c.SessionID()
			_, _, ch, err := c.ExistsW(prefix)
			if err != nil {
				t.Fatal(err)
			}
			p.block(true)
			waitState(t, ev, zk.StateDisconnected)
			time.Sleep(3 * time.Second) // > timeout + tick
			p.block(false)
			waitState(t, ev, zk.StateExpired)
			e := waitWatch(t, ch)
			waitState(t, ev, zk.StateHasSession)
			return []string{fmt.Sprint(e.Type, " ", errors.Is(e.Err, zk.ErrSessionExpired)), fmt.Sprint("newSession=", c.SessionID() != sid)}
		}},
		{"89-multi-failure", false, func(t *testing.T, addr, prefix string) []string {
			c, _ := gozk(t, addr, 10*time.Second)
			c.Create(prefix, nil, 0, zk.WorldACL(zk.PermAll))
			res, err := c.Multi(
				&zk.CreateRequest{Path: prefix + "/a", Acl: zk.WorldACL(zk.PermAll)},
				&zk.CheckVersionRequest{Path: prefix, Version: 3},
				&zk.SetDataRequest{Path: prefix, Version: -1},
			)
			out := []string{fmt.Sprint("err=", err, " isBadVersion=", errors.Is(err, zk.ErrBadVersion))}
			for _, r := range res {
				out = append(out, fmt.Sprint(r.Error))
			}
			return out
		}},
		{"90-auth-after-reconnect", false, func(t *testing.T, addr, prefix string) []string {
			p := newProxy(t, addr)
			c, ev := gozk(t, p.addr(), 10*time.Second)
			waitState(t, ev, zk.StateHasSession)
			if err := c.AddAuth("digest", []byte("bob:pw")); err != nil {
				t.Fatal(err)
			}
			if _, err := c.Create(prefix, []byte("s"), 0, zk.DigestACL(zk.PermAll, "bob", "pw")); err != nil {
				t.Fatal(err)
			}
			p.cut()
			waitState(t, ev, zk.StateHasSession)
			_, _, err := c.Get(prefix)
			other, _ := gozk(t, addr, 10*time.Second)
			_, _, err2 := other.Get(prefix)
			err3 := other.AddAuth("nope", []byte("x"))
			return []string{fmt.Sprint("owner=", err), fmt.Sprint("other=", err2), fmt.Sprint("badScheme=", err3)}
		}},
	}
	for _, it := range items {
		t.Run(it.name, func(t *testing.T) {
			if it.fresh {
				t.Parallel()
			}
			got := map[string][]string{}
			prefix := fmt.Sprintf("/gozk%d", runSeq.Add(1))
			for _, tg := range tgs {
				t.Run(tg.name, func(t *testing.T) {
					addr := tg.addr
					if it.fresh {
						addr = tg.fresh(t, 500*time.Millisecond)
					}
					got[tg.name] = it.fn(t, addr, prefix)
					t.Logf("%v", got[tg.name])
				})
			}
			compareTargets(t, got)
		})
	}
}
