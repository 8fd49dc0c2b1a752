package zkops

import (
	"errors"
	"fmt"

	"github.com/go-zookeeper/zk"
	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/clusterops"
)

// AddPartitionsOps returns the multi that adds the plan's partitions: the
// topic znode set at the version the plan read.
func AddPartitionsOps(p *clusterops.AddPartitionsPlan) []any {
	return []any{&zk.SetDataRequest{Path: p.TopicPath, Data: p.TopicJSON, Version: p.Version}}
}

// ErrConcurrentTopicChange is returned when the topic znode changed between
// planning and writing (a reassignment started, partitions were added, the
// topic was deleted): the version check failed and nothing was written.
var ErrConcurrentTopicChange = errors.New("the topic changed since it was read (its znode's version moved on); nothing was written: run the command again to plan on the new state")

// writeAlteration sends ops (AddPartitionsOps, ConfigChangeOps or both) as
// one ZooKeeper multi. A version check that failed (or a znode that
// vanished, or a config znode someone created meanwhile) returns
// ErrConcurrentTopicChange or ErrConcurrentConfigChange, depending on the
// znode; nothing is written.
func writeAlteration(z ZK, ops []any) error {
	results, err := writeMulti(z, ops...) // Kafka's ACLs on what it creates (the notification)
	if err == nil {
		return nil
	}
	path, concurrent := "", false
	switch o := failedOp(ops, results).(type) {
	case *zk.SetDataRequest:
		path, concurrent = o.Path, errors.Is(err, zk.ErrBadVersion) || errors.Is(err, zk.ErrNoNode)
	case *zk.CreateRequest:
		path, concurrent = o.Path, errors.Is(err, zk.ErrNodeExists) && o.Flags&zk.FlagSequence == 0
	}
	switch k := cluster.ParsePath(path).Kind; {
	case !concurrent:
		return fmt.Errorf("write %s: %w (nothing was written)", path, err)
	case k == cluster.KindTopicConfig || k == cluster.KindEntityConfig:
		return fmt.Errorf("%s: %w", path, ErrConcurrentConfigChange)
	default:
		return fmt.Errorf("%s: %w", path, ErrConcurrentTopicChange)
	}
}
