package cluster

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
)

// The what-if on a KRaft cluster (Snapshot.KRaft() != nil): Kafka 4.4's
// controller rules (org.apache.kafka.controller, kafka-metadata), not the
// ZooKeeper-mode controller's.
//
//   - A broker that stops heartbeating is fenced once its session times out
//     (BrokerHeartbeatTracker.maybeRemoveExpired): one broker per run of
//     the periodic maybeFenceStaleBroker task
//     (ReplicationControlManager.maybeFenceOneStaleBroker). Brokers lost
//     together are fenced one by one in an order nobody outside the
//     controller can know (their last heartbeats, then a hash map's order);
//     a broker not fenced yet is still active, and may be elected meanwhile.
//   - Fencing broker b rewrites every partition with b in its ISR, and only
//     those (handleBrokerFenced → generateLeaderAndIsrUpdates over
//     BrokersToIsrs.partitionsWithBrokerInIsr): the ISR without b, then
//     PartitionChangeBuilder.build (kraftFence below).
//   - A controller failover changes nothing to that: the new controller
//     gives every unfenced broker a fresh session (ClusterControlManager.
//     activate) and fences the dead ones the same way. Without a majority
//     of the quorum's voters there is no controller, and nothing is
//     written at all.
//
// So a partition's fate is computed for every order of the failed brokers
// that matter to it (kraftOutcomes), and where orders give different
// states all of them are kept (PartitionFailure.Others).

// FeatureELR and FeatureMetadataVersion name the finalized features the
// KRaft rules read (KRaft.Features).
const (
	FeatureELR             = "eligible.leader.replicas.version"
	FeatureMetadataVersion = "metadata.version"
)

// metadataVersion36IV0 is metadata.version 3.6-IV0's feature level: from it
// on an ISR shrink no longer bumps the leader epoch
// (MetadataVersion.isLeaderEpochBumpRequiredOnIsrShrink).
const metadataVersion36IV0 = 12

// kraftRules are the controller's switches a KRaft prediction depends on.
type kraftRules struct {
	// elr: eligible.leader.replicas.version ≥ 1
	// (FeatureControlManager.isElrFeatureEnabled).
	elr bool
	// bumpOnShrink: metadata.version before 3.6-IV0
	// (PartitionChangeBuilder.triggerLeaderEpochBumpForIsrShrinkIfNeeded).
	bumpOnShrink bool
	// quorumLost: the failed nodes are at least half of the voters, so no
	// controller is left to fence anyone.
	quorumLost bool
}

// kraftRulesOf reads the rules off a KRaft cluster's facts for the failure
// of the nodes failed reports.
func kraftRulesOf(k *KRaft, failed func(int) bool) kraftRules {
	var r kraftRules
	if lvl, ok := k.Feature(FeatureELR); ok && lvl >= 1 {
		r.elr = true
	}
	if lvl, ok := k.Feature(FeatureMetadataVersion); ok && lvl < metadataVersion36IV0 {
		r.bumpOnShrink = true
	}
	if n := len(k.Quorum.Voters); n > 0 {
		lost := 0
		for _, v := range k.Quorum.Voters {
			if failed(v.ID) {
				lost++
			}
		}
		r.quorumLost = 2*(n-lost) <= n
	}
	return r
}

// kpart is a partition as the controller's PartitionRegistration holds
// it, replayed fencing after fencing.
type kpart struct {
	leader, epoch int
	isr, elr, lke []int
	recovering    bool
	records       int // PartitionChangeRecords written
}

// same reports that two states are the same (records aside).
func (a *kpart) same(b *kpart) bool {
	return a.leader == b.leader && a.epoch == b.epoch && a.recovering == b.recovering &&
		slices.Equal(a.isr, b.isr) && slices.Equal(a.elr, b.elr) && slices.Equal(a.lke, b.lke)
}

// kpartition is what the rules read of one partition besides its state.
type kpartition struct {
	rules    *kraftRules
	replicas []int
	// minISR is ReplicationControlManager.getTopicEffectiveMinIsr: the
	// topic's min.insync.replicas, at most its replication factor.
	minISR int
	// unclean: the topic allows unclean elections
	// (ConfigurationControlManager.uncleanLeaderElectionEnabledForTopic).
	unclean bool
	// s tells the brokers registered and unfenced now (Snapshot.IsLive).
	s *Snapshot
}

