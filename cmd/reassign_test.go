package cmd

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/go-zookeeper/zk"

	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/clusterops"
	"github.com/ktopo/ktopo/internal/testkit/zktest"
	"github.com/ktopo/ktopo/sandbox"
	"github.com/ktopo/ktopo/zkops"
	"github.com/ktopo/ktopo/zkwatch"
)

// reassignSandbox starts a sandbox (4 brokers in racks rack-a and rack-b,
// pace 0) on a fresh chroot of the package's ZooKeeper.
func reassignSandbox(t *testing.T, cfg sandbox.Config) string {
	t.Helper()
	cfg.Connect = zktest.Chroot(t)
	if cfg.Brokers == 0 {
		cfg.Brokers, cfg.Racks = 4, 2
	}
	cfg.NoAutoLeaderRebalance = true
	sb, err := sandbox.Start(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sb.Close() })
	return cfg.Connect
}

// tempFile writes a file in the test's directory and returns its path.
func tempFile(t *testing.T, name, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// znodeText returns a znode's data and version, "absent" when it does not
// exist.
func znodeText(t *testing.T, conn *zkwatch.Conn, p string) string {
	t.Helper()
	data, st, err := conn.Get(p)
	if errors.Is(err, zk.ErrNoNode) {
		return "absent"
	}
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%s v%d", data, st.Version)
}

func children(t *testing.T, conn *zkwatch.Conn, p string) []string {
	t.Helper()
	kids, _, err := conn.Children(p)
	if err != nil && !errors.Is(err, zk.ErrNoNode) {
		t.Fatal(err)
	}
	slices.Sort(kids)
	return kids
}

// expectZnodes compares znodes with what they must hold.
func expectZnodes(t *testing.T, conn *zkwatch.Conn, want map[string]string) {
	t.Helper()
	for _, p := range slices.Sorted(func(yield func(string) bool) {
		for k := range want {
			if !yield(k) {
				return
			}
		}
	}) {
		if got := znodeText(t, conn, p); got != want[p] {
			t.Errorf("%s:\n got  %s\n want %s", p, got, want[p])
		}
	}
}

const mvPlan = `{"version":1,"partitions":[{"topic":"mv","partition":0,"replicas":[2,3]},` +
	`{"topic":"mv","partition":1,"replicas":[3,4]},{"topic":"mv","partition":2,"replicas":[4,3]}]}`

// TestReassignSandbox: --execute (with --dry-run first) moves a leader out
// of a partition, moves another, and reorders a third on the sandbox, with
// Kafka's throttles; the znodes are exactly Kafka's; --verify reports each
// partition complete and removes the throttles; --list finds nothing.
func TestReassignSandbox(t *testing.T) {
	addr := reassignSandbox(t, sandbox.Config{PartitionSize: -1})
	runOK(t, "topics", "create", "--zookeeper", addr, "--topic", "mv", "--replica-assignment", "1:2,2:3,3:4")
	conn := connectTest(t, addr)
	waitUntil(t, "the controller gives mv an id", func() bool { return topicID(conn, "mv") != "" })
	plan := tempFile(t, "plan.json", mvPlan)
	changesBefore := children(t, conn, cluster.ConfigChangesPath)

	// --dry-run writes nothing, so read-only mode allows it.
	out := runOK(t, "reassign", "--zookeeper", addr, "--read-only", "--execute", "--reassignment-json-file", plan, "--throttle", "1048576", "--dry-run")
	current := `{"version":1,"partitions":[{"topic":"mv","partition":0,"replicas":[1,2],"log_dirs":["any","any"]},` +
		`{"topic":"mv","partition":1,"replicas":[2,3],"log_dirs":["any","any"]},{"topic":"mv","partition":2,"replicas":[3,4],"log_dirs":["any","any"]}]}`
	rates := `{"version":1,"config":{"follower.replication.throttled.rate":"1048576","leader.replication.throttled.rate":"1048576"}}`
	topicThrottles := `{"version":1,"config":{"follower.replication.throttled.replicas":"0:3,1:4","leader.replication.throttled.replicas":"0:1,0:2,1:2,1:3,2:3,2:4"}}`
	wantDry := "Current partition replica assignment\n\n" + current + "\n\n" + clusterops.MessageRollback + "\n" + `
3 partitions move: 2 replicas copied to new brokers, 3 partitions change their preferred leader.
  mv-0: 1,2 → 2,3   adds 3, removes 1, preferred leader 1 → 2
  mv-1: 2,3 → 3,4   adds 4, removes 2, preferred leader 2 → 3
  mv-2: 3,4 → 4,3   preferred leader 3 → 4


Dry run: every check passed. Would write, in one ZooKeeper multi:
  check  /brokers/topics/mv version 1
  set    /config/topics/mv (at version 0) ` + topicThrottles + `
  create /config/changes/config_change_<sequence number> {"version":2,"entity_path":"topics/mv"}
  create /config/brokers/1 ` + rates + `
  create /config/changes/config_change_<sequence number> {"version":2,"entity_path":"brokers/1"}
  create /config/brokers/2 ` + rates + `
  create /config/changes/config_change_<sequence number> {"version":2,"entity_path":"brokers/2"}
  create /config/brokers/3 ` + rates + `
  create /config/changes/config_change_<sequence number> {"version":2,"entity_path":"brokers/3"}
  create /config/brokers/4 ` + rates + `
  create /config/changes/config_change_<sequence number> {"version":2,"entity_path":"brokers/4"}
  create /admin/reassign_partitions {"version":1,"partitions":[{"topic":"mv","partition":0,"replicas":[2,3]},{"topic":"mv","partition":1,"replicas":[3,4]},{"topic":"mv","partition":2,"replicas":[4,3]}]}
`
	if out != wantDry {
		t.Errorf("--dry-run printed:\n%s\nwant:\n%s", out, wantDry)
	}
	expectZnodes(t, conn, map[string]string{cluster.ReassignPartitionsPath: "absent", cluster.BrokerConfigPath(1): "absent",
		cluster.TopicConfigPath("mv"): `{"version":1,"config":{}} v0`})

	// --preserve-throttles: the throttles stay for --verify (below).
	out = runOK(t, "reassign", "--zookeeper", addr, "--execute", "--reassignment-json-file", plan, "--throttle", "1048576", "--timeout", "60s", "--preserve-throttles")
	for _, want := range []string{"Current partition replica assignment\n\n" + current + "\n\n" + clusterops.MessageRollback + "\n",
		clusterops.MessageRunVerify + "\nThe inter-broker throttle limit was set to 1048576 B/s\nSuccessfully started partition reassignments for mv-0,mv-1,mv-2\n",
		"mv-0: done (replicas [2,3], leader 2, isr [2,3])", "mv-1: done (replicas [3,4], leader 3, isr [3,4])",
		"All 3 partition reassignments completed in ", "The throttles stay (--preserve-throttles): ktopo reassign --verify --reassignment-json-file " + plan + " removes them\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("--execute did not print %q:\n%s", want, out)
		}
	}
	expectZnodes(t, conn, map[string]string{
		cluster.ReassignPartitionsPath: "absent",
		// A1 (epoch 1), 3 joins, 2 elected (epoch 2), 1 leaves (epoch 3).
		cluster.PartitionStatePath("mv", 0): `{"controller_epoch":1,"leader":2,"version":1,"leader_epoch":3,"isr":[2,3]} v4`,
		cluster.PartitionStatePath("mv", 1): `{"controller_epoch":1,"leader":3,"version":1,"leader_epoch":3,"isr":[3,4]} v4`,
		// Complete at once: B3 bumps the epoch, 3 stays the leader.
		cluster.PartitionStatePath("mv", 2): `{"controller_epoch":1,"leader":3,"version":1,"leader_epoch":1,"isr":[3,4]} v1`,
		cluster.TopicConfigPath("mv"):       topicThrottles + " v1",
		cluster.BrokerConfigPath(1):         rates + " v0",
		cluster.BrokerConfigPath(4):         rates + " v0",
	})
	if n := len(children(t, conn, cluster.ConfigChangesPath)) - len(changesBefore); n != 5 {
		t.Errorf("%d config change notifications, want 5 (the topic and 4 brokers)", n)
	}
	data, st, err := conn.Get(cluster.TopicPath("mv"))
	a, derr := cluster.DecodeTopicAssignment(data)
	if err != nil || derr != nil || st.Version != 7 || len(a.AddingReplicas)+len(a.RemovingReplicas) > 0 ||
		!slices.Equal(a.Partitions[0], []int{2, 3}) || !slices.Equal(a.Partitions[1], []int{3, 4}) || !slices.Equal(a.Partitions[2], []int{4, 3}) {
		t.Errorf("topic znode %s v%d (want the targets, v7: U1 and B6 of each partition)", data, st.Version)
	}

	verify := "Status of partition reassignment:\nReassignment of partition mv-0 is completed.\n" +
		"Reassignment of partition mv-1 is completed.\nReassignment of partition mv-2 is completed.\n" +
		"Clearing broker-level throttles on brokers 1,2,3,4\nClearing topic-level throttles on topic mv\n"
	if out := runOK(t, "reassign", "--zookeeper", addr, "--verify", "--reassignment-json-file", plan); out != verify {
		t.Errorf("--verify printed:\n%s\nwant:\n%s", out, verify)
	}
	empty := `{"version":1,"config":{}}`
	cleared := map[string]string{cluster.TopicConfigPath("mv"): empty + " v2", cluster.BrokerConfigPath(1): empty + " v1",
		cluster.BrokerConfigPath(2): empty + " v1", cluster.BrokerConfigPath(3): empty + " v1", cluster.BrokerConfigPath(4): empty + " v1"}
	expectZnodes(t, conn, cleared)
	// Nothing left to clear: nothing written.
	if out := runOK(t, "reassign", "--zookeeper", addr, "--verify", "--reassignment-json-file", plan); out != verify {
		t.Errorf("second --verify printed:\n%s", out)
	}
	expectZnodes(t, conn, cleared)
	if out := runOK(t, "reassign", "--zookeeper", addr, "--list"); out != "No partition reassignments found.\n" {
		t.Errorf("--list printed %q", out)
	}
	// The rollback, throttled, without --preserve-throttles: once it is
	// done --execute removes the throttles it set, as --verify would.
	back := tempFile(t, "back.json", current)
	out = runOK(t, "reassign", "--zookeeper", addr, "--execute", "--reassignment-json-file", back, "--throttle", "1048576", "--timeout", "60s")
	if !strings.Contains(out, "All 3 partition reassignments completed in ") ||
		!strings.HasSuffix(out, "s.\nClearing broker-level throttles on brokers 1,2,3,4\nClearing topic-level throttles on topic mv\n") {
		t.Errorf("--execute of the rollback printed:\n%s", out)
	}
	expectZnodes(t, conn, map[string]string{cluster.TopicConfigPath("mv"): empty + " v4", cluster.BrokerConfigPath(1): empty + " v3",
		cluster.BrokerConfigPath(4): empty + " v3"})
}

