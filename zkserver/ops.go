package zkserver

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/ktopo/ktopo/zkserver/internal/proto"
)

// reply starts a reply frame with its header; finish it with EndFrame.
func reply(xid int32, zxid int64, err int32, sizeHint int) (proto.Encoder, int) {
	e := proto.Encoder{B: make([]byte, 0, 20+sizeHint)}
	off := e.BeginFrame()
	e.Int(xid)
	e.Long(zxid)
	e.Int(err)
	return e, off
}

// headerOnly encodes a body-less reply (every error reply, spec §4).
func headerOnly(xid int32, zxid int64, err int32) []byte {
	e, off := reply(xid, zxid, err, 0)
	e.EndFrame(off)
	return e.B
}

// dispatch executes one request and queues its reply. It returns false when
// the connection must end.
func (s *Server) dispatch(c *conn, frame []byte) bool {
	d := proto.NewDecoder(frame)
	xid := d.Int()
	op := d.Int()
	if d.Err() != nil {
		s.logf("connection %s: request header truncated, closing", c.nc.RemoteAddr())
		return false
	}
	body := d.Rest()
	switch op {
	case proto.OpPing:
		c.send(headerOnly(proto.XidPing, s.zxid.Load(), 0))
	case proto.OpAuth:
		return s.authPacket(c, xid, body)
	case proto.OpSASL:
		// No SASL here; 3.8 without SASL answers an empty token this way.
		e, off := reply(xid, 0, 0, 4)
		e.Buffer(nil)
		e.EndFrame(off)
		c.send(e.B)
	case proto.OpExists, proto.OpGetData, proto.OpGetACL, proto.OpGetChildren, proto.OpGetChildren2,
		proto.OpSync, proto.OpGetAllChildrenNumber, proto.OpGetEphemerals, proto.OpWhoAmI,
		proto.OpMultiRead, proto.OpCheckWatches, proto.OpRemoveWatches, proto.OpSetWatches,
		proto.OpSetWatches2, proto.OpAddWatch:
		s.mu.RLock()
		s.read(c, xid, op, body)
		s.mu.RUnlock()
	case proto.OpCreate, proto.OpCreate2, proto.OpCreateContainer, proto.OpCreateTTL, proto.OpDelete,
		proto.OpSetData, proto.OpSetACL, proto.OpCheck, proto.OpMulti, proto.OpReconfig, proto.OpDeleteContainer:
		s.mu.Lock()
		if s.sessions[c.sess.id] != c.sess {
			// The session expired or was closed while this connection still
			// had requests in flight: nothing more may change for it.
			s.mu.Unlock()
			return false
		}
		s.write(c, xid, op, body)
		s.mu.Unlock()
	case proto.OpCloseSession:
		s.mu.Lock()
		zxid := int64(0)
		if s.sessions[c.sess.id] == c.sess {
			zxid = s.closeSessionLocked(c.sess)
		} else {
			zxid = s.zxid.Load()
		}
		c.sendAndClose(headerOnly(xid, zxid, 0))
		s.mu.Unlock()
		return false
	default:
		// Unknown opcode (also createSession from a client): -6 with zxid -1, then the connection closes (spec §5).
		c.sendAndClose(headerOnly(xid, -1, proto.ErrUnimplemented))
		return false
	}
	return true
}

// authPacket handles op 100 (spec §13.1): digest and ip succeed, any other
// scheme answers -115 and closes the connection.
func (s *Server) authPacket(c *conn, xid int32, body []byte) bool {
	d := proto.NewDecoder(body)
	_ = d.Int() // type, always 0
	scheme := d.String()
	cred := d.Buffer()
	switch {
	case d.Err() != nil:
		c.send(headerOnly(xid, 0, proto.ErrMarshalling))
	case scheme == "digest":
		id := digestID(string(cred))
		if s.cfg.SuperDigest != "" && id == s.cfg.SuperDigest {
			c.addAuth("super", "")
		}
		c.addAuth("digest", id)
		c.send(headerOnly(xid, 0, 0))
	case scheme == "ip":
		c.addAuth("ip", c.ip)
		c.send(headerOnly(xid, 0, 0))
	default:
		s.logf("connection %s: auth scheme %q not supported, closing", c.nc.RemoteAddr(), scheme)
		c.sendAndClose(headerOnly(xid, 0, proto.ErrAuthFailed))
		return false
	}
	return true
}

