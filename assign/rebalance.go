package assign

import (
	"container/heap"
	"math"
	"slices"
)

// RebalanceOptions tune Rebalance.
type RebalanceOptions struct {
	// Load is each broker's replica count in topics that are not being
	// placed; Leaders its leader count there. Between brokers equally
	// loaded by a topic, new replicas and leaders go to the least loaded
	// overall, so that moving some topics keeps the whole cluster even.
	Load, Leaders map[int]int
	// Size, when set, is a partition's size in bytes (a negative one is
	// unknown and counts as none): topic indexes the assignments handed to
	// Replace or Rebalance, partition is the partition's id. With it the
	// placement weighs bytes as well as replicas: Replace sends each new
	// replica to the eligible broker holding the fewest bytes, Rebalance
	// evens the brokers' bytes (BalanceTolerance). Without it (nil) both
	// place by replica counts alone.
	Size func(topic, partition int) int64
	// Bytes is each broker's bytes in topics that are not being placed
	// (read only with Size): what a broker holds besides the replicas the
	// placement decides.
	Bytes map[int]int64
}

// Rebalance places the replicas of each topic in current (one Assignment
// per topic) on brokers, moving as few replicas as it can while the result
// is rack-aware and even. It is not Kafka's algorithm (kafka-reassign-partitions
// --generate places every replica afresh, at random): it keeps every
// current replica that may stay and moves only what must move.
//
//   - A replica stays when its broker is in brokers, its rack does not
//     already hold its share of the partition, and its broker does not hold
//     more than its share of the topic (when that share is at least one
//     replica: a topic with fewer replicas than brokers keeps the spread it
//     has).
//   - Rack-aware (when every broker has a rack): a partition of
//     replication factor r over k racks gets r/k or r/k+1 replicas in every
//     rack, so it spans min(r, k) racks, as Kafka's rack-aware placement
//     does.
//   - Even: each broker's share of a topic is its rack's share (racks take
//     replicas in proportion to their brokers, within what the per-partition
//     rack limits allow) split evenly over the rack's brokers; a broker above
//     its share gives up its extra replicas (followers before leaders), and
//     every missing replica goes to the broker furthest below its share
//     (then the least loaded overall, then the lowest id).
//   - Leaders: a partition keeps its leader when that broker stays a replica
//     and leads no more than its share of the topic's partitions; otherwise
//     the replica leading the fewest partitions leads. The leader is listed
//     first; the other replicas keep their order, new ones last.
//   - Bytes (with o.Size): once the counts are even, the brokers' bytes
//     are evened to within BalanceTolerance of their mean by swapping
//     replicas between heavy and light brokers, or moving one, each
//     broker's count staying within one of the count-balanced placement's
//     (evenBytes).
//
// Each partition keeps its replication factor. Errors are Kafka's:
// "Replication factor: r larger than available brokers: n." and the
// partial-rack message of Assign.
func Rebalance(brokers []Broker, current []Assignment, o RebalanceOptions) ([]Assignment, error) {
	rb, err := newRebalancer(brokers, o)
	if err != nil {
		return nil, err
	}
	for _, a := range current {
		for _, p := range a {
			if len(p) > rb.n {
				return nil, errorf(InvalidReplicationFactor, "Replication factor: %d larger than available brokers: %d.", len(p), rb.n)
			}
		}
	}
	// Keep first, for every topic, so that the overall load the fill
	// phase breaks ties with counts every replica that stays.
	topics := make([]*topicPlan, len(current))
	for i, a := range current {
		topics[i] = rb.keep(a)
	}
	out := make([]Assignment, len(current))
	for i, t := range topics {
		rb.fill(t)
		out[i] = rb.lead(t)
	}
	if o.Size != nil {
		size := make([][]int64, len(topics))
		for i, t := range topics {
			size[i] = make([]int64, len(t.ids))
			for pi, p := range t.ids {
				size[i][pi] = max(o.Size(i, p), 0)
			}
		}
		rb.evenBytes(topics, out, size, o.Bytes)
	}
	return out, nil
}

