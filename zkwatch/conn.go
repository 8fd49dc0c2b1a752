package zkwatch

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/go-zookeeper/zk"
)

// Defaults for Options.
const (
	DefaultSessionTimeout = 18 * time.Second // Kafka's zookeeper.session.timeout.ms since 2.5
	DefaultConnectTimeout = 10 * time.Second
	DefaultRequestTimeout = 10 * time.Second
)

// Logger receives go-zookeeper's log lines. *log.Logger satisfies it; wrap
// an io.Writer with log.New(w, "zookeeper: ", log.LstdFlags).
type Logger interface {
	Printf(format string, v ...any)
}

// Options tune Connect. The zero value is usable.
type Options struct {
	// SessionTimeout requested from the server (which clamps it to
	// [2, 20] × its tickTime). Default DefaultSessionTimeout.
	SessionTimeout time.Duration
	// ConnectTimeout bounds Connect: the session handshake, authentication
	// and the chroot check. Default DefaultConnectTimeout.
	ConnectTimeout time.Duration
	// RequestTimeout bounds every request made through Conn's methods
	// (go-zookeeper has no per-request deadline). Default
	// DefaultRequestTimeout; negative means no deadline.
	RequestTimeout time.Duration
	// Digest is "user:password" for ZooKeeper digest authentication, added
	// to the session (and re-sent on every reconnect by go-zookeeper).
	Digest string
	// Logger receives go-zookeeper's log output. Nil discards it: the
	// library's default would write to stderr, under a terminal UI.
	Logger Logger
	// LogInfo also logs informational lines (connected, authenticated).
	LogInfo bool
	// TLS, when set, dials every server with TLS (ZooKeeper's
	// secureClientPort).
	TLS *tls.Config
	// Dialer replaces the TCP dialer (tests, proxies). TLS, if set, is
	// ignored when Dialer is set.
	Dialer zk.Dialer
	// CreateChroot creates the chroot (and its parents) when it is missing,
	// as Kafka brokers do. Without it a missing chroot is an error, so a
	// typo in the connect string does not look like an empty cluster.
	CreateChroot bool
	// ReadOnly makes every write method fail with ErrReadOnly.
	ReadOnly bool
	// MaxBufferSize caps the size of one reply (go-zookeeper's
	// WithMaxBufferSize). Zero keeps go-zookeeper's default: unlimited.
	// Never set it near 1 MiB: a big children list would then drop the
	// connection on every attempt.
	MaxBufferSize int
}

// Errors returned by Conn besides go-zookeeper's own (zk.ErrNoNode and the
// other server answers are returned unwrapped, exactly as *zk.Conn does).
var (
	// ErrTimeout: no reply within the request (or connect) deadline.
	ErrTimeout = errors.New("no reply")
	// ErrReadOnly: a write refused by a read-only Conn.
	ErrReadOnly = errors.New("read-only mode")
	// ErrNoChroot: the connect string's chroot does not exist.
	ErrNoChroot = errors.New("chroot does not exist")
)

// OpError is a request that failed because of the connection (no server,
// connection lost, session expired, deadline, no session to send a write
// on), not because of the server's answer. It names the server and the
// request.
type OpError struct {
	Server string // the server last connected to, or the connect string's servers
	Op     string // "get", "children", "create", …
	Path   string // as the caller gave it (chroot-relative)
	Err    error  // zk.ErrNoServer, zk.ErrConnectionClosed, ErrTimeout, *NoSessionError, …

	// late is the request's own result when the call returned before it
	// (ErrTimeout): go-zookeeper cannot cancel a request.
	late *lateResult
}

func (e *OpError) Error() string {
	return fmt.Sprintf("zookeeper %s: %s %s: %v", e.Server, e.Op, e.Path, e.Err)
}

// Unwrap returns the cause, so errors.Is(err, zk.ErrNoServer) works.
func (e *OpError) Unwrap() error { return e.Err }

// ZnodePath is the path the request was about, which the error names: a
// caller need not say it again.
func (e *OpError) ZnodePath() string { return e.Path }

