package kraftsandbox

import (
	_ "embed"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/ktopo/ktopo/cluster"
)

// Topic and broker configs as Kafka 4.4 answers DescribeConfigs,
// IncrementalAlterConfigs and AlterConfigs: the configs and their
// defaults, types and synonyms are a real 4.4.0 broker's
// (testdata/configs-4.4-*.tsv); a value's source is the first of the
// topic's override (DYNAMIC_TOPIC_CONFIG), the broker's dynamic config
// (DYNAMIC_BROKER_CONFIG), the cluster-wide one (DYNAMIC_DEFAULT_BROKER_CONFIG),
// the broker's server.properties (STATIC_BROKER_CONFIG: the sandbox's
// own, staticBrokerConfigs) and Kafka's default (DEFAULT_CONFIG).
//
// A broker checks a change of its configs (read-only configs, values,
// cordoned.log.dirs among its log.dirs) before it forwards it to the
// controller; a change sent to a controller directly is checked by the
// controller's rules only (checked against a real 4.4.0: a read-only
// config is stored, cordoned.log.dirs may only shrink). A cordon
// (cordoned.log.dirs, per broker) marks the broker's log directories
// cordoned at once (a real broker reports it in its next heartbeat).
//
// What is reduced: a broker config's value is checked for its type only
// (and the few bounds of brokerBounds), not every validator of
// KafkaConfig, and a static config is the sandbox's (staticBrokerConfigs),
// not tuned as a test rig's; the dynamic configs outside KafkaConfig
// (the replication throttles) are listed only once set, as Kafka lists
// them.

//go:embed testdata/configs-4.4-topic.tsv
var topicConfigsTSV string

//go:embed testdata/configs-4.4-broker.tsv
var brokerConfigsTSV string

// configDef is one config of a real 4.4.0 node.
type configDef struct {
	name                string
	typ                 kmsg.ConfigType
	def                 *string // nil: no default
	readOnly, sensitive bool
	// synonyms are the broker configs a topic config falls back to.
	synonyms []string
	doc      string
}

var topicDefs, brokerDefs = parseConfigDefs(topicConfigsTSV, true), parseConfigDefs(brokerConfigsTSV, false)

