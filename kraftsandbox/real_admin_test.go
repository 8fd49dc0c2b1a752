package kraftsandbox

import (
	"context"
	"fmt"
	"net"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/ktopo/ktopo/internal/testkit/kafkatest"
)

// realKafka44 is the bootstrap (brokers, controllers) of a real Kafka
// 4.4.0 KRaft cluster of 3 brokers (1-3, racks rack-a..c):
// KTOPO_KAFKA44_BOOTSTRAP and KTOPO_KAFKA44_CONTROLLERS when set (a
// running one, e.g. the one kafka-cluster --kraft prints), else the
// package's shared one (skipped without Java unless CI=true).
func realKafka44(t *testing.T) (string, string) {
	if bs := os.Getenv("KTOPO_KAFKA44_BOOTSTRAP"); bs != "" {
		return bs, os.Getenv("KTOPO_KAFKA44_CONTROLLERS")
	}
	c := kafkatest.SharedKRaft(t, kafkatest.Kafka44)
	return c.Bootstrap(), c.ControllerBootstrap()
}

func adminEnvOf(t *testing.T, bootstrap string) *adminEnv {
	cl, err := kgo.NewClient(kgo.SeedBrokers(strings.Split(bootstrap, ",")...), kgo.RequestTimeoutOverhead(30*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	t.Cleanup(cancel)
	return &adminEnv{ctx: ctx, cl: cl}
}

// TestRealKafkaAdminTable sends the administration table to real Kafka
// 4.4 and to the sandbox, step by step, and requires the table's answers
// of both.
func TestRealKafkaAdminTable(t *testing.T) {
	bs, controllers := realKafka44(t)
	c := startTest(t, Config{Brokers: 3, Racks: 3})
	real, sb := adminEnvOf(t, bs), adminEnvOf(t, c.Bootstrap())
	compareAdminTable(t, real, sb, adminTable())
	if controllers == "" {
		t.Log("no KTOPO_KAFKA44_CONTROLLERS: the controller table is not compared")
		return
	}
	// Requests go to the first listener: the active controller's on both
	// sides, as the Admin client with --bootstrap-controller sends them (an
	// inactive one answers NOT_CONTROLLER).
	real, sb = adminEnvOf(t, activeFirst(t, controllers)), adminEnvOf(t, activeFirst(t, c.ControllerBootstrap()))
	real.seed, sb.seed = true, true
	compareAdminTable(t, real, sb, controllerTable())
}

// compareAdminTable sends a table's steps to real Kafka and to the
// sandbox, in turn, and requires the table's answers of both.
func compareAdminTable(t *testing.T, real, sb *adminEnv, table []adminStep) {
	for _, st := range table {
		real.settle = st.want
		// The answering controller's own id is in some messages: the
		// active one's, whichever that is on each side.
		do := func(env *adminEnv) string {
			return answeringController.ReplaceAllString(st.do(env), "expected 3000 or")
		}
		got := do(real)
		// Kafka's brokers learn a change from the metadata log a moment
		// after the controller answered: a read is retried until it
		// shows the table's answer (or a while has passed).
		for i := 0; strings.HasPrefix(st.name, "describe") && got != st.want && i < 50; i++ {
			time.Sleep(200 * time.Millisecond)
			got = do(real)
		}
		if os.Getenv("ADMIN_TABLE_PRINT") != "" {
			t.Logf("{%q, %q},", st.name, got)
		}
		if got != st.want {
			t.Errorf("%s: Kafka answers\n\t%s\nthe table says\n\t%s", st.name, got, st.want)
		}
		if sgot := do(sb); sgot != got {
			t.Errorf("%s: the sandbox answers\n\t%s\nKafka\n\t%s", st.name, sgot, got)
		}
	}
}

// activeFirst is a controllers' listener list with the active
// controller's first, as DescribeCluster names it on a controller's
// listener.
func activeFirst(t *testing.T, controllers string) string {
	t.Helper()
	env := adminEnvOf(t, controllers)
	req := kmsg.NewPtrDescribeClusterRequest()
	req.EndpointType = 2
	resp, err := req.RequestWith(env.ctx, env.cl)
	if err != nil || resp.ErrorCode != 0 {
		t.Fatalf("DescribeCluster of the controllers %s: %v %+v", controllers, err, resp)
	}
	var first string
	var rest []string
	for _, b := range resp.Brokers {
		addr := net.JoinHostPort(b.Host, strconv.Itoa(int(b.Port)))
		if b.NodeID == resp.ControllerID {
			first = addr
		} else {
			rest = append(rest, addr)
		}
	}
	if first == "" {
		t.Fatalf("no active controller among %s", controllers)
	}
	return strings.Join(append([]string{first}, rest...), ",")
}

// answeringController is the node id a controller names itself by in a
// refusal.
var answeringController = regexp.MustCompile(`expected 30[0-9]{2} or`)

// TestRealKafkaInactiveController sends writes to a controller that is
// not the active one, on real Kafka 4.4 and on the sandbox: both answer
// NOT_CONTROLLER naming the active controller (its id aside).
func TestRealKafkaInactiveController(t *testing.T) {
	_, controllers := realKafka44(t)
	if controllers == "" {
		t.Skip("no KTOPO_KAFKA44_CONTROLLERS")
	}
	c := startTest(t, Config{Brokers: 3, Racks: 3})
	answers := func(controllers string) string {
		// The active controller first: the others follow.
		inactive := strings.Split(activeFirst(t, controllers), ",")[1]
		env := adminEnvOf(t, inactive)
		env.seed = true
		create := kmsg.NewPtrCreateTopicsRequest()
		ct := kmsg.NewCreateTopicsRequestTopic()
		ct.Topic, ct.NumPartitions, ct.ReplicationFactor = "admin-inactive", 1, 1
		create.Topics, create.ValidateOnly = append(create.Topics, ct), true
		cr, ok := env.send(create).(*kmsg.CreateTopicsResponse)
		if !ok {
			t.Fatal("no answer to CreateTopics")
		}
		alter := kmsg.NewPtrIncrementalAlterConfigsRequest()
		ar := kmsg.NewIncrementalAlterConfigsRequestResource()
		ar.ResourceType, ar.ResourceName = kmsg.ConfigResourceTypeTopic, "admin-inactive"
		cfg := kmsg.NewIncrementalAlterConfigsRequestResourceConfig()
		v := "1000"
		cfg.Name, cfg.Value = "retention.ms", &v
		ar.Configs = append(ar.Configs, cfg)
		alter.Resources, alter.ValidateOnly = append(alter.Resources, ar), true
		arr, ok := env.send(alter).(*kmsg.IncrementalAlterConfigsResponse)
		if !ok {
			t.Fatal("no answer to IncrementalAlterConfigs")
		}
		return answeringNode.ReplaceAllString(fmt.Sprintf("create %d %v; alter %d %v", cr.Topics[0].ErrorCode, deref(cr.Topics[0].ErrorMessage),
			arr.Resources[0].ErrorCode, deref(arr.Resources[0].ErrorMessage)), "node N")
	}
	want := "create 41 The active controller appears to be node N.; alter 41 The active controller appears to be node N."
	if got := answers(controllers); got != want {
		t.Errorf("Kafka answers\n\t%s\nwant\n\t%s", got, want)
	}
	if got := answers(c.ControllerBootstrap()); got != want {
		t.Errorf("the sandbox answers\n\t%s\nwant\n\t%s", got, want)
	}
}

// answeringNode is a node id in a NOT_CONTROLLER message.
var answeringNode = regexp.MustCompile(`node [0-9]+`)

func deref(s *string) string {
	if s == nil {
		return "<null>"
	}
	return *s
}
