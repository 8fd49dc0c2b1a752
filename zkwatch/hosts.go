package zkwatch

import (
	"context"
	"crypto/tls"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/go-zookeeper/zk"
)

// hostProvider is go-zookeeper's round robin over resolved addresses (the
// semantics of zk.DNSHostProvider) with two differences: a host that does
// not resolve is skipped instead of failing the whole list, and it tells
// Connect each time every address has been tried once (retryStart), which is
// when go-zookeeper gives up on queued requests.
type hostProvider struct {
	mu      sync.Mutex
	servers []string
	curr    int
	last    int
	onRetry func()
}

// resolve looks up every "host:port" and returns "ip:port" entries and the
// host name each came from (for TLS server name checks). Hosts that do not
// resolve are reported to logf; it fails only when none does.
func resolve(ctx context.Context, servers []string, logf func(string, ...any)) ([]string, map[string]string, error) {
	var found []string
	var errs []string
	names := map[string]string{}
	for _, s := range servers {
		host, port, err := net.SplitHostPort(s)
		if err != nil {
			return nil, nil, fmt.Errorf("zookeeper %s: %w", s, err)
		}
		if ip := net.ParseIP(host); ip != nil {
			found = append(found, net.JoinHostPort(host, port))
			continue
		}
		addrs, err := net.DefaultResolver.LookupHost(ctx, host)
		if err != nil {
			errs = append(errs, fmt.Sprintf("zookeeper %s: %v", s, err))
			logf("cannot resolve %s: %v", s, err)
			continue
		}
		for _, a := range addrs {
			found = append(found, net.JoinHostPort(a, port))
			names[net.JoinHostPort(a, port)] = host
		}
	}
	if len(found) == 0 {
		return nil, nil, errors.New(strings.Join(errs, "; "))
	}
	rand.Shuffle(len(found), func(i, j int) { found[i], found[j] = found[j], found[i] })
	return found, names, nil
}

// Init is part of zk.HostProvider; the list was resolved beforehand.
func (hp *hostProvider) Init([]string) error {
	hp.curr, hp.last = -1, -1
	return nil
}

// Len is part of zk.HostProvider.
func (hp *hostProvider) Len() int {
	hp.mu.Lock()
	defer hp.mu.Unlock()
	return len(hp.servers)
}

// Next is part of zk.HostProvider.
func (hp *hostProvider) Next() (string, bool) {
	hp.mu.Lock()
	hp.curr = (hp.curr + 1) % len(hp.servers)
	retryStart := hp.curr == hp.last
	if hp.last == -1 {
		hp.last = 0
	}
	s, cb := hp.servers[hp.curr], hp.onRetry
	hp.mu.Unlock()
	if retryStart && cb != nil {
		cb()
	}
	return s, retryStart
}

// Connected is part of zk.HostProvider.
func (hp *hostProvider) Connected() {
	hp.mu.Lock()
	hp.last = hp.curr
	hp.mu.Unlock()
}

// dialTracker wraps the dialer and remembers, per address, why the last
// dial failed (cleared by a successful dial), so that Connect can name the
// address and the cause.
type dialTracker struct {
	dial   zk.Dialer
	hs     time.Duration     // handshake timeout
	names  map[string]string // resolved address → host name given
	mu     sync.Mutex
	errs   map[string]error
	hints  map[string]string // address → why its session handshake failed
	lastOK string            // address of the last successful dial
	cert   string            // the TLS client certificate's subject ("" for none)
}

func newDialTracker(d zk.Dialer, names map[string]string, handshake time.Duration, cert string) *dialTracker {
	return &dialTracker{dial: d, hs: handshake, names: names, errs: map[string]error{}, hints: map[string]string{}, cert: cert}
}

// Dial is the zk.Dialer go-zookeeper uses.
func (t *dialTracker) Dial(network, addr string, timeout time.Duration) (net.Conn, error) {
	c, err := t.dial(network, addr, timeout)
	if err == nil {
		_, isTLS := c.(*tls.Conn)
		c = newHandshakeConn(c, t.hs, func(err error) { t.handshakeFailed(addr, isTLS, err) })
	}
	t.mu.Lock()
	if err != nil {
		t.errs[addr] = err
	} else {
		delete(t.errs, addr)
		t.lastOK = addr
	}
	t.mu.Unlock()
	return c, err
}

// handshakeFailed records why a connection failed before the session
// handshake's reply. A TLS alert counts as a failed dial: with TLS 1.3 a
// server refuses a client certificate only after the handshake, and
// retrying will not change its mind. A plaintext connection the server
// closes unanswered is a hint for the timeout message: it is what a TLS
// port does with a plaintext client, and also what a server still starting
// does, so it is not final.
func (t *dialTracker) handshakeFailed(addr string, isTLS bool, err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	switch {
	case isTLS && isTLSAlert(err):
		t.errs[addr] = &TLSError{Addr: addr, Err: err, ClientCert: t.cert}
	case !isTLS && (errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNRESET)):
		t.hints[addr] = t.name(addr) + " closed the connection without answering the session handshake " +
			"(if it is ZooKeeper's secureClientPort, connect with TLS: --zk-tls-ca, --zk-tls-cert, --zk-tls-key)"
	}
}

// hint returns a handshake failure hint for any of servers ("" if none).
func (t *dialTracker) hint(servers []string) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, s := range servers {
		if h := t.hints[s]; h != "" {
			return h
		}
	}
	return ""
}

