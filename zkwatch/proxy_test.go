package zkwatch

import (
	"net"
	"sync"
	"testing"
)

// proxy is a loopback TCP proxy in front of a ZooKeeper server that a test
// can stall (bytes are held, connections stay open: requests hang) or cut
// (every connection is closed and new ones are refused: a partition).
type proxy struct {
	t      testing.TB
	ln     net.Listener
	target string

	mu     sync.Mutex
	cond   *sync.Cond
	mode   int
	conns  map[net.Conn]struct{}
	wg     sync.WaitGroup
	closed bool
}

const (
	proxyPass = iota
	proxyStall
	proxyCut
)

func startProxy(t testing.TB, target string) *proxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &proxy{t: t, ln: ln, target: target, conns: map[net.Conn]struct{}{}}
	p.cond = sync.NewCond(&p.mu)
	p.wg.Add(1)
	go p.accept()
	t.Cleanup(p.close)
	return p
}

func (p *proxy) Addr() string { return p.ln.Addr().String() }

func (p *proxy) setMode(mode int) {
	p.mu.Lock()
	p.mode = mode
	if mode == proxyCut {
		for c := range p.conns {
			c.Close()
		}
	}
	p.cond.Broadcast()
	p.mu.Unlock()
}

// Pass forwards traffic again.
func (p *proxy) Pass() { p.setMode(proxyPass) }

// Stall holds every byte from now on, without closing anything.
func (p *proxy) Stall() { p.setMode(proxyStall) }

// Cut closes every connection and refuses new ones until Pass.
func (p *proxy) Cut() { p.setMode(proxyCut) }

func (p *proxy) close() {
	p.mu.Lock()
	p.closed = true
	for c := range p.conns {
		c.Close()
	}
	p.cond.Broadcast()
	p.mu.Unlock()
	p.ln.Close()
	p.wg.Wait()
}

func (p *proxy) track(c net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed || p.mode == proxyCut {
		c.Close()
		return false
	}
	p.conns[c] = struct{}{}
	return true
}

func (p *proxy) untrack(c net.Conn) {
	p.mu.Lock()
	delete(p.conns, c)
	p.mu.Unlock()
	c.Close()
}

func (p *proxy) accept() {
	defer p.wg.Done()
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		if !p.track(c) {
			continue
		}
		up, err := net.Dial("tcp", p.target)
		if err != nil {
			p.untrack(c)
			continue
		}
		if !p.track(up) {
			p.untrack(c)
			continue
		}
		p.wg.Add(2)
		go p.pipe(c, up)
		go p.pipe(up, c)
	}
}

// pipe copies src to dst, holding data while the proxy stalls.
func (p *proxy) pipe(src, dst net.Conn) {
	defer p.wg.Done()
	defer p.untrack(dst)
	defer p.untrack(src)
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			p.mu.Lock()
			for p.mode == proxyStall && !p.closed {
				p.cond.Wait()
			}
			stop := p.closed || p.mode == proxyCut
			p.mu.Unlock()
			if stop {
				return
			}
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}