// TestReassignInProgress: a throttled reassignment of a big partition
// (the sandbox copies it at the throttle's rate) is in progress for
// --verify, which says which throttles remain, and for --list; another
// --execute is refused with Kafka's message; once the throttle is lifted
// it completes and --verify (not in read-only mode) clears what is left.
func TestReassignInProgress(t *testing.T) {
	addr := reassignSandbox(t, sandbox.Config{PartitionSize: 1 << 30, ReplicationRate: 1 << 40})
	runOK(t, "topics", "create", "--zookeeper", addr, "--topic", "slow", "--replica-assignment", "1:2")
	conn := connectTest(t, addr)
	waitUntil(t, "the controller gives slow an id", func() bool { return topicID(conn, "slow") != "" })
	plan := tempFile(t, "plan.json", `{"version":1,"partitions":[{"topic":"slow","partition":0,"replicas":[2,3]}]}`)
	out := runOK(t, "reassign", "--zookeeper", addr, "--execute", "--reassignment-json-file", plan, "--throttle", "1024", "--no-wait")
	if !strings.HasSuffix(out, "Successfully started partition reassignment for slow-0\n") {
		t.Errorf("--execute --no-wait printed:\n%s", out)
	}
	waitUntil(t, "the controller starts the reassignment", func() bool {
		a, err := cluster.DecodeTopicAssignment([]byte(strings.SplitN(znodeText(t, conn, cluster.TopicPath("slow")), " v", 2)[0]))
		return err == nil && len(a.AddingReplicas[0]) > 0
	})
	wantVerify := "Status of partition reassignment:\nReassignment of partition slow-0 is still in progress.\n" +
		"Throttles remain on broker 1, broker 2, broker 3, topic slow: --verify removes them once no reassignment runs in the cluster.\n"
	if out := runOK(t, "reassign", "--zookeeper", addr, "--verify", "--reassignment-json-file", plan); out != wantVerify {
		t.Errorf("--verify printed:\n%s\nwant:\n%s", out, wantVerify)
	}
	wantList := "Current partition reassignments:\nslow-0: replicas: 2,3,1. adding: 3. removing: 1.\n" +
		"Started through /admin/reassign_partitions: slow-0.\n"
	if out := runOK(t, "reassign", "--zookeeper", addr, "--list"); out != wantList {
		t.Errorf("--list printed:\n%s\nwant:\n%s", out, wantList)
	}
	code, _, errOut := runCLI(t, "reassign", "--zookeeper", addr, "--execute", "--reassignment-json-file", plan)
	if code != 1 || errOut != "Error: "+clusterops.MessageReassignmentExists+"\n" {
		t.Errorf("a second --execute: exit %d, %q", code, errOut)
	}
	// Lift the topic throttle (what kafka-configs --delete-config does).
	entries, v, err := zkops.NewWriter(conn).ReadConfig(context.Background(), cluster.EntityTopics, "slow")
	if err != nil {
		t.Fatal(err)
	}
	ec := cluster.EntityConfig{Config: entries}
	cfg := ec.Map()
	delete(cfg, cluster.ConfigFollowerThrottledReplicas)
	delete(cfg, cluster.ConfigLeaderThrottledReplicas)
	if _, err := conn.Multi(zkops.ConfigChangeOps(clusterops.ConfigChange{EntityType: cluster.EntityTopics, Entity: "slow", Config: cfg, Version: v})...); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "the reassignment completes", func() bool { return znodeText(t, conn, cluster.ReassignPartitionsPath) == "absent" })
	code, out, errOut = runCLI(t, "reassign", "--zookeeper", addr, "--read-only", "--verify", "--reassignment-json-file", plan)
	if code != 1 || !strings.Contains(out, "Reassignment of partition slow-0 is completed.\nClearing broker-level throttles on brokers 1,2,3,4\n") ||
		errOut != "Error: read-only mode: refusing to remove the throttles (--preserve-throttles verifies without removing them)\n" {
		t.Errorf("--read-only --verify: exit %d\n%s%s", code, out, errOut)
	}
	rates := `{"version":1,"config":{"follower.replication.throttled.rate":"1024","leader.replication.throttled.rate":"1024"}} v0`
	expectZnodes(t, conn, map[string]string{cluster.BrokerConfigPath(3): rates})
	if out := runOK(t, "reassign", "--zookeeper", addr, "--verify", "--reassignment-json-file", plan, "--preserve-throttles"); strings.Contains(out, "Clearing") {
		t.Errorf("--preserve-throttles cleared:\n%s", out)
	}
	runOK(t, "reassign", "--zookeeper", addr, "--verify", "--reassignment-json-file", plan)
	expectZnodes(t, conn, map[string]string{cluster.BrokerConfigPath(3): `{"version":1,"config":{}} v1`,
		cluster.PartitionStatePath("slow", 0): `{"controller_epoch":1,"leader":2,"version":1,"leader_epoch":3,"isr":[2,3]} v4`})
}

