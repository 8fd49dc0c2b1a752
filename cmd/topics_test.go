package cmd

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/clusterops"
	"github.com/ktopo/ktopo/clusterwatch/zksource"
	"github.com/ktopo/ktopo/internal/testkit/kafkatest"
	"github.com/ktopo/ktopo/internal/testkit/zktest"
	"github.com/ktopo/ktopo/zkops"
	"github.com/ktopo/ktopo/zkwatch"
)

func TestMain(m *testing.M) {
	// cmd's real-Kafka tests take about 13 minutes (CI gives them 25).
	kafkatest.MinTimeout = 20 * time.Minute
	zktest.Main(m, kafkatest.StopAll, stopSecured)
}

// kafkaTree is a Kafka-shaped tree as brokers of several versions leave it:
// brokers with and without racks, topics of every JSON version, partition
// states (healthy, under-replicated, leaderless), a reassignment, a config
// override, a deletion marker and a malformed topic znode.
var kafkaTree = []struct{ path, data string }{
	{"/brokers/ids/1", `{"features":{},"listener_security_protocol_map":{"PLAINTEXT":"PLAINTEXT"},"endpoints":["PLAINTEXT://kafka-1:9092"],"jmx_port":-1,"port":9092,"host":"kafka-1","version":5,"timestamp":"1700000000000","rack":"rack-a"}`},
	{"/brokers/ids/2", `{"listener_security_protocol_map":{"PLAINTEXT":"PLAINTEXT"},"endpoints":["PLAINTEXT://kafka-2:9092"],"jmx_port":-1,"port":9092,"host":"kafka-2","version":4,"timestamp":"1700000000001","rack":"rack-b"}`},
	{"/brokers/ids/3", `{"features":{},"listener_security_protocol_map":{"PLAINTEXT":"PLAINTEXT"},"endpoints":["PLAINTEXT://kafka-3:9092"],"jmx_port":-1,"port":9092,"host":"kafka-3","version":5,"timestamp":"1700000000002","rack":"rack-a"}`},
	{"/controller", `{"version":2,"brokerid":1,"timestamp":"1700000000003","kraftControllerEpoch":-1}`},
	{"/controller_epoch", `3`},
	{"/cluster/id", `{"version":"1","id":"MkU3OEVBNTcwNTJENDM2Qk"}`},
	{"/brokers/topics/orders", `{"version":3,"partitions":{"0":[1,2],"1":[2,3],"2":[3,1]},"adding_replicas":{},"removing_replicas":{},"topic_id":"8t3wd6ZqQy-4XwKmL0lJmA"}`},
	{"/brokers/topics/orders/partitions/0/state", `{"controller_epoch":3,"leader":1,"version":1,"leader_epoch":0,"isr":[1,2]}`},
	{"/brokers/topics/orders/partitions/1/state", `{"controller_epoch":3,"leader":2,"version":1,"leader_epoch":0,"isr":[2,3]}`},
	{"/brokers/topics/orders/partitions/2/state", `{"controller_epoch":3,"leader":3,"version":1,"leader_epoch":1,"isr":[3]}`},
	{"/config/topics/orders", `{"version":1,"config":{"retention.ms":"1000","min.insync.replicas":"2"}}`},
	{"/brokers/topics/legacy", `{"version":1,"partitions":{"0":[2,1]}}`},
	{"/brokers/topics/legacy/partitions/0/state", `{"controller_epoch":2,"leader":1,"version":1,"leader_epoch":4,"isr":[1]}`},
	{"/config/topics/legacy", `{"version":1,"config":{}}`},
	{"/brokers/topics/moving", `{"version":2,"partitions":{"0":[3,1,2]},"adding_replicas":{"0":[3]},"removing_replicas":{"0":[2]}}`},
	{"/brokers/topics/moving/partitions/0/state", `{"controller_epoch":3,"leader":1,"version":1,"leader_epoch":2,"isr":[1,2]}`},
	{"/brokers/topics/gone", `{"version":3,"partitions":{"0":[4]},"adding_replicas":{},"removing_replicas":{}}`},
	{"/brokers/topics/gone/partitions/0/state", `{"controller_epoch":3,"leader":-1,"version":1,"leader_epoch":7,"isr":[4]}`},
	{"/brokers/topics/fresh", `{"version":3,"partitions":{"0":[1,2]},"adding_replicas":{},"removing_replicas":{}}`},
	{"/brokers/topics/doomed", `{"version":3,"partitions":{"0":[1]},"adding_replicas":{},"removing_replicas":{}}`},
	{"/brokers/topics/doomed/partitions/0/state", `{"controller_epoch":3,"leader":1,"version":1,"leader_epoch":0,"isr":[1]}`},
	{"/admin/delete_topics/doomed", ""},
	{"/brokers/topics/test.topic", `{"version":3,"partitions":{"0":[1]},"adding_replicas":{},"removing_replicas":{}}`},
}

