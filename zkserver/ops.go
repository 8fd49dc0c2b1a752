package zkserver

import (
	"github.com/ktopo/ktopo/zkserver/internal/proto"
)

// headerOnly encodes a body-less reply, for the last frame of a connection
// (others use conn.sendHeader).
func headerOnly(xid int32, zxid int64, err int32) []byte {
	e := proto.Encoder{B: make([]byte, 0, 20)}
	off := e.BeginFrame()
	e.Int(xid)
	e.Long(zxid)
	e.Int(err)
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
		c.sendHeader(proto.XidPing, s.zxid.Load(), 0)
	case proto.OpAuth:
		return s.authPacket(c, xid, body)
	case proto.OpSASL:
		// No SASL here; 3.8 without SASL answers an empty token this way.
		e, off := c.reply(xid, 0, 0, 4)
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
		c.sendHeader(xid, 0, proto.ErrMarshalling)
	case scheme == "digest":
		id := digestID(string(cred))
		if s.cfg.SuperDigest != "" && id == s.cfg.SuperDigest {
			c.addAuth("super", "")
		}
		c.addAuth("digest", id)
		c.sendHeader(xid, 0, 0)
	case scheme == "ip":
		c.addAuth("ip", c.ip)
		c.sendHeader(xid, 0, 0)
	default:
		s.logf("connection %s: auth scheme %q not supported, closing", c.nc.RemoteAddr(), scheme)
		c.sendAndClose(headerOnly(xid, 0, proto.ErrAuthFailed))
		return false
	}
	return true
}
