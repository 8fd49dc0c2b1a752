package clusterops

import (
	"context"
	"errors"
	"strconv"

	"github.com/ktopo/ktopo/cluster"
)

// The write port. Every write ktopo makes to a cluster, from the command
// line or a wizard, is one call of a Writer, whichever way the cluster is
// written: ZooKeeper (package zkops' Writer: one multi each, behind the
// migration guard) or the Kafka protocol (package kafkaops, for a
// KRaft cluster). The plans the previews show are made before, by the
// same functions for both (PlanTopic, PlanAddPartitions, CheckReassignment,
// PlanPreferredElection, …); a Writer turns a plan into the writes of its
// kind, describes them exactly, and sends them.

// Mode is what a Writer call does with an operation.
type Mode uint8

const (
	// Describe builds the exact writes and sends nothing (it may read what
	// they depend on: which parents exist, the configs throttles change).
	Describe Mode = iota
	// Validate is a dry run: Describe, and where the cluster can check a
	// request without applying it (Kafka's validateOnly) it does.
	Validate
	// Apply writes (on Kafka, a request that has validateOnly is sent so
	// first, then for real).
	Apply
)

// Writes are an operation's exact writes, in the order they are sent:
// each step one ZooKeeper multi or one Kafka request, as lines.
type Writes struct {
	Backend cluster.Backend
	Steps   []WriteStep
}

// WriteStep is one multi or one request.
type WriteStep struct {
	// Title says what the step does, for a write in several steps ("the
	// throttles", "the reassignment").
	Title string
	Lines []string
}

// Lines are the steps' lines; when there are several, each step is headed
// by "first: <title>" or "then: <title>".
func (w Writes) Lines() []string {
	if len(w.Steps) == 1 {
		return w.Steps[0].Lines
	}
	var out []string
	for i, st := range w.Steps {
		head := "then: "
		if i == 0 {
			head = "first: "
		}
		out = append(out, head+st.Title)
		out = append(out, st.Lines...)
	}
	return out
}

// StepLines are the steps' lines, one slice per step.
func (w Writes) StepLines() [][]string {
	out := make([][]string, len(w.Steps))
	for i, st := range w.Steps {
		out[i] = st.Lines
	}
	return out
}

// Then appends o's steps to w's (a write made of others).
func (w Writes) Then(o Writes) Writes {
	w.Steps = append(w.Steps, o.Steps...)
	return w
}

// Title says how the writes are sent: "Written in one ZooKeeper multi",
// "Sent as 2 Kafka requests".
func (w Writes) Title() string {
	return WritesTitle(w.Backend, len(w.Steps))
}

// WritesTitle is Writes.Title for n steps to target.
func WritesTitle(b cluster.Backend, n int) string {
	switch {
	case b == cluster.ViaKafka && n > 1:
		return "Sent as " + strconv.Itoa(n) + " Kafka requests, one after the other"
	case b == cluster.ViaKafka:
		return "Sent as one Kafka request"
	case n > 1:
		return "Written in " + strconv.Itoa(n) + " steps, one ZooKeeper multi each"
	}
	return "Written in one ZooKeeper multi"
}

