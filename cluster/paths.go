package cluster

import (
	"strconv"
	"strings"
)

// Fixed znode paths (spec §1.1). Paths are relative to the chroot of the
// connect string, exactly as Kafka's ZkData writes them.
const (
	ControllerPath               = "/controller"
	ControllerEpochPath          = "/controller_epoch"
	BrokersPath                  = "/brokers"
	BrokerIDsPath                = "/brokers/ids"
	BrokerTopicsPath             = "/brokers/topics"
	BrokerSeqIDPath              = "/brokers/seqid"
	ClusterPath                  = "/cluster"
	ClusterIDPath                = "/cluster/id"
	ConfigPath                   = "/config"
	ConfigTopicsPath             = "/config/topics"
	ConfigClientsPath            = "/config/clients"
	ConfigUsersPath              = "/config/users"
	ConfigBrokersPath            = "/config/brokers"
	ConfigIPsPath                = "/config/ips"
	ConfigChangesPath            = "/config/changes"
	AdminPath                    = "/admin"
	DeleteTopicsPath             = "/admin/delete_topics"
	ReassignPartitionsPath       = "/admin/reassign_partitions"
	PreferredReplicaElectionPath = "/admin/preferred_replica_election"
	IsrChangeNotificationPath    = "/isr_change_notification"
	LogDirEventNotificationPath  = "/log_dir_event_notification"
	LatestProducerIDBlockPath    = "/latest_producer_id_block"
	FeaturePath                  = "/feature"
	ConsumersPath                = "/consumers"
	MigrationPath                = "/migration"
	KafkaACLPath                 = "/kafka-acl"
	KafkaACLChangesPath          = "/kafka-acl-changes"
	KafkaACLExtendedPath         = "/kafka-acl-extended"
	KafkaACLExtendedChangesPath  = "/kafka-acl-extended-changes"
	DelegationTokenPath          = "/delegation_token"
	DelegationTokenChangesPath   = "/delegation_token/token_changes"
	DelegationTokensPath         = "/delegation_token/tokens"
)

// Prefixes of the PERSISTENT_SEQUENTIAL notification znodes; ZooKeeper
// appends a 10-digit, zero-padded sequence number.
const (
	ConfigChangePrefix = "config_change_"
	IsrChangePrefix    = "isr_change_"
	LogDirEventPrefix  = "log_dir_event_"
	ACLChangePrefix    = "acl_changes_"
)

// BrokerDefaultEntity is the entity name of the cluster-wide dynamic broker
// config, /config/brokers/<default>.
const BrokerDefaultEntity = "<default>"

// Config entity types, the children of /config (spec §1.6).
const (
	EntityTopics  = "topics"
	EntityClients = "clients"
	EntityUsers   = "users"
	EntityBrokers = "brokers"
	EntityIPs     = "ips"
)

// PersistentPaths returns the paths every Kafka broker creates (recursively,
// without data, ignoring "already exists") at startup, in ZkData's order
// (spec §1.2). Kafka 2.8+ adds /config/ips; pass configIPs=false for the
// 2.5–2.7 list. The parents /brokers, /config and /admin appear implicitly.
func PersistentPaths(configIPs bool) []string {
	ps := []string{
		ConsumersPath, BrokerIDsPath, BrokerTopicsPath, ConfigChangesPath, DeleteTopicsPath,
		BrokerSeqIDPath, IsrChangeNotificationPath, LatestProducerIDBlockPath,
		LogDirEventNotificationPath,
		ConfigTopicsPath, ConfigClientsPath, ConfigUsersPath, ConfigBrokersPath,
	}
	if configIPs {
		ps = append(ps, ConfigIPsPath)
	}
	return ps
}

// BrokerIDPath is /brokers/ids/<id>, a broker's ephemeral registration.
func BrokerIDPath(id int) string { return BrokerIDsPath + "/" + strconv.Itoa(id) }

// TopicPath is /brokers/topics/<t>, the topic's replica assignment.
func TopicPath(topic string) string { return BrokerTopicsPath + "/" + topic }

// TopicPartitionsPath is /brokers/topics/<t>/partitions.
func TopicPartitionsPath(topic string) string { return TopicPath(topic) + "/partitions" }

// PartitionPath is /brokers/topics/<t>/partitions/<p>.
func PartitionPath(topic string, partition int) string {
	return TopicPartitionsPath(topic) + "/" + strconv.Itoa(partition)
}

// PartitionStatePath is /brokers/topics/<t>/partitions/<p>/state, the
// partition's leader and ISR.
func PartitionStatePath(topic string, partition int) string {
	return PartitionPath(topic, partition) + "/state"
}

