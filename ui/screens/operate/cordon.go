package operate

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/clusterops"
	"github.com/ktopo/ktopo/internal/text"
	"github.com/ktopo/ktopo/ui/internal/cell"
	"github.com/ktopo/ktopo/ui/internal/wizard"
)

// A drain on a KRaft cluster of Kafka 4.3+ cordons its broker
// (cordoned.log.dirs=*, KIP-1066): no new partition lands there while it
// drains, and it stays cordoned. Kafka's controller refuses any manual
// assignment naming a cordoned broker
// (ReplicationControlManager.validateManualPartitionAssignment,
// clusterops.CheckKRaftManualPartition), and the leaders-first step's
// reorder is one that names the broker (last): so the reorder is sent
// first, the cordon once Kafka has accepted it, then the election and
// the moves, whose targets do not name the broker. A broker cordoned
// beforehand gets no reorder (clusterops.PlanLeadershipFirst): the
// leaders whose first replica is another broker move by the election,
// the others with the copy. The steps, in their order, are what the
// preview, `w`, the confirmation and the progress name.

// drainStep is one write of a reassignment, in the order sent.
type drainStep uint8

const (
	stepReorder   drainStep = iota // the leaders-first step's reorder
	stepCordon                     // the drained broker cordoned
	stepElect                      // the leaders-first step's election
	stepThrottles                  // the throttles (Kafka: a request of their own)
	stepMoves                      // the reassignment
)

// steps are the writes of the reassignment previewed, in their order.
func (r *reassign) steps() []drainStep {
	var out []drainStep
	lead := r.leadingFirst()
	if lead && len(r.lead.plan.Reorder) > 0 {
		out = append(out, stepReorder)
	}
	if r.cordonFirst() {
		out = append(out, stepCordon)
	}
	if lead {
		out = append(out, stepElect)
	}
	if r.words().ThrottlesApart && r.throttle >= 0 {
		out = append(out, stepThrottles)
	}
	return append(out, stepMoves)
}

// stepText is a step in the confirmation's few words.
func (r *reassign) stepText(st drainStep) string {
	b := strconv.Itoa(r.broker)
	switch st {
	case stepReorder:
		return "reorder " + text.Count(len(r.lead.plan.Reorder), "partition") + " (broker " + b + " last)"
	case stepCordon:
		return "cordon broker " + b + " (it stays cordoned)"
	case stepElect:
		return "elect " + text.Count(len(r.lead.plan.Elect), "leader") + " off broker " + b
	case stepThrottles:
		return "set the throttles (" + throttleText(r.throttle) + ")"
	case stepMoves:
	}
	return r.words().MovesStep
}

// cordonFirst reports a drain that cordons its broker before it moves
// any replica (KIP-1066: a KRaft cluster whose metadata.version is 4.3 or
// later, the broker not cordoned yet).
func (r *reassign) cordonFirst() bool {
	if !r.drain() || !r.canCordon() || r.snap == nil || r.cordoned || !r.snap.KRaft().CordonSupported() {
		return false
	}
	b, ok := r.snap.Broker(r.broker)
	return !ok || !b.Cordoned
}

// canCordon reports a writer that cordons brokers (clusterops.Cordoner:
// a KRaft cluster's).
func (r *reassign) canCordon() bool {
	_, ok := r.wr.(clusterops.Cordoner)
	return ok
}

// cordonedBefore reports a drained broker cordoned before the drain (by
// hand, or by an earlier drain).
func (r *reassign) cordonedBefore() bool {
	if !r.drain() || r.snap == nil || r.cordoned {
		return false
	}
	b, ok := r.snap.Broker(r.broker)
	return ok && b.Cordoned
}

// cordonedOthers are the cordoned brokers but the drained one, by id.
func (r *reassign) cordonedOthers() []int {
	var out []int
	if r.snap == nil {
		return nil
	}
	for _, b := range r.snap.Brokers() {
		if b.Cordoned && b.ID != r.broker {
			out = append(out, b.ID)
		}
	}
	return out
}

// cordonText is what cordoning the drained broker does, for the preview.
func (r *reassign) cordonText() string {
	return "cordon broker " + strconv.Itoa(r.broker) + " (" + uncordonConfig + "=*): no new partition lands there while it drains; it stays cordoned"
}

// stepLines are the preview's lines about the steps before the moves: the
// reorder, the cordon and the election in their order, or why a step is
// not taken (ink: Leader for what is written, Muted for what is not,
// Warning for cordoning a cluster cannot do).
func (r *reassign) stepLines(w int) []string {
	if !r.drain() || r.snap == nil {
		return nil
	}
	st, b := &r.st, strconv.Itoa(r.broker)
	var out []string
	add := func(ink func(string) string, s string) {
		for _, x := range wizard.Wrap(s, w, 1) {
			out = append(out, ink(x))
		}
	}
	switch {
	case r.cordonedBefore():
		add(st.Leader.S, "broker "+b+" is cordoned already: no new partition lands there")
	case r.canCordon() && !r.cordoned && !r.snap.KRaft().CordonSupported():
		add(st.Warning.S, "cordoning is not available (Kafka 4.3+, metadata.version 4.3-IV0): new partitions may still be placed on broker "+b+" while it drains")
	}
	steps := r.steps()
	split := slices.Contains(steps, stepReorder) && slices.Contains(steps, stepCordon)
	lead, on := r.leadLine(w, split)
	head := "first: "
	for _, s := range steps {
		switch s {
		case stepReorder:
			if !split {
				continue
			}
			add(st.Leader.S, head+"reorder "+text.Count(len(r.lead.plan.Reorder), "partition")+", broker "+b+" last (none added: done at once), before broker "+b+
				" is cordoned: Kafka refuses a reorder naming a cordoned broker")
		case stepCordon:
			add(st.Leader.S, head+r.cordonText())
		case stepElect:
			add(st.Leader.S, head+lead)
		case stepThrottles, stepMoves:
			continue
		}
		head = "then: "
	}
	if lead != "" && !on {
		add(st.Muted.S, lead)
	}
	return out
}

