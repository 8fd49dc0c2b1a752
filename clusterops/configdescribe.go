package clusterops

import (
	"context"
	"errors"
)

// What `ktopo configs --describe` reads on a KRaft cluster: what Kafka
// 4.x's kafka-configs --bootstrap-server --describe prints, every dynamic
// config of an entity with its sensitivity and its synonyms (the same
// config at the other levels: the broker's, the cluster's default, the
// broker's static file, Kafka's default). ZooKeeper mode's describe reads
// the config znode (readEntityConfig, ConfigsDescribeLine).

// ConfigDescriber is the read port's describe of configs, for a writer
// that reaches the cluster over the Kafka protocol (kafkaops.Writer).
type ConfigDescriber interface {
	// DescribeConfigs describes entity's dynamic configs, or with entity
	// "" those of every entity of the type, in Kafka's tool's order: the
	// topics (internal ones too), or the unfenced brokers then the
	// brokers' default (cluster.BrokerDefaultEntity). A named entity that
	// does not exist is a *NoEntityError.
	DescribeConfigs(ctx context.Context, entityType, entity string) ([]DescribedEntity, error)
}

// DescribedEntity is one entity's dynamic configs, sorted by name.
type DescribedEntity struct {
	// Name is the topic's name, the broker's id or
	// cluster.BrokerDefaultEntity.
	Name    string
	Configs []DescribedConfig
}

// DescribedConfig is one config as DescribeConfigs returns it.
type DescribedConfig struct {
	Name string
	// Value is nil when Kafka sent none (a sensitive config's value).
	Value     *string
	Sensitive bool
	// Synonyms are the config's values at every level that sets it,
	// the one that wins first.
	Synonyms []ConfigSynonym
}

// ConfigSynonym is a config's value at one level: Source is Kafka's name
// of the level (DYNAMIC_TOPIC_CONFIG, DYNAMIC_BROKER_CONFIG,
// DYNAMIC_DEFAULT_BROKER_CONFIG, STATIC_BROKER_CONFIG, DEFAULT_CONFIG, …).
type ConfigSynonym struct {
	Source, Name string
	Value        *string
}

// NoEntityError is a described entity that does not exist, in Kafka's
// tool's words ("The topic 'x' doesn't exist and doesn't have dynamic
// config."), which it prints as its output, not as an error.
type NoEntityError struct{ EntityType, Entity string }

func (e *NoEntityError) Error() string {
	return "The " + e.EntityType[:len(e.EntityType)-1] + " '" + e.Entity + "' doesn't exist and doesn't have dynamic config."
}

// IsNoEntity reports a *NoEntityError.
func IsNoEntity(err error) bool {
	var ne *NoEntityError
	return errors.As(err, &ne)
}