// EntityConfigPath is /config/<entityType>/<entity>.
func EntityConfigPath(entityType, entity string) string {
	return ConfigPath + "/" + entityType + "/" + entity
}

// TopicConfigPath is /config/topics/<t>, the topic's config overrides.
func TopicConfigPath(topic string) string { return ConfigTopicsPath + "/" + topic }

// BrokerConfigPath is /config/brokers/<id>.
func BrokerConfigPath(id int) string { return ConfigBrokersPath + "/" + strconv.Itoa(id) }

// DeleteTopicPath is /admin/delete_topics/<t>, the deletion request marker.
func DeleteTopicPath(topic string) string { return DeleteTopicsPath + "/" + topic }

// ConfigChangePath is /config/changes/config_change_<seq> (10-digit sequence).
func ConfigChangePath(seq int64) string {
	return ConfigChangesPath + "/" + seqName(ConfigChangePrefix, seq)
}

// IsrChangePath is /isr_change_notification/isr_change_<seq>.
func IsrChangePath(seq int64) string {
	return IsrChangeNotificationPath + "/" + seqName(IsrChangePrefix, seq)
}

// LogDirEventPath is /log_dir_event_notification/log_dir_event_<seq>.
func LogDirEventPath(seq int64) string {
	return LogDirEventNotificationPath + "/" + seqName(LogDirEventPrefix, seq)
}

// seqName renders ZooKeeper's sequential suffix, "%010d" of the int32 counter.
func seqName(prefix string, seq int64) string {
	s := strconv.FormatInt(seq, 10)
	if seq >= 0 && len(s) < 10 {
		s = strings.Repeat("0", 10-len(s)) + s
	}
	return prefix + s
}

// PathKind says what a znode path means to Kafka.
type PathKind uint8

// Path kinds returned by ParsePath.
const (
	KindUnknown                  PathKind = iota // not a Kafka path (or a malformed one)
	KindRoot                                     // "/"
	KindController                               // /controller
	KindControllerEpoch                          // /controller_epoch
	KindBrokers                                  // /brokers
	KindBrokerIDs                                // /brokers/ids
	KindBroker                                   // /brokers/ids/<id>; BrokerID set
	KindBrokerTopics                             // /brokers/topics
	KindTopic                                    // /brokers/topics/<t>; Topic set
	KindTopicPartitions                          // /brokers/topics/<t>/partitions
	KindPartition                                // /brokers/topics/<t>/partitions/<p>
	KindPartitionState                           // /brokers/topics/<t>/partitions/<p>/state
	KindBrokerSeqID                              // /brokers/seqid
	KindCluster                                  // /cluster
	KindClusterID                                // /cluster/id
	KindConfig                                   // /config
	KindConfigEntityType                         // /config/<type>; EntityType set
	KindTopicConfig                              // /config/topics/<t>; Topic, EntityType, Entity set
	KindEntityConfig                             // /config/<type>/<entity> other than topics (users/<u>/clients/<c> too)
	KindConfigChanges                            // /config/changes
	KindConfigChange                             // /config/changes/config_change_<seq>; Seq set
	KindAdmin                                    // /admin
	KindDeleteTopics                             // /admin/delete_topics
	KindDeleteTopic                              // /admin/delete_topics/<t>; Topic set
	KindReassignPartitions                       // /admin/reassign_partitions
	KindPreferredReplicaElection                 // /admin/preferred_replica_election
	KindIsrChangeNotifications                   // /isr_change_notification
	KindIsrChange                                // /isr_change_notification/isr_change_<seq>; Seq set
	KindLogDirEventNotifications                 // /log_dir_event_notification
	KindLogDirEvent                              // /log_dir_event_notification/log_dir_event_<seq>; Seq set
	KindLatestProducerIDBlock                    // /latest_producer_id_block
	KindFeature                                  // /feature
	KindMigration                                // /migration
	KindConsumers                                // /consumers and anything below it
	KindConsumerOffset                           // /consumers/<g>/offsets/<t>/<p>; Entity=<g>, Topic, Partition set
	KindACL                                      // /kafka-acl/<Type>/<name> or /kafka-acl-extended/<pattern>/<Type>/<name>
	KindACLChange                                // /kafka-acl[-extended]-changes/acl_changes_<seq>
	KindACLContainer                             // the ACL roots and their type/pattern directories
	KindDelegationToken                          // /delegation_token/tokens/<id>; Entity set
	KindDelegationTokenContainer                 // /delegation_token, /tokens, /token_changes and changes under it

	kindCount // the number of kinds: keep it last
)

