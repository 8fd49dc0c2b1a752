package cluster

import "slices"

// LeaderImbalancePerBrokerPercentage is Kafka's default
// leader.imbalance.per.broker.percentage: the automatic rebalance moves a
// broker's leaders back once more than this share of the partitions it is
// the preferred leader of are led by others (spec §4.11).
const LeaderImbalancePerBrokerPercentage = 10

// BrokerBalance is one broker's preferred-leader balance as the
// controller's automatic rebalance (checkAndTriggerAutoLeaderRebalance)
// counts it: over the partitions of topics not being deleted whose
// preferred replica (the first of the assignment) it is.
type BrokerBalance struct {
	Broker int
	// Preferred counts the partitions it is the preferred leader of.
	Preferred int
	// NotLed counts those of them with a leader state naming another
	// leader, or none (partitions the controller has not initialised count
	// as balanced, as in Kafka).
	NotLed int
	// Movable counts those the rebalance would move back: the broker is
	// live and in their ISR (canPreferredReplicaBeLeader).
	Movable int
}

// Percent is the imbalance as a whole percentage, rounded down.
func (b BrokerBalance) Percent() int {
	if b.Preferred == 0 {
		return 0
	}
	return b.NotLed * 100 / b.Preferred
}

// Imbalanced reports an imbalance above pct percent (Kafka's strict >).
func (b BrokerBalance) Imbalanced(pct int) bool { return b.NotLed*100 > pct*b.Preferred }

// WouldRebalance reports that the next automatic rebalance check (every
// leader.imbalance.check.interval.seconds, 300 by default, while
// auto.leader.rebalance.enable) would elect this broker back as the leader
// of Movable partitions, at Kafka's default threshold. Kafka before 3.4
// also waits while any reassignment runs.
func (b BrokerBalance) WouldRebalance() bool {
	return b.Imbalanced(LeaderImbalancePerBrokerPercentage) && b.Movable > 0
}

// LeaderBalance returns the balance of every broker of s that is the
// preferred leader of a partition, by broker id (see BalanceTracker).
func LeaderBalance(s *Snapshot) []BrokerBalance { return new(BalanceTracker).Balance(s) }

// BalanceTracker computes LeaderBalance snapshot after snapshot, counting
// again only the topics that changed: it keeps every topic's contribution
// and moves only the changed (new, gone) topics' in and out of running
// sums. Not safe for concurrent use.
type BalanceTracker struct {
	contrib topicTrack[[]BrokerBalance] // nil: deleting
	sum     map[int]*BrokerBalance
}

// topicBalance is one topic's contribution, Movable counted as if every
// broker were live (liveness is applied when summing).
func topicBalance(t *Topic) []BrokerBalance {
	// Summed in a scratch array, returned at its exact size: the tracker
	// keeps one per topic (10,000 topics: 3 MB, not the 7 MB of a grown
	// slice).
	var scratch [32]BrokerBalance
	out := scratch[:0]
	for _, p := range t.Partitions {
		pl := p.PreferredLeader()
		if !p.InAssignment || pl < 0 {
			continue
		}
		i := slices.IndexFunc(out, func(b BrokerBalance) bool { return b.Broker == pl })
		if i < 0 {
			out = append(out, BrokerBalance{Broker: pl})
			i = len(out) - 1
		}
		b := &out[i]
		b.Preferred++
		if p.HasState && (p.StateErr() != nil || p.Leader != pl) {
			b.NotLed++
			if p.StateErr() == nil && slices.Contains(p.ISR, pl) {
				b.Movable++
			}
		}
	}
	if len(out) == 0 {
		return nil
	}
	return slices.Clone(out)
}

// Balance sums the topics of s (those marked for deletion left out).
func (bt *BalanceTracker) Balance(s *Snapshot) []BrokerBalance {
	if bt.sum == nil {
		bt.sum = map[int]*BrokerBalance{}
	}
	bt.contrib.update(s, contribution, func(c []BrokerBalance) { bt.add(c, -1) }, func(c []BrokerBalance) { bt.add(c, 1) })
	ids := make([]int, 0, len(bt.sum))
	for id, b := range bt.sum {
		if b.Preferred != 0 || b.NotLed != 0 || b.Movable != 0 {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	out := make([]BrokerBalance, len(ids))
	for i, id := range ids {
		out[i] = *bt.sum[id]
		if !s.IsLive(id) {
			out[i].Movable = 0
		}
	}
	return out
}

// contribution is what t adds to the sums: nothing while it is deleted.
func contribution(t *Topic) []BrokerBalance {
	if t.MarkedForDeletion {
		return nil
	}
	return topicBalance(t)
}

func (bt *BalanceTracker) add(c []BrokerBalance, sign int) {
	for _, b := range c {
		acc := bt.sum[b.Broker]
		if acc == nil {
			acc = &BrokerBalance{Broker: b.Broker}
			bt.sum[b.Broker] = acc
		}
		acc.Preferred += sign * b.Preferred
		acc.NotLed += sign * b.NotLed
		acc.Movable += sign * b.Movable
	}
}
