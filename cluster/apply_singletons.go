package cluster

// singleNode is the model's copy of a znode that stands alone at a fixed
// path (/controller, /controller_epoch, /cluster/id, the admin requests):
// its decoded value, its decode error, and the stat fields the snapshot
// shows.
type singleNode[T any] struct {
	present bool
	v       T
	err     error
	czxid   int64
	mzxid   int64
	ctime   int64
	mtime   int64
	version int32
	// ephemeral: the znode has an owner session (/controller of a
	// ZooKeeper controller; a KRaft controller's is persistent).
	ephemeral bool
}

// apply records an event of the node. A re-reported node with the same
// mzxid is not decoded again; a deleted one goes back to the zero value.
// decode runs before the node is overwritten, so it may read the old
// value (to keep the last good one, say).
func (n *singleNode[T]) apply(m *Model, ev *NodeEvent, del bool, decode func([]byte) (T, error)) {
	if del {
		if n.present {
			*n = singleNode[T]{}
			m.clearErr(ev.Path)
			m.changed = true
		}
		return
	}
	if unchanged(n.present, n.mzxid, ev) {
		return
	}
	v, err := decode(ev.Data)
	m.noteErr(ev.Path, err, ev)
	*n = singleNode[T]{present: true, v: v, err: err,
		czxid: ev.Stat.Czxid, mzxid: ev.Stat.Mzxid, ctime: ev.Stat.Ctime, mtime: ev.Stat.Mtime, version: ev.Stat.Version,
		ephemeral: ev.Stat.EphemeralOwner != 0}
	m.changed = true
}

func (m *Model) applyController(_ PathInfo, ev *NodeEvent, del bool) {
	m.ctrl.apply(m, ev, del, DecodeController)
}

func (m *Model) applyControllerEpoch(_ PathInfo, ev *NodeEvent, del bool) {
	m.ctrlEpoch.apply(m, ev, del, func(data []byte) (int, error) {
		e, err := DecodeControllerEpoch(data)
		if err != nil {
			e = m.ctrlEpoch.v // keep the last good value for fencing displays
		}
		return e, err
	})
}

func (m *Model) applyMigration(_ PathInfo, ev *NodeEvent, del bool) {
	m.migration.apply(m, ev, del, DecodeMigration)
}

func (m *Model) applyClusterID(_ PathInfo, ev *NodeEvent, del bool) {
	m.clusterID.apply(m, ev, del, DecodeClusterID)
}

func (m *Model) applyReassign(_ PathInfo, ev *NodeEvent, del bool) {
	m.reassign.apply(m, ev, del, func(data []byte) (*ReassignPartitions, error) {
		r, err := DecodeReassignPartitions(data)
		return &r, err
	})
}

func (m *Model) applyPreferred(_ PathInfo, ev *NodeEvent, del bool) {
	m.preferred.apply(m, ev, del, func(data []byte) (*PartitionsNotification, error) {
		p, err := DecodePreferredReplicaElection(data)
		return &p, err
	})
}

// controllerInfo is /controller's content; without the node, Kafka's
// "no controller" (broker id -1).
func (m *Model) controllerInfo() ControllerInfo {
	if !m.ctrl.present {
		return ControllerInfo{BrokerID: -1, KRaftControllerEpoch: -1}
	}
	return m.ctrl.v
}

func (m *Model) controllerID() int {
	if !m.ctrl.present || m.ctrl.err != nil {
		return -1
	}
	return m.ctrl.v.BrokerID
}

// applyChild tracks the children of a notification container by path
// alone (their data is not read).
func (m *Model) applyChild(set map[string]bool, path string, del bool) {
	if set[path] == !del {
		return
	}
	if del {
		delete(set, path)
	} else {
		set[path] = true
	}
	m.changed = true
}
