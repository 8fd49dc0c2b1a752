package clusterops

import (
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/ktopo/ktopo/cluster"
)

// ZooKeeperEntityTypes returns the entity types kafka-configs --zookeeper
// accepts, in Kafka's order (ConfigType.all).
func ZooKeeperEntityTypes() []string {
	return []string{cluster.EntityTopics, cluster.EntityClients, cluster.EntityUsers, cluster.EntityBrokers, cluster.EntityIPs}
}

// ConfigAlteration is a validated kafka-configs --alter of one entity: its
// overrides before and after, and the change ConfigChangeOps writes.
type ConfigAlteration struct {
	Change ConfigChange
	Before []cluster.ConfigEntry
	// Set lists the keys added or given a new value, Deleted the keys
	// removed, both sorted.
	Set, Deleted []string
}

// PlanTopicConfigAlteration merges add and del into the topic's current
// overrides (read at version) as ConfigCommand's ZooKeeper path does, with
// its checks in its order: a key to delete that is not set ("Invalid
// config(s): <k,…>", InvalidConfigurationException), then
// AdminZkClient.validateTopicConfig: the topic's name, its existence
// ("Topic '<t>' does not exist.", UnknownTopicOrPartitionException), and
// LogConfig.validate of the merged set (ValidateTopicConfig). A key both
// added and deleted ends up deleted, as in Kafka's ZooKeeper path.
func PlanTopicConfigAlteration(topic string, current []cluster.ConfigEntry, version int32, add map[string]string, del []string, existing cluster.ExistingTopics) (*ConfigAlteration, error) {
	a, err := planConfigAlteration(cluster.EntityTopics, topic, current, version, add, del)
	if err != nil {
		return nil, err
	}
	if err := cluster.ValidateTopicName(topic); err != nil {
		return nil, err
	}
	if !existing.TopicExists(topic) {
		return nil, kafkaErr(cluster.ClassUnknownTopicOrPartition, "Topic '"+topic+"' does not exist.")
	}
	if err := validateTopicConfig(a.Change.Config, existing); err != nil {
		return nil, err
	}
	return a, nil
}

// validateTopicConfig is ValidateTopicConfig, lenient with the keys it
// does not know on a KRaft cluster (cluster.ValidateKnownTopicConfig):
// its brokers check them.
func validateTopicConfig(config map[string]string, existing cluster.ExistingTopics) error {
	if s, ok := existing.(*cluster.Snapshot); ok && s.KRaft() != nil {
		return cluster.ValidateKnownTopicConfig(config)
	}
	return cluster.ValidateTopicConfig(config)
}

// PlanBrokerConfigAlteration merges add and del into a broker's (or, with
// entity <default>, every broker's) dynamic configs as kafka-configs
// --alter does: a key to delete that is not set is refused ("Invalid
// config(s): <k,…>"); the values are the brokers' to check (Kafka
// validates dynamic broker configs on the running brokers: a KRaft
// cluster's writer sends them with validateOnly first).
func PlanBrokerConfigAlteration(entity string, current []cluster.ConfigEntry, add map[string]string, del []string) (*ConfigAlteration, error) {
	if _, err := ValidateBrokerEntity(entity); err != nil {
		return nil, err
	}
	return planConfigAlteration(cluster.EntityBrokers, entity, current, -1, add, del)
}

func planConfigAlteration(entityType, entity string, current []cluster.ConfigEntry, version int32, add map[string]string, del []string) (*ConfigAlteration, error) {
	before := make(map[string]string, len(current))
	for _, e := range current {
		before[e.Key] = e.Value
	}
	var invalid []string
	for _, k := range del {
		if _, ok := before[k]; !ok {
			invalid = append(invalid, k)
		}
	}
	if len(invalid) > 0 {
		return nil, kafkaErr(cluster.ClassInvalidConfiguration, "Invalid config(s): "+strings.Join(invalid, ","))
	}
	after := maps.Clone(before)
	maps.Copy(after, add)
	for _, k := range del {
		delete(after, k)
	}
	a := &ConfigAlteration{Before: current,
		Change: ConfigChange{EntityType: entityType, Entity: entity, Config: after, Version: version}}
	for _, k := range slices.Sorted(maps.Keys(after)) {
		if v, ok := before[k]; !ok || v != after[k] {
			a.Set = append(a.Set, k)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(before)) {
		if _, ok := after[k]; !ok {
			a.Deleted = append(a.Deleted, k)
		}
	}
	return a, nil
}

// EntityDescription is how kafka-configs names an entity in its messages:
// "topic 'orders'", "brokers '1'", "default brokers".
func EntityDescription(entityType, entity string) string {
	name := entityType
	switch entityType {
	case cluster.EntityTopics:
		name = "topic"
	case cluster.EntityUsers:
		name = "user-principal"
	case cluster.EntityClients:
		name = "client-id"
	}
	if entity == cluster.BrokerDefaultEntity {
		return "default " + name
	}
	return name + " '" + entity + "'"
}

// AdminEntityDescription is how kafka-configs --bootstrap-server names an
// entity in its messages: "topic orders", "broker 3", "default brokers"
// (its "Dynamic configs for broker 3 are:", "Default configs for brokers
// in the cluster are:").
func AdminEntityDescription(entityType, entity string) string {
	singular := strings.TrimSuffix(entityType, "s")
	if entity == cluster.BrokerDefaultEntity {
		return "default " + entityType
	}
	return singular + " " + entity
}

// ConfigsDescribeLine is kafka-configs --zookeeper --describe's line for
// one entity: "Configs for topic 'orders' are k=v,k=v" (overrides in the
// znode's order; Kafka prints a java.util.Properties in its hash order).
func ConfigsDescribeLine(entityType, entity string, config []cluster.ConfigEntry) string {
	parts := make([]string, len(config))
	for i, e := range config {
		parts[i] = e.Key + "=" + e.Value
	}
	return "Configs for " + EntityDescription(entityType, entity) + " are " + strings.Join(parts, ",")
}

// ValidateBrokerEntity checks a broker entity name as kafka-configs does:
// an integer id ("The entity name for brokers must be a valid integer
// broker id, but it is: <v>"), or "" / <default> for the cluster default.
func ValidateBrokerEntity(name string) (string, error) {
	if name == "" || name == cluster.BrokerDefaultEntity {
		return cluster.BrokerDefaultEntity, nil
	}
	if _, err := strconv.ParseInt(name, 10, 32); err != nil {
		return "", kafkaErr(cluster.ClassIllegalArgument, "The entity name for brokers must be a valid integer broker id, but it is: "+name)
	}
	return name, nil
}
