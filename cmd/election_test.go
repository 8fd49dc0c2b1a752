package cmd

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/go-zookeeper/zk"

	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/clusterops"
	"github.com/ktopo/ktopo/internal/testkit/kafkatest"
	"github.com/ktopo/ktopo/internal/testkit/zktest"
	"github.com/ktopo/ktopo/sandbox"
	"github.com/ktopo/ktopo/zkops"
	"github.com/ktopo/ktopo/zkwatch"
)

// electionTarget is a cluster the election scenario runs on: the sandbox
// or real Kafka, with a way to take a broker down and bring it back.
type electionTarget struct {
	connect string
	tag     string // names the scenario's topic
	stop    func(t *testing.T, id int)
	start   func(t *testing.T, id int)
	// kafka, for real Kafka: 3.9's Admin-API tool is run on ktopo's JSON
	// too (2.8's ZooKeeper tool runs on every target).
	kafka *kafkatest.Cluster
}

// runElectionScenario: a preferred election written by ktopo completes on
// the cluster's controller, and what its preview said each partition would
// do is what the controller did. The topic has three partitions: 0 led by
// its preferred replica v until v goes down (then it cannot move: v is
// offline; once v is back in the ISR it moves back), 1 never needs an
// election, 2 prefers broker 4, which was not registered when the topic was
// created and then registers without a broker behind it (live, never in
// the ISR: it cannot move).
func runElectionScenario(t *testing.T, et electionTarget) {
	conn := connectTest(t, et.connect)
	s := loadSnapshot(t, conn)
	ctrl := s.Controller().BrokerID
	var others []int
	v := -1
	for _, id := range s.LiveBrokerIDs() {
		if id != ctrl && v < 0 {
			v = id
		} else {
			others = append(others, id)
		}
	}
	if v < 0 || len(others) != 2 || slices.Contains(s.LiveBrokerIDs(), 4) {
		t.Fatalf("want 3 brokers 1..3, live %v, controller %d", s.LiveBrokerIDs(), ctrl)
	}
	x, y := others[0], others[1]
	topic := "elect-" + et.tag
	runOK(t, "topics", "create", "--zookeeper", et.connect, "--topic", topic, "--timeout", "90s",
		"--replica-assignment", fmt.Sprintf("%d:%d:%d,%d:%d:%d,4:%d:%d", v, x, y, x, y, v, x, y))
	tp := func(p int) string { return topic + "-" + strconv.Itoa(p) }
	state := func(p int) string {
		part := partitionOf(loadSnapshot(t, conn), cluster.TopicPartition{Topic: topic, Partition: p})
		if part == nil || !part.HasLeader() {
			return "none"
		}
		return fmt.Sprintf("%d %v epoch %d", part.Leader, part.ISR, part.LeaderEpoch)
	}
	waitUntilShowing(t, "the topic is in sync", func() bool {
		return state(0) == fmt.Sprintf("%d [%d %d %d] epoch 0", v, v, x, y) && state(1) == fmt.Sprintf("%d [%d %d %d] epoch 0", x, x, y, v) &&
			state(2) == fmt.Sprintf("%d [%d %d] epoch 0", x, x, y)
	}, func() string {
		return fmt.Sprintf("brokers %v, controller %d; partitions (leader ISR epoch): %s | %s | %s",
			loadSnapshot(t, conn).LiveBrokerIDs(), loadSnapshot(t, conn).Controller().BrokerID, state(0), state(1), state(2))
	})

	// v down: partition 0 led by x; broker 4 registered with nobody behind it.
	et.stop(t, v)
	waitUntil(t, fmt.Sprintf("broker %d is gone and partition 0 led by %d", v, x), func() bool {
		return strings.HasPrefix(state(0), fmt.Sprintf("%d [%d %d] ", x, x, y)) && !loadSnapshot(t, conn).IsLive(v)
	})
	reg, _, err := conn.Get(cluster.BrokerIDPath(x))
	if err != nil {
		t.Fatal(err)
	}
	fake := regexp.MustCompile(`("port":|127\.0\.0\.1:|localhost:)\d+`).ReplaceAllString(string(reg), "${1}1")
	if _, err := conn.Create(cluster.BrokerIDPath(4), []byte(fake), zk.FlagEphemeral, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Delete(cluster.BrokerIDPath(4), -1) })
	waitUntil(t, "broker 4 is registered", func() bool { return loadSnapshot(t, conn).IsLive(4) })
	before0, before2 := state(0), state(2)

	// Both partitions that need an election cannot have one.
	code, out, errOut := runCLI(t, "leader-election", "--zookeeper", et.connect, "--election-type", "preferred", "--topic", topic, "--timeout", "90s")
	want := fmt.Sprintf(`Preferred leader election of 3 partitions of %[1]s (the preferred replica is the first of each):
cannot move (2):
  %[2]s  leader %[5]d  preferred replica %[7]d is offline (PREFERRED_LEADER_NOT_AVAILABLE)
  %[4]s  leader %[5]d  preferred replica 4 is not in the ISR [%[5]d,%[6]d] (PREFERRED_LEADER_NOT_AVAILABLE)
not needed (1), already led by the preferred replica (ELECTION_NOT_NEEDED):
  %[3]s  leader %[5]d

Created preferred replica election path with %[2]s,%[4]s
The controller ran the election in D.
Valid replica already elected for partitions %[3]s
Error completing leader election (PREFERRED) for partition: %[2]s: org.apache.kafka.common.errors.PreferredLeaderNotAvailableException: Failed to elect leader for partition %[2]s under strategy PreferredReplicaPartitionLeaderElectionStrategy
Error completing leader election (PREFERRED) for partition: %[4]s: org.apache.kafka.common.errors.PreferredLeaderNotAvailableException: Failed to elect leader for partition %[4]s under strategy PreferredReplicaPartitionLeaderElectionStrategy
`, topic, tp(0), tp(1), tp(2), x, y, v)
	if code != 1 || maskDuration(out) != want || errOut != "Error: 2 replica(s) could not be elected\n" {
		t.Fatalf("election with %d down: exit %d\n%s\nwant\n%s\nstderr %q", v, code, out, want, errOut)
	}
	checkElectionDone(t, conn)
	if state(0) != before0 || state(2) != before2 {
		t.Errorf("failed elections changed the states: %s, %s; were %s, %s", state(0), state(2), before0, before2)
	}

	// v back in the ISRs: partition 0 moves back, 2 still cannot.
	et.start(t, v)
	waitUntil(t, fmt.Sprintf("broker %d is back in the ISRs", v), func() bool {
		return strings.HasPrefix(state(0), fmt.Sprintf("%d [%d %d %d] ", x, x, y, v)) && strings.HasPrefix(state(1), fmt.Sprintf("%d [%d %d %d] ", x, x, y, v))
	})
	file := filepath.Join(t.TempDir(), "elect.json")
	writeFile(t, file, fmt.Sprintf(`{"partitions":[{"topic":%[1]q,"partition":1},{"topic":%[1]q,"partition":0},{"topic":%[1]q,"partition":2}]}`, topic))
	preview := fmt.Sprintf(`Preferred leader election of 3 partitions of %[1]s (the preferred replica is the first of each):
will move (1):
  %[2]s  leader %[5]d -> %[7]d
cannot move (1):
  %[4]s  leader %[5]d  preferred replica 4 is not in the ISR [%[5]d,%[6]d] (PREFERRED_LEADER_NOT_AVAILABLE)
not needed (1), already led by the preferred replica (ELECTION_NOT_NEEDED):
  %[3]s  leader %[5]d
`, topic, tp(0), tp(1), tp(2), x, y, v)
	znode := fmt.Sprintf(`{"version":1,"partitions":[{"topic":%[1]q,"partition":0},{"topic":%[1]q,"partition":2}]}`, topic)
	code, out, errOut = runCLI(t, "leader-election", "--zookeeper", et.connect, "--election-type", "preferred", "--path-to-json-file", file, "--dry-run")
	if want := preview + "\nDry run: would write, in one ZooKeeper create:\n  create /admin/preferred_replica_election " + znode + "\n"; code != 0 || out != want {
		t.Fatalf("dry run: exit %d %s\n%s\nwant\n%s", code, errOut, out, want)
	}
	checkElectionDone(t, conn)
	code, out, errOut = runCLI(t, "leader-election", "--zookeeper", et.connect, "--election-type", "preferred", "--path-to-json-file", file, "--timeout", "90s")
	want = preview + fmt.Sprintf(`
Created preferred replica election path with %[2]s,%[4]s
%[2]s: leader %[5]d -> %[7]d (leader epoch 2)
The controller ran the election in D.
Successfully completed leader election (PREFERRED) for partitions %[2]s
Valid replica already elected for partitions %[3]s
Error completing leader election (PREFERRED) for partition: %[4]s: org.apache.kafka.common.errors.PreferredLeaderNotAvailableException: Failed to elect leader for partition %[4]s under strategy PreferredReplicaPartitionLeaderElectionStrategy
`, topic, tp(0), tp(1), tp(2), x, y, v)
	if code != 1 || maskDuration(out) != want || errOut != "Error: 1 replica(s) could not be elected\n" {
		t.Fatalf("election with %d back: exit %d\n%s\nwant\n%s\nstderr %q", v, code, out, want, errOut)
	}
	checkElectionDone(t, conn)
	if got, want := state(0), fmt.Sprintf("%d [%d %d %d] epoch 2", v, x, y, v); got != want {
		t.Errorf("partition 0 after the election: %s, want %s", got, want)
	}

	// ktopo's JSON in Kafka's tools. 2.8's kafka-preferred-replica-election.sh
	// --zookeeper writes it as ktopo does, and the controller carries it out.
	jsonFile := filepath.Join(t.TempDir(), "ktopo.json")
	writeFile(t, jsonFile, znode)
	tool28 := kafkatest.Require(t, kafkatest.Kafka28)
	res, err := tool28.Tool("kafka.admin.PreferredReplicaLeaderElectionCommand", "--zookeeper", et.connect, "--path-to-json-file", jsonFile)
	if err != nil || res.Code != 0 || !strings.Contains(res.Stdout, fmt.Sprintf("Created preferred replica election path with %s,%s\n", tp(0), tp(2))) {
		t.Fatalf("2.8's tool with ktopo's JSON: %v exit %d\n%s%s", err, res.Code, res.Stdout, res.Stderr)
	}
	waitUntil(t, "the controller deletes the election 2.8's tool wrote", func() bool {
		ok, _, err := conn.Exists(cluster.PreferredReplicaElectionPath)
		return err == nil && !ok
	})
	if got, want := state(0), fmt.Sprintf("%d [%d %d %d] epoch 2", v, x, y, v); got != want {
		t.Errorf("partition 0 after 2.8's election: %s, want %s", got, want)
	}
	if et.kafka == nil {
		return
	}
	// 3.9's kafka-leader-election.sh (the Admin API; 2.8 brokers answer it
	// too): the same verdicts as ktopo's on the same state.
	tool39 := kafkatest.Require(t, kafkatest.Kafka39)
	res, err = tool39.Tool("org.apache.kafka.tools.LeaderElectionCommand", "--bootstrap-server", et.kafka.Bootstrap(),
		"--election-type", "preferred", "--path-to-json-file", jsonFile)
	if err != nil {
		t.Fatal(err)
	}
	kafkaLines := fmt.Sprintf(`Valid replica already elected for partitions %[1]s
Error completing leader election (PREFERRED) for partition: %[2]s: org.apache.kafka.common.errors.PreferredLeaderNotAvailableException: Failed to elect leader for partition %[2]s under strategy PreferredReplicaPartitionLeaderElectionStrategy
`, tp(0), tp(2))
	if res.Code != 1 || res.Stdout != kafkaLines || firstLine(res.Stderr) != "1 replica(s) could not be elected" {
		t.Errorf("kafka-leader-election with ktopo's JSON: exit %d\n%s\nwant\n%s\nstderr %s", res.Code, res.Stdout, kafkaLines, firstLine(res.Stderr))
	}
	code, out, _ = runCLI(t, "leader-election", "--zookeeper", et.connect, "--election-type", "preferred", "--path-to-json-file", jsonFile, "--timeout", "90s")
	if _, result, _ := strings.Cut(maskDuration(out), "The controller ran the election in D.\n"); code != 1 || result != kafkaLines {
		t.Errorf("ktopo with the same JSON: exit %d\n%s\nwant the result\n%s", code, out, kafkaLines)
	}
	checkElectionDone(t, conn)
}