// Writer writes operations to a cluster: the core every backend does.
// Each call takes a plan made on a snapshot (or what makes one) and a
// Mode; it returns the exact writes, and with Apply makes them. A failed
// Apply says whether anything was written (nothing, for a refused
// ZooKeeper multi or a Kafka request the cluster refused; MaybeWritten
// for a reply that was lost). What only some backends can do is an
// optional capability, asked for by type: Guarded, Additive, Canceller,
// Cordoner, ConfigDescriber.
type Writer interface {
	// Backend is how the writes reach the cluster.
	Backend() cluster.Backend
	// Words are how its writes read in the wizards and commands.
	Words() *Words

	// CreateTopic creates the plan's topic with the plan's assignment
	// and configs.
	CreateTopic(ctx context.Context, p *TopicPlan, m Mode) (Writes, error)
	// MaybeWritten reports whether a failed write may have been applied
	// all the same (its reply was lost); VerifyCreate then finds out what
	// became of a creation, until ctx ends.
	MaybeWritten(err error) bool
	VerifyCreate(ctx context.Context, p *TopicPlan, err error) Outcome
	// AddPartitions adds the plans' partitions with their placement.
	AddPartitions(ctx context.Context, ps []*AddPartitionsPlan, m Mode) (Writes, error)
	// ReadConfig reads an entity's dynamic config (its overrides): what a
	// config change is planned on (PlanTopicConfigAlteration). version
	// is what the ZooKeeper write checks (-1: no config znode); Kafka's
	// incremental changes need none.
	ReadConfig(ctx context.Context, entityType, entity string) (entries []cluster.ConfigEntry, version int32, err error)
	// AlterConfigs changes entities' configs as planned.
	AlterConfigs(ctx context.Context, as []*ConfigAlteration, m Mode) (Writes, error)
	// DeleteTopic deletes a topic (through ZooKeeper: marks it for the
	// controller to delete).
	DeleteTopic(ctx context.Context, s *cluster.Snapshot, topic string, m Mode) (Writes, error)
	// StartReassignment starts reassigning rs with throttle (bytes per
	// second, -1 for none) as --execute does: Kafka's checks on s
	// (CheckReassignment), the throttles, the reassignment. The plan
	// comes back even when the write failed.
	StartReassignment(ctx context.Context, s *cluster.Snapshot, rs []cluster.Reassignment, throttle int64, m Mode) (*ReassignPlan, Writes, error)
	// RemoveThrottles is what --verify does with the throttles of rs
	// once they are done (see zkops.Writer.RemoveThrottles).
	RemoveThrottles(ctx context.Context, s *cluster.Snapshot, rs []cluster.Reassignment, m Mode) (cleared *ThrottleClear, kept []string, w Writes, err error)
	// Elect starts the plan's election. Through ZooKeeper the controller
	// carries it out later (result nil: follow the snapshots); Kafka's
	// controller answers with each partition's result.
	Elect(ctx context.Context, p *ElectionPlan, m Mode) (Writes, *ElectionResult, error)
}

// Guarded is a writer behind the ZooKeeper to KRaft migration guard
// (zkops.Writer): a write through ZooKeeper may be refused, or warned
// of, while a KRaft controller takes the metadata over. A writer without
// it always goes ahead (VerdictOf, CheckOf, ConfirmOf).
type Guarded interface {
	// Verdict is what a write would meet as s shows the cluster, for a
	// preview (no I/O).
	Verdict(s *cluster.Snapshot) cluster.WriteVerdict
	// Check is Verdict on a fresh read, right before a command writes.
	Check(ctx context.Context) (cluster.WriteVerdict, error)
	// Confirm returns the writer with a warning the operator confirmed
	// (a ZooKeeper write while a migration is being prepared).
	Confirm(v cluster.WriteVerdict) Writer
}

// Additive starts a reassignment while others run (kafka-reassign-
// partitions --additional): Kafka's Admin API can; ZooKeeper's
// /admin/reassign_partitions cannot.
type Additive interface {
	// AddReassignment is StartReassignment with --additional
	// (CheckAdditionalReassignment): the reassignments in progress stay,
	// and one of rs's partitions gets rs's target instead.
	AddReassignment(ctx context.Context, s *cluster.Snapshot, rs []cluster.Reassignment, throttle int64, m Mode) (*ReassignPlan, Writes, error)
}

// Canceller cancels reassignments in progress (--cancel): Kafka's Admin
// API can; ZooKeeper cannot.
type Canceller interface {
	// CancelReassignment cancels the reassignments of the partitions (the
	// replicas go back to those they had before).
	CancelReassignment(ctx context.Context, tps []cluster.TopicPartition, m Mode) (Writes, error)
}

