package operate

import (
	"sort"
	"strconv"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/clusterops"
	"github.com/ktopo/ktopo/internal/text"
	"github.com/ktopo/ktopo/ui/internal/cell"
	"github.com/ktopo/ktopo/ui/nav"
)

// A drain's leadership step (on by default, `L` turns it off): before
// the reassignment copies anything, the leaders leave the drained broker
// where Kafka allows it (cluster.PlanLeadershipFirst): a reorder-only
// reassignment of the partitions whose first replica cannot be elected
// (cluster.PlanReassignment and ExecuteReassignment, no throttle), once
// the controller has completed it a preferred election of every partition
// of the step (cluster.PlanPreferredElection on that snapshot,
// StartPreferredElection), once it is over the drain's moves re-planned on
// the snapshot then (cluster.RebaseMoves: the targets previewed) and
// written as without the step. Each step waits for the snapshots the
// shell pushes and moves on at the next tick, which runs in the
// background too.

// leadPhase is where the leadership step is.
type leadPhase uint8

const (
	leadNone      leadPhase = iota // not started
	leadReorder                    // the reorder is written: the controller completes it
	leadElect                      // the election's znode is being written
	leadElecting                   // written: the controller elects
	leadData                       // over: the drain's reassignment is being written
	leadElectWait                  // the reorder is done: the election is next
)

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
func (m *Model) leadingFirst() bool {
	return m.kind == kindDrain && m.leadFirst && !m.lead.Empty()
}

// writeLeading starts a drain with its leadership step, once the step's
// plan made again on the newest snapshot is the one previewed.
func (m *Model) writeLeading() tea.Cmd {
	if fresh := clusterops.PlanLeadershipFirst(m.snap, m.broker, m.moves); !fresh.Same(m.lead) {
		m.replan()
		m.note, m.noteErr = "Not written: the leaders changed since the preview. This is the new plan: check it and press enter again.", true
		return nil
	}
	m.stage = stageLeading
	m.started, m.leadAt = m.now(), m.now()
	m.leadWrote, m.leadSeen, m.leadMoved = false, false, 0
	z, snap, lead, id := m.opt.Writer, m.snap, m.lead, m.id
	if len(lead.Reorder) == 0 {
		m.leadPhase = leadElectWait
		return tea.Batch(m.leadStep(nil), m.tick())
	}
	m.leadPhase = leadReorder
	write := func() tea.Msg {
		plan, err := clusterops.PlanReassignment(snap, z, lead.Reorder, -1)
		if err == nil {
			err = clusterops.ExecuteReassignment(z, plan)
		}
		if err != nil {
			return nav.TaskMsg{Task: id, Msg: reassignFailedMsg{err}}
		}
		return nav.TaskMsg{Task: id, Msg: leadWrittenMsg{}}
	}
	return tea.Batch(write, m.tick())
}

// observeLeading counts the leaders moved off (each snapshot).
func (m *Model) observeLeading() {
	m.leadMoved = m.lead.MovedOff(m.snap)
	if m.snap.PendingPreferredElection() != nil && m.leadPhase == leadElecting {
		m.leadSeen = true
	}
}

// leadStep moves the leadership step on when the newest snapshot shows
// the current phase over (msg: what the last write said, nil on a tick).
func (m *Model) leadStep(msg tea.Msg) tea.Cmd {
	if m.stage != stageLeading {
		return nil
	}
	switch msg.(type) {
	case leadWrittenMsg:
		m.leadWrote = true
	case leadElectionMsg:
		m.leadWrote = true
		m.leadPhase, m.leadAt = leadElecting, m.now()
	}
	m.observeLeading()
	z, snap, lead, id := m.opt.Writer, m.snap, m.lead, m.id
	switch m.leadPhase {
	case leadReorder:
		if !m.leadWrote || !lead.Reordered(snap) {
			return nil
		}
		m.leadPhase = leadElectWait
		fallthrough
	case leadElectWait:
		m.leadPhase = leadElect
		ok := z != nil
		return func() tea.Msg {
			plan, err := clusterops.PlanPreferredElection(snap, clusterops.ElectionRequest{Partitions: lead.Elect})
			switch {
			case err == nil && !ok:
				err = errNoWriter
			case err == nil && len(plan.Write) > 0:
				err = clusterops.StartPreferredElection(z, plan)
			}
			if err != nil {
				return nav.TaskMsg{Task: id, Msg: reassignFailedMsg{err}}
			}
			return nav.TaskMsg{Task: id, Msg: leadElectionMsg{}}
		}
	case leadElecting:
		pending := snap.PendingPreferredElection() != nil
		if pending || (m.leadMoved < len(lead.Elect) && !m.leadSeen && m.now().Sub(m.leadAt) < leadGrace) {
			return nil
		}
		moves, stale := clusterops.RebaseMoves(snap, m.moves, lead)
		if len(stale) > 0 {
			m.toPreview()
			m.note, m.noteErr = "Leaders first done, the drain not written: "+text.Count(len(stale), "partition")+" changed otherwise ("+stale[0].String()+
				"…). This is the new plan: check it and press enter again.", true
			return nil
		}
		m.leadPhase = leadData
		rs, throttle := clusterops.MovesAsReassignments(moves), m.throttle
		return func() tea.Msg {
			plan, err := clusterops.PlanReassignment(snap, z, rs, throttle)
			if err == nil {
				err = clusterops.ExecuteReassignment(z, plan)
			}
			if err != nil {
				return nav.TaskMsg{Task: id, Msg: reassignFailedMsg{err}}
			}
			return nav.TaskMsg{Task: id, Msg: reassignStartedMsg{plan}}
		}
	case leadNone, leadElect, leadData:
	}
	return nil
}

