package operate

import (
	"context"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/clusterops"
	"github.com/ktopo/ktopo/internal/text"
	"github.com/ktopo/ktopo/ui/internal/cell"
	"github.com/ktopo/ktopo/ui/internal/wizard"
)

// A drain's leadership step (on by default, `L` turns it off): before
// the reassignment copies anything, the leaders leave the drained broker
// where Kafka allows it (clusterops.PlanLeadershipFirst): a reorder-only
// reassignment of the partitions whose first replica cannot be elected
// (the writer's StartReassignment, no throttle), once the controller has
// completed it a preferred election of every partition of the step
// (clusterops.PlanPreferredElection on that snapshot, the writer's
// Elect), once it is over the drain's moves re-planned on the snapshot
// then (clusterops.RebaseMoves: the targets previewed) and
// written as without the step. On a KRaft cluster that cordons the broker
// (cordon.go) the cordon goes between the reorder, which names the
// broker, and the election. Each step waits for the snapshots the shell
// pushes and moves on at the next tick, which runs in the background too.

// leadPhase is where the leadership step is.
type leadPhase uint8

const (
	leadNone      leadPhase = iota // not started
	leadReorder                    // the reorder is written: the controller completes it
	leadElect                      // the election's znode is being written
	leadElecting                   // written: the controller elects
	leadData                       // over: the drain's reassignment is being written
	leadElectWait                  // the reorder is done: the election is next
	leadDone                       // the drain's reassignment is written
	leadCordon                     // the broker is being cordoned (after the reorder)
)

// leading is a drain's leadership step: on (the default), its plan for
// the moves shown, its phase once written, whether it wrote anything (a
// failure then says so), when its phase began, whether the mirror showed
// its election, how many leaders it moved off, and whether the broker is
// to be cordoned once the reorder is accepted (not yet sent).
type leading struct {
	on     bool
	plan   *clusterops.LeadershipFirst
	phase  leadPhase
	wrote  bool
	at     time.Time
	seen   bool
	moved  int
	cordon bool
}

// leadGrace is how long an election whose znode the mirror never showed
// is waited for while the leaders do not move.
const leadGrace = 10 * time.Second

type (
	// leadWrittenMsg: the reorder's multi succeeded.
	leadWrittenMsg struct{}
	// leadElectionMsg: the election's znode was created.
	leadElectionMsg struct{}
)

// leadingFirst reports that the drain written now starts with the
// leadership step.
func (r *reassign) leadingFirst() bool {
	return r.drain() && r.lead.on && !r.lead.plan.Empty()
}

// leading reports that the leadership step is under way: the drain is
// written in steps, and its reassignment not yet.
func (r *reassign) leading() bool {
	return r.fr.Stage == wizard.StageWriting && r.lead.phase != leadNone && r.lead.phase != leadDone
}

// writeLeading starts a drain with its leadership step, once the step's
// plan made again on the newest snapshot is the one previewed: the
// reorder when there is one (the cordon, when due, once Kafka accepted
// it), else the cordon when due, else the election.
func (r *reassign) writeLeading(w clusterops.Writer) tea.Cmd {
	if fresh := clusterops.PlanLeadershipFirst(r.snap, r.broker, r.moves); !fresh.Same(r.lead.plan) {
		r.replanned(r, "the leaders changed since the preview. This is the new plan: check it and press enter again.")
		return nil
	}
	r.fr.Begin()
	r.lead.at = r.fr.Now()
	r.lead.wrote, r.lead.seen, r.lead.moved = false, false, 0
	r.lead.cordon = r.cordonFirst()
	switch {
	case len(r.lead.plan.Reorder) > 0:
		r.lead.phase = leadReorder
		reply, snap, reorder := r.fr.Reply(), r.snap, r.lead.plan.Reorder
		write := func() tea.Msg {
			if _, _, err := w.StartReassignment(context.Background(), snap, reorder, -1, clusterops.Apply); err != nil {
				return fail(reply, err)
			}
			return reply(leadWrittenMsg{})
		}
		return tea.Batch(write, r.fr.Tick(true))
	case r.lead.cordon:
		r.lead.phase = leadCordon
		return tea.Batch(r.cordon(w), r.fr.Tick(true))
	}
	r.lead.phase = leadElectWait
	return tea.Batch(r.leadStep(nil), r.fr.Tick(true))
}

