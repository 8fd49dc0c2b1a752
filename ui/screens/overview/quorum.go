package overview

import (
	"strconv"
	"strings"

	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/ui/internal/cell"
	"github.com/ktopo/ktopo/ui/theme"
)

// A KRaft cluster's overview has one line more in its header: the
// metadata quorum as DescribeQuorum reports it (its leader is the
// controller the first line names, never a broker's guess), its voters
// and observers with how far each is behind the leader's log, and the
// brokers the controller has fenced or that are cordoned.

// quorumLine is the header's quorum line of width w ("" on ZooKeeper).
func quorumLine(st *theme.Styles, s *cluster.Snapshot, w int) string {
	k := s.KRaft()
	if k == nil {
		return ""
	}
	var b strings.Builder
	b.WriteString(" " + st.Muted.S("quorum "))
	if k.QuorumErr != "" {
		b.WriteString(st.Danger.S(k.QuorumErr))
		return cell.Clip(b.String()+brokerStates(st, k), w)
	}
	q := &k.Quorum
	wide := w >= 120
	members := func(label string, rs []cluster.QuorumReplica) {
		if len(rs) == 0 {
			return
		}
		b.WriteString(st.Muted.S(label + " "))
		for i, r := range rs {
			if i > 0 {
				b.WriteString(" ")
			}
			id := strconv.Itoa(r.ID)
			switch lag := r.Lag; {
			case r.ID == q.LeaderID:
				b.WriteString(st.Controller.S(id + "★"))
			case lag < 0:
				b.WriteString(st.Muted.S(id + "?"))
			case lag == 0:
				b.WriteString(st.Online.S(id))
			case wide:
				b.WriteString(st.Warning.S(id + " lag " + cell.Thousands(int(lag))))
			default:
				b.WriteString(st.Warning.S(id + "+" + cell.Thousands(int(lag))))
			}
		}
	}
	if q.LeaderID < 0 {
		b.WriteString(st.Danger.S("no leader") + st.Muted.S(" · "))
	} else {
		b.WriteString(st.Muted.S("leader ") + st.Controller.S(strconv.Itoa(q.LeaderID)) + st.Muted.S(" (epoch "+strconv.Itoa(q.LeaderEpoch)+") · "))
	}
	members("voters", q.Voters)
	switch {
	case len(q.Observers) == 0:
	case wide:
		b.WriteString(st.Muted.S(" · "))
		members("observers", q.Observers)
	default:
		// Narrow: how many observers and the most any is behind.
		most := int64(0)
		for _, r := range q.Observers {
			most = max(most, r.Lag)
		}
		ink := st.Online
		if most > 0 {
			ink = st.Warning
		}
		b.WriteString(st.Muted.S(" · "+cell.Count(len(q.Observers), "observer")+" ") + ink.S("lag ≤"+cell.Thousands(int(most))))
	}
	return cell.Clip(b.String()+brokerStates(st, k), w)
}

// brokerStates names the fenced and the cordoned brokers.
func brokerStates(st *theme.Styles, k *cluster.KRaft) string {
	var fenced, cordoned []string
	for _, b := range k.Brokers {
		switch {
		case b.Fenced:
			fenced = append(fenced, strconv.Itoa(b.ID))
		case b.Cordoned:
			cordoned = append(cordoned, strconv.Itoa(b.ID))
		}
	}
	out := ""
	if len(fenced) > 0 {
		out += st.Muted.S(" · ") + st.Danger.S("fenced "+strings.Join(fenced, " "))
	}
	if len(cordoned) > 0 {
		out += st.Muted.S(" · ") + st.Warning.S("cordoned "+strings.Join(cordoned, " "))
	}
	return out
}
