package kraftsandbox

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// The administration table: requests of topic and config administration,
// in order (each may depend on the steps before), with Kafka 4.4's
// answers as a real 4.4.0 cluster of 3 brokers (ids 1-3, racks
// rack-a..c, every broker config at its default but auto.create.topics)
// gives them. TestAdminTable sends them to the sandbox;
// TestRealKafkaAdminTable to real Kafka and the sandbox side by side.
// Topics are prefixed admin- (the shared real cluster's other users keep
// theirs); broker configs are only validated (validateOnly), never set, on
// the real cluster.

// adminStep is one request and its answer, summarized (adminEnv.summary).
type adminStep struct {
	name string
	do   func(e *adminEnv) string
	want string
}

// adminEnv is the cluster a table runs on.
type adminEnv struct {
	ctx context.Context
	cl  *kgo.Client
	// settle, on real Kafka, is the step's expected answer: its brokers
	// learn a change from the metadata log a moment after the controller
	// answered, so a read after a change is retried until it shows what
	// the answer expects (or a while has passed).
	settle string
	// seed sends every request to the first seed (a controller's
	// listener, which franz-go cannot route to).
	seed bool
}

func (e *adminEnv) send(req kmsg.Request) kmsg.Response {
	if e.seed {
		resp, err := e.cl.Broker(math.MinInt32).Request(e.ctx, req)
		if err != nil {
			return nil
		}
		return resp
	}
	resp, err := e.cl.Request(e.ctx, req)
	if err != nil {
		return nil
	}
	return resp
}

// topicID is a topic's id from Metadata (zero when unknown).
func (e *adminEnv) topicID(name string) [16]byte {
	req := kmsg.NewPtrMetadataRequest()
	rt := kmsg.NewMetadataRequestTopic()
	rt.Topic = &name
	req.Topics = append(req.Topics, rt)
	resp, err := req.RequestWith(e.ctx, e.cl)
	if err != nil || len(resp.Topics) == 0 {
		return [16]byte{}
	}
	return resp.Topics[0].TopicID
}

// partitions is a topic's partition count and replication factor as
// Metadata shows them ("-" when unknown).
func (e *adminEnv) partitions(name string) string {
	_, want, _ := strings.Cut(e.settle, "; then ")
	got := e.readPartitions(name)
	for i := 0; want != "" && got != want && i < 50; i++ {
		time.Sleep(200 * time.Millisecond)
		got = e.readPartitions(name)
	}
	return got
}

func (e *adminEnv) readPartitions(name string) string {
	req := kmsg.NewPtrMetadataRequest()
	rt := kmsg.NewMetadataRequestTopic()
	rt.Topic = &name
	req.Topics = append(req.Topics, rt)
	resp, err := req.RequestWith(e.ctx, e.cl)
	if err != nil || len(resp.Topics) == 0 || resp.Topics[0].ErrorCode != 0 {
		return "-"
	}
	ps := resp.Topics[0].Partitions
	return fmt.Sprintf("%dx%d", len(ps), len(ps[0].Replicas))
}

func codeMsg(code int16, msg *string) string {
	if code == 0 {
		return "ok"
	}
	name := fmt.Sprint(code)
	var ke *kerr.Error
	if errors.As(kerr.ErrorForCode(code), &ke) {
		name = ke.Message
	}
	if msg == nil {
		return name + " <nil>"
	}
	return name + " " + *msg
}

// createTopic is a CreateTopics of one topic (v7): partitions and
// replication factor, or assignment (partition → replicas, in order),
// and configs "k=v" (k alone: a null value).
func createTopic(name string, partitions int32, rf int16, assignment [][]int32, validateOnly bool, configs ...string) func(e *adminEnv) string {
	return func(e *adminEnv) string {
		req := kmsg.NewPtrCreateTopicsRequest()
		req.TimeoutMillis, req.ValidateOnly = 30000, validateOnly
		t := kmsg.NewCreateTopicsRequestTopic()
		t.Topic, t.NumPartitions, t.ReplicationFactor = name, partitions, rf
		for i, rs := range assignment {
			a := kmsg.NewCreateTopicsRequestTopicReplicaAssignment()
			a.Partition, a.Replicas = int32(i), rs
			if rs == nil {
				continue
			}
			t.ReplicaAssignment = append(t.ReplicaAssignment, a)
		}
		for _, kv := range configs {
			c := kmsg.NewCreateTopicsRequestTopicConfig()
			k, v, ok := strings.Cut(kv, "=")
			c.Name = k
			if ok {
				c.Value = &v
			}
			t.Configs = append(t.Configs, c)
		}
		req.Topics = append(req.Topics, t)
		resp, _ := e.send(req).(*kmsg.CreateTopicsResponse)
		if resp == nil {
			return "no answer"
		}
		var out []string
		for _, rt := range resp.Topics {
			s := codeMsg(rt.ErrorCode, rt.ErrorMessage)
			if rt.ErrorCode == 0 {
				s += fmt.Sprintf(" %dx%d id=%v", rt.NumPartitions, rt.ReplicationFactor, rt.TopicID != [16]byte{})
				var cs []string
				for _, c := range rt.Configs {
					if kmsg.ConfigSource(c.Source) != kmsg.ConfigSourceDefaultConfig {
						v := "<nil>"
						if c.Value != nil {
							v = *c.Value
						}
						cs = append(cs, c.Name+"="+v+"("+kmsg.ConfigSource(c.Source).String()+")")
					}
				}
				slices.Sort(cs)
				s += fmt.Sprintf(" configs=%d %s", len(rt.Configs), strings.Join(cs, ","))
			}
			out = append(out, s)
		}
		out = append(out, "then "+e.partitions(name))
		return strings.Join(out, "; ")
	}
}

