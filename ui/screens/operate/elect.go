package operate

import (
	"slices"
	"strconv"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/clusterops"
	"github.com/ktopo/ktopo/internal/text"
	"github.com/ktopo/ktopo/ui/internal/cell"
	"github.com/ktopo/ktopo/ui/internal/wizard"
	"github.com/ktopo/ktopo/ui/nav"
	"github.com/ktopo/ktopo/ui/theme"
)

// A preferred leader election, on any cluster: the plan is
// `ktopo leader-election --election-type preferred`'s
// (cluster.PlanPreferredElection: what Kafka's controller will do with
// each partition), the write its znode (cluster.StartPreferredElection),
// the progress each written partition's leader as the controller elects.

// replanElect decides every partition's verdict on the newest snapshot.
func (m *Model) replanElect() {
	m.elect, m.planErr = clusterops.PlanPreferredElection(m.snap, clusterops.ElectionRequest{All: m.topic == "", Topic: m.topic})
	m.moves, m.electRows = nil, nil
	var heatMoves []clusterops.PartitionMove
	if m.elect != nil {
		for _, ep := range m.elect.Partitions {
			if !ep.Written() {
				continue
			}
			m.electRows = append(m.electRows, ep)
			// A leader change only: the same replicas, the preferred first.
			mv := clusterops.PartitionMove{TopicPartition: ep.TopicPartition, Current: []int{ep.Leader, ep.Preferred}, Target: []int{ep.Preferred, ep.Leader}}
			m.moves = append(m.moves, mv)
			if ep.Verdict == clusterops.ElectionWillMove && ep.Leader >= 0 {
				heatMoves = append(heatMoves, mv)
			}
		}
	}
	m.showOps, m.opsRaw, m.ops, m.opsErr = false, nil, nil, nil
	m.opsSeq++
	m.pv.set(m.snap, heatMoves)
	m.pv.win.SetN(len(m.electRows))
	m.pv.colHeader = " LEADER → PREFERRED"
	m.pv.legend = "the partitions the znode names: their leader now → their preferred replica (first in the replica list)"
	m.pv.nameW = 12
	for _, ep := range m.electRows {
		m.pv.nameW = min(max(m.pv.nameW, len(ep.String())), 32)
	}
}

// electRow renders election row i.
func (m *Model) electRow(st *theme.Styles, i int) string {
	ep := &m.electRows[i]
	var b strings.Builder
	b.WriteByte(' ')
	b.WriteString(cell.Fit(cell.TopicPartition(ep.Topic, ep.Partition, m.pv.nameW), m.pv.nameW))
	b.WriteString("  ")
	b.WriteString(cell.FitRight(text.Broker(ep.Leader), 6))
	b.WriteString(" → ")
	if ep.Verdict == clusterops.ElectionWillMove {
		st.Leader.Put(&b, cell.Fit(strconv.Itoa(ep.Preferred), 6))
		st.Online.Put(&b, "moves")
	} else {
		st.Muted.Put(&b, cell.Fit(strconv.Itoa(ep.Preferred), 6))
		st.Warning.Put(&b, "cannot move: "+ep.Reason())
	}
	return cell.Clip(b.String(), m.w)
}

// electHeadLines are the lines above the map for an election.
func (m *Model) electHeadLines() []string {
	st := &m.st
	w := m.w
	out := []string{cell.Clip(" "+st.Bold.S("Preferred leader election")+st.Muted.S(" of ")+st.Accent.S(m.subject()), w)}
	if m.elect == nil {
		msg := "Planning…"
		if m.planErr != nil {
			msg = "No election: " + m.planErr.Error()
		}
		for _, l := range wizard.Wrap(msg, w, 1) {
			out = append(out, st.Error.If(m.planErr != nil).S(l))
		}
		return out
	}
	p := m.elect
	will := p.Count(clusterops.ElectionWillMove)
	cannot := p.Count(clusterops.ElectionPreferredOffline, clusterops.ElectionPreferredNotInISR)
	out = append(out, cell.Clip(" "+st.Online.S(text.Count(will, "leader")+" will move")+st.Muted.S(" · ")+
		st.Warning.S(strconv.Itoa(cannot)+" cannot (preferred replica offline or out of the ISR)")+st.Muted.S(" · "+
		strconv.Itoa(p.Count(clusterops.ElectionNotNeeded))+" already led by their preferred replica"), w))
	if n := p.Count(clusterops.ElectionTopicBeingDeleted, clusterops.ElectionNoState); n > 0 {
		out = append(out, cell.Clip(" "+st.Muted.S(text.Count(n, "partition")+" left out: being deleted, or no leader and ISR state yet"), w))
	}
	if p.Controller < 0 {
		out = append(out, st.Warning.S(" ⚠ no active controller: the election runs when one is elected"))
	}
	if len(p.Write) == 0 {
		out = append(out, " "+st.Online.S("Nothing to elect."))
	}
	if m.note != "" {
		for _, l := range wizard.Wrap(m.note, w, 1) {
			out = append(out, st.Error.If(m.noteErr).S(l))
		}
	}
	return out
}

