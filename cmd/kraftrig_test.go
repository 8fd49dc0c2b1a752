package cmd

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/internal/testkit/kafkatest"
	"github.com/ktopo/ktopo/kafkawatch"
	"github.com/ktopo/ktopo/kraftsandbox"
)

// The KRaft scenarios (the what-if against kills, the TUI's operations)
// run on real Kafka (kafkatest, checked with Kafka's own tools) and on
// the simulated cluster (kraftsandbox, no Java: checked with ktopo's own
// reads and franz-go's requests). kraftBackend is what they need of
// either.
type kraftBackend interface {
	kafkatest.KRaftNodes
	// Heal starts every killed process again and waits until the
	// cluster is ready.
	Heal() error
	// runningBrokers are the listeners of the brokers that run.
	runningBrokers() []string
	// createTopic creates topic with a manual assignment
	// ("1:2,2:3") and configs ("k=v").
	createTopic(t *testing.T, topic, assignment string, configs ...string)
	deleteTopic(t *testing.T, topic string) error
	// waitAssignment waits until the brokers show topic's replicas as
	// want (partition → "1,2").
	waitAssignment(t *testing.T, topic string, want map[string]string)
	// electPreferred runs a preferred election of every partition.
	electPreferred(t *testing.T)
	// reassignThrottled executes the reassignment of file, throttled to
	// rate bytes/s, beside any in progress, without waiting for it.
	reassignThrottled(t *testing.T, file string, rate int)
	// disableELR downgrades eligible.leader.replicas.version to 0.
	disableELR(t *testing.T)
	// createTopicRF creates topic placed by the controller.
	createTopicRF(t *testing.T, topic string, partitions, rf int)
	// stopNode stops a process cleanly (SIGTERM: a broker's controlled
	// shutdown).
	stopNode(id int) error
	// quorumLeader is the metadata quorum's leader.
	quorumLeader(t *testing.T) int
	// kafkaTool runs one of Kafka's tools: false without them (the
	// sandbox), where a scenario checks with ktopo alone.
	kafkaTool(t *testing.T, script string, args ...string) (string, bool)
	// waitNoThrottles waits until no throttle is left on any broker nor
	// on topic.
	waitNoThrottles(t *testing.T, topic string)
	// recovering lists the partitions ("topic-p") whose leader recovery
	// state is RECOVERING, which no client API shows.
	recovering(t *testing.T) map[string]bool
}

// realKRaft is a real Kafka cluster of the kafkatest rig, driven with
// Kafka's own tools.
type realKRaft struct{ *kafkatest.KRaftCluster }

func (c realKRaft) runningBrokers() []string {
	var bs []string
	for _, n := range c.Brokers() {
		if n.Running() {
			bs = append(bs, n.Addr())
		}
	}
	return bs
}

func (c realKRaft) createTopic(t *testing.T, topic, assignment string, configs ...string) {
	t.Helper()
	args := []string{"--bootstrap-server", c.Bootstrap(), "--create", "--topic", topic, "--replica-assignment", assignment}
	for _, kv := range configs {
		args = append(args, "--config", kv)
	}
	kafkaTool(t, c.KRaftCluster, "kafka-topics", args...)
}

func (c realKRaft) deleteTopic(t *testing.T, topic string) error {
	if res, err := c.Dist().Command("kafka-topics", "--bootstrap-server", c.Bootstrap(), "--delete", "--topic", topic); err != nil || res.Code != 0 {
		return fmt.Errorf("%w %+v", err, res)
	}
	return nil
}

func (c realKRaft) waitAssignment(t *testing.T, topic string, want map[string]string) {
	t.Helper()
	waitAssignment(t, c.KRaftCluster, topic, want)
}

func (c realKRaft) electPreferred(t *testing.T) {
	t.Helper()
	// kafka-leader-election exits non-zero when a partition is led by
	// its preferred replica already.
	if res, err := c.Dist().Command("kafka-leader-election", "--bootstrap-server", c.Bootstrap(), "--election-type", "preferred", "--all-topic-partitions"); err != nil {
		t.Fatalf("kafka-leader-election: %v %+v", err, res)
	}
}

