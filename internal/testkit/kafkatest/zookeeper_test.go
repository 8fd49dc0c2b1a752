package kafkatest_test

import (
	"encoding/binary"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/ktopo/ktopo/internal/testkit/kafkatest"
	"github.com/ktopo/ktopo/internal/testkit/zktest"
)

// TestZooKeeperVersionAudit checks the audit that keeps ktopo from sending
// an operation a server lacks (kafkatest.OnZooKeeper): addWatch (opcode
// 106, ZooKeeper 3.6+) sent to 3.5.9 is answered -6 Unimplemented, the
// recorder lists it as unsupported by 3.5.9 and the server's log shows the
// refusal; 3.9.5 accepts it and logs nothing of the kind.
func TestZooKeeperVersionAudit(t *testing.T) {
	for _, tc := range []struct {
		version string
		err     int32
	}{{kafkatest.ZooKeeper35, -6}, {kafkatest.ZooKeeper39, 0}} {
		t.Run(tc.version, func(t *testing.T) {
			srv := kafkatest.StartZooKeeper(t, tc.version)
			rec := zktest.Record(t, srv.Addr())
			if got := rawAddWatch(t, rec.Addr()); got != tc.err {
				t.Errorf("addWatch answered %d, want %d", got, tc.err)
			}
			unsupported := rec.Unsupported(tc.version)
			refused := waitRefused(srv, tc.err != 0)
			t.Logf("requests %s; details %s; refused %q", rec.Summary(), rec.DetailSummary(), refused)
			if tc.err != 0 {
				if len(unsupported) != 1 || unsupported[0] != 106 {
					t.Errorf("unsupported by %s: %v, want [106]", tc.version, unsupported)
				}
				if len(refused) == 0 {
					t.Errorf("the %s log shows no refused request:\n%s", tc.version, srv.Log())
				}
			} else if len(unsupported) != 0 || len(refused) != 0 {
				t.Errorf("unsupported %v, refused %q: want none", unsupported, refused)
			}
			if d := rec.Details(); d["create:ephemeral"] != 1 || d["exists:watch"] != 1 {
				t.Errorf("details %v: want one ephemeral create and one watching exists", d)
			}
		})
	}
}

// waitRefused returns the server log's refusals, waiting a little for the
// log line when one is expected (the server logs after it replies).
func waitRefused(srv *zktest.Server, want bool) []string {
	deadline := time.Now().Add(5 * time.Second)
	for {
		r := zktest.RefusedRequests(srv.Log())
		if len(r) > 0 || !want || time.Now().After(deadline) {
			return r
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// rawAddWatch opens a session by hand, creates an ephemeral node, sets an
// exists watch and sends addWatch("/", persistent); it returns addWatch's
// error code.
func rawAddWatch(t *testing.T, addr string) int32 {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(15 * time.Second))
	send := func(parts ...any) {
		var b []byte
		for _, p := range parts {
			switch v := p.(type) {
			case int32:
				b = binary.BigEndian.AppendUint32(b, uint32(v))
			case int64:
				b = binary.BigEndian.AppendUint64(b, uint64(v))
			case bool:
				if v {
					b = append(b, 1)
				} else {
					b = append(b, 0)
				}
			case string:
				b = binary.BigEndian.AppendUint32(b, uint32(len(v)))
				b = append(b, v...)
			case []byte:
				b = binary.BigEndian.AppendUint32(b, uint32(len(v)))
				b = append(b, v...)
			}
		}
		if _, err := c.Write(binary.BigEndian.AppendUint32(nil, uint32(len(b)))); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Write(b); err != nil {
			t.Fatal(err)
		}
	}
	recv := func() []byte {
		var h [4]byte
		if _, err := io.ReadFull(c, h[:]); err != nil {
			t.Fatalf("read: %v", err)
		}
		b := make([]byte, binary.BigEndian.Uint32(h[:]))
		if _, err := io.ReadFull(c, b); err != nil {
			t.Fatalf("read: %v", err)
		}
		return b
	}
	// ConnectRequest: protocol, last zxid, timeout, session, password, readOnly.
	send(int32(0), int64(0), int32(10000), int64(0), make([]byte, 16), false)
	recv()
	// A reply is xid, zxid, err; skip notifications (xid -1).
	reply := func(xid int32) int32 {
		for {
			b := recv()
			if got := int32(binary.BigEndian.Uint32(b)); got == xid {
				return int32(binary.BigEndian.Uint32(b[12:]))
			}
		}
	}
	path := "/audit-" + strings.ReplaceAll(t.Name(), "/", "-")
	// create(path, no data, world:anyone ALL, ephemeral)
	send(int32(1), int32(1), path, []byte(nil), int32(1), int32(31), "world", "anyone", int32(1))
	if e := reply(1); e != 0 {
		t.Fatalf("create: %d", e)
	}
	send(int32(2), int32(3), path, true) // exists with a watch
	if e := reply(2); e != 0 {
		t.Fatalf("exists: %d", e)
	}
	send(int32(3), int32(106), "/", int32(0)) // addWatch("/", PERSISTENT)
	return reply(3)
}