// Outcome waits until the request behind a call that returned early (no
// reply within the request deadline, or its context ended) has ended, at
// most until ctx ends, and says how it ended: a nil error when the server
// applied it and its reply came late; the server's answer (zk.ErrNoNode,
// …); zk.ErrNoServer (wrapped) when it was never sent; zk.ErrConnectionClosed
// or zk.ErrSessionExpired (wrapped) when the connection ended before its
// reply, so that the server may or may not have applied it. done is false
// when ctx ended first (err is then e). For a call that did not return
// early, done is true and err is e: its outcome is all there is to know.
func (e *OpError) Outcome(ctx context.Context) (done bool, err error) {
	if e.late == nil {
		return true, e
	}
	select {
	case <-e.late.done:
		return true, e.late.err
	case <-ctx.Done():
		return false, e
	}
}

// lateResult is what a request returned after its caller stopped waiting.
type lateResult struct {
	done chan struct{}
	err  error
}

// NoSessionError is a request refused because the Conn has no session at
// the moment (disconnected, connecting, or its session just expired and
// the next one is not there yet): it was not sent, so a write wrote
// nothing. Without the refusal go-zookeeper would queue the request and
// send it once a session is back, maybe after the caller gave up on it
// (a write then applied behind its back), and a read would wait out its
// deadline to say only "no reply". It unwraps to zk.ErrNoServer,
// go-zookeeper's error for requests it never sent.
type NoSessionError struct {
	State State     // the connection's state
	Since time.Time // since when
	// Problems say, per server whose last attempt failed, why: "127.0.0.1:2181:
	// connect: connection refused".
	Problems []string
}

func (e *NoSessionError) Error() string {
	msg := "no session (" + e.State.String()
	if !e.Since.IsZero() {
		msg += " since " + e.Since.Format("15:04:05")
	}
	msg += ")"
	if len(e.Problems) > 0 {
		msg += ": " + strings.Join(e.Problems, "; ")
	}
	return msg + "; nothing was sent"
}

// Unwrap returns zk.ErrNoServer.
func (e *NoSessionError) Unwrap() error { return zk.ErrNoServer }

// Conn is a ZooKeeper session rooted at the connect string's chroot. Its
// request methods have the signatures of *zk.Conn's, so small interfaces
// declared elsewhere are satisfied by both; paths are chroot-relative.
// It is safe for concurrent use; concurrent requests are pipelined on the
// one connection.
type Conn struct {
	raw     *zk.Conn
	cs      ConnectString
	chroot  string
	timeout time.Duration
	ro      bool
	log     *logTap
	ids     []string // authenticated ids (Identities)

	lmu       sync.Mutex
	listeners atomic.Pointer[[]*listener]

	// dial tracks the connections go-zookeeper dials (nil for a Conn
	// made by hand in tests); addrs are the resolved servers.
	dial  *dialTracker
	addrs []string
	// smu guards the session state as the events reported it, and since
	// when the session was last gained or lost.
	smu   sync.Mutex
	state State
	since time.Time

	closeOnce sync.Once
	closed    chan struct{}
}

type listener struct{ fn func(zk.Event) }