// leadCordoned moves the step on once the broker is cordoned: the
// election is next once the reorder is done.
func (r *reassign) leadCordoned() tea.Cmd {
	r.cordoned, r.lead.cordon = true, false
	r.lead.phase = leadReorder
	if len(r.lead.plan.Reorder) == 0 {
		r.lead.phase = leadElectWait
	}
	return r.leadStep(nil)
}

// observeLeading counts the leaders moved off (each snapshot).
func (r *reassign) observeLeading() {
	r.lead.moved = r.lead.plan.MovedOff(r.snap)
	if r.snap.PendingPreferredElection() != nil && r.lead.phase == leadElecting {
		r.lead.seen = true
	}
}

// electionNames reports a pending preferred election naming every one of
// tps (the election the step wrote).
func electionNames(s *cluster.Snapshot, tps []cluster.TopicPartition) bool {
	pending := s.PendingPreferredElection()
	if pending == nil {
		return false
	}
	for _, tp := range tps {
		if !slices.Contains(pending.Partitions, tp) {
			return false
		}
	}
	return true
}

// leadStep moves the leadership step on when the newest snapshot shows
// the current phase over (msg: what the last write said, nil on a tick).
func (r *reassign) leadStep(msg tea.Msg) tea.Cmd {
	if !r.leading() {
		return nil
	}
	switch msg.(type) {
	case leadWrittenMsg:
		if r.lead.phase != leadReorder {
			return nil
		}
		r.lead.wrote = true
		if r.lead.cordon && !r.stopped {
			// Kafka accepted the reorder, which names the broker: it can
			// be cordoned now.
			r.lead.phase = leadCordon
			if w := r.fr.Writer(r.wr); w != nil {
				return r.cordon(w)
			}
		}
	case leadElectionMsg:
		r.lead.wrote = true
		r.lead.phase, r.lead.at = leadElecting, r.fr.Now()
	}
	r.observeLeading()
	reply, w, snap, lead := r.fr.Reply(), r.fr.Writer(r.wr), r.snap, r.lead.plan
	// A write's answer may never come: the TUI closed while it was in
	// flight, and App.Finish never sees it. What the cluster shows is
	// answer enough then.
	switch {
	case r.stopped && r.lead.phase == leadReorder && !r.lead.wrote && lead.Reordered(snap):
		r.lead.wrote = true
	case r.lead.phase == leadElect && (electionNames(snap, lead.Elect) || r.lead.moved == len(lead.Elect)):
		r.lead.wrote = true
		r.lead.phase, r.lead.at = leadElecting, r.fr.Now()
	}
	switch r.lead.phase {
	case leadReorder:
		if !r.lead.wrote || !lead.Reordered(snap) {
			return nil
		}
		r.lead.phase = leadElectWait
		fallthrough
	case leadElectWait:
		r.lead.phase = leadElect
		return func() tea.Msg {
			plan, err := clusterops.PlanPreferredElection(snap, clusterops.ElectionRequest{Partitions: lead.Elect})
			switch {
			case err == nil && w == nil:
				err = wizard.ErrNoWriter
			case err == nil && len(plan.Write) > 0:
				_, _, err = w.Elect(context.Background(), plan, clusterops.Apply)
			}
			if err != nil {
				return fail(reply, err)
			}
			return reply(leadElectionMsg{})
		}
	case leadElecting:
		if r.stopped {
			return nil // the step is finished: the drain is not written
		}
		pending := snap.PendingPreferredElection() != nil
		if pending || (r.lead.moved < len(lead.Elect) && !r.lead.seen && r.fr.Now().Sub(r.lead.at) < leadGrace) {
			return nil
		}
		moves, stale := clusterops.RebaseMoves(snap, r.moves, lead)
		if len(stale) > 0 {
			r.fr.Stage = wizard.StagePreview
			r.replan()
			r.noteErr("Leaders first done, the drain not written: " + text.Count(len(stale), "partition") + " changed otherwise (" + stale[0].String() +
				"…). This is the new plan: check it and press enter again.")
			return nil
		}
		r.lead.phase = leadData
		return startReassignment(reply, w, snap, moves, r.throttle)
	case leadNone, leadElect, leadData, leadDone, leadCordon:
	}
	return nil
}

