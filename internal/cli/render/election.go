package render

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/internal/text"
)

// WriteElectionPreview prints what a preferred election will do, partition
// by partition: the leaders that move (from → to), those that cannot, with
// why and Kafka's error, and those already led by their preferred replica
// (only counted for --all-topic-partitions, whose report leaves them out
// as Kafka's does).
func WriteElectionPreview(w io.Writer, p *cluster.ElectionPlan) error {
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	scope := text.Count(len(p.Partitions), "partition")
	if p.All {
		scope = "all " + scope
	}
	if topics := electionTopics(p); len(topics) == 1 {
		scope += " of " + topics[0]
	} else if len(topics) > 1 {
		scope += " of " + text.Count(len(topics), "topic")
	}
	fmt.Fprintf(tw, "Preferred leader election of %s (the preferred replica is the first of each):\n", scope)
	if moving := p.With(cluster.ElectionWillMove); len(moving) > 0 {
		fmt.Fprintf(tw, "will move (%d):\n", len(moving))
		for _, ep := range moving {
			fmt.Fprintf(tw, "  %s\tleader %s -> %d\n", ep.String(), text.Broker(ep.Leader), ep.Preferred)
		}
	}
	if stuck := p.With(cluster.ElectionPreferredOffline, cluster.ElectionPreferredNotInISR,
		cluster.ElectionTopicBeingDeleted, cluster.ElectionNoState); len(stuck) > 0 {
		fmt.Fprintf(tw, "cannot move (%d):\n", len(stuck))
		for _, ep := range stuck {
			fmt.Fprintf(tw, "  %s\tleader %s\t%s%s\n", ep.String(), text.Broker(ep.Leader), ep.Reason(), kafkaError(ep.Verdict))
		}
	}
	if ok := p.With(cluster.ElectionNotNeeded); len(ok) > 0 {
		if p.All {
			fmt.Fprintf(tw, "not needed: %s already led by %s preferred replica (ELECTION_NOT_NEEDED)\n",
				text.Count(len(ok), "partition"), text.Plural(len(ok), "its", "their"))
		} else {
			fmt.Fprintf(tw, "not needed (%d), already led by the preferred replica (ELECTION_NOT_NEEDED):\n", len(ok))
			for _, ep := range ok {
				fmt.Fprintf(tw, "  %s\tleader %d\n", ep.String(), ep.Leader)
			}
		}
	}
	if len(p.Partitions) == 0 {
		fmt.Fprintln(tw, "no partitions")
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// electionTopics returns the topics of an election's partitions, in order.
func electionTopics(p *cluster.ElectionPlan) []string {
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
func kafkaError(v cluster.ElectionVerdict) string {
	switch v {
	case cluster.ElectionPreferredOffline, cluster.ElectionPreferredNotInISR:
		return " (PREFERRED_LEADER_NOT_AVAILABLE)"
	case cluster.ElectionTopicBeingDeleted:
		return " (INVALID_TOPIC_EXCEPTION)"
	case cluster.ElectionWillMove, cluster.ElectionNotNeeded, cluster.ElectionNoState, cluster.ElectionUnknown:
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
func WriteElectionResult(w io.Writer, r cluster.ElectionResult, all bool) error {
	var b strings.Builder
	if len(r.Elected) > 0 {
		fmt.Fprintf(&b, "Successfully completed leader election (PREFERRED) for partitions %s\n", cluster.JoinPartitions(r.Elected, ", "))
	}
	if len(r.NotNeeded) > 0 && !all {
		fmt.Fprintf(&b, "Valid replica already elected for partitions %s\n", cluster.JoinPartitions(r.NotNeeded, ", "))
	}
	for _, f := range r.Failed {
		msg := f.Message
		if f.Class != "" {
			msg = kafkaErrorsPackage + f.Class + ": " + msg
		}
		fmt.Fprintf(&b, "Error completing leader election (PREFERRED) for partition: %s: %s\n", f.String(), msg)
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		return err
	}
	if len(r.Failed) > 0 {
		return fmt.Errorf("%d replica(s) could not be elected", len(r.Failed))
	}
	return nil
}
