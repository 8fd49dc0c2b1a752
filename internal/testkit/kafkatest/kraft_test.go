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
			// The other tools tests compare ktopo with, by script name.
			for _, tool := range [][]string{
				{"kafka-configs", "--bootstrap-server", c.Bootstrap(), "--alter", "--entity-type", "topics", "--entity-name", "combined-topic", "--add-config", "retention.ms=60000"},
				{"kafka-configs", "--bootstrap-server", c.Bootstrap(), "--describe", "--entity-type", "topics", "--entity-name", "combined-topic"},
				{"kafka-reassign-partitions", "--bootstrap-server", c.Bootstrap(), "--list"},
				{"kafka-leader-election", "--bootstrap-server", c.Bootstrap(), "--election-type", "preferred", "--all-topic-partitions"},
				{"kafka-features", "--bootstrap-server", c.Bootstrap(), "describe"},
			} {
				res, err := c.Dist().Command(tool[0], tool[1:]...)
				if err != nil || res.Code != 0 {
					t.Errorf("%s: %v %+v", strings.Join(tool, " "), err, res)
				}
				if tool[0] == "kafka-configs" && tool[5] == "--describe" && !strings.Contains(res.Stdout, "retention.ms=60000") {
					t.Errorf("kafka-configs --describe: %s", res.Stdout)
				}
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

// TestToolClasses checks which main class each version's script runs
// (what Kafka's bin/*.sh of that version runs), reading the jars only.
func TestToolClasses(t *testing.T) {
	for _, tc := range []struct{ version, script, class string }{
		{kafkatest.Kafka44, "kafka-topics", "org.apache.kafka.tools.TopicCommand"},
		{kafkatest.Kafka44, "kafka-configs", "org.apache.kafka.tools.ConfigCommand"},
		{kafkatest.Kafka44, "kafka-acls", "org.apache.kafka.tools.AclCommand"},
		{kafkatest.Kafka44, "kafka-reassign-partitions", "org.apache.kafka.tools.reassign.ReassignPartitionsCommand"},
		{kafkatest.Kafka44, "kafka-leader-election", "org.apache.kafka.tools.LeaderElectionCommand"},
		{kafkatest.Kafka44, "kafka-storage.sh", "kafka.tools.StorageTool"},
		{kafkatest.Kafka39, "kafka-configs", "kafka.admin.ConfigCommand"},
		{kafkatest.Kafka39, "kafka-features", "org.apache.kafka.tools.FeatureCommand"},
		{kafkatest.Kafka39, "kafka-cluster", "org.apache.kafka.tools.ClusterTool"},
		{kafkatest.Kafka39, "kafka-metadata-quorum", "org.apache.kafka.tools.MetadataQuorumCommand"},
		{kafkatest.Kafka28, "kafka-topics", "kafka.admin.TopicCommand"},
		{kafkatest.Kafka28, "kafka-preferred-replica-election", "kafka.admin.PreferredReplicaLeaderElectionCommand"},
	} {
		d := kafkatest.Require(t, tc.version)
		if got, err := d.ToolClass(tc.script); err != nil || got != tc.class {
			t.Errorf("%s %s: %q, %v; want %s", tc.version, tc.script, got, err, tc.class)
		}
	}
	d := kafkatest.Require(t, kafkatest.Kafka28)
	if _, err := d.ToolClass("kafka-metadata-quorum"); err == nil || !strings.Contains(err.Error(), "Kafka 2.8.2 has no kafka-metadata-quorum") {
		t.Errorf("2.8's kafka-metadata-quorum: %v", err)
	}
	if _, err := d.ToolClass("kafka-nonsense"); err == nil || !strings.Contains(err.Error(), `no Kafka tool "kafka-nonsense"`) {
		t.Errorf("an unknown script: %v", err)
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
	// The brokers learn of the topic from the metadata log, each in its
	// own time: kafka-topics asks one of them.
	deadline := time.Now().Add(30 * time.Second)
	for {
		res, err = c.Topics("--describe", "--topic", topic)
		if err == nil && res.Code == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("kafka-topics --describe: %v %+v", err, res)
		}
		time.Sleep(200 * time.Millisecond)
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

// TestKRaftNodeVersionsRefused: a node version for a node the cluster
// does not have, or a version without KRaft, is refused before anything
// starts (the cluster of other versions is internal/e2e/features').
func TestKRaftNodeVersionsRefused(t *testing.T) {
	kafkatest.Require(t, kafkatest.Kafka44)
	for _, tc := range []struct {
		versions map[int]string
		want     string
	}{
		{map[int]string{4: kafkatest.Kafka39}, "NodeVersions names node 4, which the cluster does not have"},
		{map[int]string{kafkatest.FirstControllerID + 3: kafkatest.Kafka39}, "NodeVersions names node 3003, which the cluster does not have"},
		{map[int]string{2: kafkatest.Kafka28}, "Kafka 2.8.2 has no KRaft mode to run node 2 on"},
	} {
		c, err := kafkatest.StartKRaft(kafkatest.KRaftOptions{Version: kafkatest.Kafka44, NodeVersions: tc.versions})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			if c != nil {
				c.Stop()
			}
			t.Errorf("NodeVersions %v: %v, want %q", tc.versions, err, tc.want)
		}
	}
}
