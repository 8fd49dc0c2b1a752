package cmd

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/go-zookeeper/zk"

	"github.com/ktopo/ktopo/internal/testkit/kafkatest"
)

// validationCase is one creation that ktopo and Kafka 2.8's kafka-topics.sh
// --zookeeper both judge, on the same cluster.
type validationCase struct {
	name string
	args []string // after --create / topics create; "{t}" is the case's topic
	// kafka and ktopo are the messages each prints ("" = the topic is
	// valid). They differ only where diff names why: a version difference
	// documented in docs/compatibility.md under that name.
	kafka, ktopo string
	diff         string
}

func same(name string, args []string, msg string) validationCase {
	return validationCase{name: name, args: args, kafka: msg, ktopo: msg}
}

func args(s string) []string { return strings.Fields(s) }

// validationCases: every check of creation, with what Kafka 2.8 says (read
// off a real 2.8.2) and what ktopo says (Kafka 3.4–3.9's wording).
var validationCases = []validationCase{
	// Topic names (Topic.validate; its wording changed in 3.0 and 3.4).
	{name: "bad-char", args: args("--topic bad/name --partitions 1 --replication-factor 1"),
		kafka: `Topic name "bad/name" is illegal, it contains a character other than ASCII alphanumerics, '.', '_' and '-'`,
		ktopo: `Topic name is invalid: 'bad/name' contains one or more characters other than ASCII alphanumerics, '.', '_' and '-'`,
		diff:  "topic-name-wording"},
	{name: "dot", args: args("--topic . --partitions 1 --replication-factor 1"),
		kafka: `Topic name cannot be "." or ".."`, ktopo: `Topic name is invalid: '.' is not allowed`, diff: "topic-name-wording"},
	{name: "dotdot", args: args("--topic .. --partitions 1 --replication-factor 1"),
		kafka: `Topic name cannot be "." or ".."`, ktopo: `Topic name is invalid: '..' is not allowed`, diff: "topic-name-wording"},
	{name: "too-long", args: args("--topic " + strings.Repeat("a", 250) + " --partitions 1 --replication-factor 1"),
		kafka: "Topic name is illegal, it can't be longer than 249 characters, topic name: " + strings.Repeat("a", 250),
		ktopo: "Topic name is invalid: the length of '" + strings.Repeat("a", 250) + "' is longer than the max allowed length 249",
		diff:  "topic-name-wording"},
	same("longest", args("--topic "+strings.Repeat("b", 249)+" --partitions 1 --replication-factor 1"), ""),
	same("dots-ok", args("--topic ... --partitions 1 --replication-factor 1"), ""),
	same("collides", args("--topic a_b --partitions 1 --replication-factor 1"), "Topic 'a_b' collides with existing topics: a.b"),
	same("exists", args("--topic existing --partitions 1 --replication-factor 1"), "Topic 'existing' already exists."),
	same("if-not-exists", args("--topic existing --partitions 1 --replication-factor 1 --if-not-exists"), ""),
	{name: "marked", args: args("--topic marked --partitions 1 --replication-factor 1"),
		kafka: "Topic 'marked' already exists.", ktopo: "Topic 'marked' is marked for deletion.", diff: "marked-for-deletion"},
	// Partitions and replication factor (AdminUtils, jopt-simple).
	same("rf-above-brokers", args("--topic {t} --partitions 1 --replication-factor 4"), "Replication factor: 4 larger than available brokers: 3."),
	same("partitions-zero", args("--topic {t} --partitions 0 --replication-factor 1"), "Number of partitions must be larger than 0."),
	same("partitions-negative", args("--topic {t} --partitions -1 --replication-factor 1"), "Number of partitions must be larger than 0."),
	same("rf-zero", args("--topic {t} --partitions 1 --replication-factor 0"), "Replication factor must be larger than 0."),
	same("partitions-32-bit", args("--topic {t} --partitions 3000000000 --replication-factor 1"), "Cannot parse argument '3000000000' of option partitions"),
	same("partitions-not-a-number", args("--topic {t} --partitions x --replication-factor 1"), "Cannot parse argument 'x' of option partitions"),
	same("rf-not-a-number", args("--topic {t} --partitions 1 --replication-factor 1.5"), "Cannot parse argument '1.5' of option replication-factor"),
	same("no-partitions", args("--topic {t} --replication-factor 1"), `Missing required argument "[partitions]"`),
	same("no-rf", args("--topic {t} --partitions 1"), `Missing required argument "[replication-factor]"`),
	same("assignment-and-partitions", args("--topic {t} --partitions 2 --replica-assignment 1,2"), `Option "[replica-assignment]" can't be used with option "[partitions]"`),
	same("auto", args("--topic {t} --partitions 7 --replication-factor 3"), ""),
	// Manual assignments (parseReplicaAssignment, validateTopicCreate).
	{name: "manual-rf-differs", args: args("--topic {t} --replica-assignment 1:2,3"),
		kafka: "Partition 1 has different replication factor: [I@", ktopo: "Partition 1 has different replication factor: [3]", diff: "replica-list-rendering"},
	same("manual-duplicate", args("--topic {t} --replica-assignment 1:1"), "Partition replica lists may not contain duplicate entries: 1"),
	same("manual-not-a-number", args("--topic {t} --replica-assignment 1:x"), `For input string: "x"`),
	same("manual-empty-piece", args("--topic {t} --replica-assignment 1:2,,3:1"), `For input string: ""`),
	same("manual-trailing-comma", args("--topic {t} --replica-assignment 1:2,3:1,"), ""),
	same("manual-unknown-brokers", args("--topic {t} --replica-assignment 7:8"), ""),
	{name: "manual-empty", args: []string{"--topic", "{t}", "--replica-assignment", ""},
		kafka: "None.get", ktopo: `Missing required argument "[partitions]"`, diff: "empty-replica-assignment"},
	same("manual-before-config", args("--topic {t} --replica-assignment 1:y --config retention.ms=x"), `For input string: "y"`),
	same("manual-before-name", args("--topic bad/x --replica-assignment 1:y"), `For input string: "y"`),
	same("manual-duplicate-before-config", args("--topic {t} --replica-assignment 1:1 --config foo=bar"), "Partition replica lists may not contain duplicate entries: 1"),
	// Configs (LogConfig.validate and the --config parser).
	same("config-unknown", args("--topic {t} --partitions 1 --replication-factor 1 --config foo=bar"), "Unknown topic config name: foo"),
	same("config-below-min", args("--topic {t} --partitions 1 --replication-factor 1 --config retention.ms=-5"), "Invalid value -5 for configuration retention.ms: Value must be at least -1"),
	same("config-not-a-long", args("--topic {t} --partitions 1 --replication-factor 1 --config retention.ms=abc"), "Invalid value abc for configuration retention.ms: Not a number of type LONG"),
	same("config-enum", args("--topic {t} --partitions 1 --replication-factor 1 --config cleanup.policy=foo"), "Invalid value foo for configuration cleanup.policy: String must be one of: compact, delete"),
	same("config-lag-conflict", args("--topic {t} --partitions 1 --replication-factor 1 --config min.compaction.lag.ms=10 --config max.compaction.lag.ms=5"),
		"conflict topic config setting min.compaction.lag.ms (10) > max.compaction.lag.ms (5)"),
	same("config-no-equals", args("--topic {t} --partitions 1 --replication-factor 1 --config retention.ms"),
		`requirement failed: Invalid topic config: all configs to be added must be in the format "key=val".`),
	same("config-first-unknown-wins", args("--topic {t} --partitions 1 --replication-factor 1 --config retention.ms=x --config foo=bar"), "Unknown topic config name: foo"),
	same("config-bounds", args("--topic {t} --partitions 1 --replication-factor 1 --config min.cleanable.dirty.ratio=1 --config min.compaction.lag.ms=5 --config max.compaction.lag.ms=5 --config unclean.leader.election.enable=TRUE"), ""),
	{name: "config-format-version-bad", args: args("--topic {t} --partitions 1 --replication-factor 1 --config message.format.version=bogus"),
		kafka: "Invalid value bogus for configuration message.format.version: Version `bogus` is not a valid version",
		ktopo: "Invalid value bogus for configuration message.format.version: Version bogus is not a valid version", diff: "format-version-wording"},
	{name: "config-format-version-4.0", args: args("--topic {t} --partitions 1 --replication-factor 1 --config message.format.version=4.0-IV1"),
		kafka: "Invalid value 4.0-IV1 for configuration message.format.version: Version `4.0-IV1` is not a valid version", ktopo: "",
		diff: "format-version-values"},
	{name: "config-3.8-key", args: args("--topic {t} --partitions 1 --replication-factor 1 --config compression.gzip.level=9"),
		kafka: "Unknown topic config name: compression.gzip.level", ktopo: "", diff: "config-keys"},
}

