package cluster

import (
	"errors"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/ktopo/ktopo/assign"
)

// Partition is one partition as the model knows it: its assignment (from the
// topic znode) and its state (from the state znode). Values are immutable;
// slices are shared between snapshots and must not be modified.
//
// What only some partitions have (a reassignment's adding and removing
// replicas, a malformed state's error, eligible leader replicas) is held
// apart and read through methods (Adding, Removing, StateErr, ELR,
// LastKnownELR): a model of 100,000 partitions holds 128 bytes a
// partition, not 240.
type Partition struct {
	ID     int
	Leader int // NoLeader (-1) when none, no state, or a bad state
	// LeaderEpoch and ControllerEpoch are the state's.
	LeaderEpoch     int
	ControllerEpoch int
	// LeaderRecoveryState is LeaderRecovered or LeaderRecovering.
	LeaderRecoveryState int
	StateMzxid          int64
	StateMtime          int64
	// Replicas is the ordered replica list (first = preferred leader).
	Replicas []int
	ISR      []int
	// StateVersion is the state znode's dataVersion, Kafka's partition epoch.
	StateVersion int32
	// InAssignment is true when the topic znode lists the partition.
	InAssignment bool
	// HasState is true when the state znode exists (the controller has
	// initialised the partition); without it the partition is "new".
	HasState bool

	more *partitionMore // nil for most partitions
	// born is the sequence number of the first snapshot that may hold the
	// partition (Model.setPartition): one the model made since its last
	// snapshot is its alone, and changed where it is.
	born uint64
}

// partitionMore is what only some partitions have. Shared between the
// Partition values copied from one another: changed only by replacing it
// (Partition.setMore).
type partitionMore struct {
	adding, removing  []int
	stateErr          error
	elr, lastKnownELR []int
}

// Adding and Removing are the replicas being added and removed while the
// partition is reassigned (nil otherwise).
func (p *Partition) Adding() []int {
	if p.more == nil {
		return nil
	}
	return p.more.adding
}

// Removing: see Adding.
func (p *Partition) Removing() []int {
	if p.more == nil {
		return nil
	}
	return p.more.removing
}

// StateErr is a *DecodeError when the state znode is malformed (nil
// otherwise).
func (p *Partition) StateErr() error {
	if p.more == nil {
		return nil
	}
	return p.more.stateErr
}

// ELR and LastKnownELR are a KRaft partition's eligible leader replicas
// (Model.ApplyELR); nil when empty or unknown (see KRaft.ELR).
func (p *Partition) ELR() []int {
	if p.more == nil {
		return nil
	}
	return p.more.elr
}

// LastKnownELR: see ELR.
func (p *Partition) LastKnownELR() []int {
	if p.more == nil {
		return nil
	}
	return p.more.lastKnownELR
}

// SetMoves returns p with the replicas being added and removed set (a
// partition built outside the model: a test's, a plan's).
func (p Partition) SetMoves(adding, removing []int) Partition {
	p.setMore(func(m *partitionMore) { m.adding, m.removing = adding, removing })
	return p
}

// SetStateErr returns p with its state's decode error set.
func (p Partition) SetStateErr(err error) Partition {
	p.setMore(func(m *partitionMore) { m.stateErr = err })
	return p
}

// SetELR returns p with its eligible leader replicas set.
func (p Partition) SetELR(elr, lastKnown []int) Partition {
	p.setMore(func(m *partitionMore) { m.elr, m.lastKnownELR = elr, lastKnown })
	return p
}

// setMore changes what p holds apart, on a copy (other Partition values
// may share it); nil once it holds nothing.
func (p *Partition) setMore(change func(*partitionMore)) {
	var m partitionMore
	if p.more != nil {
		m = *p.more
	}
	change(&m)
	if m.adding == nil && m.removing == nil && m.stateErr == nil && m.elr == nil && m.lastKnownELR == nil {
		p.more = nil
		return
	}
	p.more = &m
}

// HasLeader reports whether the state names a leader.
func (p *Partition) HasLeader() bool { return p.HasState && p.StateErr() == nil && p.Leader >= 0 }

