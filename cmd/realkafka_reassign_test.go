package cmd

import (
	"encoding/json"
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/go-zookeeper/zk"

	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/clusterops"
	"github.com/ktopo/ktopo/internal/testkit/kafkatest"
	"github.com/ktopo/ktopo/zkwatch"
)

// Kafka's reassignment tool: 2.8's with --zookeeper (the path ktopo
// takes: /admin/reassign_partitions and the config znodes), 3.9's with
// --bootstrap-server (the Admin API).
const (
	reassignTool28 = "kafka.admin.ReassignPartitionsCommand"
	reassignTool39 = "org.apache.kafka.tools.reassign.ReassignPartitionsCommand"
)

func kafkaReassignZK(t *testing.T, c *kafkatest.Cluster, args ...string) kafkatest.Result {
	t.Helper()
	res, err := kafkatest.Require(t, kafkatest.Kafka28).Tool(reassignTool28, append([]string{"--zookeeper", c.Connect()}, args...)...)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func kafkaReassign39(t *testing.T, c *kafkatest.Cluster, args ...string) kafkatest.Result {
	t.Helper()
	res, err := kafkatest.Require(t, kafkatest.Kafka39).Tool(reassignTool39, append([]string{"--bootstrap-server", c.Bootstrap()}, args...)...)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// toolLines returns a Kafka tool's stdout lines without 2.8's deprecation
// warning for --zookeeper and without blank lines.
func toolLines(r kafkatest.Result) []string {
	var out []string
	for _, l := range strings.Split(r.Stdout, "\n") {
		if l == "" || strings.HasPrefix(l, "Warning: --zookeeper is deprecated") ||
			strings.HasPrefix(l, "Warning: because you are using the deprecated --zookeeper option") {
			continue
		}
		out = append(out, l)
	}
	return out
}

// toolMessage is the error a Kafka tool printed: "Error: <message>" on
// stdout, a terse failure line, or a usage error on stderr.
func toolMessage(r kafkatest.Result) string {
	lines := toolLines(r)
	if len(lines) > 0 {
		return strings.TrimPrefix(lines[0], "Error: ")
	}
	first, _, _ := strings.Cut(r.Stderr, "\n")
	return first
}

// after returns the line after the one equal to header.
func after(lines []string, header string) string {
	for i, l := range lines {
		if l == header && i+1 < len(lines) {
			return lines[i+1]
		}
	}
	return ""
}

// jsonEqual compares two JSON documents by value.
func jsonEqual(t *testing.T, a, b string) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal([]byte(a), &x); err != nil {
		t.Fatalf("%s: %v", a, err)
	}
	if err := json.Unmarshal([]byte(b), &y); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	xs, _ := json.Marshal(x)
	ys, _ := json.Marshal(y)
	return string(xs) == string(ys)
}

func znodeData(t *testing.T, conn *zkwatch.Conn, p string) (string, int32) {
	t.Helper()
	data, st, err := conn.Get(p)
	if err != nil {
		t.Fatalf("%s: %v", p, err)
	}
	return string(data), st.Version
}

// waitReassigned waits until no reassignment runs: no request znode and
// no topic of topics with adding or removing replicas.
func waitReassigned(t *testing.T, conn *zkwatch.Conn, topics ...string) {
	t.Helper()
	waitUntil(t, "the reassignment completes", func() bool {
		if ok, _, _ := conn.Exists(cluster.ReassignPartitionsPath); ok {
			return false
		}
		for _, topic := range topics {
			data, _, err := conn.Get(cluster.TopicPath(topic))
			if err != nil {
				return false
			}
			a, err := cluster.DecodeTopicAssignment(data)
			if err != nil || len(a.AddingReplicas) > 0 || len(a.RemovingReplicas) > 0 {
				return false
			}
		}
		return true
	})
}

func planFor(topic string) string {
	return `{"version":1,"partitions":[{"topic":"` + topic + `","partition":0,"replicas":[2,3]},` +
		`{"topic":"` + topic + `","partition":1,"replicas":[3,1,2]},{"topic":"` + topic + `","partition":2,"replicas":[1,3]}]}`
}

// TestRealKafkaReassign: on real Kafka 3.9 and 2.8 controllers, the same
// reassignment of two identical topics, one by Kafka's tool (2.8,
// --zookeeper, --throttle) and one by ktopo: both complete with the same
// partition states and topic znodes; the throttles ktopo writes equal
// Kafka's (topic and broker configs, one change notification per entity);
// ktopo's --verify agrees with Kafka's (3.9 and 2.8) and removes the
// throttles as Kafka's does; and each tool executes the other's rollback
// file.
func TestRealKafkaReassign(t *testing.T) {
	for _, v := range realVersions {
		t.Run(v, func(t *testing.T) {
			c := kafkatest.Shared(t, v)
			conn := connectTest(t, c.Connect())
			kTopic, oTopic := "rk-kafka-"+versionTag(v), "rk-ktopo-"+versionTag(v)
			for _, topic := range []string{kTopic, oTopic} {
				runOK(t, "topics", "create", "--zookeeper", c.Connect(), "--topic", topic, "--replica-assignment", "1:2,2:3,3:1", "--timeout", "90s")
				waitUntil(t, "the controller gives "+topic+" an id", func() bool { return topicID(conn, topic) != "" })
			}

			// --generate: the current assignment is Kafka's, word for word.
			topicsFile := tempFile(t, "topics.json", `{"topics":[{"topic":"`+kTopic+`"}],"version":1}`)
			ours := strings.Split(runOK(t, "reassign", "--zookeeper", c.Connect(), "--generate", "--topics-to-move-json-file", topicsFile, "--broker-list", "1,2,3"), "\n")
			// 3.9's tool asks a broker, whose metadata may trail ZooKeeper.
			var bs kafkatest.Result
			waitUntil(t, "3.9's --generate knows "+kTopic, func() bool {
				bs = kafkaReassign39(t, c, "--generate", "--topics-to-move-json-file", topicsFile, "--broker-list", "1,2,3")
				return bs.Code == 0
			})
			for _, theirs := range []kafkatest.Result{
				kafkaReassignZK(t, c, "--generate", "--topics-to-move-json-file", topicsFile, "--broker-list", "1,2,3"), bs,
			} {
				if o, k := after(ours, "Current partition replica assignment"), after(toolLines(theirs), "Current partition replica assignment"); o == "" || o != k {
					t.Errorf("--generate current assignment:\nktopo %s\nkafka %s", o, k)
				}
			}

			changes0 := len(children(t, conn, cluster.ConfigChangesPath))
			kPlan, oPlan := tempFile(t, "k.json", planFor(kTopic)), tempFile(t, "o.json", planFor(oTopic))
			res := kafkaReassignZK(t, c, "--execute", "--reassignment-json-file", kPlan, "--throttle", "100000")
			if res.Code != 0 {
				t.Fatalf("kafka --execute: %+v", res)
			}
			kRollback := tempFile(t, "k-rollback.json", after(toolLines(res), "Current partition replica assignment"))
			waitReassigned(t, conn, kTopic)
			changesKafka := len(children(t, conn, cluster.ConfigChangesPath)) - changes0
			kafkaConfigs := map[string]string{}
			for _, p := range []string{cluster.TopicConfigPath(kTopic), cluster.BrokerConfigPath(1), cluster.BrokerConfigPath(2), cluster.BrokerConfigPath(3)} {
				kafkaConfigs[p], _ = znodeData(t, conn, p)
			}
			// Kafka's --verify removes the throttles it set.
			res = kafkaReassign39(t, c, "--verify", "--reassignment-json-file", kPlan)
			if res.Code != 0 || !slices.Contains(toolLines(res), "Clearing topic-level throttles on topic "+kTopic) {
				t.Fatalf("kafka --verify: %+v", res)
			}
			kafkaCleared := map[string]string{}
			for p := range kafkaConfigs {
				kafkaCleared[p], _ = znodeData(t, conn, p)
			}

			changes1 := len(children(t, conn, cluster.ConfigChangesPath))
			// --preserve-throttles: the throttles stay, as Kafka's --execute
			// leaves them, to be compared.
			out := runOK(t, "reassign", "--zookeeper", c.Connect(), "--execute", "--reassignment-json-file", oPlan, "--throttle", "100000", "--timeout", "90s", "--preserve-throttles")
			if !strings.Contains(out, "All 3 partition reassignments completed in ") {
				t.Fatalf("ktopo --execute:\n%s", out)
			}
			oRollback := tempFile(t, "o-rollback.json", after(toolLines(kafkatest.Result{Stdout: out}), "Current partition replica assignment"))
			if n := len(children(t, conn, cluster.ConfigChangesPath)) - changes1; n != changesKafka {
				t.Errorf("ktopo wrote %d config change notifications, Kafka's tool %d", n, changesKafka)
			}
			topicPath := map[string]string{cluster.TopicConfigPath(oTopic): cluster.TopicConfigPath(kTopic)}
			for _, p := range []string{cluster.TopicConfigPath(oTopic), cluster.BrokerConfigPath(1), cluster.BrokerConfigPath(2), cluster.BrokerConfigPath(3)} {
				kp := p
				if k, ok := topicPath[p]; ok {
					kp = k
				}
				got, _ := znodeData(t, conn, p)
				if !jsonEqual(t, got, kafkaConfigs[kp]) {
					t.Errorf("%s: ktopo wrote %s\nKafka's tool %s", p, got, kafkaConfigs[kp])
				}
			}
			// The same states, written by the same controller.
			for p := range 3 {
				k, kv := znodeData(t, conn, cluster.PartitionStatePath(kTopic, p))
				o, ov := znodeData(t, conn, cluster.PartitionStatePath(oTopic, p))
				if k != o || kv != ov {
					t.Errorf("partition %d: after Kafka's tool %s v%d, after ktopo %s v%d", p, k, kv, o, ov)
				}
			}
			kt, ktv := znodeData(t, conn, cluster.TopicPath(kTopic))
			ot, otv := znodeData(t, conn, cluster.TopicPath(oTopic))
			ka, _ := cluster.DecodeTopicAssignment([]byte(kt))
			oa, _ := cluster.DecodeTopicAssignment([]byte(ot))
			if !maps.EqualFunc(ka.Partitions, oa.Partitions, slices.Equal[[]int]) || ktv != otv {
				t.Errorf("topic znodes: after Kafka's tool %s v%d, after ktopo %s v%d", kt, ktv, ot, otv)
			}

			// --verify: ktopo says what Kafka's tools say (2.8 wrote "is
			// complete.", 3.x "is completed.").
			ourVerify := strings.Split(runOK(t, "reassign", "--zookeeper", c.Connect(), "--verify", "--reassignment-json-file", oPlan, "--preserve-throttles"), "\n")
			ourVerify = slices.DeleteFunc(ourVerify, func(l string) bool { return l == "" })
			if theirs := toolLines(kafkaReassign39(t, c, "--verify", "--reassignment-json-file", oPlan, "--preserve-throttles")); !slices.Equal(ourVerify, theirs) {
				t.Errorf("--verify:\nktopo %q\n3.9   %q", ourVerify, theirs)
			}
			theirs28 := toolLines(kafkaReassignZK(t, c, "--verify", "--reassignment-json-file", oPlan, "--preserve-throttles"))
			for i := range theirs28 {
				theirs28[i] = strings.Replace(theirs28[i], " is complete.", " is completed.", 1)
			}
			if !slices.Equal(ourVerify, theirs28) {
				t.Errorf("--verify:\nktopo %q\n2.8   %q", ourVerify, theirs28)
			}
			out = runOK(t, "reassign", "--zookeeper", c.Connect(), "--verify", "--reassignment-json-file", oPlan)
			if !strings.HasSuffix(out, "Clearing broker-level throttles on brokers 1,2,3\nClearing topic-level throttles on topic "+oTopic+"\n") {
				t.Errorf("ktopo --verify:\n%s", out)
			}
			for p, k := range kafkaCleared {
				if p == cluster.TopicConfigPath(kTopic) {
					p = cluster.TopicConfigPath(oTopic)
				}
				if got, _ := znodeData(t, conn, p); !jsonEqual(t, got, k) {
					t.Errorf("%s after --verify: ktopo %s, Kafka %s", p, got, k)
				}
			}

			// Each tool rolls the other's reassignment back with the file it
			// printed; ktopo's, throttled, ends removing the throttles as
			// Kafka's --verify did above.
			out = runOK(t, "reassign", "--zookeeper", c.Connect(), "--execute", "--reassignment-json-file", kRollback, "--throttle", "100000", "--timeout", "90s")
			if !strings.HasSuffix(out, "Clearing broker-level throttles on brokers 1,2,3\nClearing topic-level throttles on topic "+kTopic+"\n") {
				t.Errorf("ktopo --execute of Kafka's rollback file:\n%s", out)
			}
			for p, k := range kafkaCleared {
				if got, _ := znodeData(t, conn, p); !jsonEqual(t, got, k) {
					t.Errorf("%s after ktopo's throttled rollback: %s, after Kafka's --verify %s", p, got, k)
				}
			}
			if res := kafkaReassignZK(t, c, "--execute", "--reassignment-json-file", oRollback); res.Code != 0 {
				t.Fatalf("kafka --execute of ktopo's rollback file: %+v", res)
			}
			waitReassigned(t, conn, kTopic, oTopic)
			for _, topic := range []string{kTopic, oTopic} {
				data, _ := znodeData(t, conn, cluster.TopicPath(topic))
				a, _ := cluster.DecodeTopicAssignment([]byte(data))
				if want := map[int][]int{0: {1, 2}, 1: {2, 3}, 2: {3, 1}}; !maps.EqualFunc(a.Partitions, want, slices.Equal[[]int]) {
					t.Errorf("%s after the rollback: %v", topic, a.Partitions)
				}
			}
		})
	}
}

// registerFakeBroker registers broker 4 (a copy of broker 1's
// registration on a dead port): the controller counts it live, so a
// reassignment onto it starts and never completes.
func registerFakeBroker(t *testing.T, c *kafkatest.Cluster, conn *zkwatch.Conn) {
	t.Helper()
	b1, _, err := conn.Get(cluster.BrokerIDPath(1))
	if err != nil {
		t.Fatal(err)
	}
	fake := strings.ReplaceAll(string(b1), strconv.Itoa(c.Broker(1).Port), "1")
	if _, err := conn.Create(cluster.BrokerIDPath(4), []byte(fake), zk.FlagEphemeral, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Delete(cluster.BrokerIDPath(4), -1) })
}

