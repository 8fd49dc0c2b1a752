package cluster

import "github.com/go-zookeeper/zk"

// NodeEventType says what happened to a znode.
type NodeEventType uint8

// Node event types.
const (
	NodeCreated NodeEventType = iota + 1
	NodeChanged
	NodeDeleted
)

// String returns "created", "changed" or "deleted".
func (t NodeEventType) String() string {
	switch t {
	case NodeCreated:
		return "created"
	case NodeChanged:
		return "changed"
	case NodeDeleted:
		return "deleted"
	}
	return "unknown"
}

// Stat is ZooKeeper's znode stat (go-zookeeper's type). The model reads
// Czxid, Mzxid, Ctime, Mtime and Version.
type Stat = zk.Stat

// NodeEvent is one znode event as the ZooKeeper mirror reports it. Path is
// relative to the chroot. For NodeDeleted, Data and Stat may be empty.
type NodeEvent struct {
	Type NodeEventType
	Path string
	Data []byte
	Stat Stat
	// Denied is what of the znode ZooKeeper's ACL keeps from this session
	// (its data: Data is then nil; its children: they are unknown).
	Denied Access
	// Value, when set, is the node's data already decoded, as DecodeZNode
	// would return it (a pointer: *TopicAssignment, *PartitionState): a
	// source that holds the values rather than bytes (the Kafka-protocol
	// poller) sends them so, and the model takes them as they are instead
	// of decoding Data, which is then nil. ZooKeeper's nodes come as bytes.
	Value any
}

// decodedAs is ev's data as T: the source's value when it sent one
// (NodeEvent.Value), else decode of its bytes.
func decodedAs[T any](ev *NodeEvent, decode func([]byte) (T, error)) (T, error) {
	if v, ok := ev.Value.(*T); ok && v != nil {
		return *v, nil
	}
	return decode(ev.Data)
}

// Access says what of a znode the session may not read (ZooKeeper answered
// NoAuth): the model and the views show it as "no access", never as
// missing or empty.
type Access uint8

// Access bits.
const (
	NoData     Access = 1 << iota // its data
	NoChildren                    // its children
)

// String is "readable", else "no access to " and What.
func (a Access) String() string {
	if a == 0 {
		return "readable"
	}
	return "no access to " + a.What()
}

// What names what may not be read: "its data", "its children" or "its
// data or its children".
func (a Access) What() string {
	switch a {
	case NoData:
		return "its data"
	case NoChildren:
		return "its children"
	}
	return "its data or its children"
}
