package zkwatch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"syscall"
	"time"

	"github.com/go-zookeeper/zk"
)

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
