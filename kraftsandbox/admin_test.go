package kraftsandbox

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/ktopo/ktopo/assign"
	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/clusterops"
	"github.com/ktopo/ktopo/kafkaops"
	"github.com/ktopo/ktopo/kafkawatch"
)

// adminClient sends single requests of administration and fails the
// test on a transport error.
type adminClient struct {
	t   *testing.T
	e   *adminEnv
	ctx context.Context
}

func newAdminClient(t *testing.T, c *Cluster) *adminClient {
	e := adminEnvOf(t, c.Bootstrap())
	return &adminClient{t: t, e: e, ctx: e.ctx}
}

func (a *adminClient) send(req kmsg.Request) kmsg.Response {
	a.t.Helper()
	resp, err := a.e.cl.Request(a.ctx, req)
	if err != nil {
		a.t.Fatal(err)
	}
	return resp
}

// create creates a topic placed by the controller, with configs k=v.
func (a *adminClient) create(name string, partitions int32, rf int16, validateOnly bool, configs ...string) kmsg.CreateTopicsResponseTopic {
	a.t.Helper()
	req := kmsg.NewPtrCreateTopicsRequest()
	req.TimeoutMillis, req.ValidateOnly = 30000, validateOnly
	rt := kmsg.NewCreateTopicsRequestTopic()
	rt.Topic, rt.NumPartitions, rt.ReplicationFactor = name, partitions, rf
	for _, kv := range configs {
		k, v, _ := strings.Cut(kv, "=")
		c := kmsg.NewCreateTopicsRequestTopicConfig()
		c.Name, c.Value = k, &v
		rt.Configs = append(rt.Configs, c)
	}
	req.Topics = append(req.Topics, rt)
	return a.send(req).(*kmsg.CreateTopicsResponse).Topics[0]
}

// grow adds partitions to a topic, placed by the controller.
func (a *adminClient) grow(name string, count int32, validateOnly bool) kmsg.CreatePartitionsResponseTopic {
	a.t.Helper()
	req := kmsg.NewPtrCreatePartitionsRequest()
	req.TimeoutMillis, req.ValidateOnly = 30000, validateOnly
	rt := kmsg.NewCreatePartitionsRequestTopic()
	rt.Topic, rt.Count = name, count
	req.Topics = append(req.Topics, rt)
	return a.send(req).(*kmsg.CreatePartitionsResponse).Topics[0]
}

// alter applies IncrementalAlterConfigs ops ("SET k=v", "DELETE k") to
// a resource and fails on a refusal.
func (a *adminClient) alter(typ, name string, ops ...string) {
	a.t.Helper()
	if got := incAlter(typ, name, false, ops...)(a.e); got != "ok" {
		a.t.Fatalf("alter %s %q %v: %s", typ, name, ops, got)
	}
}

// brokerConfigs are a broker's configs as DescribeConfigs answers them:
// name → "value SOURCE".
func (a *adminClient) brokerConfigs(name string) map[string]string {
	a.t.Helper()
	req := kmsg.NewPtrDescribeConfigsRequest()
	r := kmsg.NewDescribeConfigsRequestResource()
	r.ResourceType, r.ResourceName = kmsg.ConfigResourceTypeBroker, name
	req.Resources = append(req.Resources, r)
	resp := a.send(req).(*kmsg.DescribeConfigsResponse)
	out := map[string]string{}
	for _, c := range resp.Resources[0].Configs {
		v := "<nil>"
		if c.Value != nil {
			v = *c.Value
		}
		out[c.Name] = v + " " + c.Source.String()
		if c.IsSensitive {
			out[c.Name] += " sensitive"
		}
	}
	return out
}

