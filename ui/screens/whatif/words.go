package whatif

import (
	"slices"
	"strconv"
	"strings"

	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/internal/text"
	"github.com/ktopo/ktopo/ui/internal/cell"
	"github.com/ktopo/ktopo/ui/internal/part"
	"github.com/ktopo/ktopo/ui/theme"
)

// The screen's words: the three lines above the table and each
// partition's result, in long and short forms.

// pick is the long words when they fit the line, else the short ones.
func (m *Model) pick(words [2]string) string {
	if cell.Width(words[0]) < m.w {
		return words[0]
	}
	return words[1]
}

// heading builds the three lines above the table, in long and short
// words (plain text; View picks by width and styles them whole).
func (m *Model) heading() {
	fi := m.Impact()
	c := fi.Counts
	title := "What if " + m.subject() + " fails"
	down, up := "down", "still up"
	if fi.KRaft {
		down, up = "fenced", "not fenced yet"
	}
	switch {
	case m.verifying && len(m.impact.Live) > 0:
		var gone []int
		for _, id := range m.held.Live {
			if !slices.Contains(m.impact.Live, id) {
				gone = append(gone, id)
			}
		}
		title = upperFirst(m.subject()) + ": " + text.Ints(gone) + " " + down + ", " + text.Ints(m.impact.Live) + " " + up + ": the prediction against what happened so far"
	case m.verifying:
		title = upperFirst(m.subject()) + " is " + down + ": the prediction against what happened"
	case len(fi.Live) == 0:
		title = upperFirst(m.subject()) + " is down already: what its loss still changes"
	case len(fi.Live) < len(fi.Brokers):
		title += " (" + text.Ints(fi.Live) + " still up)"
	}
	m.head[0] = [2]string{title, title}
	// The worst first: what stops clients, then what loses data, then the
	// rest. Offline and under min ISR count what the failure would cause;
	// the note says how many are so already.
	for i, words := range [2][5]string{
		{" newly offline", " newly under min ISR", "under-replicated", "unclean elections (data loss)", " re-elected"},
		{" offline", " <minISR", "URP", "unclean", " moved"},
	} {
		var b strings.Builder
		b.WriteString(cell.Thousands(c.NewlyOffline) + words[0] + " · " + cell.Thousands(c.NewlyUnderMinISR) + words[1])
		if c.Unclean > 0 {
			b.WriteString(" · " + cell.Thousands(c.Unclean) + " " + words[3])
		}
		b.WriteString(" · " + cell.Count(c.LeadersLost, "leader") + " lost (" + cell.Thousands(c.LeadersMoved) + words[4] + ")")
		b.WriteString(" · " + cell.Thousands(c.UnderReplicated) + " " + words[2] + " · of " + cell.Count(c.Partitions, "partition"))
		if c.OrderDecides > 0 {
			b.WriteString(" · " + cell.Thousands(c.OrderDecides) + [2]string{" decided by the fencing order", " order-dependent"}[i])
		}
		m.head[1][i] = b.String()
	}
	var already [2]string
	if off, minISR := c.Offline-c.NewlyOffline, c.UnderMinISR-c.NewlyUnderMinISR; off+minISR > 0 {
		var long, short []string
		if off > 0 {
			long, short = append(long, cell.Thousands(off)+" offline"), append(short, cell.Thousands(off)+" offline")
		}
		if minISR > 0 {
			long, short = append(long, cell.Thousands(minISR)+" under min ISR"), append(short, cell.Thousands(minISR)+" <minISR")
		}
		already = [2]string{"Already now, not counted above: " + strings.Join(long, ", ") + ". ", "Already: " + strings.Join(short, ", ") + ". "}
	}
	switch {
	case m.verifying:
		n := m.nowCount.Partitions
		if m.matched == n {
			m.head[2][0] = "✓ As predicted: all " + cell.Count(n, "partition") + " (" + cell.Thousands(m.nowCount.Offline) + " offline, " +
				cell.Thousands(m.nowCount.UnderMinISR) + " under min ISR)."
			m.head[2][1] = "✓ As predicted: all " + cell.Count(n, "partition") + "."
		} else {
			m.head[2][0] = "Now " + cell.Thousands(m.matched) + " of " + cell.Count(n, "partition") + " as predicted (" +
				cell.Thousands(m.nowCount.Offline) + " offline, " + cell.Thousands(m.nowCount.UnderMinISR) +
				" under min ISR); ≠ marks the others (the controller may be at work)."
			m.head[2][1] = "Now " + cell.Thousands(m.matched) + " of " + cell.Thousands(n) + " as predicted; ≠ marks the others."
		}
	case fi.KRaft:
		m.head[2] = kraftNote(fi, already)
	case fi.ControllerFails && len(fi.Live) > 0:
		m.head[2][0] = already[0] + "The controller goes too: the next one takes over, then elects. Kafka's rule: the first live in-sync replica in assignment order."
		m.head[2][1] = already[1] + "The controller goes too: the next one elects."
	default:
		m.head[2][0] = already[0] + "Kafka's rule: the first live in-sync replica in assignment order leads; an out-of-sync one only where unclean election is on."
		m.head[2][1] = already[1] + "The first live in-sync replica in assignment order leads."
	}
	if fi.Deleting > 0 {
		m.head[2][0] += " " + cell.Count(fi.Deleting, "partition") + " of topics being deleted not shown."
	}
}