// CountMoves compares two assignments of the same partitions: how many
// replicas the new one adds (each added replica is a copy of the
// partition to a broker that did not hold it) and how many partitions get
// another preferred leader.
func CountMoves(from, to Assignment) (replicas, leaders int) {
	for p, nw := range to {
		old := from[p]
		for _, r := range nw {
			if !slices.Contains(old, r) {
				replicas++
			}
		}
		if len(nw) > 0 && (len(old) == 0 || old[0] != nw[0]) {
			leaders++
		}
	}
	return replicas, leaders
}

// rebalancer holds the broker set and the overall loads across topics.
type rebalancer struct {
	n       int
	ids     []int       // broker index → id
	index   map[int]int // id → broker index
	rackOf  []int       // broker index → rack number
	racks   [][]int     // rack number → broker indexes
	load    []int       // overall replicas per broker
	leaders []int       // overall leaders per broker

	// Per-topic scratch, reset by keep.
	topicLoad    []int
	topicLeaders []int
	limitCache   map[int]rackLimits
}

func newRebalancer(brokers []Broker, o RebalanceOptions) (*rebalancer, error) {
	rb := &rebalancer{index: map[int]int{}, limitCache: map[int]rackLimits{}}
	withRack := 0
	for _, b := range brokers {
		if _, dup := rb.index[b.ID]; dup {
			continue
		}
		rb.index[b.ID] = len(rb.ids)
		rb.ids = append(rb.ids, b.ID)
		if b.HasRack {
			withRack++
		}
	}
	rb.n = len(rb.ids)
	if withRack > 0 && withRack < len(brokers) {
		return nil, &Error{AdminOperation, MessageNotAllBrokersHaveRackInfo}
	}
	rb.rackOf = make([]int, rb.n)
	rackNum := map[string]int{}
	for _, b := range brokers {
		i := rb.index[b.ID]
		rack := ""
		if withRack > 0 {
			rack = b.Rack
		}
		r, ok := rackNum[rack]
		if !ok {
			r = len(rb.racks)
			rackNum[rack] = r
			rb.racks = append(rb.racks, nil)
		}
		if !slices.Contains(rb.racks[r], i) {
			rb.racks[r] = append(rb.racks[r], i)
		}
		rb.rackOf[i] = r
	}
	rb.load = make([]int, rb.n)
	rb.leaders = make([]int, rb.n)
	for i, id := range rb.ids {
		rb.load[i] = o.Load[id]
		rb.leaders[i] = o.Leaders[id]
	}
	rb.topicLoad = make([]int, rb.n)
	rb.topicLeaders = make([]int, rb.n)
	return rb, nil
}

// topicPlan is one topic on its way through keep, fill and lead.
type topicPlan struct {
	ids   []int   // partition ids, ascending
	old   [][]int // current replicas (broker ids), by position in ids
	kept  [][]int // broker indexes that stay, in their current order
	added [][]int // broker indexes that receive a copy
	quota []float64
	holes int
}

// rackLimits is how a partition of some replication factor spreads over
// the racks: as evenly as the racks' sizes allow (a rack cannot hold two
// replicas of one partition on one broker). A rack with fewer than level
// brokers holds one replica on each; every other rack holds level-1 or
// level, and atLevel of them hold level.
type rackLimits struct {
	level, atLevel int
}

func (rb *rebalancer) limits(rf int) rackLimits {
	if l, ok := rb.limitCache[rf]; ok {
		return l
	}
	level := 0
	for sum := 0; sum < rf; {
		level++
		sum = 0
		for _, members := range rb.racks {
			sum += min(len(members), level)
		}
	}
	l := rackLimits{level: level, atLevel: rf}
	for _, members := range rb.racks {
		if len(members) < level {
			l.atLevel -= len(members)
		} else {
			l.atLevel -= level - 1
		}
	}
	rb.limitCache[rf] = l
	return l
}

