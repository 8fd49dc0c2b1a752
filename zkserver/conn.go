package zkserver

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"encoding/binary"
	"io"
	"net"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ktopo/ktopo/internal/x509id"
	"github.com/ktopo/ktopo/zkserver/internal/proto"
)

// highWater is the queued-bytes level above which a connection's reader
// stops taking new requests until its writer catches up: pipelining clients
// get back-pressure instead of unbounded buffering.
const highWater = 1 << 20

// mark ends a queued frame: its end offset in conn.out and the zxid that
// was current when it was queued. With a transaction log the frame may
// only leave once the log is durable up to that zxid: it may show state
// (or a zxid) that a crash would otherwise take back.
type mark struct {
	end  int
	zxid int64
}

// authID is one of a connection's authenticated identities.
type authID struct{ scheme, id string }

// conn is one client connection.
type conn struct {
	s      *Server
	nc     net.Conn
	ip     string
	sess   *session // set by the reader after the handshake
	auth   []authID // reader goroutine only
	closed chan struct{}
	once   sync.Once

	qmu     sync.Mutex
	out     []byte // queued frames, in order
	marks   []mark // one per queued frame
	queued  int    // bytes queued or being written
	closing bool   // a final message is queued: close once it is written
	wake    chan struct{}
	drained chan struct{}

	// Frames are written by whoever holds flushMu: the reader goroutine,
	// right after the requests it has buffered are answered (no hand-off,
	// one system call per burst), or the writer goroutine for everything
	// else (notifications caused by other connections, frames that waited
	// for the log). inline is set while the reader will flush itself, so
	// send need not wake the writer.
	flushMu sync.Mutex
	wbuf    []byte // the frames being written (double buffer with out)
	inline  atomic.Bool

	scratch proto.Encoder // reply encoding; reader goroutine only

	watchPaths map[watchKey]struct{} // guarded by Server.wmu
}

func newConn(s *Server, nc net.Conn) *conn {
	ip := "127.0.0.1"
	if a, ok := nc.RemoteAddr().(*net.TCPAddr); ok {
		ip = a.IP.String()
	}
	return &conn{
		s: s, nc: nc, ip: ip,
		auth:       []authID{{"ip", ip}},
		closed:     make(chan struct{}),
		wake:       make(chan struct{}, 1),
		drained:    make(chan struct{}, 1),
		watchPaths: map[watchKey]struct{}{},
	}
}

// close closes the socket; the reader goroutine then cleans up. Safe to call
// from anywhere, with or without Server.mu.
func (c *conn) close() {
	c.once.Do(func() {
		c.qmu.Lock()
		c.closing = true
		c.out, c.marks = nil, nil
		c.qmu.Unlock()
		close(c.closed)
		_ = c.nc.Close()
	})
}

// send queues a copy of a frame. It never blocks: past MaxQueuedBytes the
// connection is closed instead.
func (c *conn) send(frame []byte) {
	tag := c.s.zxid.Load()
	c.qmu.Lock()
	if c.closing {
		c.qmu.Unlock()
		return
	}
	c.out = append(c.out, frame...)
	c.marks = append(c.marks, mark{end: len(c.out), zxid: tag})
	c.queued += len(frame)
	over := c.queued > c.s.cfg.MaxQueuedBytes
	c.qmu.Unlock()
	if over {
		c.s.logf("connection %s: %d bytes unsent, closing it", c.nc.RemoteAddr(), c.queued)
		c.close()
		return
	}
	if !c.inline.Load() {
		c.wakeWriter()
	}
}

