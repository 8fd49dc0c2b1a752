package clusterops

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/internal/text"
)

// Preferred leader election (spec §1.7, §4.11) as kafka-leader-election.sh
// --election-type preferred asks for it, carried out through ZooKeeper the
// way 2.8's kafka-preferred-replica-election.sh --zookeeper did: the
// partitions are written to /admin/preferred_replica_election, the
// controller runs the PreferredReplica election for each and deletes the
// znode. What the controller will do with each partition is decided here
// from a snapshot with the controller's own rule, so that it can be shown
// before anything is written.

// ElectionRequest names the partitions of an election: every partition
// (--all-topic-partitions), every partition of Topic (--topic without
// --partition, ktopo's addition), or Partitions (--topic with --partition,
// or --path-to-json-file).
type ElectionRequest struct {
	All        bool
	Topic      string
	Partitions []cluster.TopicPartition
	// Unclean asks for an unclean election (--election-type unclean): a
	// partition without a live leader gets one even from outside its ISR
	// (Kafka's Admin API only: KRaft clusters here).
	Unclean bool
}

// ElectionVerdict is what Kafka's controller does with one partition of a
// preferred election, decided from a snapshot.
type ElectionVerdict uint8

const (
	// ElectionWillMove: led by another broker, the preferred replica is
	// live and in the ISR: it is elected.
	ElectionWillMove ElectionVerdict = iota
	// ElectionNotNeeded: already led by its preferred replica
	// (ELECTION_NOT_NEEDED).
	ElectionNotNeeded
	// ElectionPreferredOffline: the preferred replica's broker is not
	// registered (PREFERRED_LEADER_NOT_AVAILABLE).
	ElectionPreferredOffline
	// ElectionPreferredNotInISR: the preferred replica is live but out of
	// the ISR (PREFERRED_LEADER_NOT_AVAILABLE).
	ElectionPreferredNotInISR
	// ElectionTopicBeingDeleted: skipped by the controller
	// (INVALID_TOPIC_EXCEPTION "The topic is being deleted").
	ElectionTopicBeingDeleted
	// ElectionNoState: the partition has no readable leader and ISR state
	// (not initialised yet, or a state znode that cannot be decoded).
	// Kafka's controller fails the whole election on such a partition
	// (and, from the znode, never deletes it), so it is never written.
	ElectionNoState
	// ElectionUnknown: not a partition of the cluster
	// (UNKNOWN_TOPIC_OR_PARTITION).
	ElectionUnknown
	// ElectionUncleanWillElect (unclean elections): no live leader, and a
	// live replica the controller elects (Target): the first live one of
	// the ISR, else of the eligible leader replicas, else of the
	// replicas, in assignment order.
	ElectionUncleanWillElect
	// ElectionLeaderLive (unclean elections): the partition has a live
	// leader (ELECTION_NOT_NEEDED).
	ElectionLeaderLive
	// ElectionNoLiveReplica (unclean elections): no replica is live
	// (ELIGIBLE_LEADERS_NOT_AVAILABLE).
	ElectionNoLiveReplica
)

// ElectionPartition is one partition of an election with its verdict and
// the state the verdict was drawn from.
type ElectionPartition struct {
	cluster.TopicPartition
	Verdict ElectionVerdict
	// Leader is the current leader (NoLeader when none); Preferred the
	// first replica (-1 for an unknown partition); ISR the current ISR,
	// Replicas the assignment.
	Leader, Preferred int
	ISR, Replicas     []int
	// Target is who the election makes leader: the preferred replica, or
	// in an unclean election the replica the controller picks (-1: none).
	Target int
	// Unclean: the target is out of the ISR and of the eligible leader
	// replicas (an unclean election: the records it lacks are lost).
	Unclean bool
}

