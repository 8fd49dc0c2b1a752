package zkserver_test

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/ktopo/ktopo/zkserver/internal/proto"
)

// raw is a byte-level ZooKeeper client for conformance checks: it sends
// exactly the frames a test builds and hands back every frame the server
// sends, so header fields, zxids, stat bytes and event order can be checked.
type raw struct {
	t      testing.TB
	nc     net.Conn
	r      *bufio.Reader
	xid    int32
	sid    int64
	passwd []byte
	events []event // notifications received while waiting for replies
}

type event struct {
	typ, state int32
	path       string
}

// frame is one reply from the server.
type frame struct {
	xid  int32
	zxid int64
	err  int32
	body []byte
	size int // payload length (without the 4-byte length prefix)
}

func (f frame) dec() *proto.Decoder { return proto.NewDecoder(f.body) }

// rawTimeout bounds every read so a missing reply fails instead of hanging.
const rawTimeout = 10 * time.Second

func dialRaw(t testing.TB, addr string) *raw {
	t.Helper()
	nc, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatalf("dial %s: %v", addr, err)
	}
	r := &raw{t: t, nc: nc, r: bufio.NewReader(nc)}
	t.Cleanup(func() { _ = nc.Close() })
	return r
}

// writeFrame sends one length-prefixed frame.
func (r *raw) writeFrame(payload []byte) {
	r.t.Helper()
	b := binary.BigEndian.AppendUint32(nil, uint32(len(payload)))
	if _, err := r.nc.Write(append(b, payload...)); err != nil {
		r.t.Fatalf("write: %v", err)
	}
}

// readFrame reads one frame; ok is false on EOF/close or timeout.
func (r *raw) readFrame(timeout time.Duration) ([]byte, error) {
	_ = r.nc.SetReadDeadline(time.Now().Add(timeout))
	var hdr [4]byte
	if _, err := io.ReadFull(r.r, hdr[:]); err != nil {
		return nil, err
	}
	n := binary.BigEndian.Uint32(hdr[:])
	if n > 64<<20 {
		return nil, fmt.Errorf("frame length %d", n)
	}
	b := make([]byte, n)
	_, err := io.ReadFull(r.r, b)
	return b, err
}

// connectReq builds a ConnectRequest.
type connectReq struct {
	lastZxid int64
	timeout  int32
	sid      int64
	passwd   []byte
	readOnly bool
	withRO   bool // send the optional readOnly byte (Java client style)
}

type connectResp struct {
	size     int
	timeout  int32
	sid      int64
	passwd   []byte
	readOnly bool
	hasRO    bool
}

// handshake sends a ConnectRequest and reads the response; ok is false if
// the server closed the connection without one.
func (r *raw) handshake(q connectReq) (connectResp, bool) {
	r.t.Helper()
	pw := q.passwd
	if pw == nil {
		pw = make([]byte, 16)
	}
	req := proto.ConnectRequest{LastZxidSeen: q.lastZxid, TimeOut: q.timeout, SessionID: q.sid, Passwd: pw, ReadOnly: q.readOnly, HasReadOnly: q.withRO}
	var e proto.Encoder
	req.Encode(&e)
	r.writeFrame(e.B)
	b, err := r.readFrame(rawTimeout)
	if err != nil {
		return connectResp{}, false
	}
	d := proto.NewDecoder(b)
	var resp connectResp
	resp.size = len(b)
	_ = d.Int()
	resp.timeout = d.Int()
	resp.sid = d.Long()
	resp.passwd = d.Buffer()
	if d.Remaining() > 0 {
		resp.hasRO, resp.readOnly = true, d.Bool()
	}
	if d.Err() != nil {
		r.t.Fatalf("bad ConnectResponse %x: %v", b, d.Err())
	}
	if resp.sid != 0 {
		r.sid, r.passwd = resp.sid, resp.passwd
	}
	return resp, true
}

// session dials addr and opens a new session (go-zookeeper style request).
// The session is closed at cleanup so it never expires later and disturbs
// zxid deltas of other checks.
func session(t testing.TB, addr string, timeout int32) *raw {
	t.Helper()
	r := dialRaw(t, addr)
	if _, ok := r.handshake(connectReq{timeout: timeout}); !ok {
		t.Fatalf("handshake with %s failed", addr)
	}
	t.Cleanup(r.closeSession)
	return r
}

// closeSession ends the session if the connection is still usable; if not,
// it re-attaches to close it.
func (r *raw) closeSession() {
	if r.sid == 0 {
		return
	}
	sid, pw := r.sid, r.passwd
	r.sid = 0
	var e proto.Encoder
	e.Int(1 << 30)
	e.Int(proto.OpCloseSession)
	b := binary.BigEndian.AppendUint32(nil, uint32(len(e.B)))
	_ = r.nc.SetWriteDeadline(time.Now().Add(2 * time.Second))
	if _, err := r.nc.Write(append(b, e.B...)); err == nil {
		for {
			if f, err := r.readFrame(3 * time.Second); err != nil || int32(binary.BigEndian.Uint32(f)) == 1<<30 {
				if err == nil {
					_ = r.nc.Close()
					return
				}
				break
			}
		}
	}
	// The connection was gone: re-attach and close.
	nc, err := net.DialTimeout("tcp", r.nc.RemoteAddr().String(), 2*time.Second)
	if err != nil {
		return
	}
	defer nc.Close()
	r2 := &raw{t: r.t, nc: nc, r: bufio.NewReader(nc)}
	if resp, ok := r2.handshake(connectReq{timeout: 4000, sid: sid, passwd: pw}); ok && resp.sid == sid {
		r2.closeSession()
	}
}

