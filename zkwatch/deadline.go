package zkwatch

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/go-zookeeper/zk"
)

// bg is the context of the requests made with go-zookeeper's signatures,
// which take none: the request timeout alone bounds them.
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
