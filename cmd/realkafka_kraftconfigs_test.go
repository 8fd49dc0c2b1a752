package cmd

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ktopo/ktopo/internal/testkit/kafkatest"
)

// TestRealKRaftConfigsDescribe (Kafka 4.4, 3 controllers + 3 brokers):
// ktopo configs --describe on a KRaft cluster prints what Kafka 4.4's own
// kafka-configs --bootstrap-server --describe prints, byte for byte: every
// topic in the tool's order (a Java HashMap's, over enough topics that
// its buckets are not the names' sorted order), a named topic, every
// broker then the brokers' default, one broker, the default alone; each
// config with its synonyms, a sensitive one as null; and an entity that
// does not exist in the tool's words, exit 0.
func TestRealKRaftConfigsDescribe(t *testing.T) {
	c := kafkatest.SharedKRaft(t, kafkatest.Kafka44)
	bs := c.Bootstrap()
	kafkaTool(t, c, "kafka-topics", "--bootstrap-server", bs, "--create", "--topic", "kc-orders", "--partitions", "2", "--replication-factor", "2",
		"--config", "retention.ms=86400000", "--config", "min.insync.replicas=2", "--config", "cleanup.policy=compact,delete")
	for i := range 14 {
		runOK(t, "topics", "create", "--bootstrap-server", bs, "--topic", fmt.Sprintf("kc-%c%d", 'a'+i, i*7), "--partitions", "1", "--replication-factor", "1")
	}
	brokerConfigs := [][]string{
		{"--entity-name", "1", "--add-config", "log.cleaner.threads=2"},
		{"--entity-name", "2", "--add-config", "listener.name.plaintext.sasl.jaas.config=secret"}, // sensitive: Kafka sends no value
		{"--entity-default", "--add-config", "log.retention.bytes=1073741824"},
	}
	for _, args := range brokerConfigs {
		kafkaTool(t, c, "kafka-configs", append([]string{"--bootstrap-server", bs, "--alter", "--entity-type", "brokers"}, args...)...)
	}
	t.Cleanup(func() {
		for _, args := range brokerConfigs {
			del := append([]string{"--bootstrap-server", bs, "--alter", "--entity-type", "brokers"}, args[:len(args)-2]...)
			kafkaTool(t, c, "kafka-configs", append(del, "--delete-config", strings.SplitN(args[len(args)-1], "=", 2)[0])...)
		}
	})
	for _, args := range [][]string{
		{"--entity-type", "topics"},
		{"--entity-type", "topics", "--entity-name", "kc-orders"},
		{"--entity-type", "topics", "--entity-name", "kc-none"},
		{"--entity-type", "brokers"},
		{"--entity-type", "brokers", "--entity-name", "2"},
		{"--entity-type", "brokers", "--entity-name", "9"},
		{"--entity-type", "brokers", "--entity-default"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			// Both read the same moment: nothing changes the configs between.
			theirs := kafkaTool(t, c, "kafka-configs", append([]string{"--bootstrap-server", bs, "--describe"}, args...)...)
			ours := runOK(t, append([]string{"configs", "--bootstrap-server", bs, "--describe"}, args...)...)
			if ours != theirs {
				t.Errorf("ktopo:\n%s\nkafka-configs:\n%s", ours, theirs)
			}
		})
	}
	// The sensitive value and the synonyms are there (not an empty match).
	out := runOK(t, "configs", "--bootstrap-server", bs, "--describe", "--entity-type", "brokers", "--entity-name", "2")
	if !strings.Contains(out, "listener.name.plaintext.sasl.jaas.config=null sensitive=true synonyms={DYNAMIC_BROKER_CONFIG:listener.name.plaintext.sasl.jaas.config=null}") {
		t.Errorf("broker 2:\n%s", out)
	}
	out = runOK(t, "configs", "--bootstrap-server", bs, "--describe", "--entity-type", "topics", "--entity-name", "kc-orders")
	if !strings.Contains(out, "  min.insync.replicas=2 sensitive=false synonyms={DYNAMIC_TOPIC_CONFIG:min.insync.replicas=2, ") {
		t.Errorf("kc-orders:\n%s", out)
	}
}
