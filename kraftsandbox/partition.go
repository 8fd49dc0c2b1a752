package kraftsandbox

import (
	"slices"
	"strconv"
	"time"
)

// The partition state machine of Kafka 4.4's controller
// (PartitionChangeBuilder): the ISR, the eligible leader replicas
// (KIP-966) and the leader change together, in one PartitionChangeRecord,
// and the leader is elected from the target ISR, then from the ELR, then
// (when unclean election is allowed) from any live replica.

// electionKind is why a leader is being chosen.
type electionKind int

const (
	// electAny keeps the current leader while it stays in the ISR and
	// live, else elects the first live replica of the ISR.
	electAny electionKind = iota
	// electPreferred elects the first replica when it is live and in the
	// ISR (a preferred election).
	electPreferred
	// electUnclean may elect a live replica outside the ISR and the ELR.
	electUnclean
)

// usable says whether a broker may lead or be in an ISR: registered,
// unfenced, not shutting down. c.mu is held.
func (c *Cluster) usable(id int32) bool {
	b := c.broker(id)
	return b != nil && b.registered && !b.fenced && !b.shuttingDown
}

// minISR is a topic's min.insync.replicas: its own override, else the
// cluster-wide dynamic default, else Kafka's default of 1. c.mu is held.
func (c *Cluster) minISR(t *topic) int {
	if v, ok := t.configs["min.insync.replicas"]; ok {
		if n, err := strconv.Atoi(v); err == nil {
			return n
		}
	}
	if v, ok := c.brokerConfigs[""]["min.insync.replicas"]; ok {
		if n, err := strconv.Atoi(v); err == nil {
			return n
		}
	}
	return 1
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
// leader by kind: the ELR follows the ISR (KIP-966), the leader epoch
// moves when the leader does, the partition epoch on every change. It
// reports whether anything changed. c.mu is held.
func (c *Cluster) change(t *topic, p *partition, isr []int32, kind electionKind) bool {
	isr = slices.Clone(isr)
	elr, lastKnown := slices.Clone(p.elr), slices.Clone(p.lastKnownELR)
	if c.elrEnabled() {
		if len(isr) >= c.minISR(t) {
			elr, lastKnown = nil, nil
		} else {
			// The replicas leaving the ISR while it is below
			// min.insync.replicas have every committed record: they
			// become eligible leaders.
			for _, r := range p.isr {
				if !slices.Contains(isr, r) && !slices.Contains(elr, r) {
					elr = append(elr, r)
				}
			}
			elr = slices.DeleteFunc(elr, func(r int32) bool { return slices.Contains(isr, r) })
			lastKnown = slices.DeleteFunc(lastKnown, func(r int32) bool { return slices.Contains(isr, r) || slices.Contains(elr, r) })
		}
	}
	leader := c.electLeader(t, p, isr, elr, kind)
	// An unclean election (a leader from neither the ISR nor the ELR)
	// leaves the partition RECOVERING; its leader's next ISR expansion
	// (AlterPartition) recovers it.
	recovering := p.recovering
	if leader >= 0 && !slices.Contains(isr, leader) && !slices.Contains(elr, leader) {
		recovering = true
	} else if leader == p.leader && len(isr) > len(p.isr) {
		recovering = false
	}
	if leader >= 0 && !slices.Contains(isr, leader) {
		// A leader from the ELR or an unclean election is the new ISR.
		isr = []int32{leader}
		elr = slices.DeleteFunc(elr, func(r int32) bool { return r == leader })
	}
	if !c.elrEnabled() && len(isr) == 0 && len(p.isr) > 0 {
		// Without ELR the ISR never becomes empty: the last member stays.
		isr = []int32{p.isr[0]}
		if slices.Contains(p.isr, p.leader) {
			isr = []int32{p.leader}
		}
	}
	if c.elrEnabled() && len(isr) == 0 && leader < 0 && len(elr) == 0 {
		lastKnown = slices.Clone(p.isr)
	}
	if leader == p.leader && slices.Equal(isr, p.isr) && slices.Equal(elr, p.elr) && slices.Equal(lastKnown, p.lastKnownELR) && recovering == p.recovering {
		return false
	}
	p.recovering = recovering
	if leader != p.leader {
		p.leaderEpoch++
	}
	p.leader, p.isr, p.elr, p.lastKnownELR = leader, isr, elr, lastKnown
	p.epoch++
	c.record()
	return true
}

// electLeader chooses the leader for a target ISR and ELR (-1: none).
func (c *Cluster) electLeader(t *topic, p *partition, isr, elr []int32, kind electionKind) int32 {
	target := p.target()
	if kind == electPreferred {
		if len(target) > 0 && slices.Contains(isr, target[0]) && c.usable(target[0]) {
			return target[0]
		}
		return p.leaderIfStays(c, isr)
	}
	if l := p.leaderIfStays(c, isr); l >= 0 {
		return l
	}
	for _, r := range target {
		if slices.Contains(isr, r) && c.usable(r) {
			return r
		}
	}
	for _, r := range target {
		if slices.Contains(elr, r) && c.usable(r) {
			return r
		}
	}
	if kind == electUnclean || c.uncleanAllowed(t) {
		for _, r := range target {
			if c.usable(r) {
				return r
			}
		}
	}
	return -1
}

// leaderIfStays is the current leader when it stays in the ISR and
// usable, else -1.
func (p *partition) leaderIfStays(c *Cluster, isr []int32) int32 {
	if p.leader >= 0 && slices.Contains(isr, p.leader) && c.usable(p.leader) {
		return p.leader
	}
	return -1
}

// target is the replicas a reassignment leads to (all replicas when none
// runs).
func (p *partition) target() []int32 {
	if len(p.removing) == 0 {
		return p.replicas
	}
	return slices.DeleteFunc(slices.Clone(p.replicas), func(r int32) bool { return slices.Contains(p.removing, r) })
}

// fence fences a broker whose heartbeats stopped: it leaves every ISR
// and leads nothing (the controller's handleBrokerFenced). c.mu is held.
func (c *Cluster) fence(b *broker) {
	b.fenced = true
	c.record()
	c.logf("broker %d fenced: no heartbeat for %s (broker.session.timeout.ms)", b.id, c.cfg.SessionTimeout)
	c.forEachPartition(func(t *topic, p *partition) {
		if slices.Contains(p.isr, b.id) || p.leader == b.id {
			c.change(t, p, without(p.isr, b.id), electAny)
		}
	})
}

// unfence unfences a broker that has caught up: partitions without a
// leader that it may lead elect it (handleBrokerUnfenced). Its replicas
// rejoin the ISRs once they catch up (catchUp). c.mu is held.
func (c *Cluster) unfence(b *broker) {
	b.fenced = false
	b.unfenceAt = time.Time{}
	c.record()
	c.logf("broker %d unfenced", b.id)
	c.forEachPartition(func(t *topic, p *partition) {
		if p.leader < 0 && slices.Contains(p.replicas, b.id) {
			c.change(t, p, p.isr, electAny)
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