// name shows a resolved address with the host name it came from.
func (t *dialTracker) name(addr string) string {
	if host, ok := t.names[addr]; ok {
		if _, port, err := net.SplitHostPort(addr); err == nil {
			return net.JoinHostPort(host, port) + " (" + addr + ")"
		}
	}
	return addr
}

// connected names the last address a dial reached ("" if none).
func (t *dialTracker) connected() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.lastOK == "" {
		return ""
	}
	return t.name(t.lastOK)
}

// allFailed reports, when every address in servers failed its last dial,
// an error naming each address and its cause.
func (t *dialTracker) allFailed(servers []string) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	var parts []string
	for _, s := range servers {
		err, ok := t.errs[s]
		if !ok {
			return nil
		}
		parts = append(parts, fmt.Sprintf("zookeeper %s: %s", t.name(s), dialCause(err)))
	}
	return errors.New(strings.Join(parts, "; "))
}

// dialCause shortens a dial error to "connect: <reason>": the net.OpError
// wrapper repeats the address the message already names.
func dialCause(err error) string {
	var te *TLSError
	if errors.As(err, &te) {
		return te.Error()
	}
	var op *net.OpError
	if errors.As(err, &op) && op.Err != nil {
		err = op.Err
	}
	msg := err.Error()
	if !strings.HasPrefix(msg, "connect: ") {
		msg = "connect: " + msg
	}
	return msg
}

// tlsDialer dials TCP within the timeout go-zookeeper passes (1 s) and
// runs the TLS handshake within handshake: a Java server's first
// handshakes take a while (seen past a second on a busy machine), and a
// slow handshake is no reason to give up a server. Without a ServerName in
// cfg, the certificate is checked against the host name the address was
// resolved from.
func tlsDialer(cfg *tls.Config, names map[string]string, handshake time.Duration) zk.Dialer {
	return func(network, addr string, timeout time.Duration) (net.Conn, error) {
		c := cfg.Clone()
		if c.ServerName == "" {
			if name, ok := names[addr]; ok {
				c.ServerName = name
			} else if host, _, err := net.SplitHostPort(addr); err == nil {
				c.ServerName = host
			}
		}
		raw, err := (&net.Dialer{Timeout: timeout}).Dial(network, addr)
		if err != nil {
			return nil, err
		}
		conn := tls.Client(raw, c)
		ctx, cancel := context.WithTimeout(context.Background(), handshake)
		defer cancel()
		if err := conn.HandshakeContext(ctx); err != nil {
			_ = raw.Close()
			if ctx.Err() != nil {
				return nil, fmt.Errorf("TLS handshake with %s: no answer within %s", addr, handshake)
			}
			return nil, &TLSError{Addr: addr, Err: err, ClientCert: ClientID(cfg)}
		}
		return conn, nil
	}
}

// handshakeConn bounds the session handshake. go-zookeeper waits for the
// server's reply to its ConnectRequest for ten times 2/3 of the session
// timeout (two minutes with Kafka's 18 s), and a server that accepted the
// connection but never answers (seen with a ZooKeeper 3.8 that was still
// loading its database after a restart: the connection stays open, unserved)
// would stall the client that long. Until the reply has been read, every
// read deadline go-zookeeper sets is clamped to the handshake deadline; after
// that the connection is untouched.
type handshakeConn struct {
	net.Conn
	deadline time.Time
	done     atomic.Bool
	hdr      [4]byte
	got      int         // reply bytes read so far (header included)
	failed   func(error) // a read failed before the reply was complete
}

func newHandshakeConn(c net.Conn, timeout time.Duration, failed func(error)) *handshakeConn {
	h := &handshakeConn{Conn: c, deadline: time.Now().Add(timeout), failed: failed}
	_ = c.SetReadDeadline(h.deadline)
	return h
}

// Read is net.Conn's; it follows the reply's length prefix to tell when the
// handshake is over. Reads come from one goroutine at a time.
func (h *handshakeConn) Read(p []byte) (int, error) {
	n, err := h.Conn.Read(p)
	if err != nil && h.failed != nil && !h.done.Load() {
		h.failed(err)
	}
	if !h.done.Load() {
		for _, b := range p[:n] {
			if h.got < 4 {
				h.hdr[h.got] = b
			}
			h.got++
			if h.got >= 4 && h.got-4 >= int(binary.BigEndian.Uint32(h.hdr[:])) {
				h.done.Store(true)
				break
			}
		}
	}
	return n, err
}

// SetReadDeadline is net.Conn's, clamped during the handshake.
func (h *handshakeConn) SetReadDeadline(t time.Time) error {
	if !h.done.Load() && (t.IsZero() || t.After(h.deadline)) {
		t = h.deadline
	}
	return h.Conn.SetReadDeadline(t)
}

// SetDeadline is net.Conn's, clamped during the handshake.
func (h *handshakeConn) SetDeadline(t time.Time) error {
	if err := h.Conn.SetWriteDeadline(t); err != nil {
		return err
	}
	return h.SetReadDeadline(t)
}

// handshakeTimeout is how long a server may take to answer the session
// handshake: 2/3 of the session timeout (go-zookeeper's receive timeout),
// at most 5 s and at least 500 ms. A healthy server answers in
// milliseconds; go-zookeeper retries after a timeout.
func handshakeTimeout(session time.Duration) time.Duration {
	return min(max(session*2/3, 500*time.Millisecond), 5*time.Second)
}