func (c *conn) wakeWriter() {
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

// reply starts a reply frame with its header in the connection's scratch
// encoder (send copies it); finish it with EndFrame. Only the reader
// goroutine, which runs the requests, calls it.
func (c *conn) reply(xid int32, zxid int64, err int32, sizeHint int) (*proto.Encoder, int) {
	e := &c.scratch
	if cap(e.B) > 256<<10 {
		e.B = nil // do not keep a big reply's buffer
	}
	e.B = slices.Grow(e.B[:0], 20+sizeHint)
	off := e.BeginFrame()
	e.Int(xid)
	e.Long(zxid)
	e.Int(err)
	return e, off
}

// sendHeader queues a body-less reply (every error reply, spec §4).
func (c *conn) sendHeader(xid int32, zxid int64, err int32) {
	var b [20]byte
	binary.BigEndian.PutUint32(b[0:], 16)
	binary.BigEndian.PutUint32(b[4:], uint32(xid))
	binary.BigEndian.PutUint64(b[8:], uint64(zxid))
	binary.BigEndian.PutUint32(b[16:], uint32(err))
	c.send(b[:])
}

// sendAndClose queues a last frame; the connection closes once it is out.
func (c *conn) sendAndClose(frame []byte) {
	c.send(frame)
	c.qmu.Lock()
	c.closing = true
	c.qmu.Unlock()
	c.wakeWriter()
}

func (c *conn) queuedBytes() int {
	c.qmu.Lock()
	defer c.qmu.Unlock()
	return c.queued
}

// flushState is what a flush left behind.
type flushState int

const (
	flushIdle    flushState = iota // nothing queued
	flushWaiting                   // frames wait for the transaction log
	flushClosed                    // the connection is closed (or must close now)
)

// flushLocked writes every queued frame that is ready, as many per system
// call as there are. Frames wait for the transaction log (see mark); in
// memory-only mode all are ready at once. Caller holds flushMu.
func (c *conn) flushLocked() flushState {
	for {
		durable := c.s.durableZxid()
		c.qmu.Lock()
		k := 0
		for k < len(c.marks) && c.marks[k].zxid <= durable {
			k++
		}
		if k == 0 {
			waiting, closing := len(c.marks) > 0, c.closing
			c.qmu.Unlock()
			switch {
			case waiting:
				return flushWaiting
			case closing:
				c.close()
				return flushClosed
			}
			return flushIdle
		}
		end := c.marks[k-1].end
		buf := c.wbuf
		if k == len(c.marks) {
			buf, c.out = c.out, buf[:0]
			c.marks = c.marks[:0]
		} else {
			buf = append(buf[:0], c.out[:end]...)
			c.out = c.out[:copy(c.out, c.out[end:])]
			c.marks = c.marks[:copy(c.marks, c.marks[k:])]
			for i := range c.marks {
				c.marks[i].end -= end
			}
		}
		c.qmu.Unlock()
		if _, err := c.nc.Write(buf); err != nil {
			c.close()
			return flushClosed
		}
		c.s.sent.Add(int64(k))
		c.qmu.Lock()
		c.queued -= len(buf)
		c.qmu.Unlock()
		if cap(buf) > 256<<10 {
			buf = nil // do not keep a burst's buffer for the connection's life
		}
		c.wbuf = buf
		select {
		case c.drained <- struct{}{}:
		default:
		}
	}
}

// flushInline is the reader's flush after a burst of requests. If the
// writer is busy (it then writes these frames too) or frames wait for the
// log, the writer is woken to see to them.
func (c *conn) flushInline() {
	c.inline.Store(false)
	if !c.flushMu.TryLock() {
		c.wakeWriter()
		return
	}
	st := c.flushLocked()
	c.flushMu.Unlock()
	if st == flushWaiting {
		c.wakeWriter()
	}
}

// writeLoop sends what the reader does not: notifications caused by other
// connections, frames that waited for the log, the last frame before a
// close.
func (c *conn) writeLoop() {
	defer c.s.wg.Done()
	var durableCh <-chan struct{} // set while frames wait for the log
	for {
		select {
		case <-c.wake:
		case <-durableCh:
		case <-c.closed:
			return
		}
		durableCh = nil
		var ch <-chan struct{}
		if c.s.log != nil {
			// Taken before the flush looks at the durable zxid, so an
			// advance in between is not missed.
			ch = c.s.log.waitChan()
		}
		c.flushMu.Lock()
		st := c.flushLocked()
		c.flushMu.Unlock()
		switch st {
		case flushClosed:
			return
		case flushWaiting:
			durableCh = ch
		}
	}
}

// readLoop runs the connection: the four-letter-word check, the handshake,
// then requests in order until the connection ends.
func (c *conn) readLoop() {
	defer c.s.wg.Done()
	defer c.cleanup()
	if !c.tlsHandshake() {
		return
	}
	r := bufio.NewReaderSize(c.nc, 64<<10)
	var hdr [4]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return
	}
	if word := string(hdr[:]); isFourLetterWord(word) {
		c.s.received.Add(1)
		c.sendAndClose([]byte(c.s.fourLetter(word)))
		return
	}
	frame, ok := c.readPayload(r, hdr[:], nil)
	if !ok {
		return
	}
	if !c.handshake(frame) {
		return
	}
	var buf []byte
	limit := min(highWater, c.s.cfg.MaxQueuedBytes/2)
	for {
		fresh := r.Buffered() < 4
		if _, err := io.ReadFull(r, hdr[:]); err != nil {
			return
		}
		fresh = fresh || r.Buffered() < int(binary.BigEndian.Uint32(hdr[:]))
		frame, ok := c.readPayload(r, hdr[:], buf)
		if !ok {
			return
		}
		buf = frame[:0]
		c.s.received.Add(1)
		if fresh {
			// This frame needed a read from the socket: it arrived now.
			// Frames already buffered arrived with an earlier one, which
			// touched the session then (reading the clock per frame costs).
			c.sess.lastTouch.Store(c.s.now())
		}
		c.inline.Store(true)
		if !c.s.dispatch(c, frame) {
			c.inline.Store(false)
			c.wakeWriter()
			return
		}
		// Answer a burst of pipelined requests with one write, once the
		// last one buffered is done (or the replies grow big).
		if !frameBuffered(r) || c.queuedBytes() >= flushAt {
			c.flushInline()
		}
		// Back-pressure: wait for the writer before reading more.
		for c.queuedBytes() > limit {
			c.flushInline()
			if c.queuedBytes() <= limit {
				break
			}
			select {
			case <-c.drained:
			case <-c.closed:
				return
			}
		}
	}
}

