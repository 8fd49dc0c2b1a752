package kraftsandbox

import (
	"slices"
	"strconv"
	"time"
)

// The partition state machine of Kafka 4.4's controller
// (PartitionChangeBuilder): the replicas, the ISR, the eligible leader
// replicas (KIP-966) and the leader change together, in one
// PartitionChangeRecord. A reassignment completes when the target ISR
// holds every target replica; the ELR takes the replicas leaving an ISR
// that is below min.insync.replicas; the leader is kept while it stays a
// valid leader, else elected from the target replicas in the target ISR
// (or, when the ISR is empty, in the ELR), then the last known leader
// (balanced recovery), then, for an unclean election, any live replica.

// electionKind is why a leader is being chosen (PartitionChangeBuilder.Election).
type electionKind int

const (
	// electAny (ONLINE) keeps the current leader while it is valid, else
	// elects the first valid replica.
	electAny electionKind = iota
	// electPreferred (PREFERRED) elects the first replica when it is
	// valid, else as electAny.
	electPreferred
	// electUnclean (UNCLEAN) is electAny, then any live replica outside
	// the ISR and the ELR.
	electUnclean
)

// noBroker is Kafka's NO_LEADER, the "none" of changeSpec's broker ids.
const noBroker = -1

// changeSpec is one PartitionChangeBuilder's targets. The zero value of
// a list field leaves it as it is unless its set flag is true.
type changeSpec struct {
	isr                        []int32
	replicas, adding, removing []int32
	setReplicas, setAdding     bool
	setRemoving                bool
	election                   electionKind
	// remove, add and uncleanShutdown are generateLeaderAndIsrUpdates'
	// brokerToRemove, brokerToAdd and brokerWithUncleanShutdown (noBroker:
	// none): remove and uncleanShutdown may not lead, add may though still
	// fenced; uncleanShutdown leaves the ELR too.
	remove, add, uncleanShutdown int32
}

// spec is a changeSpec with the target ISR and nothing else changed.
func spec(isr []int32, kind electionKind) changeSpec {
	return changeSpec{isr: isr, election: kind, remove: noBroker, add: noBroker, uncleanShutdown: noBroker}
}

// usable says whether a broker may lead or be in an ISR: registered,
// unfenced, not shutting down (ClusterControlManager.isActive). c.mu is
// held.
func (c *Cluster) usable(id int32) bool {
	b := c.broker(id)
	return b != nil && b.registered && !b.fenced && !b.shuttingDown
}

// minISR is a topic's effective min.insync.replicas: its own override,
// else the cluster-wide dynamic default, else Kafka's default of 1,
// capped at the replication factor (getTopicEffectiveMinIsr). c.mu is
// held.
func (c *Cluster) minISR(t *topic) int {
	n := 1
	if v, ok := t.configs["min.insync.replicas"]; ok {
		if m, err := strconv.Atoi(v); err == nil {
			n = m
		}
	} else if v, ok := c.brokerConfigs[""]["min.insync.replicas"]; ok {
		if m, err := strconv.Atoi(v); err == nil {
			n = m
		}
	}
	if len(t.parts) > 0 {
		n = min(n, len(t.parts[0].replicas))
	}
	return n
}

// elrEnabled says whether eligible leader replicas are kept
// (eligible.leader.replicas.version >= 1). c.mu is held.
func (c *Cluster) elrEnabled() bool { return c.features["eligible.leader.replicas.version"] >= 1 }

// uncleanAllowed is the topic's unclean.leader.election.enable (else the
// cluster default, else false). c.mu is held.
func (c *Cluster) uncleanAllowed(t *topic) bool {
	if v, ok := t.configs["unclean.leader.election.enable"]; ok {
		return v == "true"
	}
	return c.brokerConfigs[""]["unclean.leader.election.enable"] == "true"
}

// change applies one partition change with the target ISR, electing a
// leader by kind. It reports whether anything changed. c.mu is held.
func (c *Cluster) change(t *topic, p *partition, isr []int32, kind electionKind) bool {
	return c.build(t, p, spec(isr, kind))
}

