package cluster

import (
	"maps"
	"slices"
	"strings"

	"github.com/go-zookeeper/zk"
)

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

// ModelOptions configure a Model.
type ModelOptions struct {
	// DefaultMinISR is the min.insync.replicas of topics without an
	// override (the brokers' setting); 0 means Kafka's default, 1.
	DefaultMinISR int
	// NoChanges makes Apply record no changes (it returns nil): for
	// one-shot readers that only want the snapshot. A first load's
	// changes (one per znode) are a fifth of its memory.
	NoChanges bool
}

// Model is the live Kafka picture built from ZooKeeper node events. It is
// not safe for concurrent use: one goroutine applies batches and takes
// snapshots; the snapshots themselves are immutable and may be shared.
//
// Cost model: Apply is O(events) (plus O(partitions of a topic) when its
// topic znode or config changes); a topic touched since the last Snapshot is
// copied at most once (copy-on-write per topic); Snapshot is O(1) when
// nothing changed, otherwise O(topics) pointer copies + O(brokers), never
// O(partitions).
type Model struct {
	noChanges bool
	defMinISR int
	seq       uint64

	clusterID      string
	clusterIDErr   error
	clusterIDMzxid int64
	hasClusterID   bool

	ctrl      ctrlNode
	ctrlEpoch epochNode

	brokers   map[int]*brokerNode
	lastKnown map[int]BrokerRegistration // last registration of every broker seen

	topics       map[string]*topicState
	replicaCount map[int]int // broker → replicas in assignments
	leaderCount  map[int]int // broker → partitions led
	prefCount    map[int]int // broker → partitions whose preferred leader it is
	prefLed      map[int]int // broker → of those, the ones it leads
	totals       TopicHealth // over all topics, Offline excluded

	reassign        *ReassignPartitions
	reassignMzxid   int64
	preferred       *PartitionsNotification
	preferredMzxid  int64
	isrNotes        map[string]bool
	logDirEvents    map[string]bool
	badNodes        map[string]NodeError
	errorsDirty     bool
	markersDirty    bool
	topicSetChanged bool

	batch   uint64        // number of Apply calls
	pending []*topicState // topics changed since the last Snapshot (unsealed)
	changed bool          // anything changed since the last Snapshot
	snap    *Snapshot     // the last snapshot: current while !changed, else the base of the next
	changes []Change      // the batch being applied
}

type ctrlNode struct {
	present bool
	info    ControllerInfo
	czxid   int64
	mzxid   int64
	ctime   int64
	err     error
}

type epochNode struct {
	present bool
	epoch   int
	version int32
	mzxid   int64
	err     error
}

type brokerNode struct {
	reg   BrokerRegistration
	err   error
	czxid int64
	mzxid int64
	ctime int64
}

type topicState struct {
	t            *Topic
	hasNode      bool   // /brokers/topics/<t> exists
	pending      bool   // in Model.pending
	createdBatch uint64 // Model.batch in which the topic znode appeared
}

// NewModel returns an empty model.
func NewModel(o ModelOptions) *Model {
	if o.DefaultMinISR <= 0 {
		o.DefaultMinISR = 1
	}
	return &Model{
		defMinISR:    o.DefaultMinISR,
		noChanges:    o.NoChanges,
		brokers:      map[int]*brokerNode{},
		lastKnown:    map[int]BrokerRegistration{},
		topics:       map[string]*topicState{},
		replicaCount: map[int]int{},
		leaderCount:  map[int]int{},
		prefCount:    map[int]int{},
		prefLed:      map[int]int{},
		isrNotes:     map[string]bool{},
		logDirEvents: map[string]bool{},
		badNodes:     map[string]NodeError{},
		ctrl:         ctrlNode{info: ControllerInfo{BrokerID: -1, KRaftControllerEpoch: -1}},
	}
}

// Apply applies one batch of node events in order and returns the changes
// they caused, in order. With reset, the batch is a complete picture (the
// mirror's first load, or its rebuild after a session expiry): every node not
// in it is treated as deleted, and the changes describe only the differences
// from the state before the batch (none when nothing differs).
//
// Events are tolerated in any order (a state znode before its topic znode, a
// child's deletion after its parent's) and of any type mismatch (a Changed
// event for an unknown node acts as Created; a Deleted event for an unknown
// node is ignored). A znode that cannot be decoded is recorded (see
// Snapshot.Errors) and yields one znode_invalid change; the batch goes on.
func (m *Model) Apply(events []NodeEvent, reset bool) []Change {
	m.batch++
	// Pre-size the result: a reset batch (the first load: ~one change per
	// node) would otherwise spend most of its time growing the slice.
	switch {
	case m.noChanges:
		m.changes = nil
	case reset:
		m.changes = make([]Change, 0, len(events)+8)
	default:
		m.changes = make([]Change, 0, min(len(events), 64))
	}
	ctrlFrom, epochFrom := m.controllerID(), m.ctrlEpoch.epoch
	var seen *resetSeen
	if reset {
		seen = newResetSeen()
	}
	for i := range events {
		ev := &events[i]
		info := ParsePath(ev.Path)
		del := ev.Type == NodeDeleted
		if seen != nil && !del {
			seen.mark(info, ev.Path)
		}
		m.apply(info, ev, del)
	}
	if seen != nil {
		m.sweep(seen)
	}
	if to, epoch := m.controllerID(), m.ctrlEpoch.epoch; to != ctrlFrom || epoch != epochFrom {
		m.changed = true
		m.emit(Change{Kind: ChangeControllerMoved, Path: ControllerPath,
			Zxid: m.ctrl.mzxid, Time: m.ctrl.ctime, From: ctrlFrom, To: to, Epoch: epoch})
	}
	return m.changes
}