// Connect opens a session with the servers of a connect string
// ("host:port[,host:port…][/chroot]") and waits for it, for at most
// opts.ConnectTimeout (and ctx). It fails fast when every server refuses
// the connection, naming each address and the cause. A server that accepts
// the connection but does not answer the session handshake is given up on
// after a third of the session timeout (at most 5 s) and the next one is tried,
// here and on every reconnect.
func Connect(ctx context.Context, connect string, opts Options) (*Conn, error) {
	cs, err := ParseConnectString(connect)
	if err != nil {
		return nil, err
	}
	if opts.SessionTimeout <= 0 {
		opts.SessionTimeout = DefaultSessionTimeout
	}
	if opts.ConnectTimeout <= 0 {
		opts.ConnectTimeout = DefaultConnectTimeout
	}
	if opts.RequestTimeout == 0 {
		opts.RequestTimeout = DefaultRequestTimeout
	}
	var user, pass string
	if opts.Digest != "" {
		var ok bool
		user, pass, ok = strings.Cut(opts.Digest, ":")
		if !ok || user == "" {
			return nil, fmt.Errorf("digest credentials must be user:password")
		}
	}
	ctx, cancel := context.WithTimeout(ctx, opts.ConnectTimeout)
	defer cancel()

	c := &Conn{
		cs:      cs,
		chroot:  cs.Chroot,
		timeout: opts.RequestTimeout,
		ro:      opts.ReadOnly,
		log:     &logTap{out: opts.Logger},
		closed:  make(chan struct{}),
		state:   StateConnecting,
		since:   time.Now(),
	}
	addrs, names, err := resolve(ctx, cs.Servers, c.log.Printf)
	if err != nil {
		return nil, err
	}
	dial := opts.Dialer
	if dial == nil {
		dial = net.DialTimeout
		if opts.TLS != nil {
			dial = tlsDialer(opts.TLS, names, handshakeTimeout(opts.SessionTimeout))
		}
	}
	cert := ""
	if opts.Dialer == nil {
		cert = ClientID(opts.TLS)
	}
	tracker := newDialTracker(dial, names, handshakeTimeout(opts.SessionTimeout), cert)
	c.dial, c.addrs = tracker, addrs
	// exhausted fires each time go-zookeeper has tried every address once;
	// if every one of those attempts failed to dial, Connect gives up.
	exhausted := make(chan struct{}, 1)
	hp := &hostProvider{servers: addrs, onRetry: func() {
		select {
		case exhausted <- struct{}{}:
		default:
		}
	}}
	session := make(chan struct{}, 1)
	stop := c.Listen(func(ev zk.Event) {
		if ev.Type == zk.EventSession && ev.State == zk.StateHasSession {
			select {
			case session <- struct{}{}:
			default:
			}
		}
	})
	// The event channel zk.Connect returns is ignored: it drops events
	// when full. The callback sees every one.
	raw, _, err := zk.Connect(addrs, opts.SessionTimeout,
		zk.WithEventCallback(c.dispatch),
		zk.WithLogger(c.log),
		zk.WithLogInfo(opts.LogInfo),
		zk.WithDialer(tracker.Dial),
		zk.WithHostProvider(hp),
		zk.WithMaxBufferSize(opts.MaxBufferSize), // <= 0: unlimited
	)
	if err != nil {
		stop()
		return nil, fmt.Errorf("zookeeper %s: %w", strings.Join(cs.Servers, ","), err)
	}
	c.raw = raw
	fail := func(err error) (*Conn, error) {
		stop()
		c.Close()
		return nil, err
	}
wait:
	for {
		select {
		case <-session:
			break wait
		case <-exhausted:
			if err := tracker.allFailed(addrs); err != nil {
				return fail(err)
			}
		case <-ctx.Done():
			msg := fmt.Sprintf("no session with %s within %s", strings.Join(cs.Servers, ","), opts.ConnectTimeout)
			if cerr := context.Cause(ctx); !errors.Is(cerr, context.DeadlineExceeded) {
				msg = fmt.Sprintf("connecting to %s: %v", strings.Join(cs.Servers, ","), cerr)
			}
			if p := tracker.problems(addrs); len(p) > 0 {
				// What each server did, rather than go-zookeeper's last line
				// (one server's, often not the telling one).
				msg += ": " + strings.Join(p, "; ")
				if hint := tracker.secureHint(addrs); hint != "" {
					msg += " (" + hint + ")"
				}
			} else if last := c.log.lastError(); last != "" {
				msg += ": " + last
			} else if err := tracker.allFailed(addrs); err != nil {
				msg += ": " + err.Error()
			} else if addr := tracker.connected(); addr != "" {
				msg += ": " + addr + " accepted the connection but did not complete the session handshake"
			}
			return fail(errors.New(msg))
		}
	}
	stop()
	if cert != "" {
		c.ids = append(c.ids, "x509:"+cert)
	}
	if opts.Digest != "" {
		c.ids = append(c.ids, "digest:"+user)
		if _, err := deadline(ctx, c, "add digest auth for", user, func() (struct{}, error) {
			return struct{}{}, raw.AddAuth("digest", []byte(user+":"+pass))
		}); err != nil {
			return fail(err)
		}
	}
	if c.chroot != "" {
		ok, _, err := deadline3(ctx, c, "exists", "/", func() (bool, *zk.Stat, error) { return raw.Exists(c.chroot) })
		switch {
		case err != nil:
			return fail(err)
		case !ok && opts.CreateChroot:
			if err := c.createAll(ctx, c.chroot); err != nil {
				return fail(fmt.Errorf("zookeeper %s: create chroot %s: %w", c.Server(), c.chroot, err))
			}
		case !ok:
			return fail(fmt.Errorf("zookeeper %s: %w: %s", strings.Join(cs.Servers, ","), ErrNoChroot, c.chroot))
		}
	}
	return c, nil
}