// fence is the controller fencing broker b (handleBrokerFenced), with the
// brokers of fenced (b among them) fenced so far: the state it writes,
// or st when b is not in the ISR or nothing changes.
func (c *kpartition) fence(st kpart, b int, fenced []int) kpart {
	if !slices.Contains(st.isr, b) {
		return st // not in BrokersToIsrs for b: not visited
	}
	// generateLeaderAndIsrUpdates: acceptable leaders are the active
	// brokers but b (a failed broker not fenced yet is still active).
	acceptable := func(r int) bool { return r >= 0 && c.s.IsLive(r) && !slices.Contains(fenced, r) }
	targetISR := without(st.isr, b)
	targetELR := st.elr
	// maybePopulateTargetElr: below min ISR, whoever leaves the ISR joins
	// the ELR (in a java.util.HashSet's order); at or above it the ELR is
	// emptied.
	if c.rules.elr {
		if len(targetISR) >= c.minISR {
			targetELR = nil
		} else {
			var cand []int
			for _, r := range javaIntSetOrder(st.elr, st.isr) {
				if !slices.Contains(targetISR, r) {
					cand = append(cand, r)
				}
			}
			targetELR = cand
		}
	}
	// electAnyLeader (election ONLINE, or UNCLEAN where the topic allows).
	valid := func(r int) bool {
		return (slices.Contains(targetISR, r) || len(targetISR) == 0 && slices.Contains(targetELR, r)) && acceptable(r)
	}
	leader, unclean := -1, false
	switch {
	case valid(st.leader):
		leader = st.leader
	default:
		if i := slices.IndexFunc(c.replicas, valid); i >= 0 {
			leader = c.replicas[i]
		} else if c.rules.elr && len(targetELR) == 0 && len(targetISR) == 0 && len(st.lke) == 1 && acceptable(st.lke[0]) {
			// canElectLastKnownLeader: marked unclean.
			leader, unclean = st.lke[0], true
		} else if c.unclean {
			if i := slices.IndexFunc(c.replicas, acceptable); i >= 0 {
				leader, unclean = c.replicas[i], true
			}
		}
	}
	// tryElection: the record's fields (nil: not set; leader -2: not set).
	recLeader := -2
	var recISR, recELR, recLKE []int
	setISR, setELR, setLKE, setRecovering := false, false, false, false
	if leader != st.leader {
		if slices.Contains(targetELR, leader) {
			targetISR = []int{leader}
			targetELR = without(targetELR, leader)
		}
		recLeader = leader
		if unclean {
			recISR, setISR = []int{leader}, true
			setRecovering = !st.recovering
		}
	}
	// maybeUpdateRecordElr: an unclean election, or ELR off, empties it.
	if setISR || !c.rules.elr {
		targetELR = nil
	}
	if !slices.Equal(targetELR, st.elr) {
		recELR, setELR = targetELR, true
	}
	// The ISR is written unless unchanged, or empty without ELR (the last
	// member then stays, leaderless).
	if !setISR && !(len(targetISR) == 0 && !c.rules.elr) && !slices.Equal(targetISR, st.isr) {
		recISR, setISR = targetISR, true
	}
	if c.rules.bumpOnShrink && recLeader == -2 && setISR && !containsAll(recISR, st.isr) {
		recLeader = st.leader
	}
	// maybeUpdateLastKnownLeader: a partition losing its leader remembers
	// it; one getting a leader forgets.
	if c.rules.elr {
		switch {
		case recLeader == -1 && len(st.lke) == 0:
			recLKE, setLKE = []int{st.leader}, true
		case recLeader >= 0 && len(st.lke) > 0:
			recLKE, setLKE = nil, true
		}
	}
	if recLeader == -2 && !setISR && !setELR && !setLKE && !setRecovering {
		return st // changeRecordIsNoOp
	}
	// PartitionRegistration.merge
	next := st
	next.records++
	if recLeader != -2 {
		next.leader, next.epoch = recLeader, st.epoch+1
	}
	if setISR {
		next.isr = recISR
	}
	if setELR {
		next.elr = recELR
	}
	if setLKE {
		next.lke = recLKE
	}
	if setRecovering {
		next.recovering = true
	}
	return next
}

