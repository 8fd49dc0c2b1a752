package zkwatch

import "github.com/go-zookeeper/zk"

// State is the connection state as a user sees it.
//
// go-zookeeper reports zk.StateConnected when the TCP connection is up but
// before the session handshake; that is still StateConnecting here, and
// StateConnected means requests can flow (zk.StateHasSession).
type State int

// Connection states, in the order a fresh connection passes through them.
const (
	// StateDisconnected: no connection to any server. go-zookeeper keeps
	// retrying; the session (and its watches) survive if a server is reached
	// within the session timeout.
	StateDisconnected State = iota
	// StateConnecting: dialling a server or waiting for the session handshake.
	StateConnecting
	// StateConnected: a session is established.
	StateConnected
	// StateExpired: the server expired the session. Its ephemeral nodes and
	// watches are gone; go-zookeeper creates a new session next.
	StateExpired
	// StateUnresponsive: the session is there, but its server has not
	// answered what it was sent for a while (MirrorOptions.StallAfter):
	// nothing it reported since may have reached the client. Only a
	// Mirror reports it (go-zookeeper notices a stall only when its
	// receive timeout, 2/3 of the session timeout, drops the connection);
	// StateConnected follows when the server answers again.
	StateUnresponsive
)

// String names the state for a status line.
func (s State) String() string {
	switch s {
	case StateDisconnected:
		return "disconnected"
	case StateConnecting:
		return "connecting"
	case StateConnected:
		return "connected"
	case StateExpired:
		return "session expired"
	case StateUnresponsive:
		return "unresponsive"
	}
	return "unknown"
}

// StateOf maps a go-zookeeper session state onto State. The second result
// is false for states ktopo never sees (auth failed, read-only, SASL).
func StateOf(s zk.State) (State, bool) {
	switch s {
	case zk.StateDisconnected:
		return StateDisconnected, true
	case zk.StateConnecting, zk.StateConnected:
		return StateConnecting, true
	case zk.StateHasSession, zk.StateSyncConnected:
		return StateConnected, true
	case zk.StateExpired:
		return StateExpired, true
	}
	return StateDisconnected, false
}
