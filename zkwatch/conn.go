package zkwatch

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"sync/atomic"
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
	// Probe, when set, is asked what listens at a server (host:port as
	// given) that failed the session handshake before any session was had
	// with it (closed it unanswered, left it unanswered for the handshake
	// timeout, or answered with what is not ZooKeeper's reply): once per
	// server, while Connect waits. A
	// non-nil error says it is not a ZooKeeper server, what it is and what
	// to give instead; that server then counts as failed, and Connect fails
	// at once when every server has, with Probe's words. It returns nil
	// for a server that is ZooKeeper, or may be: one without quorum closes
	// handshakes too. Not asked on TLS connections.
	Probe func(ctx context.Context, addr string) error
	// MaxBufferSize caps the size of one reply (go-zookeeper's
	// WithMaxBufferSize). Zero keeps go-zookeeper's default: unlimited.
	// Never set it near 1 MiB: a big children list would then drop the
	// connection on every attempt.
	MaxBufferSize int
}

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
	if opts.Probe != nil && opts.Dialer == nil && opts.TLS == nil {
		defer tracker.probeWhile(ctx, opts.Probe)()
	}
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
		case <-tracker.verdicts:
			if err := tracker.allFailed(addrs); err != nil {
				return fail(err)
			}
		case <-ctx.Done():
			return fail(c.noSession(ctx, opts.ConnectTimeout))
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
	if err := c.checkChroot(ctx, opts.CreateChroot); err != nil {
		return fail(err)
	}
	return c, nil
}

// noSession is why Connect got no session before ctx ended (after
// timeout, or cancelled): what each server did, rather than
// go-zookeeper's last line (one server's, often not the telling one).
func (c *Conn) noSession(ctx context.Context, timeout time.Duration) error {
	servers := strings.Join(c.cs.Servers, ",")
	msg := fmt.Sprintf("no session with %s within %s", servers, timeout)
	if cerr := context.Cause(ctx); !errors.Is(cerr, context.DeadlineExceeded) {
		msg = fmt.Sprintf("connecting to %s: %v", servers, cerr)
	}
	if p := c.dial.problems(c.addrs); len(p) > 0 {
		msg += ": " + strings.Join(p, "; ")
		if hint := c.dial.secureHint(c.addrs); hint != "" {
			msg += " (" + hint + ")"
		}
	} else if last := c.log.lastError(); last != "" {
		msg += ": " + last
	} else if err := c.dial.allFailed(c.addrs); err != nil {
		msg += ": " + err.Error()
	} else if addr := c.dial.connected(); addr != "" {
		msg += ": " + addr + " accepted the connection but did not complete the session handshake"
	}
	return errors.New(msg)
}

// checkChroot makes sure the connect string's chroot exists, creating it
// (and its parents) when create is set.
func (c *Conn) checkChroot(ctx context.Context, create bool) error {
	if c.chroot == "" {
		return nil
	}
	ok, _, err := deadline3(ctx, c, "exists", "/", func() (bool, *zk.Stat, error) { return c.raw.Exists(c.chroot) })
	switch {
	case err != nil:
		return err
	case !ok && create:
		if err := c.createAll(ctx, c.chroot); err != nil {
			return fmt.Errorf("zookeeper %s: create chroot %s: %w", c.Server(), c.chroot, err)
		}
	case !ok:
		return c.noChroot(ctx)
	}
	return nil
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
