package cluster

// ModelOptions configure a Model.
type ModelOptions struct {
	// DefaultMinISR is the min.insync.replicas of topics without an
	// override (the brokers' setting); 0 means Kafka's default, 1.
	DefaultMinISR int
	// NoChanges makes Apply record no changes (it returns nil): for
	// one-shot readers that only want the snapshot. A first load's
	// changes (one per znode) are a fifth of its memory.
	NoChanges bool
	// PackPartitions places a first load's partitions in blocks of them
	// (Model.place): for a source that delivers a topic's assignment and
	// its partitions' states in one batch (the Kafka-protocol poller),
	// whose partitions then fill their blocks for good. ZooKeeper's mirror
	// reads the states after the topics: there a block would keep the
	// partitions its states replaced (7 MiB more at 100,000 partitions).
	PackPartitions bool
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
	pack      bool // ModelOptions.PackPartitions
	quiet     bool // SetQuiet: record no changes for now
	loading   bool // SetLoading: snapshots are partial
	wasLoaded bool // a partial snapshot was taken: rebuild the next list
	defMinISR int
	seq       uint64
	block     []Partition // where new partitions are placed (place)

	ctrl      singleNode[ControllerInfo]
	ctrlEpoch singleNode[int]
	clusterID singleNode[ClusterIDInfo]
	reassign  singleNode[*ReassignPartitions]
	preferred singleNode[*PartitionsNotification]
	migration singleNode[MigrationState]
	kraft     *KRaft // SetKRaft: what a KRaft cluster says about itself

	ids idLists // the replica and ISR lists, interned

	brokers   map[int]*brokerNode
	lastKnown map[int]BrokerRegistration // last registration of every broker seen

	topics       map[string]*topicState
	replicaCount map[int]int // broker → replicas in assignments
	leaderCount  map[int]int // broker → partitions led
	prefCount    map[int]int // broker → partitions whose preferred leader it is
	prefLed      map[int]int // broker → of those, the ones it leads
	totals       TopicHealth // over all topics, Offline excluded

	brokerConfigs  map[string]*brokerConfig // /config/brokers/<entity> by entity
	brokerMinISR   map[int]int              // broker → dynamic min.insync.replicas (copied on change)
	clusterMinISR  int                      // <default>'s min.insync.replicas, 0 when unset
	brokerCfgDirty bool
	// throttledTopics are the topics whose config sets a reassignment
	// throttle (ThrottlesLeftOver); the snapshot's sorted list is rebuilt
	// only when it changed.
	throttledTopics map[string]bool
	throttledDirty  bool
	isrNotes        map[string]bool
	logDirEvents    map[string]bool
	badNodes        map[string]NodeError
	errorsDirty     bool
	denied          map[string]Access // znodes the session may not (fully) read
	deniedDirty     bool
	applyingDenied  bool // the event being applied is a NoData one: its decode error is no error
	markersDirty    bool
	topicSetChanged bool
	visibleTopics   int         // topics whose znode exists (hasNode)
	partialHealth   TopicHealth // the sum of the Health of the topics a partial snapshot lists

	batch   uint64        // number of Apply calls
	pending []*topicState // topics changed since the last Snapshot (unsealed)
	changed bool          // anything changed since the last Snapshot
	snap    *Snapshot     // the last snapshot: current while !changed, else the base of the next
	changes []Change      // the batch being applied
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
		defMinISR:       o.DefaultMinISR,
		noChanges:       o.NoChanges,
		pack:            o.PackPartitions,
		brokers:         map[int]*brokerNode{},
		lastKnown:       map[int]BrokerRegistration{},
		topics:          map[string]*topicState{},
		replicaCount:    map[int]int{},
		leaderCount:     map[int]int{},
		prefCount:       map[int]int{},
		prefLed:         map[int]int{},
		isrNotes:        map[string]bool{},
		brokerConfigs:   map[string]*brokerConfig{},
		throttledTopics: map[string]bool{},
		brokerMinISR:    map[int]int{},
		logDirEvents:    map[string]bool{},
		badNodes:        map[string]NodeError{},
		denied:          map[string]Access{},
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
	case m.noChanges || m.quiet:
		m.changes = nil
	case reset:
		m.changes = make([]Change, 0, len(events)+8)
	default:
		m.changes = make([]Change, 0, min(len(events), 64))
	}
	ctrlFrom, epochFrom := m.controllerID(), m.ctrlEpoch.v
	var seen *resetSeen
	if reset {
		seen = newResetSeen()
		if len(m.denied) > 0 {
			clear(m.denied)
			m.deniedDirty, m.changed = true, true
		}
	}
	for i := range events {
		ev := &events[i]
		info := ParsePath(ev.Path)
		del := ev.Type == NodeDeleted
		if seen != nil && !del {
			seen.mark(info, ev.Path)
		}
		m.noteDenied(ev, del)
		if f := kindSpecs[info.Kind].apply; f != nil {
			m.applyingDenied = !del && ev.Denied&NoData != 0
			f(m, info, ev, del)
			m.applyingDenied = false
		}
	}
	if seen != nil {
		m.sweep(seen)
		m.SetLoading(false)
	}
	if to, epoch := m.controllerID(), m.ctrlEpoch.v; to != ctrlFrom || epoch != epochFrom {
		m.changed = true
		m.emit(Change{Kind: ChangeControllerMoved, Path: ControllerPath,
			Zxid: m.ctrl.mzxid, Time: m.ctrl.ctime, From: ctrlFrom, To: to, Epoch: epoch})
	}
	return m.changes
}

// unchanged reports that a node we hold is re-reported with the same mzxid,
// which lets reset batches skip decoding (mzxid 0 means "unknown": decode).
func unchanged(have bool, haveMzxid int64, ev *NodeEvent) bool {
	return have && ev.Stat.Mzxid != 0 && haveMzxid == ev.Stat.Mzxid
}

// SetQuiet switches the recording of changes off (Apply returns nil) or
// back on: for a first load, whose changes (one per znode, a fifth of its
// memory) nobody reads.
func (m *Model) SetQuiet(quiet bool) { m.quiet = quiet }

// SetLoading says whether the events applied so far are a load still under
// way (the mirror's partial batches): the snapshots taken meanwhile are
// partial (Snapshot.Partial). Apply with reset ends it too.
func (m *Model) SetLoading(loading bool) {
	if m.loading != loading {
		m.loading, m.changed = loading, true
	}
}

func (m *Model) emit(c Change) {
	if !m.noChanges && !m.quiet {
		m.changes = append(m.changes, c)
	}
}

// noteDenied records what of a znode the session may not read.
func (m *Model) noteDenied(ev *NodeEvent, del bool) {
	a := ev.Denied
	if del {
		a = 0
	}
	if m.denied[ev.Path] == a {
		return
	}
	if a == 0 {
		delete(m.denied, ev.Path)
	} else {
		m.denied[ev.Path] = a
		if a&NoData != 0 {
			ev.Data, ev.Value = nil, nil
		}
	}
	m.deniedDirty, m.changed = true, true
}

// noteErr records or clears a decode error of path. The data of a znode the
// session may not read is unknown, not invalid.
func (m *Model) noteErr(path string, err error, ev *NodeEvent) {
	if m.applyingDenied {
		err = nil
	}
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
