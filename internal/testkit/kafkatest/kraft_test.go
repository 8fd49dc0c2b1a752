package kafkatest_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ktopo/ktopo/internal/testkit/kafkatest"
)

// TestKRaftCombined starts each KRaft version's one-node cluster (broker
// and controller in one process), creates a topic with Kafka's own
// kafka-topics and sees it with --describe, reads the quorum with
// kafka-metadata-quorum, and restarts the node.
func TestKRaftCombined(t *testing.T) {
	for _, v := range []string{kafkatest.Kafka44, kafkatest.Kafka39} {
		t.Run(v, func(t *testing.T) {
			start := time.Now()
			c := kafkatest.SharedCombined(t, v)
			t.Logf("ready %s after asking (a shared cluster is started once)", time.Since(start).Round(time.Millisecond))
			if got := c.ControllerIDs(); !slices.Equal(got, []int{1}) {
				t.Errorf("controllers %v, want [1]", got)
			}
			q, err := c.Quorum()
			if err != nil || q.LeaderID != 1 {
				t.Fatalf("quorum %+v: %v", q, err)
			}
			createAndDescribe(t, c, "combined-topic", 1)
			res, err := c.MetadataQuorum("describe", "--status")
			if err != nil || res.Code != 0 || !strings.Contains(res.Stdout, "LeaderId:               1") {
				t.Fatalf("kafka-metadata-quorum describe --status: %v %+v", err, res)
			}
			res, err = c.Dist().Command("kafka-cluster", "cluster-id", "--bootstrap-server", c.Bootstrap())
			if err != nil || res.Code != 0 || !strings.Contains(res.Stdout, c.ClusterID()) {
				t.Fatalf("kafka-cluster cluster-id: %v %+v, want %s", err, res, c.ClusterID())
			}
			n := c.Node(1)
			if err := n.Restart(); err != nil {
				t.Fatal(err)
			}
			if err := c.WaitReady(time.Minute); err != nil {
				t.Fatal(err)
			}
			res, err = c.Topics("--describe", "--topic", "combined-topic")
			if err != nil || res.Code != 0 || !strings.Contains(res.Stdout, "PartitionCount: 3") {
				t.Fatalf("after a restart, kafka-topics --describe: %v %+v", err, res)
			}
		})
	}
}

// TestKRaftCluster starts each KRaft version's 3-controller, 3-broker
// cluster, checks the racks and the quorum, creates a topic with Kafka's
// tools, and fails the quorum leader and a broker over.
func TestKRaftCluster(t *testing.T) {
	for _, v := range []string{kafkatest.Kafka44, kafkatest.Kafka39} {
		t.Run(v, func(t *testing.T) {
			if testing.Short() {
				t.Skip("-short: six JVMs and two failovers take about 40 s; TestKRaftCombined starts each version's KRaft mode")
			}
			c := kafkatest.SharedKRaft(t, v)
			if got := c.ControllerIDs(); !slices.Equal(got, []int{3000, 3001, 3002}) {
				t.Errorf("controllers %v", got)
			}
			if got := c.BrokerIDs(); !slices.Equal(got, []int{1, 2, 3}) {
				t.Errorf("brokers %v", got)
			}
			for _, b := range c.Brokers() {
				if want := "rack-" + string(rune('a'+b.ID-1)); b.Rack != want || b.Properties()["broker.rack"] != want {
					t.Errorf("broker %d rack %q (%q), want %s", b.ID, b.Rack, b.Properties()["broker.rack"], want)
				}
			}
			q, err := c.Quorum()
			if err != nil {
				t.Fatal(err)
			}
			var observers []int
			for _, o := range q.Observers {
				observers = append(observers, o.ID)
			}
			slices.Sort(observers)
			if len(q.Voters) != 3 || !slices.Equal(observers, []int{1, 2, 3}) {
				t.Errorf("quorum %+v: want 3 voters and observers 1-3", q)
			}
			createAndDescribe(t, c, "kraft-topic", 3)
			res, err := c.Dist().Command("kafka-broker-api-versions", "--bootstrap-server", c.Bootstrap())
			if err != nil || res.Code != 0 || strings.Count(res.Stdout, "(id: ") != 3 {
				t.Errorf("kafka-broker-api-versions: %v %+v", err, res)
			}
			res, err = c.Dist().Command("kafka-features", "--bootstrap-controller", c.ControllerBootstrap(), "describe")
			if err != nil || res.Code != 0 || !strings.Contains(res.Stdout, "Feature: metadata.version") {
				t.Errorf("kafka-features describe: %v %+v", err, res)
			}

			// The quorum leader killed, another controller leads with a
			// higher epoch; a killed broker is fenced after the session
			// timeout, and comes back unfenced.
			leader := c.Node(q.LeaderID)
			leader.Kill()
			if err := c.WaitReady(time.Minute); err != nil {
				t.Fatal(err)
			}
			q2, err := c.Quorum()
			if err != nil || q2.LeaderID == q.LeaderID || q2.LeaderEpoch <= q.LeaderEpoch {
				t.Fatalf("after killing leader %d (epoch %d): %+v, %v", q.LeaderID, q.LeaderEpoch, q2, err)
			}
			c.Node(2).Kill()
			if err := c.WaitReady(time.Minute); err != nil {
				t.Fatal(err)
			}
			if err := c.Heal(); err != nil {
				t.Fatal(err)
			}
			res, err = c.Topics("--describe", "--topic", "kraft-topic")
			if err != nil || res.Code != 0 || strings.Count(res.Stdout, "Isr: ") != 3 {
				t.Fatalf("after the failovers, kafka-topics --describe: %v %+v", err, res)
			}
		})
	}
}

// createAndDescribe creates a topic with kafka-topics and checks that
// kafka-topics --describe shows its partitions with rf replicas.
func createAndDescribe(t *testing.T, c *kafkatest.KRaftCluster, topic string, rf int) {
	t.Helper()
	res, err := c.Topics("--create", "--topic", topic, "--partitions", "3", "--replication-factor", fmt.Sprint(rf))
	if err != nil || res.Code != 0 || !strings.Contains(res.Stdout, "Created topic "+topic) {
		t.Fatalf("kafka-topics --create: %v %+v", err, res)
	}
	res, err = c.Topics("--describe", "--topic", topic)
	if err != nil || res.Code != 0 {
		t.Fatalf("kafka-topics --describe: %v %+v", err, res)
	}
	if !strings.Contains(res.Stdout, "PartitionCount: 3") || !strings.Contains(res.Stdout, fmt.Sprintf("ReplicationFactor: %d", rf)) {
		t.Fatalf("kafka-topics --describe %s:\n%s", topic, res.Stdout)
	}
	for p := range 3 {
		if !strings.Contains(res.Stdout, fmt.Sprintf("Topic: %s\tPartition: %d\tLeader: ", topic, p)) {
			t.Errorf("no partition %d in\n%s", p, res.Stdout)
		}
	}
}
