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
	"slices"
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
// attempt failed: the dial (cleared by a successful dial), so that Connect
// can name the address and the cause, or the session handshake (cleared
// by a completed one), so that a refused write can say why there is no
// session. It also keeps the connection in use, which tells how long the
// server has been silent.
type dialTracker struct {
	dial   zk.Dialer
	hs     time.Duration     // handshake timeout
	names  map[string]string // resolved address → host name given
	mu     sync.Mutex
	errs   map[string]error
	hsErrs map[string]error
	// plainClosed: addresses that closed or reset a plaintext connection
	// before answering the session handshake, as ZooKeeper's TLS port
	// does with a plaintext client (and a server without quorum too).
	plainClosed map[string]bool
	lastOK      string // address of the last successful dial
	cert        string // the TLS client certificate's subject ("" for none)

	// probe (Options.Probe, while Connect waits) is asked once per
	// address that failed a handshake; notZK holds the
	// addresses it said are no ZooKeeper server, and why; verdicts
	// signals each such answer.
	probe    func(context.Context, string) error
	probeCtx context.Context
	probed   map[string]bool
	notZK    map[string]error
	verdicts chan struct{}

	cur   atomic.Pointer[serverConn] // the latest connection dialled
	heard atomic.Int64               // unix ns of the last bytes a session's server sent

	// zxid is the last zxid the session has seen, kept here instead of
	// in go-zookeeper (see serverConn).
	zxid atomic.Int64
}

func newDialTracker(d zk.Dialer, names map[string]string, handshake time.Duration, cert string) *dialTracker {
	return &dialTracker{dial: d, hs: handshake, names: names, errs: map[string]error{}, hsErrs: map[string]error{}, plainClosed: map[string]bool{}, cert: cert,
		probed: map[string]bool{}, notZK: map[string]error{}, verdicts: make(chan struct{}, 1)}
}

// probeWhile asks probe about the addresses that close handshakes
// unanswered until the returned func is called (or ctx ends).
func (t *dialTracker) probeWhile(ctx context.Context, probe func(context.Context, string) error) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	t.mu.Lock()
	t.probe, t.probeCtx = probe, ctx
	t.mu.Unlock()
	return func() {
		t.mu.Lock()
		t.probe = nil
		t.mu.Unlock()
		cancel()
	}
}

// maybeProbe asks the probe, once, what listens at addr, which failed
// the session handshake.
func (t *dialTracker) maybeProbe(addr string) {
	t.mu.Lock()
	probe, ctx := t.probe, t.probeCtx
	if probe == nil || t.probed[addr] {
		t.mu.Unlock()
		return
	}
	t.probed[addr] = true
	given := addr
	if host, ok := t.names[addr]; ok {
		if _, port, err := net.SplitHostPort(addr); err == nil {
			given = net.JoinHostPort(host, port)
		}
	}
	t.mu.Unlock()
	go func() {
		err := probe(ctx, given)
		if err == nil || ctx.Err() != nil {
			return
		}
		t.mu.Lock()
		t.notZK[addr] = err
		t.mu.Unlock()
		select {
		case t.verdicts <- struct{}{}:
		default:
		}
	}()
}

// Dial is the zk.Dialer go-zookeeper uses.
func (t *dialTracker) Dial(network, addr string, timeout time.Duration) (net.Conn, error) {
	c, err := t.dial(network, addr, timeout)
	t.mu.Lock()
	defer t.mu.Unlock()
	if err != nil {
		t.errs[addr] = err
		return nil, err
	}
	delete(t.errs, addr)
	t.lastOK = addr
	sc := newServerConn(c, t, addr)
	t.cur.Store(sc)
	return sc, nil
}

// handshakeDone records how a session handshake with addr ended.
func (t *dialTracker) handshakeDone(addr string, err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if err == nil {
		delete(t.hsErrs, addr)
		delete(t.plainClosed, addr)
		delete(t.notZK, addr)
		return
	}
	t.hsErrs[addr] = err
}

func (t *dialTracker) notePlainClosed(addr string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.plainClosed[addr] = true
}

// secureHint is the advice for a connect that timed out when a server
// closed plaintext connections unanswered ("" when none did).
func (t *dialTracker) secureHint(servers []string) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, s := range servers {
		if t.plainClosed[s] {
			return "if " + t.name(s) + " is ZooKeeper's secureClientPort, connect with TLS: --zk-tls-ca, --zk-tls-cert, --zk-tls-key"
		}
	}
	return ""
}

