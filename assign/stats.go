package assign

import (
	"fmt"
	"slices"
	"sort"
)

// NoRack is the rack name Stats uses for brokers without rack information.
const NoRack = ""

// BrokerStats is one broker's share of an assignment.
type BrokerStats struct {
	ID       int    `json:"id"`
	Rack     string `json:"rack,omitempty"`
	Replicas int    `json:"replicas"`
	Leaders  int    `json:"leaders"`
	// Known is false for brokers named by the assignment but absent from the
	// broker list (possible with a manual assignment).
	Known bool `json:"known"`
}

// RackStats is one rack's share of an assignment.
type RackStats struct {
	Rack     string `json:"rack"`
	Brokers  []int  `json:"brokers"`
	Replicas int    `json:"replicas"`
	Leaders  int    `json:"leaders"`
}

// Stats summarises how an assignment spreads over brokers and racks.
type Stats struct {
	// Brokers in the order of the broker list given, then unknown ones by id.
	Brokers []BrokerStats `json:"brokers"`
	// Racks sorted by name; brokers without a rack are grouped under NoRack.
	Racks []RackStats `json:"racks"`
	// RacksSpanned maps a partition to the number of distinct racks of its
	// replicas (0 when no broker has a rack).
	RacksSpanned map[int]int `json:"racksSpanned"`
	// MinRacksSpanned is the smallest value of RacksSpanned.
	MinRacksSpanned int `json:"minRacksSpanned"`
	// EvenReplicas and EvenLeaders report whether per-broker counts differ by
	// at most one across all listed brokers.
	EvenReplicas bool `json:"evenReplicas"`
	EvenLeaders  bool `json:"evenLeaders"`
	// RacksWithoutReplicas lists racks that received no replica.
	RacksWithoutReplicas []string `json:"racksWithoutReplicas,omitempty"`
}

// Even reports whether both replicas and leaders are spread evenly.
func (s Stats) Even() bool { return s.EvenReplicas && s.EvenLeaders }

// ComputeStats counts replicas and leaders of a per broker and per rack.
func ComputeStats(brokers []Broker, a Assignment) Stats {
	idx := make(map[int]int, len(brokers))
	st := Stats{RacksSpanned: make(map[int]int, len(a))}
	for _, b := range brokers {
		if _, dup := idx[b.ID]; dup {
			continue
		}
		idx[b.ID] = len(st.Brokers)
		st.Brokers = append(st.Brokers, BrokerStats{ID: b.ID, Rack: rackName(b), Known: true})
	}
	listed := len(st.Brokers)
	var unknown []int
	rackSet := map[string]bool{}
	first := true
	for _, p := range a.Partitions() {
		clear(rackSet)
		for i, r := range a[p] {
			j, ok := idx[r]
			if !ok {
				j = len(st.Brokers)
				idx[r] = j
				st.Brokers = append(st.Brokers, BrokerStats{ID: r})
				unknown = append(unknown, r)
			}
			st.Brokers[j].Replicas++
			if i == 0 {
				st.Brokers[j].Leaders++
			}
			if rk := st.Brokers[j].Rack; rk != NoRack {
				rackSet[rk] = true
			}
		}
		st.RacksSpanned[p] = len(rackSet)
		if first || len(rackSet) < st.MinRacksSpanned {
			st.MinRacksSpanned, first = len(rackSet), false
		}
	}
	// Unknown brokers go last, by id.
	if len(unknown) > 1 {
		tail := st.Brokers[listed:]
		sort.Slice(tail, func(i, j int) bool { return tail[i].ID < tail[j].ID })
	}

	racks := map[string]*RackStats{}
	for _, b := range st.Brokers {
		rs := racks[b.Rack]
		if rs == nil {
			rs = &RackStats{Rack: b.Rack}
			racks[b.Rack] = rs
		}
		rs.Brokers = append(rs.Brokers, b.ID)
		rs.Replicas += b.Replicas
		rs.Leaders += b.Leaders
	}
	for _, rs := range racks {
		slices.Sort(rs.Brokers)
		st.Racks = append(st.Racks, *rs)
		if rs.Replicas == 0 && rs.Rack != NoRack {
			st.RacksWithoutReplicas = append(st.RacksWithoutReplicas, rs.Rack)
		}
	}
	sort.Slice(st.Racks, func(i, j int) bool { return st.Racks[i].Rack < st.Racks[j].Rack })
	slices.Sort(st.RacksWithoutReplicas)

	st.EvenReplicas = spread(st.Brokers[:listed], func(b BrokerStats) int { return b.Replicas }) <= 1
	st.EvenLeaders = spread(st.Brokers[:listed], func(b BrokerStats) int { return b.Leaders }) <= 1
	return st
}

func rackName(b Broker) string {
	if b.HasRack {
		return b.Rack
	}
	return NoRack
}

// spread is max − min of f over bs (0 for an empty list).
func spread(bs []BrokerStats, f func(BrokerStats) int) int {
	if len(bs) == 0 {
		return 0
	}
	lo, hi := f(bs[0]), f(bs[0])
	for _, b := range bs[1:] {
		lo, hi = min(lo, f(b)), max(hi, f(b))
	}
	return hi - lo
}

// Warnings lists what an operator should know about the spread of an
// assignment with replication factor rf: uneven replicas or leaders, racks
// without a replica, rf larger than the number of racks, partitions on
// fewer racks than they could span. Nil when there is nothing to say.
func (s Stats) Warnings(rf int) []string {
	var w []string
	racks := 0
	for _, r := range s.Racks {
		if r.Rack != NoRack {
			racks++
		}
	}
	if !s.EvenReplicas {
		w = append(w, "replicas are not spread evenly over the brokers")
	}
	if !s.EvenLeaders {
		w = append(w, "leaders are not spread evenly over the brokers")
	}
	for _, r := range s.RacksWithoutReplicas {
		w = append(w, fmt.Sprintf("rack %s receives no replica", r))
	}
	if racks > 0 && rf > racks {
		w = append(w, fmt.Sprintf("replication factor %d is larger than the number of racks (%d): some racks hold several replicas of a partition", rf, racks))
	}
	if racks > 1 && s.MinRacksSpanned < min(rf, racks) {
		w = append(w, fmt.Sprintf("some partitions span only %d rack(s)", s.MinRacksSpanned))
	}
	return w
}
