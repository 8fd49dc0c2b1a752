package zktest

import (
	"io"
	"net"
	"sync"
	"testing"
	"time"
)

// Proxy is a loopback TCP proxy in front of a ZooKeeper server that injects
// network faults: latency, stalls (bytes held, connections open), held
// replies or requests (one direction only), cuts (every connection closed,
// new ones closed at once), resets (every connection closed with a TCP RST)
// and a black hole (connections accepted and never answered). It forwards
// bytes without reading the protocol; a tap sees the client's stream.
type Proxy struct {
	ln     net.Listener
	target string
	tap    func() io.WriteCloser // a fresh tap per connection, or nil

	mu      sync.Mutex
	cond    *sync.Cond
	latency time.Duration
	hold    [2]bool // bytes held, by direction (up: client to server)
	cut     bool
	hole    bool
	closed  bool
	conns   map[net.Conn]struct{}
	wg      sync.WaitGroup
	accepts int
}

// Directions of a proxied connection.
const (
	up   = 0 // client to server: requests
	down = 1 // server to client: replies and watch events
)

// StartProxy starts a Proxy in front of target for one test; it stops when
// the test ends.
func StartProxy(t testing.TB, target string) *Proxy {
	t.Helper()
	p, err := NewProxy(target)
	if err != nil {
		t.Fatalf("zktest: proxy: %v", err)
	}
	t.Cleanup(p.Close)
	return p
}

// NewProxy starts a Proxy in front of target on a free loopback port.
func NewProxy(target string) (*Proxy, error) { return newProxy(target, nil) }

func newProxy(target string, tap func() io.WriteCloser) (*Proxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := &Proxy{ln: ln, target: target, tap: tap, conns: map[net.Conn]struct{}{}}
	p.cond = sync.NewCond(&p.mu)
	p.wg.Add(1)
	go p.accept()
	return p, nil
}

// Addr is the proxy's "127.0.0.1:PORT", to give clients instead of the server's.
func (p *Proxy) Addr() string { return p.ln.Addr().String() }

// Target is the server's address.
func (p *Proxy) Target() string { return p.target }

// Accepts counts the connections accepted so far (a client's reconnects
// show here).
func (p *Proxy) Accepts() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.accepts
}

// Latency delays every chunk of bytes, in both directions, by d from the
// moment the proxy read it (so a round trip costs 2d); 0 removes it.
func (p *Proxy) Latency(d time.Duration) {
	p.mu.Lock()
	p.latency = d
	p.cond.Broadcast()
	p.mu.Unlock()
}

// Stall holds every byte in both directions from now on, on current and
// new connections, without closing anything: requests hang, pings go
// unanswered. Pass delivers what was held.
func (p *Proxy) Stall() { p.setHold(true, true) }

// HoldReplies holds what the server sends (replies, watch events) while
// requests still reach it: a write is applied and its reply is lost if the
// connection is then cut.
func (p *Proxy) HoldReplies() { p.setHold(false, true) }

// HoldRequests holds what the client sends: requests never reach the
// server if the connection is then cut.
func (p *Proxy) HoldRequests() { p.setHold(true, false) }

func (p *Proxy) setHold(u, d bool) {
	p.mu.Lock()
	p.hold = [2]bool{u, d}
	p.cond.Broadcast()
	p.mu.Unlock()
}

// Cut closes every connection and closes new ones as soon as they are
// accepted, until Pass: a partition between the clients and the server.
// Held bytes are dropped.
func (p *Proxy) Cut() {
	p.mu.Lock()
	p.cut = true
	p.closeAll(false)
	p.mu.Unlock()
}

// Drop closes every current connection (the clients reconnect); new
// connections pass.
func (p *Proxy) Drop() {
	p.mu.Lock()
	p.closeAll(false)
	p.mu.Unlock()
}

// Reset closes every current connection with a TCP reset (RST, not FIN);
// new connections pass.
func (p *Proxy) Reset() {
	p.mu.Lock()
	p.closeAll(true)
	p.mu.Unlock()
}

// BlackHole makes the proxy a server that accepts connections and never
// answers: current connections are closed, new ones are accepted, their
// bytes read and dropped, nothing is sent back, until Pass.
func (p *Proxy) BlackHole() {
	p.mu.Lock()
	p.hole = true
	p.closeAll(false)
	p.mu.Unlock()
}

// Pass removes every fault (latency included) and delivers held bytes.
func (p *Proxy) Pass() {
	p.mu.Lock()
	p.latency, p.hold, p.cut, p.hole = 0, [2]bool{}, false, false
	p.cond.Broadcast()
	p.mu.Unlock()
}

