package assign

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// checkPlacement verifies what Rebalance promises of every partition:
// its replication factor, distinct brokers of the set, and the widest rack
// spread the racks' sizes allow (water-filling: a rack smaller than the
// level holds a replica on each broker, every other rack level-1 or level).
func checkPlacement(t *testing.T, brokers []Broker, from, to Assignment) {
	t.Helper()
	rack := map[int]string{}
	size := map[string]int{}
	for _, b := range brokers {
		rack[b.ID] = b.Rack
		size[b.Rack]++
	}
	for p, old := range from {
		nw := to[p]
		if len(nw) != len(old) {
			t.Fatalf("partition %d: %v → %v changes the replication factor", p, old, nw)
		}
		count := map[string]int{}
		for i, r := range nw {
			if _, ok := rack[r]; !ok {
				t.Fatalf("partition %d: %v names broker %d, not in the set", p, nw, r)
			}
			if slices.Contains(nw[:i], r) {
				t.Fatalf("partition %d: %v names broker %d twice", p, nw, r)
			}
			count[rack[r]]++
		}
		level := 0
		for sum := 0; sum < len(nw); {
			level++
			sum = 0
			for _, n := range size {
				sum += min(n, level)
			}
		}
		for rk, n := range size {
			c := count[rk]
			if c > min(n, level) || n < level && c != n || n >= level && c < level-1 {
				t.Fatalf("partition %d: %v puts %d replicas in rack %q of %d brokers (level %d)", p, nw, c, rk, n, level)
			}
		}
	}
}

func loadSpread(brokers []Broker, as ...Assignment) (minR, maxR, minL, maxL int) {
	rep, lead := map[int]int{}, map[int]int{}
	for _, b := range brokers {
		rep[b.ID], lead[b.ID] = 0, 0
	}
	for _, a := range as {
		for _, r := range a {
			for i, b := range r {
				rep[b]++
				if i == 0 {
					lead[b]++
				}
			}
		}
	}
	minR, minL = 1<<30, 1<<30
	for id := range rep {
		minR, maxR = min(minR, rep[id]), max(maxR, rep[id])
		minL, maxL = min(minL, lead[id]), max(maxL, lead[id])
	}
	return
}

func racked(n, racks int) []Broker {
	bs := make([]Broker, n)
	for i := range bs {
		bs[i] = BR(i+1, fmt.Sprintf("r%d", i%racks))
	}
	return bs
}

