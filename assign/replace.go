package assign

import (
	"cmp"
	"slices"
)

// Replace places the replicas that must move, and nothing else: in each
// partition of current (one Assignment per topic), a replica stays when
// keep says so (a negative id never does: a replica to add), and the
// others are replaced by brokers of brokers. Unlike Rebalance it does not
// even anything out: it moves exactly the replicas keep lets go.
//
//   - A new replica goes to a broker that does not hold the partition:
//     rack-aware (when every broker has a rack), in the rack holding the
//     fewest of the partition's replicas; then to the broker holding the
//     fewest of the topic's replicas, then the fewest overall (o.Load and
//     what this placement added), then the lowest id.
//   - With sizes (o.Size), the rack rule first as above, then the broker
//     that holds the fewest bytes (o.Bytes, every replica that stays, and
//     what this placement added) before the counts; and each topic's
//     largest partitions are placed first, so that the big copies land on
//     the emptiest brokers and the small ones even out what is left. The
//     replicas that move are the same: each one that must move is copied
//     whatever its destination, so moving exactly those is also moving
//     the fewest bytes.
//   - The preferred leader stays when its replica stays. Otherwise the
//     kept replica leading the fewest of the topic's partitions (then the
//     fewest overall) leads: an in-sync replica rather than a new copy.
//     The other replicas keep their order; new ones come last.
//
// Each partition keeps its replication factor. Errors are Kafka's:
// "Replication factor: r larger than available brokers: n."
func Replace(brokers []Broker, current []Assignment, keep func(id int) bool, o RebalanceOptions) ([]Assignment, error) {
	var ids []int
	index := map[int]int{}
	aware := len(brokers) > 0
	for _, b := range brokers {
		if _, dup := index[b.ID]; dup {
			continue
		}
		index[b.ID] = len(ids)
		ids = append(ids, b.ID)
		aware = aware && b.HasRack
	}
	rackOf := map[int]string{}
	for _, b := range brokers {
		rackOf[b.ID] = b.Rack
	}
	load, leaders := make([]int, len(ids)), make([]int, len(ids))
	for i, id := range ids {
		load[i], leaders[i] = o.Load[id], o.Leaders[id]
	}
	stays := func(id int) bool { return id >= 0 && keep(id) }
	// By bytes: every broker's bytes as they will be once the replicas
	// that stay are counted, before any is placed (so that a topic placed
	// early sees what a later one keeps), and each topic's partitions'
	// sizes.
	var bytes []int64
	var sizes [][]int64
	if o.Size != nil {
		bytes = make([]int64, len(ids))
		for i, id := range ids {
			bytes[i] = o.Bytes[id]
		}
		sizes = make([][]int64, len(current))
		for ti, a := range current {
			sizes[ti] = make([]int64, 0, len(a))
			for _, p := range a.Partitions() {
				n := max(o.Size(ti, p), 0)
				sizes[ti] = append(sizes[ti], n)
				for _, r := range a[p] {
					if i, ok := index[r]; ok && stays(r) {
						bytes[i] += n
					}
				}
			}
		}
	}
	out := make([]Assignment, len(current))
	for ti, a := range current {
		topicLoad, topicLeaders := make([]int, len(ids)), make([]int, len(ids))
		// What stays counts first, so that the new replicas go where the
		// topic is lightest as it will be.
		for _, rs := range a {
			for j, r := range rs {
				if i, ok := index[r]; ok && stays(r) {
					topicLoad[i]++
					load[i]++
					if j == 0 {
						topicLeaders[i]++
						leaders[i]++
					}
				}
			}
		}
		res := make(Assignment, len(a))
		order := a.Partitions()
		var size map[int]int64
		if bytes != nil {
			size = make(map[int]int64, len(order))
			for k, p := range order {
				size[p] = sizes[ti][k]
			}
			// The largest first; equal sizes by partition id, as without
			// sizes.
			slices.SortStableFunc(order, func(x, y int) int { return cmp.Compare(size[y], size[x]) })
		}
		for _, p := range order {
			rs := a[p]
			kept := make([]int, 0, len(rs))
			for _, r := range rs {
				if stays(r) {
					kept = append(kept, r)
				}
			}
			if len(kept) == len(rs) {
				res[p] = slices.Clone(rs)
				continue
			}
			inRack := map[string]int{}
			for _, r := range kept {
				if rk, ok := rackOf[r]; ok {
					inRack[rk]++
				}
			}
			better := func(i, j int) bool {
				if aware {
					if ri, rj := inRack[rackOf[ids[i]]], inRack[rackOf[ids[j]]]; ri != rj {
						return ri < rj
					}
				}
				if bytes != nil && bytes[i] != bytes[j] {
					return bytes[i] < bytes[j]
				}
				if topicLoad[i] != topicLoad[j] {
					return topicLoad[i] < topicLoad[j]
				}
				if load[i] != load[j] {
					return load[i] < load[j]
				}
				return ids[i] < ids[j]
			}
			nw := slices.Clone(kept)
			for range len(rs) - len(kept) {
				best := -1
				for i, id := range ids {
					if !slices.Contains(nw, id) && (best < 0 || better(i, best)) {
						best = i
					}
				}
				if best < 0 {
					return nil, errorf(InvalidReplicationFactor, "Replication factor: %d larger than available brokers: %d.", len(rs), len(ids))
				}
				nw = append(nw, ids[best])
				topicLoad[best]++
				load[best]++
				if bytes != nil {
					bytes[best] += size[p]
				}
				inRack[rackOf[ids[best]]]++
			}
			if len(rs) > 0 && !stays(rs[0]) {
				// The leader leaves: an in-sync replica that stays leads.
				lead := 0
				key := func(k int) (int, int) {
					if i, ok := index[nw[k]]; ok {
						return topicLeaders[i], leaders[i]
					}
					return len(a) + 1, 1 << 30 // not a broker of the list: last
				}
				for k := 1; k < len(kept); k++ {
					tl, l := key(k)
					btl, bl := key(lead)
					if tl < btl || tl == btl && l < bl {
						lead = k
					}
				}
				nw = append(append([]int{nw[lead]}, nw[:lead]...), nw[lead+1:]...)
				if i, ok := index[nw[0]]; ok {
					topicLeaders[i]++
					leaders[i]++
				}
			}
			res[p] = nw
		}
		out[ti] = res
	}
	return out, nil
}
