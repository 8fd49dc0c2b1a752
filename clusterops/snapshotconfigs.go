package clusterops

import (
	"strings"

	"github.com/go-zookeeper/zk"

	"github.com/ktopo/ktopo/cluster"
)

// SnapshotConfigs reads the config znodes of a snapshot (its topics'
// overrides, its dynamic broker configs) as a Getter: for the plans that
// read configs (PlanThrottleClear, ThrottlesLeft) on a cluster whose
// configs are not in a ZooKeeper (a KRaft cluster's, from the poller).
func SnapshotConfigs(s *cluster.Snapshot) Getter { return snapshotConfigs{s} }

type snapshotConfigs struct{ s *cluster.Snapshot }

func (g snapshotConfigs) Get(path string) ([]byte, *zk.Stat, error) {
	switch info := cluster.ParsePath(path); {
	case info.Kind == cluster.KindTopicConfig:
		if t := g.s.Topic(info.Topic); t != nil && t.HasConfig {
			return cluster.EncodeEntityConfigEntries(t.Config), &zk.Stat{Version: t.ConfigVersion}, nil
		}
	case strings.HasPrefix(path, cluster.ConfigBrokersPath+"/"):
		if entries, ok := g.s.BrokerConfig(strings.TrimPrefix(path, cluster.ConfigBrokersPath+"/")); ok {
			return cluster.EncodeEntityConfigEntries(entries), &zk.Stat{}, nil
		}
	}
	return nil, nil, zk.ErrNoNode
}
