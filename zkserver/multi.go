package zkserver

import (
	"github.com/ktopo/ktopo/zkserver/internal/proto"
)

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
	var acls aclCache // the ops of a multi usually share one ACL
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
			op.path, op.data, op.acl, op.flags = d.String(), d.Buffer(), acls.decode(d), d.Int()
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
		w.c.sendHeader(xid, w.zxid, proto.ErrMarshalling)
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
		w.txn = nil
	}
	s.commit(w)
	e, off := w.c.reply(xid, w.zxid, 0, 128*len(ops))
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
