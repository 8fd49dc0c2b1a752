package operate

import (
	"slices"
	"strconv"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/internal/text"
)

// Quitting the TUI while an operation is between two of its writes, or
// runs with throttles only the wizard would have removed, leaves
// something behind: the shell asks first and prints, once closed, what
// Leaving says (ui.Leaver). Stop then finishes the step in flight and
// starts no other: a drain's leaders-first step is finished (its
// election written once the controller has reordered the replicas), the
// drain's reassignment is not written.

// leaver is an operation quitting can leave half done.
type leaver interface {
	leaving(final bool) []string
	stop() tea.Cmd
	stopping() bool
}

// Leaving implements ui.Leaver.
func (m *Model) Leaving(final bool) []string {
	if l, ok := m.op.(leaver); ok {
		return l.leaving(final)
	}
	return nil
}

// Stop implements ui.Leaver.
func (m *Model) Stop() tea.Cmd {
	if l, ok := m.op.(leaver); ok {
		return l.stop()
	}
	return nil
}

// Stopping implements ui.Leaver.
func (m *Model) Stopping() bool {
	l, ok := m.op.(leaver)
	return ok && l.stopping()
}

// stop finishes the step in flight: the leaders-first step goes on to its
// election (the tick the closed TUI had pending is gone: a new one
// starts), throttles due to go are removed; the drain's reassignment is
// not written.
func (r *reassign) stop() tea.Cmd {
	r.stopped = true
	r.fr.Ticked()
	switch {
	case r.leading():
		return tea.Batch(r.leadStep(nil), r.fr.Tick(true))
	case r.unthrottle.phase == unthrottleDue:
		return r.clearThrottles()
	}
	return nil
}

// stopping: the step in flight is not finished yet (the reorder or the
// cordon not answered, the election not written, the drain's multi or the
// throttles' removal not answered).
func (r *reassign) stopping() bool {
	switch {
	case r.leading():
		return r.lead.phase != leadElecting
	case r.unthrottle.phase == unthrottleDue, r.unthrottle.phase == unthrottleRunning:
		return true
	}
	return false
}

func (r *reassign) leaving(final bool) []string {
	b := strconv.Itoa(r.broker)
	switch {
	case r.leading() && r.lead.phase == leadData:
		return []string{"The drain of broker " + b + " is writing its reassignment: quitting waits for the answer."}
	case r.leading() && r.lead.phase == leadElecting && final:
		return []string{"The drain of broker " + b + ": its leaders-first step is done (the preferred election of " + text.Count(len(r.lead.plan.Elect), "partition") +
			" is written: the controller moves their leaders off broker " + b + "); the drain's reassignment was not written" + r.cordonState() + ". To drain it: d on broker " + b + " in ktopo."}
	case r.leading() && r.lead.phase == leadElecting:
		return []string{"The drain of broker " + b + " is between its steps: its leaders are moving off broker " + b + " (their preferred election is written), its reassignment is not written yet. " +
			"Quitting leaves it unwritten: d on broker " + b + " in ktopo writes it later."}
	case r.leading() && final:
		finish := "To finish the step: "
		if r.reordersLeft() > 0 {
			finish = "To finish the step, once ktopo reassign --list shows none of them in progress: "
		}
		return []string{"The drain of broker " + b + " stopped between its steps: " + r.reordered() + " but broker " + b + " still leads them, and their election is not written" +
			r.cordonState() + ". " + finish + "ktopo leader-election --election-type preferred --all-topic-partitions (or p in ktopo); then d on broker " + b + " drains it."}
	case r.leading():
		then := "their preferred election"
		if r.lead.phase == leadCordon {
			then = "the cordon, then their preferred election"
		}
		if r.reordersLeft() > 0 {
			then += ", once the controller has done the reorder"
		}
		return []string{"The drain of broker " + b + " is between its steps: " + r.reordered() + " and broker " + b + " still leads them. " +
			"Quitting first finishes this step (" + then + "); the drain's reassignment is not written: d on broker " + b + " in ktopo writes it later."}
	case r.fr.Stage.Working() && r.throttled():
		return r.throttlesLeft(final)
	case r.removingThrottles():
		return []string{r.verb(formIng) + " " + r.subject() + " is removing its throttles: quitting waits for it."}
	}
	return nil
}