var kindNames = [...]string{
	KindUnknown: "unknown", KindRoot: "root", KindController: "controller",
	KindControllerEpoch: "controller_epoch", KindBrokers: "brokers", KindBrokerIDs: "broker_ids",
	KindBroker: "broker", KindBrokerTopics: "broker_topics", KindTopic: "topic",
	KindTopicPartitions: "topic_partitions", KindPartition: "partition",
	KindPartitionState: "partition_state", KindBrokerSeqID: "broker_seqid", KindCluster: "cluster",
	KindClusterID: "cluster_id", KindConfig: "config", KindConfigEntityType: "config_entity_type",
	KindTopicConfig: "topic_config", KindEntityConfig: "entity_config",
	KindConfigChanges: "config_changes", KindConfigChange: "config_change", KindAdmin: "admin",
	KindDeleteTopics: "delete_topics", KindDeleteTopic: "delete_topic",
	KindReassignPartitions:       "reassign_partitions",
	KindPreferredReplicaElection: "preferred_replica_election",
	KindIsrChangeNotifications:   "isr_change_notifications", KindIsrChange: "isr_change",
	KindLogDirEventNotifications: "log_dir_event_notifications", KindLogDirEvent: "log_dir_event",
	KindLatestProducerIDBlock: "latest_producer_id_block", KindFeature: "feature",
	KindMigration: "migration", KindConsumers: "consumers", KindConsumerOffset: "consumer_offset",
	KindACL: "acl", KindACLChange: "acl_change", KindACLContainer: "acl_container",
	KindDelegationToken: "delegation_token", KindDelegationTokenContainer: "delegation_token_container",
}

// String returns a short snake_case name of the kind.
func (k PathKind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "PathKind(" + strconv.Itoa(int(k)) + ")"
}

// PathInfo is the meaning of a znode path. Fields not relevant to Kind are
// zero (Partition, BrokerID and Seq are -1 when not set).
type PathInfo struct {
	Kind       PathKind
	Topic      string
	Partition  int
	BrokerID   int
	EntityType string // config entity type; ACL resource type
	Entity     string // config entity name ("<u>/clients/<c>" for user-client quotas); consumer group; token id; ACL resource name
	Pattern    string // ACL pattern type directory of /kafka-acl-extended (e.g. "prefixed")
	Seq        int64  // sequence number of a sequential notification znode
}

// ParsePath tells what a (chroot-relative) znode path means. It never fails:
// anything it does not recognise is KindUnknown. Numeric segments (broker
// ids, partitions) must be canonical decimal int32 ("01" is not partition 1).
func ParsePath(p string) PathInfo {
	info := PathInfo{Partition: -1, BrokerID: -1, Seq: -1}
	if p == "/" {
		info.Kind = KindRoot
		return info
	}
	if len(p) < 2 || p[0] != '/' || p[len(p)-1] == '/' {
		return info
	}
	var seg [7]string
	n := 0
	rest := p[1:]
	for {
		part, tail, more := strings.Cut(rest, "/")
		if part == "" {
			return info // empty segment ("//")
		}
		if n == len(seg) {
			return info // deeper than any Kafka path
		}
		seg[n] = part
		n++
		if !more {
			break
		}
		rest = tail
	}
	s := seg[:n]
	switch s[0] {
	case "controller":
		if n == 1 {
			info.Kind = KindController
		}
	case "controller_epoch":
		if n == 1 {
			info.Kind = KindControllerEpoch
		}
	case "brokers":
		parseBrokersPath(s, &info)
	case "cluster":
		switch {
		case n == 1:
			info.Kind = KindCluster
		case n == 2 && s[1] == "id":
			info.Kind = KindClusterID
		}
	case "config":
		parseConfigPath(s, &info)
	case "admin":
		switch {
		case n == 1:
			info.Kind = KindAdmin
		case s[1] == "delete_topics" && n == 2:
			info.Kind = KindDeleteTopics
		case s[1] == "delete_topics" && n == 3:
			info.Kind, info.Topic = KindDeleteTopic, s[2]
		case s[1] == "reassign_partitions" && n == 2:
			info.Kind = KindReassignPartitions
		case s[1] == "preferred_replica_election" && n == 2:
			info.Kind = KindPreferredReplicaElection
		}
	case "isr_change_notification":
		seqChild(s, IsrChangePrefix, KindIsrChangeNotifications, KindIsrChange, &info)
	case "log_dir_event_notification":
		seqChild(s, LogDirEventPrefix, KindLogDirEventNotifications, KindLogDirEvent, &info)
	case "latest_producer_id_block":
		if n == 1 {
			info.Kind = KindLatestProducerIDBlock
		}
	case "feature":
		if n == 1 {
			info.Kind = KindFeature
		}
	case "migration":
		if n == 1 {
			info.Kind = KindMigration
		}
	case "consumers":
		info.Kind = KindConsumers
		if n == 5 && s[2] == "offsets" {
			if part, ok := parseInt32(s[4]); ok {
				info.Kind, info.Entity, info.Topic, info.Partition = KindConsumerOffset, s[1], s[3], part
			}
		}
	case "kafka-acl":
		switch n {
		case 1, 2:
			info.Kind = KindACLContainer
			if n == 2 {
				info.EntityType = s[1]
			}
		case 3:
			info.Kind, info.EntityType, info.Entity = KindACL, s[1], s[2]
		}
	case "kafka-acl-extended":
		switch n {
		case 1, 2, 3:
			info.Kind = KindACLContainer
			if n >= 2 {
				info.Pattern = s[1]
			}
			if n == 3 {
				info.EntityType = s[2]
			}
		case 4:
			info.Kind, info.Pattern, info.EntityType, info.Entity = KindACL, s[1], s[2], s[3]
		}
	case "kafka-acl-changes", "kafka-acl-extended-changes":
		seqChild(s, ACLChangePrefix, KindACLContainer, KindACLChange, &info)
	case "delegation_token":
		info.Kind = KindDelegationTokenContainer
		if n == 3 && s[1] == "tokens" {
			info.Kind, info.Entity = KindDelegationToken, s[2]
		}
	}
	return info
}