// tlsRefused records a TLS alert read before the session handshake's
// reply as a failed dial: with TLS 1.3 a server refuses a client
// certificate only after the TLS handshake, and retrying will not change
// its mind.
func (t *dialTracker) tlsRefused(addr string, err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.errs[addr] = &TLSError{Addr: addr, Err: err, ClientCert: t.cert}
}

// problems says, for each address whose last attempt failed, why:
// "127.0.0.1:2181: connect: connection refused".
func (t *dialTracker) problems(servers []string) []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	var out []string
	for _, s := range servers {
		switch err := t.errs[s]; {
		case t.notZK[s] != nil:
			out = append(out, t.notZK[s].Error())
		case err != nil:
			out = append(out, t.name(s)+": "+dialCause(err))
		case t.hsErrs[s] != nil:
			out = append(out, t.name(s)+": "+t.hsErrs[s].Error())
		}
	}
	return out
}

// silence is how long the server of the current connection has not sent
// anything back since it was sent something (0 when it has answered
// everything, or there is no connection).
func (t *dialTracker) silence(now time.Time) time.Duration {
	sc := t.cur.Load()
	if sc == nil {
		return 0
	}
	w := sc.waiting.Load()
	if w == 0 {
		return 0
	}
	return now.Sub(time.Unix(0, w))
}

// idle is how long nothing has been sent on the current connection (0
// without one).
func (t *dialTracker) idle(now time.Time) time.Duration {
	sc := t.cur.Load()
	if sc == nil {
		return 0
	}
	return now.Sub(time.Unix(0, sc.wrote.Load()))
}