// rackRange is the fewest and most replicas of a partition rack r holds.
func (rb *rebalancer) rackRange(r int, l rackLimits) (lo, hi int) {
	size, others := len(rb.racks[r]), 0
	if size < l.level {
		return size, size
	}
	for _, members := range rb.racks {
		if len(members) >= l.level {
			others++
		}
	}
	if l.atLevel == others {
		return l.level, l.level
	}
	return l.level - 1, l.level
}

// admits reports whether rack r may take one more replica of a partition
// whose racks hold count replicas, atMax of them at the level.
func (rb *rebalancer) admits(r int, count []int, atMax int, l rackLimits) bool {
	c := count[r]
	if len(rb.racks[r]) < l.level {
		return c < len(rb.racks[r])
	}
	return c < l.level-1 || c == l.level-1 && atMax < l.atLevel
}

// atLevel counts the racks (of at least level brokers) that hold level
// replicas.
func (rb *rebalancer) countAtLevel(count []int, l rackLimits) int {
	n := 0
	for r, c := range count {
		if len(rb.racks[r]) >= l.level && c >= l.level {
			n++
		}
	}
	return n
}

// keep decides which current replicas stay, and computes the topic's
// per-broker quotas.
func (rb *rebalancer) keep(a Assignment) *topicPlan {
	t := &topicPlan{ids: a.Partitions()}
	np := len(t.ids)
	t.old = make([][]int, np)
	t.kept = make([][]int, np)
	t.added = make([][]int, np)
	for i := range rb.topicLoad {
		rb.topicLoad[i] = 0
	}
	rackCount := make([]int, len(rb.racks))
	total := 0
	for _, p := range t.ids {
		total += len(a[p])
	}
	backing := make([]int, 0, total) // every kept list in one allocation
	for pi, p := range t.ids {
		t.old[pi] = a[p]
		from := len(backing)
		backing = rb.keepPartition(backing, a[p], rackCount)
		t.kept[pi] = backing[from : len(backing) : from+len(a[p])]
		backing = backing[:from+len(a[p])]
	}
	t.quota = rb.quotas(t)
	// A broker above its share of the topic gives up its extra replicas,
	// followers first, then the leaders of the highest partitions. Only
	// where the share is a replica or more: a topic with fewer replicas
	// than brokers is never even (Kafka's own placement puts two replicas
	// of it on some brokers and none on most), and moving its replicas
	// around would not make it so.
	over := false
	for i, l := range rb.topicLoad {
		if overShare(l, t.quota[i]) > 0 {
			over = true
		}
	}
	if over {
		rb.shed(t)
	}
	for pi := range t.ids {
		t.holes += len(t.old[pi]) - len(t.kept[pi])
		for _, b := range t.kept[pi] {
			rb.load[b]++
		}
	}
	return t
}

// keepPartition appends to dst the broker indexes of old that may stay:
// brokers of the set, each rack within the partition's limits.
func (rb *rebalancer) keepPartition(dst, old []int, rackCount []int) []int {
	l := rb.limits(len(old))
	for i := range rackCount {
		rackCount[i] = 0
	}
	atMax := 0
	from := len(dst)
	for _, id := range old {
		b, ok := rb.index[id]
		if !ok || slices.Contains(dst[from:], b) {
			continue
		}
		r := rb.rackOf[b]
		if !rb.admits(r, rackCount, atMax, l) {
			continue
		}
		if len(rb.racks[r]) >= l.level && rackCount[r] == l.level-1 {
			atMax++
		}
		rackCount[r]++
		dst = append(dst, b)
		rb.topicLoad[b]++
	}
	return dst
}

