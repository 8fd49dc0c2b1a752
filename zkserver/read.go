package zkserver

import (
	"bytes"
	"slices"
	"strings"

	"github.com/ktopo/ktopo/zkserver/internal/proto"
)

// readReq is one read-only request being answered: its connection, its
// xid, the zxid its reply carries and the decoder of its body. Its
// helpers are what every read does alike: fail with an error code, check
// that the body decoded, look the node up with a permission, register a
// watch.
type readReq struct {
	s    *Server
	c    *conn
	xid  int32
	zxid int64
	op   int32
	d    *proto.Decoder
}

// fail answers the request with an error code and no body.
func (r *readReq) fail(code int32) { r.c.sendHeader(r.xid, r.zxid, code) }

// ok answers the request with success and no body.
func (r *readReq) ok() { r.c.sendHeader(r.xid, r.zxid, 0) }

// decoded reports whether the body decoded, answering -4 (marshalling)
// when it did not.
func (r *readReq) decoded() bool {
	if r.d.Err() != nil {
		r.fail(proto.ErrMarshalling)
		return false
	}
	return true
}

// node looks path up for a read that needs perm; when it is missing or
// not allowed it answers -101 or -102 and returns nil. Paths still in the
// request buffer are looked up without copying them out (a string is
// made only for a watch).
func (r *readReq) node(path []byte, perm int32) *node {
	n, code := r.s.readableBytes(r.c, path, perm)
	if code != 0 {
		r.fail(code)
		return nil
	}
	return n
}

// watch registers a one-shot watch of the connection on path in set.
func (r *readReq) watch(set *watchTable, path []byte) {
	r.s.wmu.Lock()
	set.add(string(path), r.c, watchStandard)
	r.s.wmu.Unlock()
}

// reply starts the reply's body (see conn.reply).
func (r *readReq) reply(sizeHint int) (*proto.Encoder, int) {
	return r.c.reply(r.xid, r.zxid, 0, sizeHint)
}

// send ends the reply and queues it.
func (r *readReq) send(e *proto.Encoder, off int) {
	e.EndFrame(off)
	r.c.send(e.B)
}

// read executes a read-only request; mu is held for reading.
func (s *Server) read(c *conn, xid, op int32, body []byte) {
	r := readReq{s: s, c: c, xid: xid, zxid: s.zxid.Load(), op: op, d: proto.NewDecoder(body)}
	switch op {
	case proto.OpExists:
		r.exists()
	case proto.OpGetData:
		r.getData()
	case proto.OpGetChildren, proto.OpGetChildren2:
		r.getChildren()
	case proto.OpGetACL:
		r.getACL()
	case proto.OpSync:
		r.sync()
	case proto.OpGetAllChildrenNumber:
		r.allChildrenNumber()
	case proto.OpGetEphemerals:
		r.ephemerals()
	case proto.OpWhoAmI:
		r.whoAmI()
	case proto.OpMultiRead:
		s.multiRead(c, xid, r.zxid, r.d)
	case proto.OpCheckWatches, proto.OpRemoveWatches:
		r.checkOrRemoveWatches()
	case proto.OpSetWatches, proto.OpSetWatches2:
		r.setWatches()
	case proto.OpAddWatch:
		r.addWatch()
	}
}

func (r *readReq) exists() {
	path, watch := r.d.StringBytes(), r.d.Bool()
	if !r.decoded() {
		return
	}
	if bytes.IndexByte(path, 0) >= 0 {
		r.fail(proto.ErrBadArguments)
		return
	}
	if watch {
		// exists registers its watch even when the node is missing.
		r.watch(&r.s.dataW, path)
	}
	n := r.s.tree.getBytes(path)
	if n == nil {
		r.fail(proto.ErrNoNode)
		return
	}
	st := n.stat()
	e, off := r.reply(68)
	e.Stat(&st)
	r.send(e, off)
}

func (r *readReq) getData() {
	path, watch := r.d.StringBytes(), r.d.Bool()
	if !r.decoded() {
		return
	}
	n := r.node(path, proto.PermRead)
	if n == nil {
		return
	}
	if watch {
		r.watch(&r.s.dataW, path)
	}
	st := n.stat()
	e, off := r.reply(72 + len(n.data))
	e.Buffer(n.data)
	e.Stat(&st)
	r.send(e, off)
}