// createPartitions grows topic to count partitions (assignment nil: the
// controller places them).
func createPartitions(topic string, count int32, assignment [][]int32, validateOnly bool) func(e *adminEnv) string {
	return func(e *adminEnv) string {
		req := kmsg.NewPtrCreatePartitionsRequest()
		req.TimeoutMillis, req.ValidateOnly = 30000, validateOnly
		t := kmsg.NewCreatePartitionsRequestTopic()
		t.Topic, t.Count = topic, count
		for _, rs := range assignment {
			a := kmsg.NewCreatePartitionsRequestTopicAssignment()
			a.Replicas = rs
			t.Assignment = append(t.Assignment, a)
		}
		req.Topics = append(req.Topics, t)
		resp, _ := e.send(req).(*kmsg.CreatePartitionsResponse)
		if resp == nil {
			return "no answer"
		}
		return codeMsg(resp.Topics[0].ErrorCode, resp.Topics[0].ErrorMessage) + "; then " + e.partitions(topic)
	}
}

// deleteTopic deletes a topic by name, or by its id (byID; unknownID: an
// id no topic has).
func deleteTopic(topic string, byID, unknownID bool) func(e *adminEnv) string {
	return func(e *adminEnv) string {
		req := kmsg.NewPtrDeleteTopicsRequest()
		req.TimeoutMillis = 30000
		t := kmsg.NewDeleteTopicsRequestTopic()
		switch {
		case unknownID:
			t.TopicID = [16]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}
		case byID:
			t.TopicID = e.topicID(topic)
		default:
			t.Topic = &topic
		}
		req.Topics = append(req.Topics, t)
		resp, _ := e.send(req).(*kmsg.DeleteTopicsResponse)
		if resp == nil {
			return "no answer"
		}
		rt := resp.Topics[0]
		name := "<nil>"
		if rt.Topic != nil {
			name = *rt.Topic
		}
		return name + " " + codeMsg(rt.ErrorCode, rt.ErrorMessage) + "; then " + e.partitions(topic)
	}
}

// configOp is one IncrementalAlterConfigs change: "SET k=v", "DELETE k",
// "APPEND k=v", "SUBTRACT k=v", "SET k" (a null value).
func configOps(ops []string) []kmsg.IncrementalAlterConfigsRequestResourceConfig {
	var out []kmsg.IncrementalAlterConfigsRequestResourceConfig
	for _, op := range ops {
		verb, kv, _ := strings.Cut(op, " ")
		c := kmsg.NewIncrementalAlterConfigsRequestResourceConfig()
		c.Op, _ = kmsg.ParseIncrementalAlterConfigOp(verb)
		k, v, ok := strings.Cut(kv, "=")
		c.Name = k
		if ok {
			c.Value = &v
		}
		out = append(out, c)
	}
	return out
}

// incAlter is IncrementalAlterConfigs of one resource (typ "topic" or
// "broker").
func incAlter(typ, name string, validateOnly bool, ops ...string) func(e *adminEnv) string {
	return func(e *adminEnv) string {
		req := kmsg.NewPtrIncrementalAlterConfigsRequest()
		req.ValidateOnly = validateOnly
		r := kmsg.NewIncrementalAlterConfigsRequestResource()
		r.ResourceType, r.ResourceName = resourceType(typ), name
		r.Configs = configOps(ops)
		req.Resources = append(req.Resources, r)
		resp, _ := e.send(req).(*kmsg.IncrementalAlterConfigsResponse)
		if resp == nil {
			return "no answer"
		}
		return codeMsg(resp.Resources[0].ErrorCode, resp.Resources[0].ErrorMessage)
	}
}

// legacyAlter is AlterConfigs of one resource: its whole set of dynamic
// configs "k=v".
func legacyAlter(typ, name string, validateOnly bool, kvs ...string) func(e *adminEnv) string {
	return func(e *adminEnv) string {
		req := kmsg.NewPtrAlterConfigsRequest()
		req.ValidateOnly = validateOnly
		r := kmsg.NewAlterConfigsRequestResource()
		r.ResourceType, r.ResourceName = resourceType(typ), name
		for _, kv := range kvs {
			c := kmsg.NewAlterConfigsRequestResourceConfig()
			k, v, ok := strings.Cut(kv, "=")
			c.Name = k
			if ok {
				c.Value = &v
			}
			r.Configs = append(r.Configs, c)
		}
		req.Resources = append(req.Resources, r)
		resp, _ := e.send(req).(*kmsg.AlterConfigsResponse)
		if resp == nil {
			return "no answer"
		}
		return codeMsg(resp.Resources[0].ErrorCode, resp.Resources[0].ErrorMessage)
	}
}

func resourceType(typ string) kmsg.ConfigResourceType {
	if typ == "broker" {
		return kmsg.ConfigResourceTypeBroker
	}
	return kmsg.ConfigResourceTypeTopic
}

// describe is DescribeConfigs of one resource: its error, and the
// configs named (all that are not DEFAULT_CONFIG when none are) as
// name=value(source,ro,type) [synonyms].
func describe(typ, name string, keys ...string) func(e *adminEnv) string {
	return func(e *adminEnv) string {
		req := kmsg.NewPtrDescribeConfigsRequest()
		req.IncludeSynonyms = true
		r := kmsg.NewDescribeConfigsRequestResource()
		r.ResourceType, r.ResourceName = resourceType(typ), name
		req.Resources = append(req.Resources, r)
		resp, _ := e.send(req).(*kmsg.DescribeConfigsResponse)
		if resp == nil {
			return "no answer"
		}
		rr := resp.Resources[0]
		out := codeMsg(rr.ErrorCode, rr.ErrorMessage)
		var cs []string
		for _, c := range rr.Configs {
			if len(keys) > 0 && !slices.Contains(keys, c.Name) || len(keys) == 0 && c.Source == kmsg.ConfigSourceDefaultConfig {
				continue
			}
			cs = append(cs, configString(c))
		}
		slices.Sort(cs)
		if len(cs) > 0 {
			out += " " + strings.Join(cs, " ")
		}
		return out
	}
}

