package assign

import (
	"cmp"
	"math"
	"slices"
)

// BalanceTolerance is how even Rebalance makes the brokers' bytes when it
// knows the partitions' sizes (RebalanceOptions.Size): it stops once every
// broker of the set holds within ±BalanceTolerance (0.10: 10 %) of its
// share of their bytes, or when no step it may take brings a broker
// closer. A broker's share is the brokers' bytes split in proportion to
// the replicas each holds in the count-balanced placement (o.Load
// included): the mean when the counts are even. Not the plain mean: the
// rack rule can make counts uneven (a partition of replication factor 3
// over 3 racks has a replica in each, so a rack of 2 brokers among racks
// of 3 holds half as much again on each), and bytes cannot be evener than
// the replicas that carry them.
const BalanceTolerance = 0.10

// evenBytes is Rebalance's last phase with sizes: out, the count-balanced
// placement of topics (the plans keep, fill and lead made), is changed in
// place until the brokers' bytes are within BalanceTolerance of their
// shares.
//
// The replica counts stay even: a step either swaps two replicas between
// two brokers (each broker keeps its count) or moves one replica, and a
// broker never ends more than one replica above or below its count in the
// count-balanced placement (counted over the topics placed together).
// Every step keeps each partition's replicas distinct and within the rack
// limits the count-balanced placement respects, so the result is as
// rack-aware as without sizes. A replica that moves takes the place of the
// one it replaces in the partition's list: a leader's replacement leads.
//
// Heaviest and lightest are by bytes above or below a broker's share
// (BalanceTolerance). Each step is between a broker among the heaviest
// and one among the lightest, and is the one that narrows their gap most per byte it adds to
// the plan's copies: a step that copies nothing more (a replica the plan
// adds anyway sent elsewhere, or one sent back where it is now) comes
// first, the largest of those; then the one with the largest narrowing
// per byte copied. A step never widens the gap it narrows (each one lowers
// the sum of squares of the brokers' bytes above or below their shares), so the phase ends; it is also
// bounded by a number of steps proportional to the brokers. When neither
// the heaviest broker nor the lightest has a step with the others tried
// (their bytes are mostly in topics not being placed, or every step would
// break a rule), both are left as they are and the others evened: the
// tolerance is then out of reach, and the phase ends when every broker
// left is within it or none is left.
func (rb *rebalancer) evenBytes(topics []*topicPlan, out []Assignment, size [][]int64, outside map[int]int64) {
	if rb.n < 2 {
		return
	}
	e := &byteEvener{rb: rb, topics: topics, out: out, size: size,
		bytes: make([]int64, rb.n), count: make([]int, rb.n), base: make([]int, rb.n),
		held: make([][]replicaRef, rb.n), rackCount: make([]int, len(rb.racks))}
	for i, id := range rb.ids {
		e.bytes[i] = outside[id]
	}
	for ti, t := range topics {
		for pi, p := range t.ids {
			for _, id := range out[ti][p] {
				b, ok := rb.index[id]
				if !ok {
					continue
				}
				e.bytes[b] += size[ti][pi]
				e.count[b]++
				e.held[b] = append(e.held[b], replicaRef{int32(ti), int32(pi)})
			}
		}
	}
	copy(e.base, e.count)
	// Each broker's share: the bytes in proportion to its replicas.
	var total int64
	var weight float64
	for b := range rb.n {
		total += e.bytes[b]
		weight += float64(rb.load[b])
	}
	if total == 0 || weight == 0 {
		return
	}
	e.target = make([]int64, rb.n)
	for b := range rb.n {
		e.target[b] = int64(float64(total) * float64(rb.load[b]) / weight)
	}
	e.run()
}

// replicaRef names a partition of a topic being placed: the topic's index
// and the partition's index in its plan.
type replicaRef struct{ t, p int32 }

// byteEvener is evenBytes' state.
type byteEvener struct {
	rb     *rebalancer
	topics []*topicPlan
	out    []Assignment
	size   [][]int64
	// bytes and count are each broker's bytes and replicas as the
	// placement stands (count over the placed topics only), base the
	// counts of the count-balanced placement.
	bytes       []int64
	count, base []int
	// target is each broker's share of the bytes (BalanceTolerance).
	target []int64
	// held are the partitions each broker holds a replica of.
	held      [][]replicaRef
	rackCount []int
	// scratch for the lightest broker's replicas by size.
	sorted []replicaRef
	// stuck are the brokers no step could bring closer to the others.
	stuck []bool
}

