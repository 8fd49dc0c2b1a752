package kraftsandbox

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Replication: the partitions' sizes, the copies of replicas outside
// their ISR, controlled shutdown and the automatic leader rebalance.
//
// Every partition has a simulated size (partition.size, bytes on its
// leader and in-sync followers) that grows at its produce rate
// (partition.rate) each tick. A replica outside the ISR holds
// partition.copied[broker] bytes: a replica a reassignment adds starts
// from nothing, one that left the ISR (its broker fenced or shut down)
// from the size it had then. While its broker is unfenced and the
// partition has a leader, it copies from the leader at ReplicationRate
// (128 MiB/s, the ZooKeeper sandbox's sandbox.DefaultReplicationRate)
// shared by the broker's copies, and as Kafka applies the replication
// throttles: a copy whose "partition:broker" the topic's
// follower.replication.throttled.replicas names (or "*") shares the
// follower's follower.replication.throttled.rate with the broker's other
// throttled copies, likewise the leader's leader.replication.throttled.*.
// When it holds the partition's size (what was produced meanwhile
// included) the leader adds it to the ISR (an AlterPartition), which
// completes a reassignment whose adding replicas are all in sync. A copy
// of a partition of size S growing at G copied at T so takes S / (T − G),
// the estimate clusterops.MoveBytes.ETA makes.
//
// Only the partitions that grow (rate > 0) or copy cost anything per
// tick: the first are listed again when the topics, their partitions or
// their rates changed (checked at most once a second, one step a topic),
// the second kept as they change (replicasMoved).

// ReplicationRate is the rate a broker copies into its new replicas,
// shared by them, in bytes per second (the ZooKeeper sandbox's
// sandbox.DefaultReplicationRate).
const ReplicationRate = 128 << 20

// Throttle configs (Kafka's names).
const (
	leaderThrottledReplicas   = "leader.replication.throttled.replicas"
	followerThrottledReplicas = "follower.replication.throttled.replicas"
	leaderThrottledRate       = "leader.replication.throttled.rate"
	followerThrottledRate     = "follower.replication.throttled.rate"
)

// replState is the replication simulation's state: the partitions that
// grow and those that copy, the brokers stopped cleanly, the automatic
// leader rebalance's schedule. Guarded by Cluster.mu.
type replState struct {
	// copying are the partitions with a replica outside the ISR.
	copying map[*partition]*copyPart
	// growing are the partitions with a produce rate, listed at
	// scannedAt when the topics' shape was scannedShape.
	growing      []*partition
	scannedAt    time.Time
	scannedShape topicsShape
	scanned      bool
	// cleanStop are the brokers last stopped by a controlled shutdown
	// (Stop): their restart is clean, they stay eligible leaders.
	cleanStop map[int32]bool
	// nextRebalance is when the next automatic preferred election runs.
	nextRebalance time.Time
}

// copyPart is one partition's copies.
type copyPart struct {
	t   *topic
	idx int // the partition's id, -1 until needed
	// rates are the copies' rates this tick and whether a throttle
	// limited them, by receiving broker.
	rates     map[int32]float64
	throttled map[int32]bool
}

func init() {
	tickers = append(tickers, (*Cluster).replicationTick)
}

// replicasMoved follows a partition change: a replica that left the ISR
// holds the size it had then, a new replica nothing, an in-sync one
// everything; the partition copies while a replica is outside its ISR.
// c.mu is held.
func (c *Cluster) replicasMoved(t *topic, p *partition, oldISR, oldReplicas []int32) {
	for _, r := range oldISR {
		if !slices.Contains(p.isr, r) && slices.Contains(p.replicas, r) {
			c.setCopied(p, r, p.size)
		}
	}
	for _, r := range p.replicas {
		if !slices.Contains(oldReplicas, r) && !slices.Contains(p.isr, r) {
			c.setCopied(p, r, 0)
		}
	}
	for r := range p.copied {
		if slices.Contains(p.isr, r) || !slices.Contains(p.replicas, r) {
			delete(p.copied, r)
		}
	}
	c.trackCopies(t, p)
}

func (c *Cluster) setCopied(p *partition, r int32, n float64) {
	if p.copied == nil {
		p.copied = map[int32]float64{}
	}
	p.copied[r] = n
}