// TestAdminState: topics and configs over the wire, and what they change
// in the controller's state (the throttles the replication reads, the
// cordons the placer reads, a deleted topic's data).
func TestAdminState(t *testing.T) {
	c := startTest(t, Config{})
	adm := newAdminClient(t, c)

	res := adm.create("k-a", 6, 3, false, "retention.ms=3600000")
	if res.ErrorCode != 0 {
		t.Fatalf("create: %v", codeMsg(res.ErrorCode, res.ErrorMessage))
	}
	c.mu.Lock()
	tp := c.topics["k-a"]
	if len(tp.parts) != 6 || tp.configs["retention.ms"] != "3600000" || res.TopicID != tp.id {
		t.Errorf("k-a: %d partitions, configs %v, id %v (answered %v)", len(tp.parts), tp.configs, tp.id, res.TopicID)
	}
	for i, p := range tp.parts {
		if len(p.replicas) != 3 || len(slices.Compact(slices.Sorted(slices.Values(p.replicas)))) != 3 {
			t.Errorf("k-a-%d: replicas %v", i, p.replicas)
		}
	}
	c.mu.Unlock()

	// Validate only changes nothing.
	if r := adm.create("k-b", 1, 1, true); r.ErrorCode != 0 {
		t.Fatal(codeMsg(r.ErrorCode, r.ErrorMessage))
	}
	if r := adm.grow("k-a", 8, true); r.ErrorCode != 0 {
		t.Fatal(codeMsg(r.ErrorCode, r.ErrorMessage))
	}
	c.mu.Lock()
	if c.topics["k-b"] != nil || len(c.topics["k-a"].parts) != 6 {
		t.Errorf("validate only changed the topics")
	}
	c.mu.Unlock()

	// CreatePartitions places from the current count on.
	if r := adm.grow("k-a", 8, false); r.ErrorCode != 0 {
		t.Fatal(codeMsg(r.ErrorCode, r.ErrorMessage))
	}
	c.mu.Lock()
	if n := len(c.topics["k-a"].parts); n != 8 {
		t.Errorf("k-a: %d partitions after adding 2 to 6", n)
	}
	c.mu.Unlock()

	// The throttles where the replication reads them.
	adm.alter("broker", "2", "SET leader.replication.throttled.rate=1000")
	adm.alter("broker", "", "SET follower.replication.throttled.rate=2000")
	adm.alter("topic", "k-a", "SET leader.replication.throttled.replicas=0:1,1:2", "SET follower.replication.throttled.replicas=*")
	c.mu.Lock()
	if r, ok := c.throttleRate(2, true); !ok || r != 1000 {
		t.Errorf("broker 2's leader throttle: %v %v", r, ok)
	}
	if r, ok := c.throttleRate(1, true); ok {
		t.Errorf("broker 1's leader throttle: %v, want none", r)
	}
	if r, ok := c.throttleRate(1, false); !ok || r != 2000 {
		t.Errorf("broker 1's follower throttle (the default's): %v %v", r, ok)
	}
	tp = c.topics["k-a"]
	if !c.throttled(tp, 0, 1, true) || !c.throttled(tp, 1, 2, true) || c.throttled(tp, 0, 2, true) || !c.throttled(tp, 5, 4, false) {
		t.Errorf("throttled replicas of %v", tp.configs)
	}
	c.mu.Unlock()

	// DescribeConfigs shows them with their sources.
	got := adm.brokerConfigs("2")
	for k, want := range map[string]string{
		"leader.replication.throttled.rate":   "1000 DYNAMIC_BROKER_CONFIG",
		"follower.replication.throttled.rate": "2000 DYNAMIC_DEFAULT_BROKER_CONFIG",
		"broker.rack":                         "rack-b STATIC_BROKER_CONFIG",
		"min.insync.replicas":                 "1 DYNAMIC_DEFAULT_BROKER_CONFIG",
		"num.partitions":                      "1 DEFAULT_CONFIG",
		"log.dirs":                            "/var/lib/kafka/broker-2 STATIC_BROKER_CONFIG",
		"ssl.key.password":                    "<nil> DEFAULT_CONFIG sensitive",
	} {
		if got[k] != want {
			t.Errorf("broker 2's %s: %q, want %q", k, got[k], want)
		}
	}

	// A config Kafka does not know: kept, shown sensitive.
	adm.alter("broker", "2", "SET foo.bar=2")
	if got := adm.brokerConfigs("2")["foo.bar"]; got != "<nil> DYNAMIC_BROKER_CONFIG sensitive" {
		t.Errorf("foo.bar: %q", got)
	}

	// A cordon: the broker's log directories, the placer and manual
	// assignments.
	adm.alter("broker", "3", "SET cordoned.log.dirs=*")
	c.mu.Lock()
	if !c.brokers[2].dirs[0].cordoned {
		t.Errorf("broker 3 not cordoned")
	}
	c.mu.Unlock()
	if r := adm.create("k-c", 12, 3, false); r.ErrorCode != 0 {
		t.Fatal(codeMsg(r.ErrorCode, r.ErrorMessage))
	}
	if r := adm.grow("k-c", 13, false); r.ErrorCode != 0 {
		t.Fatal(codeMsg(r.ErrorCode, r.ErrorMessage))
	}
	c.mu.Lock()
	for i, p := range c.topics["k-c"].parts {
		if slices.Contains(p.replicas, 3) {
			t.Errorf("k-c-%d on cordoned broker 3: %v", i, p.replicas)
		}
	}
	c.mu.Unlock()
	want := "INVALID_REPLICA_ASSIGNMENT " + clusterops.CordonedAssignmentMessage(3) + "; then -"
	if got := createTopic("k-d", -1, -1, [][]int32{{1, 3}}, false)(adm.e); got != want {
		t.Errorf("a manual assignment on cordoned broker 3: %s", got)
	}
	adm.alter("broker", "3", "DELETE cordoned.log.dirs")
	c.mu.Lock()
	if c.brokers[2].dirs[0].cordoned {
		t.Errorf("broker 3 still cordoned")
	}
	c.mu.Unlock()

	// AlterConfigs replaces a resource's dynamic configs.
	if got := legacyAlter("broker", "2", false, "log.cleaner.threads=2")(adm.e); got != "ok" {
		t.Fatal(got)
	}
	c.mu.Lock()
	if got := c.brokerConfigs["2"]; len(got) != 1 || got["log.cleaner.threads"] != "2" {
		t.Errorf("broker 2's dynamic configs after AlterConfigs: %v", got)
	}
	c.mu.Unlock()

	// DeleteTopics by name and by id.
	if got := deleteTopic("k-a", false, false)(adm.e); got != "k-a ok; then -" {
		t.Errorf("delete k-a: %s", got)
	}
	if got := deleteTopic("k-c", true, false)(adm.e); got != "k-c ok; then -" {
		t.Errorf("delete k-c by id: %s", got)
	}
	c.mu.Lock()
	if len(c.topics) != 0 || len(c.topicIDs) != 0 {
		t.Errorf("deleted topics remain: %d %d", len(c.topics), len(c.topicIDs))
	}
	c.mu.Unlock()
}

