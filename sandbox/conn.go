package sandbox

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/ktopo/ktopo/zkwatch"
)

// zkConn is the part of a ZooKeeper session the sandbox uses. Paths are
// relative to the connect string's chroot (*zkwatch.Conn).
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

var _ zkConn = (*zkwatch.Conn)(nil)

// openACL is what Kafka uses without zookeeper.set.acl: world:anyone ALL.
var openACL = zk.WorldACL(zk.PermAll)

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

// connectSession opens one chroot-aware ZooKeeper session (zkwatch) and
// waits until it is established (or ctx ends). The chroot is created when
// missing, as Kafka brokers do. Requests have no deadline: like Kafka's
// client, the sandbox waits for the server (a killed broker's requests end
// with its session).
func connectSession(ctx context.Context, connect string, o dialOptions) (*zkwatch.Conn, error) {
	if o.logger == nil {
		o.logger = discardLogger()
	}
	timeout := 10 * time.Second
	if d, ok := ctx.Deadline(); ok {
		timeout = time.Until(d)
	}
	conn, err := zkwatch.Connect(ctx, connect, zkwatch.Options{
		SessionTimeout: o.sessionTimeout,
		ConnectTimeout: timeout,
		RequestTimeout: -1,
		Logger:         zkLogger{o.logger},
		CreateChroot:   true,
	})
	if err != nil {
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	if o.onEvent != nil {
		conn.Listen(o.onEvent)
	}
	return conn, nil
}

// connectionError reports whether err is about the connection rather than
// the server's answer (Kafka's client retries those until connected). A
// lost session is not one: the request fails and the session's Expire
// event follows.
func connectionError(err error) bool {
	return errors.Is(err, zk.ErrNoServer) || errors.Is(err, zk.ErrConnectionClosed) ||
		errors.Is(err, zk.ErrSessionMoved) || errors.Is(err, zk.ErrClosing)
}

func discardLogger() *slog.Logger { return slog.New(slog.DiscardHandler) }
