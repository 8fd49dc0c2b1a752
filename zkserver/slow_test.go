package zkserver_test

import (
	"errors"
	"io"
	"syscall"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/ktopo/ktopo/zkserver"
	"github.com/ktopo/ktopo/zkserver/internal/proto"
)

// TestSlowClientCannotStallOthers: a client that pipelines large reads and
// never reads its replies gets back-pressure, then, once notifications for
// it pile up past MaxQueuedBytes, is disconnected; meanwhile other clients
// are served normally.
func TestSlowClientCannotStallOthers(t *testing.T) {
	srv := startEmbedded(t, zkserver.Config{MaxQueuedBytes: 256 << 10})
	slow := session(t, srv.Addr(), 30000)
	slow.sid = 0 // it will be disconnected; its session just expires
	slow.create("/big", make([]byte, 200<<10), 0)
	slow.call(proto.OpAddWatch, func(e *proto.Encoder) { e.String("/"); e.Int(1) })
	for i := 0; i < 100; i++ {
		slow.send(proto.OpGetData, pathWatch("/big", false))
	}

	fast, _ := gozk(t, srv.Addr(), 10*time.Second)
	if _, err := fast.Create("/x", nil, 0, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	var ops int
	for ; ops < 50000 && srv.Stats().Connections > 1; ops++ {
		if _, err := fast.Set("/x", []byte("v"), -1); err != nil {
			t.Fatalf("set %d: %v", ops, err)
		}
	}
	if srv.Stats().Connections > 1 {
		t.Fatalf("the slow client is still connected after %d notifications for it", ops)
	}
	t.Logf("slow client disconnected after %d writes", ops)
	// Its connection ends once we read what was sent before the cut (EOF,
	// or a reset: the server closed with our requests still unread).
	_ = slow.nc.SetReadDeadline(time.Now().Add(20 * time.Second))
	if _, err := io.Copy(io.Discard, slow.nc); err != nil && !errors.Is(err, syscall.ECONNRESET) {
		t.Fatalf("slow connection not closed: %v", err)
	}
	if _, _, err := fast.Get("/x"); err != nil {
		t.Fatal(err)
	}
}