// checkElectionDone: no election pending once ktopo has reported.
func checkElectionDone(t *testing.T, conn *zkwatch.Conn) {
	t.Helper()
	if ok, _, err := conn.Exists(cluster.PreferredReplicaElectionPath); err != nil || ok {
		t.Errorf("%s still there (%v)", cluster.PreferredReplicaElectionPath, err)
	}
}

var durationRE = regexp.MustCompile(`in [0-9.]+(ns|µs|ms|s|m[0-9.]+s)\.`)

func maskDuration(s string) string { return durationRE.ReplaceAllString(s, "in D.") }

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}

// TestLeaderElectionSandbox runs the scenario on the sandbox (real
// ZooKeeper), without its automatic leader rebalance.
func TestLeaderElectionSandbox(t *testing.T) {
	addr := zktest.Chroot(t)
	sb, err := sandbox.Start(context.Background(), sandbox.Config{Connect: addr, Brokers: 3, Racks: 3, NoAutoLeaderRebalance: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sb.Close() })
	runElectionScenario(t, electionTarget{connect: addr, tag: "sandbox",
		stop: func(t *testing.T, id int) {
			if err := sb.Kill(id); err != nil {
				t.Fatal(err)
			}
		},
		start: func(t *testing.T, id int) {
			if err := sb.Restart(id); err != nil {
				t.Fatal(err)
			}
		}})
}

