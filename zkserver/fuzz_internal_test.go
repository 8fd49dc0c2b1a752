package zkserver

import (
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"testing"

	"github.com/ktopo/ktopo/zkserver/internal/proto"
)

// fuzzConn makes a connection with a fresh session whose writer drains to
// nowhere, so dispatch can be driven directly.
func fuzzConn(t testing.TB, s *Server) *conn {
	a, b := net.Pipe()
	go func() { _, _ = io.Copy(io.Discard, b) }()
	c := newConn(s, a)
	s.connMu.Lock()
	s.conns[c] = struct{}{}
	s.connMu.Unlock()
	s.wg.Add(1)
	go c.writeLoop()
	s.mu.Lock()
	c.sess = s.newSessionLocked(30e9)
	c.sess.conn = c
	s.mu.Unlock()
	t.Cleanup(func() { c.close(); b.Close() })
	return c
}

// reqFrame builds a request payload (no length prefix).
func reqFrame(xid, op int32, body func(e *proto.Encoder)) []byte {
	var e proto.Encoder
	e.Int(xid)
	e.Int(op)
	if body != nil {
		body(&e)
	}
	return e.B
}

func multiFrame(ops ...func(e *proto.Encoder)) []byte {
	return reqFrame(9, proto.OpMulti, func(e *proto.Encoder) {
		for _, op := range ops {
			op(e)
		}
		e.Int(-1)
		e.Bool(true)
		e.Int(-1)
	})
}

// dispatchSeeds are valid and almost-valid requests of every opcode.
func dispatchSeeds() [][]byte {
	acl := []proto.ACL{{Perms: 31, Scheme: "world", ID: "anyone"}}
	create := func(p string, flags int32) func(e *proto.Encoder) {
		return func(e *proto.Encoder) { e.String(p); e.Buffer([]byte("d")); e.ACLs(acl); e.Int(flags) }
	}
	pw := func(p string) func(e *proto.Encoder) { return func(e *proto.Encoder) { e.String(p); e.Bool(true) } }
	po := func(p string) func(e *proto.Encoder) { return func(e *proto.Encoder) { e.String(p) } }
	pv := func(p string, v int32) func(e *proto.Encoder) {
		return func(e *proto.Encoder) { e.String(p); e.Int(v) }
	}
	mop := func(typ int32, body func(e *proto.Encoder)) func(e *proto.Encoder) {
		return func(e *proto.Encoder) { e.Int(typ); e.Bool(false); e.Int(-1); body(e) }
	}
	return [][]byte{
		reqFrame(1, proto.OpCreate, create("/f", 0)),
		reqFrame(1, proto.OpCreate, create("/f/s-", 3)),
		reqFrame(1, proto.OpCreate2, create("/f/c", 1)),
		reqFrame(1, proto.OpCreateContainer, create("/f/k", 4)),
		reqFrame(1, proto.OpCreateTTL, func(e *proto.Encoder) { create("/f/t", 5)(e); e.Long(100) }),
		reqFrame(1, proto.OpDelete, pv("/f/c", -1)),
		reqFrame(1, proto.OpExists, pw("/f")),
		reqFrame(1, proto.OpGetData, pw("/f")),
		reqFrame(1, proto.OpSetData, func(e *proto.Encoder) { e.String("/f"); e.Buffer(nil); e.Int(-1) }),
		reqFrame(1, proto.OpGetACL, po("/f")),
		reqFrame(1, proto.OpSetACL, func(e *proto.Encoder) { e.String("/f"); e.ACLs(acl); e.Int(-1) }),
		reqFrame(1, proto.OpGetChildren, pw("/")),
		reqFrame(1, proto.OpGetChildren2, pw("/f")),
		reqFrame(1, proto.OpSync, po("/f")),
		reqFrame(-2, proto.OpPing, nil),
		reqFrame(1, proto.OpCheck, pv("/f", 0)),
		reqFrame(1, proto.OpReconfig, func(e *proto.Encoder) { e.String(""); e.String(""); e.String(""); e.Long(-1) }),
		reqFrame(1, proto.OpCheckWatches, pv("/f", 3)),
		reqFrame(1, proto.OpRemoveWatches, pv("/f", 2)),
		reqFrame(1, proto.OpAuth, func(e *proto.Encoder) { e.Int(0); e.String("digest"); e.Buffer([]byte("a:b")) }),
		reqFrame(1, proto.OpSetWatches, func(e *proto.Encoder) {
			e.Long(0)
			e.Strings([]string{"/f"})
			e.Strings([]string{"/g"})
			e.Strings([]string{"/"})
		}),
		reqFrame(1, proto.OpSetWatches2, func(e *proto.Encoder) {
			e.Long(0)
			for i := 0; i < 5; i++ {
				e.Strings([]string{"/f"})
			}
		}),
		reqFrame(1, proto.OpGetEphemerals, po("/")),
		reqFrame(1, proto.OpGetAllChildrenNumber, po("/")),
		reqFrame(1, proto.OpAddWatch, pv("/", 1)),
		reqFrame(1, proto.OpWhoAmI, nil),
		reqFrame(1, proto.OpDeleteContainer, po("/f")),
		reqFrame(1, proto.OpCloseSession, nil),
		reqFrame(1, 99, nil),
		multiFrame(),
		multiFrame(mop(proto.OpCreate, create("/m", 0)), mop(proto.OpCreate, create("/m/x-", 2)),
			mop(proto.OpSetData, func(e *proto.Encoder) { e.String("/m"); e.Buffer([]byte("z")); e.Int(0) }),
			mop(proto.OpCheck, pv("/m", 1)), mop(proto.OpDelete, pv("/m/x-0000000000", -1))),
		multiFrame(mop(proto.OpCreate, create("/m2", 1)), mop(proto.OpCheck, pv("/nope", 3))),
		multiFrame(mop(proto.OpGetData, pw("/"))),
		reqFrame(1, proto.OpMultiRead, func(e *proto.Encoder) {
			for _, op := range []int32{proto.OpGetData, proto.OpGetChildren} {
				e.Int(op)
				e.Bool(false)
				e.Int(-1)
				e.String("/")
				e.Bool(false)
			}
			e.Int(-1)
			e.Bool(true)
			e.Int(-1)
		}),
	}
}

