package zkops

import (
	"errors"
	"fmt"

	"github.com/go-zookeeper/zk"
	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/clusterops"
)

// readEntityConfig reads /config/<type>/<entity>: its overrides in
// document order and its dataVersion, or (nil, -1) when it does not exist.
// A znode that does not decode is an error: its overrides are unknown, so
// nothing may be written over it.
func readEntityConfig(z Getter, entityType, entity string) ([]cluster.ConfigEntry, int32, error) {
	path := cluster.EntityConfigPath(entityType, entity)
	data, stat, err := z.Get(path)
	if errors.Is(err, zk.ErrNoNode) {
		return nil, -1, nil
	}
	if err != nil {
		return nil, 0, readErr(path, err)
	}
	cfg, err := cluster.DecodeEntityConfig(data)
	if err != nil {
		return nil, 0, fmt.Errorf("%s: %w", path, err)
	}
	return cfg.Config, stat.Version, nil
}

// ConfigChangeOps returns the multi's operations for the changes: per
// entity, the config znode (created or set at its version) and a
// sequential change notification naming it. Send them with writeMulti, which
// gives the creates Kafka's ACLs.
func ConfigChangeOps(changes ...clusterops.ConfigChange) []any {
	acl := zk.WorldACL(zk.PermAll)
	ops := make([]any, 0, 2*len(changes))
	for _, c := range changes {
		data := cluster.EncodeEntityConfig(c.Config)
		if c.Version < 0 {
			ops = append(ops, &zk.CreateRequest{Path: c.Path(), Data: data, Acl: acl})
		} else {
			ops = append(ops, &zk.SetDataRequest{Path: c.Path(), Data: data, Version: c.Version})
		}
		ops = append(ops, &zk.CreateRequest{Path: cluster.ConfigChangesPath + "/" + cluster.ConfigChangePrefix,
			Data: cluster.EncodeConfigChangeNotification(c.EntityType + "/" + c.Entity), Acl: acl, Flags: zk.FlagSequence})
	}
	return ops
}

// ErrConcurrentConfigChange is returned when an entity's config changed
// between reading it and writing it (the multi's version check failed):
// nothing was written.
var ErrConcurrentConfigChange = fmt.Errorf("the config changed while it was being altered; nothing was written (read it again and retry)")