// build is PartitionChangeBuilder.build followed by the record's replay:
// it completes a reassignment whose target replicas are all in the
// target ISR, moves the ELR, elects, bumps the leader epoch when the
// leader changes or a replica leaves the replicas, and the partition
// epoch on every change. It reports whether anything changed (false: no
// record, as Kafka writes none for a no-op). c.mu is held.
func (c *Cluster) build(t *topic, p *partition, s changeSpec) bool {
	elrOn := c.elrEnabled()
	accept := func(r int32) bool {
		return r >= 0 && r != s.remove && r != s.uncleanShutdown && (r == s.add || c.usable(r))
	}
	isr := slices.Clone(s.isr)
	replicas, adding, removing := p.replicas, p.adding, p.removing
	if s.setReplicas {
		replicas = s.replicas
	}
	if s.setAdding {
		adding = s.adding
	}
	if s.setRemoving {
		removing = s.removing
	}
	replicas, adding, removing = slices.Clone(replicas), slices.Clone(adding), slices.Clone(removing)
	elr := slices.Clone(p.elr)

	// completeReassignmentIfNeeded
	if len(adding) > 0 || len(removing) > 0 {
		newISR, newReplicas, ok := isr, replicas, true
		if len(removing) > 0 {
			newISR = minus(isr, removing)
			newReplicas = minus(replicas, removing)
			ok = len(newISR) > 0 && len(newReplicas) > 0
		}
		if ok && containsAll(newISR, newReplicas) {
			isr, replicas, adding, removing = newISR, newReplicas, nil, nil
		}
	}

	// maybePopulateTargetElr (the last known ELR it also computes is
	// dropped: with balanced recovery's last known leader, only
	// maybeUpdateLastKnownLeader below sets that field)
	if elrOn {
		if len(isr) >= c.minISR(t) {
			elr = nil
		} else {
			elr = slices.DeleteFunc(union(elr, p.isr), func(r int32) bool {
				return slices.Contains(isr, r) || r == s.uncleanShutdown
			})
		}
	}

	// tryElection
	valid := func(r int32) bool {
		return (slices.Contains(isr, r) || len(isr) == 0 && slices.Contains(elr, r)) && accept(r)
	}
	leader, unclean := c.electLeader(p, s.election, replicas, isr, elr, elrOn, valid, accept)
	leaderSet := false
	var recISR []int32
	setISR := false
	if leader != p.leader {
		if slices.Contains(elr, leader) {
			isr = []int32{leader}
			elr = without(elr, leader)
		}
		leaderSet = true
		if unclean {
			recISR, setISR = []int32{leader}, true
		}
	} else {
		leader = p.leader
	}

	// triggerLeaderEpochBumpForReplicaReassignmentIfNeeded
	if !leaderSet && !containsAll(replicas, p.replicas) {
		leaderSet = true
	}

	// maybeUpdateRecordElr (the last known ELR holds the last known
	// leader: useLastKnownLeaderInBalancedRecovery)
	if setISR || !elrOn {
		elr = nil
	}
	setLastKnown := false
	newLastKnown := p.lastKnownELR

	// the ISR
	if !setISR && (len(isr) > 0 || elrOn) && !slices.Equal(isr, p.isr) {
		recISR, setISR = isr, true
	}

	// maybeUpdateLastKnownLeader
	if elrOn {
		if setISR && len(recISR) == 0 && (len(p.lastKnownELR) != 1 || p.lastKnownELR[0] != p.leader) {
			newLastKnown, setLastKnown = []int32{p.leader}, true
		} else if (leaderSet && leader >= 0 || p.leader != noBroker && !(leaderSet && leader == noBroker)) && len(p.lastKnownELR) > 0 {
			newLastKnown, setLastKnown = nil, true
		}
	}

	// the leader recovery state (KIP-704): RECOVERING after an unclean
	// election until its leader grows the ISR (its AlterPartition says
	// RECOVERED); a record without one keeps it.
	recovering := p.recovering
	if leaderSet && unclean {
		recovering = true
	} else if setISR && leader == p.leader && len(recISR) > len(p.isr) {
		recovering = false
	}

	elrChanged := !slices.Equal(elr, p.elr)
	replicasChanged := !slices.Equal(replicas, p.replicas) && len(replicas) > 0
	addingChanged, removingChanged := !slices.Equal(adding, p.adding), !slices.Equal(removing, p.removing)
	if !leaderSet && !setISR && !elrChanged && !setLastKnown && !replicasChanged && !addingChanged && !removingChanged && recovering == p.recovering {
		return false
	}
	p.recovering = recovering
	oldISR, oldReplicas := p.isr, p.replicas
	if leaderSet {
		p.leader = leader
		p.leaderEpoch++
	}
	if setISR {
		p.isr = recISR
	}
	if elrChanged {
		p.elr = elr
	}
	if setLastKnown {
		p.lastKnownELR = newLastKnown
	}
	if replicasChanged {
		p.replicas = replicas
	}
	if addingChanged {
		p.adding = adding
	}
	if removingChanged {
		p.removing = removing
	}
	p.epoch++
	c.record()
	c.replicasMoved(t, p, oldISR, oldReplicas)
	if unclean {
		c.logf("Setting new leader for %s-%d to %d using an unclean election", t.name, slices.Index(t.parts, p), leader)
	}
	return true
}