// Close stops the proxy and closes every proxied connection.
func (p *Proxy) Close() {
	p.mu.Lock()
	p.closed = true
	p.closeAll(false)
	p.mu.Unlock()
	_ = p.ln.Close()
	p.wg.Wait()
}

// closeAll closes every connection (with RST when reset); p.mu is held.
func (p *Proxy) closeAll(reset bool) {
	for c := range p.conns {
		if tc, ok := c.(*net.TCPConn); ok && reset {
			_ = tc.SetLinger(0)
		}
		_ = c.Close()
	}
	clear(p.conns)
	p.cond.Broadcast()
}

// track registers c, or closes it when the proxy is cut or closed.
func (p *Proxy) track(c net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed || p.cut {
		_ = c.Close()
		return false
	}
	p.conns[c] = struct{}{}
	return true
}

func (p *Proxy) untrack(c net.Conn) {
	p.mu.Lock()
	delete(p.conns, c)
	p.mu.Unlock()
	_ = c.Close()
}

func (p *Proxy) accept() {
	defer p.wg.Done()
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		p.accepts++
		hole := p.hole
		p.mu.Unlock()
		if !p.track(c) {
			continue
		}
		if hole {
			p.wg.Go(func() {
				_, _ = io.Copy(io.Discard, c)
				p.untrack(c)
			})
			continue
		}
		s, err := net.DialTimeout("tcp", p.target, 5*time.Second)
		if err != nil {
			// Nothing there: reset, as close to a refusal as an accepted
			// connection gets.
			if tc, ok := c.(*net.TCPConn); ok {
				_ = tc.SetLinger(0)
			}
			p.untrack(c)
			continue
		}
		if !p.track(s) {
			p.untrack(c)
			continue
		}
		var tap io.WriteCloser
		if p.tap != nil {
			tap = p.tap()
		}
		p.wg.Go(func() { p.pipe(c, s, up, tap) })
		p.wg.Go(func() { p.pipe(s, c, down, nil) })
	}
}

// chunk is bytes read from one side, stamped with when.
type chunk struct {
	b  []byte
	at time.Time
}

// pipe copies src to dst in direction dir: one goroutine reads and stamps
// chunks, this one delivers each once its latency has passed and its
// direction is not held, so latency delays a stream without throttling it.
func (p *Proxy) pipe(src, dst net.Conn, dir int, tap io.WriteCloser) {
	defer p.untrack(dst)
	defer p.untrack(src)
	if tap != nil {
		defer tap.Close()
	}
	chunks := make(chan chunk, 256)
	p.wg.Go(func() {
		defer close(chunks)
		for {
			buf := make([]byte, 32<<10)
			n, err := src.Read(buf)
			if n > 0 {
				chunks <- chunk{buf[:n], time.Now()}
			}
			if err != nil {
				return
			}
		}
	})
	defer func() {
		// Unblock the reader (src is closed by untrack) and drain it.
		_ = src.Close()
		for range chunks {
		}
	}()
	for ch := range chunks {
		if !p.wait(ch.at, dir, dst) {
			return
		}
		if tap != nil {
			if _, err := tap.Write(ch.b); err != nil {
				tap = nil
			}
		}
		if _, err := dst.Write(ch.b); err != nil {
			return
		}
	}
}

// wait blocks until a chunk read at at may go out in direction dir: its
// latency has passed and the direction is not held. It returns false
// when the connection or the proxy was closed meanwhile.
func (p *Proxy) wait(at time.Time, dir int, dst net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	for {
		if p.closed {
			return false
		}
		if _, ok := p.conns[dst]; !ok {
			return false
		}
		if p.hold[dir] {
			p.cond.Wait()
			continue
		}
		due := at.Add(p.latency)
		d := time.Until(due)
		if d <= 0 {
			return true
		}
		// Sleep outside the lock; a fault change wakes the wait early
		// through the timer's broadcast.
		t := time.AfterFunc(d, func() {
			p.mu.Lock()
			p.cond.Broadcast()
			p.mu.Unlock()
		})
		p.cond.Wait()
		t.Stop()
	}
}

// StartSilent starts, for one test, a listener that accepts every
// connection and never answers (a server hung before its request
// pipeline, or a black-holed address), and returns its address.
func StartSilent(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("zktest: silent listener: %v", err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
			wg.Go(func() { _, _ = io.Copy(io.Discard, c) })
		}
	})
	t.Cleanup(func() {
		_ = ln.Close()
		mu.Lock()
		for _, c := range conns {
			_ = c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	return ln.Addr().String()
}