// kraftNote says, in long and short words, what a KRaft controller does:
// it fences a broker once its session times out, brokers lost together
// one by one in an order nobody can know; elects the first in-sync
// replica in assignment order; with ELR, keeps the replicas leaving the
// ISR below its min eligible.
func kraftNote(fi *cluster.FailureImpact, already [2]string) [2]string {
	if fi.QuorumLost {
		return [2]string{already[0] + "The metadata quorum loses its majority: no controller is left to fence anyone, the metadata stays as it is and the partitions led there are lost to clients.",
			already[1] + "The quorum loses its majority: nothing is fenced."}
	}
	var long, short string
	switch {
	case fi.ControllerFails && len(fi.Live) > 0:
		long, short = "The active controller goes too: its successor fences them", "The controller goes too: its successor fences"
	case len(fi.Live) > 1:
		long, short = "Fenced one by one, in an order nobody knows", "Fenced one by one"
	default:
		long, short = "Fenced once its session times out", "Fenced"
	}
	if fi.Counts.OrderDecides > 0 {
		long, short = long+" (the worst order shown)", short+" (worst order shown)"
	}
	if fi.ELR {
		long += "; the first in-sync replica in assignment order leads; below min ISR, those leaving stay eligible (ELR)"
		short += "; ELR on"
	} else {
		long += "; the first in-sync replica in assignment order leads, an out-of-sync one only where unclean election is on"
	}
	return [2]string{already[0] + long + ".", already[1] + short + "."}
}

// result is what the failure means for a partition, the worst first, and
// its colour; short words below narrow. A condition the partition is in
// now already is said so: the failure is not what caused it. On KRaft it
// says whom a partition without leader waits for, its eligible leader
// replicas, and when the fencing order decides.
func result(st *theme.Styles, f *cluster.PartitionFailure, short, kraft bool) (string, theme.Ink) {
	cond := f.After.String()
	minISR := "under min ISR"
	if short {
		switch f.After {
		case cluster.ConditionUnderMinISR:
			cond = "<minISR"
		case cluster.ConditionUnderReplicated:
			cond = "URP"
		default:
		}
		minISR = "<minISR"
	}
	if !f.Changed() {
		// Listed for its replica on a failed broker, which is out of its
		// ISR already: its condition is not the failure's doing.
		return "no change: " + cond, part.Ink(st, f.After)
	}
	if f.After == f.Before && f.After != cluster.ConditionUnderReplicated && !f.After.Healthy() {
		cond = "already " + cond
	}
	if f.WasUnderMinISR() {
		minISR = "already " + minISR
	}
	words := []string{cond}
	switch {
	case f.Recovering && f.Partition.LeaderRecoveryState != cluster.LeaderRecovering:
		if short {
			words = append(words, "unclean (data lost)")
		} else {
			words = append(words, "unclean: "+strconv.Itoa(f.Leader)+" leads, data lost")
		}
	case f.LeaderLost && f.Leader >= 0:
		words = append(words, "new leader")
	case f.LeaderLost && kraft:
		words = append(words, waitsFor(f, short))
	case f.LeaderLost:
		words = append(words, "no leader")
	}
	if f.UnderMinISR() && f.After != cluster.ConditionUnderMinISR {
		words = append(words, minISR)
	}
	if kraft && f.Leader >= 0 && len(f.ELR()) > 0 {
		words = append(words, "ELR "+text.Ints(f.ELR()))
	}
	if f.OrderDecides() {
		if short {
			words = append(words, "order decides")
		} else {
			words = append(words, "the fencing order decides")
		}
	}
	ink := part.Ink(st, f.After)
	if f.Recovering {
		ink = st.Danger
	}
	return strings.Join(words, " · "), ink
}

// waitsFor is what a KRaft partition left without leader waits for: an
// eligible leader replica's return (a clean election), its last ISR
// member's (ELR off), or only its last leader's, which the controller
// elects as an unclean one (PartitionChangeBuilder.canElectLastKnownLeader).
func waitsFor(f *cluster.PartitionFailure, short bool) string {
	switch {
	case len(f.ELR()) > 0 && short:
		return "no leader (ELR " + text.Ints(f.ELR()) + ")"
	case len(f.ELR()) > 0:
		return "no leader: waits for ELR " + text.Ints(f.ELR())
	case len(f.ISR) > 0 && short:
		return "no leader (waits " + text.Ints(f.ISR) + ")"
	case len(f.ISR) > 0:
		return "no leader: waits for " + text.Ints(f.ISR)
	case len(f.LastKnownELR()) > 0 && short:
		return "no leader (last " + text.Ints(f.LastKnownELR()) + ", unclean)"
	case len(f.LastKnownELR()) > 0:
		return "no leader: only " + text.Ints(f.LastKnownELR()) + " may lead again (unclean)"
	}
	return "no leader"
}