// trackCopies lists p among the copying partitions when a replica is
// outside its ISR, else drops it. c.mu is held.
func (c *Cluster) trackCopies(t *topic, p *partition) {
	rs := &c.ext.repl
	out := false
	for _, r := range p.replicas {
		if !slices.Contains(p.isr, r) {
			out = true
			break
		}
	}
	if !out {
		delete(rs.copying, p)
		return
	}
	if rs.copying == nil {
		rs.copying = map[*partition]*copyPart{}
	}
	if rs.copying[p] == nil {
		rs.copying[p] = &copyPart{t: t, idx: -1}
	}
}

// replicaBytes is what a replica of p holds: the partition's size when
// in sync, what it has copied otherwise. c.mu is held.
func (c *Cluster) replicaBytes(p *partition, r int32) float64 {
	if n, ok := p.copied[r]; ok {
		return min(n, p.size)
	}
	if !slices.Contains(p.isr, r) && slices.Contains(p.replicas, r) {
		return 0
	}
	return p.size
}

// replicationTick grows the partitions, advances the copies (adding the
// caught-up replicas to their ISR) and runs the automatic leader
// rebalance when due. c.mu is held.
func (c *Cluster) replicationTick(now time.Time, dt time.Duration) {
	rs := &c.ext.repl
	if !rs.scanned {
		c.scanPartitions(now)
	} else if now.Sub(rs.scannedAt) >= time.Second {
		// The shape is checked once a second, whatever it says: a walk
		// of every topic each tick would cost a core at 100,000 topics.
		if c.topicsShape() != rs.scannedShape {
			c.scanPartitions(now)
		}
		rs.scannedAt = now
	}
	sec := dt.Seconds()
	for _, p := range rs.growing {
		p.size += p.rate * sec
	}
	c.advanceCopies(sec)
	if rs.nextRebalance.IsZero() {
		rs.nextRebalance = now.Add(c.cfg.LeaderImbalanceCheckInterval)
	} else if !now.Before(rs.nextRebalance) {
		rs.nextRebalance = now.Add(c.cfg.LeaderImbalanceCheckInterval)
		if !c.cfg.NoAutoLeaderRebalance {
			c.rebalanceLeaders()
		}
		c.electUncleanLeaders()
	}
}

// scanPartitions lists the growing partitions again, and the copying
// ones a change made outside build left. c.mu is held.
func (c *Cluster) scanPartitions(now time.Time) {
	rs := &c.ext.repl
	rs.growing = rs.growing[:0]
	for _, t := range c.topics {
		for _, p := range t.parts {
			if p.rate > 0 {
				rs.growing = append(rs.growing, p)
			}
			if len(p.isr) < len(p.replicas) {
				c.trackCopies(t, p)
			}
		}
	}
	for p, cp := range rs.copying {
		if c.topics[cp.t.name] != cp.t {
			delete(rs.copying, p) // deleted
		}
	}
	rs.scanned, rs.scannedAt, rs.scannedShape = true, now, c.topicsShape()
}

// topicsShape is what says the growing partitions may have changed: the
// topics, their partitions and their produce rates (a sum each, the
// topics' pointers folded in).
type topicsShape struct {
	topics, partitions int
	rates, ids         float64
}

// topicsShape costs one step a topic, none a partition. c.mu is held.
func (c *Cluster) topicsShape() topicsShape {
	s := topicsShape{topics: len(c.topics)}
	for _, t := range c.topics {
		s.partitions += len(t.parts)
		s.rates += t.rate
		s.ids += float64(t.id[0]) + float64(t.id[1])*256
	}
	return s
}