// describeLeading shows the drain's three writes in their order: the
// reorder's multi, the election's znode, the reassignment's multi as
// planned now (its checks are of the topic versions then).
func (m *Model) describeLeading() tea.Cmd {
	z, snap, lead, seq, id := m.opt.Writer, m.snap, m.lead, m.opsSeq, m.id
	rs, throttle, b := clusterops.MovesAsReassignments(m.moves), m.throttle, strconv.Itoa(m.broker)
	return func() tea.Msg {
		var lines []string
		var steps [][]string
		fail := func(err error) tea.Msg {
			return nav.TaskMsg{Task: id, Msg: opsDescribedMsg{seq: seq, err: err}}
		}
		if len(lead.Reorder) > 0 {
			plan, err := clusterops.PlanReassignment(snap, z, lead.Reorder, -1)
			if err != nil {
				return fail(err)
			}
			ops := clusterops.DescribeOps(plan.Ops)
			steps = append(steps, ops)
			lines = append(lines, "first: reorder "+text.Count(len(lead.Reorder), "partition")+" (none added: done at once)")
			lines = append(lines, ops...)
		}
		ops, err := clusterops.ElectionOps(z, lead.ElectionPlan(snap))
		if err != nil {
			return fail(err)
		}
		steps = append(steps, clusterops.DescribeOps(ops))
		lines = append(lines, "then: elect the preferred leaders of "+text.Count(len(lead.Elect), "partition"))
		lines = append(lines, steps[len(steps)-1]...)
		plan, err := clusterops.PlanReassignment(snap, z, rs, throttle)
		if err != nil {
			return fail(err)
		}
		steps = append(steps, clusterops.DescribeOps(plan.Ops))
		lines = append(lines, "then: the drain, once "+b+" leads none (versions as of then)")
		lines = append(lines, steps[len(steps)-1]...)
		return nav.TaskMsg{Task: id, Msg: opsDescribedMsg{seq: seq, lines: lines, steps: steps}}
	}
}

// leadLine is the preview's line about the step: "first: 6 leaders move
// off broker 3 to 1 (2), 2 (4)…", or that the leaders move with the copy.
func (m *Model) leadLine(w int) (line string, on bool) {
	l := m.lead
	if l.Empty() {
		return "", false
	}
	b := strconv.Itoa(m.broker)
	if !m.leadFirst {
		return "leaders move with the copy, at the end · L: " + strconv.Itoa(len(l.Moves)) + " off broker " + b + " first", false
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
	s := "first: " + text.Count(len(l.Moves), "leader") + " move off broker " + b + " to " + strings.Join(parts, ", ")
	if n := len(l.Reorder); n > 0 && len(s) < w-60 {
		s += " by a preferred election, " + strconv.Itoa(n) + " reordered before it"
	}
	return s + " · L: with the copy", true
}

// cannotLine says which of the broker's leaders cannot move first.
func (m *Model) cannotLine() string {
	if m.lead == nil || len(m.lead.Cannot) == 0 {
		return ""
	}
	n := len(m.lead.Cannot)
	return text.Count(n, "partition") + " led by " + strconv.Itoa(m.broker) + " cannot move first (no other in-sync live replica: " +
		text.Plural(n, "its leader moves", "their leaders move") + " with the copy): " + cell.Clip(cluster.JoinPartitions(m.lead.Cannot, ", "), 60)
}

// leadProgress is the progress line of the step: the leaders moved off
// out of the step's, and what it waits for.
func (m *Model) leadProgress() (counts, doing string) {
	l := m.lead
	counts = strconv.Itoa(m.leadMoved) + "/" + strconv.Itoa(len(l.Elect)) + " leaders moved off broker " + strconv.Itoa(m.broker)
	switch m.leadPhase {
	case leadReorder:
		doing = "reordering the replicas of " + text.Count(len(l.Reorder), "partition") + " (none added): the controller completes it at once"
	case leadElect, leadElectWait, leadElecting:
		doing = "the preferred election of " + text.Count(len(l.Elect), "partition")
	case leadData:
		doing = "writing the drain's reassignment"
	case leadNone:
	}
	return counts, doing
}
