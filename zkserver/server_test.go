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

// TestContainerReaped: an empty container that has had children is deleted
// by the container check (ZooKeeper's ContainerManager), with watches fired;
// one that never had a child stays.
func TestContainerReaped(t *testing.T) {
	s := startEmbedded(t, zkserver.Config{ContainerCheckInterval: 50 * time.Millisecond})
	c, _ := gozk(t, s.Addr(), 10*time.Second)
	for _, p := range []string{"/used", "/unused"} {
		if _, err := c.CreateContainer(p, nil, zk.FlagContainer, zk.WorldACL(zk.PermAll)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.Create("/used/child", nil, 0, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	_, _, ch, err := c.ExistsW("/used")
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Delete("/used/child", -1); err != nil {
		t.Fatal(err)
	}
	if e := waitWatch(t, ch); e.Type != zk.EventNodeDeleted {
		t.Fatalf("event %v, want NodeDeleted", e.Type)
	}
	if ok, _, _ := c.Exists("/unused"); !ok {
		t.Fatal("a container that never had children was deleted")
	}
}

// TestManyClients: concurrent sessions writing and reading sequential and
// ephemeral nodes; every create gets a unique name and the counts add up.
func TestManyClients(t *testing.T) {
	s := startEmbedded(t, zkserver.Config{})
	admin, _ := gozk(t, s.Addr(), 10*time.Second)
	admin.Create("/seq", nil, 0, zk.WorldACL(zk.PermAll))
	const clients, ops = 16, 100
	names := make(chan string, clients*ops)
	errs := make(chan error, clients)
	for i := 0; i < clients; i++ {
		c, _ := gozk(t, s.Addr(), 10*time.Second)
		go func() {
			for j := 0; j < ops; j++ {
				p, err := c.Create("/seq/n-", []byte("x"), zk.FlagSequence|zk.FlagEphemeral, zk.WorldACL(zk.PermAll))
				if err != nil {
					errs <- err
					return
				}
				if _, _, err := c.Get(p); err != nil {
					errs <- err
					return
				}
				names <- p
			}
			errs <- nil
		}()
	}
	for i := 0; i < clients; i++ {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	close(names)
	seen := map[string]bool{}
	for n := range names {
		if seen[n] {
			t.Fatalf("duplicate sequential name %s", n)
		}
		seen[n] = true
	}
	kids, st, err := admin.Children("/seq")
	if err != nil || len(kids) != clients*ops || st.Cversion != clients*ops {
		t.Fatalf("children %d cversion %d err %v, want %d", len(kids), st.Cversion, err, clients*ops)
	}
	if got := s.Stats().Ephemerals; got != clients*ops {
		t.Fatalf("ephemerals %d, want %d", got, clients*ops)
	}
}
