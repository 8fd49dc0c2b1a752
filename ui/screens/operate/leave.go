package operate

import (
	"strconv"
	"strings"

	tea "charm.land/bubbletea/v2"
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

// stopping: the step in flight is not finished yet (the election not
// written, the drain's multi or the throttles' removal not answered).
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
			" is written: the controller moves their leaders off broker " + b + "); the drain's reassignment was not written. To drain it: d on broker " + b + " in ktopo."}
	case r.leading() && r.lead.phase == leadElecting:
		return []string{"The drain of broker " + b + " is between its steps: its leaders are moving off broker " + b + " (their preferred election is written), its reassignment is not written yet. " +
			"Quitting leaves it unwritten: d on broker " + b + " in ktopo writes it later."}
	case r.leading() && final:
		return []string{"The drain of broker " + b + " stopped between its steps: " + r.reordered() + " but broker " + b + " still leads them, and their election is not written. " +
			"To finish the step: ktopo leader-election --election-type preferred --all-topic-partitions (or p in ktopo); then d on broker " + b + " drains it."}
	case r.leading():
		return []string{"The drain of broker " + b + " is between its steps: " + r.reordered() + " and broker " + b + " still leads them. " +
			"Quitting first finishes this step (their preferred election); the drain's reassignment is not written: d on broker " + b + " in ktopo writes it later."}
	case r.fr.Stage.Working() && r.throttled():
		return r.throttlesLeft(final)
	case r.removingThrottles():
		return []string{r.verb(formIng) + " " + r.subject() + " is removing its throttles: quitting waits for it."}
	}
	return nil
}

// reordered says how far the step's reorder went.
func (r *reassign) reordered() string {
	n := text.Count(len(r.lead.plan.Reorder), "partition")
	if len(r.lead.plan.Reorder) == 0 {
		return "the leaders of " + text.Count(len(r.lead.plan.Elect), "partition") + " are to move off it by a preferred election"
	}
	if !r.lead.wrote {
		return "the reorder of " + n + " (broker " + strconv.Itoa(r.broker) + " last) is being written"
	}
	return "the replicas of " + n + " are reordered (broker " + strconv.Itoa(r.broker) + " last)"
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