// PreferredLeader is the first replica, or -1.
func (p *Partition) PreferredLeader() int {
	if len(p.Replicas) == 0 {
		return -1
	}
	return p.Replicas[0]
}

// UnderReplicated reports |ISR| < |replicas| (kafka-topics
// --under-replicated-partitions; a partition without state has an empty ISR).
func (p *Partition) UnderReplicated() bool { return len(p.ISR) < p.ReplicationFactor() }

// ReplicationFactor is the number of replicas, not counting those a
// reassignment is adding (Kafka 3.x: describe, and the brokers'
// UnderReplicatedPartitions; 2.8's ZooKeeper describe counted them).
func (p *Partition) ReplicationFactor() int {
	n := len(p.Replicas)
	for _, r := range p.Adding() {
		if slices.Contains(p.Replicas, r) {
			n--
		}
	}
	return n
}

// UnderMinISR reports |ISR| < minISR.
func (p *Partition) UnderMinISR(minISR int) bool { return len(p.ISR) < minISR }

// LeaderDrift reports that the partition has a leader that is not its
// preferred leader.
func (p *Partition) LeaderDrift() bool {
	return p.HasLeader() && len(p.Replicas) > 0 && p.Leader != p.Replicas[0]
}

// Reassigning reports an ongoing reassignment.
func (p *Partition) Reassigning() bool { return len(p.Adding()) > 0 || len(p.Removing()) > 0 }

// TopicHealth counts partitions by condition. Offline is only meaningful in
// values returned by Snapshot.TopicHealth and Snapshot.Health (it depends on
// which brokers are live); Topic.Health has Offline = 0.
type TopicHealth struct {
	Partitions int
	// UnderReplicated: |ISR| < the replication factor (replicas being
	// added by a reassignment not counted).
	UnderReplicated int
	// Offline: no leader, or the leader is not a live broker.
	Offline int
	// NoLeader: no state, a bad state, or leader -1.
	NoLeader int
	// UnderMinISR: |ISR| < the topic's effective min.insync.replicas.
	UnderMinISR int
	// PreferredLeaderDrift: led by a broker other than the first replica.
	PreferredLeaderDrift int
	// Uninitialized: no state znode yet (NewPartition).
	Uninitialized int
	// Reassigning: adding or removing replicas.
	Reassigning int
	// BadState: the state znode could not be decoded.
	BadState int
}

func (h *TopicHealth) add(o TopicHealth, sign int) {
	h.Partitions += sign * o.Partitions
	h.UnderReplicated += sign * o.UnderReplicated
	h.Offline += sign * o.Offline
	h.NoLeader += sign * o.NoLeader
	h.UnderMinISR += sign * o.UnderMinISR
	h.PreferredLeaderDrift += sign * o.PreferredLeaderDrift
	h.Uninitialized += sign * o.Uninitialized
	h.Reassigning += sign * o.Reassigning
	h.BadState += sign * o.BadState
}

