package assign

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestReplaceBySize: with sizes, the largest partition's new replica goes
// to the eligible broker (of the rack the partition lacks) holding the
// fewest bytes, then the next largest to the broker then emptiest; a
// lighter broker of another rack is not eligible. Without sizes the
// counts decide, as before.
func TestReplaceBySize(t *testing.T) {
	brokers := []Broker{BR(1, "a"), BR(2, "b"), BR(4, "a"), BR(5, "b"), BR(6, "c"), BR(7, "c")} // 3 (rack c) drained
	current := Assignment{
		0: {1, 2, 3}, // 1 byte
		1: {4, 5, 3}, // 10 bytes
		2: {1, 5, 3}, // 100 bytes
	}
	size := map[int]int64{0: 1, 1: 10, 2: 100}
	keep := func(id int) bool { return id != 3 }
	o := RebalanceOptions{
		Size:  func(topic, p int) int64 { return size[p] },
		Bytes: map[int]int64{4: 0, 6: 0, 7: 50}, // 4 is the emptiest, in rack a
	}
	got, err := Replace(brokers, []Assignment{current}, keep, o)
	if err != nil {
		t.Fatal(err)
	}
	// 100 bytes → 6 (0 bytes), 10 → 7 (50 < 100), 1 → 7 (60 < 100).
	for p, want := range map[int]int{2: 6, 1: 7, 0: 7} {
		if rs := got[0][p]; !slices.Contains(rs, want) || slices.Contains(rs, 3) || len(rs) != 3 {
			t.Fatalf("partition %d: %v, want a replica on %d", p, rs, want)
		}
	}
	plain, err := Replace(brokers, []Assignment{current}, keep, RebalanceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// By counts: 6 and 7 alternate by id, partition order.
	for p, want := range map[int]int{0: 6, 1: 7, 2: 6} {
		if !slices.Contains(plain[0][p], want) {
			t.Fatalf("without sizes, partition %d: %v, want a replica on %d", p, plain[0][p], want)
		}
	}
	// Unknown sizes count as none: the counts decide.
	unknown, err := Replace(brokers, []Assignment{current}, keep, RebalanceOptions{Size: func(int, int) int64 { return -1 }})
	if err != nil {
		t.Fatal(err)
	}
	if !equalTopics(unknown, plain) {
		t.Fatalf("unknown sizes %v, without sizes %v", unknown, plain)
	}
}

func equalTopics(a, b []Assignment) bool { return slices.EqualFunc(a, b, equalAssignments) }

// skewed is a seeded cluster of topics with skewed sizes: most
// partitions small (lognormal around 1 GiB), a few 20 to 40 times that.
func skewed(seed uint64, brokers []Broker, topics, parts, rf int) ([]Assignment, func(int, int) int64) {
	rng := rand.New(rand.NewPCG(seed, 7))
	current := make([]Assignment, topics)
	sizes := make([][]int64, topics)
	for ti := range current {
		a := make(Assignment, parts)
		sizes[ti] = make([]int64, parts)
		for p := range parts {
			perm := rng.Perm(len(brokers))[:rf]
			rs := make([]int, rf)
			for i, k := range perm {
				rs[i] = brokers[k].ID
			}
			a[p] = rs
			n := math.Exp(rng.NormFloat64()) * (1 << 30)
			if rng.IntN(40) == 0 {
				n *= 20 + 20*rng.Float64()
			}
			sizes[ti][p] = int64(n)
		}
		current[ti] = a
	}
	return current, func(t, p int) int64 { return sizes[t][p] }
}

// brokerTotals are each broker's bytes and replicas in as.
func brokerTotals(brokers []Broker, as []Assignment, size func(int, int) int64) (map[int]int64, map[int]int) {
	bytes, count := map[int]int64{}, map[int]int{}
	for _, b := range brokers {
		bytes[b.ID], count[b.ID] = 0, 0
	}
	for ti, a := range as {
		for p, rs := range a {
			for _, r := range rs {
				bytes[r] += size(ti, p)
				count[r]++
			}
		}
	}
	return bytes, count
}

// TestRebalanceBytes: on a skewed random cluster (9 brokers, 3 racks),
// the balanced placement with sizes ends every broker within
// BalanceTolerance of its share of the bytes (the mean, here: 9 brokers
// in 3 racks of 3 hold even counts), each broker's replica count within
// one of the count-balanced placement's, every partition rack-aware and
// without a duplicate. Without sizes the placement is the count-balanced
// one.
func TestRebalanceBytes(t *testing.T) {
	brokers := racked(9, 3)
	for seed := range uint64(5) {
		current, size := skewed(seed, brokers, 4, 60, 3)
		plain, err := Rebalance(brokers, current, RebalanceOptions{})
		if err != nil {
			t.Fatal(err)
		}
		got, err := Rebalance(brokers, current, RebalanceOptions{Size: size})
		if err != nil {
			t.Fatal(err)
		}
		for i := range current {
			checkPlacement(t, brokers, current[i], got[i])
		}
		before, _ := brokerTotals(brokers, plain, size)
		bytes, count := brokerTotals(brokers, got, size)
		_, base := brokerTotals(brokers, plain, size)
		var sum int64
		for _, n := range bytes {
			sum += n
		}
		mean := float64(sum) / float64(len(brokers))
		total := 0
		for _, c := range base {
			total += c
		}
		for id, n := range bytes {
			share := float64(sum) * float64(base[id]) / float64(total)
			if math.Abs(float64(n)-share) > BalanceTolerance*share {
				t.Errorf("seed %d: broker %d holds %d bytes, share %.0f (count-balanced: %d)", seed, id, n, share, before[id])
			}
			if d := count[id] - base[id]; d < -1 || d > 1 {
				t.Errorf("seed %d: broker %d holds %d replicas, %d count-balanced", seed, id, count[id], base[id])
			}
		}
		spread := func(m map[int]int64) float64 {
			lo, hi := int64(math.MaxInt64), int64(0)
			for _, n := range m {
				lo, hi = min(lo, n), max(hi, n)
			}
			return float64(hi-lo) / mean
		}
		t.Logf("seed %d: bytes spread %.1f%% of the mean count-balanced, %.1f%% by bytes", seed, 100*spread(before), 100*spread(bytes))
		again, err := Rebalance(brokers, current, RebalanceOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if !equalTopics(again, plain) {
			t.Fatal("Rebalance without sizes is not deterministic")
		}
	}
}

// TestRebalanceBytesUnreachable: a broker whose bytes outside the placed
// topics exceed what evening could take away ends the phase without
// breaking the counts or the racks.
func TestRebalanceBytesUnreachable(t *testing.T) {
	brokers := racked(6, 3)
	current, size := skewed(3, brokers, 2, 30, 3)
	_, base := brokerTotals(brokers, mustRebalance(t, brokers, current, RebalanceOptions{}), size)
	got := mustRebalance(t, brokers, current, RebalanceOptions{Size: size, Bytes: map[int]int64{1: 1 << 50}})
	for i := range current {
		checkPlacement(t, brokers, current[i], got[i])
	}
	_, count := brokerTotals(brokers, got, size)
	for id := range count {
		if d := count[id] - base[id]; d < -1 || d > 1 {
			t.Errorf("broker %d holds %d replicas, %d count-balanced", id, count[id], base[id])
		}
	}
}

func mustRebalance(t *testing.T, brokers []Broker, current []Assignment, o RebalanceOptions) []Assignment {
	t.Helper()
	out, err := Rebalance(brokers, current, o)
	if err != nil {
		t.Fatal(err)
	}
	return out
}
