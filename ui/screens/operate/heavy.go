package operate

import (
	"slices"
	"strconv"

	"github.com/ktopo/ktopo/clusterops"
	"github.com/ktopo/ktopo/internal/text"
	"github.com/ktopo/ktopo/ui/internal/cell"
)

// A plan can pile the replicas it moves on a few brokers: the minimal
// strategy keeps each partition on its racks, so draining a broker whose
// rack has one other broker sends that broker every replica (+83 % on a
// 6-broker, 3-rack cluster). The preview warns of a broker the plan leaves
// far above the mean (clusterops.MoveWarnings.Heavy: the create preview's
// "not spread evenly", for moves), says when its rack is why, and names
// a strategy that would not leave it so, if one would.

// heavyLines are the warnings of the plan's heavy brokers, made with the
// plan (they compare the strategies' moves).
func (r *reassign) heavyLines() []string {
	if len(r.warn.Heavy) == 0 || r.gen == nil {
		return nil
	}
	others := map[clusterops.Strategy]map[int]int{}
	for _, st := range clusterops.Strategies() {
		if st != r.strategy {
			others[st] = clusterops.ReplicasAfter(r.snap, r.gen.Moves(st))
		}
	}
	var out []string
	for _, h := range r.warn.Heavy {
		s := "broker " + strconv.Itoa(h.ID) + " would hold " + text.Count(h.After, "replica") + " (" + strconv.Itoa(h.Before) + " now), " +
			strconv.Itoa(h.Percent()) + "% above the mean of " + strconv.FormatFloat(h.Mean, 'f', 1, 64)
		if rack, ok := r.onlyOtherInRack(h.ID); ok {
			s += ": it is the only other broker of " + rack + ", and each partition keeps its replica in " + rack
		}
		best, bestN := clusterops.Strategy(0), -1
		for _, st := range clusterops.Strategies() {
			after, ok := others[st]
			if !ok || clusterops.Heavy(after[h.ID], h.Mean) {
				continue
			}
			if c := r.gen.Count(st).Replicas; bestN < 0 || c < bestN {
				best, bestN = st, c
			}
		}
		if bestN >= 0 {
			s += " · s: the " + best.String() + " strategy leaves it " + strconv.Itoa(others[best][h.ID]) + " (" + cell.Thousands(bestN) + " replicas copied)"
		} else {
			s += " · no strategy spreads them more"
		}
		out = append(out, s)
	}
	return out
}

// onlyOtherInRack reports that id is the one live, uncordoned broker of
// the drained broker's rack besides it, and names the rack.
func (r *reassign) onlyOtherInRack(id int) (string, bool) {
	if !r.drain() {
		return "", false
	}
	b, ok := r.snap.Broker(r.broker)
	if !ok || !b.HasRack {
		return "", false
	}
	var in []int
	for _, o := range r.snap.Brokers() {
		if o.ID != r.broker && o.Live && !o.Cordoned && o.HasRack && o.Rack == b.Rack {
			in = append(in, o.ID)
		}
	}
	return b.Rack, slices.Equal(in, []int{id})
}