// quotas is each broker's share of the topic's replicas: racks take
// replicas in proportion to their brokers (water-filling within the range
// the per-partition rack limits allow), split evenly within a rack.
func (rb *rebalancer) quotas(t *topicPlan) []float64 {
	k := len(rb.racks)
	lo, hi := make([]float64, k), make([]float64, k)
	total := 0.0
	for pi := range t.ids {
		rf := len(t.old[pi])
		l := rb.limits(rf)
		total += float64(rf)
		for r := range k {
			a, b := rb.rackRange(r, l)
			lo[r] += float64(a)
			hi[r] += float64(b)
		}
	}
	fill := func(lambda float64) float64 {
		s := 0.0
		for r := range k {
			s += math.Min(math.Max(lambda*float64(len(rb.racks[r])), lo[r]), hi[r])
		}
		return s
	}
	a, b := 0.0, total+1
	for range 60 {
		mid := (a + b) / 2
		if fill(mid) < total {
			a = mid
		} else {
			b = mid
		}
	}
	quota := make([]float64, rb.n)
	for r := range k {
		share := math.Min(math.Max(b*float64(len(rb.racks[r])), lo[r]), hi[r]) / float64(len(rb.racks[r]))
		for _, i := range rb.racks[r] {
			quota[i] = share
		}
	}
	return quota
}

func ceilQuota(q float64) float64 { return math.Ceil(q - 1e-9) }

// overShare is how many replicas of a topic a broker holds beyond its
// share (0 for a share below one replica).
func overShare(load int, quota float64) int {
	if quota < 1-1e-9 {
		return 0
	}
	return max(0, load-int(ceilQuota(quota)))
}

// shed drops the replicas of brokers above their share of the topic.
func (rb *rebalancer) shed(t *topicPlan) {
	excess := make([]int, rb.n)
	for i, l := range rb.topicLoad {
		excess[i] = overShare(l, t.quota[i])
	}
	// Two rounds: followers, then leaders; each from the highest
	// partition down, so low partitions keep their replicas.
	for _, leaders := range []bool{false, true} {
		for pi := len(t.ids) - 1; pi >= 0; pi-- {
			kept := t.kept[pi]
			for j := len(kept) - 1; j >= 0; j-- {
				b := kept[j]
				isLeader := len(t.old[pi]) > 0 && rb.ids[b] == t.old[pi][0]
				if excess[b] == 0 || isLeader != leaders {
					continue
				}
				excess[b]--
				rb.topicLoad[b]--
				kept = slices.Delete(kept, j, j+1)
			}
			t.kept[pi] = kept
		}
	}
}

// fill gives every partition its missing replicas.
func (rb *rebalancer) fill(t *topicPlan) {
	if t.holes == 0 {
		return
	}
	for i := range rb.topicLoad {
		rb.topicLoad[i] = 0
	}
	for pi := range t.ids {
		for _, b := range t.kept[pi] {
			rb.topicLoad[b]++
		}
	}
	hs := make([]*brokerHeap, len(rb.racks))
	for r, members := range rb.racks {
		h := &brokerHeap{rb: rb, pos: make(map[int]int, len(members))}
		h.items = slices.Clone(members)
		for j, b := range h.items {
			h.pos[b] = j
		}
		heap.Init(h)
		hs[r] = h
	}
	rackCount := make([]int, len(rb.racks))
	var held []int
	for pi := range t.ids {
		rf := len(t.old[pi])
		if len(t.kept[pi]) == rf {
			continue
		}
		l := rb.limits(rf)
		for r := range rackCount {
			rackCount[r] = 0
		}
		for _, b := range t.kept[pi] {
			rackCount[rb.rackOf[b]]++
		}
		atMax := rb.countAtLevel(rackCount, l)
		in := func(b int) bool { return slices.Contains(t.kept[pi], b) || slices.Contains(t.added[pi], b) }
		for len(t.kept[pi])+len(t.added[pi]) < rf {
			best, bestRack := -1, -1
			for r, h := range hs {
				if !rb.admits(r, rackCount, atMax, l) {
					continue
				}
				// The rack's best broker that is not a replica yet.
				held = held[:0]
				for h.Len() > 0 && in(h.items[0]) {
					held = append(held, heap.Pop(h).(int))
				}
				if h.Len() > 0 {
					if c := h.items[0]; best < 0 || rb.better(c, best, t.quota) {
						best, bestRack = c, r
					}
				}
				for _, b := range held {
					heap.Push(h, b)
				}
			}
			if best < 0 {
				// Cannot happen while rf ≤ brokers: the rack limits always
				// leave a rack with a free broker.
				break
			}
			t.added[pi] = append(t.added[pi], best)
			if len(rb.racks[bestRack]) >= l.level && rackCount[bestRack] == l.level-1 {
				atMax++
			}
			rackCount[bestRack]++
			rb.topicLoad[best]++
			rb.load[best]++
			heap.Fix(hs[bestRack], hs[bestRack].pos[best])
		}
	}
}

