package zkwatch

import (
	"time"

	"github.com/go-zookeeper/zk"
)

// Shape says which znodes a Mirror keeps. Paths are chroot-relative.
type Shape struct {
	// Lists are containers whose children are listed with a child watch.
	// The containers themselves are not in the mirror (unless also in Reads).
	Lists []List
	// Reads are single nodes read with a data watch; while one is absent an
	// exist watch waits for its creation.
	Reads []string
	// Derive, if set, is called with every node's data when it is read or
	// changes (and never for absent nodes). It returns the paths of further
	// nodes to read and watch because of that data, like Reads; when the
	// data changes the set is recomputed, and paths no longer named by any
	// node are forgotten (Deleted events). It runs on the mirror's loop: it
	// must be quick, must not block and must not keep data.
	Derive func(path string, data []byte) []string
}

// List is a container of a Shape.
type List struct {
	Path string
	// ReadChildren also reads each child's data with a data watch. Without
	// it children appear as nodes with nil Data and nil Stat.
	ReadChildren bool
	// First reads its children before other nodes during a load delivered
	// as it goes (MirrorOptions.Progress), like derived nodes.
	First bool
}

// EventType says what happened to a node since the previous batch.
type EventType int

// Event types.
const (
	// Created: the node is new to the consumer (or was deleted and
	// re-created since the previous batch; its czxid differs).
	Created EventType = iota + 1
	// Changed: the node's data or stat changed.
	Changed
	// Deleted: the node is gone from the mirror (deleted in ZooKeeper, or
	// no longer named by the Shape).
	Deleted
)

// String names the event type.
func (t EventType) String() string {
	switch t {
	case Created:
		return "created"
	case Changed:
		return "changed"
	case Deleted:
		return "deleted"
	}
	return "unknown"
}

// Access says what of a node the session may not read: ZooKeeper answered
// NoAuth (its ACL grants this session no READ). Such a node is in the
// mirror, never shown as missing or empty: its Data is nil, its Stat the
// one exists gave (nil when the server refuses that too: ZooKeeper
// 3.8.4+ and 3.9.2+ check READ for exists, ZOOKEEPER-2590).
type Access uint8

// Access bits.
const (
	// NoData: its data could not be read.
	NoData Access = 1 << iota
	// NoChildren: its children could not be listed (a List container or a
	// node of an opened subtree); they are unknown, not absent.
	NoChildren
)

// Event is the latest state of one node. Data and Stat are shared with the
// mirror and must not be modified. They are nil for Deleted events and for
// the children of a List without ReadChildren. A node created with no data
// has nil Data, one created with empty data a non-nil empty slice.
type Event struct {
	Type EventType
	Path string // chroot-relative
	Data []byte
	Stat *zk.Stat
	// Denied is what of the node this session may not read (0: all is
	// readable).
	Denied Access
}

// Batch is what a Mirror emits: node events coalesced per path (at most one
// per path), and the connection states entered since the previous batch.
type Batch struct {
	// Reset means: replace everything with Events (all Created). The first
	// batch with events is a reset, and so is the first after every session
	// expiry. Batches before the first reset carry only States.
	Reset bool
	// Events in unspecified order.
	Events []Event
	// Partial (MirrorOptions.Progress only) means: the first load is under
	// way and Events are what it read since the previous batch (plus
	// changes to what was already delivered), to be applied like any
	// batch; nodes not read yet are missing, not absent. The load ends with
	// Loaded batch, or with a Reset where the consumer's picture could be
	// stale (see Loaded).
	Partial bool
	// Loaded (MirrorOptions.Progress only) ends a first load delivered in
	// Partial batches: with its Events (read since the previous batch,
	// plus changes) the consumer holds the whole tree, as a Reset would
	// have given it, without the Reset's copy of every node. A load that
	// follows Partial batches of an earlier one (its session expired)
	// ends with a Reset instead.
	Loaded bool
	// Progress is the load's progress on Partial batches and on the
	// Loaded or Reset batch that ends it (zero otherwise).
	Progress Progress
	// States entered since the previous batch, oldest first (consecutive
	// repeats collapsed, at most the last 16). The first batch starts with
	// the state the mirror started in.
	States []State
}

// Progress counts the reads of a load: Done of the Known ones. Known grows
// while the load goes on, as listings and Derive name more nodes, so
// Done/Known is a lower bound of nothing: it says what was read out of
// what is known to be there so far.
type Progress struct {
	Done, Known int
}

// Node is a mirrored node's data and stat (nil for names-only children).
type Node struct {
	Data   []byte
	Stat   *zk.Stat
	Denied Access // what this session may not read (see Access)
}

// Stats describe a Mirror.
type Stats struct {
	Nodes    int           // nodes in the mirror (what Tree returns)
	Tracked  int           // paths followed, including absent ones and list containers
	Watches  int           // watches the mirror holds (data, child and exist)
	Bytes    int64         // data bytes held
	Loading  bool          // a (re)load is in progress
	Loads    int           // completed loads (the first, plus one per session expiry)
	LoadTime time.Duration // duration of the last completed load
	Requests int64         // requests issued (reads, lists, exists)
	Retries  int64         // requests re-issued after a connection loss
	Errors   int64         // requests that failed for another reason; logged
	Denied   int64         // reads ZooKeeper refused for want of READ (NoAuth); the nodes are marked (Access)
	// LastHeard is when the server last sent anything within a session:
	// what the mirror holds was current as of then (Conn.LastHeard).
	LastHeard time.Time
}

// DefaultStallAfter is MirrorOptions.StallAfter's default: well above a
// round trip, well below go-zookeeper's receive timeout (12 s with Kafka's
// 18 s session timeout).
const DefaultStallAfter = 3 * time.Second

// MirrorOptions tune a Mirror. The zero value is usable.
type MirrorOptions struct {
	// Concurrency is the number of requests in flight on the connection
	// (default 128; go-zookeeper pipelines them on its one socket).
	Concurrency int
	// FlushInterval is how long events are coalesced before a batch is cut
	// (default 50 ms).
	FlushInterval time.Duration
	// FlushEvents cuts a batch early once this many paths have pending
	// events (default 512). It is not a cap: a batch can be larger when the
	// consumer is slow, since events keep merging until it receives.
	FlushEvents int
	// StallAfter is how long the server may leave what it was sent
	// unanswered before the mirror reports StateUnresponsive (default
	// DefaultStallAfter; negative: never). A healthy server answers every
	// request and ping within a round trip.
	StallAfter time.Duration
	// Once reads the tree without setting watches: the first batch is
	// complete and none follows unless the session is lost. One-shot
	// readers (ktopo topics describe) save the server and the client a
	// watch per znode (about a quarter of the memory of a first load).
	Once bool
	// Progress delivers the first load as it goes: Partial batches (at
	// most one per two FlushIntervals) with what was read so far and the
	// load's Progress, before the Reset. Without it nothing but States
	// comes before the Reset.
	Progress bool

	// retryTicks replaces the half-second ticker that re-sends requests
	// failed by a lost connection (tests tick it themselves).
	retryTicks <-chan time.Time
}