// Written reports whether the partition goes into the znode: those the
// controller will try to elect (it, not the preview, has the last word).
func (p *ElectionPartition) Written() bool {
	switch p.Verdict {
	case ElectionWillMove, ElectionPreferredOffline, ElectionPreferredNotInISR, ElectionUncleanWillElect:
		return true
	case ElectionNotNeeded, ElectionTopicBeingDeleted, ElectionNoState, ElectionUnknown, ElectionLeaderLive, ElectionNoLiveReplica:
	}
	return false
}

// Reason says why a partition's leader cannot or need not move ("" for
// one that will move).
func (p *ElectionPartition) Reason() string {
	switch p.Verdict {
	case ElectionWillMove:
		return ""
	case ElectionNotNeeded:
		return "already led by its preferred replica " + strconv.Itoa(p.Preferred)
	case ElectionPreferredOffline:
		return "preferred replica " + strconv.Itoa(p.Preferred) + " is offline"
	case ElectionPreferredNotInISR:
		return "preferred replica " + strconv.Itoa(p.Preferred) + " is not in the ISR " + text.List(p.ISR)
	case ElectionTopicBeingDeleted:
		return "the topic is being deleted"
	case ElectionNoState:
		return "no leader and ISR state: the controller has not initialised the partition (or its state znode cannot be read)"
	case ElectionUnknown:
		return "the partition does not exist"
	case ElectionUncleanWillElect:
		return ""
	case ElectionLeaderLive:
		return "its leader " + strconv.Itoa(p.Leader) + " is live"
	case ElectionNoLiveReplica:
		return "no replica of " + text.List(p.Replicas) + " is live"
	}
	return ""
}

// ElectionPlan is a preferred election checked against a snapshot: every
// partition named with its verdict, and the znode that starts it.
type ElectionPlan struct {
	All bool
	// Unclean: an unclean election (ElectionRequest.Unclean).
	Unclean bool
	// Partitions are sorted by topic and partition.
	Partitions []ElectionPartition
	// Write is what the znode names: the partitions whose leader is not
	// their preferred replica and that the controller will try (Written),
	// in Partitions order. Empty: nothing to write.
	Write []cluster.TopicPartition
	// Path and JSON are the znode.
	Path string
	JSON []byte
	// Controller is the active controller's broker id, -1 when none is
	// registered (the election then runs when one is elected); on a KRaft
	// cluster the metadata quorum's leader, a controller and maybe no
	// broker.
	Controller int
}

// Count returns how many partitions have one of the verdicts.
func (p *ElectionPlan) Count(vs ...ElectionVerdict) int {
	n := 0
	for i := range p.Partitions {
		if slices.Contains(vs, p.Partitions[i].Verdict) {
			n++
		}
	}
	return n
}

// With returns the partitions that have one of the verdicts.
func (p *ElectionPlan) With(vs ...ElectionVerdict) []ElectionPartition {
	var out []ElectionPartition
	for i := range p.Partitions {
		if slices.Contains(vs, p.Partitions[i].Verdict) {
			out = append(out, p.Partitions[i])
		}
	}
	return out
}

// ElectionInProgressError is 2.8's refusal while
// /admin/preferred_replica_election exists: "Preferred replica leader
// election currently in progress for a-0,b-1. Aborting operation" (the
// pending partitions in the znode's order; Kafka's, from a Scala set, are
// in hash order beyond four).
func ElectionInProgressError(pending []cluster.TopicPartition) error {
	return kafkaErr(cluster.ClassAdminOperation, "Preferred replica leader election currently in progress for "+
		cluster.JoinPartitions(pending, ",")+". Aborting operation")
}