func (m *Model) apply(info PathInfo, ev *NodeEvent, del bool) {
	switch info.Kind {
	case KindBroker:
		m.applyBroker(info.BrokerID, ev, del)
	case KindTopic:
		m.applyTopic(info.Topic, ev, del)
	case KindPartitionState:
		m.applyState(info.Topic, info.Partition, ev, del)
	case KindTopicConfig:
		m.applyConfig(info.Topic, ev, del)
	case KindDeleteTopic:
		m.applyMarker(info.Topic, ev, del)
	case KindController:
		m.applyController(ev, del)
	case KindControllerEpoch:
		m.applyControllerEpoch(ev, del)
	case KindClusterID:
		m.applyClusterID(ev, del)
	case KindReassignPartitions:
		m.applyReassign(ev, del)
	case KindPreferredReplicaElection:
		m.applyPreferred(ev, del)
	case KindIsrChange:
		m.applyChild(m.isrNotes, ev.Path, del)
	case KindLogDirEvent:
		m.applyChild(m.logDirEvents, ev.Path, del)
	}
}

func (m *Model) controllerID() int {
	if !m.ctrl.present || m.ctrl.err != nil {
		return -1
	}
	return m.ctrl.info.BrokerID
}

// unchanged reports that a node we hold is re-reported with the same mzxid,
// which lets reset batches skip decoding (mzxid 0 means "unknown": decode).
func unchanged(have bool, haveMzxid int64, ev *NodeEvent) bool {
	return have && ev.Stat.Mzxid != 0 && haveMzxid == ev.Stat.Mzxid
}

func (m *Model) emit(c Change) {
	if !m.noChanges {
		m.changes = append(m.changes, c)
	}
}

// noteErr records or clears a decode error of path.
func (m *Model) noteErr(path string, err error, ev *NodeEvent) {
	prev, had := m.badNodes[path]
	if err == nil {
		if had {
			delete(m.badNodes, path)
			m.errorsDirty, m.changed = true, true
		}
		return
	}
	m.badNodes[path] = NodeError{Path: path, Err: err}
	m.errorsDirty, m.changed = true, true
	if !had || prev.Err.Error() != err.Error() {
		m.emit(Change{Kind: ChangeZNodeInvalid, Path: path, Zxid: ev.Stat.Mzxid, Time: ev.Stat.Mtime, Error: err.Error()})
	}
}

func (m *Model) clearErr(path string) {
	if _, had := m.badNodes[path]; had {
		delete(m.badNodes, path)
		m.errorsDirty, m.changed = true, true
	}
}

// ---------------------------------------------------------------------------
// brokers, controller, cluster id, admin nodes

func (m *Model) applyBroker(id int, ev *NodeEvent, del bool) {
	old := m.brokers[id]
	if del {
		if old == nil {
			return
		}
		delete(m.brokers, id)
		m.clearErr(ev.Path)
		m.changed = true
		m.emit(Change{Kind: ChangeBrokerGone, Path: ev.Path, Zxid: ev.Stat.Mzxid, Time: ev.Stat.Mtime, Broker: id})
		return
	}
	if old != nil && unchanged(true, old.mzxid, ev) && old.czxid == ev.Stat.Czxid {
		return
	}
	reg, err := DecodeBroker(ev.Data)
	m.noteErr(ev.Path, err, ev)
	nb := &brokerNode{reg: reg, err: err, czxid: ev.Stat.Czxid, mzxid: ev.Stat.Mzxid, ctime: ev.Stat.Ctime}
	if nb.czxid == 0 && old != nil { // stat unknown: same registration
		nb.czxid, nb.ctime = old.czxid, old.ctime
	}
	m.brokers[id] = nb
	if err == nil || reg.RackPresence != Absent || len(reg.Endpoints) > 0 {
		m.lastKnown[id] = reg
	}
	m.changed = true
	c := Change{Path: ev.Path, Zxid: ev.Stat.Mzxid, Time: ev.Stat.Mtime, Broker: id}
	switch {
	case old == nil || old.czxid != nb.czxid:
		c.Kind, c.BrokerEpoch, c.Rack = ChangeBrokerRegistered, nb.czxid, reg.Rack
	case string(EncodeBroker(old.reg)) != string(EncodeBroker(reg)) || (old.err == nil) != (err == nil):
		c.Kind = ChangeBrokerUpdated
	default:
		return
	}
	m.emit(c)
}

