package zkserver_test

import (
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/ktopo/ktopo/zkserver"
)

// TestCloseWithClients: Close returns promptly with live clients, closes
// their connections and frees the port.
func TestCloseWithClients(t *testing.T) {
	s, err := zkserver.Start(zkserver.Config{})
	if err != nil {
		t.Fatal(err)
	}
	c, ev := gozk(t, s.Addr(), 10*time.Second)
	waitState(t, ev, zk.StateHasSession)
	if _, err := c.Create("/x", nil, zk.FlagEphemeral, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	raw := session(t, s.Addr(), 10000)
	raw.sid = 0
	start := time.Now()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	t.Logf("Close took %v", time.Since(start))
	if closed, _ := raw.closedByServer(5 * time.Second); !closed {
		t.Fatal("client connection still open after Close")
	}
	waitState(t, ev, zk.StateDisconnected)
	if err := s.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
}

// TestStartBadAddr reports a listen failure.
func TestStartBadAddr(t *testing.T) {
	if _, err := zkserver.Start(zkserver.Config{Addr: "256.0.0.1:1"}); err == nil {
		t.Fatal("want an error for an invalid address")
	}
}