func configString(c kmsg.DescribeConfigsResponseResourceConfig) string {
	v := "<nil>"
	if c.Value != nil {
		v = *c.Value
	}
	s := fmt.Sprintf("%s=%s(%s,%v,%s)", c.Name, v, c.Source, c.ReadOnly, c.ConfigType)
	var syn []string
	for _, sy := range c.ConfigSynonyms {
		sv := "<nil>"
		if sy.Value != nil {
			sv = *sy.Value
		}
		syn = append(syn, sy.Name+"="+sv+"("+sy.Source.String()+")")
	}
	return s + "[" + strings.Join(syn, ",") + "]"
}

func multiCreate(names ...string) func(e *adminEnv) string {
	return func(e *adminEnv) string {
		req := kmsg.NewPtrCreateTopicsRequest()
		req.ValidateOnly = true
		for _, n := range names {
			t := kmsg.NewCreateTopicsRequestTopic()
			t.Topic, t.NumPartitions, t.ReplicationFactor = n, 1, 1
			req.Topics = append(req.Topics, t)
		}
		resp, _ := e.send(req).(*kmsg.CreateTopicsResponse)
		if resp == nil {
			return "no answer"
		}
		out := ""
		for _, t := range resp.Topics {
			out += fmt.Sprintf("[%s %s]", t.Topic, codeMsg(t.ErrorCode, t.ErrorMessage))
		}
		return out
	}
}

func multiGrow(names ...string) func(e *adminEnv) string {
	return func(e *adminEnv) string {
		req := kmsg.NewPtrCreatePartitionsRequest()
		req.ValidateOnly = true
		for _, n := range names {
			t := kmsg.NewCreatePartitionsRequestTopic()
			t.Topic, t.Count = n, 5
			req.Topics = append(req.Topics, t)
		}
		resp, _ := e.send(req).(*kmsg.CreatePartitionsResponse)
		if resp == nil {
			return "no answer"
		}
		out := ""
		for _, t := range resp.Topics {
			out += fmt.Sprintf("[%s %s]", t.Topic, codeMsg(t.ErrorCode, t.ErrorMessage))
		}
		return out
	}
}

func multiDelete(byBoth bool, names ...string) func(e *adminEnv) string {
	return func(e *adminEnv) string {
		req := kmsg.NewPtrDeleteTopicsRequest()
		for _, n := range names {
			t := kmsg.NewDeleteTopicsRequestTopic()
			n := n
			t.Topic = &n
			if byBoth {
				t.TopicID = e.topicID(n)
			}
			req.Topics = append(req.Topics, t)
		}
		resp, _ := e.send(req).(*kmsg.DeleteTopicsResponse)
		if resp == nil {
			return "no answer"
		}
		out := ""
		for _, t := range resp.Topics {
			n := "<nil>"
			if t.Topic != nil {
				n = *t.Topic
			}
			out += fmt.Sprintf("[%s %v %s]", n, t.TopicID != [16]byte{}, codeMsg(t.ErrorCode, t.ErrorMessage))
		}
		return out
	}
}

