package kraftfake

import (
	"slices"
	"strconv"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/ktopo/ktopo/cluster"
)

// cordonedLogDirs is the broker config that cordons a broker's log
// directories (KIP-1066).
const cordonedLogDirs = "cordoned.log.dirs"

// brokerKeys are the broker configs the fake accepts: the throttle rates
// reassignments set and the cordon.
var brokerKeys = []string{cluster.ConfigLeaderThrottledRate, cluster.ConfigFollowerThrottledRate, "replica.alter.log.dirs.io.max.bytes.per.second", cordonedLogDirs}

// alterConfigs is IncrementalAlterConfigs of topics (every key checked as
// the controller checks topic configs) and of brokers (the keys ktopo
// sets: throttles and cordons). A broker's cordoned.log.dirs=* cordons
// it at once (Kafka's broker reports it in its next heartbeat).
func (c *Cluster) alterConfigs(s *cluster.Snapshot, req *kmsg.IncrementalAlterConfigsRequest) (kmsg.Response, error) {
	resp := req.ResponseKind().(*kmsg.IncrementalAlterConfigsResponse)
	for _, r := range req.Resources {
		for _, cf := range r.Configs {
			if cf.Op != kmsg.IncrementalAlterConfigOpSet && cf.Op != kmsg.IncrementalAlterConfigOpDelete {
				return nil, notEmulated("IncrementalAlterConfigs " + cf.Op.String())
			}
		}
		switch r.ResourceType {
		case kmsg.ConfigResourceTypeTopic:
		case kmsg.ConfigResourceTypeBroker:
			if r.ResourceName != "" {
				if id, err := strconv.Atoi(r.ResourceName); err != nil || !s.IsLive(id) {
					return nil, notEmulated("IncrementalAlterConfigs of broker " + r.ResourceName + " (not a live broker)")
				}
			}
			for _, cf := range r.Configs {
				if !slices.Contains(brokerKeys, cf.Name) {
					return nil, notEmulated("the broker config " + cf.Name)
				}
				if cf.Name == cordonedLogDirs && !c.kraft.CordonSupported() {
					return nil, notEmulated("cordoning before metadata.version 4.3")
				}
			}
		default:
			return nil, notEmulated("IncrementalAlterConfigs of a " + r.ResourceType.String())
		}
	}
	for _, r := range req.Resources {
		rr := kmsg.NewIncrementalAlterConfigsResponseResource()
		rr.ResourceType, rr.ResourceName = r.ResourceType, r.ResourceName
		var err *cluster.KafkaError
		if r.ResourceType == kmsg.ConfigResourceTypeTopic {
			err = c.alterTopicConfig(s, r, req.ValidateOnly)
		} else {
			c.alterBrokerConfig(s, r, req.ValidateOnly)
		}
		rr.ErrorCode, rr.ErrorMessage = codeMsg(err)
		resp.Resources = append(resp.Resources, rr)
	}
	return resp, nil
}

// alterTopicConfig checks and applies one topic's changes.
func (c *Cluster) alterTopicConfig(s *cluster.Snapshot, r kmsg.IncrementalAlterConfigsRequestResource, validateOnly bool) *cluster.KafkaError {
	t := s.Topic(r.ResourceName)
	if t == nil {
		return refuse(kerr.UnknownTopicOrPartition, "The topic '"+r.ResourceName+"' does not exist.")
	}
	cfg := map[string]string{}
	for _, e := range t.Config {
		cfg[e.Key] = e.Value
	}
	for _, cf := range r.Configs {
		if cf.Op == kmsg.IncrementalAlterConfigOpDelete {
			if _, ok := cluster.LookupTopicConfig(cf.Name); !ok {
				return refuse(kerr.InvalidConfig, "Unknown topic config name: "+cf.Name)
			}
			delete(cfg, cf.Name)
			continue
		}
		if cf.Value == nil {
			return refuse(kerr.InvalidRequest, "Null value not supported for : "+cf.Name)
		}
		if err := cluster.ValidateTopicConfigValue(cf.Name, *cf.Value); err != nil {
			return asRefusal(err)
		}
		cfg[cf.Name] = *cf.Value
	}
	if !validateOnly {
		c.set(cluster.TopicConfigPath(t.Name), cluster.EncodeEntityConfig(cfg))
		c.note("IncrementalAlterConfigs", "TOPIC", t.Name, describeOps(r))
	}
	return nil
}