// seed writes kafkaTree under a fresh chroot and returns its connect string.
func seed(t *testing.T) string {
	t.Helper()
	addr := zktest.Chroot(t)
	conn := connectTest(t, addr)
	for _, n := range kafkaTree {
		if err := zktest.CreateWith(conn, n.path, []byte(n.data)); err != nil {
			t.Fatalf("seed %s: %v", n.path, err)
		}
	}
	return addr
}

func connectTest(t *testing.T, addr string) *zkwatch.Conn {
	t.Helper()
	conn, err := zkwatch.Connect(context.Background(), addr, zkwatch.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(conn.Close)
	return conn
}

// brokenTopic is a topic znode cut short, as a bad write would leave it.
const brokenTopic = `{"version":3,"partitions":{"0":[1,`

func TestDescribe(t *testing.T) {
	addr := seed(t)
	if err := zktest.CreateWith(connectTest(t, addr), "/brokers/topics/broken", []byte(brokenTopic)); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI(t, "topics", "describe", "--zookeeper", addr)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	want := strings.Join([]string{
		"Topic: broken\tPartitionCount: 0\tReplicationFactor: 0\tConfigs: ",
		"Topic: doomed\tPartitionCount: 1\tReplicationFactor: 1\tConfigs: \tMarkedForDeletion: true",
		"\tTopic: doomed\tPartition: 0\tLeader: 1\tReplicas: 1\tIsr: 1\tMarkedForDeletion: true",
		"Topic: fresh\tPartitionCount: 1\tReplicationFactor: 2\tConfigs: ",
		"\tTopic: fresh\tPartition: 0\tLeader: none\tReplicas: 1,2\tIsr: ",
		"Topic: gone\tPartitionCount: 1\tReplicationFactor: 1\tConfigs: ",
		"\tTopic: gone\tPartition: 0\tLeader: none\tReplicas: 4\tIsr: 4",
		"Topic: legacy\tPartitionCount: 1\tReplicationFactor: 2\tConfigs: ",
		"\tTopic: legacy\tPartition: 0\tLeader: 1\tReplicas: 2,1\tIsr: 1",
		// Kafka 3.x: the replication factor leaves out the replicas being added.
		"Topic: moving\tPartitionCount: 1\tReplicationFactor: 2\tConfigs: ",
		"\tTopic: moving\tPartition: 0\tLeader: 1\tReplicas: 3,1,2\tIsr: 1,2\tAdding Replicas: 3\tRemoving Replicas: 2",
		"Topic: orders\tTopicId: 8t3wd6ZqQy-4XwKmL0lJmA\tPartitionCount: 3\tReplicationFactor: 2\tConfigs: retention.ms=1000,min.insync.replicas=2",
		"\tTopic: orders\tPartition: 0\tLeader: 1\tReplicas: 1,2\tIsr: 1,2",
		"\tTopic: orders\tPartition: 1\tLeader: 2\tReplicas: 2,3\tIsr: 2,3",
		"\tTopic: orders\tPartition: 2\tLeader: 3\tReplicas: 3,1\tIsr: 3",
		"Topic: test.topic\tPartitionCount: 1\tReplicationFactor: 1\tConfigs: ",
		"\tTopic: test.topic\tPartition: 0\tLeader: none\tReplicas: 1\tIsr: ",
	}, "\n") + "\n"
	if out != want {
		t.Errorf("describe:\n%s\nwant:\n%s", out, want)
	}
	// The bad znode is named on stderr; the exit status stays 0.
	if !strings.Contains(errOut, "ktopo: bad znode /brokers/topics/broken: bad topic assignment") {
		t.Errorf("stderr %q does not name the bad znode", errOut)
	}

	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--topic", "orders"}, "Topic: orders\tTopicId"},
		// moving is in sync: ISR [1,2] of RF 2 (3 is being added).
		{[]string{"--under-replicated-partitions"}, "\tTopic: fresh\tPartition: 0\tLeader: none\tReplicas: 1,2\tIsr: \n" +
			"\tTopic: legacy\tPartition: 0\tLeader: 1\tReplicas: 2,1\tIsr: 1\n" +
			"\tTopic: orders\tPartition: 2\tLeader: 3\tReplicas: 3,1\tIsr: 3\n" +
			"\tTopic: test.topic\tPartition: 0\tLeader: none\tReplicas: 1\tIsr: \n"},
		{[]string{"--unavailable-partitions"}, "\tTopic: fresh\tPartition: 0\tLeader: none\tReplicas: 1,2\tIsr: \n" +
			"\tTopic: gone\tPartition: 0\tLeader: none\tReplicas: 4\tIsr: 4\n" +
			"\tTopic: test.topic\tPartition: 0\tLeader: none\tReplicas: 1\tIsr: \n"},
		// orders has min.insync.replicas=2: partition 2 (ISR [3]) is under it.
		{[]string{"--under-min-isr-partitions", "--topic", "orders|gone"}, "\tTopic: gone\tPartition: 0\tLeader: none\tReplicas: 4\tIsr: 4\n" +
			"\tTopic: orders\tPartition: 2\tLeader: 3\tReplicas: 3,1\tIsr: 3\n"},
		// --topic is a regular expression: '.' matches '_' and '.'.
		{[]string{"--topic", "test.topic"}, "Topic: test.topic\tPartitionCount: 1"},
	} {
		code, out, errOut := runCLI(t, append([]string{"topics", "describe", "--zookeeper", addr}, tc.args...)...)
		if code != 0 || !strings.HasPrefix(out, tc.want) {
			t.Errorf("%v: exit %d\n%s\nwant prefix\n%s\nstderr %s", tc.args, code, out, tc.want, errOut)
		}
		if len(tc.args) > 0 && strings.HasPrefix(tc.args[0], "--under") || strings.HasPrefix(tc.args[0], "--unavail") {
			if out != tc.want {
				t.Errorf("%v: got\n%s\nwant exactly\n%s", tc.args, out, tc.want)
			}
		}
	}

	code, _, errOut = runCLI(t, "topics", "describe", "--zookeeper", addr, "--topic", "nope")
	if code != 1 || !strings.HasSuffix(errOut, "\nError: Topic 'nope' does not exist as expected\n") {
		t.Errorf("unknown topic: exit %d %q", code, errOut)
	}

	code, out, _ = runCLI(t, "topics", "describe", "--zookeeper", addr, "--topic", "orders", "--output", "json")
	var dj struct {
		Topics []struct {
			Name       string
			TopicID    string `json:"topicId"`
			Partitions []struct {
				Partition   int
				Leader      *int
				UnderMinISR bool `json:"underMinIsr"`
			}
		}
	}
	if err := json.Unmarshal([]byte(out), &dj); code != 0 || err != nil || len(dj.Topics) != 1 || len(dj.Topics[0].Partitions) != 3 ||
		dj.Topics[0].TopicID != "8t3wd6ZqQy-4XwKmL0lJmA" || !dj.Topics[0].Partitions[2].UnderMinISR || *dj.Topics[0].Partitions[0].Leader != 1 {
		t.Errorf("json: exit %d %v %s", code, err, out)
	}
}

