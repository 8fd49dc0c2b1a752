package kraftsandbox

import (
	"time"
)

// The controller's state: what Kafka 4.4's metadata log holds (brokers'
// registrations, topics, partitions, configs, features) and what the
// simulated processes hold (logs, copies, groups). All of it is guarded by
// Cluster.mu; every change to the metadata appends a record
// (Cluster.record), which advances the metadata log's end offset that
// DescribeQuorum reports.

// broker is a broker's registration and process.
type broker struct {
	n    *node
	id   int32
	rack *string // nil: no broker.rack
	// epoch is the registration's broker epoch (the metadata offset of
	// its BrokerRegistrationRecord); incarnation the process's id, new at
	// each start.
	epoch       int64
	incarnation [16]byte
	// dirs are its log directories' ids and paths (one per broker).
	dirs []logDir
	// registered: a BrokerRegistrationRecord is in the log (it stays
	// until UnregisterBroker). fenced: the controller fenced it (a new
	// registration starts fenced until it catches up; missed heartbeats
	// fence it). alive: its process runs (it heartbeats).
	registered, fenced, alive bool
	// lastHeartbeat is when the controller last heard from it; unfenceAt
	// when a starting broker is caught up with the metadata log.
	lastHeartbeat, unfenceAt time.Time
	// shuttingDown: a controlled shutdown is under way.
	shuttingDown bool
}

// logDir is one log directory of a broker (KIP-858 ids, KIP-827 sizes,
// KIP-1066 cordon).
type logDir struct {
	id       [16]byte
	path     string
	total    int64
	cordoned bool
}

// controller is one KRaft controller (a voter of the metadata quorum).
type controller struct {
	n     *node
	id    int32
	dirID [16]byte
	alive bool
	// observer: the controller is not a voter of the metadata quorum
	// (a dynamic quorum's controller started with
	// --no-initial-controllers, or a voter removed with
	// RemoveRaftVoter): it fetches the log as the brokers do, until
	// AddRaftVoter makes it a voter.
	observer bool
	// leo is how far its copy of the metadata log reaches; lastFetch and
	// lastCaughtUp are when it last fetched and was last caught up.
	leo                     int64
	lastFetch, lastCaughtUp time.Time
}

// topic is one topic: its id, partitions and config overrides.
type topic struct {
	name    string
	id      [16]byte
	parts   []*partition
	configs map[string]string
	// rate is the simulated producers' rate over all partitions, bytes/s.
	rate float64
}

// partition is one partition's registration (PartitionRecord and its
// PartitionChangeRecords) and its data.
type partition struct {
	replicas []int32
	// dirs are the log directory ids of the replicas (KIP-858).
	isr, elr, lastKnownELR []int32
	leader                 int32
	leaderEpoch, epoch     int32
	// recovering is the leader recovery state RECOVERING (KIP-704): an
	// unclean election's leader until it next grows the ISR.
	recovering bool
	// adding and removing are a reassignment's replicas (the target is
	// replicas minus removing).
	adding, removing []int32
	// log is the records produced to it (nil until the first).
	log *plog
	// size is the simulated bytes on the leader; rate the growth in
	// bytes/s; copied the bytes a new replica has copied, by broker.
	size   float64
	rate   float64
	copied map[int32]float64
}

// plog is a partition's records: record batches as producers sent them,
// each stamped with its base offset.
type plog struct {
	batches []batch
	hw      int64 // the next offset (log end = high watermark here)
	start   int64 // log start offset
}

// batch is one record batch, its header's base offset rewritten.
type batch struct {
	base, last int64 // first and last offset
	maxTS      int64
	raw        []byte
}