// PlanPreferredElection decides, for every partition req names, what
// Kafka's controller will do (KafkaController.processReplicaLeaderElection
// with the PreferredReplica strategy: unknown partitions and topics being
// deleted are skipped, a partition already led by its first replica needs
// no election, any other is elected when its first replica is live and in
// the ISR), and builds the znode. It refuses, writing nothing, while an
// election is pending (Kafka's message) and when a named partition does
// not exist (Kafka's tools would elect the others; ktopo takes a typo for a
// mistake).
func PlanPreferredElection(s *cluster.Snapshot, req ElectionRequest) (*ElectionPlan, error) {
	if pe := s.PendingPreferredElection(); pe != nil {
		return nil, ElectionInProgressError(pe.Partitions)
	}
	plan := &ElectionPlan{All: req.All, Path: cluster.PreferredReplicaElectionPath, Controller: -1}
	if c := s.Controller(); c.BrokerID >= 0 && (s.KRaft() != nil || s.IsLive(c.BrokerID)) {
		plan.Controller = c.BrokerID
	}
	add := func(ep ElectionPartition) {
		if ep.Written() {
			plan.Write = append(plan.Write, ep.TopicPartition)
		}
		plan.Partitions = append(plan.Partitions, ep)
	}
	var unknown []cluster.TopicPartition
	switch {
	case req.All:
		plan.Partitions = make([]ElectionPartition, 0, s.Health().Partitions)
		// Topics and their partitions come sorted.
		for _, t := range s.Topics() {
			for _, p := range t.Partitions {
				if p.InAssignment {
					add(electionVerdict(s, t, p))
				}
			}
		}
	case req.Topic != "":
		t := s.Topic(req.Topic)
		if t == nil {
			return nil, cluster.TopicDoesNotExistError(req.Topic)
		}
		for _, p := range t.Partitions {
			if p.InAssignment {
				add(electionVerdict(s, t, p))
			}
		}
	default:
		names := slices.Clone(req.Partitions)
		slices.SortFunc(names, func(a, b cluster.TopicPartition) int {
			if c := strings.Compare(a.Topic, b.Topic); c != 0 {
				return c
			}
			return a.Partition - b.Partition
		})
		for _, tp := range names {
			t := s.Topic(tp.Topic)
			var p *cluster.Partition
			if t != nil {
				p = t.Partition(tp.Partition)
			}
			if p == nil || !p.InAssignment || len(p.Replicas) == 0 {
				unknown = append(unknown, tp)
				plan.Partitions = append(plan.Partitions, ElectionPartition{TopicPartition: tp, Verdict: ElectionUnknown, Leader: cluster.NoLeader, Preferred: -1})
				continue
			}
			add(electionVerdict(s, t, p))
		}
	}
	if len(unknown) > 0 {
		return nil, kafkaErr(cluster.ClassUnknownTopicOrPartition, fmt.Sprintf("The %s not exist: %s (nothing was written)",
			text.Plural(len(unknown), "partition does", "partitions do"), cluster.JoinPartitions(unknown, ", ")))
	}
	plan.JSON = cluster.EncodePartitionsNotification(plan.Write)
	if n := len(plan.JSON); n > MaxZnodeData {
		return nil, kafkaErr(cluster.ClassAdminOperation, fmt.Sprintf(
			"The election of %d partitions is %d bytes of JSON, and Kafka's ZooKeeper clients read at most %d bytes per znode (jute.maxbuffer): elect fewer partitions at a time (--topic, --path-to-json-file)",
			len(plan.Write), n, MaxZnodeData))
	}
	return plan, nil
}

// electionVerdict applies the controller's checks, in its order, to
// partition p of t (one of its assignment).
func electionVerdict(s *cluster.Snapshot, t *cluster.Topic, p *cluster.Partition) ElectionPartition {
	ep := ElectionPartition{TopicPartition: cluster.TopicPartition{Topic: t.Name, Partition: p.ID}, Leader: cluster.NoLeader, Preferred: -1, ISR: p.ISR}
	if len(p.Replicas) > 0 {
		ep.Preferred = p.Replicas[0]
	}
	ep.Replicas, ep.Target = p.Replicas, ep.Preferred
	if p.HasState && p.StateErr() == nil {
		ep.Leader = p.Leader
	}
	switch {
	case t.MarkedForDeletion:
		ep.Verdict = ElectionTopicBeingDeleted
	case !p.HasState || p.StateErr() != nil:
		ep.Verdict = ElectionNoState
	case ep.Preferred < 0:
		ep.Verdict = ElectionUnknown
	case p.Leader == ep.Preferred:
		ep.Verdict = ElectionNotNeeded
	case !s.IsLive(ep.Preferred):
		ep.Verdict = ElectionPreferredOffline
	case !slices.Contains(p.ISR, ep.Preferred):
		ep.Verdict = ElectionPreferredNotInISR
	default:
		ep.Verdict = ElectionWillMove
	}
	return ep
}