// getChildren answers getChildren and getChildren2 (which adds the stat).
func (r *readReq) getChildren() {
	path, watch := r.d.StringBytes(), r.d.Bool()
	if !r.decoded() {
		return
	}
	n := r.node(path, proto.PermRead)
	if n == nil {
		return
	}
	if watch {
		r.watch(&r.s.childW, path)
	}
	kids := sortedChildren(n)
	size := 76
	for _, k := range kids {
		size += 4 + len(k)
	}
	e, off := r.reply(size)
	e.Strings(kids)
	if r.op == proto.OpGetChildren2 {
		st := n.stat()
		e.Stat(&st)
	}
	r.send(e, off)
}

func (r *readReq) getACL() {
	path := r.d.String()
	if !r.decoded() {
		return
	}
	n, code := r.s.readable(r.c, path, proto.PermRead|proto.PermAdmin)
	if code != 0 {
		r.fail(code)
		return
	}
	acl := n.acl.acl
	if !allowed(r.c, n.acl, proto.PermAdmin) {
		// Without ADMIN, digest ids are masked to "user:x".
		masked := slices.Clone(acl)
		for i, a := range masked {
			if a.Scheme == "digest" {
				user, _, _ := strings.Cut(a.ID, ":")
				masked[i].ID = user + ":x"
			}
		}
		acl = masked
	}
	st := n.stat()
	e, off := r.reply(80 + 32*len(acl))
	e.ACLs(acl)
	e.Stat(&st)
	r.send(e, off)
}

func (r *readReq) sync() {
	path := r.d.String()
	if !r.decoded() {
		return
	}
	e, off := r.reply(4 + len(path))
	e.String(path)
	r.send(e, off)
}

func (r *readReq) allChildrenNumber() {
	path := r.d.String()
	if !r.decoded() {
		return
	}
	n, code := r.s.readable(r.c, path, proto.PermRead)
	if code != 0 {
		r.fail(code)
		return
	}
	e, off := r.reply(4)
	e.Int(int32(r.s.tree.countDescendants(path, n)))
	r.send(e, off)
}

func (r *readReq) ephemerals() {
	prefix := r.d.String()
	if !r.decoded() {
		return
	}
	var out []string
	all := strings.TrimSpace(prefix) == "" || strings.TrimSpace(prefix) == "/"
	// In the order of 3.8's HashSet clone, as the real server lists them.
	for _, p := range javaCloseOrder(r.c.sess.ephemerals, r.c.sess.ephPeak) {
		if all || strings.HasPrefix(p, prefix) {
			out = append(out, p)
		}
	}
	if out == nil {
		out = []string{}
	}
	e, off := r.reply(64 * len(out))
	e.Strings(out)
	r.send(e, off)
}

func (r *readReq) whoAmI() {
	e, off := r.reply(64)
	e.Int(int32(len(r.c.auth)))
	for _, a := range authOrder(r.c.auth) {
		user := a.id
		if a.scheme == "digest" {
			user, _, _ = strings.Cut(a.id, ":")
		}
		e.String(a.scheme)
		e.String(user)
	}
	r.send(e, off)
}

// checkOrRemoveWatches answers checkWatches and removeWatches: type 1 the
// child watches, 2 the data watches, 3 both; -121 when there is none.
func (r *readReq) checkOrRemoveWatches() {
	path, typ := r.d.String(), r.d.Int()
	if r.d.Err() != nil || typ < 1 || typ > 3 {
		r.fail(proto.ErrMarshalling)
		return
	}
	s, check := r.s, r.op == proto.OpCheckWatches
	s.wmu.Lock()
	found := false
	if typ == 1 || typ == 3 {
		if check {
			found = s.childW.contains(path) || found
		} else {
			found = s.childW.remove(path, r.c) || found
		}
	}
	if typ == 2 || typ == 3 {
		if check {
			found = s.dataW.contains(path) || found
		} else {
			found = s.dataW.remove(path, r.c) || found
		}
	}
	s.wmu.Unlock()
	if !found {
		r.fail(proto.ErrNoWatcher)
		return
	}
	r.ok()
}

// setWatches answers setWatches and setWatches2 (which adds persistent
// and recursive watches).
func (r *readReq) setWatches() {
	rel := r.d.Long()
	data, exist, child := r.d.Strings(), r.d.Strings(), r.d.Strings()
	var persistent, recursive []string
	if r.op == proto.OpSetWatches2 {
		persistent, recursive = r.d.Strings(), r.d.Strings()
	}
	if !r.decoded() {
		return
	}
	r.s.setWatches(r.c, rel, data, exist, child, persistent, recursive)
	r.ok()
}