// advanceCopies moves every copy on by sec seconds at the rates Kafka's
// fetchers would get, and adds the replicas that caught up to their ISR.
// c.mu is held.
func (c *Cluster) advanceCopies(sec float64) {
	rs := &c.ext.repl
	if len(rs.copying) == 0 {
		return
	}
	type cp struct {
		p          *partition
		info       *copyPart
		r          int32
		fTh, lTh   bool
		fRate, lRt float64
	}
	var copies []cp
	inbound, fCount, lCount := map[int32]int{}, map[int32]int{}, map[int32]int{}
	for p, info := range rs.copying {
		if c.topics[info.t.name] != info.t {
			delete(rs.copying, p)
			continue
		}
		info.rates, info.throttled = nil, nil
		if p.leader < 0 || !c.usable(p.leader) {
			continue
		}
		for _, r := range p.replicas {
			if slices.Contains(p.isr, r) || !c.usable(r) {
				continue
			}
			x := cp{p: p, info: info, r: r}
			x.fRate = c.throttleOrNone(r, false)
			x.lRt = c.throttleOrNone(p.leader, true)
			x.fTh = x.fRate >= 0 && c.throttles(info, p, followerThrottledReplicas, r)
			x.lTh = x.lRt >= 0 && c.throttles(info, p, leaderThrottledReplicas, p.leader)
			inbound[r]++
			if x.fTh {
				fCount[r]++
			}
			if x.lTh {
				lCount[p.leader]++
			}
			copies = append(copies, x)
		}
	}
	done := map[*partition][]int32{}
	for _, x := range copies {
		rate := float64(ReplicationRate) / float64(inbound[x.r])
		if x.fTh {
			rate = min(rate, x.fRate/float64(fCount[x.r]))
		}
		if x.lTh {
			rate = min(rate, x.lRt/float64(lCount[x.p.leader]))
		}
		if x.info.rates == nil {
			x.info.rates, x.info.throttled = map[int32]float64{}, map[int32]bool{}
		}
		x.info.rates[x.r], x.info.throttled[x.r] = rate, x.fTh || x.lTh
		n := c.replicaBytes(x.p, x.r) + rate*sec
		c.setCopied(x.p, x.r, n)
		if n >= x.p.size {
			done[x.p] = append(done[x.p], x.r)
		}
	}
	for p, rs := range done {
		// The leader's AlterPartition: the caught-up replicas join the ISR,
		// which may complete a reassignment. The ISR it sends is sorted
		// (real Kafka 4.4 shows [1 2 3] after 2 then 1 rejoined [3]).
		isr := slices.Clone(p.isr)
		for _, r := range rs {
			if !slices.Contains(isr, r) {
				isr = append(isr, r)
			}
		}
		slices.Sort(isr)
		c.change(c.ext.repl.copying[p].t, p, isr, electAny)
	}
}

// throttles says whether the topic's throttled-replicas config key names
// the partition on broker ("partition:broker" or "*"). c.mu is held.
func (c *Cluster) throttles(info *copyPart, p *partition, key string, broker int32) bool {
	list := strings.TrimSpace(info.t.configs[key])
	if list == "" {
		return false
	}
	if list == "*" {
		return true
	}
	if info.idx < 0 {
		info.idx = slices.Index(info.t.parts, p)
	}
	want := strconv.Itoa(info.idx) + ":" + strconv.Itoa(int(broker))
	for _, e := range strings.Split(list, ",") {
		if strings.TrimSpace(e) == want {
			return true
		}
	}
	return false
}

// CopyStatus is one replica outside its ISR catching up with its
// partition (the ZooKeeper sandbox's sandbox.CopyStatus).
type CopyStatus struct {
	Topic     string
	Partition int
	// Broker receives the copy from Leader (-1: none, the copy waits).
	Broker, Leader int
	// Size is the partition's size and Copied what the replica holds, in
	// bytes; Rate the copy's rate and Growth the partition's produce
	// rate, bytes/s (Rate is 0 while the broker or the leader is down).
	Size, Copied int64
	Rate, Growth float64
	// Throttled: a replication throttle limits the rate.
	Throttled bool
}

// Copies returns the replicas outside their ISR, by topic, partition and
// broker.
func (c *Cluster) Copies() []CopyStatus {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []CopyStatus
	for p, info := range c.ext.repl.copying {
		idx := slices.Index(info.t.parts, p)
		if idx < 0 {
			continue
		}
		for _, r := range p.replicas {
			if slices.Contains(p.isr, r) {
				continue
			}
			out = append(out, CopyStatus{Topic: info.t.name, Partition: idx, Broker: int(r), Leader: int(p.leader),
				Size: int64(p.size), Copied: int64(c.replicaBytes(p, r)), Rate: info.rates[r], Growth: p.rate,
				Throttled: info.throttled[r]})
		}
	}
	slices.SortFunc(out, func(a, b CopyStatus) int {
		if a.Topic != b.Topic {
			return strings.Compare(a.Topic, b.Topic)
		}
		if a.Partition != b.Partition {
			return a.Partition - b.Partition
		}
		return a.Broker - b.Broker
	})
	return out
}

