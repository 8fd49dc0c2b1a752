package cluster

import "testing"

// kindSamples names one path of every kind. A new PathKind fails
// TestEveryKindIsHandled until it has a sample here and, where Kafka
// defines its data or the model follows it, a row in kindSpecs.
var kindSamples = map[PathKind]string{
	KindUnknown:                  "/not-kafka",
	KindRoot:                     "/",
	KindController:               "/controller",
	KindControllerEpoch:          "/controller_epoch",
	KindBrokers:                  "/brokers",
	KindBrokerIDs:                "/brokers/ids",
	KindBroker:                   "/brokers/ids/1",
	KindBrokerTopics:             "/brokers/topics",
	KindTopic:                    "/brokers/topics/t",
	KindTopicPartitions:          "/brokers/topics/t/partitions",
	KindPartition:                "/brokers/topics/t/partitions/0",
	KindPartitionState:           "/brokers/topics/t/partitions/0/state",
	KindBrokerSeqID:              "/brokers/seqid",
	KindCluster:                  "/cluster",
	KindClusterID:                "/cluster/id",
	KindConfig:                   "/config",
	KindConfigEntityType:         "/config/topics",
	KindTopicConfig:              "/config/topics/t",
	KindEntityConfig:             "/config/brokers/1",
	KindConfigChanges:            "/config/changes",
	KindConfigChange:             "/config/changes/config_change_0000000001",
	KindAdmin:                    "/admin",
	KindDeleteTopics:             "/admin/delete_topics",
	KindDeleteTopic:              "/admin/delete_topics/t",
	KindReassignPartitions:       "/admin/reassign_partitions",
	KindPreferredReplicaElection: "/admin/preferred_replica_election",
	KindIsrChangeNotifications:   "/isr_change_notification",
	KindIsrChange:                "/isr_change_notification/isr_change_0000000001",
	KindLogDirEventNotifications: "/log_dir_event_notification",
	KindLogDirEvent:              "/log_dir_event_notification/log_dir_event_0000000001",
	KindLatestProducerIDBlock:    "/latest_producer_id_block",
	KindFeature:                  "/feature",
	KindMigration:                "/migration",
	KindConsumers:                "/consumers",
	KindConsumerOffset:           "/consumers/g/offsets/t/0",
	KindACL:                      "/kafka-acl/Topic/t",
	KindACLChange:                "/kafka-acl-changes/acl_changes_0000000001",
	KindACLContainer:             "/kafka-acl",
	KindDelegationToken:          "/delegation_token/tokens/tok",
	KindDelegationTokenContainer: "/delegation_token",
}

// dataless are the kinds whose data Kafka does not define.
var dataless = map[PathKind]bool{
	KindUnknown: true, KindRoot: true, KindBrokers: true, KindBrokerIDs: true, KindBrokerTopics: true,
	KindTopicPartitions: true, KindPartition: true, KindBrokerSeqID: true, KindCluster: true,
	KindConfig: true, KindConfigEntityType: true, KindConfigChanges: true, KindAdmin: true,
	KindDeleteTopics: true, KindDeleteTopic: true, KindIsrChangeNotifications: true,
	KindLogDirEventNotifications: true, KindConsumers: true, KindACL: true, KindACLChange: true,
	KindACLContainer: true, KindDelegationToken: true, KindDelegationTokenContainer: true,
}

// TestEveryKindIsHandled: every kind has a name, a sample path that parses
// back to it, a decoder unless Kafka defines no data for it, and an
// applier when the mirror shape delivers it to the model.
func TestEveryKindIsHandled(t *testing.T) {
	for k := range kindCount {
		if int(k) >= len(kindNames) || kindNames[k] == "" {
			t.Errorf("kind %d has no name", k)
		}
		p, ok := kindSamples[k]
		if !ok {
			t.Errorf("%s: no sample path in kindSamples", k)
			continue
		}
		if got := ParsePath(p).Kind; got != k {
			t.Errorf("ParsePath(%q) = %s, want %s", p, got, k)
		}
		if has := kindSpecs[k].decode != nil; has == dataless[k] {
			t.Errorf("%s: decoder %v, but dataless is %v", k, has, dataless[k])
		}
		if sp := kindSpecs[k].path; sp != "" && ParsePath(sp).Kind != k {
			t.Errorf("%s: fixed path %q parses as %s", k, sp, ParsePath(sp).Kind)
		}
	}
	shape := KafkaMirrorShape()
	followed := map[PathKind]string{}
	for _, p := range shape.Nodes {
		followed[ParsePath(p).Kind] = p
	}
	for _, c := range shape.Containers {
		// A child name of each container (broker ids are numbers,
		// notifications sequential znodes).
		child := map[string]string{
			BrokerIDsPath:               kindSamples[KindBroker],
			IsrChangeNotificationPath:   kindSamples[KindIsrChange],
			LogDirEventNotificationPath: kindSamples[KindLogDirEvent],
		}[c.Path]
		if child == "" {
			child = c.Path + "/x"
		}
		followed[ParsePath(child).Kind] = child
	}
	followed[KindPartitionState] = "derived from topic znodes"
	for k, from := range followed {
		if kindSpecs[k].apply == nil {
			t.Errorf("%s (%s) reaches the model, which has no applier for it", k, from)
		}
	}
	for k := range kindCount {
		if kindSpecs[k].apply != nil && followed[k] == "" {
			t.Errorf("%s has an applier but KafkaMirrorShape never delivers it", k)
		}
	}
}