// read executes a read-only request; mu is held for reading.
func (s *Server) read(c *conn, xid, op int32, body []byte) {
	zxid := s.zxid.Load()
	d := proto.NewDecoder(body)
	fail := func(code int32) { c.send(headerOnly(xid, zxid, code)) }
	switch op {
	case proto.OpExists:
		path, watch := d.String(), d.Bool()
		if d.Err() != nil {
			fail(proto.ErrMarshalling)
			return
		}
		if strings.IndexByte(path, 0) >= 0 {
			fail(proto.ErrBadArguments)
			return
		}
		if watch {
			// exists registers its watch even when the node is missing.
			s.wmu.Lock()
			s.dataW.add(path, c, watchStandard)
			s.wmu.Unlock()
		}
		n := s.tree.get(path)
		if n == nil {
			fail(proto.ErrNoNode)
			return
		}
		st := n.stat()
		e, off := reply(xid, zxid, 0, 68)
		e.Stat(&st)
		e.EndFrame(off)
		c.send(e.B)

	case proto.OpGetData:
		path, watch := d.String(), d.Bool()
		if d.Err() != nil {
			fail(proto.ErrMarshalling)
			return
		}
		n, code := s.readable(c, path, proto.PermRead)
		if code != 0 {
			fail(code)
			return
		}
		if watch {
			s.wmu.Lock()
			s.dataW.add(path, c, watchStandard)
			s.wmu.Unlock()
		}
		st := n.stat()
		e, off := reply(xid, zxid, 0, 72+len(n.data))
		e.Buffer(n.data)
		e.Stat(&st)
		e.EndFrame(off)
		c.send(e.B)

	case proto.OpGetChildren, proto.OpGetChildren2:
		path, watch := d.String(), d.Bool()
		if d.Err() != nil {
			fail(proto.ErrMarshalling)
			return
		}
		n, code := s.readable(c, path, proto.PermRead)
		if code != 0 {
			fail(code)
			return
		}
		if watch {
			s.wmu.Lock()
			s.childW.add(path, c, watchStandard)
			s.wmu.Unlock()
		}
		kids := sortedChildren(n)
		size := 76
		for _, k := range kids {
			size += 4 + len(k)
		}
		e, off := reply(xid, zxid, 0, size)
		e.Strings(kids)
		if op == proto.OpGetChildren2 {
			st := n.stat()
			e.Stat(&st)
		}
		e.EndFrame(off)
		c.send(e.B)

	case proto.OpGetACL:
		path := d.String()
		if d.Err() != nil {
			fail(proto.ErrMarshalling)
			return
		}
		n, code := s.readable(c, path, proto.PermRead|proto.PermAdmin)
		if code != 0 {
			fail(code)
			return
		}
		acl := n.acl.acl
		if !allowed(c, n.acl, proto.PermAdmin) {
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
		e, off := reply(xid, zxid, 0, 80+32*len(acl))
		e.ACLs(acl)
		e.Stat(&st)
		e.EndFrame(off)
		c.send(e.B)

	case proto.OpSync:
		path := d.String()
		if d.Err() != nil {
			fail(proto.ErrMarshalling)
			return
		}
		e, off := reply(xid, zxid, 0, 4+len(path))
		e.String(path)
		e.EndFrame(off)
		c.send(e.B)

	case proto.OpGetAllChildrenNumber:
		path := d.String()
		if d.Err() != nil {
			fail(proto.ErrMarshalling)
			return
		}
		n, code := s.readable(c, path, proto.PermRead)
		if code != 0 {
			fail(code)
			return
		}
		e, off := reply(xid, zxid, 0, 4)
		e.Int(int32(s.tree.countDescendants(path, n)))
		e.EndFrame(off)
		c.send(e.B)

	case proto.OpGetEphemerals:
		prefix := d.String()
		if d.Err() != nil {
			fail(proto.ErrMarshalling)
			return
		}
		var out []string
		all := strings.TrimSpace(prefix) == "" || strings.TrimSpace(prefix) == "/"
		// In the order of 3.8's HashSet clone, as the real server lists them.
		for _, p := range javaCloseOrder(c.sess.ephemerals, c.sess.ephPeak) {
			if all || strings.HasPrefix(p, prefix) {
				out = append(out, p)
			}
		}
		if out == nil {
			out = []string{}
		}
		e, off := reply(xid, zxid, 0, 64*len(out))
		e.Strings(out)
		e.EndFrame(off)
		c.send(e.B)

	case proto.OpWhoAmI:
		e, off := reply(xid, zxid, 0, 64)
		e.Int(int32(len(c.auth)))
		for _, a := range authOrder(c.auth) {
			user := a.id
			if a.scheme == "digest" {
				user, _, _ = strings.Cut(a.id, ":")
			}
			e.String(a.scheme)
			e.String(user)
		}
		e.EndFrame(off)
		c.send(e.B)

	case proto.OpMultiRead:
		s.multiRead(c, xid, zxid, d)

	case proto.OpCheckWatches, proto.OpRemoveWatches:
		path, typ := d.String(), d.Int()
		if d.Err() != nil || typ < 1 || typ > 3 {
			fail(proto.ErrMarshalling)
			return
		}
		s.wmu.Lock()
		found := false
		if typ == 1 || typ == 3 {
			if op == proto.OpCheckWatches {
				found = s.childW.contains(path) || found
			} else {
				found = s.childW.remove(path, c) || found
			}
		}
		if typ == 2 || typ == 3 {
			if op == proto.OpCheckWatches {
				found = s.dataW.contains(path) || found
			} else {
				found = s.dataW.remove(path, c) || found
			}
		}
		s.wmu.Unlock()
		if !found {
			fail(proto.ErrNoWatcher)
			return
		}
		c.send(headerOnly(xid, zxid, 0))

	case proto.OpSetWatches, proto.OpSetWatches2:
		rel := d.Long()
		data, exist, child := d.Strings(), d.Strings(), d.Strings()
		var persistent, recursive []string
		if op == proto.OpSetWatches2 {
			persistent, recursive = d.Strings(), d.Strings()
		}
		if d.Err() != nil {
			fail(proto.ErrMarshalling)
			return
		}
		s.setWatches(c, rel, data, exist, child, persistent, recursive)
		c.send(headerOnly(xid, zxid, 0))

	case proto.OpAddWatch:
		path, mode := d.String(), d.Int()
		if d.Err() != nil || mode < 0 || mode > 1 {
			fail(proto.ErrMarshalling)
			return
		}
		s.wmu.Lock()
		if mode == 0 {
			s.dataW.add(path, c, watchPersistent)
			s.childW.add(path, c, watchPersistent)
		} else {
			s.dataW.add(path, c, watchRecursive)
		}
		s.wmu.Unlock()
		e, off := reply(xid, zxid, 0, 4)
		e.Int(0)
		e.EndFrame(off)
		c.send(e.B)
	}
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
	e, off := reply(xid, zxid, 0, 256)
	for {
		typ, done, _ := d.Int(), d.Bool(), d.Int()
		if d.Err() != nil {
			c.send(headerOnly(xid, zxid, proto.ErrMarshalling))
			return
		}
		if done {
			break
		}
		if typ != proto.OpGetData && typ != proto.OpGetChildren {
			c.send(headerOnly(xid, zxid, proto.ErrMarshalling))
			return
		}
		path, _ := d.String(), d.Bool()
		if d.Err() != nil {
			c.send(headerOnly(xid, zxid, proto.ErrMarshalling))
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

// writeCtx carries one transaction's state through its ops.
type writeCtx struct {
	c     *conn
	zxid  int64
	now   int64 // wall clock ms
	undo  *undoLog
	fired []trigger // watch triggers, run only once the transaction stands
}

// trigger is a watch trigger waiting for its transaction to succeed.
type trigger struct {
	kind int32 // proto.OpCreate, OpDelete or OpSetData
	path string
}

// commit fires the transaction's watches and queues the notifications.
func (s *Server) commit(w *writeCtx) {
	var events []pendingEvent
	for _, t := range w.fired {
		switch t.kind {
		case proto.OpCreate:
			s.triggerCreate(t.path, &events)
		case proto.OpDelete:
			s.triggerDelete(t.path, &events)
		case proto.OpSetData:
			s.triggerData(t.path, &events)
		}
	}
	s.deliver(events)
}

// write executes a state-changing request; mu is held exclusively. Every
// write consumes a zxid, failed or not (spec §8.0).
func (s *Server) write(c *conn, xid, op int32, body []byte) {
	w := &writeCtx{c: c, zxid: s.zxid.Add(1), now: time.Now().UnixMilli()}
	d := proto.NewDecoder(body)
	fail := func(code int32) { c.send(headerOnly(xid, w.zxid, code)) }
	switch op {
	case proto.OpCreate, proto.OpCreate2, proto.OpCreateContainer, proto.OpCreateTTL:
		path, data, acl, flags := d.String(), d.Buffer(), d.ACLs(), d.Int()
		ttl := int64(-1)
		if op == proto.OpCreateTTL {
			ttl = d.Long()
		}
		if d.Err() != nil {
			fail(proto.ErrMarshalling)
			return
		}
		actual, n, code := s.create(w, op, path, data, acl, flags, ttl)
		if code != 0 {
			fail(code)
			return
		}
		s.commit(w)
		e, off := reply(xid, w.zxid, 0, 72+len(actual))
		e.String(actual)
		if op != proto.OpCreate {
			st := n.stat()
			e.Stat(&st)
		}
		e.EndFrame(off)
		c.send(e.B)

	case proto.OpDelete:
		path, version := d.String(), d.Int()
		if d.Err() != nil {
			fail(proto.ErrMarshalling)
			return
		}
		if code := s.delete(w, path, version); code != 0 {
			fail(code)
			return
		}
		s.commit(w)
		c.send(headerOnly(xid, w.zxid, 0))

	case proto.OpSetData:
		path, data, version := d.String(), d.Buffer(), d.Int()
		if d.Err() != nil {
			fail(proto.ErrMarshalling)
			return
		}
		n, code := s.setData(w, path, data, version)
		if code != 0 {
			fail(code)
			return
		}
		s.commit(w)
		st := n.stat()
		e, off := reply(xid, w.zxid, 0, 68)
		e.Stat(&st)
		e.EndFrame(off)
		c.send(e.B)

	case proto.OpSetACL:
		path, acl, version := d.String(), d.ACLs(), d.Int()
		if d.Err() != nil {
			fail(proto.ErrMarshalling)
			return
		}
		n, code := s.setACL(w, path, acl, version)
		if code != 0 {
			fail(code)
			return
		}
		st := n.stat()
		e, off := reply(xid, w.zxid, 0, 68)
		e.Stat(&st)
		e.EndFrame(off)
		c.send(e.B)

	case proto.OpCheck:
		// Outside a multi the real server never answers (spec §5, M7); we
		// answer -6 so clients do not hang.
		fail(proto.ErrUnimplemented)

	case proto.OpReconfig:
		fail(proto.ErrReconfigDisabled)

	case proto.OpDeleteContainer:
		// 3.8 takes this server-internal op from clients too, but reads the
		// path from the whole frame buffer, header included: the NUL bytes
		// of the header make it -8 BadArguments, always (a zxid is used).
		fail(proto.ErrBadArguments)

	case proto.OpMulti:
		s.multi(w, xid, d)
	}
}

// createMode interprets create flags (CreateMode.fromFlag).
type createMode struct {
	ephemeral, sequential, container, ttl bool
}

func parseFlags(flags int32) (createMode, bool) {
	switch flags {
	case 0:
		return createMode{}, true
	case 1:
		return createMode{ephemeral: true}, true
	case 2:
		return createMode{sequential: true}, true
	case 3:
		return createMode{ephemeral: true, sequential: true}, true
	case 4:
		return createMode{container: true}, true
	case 5:
		return createMode{ttl: true}, true
	case 6:
		return createMode{ttl: true, sequential: true}, true
	}
	return createMode{}, false
}

// create runs the checks of spec §8.1 in ZooKeeper's order and applies the
// create. op decides the node kind as ZooKeeper's txn types do: op 19 always
// makes a container, ops 1/15 an ephemeral or persistent node.
func (s *Server) create(w *writeCtx, op int32, path string, data []byte, acl []proto.ACL, flags int32, ttl int64) (string, *node, int32) {
	mode, ok := parseFlags(flags)
	if !ok {
		return "", nil, proto.ErrBadArguments
	}
	if mode.ttl {
		return "", nil, proto.ErrUnimplemented // extended types are disabled
	}
	if ttl >= 0 || op == proto.OpCreateTTL {
		// A ttl for a non-TTL mode. (Op 21 with a negative ttl makes 3.8.0
		// crash; -8 is what its validation meant to answer.)
		return "", nil, proto.ErrBadArguments
	}
	slash := strings.LastIndexByte(path, '/')
	if slash < 0 || strings.IndexByte(path, 0) >= 0 {
		return "", nil, proto.ErrBadArguments
	}
	fixed, ok := fixupACL(w.c, acl)
	if !ok {
		return "", nil, proto.ErrInvalidACL
	}
	parent := s.tree.get(path[:slash])
	if parent == nil {
		return "", nil, proto.ErrNoNode
	}
	if !allowed(w.c, parent.acl, proto.PermCreate) {
		return "", nil, proto.ErrNoAuth
	}
	if mode.sequential {
		path += fmt.Sprintf("%010d", parent.childCreates)
	}
	if !validPath(path) {
		return "", nil, proto.ErrBadArguments
	}
	if s.tree.nodes[path] != nil {
		return "", nil, proto.ErrNodeExists
	}
	if parent.isEphemeral() {
		return "", nil, proto.ErrNoChildrenForEphemerals
	}
	n := &node{
		data: bytes.Clone(data), acl: s.tree.intern(fixed),
		czxid: w.zxid, mzxid: w.zxid, pzxid: w.zxid, ctime: w.now, mtime: w.now,
	}
	switch {
	case op == proto.OpCreateContainer:
		n.owner = containerOwner
	case mode.ephemeral:
		n.owner = w.c.sess.id
	}
	s.tree.addNode(path, parent, n, w.zxid, w.undo)
	if n.isEphemeral() {
		ss := w.c.sess
		ss.addEphemeral(path)
		w.undo.add(func() { delete(ss.ephemerals, path) })
	}
	w.fired = append(w.fired, trigger{proto.OpCreate, path})
	return path, n, 0
}

// delete runs the checks of spec §8.2 and applies the delete.
func (s *Server) delete(w *writeCtx, path string, version int32) int32 {
	slash := strings.LastIndexByte(path, '/')
	if slash < 0 || strings.IndexByte(path, 0) >= 0 || isSpecial(path) {
		return proto.ErrBadArguments
	}
	parent := s.tree.get(path[:slash])
	if parent == nil {
		return proto.ErrNoNode
	}
	if !allowed(w.c, parent.acl, proto.PermDelete) {
		return proto.ErrNoAuth
	}
	n := s.tree.nodes[path]
	if n == nil {
		return proto.ErrNoNode
	}
	if version != -1 && version != n.version {
		return proto.ErrBadVersion
	}
	if len(n.children) > 0 {
		return proto.ErrNotEmpty
	}
	s.tree.removeNode(path, n, w.zxid, w.undo)
	if n.isEphemeral() {
		if owner := s.sessions[n.owner]; owner != nil {
			seq := owner.ephemerals[path]
			delete(owner.ephemerals, path)
			w.undo.add(func() { owner.ephemerals[path] = seq })
		}
	}
	w.fired = append(w.fired, trigger{proto.OpDelete, path})
	return 0
}

// setData runs the checks of spec §8.3 and applies the change.
func (s *Server) setData(w *writeCtx, path string, data []byte, version int32) (*node, int32) {
	if !validPath(path) {
		return nil, proto.ErrBadArguments
	}
	n := s.tree.nodes[path]
	if n == nil {
		return nil, proto.ErrNoNode
	}
	if !allowed(w.c, n.acl, proto.PermWrite) {
		return nil, proto.ErrNoAuth
	}
	if version != -1 && version != n.version {
		return nil, proto.ErrBadVersion
	}
	s.tree.setData(n, bytes.Clone(data), w.zxid, w.now, w.undo)
	w.fired = append(w.fired, trigger{proto.OpSetData, path})
	return n, 0
}

// setACL runs the checks of spec §8.4 and applies the change. No watch fires.
func (s *Server) setACL(w *writeCtx, path string, acl []proto.ACL, version int32) (*node, int32) {
	if !validPath(path) {
		return nil, proto.ErrBadArguments
	}
	fixed, ok := fixupACL(w.c, acl)
	if !ok {
		return nil, proto.ErrInvalidACL
	}
	n := s.tree.nodes[path]
	if n == nil {
		return nil, proto.ErrNoNode
	}
	if !allowed(w.c, n.acl, proto.PermAdmin) {
		return nil, proto.ErrNoAuth
	}
	if version != -1 && version != n.aversion {
		return nil, proto.ErrBadVersion
	}
	n.acl = s.tree.intern(fixed)
	n.aversion++
	return n, 0
}

// check is the version check of a multi (spec §8.5).
func (s *Server) check(w *writeCtx, path string, version int32) int32 {
	if !validPath(path) {
		return proto.ErrBadArguments
	}
	n := s.tree.nodes[path]
	if n == nil {
		return proto.ErrNoNode
	}
	if !allowed(w.c, n.acl, proto.PermRead) {
		return proto.ErrNoAuth
	}
	if version != -1 && version != n.version {
		return proto.ErrBadVersion
	}
	return 0
}

// multiOp is one decoded op of a multi request.
type multiOp struct {
	typ     int32 // opcode after ZooKeeper's re-derivation from create flags
	path    string
	data    []byte
	acl     []proto.ACL
	flags   int32
	ttl     int64
	version int32
}

// decodeMulti reads a MultiRequest; ok is false for a read op or an unknown
// type inside it, or a truncated record (reply -5).
func decodeMulti(d *proto.Decoder) ([]multiOp, bool) {
	var ops []multiOp
	for {
		typ, done, _ := d.Int(), d.Bool(), d.Int()
		if d.Err() != nil {
			return nil, false
		}
		if done {
			return ops, true
		}
		op := multiOp{typ: typ, ttl: -1}
		switch typ {
		case proto.OpCreate, proto.OpCreate2, proto.OpCreateContainer, proto.OpCreateTTL:
			op.path, op.data, op.acl, op.flags = d.String(), d.Buffer(), d.ACLs(), d.Int()
			if typ == proto.OpCreateTTL {
				op.ttl = d.Long()
			}
			// ZooKeeper's Op.create re-derives the opcode from the flags
			// (unknown flags count as persistent and fail later with -8).
			switch m, _ := parseFlags(op.flags); {
			case m.ttl && typ != proto.OpCreateTTL:
				// A TTL mode in a plain create record: 3.8 fails to cast the
				// record and answers the whole multi with -5.
				return nil, false
			case m.ttl:
				op.typ = proto.OpCreateTTL
			case m.container:
				op.typ, op.ttl = proto.OpCreateContainer, -1
			default:
				op.typ, op.ttl = proto.OpCreate, -1
			}
		case proto.OpDelete:
			op.path, op.version = d.String(), d.Int()
		case proto.OpSetData:
			op.path, op.data, op.version = d.String(), d.Buffer(), d.Int()
		case proto.OpCheck:
			op.path, op.version = d.String(), d.Int()
		default:
			return nil, false
		}
		if d.Err() != nil {
			return nil, false
		}
		ops = append(ops, op)
	}
}

// multiResult is one op's outcome.
type multiResult struct {
	typ  int32
	path string
	stat proto.Stat
	err  int32
}

// multi runs op 14 all-or-nothing (spec §11): ops see earlier ops' effects;
// on the first failure everything is rolled back, no watch fires, and the
// reply (header err 0) carries 0 / code / -2 error results.
func (s *Server) multi(w *writeCtx, xid int32, d *proto.Decoder) {
	ops, ok := decodeMulti(d)
	if !ok {
		w.c.send(headerOnly(xid, w.zxid, proto.ErrMarshalling))
		return
	}
	var undo undoLog
	w.undo = &undo
	results := make([]multiResult, len(ops))
	failed := -1
	for i, op := range ops {
		r := multiResult{typ: op.typ}
		switch op.typ {
		case proto.OpCreate, proto.OpCreateContainer, proto.OpCreateTTL:
			var n *node
			r.path, n, r.err = s.create(w, op.typ, op.path, op.data, op.acl, op.flags, op.ttl)
			if r.err == 0 && op.typ != proto.OpCreate {
				r.typ = proto.OpCreate2
				r.stat = n.stat()
			}
		case proto.OpDelete:
			r.err = s.delete(w, op.path, op.version)
		case proto.OpSetData:
			var n *node
			if n, r.err = s.setData(w, op.path, op.data, op.version); r.err == 0 {
				r.stat = n.stat()
			}
		case proto.OpCheck:
			r.err = s.check(w, op.path, op.version)
		}
		results[i] = r
		if r.err != 0 {
			failed = i
			break
		}
	}
	if failed >= 0 {
		undo.rollback()
		w.fired = nil
	}
	s.commit(w)
	e, off := reply(xid, w.zxid, 0, 128*len(ops))
	for i, r := range results {
		if failed >= 0 {
			code := int32(0)
			switch {
			case i == failed:
				code = r.err
			case i > failed:
				code = proto.ErrRuntimeInconsistency
			}
			e.Int(proto.OpError)
			e.Bool(false)
			e.Int(code)
			e.Int(code)
			continue
		}
		e.Int(r.typ)
		e.Bool(false)
		e.Int(0)
		switch r.typ {
		case proto.OpCreate:
			e.String(r.path)
		case proto.OpCreate2:
			e.String(r.path)
			e.Stat(&r.stat)
		case proto.OpSetData:
			e.Stat(&r.stat)
		}
	}
	e.Int(-1)
	e.Bool(true)
	e.Int(-1)
	e.EndFrame(off)
	w.c.send(e.B)
}