// TestRealKafkaLeaderElection runs the scenario on real Kafka 3.9 and 2.8
// (a broker stopped cleanly, as an operator would), then gives ktopo's
// JSON to Kafka's own tools.
func TestRealKafkaLeaderElection(t *testing.T) {
	for _, v := range realVersions {
		t.Run(v, func(t *testing.T) {
			c := kafkatest.Shared(t, v)
			runElectionScenario(t, electionTarget{connect: c.Connect(), tag: versionTag(v), kafka: c,
				stop: func(t *testing.T, id int) { c.Broker(id).Stop() },
				start: func(t *testing.T, id int) {
					if err := c.Broker(id).Start(); err != nil {
						t.Fatal(err)
					}
				}})
		})
	}
}

// electionBadInput is bad input to leader-election: ktopo's message, and
// what 3.9's kafka-leader-election.sh says to the same (sameAsKafka: the same
// message; "": not comparable, Kafka's tool would go on to ask a broker).
// files holds the JSON files, by name.
var electionBadInput = struct {
	files map[string]string
	cases []struct{ args, want, kafka string }
}{
	files: map[string]string{
		"empty": "", "cut": `{"partitions":[`, "nopart": `{}`, "pobj": `{"partitions":{}}`, "notopic": `{"partitions":[{"partition":0}]}`,
		"dup":     `{"partitions":[{"topic":"orders","partition":0},{"topic":"orders","partition":0}]}`,
		"str":     `{"partitions":[{"topic":"orders","partition":"0"}]}`,
		"unknown": `{"partitions":[{"topic":"orders","partition":0},{"topic":"orders","partition":7},{"topic":"nope","partition":0}]}`,
	},
	cases: []struct{ args, want, kafka string }{
		{"", "Missing required option(s): election-type", sameAsKafka},
		{"--election-type preferred", "One and only one of the following options is required: topic, all-topic-partitions, path-to-json-file", sameAsKafka},
		{"--election-type preferred --all-topic-partitions --topic orders", "One and only one of the following options is required: topic, all-topic-partitions, path-to-json-file", sameAsKafka},
		{"--election-type preferred --topic orders --partition 0 --path-to-json-file x", "One and only one of the following options is required: topic, all-topic-partitions, path-to-json-file", sameAsKafka},
		{"--election-type preferred --all-topic-partitions --partition 1", "Option partition is only allowed if topic is used", sameAsKafka},
		{"--election-type foo --all-topic-partitions", "Cannot parse argument 'foo' of option election-type", sameAsKafka},
		{"--election-type foo --topic x --partition y", "Cannot parse argument 'foo' of option election-type", sameAsKafka},
		{"--election-type preferred --topic orders --partition y", "Cannot parse argument 'y' of option partition", sameAsKafka},
		{"--election-type unclean --topic orders --partition 0", uncleanRefusal, ""},
		{"--election-type UNCLEAN --all-topic-partitions", uncleanRefusal, ""},
		{"--election-type preferred --path-to-json-file DIR/missing", "Unable to read file DIR/missing: no such file or directory",
			"java.io.IOException: Unable to read file DIR/missing"},
		{"--election-type preferred --path-to-json-file DIR/empty", "Replica election data is empty", sameAsKafka},
		{"--election-type preferred --path-to-json-file DIR/cut", "Replica election data is not valid JSON: unexpected end of JSON at byte 15",
			"Replica election data is empty"},
		{"--election-type preferred --path-to-json-file DIR/nopart", `Replica election data is missing "partitions" field`, sameAsKafka},
		{"--election-type preferred --path-to-json-file DIR/pobj", "Expected JSON array, received {}",
			"com.fasterxml.jackson.databind.JsonMappingException: Expected JSON array, received {}"},
		{"--election-type preferred --path-to-json-file DIR/notopic", "No such field exists: `topic`",
			"com.fasterxml.jackson.databind.JsonMappingException: No such field exists: `topic`"},
		{"--election-type preferred --path-to-json-file DIR/dup", "Replica election data contains duplicate partitions: [orders-0]", sameAsKafka},
		{"--election-type preferred --path-to-json-file DIR/str", "Expected `Integer` value, received \"0\"",
			"com.fasterxml.jackson.databind.JsonMappingException: Expected `Integer` value, received \"0\""},
		{"--election-type preferred --path-to-json-file DIR/unknown", "The partitions do not exist: nope-0, orders-7 (nothing was written)", ""},
		{"--election-type preferred --topic orders --partition 9", "The partition does not exist: orders-9 (nothing was written)", ""},
		{"--election-type preferred --topic nope", "Topic 'nope' does not exist as expected", ""},
		{"--election-type preferred --topic orders --bootstrap-server x:9092", "--zookeeper and --bootstrap-server name two clusters: give one of them (--bootstrap-server for a KRaft cluster)", ""},
	},
}

