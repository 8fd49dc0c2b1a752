package clusterwatch

import (
	"context"
	"errors"
	"time"

	"github.com/ktopo/ktopo/cluster"
)

// The port where a cluster's two sources meet (docs/architecture.md, "Two
// sources, one model"): the ZooKeeper mirror (package zksource) and the
// Kafka-protocol poller (package kafkawatch) both deliver Batches of node
// events in Kafka's ZooKeeper layout, plus, from a KRaft cluster, the
// facts that layout has no place for. The TUI, the command line and
// Watch read a Source; the screens read the snapshots and know neither.

// State is a source's connection state as a user sees it.
type State uint8

// Connection states.
const (
	// StateDisconnected: no server answers (the source keeps trying).
	StateDisconnected State = iota
	// StateConnecting: dialling, or waiting for a session.
	StateConnecting
	// StateConnected: requests flow.
	StateConnected
	// StateSessionLost: ZooKeeper expired the session, its watches with
	// it: what was delivered before is read again (the source resyncs).
	// Only a ZooKeeper source has sessions.
	StateSessionLost
	// StateUnresponsive: connected, but the server has not answered what
	// it was sent for a while: nothing it reported since may have arrived.
	StateUnresponsive
)

// String names the state for a status line.
func (s State) String() string {
	switch s {
	case StateDisconnected:
		return "disconnected"
	case StateConnecting:
		return "connecting"
	case StateConnected:
		return "connected"
	case StateSessionLost:
		return "session expired"
	case StateUnresponsive:
		return "unresponsive"
	}
	return "unknown"
}

// Progress counts a first load's reads: Done of Known (znodes read of
// those found so far through ZooKeeper; topics whose configs were read
// over the Kafka protocol).
type Progress struct {
	Done, Known int
	// Topics is, while a Kafka source's first load delivers a large
	// cluster's topics in pieces, how many of the Known topics are in so
	// far (0 once they all are, and for other sources).
	Topics int
}

// Batch is one delivery of a source.
type Batch struct {
	// Events are node events in Kafka's ZooKeeper layout, in write order:
	// cluster.Model.Apply's input.
	Events []cluster.NodeEvent
	// Reset, Partial, Loaded and Progress are zkwatch.Batch's: a complete
	// picture (every node not in it is gone), a piece of a first load
	// delivered as it goes, the batch that completes such a load, and the
	// load's progress.
	Reset, Partial, Loaded bool
	Progress               Progress
	// States are the connection states entered since the previous batch,
	// oldest first.
	States []State
	// KRaft, when not nil, is what the KRaft cluster says about itself as
	// of this batch (it changed); a ZooKeeper source never sets it.
	KRaft *cluster.KRaft
	// ELR are eligible leader replicas that changed (KRaft only).
	ELR []cluster.PartitionELR
}

// ApplyTo applies the batch to a model and returns the model's changes:
// the KRaft facts, the node events, then the eligible leader replicas.
func (b *Batch) ApplyTo(m *cluster.Model) []cluster.Change {
	if b.KRaft != nil {
		m.SetKRaft(b.KRaft)
	}
	changes := m.Apply(b.Events, b.Reset)
	if len(b.ELR) > 0 {
		m.ApplyELR(b.ELR)
	}
	return changes
}

// Stats are what a source says about itself for the status bar.
type Stats struct {
	// LastHeard is when the cluster last answered: what the source
	// delivered is current as of then.
	LastHeard time.Time
	// Counts are shown after the connection state ("1,234 znodes",
	// "12 ms a poll").
	Counts []Count
}

// Count is one figure of Stats.
type Count struct {
	N    int64
	Unit string
}

// Source is a cluster's live picture as batches. Next hands over one batch
// at a time: a consumer that is slow to ask makes the source coalesce (the
// mirror) or wait (the poller), never queue.
type Source interface {
	// Next waits for the next batch. It fails with ErrClosed once the
	// source is closed, or with ctx's error.
	Next(ctx context.Context) (Batch, error)
	// Stats returns the source's figures; safe from any goroutine.
	Stats() Stats
	// Backend says what the source reads through; Server names the
	// server it talks to now ("host:port").
	Backend() cluster.Backend
	Server() string
	// Close stops the source.
	Close() error
}

// ErrClosed is Next's error once the source is closed.
var ErrClosed = errors.New("the cluster source is closed")

// Probe is what a probe of one node of the tree screen read (a ZooKeeper
// source's znodes: zksource.Prober). Changed, when set, blocks until the
// node's children change or the watch ends (with the session); it may be
// set with an error too, when the listing worked and the data read did
// not.
type Probe struct {
	Children []string
	Data     []byte
	Stat     *cluster.Stat
	Changed  func()
	// Denied is what of the node ZooKeeper's ACL keeps from the session.
	Denied cluster.Access
}

// SizeSource is where a session's sizes come from: the brokers'
// DescribeLogDirs, read on a calm interval (kafkawatch.SizePoller), or a
// sandbox's simulation. Next waits for the next sizes (a Sizes whose Err
// says why they are unknown is an answer, not an error; an error means the
// source is closed or ctx ended). Hurry asks for sizes more often while
// something watches a move's progress.
type SizeSource interface {
	Next(ctx context.Context) (*cluster.Sizes, error)
	Hurry(on bool)
	Close() error
}
