package fidelity

import (
	"context"
	"time"

	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/clusterops"
	"github.com/ktopo/ktopo/clusterwatch/zksource"
	"github.com/ktopo/ktopo/zkops"
	"github.com/ktopo/ktopo/zkwatch"
)

// onSide runs f on a ZooKeeper session chrooted at one side's root, with
// that side's cluster as ktopo loads it: what ktopo's commands see.
func (h *harness) onSide(root string, f func(conn *zkwatch.Conn, s *cluster.Snapshot) error) error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	conn, err := zkwatch.Connect(ctx, h.addr+root, zkwatch.Options{})
	if err != nil {
		return err
	}
	defer conn.Close()
	s, err := zksource.Load(ctx, conn, cluster.ModelOptions{})
	if err != nil {
		return err
	}
	return f(conn, s)
}

// setTopicConfig writes a topic's whole override set and its change
// notification on both sides, as ktopo configs --alter does (one
// version-checked multi); the brokers apply it.
func (h *harness) setTopicConfig(topic string, add map[string]string) {
	h.t.Helper()
	h.both(func(root string) error {
		return h.onSide(root, func(conn *zkwatch.Conn, s *cluster.Snapshot) error {
			w := zkops.NewWriter(conn)
			entries, version, err := w.ReadConfig(context.Background(), cluster.EntityTopics, topic)
			if err != nil {
				return err
			}
			alt, err := clusterops.PlanTopicConfigAlteration(topic, entries, version, add, nil, s)
			if err != nil {
				return err
			}
			_, err = w.AlterConfigs(context.Background(), []*clusterops.ConfigAlteration{alt}, clusterops.Apply)
			return err
		})
	})
}

// addPartitions grows a topic to n partitions on both sides, as ktopo
// topics alter does (AdminZkClient's placement, the topic znode set at the
// version read); the controllers create the new partitions.
func (h *harness) addPartitions(topic string, n int) {
	h.t.Helper()
	h.both(func(root string) error {
		return h.onSide(root, func(conn *zkwatch.Conn, s *cluster.Snapshot) error {
			plan, err := clusterops.PlanAddPartitions(s, clusterops.AddPartitionsRequest{Topic: topic, Partitions: n})
			if err != nil {
				return err
			}
			_, err = zkops.NewWriter(conn).AddPartitions(context.Background(), []*clusterops.AddPartitionsPlan{plan}, clusterops.Apply)
			return err
		})
	})
}
