package kafkaops

import (
	"context"
	"fmt"
	"slices"
	"strconv"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/clusterops"
)

// Kafka's config sources (DescribeConfigs): a topic's own override, a
// broker's dynamic config, the cluster-wide dynamic default.
const (
	sourceDynamicTopic         = 1
	sourceDynamicBroker        = 2
	sourceDynamicDefaultBroker = 3
)

// CordonedLogDirs is the broker config that cordons a broker's log
// directories (KIP-1066, Kafka 4.3+); CordonAll, its value, cordons all
// of them.
const (
	CordonedLogDirs = "cordoned.log.dirs"
	CordonAll       = "*"
)

// resource is the config resource of a ktopo entity: a topic, a broker
// by id, the brokers' default (an empty name).
func resource(entityType, entity string) (kmsg.ConfigResourceType, string, error) {
	switch entityType {
	case cluster.EntityTopics:
		return kmsg.ConfigResourceTypeTopic, entity, nil
	case cluster.EntityBrokers:
		if entity == cluster.BrokerDefaultEntity {
			return kmsg.ConfigResourceTypeBroker, "", nil
		}
		return kmsg.ConfigResourceTypeBroker, entity, nil
	}
	return 0, "", fmt.Errorf("ktopo changes the configs of topics and brokers over the Kafka protocol, not of %s", entityType)
}

// ReadConfig reads an entity's dynamic config with DescribeConfigs: a
// topic's overrides, a broker's or the default's dynamic configs (a
// sensitive value, which Kafka does not show, reads as "").
func (w *Writer) ReadConfig(ctx context.Context, entityType, entity string) ([]cluster.ConfigEntry, int32, error) {
	rt, name, err := resource(entityType, entity)
	if err != nil {
		return nil, -1, err
	}
	req := kmsg.NewPtrDescribeConfigsRequest()
	r := kmsg.NewDescribeConfigsRequestResource()
	r.ResourceType, r.ResourceName = rt, name
	req.Resources = append(req.Resources, r)
	resp, err := send[*kmsg.DescribeConfigsResponse](ctx, w.cl, req)
	if err != nil {
		return nil, -1, err
	}
	want := int8(sourceDynamicTopic)
	if rt == kmsg.ConfigResourceTypeBroker {
		want = sourceDynamicBroker
		if name == "" {
			want = sourceDynamicDefaultBroker
		}
	}
	var out []cluster.ConfigEntry
	for _, res := range resp.Resources {
		acl := aclTopic("DESCRIBE_CONFIGS", entity)
		if rt == kmsg.ConfigResourceTypeBroker {
			acl = "DESCRIBE_CONFIGS on the CLUSTER"
		}
		if err := codeError(res.ErrorCode, res.ErrorMessage, "read the configs of "+clusterops.AdminEntityDescription(entityType, entity), acl); err != nil {
			return nil, -1, err
		}
		for _, c := range res.Configs {
			if int8(c.Source) != want {
				continue
			}
			v := ""
			if c.Value != nil {
				v = *c.Value
			}
			out = append(out, cluster.ConfigEntry{Key: c.Name, Value: v})
		}
	}
	return out, -1, nil
}

// alterConfigsRequest is the alterations as Kafka's
// IncrementalAlterConfigs: per entity, SET of every key added or given
// a new value, DELETE of every key removed.
func alterConfigsRequest(as []*clusterops.ConfigAlteration) (*kmsg.IncrementalAlterConfigsRequest, error) {
	req := kmsg.NewPtrIncrementalAlterConfigsRequest()
	for _, a := range as {
		rt, name, err := resource(a.Change.EntityType, a.Change.Entity)
		if err != nil {
			return nil, err
		}
		r := kmsg.NewIncrementalAlterConfigsRequestResource()
		r.ResourceType, r.ResourceName = rt, name
		for _, k := range a.Set {
			c := kmsg.NewIncrementalAlterConfigsRequestResourceConfig()
			v := a.Change.Config[k]
			c.Name, c.Op, c.Value = k, kmsg.IncrementalAlterConfigOpSet, &v
			r.Configs = append(r.Configs, c)
		}
		for _, k := range a.Deleted {
			c := kmsg.NewIncrementalAlterConfigsRequestResourceConfig()
			c.Name, c.Op = k, kmsg.IncrementalAlterConfigOpDelete
			r.Configs = append(r.Configs, c)
		}
		req.Resources = append(req.Resources, r)
	}
	return req, nil
}