// describeLeading shows the drain's writes in their order: the reorder's
// multi, the cordon (KRaft), the election's znode, the reassignment's
// multi as planned now (its checks are of the topic versions then).
func (r *reassign) describeLeading() tea.Cmd {
	w, snap, lead, cordon := r.wr, r.snap, r.lead.plan, r.cordonFirst()
	rs, throttle, broker := clusterops.MovesAsReassignments(r.moves), r.throttle, r.broker
	b := strconv.Itoa(broker)
	return r.fr.Describe(r.opsHead(), func() ([]string, [][]string, error) {
		ctx := context.Background()
		var lines []string
		var steps [][]string
		add := func(title string, ws clusterops.Writes) {
			for _, st := range ws.Steps {
				head := "then: "
				if len(steps) == 0 {
					head = "first: "
				}
				t := title
				if len(ws.Steps) > 1 {
					t += " — " + st.Title
				}
				lines = append(lines, head+t)
				lines = append(lines, st.Lines...)
				steps = append(steps, st.Lines)
			}
		}
		if len(lead.Reorder) > 0 {
			_, ws, err := w.StartReassignment(ctx, snap, lead.Reorder, -1, clusterops.Describe)
			if err != nil {
				return nil, nil, err
			}
			add("reorder "+text.Count(len(lead.Reorder), "partition")+" (none added: done at once)", ws)
		}
		if cordon {
			ws, err := cordonWrites(w, broker)
			if err != nil {
				return nil, nil, err
			}
			title := "cordon broker " + b + ": no new partition lands there"
			if len(lead.Reorder) > 0 {
				title += " (once the reorder, which names it, is accepted: Kafka refuses a reassignment naming a cordoned broker)"
			}
			add(title, ws)
		}
		ws, _, err := w.Elect(ctx, lead.ElectionPlan(snap), clusterops.Describe)
		if err != nil {
			return nil, nil, err
		}
		add("elect the preferred leaders of "+text.Count(len(lead.Elect), "partition"), ws)
		_, ws, err = w.StartReassignment(ctx, snap, rs, throttle, clusterops.Describe)
		if err != nil {
			return nil, nil, err
		}
		add("the drain, once "+b+" leads none"+w.Words().PlannedThen, ws)
		return lines, steps, nil
	})
}

// leadLine is the preview's line about the step: "6 leaders move off
// broker 3 to 1 (2), 2 (4)…" (reorderShown: a line of its own says the
// reorder), or that the leaders move with the copy.
func (r *reassign) leadLine(w int, reorderShown bool) (line string, on bool) {
	l := r.lead.plan
	if l.Empty() {
		return "", false
	}
	b := strconv.Itoa(r.broker)
	if !r.lead.on {
		return "the leaders move with the copy, at its end · L moves " + strconv.Itoa(len(l.Moves)) + " off broker " + b + " first", false
	}
	to := l.To()
	ids := make([]int, 0, len(to))
	for id := range to {
		ids = append(ids, id)
	}
	sort.Ints(ids)
	var parts []string
	for _, id := range ids {
		parts = append(parts, strconv.Itoa(id)+" ("+strconv.Itoa(to[id])+")")
	}
	s := text.Count(len(l.Moves), "leader") + text.Plural(len(l.Moves), " moves", " move") + " off broker " + b + " to " + strings.Join(parts, ", ")
	switch n := len(l.Reorder); {
	case reorderShown:
		s += " by a preferred election"
	case n > 0 && len(s) < w-67:
		s += " by a preferred election, " + strconv.Itoa(n) + " reordered before it"
	}
	return s + " · L turns this off", true
}