func TestListAndBrokers(t *testing.T) {
	addr := seed(t)
	code, out, _ := runCLI(t, "topics", "list", "--zookeeper", addr)
	want := "doomed - marked for deletion\nfresh\ngone\nlegacy\nmoving\norders\ntest.topic\n"
	if code != 0 || out != want {
		t.Errorf("list: exit %d\n%s\nwant\n%s", code, out, want)
	}
	t.Setenv(envZookeeper, addr) // the environment stands for --zookeeper
	code, out, errOut := runCLI(t, "brokers")
	if code != 0 {
		t.Fatalf("brokers: %d %s", code, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 5 || !strings.HasPrefix(lines[0], "ID  RACK") ||
		!strings.Contains(lines[1], "PLAINTEXT://kafka-1:9092") || !strings.Contains(lines[1], "yes (epoch 3)") ||
		!strings.Contains(lines[2], "rack-b") || !strings.HasPrefix(lines[4], "4 ") || !strings.Contains(lines[4], "offline") {
		t.Errorf("brokers:\n%s", out)
	}
	code, out, _ = runCLI(t, "brokers", "--output", "json")
	var bj struct {
		Controller *int
		Brokers    []struct {
			ID      int
			Live    bool
			Rack    *string
			Version int
		}
	}
	if err := json.Unmarshal([]byte(out), &bj); code != 0 || err != nil || *bj.Controller != 1 || len(bj.Brokers) != 4 ||
		bj.Brokers[1].Version != 4 || *bj.Brokers[1].Rack != "rack-b" || bj.Brokers[3].Live {
		t.Errorf("brokers json: %v %s", err, out)
	}
}

func TestCreateValidation(t *testing.T) {
	addr := seed(t)
	long := strings.Repeat("a", 250)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--topic", "bad/name", "--partitions", "1", "--replication-factor", "1"},
			"Topic name is invalid: 'bad/name' contains one or more characters other than ASCII alphanumerics, '.', '_' and '-'"},
		{[]string{"--topic", "..", "--partitions", "1", "--replication-factor", "1"}, "Topic name is invalid: '..' is not allowed"},
		{[]string{"--topic", long, "--partitions", "1", "--replication-factor", "1"},
			"Topic name is invalid: the length of '" + long + "' is longer than the max allowed length 249"},
		{[]string{"--topic", "orders", "--partitions", "1", "--replication-factor", "1"}, "Topic 'orders' already exists."},
		{[]string{"--topic", "doomed", "--partitions", "1", "--replication-factor", "1"}, "Topic 'doomed' is marked for deletion."},
		{[]string{"--topic", "test_topic", "--partitions", "1", "--replication-factor", "1"}, "Topic 'test_topic' collides with existing topics: test.topic"},
		{[]string{"--topic", "new", "--partitions", "1", "--replication-factor", "4"}, "Replication factor: 4 larger than available brokers: 3."},
		{[]string{"--topic", "new", "--partitions", "0", "--replication-factor", "1"}, "Number of partitions must be larger than 0."},
		// Partitions are checked before the name, as AdminZkClient.createTopic does.
		{[]string{"--topic", "bad/name", "--partitions", "-1", "--replication-factor", "1"}, "Number of partitions must be larger than 0."},
		{[]string{"--topic", "new", "--partitions", "1", "--replication-factor", "1", "--config", "retention.msx=1"}, "Unknown topic config name: retention.msx"},
		{[]string{"--topic", "new", "--partitions", "1", "--replication-factor", "1", "--config", "min.insync.replicas=0"},
			"Invalid value 0 for configuration min.insync.replicas: Value must be at least 1"},
		{[]string{"--topic", "new", "--partitions", "1", "--replication-factor", "1", "--config", "cleanup.policy=compact,nope"},
			"Invalid value nope for configuration cleanup.policy: String must be one of: compact, delete"},
		{[]string{"--topic", "new", "--partitions", "1", "--replication-factor", "1", "--config", "min.compaction.lag.ms=5", "--config", "max.compaction.lag.ms=4"},
			"conflict topic config setting min.compaction.lag.ms (5) > max.compaction.lag.ms (4)"},
		{[]string{"--topic", "new", "--partitions", "1", "--replication-factor", "1", "--config", "retention.ms"},
			`requirement failed: Invalid topic config: all configs to be added must be in the format "key=val".`},
		{[]string{"--topic", "new", "--replica-assignment", "1:1"}, "Partition replica lists may not contain duplicate entries: 1"},
		{[]string{"--topic", "new", "--replica-assignment", "1:2,3"}, "Partition 1 has different replication factor: [3]"},
		{[]string{"--topic", "new", "--replica-assignment", "1:x"}, `For input string: "x"`},
		{[]string{"--topic", "new", "--replica-assignment", "1", "--partitions", "1"}, `Option "[replica-assignment]" can't be used with option "[partitions]"`},
		{[]string{"--partitions", "1", "--replication-factor", "1"}, `Missing required argument "[topic]"`},
		{[]string{"--topic", "new", "--replication-factor", "1"}, `Missing required argument "[partitions]"`},
	} {
		code, out, errOut := runCLI(t, append([]string{"topics", "create", "--zookeeper", addr, "--no-wait"}, tc.args...)...)
		if code != 1 || errOut != "Error: "+tc.want+"\n" {
			t.Errorf("%v: exit %d stderr %q stdout %q\nwant %q", tc.args, code, errOut, out, tc.want)
		}
	}
	// Nothing was written by any of them.
	conn := connectTest(t, addr)
	for _, p := range []string{"/brokers/topics/new", "/config/topics/new", "/brokers/topics/test_topic", "/config/topics/test_topic"} {
		if ok, _, _ := conn.Exists(p); ok {
			t.Errorf("%s was written by a failed create", p)
		}
	}
}

