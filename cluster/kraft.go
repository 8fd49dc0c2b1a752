package cluster

import (
	"slices"
	"strconv"
)

// What a KRaft cluster tells that Kafka's ZooKeeper layout has no place
// for. A KRaft cluster reaches the model in two ways (docs/architecture.md,
// "Two sources, one model"): its topics, partitions, live brokers, configs
// and controller as node events in Kafka's ZooKeeper layout, the very
// mapping Kafka's ZooKeeper-to-KRaft migration writes, so that everything
// built on the model works unchanged; and the facts below, which have no
// znode, as typed values (Model.SetKRaft, Model.ApplyELR), never as
// invented znodes. A model fed by ZooKeeper has none of them
// (Snapshot.KRaft is nil).

// KRaft is what a KRaft cluster's metadata says about itself: its
// metadata quorum, its brokers' KRaft states, its feature levels. Values
// are immutable once given to the model.
type KRaft struct {
	// Quorum is the metadata quorum as DescribeQuorum reports it; its
	// leader is the active controller (Snapshot.Controller names it too).
	Quorum Quorum
	// QuorumErr is why the quorum could not be read ("" when it was):
	// Kafka's message for its error code, or NoAccessText when the
	// session may not describe the cluster.
	QuorumErr string
	// Brokers are the brokers the controller has registered, by id, with
	// their KRaft states. FencedListed says the cluster lists fenced
	// brokers too (DescribeCluster v2, Kafka 4.0+); before that a fenced
	// broker is not listed and looks like one that is gone.
	Brokers      []KRaftBroker
	FencedListed bool
	// CordonKnown says the brokers' log directories were read (Kafka 4.3+
	// reports cordoned directories, KIP-1066).
	CordonKnown bool
	// Features are the finalized feature levels (metadata.version,
	// kraft.version, eligible.leader.replicas.version, …), by name.
	Features []Feature
	// ELR says the partitions' eligible leader replicas are known (the
	// cluster serves DescribeTopicPartitions): Partition.ELR and
	// LastKnownELR are then lists, possibly empty, not "N/A".
	ELR bool
	// InheritedConfigs are the topic configs every topic gets from the
	// brokers rather than from itself, with values other than Kafka's
	// defaults (a cluster-wide dynamic default, a broker's
	// server.properties): what kafka-topics --describe lists besides a
	// topic's own overrides. Keys are topic config names, sorted.
	InheritedConfigs []ConfigEntry
}

// Quorum is the KRaft metadata quorum (the __cluster_metadata partition).
// It holds what changes when the quorum does, not the offsets that move
// with every record: a quiet quorum is the same value poll after poll.
type Quorum struct {
	// LeaderID is the active controller, -1 when there is none;
	// LeaderEpoch the quorum's epoch.
	LeaderID, LeaderEpoch int
	// Voters are the controllers that vote, Observers the brokers (and
	// controllers not voting) that follow the log; both by id.
	Voters, Observers []QuorumReplica
}

// QuorumReplica is one member of the quorum as its leader sees it.
type QuorumReplica struct {
	ID int
	// Lag is how many records the member is behind the leader's log end
	// (kafka-metadata-quorum's Lag), -1 when unknown.
	Lag int64
}

// IsVoter reports whether id votes in the quorum.
func (q *Quorum) IsVoter(id int) bool {
	return slices.ContainsFunc(q.Voters, func(r QuorumReplica) bool { return r.ID == id })
}

// KRaftBroker is a registered broker's KRaft state.
type KRaftBroker struct {
	ID int
	// Fenced: registered but fenced by the controller (its heartbeats
	// stopped, or it has not caught up yet): it leads nothing and is in no
	// ISR. The model treats it as not live, as ZooKeeper treats a broker
	// whose session ended.
	Fenced bool
	// Cordoned: every one of its log directories is cordoned (KIP-1066):
	// it keeps its replicas but gets no new ones. CordonedDirs of Dirs
	// are (when the directories were read).
	Cordoned           bool
	CordonedDirs, Dirs int
	// Host, Port and Rack are its client listener and rack as the cluster
	// reports them; HasRack is false for a broker without broker.rack.
	Host    string
	Port    int
	Rack    string
	HasRack bool
}

// Feature is a finalized feature level.
type Feature struct {
	Name  string
	Level int
}

// Feature returns the finalized level of a feature (0, false when it is
// not finalized).
func (k *KRaft) Feature(name string) (int, bool) {
	for _, f := range k.Features {
		if f.Name == name {
			return f.Level, true
		}
	}
	return 0, false
}

// Broker returns the KRaft state of broker id.
func (k *KRaft) Broker(id int) (KRaftBroker, bool) {
	for _, b := range k.Brokers {
		if b.ID == id {
			return b, true
		}
	}
	return KRaftBroker{}, false
}

// NoAccessText is how a fact the session may not read is shown.
const NoAccessText = "no access"

// PartitionELR is a partition's eligible leader replicas (KIP-966): the
// replicas that left the ISR while it was below min.insync.replicas and
// may still become leader, and the last members the ELR had before it
// emptied without a leader.
type PartitionELR struct {
	Topic        string
	Partition    int
	ELR          []int
	LastKnownELR []int
}

// SetKRaft records what a KRaft cluster says about itself (nil: a
// ZooKeeper cluster, the default). The model keeps the value; the next
// snapshot shows it, with its fenced brokers among the brokers.
func (m *Model) SetKRaft(k *KRaft) {
	if k == m.kraft {
		return
	}
	m.kraft = k
	m.changed = true
}

// ApplyELR records partitions' eligible leader replicas; partitions the
// model does not hold are skipped.
func (m *Model) ApplyELR(ps []PartitionELR) {
	for _, e := range ps {
		ts := m.topics[e.Topic]
		if ts == nil {
			continue
		}
		i, ok := ts.t.find(e.Partition)
		if !ok {
			continue
		}
		if p := ts.t.Partitions[i]; slices.Equal(p.ELR(), e.ELR) && slices.Equal(p.LastKnownELR(), e.LastKnownELR) {
			continue
		}
		t := m.mutable(ts)
		np := *t.Partitions[i]
		np = np.SetELR(e.ELR, e.LastKnownELR)
		t.Partitions[i] = &np
	}
}

// KRaft returns what the KRaft cluster says about itself, nil for a
// cluster in ZooKeeper mode.
func (s *Snapshot) KRaft() *KRaft { return s.kraft }

// ControllerLabel names the active controller for display: "controller
// <id> (epoch <e>)", "no controller".
func (s *Snapshot) ControllerLabel() string {
	c := s.controller
	if c.BrokerID < 0 {
		return "no controller"
	}
	return "controller " + strconv.Itoa(c.BrokerID) + " (epoch " + strconv.Itoa(c.Epoch) + ")"
}