// lastHeard is when a server last sent anything within a session (zero
// before the first session).
func (t *dialTracker) lastHeard() time.Time {
	if ns := t.heard.Load(); ns != 0 {
		return time.Unix(0, ns)
	}
	return time.Time{}
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
		if err := t.notZK[s]; err != nil {
			parts = append(parts, err.Error())
			continue
		}
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

// Handshake failures, as a refused write reports them.
var (
	// errHandshakeClosed: the server accepted the connection and closed it
	// before answering the session handshake. ZooKeeper does that while it
	// has no quorum ("ZooKeeperServer not running"), and when it has seen
	// less of the tree than the client has.
	errHandshakeClosed = errors.New("accepted the connection and closed it before the session handshake (a ZooKeeper server does that while it has no quorum)")
	// errHandshakeSilent: the server accepted the connection and never
	// answered the handshake.
	errHandshakeSilent = errors.New("accepted the connection but did not answer the session handshake")
	// errHandshakeForeign: the server answered the handshake with what
	// is not ZooKeeper's reply.
	errHandshakeForeign = errors.New("answered the session handshake with something other than ZooKeeper's reply")
)

// maxHandshakeReply bounds the session handshake's reply (ZooKeeper's is
// 36 or 37 bytes).
const maxHandshakeReply = 4096

// Opcode of ZooKeeper's SetWatches request, and the offsets (from a
// frame's length prefix) of the zxid fields the connection relays.
const (
	opSetWatches      = 101
	connectZxidAt     = 8  // ConnectRequest: length, protocolVersion, lastZxidSeen
	setWatchesZxidAt  = 12 // SetWatches: length, xid, opcode, relativeZxid
	replyHeaderLength = 16 // xid, zxid, err
)

// serverConn is one connection to a server. It bounds the session
// handshake: go-zookeeper waits for the server's reply to its
// ConnectRequest for ten times 2/3 of the session timeout (two minutes
// with Kafka's 18 s), and a server that accepted the connection but never
// answers (seen with a ZooKeeper 3.8 that was still loading its database
// after a restart: the connection stays open, unserved) would stall the
// client that long. Until the reply has been read, every read deadline
// go-zookeeper sets is clamped to the handshake deadline; after that the
// deadlines are untouched. It also notes how the handshake ended, and
// when the server last answered what it was sent.
//
// It also keeps the session's last zxid for go-zookeeper. go-zookeeper
// (v1.0.4) stores the zxid of every reply from its receive loop and reads
// it, unsynchronised, from its connecting goroutine to build the
// SetWatches of a new connection (conn.go:849 and :614): a data race, and
// a watch reset relative to replies the new connection already brought.
// So the connection takes the zxid out of each reply header it passes up
// (go-zookeeper then never stores one: no API of it returns it), keeps it
// (dialTracker.zxid), and writes it into the two requests that carry it:
// the ConnectRequest's lastZxidSeen and SetWatches' relativeZxid, the
// latter as of the end of the previous connection, as the Java client
// sends it (before any reply of the new one).
type serverConn struct {
	net.Conn
	t        *dialTracker
	addr     string
	isTLS    bool
	deadline time.Time
	done     atomic.Bool
	hdr      [20]byte // the handshake reply's length, version, timeout, session
	got      int      // reply bytes read so far (header included)
	// resumeZxid is the session's zxid when the handshake completed.
	resumeZxid atomic.Int64
	// The reply being read (reading goroutine's own): bytes of its length
	// prefix and header seen, the rest of its body to skip.
	lenAt, hdrAt int
	lenBuf       [4]byte
	rhdr         [replyHeaderLength]byte
	rest         int
	// waiting is the unix ns of the first write not followed by a read
	// (0: every write answered); wrote that of the last write.
	waiting atomic.Int64
	wrote   atomic.Int64
}

func newServerConn(c net.Conn, t *dialTracker, addr string) *serverConn {
	_, isTLS := c.(*tls.Conn)
	h := &serverConn{Conn: c, t: t, addr: addr, isTLS: isTLS, deadline: time.Now().Add(t.hs)}
	_ = c.SetReadDeadline(h.deadline)
	return h
}

// Read is net.Conn's; it follows the reply's length prefix to tell when the
// handshake is over. Reads come from one goroutine at a time.
func (h *serverConn) Read(p []byte) (int, error) {
	n, err := h.Conn.Read(p)
	if n > 0 {
		h.waiting.Store(0)
	}
	if h.done.Load() {
		if n > 0 {
			h.t.heard.Store(time.Now().UnixNano())
			h.relayReplies(p[:n])
		}
		return n, err
	}
	for _, b := range p[:n] {
		if h.got < len(h.hdr) {
			h.hdr[h.got] = b
		}
		h.got++
		if h.got >= 4 && h.got-4 >= int(binary.BigEndian.Uint32(h.hdr[:4])) {
			if h.got >= len(h.hdr) && binary.BigEndian.Uint64(h.hdr[12:20]) == 0 {
				// Expired: the new session starts from nothing (as
				// go-zookeeper's own lastZxid does).
				h.t.zxid.Store(0)
			}
			h.resumeZxid.Store(h.t.zxid.Load())
			h.done.Store(true)
			h.t.handshakeDone(h.addr, nil)
			h.t.heard.Store(time.Now().UnixNano())
			return n, err
		}
	}
	if h.got >= 4 && binary.BigEndian.Uint32(h.hdr[:4]) > maxHandshakeReply {
		// Not ZooKeeper's reply (36 or 37 bytes): go-zookeeper would
		// allocate what the first bytes read as a length (an HTTP
		// server's "HTTP" is 1.2 GB) and wait for it.
		ferr := fmt.Errorf("%w (its first bytes: %q)", errHandshakeForeign, h.hdr[:min(h.got, len(h.hdr))])
		h.t.handshakeDone(h.addr, ferr)
		h.t.maybeProbe(h.addr)
		_ = h.Close()
		return 0, ferr
	}
	if err != nil {
		var ne net.Error
		switch {
		case h.isTLS && isTLSAlert(err):
			h.t.tlsRefused(h.addr, err)
		case errors.As(err, &ne) && ne.Timeout():
			h.t.handshakeDone(h.addr, fmt.Errorf("%w within %s", errHandshakeSilent, h.t.hs))
			if !h.isTLS {
				h.t.maybeProbe(h.addr)
			}
		case errors.Is(err, io.EOF):
			h.t.handshakeDone(h.addr, errHandshakeClosed)
		default:
			h.t.handshakeDone(h.addr, fmt.Errorf("connection lost before the session handshake: %w", err))
		}
		if !h.isTLS && (errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNRESET)) {
			h.t.notePlainClosed(h.addr)
			h.t.maybeProbe(h.addr)
		}
	}
	return n, err
}