func (c realKRaft) reassignThrottled(t *testing.T, file string, rate int) {
	t.Helper()
	// --additional: Kafka's tool refuses to start one while another
	// reassignment runs.
	kafkaTool(t, c.KRaftCluster, "kafka-reassign-partitions", "--bootstrap-server", c.Bootstrap(), "--execute", "--additional", "--reassignment-json-file", file, "--throttle", strconv.Itoa(rate))
}

func (c realKRaft) disableELR(t *testing.T) {
	t.Helper()
	kafkaTool(t, c.KRaftCluster, "kafka-features", "--bootstrap-controller", c.ControllerBootstrap(), "downgrade", "--feature", cluster.FeatureELR+"=0")
}

func (c realKRaft) createTopicRF(t *testing.T, topic string, partitions, rf int) {
	t.Helper()
	if res, err := c.Topics("--create", "--topic", topic, "--partitions", strconv.Itoa(partitions), "--replication-factor", strconv.Itoa(rf)); err != nil || res.Code != 0 {
		t.Fatalf("create: %v %+v", err, res)
	}
}

func (c realKRaft) stopNode(id int) error {
	n := c.Node(id)
	if n == nil {
		return fmt.Errorf("no node %d", id)
	}
	n.Stop()
	return nil
}

func (c realKRaft) quorumLeader(t *testing.T) int {
	t.Helper()
	q, err := c.Quorum()
	if err != nil {
		t.Fatal(err)
	}
	return q.LeaderID
}

func (c realKRaft) kafkaTool(t *testing.T, script string, args ...string) (string, bool) {
	t.Helper()
	return kafkaTool(t, c.KRaftCluster, script, args...), true
}

func (c realKRaft) waitNoThrottles(t *testing.T, topic string) {
	t.Helper()
	waitNoThrottles(t, c.KRaftCluster, topic)
}

func (c realKRaft) recovering(t *testing.T) map[string]bool {
	t.Helper()
	return kraftRecovering(t, c.KRaftCluster)
}

// sandboxKRaft is a simulated KRaft cluster, driven with ktopo's own
// commands and franz-go's requests: Kafka's tools need Java.
type sandboxKRaft struct{ *kraftsandbox.Cluster }

