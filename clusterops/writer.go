package clusterops

import (
	"context"
	"strconv"

	"github.com/ktopo/ktopo/cluster"
)

// The write port. Every write ktopo makes to a cluster, from the command
// line or a wizard, is one call of a Writer, whichever way the cluster is
// written: ZooKeeper (ZooKeeperWriter: the multis of this package, behind
// the migration guard) or the Kafka protocol (package kafkaops, for a
// KRaft cluster). The plans the previews show are made before, by the
// same functions for both (PlanTopic, PlanAddPartitions, CheckReassignment,
// PlanPreferredElection, …); a Writer turns a plan into the writes of its
// kind, describes them exactly, and sends them.

// Target is how a Writer reaches the cluster.
type Target uint8

const (
	// ZooKeeper: one multi per write, through the cluster's ZooKeeper.
	ZooKeeper Target = iota
	// Kafka: Kafka's Admin API requests (KRaft clusters).
	Kafka
)

func (t Target) String() string {
	if t == Kafka {
		return "Kafka"
	}
	return "ZooKeeper"
}

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
	Target Target
	Steps  []WriteStep
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
	return WritesTitle(w.Target, len(w.Steps))
}

// WritesTitle is Writes.Title for n steps to target.
func WritesTitle(t Target, n int) string {
	switch {
	case t == Kafka && n > 1:
		return "Sent as " + strconv.Itoa(n) + " Kafka requests, one after the other"
	case t == Kafka:
		return "Sent as one Kafka request"
	case n > 1:
		return "Written in " + strconv.Itoa(n) + " steps, one ZooKeeper multi each"
	}
	return "Written in one ZooKeeper multi"
}

// Writer writes operations to a cluster. Each call takes a plan made on
// a snapshot (or what makes one) and a Mode; it returns the exact writes,
// and with Apply makes them. A failed Apply says whether anything was
// written (nothing, for a refused ZooKeeper multi or a Kafka request the
// cluster refused; MaybeWritten for a reply that was lost).
type Writer interface {
	// Target is how the writes reach the cluster.
	Target() Target

	// Verdict is what a write would meet as s shows the cluster, for a
	// preview (no I/O): through ZooKeeper, the ZooKeeper to KRaft
	// migration guard's verdict; through Kafka, always go ahead.
	Verdict(s *cluster.Snapshot) cluster.WriteVerdict
	// Check is Verdict on a fresh read, right before a command writes.
	Check(ctx context.Context) (cluster.WriteVerdict, error)
	// Confirm returns the writer with a warning the operator confirmed
	// (a ZooKeeper write while a migration is being prepared).
	Confirm(v cluster.WriteVerdict) Writer

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
	// AddReassignment is StartReassignment with --additional
	// (CheckAdditionalReassignment): the reassignments in progress stay,
	// and one of rs's partitions gets rs's target instead; ZooKeeper has
	// no way to do it.
	AddReassignment(ctx context.Context, s *cluster.Snapshot, rs []cluster.Reassignment, throttle int64, m Mode) (*ReassignPlan, Writes, error)
	// CancelReassignment cancels the reassignments of the partitions (the
	// replicas go back to those they had before); ZooKeeper has no way to
	// do it.
	CancelReassignment(ctx context.Context, tps []cluster.TopicPartition, m Mode) (Writes, error)
	// RemoveThrottles is what --verify does with the throttles of rs
	// once they are done (see the package function RemoveThrottles).
	RemoveThrottles(ctx context.Context, s *cluster.Snapshot, rs []cluster.Reassignment, m Mode) (cleared *ThrottleClear, kept []string, w Writes, err error)
	// Elect starts the plan's election. Through ZooKeeper the controller
	// carries it out later (result nil: follow the snapshots); Kafka's
	// controller answers with each partition's result.
	Elect(ctx context.Context, p *ElectionPlan, m Mode) (Writes, *ElectionResult, error)
	// Cordon cordons a broker's log directories (KIP-1066: it gets no new
	// partition), or uncordons them; a KRaft cluster of Kafka 4.3+ only.
	Cordon(ctx context.Context, broker int, cordon bool, m Mode) (Writes, error)
}

// VerdictOf is the verdict a preview shows for a write through w (nil: a
// session that cannot write, judged as ZooKeeper would).
func VerdictOf(w Writer, s *cluster.Snapshot) cluster.WriteVerdict {
	if w == nil {
		return SnapshotVerdict(s)
	}
	return w.Verdict(s)
}
