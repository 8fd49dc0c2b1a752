package zkwatch

import (
	"encoding/binary"
	"net"
	"testing"
	"time"
)

// handshakeReply is a ConnectResponse frame for session sid, with a 6 s
// session timeout unless timeoutMS says else.
func handshakeReply(sid int64, timeoutMS ...uint32) []byte {
	to := uint32(6000)
	if len(timeoutMS) > 0 {
		to = timeoutMS[0]
	}
	body := make([]byte, 0, 36)
	body = binary.BigEndian.AppendUint32(body, 0)  // protocol version
	body = binary.BigEndian.AppendUint32(body, to) // timeout
	body = binary.BigEndian.AppendUint64(body, uint64(sid))
	body = binary.BigEndian.AppendUint32(body, 16) // password
	body = append(body, make([]byte, 16)...)
	return append(binary.BigEndian.AppendUint32(nil, uint32(len(body))), body...)
}

// requestFrame is a request frame with the opcode.
func requestFrame(op int32) []byte {
	b := binary.BigEndian.AppendUint32(nil, 8)
	b = binary.BigEndian.AppendUint32(b, 1)
	return binary.BigEndian.AppendUint32(b, uint32(op))
}

// handshake dials a serverConn over a pipe, reads the handshake reply for
// sid through it and returns it with the server's end.
func handshake(t *testing.T, tr *dialTracker, sid int64, timeoutMS ...uint32) (*serverConn, net.Conn) {
	t.Helper()
	client, server := net.Pipe()
	t.Cleanup(func() { client.Close(); server.Close() })
	sc := newServerConn(client, tr, "zk:2181")
	go func() { _, _ = server.Write(handshakeReply(sid, timeoutMS...)) }()
	buf := make([]byte, 40)
	for got := 0; got < 40; {
		n, err := sc.Read(buf[got:])
		if err != nil {
			t.Fatal(err)
		}
		got += n
	}
	return sc, server
}

// replyRead starts a read of one reply through sc and returns a channel
// that receives when it is done.
func replyRead(sc *serverConn, server net.Conn) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		defer close(done)
		b := make([]byte, 4)
		_, _ = sc.Read(b)
	}()
	go func() { _, _ = server.Write([]byte{0, 0, 0, 0}) }()
	return done
}

// drain reads what the client writes, as the server would.
func drain(server net.Conn) {
	go func() {
		b := make([]byte, 64)
		for {
			if _, err := server.Read(b); err != nil {
				return
			}
		}
	}()
}

// TestResumedConnectionHoldsReplies: on a connection that resumes a
// session with watches, no reply is read before go-zookeeper has written
// its SetWatches; a new session, or one never watched, holds nothing; a
// close releases a held read; without any SetWatches the hold ends at
// holdLimit.
func TestResumedConnectionHoldsReplies(t *testing.T) {
	tr := newDialTracker(nil, nil, time.Minute, "")
	tr.watched.Store(true)
	if sc, server := handshake(t, tr, 7); sc.held {
		t.Fatal("the first session's connection holds its replies")
	} else {
		<-replyRead(sc, server)
	}
	sc, server := handshake(t, tr, 7)
	if !sc.held {
		t.Fatal("a resumed session's connection does not hold its replies")
	}
	drain(server)
	done := replyRead(sc, server)
	select {
	case <-done:
		t.Fatal("a reply was read before SetWatches was written")
	case <-time.After(100 * time.Millisecond):
	}
	if _, err := sc.Write(requestFrame(4)); err != nil { // getData: no release
		t.Fatal(err)
	}
	select {
	case <-done:
		t.Fatal("a reply was read after a getData, before SetWatches")
	case <-time.After(100 * time.Millisecond):
	}
	if _, err := sc.Write(requestFrame(opSetWatches)); err != nil {
		t.Fatal(err)
	}
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("the reply is still held after SetWatches")
	}

	if sc, _ := handshake(t, tr, 8); sc.held {
		t.Fatal("a new session's connection holds its replies")
	}
	unwatched := newDialTracker(nil, nil, time.Minute, "")
	handshake(t, unwatched, 9)
	if sc, _ := handshake(t, unwatched, 9); sc.held {
		t.Fatal("a session never watched holds its replies")
	}

	sc, server = handshake(t, tr, 8)
	done = replyRead(sc, server)
	sc.Close()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("a held read is not released by Close")
	}

	// A short session holds a third of its timeout at most: go-zookeeper
	// reads with a deadline of two thirds.
	if sc, _ := handshake(t, tr, 8, 600); sc.holdFor != 200*time.Millisecond {
		t.Fatalf("a 600 ms session holds up to %v", sc.holdFor)
	}
	defer func(d time.Duration) { holdLimit = d }(holdLimit)
	holdLimit = 50 * time.Millisecond
	sc, server = handshake(t, tr, 8)
	select {
	case <-replyRead(sc, server):
	case <-time.After(5 * time.Second):
		t.Fatal("the hold does not end without a SetWatches")
	}
}