// ratesChanged tells the replication that partitions' produce rates
// changed (a part that sets partition.rate without changing its topic's
// rate calls it). c.mu is held.
func (c *Cluster) ratesChanged() { c.ext.repl.scanned = false }

// SetPartitionSize sets a partition's simulated size in bytes and its
// produce rate in bytes/s (tests, demos).
func (c *Cluster) SetPartitionSize(topicName string, partition int, size, rate float64) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := c.topics[topicName]
	if t == nil || partition < 0 || partition >= len(t.parts) {
		return fmt.Errorf("no partition %s-%d", topicName, partition)
	}
	p := t.parts[partition]
	p.size, p.rate = size, rate
	c.ratesChanged()
	return nil
}

// rebalanceLeaders is the automatic preferred leader election
// (maybeBalancePartitionLeaders): every partition not led by its first
// replica elects it when it is a valid leader. Kafka 4.4's KRaft
// controller elects every imbalanced partition at each
// leader.imbalance.check.interval.seconds; it does not apply the
// ZooKeeper controller's leader.imbalance.per.broker.percentage. c.mu is
// held.
func (c *Cluster) rebalanceLeaders() {
	n := 0
	c.forEachPartition(func(t *topic, p *partition) {
		if len(p.replicas) > 0 && p.leader != p.replicas[0] {
			if c.build(t, p, spec(p.isr, electPreferred)) {
				n++
			}
		}
	})
	if n > 0 {
		c.logf("maybeBalancePartitionLeaders: elected the preferred leader of %d partition(s)", n)
	}
}

// electUncleanLeaders is maybeElectUncleanLeaders: a partition without a
// leader whose topic allows unclean elections elects any live replica.
// c.mu is held.
func (c *Cluster) electUncleanLeaders() {
	c.forEachPartition(func(t *topic, p *partition) {
		if p.leader < 0 && c.uncleanAllowed(t) {
			c.build(t, p, spec(p.isr, electUnclean))
		}
	})
}

// Stop stops a broker cleanly, as SIGTERM does: a controlled shutdown
// moves its leaderships away and takes it out of every ISR (it stays an
// eligible leader where the ELR holds it), then it is fenced and its
// process stops; its restart is clean. A controller stops as Kill stops
// it.
func (c *Cluster) Stop(id int) error {
	b := c.broker(int32(id))
	if b == nil {
		if c.controller(int32(id)) != nil {
			return c.Kill(id)
		}
		return fmt.Errorf("%w: %d", ErrNoNode, id)
	}
	if !b.n.listening() {
		return fmt.Errorf("broker %d is not running", id)
	}
	c.mu.Lock()
	if b.registered && !b.fenced {
		b.shuttingDown = true
		c.record() // BrokerRegistrationChangeRecord: in controlled shutdown
		c.logf("broker %d: controlled shutdown", id)
		c.removeFromISRs(b)
		b.fenced = true
		c.record()
	}
	b.alive = false
	if c.ext.repl.cleanStop == nil {
		c.ext.repl.cleanStop = map[int32]bool{}
	}
	c.ext.repl.cleanStop[b.id] = true
	c.mu.Unlock()
	b.n.stopListening()
	return nil
}

// brokerRestarting is what the controller does when a stopped broker
// registers again, before its new registration: one that was killed and
// never fenced is fenced first (a new incarnation is refused until the
// old session expires), and after a hard kill it leaves every ISR and ELR
// (handleBrokerUncleanShutdown); after Stop it stays eligible. c.mu is
// held.
func (c *Cluster) brokerRestarting(b *broker) {
	if b.registered && !b.fenced {
		c.fence(b)
	}
	if !c.ext.repl.cleanStop[b.id] {
		c.uncleanShutdown(b)
	}
	delete(c.ext.repl.cleanStop, b.id)
	b.shuttingDown = false
}

// throttleOrNone is a broker's replication throttle rate in bytes/s, -1
// when none is set. c.mu is held.
func (c *Cluster) throttleOrNone(broker int32, leader bool) float64 {
	if r, ok := c.throttleRate(broker, leader); ok {
		return r
	}
	return -1
}
