package sandbox

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/go-zookeeper/zk"
	"github.com/ktopo/ktopo/assign"
	"github.com/ktopo/ktopo/cluster"
)

// DemoTopic is one topic Config.DemoTopics creates.
type DemoTopic struct {
	Name              string
	Partitions        int
	ReplicationFactor int // capped at the number of brokers
	Config            map[string]string
}

// DemoTopics returns the demo topics: a few shapes, with and without
// config overrides, and the internal __consumer_offsets topic as a 3.x
// broker creates it for the first consumer group.
func DemoTopics() []DemoTopic {
	return []DemoTopic{
		{Name: "orders", Partitions: 12, ReplicationFactor: 3, Config: map[string]string{}},
		{Name: "payments", Partitions: 6, ReplicationFactor: 3, Config: map[string]string{"min.insync.replicas": "2"}},
		{Name: "clicks", Partitions: 24, ReplicationFactor: 2, Config: map[string]string{"retention.ms": "86400000"}},
		{Name: "audit-log", Partitions: 3, ReplicationFactor: 3, Config: map[string]string{"cleanup.policy": "compact"}},
		{Name: "__consumer_offsets", Partitions: 50, ReplicationFactor: 3, Config: map[string]string{
			"cleanup.policy": "compact", "compression.type": "producer", "segment.bytes": "104857600"}},
	}
}

// createDemoTopics creates the demo topics that do not exist yet, through
// the cluster's client session (not a broker's).
func (cl *Cluster) createDemoTopics() error {
	conn := cl.admin
	brokers, err := registeredBrokers(conn)
	if err != nil {
		return err
	}
	brokers, err = cluster.BrokerMetadatas(brokers, cluster.RackAwareEnforced, nil)
	if err != nil {
		return err
	}
	for _, t := range DemoTopics() {
		rf := min(t.ReplicationFactor, len(brokers))
		res, err := assign.Assign(brokers, t.Partitions, rf, assign.Random(nil))
		if err != nil {
			return fmt.Errorf("sandbox: demo topic %s: %w", t.Name, err)
		}
		err = CreateTopicLikeKtopo(conn, t.Name, res.Assignment, t.Config)
		switch {
		case errors.Is(err, zk.ErrNodeExists):
			cl.log.Info(fmt.Sprintf("demo topic %s already exists", t.Name))
		case err != nil:
			return fmt.Errorf("sandbox: create demo topic %s: %w", t.Name, err)
		}
	}
	return nil
}

// registeredBrokers reads /brokers/ids and each registration's rack.
func registeredBrokers(conn zkConn) ([]assign.Broker, error) {
	kids, _, err := conn.Children(cluster.BrokerIDsPath)
	if err != nil {
		return nil, fmt.Errorf("sandbox: list %s: %w", cluster.BrokerIDsPath, err)
	}
	var out []assign.Broker
	for _, k := range kids {
		id, err := strconv.Atoi(k)
		if err != nil {
			continue
		}
		data, _, err := conn.Get(cluster.BrokerIDPath(id))
		if errors.Is(err, zk.ErrNoNode) {
			continue
		}
		if err != nil {
			return nil, err
		}
		reg, err := cluster.DecodeBroker(data)
		if err != nil {
			continue
		}
		b := assign.Broker{ID: id}
		if reg.HasRack() {
			b.Rack, b.HasRack = reg.Rack, true
		}
		out = append(out, b)
	}
	return out, nil
}

// zkCreator is what CreateTopicLikeKtopo needs from a ZooKeeper session
// (*zk.Conn, zkwatch's Conn and the sandbox's sessions have it).
type zkCreator interface {
	Multi(ops ...any) ([]zk.MultiResponse, error)
}

// CreateTopicLikeKtopo writes a topic the way ktopo's creation pipeline
// does (spec §2.3, §6): /config/topics/<t> ({"version":1,"config":{…}},
// written even when empty) and /brokers/topics/<t> (version 3 with a fresh
// topic_id) in one multi. Partition state is left to the controller. An
// existing topic (or orphan config) gives zk.ErrNodeExists. Paths are
// relative to conn's chroot.
//
// It stands in for the cluster package's creation pipeline until that
// exists; it does not validate the name, the assignment or the config.
func CreateTopicLikeKtopo(conn zkCreator, topic string, assignment map[int][]int, config map[string]string) error {
	a := cluster.NewTopicAssignment(assignment, cluster.NewTopicID().String())
	_, err := conn.Multi(
		&zk.CreateRequest{Path: cluster.TopicConfigPath(topic), Data: cluster.EncodeEntityConfig(config), Acl: openACL},
		&zk.CreateRequest{Path: cluster.TopicPath(topic), Data: cluster.EncodeTopicAssignment(a), Acl: openACL},
	)
	return err
}