// Cordoner cordons brokers (KIP-1066): a KRaft cluster's writer; the
// cluster itself must run Kafka 4.3+ (cluster.KRaft.CordonSupported).
type Cordoner interface {
	// Cordon cordons a broker's log directories (it gets no new
	// partition), or uncordons them.
	Cordon(ctx context.Context, broker int, cordon bool, m Mode) (Writes, error)
}

// Unregisterer removes a broker's registration (UnregisterBroker,
// KIP-500's kafka-cluster unregister): a KRaft cluster's writer. Kafka's
// controller removes any registration it is asked to, a live broker's
// too; the callers refuse first what should not be removed
// (cluster.JudgeUnregister).
type Unregisterer interface {
	UnregisterBroker(ctx context.Context, broker int, m Mode) (Writes, error)
}

// VoterChanger changes a dynamic metadata quorum's voters (KIP-853:
// AddRaftVoter, RemoveRaftVoter, what kafka-metadata-quorum
// add-controller and remove-controller send): a KRaft cluster's writer.
// Kafka's leader makes any change it can, one that leaves the quorum
// less able to lose a voter too; the callers refuse first what should
// not be changed (cluster.QuorumReport.PlanAddVoter, PlanRemoveVoter,
// VoterChangeEffect).
type VoterChanger interface {
	ChangeVoters(ctx context.Context, ch cluster.VoterChange, m Mode) (Writes, error)
}

// VerdictOf is the verdict a preview shows for a write through w: its
// guard's (Guarded), go ahead for a writer without one, or for none (a
// session that cannot write) the verdict ZooKeeper's guard would give.
func VerdictOf(w Writer, s *cluster.Snapshot) cluster.WriteVerdict {
	switch g, ok := w.(Guarded); {
	case ok:
		return g.Verdict(s)
	case w == nil:
		return SnapshotVerdict(s)
	}
	return cluster.WriteVerdict{}
}

// CheckOf is what a write through w meets right before a command writes
// (Guarded.Check; go ahead for a writer without a guard).
func CheckOf(ctx context.Context, w Writer) (cluster.WriteVerdict, error) {
	if g, ok := w.(Guarded); ok {
		return g.Check(ctx)
	}
	return cluster.WriteVerdict{}, nil
}

// ConfirmOf is w with a warning the operator confirmed (Guarded.Confirm;
// w itself without a guard).
func ConfirmOf(w Writer, v cluster.WriteVerdict) Writer {
	if g, ok := w.(Guarded); ok {
		return g.Confirm(v)
	}
	return w
}

// SnapshotVerdict is what a write through ZooKeeper would meet as the
// snapshot shows the cluster: the verdict a screen shows (no I/O) before
// the write; writeMulti judges again on a fresh read.
func SnapshotVerdict(s *cluster.Snapshot) cluster.WriteVerdict {
	return cluster.JudgeZooKeeperWrite(s.OwnerFacts())
}

// ErrAdditionalNeedsKafka is the refusal of --additional through
// ZooKeeper (a writer that is not Additive).
var ErrAdditionalNeedsKafka = errors.New("--additional needs Kafka's Admin API (AlterPartitionReassignments): through ZooKeeper a reassignment starts only when " +
	cluster.ReassignPartitionsPath + " is created, so nothing can be added to one in progress. Wait until it completes (ktopo reassign --verify)")

// ErrCancelNeedsKafka is the refusal to cancel a reassignment through
// ZooKeeper (a writer that is not a Canceller).
var ErrCancelNeedsKafka = errors.New("--cancel needs Kafka's Admin API (AlterPartitionReassignments): ZooKeeper has no way to cancel a reassignment. " +
	"Use kafka-reassign-partitions.sh --bootstrap-server … --cancel, or start a reassignment back to the current assignment once this one completes")

// ErrCordonNeedsKRaft is the refusal to cordon a broker of a ZooKeeper
// cluster (a writer that is not a Cordoner).
var ErrCordonNeedsKRaft = errors.New("cordoning a broker (KIP-1066, cordoned.log.dirs) is a KRaft cluster's, Kafka 4.3 or later: ZooKeeper-mode brokers cannot be cordoned")