func parseBrokersPath(s []string, info *PathInfo) {
	n := len(s)
	if n == 1 {
		info.Kind = KindBrokers
		return
	}
	switch s[1] {
	case "ids":
		switch n {
		case 2:
			info.Kind = KindBrokerIDs
		case 3:
			if id, ok := parseInt32(s[2]); ok {
				info.Kind, info.BrokerID = KindBroker, id
			}
		}
	case "seqid":
		if n == 2 {
			info.Kind = KindBrokerSeqID
		}
	case "topics":
		switch {
		case n == 2:
			info.Kind = KindBrokerTopics
		case n == 3:
			info.Kind, info.Topic = KindTopic, s[2]
		case s[3] != "partitions":
		case n == 4:
			info.Kind, info.Topic = KindTopicPartitions, s[2]
		default:
			p, ok := parseInt32(s[4])
			if !ok {
				return
			}
			switch {
			case n == 5:
				info.Kind, info.Topic, info.Partition = KindPartition, s[2], p
			case n == 6 && s[5] == "state":
				info.Kind, info.Topic, info.Partition = KindPartitionState, s[2], p
			}
		}
	}
}

func parseConfigPath(s []string, info *PathInfo) {
	n := len(s)
	if n == 1 {
		info.Kind = KindConfig
		return
	}
	if s[1] == "changes" {
		seqChild(s[1:], ConfigChangePrefix, KindConfigChanges, KindConfigChange, info)
		return
	}
	info.EntityType = s[1]
	switch {
	case n == 2:
		info.Kind = KindConfigEntityType
	case n == 3 && s[1] == EntityTopics:
		info.Kind, info.Topic, info.Entity = KindTopicConfig, s[2], s[2]
	case n == 3:
		info.Kind, info.Entity = KindEntityConfig, s[2]
		if s[1] == EntityBrokers {
			if id, ok := parseInt32(s[2]); ok {
				info.BrokerID = id
			}
		}
	case n == 5 && s[1] == EntityUsers && s[3] == "clients":
		info.Kind, info.Entity = KindEntityConfig, s[2]+"/clients/"+s[4]
	}
}

// seqChild handles a container whose children are sequential znodes.
func seqChild(s []string, prefix string, container, child PathKind, info *PathInfo) {
	switch len(s) {
	case 1:
		info.Kind = container
	case 2:
		if rest, ok := strings.CutPrefix(s[1], prefix); ok {
			if seq, err := strconv.ParseInt(rest, 10, 64); err == nil && rest != "" && rest[0] != '+' {
				info.Kind, info.Seq = child, seq
			}
		}
	}
}

// parseInt32 accepts canonical decimal int32 only.
func parseInt32(s string) (int, bool) {
	v, err := strconv.ParseInt(s, 10, 32)
	if err != nil {
		return 0, false
	}
	// canonical: no leading zeros, no '+', no "-0"
	if s[0] == '+' || (len(s) > 1 && s[0] == '0') || (len(s) > 1 && s[0] == '-' && s[1] == '0') {
		return 0, false
	}
	return int(v), true
}