// adminTable is the table (see above).
func adminTable() []adminStep {
	const t1, t2 = "admin-t1", "admin-t2"
	long := strings.Repeat("a", 250)
	return []adminStep{
		{"create placed", createTopic(t1, 3, 2, nil, false), "ok 3x2 id=true configs=37 min.insync.replicas=1(DYNAMIC_DEFAULT_BROKER_CONFIG); then 3x2"},
		{"create existing", createTopic(t1, 3, 2, nil, false), "TOPIC_ALREADY_EXISTS Topic 'admin-t1' already exists.; then 3x2"},
		{"create existing validate only", createTopic(t1, 3, 2, nil, true), "TOPIC_ALREADY_EXISTS Topic 'admin-t1' already exists.; then 3x2"},
		{"create invalid name", createTopic("admin t", 1, 1, nil, false), "INVALID_TOPIC_EXCEPTION Topic name is invalid: 'admin t' contains one or more characters other than ASCII alphanumerics, '.', '_' and '-'; then -"},
		{"create name .", createTopic(".", 1, 1, nil, false), "INVALID_TOPIC_EXCEPTION Topic name is invalid: '.' is not allowed; then -"},
		{"create name ..", createTopic("..", 1, 1, nil, false), "INVALID_TOPIC_EXCEPTION Topic name is invalid: '..' is not allowed; then -"},
		{"create empty name", createTopic("", 1, 1, nil, false), "INVALID_TOPIC_EXCEPTION Topic name is invalid: the empty string is not allowed; then -"},
		{"create long name", createTopic(long, 1, 1, nil, false), "INVALID_TOPIC_EXCEPTION Topic name is invalid: the length of 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa' is longer than the max allowed length 249; then -"},
		{"create dotted", createTopic("admin.dot", 1, 1, nil, false), "ok 1x1 id=true configs=37 min.insync.replicas=1(DYNAMIC_DEFAULT_BROKER_CONFIG); then 1x1"},
		{"create colliding", createTopic("admin_dot", 1, 1, nil, false), "INVALID_TOPIC_EXCEPTION Topic 'admin_dot' collides with existing topic: admin.dot; then -"},
		{"create colliding validate only", createTopic("admin_dot", 1, 1, nil, true), "INVALID_TOPIC_EXCEPTION Topic 'admin_dot' collides with existing topic: admin.dot; then -"},
		{"create rf too big", createTopic(t2, 1, 4, nil, false), "INVALID_REPLICATION_FACTOR Unable to replicate the partition 4 time(s): The target replication factor of 4 cannot be reached because only 3 broker(s) are registered or some brokers have all their log directories cordoned.; then -"},
		{"create rf 0", createTopic(t2, 1, 0, nil, false), "INVALID_REPLICATION_FACTOR Replication factor must be larger than 0, or -1 to use the default value.; then -"},
		{"create rf -2", createTopic(t2, 1, -2, nil, false), "INVALID_REPLICATION_FACTOR Replication factor must be larger than 0, or -1 to use the default value.; then -"},
		{"create partitions 0", createTopic(t2, 0, 1, nil, false), "INVALID_PARTITIONS Number of partitions was set to an invalid non-positive value.; then -"},
		{"create partitions -2", createTopic(t2, -2, 1, nil, false), "INVALID_PARTITIONS Number of partitions was set to an invalid non-positive value.; then -"},
		{"create defaults validate only", createTopic(t2, -1, -1, nil, true, "retention.ms=1000"), "ok 1x1 id=true configs=37 min.insync.replicas=1(DYNAMIC_DEFAULT_BROKER_CONFIG),retention.ms=1000(DYNAMIC_TOPIC_CONFIG); then -"},
		{"create with configs validate only", createTopic(t2, 2, 1, nil, true, "retention.ms=1000", "cleanup.policy=compact,delete"), "ok 2x1 id=true configs=37 cleanup.policy=compact,delete(DYNAMIC_TOPIC_CONFIG),min.insync.replicas=1(DYNAMIC_DEFAULT_BROKER_CONFIG),retention.ms=1000(DYNAMIC_TOPIC_CONFIG); then -"},
		{"create unknown config", createTopic(t2, 1, 1, nil, false, "retention.mss=1"), "INVALID_CONFIG Unknown topic config name: retention.mss; then -"},
		{"create removed config", createTopic(t2, 1, 1, nil, false, "message.format.version=3.0"), "INVALID_CONFIG Unknown topic config name: message.format.version; then -"},
		{"create bad value", createTopic(t2, 1, 1, nil, false, "retention.ms=soon"), "INVALID_CONFIG Invalid value soon for configuration retention.ms: Not a number of type LONG; then -"},
		{"create small segment", createTopic(t2, 1, 1, nil, false, "segment.bytes=1000"), "INVALID_CONFIG Invalid value 1000 for configuration segment.bytes: Value must be at least 1048576; then -"},
		{"create two bad values", createTopic(t2, 1, 1, nil, false, "segment.ms=0", "retention.ms=x", "segment.bytes=y"), "INVALID_CONFIG Invalid value y for configuration segment.bytes: Not a number of type INT; then -"},
		{"create two unknown", createTopic(t2, 1, 1, nil, false, "zz.b=1", "aa.a=2"), "INVALID_CONFIG Unknown topic config name: zz.b; then -"},
		{"create 4.4 config", createTopic(t2, 1, 1, nil, true, "remote.copy.lag.ms=x"), "INVALID_CONFIG Invalid value x for configuration remote.copy.lag.ms: Not a number of type LONG; then -"},
		{"create 4.4 config ok", createTopic(t2, 1, 1, nil, true, "max.decompressed.message.bytes=-5", "errors.deadletterqueue.group.enable=true"), "INVALID_CONFIG Invalid value -5 for configuration max.decompressed.message.bytes: Value must be at least 1; then -"},
		{"create two unknown reversed", createTopic(t2, 1, 1, nil, false, "aa.a=2", "zz.b=1"), "INVALID_CONFIG Unknown topic config name: zz.b; then -"},
		{"create lag ms", createTopic(t2, 1, 1, nil, true, "remote.copy.lag.ms=-5"), "INVALID_CONFIG Invalid value -5 for configuration remote.copy.lag.ms: Value must be at least -1; then -"},
		{"create lag bytes", createTopic(t2, 1, 1, nil, true, "remote.copy.lag.bytes=-5"), "INVALID_CONFIG Invalid value -5 for configuration remote.copy.lag.bytes: Value must be at least -1; then -"},
		{"create lag ok", createTopic(t2, 1, 1, nil, true, "remote.copy.lag.bytes=-1", "remote.copy.lag.ms=0", "max.decompressed.message.bytes=1", "errors.deadletterqueue.group.enable=true"), "ok 1x1 id=true configs=37 errors.deadletterqueue.group.enable=true(DYNAMIC_TOPIC_CONFIG),max.decompressed.message.bytes=1(DYNAMIC_TOPIC_CONFIG),min.insync.replicas=1(DYNAMIC_DEFAULT_BROKER_CONFIG),remote.copy.lag.bytes=-1(DYNAMIC_TOPIC_CONFIG),remote.copy.lag.ms=0(DYNAMIC_TOPIC_CONFIG); then -"},
		{"create dlq bad", createTopic(t2, 1, 1, nil, true, "errors.deadletterqueue.group.enable=yes"), "INVALID_CONFIG Invalid value yes for configuration errors.deadletterqueue.group.enable: Expected value to be either true or false; then -"},
		{"create null value", createTopic(t2, 1, 1, nil, false, "retention.ms"), "INVALID_CONFIG Null value not supported for topic configs: retention.ms; then -"},
		{"create bad policy", createTopic(t2, 1, 1, nil, false, "cleanup.policy=keep"), "INVALID_CONFIG Invalid value keep for configuration cleanup.policy: String must be one of: compact, delete; then -"},
		{"create compaction lags", createTopic(t2, 1, 1, nil, false, "min.compaction.lag.ms=10", "max.compaction.lag.ms=5"), "INVALID_CONFIG conflict topic config setting min.compaction.lag.ms (10) > max.compaction.lag.ms (5); then -"},
		{"create min isr too big", createTopic(t2, 1, 1, nil, false, "min.insync.replicas=0"), "INVALID_CONFIG Invalid value 0 for configuration min.insync.replicas: Value must be at least 1; then -"},
		{"manual with rf", createTopic(t2, -1, 2, [][]int32{{1, 2}}, false), "INVALID_REQUEST A manual partition assignment was specified, but replication factor was not set to -1.; then -"},
		{"manual with partitions", createTopic(t2, 1, -1, [][]int32{{1, 2}}, false), "INVALID_REQUEST A manual partition assignment was specified, but numPartitions was not set to -1.; then -"},
		{"manual unknown broker", createTopic(t2, -1, -1, [][]int32{{1, 9}}, false), "INVALID_REPLICA_ASSIGNMENT The manual partition assignment includes broker 9, but no such broker is registered.; then -"},
		{"manual broker twice", createTopic(t2, -1, -1, [][]int32{{2, 2}}, false), "INVALID_REPLICA_ASSIGNMENT The manual partition assignment includes the broker 2 more than once.; then -"},
		{"manual rfs differ", createTopic(t2, -1, -1, [][]int32{{1, 2}, {3}}, false), "INVALID_REPLICA_ASSIGNMENT The manual partition assignment includes a partition with 1 replica(s), but this is not consistent with previous partitions, which have 2 replica(s).; then -"},
		{"manual gap", createTopic(t2, -1, -1, [][]int32{{1, 2}, nil, {2, 3}}, false), "INVALID_REPLICA_ASSIGNMENT partitions should be a consecutive 0-based integer sequence; then -"},
		{"manual empty", createTopic(t2, -1, -1, [][]int32{{}}, false), "INVALID_REPLICA_ASSIGNMENT The manual partition assignment includes an empty replica list.; then -"},
		{"manual", createTopic(t2, -1, -1, [][]int32{{1, 2}, {2, 3}}, false, "retention.ms=1000"), "ok 2x2 id=true configs=37 min.insync.replicas=1(DYNAMIC_DEFAULT_BROKER_CONFIG),retention.ms=1000(DYNAMIC_TOPIC_CONFIG); then 2x2"},

		{"partitions fewer", createPartitions(t1, 2, nil, false), "INVALID_PARTITIONS The topic admin-t1 currently has 3 partition(s); 2 would not be an increase.; then 3x2"},
		{"partitions same", createPartitions(t1, 3, nil, false), "INVALID_PARTITIONS Topic already has 3 partition(s).; then 3x2"},
		{"partitions unknown topic", createPartitions("admin-zz", 4, nil, false), "UNKNOWN_TOPIC_OR_PARTITION <nil>; then -"},
		{"partitions validate only", createPartitions(t1, 5, nil, true), "ok; then 3x2"},
		{"partitions placed", createPartitions(t1, 5, nil, false), "ok; then 5x2"},
		{"partitions too few assignments", createPartitions(t1, 7, [][]int32{{1, 2}}, false), "INVALID_REPLICA_ASSIGNMENT Attempted to add 2 additional partition(s), but only 1 assignment(s) were specified.; then 5x2"},
		{"partitions too many assignments", createPartitions(t1, 6, [][]int32{{1, 2}, {2, 3}}, false), "INVALID_REPLICA_ASSIGNMENT Attempted to add 1 additional partition(s), but only 2 assignment(s) were specified.; then 5x2"},
		{"partitions unknown broker", createPartitions(t1, 6, [][]int32{{1, 9}}, false), "INVALID_REPLICA_ASSIGNMENT The manual partition assignment includes broker 9, but no such broker is registered.; then 5x2"},
		{"partitions other rf", createPartitions(t1, 6, [][]int32{{1}}, false), "INVALID_REPLICA_ASSIGNMENT The manual partition assignment includes a partition with 1 replica(s), but this is not consistent with previous partitions, which have 2 replica(s).; then 5x2"},
		{"partitions broker twice", createPartitions(t1, 6, [][]int32{{3, 3}}, false), "INVALID_REPLICA_ASSIGNMENT The manual partition assignment includes the broker 3 more than once.; then 5x2"},
		{"partitions empty", createPartitions(t1, 6, [][]int32{{}}, false), "INVALID_REPLICA_ASSIGNMENT The manual partition assignment includes an empty replica list.; then 5x2"},
		{"partitions manual", createPartitions(t1, 6, [][]int32{{3, 1}}, false), "ok; then 6x2"},
		{"partitions rf too big", createPartitions(t2, 3, nil, false), "ok; then 3x2"},

		{"describe topic", describe("topic", t2), "ok min.insync.replicas=1(DYNAMIC_DEFAULT_BROKER_CONFIG,false,INT)[min.insync.replicas=1(DYNAMIC_DEFAULT_BROKER_CONFIG),min.insync.replicas=1(DEFAULT_CONFIG)] retention.ms=1000(DYNAMIC_TOPIC_CONFIG,false,LONG)[retention.ms=1000(DYNAMIC_TOPIC_CONFIG)]"},
		{"describe topic keys", describe("topic", t1, "min.insync.replicas", "cleanup.policy", "retention.ms", "segment.bytes", "max.message.bytes", "message.timestamp.after.max.ms"), "ok cleanup.policy=delete(DEFAULT_CONFIG,false,LIST)[log.cleanup.policy=delete(DEFAULT_CONFIG)] max.message.bytes=1048588(DEFAULT_CONFIG,false,INT)[message.max.bytes=1048588(DEFAULT_CONFIG)] message.timestamp.after.max.ms=3600000(DEFAULT_CONFIG,false,LONG)[log.message.timestamp.after.max.ms=3600000(DEFAULT_CONFIG)] min.insync.replicas=1(DYNAMIC_DEFAULT_BROKER_CONFIG,false,INT)[min.insync.replicas=1(DYNAMIC_DEFAULT_BROKER_CONFIG),min.insync.replicas=1(DEFAULT_CONFIG)] retention.ms=604800000(DEFAULT_CONFIG,false,LONG)[] segment.bytes=1073741824(DEFAULT_CONFIG,false,INT)[log.segment.bytes=1073741824(DEFAULT_CONFIG)]"},
		{"describe unknown topic", describe("topic", "admin-zz"), "UNKNOWN_TOPIC_OR_PARTITION "},
		{"describe broker", describe("broker", "1", "min.insync.replicas", "num.partitions", "default.replication.factor", "unclean.leader.election.enable", "cordoned.log.dirs", "leader.replication.throttled.rate", "broker.rack", "log.retention.hours", "message.max.bytes"), "ok broker.rack=rack-a(STATIC_BROKER_CONFIG,true,STRING)[broker.rack=rack-a(STATIC_BROKER_CONFIG)] cordoned.log.dirs=(DEFAULT_CONFIG,false,LIST)[cordoned.log.dirs=(DEFAULT_CONFIG)] default.replication.factor=1(DEFAULT_CONFIG,true,INT)[default.replication.factor=1(DEFAULT_CONFIG)] log.retention.hours=168(DEFAULT_CONFIG,true,INT)[log.retention.hours=168(DEFAULT_CONFIG)] message.max.bytes=1048588(DEFAULT_CONFIG,false,INT)[message.max.bytes=1048588(DEFAULT_CONFIG)] min.insync.replicas=1(DYNAMIC_DEFAULT_BROKER_CONFIG,false,INT)[min.insync.replicas=1(DYNAMIC_DEFAULT_BROKER_CONFIG),min.insync.replicas=1(DEFAULT_CONFIG)] num.partitions=1(DEFAULT_CONFIG,true,INT)[num.partitions=1(DEFAULT_CONFIG)] unclean.leader.election.enable=false(DEFAULT_CONFIG,false,BOOLEAN)[unclean.leader.election.enable=false(DEFAULT_CONFIG)]"},
		{"describe broker default", describe("broker", ""), "ok min.insync.replicas=1(DYNAMIC_DEFAULT_BROKER_CONFIG,false,INT)[min.insync.replicas=1(DYNAMIC_DEFAULT_BROKER_CONFIG)]"},
		{"describe unknown broker", describe("broker", "9"), "no answer"},
		{"describe bad broker", describe("broker", "x"), "INVALID_REQUEST Broker id must be an integer, but it is: x"},

		{"set topic config", incAlter("topic", t1, false, "SET retention.ms=3600000", "SET cleanup.policy=compact"), "ok"},
		{"describe set", describe("topic", t1), "ok cleanup.policy=compact(DYNAMIC_TOPIC_CONFIG,false,LIST)[cleanup.policy=compact(DYNAMIC_TOPIC_CONFIG),log.cleanup.policy=delete(DEFAULT_CONFIG)] min.insync.replicas=1(DYNAMIC_DEFAULT_BROKER_CONFIG,false,INT)[min.insync.replicas=1(DYNAMIC_DEFAULT_BROKER_CONFIG),min.insync.replicas=1(DEFAULT_CONFIG)] retention.ms=3600000(DYNAMIC_TOPIC_CONFIG,false,LONG)[retention.ms=3600000(DYNAMIC_TOPIC_CONFIG)]"},
		{"append", incAlter("topic", t1, false, "APPEND cleanup.policy=delete"), "ok"},
		{"append again", incAlter("topic", t1, false, "APPEND cleanup.policy=delete"), "ok"},
		{"describe appended", describe("topic", t1, "cleanup.policy"), "ok cleanup.policy=compact,delete(DYNAMIC_TOPIC_CONFIG,false,LIST)[cleanup.policy=compact,delete(DYNAMIC_TOPIC_CONFIG),log.cleanup.policy=delete(DEFAULT_CONFIG)]"},
		{"subtract", incAlter("topic", t1, false, "SUBTRACT cleanup.policy=compact"), "ok"},
		{"describe subtracted", describe("topic", t1, "cleanup.policy"), "ok cleanup.policy=delete(DYNAMIC_TOPIC_CONFIG,false,LIST)[cleanup.policy=delete(DYNAMIC_TOPIC_CONFIG),log.cleanup.policy=delete(DEFAULT_CONFIG)]"},
		{"append non-list", incAlter("topic", t1, false, "APPEND retention.ms=5"), "INVALID_CONFIG Can't APPEND to key retention.ms because its type is not LIST."},
		{"append unknown", incAlter("topic", t1, false, "APPEND retention.mss=5"), "INVALID_CONFIG Can't APPEND to key retention.mss because its type is not LIST."},
		{"subtract non-list", incAlter("topic", t1, false, "SUBTRACT retention.ms=5"), "INVALID_CONFIG Can't SUBTRACT to key retention.ms because its type is not LIST."},
		{"unknown topic config", incAlter("topic", t1, false, "SET retention.mss=1"), "INVALID_CONFIG Unknown topic config name: retention.mss"},
		{"bad topic value", incAlter("topic", t1, false, "SET retention.ms=soon"), "INVALID_CONFIG Invalid value soon for configuration retention.ms: Not a number of type LONG"},
		{"null topic value", incAlter("topic", t1, false, "SET retention.ms"), "INVALID_REQUEST Null value not supported for : retention.ms"},
		{"delete unknown topic config", incAlter("topic", t1, false, "DELETE retention.mss"), "ok"},
		{"topic config of unknown topic", incAlter("topic", "admin-zz", false, "SET retention.ms=1"), "UNKNOWN_TOPIC_OR_PARTITION The topic 'admin-zz' does not exist."},
		{"duplicate key", incAlter("topic", t1, false, "SET retention.ms=1", "SET retention.ms=2"), "INVALID_REQUEST Error due to duplicate config keys"},
		{"throttled replicas", incAlter("topic", t1, false, "SET leader.replication.throttled.replicas=0:1,1:2", "SET follower.replication.throttled.replicas=*"), "ok"},
		{"bad throttled replicas", incAlter("topic", t1, false, "SET leader.replication.throttled.replicas=0-1"), "INVALID_CONFIG Invalid value [0-1] for configuration leader.replication.throttled.replicas: leader.replication.throttled.replicas must be the literal '*' or a list of replicas in the following format: [partitionId]:[brokerId],[partitionId]:[brokerId],..."},
		{"topic validate only", incAlter("topic", t1, true, "SET retention.ms=1"), "ok"},
		{"delete topic config", incAlter("topic", t1, false, "DELETE retention.ms", "DELETE leader.replication.throttled.replicas", "DELETE follower.replication.throttled.replicas"), "ok"},
		{"describe deleted", describe("topic", t1), "ok cleanup.policy=delete(DYNAMIC_TOPIC_CONFIG,false,LIST)[cleanup.policy=delete(DYNAMIC_TOPIC_CONFIG),log.cleanup.policy=delete(DEFAULT_CONFIG)] min.insync.replicas=1(DYNAMIC_DEFAULT_BROKER_CONFIG,false,INT)[min.insync.replicas=1(DYNAMIC_DEFAULT_BROKER_CONFIG),min.insync.replicas=1(DEFAULT_CONFIG)]"},
		{"legacy alter topic", legacyAlter("topic", t1, false, "retention.ms=7200000"), "ok"},
		{"describe legacy", describe("topic", t1), "ok min.insync.replicas=1(DYNAMIC_DEFAULT_BROKER_CONFIG,false,INT)[min.insync.replicas=1(DYNAMIC_DEFAULT_BROKER_CONFIG),min.insync.replicas=1(DEFAULT_CONFIG)] retention.ms=7200000(DYNAMIC_TOPIC_CONFIG,false,LONG)[retention.ms=7200000(DYNAMIC_TOPIC_CONFIG)]"},
		{"legacy unknown", legacyAlter("topic", t1, false, "retention.mss=1"), "INVALID_CONFIG Unknown topic config name: retention.mss"},
		{"legacy bad value", legacyAlter("topic", t1, false, "retention.ms=x"), "INVALID_CONFIG Invalid value x for configuration retention.ms: Not a number of type LONG"},
		{"legacy unknown topic", legacyAlter("topic", "admin-zz", false, "retention.ms=1"), "UNKNOWN_TOPIC_OR_PARTITION The topic 'admin-zz' does not exist."},

		{"broker throttle", incAlter("broker", "1", true, "SET leader.replication.throttled.rate=1000", "SET follower.replication.throttled.rate=1000"), "ok"},
		{"broker bad throttle", incAlter("broker", "1", true, "SET leader.replication.throttled.rate=x"), "INVALID_REQUEST Invalid value x for configuration leader.replication.throttled.rate: Not a number of type LONG"},
		{"broker read-only", incAlter("broker", "1", true, "SET num.partitions=3"), "INVALID_REQUEST Cannot update these configs dynamically: [num.partitions]"},
		{"broker unknown config", incAlter("broker", "1", true, "SET foo.bar=1"), "ok"},
		{"broker default read-only", incAlter("broker", "", true, "SET num.partitions=3"), "INVALID_REQUEST Cannot update these configs dynamically: [num.partitions]"},
		{"broker default", incAlter("broker", "", true, "SET min.insync.replicas=2"), "ok"},
		{"broker default bad", incAlter("broker", "", true, "SET min.insync.replicas=0"), "INVALID_REQUEST Invalid value 0 for configuration min.insync.replicas: Value must be at least 1"},
		{"unknown broker", incAlter("broker", "9", true, "SET leader.replication.throttled.rate=1"), "no answer"},
		{"bad broker", incAlter("broker", "x", true, "SET leader.replication.throttled.rate=1"), "INVALID_REQUEST Node id must be an integer, but it is: x"},
		{"broker default cordon", incAlter("broker", "", true, "SET cordoned.log.dirs=*"), "INVALID_REQUEST Cannot update these configs at default cluster level, broker id must be specified: [cordoned.log.dirs]"},
		{"broker default throttle", incAlter("broker", "", true, "SET leader.replication.throttled.rate=1000"), "ok"},
		{"broker negative throttle", incAlter("broker", "1", true, "SET leader.replication.throttled.rate=-1"), "INVALID_REQUEST Invalid value -1 for configuration leader.replication.throttled.rate: Value must be at least 0"},
		{"broker null value", incAlter("broker", "1", true, "SET leader.replication.throttled.rate"), "INVALID_REQUEST Null value not supported for : leader.replication.throttled.rate"},
		{"broker append non-list", incAlter("broker", "1", true, "APPEND leader.replication.throttled.rate=1"), "INVALID_CONFIG Unknown config name: leader.replication.throttled.rate"},
		{"broker append int", incAlter("broker", "1", true, "APPEND log.cleaner.threads=1"), "INVALID_CONFIG Config value append is not allowed for config key: log.cleaner.threads"},
		{"broker subtract int", incAlter("broker", "1", true, "SUBTRACT log.cleaner.threads=1"), "INVALID_CONFIG Config value subtract is not allowed for config key: log.cleaner.threads"},
		{"broker append unknown", incAlter("broker", "1", true, "APPEND foo.bar=1"), "INVALID_CONFIG Unknown config name: foo.bar"},
		{"broker cordon", incAlter("broker", "1", true, "SET cordoned.log.dirs=*"), "ok"},
		{"broker append", incAlter("broker", "1", true, "APPEND cordoned.log.dirs=/nowhere"), "INVALID_REQUEST requirement failed: All entries in cordoned.log.dirs must be present in log.dirs or log.dir. Missing entries : /nowhere"},
		{"broker delete", incAlter("broker", "1", true, "DELETE leader.replication.throttled.rate"), "ok"},
		{"legacy broker", legacyAlter("broker", "1", true, "leader.replication.throttled.rate=5"), "ok"},
		{"legacy broker read-only", legacyAlter("broker", "1", true, "num.partitions=5"), "INVALID_REQUEST Cannot update these configs dynamically: [num.partitions]"},

		{"dup create", multiCreate("admin-m", "admin-m"), "[admin-m INVALID_REQUEST Duplicate topic name.]"},
		{"colliding in one request", multiCreate("admin.m", "admin_m"), "[admin.m ok][admin_m ok]"},
		{"create m1", createTopic("admin-m1", 2, 1, nil, false), "ok 2x1 id=true configs=37 min.insync.replicas=1(DYNAMIC_DEFAULT_BROKER_CONFIG); then 2x1"},
		{"dup grow", multiGrow("admin-m1", "admin-m1"), "[admin-m1 INVALID_REQUEST Duplicate topic name.]"},
		{"delete by name and id", multiDelete(true, "admin-m1"), "[admin-m1 true INVALID_REQUEST You may not specify both topic name and topic id.]"},
		{"dup delete", multiDelete(false, "admin-m1", "admin-m1"), "[admin-m1 false INVALID_REQUEST Duplicate topic name.]"},
		{"alter empty topic", incAlter("topic", "", true, "SET retention.ms=1"), "INVALID_REQUEST Default topic resources are not allowed."},
		{"describe empty topic", describe("topic", ""), "INVALID_TOPIC_EXCEPTION Topic name is invalid: the empty string is not allowed"},
		{"delete m1", deleteTopic("admin-m1", false, false), "admin-m1 ok; then -"},
		{"delete unknown", deleteTopic("admin-zz", false, false), "admin-zz UNKNOWN_TOPIC_OR_PARTITION This server does not host this topic-partition.; then -"},
		{"delete unknown id", deleteTopic("admin-zz", true, true), "<nil> UNKNOWN_TOPIC_ID This server does not host this topic ID.; then -"},
		{"delete", deleteTopic(t2, false, false), "admin-t2 ok; then -"},
		{"delete by id", deleteTopic(t1, true, false), "admin-t1 ok; then -"},
		{"delete again", deleteTopic(t1, false, false), "admin-t1 UNKNOWN_TOPIC_OR_PARTITION This server does not host this topic-partition.; then -"},
		{"delete dotted", deleteTopic("admin.dot", false, false), "admin.dot ok; then -"},
	}
}