func (m *Model) applyController(ev *NodeEvent, del bool) {
	if del {
		if m.ctrl.present {
			m.ctrl = ctrlNode{info: ControllerInfo{BrokerID: -1, KRaftControllerEpoch: -1}}
			m.clearErr(ev.Path)
			m.changed = true
		}
		return
	}
	if unchanged(m.ctrl.present, m.ctrl.mzxid, ev) {
		return
	}
	info, err := DecodeController(ev.Data)
	m.noteErr(ev.Path, err, ev)
	m.ctrl = ctrlNode{present: true, info: info, czxid: ev.Stat.Czxid, mzxid: ev.Stat.Mzxid, ctime: ev.Stat.Ctime, err: err}
	m.changed = true
}

func (m *Model) applyControllerEpoch(ev *NodeEvent, del bool) {
	if del {
		if m.ctrlEpoch.present {
			m.ctrlEpoch = epochNode{}
			m.clearErr(ev.Path)
			m.changed = true
		}
		return
	}
	if unchanged(m.ctrlEpoch.present, m.ctrlEpoch.mzxid, ev) {
		return
	}
	e, err := DecodeControllerEpoch(ev.Data)
	m.noteErr(ev.Path, err, ev)
	if err != nil {
		e = m.ctrlEpoch.epoch // keep the last good value for fencing displays
	}
	m.ctrlEpoch = epochNode{present: true, epoch: e, version: ev.Stat.Version, mzxid: ev.Stat.Mzxid, err: err}
	m.changed = true
}

func (m *Model) applyClusterID(ev *NodeEvent, del bool) {
	if del {
		if m.hasClusterID {
			m.clusterID, m.clusterIDErr, m.hasClusterID, m.clusterIDMzxid = "", nil, false, 0
			m.clearErr(ev.Path)
			m.changed = true
		}
		return
	}
	if unchanged(m.hasClusterID, m.clusterIDMzxid, ev) {
		return
	}
	c, err := DecodeClusterID(ev.Data)
	m.noteErr(ev.Path, err, ev)
	m.clusterID, m.clusterIDErr, m.hasClusterID, m.clusterIDMzxid = c.ID, err, true, ev.Stat.Mzxid
	m.changed = true
}

func (m *Model) applyReassign(ev *NodeEvent, del bool) {
	if del {
		if m.reassign != nil {
			m.reassign, m.reassignMzxid = nil, 0
			m.clearErr(ev.Path)
			m.changed = true
		}
		return
	}
	if unchanged(m.reassign != nil, m.reassignMzxid, ev) {
		return
	}
	r, err := DecodeReassignPartitions(ev.Data)
	m.noteErr(ev.Path, err, ev)
	m.reassign, m.reassignMzxid = &r, ev.Stat.Mzxid
	m.changed = true
}

func (m *Model) applyPreferred(ev *NodeEvent, del bool) {
	if del {
		if m.preferred != nil {
			m.preferred, m.preferredMzxid = nil, 0
			m.clearErr(ev.Path)
			m.changed = true
		}
		return
	}
	if unchanged(m.preferred != nil, m.preferredMzxid, ev) {
		return
	}
	p, err := DecodePreferredReplicaElection(ev.Data)
	m.noteErr(ev.Path, err, ev)
	m.preferred, m.preferredMzxid = &p, ev.Stat.Mzxid
	m.changed = true
}

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

// ---------------------------------------------------------------------------
// topics

func (m *Model) topicState(name string, create bool) *topicState {
	ts := m.topics[name]
	if ts == nil && create {
		ts = &topicState{t: &Topic{Name: name, MinISR: m.defMinISR}}
		m.topics[name] = ts
	}
	return ts
}

// mutable returns ts's topic ready to be changed: copied if a snapshot may
// reference it, and queued for the next snapshot.
func (m *Model) mutable(ts *topicState) *Topic {
	if ts.t.sealed {
		c := *ts.t
		c.Partitions = slices.Clone(ts.t.Partitions)
		c.sealed = false
		ts.t = &c
	}
	if !ts.pending {
		ts.pending = true
		m.pending = append(m.pending, ts)
	}
	m.changed = true
	return ts.t
}

// dropIfEmpty forgets a topic that has no znode of any kind left.
func (m *Model) dropIfEmpty(ts *topicState) {
	t := ts.t
	if !ts.hasNode && !t.HasConfig && !t.MarkedForDeletion && len(t.Partitions) == 0 {
		delete(m.topics, t.Name)
	}
}