// reassignCase is one bad input: the arguments (FILE is replaced by the
// path of a file holding file), ktopo's message, and which of Kafka's tools
// print the same message for it ("3.9": 3.9's kafka-reassign-partitions,
// "2.8": 2.8's with --zookeeper; none: ktopo's own wording, see
// docs/compatibility.md).
type reassignCase struct {
	name string
	args []string
	file string
	msg  string
	// more is what ktopo adds after the message (Kafka's, where kafka
	// names the tools that give it), and note a line it writes before.
	more, note string
	kafka      []string
}

// stderr is what ktopo writes on standard error for the case.
func (c reassignCase) stderr() string { return c.note + "Error: " + c.msg + c.more + "\n" }

// badReassignments use the topic "bad" (partitions 0 and 1 on brokers 1,2
// and 2,3) of a 3-broker cluster.
var badReassignments = []reassignCase{
	{name: "malformed", args: []string{"--execute", "--reassignment-json-file", "FILE"}, file: `{"version":1,"partitions":[`,
		msg: "The input string is not a valid JSON: unexpected end of JSON (line 1, column 28)"},
	{name: "empty file", args: []string{"--execute", "--reassignment-json-file", "FILE"}, file: "",
		msg: "The input string shouldn't be empty"},
	{name: "not an object", args: []string{"--execute", "--reassignment-json-file", "FILE"}, file: `[1]`,
		msg: "Expected JSON object, received [1]", kafka: []string{"3.9", "2.8"}},
	{name: "partition not an object", args: []string{"--execute", "--reassignment-json-file", "FILE"}, file: `{"partitions":[1]}`,
		msg: "Expected JSON object, received 1", kafka: []string{"3.9", "2.8"}},
	{name: "topic a number", args: []string{"--execute", "--reassignment-json-file", "FILE"}, file: `{"partitions":[{"topic":1,"partition":0,"replicas":[1]}]}`,
		msg: "Expected `String` value, received 1", kafka: []string{"3.9", "2.8"}},
	{name: "no topic", args: []string{"--execute", "--reassignment-json-file", "FILE"}, file: `{"partitions":[{"partition":0,"replicas":[1]}]}`,
		msg: "No such field exists: `topic`", kafka: []string{"3.9", "2.8"}},
	{name: "no replicas", args: []string{"--execute", "--reassignment-json-file", "FILE"}, file: `{"partitions":[{"topic":"bad","partition":0}]}`,
		msg: "No such field exists: `replicas`", kafka: []string{"3.9", "2.8"}},
	{name: "replicas a string", args: []string{"--execute", "--reassignment-json-file", "FILE"}, file: `{"partitions":[{"topic":"bad","partition":0,"replicas":"x"}]}`,
		msg: "Expected `JSON array` value, received \"x\"", kafka: []string{"3.9"}},
	{name: "fractional replica", args: []string{"--execute", "--reassignment-json-file", "FILE"}, file: `{"partitions":[{"topic":"bad","partition":0,"replicas":[1.5, 2]}]}`,
		msg: "Expected `Integer` value, received 1.5", kafka: []string{"3.9"}},
	{name: "huge replica", args: []string{"--execute", "--reassignment-json-file", "FILE"}, file: `{"partitions":[{"topic":"bad","partition":0,"replicas":[3000000000]}]}`,
		msg: "Expected `Integer` value, received 3000000000", kafka: []string{"3.9"}},
	{name: "partition a string", args: []string{"--execute", "--reassignment-json-file", "FILE"}, file: `{"partitions":[{"topic":"bad","partition":"0","replicas":[1,2]}]}`,
		msg: "Expected `Integer` value, received \"0\"", kafka: []string{"3.9"}},
	{name: "version 2", args: []string{"--execute", "--reassignment-json-file", "FILE"}, file: `{"version":2,"partitions":[]}`,
		msg: "Not supported version field value 2", kafka: []string{"3.9", "2.8"}},
	{name: "version a string", args: []string{"--execute", "--reassignment-json-file", "FILE"}, file: `{"version":"1","partitions":[]}`,
		msg: "Expected `Integer` value, received \"1\"", kafka: []string{"3.9"}},
	{name: "no partitions", args: []string{"--execute", "--reassignment-json-file", "FILE"}, file: `{"version":1}`,
		msg: "Partition reassignment list cannot be empty", kafka: []string{"3.9", "2.8"}},
	{name: "partitions an object", args: []string{"--execute", "--reassignment-json-file", "FILE"}, file: `{"version":1,"partitions":{"a":1}}`,
		msg: "Expected JSON array, received {\"a\":1}", kafka: []string{"3.9", "2.8"}},
	{name: "empty replicas", args: []string{"--execute", "--reassignment-json-file", "FILE"}, file: `{"partitions":[{"topic":"bad","partition":0,"replicas":[]}]}`,
		msg: "Partition replica list cannot be empty", kafka: []string{"3.9", "2.8"}},
	{name: "partition twice", args: []string{"--execute", "--reassignment-json-file", "FILE"},
		file: `{"partitions":[{"topic":"bad","partition":0,"replicas":[1,2]},{"topic":"bad","partition":0,"replicas":[2,3]}]}`,
		msg:  "Partition reassignment contains duplicate topic partitions: bad-0", kafka: []string{"3.9", "2.8"}},
	{name: "broker twice", args: []string{"--execute", "--reassignment-json-file", "FILE"},
		file: `{"partitions":[{"topic":"bad","partition":0,"replicas":[1,1,2,2]},{"topic":"bad","partition":1,"replicas":[3,3]}]}`,
		msg:  "Partition replica lists may not contain duplicate entries: bad-0 contains multiple entries for 1,2. bad-1 contains multiple entries for 3", kafka: []string{"3.9", "2.8"}},
	{name: "log_dirs of another length", args: []string{"--execute", "--reassignment-json-file", "FILE"},
		file: `{"partitions":[{"topic":"bad","partition":0,"replicas":[1,2],"log_dirs":["any"]}]}`,
		msg:  "Size of replicas list [1, 2] is different from size of log dirs list [any] for partition bad-0", kafka: []string{"3.9"}},
	{name: "log_dirs move", args: []string{"--execute", "--reassignment-json-file", "FILE"},
		file: `{"partitions":[{"topic":"bad","partition":0,"replicas":[1,2],"log_dirs":["/tmp/x","any"]}]}`,
		msg:  `Partition bad-0 names log directories (log_dirs other than "any"): moving replicas between the log directories of a broker needs Kafka's Admin API (kafka-reassign-partitions.sh --bootstrap-server); ktopo works through ZooKeeper, which cannot ask for it`},
	{name: "unknown topics", args: []string{"--execute", "--reassignment-json-file", "FILE"},
		file: `{"partitions":[{"topic":"nope","partition":0,"replicas":[1,2]},{"topic":"nope2","partition":3,"replicas":[1,2]}]}`,
		msg:  "The proposed assignment contains non-existent partitions: List(nope-0, nope2-3)", kafka: []string{"2.8"}},
	{name: "unknown partition", args: []string{"--execute", "--reassignment-json-file", "FILE"}, file: `{"partitions":[{"topic":"bad","partition":7,"replicas":[1,2]}]}`,
		msg: "The proposed assignment contains non-existent partitions: List(bad-7)", kafka: []string{"2.8"}},
	{name: "unknown brokers", args: []string{"--execute", "--reassignment-json-file", "FILE"}, file: `{"partitions":[{"topic":"bad","partition":0,"replicas":[1,9,8]}]}`,
		msg: "The proposed assignment contains non-existent brokerIDs: 9,8", kafka: []string{"2.8"}},
	{name: "negative broker", args: []string{"--execute", "--reassignment-json-file", "FILE"}, file: `{"partitions":[{"topic":"bad","partition":0,"replicas":[-1,2]}]}`,
		msg: "The proposed assignment contains non-existent brokerIDs: -1", kafka: []string{"2.8"}},
	{name: "missing file", args: []string{"--execute", "--reassignment-json-file", "/nonexistent.json"},
		msg: "Unable to read file /nonexistent.json", more: ": no such file or directory", kafka: []string{"3.9", "2.8"}},
	{name: "throttle not a number", args: []string{"--execute", "--reassignment-json-file", "FILE", "--throttle", "abc"}, file: `{"partitions":[]}`,
		msg: "Cannot parse argument 'abc' of option throttle", kafka: []string{"3.9", "2.8"}},
	{name: "two actions", args: []string{"--execute", "--verify", "--reassignment-json-file", "FILE"}, file: "{}",
		msg: "Command must include exactly one action: --generate, --execute, --verify, --cancel, --list", kafka: []string{"3.9", "2.8"}},
	{name: "no action", args: []string{"--reassignment-json-file", "FILE"}, file: "{}",
		msg: "Command must include exactly one action: --generate, --execute, --verify, --cancel, --list", kafka: []string{"3.9", "2.8"}},
	{name: "no file", args: []string{"--execute"},
		msg: `Missing required argument "[reassignment-json-file]"`, kafka: []string{"3.9", "2.8"}},
	{name: "throttle with verify", args: []string{"--verify", "--reassignment-json-file", "FILE", "--throttle", "10"}, file: "{}",
		msg: `Option "[throttle]" can't be used with action "[verify]"`, kafka: []string{"3.9", "2.8"}},
	{name: "broker list with execute", args: []string{"--execute", "--reassignment-json-file", "FILE", "--broker-list", "1"}, file: "{}",
		msg: `Option "[broker-list]" can't be used with action "[execute]"`, kafka: []string{"3.9", "2.8"}},
	{name: "generate without broker list", args: []string{"--generate", "--topics-to-move-json-file", "FILE"}, file: `{"topics":[{"topic":"bad"}]}`,
		msg: `Missing required argument "[broker-list]"`, kafka: []string{"3.9", "2.8"}},
	{name: "broker list not numbers", args: []string{"--generate", "--topics-to-move-json-file", "FILE", "--broker-list", "1,2,x"}, file: `{"topics":[{"topic":"bad"}]}`,
		msg: `For input string: "x"`, kafka: []string{"3.9", "2.8"}},
	{name: "empty broker list", args: []string{"--generate", "--topics-to-move-json-file", "FILE", "--broker-list", ""}, file: `{"topics":[{"topic":"bad"}]}`,
		msg: `For input string: ""`, kafka: []string{"3.9", "2.8"}},
	{name: "broker listed twice", args: []string{"--generate", "--topics-to-move-json-file", "FILE", "--broker-list", "1,1,2,2"}, file: `{"topics":[{"topic":"bad"}]}`,
		msg: "Broker list contains duplicate entries: [1, 2]", kafka: []string{"3.9"}},
	{name: "too few brokers", args: []string{"--generate", "--topics-to-move-json-file", "FILE", "--broker-list", "1"}, file: `{"topics":[{"topic":"bad"}]}`,
		msg: "Replication factor: 2 larger than available brokers: 1.", kafka: []string{"3.9", "2.8"}},
	{name: "unregistered brokers", args: []string{"--generate", "--topics-to-move-json-file", "FILE", "--broker-list", "1,9"}, file: `{"topics":[{"topic":"bad"}]}`,
		msg: "Replication factor: 2 larger than available brokers: 1.", note: "Note: broker 9 is not registered: left out of --broker-list, as Kafka's tool does.\n",
		kafka: []string{"3.9", "2.8"}},
	{name: "unknown topic to move", args: []string{"--generate", "--topics-to-move-json-file", "FILE", "--broker-list", "1,2,3"}, file: `{"topics":[{"topic":"nope"}]}`,
		msg: "Topic nope not found."},
	{name: "topic to move twice", args: []string{"--generate", "--topics-to-move-json-file", "FILE", "--broker-list", "1,2,3"}, file: `{"topics":[{"topic":"a"},{"topic":"a"}]}`,
		msg: "List of topics to reassign contains duplicate entries: [a]", kafka: []string{"3.9"}},
	{name: "malformed topics file", args: []string{"--generate", "--topics-to-move-json-file", "FILE", "--broker-list", "1,2,3"}, file: `{"topics":[`,
		msg: "The input string is not a valid JSON", kafka: []string{"3.9", "2.8"}},
	{name: "topics file version 2", args: []string{"--generate", "--topics-to-move-json-file", "FILE", "--broker-list", "1,2,3"}, file: `{"version":2,"topics":[]}`,
		msg: "Not supported version field value 2", kafka: []string{"3.9", "2.8"}},
	{name: "topics file without topic", args: []string{"--generate", "--topics-to-move-json-file", "FILE", "--broker-list", "1,2,3"}, file: `{"topics":[{"name":"a"}]}`,
		msg: "No such field exists: `topic`", kafka: []string{"3.9", "2.8"}},
	{name: "strategy", args: []string{"--generate", "--topics-to-move-json-file", "FILE", "--broker-list", "1,2,3", "--strategy", "best"}, file: `{"topics":[{"topic":"bad"}]}`,
		msg: `invalid --strategy "best": want kafka, minimal or balanced`},
	{name: "cancel", args: []string{"--cancel", "--reassignment-json-file", "FILE"}, file: `{}`,
		msg: "--cancel needs Kafka's Admin API (AlterPartitionReassignments): ZooKeeper has no way to cancel a reassignment. " +
			"Use kafka-reassign-partitions.sh --bootstrap-server … --cancel, or start a reassignment back to the current assignment once this one completes"},
	{name: "additional", args: []string{"--execute", "--additional", "--reassignment-json-file", "FILE"}, file: `{}`,
		msg: "--additional needs Kafka's Admin API (AlterPartitionReassignments): through ZooKeeper a reassignment starts only when " +
			"/admin/reassign_partitions is created, so nothing can be added to one in progress. Wait until it completes (ktopo reassign --verify)"},
	{name: "read-only", args: []string{"--read-only", "--execute", "--reassignment-json-file", "FILE"}, file: `{"partitions":[{"topic":"bad","partition":0,"replicas":[2,3]}]}`,
		msg: "read-only mode: refusing to start a reassignment (--dry-run checks it and shows what would be written)"},
}

