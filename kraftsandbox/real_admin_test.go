package kraftsandbox

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/ktopo/ktopo/internal/testkit/kafkatest"
)

// realKafka44 is the bootstrap (brokers, controllers) of a real Kafka
// 4.4.0 KRaft cluster of 3 brokers (1-3, racks rack-a..c):
// KTOPO_KAFKA44_BOOTSTRAP and KTOPO_KAFKA44_CONTROLLERS when set (a
// running one, e.g. the one kafka-cluster --kraft prints), else one the
// test starts with a controller and stops when it ends (skipped without
// Java unless CI=true).
func realKafka44(t *testing.T) (string, string) {
	if bs := os.Getenv("KTOPO_KAFKA44_BOOTSTRAP"); bs != "" {
		return bs, os.Getenv("KTOPO_KAFKA44_CONTROLLERS")
	}
	kafkatest.Require(t, kafkatest.Kafka44)
	c, err := kafkatest.StartKRaft(kafkatest.KRaftOptions{Version: kafkatest.Kafka44, Controllers: 1, Brokers: 3, Racks: 3})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Stop)
	kafkatest.Attach(t, c)
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
	real, sb = adminEnvOf(t, controllers), adminEnvOf(t, c.ControllerBootstrap())
	real.seed, sb.seed = true, true
	compareAdminTable(t, real, sb, controllerTable())
}

// compareAdminTable sends a table's steps to real Kafka and to the
// sandbox, in turn, and requires the table's answers of both.
func compareAdminTable(t *testing.T, real, sb *adminEnv, table []adminStep) {
	for _, st := range table {
		real.settle = st.want
		got := st.do(real)
		// Kafka's brokers learn a change from the metadata log a moment
		// after the controller answered: a read is retried until it
		// shows the table's answer (or a while has passed).
		for i := 0; strings.HasPrefix(st.name, "describe") && got != st.want && i < 50; i++ {
			time.Sleep(200 * time.Millisecond)
			got = st.do(real)
		}
		if os.Getenv("ADMIN_TABLE_PRINT") != "" {
			t.Logf("{%q, %q},", st.name, got)
		}
		if got != st.want {
			t.Errorf("%s: Kafka answers\n\t%s\nthe table says\n\t%s", st.name, got, st.want)
		}
		if sgot := st.do(sb); sgot != got {
			t.Errorf("%s: the sandbox answers\n\t%s\nKafka\n\t%s", st.name, sgot, got)
		}
	}
}