// flushAt is the size of queued replies at which the reader writes them
// even though more requests are buffered.
const flushAt = 64 << 10

// frameBuffered reports whether a whole next frame is already buffered.
func frameBuffered(r *bufio.Reader) bool {
	if r.Buffered() < 4 {
		return false
	}
	h, _ := r.Peek(4)
	n := int(int32(binary.BigEndian.Uint32(h)))
	return n >= 0 && r.Buffered()-4 >= n
}

// discardLimit bounds how much of a rejected, oversized frame is read
// before the connection is closed.
const discardLimit = 16 << 20

// readPayload reads a frame body of the length in hdr, reusing buf. A
// negative or too large length closes the connection (ZooKeeper's "Len
// error"): ok is false.
func (c *conn) readPayload(r *bufio.Reader, hdr []byte, buf []byte) ([]byte, bool) {
	n := int32(binary.BigEndian.Uint32(hdr))
	if n < 0 || int(n) > c.s.cfg.MaxFrameSize {
		c.s.logf("connection %s: frame length %d out of range, closing", c.nc.RemoteAddr(), n)
		if n > 0 && n <= discardLimit {
			// Take in what the client is sending before closing: closing
			// with unread input resets the connection, and a client still
			// writing the frame would see a write error instead of the
			// end of the stream.
			_ = c.nc.SetReadDeadline(time.Now().Add(2 * time.Second))
			_, _ = r.Discard(int(n))
		}
		return nil, false
	}
	if cap(buf) < int(n) {
		buf = make([]byte, n)
	}
	buf = buf[:n]
	if _, err := io.ReadFull(r, buf); err != nil {
		return nil, false
	}
	return buf, true
}

// cleanup detaches the connection from its session and drops its watches.
func (c *conn) cleanup() {
	c.qmu.Lock()
	graceful := c.closing
	c.qmu.Unlock()
	if graceful {
		// A last reply is on its way out; give the writer time to send it
		// (it closes the connection when done).
		select {
		case <-c.closed:
		case <-time.After(5 * time.Second):
		}
	}
	c.close()
	s := c.s
	if c.sess != nil {
		s.mu.Lock()
		if c.sess.conn == c {
			c.sess.conn = nil
		}
		s.mu.Unlock()
	}
	s.wmu.Lock()
	for k := range c.watchPaths {
		k.table.remove(k.path, c)
	}
	s.wmu.Unlock()
	s.connMu.Lock()
	delete(s.conns, c)
	s.connMu.Unlock()
}

