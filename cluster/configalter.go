package cluster

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/go-zookeeper/zk"
)

// ZooKeeperEntityTypes are the entity types kafka-configs --zookeeper
// accepts, in Kafka's order (ConfigType.all).
var ZooKeeperEntityTypes = []string{EntityTopics, EntityClients, EntityUsers, EntityBrokers, EntityIPs}

// ParseAddConfig parses kafka-configs' --add-config value as ConfigCommand
// does: pairs separated by commas that are not inside square brackets,
// each split on an '=' (with the blanks around it) that is not inside
// brackets, keeping an empty value ("k="); anything but exactly one '='
// fails with "requirement failed: Invalid entity config: all configs to be
// added must be in the format "key=val"."; keys are trimmed, values lose
// every '[' and ']' and are trimmed, a later key wins; then a key with a
// character outside [a-zA-Z0-9._-] fails with "Invalid character found for
// config key: <k>" (3.x). "k1=v1,k2=[a,b],k3=v3" gives k2 = "a,b".
func ParseAddConfig(s string) (map[string]string, error) {
	pairs := bracketSplit(s, ',', false, 0)
	split := make([][]string, len(pairs))
	for i, p := range pairs {
		split[i] = bracketSplit(p, '=', true, -1)
		if len(split[i]) != 2 {
			return nil, kafkaErr(ClassIllegalArgument, `requirement failed: Invalid entity config: all configs to be added must be in the format "key=val".`)
		}
	}
	out := make(map[string]string, len(split))
	for _, kv := range split {
		v := strings.NewReplacer("[", "", "]", "").Replace(kv[1])
		out[javaTrim(kv[0])] = javaTrim(v)
	}
	// The characters of a config key are those of a topic name.
	for _, k := range slices.Sorted(maps.Keys(out)) {
		if !legalTopicChars(k) {
			return nil, kafkaErr(ClassIllegalArgument, "Invalid character found for config key: "+k)
		}
	}
	return out, nil
}

// bracketSplit is Java's String.split with ConfigCommand's patterns,
// `<sep>(?=[^\]]*(?:\[|$))` (with `\s*` on both sides when blanks is set):
// a separator counts only where the text after it reaches a '[' or the end
// before any ']', i.e. outside brackets. limit is Java's: 0 drops trailing
// empty pieces, -1 keeps them.
func bracketSplit(s string, sep byte, blanks bool, limit int) []string {
	outside := func(pos int) bool {
		for i := pos; i < len(s); i++ {
			switch s[i] {
			case '[':
				return true
			case ']':
				return false
			}
		}
		return true
	}
	var out []string
	start := 0
	for i := 0; i < len(s); i++ {
		if s[i] != sep {
			continue
		}
		ms, me := i, i+1
		if blanks {
			for ms > start && isJavaSpace(s[ms-1]) {
				ms--
			}
			for me < len(s) && isJavaSpace(s[me]) {
				me++
			}
		}
		if !outside(me) {
			continue
		}
		out = append(out, s[start:ms])
		start = me
		i = me - 1
	}
	out = append(out, s[start:])
	if limit == 0 && s != "" {
		for len(out) > 0 && out[len(out)-1] == "" {
			out = out[:len(out)-1]
		}
	}
	return out
}

// ParseDeleteConfig is kafka-configs' --delete-config: every value (the
// flag repeats) split on ',' and trimmed.
func ParseDeleteConfig(values []string) []string {
	var out []string
	for _, v := range values {
		for _, k := range strings.Split(v, ",") {
			out = append(out, javaTrim(k))
		}
	}
	return out
}

// Getter reads a znode (*zk.Conn and *zkwatch.Conn fit).
type Getter interface {
	Get(path string) ([]byte, *zk.Stat, error)
}

// ReadEntityConfig reads /config/<type>/<entity>: its overrides in
// document order and its dataVersion, or (nil, -1) when it does not exist.
// A znode that does not decode is an error: its overrides are unknown, so
// nothing may be written over it.
func ReadEntityConfig(z Getter, entityType, entity string) ([]ConfigEntry, int32, error) {
	path := EntityConfigPath(entityType, entity)
	data, stat, err := z.Get(path)
	if errors.Is(err, zk.ErrNoNode) {
		return nil, -1, nil
	}
	if err != nil {
		return nil, 0, readErr(path, err)
	}
	cfg, err := DecodeEntityConfig(data)
	if err != nil {
		return nil, 0, fmt.Errorf("%s: %w", path, err)
	}
	return cfg.Config, stat.Version, nil
}

// ConfigAlteration is a validated kafka-configs --alter of one entity: its
// overrides before and after, and the change ConfigChangeOps writes.
type ConfigAlteration struct {
	Change ConfigChange
	Before []ConfigEntry
	// Set lists the keys added or given a new value, Deleted the keys
	// removed, both sorted.
	Set, Deleted []string
}

// Ops returns the multi: the whole override set (version-checked) and the
// change notification.
func (a *ConfigAlteration) Ops() []any { return ConfigChangeOps(a.Change) }

// PlanTopicConfigAlteration merges add and del into the topic's current
// overrides (read at version) as ConfigCommand's ZooKeeper path does, with
// its checks in its order: a key to delete that is not set ("Invalid
// config(s): <k,…>", InvalidConfigurationException), then
// AdminZkClient.validateTopicConfig: the topic's name, its existence
// ("Topic '<t>' does not exist.", UnknownTopicOrPartitionException), and
// LogConfig.validate of the merged set (ValidateTopicConfig). A key both
// added and deleted ends up deleted, as in Kafka's ZooKeeper path.
func PlanTopicConfigAlteration(topic string, current []ConfigEntry, version int32, add map[string]string, del []string, existing ExistingTopics) (*ConfigAlteration, error) {
	a, err := planConfigAlteration(EntityTopics, topic, current, version, add, del)
	if err != nil {
		return nil, err
	}
	if err := ValidateTopicName(topic); err != nil {
		return nil, err
	}
	if !existing.TopicExists(topic) {
		return nil, kafkaErr(ClassUnknownTopicOrPartition, "Topic '"+topic+"' does not exist.")
	}
	if err := ValidateTopicConfig(a.Change.Config); err != nil {
		return nil, err
	}
	return a, nil
}

func planConfigAlteration(entityType, entity string, current []ConfigEntry, version int32, add map[string]string, del []string) (*ConfigAlteration, error) {
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
		return nil, kafkaErr(ClassInvalidConfiguration, "Invalid config(s): "+strings.Join(invalid, ","))
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
	case EntityTopics:
		name = "topic"
	case EntityUsers:
		name = "user-principal"
	case EntityClients:
		name = "client-id"
	}
	if entity == BrokerDefaultEntity {
		return "default " + name
	}
	return name + " '" + entity + "'"
}

// ConfigsDescribeLine is kafka-configs --zookeeper --describe's line for
// one entity: "Configs for topic 'orders' are k=v,k=v" (overrides in the
// znode's order; Kafka prints a java.util.Properties in its hash order).
func ConfigsDescribeLine(entityType, entity string, config []ConfigEntry) string {
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
	if name == "" || name == BrokerDefaultEntity {
		return BrokerDefaultEntity, nil
	}
	if _, err := strconv.ParseInt(name, 10, 32); err != nil {
		return "", kafkaErr(ClassIllegalArgument, "The entity name for brokers must be a valid integer broker id, but it is: "+name)
	}
	return name, nil
}
