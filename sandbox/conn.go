package sandbox

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"
)

// zkConn is the part of a ZooKeeper session the sandbox uses. Paths are
// relative to the connect string's chroot. The method set is *zk.Conn's, so
// a chroot-aware connection from zkwatch fits it as well as chrootConn.
type zkConn interface {
	Get(path string) ([]byte, *zk.Stat, error)
	GetW(path string) ([]byte, *zk.Stat, <-chan zk.Event, error)
	Children(path string) ([]string, *zk.Stat, error)
	ChildrenW(path string) ([]string, *zk.Stat, <-chan zk.Event, error)
	Exists(path string) (bool, *zk.Stat, error)
	ExistsW(path string) (bool, *zk.Stat, <-chan zk.Event, error)
	Create(path string, data []byte, flags int32, acl []zk.ACL) (string, error)
	Set(path string, data []byte, version int32) (*zk.Stat, error)
	Delete(path string, version int32) error
	Multi(ops ...any) ([]zk.MultiResponse, error)
	SessionID() int64
	Close()
}

var _ zkConn = (*chrootConn)(nil)

// openACL is what Kafka uses without zookeeper.set.acl: world:anyone ALL.
var openACL = zk.WorldACL(zk.PermAll)

// connectString is a parsed ZooKeeper connect string.
type connectString struct {
	servers []string
	chroot  string // "" or "/a/b"
}

// parseConnect splits "h1:p1,h2:p2/chroot" the way Kafka's ZooKeeper client
// does: the chroot starts at the first '/'.
func parseConnect(s string) (connectString, error) {
	var cs connectString
	s = strings.TrimSpace(s)
	hosts, chroot := s, ""
	if i := strings.IndexByte(s, '/'); i >= 0 {
		hosts, chroot = s[:i], s[i:]
	}
	for _, h := range strings.Split(hosts, ",") {
		h = strings.TrimSpace(h)
		if h == "" {
			continue
		}
		if !strings.Contains(h, ":") {
			h += ":2181"
		}
		cs.servers = append(cs.servers, h)
	}
	if len(cs.servers) == 0 {
		return cs, fmt.Errorf("sandbox: connect string %q names no ZooKeeper server", s)
	}
	if chroot == "/" {
		chroot = ""
	}
	if chroot != "" {
		if strings.HasSuffix(chroot, "/") || strings.Contains(chroot, "//") {
			return cs, fmt.Errorf("sandbox: invalid chroot %q in connect string %q", chroot, s)
		}
	}
	cs.chroot = chroot
	return cs, nil
}

// chrootConn is a go-zookeeper session that prefixes every path with the
// chroot. Watch channels are passed on as they are: the sandbox knows which
// path each watch is for and never reads the event path.
type chrootConn struct {
	raw    *zk.Conn
	chroot string
}

func (c *chrootConn) full(p string) string {
	if c.chroot == "" {
		return p
	}
	if p == "/" {
		return c.chroot
	}
	return c.chroot + p
}

func (c *chrootConn) Get(p string) ([]byte, *zk.Stat, error) { return c.raw.Get(c.full(p)) }
func (c *chrootConn) GetW(p string) ([]byte, *zk.Stat, <-chan zk.Event, error) {
	return c.raw.GetW(c.full(p))
}
func (c *chrootConn) Children(p string) ([]string, *zk.Stat, error) { return c.raw.Children(c.full(p)) }
func (c *chrootConn) ChildrenW(p string) ([]string, *zk.Stat, <-chan zk.Event, error) {
	return c.raw.ChildrenW(c.full(p))
}
func (c *chrootConn) Exists(p string) (bool, *zk.Stat, error) { return c.raw.Exists(c.full(p)) }
func (c *chrootConn) ExistsW(p string) (bool, *zk.Stat, <-chan zk.Event, error) {
	return c.raw.ExistsW(c.full(p))
}
func (c *chrootConn) Create(p string, data []byte, flags int32, acl []zk.ACL) (string, error) {
	r, err := c.raw.Create(c.full(p), data, flags, acl)
	return strings.TrimPrefix(r, c.chroot), err
}
func (c *chrootConn) Set(p string, data []byte, version int32) (*zk.Stat, error) {
	return c.raw.Set(c.full(p), data, version)
}
func (c *chrootConn) Delete(p string, version int32) error { return c.raw.Delete(c.full(p), version) }
func (c *chrootConn) SessionID() int64                     { return c.raw.SessionID() }
func (c *chrootConn) Close()                               { c.raw.Close() }

