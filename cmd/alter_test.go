package cmd

import (
	"context"
	"errors"
	"maps"
	"strconv"
	"strings"
	"testing"

	"github.com/go-zookeeper/zk"

	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/clusterops"
	"github.com/ktopo/ktopo/clusterwatch/zksource"
	"github.com/ktopo/ktopo/internal/testkit/zktest"
	"github.com/ktopo/ktopo/sandbox"
	"github.com/ktopo/ktopo/zkops"
)

// TestAlterAddsPartitions: on the Kafka-shaped tree (brokers 1:rack-a,
// 2:rack-b, 3:rack-a), orders (partition 0 on broker 1) grows from 3 to 5
// partitions: rack-aware over the rack-alternated list [1,2,3], start
// index 0, partition ids from 3 (AdminUtils' placement, checked against
// Kafka's own in TestRealKafkaAddPartitions); the topic
// id and the existing partitions are kept; the znode is set once.
func TestAlterAddsPartitions(t *testing.T) {
	addr := seed(t)
	conn := connectTest(t, addr)
	_, before, err := conn.Get("/brokers/topics/orders")
	if err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI(t, "topics", "alter", "--zookeeper", addr, "--topic", "orders", "--partitions", "5", "--no-wait")
	if code != 0 {
		t.Fatalf("exit %d: %s\n%s", code, errOut, out)
	}
	for _, want := range []string{clusterops.KeyOrderingWarning,
		"Plan: 2 new partitions for orders (3 → 5), replication factor 2 (partition 0's), 3 brokers in 2 racks, rack-aware",
		"Start index 0, from partition 0's first replica, replica shift 0 (reproduce with --start-index 0 --start-partition 3)",
		"\nAdding partitions succeeded!\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	data, stat, err := conn.Get("/brokers/topics/orders")
	want := `{"version":3,"partitions":{"0":[1,2],"1":[2,3],"2":[3,1],"3":[1,2],"4":[2,3]},"adding_replicas":{},"removing_replicas":{},"topic_id":"8t3wd6ZqQy-4XwKmL0lJmA"}`
	if err != nil || string(data) != want || stat.Version != before.Version+1 {
		t.Errorf("topic znode %s (v%d, was v%d) %v\nwant %s", data, stat.Version, before.Version, err, want)
	}

	// A manual assignment lists every partition; the entries of existing
	// ones are ignored, with a note when they differ.
	code, out, errOut = runCLI(t, "topics", "alter", "--zookeeper", addr, "--topic", "orders", "--partitions", "6",
		"--replica-assignment", "1:2,2:3,3:1,2:3,1:3,3:1", "--no-wait")
	if code != 0 {
		t.Fatalf("manual: exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "manual assignment (--replica-assignment)") ||
		!strings.Contains(out, "Note: --replica-assignment gives existing partitions [3,4] other replicas than they have; as in Kafka they are ignored") {
		t.Errorf("manual output:\n%s", out)
	}
	data, _, _ = conn.Get("/brokers/topics/orders")
	if want := `"3":[1,2],"4":[2,3],"5":[3,1]}`; !strings.Contains(string(data), want) {
		t.Errorf("manual: topic znode %s lacks %s", data, want)
	}
}

// TestAlterValidation: Kafka's checks and messages, and the ones ktopo adds
// (reassignment, deletion, an unreadable znode); nothing is written.
func TestAlterValidation(t *testing.T) {
	addr := seed(t)
	conn := connectTest(t, addr)
	for _, p := range []string{"/brokers/topics/broken", "/brokers/topics/__consumer_offsets"} {
		data := `{"version":3,"partitions":{"0":[1]},"adding_replicas":{},"removing_replicas":{}}`
		if p == "/brokers/topics/broken" {
			data = brokenTopic
		}
		if err := zktest.CreateWith(conn, p, []byte(data)); err != nil {
			t.Fatal(err)
		}
	}
	tree := dumpZK(t, conn, "/brokers/topics")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--topic", "orders", "--partitions", "2"},
			"The number of partitions for a topic can only be increased. Topic orders currently has 3 partitions, 2 would not be an increase."},
		{[]string{"--topic", "nope", "--partitions", "2"}, "Topic 'nope' does not exist as expected"},
		{[]string{"--topic", "__consumer_offsets", "--partitions", "50"}, "The number of partitions for the internal topic __consumer_offsets cannot be changed."},
		{[]string{"--topic", "moving", "--partitions", "2"}, "A partition reassignment is in progress for the topic 'moving'."},
		{[]string{"--topic", "doomed", "--partitions", "2"}, "The topic is queued for deletion."},
		{[]string{"--topic", "broken", "--partitions", "2"}, "The topic znode of broken cannot be read"},
		{[]string{"--topic", "orders", "--partitions", "5", "--replica-assignment", "1:2,2:3,3:1,1:2"},
			"Increasing the number of partitions by 2 but 1 assignments provided."},
		{[]string{"--topic", "orders", "--partitions", "4", "--replica-assignment", "1:2,2:3,3:1,4:1"},
			"Some brokers specified for partition id 3 are not available. Specified brokers: 4, 1, available brokers: 1, 2, 3."},
		{[]string{"--topic", "orders", "--partitions", "4", "--replica-assignment", "1:2,2:3,3:1,1:x"}, `For input string: "x"`},
		{[]string{"--topic", "orders", "--partitions", "x"}, "Cannot parse argument 'x' of option partitions"},
		{[]string{"--topic", "orders"}, `Missing required argument "[partitions]"`},
		{[]string{"--partitions", "4"}, `Missing required argument "[topic]"`},
		{[]string{"--topic", "orders", "--partitions", "4", "--replication-factor", "2"}, `Option "[replication-factor]" can't be used with option "[alter]"`},
		{[]string{"--topic", "orders", "--partitions", "4", "--config", "retention.ms=1"}, `Option "[config]" can't be used with option "[alter]" (topic configs are altered with ktopo configs`},
		{[]string{"--topic", "orders", "--partitions", "3000000"}, "3000000 partitions cannot fit in a topic znode"},
	} {
		code, out, errOut := runCLI(t, append([]string{"topics", "alter", "--zookeeper", addr}, tc.args...)...)
		if code != 1 || !strings.HasPrefix(lastLine(errOut), "Error: "+tc.want) {
			t.Errorf("%v: exit %d stderr %q stdout %q\nwant %q", tc.args, code, errOut, out, tc.want)
		}
	}
	if after := dumpZK(t, conn, "/brokers/topics"); !maps.Equal(tree, after) {
		t.Error("a failed alter wrote to /brokers/topics")
	}
	code, _, errOut := runCLI(t, "topics", "alter", "--zookeeper", addr, "--topic", "nope", "--partitions", "2", "--if-exists")
	if code != 0 || strings.Contains(errOut, "Error") {
		t.Errorf("--if-exists: exit %d %q", code, errOut)
	}
}

// TestAlterValidateOnlyAndReadOnly: --validate-only prints the multi and
// writes nothing; read-only mode refuses, as it refuses creation.
func TestAlterValidateOnlyAndReadOnly(t *testing.T) {
	addr := seed(t)
	conn := connectTest(t, addr)
	_, stat, _ := conn.Get("/brokers/topics/orders")
	code, out, errOut := runCLI(t, "topics", "alter", "--zookeeper", addr, "--topic", "orders", "--partitions", "4", "--validate-only")
	if code != 0 {
		t.Fatalf("exit %d %s", code, errOut)
	}
	want := "set    /brokers/topics/orders (at version " + strconv.Itoa(int(stat.Version)) + `) {"version":3,"partitions":{"0":[1,2],"1":[2,3],"2":[3,1],"3":[1,2]},"adding_replicas":{},"removing_replicas":{},"topic_id":"8t3wd6ZqQy-4XwKmL0lJmA"}`
	if !strings.Contains(out, "Validation passed. Would write, in one ZooKeeper multi:\n  "+want+"\n") {
		t.Errorf("validate-only output:\n%s\nwant %s", out, want)
	}
	code, _, errOut = runCLI(t, "topics", "alter", "--zookeeper", addr, "--read-only", "--topic", "orders", "--partitions", "4")
	if code != 1 || !strings.Contains(errOut, "read-only mode: refusing to alter topic orders (--validate-only checks it without writing)") {
		t.Errorf("read-only: %d %q", code, errOut)
	}
	if _, after, _ := conn.Get("/brokers/topics/orders"); after.Version != stat.Version {
		t.Errorf("the topic znode was written (v%d → v%d)", stat.Version, after.Version)
	}
}

// TestAlterIsVersionChecked: a change to the topic znode between the plan
// and the write (here a reassignment starting) fails the multi: nothing
// written, ErrConcurrentTopicChange.
func TestAlterIsVersionChecked(t *testing.T) {
	addr := seed(t)
	conn := connectTest(t, addr)
	s, err := zksource.Load(context.Background(), conn, cluster.ModelOptions{})
	if err != nil {
		t.Fatal(err)
	}
	plan, err := clusterops.PlanAddPartitions(s, clusterops.AddPartitionsRequest{Topic: "orders", Partitions: 4})
	if err != nil {
		t.Fatal(err)
	}
	moved := `{"version":3,"partitions":{"0":[3,1,2],"1":[2,3],"2":[3,1]},"adding_replicas":{"0":[3]},"removing_replicas":{"0":[2]},"topic_id":"8t3wd6ZqQy-4XwKmL0lJmA"}`
	if _, err := conn.Set("/brokers/topics/orders", []byte(moved), -1); err != nil {
		t.Fatal(err)
	}
	_, err = zkops.NewWriter(conn).AddPartitions(context.Background(), []*clusterops.AddPartitionsPlan{plan}, clusterops.Apply)
	if !errors.Is(err, zkops.ErrConcurrentTopicChange) || !strings.Contains(err.Error(), "nothing was written") {
		t.Fatalf("got %v", err)
	}
	if data, _, _ := conn.Get("/brokers/topics/orders"); string(data) != moved {
		t.Errorf("topic znode %s", data)
	}
}

// TestAlterOnSandbox: on the sandbox (real ZooKeeper, simulated brokers and
// controller) the new partitions are initialised by the controller and
// ktopo follows them until online.
func TestAlterOnSandbox(t *testing.T) {
	connect := zktest.Chroot(t)
	sb, err := sandbox.Start(context.Background(), sandbox.Config{Connect: connect, Brokers: 4, Racks: 2, NoAutoLeaderRebalance: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sb.Close() })
	runOK(t, "topics", "create", "--zookeeper", connect, "--topic", "grow", "--replica-assignment", "2:3,3:4", "--timeout", "30s")
	out := runOK(t, "topics", "alter", "--zookeeper", connect, "--topic", "grow", "--partitions", "5", "--timeout", "30s")
	for _, want := range []string{"Start index 1, from partition 0's first replica", "Adding partitions succeeded!",
		"partition 4: InSync", "All 3 partitions online in "} {
		if !strings.Contains(out, want) {
			t.Errorf("alter on the sandbox did not say %q:\n%s", want, out)
		}
	}
	recs := describeRecords(t, runOK(t, "topics", "describe", "--zookeeper", connect, "--topic", "grow"))
	if len(recs) != 6 || recs[0]["PartitionCount"] != "5" || recs[5]["Leader"] == "none" {
		t.Errorf("describe after alter: %v", recs)
	}
}

// dumpZK reads every znode under root (data and version).
func dumpZK(t *testing.T, conn interface {
	Get(string) ([]byte, *zk.Stat, error)
	Children(string) ([]string, *zk.Stat, error)
}, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	var walk func(string)
	walk = func(p string) {
		data, stat, err := conn.Get(p)
		if err != nil {
			return
		}
		out[p] = string(data) + "@" + strconv.Itoa(int(stat.Version))
		kids, _, _ := conn.Children(p)
		for _, k := range kids {
			walk(p + "/" + k)
		}
	}
	walk(root)
	return out
}
