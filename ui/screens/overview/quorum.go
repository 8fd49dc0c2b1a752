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
// Where it does not fit, it leaves out first the fenced and cordoned
// brokers (their cards say so too), then the leader's name (the ★ among
// the voters marks it), keeping the epoch.
func quorumLine(st *theme.Styles, s *cluster.Snapshot, w int) string {
	k := s.KRaft()
	if k == nil {
		return ""
	}
	head := " " + st.Muted.S("quorum ")
	states := brokerStates(st, k)
	if k.QuorumErr != "" {
		return cell.Clip(head+st.Danger.S(k.QuorumErr)+states, w)
	}
	q := &k.Quorum
	wide := w >= 120
	members := func(label string, rs []cluster.QuorumReplica) string {
		if len(rs) == 0 {
			return ""
		}
		var b strings.Builder
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
		return b.String()
	}
	leader := st.Danger.S("no leader") + st.Muted.S(" · ")
	short := leader
	if q.LeaderID >= 0 {
		epoch := "(epoch " + strconv.Itoa(q.LeaderEpoch) + ")"
		leader = st.Muted.S("leader ") + st.Controller.S(strconv.Itoa(q.LeaderID)) + st.Muted.S(" "+epoch+" · ")
		short = st.Muted.S(epoch + " ")
	}
	rest := members("voters", q.Voters)
	switch {
	case len(q.Observers) == 0:
	case wide:
		rest += st.Muted.S(" · ") + members("observers", q.Observers)
	default:
		// Narrow: how many observers and the most any is behind.
		rest += st.Muted.S(" · "+cell.Count(len(q.Observers), "observer")+" ") + observersLag(st, q.Observers)
	}
	for _, l := range []string{head + leader + rest + states, head + leader + rest} {
		if cell.Width(l) <= w {
			return l
		}
	}
	return cell.Clip(head+short+rest, w)
}

// observersLag says in a few words how far the observers are behind the
// leader's log: "caught up", "lag up to 20", with how many lags are
// unknown (a lag is never negative: -1 is DescribeQuorum's unknown).
func observersLag(st *theme.Styles, rs []cluster.QuorumReplica) string {
	most, unknown := int64(0), 0
	for _, r := range rs {
		if r.Lag < 0 {
			unknown++
			continue
		}
		most = max(most, r.Lag)
	}
	known := ""
	if unknown > 0 {
		known = ", " + strconv.Itoa(unknown) + " unknown"
	}
	switch {
	case unknown == len(rs):
		return st.Muted.S("lag unknown")
	case most > 0:
		return st.Warning.S("lag up to "+cell.Thousands(int(most))) + st.Muted.S(known)
	}
	return st.Online.S("caught up") + st.Muted.S(known)
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
