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

// realKafka44 is the bootstrap of a real Kafka 4.4.0 KRaft cluster of 3
// brokers (1-3, racks rack-a..c): KTOPO_KAFKA44_BOOTSTRAP when set (a
// running one, e.g. the one kafka-cluster --kraft prints), else one the
// test starts with a controller and stops when it ends (skipped without
// Java unless CI=true).
func realKafka44(t *testing.T) string {
	if bs := os.Getenv("KTOPO_KAFKA44_BOOTSTRAP"); bs != "" {
		return bs
	}
	kafkatest.Require(t, kafkatest.Kafka44)
	c, err := kafkatest.StartKRaft(kafkatest.KRaftOptions{Version: kafkatest.Kafka44, Controllers: 1, Brokers: 3, Racks: 3})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Stop)
	kafkatest.Attach(t, c)
	return c.Bootstrap()
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
	real := adminEnvOf(t, realKafka44(t))
	sb := adminEnvOf(t, startTest(t, Config{Brokers: 3, Racks: 3}).Bootstrap())
	for _, st := range adminTable() {
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