// electLeader is PartitionChangeBuilder.electLeader: the leader and
// whether its election is unclean (noBroker: none).
func (c *Cluster) electLeader(p *partition, kind electionKind, replicas, isr, elr []int32, elrOn bool, valid, accept func(int32) bool) (int32, bool) {
	lastKnown := func() (int32, bool) {
		// canElectLastKnownLeader: the ISR and the ELR are empty and the
		// last known ELR holds the last leader, which is live again.
		if elrOn && len(elr) == 0 && len(isr) == 0 && len(p.lastKnownELR) == 1 && accept(p.lastKnownELR[0]) {
			return p.lastKnownELR[0], true
		}
		return noBroker, false
	}
	if kind == electPreferred {
		if len(replicas) > 0 && valid(replicas[0]) {
			return replicas[0], false
		}
		if valid(p.leader) {
			return p.leader, false
		}
		for _, r := range replicas[min(1, len(replicas)):] {
			if valid(r) {
				return r, false
			}
		}
		if l, ok := lastKnown(); ok {
			return l, true
		}
		return noBroker, false
	}
	if valid(p.leader) {
		return p.leader, false
	}
	for _, r := range replicas {
		if valid(r) {
			return r, false
		}
	}
	if l, ok := lastKnown(); ok {
		return l, true
	}
	if kind == electUnclean {
		for _, r := range replicas {
			if accept(r) {
				return r, true
			}
		}
	}
	return noBroker, false
}

// target is the replicas a reassignment leads to (all replicas when none
// runs).
func (p *partition) target() []int32 {
	if len(p.removing) == 0 {
		return p.replicas
	}
	return minus(p.replicas, p.removing)
}

// reassigning says whether a reassignment of p is in progress.
func (p *partition) reassigning() bool { return len(p.adding) > 0 || len(p.removing) > 0 }

// topicElection is the election of the controller's own changes
// (generateLeaderAndIsrUpdates): unclean when the topic allows it.
func (c *Cluster) topicElection(t *topic) electionKind {
	if c.uncleanAllowed(t) {
		return electUnclean
	}
	return electAny
}

// fence fences a broker whose heartbeats stopped: it leaves every ISR
// and leads nothing (the controller's handleBrokerFenced). c.mu is held.
func (c *Cluster) fence(b *broker) {
	c.logf("Fencing broker %d because its session has timed out.", b.id)
	c.removeFromISRs(b)
	b.fenced = true
	c.record()
}

// removeFromISRs takes a broker out of every ISR and leadership (it may
// not lead any more): generateLeaderAndIsrUpdates with brokerToRemove.
// c.mu is held.
func (c *Cluster) removeFromISRs(b *broker) {
	c.forEachPartition(func(t *topic, p *partition) {
		if slices.Contains(p.isr, b.id) || p.leader == b.id {
			s := spec(without(p.isr, b.id), c.topicElection(t))
			s.remove = b.id
			c.build(t, p, s)
		}
	})
}

// unfence unfences a broker that has caught up: partitions without a
// leader that it may lead elect it (handleBrokerUnfenced). Its replicas
// rejoin the ISRs once they catch up (replication.go). c.mu is held.
func (c *Cluster) unfence(b *broker) {
	b.fenced = false
	b.unfenceAt = time.Time{}
	c.record()
	c.logf("broker %d unfenced", b.id)
	c.forEachPartition(func(t *topic, p *partition) {
		if p.leader < 0 && slices.Contains(p.replicas, b.id) {
			s := spec(p.isr, c.topicElection(t))
			s.add = b.id
			c.build(t, p, s)
		}
	})
}

// uncleanShutdown is handleBrokerUncleanShutdown: a broker registering
// after a hard kill leaves every ISR and ELR (its log may have lost
// unflushed records, so it is no longer an eligible leader). c.mu is
// held.
func (c *Cluster) uncleanShutdown(b *broker) {
	if !c.elrEnabled() {
		return
	}
	c.forEachPartition(func(t *topic, p *partition) {
		if slices.Contains(p.isr, b.id) || slices.Contains(p.elr, b.id) {
			s := spec(without(p.isr, b.id), c.topicElection(t))
			s.uncleanShutdown = b.id
			c.build(t, p, s)
		}
	})
}

// forEachPartition calls fn on every partition, topics by name. c.mu is
// held.
func (c *Cluster) forEachPartition(fn func(t *topic, p *partition)) {
	names := make([]string, 0, len(c.topics))
	for n := range c.topics {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		t := c.topics[n]
		for _, p := range t.parts {
			fn(t, p)
		}
	}
}

// without is ids without id.
func without(ids []int32, id int32) []int32 {
	return slices.DeleteFunc(slices.Clone(ids), func(r int32) bool { return r == id })
}

// minus is a less b, in a's order.
func minus(a, b []int32) []int32 {
	var out []int32
	for _, x := range a {
		if !slices.Contains(b, x) {
			out = append(out, x)
		}
	}
	return out
}

// containsAll says whether a holds every member of b.
func containsAll(a, b []int32) bool {
	for _, x := range b {
		if !slices.Contains(a, x) {
			return false
		}
	}
	return true
}

// union is a ∪ b in ascending order (a Java HashSet<Integer> of broker
// ids iterates so).
func union(a, b []int32) []int32 {
	out := append(slices.Clone(a), b...)
	slices.Sort(out)
	return slices.Compact(out)
}