// TestCreateRackModes: brokers with only some racks need --disable-rack-aware
// (AdminZkClient's longer message), as in kafka-topics.
func TestCreateRackModes(t *testing.T) {
	addr := seed(t)
	conn := connectTest(t, addr)
	if _, err := conn.Create("/brokers/ids/4", []byte(`{"listener_security_protocol_map":{"PLAINTEXT":"PLAINTEXT"},"endpoints":["PLAINTEXT://kafka-4:9092"],"jmx_port":-1,"port":9092,"host":"kafka-4","version":4,"timestamp":"1"}`), 0, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := runCLI(t, "topics", "create", "--zookeeper", addr, "--topic", "r", "--partitions", "2", "--replication-factor", "2", "--no-wait")
	if code != 1 || errOut != "Error: "+cluster.MessageNotAllBrokersHaveRack+"\n" {
		t.Errorf("enforced: exit %d %q", code, errOut)
	}
	code, _, errOut = runCLI(t, "plan", "--zookeeper", addr, "--partitions", "2", "--replication-factor", "2")
	if code != 1 || errOut != "Error: "+cluster.MessageNotAllBrokersHaveRack+"\n" {
		t.Errorf("plan enforced: exit %d %q", code, errOut)
	}
	code, out, errOut := runCLI(t, "topics", "create", "--zookeeper", addr, "--topic", "r", "--partitions", "4", "--replication-factor", "2",
		"--disable-rack-aware", "--start-index", "0", "--no-wait")
	if code != 0 {
		t.Fatalf("disabled: exit %d %s", code, errOut)
	}
	if !strings.Contains(out, "rack-unaware (--disable-rack-aware)") || !strings.Contains(out, "Created topic r.") {
		t.Errorf("output:\n%s", out)
	}
	// Brokers sorted by id, rack-unaware, start 0: Kafka's round robin.
	data, _, err := conn.Get("/brokers/topics/r")
	if err != nil || string(data) != `{"version":3,"partitions":{"0":[1,2],"1":[2,3],"2":[3,4],"3":[4,1]},"adding_replicas":{},"removing_replicas":{}}` {
		t.Errorf("topic znode %s %v", data, err)
	}
}

// TestCreateWritesKafkasZnodes checks the two znodes byte for byte.
func TestCreateWritesKafkasZnodes(t *testing.T) {
	addr := seed(t)
	code, out, errOut := runCLI(t, "topics", "create", "--zookeeper", addr, "--topic", "payments", "--partitions", "4",
		"--replication-factor", "2", "--start-index", "0", "--config", "retention.ms = 86400000", "--config", "cleanup.policy=compact", "--no-wait")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "Plan: 4 partitions, replication factor 2, 3 brokers in 2 racks, rack-aware") {
		t.Errorf("plan not printed:\n%s", out)
	}
	conn := connectTest(t, addr)
	data, stat, err := conn.Get("/config/topics/payments")
	if err != nil || string(data) != `{"version":1,"config":{"cleanup.policy":"compact","retention.ms":"86400000"}}` || stat.Version != 0 {
		t.Errorf("config znode %s %v", data, err)
	}
	// Rack-alternated list of {1:a,2:b,3:a} is [1,2,3]; start 0, shift 0.
	data, _, err = conn.Get("/brokers/topics/payments")
	if err != nil || string(data) != `{"version":3,"partitions":{"0":[1,2],"1":[2,3],"2":[3,2],"3":[1,2]},"adding_replicas":{},"removing_replicas":{}}` {
		t.Errorf("topic znode %s %v", data, err)
	}
	// No partition znodes: that is the controller's job.
	if ok, _, _ := conn.Exists("/brokers/topics/payments/partitions"); ok {
		t.Error("partitions created by the tool")
	}

	// --if-not-exists: exit 0, nothing written.
	code, _, errOut = runCLI(t, "topics", "create", "--zookeeper", addr, "--topic", "payments", "--partitions", "1", "--replication-factor", "1", "--if-not-exists")
	if code != 0 || errOut != "" {
		t.Errorf("--if-not-exists: %d %q", code, errOut)
	}
}

