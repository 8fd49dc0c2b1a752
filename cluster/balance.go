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
// again only the topics that changed. Not safe for concurrent use.
type BalanceTracker struct {
	memo map[*Topic][]BrokerBalance
}

// topicBalance is one topic's contribution, Movable counted as if every
// broker were live (liveness is applied when summing).
func topicBalance(t *Topic) []BrokerBalance {
	var out []BrokerBalance
	at := func(id int) *BrokerBalance {
		for i := range out {
			if out[i].Broker == id {
				return &out[i]
			}
		}
		out = append(out, BrokerBalance{Broker: id})
		return &out[len(out)-1]
	}
	for _, p := range t.Partitions {
		pl := p.PreferredLeader()
		if !p.InAssignment || pl < 0 {
			continue
		}
		b := at(pl)
		b.Preferred++
		if p.HasState && (p.StateErr != nil || p.Leader != pl) {
			b.NotLed++
			if p.StateErr == nil && slices.Contains(p.ISR, pl) {
				b.Movable++
			}
		}
	}
	return out
}

// Balance sums the topics of s (those marked for deletion left out).
func (bt *BalanceTracker) Balance(s *Snapshot) []BrokerBalance {
	memo := make(map[*Topic][]BrokerBalance, len(s.topics))
	sum := map[int]*BrokerBalance{}
	var ids []int
	for _, t := range s.topics {
		c, ok := bt.memo[t]
		if !ok {
			c = topicBalance(t)
		}
		memo[t] = c
		if t.MarkedForDeletion {
			continue
		}
		for _, b := range c {
			acc := sum[b.Broker]
			if acc == nil {
				acc = &BrokerBalance{Broker: b.Broker}
				sum[b.Broker] = acc
				ids = append(ids, b.Broker)
			}
			acc.Preferred += b.Preferred
			acc.NotLed += b.NotLed
			acc.Movable += b.Movable
		}
	}
	bt.memo = memo
	slices.Sort(ids)
	out := make([]BrokerBalance, len(ids))
	for i, id := range ids {
		out[i] = *sum[id]
		if !s.IsLive(id) {
			out[i].Movable = 0
		}
	}
	return out
}
