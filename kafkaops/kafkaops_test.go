package kafkaops

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/ktopo/ktopo/assign"
	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/clusterops"
)

// TestErrors: a refusal reads as Kafka's message with the code's name and
// is found by the classes ktopo's callers test; an authorization failure
// reads "no access" with the ACL Kafka checks.
func TestErrors(t *testing.T) {
	msg := "Topic 'orders' already exists."
	err := codeError(kerr.TopicAlreadyExists.Code, &msg, "create topic orders", aclCreate("orders"))
	if err == nil || err.Error() != "Topic 'orders' already exists. (TOPIC_ALREADY_EXISTS)" {
		t.Errorf("exists: %v", err)
	}
	if c := cluster.ErrorClass(err); c != cluster.ClassTopicExists {
		t.Errorf("exists: class %q", c)
	}
	if cluster.IsDenied(err) {
		t.Error("exists: denied")
	}

	err = codeError(kerr.TopicAuthorizationFailed.Code, nil, "create topic orders", aclCreate("orders"))
	want := "no access: this session may not create topic orders (TOPIC_AUTHORIZATION_FAILED); Kafka wants the ACL CREATE on TOPIC orders, or CREATE on the CLUSTER for its principal"
	if err == nil || err.Error() != want {
		t.Errorf("denied: %v, want %q", err, want)
	}
	if !cluster.IsDenied(err) {
		t.Error("denied: not denied")
	}

	// No message from the broker: Kafka's description of the code.
	err = codeError(kerr.InvalidReplicationFactor.Code, nil, "create topic orders", "")
	var ke *cluster.KafkaError
	if !errors.As(err, &ke) || ke.Message != kerr.InvalidReplicationFactor.Description || ke.Class != "InvalidReplicationFactorException" {
		t.Errorf("no message: %#v", ke)
	}
	if codeError(0, nil, "", "") != nil {
		t.Error("code 0 is no error")
	}
	if err := codeError(-42, nil, "x", ""); err == nil || !strings.Contains(err.Error(), "error code -42") {
		t.Errorf("unknown code: %v", err)
	}
}

// TestMaybeWritten: a request without an answer, or that the controller
// answered REQUEST_TIMED_OUT, may have been applied; any other refusal
// wrote nothing.
func TestMaybeWritten(t *testing.T) {
	w := New(nil, 0)
	if !w.MaybeWritten(&SendError{API: "CreateTopics", Err: context.DeadlineExceeded}) {
		t.Error("no answer")
	}
	if !w.MaybeWritten(codeError(kerr.RequestTimedOut.Code, nil, "create topic x", "")) {
		t.Error("REQUEST_TIMED_OUT")
	}
	if w.MaybeWritten(codeError(kerr.TopicAlreadyExists.Code, nil, "create topic x", "")) || w.MaybeWritten(errors.New("x")) {
		t.Error("a refusal")
	}
}

// TestDescribeWrites: each write is described from the request it sends,
// without I/O: the creation as a manual assignment of the plan's
// replicas, added partitions numbered after the existing ones, a config
// change as SET and DELETE, a cordon, an election.
func TestDescribeWrites(t *testing.T) {
	w := New(nil, 0)
	ctx := context.Background()
	plan := &clusterops.TopicPlan{Name: "orders", Config: map[string]string{"retention.ms": "1000"},
		Result: assign.Result{Assignment: assign.Assignment{0: {3, 1}, 1: {1, 2}}, Striped: true, Seed: 7}}
	ws, err := w.CreateTopic(ctx, plan, clusterops.Describe)
	want := []string{
		"CreateTopics timeoutMs=30000 (validateOnly=true first, then false)",
		"  topic orders numPartitions=-1 replicationFactor=-1",
		"    partition 0 replicas [3,1]",
		"    partition 1 replicas [1,2]",
		"    config retention.ms=1000",
	}
	if err != nil || ws.Backend != cluster.ViaKafka || !slices.Equal(ws.Lines(), want) {
		t.Errorf("create: %v\n%q", err, ws.Lines())
	}

	add := &clusterops.AddPartitionsPlan{Topic: "orders", Partitions: 3, Existing: 2,
		Result: assign.Result{Assignment: assign.Assignment{2: {2, 3}}}}
	ws, err = w.AddPartitions(ctx, []*clusterops.AddPartitionsPlan{add}, clusterops.Describe)
	want = []string{
		"CreatePartitions timeoutMs=30000 (validateOnly=true first, then false)",
		"  topic orders count=3",
		"    partition 2 replicas [2,3]",
	}
	if err != nil || !slices.Equal(ws.Lines(), want) {
		t.Errorf("add: %v\n%q", err, ws.Lines())
	}

	alt := &clusterops.ConfigAlteration{Set: []string{"retention.ms"}, Deleted: []string{"cleanup.policy"}}
	alt.Change.EntityType, alt.Change.Entity = cluster.EntityTopics, "orders"
	alt.Change.Config = map[string]string{"retention.ms": "5"}
	ws, err = w.AlterConfigs(ctx, []*clusterops.ConfigAlteration{alt}, clusterops.Describe)
	want = []string{
		"IncrementalAlterConfigs (validateOnly=true first, then false)",
		"  TOPIC orders",
		"    SET retention.ms=5",
		"    DELETE cleanup.policy",
	}
	if err != nil || !slices.Equal(ws.Lines(), want) {
		t.Errorf("configs: %v\n%q", err, ws.Lines())
	}

	ws, err = w.Cordon(ctx, 3, true, clusterops.Describe)
	want = []string{
		"IncrementalAlterConfigs (validateOnly=true first, then false)",
		"  BROKER 3",
		"    SET cordoned.log.dirs=*",
	}
	if err != nil || !slices.Equal(ws.Lines(), want) {
		t.Errorf("cordon: %v\n%q", err, ws.Lines())
	}

	ep := &clusterops.ElectionPlan{Write: []cluster.TopicPartition{{Topic: "orders", Partition: 1}, {Topic: "orders", Partition: 0}}}
	ws, _, err = w.Elect(ctx, ep, clusterops.Describe)
	want = []string{
		"ElectLeaders electionType=PREFERRED timeoutMs=30000",
		"  topic orders partitions [1,0]",
	}
	if err != nil || !slices.Equal(ws.Lines(), want) {
		t.Errorf("elect: %v\n%q", err, ws.Lines())
	}
}