// ElectionFailure is one partition a preferred election did not elect,
// with the error Kafka's Admin API would report for it: the exception's
// simple class name (empty for a ktopo message) and its message.
type ElectionFailure struct {
	cluster.TopicPartition
	Class, Message string
}

// ElectionResult is how an election ended, in Kafka's three groups.
type ElectionResult struct {
	Elected, NotNeeded []cluster.TopicPartition
	Failed             []ElectionFailure
}

// PreferredReplicaStrategy is the strategy's name in the controller's
// failure message.
const PreferredReplicaStrategy = "PreferredReplicaPartitionLeaderElectionStrategy"

// Result is the election's outcome once the controller has deleted the
// znode: leader gives each written partition's leader as of then. A written
// partition led by its preferred replica was elected; any other failed with
// PREFERRED_LEADER_NOT_AVAILABLE and the controller's message. Partitions
// that were not written end as the controller would have ended them:
// ELECTION_NOT_NEEDED, or the topic being deleted.
func (p *ElectionPlan) Result(leader func(cluster.TopicPartition) int) ElectionResult {
	var r ElectionResult
	for i := range p.Partitions {
		ep := &p.Partitions[i]
		switch ep.Verdict {
		case ElectionWillMove, ElectionPreferredOffline, ElectionPreferredNotInISR:
			if leader(ep.TopicPartition) == ep.Preferred {
				r.Elected = append(r.Elected, ep.TopicPartition)
			} else {
				r.Failed = append(r.Failed, ElectionFailure{ep.TopicPartition, cluster.ClassPreferredLeaderNotAvailable,
					"Failed to elect leader for partition " + ep.String() + " under strategy " + PreferredReplicaStrategy})
			}
		case ElectionNotNeeded:
			r.NotNeeded = append(r.NotNeeded, ep.TopicPartition)
		case ElectionTopicBeingDeleted:
			r.Failed = append(r.Failed, ElectionFailure{ep.TopicPartition, cluster.ClassInvalidTopic, "The topic is being deleted"})
		case ElectionNoState:
			r.Failed = append(r.Failed, ElectionFailure{ep.TopicPartition, "",
				"not elected: " + ep.Reason() + "; Kafka's controller fails a whole election on such a partition, so it was left out"})
		case ElectionUnknown:
			r.Failed = append(r.Failed, ElectionFailure{ep.TopicPartition, cluster.ClassUnknownTopicOrPartition, "The partition does not exist."})
		case ElectionUncleanWillElect:
			if l := leader(ep.TopicPartition); l >= 0 {
				r.Elected = append(r.Elected, ep.TopicPartition)
			} else {
				r.Failed = append(r.Failed, ElectionFailure{ep.TopicPartition, "EligibleLeadersNotAvailableException", "Eligible topic partition leaders are not available"})
			}
		case ElectionLeaderLive:
			r.NotNeeded = append(r.NotNeeded, ep.TopicPartition)
		case ElectionNoLiveReplica:
			r.Failed = append(r.Failed, ElectionFailure{ep.TopicPartition, "EligibleLeadersNotAvailableException", "Eligible topic partition leaders are not available"})
		}
	}
	return r
}

