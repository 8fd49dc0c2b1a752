package peer

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"strings"
	"time"
)

// zkConnectRequest is ZooKeeper's ConnectRequest for a new session
// (protocol version 0, no zxid seen, the shortest session a server
// allows, no session id, an empty password) with readOnly set, so that a
// server in read-only mode answers too.
func zkConnectRequest() []byte {
	var b []byte
	b = binary.BigEndian.AppendUint32(b, 0)    // protocolVersion
	b = binary.BigEndian.AppendUint64(b, 0)    // lastZxidSeen
	b = binary.BigEndian.AppendUint32(b, 4000) // timeOut (ms); the server clamps it
	b = binary.BigEndian.AppendUint64(b, 0)    // sessionId
	b = binary.BigEndian.AppendUint32(b, 16)   // passwd
	b = append(b, make([]byte, 16)...)
	b = append(b, 1) // readOnly
	return append(binary.BigEndian.AppendUint32(nil, uint32(len(b))), b...)
}

// zkCloseSession is the closeSession request (xid 1, opcode -11).
var zkCloseSession = []byte{0, 0, 0, 8, 0, 0, 0, 1, 0xff, 0xff, 0xff, 0xf5}

// askZooKeeper sends a session request; a ZooKeeper server answers with
// its ConnectResponse. The session it opened is closed at once.
func askZooKeeper(ctx context.Context, addr string, wait time.Duration) Peer {
	p := Peer{Addr: addr, Kind: Closed}
	c, done, err := dial(ctx, addr, nil, wait)
	if err != nil {
		return p
	}
	defer done()
	if send(c, zkConnectRequest(), wait) != nil {
		return p
	}
	if got, _ := receive(ctx, c, wait, nil, frameDone); !isConnectResponse(got) {
		return p
	}
	// The close's reply (or the server closing) ends the session here,
	// not its timeout later.
	if send(c, zkCloseSession, wait) == nil {
		_, _ = receive(ctx, c, wait, nil, frameDone)
	}
	p.Kind, p.Evidence = ZooKeeper, "it answered a ZooKeeper session request"
	return p
}

// isConnectResponse reports ZooKeeper's ConnectResponse: protocol version
// 0, a session id other than 0, a password of 16 bytes, and perhaps the
// read-only flag.
func isConnectResponse(b []byte) bool {
	if !frameDone(b) {
		return false
	}
	n := int(binary.BigEndian.Uint32(b))
	if n != 36 && n != 37 {
		return false
	}
	f := b[4 : 4+n]
	return binary.BigEndian.Uint32(f) == 0 && binary.BigEndian.Uint64(f[8:]) != 0 && binary.BigEndian.Uint32(f[16:]) == 16
}

// askSrvr sends the four-letter word srvr. A ZooKeeper server answers it
// with its version, or says it is not serving (no quorum), or that srvr
// is not on its 4lw.commands.whitelist: each names a ZooKeeper server.
func askSrvr(ctx context.Context, addr string, wait time.Duration) Peer {
	p := Peer{Addr: addr, Kind: Closed}
	got, _, err := exchange(ctx, addr, nil, wait, []byte("srvr"), nil, func([]byte) bool { return false })
	if err != nil {
		return p
	}
	text := string(got)
	for _, sign := range []string{"Zookeeper version:", "not currently serving requests", "is not executed because it is not in the whitelist"} {
		if strings.Contains(text, sign) {
			line, _, _ := bytes.Cut(got, []byte("\n"))
			p.Kind, p.Evidence = ZooKeeper, fmt.Sprintf("it answered the four-letter word srvr: %q", strings.TrimSpace(string(line)))
			return p
		}
	}
	return p
}