// Multi copies the requests with the chroot prefixed (the caller's are left
// alone).
func (c *chrootConn) Multi(ops ...any) ([]zk.MultiResponse, error) {
	if c.chroot != "" {
		cp := make([]any, len(ops))
		for i, op := range ops {
			switch r := op.(type) {
			case *zk.CreateRequest:
				x := *r
				x.Path = c.full(r.Path)
				cp[i] = &x
			case *zk.SetDataRequest:
				x := *r
				x.Path = c.full(r.Path)
				cp[i] = &x
			case *zk.DeleteRequest:
				x := *r
				x.Path = c.full(r.Path)
				cp[i] = &x
			case *zk.CheckVersionRequest:
				x := *r
				x.Path = c.full(r.Path)
				cp[i] = &x
			default:
				return nil, fmt.Errorf("multi: unknown operation type %T", op)
			}
		}
		ops = cp
	}
	res, err := c.raw.Multi(ops...)
	for i := range res {
		res[i].String = strings.TrimPrefix(res[i].String, c.chroot)
	}
	return res, err
}

// zkLogger sends go-zookeeper's log lines to slog at debug level (its
// default would write to stderr, under a terminal UI).
type zkLogger struct{ l *slog.Logger }

func (z zkLogger) Printf(format string, args ...any) {
	z.l.Debug(fmt.Sprintf(format, args...), "component", "zookeeper-client")
}

// dialOptions tune connectSession.
type dialOptions struct {
	sessionTimeout time.Duration
	logger         *slog.Logger
	// onEvent receives every event (session events and fired watches, with
	// chroot-relative paths) on go-zookeeper's receive goroutine, before
	// the watch channels and before the replies that follow on the wire;
	// it must not block.
	onEvent func(zk.Event)
}

// connectSession opens one ZooKeeper session for a connect string and
// waits until it is established (or ctx ends). The chroot is created when
// missing, as Kafka brokers do at startup.
func connectSession(ctx context.Context, connect string, o dialOptions) (zkConn, error) {
	cs, err := parseConnect(connect)
	if err != nil {
		return nil, err
	}
	if o.logger == nil {
		o.logger = discardLogger()
	}
	var once sync.Once
	ready := make(chan struct{})
	cb := func(ev zk.Event) {
		if ev.Type == zk.EventSession && ev.State == zk.StateHasSession {
			once.Do(func() { close(ready) })
		}
		if o.onEvent != nil {
			if ev.Path != "" && cs.chroot != "" {
				if ev.Path == cs.chroot {
					ev.Path = "/"
				} else {
					ev.Path = strings.TrimPrefix(ev.Path, cs.chroot)
				}
			}
			o.onEvent(ev)
		}
	}
	raw, _, err := zk.Connect(cs.servers, o.sessionTimeout,
		zk.WithLogger(zkLogger{o.logger}), zk.WithLogInfo(false), zk.WithEventCallback(cb))
	if err != nil {
		return nil, fmt.Errorf("sandbox: connect to ZooKeeper %s: %w", connect, err)
	}
	select {
	case <-ready:
	case <-ctx.Done():
		raw.Close()
		return nil, fmt.Errorf("sandbox: no ZooKeeper session with %s: %w", strings.Join(cs.servers, ","), context.Cause(ctx))
	}
	c := &chrootConn{raw: raw, chroot: cs.chroot}
	if cs.chroot != "" {
		if err := createChroot(raw, cs.chroot); err != nil {
			raw.Close()
			return nil, fmt.Errorf("sandbox: create chroot %s: %w", cs.chroot, err)
		}
	}
	return c, nil
}

// createChroot creates the chroot and its parents without data.
func createChroot(raw *zk.Conn, chroot string) error {
	cur := ""
	for _, part := range strings.Split(strings.Trim(chroot, "/"), "/") {
		cur += "/" + part
		if _, err := raw.Create(cur, nil, 0, openACL); err != nil && !errors.Is(err, zk.ErrNodeExists) {
			return err
		}
	}
	return nil
}

// connectionError reports whether err is about the connection rather than
// the server's answer (Kafka's client retries those until connected).
func connectionError(err error) bool {
	return errors.Is(err, zk.ErrNoServer) || errors.Is(err, zk.ErrConnectionClosed) ||
		errors.Is(err, zk.ErrSessionMoved)
}

func discardLogger() *slog.Logger { return slog.New(slog.DiscardHandler) }