// sameAsKafka marks a bad input Kafka's tool answers with ktopo's message.
const sameAsKafka = "same"

// electionBadInputArgs writes the files into dir and returns the case's
// arguments.
func electionBadInputArgs(t *testing.T, dir, a string) []string {
	t.Helper()
	for name, data := range electionBadInput.files {
		if p := filepath.Join(dir, name); !fileExists(p) {
			writeFile(t, p, data)
		}
	}
	return strings.Fields(strings.ReplaceAll(a, "DIR", dir))
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// TestLeaderElectionBadInput: every kind of bad input gets Kafka's message
// (TestRealKafkaLeaderElectionMessages checks which are word for word
// 3.9's) or a clear one, exits 1 and writes nothing.
func TestLeaderElectionBadInput(t *testing.T) {
	addr := seed(t)
	dir := t.TempDir()
	for _, tc := range electionBadInput.cases {
		argv := append([]string{"leader-election", "--zookeeper", addr}, electionBadInputArgs(t, dir, tc.args)...)
		want := strings.ReplaceAll(tc.want, "DIR", dir)
		code, out, errOut := runCLI(t, argv...)
		if code != 1 || errOut != "Error: "+want+"\n" {
			t.Errorf("%s: exit %d, stderr %q, want %q (stdout %q)", tc.args, code, errOut, want, out)
		}
	}
	checkElectionDone(t, connectTest(t, addr))
}

// TestRealKafkaLeaderElectionMessages runs 3.9's kafka-leader-election.sh
// on the same bad input (its checks come before it connects to a broker):
// it prints the message ktopo prints, or the one docs/compatibility.md
// lists instead.
func TestRealKafkaLeaderElectionMessages(t *testing.T) {
	tool := kafkatest.Require(t, kafkatest.Kafka39)
	dir := t.TempDir()
	for _, tc := range electionBadInput.cases {
		if tc.kafka == "" {
			continue
		}
		argv := append([]string{"--bootstrap-server", "127.0.0.1:1"}, electionBadInputArgs(t, dir, tc.args)...)
		res, err := tool.Tool("org.apache.kafka.tools.LeaderElectionCommand", argv...)
		if err != nil {
			t.Fatal(err)
		}
		want := tc.kafka
		if want == sameAsKafka {
			want = tc.want
		}
		want = strings.ReplaceAll(want, "DIR", dir)
		if res.Code != 1 || firstLine(res.Stderr) != want {
			t.Errorf("%s: Kafka exit %d, %q, want %q", tc.args, res.Code, firstLine(res.Stderr), want)
		}
	}
}

// TestLeaderElectionPending: while /admin/preferred_replica_election exists
// ktopo refuses as 2.8's kafka-preferred-replica-election.sh does, with
// its message, and so it does when the znode appears between the preview
// and the write; the znode is left as it was.
func TestLeaderElectionPending(t *testing.T) {
	addr := seed(t)
	conn := connectTest(t, addr)
	pending := `{"version":1,"partitions":[{"topic":"orders","partition":1},{"topic":"legacy","partition":0}]}`
	if err := zktest.CreateWith(conn, cluster.PreferredReplicaElectionPath, []byte(pending)); err != nil {
		t.Fatal(err)
	}
	const refusal = "Preferred replica leader election currently in progress for orders-1,legacy-0. Aborting operation"
	for _, a := range [][]string{args("--topic orders --partition 0"), args("--all-topic-partitions"), args("--topic orders --dry-run")} {
		code, out, errOut := runCLI(t, append([]string{"leader-election", "--zookeeper", addr, "--election-type", "preferred"}, a...)...)
		if code != 1 || out != "" || errOut != "Error: "+refusal+"\n" {
			t.Errorf("%v: exit %d %q %q", a, code, out, errOut)
		}
	}
	if data, stat, err := conn.Get(cluster.PreferredReplicaElectionPath); err != nil || string(data) != pending || stat.Version != 0 {
		t.Errorf("pending election changed: %s %v", data, err)
	}
	// The race: planned with no election pending, one written before ours.
	if err := conn.Delete(cluster.PreferredReplicaElectionPath, -1); err != nil {
		t.Fatal(err)
	}
	plan, err := clusterops.PlanPreferredElection(loadSnapshot(t, conn), clusterops.ElectionRequest{All: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Create(cluster.PreferredReplicaElectionPath, []byte(pending), 0, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	if _, _, err := zkops.NewWriter(conn).Elect(context.Background(), plan, clusterops.Apply); err == nil || err.Error() != refusal {
		t.Errorf("race: %v", err)
	}
	if data, _, err := conn.Get(cluster.PreferredReplicaElectionPath); err != nil || string(data) != pending {
		t.Errorf("pending election changed: %s %v", data, err)
	}
	// Kafka 2.8's tool says the same on the same tree.
	if tool := kafkatest.Require(t, kafkatest.Kafka28); tool != nil {
		f := filepath.Join(t.TempDir(), "e.json")
		writeFile(t, f, `{"partitions":[{"topic":"orders","partition":0}]}`)
		res, err := tool.Tool("kafka.admin.PreferredReplicaLeaderElectionCommand", "--zookeeper", addr, "--path-to-json-file", f)
		if err != nil || res.Code != 1 || !strings.Contains(res.Stderr, "Caused by: kafka.admin.AdminOperationException: "+refusal+"\n") {
			t.Errorf("2.8's tool: %v exit %d\n%s", err, res.Code, res.Stderr)
		}
	}
}

// TestLeaderElectionNoController: with no controller the znode is written
// (a controller elected later runs it) and the wait says why it timed out;
// --no-wait returns at once. In the seeded tree legacy-0 ([2,1], led by 1
// with ISR [1]) cannot move, and is written all the same: the controller
// decides.
func TestLeaderElectionNoController(t *testing.T) {
	addr := seed(t)
	conn := connectTest(t, addr)
	if err := conn.Delete(cluster.ControllerPath, -1); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI(t, "leader-election", "--zookeeper", addr, "--election-type", "preferred", "--topic", "legacy", "--timeout", "300ms")
	if code != 1 || !strings.Contains(out, "  legacy-0  leader 1  preferred replica 2 is not in the ISR [1] (PREFERRED_LEADER_NOT_AVAILABLE)\n") || !strings.Contains(out, "No active controller: the election runs when one is elected.\n") ||
		errOut != "Error: the election was not carried out within 300ms: /admin/preferred_replica_election is still there (no controller was active); the controller runs it when it gets to it\n" {
		t.Errorf("exit %d\n%s%s", code, out, errOut)
	}
	data, _, err := conn.Get(cluster.PreferredReplicaElectionPath)
	if err != nil || string(data) != `{"version":1,"partitions":[{"topic":"legacy","partition":0}]}` {
		t.Errorf("znode %s %v", data, err)
	}
	if err := conn.Delete(cluster.PreferredReplicaElectionPath, -1); err != nil {
		t.Fatal(err)
	}
	code, out, _ = runCLI(t, "leader-election", "--zookeeper", addr, "--election-type", "preferred", "--topic", "legacy", "--partition", "0", "--no-wait")
	if code != 0 || !strings.HasSuffix(out, "Created preferred replica election path with legacy-0\nNot waiting: the controller deletes the znode once it has run the election.\n") {
		t.Errorf("--no-wait: exit %d\n%s", code, out)
	}
	// Nothing to elect: nothing written.
	if err := conn.Delete(cluster.PreferredReplicaElectionPath, -1); err != nil {
		t.Fatal(err)
	}
	code, out, _ = runCLI(t, "leader-election", "--zookeeper", addr, "--election-type", "preferred", "--topic", "orders", "--partition", "0")
	if code != 0 || !strings.HasSuffix(out, "\nNothing to elect.\nValid replica already elected for partitions orders-0\n") {
		t.Errorf("nothing to elect: exit %d\n%s", code, out)
	}
	checkElectionDone(t, conn)
}