func parseConfigDefs(tsv string, topic bool) []configDef {
	var out []configDef
	unescape := strings.NewReplacer(`\\`, `\`, `\t`, "\t", `\n`, "\n")
	for _, line := range strings.Split(tsv, "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		d := configDef{name: f[0]}
		d.typ, _ = kmsg.ParseConfigType(f[1])
		if f[2] != `\N` {
			v := unescape.Replace(f[2])
			d.def = &v
		}
		if topic {
			if f[3] != "-" {
				d.synonyms = strings.Split(f[3], ",")
			}
			d.doc = unescape.Replace(f[4])
		} else {
			d.readOnly, d.sensitive = f[3] == "ro", f[4] == "sensitive"
			d.doc = unescape.Replace(f[5])
		}
		out = append(out, d)
	}
	return out
}

func lookupDef(defs []configDef, name string) (configDef, bool) {
	i, ok := slices.BinarySearchFunc(defs, name, func(d configDef, n string) int { return strings.Compare(d.name, n) })
	if !ok {
		return configDef{}, false
	}
	return defs[i], true
}

// brokerDynamicDefs are the dynamic broker configs outside KafkaConfig
// (DynamicConfig.Broker): the replication throttles, with their bounds.
var brokerDynamicDefs = map[string]kmsg.ConfigType{
	cluster.ConfigLeaderThrottledRate:   kmsg.ConfigTypeLong,
	cluster.ConfigFollowerThrottledRate: kmsg.ConfigTypeLong,
	cluster.ConfigLogDirsThrottledRate:  kmsg.ConfigTypeLong,
}

// cordonedLogDirs is the broker config that cordons log directories
// (KIP-1066): "*" all of them, else a list of paths.
const cordonedLogDirs = "cordoned.log.dirs"

func init() {
	handlerSets = append(handlerSets, map[int16]handler{
		kmsg.DescribeConfigs.Int16():         (*Cluster).describeConfigs,
		kmsg.IncrementalAlterConfigs.Int16(): (*Cluster).incrementalAlterConfigs,
		kmsg.AlterConfigs.Int16():            (*Cluster).alterConfigs,
	})
}

// staticBrokerConfigs is a broker's server.properties as the sandbox
// would have written it. c.mu is held.
func (c *Cluster) staticBrokerConfigs(b *broker) map[string]string {
	id := strconv.Itoa(int(b.id))
	var dirs []string
	for _, d := range b.dirs {
		dirs = append(dirs, d.path)
	}
	listener := "PLAINTEXT://" + b.n.addr()
	m := map[string]string{
		"node.id": id, "broker.id": id, "process.roles": "broker",
		"listeners": listener, "advertised.listeners": listener,
		"listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
		"controller.listener.names":      "CONTROLLER", "inter.broker.listener.name": "PLAINTEXT",
		"log.dirs": strings.Join(dirs, ","),
	}
	k, v := c.quorumConfig()
	m[k] = v
	if b.rack != nil {
		m["broker.rack"] = *b.rack
	}
	if c.cfg.SessionTimeout != 9*time.Second {
		m["broker.session.timeout.ms"] = strconv.FormatInt(c.cfg.SessionTimeout.Milliseconds(), 10)
	}
	if c.cfg.NoAutoLeaderRebalance {
		m["auto.leader.rebalance.enable"] = "false"
	}
	if c.cfg.LeaderImbalanceCheckInterval != 300*time.Second {
		m["leader.imbalance.check.interval.seconds"] = strconv.FormatInt(int64(c.cfg.LeaderImbalanceCheckInterval/time.Second), 10)
	}
	return m
}

// configSynonym is one level of a config's value.
type configSynonym struct {
	name, value string
	source      kmsg.ConfigSource
}

// nodeConf is a node whose configs are read: its id and its
// server.properties.
type nodeConf struct {
	id     string
	static map[string]string
}

// brokerConf is a broker's nodeConf (nil for nil). c.mu is held.
func (c *Cluster) brokerConf(b *broker) *nodeConf {
	if b == nil {
		return nil
	}
	return &nodeConf{strconv.Itoa(int(b.id)), c.staticBrokerConfigs(b)}
}

// controllerConf is a controller's nodeConf. c.mu is held.
func (c *Cluster) controllerConf(ct *controller) *nodeConf {
	id := strconv.Itoa(int(ct.id))
	m := map[string]string{
		"node.id": id, "broker.id": id, "process.roles": "controller",
		"listeners":                      "CONTROLLER://" + ct.n.addr(),
		"listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
		"controller.listener.names":      "CONTROLLER",
		"log.dirs":                       fmt.Sprintf("/var/lib/kafka/controller-%d", ct.id),
	}
	k, v := c.quorumConfig()
	m[k] = v
	return &nodeConf{id, m}
}

// quorumConfig is how every node's server.properties names the quorum:
// a static quorum's voters (controller.quorum.voters), or a dynamic
// one's controllers to bootstrap from (controller.quorum.bootstrap.servers,
// every controller the sandbox started: the voters are in the log).
// c.mu is held.
func (c *Cluster) quorumConfig() (string, string) {
	var out []string
	for _, ct := range c.controllers {
		if c.cfg.DynamicQuorum {
			out = append(out, ct.n.addr())
		} else {
			out = append(out, fmt.Sprintf("%d@%s", ct.id, ct.n.addr()))
		}
	}
	if c.cfg.DynamicQuorum {
		return "controller.quorum.bootstrap.servers", strings.Join(out, ",")
	}
	return "controller.quorum.voters", strings.Join(out, ",")
}

// brokerSynonyms are the values of a broker config on node nc (nil:
// the cluster default's resource), most specific first. c.mu is held.
func (c *Cluster) brokerSynonyms(nc *nodeConf, name string) []configSynonym {
	var out []configSynonym
	if nc != nil {
		if v, ok := c.brokerConfigs[nc.id][name]; ok {
			out = append(out, configSynonym{name, v, kmsg.ConfigSourceDynamicBrokerConfig})
		}
	}
	if v, ok := c.brokerConfigs[""][name]; ok {
		out = append(out, configSynonym{name, v, kmsg.ConfigSourceDynamicDefaultBrokerConfig})
	}
	if nc != nil {
		if v, ok := nc.static[name]; ok {
			out = append(out, configSynonym{name, v, kmsg.ConfigSourceStaticBrokerConfig})
		}
	}
	if d, ok := lookupDef(brokerDefs, name); ok && d.def != nil {
		out = append(out, configSynonym{name, *d.def, kmsg.ConfigSourceDefaultConfig})
	}
	return out
}

// topicSynonyms are the values of a topic config, most specific first,
// on the broker answering: the override, then the broker configs it
// falls back to, level by level (each level's names in turn, as
// Kafka's ConfigHelper lists them). The broker configs in other units
// (log.retention.hours …) are listed at their defaults only beside a
// broker config set (as a real 4.4.0 lists them). c.mu is held.
func (c *Cluster) topicSynonyms(overrides map[string]string, d configDef, b *nodeConf) []configSynonym {
	var out []configSynonym
	if v, ok := overrides[d.name]; ok {
		out = append(out, configSynonym{d.name, v, kmsg.ConfigSourceDynamicTopicConfig})
	}
	names := slices.Clone(d.synonyms)
	for _, u := range unitSynonyms[d.name] {
		names = append(names, u.name)
	}
	set := false // a broker-level value (a topic's own does not count)
	var defaults []configSynonym
	for _, level := range []kmsg.ConfigSource{kmsg.ConfigSourceDynamicBrokerConfig, kmsg.ConfigSourceDynamicDefaultBrokerConfig,
		kmsg.ConfigSourceStaticBrokerConfig, kmsg.ConfigSourceDefaultConfig} {
		for i, name := range names {
			for _, syn := range c.brokerSynonyms(b, name) {
				switch {
				case syn.source != level:
				case level != kmsg.ConfigSourceDefaultConfig:
					out, set = append(out, syn), true
				case i < len(d.synonyms):
					out = append(out, syn)
				default:
					defaults = append(defaults, syn)
				}
			}
		}
	}
	if set {
		out = append(out, defaults...)
	}
	return out
}

// unitSynonym is a broker config a topic config falls back to in
// another unit.
type unitSynonym struct {
	name string
	ms   int64 // its unit in ms
}

var unitSynonyms = map[string][]unitSynonym{
	"retention.ms":      {{"log.retention.minutes", 60_000}, {"log.retention.hours", 3_600_000}},
	"segment.ms":        {{"log.roll.hours", 3_600_000}},
	"segment.jitter.ms": {{"log.roll.jitter.hours", 3_600_000}},
}

// synonymValue is a topic config's value from its first synonym,
// converted to the topic config's unit.
func synonymValue(topicConfig string, syn configSynonym) string {
	for _, u := range unitSynonyms[topicConfig] {
		if u.name == syn.name {
			if n, err := strconv.ParseInt(cluster.JavaTrim(syn.value), 10, 64); err == nil {
				return strconv.FormatInt(n*u.ms, 10)
			}
		}
	}
	return syn.value
}

// answeringBroker is the broker whose configs a request on node n reads
// (a controller reads the first broker's; nil when none). c.mu is held.
func (c *Cluster) answeringBroker(n *node) *nodeConf {
	if b := c.broker(n.id); b != nil && !n.controller {
		return c.brokerConf(b)
	}
	if len(c.brokers) > 0 {
		return c.brokerConf(c.brokers[0])
	}
	return nil
}

// topicConfigEntries are every config of a topic with overrides as a
// 4.4.0 broker describes them. c.mu is held.
func (c *Cluster) topicConfigEntries(overrides map[string]string, b *nodeConf, synonyms, docs bool) []kmsg.DescribeConfigsResponseResourceConfig {
	var out []kmsg.DescribeConfigsResponseResourceConfig
	for _, d := range topicDefs {
		syn := c.topicSynonyms(overrides, d, b)
		e := kmsg.NewDescribeConfigsResponseResourceConfig()
		e.Name, e.ConfigType, e.Source = d.name, d.typ, kmsg.ConfigSourceDefaultConfig
		if len(syn) > 0 {
			v := synonymValue(d.name, syn[0])
			e.Value, e.Source = &v, syn[0].source
		} else if d.def != nil {
			v := *d.def
			e.Value = &v
		}
		e.IsDefault = e.Source == kmsg.ConfigSourceDefaultConfig
		if synonyms {
			e.ConfigSynonyms = synonymEntries(syn)
		}
		if docs {
			doc := d.doc
			e.Documentation = &doc
		}
		out = append(out, e)
	}
	return out
}

func synonymEntries(syn []configSynonym) []kmsg.DescribeConfigsResponseResourceConfigConfigSynonym {
	out := []kmsg.DescribeConfigsResponseResourceConfigConfigSynonym{}
	for _, s := range syn {
		e := kmsg.NewDescribeConfigsResponseResourceConfigConfigSynonym()
		v := s.value
		e.Name, e.Value, e.Source = s.name, &v, s.source
		out = append(out, e)
	}
	return out
}

// brokerConfigEntries are a node's configs (b nil: the cluster
// default's, only those set). c.mu is held.
func (c *Cluster) brokerConfigEntries(b *nodeConf, synonyms, docs bool) []kmsg.DescribeConfigsResponseResourceConfig {
	var out []kmsg.DescribeConfigsResponseResourceConfig
	entry := func(name string, typ kmsg.ConfigType, readOnly, sensitive bool, syn []configSynonym) {
		e := kmsg.NewDescribeConfigsResponseResourceConfig()
		if docs {
			if d, ok := lookupDef(brokerDefs, name); ok {
				doc := d.doc
				e.Documentation = &doc
			}
		}
		e.Name, e.ConfigType, e.ReadOnly, e.IsSensitive, e.Source = name, typ, readOnly, sensitive, kmsg.ConfigSourceDefaultConfig
		if len(syn) > 0 {
			v := syn[0].value
			e.Value, e.Source = &v, syn[0].source
		}
		if sensitive {
			e.Value = nil
		}
		e.IsDefault = e.Source == kmsg.ConfigSourceDefaultConfig
		if synonyms {
			e.ConfigSynonyms = synonymEntries(syn)
			if sensitive {
				for i := range e.ConfigSynonyms {
					e.ConfigSynonyms[i].Value = nil
				}
			}
		}
		out = append(out, e)
	}
	if b == nil {
		for _, name := range slices.Sorted(maps.Keys(c.brokerConfigs[""])) {
			d, ok := lookupDef(brokerDefs, name)
			if !ok {
				d = configDef{name: name, typ: brokerDynamicDefs[name]}
				if _, ok := brokerDynamicDefs[name]; !ok {
					d.readOnly, d.sensitive = true, true
				}
			}
			entry(name, d.typ, d.readOnly, d.sensitive, c.brokerSynonyms(nil, name)[:1])
		}
		return out
	}
	for _, d := range brokerDefs {
		entry(d.name, d.typ, d.readOnly, d.sensitive, c.brokerSynonyms(b, d.name))
	}
	dyn := maps.Clone(c.brokerConfigs[""])
	maps.Copy(dyn, c.brokerConfigs[b.id])
	for _, name := range slices.Sorted(maps.Keys(dyn)) {
		if _, ok := lookupDef(brokerDefs, name); !ok {
			if typ, ok := brokerDynamicDefs[name]; ok {
				entry(name, typ, false, false, c.brokerSynonyms(b, name))
			} else {
				// A config Kafka does not know: kept, shown as a
				// sensitive read-only one of no type.
				entry(name, kmsg.ConfigTypeUnknown, true, true, c.brokerSynonyms(b, name))
			}
		}
	}
	return out
}

// describeConfigs answers DescribeConfigs of topics and brokers.
func (c *Cluster) describeConfigs(r *request) (kmsg.Response, error) {
	req := r.req.(*kmsg.DescribeConfigsRequest)
	resp := req.ResponseKind().(*kmsg.DescribeConfigsResponse)
	c.mu.Lock()
	defer c.mu.Unlock()
	// The topics without overrides have the same entries: built once a
	// request (ktopo's 250 topics a request of a 100,000-topic sandbox:
	// 400 times 250 lists of 39 configs and their synonyms took minutes
	// of CPU).
	var plain []kmsg.DescribeConfigsResponseResourceConfig
	for _, rr := range req.Resources {
		out := kmsg.NewDescribeConfigsResponseResource()
		out.ResourceType, out.ResourceName = rr.ResourceType, rr.ResourceName
		var entries []kmsg.DescribeConfigsResponseResourceConfig
		switch rr.ResourceType {
		case kmsg.ConfigResourceTypeTopic:
			t := c.topics[rr.ResourceName]
			if err := validTopicName(rr.ResourceName); err != nil {
				out.ErrorCode, out.ErrorMessage = kerr.InvalidTopicException.Code, ptr(err.Error())
				break
			}
			if t == nil {
				out.ErrorCode, out.ErrorMessage = kerr.UnknownTopicOrPartition.Code, new(string)
				break
			}
			if len(t.configs) == 0 && rr.ConfigNames == nil {
				if plain == nil {
					plain = c.topicConfigEntries(t.configs, c.answeringBroker(r.node), req.IncludeSynonyms, req.IncludeDocumentation)
				}
				entries = plain
				break
			}
			entries = c.topicConfigEntries(t.configs, c.answeringBroker(r.node), req.IncludeSynonyms, req.IncludeDocumentation)
		case kmsg.ConfigResourceTypeBroker:
			if rr.ResourceName == "" {
				entries = c.brokerConfigEntries(nil, req.IncludeSynonyms, req.IncludeDocumentation)
				break
			}
			id, err := strconv.Atoi(rr.ResourceName)
			if err != nil {
				out.ErrorCode, out.ErrorMessage = kerr.InvalidRequest.Code, ptr("Broker id must be an integer, but it is: "+rr.ResourceName)
				break
			}
			if r.node.id != int32(id) {
				msg := fmt.Sprintf("Unexpected broker id, expected %d or empty string, but received %d", r.node.id, id)
				out.ErrorCode, out.ErrorMessage = kerr.InvalidRequest.Code, &msg
				break
			}
			nc := c.brokerConf(c.broker(int32(id)))
			if r.node.controller {
				nc = c.controllerConf(c.controller(int32(id)))
			}
			entries = c.brokerConfigEntries(nc, req.IncludeSynonyms, req.IncludeDocumentation)
		default:
			msg := fmt.Sprintf("Unsupported resource type %s", rr.ResourceType)
			out.ErrorCode, out.ErrorMessage = kerr.InvalidRequest.Code, &msg
		}
		if rr.ConfigNames != nil {
			entries = slices.DeleteFunc(entries, func(e kmsg.DescribeConfigsResponseResourceConfig) bool {
				return !slices.Contains(rr.ConfigNames, e.Name)
			})
		}
		out.Configs = entries
		resp.Resources = append(resp.Resources, out)
	}
	return resp, nil
}

func ptr[T any](v T) *T { return &v }

// asConfigError is one of ktopo's checks' errors as the controller's
// INVALID_CONFIG (a topic config's value or name).
func asConfigError(err error) *apiError {
	if err == nil {
		return nil
	}
	return &apiError{code: kerr.InvalidConfig, msg: err.Error()}
}

// validateTopicConfigs checks a topic's whole set of overrides as the
// controller's ConfigurationControlManager does (LogConfig.validate):
// unknown names in the order of a java.util.HashMap of them, then every value in LogConfig's order,
// then the compaction lags (ktopo's checks, cluster.ValidateKnownTopicConfig,
// with 4.x's bound of segment.bytes); the configs of Kafka 4.x beyond
// ktopo's table are checked for their type, last.
func validateTopicConfigs(cfg map[string]string) *apiError {
	keys := slices.Sorted(maps.Keys(cfg))
	for _, k := range javaHashOrder(keys) {
		if _, ok := lookupDef(topicDefs, k); !ok {
			return refuse(kerr.InvalidConfig, "Unknown topic config name: %s", k)
		}
	}
	// segment.bytes, the first config Kafka parses, has 4.x's bound.
	if v, ok := cfg["segment.bytes"]; ok {
		if n, err := strconv.ParseInt(cluster.JavaTrim(v), 10, 32); err == nil && n < 1048576 {
			return refuse(kerr.InvalidConfig, "Invalid value %s for configuration segment.bytes: Value must be at least 1048576", v)
		}
	}
	if err := cluster.ValidateKnownTopicConfig(cfg); err != nil {
		return asConfigError(err)
	}
	for _, k := range keys {
		d, _ := lookupDef(topicDefs, k)
		if err := validateTopicValue(d, cfg[k]); err != nil {
			return err
		}
	}
	return nil
}

// validateTopicValue checks one value of a config of Kafka 4.x that
// ktopo's table does not know (those it knows ValidateKnownTopicConfig
// checks): its type.
func validateTopicValue(d configDef, v string) *apiError {
	if _, ok := cluster.LookupTopicConfig(d.name); ok {
		return nil
	}
	if msg := typeError(d.typ, v); msg != "" {
		return refuse(kerr.InvalidConfig, "Invalid value %s for configuration %s: %s", v, d.name, msg)
	}
	if lo, ok := topicBounds[d.name]; ok {
		if n, _ := strconv.ParseInt(cluster.JavaTrim(v), 10, 64); n < lo {
			return refuse(kerr.InvalidConfig, "Invalid value %s for configuration %s: Value must be at least %d", v, d.name, lo)
		}
	}
	return nil
}

// topicBounds are the lower bounds of Kafka 4.x's topic configs beyond
// ktopo's table (read from a real 4.4.0's refusals).
var topicBounds = map[string]int64{"max.decompressed.message.bytes": 1, "remote.copy.lag.ms": -1, "remote.copy.lag.bytes": -1}

// javaHashOrder is the order a java.util.HashMap (or Properties) of
// these strings iterates them in: by bucket of String.hashCode, spread,
// in a table grown as Java grows it; in a bucket, by name.
func javaHashOrder(keys []string) []string {
	size := 16
	for len(keys) > size*3/4 {
		size *= 2
	}
	bucket := func(k string) int {
		var h int32
		for _, r := range k {
			h = 31*h + int32(r)
		}
		u := uint32(h)
		return int((u ^ u>>16) & uint32(size-1))
	}
	out := slices.Clone(keys)
	slices.SortStableFunc(out, func(a, b string) int { return bucket(a) - bucket(b) })
	return out
}

// typeError is ConfigDef.parseType's refusal of a value ("" when it
// parses).
func typeError(typ kmsg.ConfigType, v string) string {
	t := cluster.JavaTrim(v)
	switch typ {
	case kmsg.ConfigTypeBoolean:
		if !strings.EqualFold(t, "true") && !strings.EqualFold(t, "false") {
			return "Expected value to be either true or false"
		}
	case kmsg.ConfigTypeInt:
		if _, err := strconv.ParseInt(t, 10, 32); err != nil {
			return "Not a number of type INT"
		}
	case kmsg.ConfigTypeShort:
		if _, err := strconv.ParseInt(t, 10, 16); err != nil {
			return "Not a number of type SHORT"
		}
	case kmsg.ConfigTypeLong:
		if _, err := strconv.ParseInt(t, 10, 64); err != nil {
			return "Not a number of type LONG"
		}
	case kmsg.ConfigTypeDouble:
		if _, err := strconv.ParseFloat(t, 64); err != nil {
			return "Not a number of type DOUBLE"
		}
	}
	return ""
}

// brokerBounds are the bounds of the broker configs the sandbox checks
// beyond their type.
var brokerBounds = map[string]int64{
	"min.insync.replicas": 1, "num.partitions": 1, "default.replication.factor": 1,
	cluster.ConfigLeaderThrottledRate: 0, cluster.ConfigFollowerThrottledRate: 0, cluster.ConfigLogDirsThrottledRate: 0,
}

// validateBrokerConfigs checks a broker's (b nil: the cluster default's)
// new dynamic configs as a 4.4.0 broker does before the controller
// stores them: read-only configs first, then each value.
func (c *Cluster) validateBrokerConfigs(b *broker, changed []string, cfg map[string]string) *apiError {
	var ro []string
	for _, k := range changed {
		if d, ok := lookupDef(brokerDefs, k); ok && d.readOnly {
			ro = append(ro, k)
		}
	}
	if len(ro) > 0 {
		return refuse(kerr.InvalidRequest, "Cannot update these configs dynamically: [%s]", strings.Join(ro, ", "))
	}
	if b == nil && slices.Contains(changed, cordonedLogDirs) {
		return refuse(kerr.InvalidRequest, "Cannot update these configs at default cluster level, broker id must be specified: [%s]", cordonedLogDirs)
	}
	for _, k := range changed {
		v, ok := cfg[k]
		if !ok {
			continue
		}
		typ, known := brokerDynamicDefs[k]
		if d, ok := lookupDef(brokerDefs, k); ok {
			typ, known = d.typ, true
		}
		if !known {
			continue // Kafka keeps a config it does not know
		}
		if msg := typeError(typ, v); msg != "" {
			return refuse(kerr.InvalidRequest, "Invalid value %s for configuration %s: %s", v, k, msg)
		}
		if lo, ok := brokerBounds[k]; ok {
			if n, _ := strconv.ParseInt(cluster.JavaTrim(v), 10, 64); n < lo {
				return refuse(kerr.InvalidRequest, "Invalid value %s for configuration %s: Value must be at least %d", v, k, lo)
			}
		}
		if k == cordonedLogDirs && b != nil {
			if err := checkCordonedDirs(b, v); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkCordonedDirs is the broker's check of cordoned.log.dirs: "*" or
// paths among its log.dirs.
func checkCordonedDirs(b *broker, v string) *apiError {
	list := splitList(v)
	if len(list) == 1 && list[0] == "*" {
		return nil
	}
	var missing []string
	for _, p := range list {
		if !slices.ContainsFunc(b.dirs, func(d logDir) bool { return d.path == p }) {
			missing = append(missing, p)
		}
	}
	if len(missing) > 0 {
		return refuse(kerr.InvalidRequest, "requirement failed: All entries in cordoned.log.dirs must be present in log.dirs or log.dir. Missing entries : %s", strings.Join(missing, ", "))
	}
	return nil
}

// splitList is a LIST config's items (ConfigDef: comma-separated,
// trimmed; empty: none).
func splitList(v string) []string {
	v = cluster.JavaTrim(v)
	if v == "" {
		return nil
	}
	var out []string
	for _, s := range strings.Split(v, ",") {
		out = append(out, cluster.JavaTrim(s))
	}
	return out
}

// applyCordons marks every broker's log directories cordoned as its
// cordoned.log.dirs says ("*": all; a per-broker config only), as the
// brokers report in their heartbeats (a real broker's next heartbeat, the
// sandbox's at once). c.mu is held.
func (c *Cluster) applyCordons() {
	if !c.cordonSupported() {
		return
	}
	for _, b := range c.brokers {
		list := splitList(c.brokerConfigs[strconv.Itoa(int(b.id))][cordonedLogDirs])
		all := len(list) == 1 && list[0] == "*"
		for i := range b.dirs {
			cordoned := all || slices.Contains(list, b.dirs[i].path)
			if b.dirs[i].cordoned != cordoned {
				b.dirs[i].cordoned = cordoned
				c.record()
			}
		}
	}
}

// incrementalAlterConfigs answers IncrementalAlterConfigs of topics and
// brokers: SET, DELETE, APPEND, SUBTRACT, validated as Kafka does.
func (c *Cluster) incrementalAlterConfigs(r *request) (kmsg.Response, error) {
	req := r.req.(*kmsg.IncrementalAlterConfigsRequest)
	resp := req.ResponseKind().(*kmsg.IncrementalAlterConfigsResponse)
	if !c.lockForWrite(r) {
		return nil, errClose
	}
	defer c.mu.Unlock()
	for _, rr := range req.Resources {
		out := kmsg.NewIncrementalAlterConfigsResponseResource()
		out.ResourceType, out.ResourceName = rr.ResourceType, rr.ResourceName
		var ops []configOp
		for _, cf := range rr.Configs {
			ops = append(ops, configOp{cf.Op, cf.Name, cf.Value})
		}
		if err := c.alterResource(r, rr.ResourceType, rr.ResourceName, ops, false, req.ValidateOnly); err != nil {
			out.ErrorCode, out.ErrorMessage = err.fields()
		}
		resp.Resources = append(resp.Resources, out)
	}
	return resp, nil
}

// alterConfigs answers AlterConfigs: each resource's dynamic configs
// replaced by the request's.
func (c *Cluster) alterConfigs(r *request) (kmsg.Response, error) {
	req := r.req.(*kmsg.AlterConfigsRequest)
	resp := req.ResponseKind().(*kmsg.AlterConfigsResponse)
	if !c.lockForWrite(r) {
		return nil, errClose
	}
	defer c.mu.Unlock()
	for _, rr := range req.Resources {
		out := kmsg.NewAlterConfigsResponseResource()
		out.ResourceType, out.ResourceName = rr.ResourceType, rr.ResourceName
		var ops []configOp
		for _, cf := range rr.Configs {
			ops = append(ops, configOp{kmsg.IncrementalAlterConfigOpSet, cf.Name, cf.Value})
		}
		if err := c.alterResource(r, rr.ResourceType, rr.ResourceName, ops, true, req.ValidateOnly); err != nil {
			out.ErrorCode, out.ErrorMessage = err.fields()
		}
		resp.Resources = append(resp.Resources, out)
	}
	return resp, nil
}

// configOp is one change of a config.
type configOp struct {
	op    kmsg.IncrementalAlterConfigOp
	name  string
	value *string
}

// alterResource checks and (unless validateOnly) applies one resource's
// changes; replace: the changes are the whole new set (AlterConfigs).
// c.mu is held.
func (c *Cluster) alterResource(r *request, typ kmsg.ConfigResourceType, name string, ops []configOp, replace, validateOnly bool) *apiError {
	seen := map[string]bool{}
	for _, op := range ops {
		if seen[op.name] {
			return refuse(kerr.InvalidRequest, "Error due to duplicate config keys")
		}
		seen[op.name] = true
	}
	switch typ {
	case kmsg.ConfigResourceTypeTopic:
		if name == "" {
			return refuse(kerr.InvalidRequest, "Default topic resources are not allowed.")
		}
		t := c.topics[name]
		if t == nil {
			return refuse(kerr.UnknownTopicOrPartition, "The topic '%s' does not exist.", name)
		}
		for _, op := range ops {
			if op.value == nil && op.op != kmsg.IncrementalAlterConfigOpDelete {
				return refuse(kerr.InvalidRequest, "Null value not supported for : %s", op.name)
			}
		}
		cfg, err := applyOps(t.configs, ops, replace, topicDefs, false)
		if err != nil {
			return err
		}
		if err := validateTopicConfigs(cfg); err != nil {
			return err
		}
		if !validateOnly {
			c.offset += int64(len(ops))
			old := t.configs
			t.configs = cfg
			c.logf("topic %s configs: %v", name, cfg)
			if old[cluster.ConfigMinInsyncReplicas] != cfg[cluster.ConfigMinInsyncReplicas] {
				c.minISRChanged(t)
			}
		}
		return nil
	case kmsg.ConfigResourceTypeBroker:
		if r.node.controller {
			if err := c.checkBrokerOnController(name, ops); err != nil {
				return err
			}
		}
		var b *broker
		if name != "" && !r.node.controller {
			id, err := strconv.Atoi(name)
			if err != nil {
				return refuse(kerr.InvalidRequest, "Node id must be an integer, but it is: %s", name)
			}
			if b = c.broker(int32(id)); b == nil {
				return refuse(kerr.InvalidRequest, "Unexpected broker id, expected %d or empty string, but received %d", r.node.id, id)
			}
		}
		for _, op := range ops {
			if op.value == nil && op.op != kmsg.IncrementalAlterConfigOpDelete && !r.node.controller {
				return refuse(kerr.InvalidRequest, "Null value not supported for : %s", op.name)
			}
		}
		// A broker checks its configs before it forwards them to the
		// controller; sent to a controller, they are the controller's
		// only (a read-only config is stored: only the broker refuses it).
		cfg, err := applyOps(c.brokerConfigs[name], ops, replace, brokerDefs, !r.node.controller)
		if err != nil {
			return err
		}
		var changed []string
		for _, op := range ops {
			changed = append(changed, op.name)
		}
		if r.node.controller {
			if err := checkControllerCordon(c.brokerConfigs[name], cfg, changed); err != nil {
				return err
			}
		} else if err := c.validateBrokerConfigs(b, changed, cfg); err != nil {
			return err
		}
		if !validateOnly {
			c.offset += int64(len(ops))
			old := c.brokerConfigs[name]
			c.brokerConfigs[name] = cfg
			if name == "" && old[cluster.ConfigMinInsyncReplicas] != cfg[cluster.ConfigMinInsyncReplicas] {
				for _, tn := range slices.Sorted(maps.Keys(c.topics)) {
					if t := c.topics[tn]; t.configs[cluster.ConfigMinInsyncReplicas] == "" {
						c.minISRChanged(t)
					}
				}
			}
			c.applyCordons()
			c.logf("broker %q dynamic configs: %v", name, cfg)
		}
		return nil
	}
	return refuse(kerr.InvalidRequest, "Unexpected resource type %s", typ)
}

// checkBrokerOnController is a controller's check of a broker resource
// a client sent it directly (--bootstrap-controller): a registered
// broker's id or "". c.mu is held.
func (c *Cluster) checkBrokerOnController(name string, ops []configOp) *apiError {
	if name == "" {
		return nil
	}
	id, err := strconv.ParseInt(name, 10, 32)
	if err != nil {
		return refuse(kerr.InvalidRequest, "Unable to parse broker name as a base 10 number.")
	}
	if b := c.broker(int32(id)); b == nil || !b.registered {
		return refuse(kerr.BrokerIDNotRegistered, "No node with id %d found.", id)
	}
	return nil
}

// checkControllerCordon is a controller's rule for cordoned.log.dirs
// sent to it directly: it may only shrink (uncordon), never grow.
func checkControllerCordon(cur, cfg map[string]string, changed []string) *apiError {
	if !slices.Contains(changed, cordonedLogDirs) {
		return nil
	}
	old := splitList(cur[cordonedLogDirs])
	if slices.Equal(old, []string{"*"}) {
		return nil
	}
	for _, d := range splitList(cfg[cordonedLogDirs]) {
		if !slices.Contains(old, d) {
			return refuse(kerr.InvalidConfig, "When updating cordoned.log.dirs via controllers,  the new value must be a subset of the current configuration value.")
		}
	}
	return nil
}

// applyOps is a resource's dynamic configs after ops (replace: only
// ops' SETs remain; a SET of no value, which only a controller takes,
// deletes); broker: with a broker's own refusals of APPEND and SUBTRACT.
func applyOps(cur map[string]string, ops []configOp, replace bool, defs []configDef, broker bool) (map[string]string, *apiError) {
	cfg := maps.Clone(cur)
	if cfg == nil || replace {
		cfg = map[string]string{}
	}
	for _, op := range ops {
		switch op.op {
		case kmsg.IncrementalAlterConfigOpSet:
			if op.value == nil {
				delete(cfg, op.name)
				continue
			}
			cfg[op.name] = *op.value
		case kmsg.IncrementalAlterConfigOpDelete:
			delete(cfg, op.name)
		case kmsg.IncrementalAlterConfigOpAppend, kmsg.IncrementalAlterConfigOpSubtract:
			verb := "APPEND"
			if op.op == kmsg.IncrementalAlterConfigOpSubtract {
				verb = "SUBTRACT"
			}
			d, ok := lookupDef(defs, op.name)
			switch {
			case broker && !ok:
				// A broker checks the operation before the controller.
				return nil, refuse(kerr.InvalidConfig, "Unknown config name: %s", op.name)
			case broker && d.typ != kmsg.ConfigTypeList:
				return nil, refuse(kerr.InvalidConfig, "Config value %s is not allowed for config key: %s", strings.ToLower(verb), op.name)
			case !ok || d.typ != kmsg.ConfigTypeList:
				return nil, refuse(kerr.InvalidConfig, "Can't %s to key %s because its type is not LIST.", verb, op.name)
			}
			v, ok := cfg[op.name]
			if !ok && d.def != nil {
				v = *d.def
			}
			items := splitList(v)
			for _, it := range splitList(*op.value) {
				if op.op == kmsg.IncrementalAlterConfigOpAppend {
					if !slices.Contains(items, it) {
						items = append(items, it)
					}
				} else {
					items = slices.DeleteFunc(items, func(s string) bool { return s == it })
				}
			}
			cfg[op.name] = strings.Join(items, ",")
		default:
			return nil, refuse(kerr.InvalidRequest, "Unknown alter configs operation %d", op.op)
		}
	}
	return cfg, nil
}

// minISRChanged re-evaluates the eligible leader replicas of a topic
// whose min.insync.replicas changed, as the controller does on such a
// config change (KIP-966: an ISR now at min.insync.replicas clears its
// ELR). c.mu is held.
func (c *Cluster) minISRChanged(t *topic) {
	for _, p := range t.parts {
		c.change(t, p, p.isr, electAny)
	}
}

// throttleRate is a broker's leader (or follower) replication throttle
// in bytes/s: its own dynamic config, else the cluster default's; ok
// false when none is set. c.mu is held.
func (c *Cluster) throttleRate(broker int32, leader bool) (bytesPerSec float64, ok bool) {
	name := cluster.ConfigFollowerThrottledRate
	if leader {
		name = cluster.ConfigLeaderThrottledRate
	}
	v, set := c.brokerConfigs[strconv.Itoa(int(broker))][name]
	if !set {
		v, set = c.brokerConfigs[""][name]
	}
	if !set {
		return 0, false
	}
	n, err := strconv.ParseInt(cluster.JavaTrim(v), 10, 64)
	if err != nil {
		return 0, false
	}
	return float64(n), true
}

// throttled says whether the replica of a topic's partition on broker
// is throttled as a leader's (leader.replication.throttled.replicas) or
// a follower's (follower.replication.throttled.replicas): "*" or an
// entry partition:broker. c.mu is held.
func (c *Cluster) throttled(t *topic, partition int, broker int32, leader bool) bool {
	name := cluster.ConfigFollowerThrottledReplicas
	if leader {
		name = cluster.ConfigLeaderThrottledReplicas
	}
	list := splitList(t.configs[name])
	if len(list) == 1 && list[0] == "*" {
		return true
	}
	return slices.Contains(list, fmt.Sprintf("%d:%d", partition, broker))
}