// send writes a request with the next xid and returns the xid.
func (r *raw) send(op int32, body func(e *proto.Encoder)) int32 {
	r.xid++
	r.sendXid(r.xid, op, body)
	return r.xid
}

func (r *raw) sendXid(xid, op int32, body func(e *proto.Encoder)) {
	r.t.Helper()
	var e proto.Encoder
	e.Int(xid)
	e.Int(op)
	if body != nil {
		body(&e)
	}
	r.writeFrame(e.B)
}

// next reads the next frame: a reply or a notification.
func (r *raw) next() (frame, error) {
	b, err := r.readFrame(rawTimeout)
	if err != nil {
		return frame{}, err
	}
	d := proto.NewDecoder(b)
	f := frame{xid: d.Int(), zxid: d.Long(), err: d.Int(), size: len(b)}
	if d.Err() != nil {
		return frame{}, fmt.Errorf("short reply %x", b)
	}
	f.body = d.Rest()
	return f, nil
}

// recv reads until the reply (not a notification), collecting events.
func (r *raw) recv() frame {
	r.t.Helper()
	for {
		f, err := r.next()
		if err != nil {
			r.t.Fatalf("waiting for a reply: %v", err)
		}
		if f.xid == proto.XidNotification {
			d := f.dec()
			r.events = append(r.events, event{typ: d.Int(), state: d.Int(), path: d.String()})
			continue
		}
		return f
	}
}

// call sends a request and waits for its reply.
func (r *raw) call(op int32, body func(e *proto.Encoder)) frame {
	r.t.Helper()
	xid := r.send(op, body)
	f := r.recv()
	if f.xid != xid && !(op == proto.OpPing && f.xid == proto.XidPing) {
		r.t.Fatalf("reply xid %d, want %d", f.xid, xid)
	}
	return f
}

// takeEvents returns and clears the collected events.
func (r *raw) takeEvents() []event {
	ev := r.events
	r.events = nil
	return ev
}

// waitEvents reads frames until n events are collected or quiet elapses
// without one.
func (r *raw) waitEvents(n int, quiet time.Duration) []event {
	r.t.Helper()
	for len(r.events) < n {
		b, err := r.readFrame(quiet)
		if err != nil {
			break
		}
		d := proto.NewDecoder(b)
		xid := d.Int()
		_, _ = d.Long(), d.Int()
		if xid != proto.XidNotification {
			r.t.Fatalf("unexpected reply xid %d while waiting for events", xid)
		}
		r.events = append(r.events, event{typ: d.Int(), state: d.Int(), path: d.String()})
	}
	return r.takeEvents()
}

// closedByServer reports whether the server closed the connection (EOF or
// reset) within the timeout, with no further frame.
func (r *raw) closedByServer(timeout time.Duration) (bool, []byte) {
	b, err := r.readFrame(timeout)
	if err == nil {
		return false, b
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return false, nil
	}
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, os.ErrClosed) ||
		strings.Contains(err.Error(), "reset"), nil
}

// ping sends a ping and returns the reply's zxid (the server's last zxid).
func (r *raw) ping() int64 {
	r.t.Helper()
	f := r.call(proto.OpPing, nil)
	return f.zxid
}

// Request body builders.

func pathWatch(p string, w bool) func(*proto.Encoder) {
	return func(e *proto.Encoder) { e.String(p); e.Bool(w) }
}

func pathOnly(p string) func(*proto.Encoder) { return func(e *proto.Encoder) { e.String(p) } }

var openACL = []proto.ACL{{Perms: proto.PermAll, Scheme: "world", ID: "anyone"}}

func createBody(p string, data []byte, acl []proto.ACL, flags int32) func(*proto.Encoder) {
	return func(e *proto.Encoder) { e.String(p); e.Buffer(data); e.ACLs(acl); e.Int(flags) }
}

func (r *raw) create(p string, data []byte, flags int32) frame {
	r.t.Helper()
	return r.call(proto.OpCreate, createBody(p, data, openACL, flags))
}

func (r *raw) setData(p string, data []byte, version int32) frame {
	r.t.Helper()
	return r.call(proto.OpSetData, func(e *proto.Encoder) { e.String(p); e.Buffer(data); e.Int(version) })
}

func (r *raw) delete(p string, version int32) frame {
	r.t.Helper()
	return r.call(proto.OpDelete, func(e *proto.Encoder) { e.String(p); e.Int(version) })
}

func (r *raw) getData(p string, watch bool) frame {
	r.t.Helper()
	return r.call(proto.OpGetData, pathWatch(p, watch))
}

func (r *raw) exists(p string, watch bool) frame {
	r.t.Helper()
	return r.call(proto.OpExists, pathWatch(p, watch))
}

func (r *raw) children2(p string, watch bool) frame {
	r.t.Helper()
	return r.call(proto.OpGetChildren2, pathWatch(p, watch))
}

// multiOp is one op of a multi request body.
type multiOp struct {
	typ  int32
	body func(*proto.Encoder)
}

func multiBody(ops ...multiOp) func(*proto.Encoder) {
	return func(e *proto.Encoder) {
		for _, op := range ops {
			e.Int(op.typ)
			e.Bool(false)
			e.Int(-1)
			op.body(e)
		}
		e.Int(-1)
		e.Bool(true)
		e.Int(-1)
	}
}