// startSandboxKRaft starts a sandbox for t, its brokers fenced a second
// after their last heartbeat.
func startSandboxKRaft(t *testing.T, cfg kraftsandbox.Config) sandboxKRaft {
	t.Helper()
	if cfg.SessionTimeout == 0 {
		cfg.SessionTimeout = time.Second
	}
	c, err := kraftsandbox.Start(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return sandboxKRaft{c}
}

func (c sandboxKRaft) Heal() error {
	for _, id := range append(c.ControllerIDs(), c.BrokerIDs()...) {
		if !c.Running(id) {
			if err := c.Restart(id); err != nil {
				return err
			}
		}
	}
	// Ready: every broker unfenced (DescribeCluster lists fenced ones
	// only when asked).
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	for {
		s, err := kafkawatch.Load(ctx, kafkawatch.Dial{Bootstrap: c.runningBrokers()}, cluster.ModelOptions{}, nil)
		if err == nil && len(s.LiveBrokerIDs()) == len(c.BrokerIDs()) {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("the sandbox's brokers not all live again: %w", err)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func (c sandboxKRaft) runningBrokers() []string {
	addrs := strings.Split(c.Bootstrap(), ",") // in broker id order
	var bs []string
	for i, id := range c.BrokerIDs() {
		if c.Running(id) {
			bs = append(bs, addrs[i])
		}
	}
	return bs
}

// client is a franz-go client of the sandbox's running brokers.
func (c sandboxKRaft) client(t *testing.T) *kgo.Client {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.runningBrokers()...), kgo.RetryTimeout(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	return cl
}

func (c sandboxKRaft) createTopic(t *testing.T, topic, assignment string, configs ...string) {
	t.Helper()
	args := []string{"topics", "create", "--bootstrap-server", c.Bootstrap(), "--topic", topic, "--replica-assignment", assignment}
	for _, kv := range configs {
		args = append(args, "--config", kv)
	}
	runOK(t, args...)
}

func (c sandboxKRaft) deleteTopic(t *testing.T, topic string) error {
	cl := c.client(t)
	defer cl.Close()
	req := kmsg.NewPtrDeleteTopicsRequest()
	req.TimeoutMillis = 30_000
	dt := kmsg.NewDeleteTopicsRequestTopic()
	dt.Topic = kmsg.StringPtr(topic)
	req.Topics, req.TopicNames = append(req.Topics, dt), []string{topic}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		return err
	}
	for _, r := range resp.Topics {
		if err := kerr.ErrorForCode(r.ErrorCode); err != nil {
			return err
		}
	}
	return nil
}

// load is the sandbox as ktopo reads it.
func (c sandboxKRaft) load(t *testing.T) *cluster.Snapshot {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s, err := kafkawatch.Load(ctx, kafkawatch.Dial{Bootstrap: c.runningBrokers()}, cluster.ModelOptions{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func (c sandboxKRaft) waitAssignment(t *testing.T, topic string, want map[string]string) {
	t.Helper()
	var last map[string]string
	waitUntilShowing(t, "the brokers show "+topic+" as planned", func() bool {
		last = map[string]string{}
		if tp := c.load(t).Topic(topic); tp != nil {
			for _, p := range tp.Partitions {
				last[strconv.Itoa(p.ID)] = joinInts(p.Replicas)
			}
		}
		return maps.Equal(last, want)
	}, func() string { return fmt.Sprintf("%v, want %v", last, want) })
}

func (c sandboxKRaft) electPreferred(t *testing.T) {
	t.Helper()
	// ktopo's exit status when every partition is led by its preferred
	// replica already is not the point (Kafka's tool fails then too).
	runCLI(t, "leader-election", "--bootstrap-server", c.Bootstrap(), "--election-type", "preferred", "--all-topic-partitions")
}

func (c sandboxKRaft) reassignThrottled(t *testing.T, file string, rate int) {
	t.Helper()
	runOK(t, "reassign", "--execute", "--additional", "--bootstrap-server", c.Bootstrap(), "--reassignment-json-file", file,
		"--throttle", strconv.Itoa(rate), "--no-wait")
}

func (c sandboxKRaft) disableELR(t *testing.T) {
	t.Helper()
	cl := c.client(t)
	defer cl.Close()
	req := kmsg.NewPtrUpdateFeaturesRequest()
	req.TimeoutMillis = 30_000
	u := kmsg.NewUpdateFeaturesRequestFeatureUpdate()
	u.Feature, u.MaxVersionLevel, u.UpgradeType = cluster.FeatureELR, 0, 2 // SAFE_DOWNGRADE
	req.FeatureUpdates = append(req.FeatureUpdates, u)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	resp, err := req.RequestWith(ctx, cl)
	if err == nil {
		err = kerr.ErrorForCode(resp.ErrorCode)
		for _, r := range resp.Results {
			err = errors.Join(err, kerr.ErrorForCode(r.ErrorCode))
		}
	}
	if err != nil {
		t.Fatalf("downgrade %s to 0: %v", cluster.FeatureELR, err)
	}
}

func (c sandboxKRaft) createTopicRF(t *testing.T, topic string, partitions, rf int) {
	t.Helper()
	runOK(t, "topics", "create", "--bootstrap-server", c.Bootstrap(), "--topic", topic, "--partitions", strconv.Itoa(partitions),
		"--replication-factor", strconv.Itoa(rf))
}

func (c sandboxKRaft) stopNode(id int) error { return c.Stop(id) }

func (c sandboxKRaft) quorumLeader(t *testing.T) int {
	id, _ := c.QuorumLeader()
	return id
}

func (c sandboxKRaft) kafkaTool(t *testing.T, script string, args ...string) (string, bool) {
	return "", false
}

func (c sandboxKRaft) waitNoThrottles(t *testing.T, topic string) {
	t.Helper()
	var left []string
	waitUntilShowing(t, "no throttle left", func() bool {
		left = c.rig().throttles(t, topic)
		return len(left) == 0
	}, func() string { return strings.Join(left, "\n") })
}

func (c sandboxKRaft) recovering(t *testing.T) map[string]bool {
	out := map[string]bool{}
	for _, key := range c.RecoveringPartitions() {
		out[key] = true
	}
	return out
}

var (
	_ kraftBackend = realKRaft{}
	_ kraftBackend = sandboxKRaft{}
)

// sandboxRig is the TUI scenarios' rig on the sandbox: no Kafka tools.
func (c sandboxKRaft) rig() kraftRig { return kraftRig{bs: c.Bootstrap(), brokers: c.BrokerIDs()} }

// describeRead is describe from ktopo's read of the cluster: the replicas
// and leader ("none" without one) kafka-topics --describe prints.
func (r kraftRig) describeRead(t *testing.T, topics ...string) map[string]map[string]partitionRec {
	t.Helper()
	s := r.read(t)
	out := map[string]map[string]partitionRec{}
	for _, name := range topics {
		tp := s.Topic(name)
		if tp == nil {
			continue
		}
		out[name] = map[string]partitionRec{}
		for _, p := range tp.Partitions {
			leader := "none"
			if p.HasLeader() {
				leader = strconv.Itoa(p.Leader)
			}
			out[name][strconv.Itoa(p.ID)] = partitionRec{Replicas: joinInts(p.Replicas), Leader: leader}
		}
	}
	return out
}

// setConfigs is the dynamic configs of a resource as DescribeConfigs
// answers: "name=value" of each set on it (kafka-configs --describe's
// words), sensitive ones too.
func setConfigs(t *testing.T, bs string, typ kmsg.ConfigResourceType, name string) []string {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(strings.Split(bs, ",")...), kgo.RetryTimeout(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	req := kmsg.NewPtrDescribeConfigsRequest()
	res := kmsg.NewDescribeConfigsRequestResource()
	res.ResourceType, res.ResourceName = typ, name
	req.Resources = append(req.Resources, res)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range resp.Resources {
		if err := kerr.ErrorForCode(r.ErrorCode); err != nil {
			t.Fatalf("describe configs of %s: %v", name, err)
		}
		for _, e := range r.Configs {
			switch e.Source {
			case kmsg.ConfigSourceDynamicTopicConfig, kmsg.ConfigSourceDynamicBrokerConfig, kmsg.ConfigSourceDynamicDefaultBrokerConfig:
				if (e.Source == kmsg.ConfigSourceDynamicDefaultBrokerConfig) != (typ == kmsg.ConfigResourceTypeBroker && name == "") {
					continue
				}
				v := ""
				if e.Value != nil {
					v = *e.Value
				}
				out = append(out, e.Name+"="+v)
			}
		}
	}
	return out
}

func (r kraftRig) configsRead(t *testing.T, typ kmsg.ConfigResourceType, name string) string {
	t.Helper()
	return strings.Join(setConfigs(t, r.bs, typ, name), "\n")
}

// throttlesRead is throttles from DescribeConfigs: the throttle rates
// set on any broker (or as the cluster default) and the throttled
// replicas of topics.
func (r kraftRig) throttlesRead(t *testing.T, topics ...string) []string {
	t.Helper()
	var out []string
	for _, id := range append([]string{""}, strings.Fields(strings.Trim(fmt.Sprint(r.brokers), "[]"))...) {
		for _, e := range setConfigs(t, r.bs, kmsg.ConfigResourceTypeBroker, id) {
			if strings.Contains(e, "throttled.rate") {
				out = append(out, "broker "+id+": "+e)
			}
		}
	}
	for _, topic := range topics {
		for _, e := range setConfigs(t, r.bs, kmsg.ConfigResourceTypeTopic, topic) {
			if strings.Contains(e, "throttled.replicas") {
				out = append(out, topic+": "+e)
			}
		}
	}
	return out
}