// maxOrdered is the most failed brokers of one partition whose orders are
// all explored (2^n fenced sets); beyond, only ascending order is.
const maxOrdered = 12

// outcomes are the states the partition may end in once the controller
// has fenced every broker of doomed (live now, failing), in any order;
// distinct, worst first (kraftWorse), appended to out[:0]. explored is
// false when there were too many brokers to try every order.
func (c *kpartition) outcomes(out []kpart, st kpart, doomed []int) (_ []kpart, explored bool) {
	out = out[:0]
	switch {
	case len(doomed) == 0:
		return append(out, st), true
	case len(doomed) == 1:
		return append(out, c.fence(st, doomed[0], doomed)), true
	case len(doomed) > maxOrdered:
		for i := range doomed {
			st = c.fence(st, doomed[i], doomed[:i+1])
		}
		return append(out, st), false
	}
	// Every order, as fenced sets: orders that reach the same state with
	// the same brokers fenced go on as one.
	type path struct {
		mask uint32
		st   kpart
	}
	frontier := []path{{0, st}}
	seen := map[string]int{}
	var fenced []int
	for range doomed {
		next := frontier[:0:0]
		clear(seen)
		for _, p := range frontier {
			for i, b := range doomed {
				if p.mask&(1<<i) != 0 {
					continue
				}
				m := p.mask | 1<<i
				fenced = fenced[:0]
				for j, d := range doomed {
					if m&(1<<j) != 0 {
						fenced = append(fenced, d)
					}
				}
				ns := c.fence(p.st, b, fenced)
				key := strconv.FormatUint(uint64(m), 16) + kpartKey(&ns)
				if k, ok := seen[key]; ok {
					next[k].st.records = max(next[k].st.records, ns.records)
					continue
				}
				seen[key] = len(next)
				next = append(next, path{m, ns})
			}
		}
		frontier = next
	}
	for _, p := range frontier {
		if i := slices.IndexFunc(out, func(o kpart) bool { return o.same(&p.st) }); i >= 0 {
			out[i].records = max(out[i].records, p.st.records)
			continue
		}
		out = append(out, p.st)
	}
	slices.SortFunc(out, func(a, b kpart) int { return kraftWorse(&a, &b, c.s.IsLive) })
	return out, true
}

// kpartKey encodes a state for kpartition.outcomes' set of paths.
func kpartKey(st *kpart) string {
	var b strings.Builder
	b.WriteString(strconv.Itoa(st.leader) + "/" + strconv.Itoa(st.epoch))
	if st.recovering {
		b.WriteString("r")
	}
	for _, l := range [3][]int{st.isr, st.elr, st.lke} {
		b.WriteByte('|')
		for _, r := range l {
			b.WriteString(strconv.Itoa(r) + ",")
		}
	}
	return b.String()
}

// kraftWorse orders outcomes worst first: without a live leader, then
// unclean, then the smaller ISR, then the smaller ELR; ties by value.
func kraftWorse(a, b *kpart, live func(int) bool) int {
	led := func(s *kpart) bool { return s.leader >= 0 && live(s.leader) }
	return cmp.Or(
		cmpBool(led(a), led(b)),
		-cmpBool(a.recovering, b.recovering),
		cmp.Compare(len(a.isr), len(b.isr)),
		cmp.Compare(len(a.elr), len(b.elr)),
		cmp.Compare(a.leader, b.leader),
		slices.Compare(a.isr, b.isr),
		slices.Compare(a.elr, b.elr),
		slices.Compare(a.lke, b.lke),
		cmp.Compare(a.epoch, b.epoch),
	)
}

func cmpBool(a, b bool) int { return cmp.Compare(b2i(a), b2i(b)) }

// without is xs without x (a new slice; xs is shared).
func without(xs []int, x int) []int {
	if !slices.Contains(xs, x) {
		return xs
	}
	out := make([]int, 0, len(xs)-1)
	for _, r := range xs {
		if r != x {
			out = append(out, r)
		}
	}
	return out
}

