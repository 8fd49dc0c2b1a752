package zkserver_test

import (
	"encoding/binary"
	"errors"
	"io"
	"net"
	"testing"
	"time"

	"github.com/ktopo/ktopo/internal/testkit/zktest"
	"github.com/ktopo/ktopo/zkserver"
	"github.com/ktopo/ktopo/zkserver/internal/proto"
)

// FuzzConn writes arbitrary bytes on a connection — before the handshake
// (mode byte even: four-letter words, ConnectRequests) or after it (odd:
// frames with any lengths, paths and multis) — then a ping and EOF. The
// server must end the connection promptly and keep serving others.
func FuzzConn(f *testing.F) {
	connect := func(ro bool) []byte {
		req := proto.ConnectRequest{TimeOut: 4000, Passwd: make([]byte, 16), HasReadOnly: ro}
		var e proto.Encoder
		req.Encode(&e)
		return binary.BigEndian.AppendUint32(nil, uint32(len(e.B)))
	}
	frame := func(p []byte) []byte { return append(binary.BigEndian.AppendUint32(nil, uint32(len(p))), p...) }
	getData := func(xid int32, path string) []byte {
		var e proto.Encoder
		e.Int(xid)
		e.Int(proto.OpGetData)
		e.String(path)
		e.Bool(true)
		return frame(e.B)
	}
	f.Add([]byte("\x00ruok"))
	f.Add([]byte("\x00srvr"))
	f.Add([]byte("\x00mntr"))
	f.Add([]byte("\x00dump"))
	f.Add(append([]byte{0}, connect(true)...))
	f.Add([]byte("\x00\x00\x00\x00\x2c"))
	f.Add(append([]byte{1}, getData(1, "/zookeeper")...))
	f.Add(append([]byte{1}, getData(1, "/zookeeper")[:10]...))
	f.Add([]byte("\x01\xff\xff\xff\xff"))
	f.Add([]byte("\x01\x00\x10\x00\x00"))
	f.Add([]byte("\x01\x00\x00\x00\x04\x00\x00\x00\x01"))
	f.Add(append(append([]byte{1}, getData(1, "/")...), getData(2, "/zookeeper/quota")...))

	s, err := zkserver.Start(zkserver.Config{})
	if err != nil {
		f.Fatal(err)
	}
	defer s.Close()
	addr := s.Addr()
	f.Fuzz(func(t *testing.T, in []byte) {
		if len(in) == 0 {
			return
		}
		nc, err := net.DialTimeout("tcp", addr, 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		defer nc.Close()
		if in[0]%2 == 1 {
			req := proto.ConnectRequest{TimeOut: 4000, Passwd: make([]byte, 16)}
			var e proto.Encoder
			req.Encode(&e)
			if _, err := nc.Write(frame(e.B)); err != nil {
				t.Fatal(err)
			}
		}
		_ = nc.SetWriteDeadline(time.Now().Add(5 * time.Second))
		if _, err := nc.Write(in[1:]); err != nil {
			return // the server closed the connection: fine
		}
		_, _ = nc.Write(frame([]byte{0xff, 0xff, 0xff, 0xfe, 0, 0, 0, proto.OpPing}))
		// Close our side: whatever the input left half-read, the server now
		// sees EOF and must close the connection. Not closing is a hang.
		_ = nc.(*net.TCPConn).CloseWrite()
		_ = nc.SetReadDeadline(time.Now().Add(5 * time.Second))
		_, err = io.Copy(io.Discard, nc)
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			t.Fatalf("server neither closed nor finished the connection within 5s of EOF")
		}
		// The server still serves new connections.
		if reply, err := zktest.FourLetter(addr, "ruok"); err != nil || reply != "imok" {
			t.Fatalf("server stopped answering: %q %v", reply, err)
		}
	})
}