// createAll creates the full server path p and its missing parents.
func (c *Conn) createAll(ctx context.Context, p string) error {
	cur := ""
	for _, part := range strings.Split(strings.Trim(p, "/"), "/") {
		cur += "/" + part
		_, err := deadline(ctx, c, "create", cur, func() (string, error) {
			return c.raw.Create(cur, nil, 0, zk.WorldACL(zk.PermAll))
		})
		if err != nil && !errors.Is(err, zk.ErrNodeExists) {
			return err
		}
	}
	return nil
}

// CreateAll creates the chroot-relative path and any missing parents as
// persistent nodes with no data and an open ACL (Kafka's
// makeSurePersistentPathExists). Existing nodes are left alone.
func (c *Conn) CreateAll(path string) error {
	if err := c.writable("create", path); err != nil {
		return err
	}
	if path == "/" {
		return nil
	}
	if err := validatePath(path); err != nil {
		return zk.ErrInvalidPath
	}
	cur := ""
	for _, part := range strings.Split(path[1:], "/") {
		cur += "/" + part
		if _, err := c.Create(cur, nil, 0, zk.WorldACL(zk.PermAll)); err != nil && !errors.Is(err, zk.ErrNodeExists) {
			return err
		}
	}
	return nil
}

// Close ends the session (its ephemeral nodes go) and stops go-zookeeper's
// goroutines. Outstanding requests fail with zk.ErrClosing or
// zk.ErrConnectionClosed. It waits at most about a second for the server.
func (c *Conn) Close() {
	c.closeOnce.Do(func() {
		close(c.closed)
		if c.raw != nil {
			c.raw.Close()
		}
	})
}

// Done is closed when Close is called.
func (c *Conn) Done() <-chan struct{} { return c.closed }

// ConnectString returns the parsed connect string.
func (c *Conn) ConnectString() ConnectString { return c.cs }

// Chroot returns the chroot every path is relative to ("" for none).
func (c *Conn) Chroot() string { return c.chroot }

// Server returns the server currently (or last) connected to.
func (c *Conn) Server() string {
	if c.raw != nil {
		if s := c.raw.Server(); s != "" {
			return s
		}
	}
	return strings.Join(c.cs.Servers, ",")
}

// SessionID returns the current session id (0 while there is none).
func (c *Conn) SessionID() int64 { return c.raw.SessionID() }

// State returns the current connection state.
func (c *Conn) State() State {
	s, _ := StateOf(c.raw.State())
	return s
}

// RequestTimeout is the deadline of every request (negative: none).
func (c *Conn) RequestTimeout() time.Duration { return c.timeout }

// ReadOnly reports whether write methods are refused.
func (c *Conn) ReadOnly() bool { return c.ro }

// Listen registers fn for every event of the connection: session state
// changes (Type zk.EventSession) and fired watches (node events, with the
// chroot stripped from Path). fn runs on go-zookeeper's receive goroutine,
// in order, and must not block. The returned func removes it.
//
// go-zookeeper also reports zk.EventNotWatching once per invalidated watch
// when the session expires or the connection closes; those are passed on too.
func (c *Conn) Listen(fn func(zk.Event)) (remove func()) {
	l := &listener{fn: fn}
	c.lmu.Lock()
	var cur []*listener
	if p := c.listeners.Load(); p != nil {
		cur = *p
	}
	next := append(append([]*listener(nil), cur...), l)
	c.listeners.Store(&next)
	c.lmu.Unlock()
	return func() {
		c.lmu.Lock()
		defer c.lmu.Unlock()
		p := c.listeners.Load()
		if p == nil {
			return
		}
		var next []*listener
		for _, x := range *p {
			if x != l {
				next = append(next, x)
			}
		}
		c.listeners.Store(&next)
	}
}

// dispatch is go-zookeeper's event callback.
func (c *Conn) dispatch(ev zk.Event) {
	if ev.Type == zk.EventSession {
		if s, ok := StateOf(ev.State); ok {
			// since is when the session was last gained or lost: the
			// attempts in between (connecting, disconnected) keep it.
			c.smu.Lock()
			if (s == StateConnected) != (c.state == StateConnected) {
				c.since = time.Now()
			}
			c.state = s
			c.smu.Unlock()
		}
	}
	p := c.listeners.Load()
	if p == nil || len(*p) == 0 {
		return
	}
	if ev.Path != "" {
		ev.Path = c.strip(ev.Path)
	}
	for _, l := range *p {
		l.fn(ev)
	}
}

