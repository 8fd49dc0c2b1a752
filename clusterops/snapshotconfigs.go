package clusterops

import "github.com/ktopo/ktopo/cluster"

// ConfigReader reads one entity's config overrides (its dynamic
// configs): in their order, with the version they were read at, and
// (nil, -1) when the entity has none. The plans that read configs
// (PlanThrottleClear, ThrottlesLeft) take one: the ZooKeeper writer's
// reads the config znodes, SnapshotConfigs a snapshot's.
type ConfigReader interface {
	EntityConfig(entityType, entity string) ([]cluster.ConfigEntry, int32, error)
}

// SnapshotConfigs reads the configs a snapshot holds (its topics'
// overrides, its dynamic broker configs): for a cluster whose configs
// are not in a ZooKeeper (a KRaft cluster's, from the poller).
func SnapshotConfigs(s *cluster.Snapshot) ConfigReader { return snapshotConfigs{s} }

type snapshotConfigs struct{ s *cluster.Snapshot }

func (g snapshotConfigs) EntityConfig(entityType, entity string) ([]cluster.ConfigEntry, int32, error) {
	switch entityType {
	case cluster.EntityTopics:
		if t := g.s.Topic(entity); t != nil && t.HasConfig {
			return t.Config, t.ConfigVersion, nil
		}
	case cluster.EntityBrokers:
		if entries, ok := g.s.BrokerConfig(entity); ok {
			return entries, 0, nil
		}
	}
	return nil, -1, nil
}

// configMap is r's config of the entity as the map a ConfigChange holds
// (empty, version -1, when it has none).
func configMap(r ConfigReader, entityType, entity string) (map[string]string, int32, error) {
	entries, v, err := r.EntityConfig(entityType, entity)
	if err != nil {
		return nil, 0, err
	}
	c := cluster.EntityConfig{Config: entries}
	return c.Map(), v, nil
}
