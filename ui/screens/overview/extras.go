package overview

import (
	"strconv"
	"strings"

	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/internal/text"
	"github.com/ktopo/ktopo/ui/internal/cell"
	"github.com/ktopo/ktopo/ui/internal/heat"
	"github.com/ktopo/ktopo/ui/theme"
)

// What the overview shows below the cards when there is room: the load
// heat map with each broker's preferred-leader imbalance, and the
// reassignments in progress. Both are built in Update (SetSnapshot,
// SetSize); View only takes as many of their lines as fit.

// imbalanceHead names the heat map's note column.
var imbalanceHead = "preferred-leader imbalance (Kafka rebalances above " + strconv.Itoa(cluster.LeaderImbalancePerBrokerPercentage) + "%)"

// imbalanceNote is Kafka's leader imbalance of broker b (of the partitions
// it is the preferred leader of, the share led by others; topics being
// deleted left out) and what the automatic rebalance would do about it.
func imbalanceNote(st *theme.Styles, b cluster.BrokerBalance, live bool) (string, theme.Ink) {
	if b.Preferred == 0 {
		return "", st.Muted
	}
	s := "imbalance " + strconv.Itoa(b.Percent()) + "% (" + cell.Thousands(b.NotLed) + " of " + cell.Thousands(b.Preferred) + ")"
	switch {
	case b.NotLed == 0:
		return "imbalance 0%", st.Online
	case !live:
		return s + " · down", st.Danger
	case b.WouldRebalance():
		return s + " › the rebalance moves " + cell.Thousands(b.Movable) + " back", st.Warning
	case b.Imbalanced(cluster.LeaderImbalancePerBrokerPercentage):
		return s + " · none in sync to move back", st.Warning
	}
	return s + " · under the threshold", st.Muted
}

// buildExtras recomputes the heat map's input and the reassignments from
// the snapshot, then their lines.
func (m *Model) buildExtras() {
	s := m.snap
	bal := m.balance.Balance(s)
	byID := make(map[int]cluster.BrokerBalance, len(bal))
	for _, b := range bal {
		byID[b.Broker] = b
	}
	m.heatRacks = m.heatRacks[:0]
	for _, r := range m.racks {
		hr := heat.Rack{Label: r.Label()}
		for _, id := range r.Brokers {
			b, _ := s.Broker(id)
			hb := heat.Broker{ID: id, Live: b.Live, Load: heat.Load{Replicas: b.Replicas, Leaders: b.Leaders}}
			hb.Note, hb.NoteInk = imbalanceNote(&m.st, byID[id], b.Live)
			hr.Brokers = append(hr.Brokers, hb)
		}
		m.heatRacks = append(m.heatRacks, hr)
	}
	m.reassign = m.reassignTracker.Observe(s)
	m.leftThrottles = cluster.ThrottlesLeftOver(s)
	m.unfinished = unfinished{throttles: cluster.RunningThrottles(s), ledFromLast: m.ledFromLast.Led(s)}
	m.layoutExtras()
}

// layoutExtras draws the extras for the current width.
func (m *Model) layoutExtras() {
	m.heatLines, m.reassignLines = nil, nil
	if m.snap == nil || m.w < heat.MinWidth {
		return
	}
	if len(m.heatRacks) > 0 {
		m.heatLines = heat.Lines(&m.st, m.heatRacks, m.w, imbalanceHead)
	}
	m.reassignLines = append(m.unfinished.lines(&m.st, m.w), throttleLines(&m.st, m.leftThrottles, m.w)...)
	m.reassignLines = append(m.reassignLines, reassignmentLines(&m.st, &m.reassign, m.w)...)
}

// throttleLines warn of the reassignment throttles left while none runs
// (nothing when there are none).
func throttleLines(st *theme.Styles, l cluster.LeftThrottles, w int) []string {
	if l.Empty() {
		return nil
	}
	return []string{
		cell.Clip(" "+st.Header.S("THROTTLES")+"  "+st.Warning.S("left behind: no reassignment runs, yet reassignment throttles are set on "+l.Names(3)), w),
		cell.Clip("   "+st.Muted.S("they slow those replicas' next catch-up (a broker coming back); ktopo reassign --verify with the plan, or ktopo configs --alter --delete-config, removes them"), w),
	}
}

// reassignmentLines is the progress of the reassignments: a summary, then
// a line per partition in progress. Nothing when none ever ran.
func reassignmentLines(st *theme.Styles, pr *cluster.ReassignmentProgress, w int) []string {
	if pr.Total == 0 {
		return nil
	}
	var b strings.Builder
	b.WriteString(st.Header.S("REASSIGNMENTS") + "  ")
	if !pr.Active() {
		b.WriteString(st.Online.S("done: " + cell.Count(pr.Total, "partition") + " reassigned"))
		return []string{cell.Clip(" "+b.String(), w)}
	}
	sum := cell.Thousands(pr.Done) + "/" + cell.Count(pr.Total, "partition") + " done · " +
		cell.Count(pr.CatchingUp, "replica") + " to catch up"
	b.WriteString(st.Accent.S(sum))
	var phases []string
	for ph := cluster.ReassignQueued; ph < cluster.ReassignDone; ph++ {
		if n := pr.ByPhase[ph]; n > 0 {
			phases = append(phases, cell.Thousands(n)+" "+ph.String())
		}
	}
	tail := " · " + strings.Join(phases, ", ")
	if pr.ViaZnode > 0 {
		tail += " · " + cell.Thousands(pr.ViaZnode) + " via /admin/reassign_partitions"
	}
	if pr.ViaZnode < len(pr.Partitions) {
		tail += " · " + cell.Thousands(len(pr.Partitions)-pr.ViaZnode) + " via the Admin API"
	}
	b.WriteString(st.Muted.S(tail))
	out := []string{cell.Clip(" "+b.String(), w)}
	for i := range pr.Partitions {
		out = append(out, reassignmentLine(st, &pr.Partitions[i], w))
	}
	return out
}

// reassignmentLine is one partition being reassigned: where it goes, its
// phase, and what it waits for.
func reassignmentLine(st *theme.Styles, p *cluster.ReassigningPartition, w int) string {
	tpW := min(max(w/5, 16), 36)
	line := "   " + cell.FitTopicPartition(p.Topic, p.Partition, tpW) + " " + cell.Fit(p.Phase.String(), 9) +
		cell.Fit("→ "+text.Ints(p.Target), 16)
	var what []string
	ink := st.Muted
	switch {
	case p.Phase == cluster.ReassignQueued:
		what = append(what, "waits for the controller to start it")
	case len(p.Down) > 0:
		what = append(what, "waits for "+text.Plural(len(p.Down), "broker ", "brokers ")+text.Ints(p.Down)+" (down)")
		ink = st.Danger
	case len(p.CatchingUp) > 0:
		what = append(what, text.Ints(p.CatchingUp)+" catching up")
		ink = st.Warning
	default:
		what = append(what, "in sync")
	}
	// What it changes, compactly: +added −removed.
	var moves []string
	for _, id := range p.Adding {
		moves = append(moves, "+"+strconv.Itoa(id))
	}
	for _, id := range p.Removing {
		moves = append(moves, "−"+strconv.Itoa(id))
	}
	if len(moves) > 0 {
		what = append(what, strings.Join(moves, " "))
	}
	return cell.Clip(line+ink.S(strings.Join(what, " · ")), w)
}