// full maps a chroot-relative path onto the server's path. Paths that do not
// start with "/" are refused here: prefixing would turn "x" into "/kafkax".
func (c *Conn) full(p string) (string, error) {
	if p == "" || p[0] != '/' {
		return "", zk.ErrInvalidPath
	}
	if c.chroot == "" {
		return p, nil
	}
	if p == "/" {
		return c.chroot, nil
	}
	return c.chroot + p, nil
}

// strip maps a server path back to a chroot-relative one.
func (c *Conn) strip(p string) string {
	if c.chroot == "" {
		return p
	}
	if p == c.chroot {
		return "/"
	}
	if strings.HasPrefix(p, c.chroot) && len(p) > len(c.chroot) && p[len(c.chroot)] == '/' {
		return p[len(c.chroot):]
	}
	return p
}

// connErr reports whether err is about the connection rather than the
// server's answer about a node. go-zookeeper hands a request whose own
// write failed the socket's error as it is (a *net.OpError: broken pipe,
// connection reset), not zk.ErrConnectionClosed: that is a lost
// connection too (seen when a connection is reset mid-stream).
func connErr(err error) bool {
	var ne *net.OpError
	return errors.Is(err, zk.ErrNoServer) || errors.Is(err, zk.ErrConnectionClosed) ||
		errors.Is(err, zk.ErrClosing) || errors.Is(err, zk.ErrSessionExpired) ||
		errors.Is(err, zk.ErrSessionMoved) || errors.Is(err, ErrTimeout) ||
		errors.As(err, &ne) || errors.Is(err, syscall.EPIPE) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, io.EOF)
}

// wrap names server, op and path for connection errors and returns server
// answers unchanged (callers compare them with zk.ErrNoNode and friends).
func (c *Conn) wrap(op, path string, err error) error {
	if err == nil || !connErr(err) {
		return err
	}
	var oe *OpError
	if errors.As(err, &oe) {
		return err
	}
	return &OpError{Server: c.Server(), Op: op, Path: path, Err: err}
}

var bg = context.Background()

// deadline runs f and waits for it at most the request timeout (or until
// ctx ends). go-zookeeper cannot cancel a request: on timeout f keeps
// running in its goroutine until the reply comes or the connection drops
// (at the latest after 2/3 of the session timeout) or Close.
func deadline[T any](ctx context.Context, c *Conn, op, path string, f func() (T, error)) (T, error) {
	if c.timeout < 0 && ctx.Done() == nil {
		v, err := f()
		return v, c.wrap(op, path, err)
	}
	type result struct {
		v   T
		err error
	}
	ch := make(chan result, 1)
	go func() {
		v, err := f()
		ch <- result{v, err}
	}()
	var timeout <-chan time.Time
	if c.timeout > 0 {
		t := time.NewTimer(c.timeout)
		defer t.Stop()
		timeout = t.C
	}
	var zero T
	var early error
	select {
	case r := <-ch:
		return r.v, c.wrap(op, path, r.err)
	case <-timeout:
		early = fmt.Errorf("%w within %s", ErrTimeout, c.timeout)
	case <-ctx.Done():
		// The cause is named, not wrapped: the request may still be applied
		// by the server, so it must not read as context.Canceled (a clean
		// interrupt to the CLI) but as ErrTimeout, an open outcome.
		early = fmt.Errorf("%w: %v", ErrTimeout, context.Cause(ctx)) //nolint:errorlint // named, not wrapped (above)
	}
	// The request goes on: its own result is kept for OpError.Outcome.
	late := &lateResult{done: make(chan struct{})}
	go func() {
		r := <-ch
		late.err = c.wrap(op, path, r.err)
		close(late.done)
	}()
	return zero, &OpError{Server: c.Server(), Op: op, Path: path, Err: early, late: late}
}