// FuzzDispatch feeds arbitrary request payloads to the dispatcher: every
// input must be answered or end the connection, never panic or block.
func FuzzDispatch(f *testing.F) {
	for _, s := range dispatchSeeds() {
		f.Add(s)
	}
	s, err := Start(Config{})
	if err != nil {
		f.Fatal(err)
	}
	defer s.Close()
	c := fuzzConn(f, s)
	f.Fuzz(func(t *testing.T, frame []byte) {
		if !s.dispatch(c, frame) {
			c.close()
			c = fuzzConn(t, s)
		}
		// Keep the queue from filling up across iterations.
		c.qmu.Lock()
		c.queue, c.queued = nil, 0
		c.qmu.Unlock()
	})
}

// FuzzDecodeConnect covers the ConnectRequest decoder.
func FuzzDecodeConnect(f *testing.F) {
	req := proto.ConnectRequest{TimeOut: 4000, Passwd: make([]byte, 16)}
	var e proto.Encoder
	req.Encode(&e)
	f.Add(e.B)
	f.Add(append(e.B, 1))
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := proto.DecodeConnectRequest(b)
		if err == nil && len(r.Passwd) > len(b) {
			t.Fatalf("password longer than the input")
		}
	})
}

// TestWriteFuzzSeeds regenerates testdata/fuzz/FuzzDispatch from
// dispatchSeeds when ZKSERVER_WRITE_SEEDS=1.
func TestWriteFuzzSeeds(t *testing.T) {
	if os.Getenv("ZKSERVER_WRITE_SEEDS") == "" {
		t.Skip("set ZKSERVER_WRITE_SEEDS=1 to regenerate the committed seed corpus")
	}
	dir := filepath.Join("testdata", "fuzz", "FuzzDispatch")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for i, s := range dispatchSeeds() {
		body := fmt.Sprintf("go test fuzz v1\n[]byte(%q)\n", s)
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("seed-%02d-op%d", i, int32(binary.BigEndian.Uint32(s[4:8])))), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
