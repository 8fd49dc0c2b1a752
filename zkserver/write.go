package zkserver

import (
	"bytes"
	"fmt"
	"strings"
	"time"

	"github.com/ktopo/ktopo/zkserver/internal/proto"
)

// writeCtx carries one transaction's state through its ops.
type writeCtx struct {
	c     *conn
	zxid  int64
	now   int64 // wall clock ms
	undo  *undoLog
	fired []trigger // watch triggers, run only once the transaction stands
	txn   []txnOp   // effects for the transaction log (only with a log)
	log   bool
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
	w := &writeCtx{c: c, zxid: s.zxid.Add(1), now: time.Now().UnixMilli(), log: s.log != nil}
	if w.log {
		// One record per zxid, failed writes included (no ops), so the
		// restarted server's zxid is never below one a client has seen.
		defer func() { s.logOps(w.zxid, w.now, w.txn) }()
	}
	d := proto.NewDecoder(body)
	fail := func(code int32) { c.sendHeader(xid, w.zxid, code) }
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
		e, off := c.reply(xid, w.zxid, 0, 72+len(actual))
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
		c.sendHeader(xid, w.zxid, 0)

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
		e, off := c.reply(xid, w.zxid, 0, 68)
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
		e, off := c.reply(xid, w.zxid, 0, 68)
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
	if w.log {
		w.txn = append(w.txn, txnOp{typ: txCreate, path: path, data: n.data, acl: n.acl.acl, owner: n.owner})
	}
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
	if w.log {
		w.txn = append(w.txn, txnOp{typ: txDelete, path: path})
	}
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
	if w.log {
		w.txn = append(w.txn, txnOp{typ: txSetData, path: path, data: n.data})
	}
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
	if w.log {
		w.txn = append(w.txn, txnOp{typ: txSetACL, path: path, acl: n.acl.acl})
	}
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