// describeAlterConfigs is the request's lines; validate: it is sent with
// validateOnly first.
func describeAlterConfigs(req *kmsg.IncrementalAlterConfigsRequest, validate bool) []string {
	out := []string{head("IncrementalAlterConfigs", validate)}
	for _, r := range req.Resources {
		name := r.ResourceName
		if r.ResourceType == kmsg.ConfigResourceTypeBroker && name == "" {
			name = `"" (the default of every broker)`
		}
		out = append(out, "  "+r.ResourceType.String()+" "+name)
		if len(r.Configs) == 0 {
			out = append(out, "    (no change)")
		}
		for _, c := range r.Configs {
			switch c.Op {
			case kmsg.IncrementalAlterConfigOpSet:
				out = append(out, "    SET "+c.Name+"="+*c.Value)
			default:
				out = append(out, "    "+c.Op.String()+" "+c.Name)
			}
		}
	}
	return out
}

// alterACL is the ACL an IncrementalAlterConfigs of a resource needs.
func alterACL(rt kmsg.ConfigResourceType, name string) string {
	if rt == kmsg.ConfigResourceTypeTopic {
		return aclTopic("ALTER_CONFIGS", name)
	}
	return "ALTER_CONFIGS on the CLUSTER"
}

// checkAlterConfigs reads an IncrementalAlterConfigs response's refusals.
func checkAlterConfigs(r *kmsg.IncrementalAlterConfigsResponse) error {
	for _, res := range r.Resources {
		what := "alter the configs of topic " + res.ResourceName
		if res.ResourceType == kmsg.ConfigResourceTypeBroker {
			what = "alter the configs of broker " + res.ResourceName
			if res.ResourceName == "" {
				what = "alter the default configs of the brokers"
			}
		}
		if err := codeError(res.ErrorCode, res.ErrorMessage, what, alterACL(res.ResourceType, res.ResourceName)); err != nil {
			return err
		}
	}
	return nil
}

// sendAlterConfigs sends req as m says.
func (w *Writer) sendAlterConfigs(ctx context.Context, req *kmsg.IncrementalAlterConfigsRequest, m clusterops.Mode) error {
	err := validated(ctx, w, m, req, func(v bool) { req.ValidateOnly = v }, checkAlterConfigs)
	if err == nil && m == clusterops.Apply && w.onBrokerConfigs != nil &&
		slices.ContainsFunc(req.Resources, func(r kmsg.IncrementalAlterConfigsRequestResource) bool {
			return r.ResourceType == kmsg.ConfigResourceTypeBroker
		}) {
		w.onBrokerConfigs()
	}
	return err
}

// AlterConfigs sends IncrementalAlterConfigs: the keys the alterations
// set and delete, nothing else (a key changed meanwhile by someone else
// keeps their value).
func (w *Writer) AlterConfigs(ctx context.Context, as []*clusterops.ConfigAlteration, m clusterops.Mode) (clusterops.Writes, error) {
	req, err := alterConfigsRequest(as)
	if err != nil {
		return clusterops.Writes{}, err
	}
	ws := writes("alter configs", describeAlterConfigs(req, true))
	return ws, w.sendAlterConfigs(ctx, req, m)
}

// Cordon sets (or deletes) broker's cordoned.log.dirs=* with
// IncrementalAlterConfigs: a cordoned broker keeps its replicas and gets
// no new ones (KIP-1066; the cluster's metadata.version must be 4.3 or
// later, else the broker refuses it).
func (w *Writer) Cordon(ctx context.Context, broker int, cordon bool, m clusterops.Mode) (clusterops.Writes, error) {
	req := kmsg.NewPtrIncrementalAlterConfigsRequest()
	r := kmsg.NewIncrementalAlterConfigsRequestResource()
	r.ResourceType, r.ResourceName = kmsg.ConfigResourceTypeBroker, strconv.Itoa(broker)
	c := kmsg.NewIncrementalAlterConfigsRequestResourceConfig()
	c.Name, c.Op = CordonedLogDirs, kmsg.IncrementalAlterConfigOpDelete
	title := "uncordon broker " + r.ResourceName
	if cordon {
		v := CordonAll
		c.Op, c.Value = kmsg.IncrementalAlterConfigOpSet, &v
		title = "cordon broker " + r.ResourceName
	}
	r.Configs = append(r.Configs, c)
	req.Resources = append(req.Resources, r)
	ws := writes(title, describeAlterConfigs(req, true))
	return ws, w.sendAlterConfigs(ctx, req, m)
}