// TestRealKafkaValidation runs every case through ktopo (--validate-only,
// first: it writes nothing) and through Kafka 2.8's kafka-topics.sh
// --zookeeper on the same 2.8 cluster, and checks both messages.
func TestRealKafkaValidation(t *testing.T) {
	c := kafkatest.Shared(t, kafkatest.Kafka28)
	conn := connectTest(t, c.Connect())
	for _, topic := range []string{"existing", "a.b"} {
		runOK(t, "topics", "create", "--zookeeper", c.Connect(), "--topic", topic, "--partitions", "1", "--replication-factor", "1", "--no-wait")
	}
	// A deletion that cannot finish (its only replica is on a broker that
	// never registers) keeps its marker.
	runOK(t, "topics", "create", "--zookeeper", c.Connect(), "--topic", "marked", "--replica-assignment", "9", "--no-wait")
	runOK(t, "topics", "delete", "--zookeeper", c.Connect(), "--topic", "marked")
	waitUntil(t, "marked is marked", func() bool {
		ok, _, err := conn.Exists("/admin/delete_topics/marked")
		return err == nil && ok
	})

	docs, err := os.ReadFile(filepath.Join("..", "docs", "compatibility.md"))
	if err != nil {
		t.Fatal(err)
	}
	// Two JVMs at a time: each kafka-topics start is a second of CPU.
	sem := make(chan struct{}, 2)
	var wg sync.WaitGroup
	results := make([]kafkatest.Result, len(validationCases))
	ktopo := make([]string, len(validationCases))
	for i, vc := range validationCases {
		topic := "v-" + vc.name
		a := make([]string, len(vc.args))
		for j, s := range vc.args {
			a[j] = strings.ReplaceAll(s, "{t}", topic)
		}
		code, out, errOut := runCLI(t, append([]string{"topics", "create", "--zookeeper", c.Connect(), "--validate-only"}, a...)...)
		if code == 0 {
			ktopo[i] = ""
		} else {
			ktopo[i] = strings.TrimPrefix(lastLine(errOut), "Error: ")
		}
		_ = out
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			res, err := c.Topics(append([]string{"--create"}, a...)...)
			if err != nil {
				t.Errorf("%s: %v", vc.name, err)
			}
			results[i] = res
		}()
	}
	wg.Wait()
	for i, vc := range validationCases {
		checkCase(t, vc, "v-"+vc.name, kafkaMessage(results[i]), ktopo[i], results[i].Stdout+results[i].Stderr, string(docs))
	}
	// Partial racks: a registration without a rack (ours, standing in for a
	// broker) makes rack-aware placement fail, in both tools alike.
	b1, _, err := conn.Get("/brokers/ids/1")
	if err != nil {
		t.Fatal(err)
	}
	noRack := strings.Replace(strings.Replace(string(b1), `"rack":"rack-a",`, "", 1), `,"rack":"rack-a"`, "", 1)
	if _, err := conn.Create("/brokers/ids/99", []byte(noRack), zk.FlagEphemeral, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	for _, rc := range []validationCase{
		same("partial-racks", args("--topic v-partial --partitions 1 --replication-factor 1"),
			"Not all brokers have rack information. Add --disable-rack-aware in command line to make replica assignment without rack information."),
		same("partial-racks-disabled", args("--topic v-partial-off --partitions 1 --replication-factor 1 --disable-rack-aware"), ""),
	} {
		code, _, errOut := runCLI(t, append([]string{"topics", "create", "--zookeeper", c.Connect(), "--validate-only"}, rc.args...)...)
		got := ""
		if code != 0 {
			got = strings.TrimPrefix(lastLine(errOut), "Error: ")
		}
		res, err := c.Topics(append([]string{"--create"}, rc.args...)...)
		if err != nil {
			t.Fatal(err)
		}
		if k := kafkaMessage(res); k != rc.kafka || got != rc.ktopo {
			t.Errorf("%s: kafka-topics 2.8 said %q, ktopo %q, want %q", rc.name, k, got, rc.kafka)
		}
	}
	if err := conn.Delete("/brokers/ids/99", -1); err != nil {
		t.Fatal(err)
	}
	// The fake topics' leftovers must not disturb later tests.
	_ = conn.Delete("/admin/delete_topics/marked", -1)
	for _, p := range []string{"/brokers/topics/marked", "/config/topics/marked"} {
		if err := conn.Delete(p, -1); err != nil && !errors.Is(err, zk.ErrNoNode) {
			t.Logf("delete %s: %v", p, err)
		}
	}
}