// deadline3 is deadline for the three-result calls.
func deadline3[A, B any](ctx context.Context, c *Conn, op, path string, f func() (A, B, error)) (A, B, error) {
	type pair struct {
		a A
		b B
	}
	p, err := deadline(ctx, c, op, path, func() (pair, error) {
		a, b, err := f()
		return pair{a, b}, err
	})
	return p.a, p.b, err
}

// writable refuses writes on a read-only Conn, and writes while there is
// no session (see NoSessionError; reads check that too).
func (c *Conn) writable(op, path string) error {
	if c.ro {
		return fmt.Errorf("%w: refusing to %s %s", ErrReadOnly, op, path)
	}
	return c.hasSession(op, path)
}

// hasSession returns a *NoSessionError (in an *OpError) unless the
// connection has a session now.
func (c *Conn) hasSession(op, path string) error {
	if c.raw == nil || c.raw.State() == zk.StateHasSession {
		return nil
	}
	e := &NoSessionError{}
	c.smu.Lock()
	e.State, e.Since = c.state, c.since
	c.smu.Unlock()
	if e.State == StateConnected {
		// The events lag the library's state by a moment.
		e.State = StateDisconnected
	}
	if c.dial != nil {
		e.Problems = c.dial.problems(c.addrs)
	}
	return &OpError{Server: strings.Join(c.cs.Servers, ","), Op: op, Path: path, Err: e}
}

// WaitSession waits until the connection has a session (at once when it
// has one), for at most ctx. It fails when ctx ends or the Conn is closed.
func (c *Conn) WaitSession(ctx context.Context) error {
	ch := make(chan struct{}, 1)
	defer c.Listen(func(ev zk.Event) {
		if ev.Type == zk.EventSession && ev.State == zk.StateHasSession {
			select {
			case ch <- struct{}{}:
			default:
			}
		}
	})()
	for {
		if c.raw.State() == zk.StateHasSession {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return fmt.Errorf("zookeeper %s: waiting for a session: %w", strings.Join(c.cs.Servers, ","), context.Cause(ctx))
		case <-c.closed:
			return fmt.Errorf("zookeeper %s: waiting for a session: %w", strings.Join(c.cs.Servers, ","), zk.ErrClosing)
		}
	}
}

// Silence is how long the server has not answered what it was sent on
// the current connection: 0 while it answers (a healthy server answers
// every ping within a round trip), growing while it stalls.
func (c *Conn) Silence() time.Duration {
	if c.dial == nil {
		return 0
	}
	return c.dial.silence(time.Now())
}

// idle is how long nothing has been sent to the server.
func (c *Conn) idle() time.Duration {
	if c.dial == nil {
		return 0
	}
	return c.dial.idle(time.Now())
}

// LastHeard is when a server last sent anything within a session: the
// data read so far was current as of then (zero before the first session).
func (c *Conn) LastHeard() time.Time {
	if c.dial == nil {
		return time.Time{}
	}
	return c.dial.lastHeard()
}

// Get returns a node's data and stat.
func (c *Conn) Get(path string) ([]byte, *zk.Stat, error) {
	fp, err := c.full(path)
	if err != nil {
		return nil, nil, err
	}
	if err := c.hasSession("get", path); err != nil {
		return nil, nil, err
	}
	return deadline3(bg, c, "get", path, func() ([]byte, *zk.Stat, error) { return c.raw.Get(fp) })
}

// GetW is Get plus a one-shot data watch. The event's Path is
// chroot-relative.
func (c *Conn) GetW(path string) ([]byte, *zk.Stat, <-chan zk.Event, error) {
	fp, err := c.full(path)
	if err != nil {
		return nil, nil, nil, err
	}
	if err := c.hasSession("get", path); err != nil {
		return nil, nil, nil, err
	}
	type r struct {
		data []byte
		stat *zk.Stat
		ch   <-chan zk.Event
	}
	res, err := deadline(bg, c, "get", path, func() (r, error) {
		d, s, ch, err := c.raw.GetW(fp)
		return r{d, s, ch}, err
	})
	if err != nil {
		return nil, nil, nil, err
	}
	return res.data, res.stat, c.stripChan(res.ch), nil
}

// Children returns a node's child names (which need no stripping) and stat.
func (c *Conn) Children(path string) ([]string, *zk.Stat, error) {
	fp, err := c.full(path)
	if err != nil {
		return nil, nil, err
	}
	if err := c.hasSession("children", path); err != nil {
		return nil, nil, err
	}
	return deadline3(bg, c, "children", path, func() ([]string, *zk.Stat, error) { return c.raw.Children(fp) })
}

