// Package part renders what the partition tables of several screens share:
// the colour of a partition's condition (cluster.Condition, which says
// what the condition is) and its replica list with the leader and the
// out-of-sync replicas marked.
package part

import (
	"slices"
	"strconv"
	"strings"

	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/ui/internal/cell"
	"github.com/ktopo/ktopo/ui/theme"
)

// Ink is the colour of a condition.
func Ink(st *theme.Styles, c cluster.Condition) theme.Ink {
	switch c {
	case cluster.ConditionOnline:
		return st.Online
	case cluster.ConditionReassigning, cluster.ConditionUnderReplicated, cluster.ConditionNew:
		return st.Warning
	}
	return st.Danger
}

// Replicas renders the replica list "1 2 3!": the leader painted as
// leader (and bold without colour), out-of-sync replicas followed by "!"
// and painted as danger, replicas on offline brokers faint. During a
// reassignment a replica being added reads "+4" (a warning while it
// catches up, which is no fault) and one being removed "−1". It returns
// the styled text and its plain width.
// With plain, no colour is added (a selected row paints itself).
func Replicas(st *theme.Styles, s *cluster.Snapshot, p *cluster.Partition, plain bool) (string, int) {
	var b strings.Builder
	w := 0
	for i, r := range p.Replicas {
		if i > 0 {
			b.WriteByte(' ')
			w++
		}
		id := strconv.Itoa(r)
		inISR := slices.Contains(p.ISR, r)
		adding, removing := slices.Contains(p.Adding(), r), slices.Contains(p.Removing(), r)
		switch {
		case adding:
			id = "+" + id
		case removing:
			id = "−" + id
		}
		switch {
		case plain:
			if !inISR && !adding && !removing {
				id += "!"
			}
			b.WriteString(id)
		case adding && !inISR:
			b.WriteString(st.Warning.S(id))
		case removing && (!p.HasLeader() || r != p.Leader):
			b.WriteString(st.Muted.S(id))
		case p.HasLeader() && r == p.Leader:
			b.WriteString(st.Leader.S(id))
		case !inISR:
			id += "!"
			b.WriteString(st.Danger.S(id))
		case !s.IsLive(r):
			b.WriteString(st.Offline.S(id))
		default:
			b.WriteString(id)
		}
		w += cell.Width(id)
	}
	return b.String(), w
}

// ReplicasWidth is the widest replica list of t, for column sizing.
func ReplicasWidth(t *cluster.Topic) int {
	w := 8
	for i := range t.Partitions {
		n := 0
		for j, r := range t.Partitions[i].Replicas {
			if j > 0 {
				n++
			}
			n += len(strconv.Itoa(r)) + 1
		}
		w = max(w, n)
		if i > 64 {
			break // the first partitions are representative; avoid O(P) per frame
		}
	}
	return w
}