// better reports whether broker a should get a replica before broker b:
// further below its share of the topic, then less loaded overall, then the
// lower id.
func (rb *rebalancer) better(a, b int, quota []float64) bool {
	da, db := quota[a]-float64(rb.topicLoad[a]), quota[b]-float64(rb.topicLoad[b])
	if da != db {
		return da > db
	}
	if rb.load[a] != rb.load[b] {
		return rb.load[a] < rb.load[b]
	}
	return rb.ids[a] < rb.ids[b]
}

// brokerHeap orders one rack's brokers for the fill phase (within a rack
// every broker has the same share, so the topic load decides first).
type brokerHeap struct {
	rb    *rebalancer
	items []int
	pos   map[int]int
}

func (h *brokerHeap) Len() int { return len(h.items) }
func (h *brokerHeap) Less(i, j int) bool {
	a, b := h.items[i], h.items[j]
	rb := h.rb
	if rb.topicLoad[a] != rb.topicLoad[b] {
		return rb.topicLoad[a] < rb.topicLoad[b]
	}
	if rb.load[a] != rb.load[b] {
		return rb.load[a] < rb.load[b]
	}
	return rb.ids[a] < rb.ids[b]
}
func (h *brokerHeap) Swap(i, j int) {
	h.items[i], h.items[j] = h.items[j], h.items[i]
	h.pos[h.items[i]], h.pos[h.items[j]] = i, j
}
func (h *brokerHeap) Push(x any) {
	b := x.(int)
	h.pos[b] = len(h.items)
	h.items = append(h.items, b)
}
func (h *brokerHeap) Pop() any {
	b := h.items[len(h.items)-1]
	h.items = h.items[:len(h.items)-1]
	delete(h.pos, b)
	return b
}

// lead picks each partition's leader and returns the topic's assignment.
func (rb *rebalancer) lead(t *topicPlan) Assignment {
	for i := range rb.topicLeaders {
		rb.topicLeaders[i] = 0
	}
	np := len(t.ids)
	share := int(math.Ceil(float64(np) / float64(rb.n)))
	leader := make([]int, np)
	var pending []int
	for pi := range t.ids {
		leader[pi] = -1
		if len(t.old[pi]) == 0 {
			continue
		}
		if b, ok := rb.index[t.old[pi][0]]; ok && slices.Contains(t.kept[pi], b) && rb.topicLeaders[b] < share {
			leader[pi] = b
			rb.topicLeaders[b]++
			continue
		}
		pending = append(pending, pi)
	}
	for _, pi := range pending {
		best := -1
		for _, list := range [][]int{t.kept[pi], t.added[pi]} {
			for _, b := range list {
				if best < 0 || rb.topicLeaders[b] < rb.topicLeaders[best] ||
					rb.topicLeaders[b] == rb.topicLeaders[best] && rb.leaders[b] < rb.leaders[best] {
					best = b
				}
			}
		}
		if best >= 0 {
			leader[pi] = best
			rb.topicLeaders[best]++
		}
	}
	out := make(Assignment, np)
	backing := make([]int, 0, np*3)
	for pi, p := range t.ids {
		from := len(backing)
		if leader[pi] >= 0 {
			backing = append(backing, rb.ids[leader[pi]])
			rb.leaders[leader[pi]]++
		}
		for _, list := range [][]int{t.kept[pi], t.added[pi]} {
			for _, b := range list {
				if b != leader[pi] {
					backing = append(backing, rb.ids[b])
				}
			}
		}
		out[p] = backing[from:len(backing):len(backing)]
	}
	return out
}