// handshake processes the ConnectRequest (spec §3). It returns false when
// the connection must end.
func (c *conn) handshake(frame []byte) bool {
	s := c.s
	req, err := proto.DecodeConnectRequest(frame)
	if err != nil {
		s.logf("connection %s: bad ConnectRequest: %v", c.nc.RemoteAddr(), err)
		return false
	}
	s.received.Add(1)
	timeout := time.Duration(req.TimeOut) * time.Millisecond
	timeout = min(max(timeout, s.cfg.MinSessionTimeout), s.cfg.MaxSessionTimeout)

	s.mu.Lock()
	defer s.mu.Unlock()
	if req.LastZxidSeen > s.zxid.Load() {
		// The client has seen a newer state than ours: refuse silently so it
		// tries another server.
		s.logf("connection %s: client zxid 0x%x is ahead of ours 0x%x, closing", c.nc.RemoteAddr(), req.LastZxidSeen, s.zxid.Load())
		return false
	}
	if req.SessionID == 0 {
		ss := s.newSessionLocked(timeout)
		ss.conn = c
		c.sess = ss
		c.send(connectResponse(&req, int32(timeout/time.Millisecond), ss.id, ss.passwd))
		return true
	}
	ss := s.sessions[req.SessionID]
	if ss != nil && ss.conn != nil && ss.conn != c {
		// ZooKeeper closes the session's current connection before it even
		// checks the password.
		ss.conn.close()
		ss.conn = nil
	}
	if ss == nil || !bytes.Equal(ss.passwd, req.Passwd) {
		c.sendAndClose(connectResponse(&req, 0, 0, make([]byte, 16)))
		return false
	}
	ss.timeout = timeout
	ss.lastTouch.Store(s.now())
	ss.conn = c
	c.sess = ss
	c.send(connectResponse(&req, int32(timeout/time.Millisecond), ss.id, ss.passwd))
	return true
}

// connectResponse encodes a ConnectResponse frame; readOnly is appended only
// when the request carried it (36- vs 37-byte payloads).
func connectResponse(req *proto.ConnectRequest, timeoutMS int32, id int64, passwd []byte) []byte {
	e := proto.Encoder{B: make([]byte, 0, 48)}
	off := e.BeginFrame()
	e.Int(0)
	e.Int(timeoutMS)
	e.Long(id)
	e.Buffer(passwd)
	if req.HasReadOnly {
		e.Bool(false)
	}
	e.EndFrame(off)
	return e.B
}

// tlsHandshake runs the TLS handshake of a connection to the TLS port,
// within the session timeout a client may ask for at most, and adds the
// x509 id of a verified client certificate (NettyServerCnxnFactory's
// CertificateVerifier with the X509AuthenticationProvider). A plaintext
// connection passes unchanged.
func (c *conn) tlsHandshake() bool {
	tc, ok := c.nc.(*tls.Conn)
	if !ok {
		return true
	}
	ctx, cancel := context.WithTimeout(context.Background(), c.s.cfg.MaxSessionTimeout)
	defer cancel()
	if err := tc.HandshakeContext(ctx); err != nil {
		c.s.logf("connection %s: TLS handshake failed: %v", c.nc.RemoteAddr(), err)
		return false
	}
	// Only a verified chain authenticates (VerifiedChains is empty when
	// the config merely requests a certificate).
	if chains := tc.ConnectionState().VerifiedChains; len(chains) > 0 && len(chains[0]) > 0 {
		id := x509id.Subject(chains[0][0])
		if c.s.cfg.X509SuperUser != "" && id == c.s.cfg.X509SuperUser {
			c.addAuth("super", "")
		}
		c.addAuth(x509id.Scheme, id)
	}
	return true
}
