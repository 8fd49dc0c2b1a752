package kafkawatch

import (
	"slices"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/ktopo/ktopo/cluster"
)

// describeConfigs is a DescribeConfigs answer of topics, each given as
// key → (value, source).
func describeConfigs(topics map[string]map[string]struct {
	v   string
	src kmsg.ConfigSource
}, order ...string) *kmsg.DescribeConfigsResponse {
	resp := kmsg.NewPtrDescribeConfigsResponse()
	for _, name := range order {
		r := kmsg.NewDescribeConfigsResponseResource()
		r.ResourceType, r.ResourceName = kmsg.ConfigResourceTypeTopic, name
		for k, e := range topics[name] {
			c := kmsg.NewDescribeConfigsResponseResourceConfig()
			c.Name, c.Value, c.Source = k, str(e.v), e.src
			r.Configs = append(r.Configs, c)
		}
		resp.Resources = append(resp.Resources, r)
	}
	return resp
}

type cfg = struct {
	v   string
	src kmsg.ConfigSource
}

// TestInheritedConfigs: what topics inherit from the brokers is read off
// every topic of an answer, not the last one's alone: a topic overriding
// retention.ms does not hide the brokers' default retention.ms, which a
// topic without the override inherits (kafka-topics --describe lists it,
// source DYNAMIC_DEFAULT_BROKER_CONFIG). A later answer in which every
// topic overrides a key leaves what is known of it; one that reports it
// at Kafka's default (the broker default deleted) drops it.
func TestInheritedConfigs(t *testing.T) {
	h := newHarness(t)
	h.poll(baseView())
	var part configPart
	part.read(describeConfigs(map[string]map[string]cfg{
		"a": {"retention.ms": {"604800001", sourceDynamicDefaultBroker}, "min.insync.replicas": {"1", sourceStaticBroker}, "cleanup.policy": {"delete", sourceDefault}},
		"b": {"retention.ms": {"5000", sourceDynamicTopic}, "min.insync.replicas": {"1", sourceStaticBroker}, "cleanup.policy": {"delete", sourceDefault}},
	}, "a", "b"))
	h.poll(&view{configs: part.configs, inherited: part.inherited})
	want := []cluster.ConfigEntry{{Key: "min.insync.replicas", Value: "1"}, {Key: "retention.ms", Value: "604800001"}}
	if got := h.m.Snapshot().KRaft().InheritedConfigs; !slices.Equal(got, want) {
		t.Fatalf("inherited %v, want %v", got, want)
	}
	if v, ok := h.m.Snapshot().Topic("b").ConfigValue("retention.ms"); !ok || v != "5000" {
		t.Fatalf("b's own retention.ms: %q %v", v, ok)
	}
	// The next answer is of b alone, which overrides retention.ms: it
	// says nothing of the brokers' retention.ms.
	part = configPart{}
	part.read(describeConfigs(map[string]map[string]cfg{
		"b": {"retention.ms": {"5000", sourceDynamicTopic}, "min.insync.replicas": {"2", sourceDynamicDefaultBroker}},
	}, "b"))
	h.poll(&view{configs: part.configs, inherited: part.inherited})
	want = []cluster.ConfigEntry{{Key: "min.insync.replicas", Value: "2"}, {Key: "retention.ms", Value: "604800001"}}
	if got := h.m.Snapshot().KRaft().InheritedConfigs; !slices.Equal(got, want) {
		t.Fatalf("after b alone: inherited %v, want %v", got, want)
	}
	// The brokers' default retention.ms is deleted: a answers at Kafka's
	// default.
	part = configPart{}
	part.read(describeConfigs(map[string]map[string]cfg{
		"a": {"retention.ms": {"604800000", sourceDefault}, "min.insync.replicas": {"2", sourceDynamicDefaultBroker}},
	}, "a"))
	h.poll(&view{configs: part.configs, inherited: part.inherited})
	want = []cluster.ConfigEntry{{Key: "min.insync.replicas", Value: "2"}}
	if got := h.m.Snapshot().KRaft().InheritedConfigs; !slices.Equal(got, want) {
		t.Fatalf("after the delete: inherited %v, want %v", got, want)
	}
}
