package zkserver_test

import (
	"time"

	"github.com/ktopo/ktopo/zkserver/internal/proto"
)

// expiryCheck covers X1, X1b, X2 and W16 through expiry (run by T1): an idle session
// expires after its timeout, its ephemerals go in one transaction, watchers
// hear of it, its connection is closed silently and re-attaching fails.
func expiryCheck(timeout int32) func(h *H) {
	return func(h *H) {
		h.start()
		victim := session(h.t, h.addr, timeout)
		victim.create(h.P("e1"), nil, 1)
		victim.create(h.P("e2"), nil, 3)
		for _, p := range []string{"x1", "x2", "x3", "x4"} {
			victim.create(h.P(p), nil, 1)
		}
		victim.delete(h.P("x2"), -1)
		h.c.exists(h.P("e1"), true)
		h.c.children2(h.P(""), true)
		idleSince := time.Now()
		ev := h.c.waitEvents(2, 60*time.Second)
		elapsed := time.Since(idleSince)
		h.note("events=%s", h.evs(ev)) // order follows Java's HashSet (see javaCloseOrder)
		if elapsed < time.Duration(timeout)*time.Millisecond {
			h.t.Errorf("%s: session expired after %v, before its %d ms timeout", h.tg.name, elapsed, timeout)
		}
		h.t.Logf("%s: expiry observed %v after the last frame (timeout %d ms)", h.tg.name, elapsed.Round(10*time.Millisecond), timeout)
		closed, frame := victim.closedByServer(5 * time.Second)
		h.eq("closedSilently", closed && frame == nil, true)
		h.eq("parent", h.st(stat(h.c.exists(h.P(""), false))), "czxid=z+0 mzxid=z+0 pzxid=z+9 ver=0 cver=12 aver=0 owner=0 len=0 nc=0 ctime=mtime:true")
		h.eq("zxid", h.z(h.c.ping()), "z+9")
		r := dialRaw(h.t, h.addr)
		resp, ok := r.handshake(connectReq{timeout: timeout, sid: victim.sid, passwd: victim.passwd})
		h.eq("reattach", ok && resp.sid == 0 && resp.timeout == 0, true)
		victim.sid = 0
	}
}

// oddRequests records how each server treats requests clients do not
// normally send; compared, not checked against the spec.
func oddRequests(h *H) {
	h.start()
	try := func(label string, op int32, body []byte) {
		r := h.sess()
		xid := r.send(op, func(e *proto.Encoder) { e.B = append(e.B, body...) })
		f, err := r.next()
		if err != nil {
			h.note("%s: closed without reply", label)
			r.sid = 0
			return
		}
		closed, _ := r.closedByServer(300 * time.Millisecond)
		h.note("%s: %s xidEcho=%v closedAfter=%v", label, h.hdr(f), f.xid == xid, closed)
		if closed {
			r.sid = 0
		}
		h.base = h.c.ping()
	}
	try("deleteContainer(20) bad path", proto.OpDeleteContainer, []byte{0, 0, 0, 1, '/'})
	h.c.create(h.P("dc"), nil, 0)
	h.c.create(h.P("dc/x"), nil, 0)
	h.c.create(h.P("eph"), nil, 1)
	try("deleteContainer(20) not empty", proto.OpDeleteContainer, []byte(h.P("dc")))
	try("deleteContainer(20) ephemeral", proto.OpDeleteContainer, []byte(h.P("eph")))
	try("deleteContainer(20) missing", proto.OpDeleteContainer, []byte(h.P("none")))
	try("deleteContainer(20) plain node", proto.OpDeleteContainer, []byte(h.P("dc/x")))
	h.note("dc/x gone: %v", h.c.exists(h.P("dc/x"), false).err)
	try("truncated getData", proto.OpGetData, []byte{0, 0, 0, 9, '/'})
	try("truncated create", proto.OpCreate, []byte{0, 0, 0, 2, '/', 'a'})
	try("checkWatches bad type", proto.OpCheckWatches, []byte{0, 0, 0, 1, '/', 0, 0, 0, 4})
	try("notification op(0)", 0, nil)
	try("sasl(102)", proto.OpSASL, []byte{0, 0, 0, 0})
	ttlBody := func(p string, flags int32, ttl int64) []byte {
		var e proto.Encoder
		createBody(p, nil, openACL, flags)(&e)
		e.Long(ttl)
		return e.B
	}
	// Not compared: createTTL with flags 0 and ttl -1 makes 3.8.0 throw in
	// its final processor and shut the whole server down (see
	// COMPATIBILITY.md); createSession (-10) from a client opens a second
	// session on the connection.
	try("createTTL(21) flags 0 ttl 5", proto.OpCreateTTL, ttlBody(h.P("t1"), 0, 5))
	try("createTTL(21) flags 7", proto.OpCreateTTL, ttlBody(h.P("t2"), 7, 5))
	var e proto.Encoder
	createBody(h.P("c15"), nil, openACL, 4)(&e)
	try("create2(15) flags 4", proto.OpCreate2, e.B)
	try("huge string length", proto.OpExists, []byte{0x7f, 0, 0, 0, '/', 0})
}

func init() {
	checks = append(checks,
		check{id: "X1-4000ms", fresh: true, slow: true, fn: expiryCheck(4000)},
		check{id: "ODD", fn: oddRequests},
		check{id: "SW2", fn: func(h *H) {
			h.start()
			r := h.sess()
			f := r.call(proto.OpSetWatches2, func(e *proto.Encoder) {
				e.Long(h.c.ping())
				e.Strings([]string{})
				e.Strings([]string{})
				e.Strings([]string{})
				e.Strings([]string{h.P("p")})
				e.Strings([]string{h.P("r")})
			})
			h.eq("reply", h.hdr(f), "{x z+1 0}")
			h.c.create(h.P("p"), nil, 0)
			h.c.create(h.P("p/c"), nil, 0)
			h.c.create(h.P("r"), nil, 0)
			h.c.create(h.P("r/c"), nil, 0)
			h.eq("events", h.evs(h.expectEvents(r, 4)), "[1:3:$P/p 4:3:$P/p 1:3:$P/r 1:3:$P/r/c]")
			// A standard watch registered on a persistent path makes it one-shot (3.8).
			r.getData(h.P("p"), true)
			h.c.setData(h.P("p"), nil, -1)
			h.c.setData(h.P("p"), nil, -1)
			h.eq("downgraded", h.evs(h.expectEvents(r, 1)), "[3:3:$P/p]")
			// Op 19 with plain flags still makes a container (its txn type decides).
			f = h.c.call(proto.OpCreateContainer, createBody(h.P("c0"), nil, openACL, 0))
			h.eq("container19flags0", f.err, int32(0))
			f = h.c.call(proto.OpCreateContainer, createBody(h.P("c1"), nil, openACL, 1))
			h.eq("container19flags1Owner", h.st(f.dec().Stat()) != "", true)
			// auth with scheme ip succeeds.
			f = h.c.call(proto.OpAuth, func(e *proto.Encoder) { e.Int(0); e.String("ip"); e.Buffer(nil) })
			h.eq("authIP", h.hdr(f), "{x 0 0}")
			h.eq("allChildrenRoot", h.c.call(proto.OpGetAllChildrenNumber, pathOnly("/zookeeper")).dec().Int(), int32(2))
		}},
	)
}
