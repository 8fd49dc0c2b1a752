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
}