// account adds (sign +1) or removes (-1) a partition's contribution to the
// topic's counts and, when global (the topic znode exists, so the topic is
// in snapshots), to the cluster's counts and the per-broker counts.
func (m *Model) account(t *Topic, p *Partition, sign int, global bool) {
	h := partitionHealth(p, t.MinISR)
	t.Health.add(h, sign)
	if !global {
		return
	}
	m.totals.add(h, sign)
	for _, r := range p.Replicas {
		bump(m.replicaCount, r, sign)
	}
	if p.HasLeader() {
		bump(m.leaderCount, p.Leader, sign)
	}
	m.accountPreferred(p, sign)
}

// accountPreferred counts p for its preferred leader (first replica of an
// assigned partition), and whether that broker leads it.
func (m *Model) accountPreferred(p *Partition, sign int) {
	if pl := p.PreferredLeader(); pl >= 0 && p.InAssignment {
		bump(m.prefCount, pl, sign)
		if p.HasLeader() && p.Leader == pl {
			bump(m.prefLed, pl, sign)
		}
	}
}

// accountDiff replaces old's contribution by nw's, skipping replica
// bookkeeping when the replica list is the same slice.
func (m *Model) accountDiff(t *Topic, old, nw *Partition, global bool) {
	hOld, hNew := partitionHealth(old, t.MinISR), partitionHealth(nw, t.MinISR)
	t.Health.add(hOld, -1)
	t.Health.add(hNew, 1)
	if !global {
		return
	}
	m.totals.add(hOld, -1)
	m.totals.add(hNew, 1)
	if !sameSlice(old.Replicas, nw.Replicas) {
		for _, r := range old.Replicas {
			bump(m.replicaCount, r, -1)
		}
		for _, r := range nw.Replicas {
			bump(m.replicaCount, r, 1)
		}
	}
	ol, nl := -1, -1
	if old.HasLeader() {
		ol = old.Leader
	}
	if nw.HasLeader() {
		nl = nw.Leader
	}
	if ol != nl {
		if ol >= 0 {
			bump(m.leaderCount, ol, -1)
		}
		if nl >= 0 {
			bump(m.leaderCount, nl, 1)
		}
	}
	m.accountPreferred(old, -1)
	m.accountPreferred(nw, 1)
}

func bump(c map[int]int, k, d int) {
	if v := c[k] + d; v == 0 {
		delete(c, k)
	} else {
		c[k] = v
	}
}

func sameSlice(a, b []int) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

