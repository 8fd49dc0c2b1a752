package render

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/clusterops"
	"github.com/ktopo/ktopo/internal/text"
)

// WriteElectionPreview prints what a preferred election will do, partition
// by partition: the leaders that move (from → to), those that cannot, with
// why and Kafka's error, and those already led by their preferred replica
// (only counted for --all-topic-partitions, whose report leaves them out
// as Kafka's does).
func WriteElectionPreview(w io.Writer, p *clusterops.ElectionPlan) error {
	if p.Unclean {
		return writeUncleanPreview(w, p)
	}
	var b strings.Builder
	scope := electionScope(p)
	fmt.Fprintf(&b, "Preferred leader election of %s (the preferred replica is the first of each):\n", scope)
	moving := p.With(clusterops.ElectionWillMove)
	stuck := p.With(clusterops.ElectionPreferredOffline, clusterops.ElectionPreferredNotInISR,
		clusterops.ElectionTopicBeingDeleted, clusterops.ElectionNoState)
	ok := p.With(clusterops.ElectionNotNeeded)
	listed := append(append(slices.Clone(moving), stuck...), ok...)
	if p.All {
		listed = listed[:len(moving)+len(stuck)]
	}
	// One column width for the whole preview, so that the lists line up.
	nameW, leaderW := 0, 0
	for _, ep := range listed {
		nameW = max(nameW, len(ep.String()))
		leaderW = max(leaderW, len(text.Broker(ep.Leader)))
	}
	line := func(ep clusterops.ElectionPartition, rest string) {
		fmt.Fprintf(&b, "  %-*s  leader %-*s%s\n", nameW, ep.String(), leaderW, text.Broker(ep.Leader), rest)
	}
	if len(moving) > 0 {
		fmt.Fprintf(&b, "will move (%d):\n", len(moving))
		for _, ep := range moving {
			line(ep, " -> "+strconv.Itoa(ep.Preferred))
		}
	}
	if len(stuck) > 0 {
		fmt.Fprintf(&b, "cannot move (%d):\n", len(stuck))
		for _, ep := range stuck {
			line(ep, "  "+ep.Reason()+kafkaError(ep.Verdict))
		}
	}
	switch {
	case len(ok) > 0 && p.All:
		fmt.Fprintf(&b, "not needed: %s already led by %s preferred replica (ELECTION_NOT_NEEDED)\n",
			text.Count(len(ok), "partition"), text.Plural(len(ok), "its", "their"))
	case len(ok) > 0:
		fmt.Fprintf(&b, "not needed (%d), already led by the preferred replica (ELECTION_NOT_NEEDED):\n", len(ok))
		for _, ep := range ok {
			line(ep, "")
		}
	}
	if len(p.Partitions) == 0 {
		b.WriteString("no partitions\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// electionScope names what an election covers: "all 12 partitions of
// orders", "3 partitions of 2 topics".
func electionScope(p *clusterops.ElectionPlan) string {
	scope := text.Count(len(p.Partitions), "partition")
	if p.All {
		scope = "all " + scope
	}
	if topics := electionTopics(p); len(topics) == 1 {
		scope += " of " + topics[0]
	} else if len(topics) > 1 {
		scope += " of " + text.Count(len(topics), "topic")
	}
	return scope
}

// writeUncleanPreview prints what an unclean election will do: the
// partitions without a live leader that get one (from → to, and whether
// it is unclean: from outside the ISR and the eligible leader replicas,
// losing what it lacks), those that cannot, and how many have a live
// leader.
func writeUncleanPreview(w io.Writer, p *clusterops.ElectionPlan) error {
	var b strings.Builder
	scope := electionScope(p)
	fmt.Fprintf(&b, "Unclean leader election of %s (only partitions without a live leader are elected):\n", scope)
	elect := p.With(clusterops.ElectionUncleanWillElect)
	stuck := p.With(clusterops.ElectionNoLiveReplica, clusterops.ElectionTopicBeingDeleted, clusterops.ElectionNoState)
	live := p.With(clusterops.ElectionLeaderLive)
	nameW := 0
	for _, ep := range append(slices.Clone(elect), stuck...) {
		nameW = max(nameW, len(ep.String()))
	}
	if len(elect) > 0 {
		fmt.Fprintf(&b, "will elect (%d):\n", len(elect))
		for _, ep := range elect {
			how := "in sync"
			if ep.Unclean {
				how = "UNCLEAN: not in the ISR, the records it lacks are lost"
			} else if !slices.Contains(ep.ISR, ep.Target) {
				how = "an eligible leader replica"
			}
			fmt.Fprintf(&b, "  %-*s  leader %s -> %d (%s)\n", nameW, ep.String(), text.Broker(ep.Leader), ep.Target, how)
		}
	}
	if len(stuck) > 0 {
		fmt.Fprintf(&b, "cannot elect (%d):\n", len(stuck))
		for _, ep := range stuck {
			fmt.Fprintf(&b, "  %-*s  %s\n", nameW, ep.String(), ep.Reason())
		}
	}
	if len(live) > 0 {
		fmt.Fprintf(&b, "not needed: %s with a live leader (ELECTION_NOT_NEEDED)\n", text.Count(len(live), "partition"))
	}
	if len(p.Partitions) == 0 {
		b.WriteString("no partitions\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// electionTopics returns the topics of an election's partitions, in order.
func electionTopics(p *clusterops.ElectionPlan) []string {
	var topics []string
	for _, ep := range p.Partitions {
		if n := len(topics); n == 0 || topics[n-1] != ep.Topic {
			topics = append(topics, ep.Topic)
		}
	}
	return topics
}

// kafkaError names the error Kafka's controller gives a partition that
// cannot move (none for one ktopo leaves out for its own reasons).
func kafkaError(v clusterops.ElectionVerdict) string {
	switch v {
	case clusterops.ElectionPreferredOffline, clusterops.ElectionPreferredNotInISR:
		return " (PREFERRED_LEADER_NOT_AVAILABLE)"
	case clusterops.ElectionTopicBeingDeleted:
		return " (INVALID_TOPIC_EXCEPTION)"
	case clusterops.ElectionWillMove, clusterops.ElectionNotNeeded, clusterops.ElectionNoState, clusterops.ElectionUnknown:
	}
	return ""
}

// kafkaErrorsPackage is where the Admin API's exceptions live: Kafka's
// tool prints a failure as the exception's toString.
const kafkaErrorsPackage = "org.apache.kafka.common.errors."

// WriteElectionResult prints an election's outcome in
// kafka-leader-election.sh's words (3.x): the partitions elected, those
// already led by their preferred replica (left out for
// --all-topic-partitions, as Kafka's broker leaves them out), and one line
// per failure. It returns Kafka's final error when a partition failed.
func WriteElectionResult(w io.Writer, r clusterops.ElectionResult, all, unclean bool) error {
	var b strings.Builder
	kind := "PREFERRED"
	if unclean {
		kind = "UNCLEAN"
	}
	if len(r.Elected) > 0 {
		fmt.Fprintf(&b, "Successfully completed leader election (%s) for partitions %s\n", kind, cluster.JoinPartitions(r.Elected, ", "))
	}
	if len(r.NotNeeded) > 0 && !all {
		fmt.Fprintf(&b, "Valid replica already elected for partitions %s\n", cluster.JoinPartitions(r.NotNeeded, ", "))
	}
	for _, f := range r.Failed {
		msg := f.Message
		if f.Class != "" {
			msg = kafkaErrorsPackage + f.Class + ": " + msg
		}
		fmt.Fprintf(&b, "Error completing leader election (%s) for partition: %s: %s\n", kind, f.String(), msg)
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		return err
	}
	if len(r.Failed) > 0 {
		return fmt.Errorf("%d replica(s) could not be elected", len(r.Failed))
	}
	return nil
}