func TestCreateValidateOnlyAndReadOnly(t *testing.T) {
	addr := seed(t)
	code, out, errOut := runCLI(t, "topics", "create", "--zookeeper", addr, "--topic", "dry", "--partitions", "2", "--replication-factor", "1", "--start-index", "1", "--validate-only")
	if code != 0 {
		t.Fatalf("exit %d %s", code, errOut)
	}
	if !strings.Contains(out, "create /config/topics/dry {\"version\":1,\"config\":{}}") ||
		!strings.Contains(out, `create /brokers/topics/dry {"version":3,"partitions":{"0":[2],"1":[3]},"adding_replicas":{},"removing_replicas":{}}`) {
		t.Errorf("validate-only output:\n%s", out)
	}
	code, _, errOut = runCLI(t, "topics", "create", "--zookeeper", addr, "--read-only", "--topic", "dry", "--partitions", "2", "--replication-factor", "1")
	if code != 1 || !strings.Contains(errOut, "read-only mode: refusing to create topic dry") {
		t.Errorf("read-only: %d %q", code, errOut)
	}
	code, _, errOut = runCLI(t, "topics", "delete", "--zookeeper", addr, "--read-only", "--topic", "orders")
	if code != 1 || !strings.Contains(errOut, "read-only mode: refusing to delete topic orders") {
		t.Errorf("read-only delete: %d %q", code, errOut)
	}
	conn := connectTest(t, addr)
	for _, p := range []string{"/brokers/topics/dry", "/config/topics/dry", "/admin/delete_topics/orders"} {
		if ok, _, _ := conn.Exists(p); ok {
			t.Errorf("%s written", p)
		}
	}
}