func TestRebalanceDrainMovesOnlyTheDrainedReplicas(t *testing.T) {
	all := racked(6, 3)
	cur, err := Assign(all, 12, 2, Fixed(0))
	if err != nil {
		t.Fatal(err)
	}
	target := slices.DeleteFunc(slices.Clone(all), func(b Broker) bool { return b.ID == 6 })
	out, err := Rebalance(target, []Assignment{cur.Assignment}, RebalanceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	checkPlacement(t, target, cur.Assignment, out[0])
	onSix, ledBySix := 0, 0
	for _, r := range cur.Assignment {
		if slices.Contains(r, 6) {
			onSix++
		}
		if r[0] == 6 {
			ledBySix++
		}
	}
	moved, leaders := CountMoves(cur.Assignment, out[0])
	if moved != onSix {
		t.Errorf("moved %d replicas, broker 6 held %d", moved, onSix)
	}
	if leaders != ledBySix {
		t.Errorf("%d leaders changed, broker 6 led %d", leaders, ledBySix)
	}
	if minR, maxR, minL, maxL := loadSpread(target, out[0]); maxR-minR > 1 || maxL-minL > 1 {
		t.Errorf("uneven: replicas %d..%d, leaders %d..%d\n%v", minR, maxR, minL, maxL, out[0])
	}
}

func TestRebalanceNothingToDo(t *testing.T) {
	all := racked(6, 3)
	cur, _ := Assign(all, 24, 3, Fixed(2))
	out, err := Rebalance(all, []Assignment{cur.Assignment}, RebalanceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if moved, leaders := CountMoves(cur.Assignment, out[0]); moved != 0 || leaders != 0 {
		t.Errorf("an even rack-aware assignment moved %d replicas and %d leaders:\n%v\n%v", moved, leaders, cur.Assignment, out[0])
	}
}

func TestRebalanceAddBrokers(t *testing.T) {
	old := racked(3, 3)
	cur, _ := Assign(old, 12, 2, Fixed(0))
	all := racked(6, 3)
	out, err := Rebalance(all, []Assignment{cur.Assignment}, RebalanceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	checkPlacement(t, all, cur.Assignment, out[0])
	moved, _ := CountMoves(cur.Assignment, out[0])
	// 24 replicas over 6 brokers: the 3 new ones take 4 each, no more.
	if moved != 12 {
		t.Errorf("moved %d replicas, want 12 (4 onto each new broker)", moved)
	}
	if minR, maxR, minL, maxL := loadSpread(all, out[0]); maxR-minR > 0 || maxL-minL > 0 {
		t.Errorf("uneven: replicas %d..%d, leaders %d..%d", minR, maxR, minL, maxL)
	}
}

func TestRebalanceFixesRackSpread(t *testing.T) {
	bs := racked(6, 3) // r0: 1,4  r1: 2,5  r2: 3,6
	cur := Assignment{0: {1, 4, 2}, 1: {2, 5, 3}, 2: {3, 6, 1}}
	out, err := Rebalance(bs, []Assignment{cur}, RebalanceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	checkPlacement(t, bs, cur, out[0])
	moved, leaders := CountMoves(cur, out[0])
	if moved != 3 || leaders != 0 {
		t.Errorf("moved %d replicas and %d leaders, want 3 and 0: %v", moved, leaders, out[0])
	}
}

func TestRebalanceUnevenRacks(t *testing.T) {
	// Rack a has four brokers, rack b one: with rf 2 each partition has one
	// replica in each rack, so broker 5 holds every partition.
	bs := []Broker{BR(1, "a"), BR(2, "a"), BR(3, "a"), BR(4, "a"), BR(5, "b")}
	cur := Assignment{0: {1, 2}, 1: {2, 3}, 2: {3, 4}, 3: {4, 1}}
	out, err := Rebalance(bs, []Assignment{cur}, RebalanceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	checkPlacement(t, bs, cur, out[0])
	for p, r := range out[0] {
		if !slices.Contains(r, 5) {
			t.Errorf("partition %d: %v, broker 5 (the only one of rack b) missing", p, r)
		}
	}
}

func TestRebalanceRackUnaware(t *testing.T) {
	bs := []Broker{B(1), B(2), B(3), B(4)}
	cur := Assignment{0: {1, 2}, 1: {1, 3}, 2: {1, 4}, 3: {1, 2}}
	out, err := Rebalance(bs, []Assignment{cur}, RebalanceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	checkPlacement(t, bs, cur, out[0])
	if minR, maxR, minL, maxL := loadSpread(bs, out[0]); maxR-minR > 0 || maxL-minL > 0 {
		t.Errorf("uneven: replicas %d..%d, leaders %d..%d: %v", minR, maxR, minL, maxL, out[0])
	}
}

func TestRebalanceErrors(t *testing.T) {
	_, err := Rebalance([]Broker{B(1), B(2)}, []Assignment{{0: {1, 2, 3}}}, RebalanceOptions{})
	if err == nil || err.Error() != "Replication factor: 3 larger than available brokers: 2." {
		t.Errorf("rf 3 on 2 brokers: %v", err)
	}
	_, err = Rebalance([]Broker{BR(1, "a"), B(2)}, []Assignment{{0: {1}}}, RebalanceOptions{})
	if err == nil || err.Error() != MessageNotAllBrokersHaveRackInfo {
		t.Errorf("partial racks: %v", err)
	}
}

// TestRebalanceRandom: on random clusters and assignments, every result
// keeps the replication factors, spans the most racks, names only brokers
// of the set, and never moves a replica that could stay when nothing is
// above its share: a drain moves exactly the drained broker's replicas.
func TestRebalanceRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	runs := 300
	if testing.Short() {
		runs = 60
	}
	for run := range runs {
		n := 3 + rng.IntN(12)
		racks := 1 + rng.IntN(4)
		all := racked(n, racks)
		var cur []Assignment
		for range 1 + rng.IntN(3) {
			rf := 1 + rng.IntN(min(n, 4))
			res, err := Assign(all, 1+rng.IntN(40), rf, Random(rng))
			if err != nil {
				t.Fatal(err)
			}
			cur = append(cur, res.Assignment)
		}
		drained := all[rng.IntN(n)].ID
		target := slices.DeleteFunc(slices.Clone(all), func(b Broker) bool { return b.ID == drained })
		if racks > 1 && len(target) < n {
			// Keep every rack present.
			seen := map[string]bool{}
			for _, b := range target {
				seen[b.Rack] = true
			}
			if len(seen) < racks {
				continue
			}
		}
		out, err := Rebalance(target, cur, RebalanceOptions{})
		if err != nil {
			if len(target) < 4 {
				continue // rf above the brokers left
			}
			t.Fatalf("run %d: %v", run, err)
		}
		for i := range cur {
			checkPlacement(t, target, cur[i], out[i])
		}
	}
}

// BenchmarkRebalanceDrain drains one broker of 1,000 (3 racks) holding
// 100,000 partitions of replication factor 3 in 1,000 topics.
func BenchmarkRebalanceDrain(b *testing.B) {
	const nBrokers, nTopics, nParts = 1000, 1000, 100
	all := racked(nBrokers, 3)
	rng := rand.New(rand.NewPCG(1, 2))
	cur := make([]Assignment, nTopics)
	for i := range cur {
		res, err := Assign(all, nParts, 3, Random(rng))
		if err != nil {
			b.Fatal(err)
		}
		cur[i] = res.Assignment
	}
	target := all[:nBrokers-1]
	b.ReportAllocs()
	moved := 0
	for b.Loop() {
		out, err := Rebalance(target, cur, RebalanceOptions{})
		if err != nil {
			b.Fatal(err)
		}
		moved = 0
		for i := range cur {
			m, _ := CountMoves(cur[i], out[i])
			moved += m
		}
	}
	b.ReportMetric(float64(moved), "moved")
}