// Healthy reports that no partition is under-replicated, offline,
// under min ISR, uninitialised or unreadable.
func (h TopicHealth) Healthy() bool {
	return h.UnderReplicated == 0 && h.Offline == 0 && h.NoLeader == 0 && h.UnderMinISR == 0 &&
		h.Uninitialized == 0 && h.BadState == 0
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// contribution of one partition to its topic's health.
func partitionHealth(p *Partition, minISR int) TopicHealth {
	return TopicHealth{
		Partitions:           1,
		UnderReplicated:      b2i(p.UnderReplicated()),
		NoLeader:             b2i(!p.HasLeader()),
		UnderMinISR:          b2i(p.UnderMinISR(minISR)),
		PreferredLeaderDrift: b2i(p.LeaderDrift()),
		Uninitialized:        b2i(!p.HasState),
		Reassigning:          b2i(p.Reassigning()),
		BadState:             b2i(p.StateErr() != nil),
	}
}

// Topic is one topic (a child of /brokers/topics) with its partitions,
// config overrides and deletion marker. A *Topic in a Snapshot never
// changes; a later change produces a new *Topic.
type Topic struct {
	Name string
	// ID is the topic_id, "" when the znode has none.
	ID string
	// Version is the topic znode's JSON version.
	Version int
	// Partitions sorted by id: those in the assignment plus any with a
	// state znode only.
	// Each *Partition is immutable and may be shared with other snapshots.
	Partitions []*Partition
	// Err is a *DecodeError when the topic znode is malformed (Partitions
	// then hold what could be decoded, possibly nothing).
	Err error
	// Czxid, Mzxid, Ctime, Mtime and ZkVersion are the topic znode's stat.
	Czxid, Mzxid int64
	Ctime, Mtime int64
	ZkVersion    int32

	// HasConfig is true when /config/topics/<t> exists; Config holds its
	// overrides in document order; ConfigErr is set when it is malformed;
	// ConfigVersion is its dataVersion (a write's ConfigChange.Version + 1
	// once the model has seen that write, or a later one).
	HasConfig     bool
	Config        []ConfigEntry
	ConfigErr     error
	ConfigVersion int32
	// MarkedForDeletion is true while /admin/delete_topics/<t> exists.
	MarkedForDeletion bool

	// MinISR is the topic's min.insync.replicas: its override, else the
	// cluster's dynamic default (/config/brokers/<default>), else the
	// model's default. A partition whose leader has a dynamic broker
	// override uses that instead when the topic has none (Snapshot.MinISR).
	MinISR int
	// minISRSet: the topic overrides min.insync.replicas.
	minISRSet bool
	// Health counts partitions by condition (Offline not included; see
	// Snapshot.TopicHealth).
	Health TopicHealth

	sealed bool // referenced by a snapshot: copy before changing
}

// Partition returns partition id, or nil.
func (t *Topic) Partition(id int) *Partition {
	if i, ok := t.find(id); ok {
		return t.Partitions[i]
	}
	return nil
}

func (t *Topic) find(id int) (int, bool) {
	ps := t.Partitions
	if id >= 0 && id < len(ps) && ps[id].ID == id {
		return id, true
	}
	return sort.Find(len(ps), func(i int) int { return id - ps[i].ID })
}

// ReplicationFactor is the length of the replica list of the lowest
// partition in the assignment (kafka-topics describe in ZooKeeper mode).
func (t *Topic) ReplicationFactor() int {
	for i := range t.Partitions {
		if t.Partitions[i].InAssignment {
			return t.Partitions[i].ReplicationFactor()
		}
	}
	return 0
}

// ConfigValue returns the override of key k.
func (t *Topic) ConfigValue(k string) (string, bool) {
	for _, e := range t.Config {
		if e.Key == k {
			return e.Value, true
		}
	}
	return "", false
}

// Internal reports whether the topic is one of Kafka's internal topics.
func (t *Topic) Internal() bool { return IsInternalTopic(t.Name) }

// Broker is a broker in a snapshot: registered now (Live) or holding
// replicas while not registered (offline).
type Broker struct {
	ID   int
	Live bool
	// Registration is the current registration, or the last one seen for an
	// offline broker (zero if never seen).
	Registration BrokerRegistration
	// Err is a *DecodeError when the registration is malformed.
	Err error
	// Rack and HasRack: the broker's rack (for offline brokers the last one
	// known). RackKnown is false for offline brokers never seen registered.
	Rack      string
	HasRack   bool
	RackKnown bool
	// Epoch is the registration's czxid (Kafka's broker epoch); 0 if offline.
	Epoch int64
	// RegisteredAt is the registration time in ms (the JSON timestamp, else
	// the znode's ctime).
	RegisteredAt int64
	// Replicas and Leaders count the partitions the broker holds and leads.
	Replicas, Leaders int
	// Preferred counts the partitions whose preferred leader (first
	// replica) it is; PreferredLed those of them it leads.
	Preferred, PreferredLed int
	IsController            bool
	// Fenced and Cordoned are a KRaft broker's states (KRaftBroker): a
	// fenced broker is registered but not live; a cordoned one is live and
	// gets no new partitions.
	Fenced, Cordoned bool
}

// Addr returns host:port for display.
func (b *Broker) Addr() string { return b.Registration.Addr() }

// RackKind classifies a Rack group.
type RackKind uint8

// Rack kinds.
const (
	RackNamed   RackKind = iota // brokers with broker.rack = Name
	RackNone                    // brokers without a rack
	RackUnknown                 // offline brokers whose rack was never seen
)

// Rack groups brokers; Racks are ordered by name (Kafka's lexicographic
// order), then the no-rack group, then the unknown group.
type Rack struct {
	Name    string
	Kind    RackKind
	Brokers []int // ids, ascending
	// Live counts registered brokers; Replicas and Leaders sum the brokers'.
	Live              int
	Replicas, Leaders int
}

// Label is the rack's name for display ("(no rack)", "(unknown rack)").
func (r *Rack) Label() string {
	switch r.Kind {
	case RackNone:
		return "(no rack)"
	case RackUnknown:
		return "(unknown rack)"
	}
	return r.Name
}

// Controller is the active controller as ZooKeeper shows it.
type Controller struct {
	// Present: /controller exists.
	Present bool
	// BrokerID is the controller's broker id, -1 when /controller is absent.
	BrokerID int
	Info     ControllerInfo
	// Since is /controller's ctime (ms).
	Since int64
	// Persistent: /controller exists and belongs to no session. A
	// ZooKeeper controller's is ephemeral; a KRaft controller that took
	// the cluster over in a migration writes a persistent one.
	Persistent bool
	// Epoch is /controller_epoch's value; EpochZkVersion its dataVersion
	// (what controllers fence their writes with).
	Epoch          int
	EpochZkVersion int32
	Err            error // a bad /controller or /controller_epoch
}

// MigrationNode is /migration as the model holds it: the state a KRaft
// controller keeps of a ZooKeeper to KRaft migration (absent before one).
type MigrationNode struct {
	Present bool
	State   MigrationState
	Err     error // a *DecodeError when the JSON is malformed
	// Ctime and Mtime are the znode's creation and last write (ms, the
	// ZooKeeper server's clock); Czxid tells one /migration from a later
	// one; Version is its dataVersion.
	Ctime, Mtime int64
	Czxid, Mzxid int64
	Version      int32
}

// NodeError is a znode the model could not decode.
type NodeError struct {
	Path string
	Err  error // a *DecodeError carrying the raw bytes
}

// Snapshot is an immutable view of the cluster after a batch. All methods are
// safe for concurrent use; returned slices must not be modified.
type Snapshot struct {
	seq          uint64
	clusterID    string
	clusterIDErr error
	controller   Controller
	migration    MigrationNode
	brokers      []Broker
	racks        []Rack
	topics       []*Topic
	markers      []string // sorted names with a deletion marker
	health       TopicHealth
	errors       []NodeError
	denied       map[string]Access // shared between snapshots until it changes
	deniedPaths  []string          // its keys, sorted
	deadLeaders  bool              // some partition is led by a broker that is not live
	reassign     *ReassignPartitions
	preferred    *PartitionsNotification
	isrNotes     int
	logDirEvents int
	defMinISR    int
	brokerMinISR map[int]int // broker → its dynamic min.insync.replicas (shared; read only)
	brokerConfig map[string][]ConfigEntry
	// throttledTopics: the topics whose config sets a reassignment
	// throttle, sorted.
	throttledTopics []string
	kraft           *KRaft

	partial       bool // taken while a load was under way
	loadingTopics int  // topics left out of a partial snapshot

	namesOnce sync.Once
	names     []string
}

// Seq increases by one with every snapshot that differs from the previous one.
func (s *Snapshot) Seq() uint64 { return s.seq }

// Partial reports a snapshot taken while the first load was under way
// (Model.SetLoading): what it shows is true, but not everything is there
// yet. Its Topics are those read in full (the topic znode and every
// partition's state): a topic half read is left out (LoadingTopics counts
// them) rather than shown with partitions missing their state as if that
// were so. Its Health counts the topics shown; its brokers' replica and
// leader counts, what was read so far.
func (s *Snapshot) Partial() bool { return s.partial }

// LoadingTopics is the number of topics a partial snapshot leaves out
// because their partitions are still being read (0 when not partial).
func (s *Snapshot) LoadingTopics() int { return s.loadingTopics }

// ClusterID is /cluster/id's id ("" if absent or bad; see ClusterIDErr).
func (s *Snapshot) ClusterID() string { return s.clusterID }

// ClusterIDErr is the decode error of /cluster/id, if any.
func (s *Snapshot) ClusterIDErr() error { return s.clusterIDErr }

// Controller returns the controller.
func (s *Snapshot) Controller() Controller { return s.controller }

// Migration returns /migration (Present false when there is none).
func (s *Snapshot) Migration() MigrationNode { return s.migration }

// Brokers returns live brokers and offline brokers that hold replicas, by id.
func (s *Snapshot) Brokers() []Broker { return s.brokers }

// Broker returns broker id.
func (s *Snapshot) Broker(id int) (*Broker, bool) {
	i, ok := sort.Find(len(s.brokers), func(i int) int { return id - s.brokers[i].ID })
	if !ok {
		return nil, false
	}
	return &s.brokers[i], true
}

// IsLive reports whether broker id is registered.
func (s *Snapshot) IsLive(id int) bool {
	b, ok := s.Broker(id)
	return ok && b.Live
}

// LiveBrokerIDs returns the registered broker ids, ascending (Kafka's
// getSortedBrokerList).
func (s *Snapshot) LiveBrokerIDs() []int {
	ids := make([]int, 0, len(s.brokers))
	for i := range s.brokers {
		if s.brokers[i].Live {
			ids = append(ids, s.brokers[i].ID)
		}
	}
	return ids
}

// Racks returns the brokers grouped by rack.
func (s *Snapshot) Racks() []Rack { return s.racks }

// Topics returns the topics sorted by name.
func (s *Snapshot) Topics() []*Topic { return s.topics }

// Topic returns topic name, or nil.
func (s *Snapshot) Topic(name string) *Topic {
	i, ok := sort.Find(len(s.topics), func(i int) int { return strings.Compare(name, s.topics[i].Name) })
	if !ok {
		return nil
	}
	return s.topics[i]
}

// TopicExists implements ExistingTopics.
func (s *Snapshot) TopicExists(name string) bool { return s.Topic(name) != nil }

// MarkedForDeletion implements ExistingTopics: a deletion marker exists
// (whether or not the topic does).
func (s *Snapshot) MarkedForDeletion(name string) bool {
	_, ok := slices.BinarySearch(s.markers, name)
	return ok
}

// AllTopics implements ExistingTopics: the topic names, sorted.
func (s *Snapshot) AllTopics() []string {
	s.namesOnce.Do(func() {
		s.names = make([]string, len(s.topics))
		for i, t := range s.topics {
			s.names[i] = t.Name
		}
	})
	return s.names
}

// DeletionMarkers returns the names under /admin/delete_topics, sorted.
func (s *Snapshot) DeletionMarkers() []string { return s.markers }

// PartitionOffline reports whether p has no leader or its leader is not a
// live broker (kafka-topics --unavailable-partitions).
func (s *Snapshot) PartitionOffline(p *Partition) bool {
	return !p.HasLeader() || !s.IsLive(p.Leader)
}

// TopicHealth returns t's health including Offline.
func (s *Snapshot) TopicHealth(t *Topic) TopicHealth {
	h := t.Health
	h.Offline = h.NoLeader
	if s.deadLeaders {
		for _, p := range t.Partitions {
			if p.HasLeader() && !s.IsLive(p.Leader) {
				h.Offline++
			}
		}
	}
	return h
}

// Health returns the cluster-wide counts.
func (s *Snapshot) Health() TopicHealth { return s.health }

// Errors returns the znodes that could not be decoded, by path.
func (s *Snapshot) Errors() []NodeError { return s.errors }

// NoAccess returns the znodes ZooKeeper's ACLs keep this session from
// reading (wholly or their children), sorted: they exist, what they hold is
// unknown.
func (s *Snapshot) NoAccess() []string { return s.deniedPaths }

// Access returns what of the znode at path the session may not read (0
// when all of it, or when the model does not follow it).
func (s *Snapshot) Access(path string) Access { return s.denied[path] }

// TopicAccess returns the znodes of a topic the session may not read: its
// assignment (/brokers/topics/<t>), its config, its partition states.
func (s *Snapshot) TopicAccess(t *Topic) []string {
	if len(s.denied) == 0 {
		return nil
	}
	var out []string
	for _, p := range []string{TopicPath(t.Name), TopicConfigPath(t.Name)} {
		if s.denied[p] != 0 {
			out = append(out, p)
		}
	}
	for _, p := range t.Partitions {
		if s.denied[PartitionStatePath(t.Name, p.ID)] != 0 {
			out = append(out, PartitionStatePath(t.Name, p.ID))
		}
	}
	return out
}

// PendingReassignment is /admin/reassign_partitions, or nil.
func (s *Snapshot) PendingReassignment() *ReassignPartitions { return s.reassign }

// PendingPreferredElection is /admin/preferred_replica_election, or nil.
func (s *Snapshot) PendingPreferredElection() *PartitionsNotification { return s.preferred }

// IsrChangeNotifications counts /isr_change_notification children.
func (s *Snapshot) IsrChangeNotifications() int { return s.isrNotes }

// LogDirEvents counts /log_dir_event_notification children.
func (s *Snapshot) LogDirEvents() int { return s.logDirEvents }

// DefaultMinISR is the min.insync.replicas assumed for topics without override.
func (s *Snapshot) DefaultMinISR() int { return s.defMinISR }

// MinISR is partition p's effective min.insync.replicas, as Kafka 3.x
// resolves it: the topic's override, else the dynamic config of the broker
// that leads it (/config/brokers/<id>), else the cluster's dynamic default
// (/config/brokers/<default>), else the model's default (1 unless told:
// a broker's server.properties is not in ZooKeeper).
func (s *Snapshot) MinISR(t *Topic, p *Partition) int {
	return minISRFor(t, p, s.brokerMinISR)
}

// BrokerConfig returns the dynamic config overrides of a broker entity
// (an id, or BrokerDefaultEntity), as /config/brokers/<entity> holds them.
func (s *Snapshot) BrokerConfig(entity string) ([]ConfigEntry, bool) {
	c, ok := s.brokerConfig[entity]
	return c, ok
}

// minISRFor is MinISR over a broker map (the model's or a snapshot's).
func minISRFor(t *Topic, p *Partition, brokerMinISR map[int]int) int {
	if !t.minISRSet && p.HasLeader() {
		if v := brokerMinISR[p.Leader]; v > 0 {
			return v
		}
	}
	return t.MinISR
}

// BrokerMetadatas is AdminZkClient.getBrokerMetadatas on the registered
// brokers (see BrokerMetadatas). A registration that cannot be decoded fails
// as in Kafka: KafkaException "Failed to parse ZooKeeper registration for
// broker <id>: <json>".
func (s *Snapshot) BrokerMetadatas(mode RackAwareMode, brokerList []int) ([]assign.Broker, error) {
	var reg []assign.Broker
	for i := range s.brokers {
		b := &s.brokers[i]
		if !b.Live || b.Cordoned && brokerList == nil {
			// A cordoned KRaft broker gets no new partitions (KIP-1066).
			continue
		}
		if brokerList != nil && !slices.Contains(brokerList, b.ID) {
			continue
		}
		if b.Err != nil {
			var raw []byte
			if de := (*DecodeError)(nil); errors.As(b.Err, &de) {
				raw = de.Raw
			}
			return nil, kafkaErr(ClassKafka, "Failed to parse ZooKeeper registration for broker "+strconv.Itoa(b.ID)+": "+string(raw))
		}
		reg = append(reg, assign.Broker{ID: b.ID, Rack: b.Rack, HasRack: b.HasRack})
	}
	return BrokerMetadatas(reg, mode, nil)
}

// RegisteredBrokers returns the live brokers as assignment inputs, sorted by
// id, with their racks (for showing where replicas land, whatever the rack
// mode). Brokers whose registration cannot be decoded are left out.
func (s *Snapshot) RegisteredBrokers() []assign.Broker {
	out := make([]assign.Broker, 0, len(s.brokers))
	for i := range s.brokers {
		if b := &s.brokers[i]; b.Live && b.Err == nil {
			out = append(out, assign.Broker{ID: b.ID, Rack: b.Rack, HasRack: b.HasRack})
		}
	}
	slices.SortFunc(out, func(a, b assign.Broker) int { return a.ID - b.ID })
	return out
}
