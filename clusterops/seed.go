package clusterops

import (
	"strconv"

	"github.com/ktopo/ktopo/assign"
	"github.com/ktopo/ktopo/cluster"
)

// The KRaft controller places new partitions from a random draw
// (StripedReplicaPlacer); some draws leave brokers without a leader or a
// replica while others get several. ktopo previews the draw of a seed and
// warns when it is uneven; the remedy is another seed, and BetterAddSeed
// finds one, cheaply: a few hundred seeds placed again.

// Spread is how a placement spreads the replicas and the leaders over the
// brokers it may use: the fewest and the most one broker gets.
type Spread struct {
	MinReplicas, MaxReplicas, MinLeaders, MaxLeaders int
}

// cost is the spread's unevenness: 0 when no two brokers differ.
func (s Spread) cost() int { return s.MaxReplicas - s.MinReplicas + s.MaxLeaders - s.MinLeaders }

// String is "replicas 5–7, leaders 2–3 a broker".
func (s Spread) String() string {
	return "replicas " + span(s.MinReplicas, s.MaxReplicas) + ", leaders " + span(s.MinLeaders, s.MaxLeaders) + " a broker"
}

func span(lo, hi int) string {
	if lo == hi {
		return strconv.Itoa(lo)
	}
	return strconv.Itoa(lo) + "–" + strconv.Itoa(hi)
}

// SpreadOf is how a spreads replicas and leaders over brokers (a broker
// given nothing counts, with 0).
func SpreadOf(brokers []assign.Broker, a assign.Assignment) Spread {
	st := assign.ComputeStats(brokers, a)
	var s Spread
	first := true
	for _, b := range st.Brokers {
		if !b.Known {
			continue
		}
		if first {
			s, first = Spread{b.Replicas, b.Replicas, b.Leaders, b.Leaders}, false
			continue
		}
		s.MinReplicas, s.MaxReplicas = min(s.MinReplicas, b.Replicas), max(s.MaxReplicas, b.Replicas)
		s.MinLeaders, s.MaxLeaders = min(s.MinLeaders, b.Leaders), max(s.MaxLeaders, b.Leaders)
	}
	return s
}

// SeedSuggestion is a seed whose placement spreads the partitions better
// than the one previewed: its spread (Better) and the preview's (Now).
type SeedSuggestion struct {
	Seed        int64
	Better, Now Spread
}

// seedBudget bounds the replicas BetterAddSeed places, over every seed it
// tries (between 16 and 256 seeds).
const seedBudget = 1 << 18

// BetterAddSeed looks, for a KRaft plan of added partitions placed by the
// controller's placer (not by hand), for the seed among 0, 1, 2, … that
// spreads the new partitions most evenly over the brokers the placer may
// use; ok when it spreads them strictly better than the plan's seed (the
// smallest such seed when several are as good).
func BetterAddSeed(s *cluster.Snapshot, p *AddPartitionsPlan) (SeedSuggestion, bool) {
	a := p.Assignment()
	if p.Manual || !p.Result.Striped || len(a) == 0 || s.KRaft() == nil {
		return SeedSuggestion{}, false
	}
	n, rf := len(a), len(a[p.Existing])
	now := SpreadOf(p.Brokers, a)
	if now.cost() == 0 {
		return SeedSuggestion{}, false
	}
	usable := s.UsableBrokers(cluster.RackAwareEnforced)
	opts := assign.StripedOptions{Cordoning: s.KRaft().CordonSupported()}
	tries := min(max(seedBudget/(n*rf), 16), 256)
	best := SeedSuggestion{Seed: -1, Now: now}
	for seed := range int64(tries) {
		res, err := assign.StripedResult(usable, p.Existing, n, rf, seed, opts)
		if err != nil {
			return SeedSuggestion{}, false
		}
		sp := SpreadOf(p.Brokers, res.Assignment)
		if best.Seed < 0 || sp.cost() < best.Better.cost() {
			best.Seed, best.Better = seed, sp
		}
	}
	if best.Seed < 0 || best.Better.cost() >= now.cost() || best.Seed == p.Result.Seed {
		return SeedSuggestion{}, false
	}
	return best, true
}
