package zkwatch

import "github.com/go-zookeeper/zk"

// coalescer merges node events per path between two batches: a path's
// latest state wins, so memory is bounded by the number of distinct paths
// however slow the consumer is.
//
// For each path it remembers what the consumer had before the first pending
// event (present or not, and the node's czxid) and the latest event, and
// cut turns the pair into at most one event:
//
//	had  latest            → emitted
//	no   Created/Changed   → Created (latest state)
//	no   Deleted           → nothing (dropped as soon as it happens)
//	yes  Deleted           → Deleted
//	yes  Created/Changed   → Changed, or Created when the czxid differs
//	                         (deleted and re-created) or is unknown
type coalescer struct {
	idx   map[string]int
	items []pending
}

type pending struct {
	had   bool  // the consumer has the node
	czxid int64 // its czxid as the consumer has it (0: unknown)
	ev    Event // latest event
}

// add records ev. had and czxid describe the node as the consumer has it;
// they only matter for the first event of a path since the last cut.
func (c *coalescer) add(ev Event, had bool, czxid int64) {
	if c.idx == nil {
		c.idx = map[string]int{}
	}
	if i, ok := c.idx[ev.Path]; ok {
		it := &c.items[i]
		it.ev = ev
		if !it.had && ev.Type == Deleted {
			c.remove(i)
		}
		return
	}
	if !had && ev.Type == Deleted {
		return
	}
	c.idx[ev.Path] = len(c.items)
	c.items = append(c.items, pending{had: had, czxid: czxid, ev: ev})
}

// remove drops item i, moving the last item into its place.
func (c *coalescer) remove(i int) {
	last := len(c.items) - 1
	delete(c.idx, c.items[i].ev.Path)
	if i != last {
		c.items[i] = c.items[last]
		c.idx[c.items[i].ev.Path] = i
	}
	c.items[last] = pending{}
	c.items = c.items[:last]
}

// len is the number of paths with a pending event.
func (c *coalescer) len() int { return len(c.items) }

// cut returns the merged events (in order of each path's first event,
// except where removals reordered them) and starts over.
func (c *coalescer) cut() []Event {
	if len(c.items) == 0 {
		return nil
	}
	out := make([]Event, 0, len(c.items))
	for _, it := range c.items {
		ev := it.ev
		switch {
		case !it.had:
			ev.Type = Created
		case ev.Type == Deleted:
		case ev.Stat == nil || ev.Stat.Czxid != it.czxid:
			ev.Type = Created
		default:
			ev.Type = Changed
		}
		out = append(out, ev)
	}
	c.reset()
	return out
}

// keepItems is the most pending items whose room a cut keeps for the next
// batch (a first load's batches are cut by thousands; a burst's bigger
// room is given back).
const keepItems = 16 << 10

// reset forgets everything pending.
func (c *coalescer) reset() {
	if cap(c.items) > keepItems {
		c.items, c.idx = nil, nil
		return
	}
	clear(c.items) // no data kept alive by the room
	c.items = c.items[:0]
	clear(c.idx)
}

// czxidOf returns a stat's czxid, 0 for nil.
func czxidOf(s *zk.Stat) int64 {
	if s == nil {
		return 0
	}
	return s.Czxid
}
