package kraftsandbox

import (
	"fmt"
	"maps"

	"github.com/ktopo/ktopo/assign"
	"github.com/ktopo/ktopo/cluster"
)

// DemoTopic is one topic Config.DemoTopics creates; the ZooKeeper
// sandbox's demo topics (sandbox.DemoTopics) have the same shapes.
type DemoTopic struct {
	Name              string
	Partitions        int
	ReplicationFactor int // capped at the number of brokers
	Config            map[string]string
	// PartitionSize is an average partition's simulated size at start
	// and ProduceRate the topic's growth in bytes/s over its partitions.
	PartitionSize int64
	ProduceRate   int64
}

// DemoTopics returns the demo topics.
func DemoTopics() []DemoTopic {
	return []DemoTopic{
		{Name: "orders", Partitions: 12, ReplicationFactor: 3, PartitionSize: 256 << 20, ProduceRate: 2 << 20},
		{Name: "payments", Partitions: 6, ReplicationFactor: 3, Config: map[string]string{"min.insync.replicas": "2"}, PartitionSize: 64 << 20, ProduceRate: 256 << 10},
		{Name: "clicks", Partitions: 24, ReplicationFactor: 2, Config: map[string]string{"retention.ms": "86400000"}, PartitionSize: 512 << 20, ProduceRate: 8 << 20},
		{Name: "audit-log", Partitions: 3, ReplicationFactor: 3, Config: map[string]string{"cleanup.policy": "compact"}, PartitionSize: 32 << 20, ProduceRate: 16 << 10},
		{Name: "__consumer_offsets", Partitions: 50, ReplicationFactor: 3, Config: map[string]string{
			"cleanup.policy": "compact", "compression.type": "producer", "segment.bytes": "104857600"}, PartitionSize: 4 << 20, ProduceRate: 64 << 10},
	}
}

// createDemoTopics creates the demo topics, placed by the controller's
// placer as CreateTopics without an assignment is.
func (c *Cluster) createDemoTopics() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, d := range DemoTopics() {
		rf := min(d.ReplicationFactor, len(c.brokers))
		a, err := c.place(0, d.Partitions, rf)
		if err != nil {
			return fmt.Errorf("demo topic %s: %w", d.Name, err)
		}
		t := c.addTopic(d.Name, a, d.Config)
		t.rate = float64(d.ProduceRate)
		for i, p := range t.parts {
			w := 0.5 + c.rnd.Float64() // keyed partitions are skewed
			p.size = float64(d.PartitionSize) * w
			p.rate = t.rate / float64(len(t.parts)) * w
			_ = i
		}
	}
	return nil
}

// stripedBrokers are the brokers the controller's placer may use, in id
// order: every registered broker, fenced or not, except those shutting
// down and those all of whose log directories are cordoned. c.mu is held.
func (c *Cluster) stripedBrokers() []assign.StripedBroker {
	var out []assign.StripedBroker
	for _, b := range c.brokers {
		if !b.registered || b.shuttingDown || allCordoned(b) {
			continue
		}
		sb := assign.StripedBroker{ID: int(b.id), Fenced: b.fenced}
		if b.rack != nil {
			sb.Rack, sb.HasRack = *b.rack, true
		}
		out = append(out, sb)
	}
	return out
}

func allCordoned(b *broker) bool {
	if len(b.dirs) == 0 {
		return false
	}
	for _, d := range b.dirs {
		if !d.cordoned {
			return false
		}
	}
	return true
}

// place places n partitions (ids from start) of rf replicas with the
// controller's StripedReplicaPlacer. c.mu is held.
func (c *Cluster) place(start, n, rf int) ([][]int32, error) {
	a, err := assign.Striped(c.stripedBrokers(), start, n, rf, c.placer, assign.StripedOptions{Cordoning: c.cordonSupported()})
	if err != nil {
		return nil, err
	}
	out := make([][]int32, n)
	for i := range n {
		for _, r := range a[start+i] {
			out[i] = append(out[i], int32(r))
		}
	}
	return out, nil
}

// cordonSupported says whether the metadata.version knows cordons
// (4.3+, KIP-1066). c.mu is held.
func (c *Cluster) cordonSupported() bool { return c.features["metadata.version"] >= metadataVersion43 }

// addTopic registers a topic with its replicas (leader first) and config
// overrides: a TopicRecord, a PartitionRecord each (ISR = the live
// replicas, the first of them leading), a ConfigRecord each. c.mu is held.
func (c *Cluster) addTopic(name string, replicas [][]int32, configs map[string]string) *topic {
	t := &topic{name: name, configs: maps.Clone(configs)}
	if t.configs == nil {
		t.configs = map[string]string{}
	}
	c.uuidInto(&t.id)
	c.record()
	// One allocation for the partitions and one for their replicas and
	// ISRs (a million partitions are a million fewer objects for the
	// garbage collector to track).
	t.parts = make([]*partition, 0, len(replicas))
	slab := make([]partition, len(replicas))
	n := 0
	for _, rs := range replicas {
		n += 2 * len(rs)
	}
	ints := make([]int32, n)
	for i, rs := range replicas {
		ints = c.initPartition(&slab[i], rs, ints)
		t.parts = append(t.parts, &slab[i])
	}
	c.offset += int64(len(t.configs))
	c.topics[name] = t
	c.topicIDs[t.id] = t
	c.logf("created topic %s with %d partitions", name, len(replicas))
	return t
}

// newPartition is a new partition's registration. c.mu is held.
func (c *Cluster) newPartition(rs []int32) *partition {
	p := new(partition)
	c.initPartition(p, rs, nil)
	return p
}

// initPartition registers a new partition in p, its replicas and ISR
// taken from the front of ints when it has room for both (each a full
// slice: an append copies it), else allocated; it returns the rest of
// ints. c.mu is held.
func (c *Cluster) initPartition(p *partition, rs []int32, ints []int32) []int32 {
	if len(ints) < 2*len(rs) {
		ints = make([]int32, 2*len(rs))
	}
	n := len(rs)
	p.replicas = ints[:n:n]
	copy(p.replicas, rs)
	p.isr = ints[n : n : 2*n]
	p.leader = -1
	for _, r := range rs {
		if c.usable(r) {
			p.isr = append(p.isr, r)
		}
	}
	if len(p.isr) == 0 {
		p.isr = append(p.isr, rs...) // a partition of fenced brokers only: no leader yet
	} else {
		p.leader = p.isr[0]
	}
	p.isr = p.isr[:len(p.isr):len(p.isr)]
	c.record()
	return ints[2*n:]
}

// intBrokerDefault is a cluster-wide broker config as an int (def when
// unset). c.mu is held.
func (c *Cluster) intBrokerDefault(name string, def int) int {
	if v, ok := c.brokerConfigs[""][name]; ok {
		var n int
		if _, err := fmt.Sscan(v, &n); err == nil {
			return n
		}
	}
	return def
}

// validTopicName checks a topic name as Kafka does (Topic.validate).
func validTopicName(name string) error { return cluster.ValidateTopicName(name) }