// containsAll reports that every member of sub is in xs (Kafka's
// Replicas.contains).
func containsAll(xs, sub []int) bool {
	for _, r := range sub {
		if !slices.Contains(xs, r) {
			return false
		}
	}
	return true
}

// javaIntSetOrder is the order in which a java.util.HashSet<Integer> made
// from first (new HashSet<>(first)) and then given then's members
// iterates: by bucket (the hash spread as HashMap spreads it, modulo the
// table's size), members of one bucket in the order they were added. It
// is the order of the ELR the controller writes
// (PartitionChangeBuilder.maybePopulateTargetElr).
func javaIntSetOrder(first, then []int) []int {
	members := make([]int, 0, len(first)+len(then))
	for _, l := range [2][]int{first, then} {
		for _, r := range l {
			if !slices.Contains(members, r) {
				members = append(members, r)
			}
		}
	}
	// HashSet(Collection): new HashMap(max((int)(n/.75f)+1, 16)), its
	// table the next power of two; doubled whenever the size passes
	// three quarters of it.
	table := 1
	for table < max(int(float32(len(first))/.75)+1, 16) {
		table <<= 1
	}
	for len(members) > table*3/4 {
		table <<= 1
	}
	bucket := func(r int) int {
		h := uint32(int32(r))
		return int((h ^ h>>16) & uint32(table-1))
	}
	slices.SortStableFunc(members, func(a, b int) int { return cmp.Compare(bucket(a), bucket(b)) })
	return members
}

// kraftMinISR is the min.insync.replicas the controller applies to topic t
// (ReplicationControlManager.getTopicEffectiveMinIsr): the topic's own,
// else the controller node's dynamic config, the cluster default (t.MinISR
// holds it then), at most the replication factor of partition 0. The
// controller's static server.properties is not visible from a client.
func kraftMinISR(t *Topic, ctrl int, brokerMinISR map[int]int) int {
	v := t.MinISR
	if !t.minISRSet {
		if b := brokerMinISR[ctrl]; b > 0 {
			v = b
		}
	}
	if len(t.Partitions) > 0 && t.Partitions[0].ID == 0 {
		v = min(v, len(t.Partitions[0].Replicas))
	}
	return v
}

// kraftPartition predicts f's partition of topic t with the KRaft rules:
// every outcome of fencing the failed brokers that matter to it (those
// among its replicas, ISR, ELR and last known leader), in any order.
func (pr *prediction) kraftPartition(f *PartitionFailure, t *Topic, unclean func() bool) {
	p := f.Partition
	pr.doomed = pr.doomed[:0]
	for _, b := range pr.gone {
		if slices.Contains(p.Replicas, b) || slices.Contains(p.ISR, b) || slices.Contains(p.ELR(), b) || slices.Contains(p.LastKnownELR(), b) {
			pr.doomed = append(pr.doomed, b)
		}
	}
	if len(pr.doomed) == 0 {
		return
	}
	slices.Sort(pr.doomed)
	c := kpartition{rules: pr.kraft, replicas: p.Replicas, minISR: kraftMinISR(t, pr.ctrl, pr.s.brokerMinISR),
		unclean: unclean(), s: pr.s}
	st := kpart{leader: p.Leader, epoch: p.LeaderEpoch, isr: p.ISR, elr: p.ELR(), lke: p.LastKnownELR(), recovering: f.Recovering}
	outs, explored := c.outcomes(pr.outs, st, pr.doomed)
	pr.outs = outs
	o := &outs[0]
	f.Leader, f.LeaderEpoch, f.ISR, f.Recovering = o.leader, o.epoch, o.isr, o.recovering
	if len(outs) > 1 || !explored || !slices.Equal(o.elr, p.ELR()) || !slices.Equal(o.lke, p.LastKnownELR()) {
		f.kraft = &kraftFate{elr: o.elr, lke: o.lke, unexplored: !explored}
	}
	for i := range outs {
		f.Writes = max(f.Writes, outs[i].records)
		if i > 0 {
			o := &outs[i]
			f.kraft.others = append(f.kraft.others, FailureOutcome{Leader: o.leader, LeaderEpoch: o.epoch, ISR: o.isr, ELR: o.elr,
				LastKnownELR: o.lke, Recovering: o.recovering})
		}
	}
}