// TestCreateIsAtomic: when another creator wins between the checks and the
// write, the multi fails as a whole: Kafka's message, nothing written, and
// an orphan config is overwritten as Kafka does.
func TestCreateIsAtomic(t *testing.T) {
	addr := seed(t)
	conn := connectTest(t, addr)
	s, err := zksource.Load(context.Background(), conn, cluster.ModelOptions{})
	if err != nil {
		t.Fatal(err)
	}
	plan, err := clusterops.PlanTopic(s, clusterops.TopicRequest{Name: "race", Partitions: 1, ReplicationFactor: 1, StartIndex: 0, ReplicaShift: -1,
		Config: map[string]string{"retention.ms": "5"}})
	if err != nil {
		t.Fatal(err)
	}
	// Someone else creates the topic znode first.
	if _, err := conn.Create("/brokers/topics/race", []byte(`{"version":3,"partitions":{"0":[9]},"adding_replicas":{},"removing_replicas":{}}`), 0, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	_, err = zkops.NewWriter(conn).CreateTopic(context.Background(), plan, clusterops.Apply)
	if cluster.ErrorClass(err) != cluster.ClassTopicExists || err.Error() != "Topic 'race' already exists." {
		t.Fatalf("got %v", err)
	}
	if ok, _, _ := conn.Exists("/config/topics/race"); ok {
		t.Error("config written by a failed multi")
	}

	// An orphan config left by a crashed creator is overwritten.
	if _, err := conn.Create("/config/topics/orphan", []byte(`{"version":1,"config":{"retention.ms":"1"}}`), 0, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	plan, err = clusterops.PlanTopic(s, clusterops.TopicRequest{Name: "orphan", Partitions: 1, ReplicationFactor: 1, StartIndex: 0, ReplicaShift: -1})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := zkops.NewWriter(conn).CreateTopic(context.Background(), plan, clusterops.Apply); err != nil {
		t.Fatal(err)
	}
	data, stat, _ := conn.Get("/config/topics/orphan")
	if string(data) != `{"version":1,"config":{}}` || stat.Version != 1 {
		t.Errorf("orphan config %s v%d", data, stat.Version)
	}
}

// fakeController initialises partitions of new topics as Kafka's controller
// does (leader = first replica, ISR = replicas), until stop is closed.
func fakeController(t *testing.T, addr string, skip func(topic string) bool) (stop func()) {
	conn := connectTest(t, addr)
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		seen := map[string]bool{}
		for {
			topics, _, ch, err := conn.ChildrenW("/brokers/topics")
			if err != nil {
				return
			}
			for _, topic := range topics {
				if seen[topic] || (skip != nil && skip(topic)) {
					continue
				}
				if ok, _, _ := conn.Exists("/brokers/topics/" + topic + "/partitions"); ok {
					seen[topic] = true
					continue
				}
				data, _, err := conn.Get("/brokers/topics/" + topic)
				if err != nil {
					continue
				}
				a, err := cluster.DecodeTopicAssignment(data)
				if err != nil {
					continue
				}
				seen[topic] = true
				for p, rs := range a.Partitions {
					state := cluster.EncodePartitionState(cluster.PartitionState{ControllerEpoch: 3, Leader: rs[0], ISR: rs})
					_ = zktest.CreateWith(conn, cluster.PartitionStatePath(topic, p), state)
				}
			}
			select {
			case <-ch:
			case <-done:
				return
			}
		}
	}()
	return func() { close(done); wg.Wait() }
}

func TestCreateWaitsUntilOnline(t *testing.T) {
	addr := seed(t)
	stop := fakeController(t, addr, nil)
	defer stop()
	code, out, errOut := runCLI(t, "topics", "create", "--zookeeper", addr, "--topic", "wait-me", "--partitions", "3", "--replication-factor", "2", "--start-index", "0")
	if code != 0 {
		t.Fatalf("exit %d: %s\n%s", code, errOut, out)
	}
	for _, want := range []string{"Created topic wait-me.", "partition 0: InSync (leader 1, isr [1,2])", "partition 2: InSync (leader 3, isr [3,2])",
		"All 3 partitions online in"} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in:\n%s", want, out)
		}
	}
}

func TestCreateTimeoutSaysWhy(t *testing.T) {
	addr := seed(t)
	conn := connectTest(t, addr)
	if err := conn.Delete("/controller", -1); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI(t, "topics", "create", "--zookeeper", addr, "--topic", "stuck", "--replica-assignment", "7:8", "--timeout", "1s")
	if code != 1 {
		t.Fatalf("exit %d\n%s", code, out)
	}
	for _, want := range []string{"0 of 1 partitions of stuck online after 1s",
		"waiting: no active controller: /controller is absent",
		"waiting: partition [0] has replicas only on brokers that are not registered"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr missing %q:\n%s", want, errOut)
		}
	}
	if !strings.Contains(out, "Created topic stuck.") || !strings.Contains(out, "partition 0: New (replicas [7,8])") {
		t.Errorf("stdout:\n%s", out)
	}
}

func TestDelete(t *testing.T) {
	addr := seed(t)
	code, out, _ := runCLI(t, "topics", "delete", "--zookeeper", addr, "--topic", "orders")
	if code != 0 || out != "Topic orders is marked for deletion.\nNote: This will have no impact if delete.topic.enable is not set to true.\n" {
		t.Errorf("delete: %d %q", code, out)
	}
	code, out, _ = runCLI(t, "topics", "delete", "--zookeeper", addr, "--topic", "doomed")
	if code != 0 || out != "Topic doomed is already marked for deletion.\n" {
		t.Errorf("already marked: %d %q", code, out)
	}
	code, _, errOut := runCLI(t, "topics", "delete", "--zookeeper", addr, "--topic", "nope")
	if code != 1 || errOut != "Error: Topic 'nope' does not exist as expected\n" {
		t.Errorf("unknown: %d %q", code, errOut)
	}
	conn := connectTest(t, addr)
	zktest.CreateWith(conn, "/brokers/topics/__consumer_offsets", []byte(`{"version":3,"partitions":{"0":[1]},"adding_replicas":{},"removing_replicas":{}}`))
	code, _, errOut = runCLI(t, "topics", "delete", "--zookeeper", addr, "--topic", "__consumer_offsets")
	if code != 1 || errOut != "Error: Topic __consumer_offsets is a kafka internal topic and is not allowed to be marked for deletion.\n" {
		t.Errorf("internal: %d %q", code, errOut)
	}
	if data, stat, err := conn.Get("/admin/delete_topics/orders"); err != nil || len(data) != 0 || stat.Version != 0 {
		t.Errorf("marker %q %v", data, err)
	}
}