func (m *Model) applyTopic(name string, ev *NodeEvent, del bool) {
	ts := m.topicState(name, !del)
	if ts == nil {
		return
	}
	if del {
		if !ts.hasNode {
			return
		}
		t := m.mutable(ts)
		for _, p := range t.Partitions {
			m.account(t, p, -1, true)
			if p.StateErr != nil {
				m.clearErr(PartitionStatePath(name, p.ID))
			}
		}
		// The state znodes are descendants of the topic znode: they are gone too.
		t.Partitions = nil
		t.Health = TopicHealth{}
		t.ID, t.Version, t.Err = "", 0, nil
		t.Czxid, t.Mzxid, t.Ctime, t.Mtime, t.ZkVersion = 0, 0, 0, 0, 0
		ts.hasNode = false
		m.topicSetChanged = true
		m.clearErr(ev.Path)
		m.emit(Change{Kind: ChangeTopicDeleted, Path: ev.Path, Zxid: ev.Stat.Mzxid, Time: ev.Stat.Mtime, Topic: name})
		m.dropIfEmpty(ts)
		return
	}
	if unchanged(ts.hasNode, ts.t.Mzxid, ev) && ts.t.Czxid == ev.Stat.Czxid {
		return
	}
	a, err := DecodeTopicAssignment(ev.Data)
	m.noteErr(ev.Path, err, ev)
	// Partitions known by state only were not counted globally before the
	// topic znode existed.
	wasVisible := ts.hasNode
	// A new czxid means the topic was deleted and created again meanwhile
	// (seen in reset batches); its state znodes arrive as their own events.
	recreated := wasVisible && ev.Stat.Czxid != 0 && ts.t.Czxid != 0 && ev.Stat.Czxid != ts.t.Czxid
	if recreated {
		m.emit(Change{Kind: ChangeTopicDeleted, Path: ev.Path, Topic: name})
		// States older than the new topic znode belong to the old topic.
		for i := len(ts.t.Partitions) - 1; i >= 0; i-- {
			if p := ts.t.Partitions[i]; p.HasState && p.StateMzxid != 0 && p.StateMzxid < ev.Stat.Czxid {
				m.applyState(name, p.ID, &NodeEvent{Type: NodeDeleted, Path: PartitionStatePath(name, p.ID)}, true)
			}
		}
	}
	created := !wasVisible || recreated
	// After an unreadable assignment there is nothing to compare with.
	compare := !created && ts.t.Err == nil
	t := m.mutable(ts)
	ts.hasNode = true
	t.ID, t.Version, t.Err = a.TopicID, a.Version, err
	t.Czxid, t.Mzxid, t.Ctime, t.Mtime, t.ZkVersion = ev.Stat.Czxid, ev.Stat.Mzxid, ev.Stat.Ctime, ev.Stat.Mtime, ev.Stat.Version

	// New partition list: the assignment plus partitions known only by state.
	ids := make([]int, 0, len(a.Partitions)+len(t.Partitions))
	for p := range a.Partitions {
		ids = append(ids, p)
	}
	for _, p := range t.Partitions {
		if _, ok := a.Partitions[p.ID]; !ok && p.HasState {
			ids = append(ids, p.ID)
		}
	}
	slices.Sort(ids)
	old := t.Partitions
	parts := make([]*Partition, len(ids))
	var added []int
	j := 0
	for i, id := range ids {
		for j < len(old) && old[j].ID < id {
			j++
		}
		hadPrev := j < len(old) && old[j].ID == id
		prev := &Partition{ID: id, Leader: NoLeader}
		if hadPrev {
			prev = old[j]
		}
		np := *prev
		if r, ok := a.Partitions[id]; ok {
			np.InAssignment = true
			if !slices.Equal(prev.Replicas, r) || !prev.InAssignment {
				np.Replicas = r
			}
			np.Adding, np.Removing = a.AddingReplicas[id], a.RemovingReplicas[id]
		} else {
			np.InAssignment, np.Replicas, np.Adding, np.Removing = false, nil, nil, nil
		}
		// Partitions are immutable once built: keep sharing an unchanged one.
		if hadPrev && np.InAssignment == prev.InAssignment && slices.Equal(np.Replicas, prev.Replicas) &&
			slices.Equal(np.Adding, prev.Adding) && slices.Equal(np.Removing, prev.Removing) {
			parts[i] = prev
		} else {
			parts[i] = &np
		}
		if compare {
			if np.InAssignment && !prev.InAssignment {
				added = append(added, id)
			}
			m.reassignmentChange(name, ev, prev, &np)
		}
	}
	for _, p := range old {
		m.account(t, p, -1, wasVisible)
	}
	t.Partitions = parts
	for _, p := range parts {
		m.account(t, p, 1, true)
	}
	if created {
		ts.createdBatch = m.batch
		m.topicSetChanged = m.topicSetChanged || !wasVisible
		m.emit(Change{Kind: ChangeTopicCreated, Path: ev.Path, Zxid: ev.Stat.Mzxid, Time: ev.Stat.Mtime,
			Topic: name, TopicID: t.ID, PartitionCount: len(a.Partitions), ReplicationFactor: t.ReplicationFactor()})
	} else if len(added) > 0 {
		m.emit(Change{Kind: ChangePartitionsAdded, Path: ev.Path, Zxid: ev.Stat.Mzxid, Time: ev.Stat.Mtime,
			Topic: name, Partitions: added})
	}
}

func (m *Model) reassignmentChange(topic string, ev *NodeEvent, prev, np *Partition) {
	was, is := prev.Reassigning(), np.Reassigning()
	c := Change{Path: ev.Path, Zxid: ev.Stat.Mzxid, Time: ev.Stat.Mtime, Topic: topic, Partition: np.ID}
	switch {
	case is && (!was || !slices.Equal(prev.Adding, np.Adding) || !slices.Equal(prev.Removing, np.Removing)):
		c.Kind, c.Added, c.Removed = ChangeReassignmentStarted, np.Adding, np.Removing
	case was && !is && np.InAssignment:
		c.Kind, c.Replicas = ChangeReassignmentFinished, np.Replicas
	default:
		return
	}
	m.emit(c)
}

// setPartition stores np (replacing the partition with its id), or removes
// the partition when it is neither assigned nor has a state.
func (m *Model) setPartition(ts *topicState, np Partition) {
	t := ts.t
	i, ok := t.find(np.ID)
	keep := np.InAssignment || np.HasState
	switch {
	case ok && keep:
		m.accountDiff(t, t.Partitions[i], &np, ts.hasNode)
		t.Partitions[i] = &np
	case ok:
		m.account(t, t.Partitions[i], -1, ts.hasNode)
		t.Partitions = slices.Delete(t.Partitions, i, i+1)
	case keep:
		m.account(t, &np, 1, ts.hasNode)
		if n := len(t.Partitions); n == 0 || t.Partitions[n-1].ID < np.ID {
			t.Partitions = append(t.Partitions, &np)
		} else {
			at, _ := slices.BinarySearchFunc(t.Partitions, np.ID, func(p *Partition, id int) int { return p.ID - id })
			t.Partitions = slices.Insert(t.Partitions, at, &np)
		}
	}
}

