package sandbox

import (
	"errors"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/ktopo/ktopo/cluster"
)

// Replication of new replicas. A broker that is given a replica it has
// never held (a reassignment adding it: LeaderAndIsr with isNew, the
// broker not in the ISR) must copy the whole partition from its leader
// before the leader can add it to the ISR. The sandbox gives every
// partition a size (DemoTopic.PartitionSize, Config.PartitionSize) that
// grows at its produce rate (sizes.go), and copies it at a rate, until the
// copy has caught up with what was produced meanwhile too: each broker copies into its new replicas at
// Config.ReplicationRate shared between them, and Kafka's replication
// throttles apply as Kafka applies them: a copy whose "partition:broker"
// is in the topic's follower.replication.throttled.replicas (or that list
// is "*") shares the follower broker's follower.replication.throttled.rate
// with the broker's other throttled copies, and likewise for the leader's
// leader.replication.throttled.replicas and leader.replication.throttled.rate.
// The throttle configs are read from ZooKeeper while copies run (at most
// once a second per topic and broker), so a throttle set or removed takes
// effect within a second, as on a broker that applies config changes.

// Defaults of Config.PartitionSize and Config.ReplicationRate.
const (
	DefaultPartitionSize   = 64 << 20
	DefaultReplicationRate = 128 << 20
)

const (
	copyTick       = 100 * time.Millisecond
	throttleMaxAge = time.Second
)

// CopyStatus is one new replica copying its partition.
type CopyStatus struct {
	Topic     string
	Partition int
	// Broker receives the copy from Leader.
	Broker, Leader int
	// Size is the partition's size now (it grows while it is copied) and
	// Copied what the new replica holds, in bytes; Rate is the copy's rate
	// and Growth the partition's produce rate, in bytes per second (Rate
	// is 0 while the broker or its leader is down). The copy ends when
	// Copied reaches Size: after Size / (Rate − Growth) seconds, never
	// when Growth ≥ Rate.
	Size, Copied int64
	Rate, Growth float64
	// Throttled: a replication throttle limits the rate.
	Throttled bool
}

// copyState is one replica's copy.
type copyState struct {
	// copied is what the replica held at at, the copy's last step.
	copied float64
	at     time.Time
	// rated: rate was set by a tick (a new copy's is not yet).
	rated  bool
	leader int
	rate   float64
	// throttled by the follower's and the leader's throttle (this tick).
	followerThrottled, leaderThrottled bool
}

// replication holds the cluster's copies ("the disks": a replica without a
// copy in progress holds its partition).
type replication struct {
	cl      *Cluster
	mu      sync.Mutex
	copies  map[replicaKey]*copyState
	ticking bool

	cmu     sync.Mutex
	configs map[string]cachedConfig // config znode path → overrides
}

type cachedConfig struct {
	values map[string]string
	read   time.Time
}

func newReplication(cl *Cluster) *replication {
	return &replication{cl: cl, copies: map[replicaKey]*copyState{}, configs: map[string]cachedConfig{}}
}

func (cl *Cluster) replicationRate() float64 {
	if cl.cfg.ReplicationRate > 0 {
		return float64(cl.cfg.ReplicationRate)
	}
	return DefaultReplicationRate
}

// start begins broker's copy of p from leader, unless it holds p already
// or copies it (idempotent).
func (r *replication) start(p tp, broker, leader int) {
	size := r.cl.partitionBytes(p, time.Now())
	if size <= 0 {
		return
	}
	r.mu.Lock()
	k := replicaKey{p, broker}
	if _, ok := r.copies[k]; !ok {
		_, growth := r.cl.partitionShape(p)
		r.copies[k] = &copyState{leader: leader, at: time.Now()}
		r.cl.log.Info("copying partition from its leader", "broker", broker, "partition", p.String(), "leader", leader,
			"bytes", size, "growth", growth)
	}
	start := !r.ticking
	r.ticking = true
	r.mu.Unlock()
	if start {
		go r.run()
	}
}