// TestDeleteValidateOnly: --validate-only (and --dry-run) lists the
// topics the regular expression matches and the exact znode each run
// would create, says which are marked already, writes nothing, and works
// in read-only mode.
func TestDeleteValidateOnly(t *testing.T) {
	addr := seed(t)
	conn := connectTest(t, addr)
	before := readTree(t, conn, "/")
	want := "3 topics matching \"^(o.*|doomed|legacy)$\": doomed, legacy, orders\n" +
		"Topic doomed is already marked for deletion.\n" +
		"Would mark topic legacy for deletion, in one ZooKeeper multi:\n  create /admin/delete_topics/legacy (no data)\n" +
		"Would mark topic orders for deletion, in one ZooKeeper multi:\n  create /admin/delete_topics/orders (no data)\n" +
		"Validation passed; nothing was written.\n"
	for _, flags := range [][]string{{"--validate-only"}, {"--dry-run"}, {"--dry-run", "--read-only"}} {
		args := append([]string{"topics", "delete", "--zookeeper", addr, "--topic", "^(o.*|doomed|legacy)$"}, flags...)
		code, out, errOut := runCLI(t, args...)
		if code != 0 || out != want {
			t.Errorf("%v: exit %d %s\n%s\nwant\n%s", flags, code, errOut, out, want)
		}
	}
	if after := readTree(t, conn, "/"); !maps.EqualFunc(before, after, bytes.Equal) {
		t.Error("a dry run wrote to ZooKeeper")
	}
	code, _, errOut := runCLI(t, "topics", "delete", "--zookeeper", addr, "--topic", "__consumer_offsets|nope", "--validate-only")
	if code != 1 || errOut != "Error: Topic '__consumer_offsets|nope' does not exist as expected\n" {
		t.Errorf("no match: %d %q", code, errOut)
	}
}