// step is one change evenBytes considers: the replica of from's partition
// on broker a goes to broker b and, for a swap (swap true), the replica of
// to's partition on b comes to a.
type step struct {
	a, b      int
	from, to  replicaRef
	swap      bool
	narrowing int64 // how much the gap between a and b narrows
	cost      int64 // the bytes the step adds to the plan's copies
	ok        bool
}

// better reports whether s is a better step than o.
func (s step) better(o step) bool {
	if !o.ok {
		return true
	}
	if (s.cost <= 0) != (o.cost <= 0) {
		return s.cost <= 0
	}
	if s.cost <= 0 {
		if s.narrowing != o.narrowing {
			return s.narrowing > o.narrowing
		}
		return s.cost < o.cost
	}
	// Narrowing per byte: s.narrowing/s.cost > o.narrowing/o.cost.
	l, r := float64(s.narrowing)*float64(o.cost), float64(o.narrowing)*float64(s.cost)
	if l != r {
		return l > r
	}
	return s.narrowing > o.narrowing
}

// evenSide is how many of the heaviest and of the lightest brokers each
// round tries, heaviest against lightest first.
const evenSide = 4

func (e *byteEvener) run() {
	rb := e.rb
	heavy, light := make([]int, 0, evenSide), make([]int, 0, evenSide)
	e.stuck = make([]bool, rb.n)
	for range 10*rb.n + 1000 {
		heavy, light = e.extremes(heavy[:0], light[:0])
		if len(heavy) == 0 || e.even() {
			return
		}
		done := true
	pairs:
		for _, a := range heavy {
			for _, b := range light {
				if e.excess(a) <= e.excess(b) {
					continue
				}
				if s := e.best(a, b); s.ok {
					e.apply(s)
					done = false
					break pairs
				}
			}
		}
		if done {
			// Neither the heaviest broker nor the lightest can be brought
			// closer to any of the others tried (a broker whose bytes are
			// mostly in topics not being placed): leave them as they are
			// and even the others.
			e.stuck[heavy[0]], e.stuck[light[0]] = true, true
		}
	}
}

// excess is how many bytes broker b holds above its share (< 0: below).
func (e *byteEvener) excess(b int) int64 { return e.bytes[b] - e.target[b] }

// even reports whether every broker not stuck is within BalanceTolerance
// of its share.
func (e *byteEvener) even() bool {
	for b, t := range e.target {
		if !e.stuck[b] && math.Abs(float64(e.excess(b))) > BalanceTolerance*float64(t) {
			return false
		}
	}
	return true
}

// extremes are the evenSide heaviest brokers, heaviest first, and the
// evenSide lightest, lightest first.
func (e *byteEvener) extremes(heavy, light []int) ([]int, []int) {
	for b := range e.bytes {
		if e.stuck[b] {
			continue
		}
		heavy = insertRanked(heavy, b, func(x, y int) bool { return e.excess(x) > e.excess(y) })
		light = insertRanked(light, b, func(x, y int) bool { return e.excess(x) < e.excess(y) })
	}
	return heavy, light
}

// insertRanked inserts b into the ranked list (at most evenSide long)
// when it ranks.
func insertRanked(list []int, b int, before func(x, y int) bool) []int {
	if len(list) == evenSide && !before(b, list[len(list)-1]) {
		return list
	}
	i := len(list)
	for i > 0 && before(b, list[i-1]) {
		i--
	}
	if len(list) < evenSide {
		list = append(list, 0)
	}
	copy(list[i+1:], list[i:len(list)-1])
	list[i] = b
	return list
}

// replicas is the partition's replica list (broker ids).
func (e *byteEvener) replicas(r replicaRef) []int {
	return e.out[r.t][e.topics[r.t].ids[r.p]]
}

// moveCost is what moving r's replica from broker a to b adds to the
// plan's copies: its size when b did not hold the partition before the
// plan, less its size when a did not (the copy to a is no longer made).
func (e *byteEvener) moveCost(r replicaRef, a, b int) int64 {
	old := e.topics[r.t].old[r.p]
	n := e.size[r.t][r.p]
	var c int64
	if !slices.Contains(old, e.rb.ids[b]) {
		c += n
	}
	if !slices.Contains(old, e.rb.ids[a]) {
		c -= n
	}
	return c
}