// Write is net.Conn's; it notes when the server was sent something it has
// not answered yet.
func (h *serverConn) Write(p []byte) (int, error) {
	switch {
	case !h.done.Load():
		if len(p) >= connectZxidAt+8 && h.got == 0 {
			p = withZxid(p, connectZxidAt, h.t.zxid.Load())
		}
	case len(p) >= setWatchesZxidAt+8 && binary.BigEndian.Uint32(p[8:12]) == opSetWatches:
		p = withZxid(p, setWatchesZxidAt, h.resumeZxid.Load())
	}
	now := time.Now().UnixNano()
	h.waiting.CompareAndSwap(0, now)
	h.wrote.Store(now)
	n := len(p)
	if _, err := h.Conn.Write(p); err != nil {
		// go-zookeeper (v1.0.4, sendData) answers the request of a failed
		// write itself yet leaves it pending, so the flush at the
		// connection's end answers it again into its full channel: a
		// goroutine stuck for good. Closed here, the connection's read
		// fails at once and the flush alone answers the request, with the
		// connection's error.
		_ = h.Close()
	}
	return n, nil
}

// withZxid returns frame with the zxid at offset at (a copy: the frame
// is go-zookeeper's buffer).
func withZxid(frame []byte, at int, zxid int64) []byte {
	out := slices.Clone(frame)
	binary.BigEndian.PutUint64(out[at:], uint64(zxid))
	return out
}

// relayReplies follows the reply frames in b (a read of go-zookeeper's,
// which may end anywhere in a frame) and, in each normal reply's header,
// moves the zxid from the bytes go-zookeeper will decode to the tracker.
// Notifications and pings (negative xids) go-zookeeper does not take a
// zxid from; they pass unchanged.
func (h *serverConn) relayReplies(b []byte) {
	for len(b) > 0 {
		switch {
		case h.lenAt < 4:
			h.lenBuf[h.lenAt] = b[0]
			h.lenAt++
			b = b[1:]
			if h.lenAt == 4 {
				h.rest, h.hdrAt = int(binary.BigEndian.Uint32(h.lenBuf[:])), 0
			}
		case h.hdrAt < replyHeaderLength && h.rest > 0:
			h.rhdr[h.hdrAt] = b[0]
			if h.hdrAt >= 4 && h.hdrAt < 12 && int32(binary.BigEndian.Uint32(h.rhdr[:4])) >= 0 {
				b[0] = 0 // go-zookeeper stores a zxid > 0 only
			}
			h.hdrAt++
			h.rest--
			b = b[1:]
			if h.hdrAt == 12 && int32(binary.BigEndian.Uint32(h.rhdr[:4])) >= 0 {
				if z := int64(binary.BigEndian.Uint64(h.rhdr[4:12])); z > 0 {
					h.t.zxid.Store(z)
				}
			}
		default:
			k := min(h.rest, len(b))
			h.rest -= k
			b = b[k:]
		}
		if h.lenAt == 4 && h.rest == 0 {
			h.lenAt = 0 // the next frame
		}
	}
}

// SetReadDeadline is net.Conn's, clamped during the handshake.
func (h *serverConn) SetReadDeadline(t time.Time) error {
	if !h.done.Load() && (t.IsZero() || t.After(h.deadline)) {
		t = h.deadline
	}
	return h.Conn.SetReadDeadline(t)
}

// SetDeadline is net.Conn's, clamped during the handshake.
func (h *serverConn) SetDeadline(t time.Time) error {
	if err := h.SetWriteDeadline(t); err != nil {
		return err
	}
	return h.SetReadDeadline(t)
}

// handshakeTimeout is how long a server may take to answer the session
// handshake: a third of the session timeout, at most 5 s and at least
// 500 ms. A healthy server answers in milliseconds; go-zookeeper retries
// after a timeout, with the next server. A third, not go-zookeeper's 2/3
// receive timeout: the session must outlive the attempts on two silent
// servers of a three-server ensemble and go-zookeeper's one-second pause
// before it tries the list again (two silent servers at 2/3 each expired
// an 8 s session before the client reached the live one).
func handshakeTimeout(session time.Duration) time.Duration {
	return min(max(session/3, 500*time.Millisecond), 5*time.Second)
}