// cannotLine says which of the broker's leaders cannot move first.
func (r *reassign) cannotLine() string {
	if r.lead.plan == nil || len(r.lead.plan.Cannot) == 0 {
		return ""
	}
	n := len(r.lead.plan.Cannot)
	return text.Count(n, "partition") + " led by " + strconv.Itoa(r.broker) + " cannot move first (no other in-sync live replica: " +
		text.Plural(n, "its leader moves", "their leaders move") + " with the copy): " + cell.Clip(cluster.JoinPartitions(r.lead.plan.Cannot, ", "), 60)
}

// leadingHead is the progress's head while the step runs: the leaders
// moved off out of the step's, and what it waits for.
func (r *reassign) leadingHead(w int) []string {
	st, l := &r.st, r.lead.plan
	title := " " + st.Bold.S(r.verb(formIng)+" ") + st.Accent.S(r.subject()) + st.Muted.S("  ·  "+text.Count(len(r.moves), "partition")+
		"  ·  strategy "+r.strategy.String()+"  ·  throttle "+throttleText(r.throttle))
	if r.fr.CanPace() {
		title += st.Muted.S("  ·  sandbox pace " + r.fr.Pace().String())
	}
	b := strconv.Itoa(r.broker)
	counts := strconv.Itoa(r.lead.moved) + "/" + strconv.Itoa(len(l.Elect)) + " leaders moved off broker " + b
	var doing string
	now := stepElect
	switch r.lead.phase {
	case leadReorder:
		now = stepReorder
		doing = "reordering the replicas of " + text.Count(len(l.Reorder), "partition") + ", broker " + b + " last (none added: the controller completes it at once)"
		if r.lead.wrote && r.words().AppliedOnAnswer {
			doing = "the reorder of " + text.Count(len(l.Reorder), "partition") + " is accepted (broker " + b + " last): waiting for the brokers to show it"
			if r.cordoned {
				doing += "; broker " + b + " is cordoned"
			}
		}
	case leadCordon:
		now = stepCordon
		doing = "cordoning broker " + b + " (IncrementalAlterConfigs " + uncordonConfig + "=*)"
		if r.lead.wrote {
			doing += ", now that Kafka accepted the reorder"
		}
	case leadElect, leadElectWait, leadElecting:
		doing = "the preferred election of " + text.Count(len(l.Elect), "partition")
	case leadData:
		now = stepMoves
		doing = "writing the drain's reassignment"
	case leadNone, leadDone:
	}
	var next []string
	if i := slices.Index(r.written, now); i >= 0 {
		for _, stp := range r.written[i+1:] {
			switch stp {
			case stepCordon:
				if !r.cordoned {
					next = append(next, "cordon broker "+b)
				}
			case stepElect:
				next = append(next, "the election")
			case stepThrottles:
				next = append(next, "the throttles")
			case stepMoves:
				next = append(next, text.Count(len(r.moves), "partition")+" move (their replicas)")
			case stepReorder:
			}
		}
	}
	if len(next) > 0 {
		doing += "; then " + strings.Join(next, ", then ")
	}
	lp := clusterops.ReassignProgress{Partitions: make([]clusterops.PartitionReassignProgress, len(l.Elect))}
	lp.Count[cluster.ReassignDone] = r.lead.moved
	out := []string{cell.Clip(title, w),
		cell.Clip(" "+bar(st, &lp, barWidth(w))+st.Muted.S(" first: "+counts+" · "+elapsed(&r.fr)), w)}
	for _, x := range wizard.Wrap(doing, w, 1) {
		out = append(out, st.Muted.S(x))
	}
	return out
}