// follow records the leader a copy fetches from now.
func (r *replication) follow(p tp, broker, leader int) {
	r.mu.Lock()
	if c := r.copies[replicaKey{p, broker}]; c != nil && leader >= 0 {
		c.leader = leader
	}
	r.mu.Unlock()
}

// done drops a copy: the replica joined the ISR, or was deleted.
func (r *replication) done(p tp, broker int) {
	r.mu.Lock()
	delete(r.copies, replicaKey{p, broker})
	r.mu.Unlock()
}

// copying reports whether broker still copies p.
func (r *replication) copying(p tp, broker int) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	_, ok := r.copies[replicaKey{p, broker}]
	return ok
}

// run advances the copies every tick until none is left or the cluster
// closes; a finished copy is reported to its leader, which adds the
// replica to the ISR after the catch-up delay.
func (r *replication) run() {
	t := time.NewTicker(copyTick)
	defer t.Stop()
	for {
		<-t.C
		if r.cl.isClosed() {
			r.mu.Lock()
			r.ticking = false
			r.mu.Unlock()
			return
		}
		now := time.Now()
		finished, more := r.advance(now)
		for _, f := range finished {
			r.cl.deliver(f.leader, &msgIsrCheck{p: f.p})
		}
		if !more {
			return
		}
	}
}

type finishedCopy struct {
	p      tp
	leader int
}

// advance moves every copy on to now at the rate it had since its last
// step, then sets the rates of the next; a copy new since the last tick
// copies from its start at its first rate. A copy is finished when it
// holds the partition's size at now (what was produced while it ran
// included).
func (r *replication) advance(now time.Time) ([]finishedCopy, bool) {
	step := func(c *copyState) {
		c.copied += c.rate * max(now.Sub(c.at).Seconds(), 0)
		c.at = now
	}
	r.mu.Lock()
	keys := make([]replicaKey, 0, len(r.copies))
	for k, c := range r.copies {
		keys = append(keys, k)
		if c.rated {
			step(c)
		}
	}
	r.mu.Unlock()
	r.rates(keys)
	r.mu.Lock()
	defer r.mu.Unlock()
	var finished []finishedCopy
	for _, k := range keys {
		c := r.copies[k]
		if c == nil {
			continue
		}
		if !c.rated {
			c.rated = true
			step(c)
		}
		if c.copied >= float64(r.cl.partitionBytes(k.tp, now)) {
			delete(r.copies, k)
			finished = append(finished, finishedCopy{p: k.tp, leader: c.leader})
			r.cl.log.Info("partition copied", "broker", k.replica, "partition", k.tp.String(), "leader", c.leader)
		}
	}
	if len(r.copies) == 0 {
		r.ticking = false
		return finished, false
	}
	return finished, true
}