// treeMark is what a write by ktopo would change: the config change
// notifications, the config znodes' versions, the reassignment request and
// the topic znode's version.
func treeMark(t *testing.T, conn *zkwatch.Conn, topic string) string {
	t.Helper()
	var b strings.Builder
	b.WriteString(strings.Join(children(t, conn, cluster.ConfigChangesPath), ","))
	for _, p := range []string{cluster.ReassignPartitionsPath, cluster.TopicPath(topic), cluster.TopicConfigPath(topic)} {
		b.WriteString("|" + znodeText(t, conn, p))
	}
	for _, id := range children(t, conn, cluster.ConfigBrokersPath) {
		b.WriteString("|" + id + ":" + znodeText(t, conn, cluster.ConfigBrokersPath+"/"+id))
	}
	return b.String()
}

// runReassignCase runs one bad input against a cluster.
func runReassignCase(t *testing.T, addr string, c reassignCase) (code int, out, errOut string) {
	t.Helper()
	args := []string{"reassign", "--zookeeper", addr}
	path := ""
	if slices.Contains(c.args, "FILE") {
		path = tempFile(t, "in.json", c.file)
	}
	for _, a := range c.args {
		if a == "FILE" {
			a = path
		}
		args = append(args, a)
	}
	return runCLI(t, args...)
}