// TestRealKafkaReassignInProgress: reassignments that cannot finish (onto
// a registration with no broker behind it), one started by ktopo and one
// through the Admin API (3.9's tool): ktopo's --verify and --list say
// what Kafka's say, and name which way each was started; a further
// --execute is refused by ktopo and by Kafka's tools alike; once Kafka's
// --cancel (the Admin API; ZooKeeper has none) is done, ktopo's --verify
// agrees with Kafka's again.
func TestRealKafkaReassignInProgress(t *testing.T) {
	for _, v := range realVersions {
		t.Run(v, func(t *testing.T) {
			c := kafkatest.Shared(t, v)
			conn := connectTest(t, c.Connect())
			registerFakeBroker(t, c, conn)
			zkTopic, apiTopic := "stuck-zk-"+versionTag(v), "stuck-api-"+versionTag(v)
			for _, topic := range []string{zkTopic, apiTopic} {
				runOK(t, "topics", "create", "--zookeeper", c.Connect(), "--topic", topic, "--replica-assignment", "1:2", "--timeout", "90s")
			}
			zkPlan := tempFile(t, "zk.json", `{"version":1,"partitions":[{"topic":"`+zkTopic+`","partition":0,"replicas":[1,4]}]}`)
			apiPlan := tempFile(t, "api.json", `{"version":1,"partitions":[{"topic":"`+apiTopic+`","partition":0,"replicas":[1,4]}]}`)
			runOK(t, "reassign", "--zookeeper", c.Connect(), "--execute", "--reassignment-json-file", zkPlan, "--no-wait")
			// Kafka's tools refuse to start another (3.9: any reassignment;
			// 2.8: /admin/reassign_partitions), as ktopo does.
			if msg := toolMessage(kafkaReassignZK(t, c, "--execute", "--reassignment-json-file", apiPlan)); msg != clusterops.MessageReassignmentExists {
				t.Errorf("2.8 --execute during a reassignment: %q", msg)
			}
			if msg := toolMessage(kafkaReassign39(t, c, "--execute", "--reassignment-json-file", apiPlan)); msg != clusterops.MessageReassignmentExists {
				t.Errorf("3.9 --execute during a reassignment: %q", msg)
			}
			waitUntil(t, "the controller starts ktopo's reassignment", func() bool {
				data, _ := znodeData(t, conn, cluster.TopicPath(zkTopic))
				return strings.Contains(data, `"adding_replicas":{"0":[4]}`)
			})
			// The Admin API adds to reassignments in progress (--additional).
			if res := kafkaReassign39(t, c, "--execute", "--additional", "--reassignment-json-file", apiPlan); res.Code != 0 {
				t.Fatalf("3.9 --execute --additional: %+v", res)
			}
			waitUntil(t, "the controller starts the API reassignment", func() bool {
				data, _ := znodeData(t, conn, cluster.TopicPath(apiTopic))
				return strings.Contains(data, `"adding_replicas":{"0":[4]}`)
			})
			code, _, errOut := runCLI(t, "reassign", "--zookeeper", c.Connect(), "--execute", "--reassignment-json-file", apiPlan)
			if code != 1 || errOut != "Error: "+clusterops.MessageReassignmentExists+"\n" {
				t.Errorf("ktopo --execute during a reassignment: %d %q", code, errOut)
			}
			for _, plan := range []string{zkPlan, apiPlan} {
				ours := toolLines(kafkatest.Result{Stdout: runOK(t, "reassign", "--zookeeper", c.Connect(), "--verify", "--reassignment-json-file", plan)})
				theirs := toolLines(kafkaReassign39(t, c, "--verify", "--reassignment-json-file", plan))
				if !slices.Equal(ours, theirs) {
					t.Errorf("--verify during the reassignment:\nktopo %q\n3.9   %q", ours, theirs)
				}
			}
			ours := strings.Split(strings.TrimSuffix(runOK(t, "reassign", "--zookeeper", c.Connect(), "--list"), "\n"), "\n")
			theirs := toolLines(kafkaReassign39(t, c, "--list"))
			// Kafka lists every reassignment of the cluster (other tests'
			// too); ktopo's lines for these two are Kafka's, and it says how
			// each was started.
			for _, want := range []string{zkTopic + "-0: replicas: 1,4,2. adding: 4. removing: 2.", apiTopic + "-0: replicas: 1,4,2. adding: 4. removing: 2."} {
				if !slices.Contains(ours, want) || !slices.Contains(theirs, want) {
					t.Errorf("--list: %q missing\nktopo %q\n3.9   %q", want, ours, theirs)
				}
			}
			if !slices.ContainsFunc(ours, func(l string) bool {
				return strings.HasPrefix(l, "Started through /admin/reassign_partitions: ") && strings.Contains(l, zkTopic+"-0")
			}) || !slices.ContainsFunc(ours, func(l string) bool {
				return strings.HasPrefix(l, "Started through the Admin API: ") && strings.Contains(l, apiTopic+"-0")
			}) {
				t.Errorf("--list does not say how each was started:\n%q", ours)
			}
			for _, plan := range []string{zkPlan, apiPlan} {
				if res := kafkaReassign39(t, c, "--cancel", "--preserve-throttles", "--reassignment-json-file", plan); res.Code != 0 {
					t.Fatalf("3.9 --cancel: %+v", res)
				}
			}
			waitReassigned(t, conn, zkTopic, apiTopic)
			ourLines := toolLines(kafkatest.Result{Stdout: runOK(t, "reassign", "--zookeeper", c.Connect(), "--verify", "--preserve-throttles", "--reassignment-json-file", zkPlan)})
			if theirs := toolLines(kafkaReassign39(t, c, "--verify", "--preserve-throttles", "--reassignment-json-file", zkPlan)); !slices.Equal(ourLines, theirs) {
				t.Errorf("--verify after the cancel:\nktopo %q\n3.9   %q", ourLines, theirs)
			}
		})
	}
}