// rates sets each copy's rate for the next tick: the follower's
// replication rate shared by its copies, capped by the follower's and
// the leader's throttles shared by the copies they throttle.
func (r *replication) rates(keys []replicaKey) {
	type copyInfo struct {
		k                  replicaKey
		leader             int
		live               bool
		follower, leaderTh bool
		fRate, lRate       float64
	}
	r.mu.Lock()
	infos := make([]copyInfo, 0, len(keys))
	for _, k := range keys {
		if c := r.copies[k]; c != nil {
			infos = append(infos, copyInfo{k: k, leader: c.leader})
		}
	}
	r.mu.Unlock()
	inbound, fThrottled, lThrottled := map[int]int{}, map[int]int{}, map[int]int{}
	for i := range infos {
		in := &infos[i]
		in.live = r.cl.Running(in.k.replica) && in.leader >= 0 && r.cl.Running(in.leader)
		if !in.live {
			continue
		}
		cfg := r.config(cluster.TopicConfigPath(in.k.topic))
		in.fRate = r.rate(in.k.replica, cluster.ConfigFollowerThrottledRate)
		in.lRate = r.rate(in.leader, cluster.ConfigLeaderThrottledRate)
		in.follower = in.fRate >= 0 && throttles(cfg[cluster.ConfigFollowerThrottledReplicas], in.k.partition, in.k.replica)
		in.leaderTh = in.lRate >= 0 && throttles(cfg[cluster.ConfigLeaderThrottledReplicas], in.k.partition, in.leader)
		inbound[in.k.replica]++
		if in.follower {
			fThrottled[in.k.replica]++
		}
		if in.leaderTh {
			lThrottled[in.leader]++
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, in := range infos {
		c := r.copies[in.k]
		if c == nil {
			continue
		}
		c.rate, c.followerThrottled, c.leaderThrottled = 0, in.follower, in.leaderTh
		if !in.live {
			continue
		}
		rate := r.cl.replicationRate() / float64(inbound[in.k.replica])
		if in.follower {
			rate = min(rate, in.fRate/float64(fThrottled[in.k.replica]))
		}
		if in.leaderTh {
			rate = min(rate, in.lRate/float64(lThrottled[in.leader]))
		}
		c.rate = rate
	}
}

// throttles reports whether a throttled-replicas list ("0:1,1:2" or "*")
// names partition p on broker b.
func throttles(list string, p, b int) bool {
	list = strings.TrimSpace(list)
	if list == "*" {
		return true
	}
	want := strconv.Itoa(p) + ":" + strconv.Itoa(b)
	for _, e := range strings.Split(list, ",") {
		if strings.TrimSpace(e) == want {
			return true
		}
	}
	return false
}

// rate is a broker's throttle rate config in bytes per second, -1 when
// it is not set (Kafka's default: no limit).
func (r *replication) rate(broker int, key string) float64 {
	v, ok := r.config(cluster.BrokerConfigPath(broker))[key]
	if !ok {
		return -1
	}
	n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	if err != nil || n < 0 {
		return -1
	}
	return float64(n)
}

// config returns a config znode's overrides, read from ZooKeeper at most
// once per throttleMaxAge.
func (r *replication) config(path string) map[string]string {
	r.cmu.Lock()
	c, ok := r.configs[path]
	r.cmu.Unlock()
	if ok && time.Since(c.read) < throttleMaxAge {
		return c.values
	}
	values := map[string]string{}
	data, _, err := r.cl.admin.Get(path)
	switch {
	case err == nil:
		if ec, err := cluster.DecodeEntityConfig(data); err == nil {
			values = ec.Map()
		}
	case !errors.Is(err, zk.ErrNoNode):
		if ok {
			return c.values // keep the last known on a failed read
		}
	}
	r.cmu.Lock()
	r.configs[path] = cachedConfig{values: values, read: time.Now()}
	r.cmu.Unlock()
	return values
}

// Copies returns the new replicas copying their partitions now, by topic,
// partition and broker.
func (cl *Cluster) Copies() []CopyStatus {
	r := cl.repl
	now := time.Now()
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]CopyStatus, 0, len(r.copies))
	for k, c := range r.copies {
		size := cl.partitionBytes(k.tp, now)
		_, growth := cl.partitionShape(k.tp)
		out = append(out, CopyStatus{Topic: k.topic, Partition: k.partition, Broker: k.replica, Leader: c.leader,
			Size: size, Copied: c.holds(now, size), Rate: c.rate, Growth: growth, Throttled: c.followerThrottled || c.leaderThrottled})
	}
	slices.SortFunc(out, func(a, b CopyStatus) int {
		if c := compareTP(tp{a.Topic, a.Partition}, tp{b.Topic, b.Partition}); c != 0 {
			return c
		}
		return a.Broker - b.Broker
	})
	return out
}

// holds is what the replica holds at now, of a partition of size bytes:
// the copy goes on between its steps, at its rate, so that sizes read
// between two ticks rise smoothly as a real copy's do rather than in
// steps that the partition's growth would overtake.
func (c *copyState) holds(now time.Time, size int64) int64 {
	n := c.copied + c.rate*max(now.Sub(c.at).Seconds(), 0)
	return min(int64(n), size)
}

// copiedBytes is what each copying replica holds at now.
func (r *replication) copiedBytes(now time.Time) map[replicaKey]int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make(map[replicaKey]int64, len(r.copies))
	for k, c := range r.copies {
		out[k] = c.holds(now, r.cl.partitionBytes(k.tp, now))
	}
	return out
}