// TestReassignBadInput: every kind of bad input gets its message (Kafka's
// where Kafka has one), exit status 1, and writes nothing.
func TestReassignBadInput(t *testing.T) {
	addr := reassignSandbox(t, sandbox.Config{Brokers: 3, Racks: 3, PartitionSize: -1})
	runOK(t, "topics", "create", "--zookeeper", addr, "--topic", "bad", "--replica-assignment", "1:2,2:3")
	conn := connectTest(t, addr)
	waitUntil(t, "the controller gives bad an id", func() bool { return topicID(conn, "bad") != "" })
	before := treeMark(t, conn, "bad")
	for _, c := range badReassignments {
		t.Run(c.name, func(t *testing.T) {
			code, out, errOut := runReassignCase(t, addr, c)
			if code != 1 || errOut != c.stderr() {
				t.Errorf("exit %d, stderr %q, want %q\nstdout:\n%s", code, errOut, c.stderr(), out)
			}
			if after := treeMark(t, conn, "bad"); after != before {
				t.Errorf("wrote:\nbefore %s\nafter  %s", before, after)
			}
		})
	}
	// An empty topics file proposes nothing, as Kafka's tool does.
	out := runOK(t, "reassign", "--zookeeper", addr, "--generate", "--topics-to-move-json-file", tempFile(t, "t.json", "{}"), "--broker-list", "1,2,3")
	if !strings.HasSuffix(out, "Current partition replica assignment\n{\"version\":1,\"partitions\":[]}\n\nProposed partition reassignment configuration\n{\"version\":1,\"partitions\":[]}\n") {
		t.Errorf("--generate of no topics:\n%s", out)
	}
}

