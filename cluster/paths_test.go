package cluster

import (
	"slices"
	"testing"
)

func TestPathBuilders(t *testing.T) {
	for _, tc := range []struct{ got, want string }{
		{BrokerIDPath(3), "/brokers/ids/3"},
		{TopicPath("orders"), "/brokers/topics/orders"},
		{TopicPartitionsPath("orders"), "/brokers/topics/orders/partitions"},
		{PartitionPath("orders", 7), "/brokers/topics/orders/partitions/7"},
		{PartitionStatePath("orders", 7), "/brokers/topics/orders/partitions/7/state"},
		{TopicConfigPath("orders"), "/config/topics/orders"},
		{EntityConfigPath("users", "alice"), "/config/users/alice"},
		{BrokerConfigPath(2), "/config/brokers/2"},
		{DeleteTopicPath("orders"), "/admin/delete_topics/orders"},
		{ConfigChangePath(42), "/config/changes/config_change_0000000042"},
		{IsrChangePath(7), "/isr_change_notification/isr_change_0000000007"},
		{LogDirEventPath(12345678901), "/log_dir_event_notification/log_dir_event_12345678901"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}

func TestPersistentPaths(t *testing.T) {
	want := []string{"/consumers", "/brokers/ids", "/brokers/topics", "/config/changes", "/admin/delete_topics",
		"/brokers/seqid", "/isr_change_notification", "/latest_producer_id_block", "/log_dir_event_notification",
		"/config/topics", "/config/clients", "/config/users", "/config/brokers"}
	if got := PersistentPaths(false); !slices.Equal(got, want) {
		t.Errorf("2.5–2.7: got %v", got)
	}
	if got := PersistentPaths(true); !slices.Equal(got, append(want, "/config/ips")) {
		t.Errorf("2.8+: got %v", got)
	}
	// Callers may modify the result.
	PersistentPaths(true)[0] = "x"
	if PersistentPaths(true)[0] != "/consumers" {
		t.Error("PersistentPaths shares its slice")
	}
}

func TestParsePath(t *testing.T) {
	type pi = PathInfo
	def := func(p PathInfo) PathInfo {
		if p.Partition == 0 && p.Kind != KindPartition && p.Kind != KindPartitionState && p.Kind != KindConsumerOffset {
			p.Partition = -1
		}
		if p.BrokerID == 0 && p.Kind != KindBroker && !(p.Kind == KindEntityConfig && p.EntityType == "brokers" && p.Entity == "0") {
			p.BrokerID = -1
		}
		if p.Seq == 0 && p.Kind != KindConfigChange && p.Kind != KindIsrChange && p.Kind != KindLogDirEvent && p.Kind != KindACLChange {
			p.Seq = -1
		}
		return p
	}
	for _, tc := range []struct {
		path string
		want PathInfo
	}{
		{"/", pi{Kind: KindRoot}},
		{"/controller", pi{Kind: KindController}},
		{"/controller_epoch", pi{Kind: KindControllerEpoch}},
		{"/brokers", pi{Kind: KindBrokers}},
		{"/brokers/ids", pi{Kind: KindBrokerIDs}},
		{"/brokers/ids/0", pi{Kind: KindBroker, BrokerID: 0}},
		{"/brokers/ids/1001", pi{Kind: KindBroker, BrokerID: 1001}},
		{"/brokers/ids/-1", pi{Kind: KindBroker, BrokerID: -1}},
		{"/brokers/topics", pi{Kind: KindBrokerTopics}},
		{"/brokers/topics/orders", pi{Kind: KindTopic, Topic: "orders"}},
		{"/brokers/topics/orders/partitions", pi{Kind: KindTopicPartitions, Topic: "orders"}},
		{"/brokers/topics/orders/partitions/3", pi{Kind: KindPartition, Topic: "orders", Partition: 3}},
		{"/brokers/topics/orders/partitions/3/state", pi{Kind: KindPartitionState, Topic: "orders", Partition: 3}},
		{"/brokers/topics/orders/partitions/-3/state", pi{Kind: KindPartitionState, Topic: "orders", Partition: -3}},
		{"/brokers/topics/orders/partitions/0/state", pi{Kind: KindPartitionState, Topic: "orders", Partition: 0}},
		{"/brokers/seqid", pi{Kind: KindBrokerSeqID}},
		{"/cluster", pi{Kind: KindCluster}},
		{"/cluster/id", pi{Kind: KindClusterID}},
		{"/config", pi{Kind: KindConfig}},
		{"/config/topics", pi{Kind: KindConfigEntityType, EntityType: "topics"}},
		{"/config/topics/orders", pi{Kind: KindTopicConfig, EntityType: "topics", Entity: "orders", Topic: "orders"}},
		{"/config/brokers/0", pi{Kind: KindEntityConfig, EntityType: "brokers", Entity: "0", BrokerID: 0}},
		{"/config/brokers/<default>", pi{Kind: KindEntityConfig, EntityType: "brokers", Entity: "<default>"}},
		{"/config/users/alice", pi{Kind: KindEntityConfig, EntityType: "users", Entity: "alice"}},
		{"/config/users/alice/clients/app", pi{Kind: KindEntityConfig, EntityType: "users", Entity: "alice/clients/app"}},
		{"/config/ips/10.0.0.1", pi{Kind: KindEntityConfig, EntityType: "ips", Entity: "10.0.0.1"}},
		{"/config/changes", pi{Kind: KindConfigChanges}},
		{"/config/changes/config_change_0000000042", pi{Kind: KindConfigChange, Seq: 42}},
		{"/admin", pi{Kind: KindAdmin}},
		{"/admin/delete_topics", pi{Kind: KindDeleteTopics}},
		{"/admin/delete_topics/orders", pi{Kind: KindDeleteTopic, Topic: "orders"}},
		{"/admin/reassign_partitions", pi{Kind: KindReassignPartitions}},
		{"/admin/preferred_replica_election", pi{Kind: KindPreferredReplicaElection}},
		{"/isr_change_notification", pi{Kind: KindIsrChangeNotifications}},
		{"/isr_change_notification/isr_change_0000000001", pi{Kind: KindIsrChange, Seq: 1}},
		{"/log_dir_event_notification", pi{Kind: KindLogDirEventNotifications}},
		{"/log_dir_event_notification/log_dir_event_0000000000", pi{Kind: KindLogDirEvent, Seq: 0}},
		{"/latest_producer_id_block", pi{Kind: KindLatestProducerIDBlock}},
		{"/feature", pi{Kind: KindFeature}},
		{"/migration", pi{Kind: KindMigration}},
		{"/consumers", pi{Kind: KindConsumers}},
		{"/consumers/g1/offsets/orders/2", pi{Kind: KindConsumerOffset, Entity: "g1", Topic: "orders", Partition: 2}},
		{"/consumers/g1/ids", pi{Kind: KindConsumers}},
		{"/kafka-acl", pi{Kind: KindACLContainer}},
		{"/kafka-acl/Topic", pi{Kind: KindACLContainer, EntityType: "Topic"}},
		{"/kafka-acl/Topic/orders", pi{Kind: KindACL, EntityType: "Topic", Entity: "orders"}},
		{"/kafka-acl-extended/prefixed/Topic/ord", pi{Kind: KindACL, Pattern: "prefixed", EntityType: "Topic", Entity: "ord"}},
		{"/kafka-acl-changes/acl_changes_0000000003", pi{Kind: KindACLChange, Seq: 3}},
		{"/delegation_token/tokens/abc", pi{Kind: KindDelegationToken, Entity: "abc"}},
		{"/delegation_token/token_changes", pi{Kind: KindDelegationTokenContainer}},

		// malformed or foreign
		{"", pi{}},
		{"brokers/ids/1", pi{}},
		{"/brokers/ids/1/", pi{}},
		{"//brokers", pi{}},
		{"/brokers//ids", pi{}},
		{"/brokers/ids/01", pi{}},
		{"/brokers/ids/+1", pi{}},
		{"/brokers/ids/-0", pi{}},
		{"/brokers/ids/x", pi{}},
		{"/brokers/ids/2147483648", pi{}},
		{"/brokers/ids/1/extra", pi{}},
		{"/brokers/topics/t/partitions/01/state", pi{}},
		{"/brokers/topics/t/partitions/0/other", pi{}},
		{"/brokers/topics/t/other", pi{}},
		{"/brokers/topics/t/partitions/0/state/x", pi{}},
		{"/controller/x", pi{}},
		{"/config/changes/other_1", pi{}},
		{"/config/changes/config_change_+1", pi{}},
		{"/isr_change_notification/isr_change_", pi{}},
		{"/zookeeper", pi{}},
		{"/a/b/c/d/e/f/g/h", pi{}},
	} {
		got := ParsePath(tc.path)
		want := def(tc.want)
		if got != want {
			t.Errorf("ParsePath(%q) = %+v, want %+v", tc.path, got, want)
		}
	}
}

// Every builder's output parses back to what it was built from.
func TestParsePathRoundTrip(t *testing.T) {
	for _, topic := range []string{"a", "orders.v1", "__consumer_offsets", "x-y_z", "..."} {
		for _, p := range []int{0, 1, 99, 2147483647} {
			info := ParsePath(PartitionStatePath(topic, p))
			if info.Kind != KindPartitionState || info.Topic != topic || info.Partition != p {
				t.Errorf("%s %d: %+v", topic, p, info)
			}
			if info := ParsePath(PartitionPath(topic, p)); info.Kind != KindPartition || info.Partition != p {
				t.Errorf("partition path: %+v", info)
			}
		}
		if info := ParsePath(TopicPath(topic)); info.Kind != KindTopic || info.Topic != topic {
			t.Errorf("topic path: %+v", info)
		}
		if info := ParsePath(TopicConfigPath(topic)); info.Kind != KindTopicConfig || info.Topic != topic {
			t.Errorf("config path: %+v", info)
		}
		if info := ParsePath(DeleteTopicPath(topic)); info.Kind != KindDeleteTopic || info.Topic != topic {
			t.Errorf("delete path: %+v", info)
		}
	}
	for _, id := range []int{0, 1, 1001, -1} {
		if info := ParsePath(BrokerIDPath(id)); info.Kind != KindBroker || info.BrokerID != id {
			t.Errorf("broker %d: %+v", id, info)
		}
	}
	for _, p := range PersistentPaths(true) {
		if ParsePath(p).Kind == KindUnknown {
			t.Errorf("%s: unknown", p)
		}
	}
}

func TestPathKindString(t *testing.T) {
	for k := KindUnknown; k <= KindDelegationTokenContainer; k++ {
		if s := k.String(); s == "" || s[0] == 'P' {
			t.Errorf("kind %d has no name", k)
		}
	}
	if PathKind(200).String() != "PathKind(200)" {
		t.Error(PathKind(200).String())
	}
}