// cordonedLine says which of the broker's leaders move with the copy
// because their reorder would name a cordoned broker ("" for none).
func (r *reassign) cordonedLine() string {
	l := r.lead.plan
	if l == nil || len(l.Cordoned) == 0 {
		return ""
	}
	n := len(l.Cordoned)
	return text.Count(n, "partition") + " led by " + strconv.Itoa(r.broker) + text.Plural(n, " keeps its leader", " keep their leaders") +
		" until the copy: moving " + text.Plural(n, "it", "them") + " first needs a reorder, which Kafka refuses while " +
		text.Plural(len(l.CordonedBrokers), "broker ", "brokers ") + text.Ints(l.CordonedBrokers) + text.Plural(len(l.CordonedBrokers), " is", " are") +
		" cordoned: " + cell.Clip(cluster.JoinPartitions(l.Cordoned, ", "), 60)
}

// kraftRefusal is the KRaft controller's refusal of a move's target as
// the newest snapshot shows the brokers (a target naming a cordoned
// broker, or one not registered: clusterops.CheckKRaftManualPartition),
// nil when it would take every one. The planners leave cordoned brokers
// out; this catches a cordon that came since.
func (r *reassign) kraftRefusal() error {
	if r.snap == nil || r.snap.KRaft() == nil { // the rule is a KRaft controller's
		return nil
	}
	for _, m := range r.moves {
		if err := clusterops.CheckKRaftManualPartition(r.snap, m.Target, -1); err != nil {
			return fmt.Errorf("%s: %w (INVALID_REPLICA_ASSIGNMENT)", m.TopicPartition, err)
		}
	}
	return nil
}

// cordon is the command cordoning the drained broker (cordonedMsg once
// Kafka accepted it).
func (r *reassign) cordon(w clusterops.Writer) tea.Cmd {
	reply, broker := r.fr.Reply(), r.broker
	return func() tea.Msg {
		c, ok := w.(clusterops.Cordoner)
		if !ok {
			return fail(reply, clusterops.ErrCordonNeedsKRaft)
		}
		if _, err := c.Cordon(context.Background(), broker, true, clusterops.Apply); err != nil {
			return fail(reply, err)
		}
		return reply(cordonedMsg{})
	}
}

// uncordonConfig is the broker config that cordons a broker.
const uncordonConfig = "cordoned.log.dirs"

// uncordonHint says how to uncordon the drained broker.
func (r *reassign) uncordonHint() string {
	return "ktopo configs --entity-type brokers --entity-name " + strconv.Itoa(r.broker) + " --alter --delete-config " + uncordonConfig + " uncordons it"
}

// failedAdvice says, after a refusal, what was written and what to do:
// which steps were done (a cordon stays: uncordoning gives the drain up,
// it is no fix), and, when Kafka refused a manual assignment naming a
// broker cordoned since the preview, that the preview made again leaves
// that broker out where it can.
func (r *reassign) failedAdvice() string {
	b := strconv.Itoa(r.broker)
	again := "enter or esc goes back to the preview, made again from the newest snapshot"
	var done []string
	if r.lead.wrote && len(r.lead.plan.Reorder) > 0 {
		done = append(done, "the reorder of "+text.Count(len(r.lead.plan.Reorder), "partition")+" is written (broker "+b+" last)")
	}
	if r.cordoned {
		done = append(done, "broker "+b+" is cordoned and stays so (to give the drain up, "+r.uncordonHint()+")")
	}
	if r.lead.wrote && (r.lead.phase == leadElecting || r.lead.phase == leadData) {
		done = append(done, "the leaders it moved stay moved")
	}
	var s string
	switch {
	case len(done) > 0:
		s = strings.Join(done, "; ") + "; the drain's reassignment was not started"
		s = strings.ToUpper(s[:1]) + s[1:]
	default:
		s = r.words().Refused
	}
	if c, ok := clusterops.CordonedRefusal(r.err); ok {
		return s + ". Broker " + strconv.Itoa(c) + " was cordoned since the preview, and Kafka refuses a reassignment naming a cordoned broker: " +
			again + ", which leaves it out where it can (a leader on it then moves with the copy)."
	}
	return s + ". " + again + "."
}

// cordonWrites are the exact writes of cordoning broker through w (a
// clusterops.Cordoner).
func cordonWrites(w clusterops.Writer, broker int) (clusterops.Writes, error) {
	c, ok := w.(clusterops.Cordoner)
	if !ok {
		return clusterops.Writes{}, clusterops.ErrCordonNeedsKRaft
	}
	return c.Cordon(context.Background(), broker, true, clusterops.Describe)
}