// checkCase checks one case's messages: Kafka's tool said kafka (its
// output is toolOut), ktopo said ours, "{t}" in the expected messages
// standing for topic; where they differ docs must name the reason. An
// expected Kafka message ending in "[I@" is a JVM array's identity:
// only its prefix is compared.
func checkCase(t *testing.T, vc validationCase, topic, kafka, ours, toolOut, docs string) {
	t.Helper()
	want := strings.ReplaceAll(vc.kafka, "{t}", topic)
	if strings.HasSuffix(want, "[I@") {
		kafka = kafka[:min(len(kafka), len(want))]
	}
	if kafka != want {
		t.Errorf("%s: Kafka's tool said %q, want %q\n%s", vc.name, kafka, want, toolOut)
	}
	if want := strings.ReplaceAll(vc.ktopo, "{t}", topic); ours != want {
		t.Errorf("%s: ktopo said %q, want %q", vc.name, ours, want)
	}
	if (vc.kafka != vc.ktopo) != (vc.diff != "") {
		t.Errorf("%s: the messages differ only with a documented reason", vc.name)
	}
	if vc.diff != "" && !strings.Contains(docs, "`"+vc.diff+"`") {
		t.Errorf("%s: difference %q is not documented in docs/compatibility.md", vc.name, vc.diff)
	}
}

// kafkaMessage is what kafka-topics reported: its "Error while executing
// topic command" line, else (argument errors) the first line of its
// standard error, else "" for a success.
func kafkaMessage(r kafkatest.Result) string {
	if m := kafkatest.ToolError(r); m != "" {
		return m
	}
	if r.Code == 0 {
		return ""
	}
	for _, l := range strings.Split(r.Stderr, "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "[") {
			return l
		}
	}
	return strings.TrimSpace(r.Stdout)
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return lines[len(lines)-1]
}
