package cluster

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

// Stat is a znode's stat as ZooKeeper's protocol has it (the
// Kafka-protocol source synthesizes one for its nodes). The model reads
// Czxid, Mzxid, Ctime, Mtime, Version and EphemeralOwner; the ZooKeeper
// tree shows them all. Its fields are go-zookeeper's Stat's, in its order,
// so that a ZooKeeper client's stat converts to it as it is, even by
// pointer ((*cluster.Stat)(st)), without this package depending on one.
type Stat struct {
	Czxid          int64 // the zxid of the write that created the znode
	Mzxid          int64 // the zxid of its last data write
	Ctime          int64 // when it was created (ms since the epoch)
	Mtime          int64 // when its data was last written (ms since the epoch)
	Version        int32 // how many times its data was written
	Cversion       int32 // how many times its children changed
	Aversion       int32 // how many times its ACL changed
	EphemeralOwner int64 // the session that owns an ephemeral znode, else 0
	DataLength     int32 // the length of its data
	NumChildren    int32 // how many children it has
	Pzxid          int64 // the zxid of its children's last change
}

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
