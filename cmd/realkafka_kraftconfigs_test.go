package cmd

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/ktopo/ktopo/internal/testkit/kafkatest"
	"github.com/ktopo/ktopo/kafkawatch"
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
	// The topics in one CreateTopics (quicker than a tool's run each):
	// kc-orders with overrides, 14 others whose names Kafka's tool lists
	// in its hash order.
	cl, err := kafkawatch.NewClient(kafkawatch.Dial{Bootstrap: strings.Split(bs, ",")})
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	req := kmsg.NewPtrCreateTopicsRequest()
	req.TimeoutMillis = 30_000
	for i := range 15 {
		ct := kmsg.NewCreateTopicsRequestTopic()
		ct.Topic, ct.NumPartitions, ct.ReplicationFactor = fmt.Sprintf("kc-%c%d", 'a'+i, i*7), 1, 1
		if i == 14 {
			ct.Topic, ct.NumPartitions, ct.ReplicationFactor = "kc-orders", 2, 2
			for k, v := range map[string]string{"retention.ms": "86400000", "min.insync.replicas": "2", "cleanup.policy": "compact,delete"} {
				cfg := kmsg.NewCreateTopicsRequestTopicConfig()
				cfg.Name, cfg.Value = k, kmsg.StringPtr(v)
				ct.Configs = append(ct.Configs, cfg)
			}
		}
		req.Topics = append(req.Topics, ct)
	}
	resp, err := req.RequestWith(context.Background(), cl)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range resp.Topics {
		if r.ErrorCode != 0 {
			t.Fatalf("create %s: error %d %v", r.Topic, r.ErrorCode, r.ErrorMessage)
		}
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
			// Nothing changes the configs meanwhile, but each tool may ask
			// another broker, which may not know the new topics yet: until
			// they agree, within a deadline that only catches a hang.
			var ours, theirs string
			for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(200 * time.Millisecond) {
				theirs = kafkaTool(t, c, "kafka-configs", append([]string{"--bootstrap-server", bs, "--describe"}, args...)...)
				ours = runOK(t, append([]string{"configs", "--bootstrap-server", bs, "--describe"}, args...)...)
				if ours == theirs || time.Now().After(deadline) {
					break
				}
			}
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