// cordonState says, once the TUI has closed mid-drain, whether the broker
// is cordoned ("" where cordoning means nothing).
func (r *reassign) cordonState() string {
	b := strconv.Itoa(r.broker)
	switch {
	case r.cordoned:
		return "; broker " + b + " is cordoned and stays so"
	case r.lead.cordon:
		return "; broker " + b + " is not cordoned (the drain cordons it)"
	}
	return ""
}

// reordered says how far the step's reorder went: being written, written
// with some partitions not reordered yet by the controller (a slow one:
// the reassignments still listed), or done.
func (r *reassign) reordered() string {
	n := text.Count(len(r.lead.plan.Reorder), "partition")
	b := strconv.Itoa(r.broker)
	switch left := r.reordersLeft(); {
	case len(r.lead.plan.Reorder) == 0:
		return "the leaders of " + text.Count(len(r.lead.plan.Elect), "partition") + " are to move off it by a preferred election"
	case !r.lead.wrote:
		return "the reorder of " + n + " (broker " + b + " last) is being written"
	case left > 0:
		return "the reorder of " + n + " (broker " + b + " last) is written, " + strconv.Itoa(left) + " of them still in progress (ktopo reassign --list shows " +
			text.Plural(left, "it", "them") + ")"
	}
	return "the replicas of " + n + " are reordered (broker " + b + " last)"
}

// reordersLeft counts the step's reorders the controller has not done
// yet, as the newest snapshot shows them (through ZooKeeper the
// controller carries the request out later; Kafka's controller has done a
// reorder when it accepts it, whatever the last poll showed).
func (r *reassign) reordersLeft() int {
	if r.snap == nil || r.lead.plan == nil || r.words().AppliedOnAnswer {
		return 0
	}
	n := 0
	for _, ro := range r.lead.plan.Reorder {
		p := partitionOf(r.snap, ro.TopicPartition)
		if p == nil || p.Reassigning() || !slices.Equal(p.Replicas, ro.Replicas) {
			n++
		}
	}
	if n == 0 && r.snap.PendingReassignment() != nil {
		n = len(r.lead.plan.Reorder) // requested, not started by the controller
	}
	return n
}

// partitionOf is a partition of s (nil: none).
func partitionOf(s *cluster.Snapshot, tp cluster.TopicPartition) *cluster.Partition {
	if t := s.Topic(tp.Topic); t != nil {
		return t.Partition(tp.Partition)
	}
	return nil
}

// throttlesLeft names the throttles a running reassignment leaves when
// ktopo quits, and what removes them; final adds the plan --verify reads.
func (r *reassign) throttlesLeft(final bool) []string {
	p := r.plan
	var on []string
	if n := len(p.ThrottledBrokers); n > 0 {
		on = append(on, text.Plural(n, "broker ", "brokers ")+text.Ints(p.ThrottledBrokers))
	}
	if n := len(p.TopicThrottles); n > 0 {
		topics := make([]string, n)
		for i, t := range p.TopicThrottles {
			topics[i] = t.Topic
		}
		on = append(on, text.Plural(n, "topic ", "topics ")+strings.Join(topics, ","))
	}
	what, name := "The reassignment of topic "+r.topic, "topic-"+r.topic
	if r.drain() {
		what, name = "The reassignment of broker "+strconv.Itoa(r.broker)+"'s drain", "drain-broker-"+strconv.Itoa(r.broker)
	}
	line := what + " (" + text.Count(len(p.Moves), "partition") + ") runs on without ktopo, and its throttles (" + throttleText(p.Throttle) + " on " +
		strings.Join(on, " and ") + ") stay until removed: "
	switch {
	case !final && r.savePlan != nil:
		return []string{line + "once it is done, ktopo reassign --verify removes them, from its plan (written to a file when ktopo exits)."}
	case !final:
		return []string{line + "once it is done, ktopo reassign --verify --reassignment-json-file FILE removes them, FILE holding its plan (printed when ktopo exits)."}
	}
	if r.savePlan != nil {
		path, verify, err := r.savePlan(name, p.NodeJSON)
		if err == nil {
			return []string{line + "once it is done,\n\n  " + verify + "\n\nremoves them (its plan is in " + path + ")."}
		}
		line += "writing its plan to a file failed (" + err.Error() + "); "
	}
	return []string{line + "once it is done, ktopo reassign --verify --reassignment-json-file FILE removes them, FILE holding its plan:", string(p.NodeJSON)}
}