// TestMissingChroot: a connect string whose root holds no Kafka cluster
// does not look like an empty one: with a cluster one level down, the
// read commands fail naming the connect string to use; with none, they
// note it on stderr (a cluster being set up has no broker yet either).
func TestMissingChroot(t *testing.T) {
	addr := zktest.Chroot(t) // host:port/chroot
	root := addr[strings.IndexByte(addr, '/'):]
	conn := connectTest(t, addr)
	for _, n := range kafkaTree {
		if err := zktest.CreateWith(conn, "/kafka"+n.path, []byte(n.data)); err != nil {
			t.Fatal(err)
		}
	}
	if err := zktest.CreateAll(conn, "/other"); err != nil {
		t.Fatal(err)
	}
	want := "Error: No Kafka cluster at " + addr + ": " + root + "/brokers/ids does not exist (no broker ever started there). " +
		"Found a Kafka cluster under " + root + "/kafka: connect to " + addr + "/kafka.\n"
	for _, args := range [][]string{{"topics", "list"}, {"brokers"}, {"topics", "describe"}} {
		code, out, errOut := runCLI(t, append(args, "--zookeeper", addr)...)
		if code != 1 || out != "" || errOut != want {
			t.Errorf("%v: exit %d, stdout %q, stderr %q\nwant %q", args, code, out, errOut, want)
		}
	}
	if code, out, errOut := runCLI(t, "topics", "list", "--zookeeper", addr+"/kafka"); code != 0 || !strings.Contains(out, "orders") || errOut != "" {
		t.Errorf("under /kafka: exit %d %q %q", code, out, errOut)
	}
	code, out, errOut := runCLI(t, "topics", "list", "--zookeeper", addr+"/other")
	if code != 0 || out != "" || errOut != "Note: No Kafka cluster at "+addr+"/other: "+root+"/other/brokers/ids does not exist (no broker ever started there). Is the chroot right?\n" {
		t.Errorf("empty: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}

// TestChrootIsolation: two clusters on one server see only their own topics.
func TestChrootIsolation(t *testing.T) {
	a, b := seed(t), zktest.Chroot(t)
	conn := connectTest(t, b)
	zktest.CreateWith(conn, "/brokers/ids/7", []byte(kafkaTree[0].data))
	code, out, _ := runCLI(t, "topics", "list", "--zookeeper", b)
	if code != 0 || out != "" {
		t.Errorf("b sees %q", out)
	}
	code, _, errOut := runCLI(t, "topics", "create", "--zookeeper", b, "--topic", "only-b", "--partitions", "1", "--replication-factor", "1", "--no-wait")
	if code != 0 {
		t.Fatal(errOut)
	}
	code, out, _ = runCLI(t, "topics", "list", "--zookeeper", a, "--topic", "only-b")
	if code != 0 || out != "" {
		t.Errorf("a sees b's topic: %q", out)
	}
	raw := zktest.Connect(t, zktest.Addr(t))
	chroot := b[strings.Index(b, "/"):]
	if ok, _, _ := raw.Exists(chroot + "/brokers/topics/only-b"); !ok {
		t.Error("topic not under b's chroot")
	}
	code, _, errOut = runCLI(t, "topics", "list", "--zookeeper", zktest.Addr(t)+"/no/such/chroot")
	if code != 1 || !strings.Contains(errOut, "/no/such/chroot") {
		t.Errorf("missing chroot: %d %q", code, errOut)
	}
}

func TestDigestAuth(t *testing.T) {
	addr := seed(t)
	raw := zktest.Connect(t, zktest.Addr(t))
	acl := zk.DigestACL(zk.PermAll, "ops", "secret")
	if _, err := raw.SetACL(addr[strings.Index(addr, "/"):]+"/brokers/topics/orders", acl, -1); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI(t, "topics", "describe", "--zookeeper", addr, "--topic", "orders", "--zk-digest", "ops:secret")
	if code != 0 || !strings.Contains(out, "TopicId: 8t3wd6ZqQy-4XwKmL0lJmA") {
		t.Errorf("with digest: %d %s %s", code, out, errOut)
	}
	// Without it the topic is there, its assignment marked as not
	// readable (neither missing nor empty).
	code, out, errOut = runCLI(t, "topics", "describe", "--zookeeper", addr, "--topic", "orders")
	if code != 0 || strings.Contains(out, "8t3wd6ZqQy") || !strings.Contains(out, "Topic: orders\tTopicId: (no access)\tPartitionCount: (no access)") ||
		!strings.Contains(errOut, "ktopo: no access to /brokers/topics/orders") {
		t.Errorf("without digest: exit %d\n%s%s", code, out, errOut)
	}
}

// TestServerGoneMidCommand: a server that dies while a command waits gives a
// clear error within the deadline, never a hang; a dead address fails fast
// naming the address.
func TestServerGoneMidCommand(t *testing.T) {
	srv := zktest.StartServer(t, zktest.Options{})
	conn := zktest.Connect(t, srv.Addr())
	for _, n := range kafkaTree[:6] {
		zktest.CreateAll(conn, n.path)
		conn.Set(n.path, []byte(n.data), -1)
	}
	type result struct {
		code   int
		errOut string
	}
	done := make(chan result, 1)
	go func() {
		code, _, errOut := runCLI(t, "topics", "create", "--zookeeper", srv.Addr(), "--topic", "t", "--partitions", "1",
			"--replication-factor", "1", "--request-timeout", "3s", "--session-timeout", "4s", "--timeout", "2m")
		done <- result{code, errOut}
	}()
	// Wait for the topic znode: the command is now waiting for the controller.
	deadline := time.Now().Add(20 * time.Second)
	for {
		if ok, _, _ := conn.Exists("/brokers/topics/t"); ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("topic never created")
		}
		time.Sleep(50 * time.Millisecond)
	}
	srv.Kill()
	select {
	case r := <-done:
		if r.code != 1 || !strings.Contains(r.errOut, srv.Addr()) {
			t.Errorf("exit %d, stderr %q: want an error naming %s", r.code, r.errOut, srv.Addr())
		}
	case <-time.After(60 * time.Second):
		t.Fatal("command still running 60s after the server died")
	}
	start := time.Now()
	code, _, errOut := runCLI(t, "brokers", "--zookeeper", srv.Addr(), "--request-timeout", "3s")
	if code != 1 || !strings.Contains(errOut, srv.Addr()) || time.Since(start) > 30*time.Second {
		t.Errorf("dead server: exit %d after %s: %q", code, time.Since(start), errOut)
	}
	fmt.Fprintln(testWriter{t}, "dead-server error:", strings.TrimSpace(errOut))
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimSpace(string(p)))
	return len(p), nil
}

// TestContextForCommands: --context works for every cluster command, flags
// win over the context, and the sandbox refuses contexts.
func TestContextForCommands(t *testing.T) {
	addr := seed(t)
	dir := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", dir)
	if err := os.MkdirAll(filepath.Join(dir, "ktopo"), 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := "contexts:\n  lab:\n    zookeeper: " + addr + "\n    read-only: true\n"
	if err := os.WriteFile(filepath.Join(dir, "ktopo", "config.yaml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI(t, "topics", "list", "--context", "lab")
	if code != 0 || !strings.Contains(out, "orders\n") {
		t.Fatalf("list --context: %d %q %q", code, out, errOut)
	}
	// The context is read-only: writes are refused.
	code, _, errOut = runCLI(t, "topics", "delete", "--context", "lab", "--topic", "orders")
	if code != 1 || !strings.Contains(errOut, "read-only mode") {
		t.Errorf("delete on a read-only context: %d %q", code, errOut)
	}
	code, _, errOut = runCLI(t, "brokers", "--context", "lab", "--zookeeper", addr)
	if code != 1 || !strings.Contains(errOut, "--zookeeper and --context name two clusters") {
		t.Errorf("both: %d %q", code, errOut)
	}
	code, _, errOut = runCLI(t, "brokers", "--context", "nope")
	if code != 1 || !strings.Contains(errOut, "nope") {
		t.Errorf("unknown context: %d %q", code, errOut)
	}
	code, _, errOut = runCLI(t, "sandbox", "--context", "lab")
	if code != 1 || !strings.Contains(errOut, "not on a --context") {
		t.Errorf("sandbox --context: %d %q", code, errOut)
	}
}