// ChildrenW is Children plus a one-shot child watch.
func (c *Conn) ChildrenW(path string) ([]string, *zk.Stat, <-chan zk.Event, error) {
	fp, err := c.full(path)
	if err != nil {
		return nil, nil, nil, err
	}
	if err := c.hasSession("children", path); err != nil {
		return nil, nil, nil, err
	}
	type r struct {
		kids []string
		stat *zk.Stat
		ch   <-chan zk.Event
	}
	res, err := deadline(bg, c, "children", path, func() (r, error) {
		k, s, ch, err := c.raw.ChildrenW(fp)
		return r{k, s, ch}, err
	})
	if err != nil {
		return nil, nil, nil, err
	}
	return res.kids, res.stat, c.stripChan(res.ch), nil
}

// Sync makes the server the connection uses catch up with the ensemble's
// leader: reads after it see every write the leader had committed (or had
// proposed: the leader answers a sync once those are committed) when the
// sync reached it. It returns the path (chroot-relative).
func (c *Conn) Sync(path string) (string, error) {
	fp, err := c.full(path)
	if err != nil {
		return "", err
	}
	if err := c.hasSession("sync", path); err != nil {
		return "", err
	}
	p, err := deadline(bg, c, "sync", path, func() (string, error) { return c.raw.Sync(fp) })
	if err != nil {
		return "", err
	}
	return c.strip(p), nil
}

// Exists reports whether a node exists, and its stat.
func (c *Conn) Exists(path string) (bool, *zk.Stat, error) {
	fp, err := c.full(path)
	if err != nil {
		return false, nil, err
	}
	if err := c.hasSession("exists", path); err != nil {
		return false, nil, err
	}
	return deadline3(bg, c, "exists", path, func() (bool, *zk.Stat, error) { return c.raw.Exists(fp) })
}

// ExistsW is Exists plus a one-shot watch: a data watch when the node
// exists, an exist watch (fires on creation) when it does not.
func (c *Conn) ExistsW(path string) (bool, *zk.Stat, <-chan zk.Event, error) {
	fp, err := c.full(path)
	if err != nil {
		return false, nil, nil, err
	}
	if err := c.hasSession("exists", path); err != nil {
		return false, nil, nil, err
	}
	type r struct {
		ok   bool
		stat *zk.Stat
		ch   <-chan zk.Event
	}
	res, err := deadline(bg, c, "exists", path, func() (r, error) {
		ok, s, ch, err := c.raw.ExistsW(fp)
		return r{ok, s, ch}, err
	})
	if err != nil {
		return false, nil, nil, err
	}
	return res.ok, res.stat, c.stripChan(res.ch), nil
}

// stripChan passes a watch channel on with the chroot stripped from the
// event path. Without a chroot it is the library's channel itself; with one
// a goroutine forwards the single event and ends when the watch fires or is
// invalidated (which Close guarantees).
func (c *Conn) stripChan(in <-chan zk.Event) <-chan zk.Event {
	if c.chroot == "" || in == nil {
		return in
	}
	out := make(chan zk.Event, 1)
	go func() {
		defer close(out)
		for ev := range in {
			if ev.Path != "" {
				ev.Path = c.strip(ev.Path)
			}
			out <- ev
		}
	}()
	return out
}

// Create creates a node and returns its chroot-relative path (with the
// sequence suffix for sequential nodes).
func (c *Conn) Create(path string, data []byte, flags int32, acl []zk.ACL) (string, error) {
	if err := c.writable("create", path); err != nil {
		return "", err
	}
	fp, err := c.full(path)
	if err != nil {
		return "", err
	}
	p, err := deadline(bg, c, "create", path, func() (string, error) { return c.raw.Create(fp, data, flags, acl) })
	if err != nil {
		return "", c.refused("create", path, false, err)
	}
	return c.strip(p), nil
}

// Set writes a node's data if its version matches (-1: any version).
func (c *Conn) Set(path string, data []byte, version int32) (*zk.Stat, error) {
	if err := c.writable("set", path); err != nil {
		return nil, err
	}
	fp, err := c.full(path)
	if err != nil {
		return nil, err
	}
	st, err := deadline(bg, c, "set", path, func() (*zk.Stat, error) { return c.raw.Set(fp, data, version) })
	return st, c.refused("set", path, false, err)
}