func (m *Model) applyState(name string, id int, ev *NodeEvent, del bool) {
	ts := m.topicState(name, !del)
	if ts == nil {
		return
	}
	i, ok := ts.t.find(id)
	if del {
		if !ok || !ts.t.Partitions[i].HasState {
			return
		}
		t := m.mutable(ts)
		np := *t.Partitions[i]
		np.HasState, np.Leader, np.LeaderEpoch, np.ControllerEpoch, np.ISR = false, NoLeader, 0, 0, nil
		np.LeaderRecoveryState, np.StateVersion, np.StateMzxid, np.StateMtime, np.StateErr = 0, 0, 0, 0, nil
		m.setPartition(ts, np)
		m.clearErr(ev.Path)
		m.dropIfEmpty(ts)
		return
	}
	if ok && unchanged(ts.t.Partitions[i].HasState, ts.t.Partitions[i].StateMzxid, ev) {
		return
	}
	st, err := DecodePartitionState(ev.Data)
	m.noteErr(ev.Path, err, ev)
	t := m.mutable(ts)
	old := Partition{ID: id, Leader: NoLeader}
	if ok {
		old = *t.Partitions[i]
	}
	np := old
	np.HasState, np.StateVersion, np.StateMzxid, np.StateMtime = true, ev.Stat.Version, ev.Stat.Mzxid, ev.Stat.Mtime
	if err == nil {
		np.Leader, np.LeaderEpoch, np.ControllerEpoch = st.Leader, st.LeaderEpoch, st.ControllerEpoch
		np.ISR, np.LeaderRecoveryState, np.StateErr = st.ISR, st.LeaderRecoveryState, nil
	} else {
		np.Leader, np.LeaderEpoch, np.ControllerEpoch, np.ISR, np.LeaderRecoveryState, np.StateErr = NoLeader, 0, 0, nil, 0, err
	}
	if err == nil && old.HasState && old.StateErr == nil && slices.Equal(old.ISR, np.ISR) {
		np.ISR = old.ISR // keep sharing the slice
	}
	m.setPartition(ts, np)
	if err != nil {
		return
	}
	base := Change{Path: ev.Path, Zxid: ev.Stat.Mzxid, Time: ev.Stat.Mtime, Topic: name, Partition: id,
		Epoch: np.LeaderEpoch, ISR: np.ISR}
	switch {
	case !old.HasState:
		c := base
		c.Kind, c.Leader, c.Replicas = ChangePartitionAppeared, np.Leader, np.Replicas
		m.emit(c)
	case old.StateErr != nil:
		// The state was unreadable: there is nothing to compare with.
	default:
		if old.Leader != np.Leader {
			c := base
			c.Kind, c.From, c.To = ChangeLeaderMoved, old.Leader, np.Leader
			m.emit(c)
		}
		if removed := minus(old.ISR, np.ISR); len(removed) > 0 {
			c := base
			c.Kind, c.Removed = ChangeIsrShrank, removed
			m.emit(c)
		}
		if added := minus(np.ISR, old.ISR); len(added) > 0 {
			c := base
			c.Kind, c.Added = ChangeIsrExpanded, added
			m.emit(c)
		}
	}
}

