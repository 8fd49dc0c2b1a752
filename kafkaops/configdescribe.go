package kafkaops

import (
	"context"
	"slices"
	"strconv"
	"strings"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/clusterops"
)

var _ clusterops.ConfigDescriber = (*Writer)(nil)

// sourceNames are Kafka's names of the config sources (the Admin client's
// ConfigEntry.ConfigSource), by DescribeConfigs' source id.
var sourceNames = map[int8]string{
	0: "UNKNOWN",
	1: "DYNAMIC_TOPIC_CONFIG",
	2: "DYNAMIC_BROKER_CONFIG",
	3: "DYNAMIC_DEFAULT_BROKER_CONFIG",
	4: "STATIC_BROKER_CONFIG",
	5: "DEFAULT_CONFIG",
	6: "DYNAMIC_BROKER_LOGGER_CONFIG",
	7: "DYNAMIC_CLIENT_METRICS_CONFIG",
	8: "DYNAMIC_GROUP_CONFIG",
}

func sourceName(s int8) string {
	if n, ok := sourceNames[s]; ok {
		return n
	}
	return "UNKNOWN"
}

// DescribeConfigs reads configs as Kafka 4.x's kafka-configs
// --bootstrap-server --describe does (ConfigCommand.describeResourceConfig):
// a named topic must be among the topics Metadata lists (internal ones
// included), a named broker among the unfenced brokers DescribeCluster
// lists; without a name, those in the order Kafka's tool holds them (a
// java.util.HashMap's, filled in the response's order), the brokers'
// default after the brokers. One DescribeConfigs with synonyms then
// gives every entity's configs (franz-go sends a broker's to the broker
// itself, as the Admin client does), each keeping the configs of its
// own dynamic level, sorted by name.
func (w *Writer) DescribeConfigs(ctx context.Context, entityType, entity string) ([]clusterops.DescribedEntity, error) {
	var names []string
	switch entityType {
	case cluster.EntityTopics:
		if entity != "" {
			if err := cluster.ValidateTopicName(entity); err != nil {
				return nil, err
			}
		}
		topics, err := w.topicNames(ctx)
		if err != nil {
			return nil, err
		}
		names = clusterops.JavaStringSetOrder(topics)
	case cluster.EntityBrokers:
		ids, err := w.unfencedBrokers(ctx)
		if err != nil {
			return nil, err
		}
		for _, id := range clusterops.JavaIntSetOrder(ids) {
			names = append(names, strconv.Itoa(id))
		}
		names = append(names, cluster.BrokerDefaultEntity)
	default:
		_, _, err := resource(entityType, entity)
		return nil, err
	}
	if entity != "" {
		if !slices.Contains(names, entity) {
			return nil, &clusterops.NoEntityError{EntityType: entityType, Entity: entity}
		}
		names = []string{entity}
	}
	if len(names) == 0 {
		return nil, nil
	}
	req := kmsg.NewPtrDescribeConfigsRequest()
	req.IncludeSynonyms = true
	for _, n := range names {
		rt, name, err := resource(entityType, n)
		if err != nil {
			return nil, err
		}
		r := kmsg.NewDescribeConfigsRequestResource()
		r.ResourceType, r.ResourceName = rt, name
		req.Resources = append(req.Resources, r)
	}
	resp, err := send[*kmsg.DescribeConfigsResponse](ctx, w.cl, req)
	if err != nil {
		return nil, err
	}
	byName := make(map[string]*kmsg.DescribeConfigsResponseResource, len(resp.Resources))
	for i := range resp.Resources {
		byName[resp.Resources[i].ResourceName] = &resp.Resources[i]
	}
	out := make([]clusterops.DescribedEntity, 0, len(names))
	for _, n := range names {
		rt, name, _ := resource(entityType, n)
		res := byName[name]
		what := "read the configs of " + clusterops.AdminEntityDescription(entityType, n)
		acl := aclTopic("DESCRIBE_CONFIGS", n)
		want := int8(sourceDynamicTopic)
		if rt == kmsg.ConfigResourceTypeBroker {
			acl, want = "DESCRIBE_CONFIGS on the CLUSTER", sourceDynamicBroker
			if name == "" {
				want = sourceDynamicDefaultBroker
			}
		}
		if res == nil {
			msg := "DescribeConfigs answered nothing for " + clusterops.AdminEntityDescription(entityType, n)
			return nil, codeError(kerr.UnknownServerError.Code, &msg, what, acl)
		}
		if err := codeError(res.ErrorCode, res.ErrorMessage, what, acl); err != nil {
			return nil, err
		}
		e := clusterops.DescribedEntity{Name: n}
		for _, c := range res.Configs {
			if int8(c.Source) != want {
				continue
			}
			d := clusterops.DescribedConfig{Name: c.Name, Value: c.Value, Sensitive: c.IsSensitive}
			for _, s := range c.ConfigSynonyms {
				d.Synonyms = append(d.Synonyms, clusterops.ConfigSynonym{Source: sourceName(int8(s.Source)), Name: s.Name, Value: s.Value})
			}
			e.Configs = append(e.Configs, d)
		}
		slices.SortFunc(e.Configs, func(a, b clusterops.DescribedConfig) int { return strings.Compare(a.Name, b.Name) })
		out = append(out, e)
	}
	return out, nil
}

// topicNames are the topics Metadata lists, in the response's order
// (Kafka's Admin listTopics, internal topics included).
func (w *Writer) topicNames(ctx context.Context) ([]string, error) {
	req := kmsg.NewPtrMetadataRequest() // Topics nil: every topic
	resp, err := send[*kmsg.MetadataResponse](ctx, w.cl, req)
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(resp.Topics))
	for _, t := range resp.Topics {
		if t.Topic != nil {
			names = append(names, *t.Topic)
		}
	}
	return names, nil
}

// unfencedBrokers are the brokers DescribeCluster lists (the Admin
// client's describeCluster: fenced brokers left out).
func (w *Writer) unfencedBrokers(ctx context.Context) ([]int, error) {
	req := kmsg.NewPtrDescribeClusterRequest()
	resp, err := send[*kmsg.DescribeClusterResponse](ctx, w.cl, req)
	if err != nil {
		return nil, err
	}
	if err := codeError(resp.ErrorCode, resp.ErrorMessage, "describe the cluster", "DESCRIBE on the CLUSTER"); err != nil {
		return nil, err
	}
	ids := make([]int, 0, len(resp.Brokers))
	for _, b := range resp.Brokers {
		if !b.IsFenced {
			ids = append(ids, int(b.NodeID))
		}
	}
	return ids, nil
}