// TestAdminInternalTopicDelete: Kafka 4.4's controller deletes an
// internal topic as any other (checked against a real 4.4.0).
func TestAdminInternalTopicDelete(t *testing.T) {
	c := startTest(t, Config{DemoTopics: true})
	adm := newAdminClient(t, c)
	if got := deleteTopic("__consumer_offsets", false, false)(adm.e); got != "__consumer_offsets ok; then -" {
		t.Errorf("delete __consumer_offsets: %s", got)
	}
}

// TestAdminWriter: ktopo's own KRaft writer (kafkaops.Writer) against the
// sandbox, with the answers cmd/realkafka_kraftfake_test.go's table has
// from real Kafka 4.4 (4 brokers in 2 racks).
func TestAdminWriter(t *testing.T) {
	c := startTest(t, Config{Brokers: 4, Racks: 2, Controllers: 1})
	ctx := adminEnvOf(t, c.Bootstrap()).ctx
	w := kafkaops.New(client(t, c), 0)
	read := func() *cluster.Snapshot {
		t.Helper()
		s, err := kafkawatch.Load(ctx, kafkawatch.Dial{Bootstrap: strings.Split(c.Bootstrap(), ",")}, cluster.ModelOptions{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	create := func(topic string, a assign.Assignment, m clusterops.Mode) error {
		_, err := w.CreateTopic(ctx, &clusterops.TopicPlan{Name: topic, Result: assign.Result{Assignment: a}}, m)
		return err
	}
	add := func(topic string, existing, n int, a assign.Assignment) error {
		_, err := w.AddPartitions(ctx, []*clusterops.AddPartitionsPlan{{Topic: topic, Existing: existing, Partitions: n, Result: assign.Result{Assignment: a}}}, clusterops.Apply)
		return err
	}
	config := func(topic, k, v string) error {
		a := &clusterops.ConfigAlteration{Change: clusterops.ConfigChange{EntityType: cluster.EntityTopics, Entity: topic, Config: map[string]string{}}}
		if v == "" {
			a.Deleted = []string{k}
		} else {
			a.Change.Config[k], a.Set = v, []string{k}
		}
		_, err := w.AlterConfigs(ctx, []*clusterops.ConfigAlteration{a}, clusterops.Apply)
		return err
	}
	cordon := func(b int, on bool) error {
		_, err := w.Cordon(ctx, b, on, clusterops.Apply)
		return err
	}
	const a, b = "ff-a", "ff-b"
	cordoned := "The manual partition assignment includes broker 3, but all its log directories are cordoned. (INVALID_REPLICA_ASSIGNMENT)"
	steps := []struct {
		name string
		do   func() error
		want string
	}{
		{"create", func() error { return create(a, assign.Assignment{0: {1, 2}, 1: {2, 3}, 2: {3, 4}}, clusterops.Apply) }, "ok"},
		{"create an existing topic", func() error { return create(a, assign.Assignment{0: {1, 2}}, clusterops.Apply) }, "Topic 'ff-a' already exists. (TOPIC_ALREADY_EXISTS)"},
		{"an unknown broker", func() error { return create(b, assign.Assignment{0: {1, 9}}, clusterops.Apply) },
			"The manual partition assignment includes broker 9, but no such broker is registered. (INVALID_REPLICA_ASSIGNMENT)"},
		{"a broker twice", func() error { return create(b, assign.Assignment{0: {2, 2}}, clusterops.Apply) },
			"The manual partition assignment includes the broker 2 more than once. (INVALID_REPLICA_ASSIGNMENT)"},
		{"brokers checked in id order", func() error { return create(b, assign.Assignment{0: {9, 2, 2}}, clusterops.Apply) },
			"The manual partition assignment includes the broker 2 more than once. (INVALID_REPLICA_ASSIGNMENT)"},
		{"replication factors that differ", func() error { return create(b, assign.Assignment{0: {1, 2}, 1: {3}}, clusterops.Apply) },
			"The manual partition assignment includes a partition with 1 replica(s), but this is not consistent with previous partitions, which have 2 replica(s). (INVALID_REPLICA_ASSIGNMENT)"},
		{"a partition missing", func() error { return create(b, assign.Assignment{0: {1, 2}, 2: {3, 4}}, clusterops.Apply) },
			"partitions should be a consecutive 0-based integer sequence (INVALID_REPLICA_ASSIGNMENT)"},
		{"an empty replica list", func() error { return create(b, assign.Assignment{0: {}}, clusterops.Apply) },
			"The manual partition assignment includes an empty replica list. (INVALID_REPLICA_ASSIGNMENT)"},
		{"an invalid name", func() error { return create("ff b", assign.Assignment{0: {1, 2}}, clusterops.Apply) },
			"Topic name is invalid: 'ff b' contains one or more characters other than ASCII alphanumerics, '.', '_' and '-' (INVALID_TOPIC_EXCEPTION)"},
		{"validate only", func() error { return create(b, assign.Assignment{0: {1, 2}}, clusterops.Validate) }, "ok"},
		{"add a partition", func() error { return add(a, 3, 4, assign.Assignment{3: {4, 1}}) }, "ok"},
		{"no new partition", func() error { return add(a, 4, 4, assign.Assignment{}) }, "Topic already has 4 partition(s). (INVALID_PARTITIONS)"},
		{"fewer partitions", func() error { return add(a, 4, 3, assign.Assignment{}) }, "The topic ff-a currently has 4 partition(s); 3 would not be an increase. (INVALID_PARTITIONS)"},
		{"another replication factor", func() error { return add(a, 4, 5, assign.Assignment{4: {1}}) },
			"The manual partition assignment includes a partition with 1 replica(s), but this is not consistent with previous partitions, which have 2 replica(s). (INVALID_REPLICA_ASSIGNMENT)"},
		{"too few assignments", func() error { return add(a, 4, 6, assign.Assignment{4: {1, 2}}) },
			"Attempted to add 2 additional partition(s), but only 1 assignment(s) were specified. (INVALID_REPLICA_ASSIGNMENT)"},
		{"an unknown topic", func() error { return add("ff-zz", 1, 2, assign.Assignment{1: {1, 2}}) }, "This server does not host this topic-partition. (UNKNOWN_TOPIC_OR_PARTITION)"},
		{"cordon 3", func() error { return cordon(3, true) }, "ok"},
		{"a cordoned broker", func() error { return create(b, assign.Assignment{0: {3, 1}}, clusterops.Apply) }, cordoned},
		{"a cordoned broker before an unknown one", func() error { return create(b, assign.Assignment{0: {9, 3}}, clusterops.Apply) }, cordoned},
		{"a cordoned broker in a new partition", func() error { return add(a, 4, 5, assign.Assignment{4: {3, 1}}) }, cordoned},
		{"uncordon 3", func() error { return cordon(3, false) }, "ok"},
		{"a topic config", func() error { return config(a, "retention.ms", "3600000") }, "ok"},
		{"an unknown topic config", func() error { return config(a, "retention.mss", "1") }, "Unknown topic config name: retention.mss (INVALID_CONFIG)"},
		{"an invalid value", func() error { return config(a, "retention.ms", "soon") }, "Invalid value soon for configuration retention.ms: Not a number of type LONG (INVALID_CONFIG)"},
		{"an unknown topic's config", func() error { return config("ff-zz", "retention.ms", "1") }, "The topic 'ff-zz' does not exist. (UNKNOWN_TOPIC_OR_PARTITION)"},
		{"a topic config deleted", func() error { return config(a, "retention.ms", "") }, "ok"},
		{"delete", func() error { _, err := w.DeleteTopic(ctx, read(), a, clusterops.Apply); return err }, "ok"},
	}
	for _, st := range steps {
		got := "ok"
		if err := st.do(); err != nil {
			got = err.Error()
		}
		if got != st.want {
			t.Errorf("%s: %q, want %q", st.name, got, st.want)
		}
	}
	s := read()
	if s.Topic(a) != nil || s.Topic(b) != nil {
		t.Errorf("topics left: %v %v", s.Topic(a), s.Topic(b))
	}
}

// TestAdminMinISRClearsELR: lowering min.insync.replicas to the ISR's
// size clears the eligible leader replicas (KIP-966), of a topic's own
// config and of the cluster default's.
func TestAdminMinISRClearsELR(t *testing.T) {
	c := startTest(t, Config{})
	adm := newAdminClient(t, c)
	for _, name := range []string{"e-own", "e-default"} {
		if r := adm.create(name, 1, 3, false); r.ErrorCode != 0 {
			t.Fatal(codeMsg(r.ErrorCode, r.ErrorMessage))
		}
	}
	// A partition whose ISR shrank below min.insync.replicas=3: the
	// replicas that left are eligible leaders.
	shrink := func(name string) {
		c.mu.Lock()
		defer c.mu.Unlock()
		p := c.topics[name].parts[0]
		p.elr = slices.Clone(p.replicas[1:])
		p.isr = p.replicas[:1]
	}
	adm.alter("topic", "e-own", "SET min.insync.replicas=3")
	adm.alter("broker", "", "SET min.insync.replicas=3")
	shrink("e-own")
	shrink("e-default")
	adm.alter("topic", "e-own", "SET min.insync.replicas=1")
	c.mu.Lock()
	if p := c.topics["e-own"].parts[0]; len(p.elr) != 0 {
		t.Errorf("e-own: ELR %v after min.insync.replicas=1", p.elr)
	}
	if p := c.topics["e-default"].parts[0]; len(p.elr) != 2 {
		t.Errorf("e-default: ELR %v, want 2 replicas while the default is 3", p.elr)
	}
	c.mu.Unlock()
	adm.alter("broker", "", "SET min.insync.replicas=1")
	c.mu.Lock()
	if p := c.topics["e-default"].parts[0]; len(p.elr) != 0 {
		t.Errorf("e-default: ELR %v after the default's min.insync.replicas=1", p.elr)
	}
	c.mu.Unlock()
}

// TestAdminFencedBroker: a fenced broker in assignments, with a real
// 4.4.0's answers (broker 3 of 3 killed and fenced).
func TestAdminFencedBroker(t *testing.T) {
	c := startTest(t, Config{Brokers: 3, SessionTimeout: 200 * time.Millisecond, Tick: 20 * time.Millisecond})
	e := adminEnvOf(t, c.Bootstrap())
	if got := createTopic("admin-g", 1, 1, nil, false)(e); !strings.HasPrefix(got, "ok") {
		t.Fatal(got)
	}
	if err := c.Kill(3); err != nil {
		t.Fatal(err)
	}
	for fenced, deadline := false, time.Now().Add(time.Minute); !fenced; {
		if time.Now().After(deadline) {
			t.Fatal("broker 3 never fenced")
		}
		time.Sleep(20 * time.Millisecond)
		c.mu.Lock()
		fenced = c.brokers[2].fenced
		c.mu.Unlock()
	}
	for _, st := range []adminStep{
		{"manual fenced", createTopic("admin-f", -1, -1, [][]int32{{3}}, true), "INVALID_REPLICA_ASSIGNMENT All brokers specified in the manual partition assignment for partition 0 are fenced or in controlled shutdown.; then -"},
		{"manual fenced first", createTopic("admin-f", -1, -1, [][]int32{{3, 1}}, true), "ok 1x2 id=true configs=37 min.insync.replicas=1(DYNAMIC_DEFAULT_BROKER_CONFIG); then -"},
		{"placed rf3", createTopic("admin-f", 3, 3, nil, true), "ok 3x3 id=true configs=37 min.insync.replicas=1(DYNAMIC_DEFAULT_BROKER_CONFIG); then -"},
		{"placed rf4", createTopic("admin-f", 3, 4, nil, true), "INVALID_REPLICATION_FACTOR Unable to replicate the partition 4 time(s): The target replication factor of 4 cannot be reached because only 3 broker(s) are registered or some brokers have all their log directories cordoned.; then -"},
		{"grow manual fenced", createPartitions("admin-g", 2, [][]int32{{3}}, true), "INVALID_REPLICA_ASSIGNMENT All brokers specified in the manual partition assignment for partition 1 are fenced or in controlled shutdown.; then 1x1"},
	} {
		if got := st.do(e); got != st.want {
			t.Errorf("%s: the sandbox answers\n\t%s\nKafka\n\t%s", st.name, got, st.want)
		}
	}
}

// TestAdminNoQuorum: without a quorum leader a write gets no answer
// (as from a real 4.4.0) until the quorum has one again; reads are
// answered from the brokers' metadata.
func TestAdminNoQuorum(t *testing.T) {
	c := startTest(t, Config{Controllers: 1, Tick: 20 * time.Millisecond})
	e := adminEnvOf(t, c.Bootstrap())
	if got := createTopic("q-a", 1, 1, nil, false)(e); !strings.HasPrefix(got, "ok") {
		t.Fatal(got)
	}
	if err := c.Kill(FirstControllerID); err != nil {
		t.Fatal(err)
	}
	done := make(chan string, 1)
	go func() { done <- incAlter("topic", "q-a", false, "SET retention.ms=1")(e) }()
	if got := describe("topic", "q-a", "retention.ms")(e); got != "ok retention.ms=604800000(DEFAULT_CONFIG,false,LONG)[]" {
		t.Errorf("describe without a quorum: %s", got)
	}
	select {
	case got := <-done:
		t.Fatalf("a write answered without a quorum leader: %s", got)
	default:
	}
	if err := c.Restart(FirstControllerID); err != nil {
		t.Fatal(err)
	}
	if got := <-done; got != "ok" {
		t.Errorf("the write once the quorum is back: %s", got)
	}
	if got := describe("topic", "q-a", "retention.ms")(e); got != "ok retention.ms=1(DYNAMIC_TOPIC_CONFIG,false,LONG)[retention.ms=1(DYNAMIC_TOPIC_CONFIG)]" {
		t.Errorf("describe after the write: %s", got)
	}
	// A write waiting for the quorum does not keep the cluster from
	// closing (the test's cleanup), nor its broker from being killed.
	if err := c.Kill(FirstControllerID); err != nil {
		t.Fatal(err)
	}
	go deleteTopic("q-a", false, false)(e)
	go createTopic("q-b", 1, 1, nil, false)(adminEnvOf(t, c.Bootstrap()))
	describe("topic", "q-a")(e)
	if err := c.Kill(1); err != nil {
		t.Fatal(err)
	}
}

// TestAdminTopicSynonyms: a topic's configs as each broker describes
// them, with the broker's own dynamic configs among the synonyms (a
// real 4.4.0's answers: broker 1 with log.retention.ms and log.roll.ms
// set, broker 2 without).
func TestAdminTopicSynonyms(t *testing.T) {
	c := startTest(t, Config{Brokers: 3})
	e := adminEnvOf(t, c.Bootstrap())
	createTopic("s-a", 1, 1, nil, false, "segment.ms=100000")(e)
	if got := incAlter("broker", "1", false, "SET log.retention.ms=5000", "SET log.roll.ms=7000")(e); got != "ok" {
		t.Fatal(got)
	}
	want := map[int32][]string{
		1: {"flush.ms=9223372036854775807(DEFAULT_CONFIG,false,LONG)[]",
			"retention.ms=5000(DYNAMIC_BROKER_CONFIG,false,LONG)[log.retention.ms=5000(DYNAMIC_BROKER_CONFIG),log.retention.hours=168(DEFAULT_CONFIG)]",
			"segment.jitter.ms=0(DEFAULT_CONFIG,false,LONG)[]",
			"segment.ms=100000(DYNAMIC_TOPIC_CONFIG,false,LONG)[segment.ms=100000(DYNAMIC_TOPIC_CONFIG),log.roll.ms=7000(DYNAMIC_BROKER_CONFIG),log.roll.hours=168(DEFAULT_CONFIG)]"},
		2: {"flush.ms=9223372036854775807(DEFAULT_CONFIG,false,LONG)[]",
			"retention.ms=604800000(DEFAULT_CONFIG,false,LONG)[]",
			"segment.jitter.ms=0(DEFAULT_CONFIG,false,LONG)[]",
			"segment.ms=100000(DYNAMIC_TOPIC_CONFIG,false,LONG)[segment.ms=100000(DYNAMIC_TOPIC_CONFIG)]"},
	}
	for id, w := range want {
		req := kmsg.NewPtrDescribeConfigsRequest()
		req.IncludeSynonyms = true
		r := kmsg.NewDescribeConfigsRequestResource()
		r.ResourceType, r.ResourceName = kmsg.ConfigResourceTypeTopic, "s-a"
		r.ConfigNames = []string{"flush.ms", "retention.ms", "segment.jitter.ms", "segment.ms"}
		req.Resources = append(req.Resources, r)
		resp, err := req.RequestWith(e.ctx, e.cl.Broker(int(id)))
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, cf := range resp.Resources[0].Configs {
			got = append(got, configString(cf))
		}
		slices.Sort(got)
		if !slices.Equal(got, w) {
			t.Errorf("broker %d describes\n\t%s\nKafka\n\t%s", id, strings.Join(got, "\n\t"), strings.Join(w, "\n\t"))
		}
	}
}
