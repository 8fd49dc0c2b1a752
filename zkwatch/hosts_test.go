package zkwatch

import (
	"encoding/binary"
	"io"
	"net"
	"testing"
	"time"
)

// frame is a length-prefixed frame with body.
func frame(body []byte) []byte {
	return append(binary.BigEndian.AppendUint32(nil, uint32(len(body))), body...)
}

// connectRequest is a ConnectRequest frame claiming lastZxidSeen z.
func connectRequest(z int64) []byte {
	b := binary.BigEndian.AppendUint32(nil, 0) // protocol version
	b = binary.BigEndian.AppendUint64(b, uint64(z))
	b = binary.BigEndian.AppendUint32(b, 6000)
	b = binary.BigEndian.AppendUint64(b, 0)
	b = binary.BigEndian.AppendUint32(b, 16)
	return frame(append(b, make([]byte, 16)...))
}

// connectReply is a ConnectResponse frame for session sid.
func connectReply(sid int64) []byte {
	b := binary.BigEndian.AppendUint32(nil, 0)
	b = binary.BigEndian.AppendUint32(b, 6000)
	b = binary.BigEndian.AppendUint64(b, uint64(sid))
	b = binary.BigEndian.AppendUint32(b, 16)
	return frame(append(b, make([]byte, 16)...))
}

// reply is a reply frame: header (xid, zxid, err 0) and body.
func reply(xid int32, zxid int64, body string) []byte {
	b := binary.BigEndian.AppendUint32(nil, uint32(xid))
	b = binary.BigEndian.AppendUint64(b, uint64(zxid))
	b = binary.BigEndian.AppendUint32(b, 0)
	return frame(append(b, body...))
}

// setWatches is a SetWatches request frame with relativeZxid z.
func setWatches(z int64) []byte {
	b := binary.BigEndian.AppendUint32(nil, 9) // xid
	b = binary.BigEndian.AppendUint32(b, opSetWatches)
	b = binary.BigEndian.AppendUint64(b, uint64(z))
	return frame(append(b, make([]byte, 12)...)) // three empty lists
}

// readFrame reads one frame as go-zookeeper does: the length, then the body.
func readFrame(t *testing.T, r io.Reader) []byte {
	t.Helper()
	var l [4]byte
	if _, err := io.ReadFull(r, l[:]); err != nil {
		t.Fatal(err)
	}
	b := make([]byte, binary.BigEndian.Uint32(l[:]))
	if _, err := io.ReadFull(r, b); err != nil {
		t.Fatal(err)
	}
	return b
}

// dialPipe is a serverConn over a pipe, and the server's end.
func dialPipe(t *testing.T, tr *dialTracker) (*serverConn, net.Conn) {
	t.Helper()
	client, server := net.Pipe()
	t.Cleanup(func() { client.Close(); server.Close() })
	return newServerConn(client, tr, "zk:2181"), server
}

// handshake sends the connect request through sc and answers it with a
// reply for sid, returning the lastZxidSeen the server got.
func handshake(t *testing.T, sc *serverConn, server net.Conn, sid int64) int64 {
	t.Helper()
	go func() { _, _ = sc.Write(connectRequest(12345)) }()
	req := readFrame(t, server)
	go func() { _, _ = server.Write(connectReply(sid)) }()
	readFrame(t, sc)
	return int64(binary.BigEndian.Uint64(req[4:12]))
}

// TestZxidRelay: the connection takes the zxid out of every normal reply
// header (go-zookeeper then stores none), keeps the latest, and writes it
// into the next ConnectRequest, and into SetWatches as of the handshake;
// notifications and pings pass unchanged; an expired session starts at 0.
func TestZxidRelay(t *testing.T) {
	tr := newDialTracker(nil, nil, time.Minute, "")
	sc, server := dialPipe(t, tr)
	if z := handshake(t, sc, server, 7); z != 0 {
		t.Fatalf("first connect sent lastZxidSeen %#x, want 0", z)
	}
	var stream []byte
	for _, f := range [][]byte{reply(5, 0x1234, "abc"), reply(-1, -1, "event"), reply(-2, 0x99, ""), reply(6, 0x2000, "")} {
		stream = append(stream, f...)
	}
	go func() {
		for _, b := range stream { // a byte at a time: frames split anywhere
			if _, err := server.Write([]byte{b}); err != nil {
				return
			}
		}
	}()
	wantZxid := []int64{0, -1, 0x99, 0}
	for i, want := range wantZxid {
		f := readFrame(t, sc)
		if got := int64(binary.BigEndian.Uint64(f[4:12])); got != want {
			t.Fatalf("reply %d: go-zookeeper sees zxid %#x, want %#x", i, got, want)
		}
	}
	if z := tr.zxid.Load(); z != 0x2000 {
		t.Fatalf("kept zxid %#x, want 0x2000", z)
	}

	// The session resumes on another connection.
	sc2, server2 := dialPipe(t, tr)
	if z := handshake(t, sc2, server2, 7); z != 0x2000 {
		t.Fatalf("reconnect sent lastZxidSeen %#x, want 0x2000", z)
	}
	go func() { _, _ = server2.Write(reply(7, 0x3000, "")) }()
	readFrame(t, sc2) // a reply before the watch reset
	go func() { _, _ = sc2.Write(setWatches(0)) }()
	if z := int64(binary.BigEndian.Uint64(readFrame(t, server2)[8:16])); z != 0x2000 {
		t.Fatalf("SetWatches sent relativeZxid %#x, want the handshake's 0x2000", z)
	}
	if z := tr.zxid.Load(); z != 0x3000 {
		t.Fatalf("kept zxid %#x, want 0x3000", z)
	}

	// Expired: the server answers session 0; the new session starts at 0.
	sc3, server3 := dialPipe(t, tr)
	handshake(t, sc3, server3, 0)
	sc4, server4 := dialPipe(t, tr)
	if z := handshake(t, sc4, server4, 8); z != 0 {
		t.Fatalf("a connect after the expiry sent lastZxidSeen %#x, want 0", z)
	}
}