// describeElection shows the znode's create (after its missing parents):
// an Exists per parent, so a Cmd.
func (m *Model) describeElection() tea.Cmd {
	z, plan, seq, id := m.opt.Writer, m.elect, m.opsSeq, m.id
	if z == nil || plan == nil {
		m.opsErr = errNoWriter
		return nil
	}
	return func() tea.Msg {
		ops, err := clusterops.ElectionOps(z, plan)
		var lines []string
		if err == nil {
			lines = clusterops.DescribeOps(ops)
		}
		return nav.TaskMsg{Task: id, Msg: opsDescribedMsg{seq: seq, lines: lines, err: err}}
	}
}

// writeElection re-plans on the newest snapshot and, when it names the
// same partitions, creates the znode.
func (m *Model) writeElection() tea.Cmd {
	shown := m.elect
	fresh, err := clusterops.PlanPreferredElection(m.snap, clusterops.ElectionRequest{All: m.topic == "", Topic: m.topic})
	if err != nil || !slices.Equal(fresh.Write, shown.Write) {
		m.replanElect()
		m.note, m.noteErr = "Not written: the leaders changed since the preview. This is the new election: check it and press enter again.", true
		if err != nil {
			m.note = "Not written: " + err.Error()
		}
		return nil
	}
	z := m.opt.Writer
	if z == nil {
		m.note, m.noteErr = errNoWriter.Error(), true
		return nil
	}
	m.stage = stageWriting
	m.started = m.now()
	m.sawPending = false
	id := m.id
	write := func() tea.Msg {
		if err := clusterops.StartPreferredElection(z, fresh); err != nil {
			return nav.TaskMsg{Task: id, Msg: reassignFailedMsg{err}}
		}
		return nav.TaskMsg{Task: id, Msg: electionStartedMsg{}}
	}
	return tea.Batch(write, m.tick())
}

// electGrace is how long an election whose znode the mirror never
// showed is waited for.
const electGrace = 30 * time.Second

// observeElect reads the written partitions' leaders. The election is
// over once the controller has deleted the znode (seen, or every
// partition it could elect elected); the partitions not led by their
// preferred replica then failed.
func (m *Model) observeElect() {
	if m.elect == nil {
		return
	}
	pending := m.snap.PendingPreferredElection() != nil
	if pending {
		m.sawPending = true
	}
	pr := clusterops.ReassignProgress{Partitions: make([]clusterops.PartitionReassignProgress, len(m.electRows))}
	waiting := 0
	for i, ep := range m.electRows {
		leader := cluster.NoLeader
		if t := m.snap.Topic(ep.Topic); t != nil {
			if p := t.Partition(ep.Partition); p != nil && p.HasLeader() {
				leader = p.Leader
			}
		}
		slot := cluster.ReassignPhase(0)
		switch {
		case leader == ep.Preferred:
			slot = 5
		case ep.Verdict == clusterops.ElectionWillMove:
			waiting++
		}
		pr.Partitions[i] = clusterops.PartitionReassignProgress{PartitionMove: m.moves[i], Leader: leader, Phase: slot}
	}
	// A controller quicker than the mirror deletes the znode before the
	// mirror reads it: after electGrace without it, the election is over.
	over := !pending && (m.sawPending || waiting == 0 || m.now().Sub(m.started) > electGrace)
	for i := range pr.Partitions {
		if over && pr.Partitions[i].Phase == 0 {
			pr.Partitions[i].Phase = 2
		}
		pr.Count[pr.Partitions[i].Phase]++
	}
	if !over && m.elect.Controller < 0 && m.snap.Controller().BrokerID < 0 {
		pr.Waiting = append(pr.Waiting, "no active controller: the election runs when one is elected")
	}
	m.pr = pr
	if m.stage == stageProgress && over {
		m.stage = stageDone
		m.finished = m.now()
	}
}

func (m *Model) electSummary() string {
	s := "Preferred leader election of " + m.subject() + ": " + strconv.Itoa(m.pr.Count[5]) + " elected"
	if n := m.pr.Count[2]; n > 0 {
		s += ", " + strconv.Itoa(n) + " not (preferred replica not available)"
	}
	if m.elect != nil {
		if n := m.elect.Count(clusterops.ElectionNotNeeded); n > 0 {
			s += ", " + strconv.Itoa(n) + " not needed"
		}
	}
	return s + " in " + m.finished.Sub(m.started).Round(1e6).String()
}