// Delete deletes a node if its version matches (-1: any version).
func (c *Conn) Delete(path string, version int32) error {
	if err := c.writable("delete", path); err != nil {
		return err
	}
	fp, err := c.full(path)
	if err != nil {
		return err
	}
	_, err = deadline(bg, c, "delete", path, func() (struct{}, error) { return struct{}{}, c.raw.Delete(fp, version) })
	return c.refused("delete", path, false, err)
}

// Multi runs *zk.CreateRequest, *zk.SetDataRequest, *zk.DeleteRequest and
// *zk.CheckVersionRequest ops atomically. Paths are chroot-relative: the
// requests are copied with the chroot prefixed (the caller's are not
// modified) and created paths in the results are stripped. As with
// *zk.Conn, a failed transaction returns both the per-op results and the
// first op error.
func (c *Conn) Multi(ops ...any) ([]zk.MultiResponse, error) {
	if c.ro {
		return nil, fmt.Errorf("%w: refusing to multi (%s)", ErrReadOnly, describeOps(ops))
	}
	if err := c.hasSession("multi", describeOps(ops)); err != nil {
		return nil, err
	}
	prefixed := make([]any, len(ops))
	first := ""
	for i, op := range ops {
		var p string
		var err error
		switch r := op.(type) {
		case *zk.CreateRequest:
			cp := *r
			cp.Path, err = c.full(r.Path)
			p, prefixed[i] = r.Path, &cp
		case *zk.SetDataRequest:
			cp := *r
			cp.Path, err = c.full(r.Path)
			p, prefixed[i] = r.Path, &cp
		case *zk.DeleteRequest:
			cp := *r
			cp.Path, err = c.full(r.Path)
			p, prefixed[i] = r.Path, &cp
		case *zk.CheckVersionRequest:
			cp := *r
			cp.Path, err = c.full(r.Path)
			p, prefixed[i] = r.Path, &cp
		default:
			return nil, fmt.Errorf("multi: unknown operation type %T", op)
		}
		if err != nil {
			return nil, fmt.Errorf("multi: op %d (%s): %w", i, p, err)
		}
		if i == 0 {
			first = p
		}
	}
	type r struct{ res []zk.MultiResponse }
	res, err := deadline(bg, c, "multi", first, func() (r, error) {
		mr, err := c.raw.Multi(prefixed...)
		return r{mr}, err
	})
	for i := range res.res {
		if res.res[i].String != "" {
			res.res[i].String = c.strip(res.res[i].String)
		}
	}
	return res.res, c.refusedMulti(ops, res.res, err)
}

// describeOps lists the first few ops of a multi for an error message.
func describeOps(ops []any) string {
	var parts []string
	for i, op := range ops {
		if i == 3 {
			parts = append(parts, fmt.Sprintf("and %d more", len(ops)-3))
			break
		}
		switch r := op.(type) {
		case *zk.CreateRequest:
			parts = append(parts, "create "+r.Path)
		case *zk.SetDataRequest:
			parts = append(parts, "set "+r.Path)
		case *zk.DeleteRequest:
			parts = append(parts, "delete "+r.Path)
		case *zk.CheckVersionRequest:
			parts = append(parts, "check "+r.Path)
		default:
			parts = append(parts, fmt.Sprintf("%T", op))
		}
	}
	return strings.Join(parts, ", ")
}

// logTap forwards go-zookeeper's log lines to the configured Logger (or
// nowhere) and keeps the last problem it reported, so a connect failure can
// say why.
type logTap struct {
	out  Logger
	last atomic.Pointer[string]
}

// Printf is zk.Logger.
func (l *logTap) Printf(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if !informational(msg) {
		l.last.Store(&msg)
	}
	if l.out != nil {
		l.out.Printf("%s", msg)
	}
}

func (l *logTap) lastError() string {
	if p := l.last.Load(); p != nil {
		return *p
	}
	return ""
}

func informational(msg string) bool {
	for _, p := range []string{"connected to ", "authenticated: ", "re-submitting ", "send loop terminated: <nil>"} {
		if strings.HasPrefix(msg, p) {
			return true
		}
	}
	return false
}