// addWatch adds a persistent watch (mode 0) or a recursive one (mode 1).
func (r *readReq) addWatch() {
	path, mode := r.d.String(), r.d.Int()
	if r.d.Err() != nil || mode < 0 || mode > 1 {
		r.fail(proto.ErrMarshalling)
		return
	}
	s := r.s
	s.wmu.Lock()
	if mode == 0 {
		s.dataW.add(path, r.c, watchPersistent)
		s.childW.add(path, r.c, watchPersistent)
	} else {
		s.dataW.add(path, r.c, watchRecursive)
	}
	s.wmu.Unlock()
	e, off := r.reply(4)
	e.Int(0)
	r.send(e, off)
}

// readableBytes is readable for a path still in the request buffer.
func (s *Server) readableBytes(c *conn, path []byte, perm int32) (*node, int32) {
	n := s.tree.getBytes(path)
	if n == nil {
		return nil, proto.ErrNoNode
	}
	if !allowed(c, n.acl, perm) {
		return nil, proto.ErrNoAuth
	}
	return n, 0
}

// readable looks a node up for a read that needs perm: -101 when missing,
// -102 without permission.
func (s *Server) readable(c *conn, path string, perm int32) (*node, int32) {
	n := s.tree.get(path)
	if n == nil {
		return nil, proto.ErrNoNode
	}
	if !allowed(c, n.acl, perm) {
		return nil, proto.ErrNoAuth
	}
	return n, 0
}

// setWatches re-registers a reconnecting client's watches, sending at once
// the events it missed (DataTree.setWatches, spec §10.5).
func (s *Server) setWatches(c *conn, rel int64, data, exist, child, persistent, recursive []string) {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	for _, p := range data {
		switch n := s.tree.get(p); {
		case n == nil:
			c.send(notification(proto.EventNodeDeleted, p))
		case n.mzxid > rel:
			c.send(notification(proto.EventNodeDataChanged, p))
		default:
			s.dataW.add(p, c, watchStandard)
		}
	}
	for _, p := range exist {
		if s.tree.get(p) != nil {
			c.send(notification(proto.EventNodeCreated, p))
		} else {
			s.dataW.add(p, c, watchStandard)
		}
	}
	for _, p := range child {
		switch n := s.tree.get(p); {
		case n == nil:
			c.send(notification(proto.EventNodeDeleted, p))
		case n.pzxid > rel:
			c.send(notification(proto.EventNodeChildrenChanged, p))
		default:
			s.childW.add(p, c, watchStandard)
		}
	}
	for _, p := range persistent {
		s.childW.add(p, c, watchPersistent)
		s.dataW.add(p, c, watchPersistent)
	}
	for _, p := range recursive {
		s.childW.add(p, c, watchRecursive)
		s.dataW.add(p, c, watchRecursive)
	}
}

// multiRead answers op 22: getData and getChildren ops, each with its own
// result or error; never fails as a whole (spec §11).
func (s *Server) multiRead(c *conn, xid int32, zxid int64, d *proto.Decoder) {
	e, off := c.reply(xid, zxid, 0, 256)
	for {
		typ, done, _ := d.Int(), d.Bool(), d.Int()
		if d.Err() != nil {
			c.sendHeader(xid, zxid, proto.ErrMarshalling)
			return
		}
		if done {
			break
		}
		if typ != proto.OpGetData && typ != proto.OpGetChildren {
			c.sendHeader(xid, zxid, proto.ErrMarshalling)
			return
		}
		path, _ := d.String(), d.Bool()
		if d.Err() != nil {
			c.sendHeader(xid, zxid, proto.ErrMarshalling)
			return
		}
		n, code := s.readable(c, path, proto.PermRead)
		if code != 0 {
			e.Int(proto.OpError)
			e.Bool(false)
			e.Int(code)
			e.Int(code)
			continue
		}
		e.Int(typ)
		e.Bool(false)
		e.Int(0)
		if typ == proto.OpGetData {
			st := n.stat()
			e.Buffer(n.data)
			e.Stat(&st)
		} else {
			e.Strings(sortedChildren(n))
		}
	}
	e.Int(-1)
	e.Bool(true)
	e.Int(-1)
	e.EndFrame(off)
	c.send(e.B)
}
