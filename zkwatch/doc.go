// Package zkwatch connects to ZooKeeper and keeps live in-memory mirrors of
// chosen subtrees. It knows nothing about Kafka.
//
// # Conn
//
// Connect parses a connect string "host:port[,host:port…][/chroot]" and
// opens a go-zookeeper session. Conn adds what go-zookeeper lacks:
//
//   - the chroot: every request path is prefixed with it and every returned
//     path (Create and Multi results, watch events) has it stripped;
//   - a deadline on every request (go-zookeeper has none: a server that
//     stops answering would hang a call until the connection drops), and on
//     Connect, which fails fast when every server refuses the connection;
//   - errors that name the server and the request for connection problems
//     (*OpError), while server answers (zk.ErrNoNode, …) come back unwrapped
//     exactly as from *zk.Conn;
//   - no request without a session: go-zookeeper would queue it and send it
//     once a server is back, maybe after the caller gave up on it; Conn
//     refuses it at once (*NoSessionError: what each server did, nothing
//     sent), and a request that missed its deadline keeps its own result
//     (OpError.Outcome), so that a write whose reply was lost can be found
//     out;
//   - digest authentication, TLS to a secureClientPort with client
//     certificates (TLSFiles; a handshake that fails says why: wrong CA,
//     refused or missing client certificate, a plaintext port), the
//     session's ids (Identities), go-zookeeper's log sent to a Logger
//     instead of stderr, and a ReadOnly switch that refuses every write;
//   - a write refused for want of permission comes back as an
//     *AccessError naming the ACL that refused it and the credentials that
//     would do.
//
// Its request methods have *zk.Conn's signatures, so an interface declared
// by a consumer (Get, Children, Exists, Create, Set, Delete, Multi, …) is
// satisfied by both. Listen delivers session state changes and watch events.
//
// # Mirror
//
// NewMirror follows the nodes a Shape names: containers whose children are
// listed (and optionally read), single nodes, and nodes that follow from a
// node's data (Shape.Derive, e.g. a Kafka topic's partition states from its
// assignment). The first load is pipelined over the one connection; every
// read sets its watch in the same request; every fired watch leads to a
// re-read that re-arms it. Node events are coalesced per path into
// Batches, cut every 50 ms or 512 paths, and handed to the consumer one
// receive at a time; while the consumer is busy events keep merging. The
// first batch with events is a Reset carrying every node; after a session
// expiry the mirror reloads and sends another Reset. With
// MirrorOptions.Progress (the TUI's) the first load also arrives as it goes:
// Partial batches, cut every two flush intervals, with what was read so far
// and the load's Progress (reads done of those known so far), derived nodes
// read first so that a node and what it names come together; the Reset
// still ends the load. Disconnections shorter
// than the session timeout (a server or the leader of an ensemble dying, a
// lost quorum regained) are resumed without a reload: the session and its
// watches survive, and only what changed meanwhile is read again. A server
// that leaves requests unanswered while the connection stays up is reported
// as StateUnresponsive (MirrorOptions.StallAfter).
//
// A mirrored node's Stat is as of its last read. Its child fields
// (Cversion, NumChildren, Pzxid) change without a data watch firing, so for
// nodes that are not also listed they can lag behind the server until the
// node's data next changes.
//
// A node the session may not read (NoAuth) stays in the mirror, marked
// (Event.Denied, Node.Denied: NoData, NoChildren), never missing or empty.
//
// OpenSubtree/CloseSubtree add a whole subtree (every node read and listed)
// for as long as a screen shows it.
package zkwatch