// raceMulti is a session that runs race right before its next multi.
type raceMulti struct {
	*zkwatch.Conn
	race func()
}

func (r *raceMulti) Multi(ops ...any) ([]zk.MultiResponse, error) {
	if r.race != nil {
		r.race()
		r.race = nil
	}
	return r.Conn.Multi(ops...)
}

// TestReassignConcurrentChange: a change between the preview and the write
// (a partition added, the topic's config changed, a broker's config
// created, another reassignment started) fails the multi: the message says
// what changed and nothing is written.
func TestReassignConcurrentChange(t *testing.T) {
	addr := reassignSandbox(t, sandbox.Config{Brokers: 3, Racks: 3, PartitionSize: -1})
	runOK(t, "topics", "create", "--zookeeper", addr, "--topic", "race", "--replica-assignment", "1:2")
	conn := connectTest(t, addr)
	waitUntil(t, "the controller gives race an id", func() bool { return topicID(conn, "race") != "" })
	rs, err := cluster.ParseReassignmentJSON([]byte(`{"partitions":[{"topic":"race","partition":0,"replicas":[2,3]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	acl := zk.WorldACL(zk.PermAll)
	cases := []struct {
		name   string
		change func()
		undo   func()
		msg    string
	}{
		{"topic znode rewritten", func() {
			data, _, _ := conn.Get(cluster.TopicPath("race"))
			if _, err := conn.Set(cluster.TopicPath("race"), data, -1); err != nil {
				t.Fatal(err)
			}
		}, nil, "the assignment of topic race changed after it was read (partitions added, or a reassignment started); nothing was written: run the command again to check the new assignment"},
		{"topic config changed", func() {
			if _, err := conn.Set(cluster.TopicConfigPath("race"), []byte(`{"version":1,"config":{"retention.ms":"1000"}}`), -1); err != nil {
				t.Fatal(err)
			}
		}, nil, "/config/topics/race changed while the throttles were being set; nothing was written (run the command again): " + zkops.ErrConcurrentConfigChange.Error()},
		{"broker config created", func() {
			if _, err := conn.Create(cluster.BrokerConfigPath(3), []byte(`{"version":1,"config":{}}`), 0, acl); err != nil {
				t.Fatal(err)
			}
		}, func() { _ = conn.Delete(cluster.BrokerConfigPath(3), -1) },
			"/config/brokers/3 was created while the throttles were being set; nothing was written (run the command again): " + zkops.ErrConcurrentConfigChange.Error()},
		{"reassignment started", func() {
			if _, err := conn.Create(cluster.ReassignPartitionsPath, cluster.EncodeReassignPartitions(nil), 0, acl); err != nil {
				t.Fatal(err)
			}
		}, func() { _ = conn.Delete(cluster.ReassignPartitionsPath, -1) }, clusterops.MessageReassignmentExists},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := loadSnapshot(t, conn)
			// The change comes once the write has read what it needs (the
			// configs the throttles go to), right before its multi.
			var before string
			racing := &raceMulti{Conn: conn, race: func() {
				c.change()
				before = treeMark(t, conn, "race")
			}}
			_, _, err := zkops.NewWriter(racing).StartReassignment(context.Background(), s, rs, 1000, clusterops.Apply)
			if before == "" {
				t.Fatalf("no multi was sent: %v", err)
			}
			if err == nil || err.Error() != c.msg {
				t.Errorf("got %v\nwant %s", err, c.msg)
			}
			if after := treeMark(t, conn, "race"); after != before {
				t.Errorf("wrote:\nbefore %s\nafter  %s", before, after)
			}
			if c.undo != nil {
				c.undo()
			}
		})
	}
}

// TestGenerateMinimal: --generate --strategy minimal with every broker
// but 3 listed moves exactly broker 3's 6 replicas (every other replica
// stays where it is), as the TUI's drain of broker 3 does; --strategy
// balanced, which also evens the topics out, is counted next to it.
func TestGenerateMinimal(t *testing.T) {
	addr := reassignSandbox(t, sandbox.Config{Brokers: 6, Racks: 3, PartitionSize: -1})
	runOK(t, "topics", "create", "--zookeeper", addr, "--topic", "a", "--replica-assignment", "1:2:3,4:5:6,1:5:3,2:6:4,3:1:5,6:4:2,1:2:6")
	runOK(t, "topics", "create", "--zookeeper", addr, "--topic", "b", "--replica-assignment", "3:1,3:2,3:4,5:6,6:1")
	out := runOK(t, "reassign", "--zookeeper", addr, "--generate", "--topics-to-move-json-file", tempFile(t, "t.json", `{"topics":[{"topic":"a"},{"topic":"b"}]}`),
		"--broker-list", "1,2,4,5,6", "--strategy", "minimal")
	if !strings.Contains(out, "Strategy minimal:  6 of 31 replicas move") || !strings.Contains(out, "Strategy balanced: ") {
		t.Fatalf("counts:\n%s", out)
	}
	i := strings.LastIndex(out, "Proposed partition reassignment configuration\n")
	j := strings.LastIndex(out, "Current partition replica assignment\n")
	proposed, err := cluster.ParseReassignmentJSON([]byte(strings.TrimSpace(out[i+len("Proposed partition reassignment configuration\n"):])))
	if err != nil {
		t.Fatal(err)
	}
	current, err := cluster.ParseReassignmentJSON([]byte(strings.TrimSpace(out[j+len("Current partition replica assignment\n") : i])))
	if err != nil {
		t.Fatal(err)
	}
	was := map[cluster.TopicPartition][]int{}
	for _, r := range current {
		was[r.TopicPartition] = r.Replicas
	}
	for _, r := range proposed {
		old := was[r.TopicPartition]
		for _, id := range old {
			if id != 3 && !slices.Contains(r.Replicas, id) {
				t.Fatalf("%s: %v → %v moves broker %d's replica", r.TopicPartition, old, r.Replicas, id)
			}
		}
		if slices.Contains(r.Replicas, 3) || len(r.Replicas) != len(old) {
			t.Fatalf("%s: %v → %v", r.TopicPartition, old, r.Replicas)
		}
	}
}
