package zkserver

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"io"
	"net"
	"sync"
	"time"

	"github.com/ktopo/ktopo/zkserver/internal/proto"
)

// highWater is the queued-bytes level above which a connection's reader
// stops taking new requests until its writer catches up: pipelining clients
// get back-pressure instead of unbounded buffering.
const highWater = 1 << 20

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
	queue   [][]byte
	queued  int
	closing bool // a final message is queued: close once it is written
	wake    chan struct{}
	drained chan struct{}

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
		c.queue = nil
		c.qmu.Unlock()
		close(c.closed)
		_ = c.nc.Close()
	})
}

// send queues a frame. It never blocks: past MaxQueuedBytes the connection
// is closed instead.
func (c *conn) send(frame []byte) {
	c.qmu.Lock()
	if c.closing {
		c.qmu.Unlock()
		return
	}
	c.queue = append(c.queue, frame)
	c.queued += len(frame)
	over := c.queued > c.s.cfg.MaxQueuedBytes
	c.qmu.Unlock()
	if over {
		c.s.logf("connection %s: %d bytes unsent, closing it", c.nc.RemoteAddr(), c.queued)
		c.close()
		return
	}
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

// sendAndClose queues a last frame; the connection closes once it is out.
func (c *conn) sendAndClose(frame []byte) {
	c.send(frame)
	c.qmu.Lock()
	c.closing = true
	c.qmu.Unlock()
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

func (c *conn) queuedBytes() int {
	c.qmu.Lock()
	defer c.qmu.Unlock()
	return c.queued
}

func (c *conn) writeLoop() {
	defer c.s.wg.Done()
	for {
		select {
		case <-c.wake:
		case <-c.closed:
			return
		}
		for {
			c.qmu.Lock()
			bufs := c.queue
			c.queue = nil
			closing := c.closing
			c.qmu.Unlock()
			if len(bufs) == 0 {
				if closing {
					c.close()
					return
				}
				break
			}
			n := 0
			for _, b := range bufs {
				n += len(b)
			}
			nb := net.Buffers(bufs)
			if _, err := nb.WriteTo(c.nc); err != nil {
				c.close()
				return
			}
			c.s.sent.Add(int64(len(bufs)))
			c.qmu.Lock()
			c.queued -= n
			c.qmu.Unlock()
			select {
			case c.drained <- struct{}{}:
			default:
			}
		}
	}
}

// readLoop runs the connection: the four-letter-word check, the handshake,
// then requests in order until the connection ends.
func (c *conn) readLoop() {
	defer c.s.wg.Done()
	defer c.cleanup()
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
	for {
		if _, err := io.ReadFull(r, hdr[:]); err != nil {
			return
		}
		frame, ok := c.readPayload(r, hdr[:], buf)
		if !ok {
			return
		}
		buf = frame[:0]
		c.s.received.Add(1)
		c.sess.lastTouch.Store(c.s.now())
		if !c.s.dispatch(c, frame) {
			return
		}
		// Back-pressure: wait for the writer before reading more.
		for c.queuedBytes() > min(highWater, c.s.cfg.MaxQueuedBytes/2) {
			select {
			case <-c.drained:
			case <-c.closed:
				return
			}
		}
	}
}

// readPayload reads a frame body of the length in hdr, reusing buf. A
// negative or too large length closes the connection (ZooKeeper's "Len
// error"): ok is false.
func (c *conn) readPayload(r *bufio.Reader, hdr []byte, buf []byte) ([]byte, bool) {
	n := int32(binary.BigEndian.Uint32(hdr))
	if n < 0 || int(n) > c.s.cfg.MaxFrameSize {
		c.s.logf("connection %s: frame length %d out of range, closing", c.nc.RemoteAddr(), n)
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
