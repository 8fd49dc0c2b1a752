package zkwatch

import (
	"context"
	"errors"
	"net"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ktopo/ktopo/internal/testkit/nettest"
	"github.com/ktopo/ktopo/internal/testkit/zktest"
)

// TestProbe: a server that closes the session handshake unanswered is
// asked about once (Options.Probe). A verdict that it is no ZooKeeper
// server fails Connect at once, in the probe's words (the connect
// deadline is an hour away); beside a ZooKeeper server it is no failure;
// no verdict (a ZooKeeper without quorum closes handshakes too) leaves
// the wait as it was. A server that answers the handshake with what is
// not ZooKeeper's reply is not waited for (an HTTP server's "HTTP" reads
// as a length of 1.2 GB). A ZooKeeper server is never asked about.
func TestProbe(t *testing.T) {
	ctx := context.Background()
	closing := nettest.Closing(t)
	web := nettest.Serve(t, func(c net.Conn) {
		defer c.Close()
		_, _ = c.Read(make([]byte, 256))
		_, _ = c.Write([]byte("HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n"))
	})
	var asked atomic.Int32
	var askedAbout atomic.Value
	notZK := func(_ context.Context, addr string) error {
		asked.Add(1)
		askedAbout.Store(addr)
		if addr == zktest.Addr(t) {
			return nil
		}
		return errors.New(addr + " is not ZooKeeper (the probe says)")
	}

	_, err := Connect(ctx, closing, Options{ConnectTimeout: time.Hour, Probe: notZK, Logger: zktest.NewLogger(t)})
	if err == nil || err.Error() != closing+" is not ZooKeeper (the probe says)" || asked.Load() != 1 {
		t.Fatalf("a server that closes handshakes, not ZooKeeper: %v (asked %d times)", err, asked.Load())
	}
	_, err = Connect(ctx, web, Options{ConnectTimeout: time.Hour, Probe: notZK, Logger: zktest.NewLogger(t)})
	if err == nil || err.Error() != web+" is not ZooKeeper (the probe says)" {
		t.Fatalf("a server that answers the handshake with HTTP, not ZooKeeper: %v", err)
	}

	asked.Store(0)
	c, err := Connect(ctx, closing+","+zktest.Addr(t), Options{ConnectTimeout: time.Minute, Probe: notZK, Logger: zktest.NewLogger(t)})
	if err != nil {
		t.Fatalf("a ZooKeeper server beside one that is not: %v", err)
	}
	c.Close()
	if a, _ := askedAbout.Load().(string); asked.Load() > 0 && a != closing {
		t.Errorf("asked about %s", a)
	}

	maybeZK := func(context.Context, string) error { return nil }
	_, err = Connect(ctx, closing, Options{ConnectTimeout: time.Second, Probe: maybeZK, Logger: zktest.NewLogger(t)})
	// (The close reads as an end of file or a reset, as it comes.)
	if err == nil || !strings.HasPrefix(err.Error(), "no session with "+closing+" within 1s: "+closing+": ") ||
		!strings.Contains(err.Error(), "(if "+closing+" is ZooKeeper's secureClientPort, connect with TLS") {
		t.Fatalf("no verdict: %v", err)
	}
	_, err = Connect(ctx, web, Options{ConnectTimeout: time.Second, Logger: zktest.NewLogger(t)})
	if err == nil || !strings.Contains(err.Error(), web+`: answered the session handshake with something other than ZooKeeper's reply (its first bytes: "HTTP")`) {
		t.Fatalf("an HTTP answer to the handshake, no probe: %v", err)
	}

	asked.Store(0)
	c, err = Connect(ctx, zktest.Addr(t), Options{Probe: notZK, Logger: zktest.NewLogger(t)})
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
	if asked.Load() != 0 {
		t.Errorf("a ZooKeeper server was asked about %d times", asked.Load())
	}
}
