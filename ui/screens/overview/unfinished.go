package overview

import (
	"maps"
	"slices"
	"strconv"

	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/internal/text"
	"github.com/ktopo/ktopo/ui/internal/cell"
	"github.com/ktopo/ktopo/ui/theme"
)

// unfinished is what an operation stopped halfway left in the cluster, as
// a TUI opened afterwards finds it: the throttles of a reassignment that
// runs (whoever started it, nobody may remove them once it is done), and
// partitions led from the end of their replica lists, as a drain's
// leaders-first step leaves them until its election.
type unfinished struct {
	throttles   cluster.LeftThrottles
	ledFromLast map[int][]cluster.TopicPartition
}

func (u *unfinished) lines(st *theme.Styles, w int) []string {
	var out []string
	if !u.throttles.Empty() {
		out = append(out,
			cell.Clip(" "+st.Header.S("THROTTLES")+"  "+st.Warning.S("set for the reassignment running, on "+u.throttles.Names(3)), w),
			cell.Clip("   "+st.Muted.S("they slow its copies and stay after it: once it is done, ktopo reassign --verify with its plan (ktopo reassign --list shows it), or ktopo configs --alter --delete-config, removes them"), w))
	}
	for _, b := range slices.Sorted(maps.Keys(u.ledFromLast)) {
		tps := u.ledFromLast[b]
		id := strconv.Itoa(b)
		out = append(out,
			cell.Clip(" "+st.Header.S("LEADERS")+"  "+st.Warning.S("broker "+id+" leads "+text.Count(len(tps), "partition")+" named last in their replicas ("+
				cell.Clip(cluster.JoinPartitions(tps, ", "), 40)+")"), w),
			cell.Clip("   "+st.Muted.S("as a drain's leaders-first step leaves them before its election: p (a preferred election) gives them their first replica as leader; d on broker "+id+" drains it"), w))
	}
	return out
}
