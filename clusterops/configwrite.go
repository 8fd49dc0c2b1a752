package clusterops

import (
	"fmt"

	"github.com/go-zookeeper/zk"
	"github.com/ktopo/ktopo/cluster"
)

// ConfigChange is one entity's new config overrides, written the way
// Kafka's AdminZkClient.changeConfigs writes them: the whole override set
// to /config/<type>/<entity>, then a change notification
// /config/changes/config_change_<seq> that tells the brokers to re-read it.
// Kafka makes the two writes one after the other; ConfigChangeOps makes
// them (for any number of entities) one multi, version-checked, so a
// concurrent change fails the write instead of being overwritten.
type ConfigChange struct {
	EntityType string            // "topics", "brokers", "users", "clients", "ips"
	Entity     string            // a topic name, a broker id, "<default>"
	Config     map[string]string // every override after the change
	// Version is the config znode's dataVersion when the old overrides
	// were read; -1 when the znode does not exist (it is then created).
	Version int32
}

// Path is the entity's config znode.
func (c ConfigChange) Path() string { return cluster.EntityConfigPath(c.EntityType, c.Entity) }

// ConfigChangeOps returns the multi's operations for the changes: per
// entity, the config znode (created or set at its version) and a
// sequential change notification naming it. Send them with writeMulti, which
// gives the creates Kafka's ACLs.
func ConfigChangeOps(changes ...ConfigChange) []any {
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
