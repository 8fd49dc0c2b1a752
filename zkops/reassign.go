package zkops

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/go-zookeeper/zk"
	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/clusterops"
)

// configReader reads the config znodes (clusterops.ConfigReader).
type configReader struct{ z Getter }

func (r configReader) EntityConfig(entityType, entity string) ([]cluster.ConfigEntry, int32, error) {
	return readEntityConfig(r.z, entityType, entity)
}

// configMap is an entity's config znode as the map a ConfigChange holds
// (empty, version -1, when the znode does not exist).
func configMap(z Getter, entityType, entity string) (map[string]string, int32, error) {
	entries, v, err := readEntityConfig(z, entityType, entity)
	if err != nil {
		return nil, 0, err
	}
	c := cluster.EntityConfig{Config: entries}
	return c.Map(), v, nil
}

// planReassignment checks a reassignment file against the cluster as
// kafka-reassign-partitions --execute --zookeeper does, in its order and
// with its messages (after CheckExecute): every partition must exist,
// every broker be registered, and no reassignment be running (neither in
// /admin/reassign_partitions nor, as Kafka 3.x's tool also checks, one
// started through the Admin API: a topic znode with adding or removing
// replicas). With throttle ≥ 0 it computes the throttles Kafka's tool sets
// and reads the config znodes they go to. The multi writes it all: a
// version check of every moved topic's znode (a topic reassigned or grown
// since it was read fails the write), the config changes, then
// /admin/reassign_partitions.
func planReassignment(s *cluster.Snapshot, z ZK, rs []cluster.Reassignment, throttle int64) (*clusterops.ReassignPlan, []any, error) {
	p, err := clusterops.CheckReassignment(s, rs, throttle)
	if err != nil {
		return nil, nil, err
	}
	var changes []clusterops.ConfigChange
	if throttle >= 0 {
		for _, tt := range p.TopicThrottles {
			cfg, v, err := configMap(z, cluster.EntityTopics, tt.Topic)
			if err != nil {
				return nil, nil, err
			}
			cfg[cluster.ConfigLeaderThrottledReplicas], cfg[cluster.ConfigFollowerThrottledReplicas] = tt.Leader, tt.Follower
			changes = append(changes, clusterops.ConfigChange{EntityType: cluster.EntityTopics, Entity: tt.Topic, Config: cfg, Version: v})
		}
		rate := strconv.FormatInt(throttle, 10)
		for _, b := range p.ThrottledBrokers {
			id := strconv.Itoa(b)
			cfg, v, err := configMap(z, cluster.EntityBrokers, id)
			if err != nil {
				return nil, nil, err
			}
			cfg[cluster.ConfigLeaderThrottledRate], cfg[cluster.ConfigFollowerThrottledRate] = rate, rate
			changes = append(changes, clusterops.ConfigChange{EntityType: cluster.EntityBrokers, Entity: id, Config: cfg, Version: v})
		}
	}
	// A version check of every moved topic's znode, in the moves' order.
	var ops []any
	checked := make(map[string]bool, len(p.TopicVersions))
	for _, m := range p.Moves {
		if !checked[m.Topic] {
			checked[m.Topic] = true
			ops = append(ops, &zk.CheckVersionRequest{Path: cluster.TopicPath(m.Topic), Version: p.TopicVersions[m.Topic]})
		}
	}
	ops = append(ops, ConfigChangeOps(changes...)...)
	request, err := createWithParentsOps(z, cluster.AdminPath, cluster.ReassignPartitionsPath, p.NodeJSON)
	if err != nil {
		return nil, nil, err
	}
	ops = append(ops, request...)
	return p, ops, nil
}

// executeReassignment writes planReassignment's multi. When something changed
// since the plan was made, nothing is written and the error says what: a
// reassignment started meanwhile (Kafka's MessageReassignmentExists), a
// moved topic's assignment rewritten or the topic deleted, a config the
// throttles go to changed.
func executeReassignment(z ZK, ops []any) error {
	res, err := writeMulti(z, ops...) // Kafka's ACLs on what it creates
	if err == nil {
		return nil
	}
	switch op := failedOp(ops, res).(type) {
	case *zk.CreateRequest:
		switch {
		case op.Path == cluster.ReassignPartitionsPath && errors.Is(err, zk.ErrNodeExists):
			return kafkaErr(cluster.ClassReassignmentRunning, clusterops.MessageReassignmentExists)
		case strings.HasPrefix(op.Path, cluster.ConfigPath+"/") && errors.Is(err, zk.ErrNodeExists):
			return fmt.Errorf("%s was created while the throttles were being set; nothing was written (run the command again): %w", op.Path, ErrConcurrentConfigChange)
		}
	case *zk.CheckVersionRequest:
		t := strings.TrimPrefix(op.Path, cluster.BrokerTopicsPath+"/")
		if errors.Is(err, zk.ErrNoNode) {
			return fmt.Errorf("topic %s was deleted after its assignment was read; nothing was written", t)
		}
		return fmt.Errorf("the assignment of topic %s changed after it was read (partitions added, or a reassignment started); nothing was written: run the command again to check the new assignment", t)
	case *zk.SetDataRequest:
		if errors.Is(err, zk.ErrBadVersion) {
			return fmt.Errorf("%s changed while the throttles were being set; nothing was written (run the command again): %w", op.Path, ErrConcurrentConfigChange)
		}
	}
	return fmt.Errorf("start the reassignment: %w", err)
}

// clearThrottles writes a ThrottleClear's multi (nothing when no entity
// had a throttle).
func clearThrottles(z ZK, ops []any) error {
	if len(ops) == 0 {
		return nil
	}
	res, err := writeMulti(z, ops...)
	if err == nil {
		return nil
	}
	if op := failedOp(ops, res); op != nil && (errors.Is(err, zk.ErrBadVersion) || errors.Is(err, zk.ErrNodeExists)) {
		path := ""
		switch o := op.(type) {
		case *zk.SetDataRequest:
			path = o.Path
		case *zk.CreateRequest:
			path = o.Path
		}
		return fmt.Errorf("%s changed while the throttles were being cleared; nothing was written (run --verify again): %w", path, ErrConcurrentConfigChange)
	}
	return fmt.Errorf("clear the throttles: %w", err)
}