// PlanElection plans the election req asks for: a preferred one
// (PlanPreferredElection) or an unclean one. An unclean election names
// the partitions without a live leader; for each, Kafka's controller
// elects the first live replica (assignment order) of the ISR, else (the
// ISR empty) of the eligible leader replicas, else of all the replicas,
// which is then unclean; a partition with a live leader needs none
// (ELECTION_NOT_NEEDED), one without a live replica gets none
// (ELIGIBLE_LEADERS_NOT_AVAILABLE). A named partition that does not
// exist refuses the whole election, as for a preferred one.
func PlanElection(s *cluster.Snapshot, req ElectionRequest) (*ElectionPlan, error) {
	if !req.Unclean {
		return PlanPreferredElection(s, req)
	}
	plan := &ElectionPlan{All: req.All, Unclean: true, Controller: -1}
	if c := s.Controller(); c.BrokerID >= 0 {
		plan.Controller = c.BrokerID
	}
	add := func(t *cluster.Topic, p *cluster.Partition) {
		ep := uncleanVerdict(s, t, p)
		if ep.Written() {
			plan.Write = append(plan.Write, ep.TopicPartition)
		}
		plan.Partitions = append(plan.Partitions, ep)
	}
	var unknown []cluster.TopicPartition
	switch {
	case req.All:
		for _, t := range s.Topics() {
			for _, p := range t.Partitions {
				if p.InAssignment {
					add(t, p)
				}
			}
		}
	case req.Topic != "":
		t := s.Topic(req.Topic)
		if t == nil {
			return nil, cluster.TopicDoesNotExistError(req.Topic)
		}
		for _, p := range t.Partitions {
			if p.InAssignment {
				add(t, p)
			}
		}
	default:
		names := slices.Clone(req.Partitions)
		slices.SortFunc(names, cluster.CompareTopicPartitions)
		for _, tp := range names {
			t := s.Topic(tp.Topic)
			var p *cluster.Partition
			if t != nil {
				p = t.Partition(tp.Partition)
			}
			if p == nil || !p.InAssignment || len(p.Replicas) == 0 {
				unknown = append(unknown, tp)
				continue
			}
			add(t, p)
		}
	}
	if len(unknown) > 0 {
		return nil, kafkaErr(cluster.ClassUnknownTopicOrPartition, fmt.Sprintf("The %s not exist: %s (nothing was written)",
			text.Plural(len(unknown), "partition does", "partitions do"), cluster.JoinPartitions(unknown, ", ")))
	}
	return plan, nil
}

// uncleanVerdict is what the controller does with partition p of t in an
// unclean election.
func uncleanVerdict(s *cluster.Snapshot, t *cluster.Topic, p *cluster.Partition) ElectionPartition {
	ep := ElectionPartition{TopicPartition: cluster.TopicPartition{Topic: t.Name, Partition: p.ID}, Leader: cluster.NoLeader,
		Preferred: -1, ISR: p.ISR, Replicas: p.Replicas, Target: -1}
	if len(p.Replicas) > 0 {
		ep.Preferred = p.Replicas[0]
	}
	if p.HasState && p.StateErr() == nil {
		ep.Leader = p.Leader
	}
	firstLive := func(of []int, any bool) int {
		for _, r := range p.Replicas {
			if s.IsLive(r) && (any || slices.Contains(of, r)) {
				return r
			}
		}
		return -1
	}
	switch {
	case t.MarkedForDeletion:
		ep.Verdict = ElectionTopicBeingDeleted
	case !p.HasState || p.StateErr() != nil:
		ep.Verdict = ElectionNoState
	case ep.Leader >= 0 && s.IsLive(ep.Leader):
		ep.Verdict = ElectionLeaderLive
	default:
		ep.Target = firstLive(p.ISR, false)
		if ep.Target < 0 && len(p.ISR) == 0 && len(p.ELR()) > 0 {
			ep.Target = firstLive(p.ELR(), false)
		}
		if ep.Target < 0 {
			ep.Target = firstLive(nil, true)
			ep.Unclean = ep.Target >= 0
		}
		ep.Verdict = ElectionUncleanWillElect
		if ep.Target < 0 {
			ep.Verdict = ElectionNoLiveReplica
		}
	}
	return ep
}