// minus returns the members of a not in b, in a's order.
func minus(a, b []int) []int {
	var out []int
	for _, x := range a {
		if !slices.Contains(b, x) && !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	return out
}

func (m *Model) applyConfig(name string, ev *NodeEvent, del bool) {
	ts := m.topicState(name, !del)
	if ts == nil {
		return
	}
	var entries []ConfigEntry
	var cerr error
	if del {
		if !ts.t.HasConfig {
			return
		}
		m.clearErr(ev.Path)
	} else {
		c, err := DecodeEntityConfig(ev.Data)
		m.noteErr(ev.Path, err, ev)
		entries, cerr = c.Config, err
	}
	oldEntries, hadConfig := ts.t.Config, ts.t.HasConfig
	if !del && hadConfig && slices.Equal(oldEntries, entries) && errString(ts.t.ConfigErr) == errString(cerr) {
		return
	}
	t := m.mutable(ts)
	t.HasConfig, t.Config, t.ConfigErr = !del, entries, cerr
	minISR := m.defMinISR
	for _, e := range entries {
		if e.Key == ConfigMinInsyncReplicas {
			minISR = parseMinISR(e.Value, m.defMinISR)
		}
	}
	if minISR != t.MinISR {
		for _, p := range t.Partitions {
			m.account(t, p, -1, ts.hasNode)
		}
		t.MinISR = minISR
		for _, p := range t.Partitions {
			m.account(t, p, 1, ts.hasNode)
		}
	}
	// A config read in the batch that created the topic is part of the
	// creation (the mirror may report it after the topic znode).
	if keys := configDiff(oldEntries, entries); len(keys) > 0 && ts.hasNode && ts.createdBatch != m.batch {
		m.emit(Change{Kind: ChangeConfigChanged, Path: ev.Path, Zxid: ev.Stat.Mzxid, Time: ev.Stat.Mtime,
			Topic: name, Keys: keys})
	}
	if del {
		m.dropIfEmpty(ts)
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// configDiff returns the keys added, changed or removed, sorted.
func configDiff(a, b []ConfigEntry) []string {
	am := make(map[string]string, len(a))
	for _, e := range a {
		am[e.Key] = e.Value
	}
	var keys []string
	for _, e := range b {
		if v, ok := am[e.Key]; !ok || v != e.Value {
			keys = append(keys, e.Key)
		}
		delete(am, e.Key)
	}
	for k := range am {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func (m *Model) applyMarker(name string, ev *NodeEvent, del bool) {
	ts := m.topicState(name, !del)
	if ts == nil || ts.t.MarkedForDeletion == !del {
		return
	}
	t := m.mutable(ts)
	t.MarkedForDeletion = !del
	m.markersDirty = true
	if del {
		m.dropIfEmpty(ts)
		return
	}
	m.emit(Change{Kind: ChangeTopicMarkedForDeletion, Path: ev.Path, Zxid: ev.Stat.Mzxid, Time: ev.Stat.Mtime, Topic: name})
}

// ---------------------------------------------------------------------------
// reset batches

type seenTopic struct {
	node, config, marker bool
	states               map[int]bool
}

type resetSeen struct {
	brokers                                           map[int]bool
	topics                                            map[string]*seenTopic
	controller, epoch, clusterID, reassign, preferred bool
	children                                          map[string]bool
}

func newResetSeen() *resetSeen {
	return &resetSeen{brokers: map[int]bool{}, topics: map[string]*seenTopic{}, children: map[string]bool{}}
}

func (s *resetSeen) topic(name string) *seenTopic {
	st := s.topics[name]
	if st == nil {
		st = &seenTopic{}
		s.topics[name] = st
	}
	return st
}

func (s *resetSeen) mark(info PathInfo, path string) {
	switch info.Kind {
	case KindBroker:
		s.brokers[info.BrokerID] = true
	case KindTopic:
		s.topic(info.Topic).node = true
	case KindPartitionState:
		st := s.topic(info.Topic)
		if st.states == nil {
			st.states = map[int]bool{}
		}
		st.states[info.Partition] = true
	case KindTopicConfig:
		s.topic(info.Topic).config = true
	case KindDeleteTopic:
		s.topic(info.Topic).marker = true
	case KindController:
		s.controller = true
	case KindControllerEpoch:
		s.epoch = true
	case KindClusterID:
		s.clusterID = true
	case KindReassignPartitions:
		s.reassign = true
	case KindPreferredReplicaElection:
		s.preferred = true
	case KindIsrChange, KindLogDirEvent:
		s.children[path] = true
	}
}

// sweep deletes whatever the reset batch did not mention, in a deterministic
// order (brokers by id, topics by name).
func (m *Model) sweep(seen *resetSeen) {
	del := func(path string) *NodeEvent { return &NodeEvent{Type: NodeDeleted, Path: path} }
	for _, id := range slices.Sorted(maps.Keys(m.brokers)) {
		if !seen.brokers[id] {
			m.applyBroker(id, del(BrokerIDPath(id)), true)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(m.topics)) {
		ts := m.topics[name]
		st := seen.topics[name]
		if st == nil {
			st = &seenTopic{}
		}
		var gone []int
		for _, p := range ts.t.Partitions {
			if p.HasState && !st.states[p.ID] {
				gone = append(gone, p.ID)
			}
		}
		for _, p := range gone {
			m.applyState(name, p, del(PartitionStatePath(name, p)), true)
		}
		if ts.t.HasConfig && !st.config {
			m.applyConfig(name, del(TopicConfigPath(name)), true)
		}
		if ts.t.MarkedForDeletion && !st.marker {
			m.applyMarker(name, del(DeleteTopicPath(name)), true)
		}
		if ts.hasNode && !st.node {
			m.applyTopic(name, del(TopicPath(name)), true)
		}
	}
	if !seen.controller {
		m.applyController(del(ControllerPath), true)
	}
	if !seen.epoch {
		m.applyControllerEpoch(del(ControllerEpochPath), true)
	}
	if !seen.clusterID {
		m.applyClusterID(del(ClusterIDPath), true)
	}
	if !seen.reassign {
		m.applyReassign(del(ReassignPartitionsPath), true)
	}
	if !seen.preferred {
		m.applyPreferred(del(PreferredReplicaElectionPath), true)
	}
	for _, set := range []map[string]bool{m.isrNotes, m.logDirEvents} {
		for p := range set {
			if !seen.children[p] {
				delete(set, p)
				m.changed = true
			}
		}
	}
}

// ---------------------------------------------------------------------------
// snapshots

// Snapshot returns an immutable view of the current state. It is cheap: the
// same *Snapshot is returned until the next batch changes something, and a
// new one shares every unchanged *Topic with the previous one.
func (m *Model) Snapshot() *Snapshot {
	if m.snap != nil && !m.changed {
		return m.snap
	}
	prev := m.snap
	m.seq++
	s := &Snapshot{seq: m.seq, defMinISR: m.defMinISR}

	// Topics: rebuilt when the set changed, else patched where changed.
	switch {
	case prev == nil || m.topicSetChanged:
		list := make([]*Topic, 0, len(m.topics))
		for _, ts := range m.topics {
			if ts.hasNode {
				list = append(list, ts.t)
			}
		}
		slices.SortFunc(list, func(a, b *Topic) int { return strings.Compare(a.Name, b.Name) })
		s.topics = list
	case len(m.pending) > 0:
		s.topics = slices.Clone(prev.topics)
		for _, ts := range m.pending {
			if !ts.hasNode {
				continue
			}
			if i, ok := slices.BinarySearchFunc(s.topics, ts.t.Name, func(t *Topic, n string) int { return strings.Compare(t.Name, n) }); ok {
				s.topics[i] = ts.t
			}
		}
	default:
		s.topics = prev.topics
	}
	for _, ts := range m.pending {
		ts.t.sealed, ts.pending = true, false
	}
	m.pending = m.pending[:0]
	m.topicSetChanged = false

	if prev == nil || m.markersDirty {
		var ms []string
		for name, ts := range m.topics {
			if ts.t.MarkedForDeletion {
				ms = append(ms, name)
			}
		}
		slices.Sort(ms)
		s.markers = ms
		m.markersDirty = false
	} else {
		s.markers = prev.markers
	}
	if prev == nil || m.errorsDirty {
		errs := make([]NodeError, 0, len(m.badNodes))
		for _, p := range slices.Sorted(maps.Keys(m.badNodes)) {
			errs = append(errs, m.badNodes[p])
		}
		s.errors = errs
		m.errorsDirty = false
	} else {
		s.errors = prev.errors
	}

	m.buildBrokers(s)
	s.clusterID, s.clusterIDErr = m.clusterID, m.clusterIDErr
	s.controller = Controller{BrokerID: m.controllerID(), Info: m.ctrl.info, Since: m.ctrl.ctime,
		Epoch: m.ctrlEpoch.epoch, EpochZkVersion: m.ctrlEpoch.version, Err: m.ctrl.err}
	if s.controller.Err == nil {
		s.controller.Err = m.ctrlEpoch.err
	}
	s.reassign, s.preferred = m.reassign, m.preferred
	s.isrNotes, s.logDirEvents = len(m.isrNotes), len(m.logDirEvents)

	s.health = m.totals
	s.health.Offline = m.totals.NoLeader
	for b, n := range m.leaderCount {
		if _, live := m.brokers[b]; !live {
			s.health.Offline += n
			s.deadLeaders = true
		}
	}
	m.snap, m.changed = s, false
	return s
}

func (m *Model) buildBrokers(s *Snapshot) {
	ids := make([]int, 0, len(m.brokers)+4)
	for id := range m.brokers {
		ids = append(ids, id)
	}
	for _, c := range []map[int]int{m.replicaCount, m.leaderCount} {
		for id := range c {
			if _, live := m.brokers[id]; !live && !slices.Contains(ids, id) {
				ids = append(ids, id)
			}
		}
	}
	slices.Sort(ids)
	ctrl := m.controllerID()
	s.brokers = make([]Broker, len(ids))
	rackIdx := map[string]int{}
	var none, unknown *Rack
	var named []Rack
	for i, id := range ids {
		b := Broker{ID: id, Replicas: m.replicaCount[id], Leaders: m.leaderCount[id], IsController: id == ctrl,
			Preferred: m.prefCount[id], PreferredLed: m.prefLed[id]}
		if n := m.brokers[id]; n != nil {
			b.Live, b.Registration, b.Err, b.Epoch = true, n.reg, n.err, n.czxid
			b.RegisteredAt = n.ctime
			if ms, ok := n.reg.TimestampMillis(); ok {
				b.RegisteredAt = ms
			}
			b.Rack, b.HasRack, b.RackKnown = n.reg.Rack, n.reg.HasRack(), true
		} else if reg, ok := m.lastKnown[id]; ok {
			b.Registration = reg
			b.Rack, b.HasRack, b.RackKnown = reg.Rack, reg.HasRack(), true
		}
		s.brokers[i] = b
		var r *Rack
		switch {
		case b.HasRack:
			j, ok := rackIdx[b.Rack]
			if !ok {
				j = len(named)
				rackIdx[b.Rack] = j
				named = append(named, Rack{Name: b.Rack, Kind: RackNamed})
			}
			r = &named[j]
		case b.RackKnown:
			if none == nil {
				none = &Rack{Kind: RackNone}
			}
			r = none
		default:
			if unknown == nil {
				unknown = &Rack{Kind: RackUnknown}
			}
			r = unknown
		}
		r.Brokers = append(r.Brokers, id)
		r.Replicas += b.Replicas
		r.Leaders += b.Leaders
		r.Live += b2i(b.Live)
	}
	slices.SortFunc(named, func(a, b Rack) int { return strings.Compare(a.Name, b.Name) })
	if none != nil {
		named = append(named, *none)
	}
	if unknown != nil {
		named = append(named, *unknown)
	}
	s.racks = named
}
