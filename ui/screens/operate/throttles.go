package operate

import (
	"context"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/ktopo/ktopo/clusterops"
	"github.com/ktopo/ktopo/internal/text"
	"github.com/ktopo/ktopo/ui/internal/wizard"
)

// A throttled reassignment's throttles are removed once every partition
// is done, as ktopo reassign --verify does then (cluster.PlanThrottleClear:
// the rates of every broker, the throttled-replica lists of the moved
// topics, in one version-checked multi): left behind, they would throttle
// the next catch-up of those replicas. The confirmation said so. When
// another reassignment is running then, the throttles stay (clearing the
// brokers' rates would lift its throttle too) and the summary names them
// and what removes them later. It starts with the next message the
// wizard gets after the last partition is done (done shows in a snapshot,
// which cannot return a command): a throttled reassignment keeps ticking,
// in the background too, so that one comes.

// unthrottlePhase is where the removal stands.
type unthrottlePhase uint8

const (
	unthrottleNone    unthrottlePhase = iota // no throttle, or not done yet
	unthrottleDue                            // done: the next tick starts it
	unthrottleRunning                        // its Cmd is out
	unthrottleEnded                          // cleared, kept or failed
)

// unthrottle is the removal and how it ended.
type unthrottle struct {
	phase   unthrottlePhase
	cleared *clusterops.ThrottleClear // what was cleared
	kept    []string                  // the throttles left, another reassignment running
	err     error
}

// throttlesMsg: the removal's outcome.
type throttlesMsg struct {
	cleared *clusterops.ThrottleClear
	kept    []string
	err     error
}

// removingThrottles: the reassignment is done, its throttles not yet
// removed (or kept).
func (r *reassign) removingThrottles() bool {
	return r.fr.Stage == wizard.StageDone && r.throttled() && r.unthrottle.phase != unthrottleEnded
}

// busy implements detacher: removing the throttles goes on in the
// background.
func (r *reassign) busy() bool { return r.removingThrottles() }

// throttled reports a reassignment written with a throttle.
func (r *reassign) throttled() bool { return r.plan != nil && r.plan.Throttle >= 0 }

// clearThrottles removes the throttles, or says which stay and why: I/O,
// so a Cmd holding copies.
func (r *reassign) clearThrottles() tea.Cmd {
	r.unthrottle.phase = unthrottleRunning
	reply, w, snap, rs := r.fr.Reply(), r.fr.Writer(r.wr), r.snap, clusterops.MovesAsReassignments(r.plan.Moves)
	return func() tea.Msg {
		c, kept, _, err := w.RemoveThrottles(context.Background(), snap, rs, clusterops.Apply)
		return reply(throttlesMsg{cleared: c, kept: kept, err: err})
	}
}

// throttlesDone records the removal's outcome.
func (r *reassign) throttlesDone(msg throttlesMsg) {
	if r.unthrottle.phase != unthrottleRunning {
		return
	}
	r.unthrottle = unthrottle{phase: unthrottleEnded, cleared: msg.cleared, kept: msg.kept, err: msg.err}
}

// throttlesLine is what the summary says of the throttles ("" without
// one).
func (r *reassign) throttlesLine() string {
	if !r.throttled() {
		return ""
	}
	u := &r.unthrottle
	switch {
	case u.phase != unthrottleEnded:
		return "removing the throttles…"
	case u.err != nil:
		return "the throttles could not be removed (" + u.err.Error() + "): ktopo reassign --verify removes them"
	case u.kept != nil || u.cleared == nil:
		if len(u.kept) == 0 {
			return "another reassignment is running; no throttle was left to remove"
		}
		return "the throttles stay on " + strings.Join(u.kept, ", ") + ": another reassignment is running, whose throttle removing them would lift; ktopo reassign --verify removes them once none runs"
	case len(u.cleared.Changes) == 0 && u.cleared.Blind:
		return "throttles removed from brokers " + text.Ints(u.cleared.Brokers) + " and topic" + text.Plural(len(u.cleared.Topics), " ", "s ") + strings.Join(u.cleared.Topics, ", ")
	case len(u.cleared.Changes) == 0:
		return "no throttle was left to remove"
	}
	return "throttles removed from " + u.cleared.Cleared().Names(0)
}
