// Package part renders what the partition tables of several screens share:
// the state word of a partition and its replica list with the leader and
// the out-of-sync replicas marked.
package part

import (
	"slices"
	"strconv"
	"strings"

	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/ui/theme"
)

// State is a partition's condition, worst first.
type State uint8

// Partition states.
const (
	Online State = iota
	Reassigning
	UnderReplicated
	UnderMinISR
	New
	Offline
	Bad
)

var names = [...]string{"online", "reassigning", "under-replicated", "under min ISR", "new", "offline", "bad state"}

// String is the state's word.
func (s State) String() string { return names[s] }

// Healthy reports a partition that needs no attention.
func (s State) Healthy() bool { return s == Online || s == Reassigning }

// Of classifies p of t in snapshot s.
func Of(s *cluster.Snapshot, t *cluster.Topic, p *cluster.Partition) State {
	switch {
	case p.StateErr != nil:
		return Bad
	case !p.HasState:
		return New
	case s.PartitionOffline(p):
		return Offline
	case p.UnderMinISR(t.MinISR):
		return UnderMinISR
	case p.UnderReplicated():
		return UnderReplicated
	case p.Reassigning():
		return Reassigning
	}
	return Online
}

// Ink is the colour of a state.
func Ink(st *theme.Styles, s State) theme.Ink {
	switch s {
	case Online:
		return st.Online
	case Reassigning, UnderReplicated, New:
		return st.Warning
	}
	return st.Danger
}

// Replicas renders the replica list "1 2 3!": the leader painted as
// leader (and bold without colour), out-of-sync replicas followed by "!"
// and painted as danger, replicas on offline brokers faint. It returns the
// styled text and its plain width.
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
		switch {
		case plain:
			if !inISR {
				id += "!"
			}
			b.WriteString(id)
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
		w += len(id)
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
