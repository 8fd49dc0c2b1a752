package clusterops

import (
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