// TestAdminTable sends the administration table to the sandbox (3
// brokers in 3 racks, as the real cluster the answers come from).
func TestAdminTable(t *testing.T) {
	c := startTest(t, Config{Brokers: 3, Racks: 3})
	e := adminEnvOf(t, c.Bootstrap())
	for _, st := range adminTable() {
		if got := st.do(e); got != st.want {
			t.Errorf("%s: the sandbox answers\n\t%s\nKafka\n\t%s", st.name, got, st.want)
		}
	}
}

// controllerTable: requests a client sends a controller directly
// (--bootstrap-controller), with a real 4.4.0's answers: the controller
// stores broker configs without the brokers' checks, lets
// cordoned.log.dirs only shrink, knows registered brokers only.
func controllerTable() []adminStep {
	return []adminStep{
		{"ctl create", createTopic("admin-g", 1, 1, nil, false), "ok 1x1 id=true configs=37 min.insync.replicas=1(DYNAMIC_DEFAULT_BROKER_CONFIG); then -"},
		{"ctl read-only", incAlter("broker", "2", true, "SET num.partitions=2"), "ok"},
		{"ctl bad type", incAlter("broker", "2", true, "SET leader.replication.throttled.rate=x"), "ok"},
		{"ctl neg", incAlter("broker", "2", true, "SET leader.replication.throttled.rate=-1"), "ok"},
		{"ctl min isr 0", incAlter("broker", "", true, "SET min.insync.replicas=0"), "ok"},
		{"ctl min isr x", incAlter("broker", "", true, "SET min.insync.replicas=x"), "ok"},
		{"ctl cordon default", incAlter("broker", "", true, "SET cordoned.log.dirs=*"), "INVALID_CONFIG When updating cordoned.log.dirs via controllers,  the new value must be a subset of the current configuration value."},
		{"ctl cordon missing", incAlter("broker", "2", true, "SET cordoned.log.dirs=/nowhere"), "INVALID_CONFIG When updating cordoned.log.dirs via controllers,  the new value must be a subset of the current configuration value."},
		{"ctl append int", incAlter("broker", "2", true, "APPEND log.cleaner.threads=1"), "INVALID_CONFIG Can't APPEND to key log.cleaner.threads because its type is not LIST."},
		{"ctl append unknown", incAlter("broker", "2", true, "APPEND foo.bar=1"), "INVALID_CONFIG Can't APPEND to key foo.bar because its type is not LIST."},
		{"ctl append throttle", incAlter("broker", "2", true, "APPEND leader.replication.throttled.rate=1"), "INVALID_CONFIG Can't APPEND to key leader.replication.throttled.rate because its type is not LIST."},
		{"ctl unknown broker", incAlter("broker", "9", true, "SET leader.replication.throttled.rate=1"), "BROKER_ID_NOT_REGISTERED No node with id 9 found."},
		{"ctl bad broker", incAlter("broker", "x", true, "SET leader.replication.throttled.rate=1"), "INVALID_REQUEST Unable to parse broker name as a base 10 number."},
		{"ctl null", incAlter("broker", "2", true, "SET leader.replication.throttled.rate"), "ok"},
		{"ctl legacy read-only", legacyAlter("broker", "2", true, "num.partitions=5"), "ok"},
		{"ctl topic bad", incAlter("topic", "admin-g", true, "SET retention.ms=x"), "INVALID_CONFIG Invalid value x for configuration retention.ms: Not a number of type LONG"},
		{"ctl describe broker", describe("broker", "2", "num.partitions"), "INVALID_REQUEST Unexpected broker id, expected 3000 or empty string, but received 2"},
		{"ctl describe topic", describe("topic", "admin-g", "retention.ms"), "ok retention.ms=604800000(DEFAULT_CONFIG,false,LONG)[]"},
		{"ctl describe default", describe("broker", ""), "ok min.insync.replicas=1(DYNAMIC_DEFAULT_BROKER_CONFIG,false,INT)[min.insync.replicas=1(DYNAMIC_DEFAULT_BROKER_CONFIG)]"},
		{"ctl delete", deleteTopic("admin-g", false, false), "admin-g ok; then -"},
	}
}

// TestAdminControllerTable sends the controller table to a sandbox
// controller.
func TestAdminControllerTable(t *testing.T) {
	c := startTest(t, Config{Brokers: 3, Racks: 3})
	e := adminEnvOf(t, c.ControllerBootstrap())
	e.seed = true
	for _, st := range controllerTable() {
		if got := st.do(e); got != st.want {
			t.Errorf("%s: the sandbox answers\n\t%s\nKafka\n\t%s", st.name, got, st.want)
		}
	}
}