// alterBrokerConfig applies one broker's (or the default's) changes.
func (c *Cluster) alterBrokerConfig(s *cluster.Snapshot, r kmsg.IncrementalAlterConfigsRequestResource, validateOnly bool) {
	if validateOnly {
		return
	}
	entity := r.ResourceName
	if entity == "" {
		entity = cluster.BrokerDefaultEntity
	}
	cfg := map[string]string{}
	cur, _ := s.BrokerConfig(entity)
	for _, e := range cur {
		cfg[e.Key] = e.Value
	}
	for _, cf := range r.Configs {
		if cf.Op == kmsg.IncrementalAlterConfigOpDelete {
			delete(cfg, cf.Name)
		} else {
			cfg[cf.Name] = *cf.Value
		}
		if cf.Name == cordonedLogDirs && r.ResourceName != "" {
			id, _ := strconv.Atoi(r.ResourceName)
			c.setCordoned(id, cf.Op == kmsg.IncrementalAlterConfigOpSet && *cf.Value != "")
		}
	}
	c.set(cluster.EntityConfigPath(cluster.EntityBrokers, entity), cluster.EncodeEntityConfig(cfg))
	c.note("IncrementalAlterConfigs", "BROKER", entity, describeOps(r))
}

// describeOps are a resource's changes, "SET k=v,DELETE k".
func describeOps(r kmsg.IncrementalAlterConfigsRequestResource) string {
	out := ""
	for i, cf := range r.Configs {
		if i > 0 {
			out += ","
		}
		if cf.Op == kmsg.IncrementalAlterConfigOpDelete {
			out += "DELETE " + cf.Name
			continue
		}
		out += "SET " + cf.Name + "=" + *cf.Value
	}
	return out
}

// describeConfigs answers DescribeConfigs with the dynamic configs: a
// topic's overrides, a broker's or the brokers' default dynamic configs.
func (c *Cluster) describeConfigs(s *cluster.Snapshot, req *kmsg.DescribeConfigsRequest) (kmsg.Response, error) {
	resp := req.ResponseKind().(*kmsg.DescribeConfigsResponse)
	for _, r := range req.Resources {
		rr := kmsg.NewDescribeConfigsResponseResource()
		rr.ResourceType, rr.ResourceName = r.ResourceType, r.ResourceName
		var entries []cluster.ConfigEntry
		var source kmsg.ConfigSource
		switch r.ResourceType {
		case kmsg.ConfigResourceTypeTopic:
			t := s.Topic(r.ResourceName)
			if t == nil {
				rr.ErrorCode, rr.ErrorMessage = codeMsg(refuseBare(kerr.UnknownTopicOrPartition))
				resp.Resources = append(resp.Resources, rr)
				continue
			}
			entries, source = t.Config, kmsg.ConfigSourceDynamicTopicConfig
		case kmsg.ConfigResourceTypeBroker:
			entity, source := r.ResourceName, kmsg.ConfigSourceDynamicBrokerConfig
			if entity == "" {
				entity, source = cluster.BrokerDefaultEntity, kmsg.ConfigSourceDynamicDefaultBrokerConfig
			}
			entries, _ = s.BrokerConfig(entity)
			rr.Configs = configs(entries, source)
			resp.Resources = append(resp.Resources, rr)
			continue
		default:
			return nil, notEmulated("DescribeConfigs of a " + r.ResourceType.String())
		}
		rr.Configs = configs(entries, source)
		resp.Resources = append(resp.Resources, rr)
	}
	return resp, nil
}

func configs(entries []cluster.ConfigEntry, source kmsg.ConfigSource) []kmsg.DescribeConfigsResponseResourceConfig {
	var out []kmsg.DescribeConfigsResponseResourceConfig
	for _, e := range entries {
		cf := kmsg.NewDescribeConfigsResponseResourceConfig()
		v := e.Value
		cf.Name, cf.Value, cf.Source = e.Key, &v, source
		out = append(out, cf)
	}
	return out
}