// TestRealKafkaReassignMessages: for every bad input Kafka's tools reject
// with a message of their own, ktopo's message is theirs (3.9's
// kafka-reassign-partitions, or 2.8's with --zookeeper where ktopo takes
// its checks: which one is in badReassignments).
func TestRealKafkaReassignMessages(t *testing.T) {
	c := kafkatest.Shared(t, kafkatest.Kafka39)
	conn := connectTest(t, c.Connect())
	if ok, _, _ := conn.Exists(cluster.TopicPath("bad")); !ok {
		runOK(t, "topics", "create", "--zookeeper", c.Connect(), "--topic", "bad", "--replica-assignment", "1:2,2:3", "--timeout", "90s")
	}
	for _, rc := range badReassignments {
		if len(rc.kafka) == 0 {
			continue
		}
		t.Run(rc.name, func(t *testing.T) {
			code, _, errOut := runReassignCase(t, c.Connect(), rc)
			if code != 1 || errOut != rc.stderr() {
				t.Errorf("ktopo: exit %d, %q", code, errOut)
			}
			args := slices.Clone(rc.args)
			if i := slices.Index(args, "FILE"); i >= 0 {
				args[i] = tempFile(t, "in.json", rc.file)
			}
			for _, tool := range rc.kafka {
				var res kafkatest.Result
				if tool == "2.8" {
					res = kafkaReassignZK(t, c, args...)
				} else {
					res = kafkaReassign39(t, c, args...)
				}
				if got := toolMessage(res); res.Code != 1 || got != rc.msg {
					t.Errorf("Kafka %s: exit %d, %q, ktopo %q", tool, res.Code, got, rc.msg)
				}
			}
		})
	}
}
