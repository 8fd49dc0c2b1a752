package sandbox

import (
	"context"
	"fmt"

	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/clusterops"
	"github.com/ktopo/ktopo/clusterwatch/zksource"
	"github.com/ktopo/ktopo/zkops"
)

// DemoTopic is one topic Config.DemoTopics creates.
type DemoTopic struct {
	Name              string
	Partitions        int
	ReplicationFactor int // capped at the number of brokers
	Config            map[string]string
	// PartitionSize is the simulated size in bytes of an average
	// partition when the sandbox first sizes it (what a reassignment
	// copies to a new replica, with what was produced since).
	PartitionSize int64
	// ProduceRate is how fast the topic grows, in bytes per second over
	// all its partitions (a simulated producer).
	//
	// A demo topic's partitions are skewed, as keyed partitions are: each
	// partition's size and rate are PartitionSize and its share of
	// ProduceRate times a weight between 0.5 and 1.5 drawn from the
	// partition (and Config.Rand), so one seed gives the same sizes.
	ProduceRate int64
}

// DemoTopics returns the demo topics: a few shapes, with and without
// config overrides, and the internal __consumer_offsets topic with the
// partitions and configs a 3.x broker gives it.
func DemoTopics() []DemoTopic {
	return []DemoTopic{
		{Name: "orders", Partitions: 12, ReplicationFactor: 3, Config: map[string]string{}, PartitionSize: 256 << 20, ProduceRate: 2 << 20},
		{Name: "payments", Partitions: 6, ReplicationFactor: 3, Config: map[string]string{"min.insync.replicas": "2"}, PartitionSize: 64 << 20, ProduceRate: 256 << 10},
		{Name: "clicks", Partitions: 24, ReplicationFactor: 2, Config: map[string]string{"retention.ms": "86400000"}, PartitionSize: 512 << 20, ProduceRate: 8 << 20},
		{Name: "audit-log", Partitions: 3, ReplicationFactor: 3, Config: map[string]string{"cleanup.policy": "compact"}, PartitionSize: 32 << 20, ProduceRate: 16 << 10},
		{Name: "__consumer_offsets", Partitions: 50, ReplicationFactor: 3, Config: map[string]string{
			"cleanup.policy": "compact", "compression.type": "producer", "segment.bytes": "104857600"}, PartitionSize: 4 << 20, ProduceRate: 64 << 10},
	}
}

// createDemoTopics creates the demo topics that do not exist yet through
// ktopo's own creation pipeline (clusterops.PlanTopic and the ZooKeeper
// writer's CreateTopic, as "ktopo topics create" does): Kafka's rack-aware assignment with a
// random start on the registered brokers sorted by id, the config and topic
// znodes in one multi, no topic id (the controller adds one; with
// Config.Rand the topic id is drawn here and written with the topic), from
// the cluster's client session (not a broker's).
func (cl *Cluster) createDemoTopics(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, cl.cfg.ConnectTimeout)
	defer cancel()
	w := zkops.NewWriter(cl.admin)
	for _, t := range DemoTopics() {
		// A fresh snapshot per topic: the validation sees the topics made
		// just before.
		snap, err := zksource.Load(ctx, cl.admin, cluster.ModelOptions{})
		if err != nil {
			return fmt.Errorf("sandbox: read the cluster: %w", err)
		}
		rf := min(t.ReplicationFactor, len(snap.RegisteredBrokers()))
		req := clusterops.TopicRequest{Name: t.Name, Partitions: t.Partitions,
			ReplicationFactor: rf, Config: t.Config, RackAware: cluster.RackAwareEnforced, StartIndex: -1, ReplicaShift: -1}
		if cl.cfg.Rand != nil {
			req.TopicID = cl.newUUID().String()
			cl.randMu.Lock()
			req.Rand = cl.cfg.Rand
		}
		plan, err := clusterops.PlanTopic(snap, req)
		if cl.cfg.Rand != nil {
			cl.randMu.Unlock()
		}
		if cluster.ErrorClass(err) == cluster.ClassTopicExists {
			cl.log.Info(fmt.Sprintf("demo topic %s already exists", t.Name))
			continue
		}
		if err != nil {
			return fmt.Errorf("sandbox: demo topic %s: %w", t.Name, err)
		}
		if _, err := w.CreateTopic(ctx, plan, clusterops.Apply); err != nil {
			if cluster.ErrorClass(err) == cluster.ClassTopicExists {
				continue
			}
			return fmt.Errorf("sandbox: create demo topic %s: %w", t.Name, err)
		}
	}
	return nil
}