// movable reports whether r's replica may go from broker a to b: b holds
// no replica of the partition, and the partition's racks stay within
// their limits.
func (e *byteEvener) movable(r replicaRef, a, b int) bool {
	rb := e.rb
	rs := e.replicas(r)
	idB := rb.ids[b]
	if slices.Contains(rs, idB) {
		return false
	}
	ra, rbk := rb.rackOf[a], rb.rackOf[b]
	if ra == rbk {
		return true
	}
	for i := range e.rackCount {
		e.rackCount[i] = 0
	}
	for _, id := range rs {
		if i, ok := rb.index[id]; ok && i != a {
			e.rackCount[rb.rackOf[i]]++
		}
	}
	l := rb.limits(len(rs))
	return rb.admits(rbk, e.rackCount, rb.countAtLevel(e.rackCount, l), l)
}

// narrowing is how much moving t bytes from a broker to another gap
// bytes lighter narrows their gap (≤ 0: it does not).
func narrowing(gap, t int64) int64 {
	if t <= 0 || t >= gap {
		return 0
	}
	return 2 * min(t, gap-t)
}

// best is the best step from broker a (heavier) to b (lighter).
func (e *byteEvener) best(a, b int) step {
	gap := e.excess(a) - e.excess(b)
	var best step
	consider := func(s step) {
		if s.narrowing > 0 && s.better(best) {
			s.ok = true
			best = s
		}
	}
	single := e.count[a] > e.base[a]-1 && e.count[b] < e.base[b]+1
	// b's replicas by size, for the swaps.
	e.sorted = append(e.sorted[:0], e.held[b]...)
	slices.SortFunc(e.sorted, func(x, y replicaRef) int {
		return cmp.Compare(e.size[x.t][x.p], e.size[y.t][y.p])
	})
	swapWith := func(r replicaRef, q replicaRef) {
		if q == r {
			return
		}
		t := e.size[r.t][r.p] - e.size[q.t][q.p]
		nw := narrowing(gap, t)
		if nw <= 0 || !e.movable(r, a, b) || !e.movable(q, b, a) {
			return
		}
		consider(step{a: a, b: b, from: r, to: q, swap: true, narrowing: nw, cost: e.moveCost(r, a, b) + e.moveCost(q, b, a)})
	}
	for _, r := range e.held[a] {
		n := e.size[r.t][r.p]
		if single {
			if nw := narrowing(gap, n); nw > 0 && e.movable(r, a, b) {
				consider(step{a: a, b: b, from: r, narrowing: nw, cost: e.moveCost(r, a, b)})
			}
		}
		if n <= 0 {
			continue
		}
		// The swap that moves closest to half the gap: b's replica of
		// size n − gap/2, and its neighbours by size.
		want := n - gap/2
		k, _ := slices.BinarySearchFunc(e.sorted, want, func(q replicaRef, w int64) int { return cmp.Compare(e.size[q.t][q.p], w) })
		for j := max(0, k-2); j < min(len(e.sorted), k+2); j++ {
			swapWith(r, e.sorted[j])
		}
	}
	// Swaps that copy nothing more: a replica the plan adds on a, and one
	// it adds on b (there are few of those).
	for _, r := range e.held[a] {
		if slices.Contains(e.topics[r.t].old[r.p], e.rb.ids[a]) {
			continue
		}
		for _, q := range e.held[b] {
			if !slices.Contains(e.topics[q.t].old[q.p], e.rb.ids[b]) {
				swapWith(r, q)
			}
		}
	}
	return best
}

// apply makes step s.
func (e *byteEvener) apply(s step) {
	e.moveReplica(s.from, s.a, s.b)
	if s.swap {
		e.moveReplica(s.to, s.b, s.a)
	}
}

// moveReplica moves r's replica from broker a to b, in its place in the
// partition's list.
func (e *byteEvener) moveReplica(r replicaRef, a, b int) {
	rs := e.replicas(r)
	for i, id := range rs {
		if id == e.rb.ids[a] {
			rs[i] = e.rb.ids[b]
			break
		}
	}
	n := e.size[r.t][r.p]
	e.bytes[a] -= n
	e.bytes[b] += n
	e.count[a]--
	e.count[b]++
	h := e.held[a]
	for i, x := range h {
		if x == r {
			h[i] = h[len(h)-1]
			e.held[a] = h[:len(h)-1]
			break
		}
	}
	e.held[b] = append(e.held[b], r)
}
