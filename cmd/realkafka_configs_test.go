package cmd

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/internal/testkit/kafkatest"
)

const configCommand = "kafka.admin.ConfigCommand"

// TestRealKafkaConfigs: a topic config altered by ktopo configs is what
// Kafka's own kafka-configs reads back (2.8: --zookeeper; 3.9:
// --bootstrap-server, which asks a broker), every broker consumes the
// change notification ktopo wrote with it (each logs Kafka's "Processing
// override for entityPath: topics/<t>"), and ktopo's describe is
// kafka-configs --zookeeper's line.
func TestRealKafkaConfigs(t *testing.T) {
	for _, v := range realVersions {
		t.Run(v, func(t *testing.T) {
			c := kafkatest.Shared(t, v)
			topic := "cfg-" + versionTag(v)
			runOK(t, "topics", "create", "--zookeeper", c.Connect(), "--topic", topic, "--partitions", "3", "--replication-factor", "2",
				"--config", "retention.ms=1000", "--config", "segment.ms=600000", "--timeout", "90s")
			logFrom := map[int]int{}
			for _, b := range c.Brokers() {
				logFrom[b.ID] = len(readLog(b.LogFile()))
			}
			out := runOK(t, "configs", "--zookeeper", c.Connect(), "--entity-type", "topics", "--entity-name", topic, "--alter",
				"--add-config", "cleanup.policy=[compact,delete],min.insync.replicas=2,retention.ms=3600000", "--delete-config", "segment.ms")
			if !strings.Contains(out, "Completed updating config for entity: topic '"+topic+"'.") {
				t.Errorf("ktopo configs --alter said:\n%s", out)
			}
			want := map[string]string{"cleanup.policy": "compact,delete", "min.insync.replicas": "2", "retention.ms": "3600000"}
			ours := runOK(t, "configs", "--zookeeper", c.Connect(), "--entity-type", "topics", "--entity-name", topic, "--describe")
			prefix := "Configs for topic '" + topic + "' are "
			if !strings.HasPrefix(ours, prefix) || !maps.Equal(configSet(strings.TrimSpace(strings.TrimPrefix(ours, prefix))), want) {
				t.Errorf("ktopo describe: %q, want %v", ours, want)
			}
			var theirs map[string]string
			if strings.HasPrefix(v, "2.") {
				res, err := c.Dist().Tool(configCommand, "--zookeeper", c.Connect(), "--entity-type", "topics", "--entity-name", topic, "--describe")
				if err != nil || res.Code != 0 {
					t.Fatalf("kafka-configs --describe: %v %+v", err, res)
				}
				line := lastLine(strings.TrimSpace(res.Stdout))
				if !strings.HasPrefix(line, prefix) {
					t.Fatalf("kafka-configs 2.8 described %q", res.Stdout)
				}
				theirs = configSet(strings.TrimPrefix(line, prefix))
			} else {
				res, err := c.Dist().Tool(configCommand, "--bootstrap-server", c.Bootstrap(), "--entity-type", "topics", "--entity-name", topic, "--describe")
				if err != nil || res.Code != 0 {
					t.Fatalf("kafka-configs --describe: %v %+v", err, res)
				}
				theirs = dynamicConfigs(t, res.Stdout, "Dynamic configs for topic "+topic+" are:")
			}
			if !maps.Equal(theirs, want) {
				t.Errorf("kafka-configs %s reads back %v, want %v", v, theirs, want)
			}
			for _, b := range c.Brokers() {
				waitUntil(t, "broker "+strconv.Itoa(b.ID)+" consumes the config change notification", func() bool {
					return strings.Contains(readLog(b.LogFile())[logFrom[b.ID]:], "Processing override for entityPath: topics/"+topic+" with config:")
				})
			}
		})
	}
}

// dynamicConfigs parses 3.x kafka-configs --bootstrap-server --describe:
// a heading, then "  k=v sensitive=false synonyms={…}" per entry.
func dynamicConfigs(t *testing.T, out, heading string) map[string]string {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(out), "\n")
	i := 0
	for i < len(lines) && strings.TrimSpace(lines[i]) != heading {
		i++
	}
	if i == len(lines) {
		t.Fatalf("no %q in:\n%s", heading, out)
	}
	got := map[string]string{}
	for _, l := range lines[i+1:] {
		l = strings.TrimSpace(l)
		kv, _, ok := strings.Cut(l, " sensitive=")
		if !ok {
			break
		}
		k, v, _ := strings.Cut(kv, "=")
		got[k] = v
	}
	return got
}

// TestRealKafkaUncleanElection: enabling unclean.leader.election.enable with
// ktopo configs on a topic whose only in-sync replica is down makes the
// real controller elect the live out-of-sync replica at once (Kafka's
// TopicUncleanLeaderElectionEnable, run when the controller's broker
// consumes the notification), and ktopo follows that election. 3.9 in
// -short, 2.8 too otherwise (brokers stop and start: tens of seconds).
func TestRealKafkaUncleanElection(t *testing.T) {
	versions := realVersions
	if testing.Short() {
		versions = []string{kafkatest.Kafka39}
	}
	for _, v := range versions {
		t.Run(v, func(t *testing.T) {
			c := kafkatest.Shared(t, v)
			topic := "unclean-" + versionTag(v)
			runOK(t, "topics", "create", "--zookeeper", c.Connect(), "--topic", topic, "--replica-assignment", "2:3", "--timeout", "90s")
			state := func() (leader int, isr string) {
				recs := describeJSON(t, c.Connect(), topic)
				if len(recs) != 1 {
					return -2, ""
				}
				l := -1
				if recs[0].Leader != nil {
					l = *recs[0].Leader
				}
				return l, intsString(recs[0].ISR)
			}
			c.Broker(3).Stop()
			waitUntil(t, "broker 3 leaves the ISR", func() bool { l, isr := state(); return l == 2 && isr == "2" })
			c.Broker(2).Stop()
			waitUntil(t, "the partition has no leader", func() bool { l, isr := state(); return l == -1 && isr == "2" })
			if err := c.Broker(3).Start(); err != nil {
				t.Fatal(err)
			}
			waitUntil(t, "broker 3 registers", func() bool {
				ok, _, err := connectTest(t, c.Connect()).Exists("/brokers/ids/3")
				return err == nil && ok
			})
			if l, _ := state(); l != -1 {
				t.Fatalf("partition led by %d before unclean election was enabled", l)
			}
			start := time.Now()
			out := runOK(t, "configs", "--zookeeper", c.Connect(), "--entity-type", "topics", "--entity-name", topic, "--alter",
				"--add-config", "unclean.leader.election.enable=true", "--timeout", "90s")
			for _, want := range []string{"Effect: partition 0 has no live in-sync replica (ISR [2]): the controller elects broker 3",
				"Waiting for the controller's unclean elections:", "All 1 partitions online in "} {
				if !strings.Contains(out, want) {
					t.Errorf("ktopo configs --alter did not say %q:\n%s", want, out)
				}
			}
			if l, isr := state(); l != 3 || isr != "3" {
				t.Errorf("after the unclean election: leader %d isr %s, want 3 [3]", l, isr)
			}
			t.Logf("unclean election %s after the config change", time.Since(start).Round(time.Millisecond))
		})
	}
}

func intsString(xs []int) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = strconv.Itoa(x)
	}
	return strings.Join(parts, ",")
}

// configCase is one kafka-configs invocation that ktopo (--validate-only
// for --alter) and 2.8's kafka-configs --zookeeper both judge, on a topic
// of its own ("{t}", with retention.ms=1000).
var configCases = []validationCase{
	same("unknown-key", args("--entity-type topics --entity-name {t} --alter --add-config foo=bar"), "Unknown topic config name: foo"),
	same("not-a-long", args("--entity-type topics --entity-name {t} --alter --add-config retention.ms=abc"),
		"Invalid value abc for configuration retention.ms: Not a number of type LONG"),
	same("below-min", args("--entity-type topics --entity-name {t} --alter --add-config min.insync.replicas=0"),
		"Invalid value 0 for configuration min.insync.replicas: Value must be at least 1"),
	same("enum", args("--entity-type topics --entity-name {t} --alter --add-config cleanup.policy=[compact,nope]"),
		"Invalid value nope for configuration cleanup.policy: String must be one of: compact, delete"),
	same("delete-unset", args("--entity-type topics --entity-name {t} --alter --delete-config segment.ms,retention.ms,flush.ms"),
		"Invalid config(s): segment.ms,flush.ms"),
	same("format", args("--entity-type topics --entity-name {t} --alter --add-config retention.ms"),
		`requirement failed: Invalid entity config: all configs to be added must be in the format "key=val".`),
	same("two-equals", args("--entity-type topics --entity-name {t} --alter --add-config a=b=c"),
		`requirement failed: Invalid entity config: all configs to be added must be in the format "key=val".`),
	same("unknown-topic", args("--entity-type topics --entity-name nope-{t} --alter --add-config retention.ms=5"), "Topic 'nope-{t}' does not exist."),
	same("unknown-topic-delete", args("--entity-type topics --entity-name nope-{t} --alter --delete-config retention.ms"), "Invalid config(s): retention.ms"),
	{name: "key-character", args: []string{"--entity-type", "topics", "--entity-name", "{t}", "--alter", "--add-config", "retention ms=5"},
		kafka: "Unknown topic config name: retention ms", ktopo: "Invalid character found for config key: retention ms", diff: "config-key-characters"},
	same("describe-and-add", args("--entity-type topics --entity-name {t} --describe --add-config retention.ms=5"),
		`Option "[describe]" can't be used with option "[add-config]"`),
	same("two-actions", args("--entity-type topics --entity-name {t} --describe --alter"), "Command must include exactly one action: --describe, --alter"),
	same("no-action", args("--entity-type topics --entity-name {t}"), "Command must include exactly one action: --describe, --alter"),
	same("nothing-to-alter", args("--entity-type topics --entity-name {t} --alter"),
		"At least one of --add-config, --add-config-file, or --delete-config must be specified with --alter"),
	same("alter-without-name", args("--entity-type topics --alter --add-config retention.ms=5"), "an entity name must be specified with --alter of topics"),
	same("add-config-twice", args("--entity-type topics --entity-name {t} --alter --add-config retention.ms=5 --add-config segment.ms=6"),
		"Found multiple arguments for option add-config, but you asked for only one"),
	same("no-entity-type", args("--entity-name {t} --describe"), "At least one entity type must be specified"),
	{name: "entity-type", args: args("--entity-type foo --entity-name {t} --describe"),
		kafka: "Invalid entity type foo, the entity type must be one of topics,clients,users,brokers,ips with the --zookeeper argument",
		ktopo: "Invalid entity type foo, the entity type must be one of topics, clients, users, brokers, ips with a --zookeeper argument", diff: "entity-type-wording"},
	same("broker-id", args("--entity-type brokers --entity-name x --describe"), "The entity name for brokers must be a valid integer broker id, but it is: x"),
	same("brackets", args("--entity-type topics --entity-name {t} --alter --add-config cleanup.policy=[compact,delete],retention.ms=5"), ""),
	same("add-and-delete", args("--entity-type topics --entity-name {t} --alter --add-config retention.ms=5 --delete-config retention.ms"), ""),
	same("empty-value", args("--entity-type topics --entity-name {t} --alter --add-config retention.ms="),
		"Invalid value  for configuration retention.ms: Not a number of type LONG"),
}

// TestRealKafkaConfigValidation runs every case through ktopo and through
// 2.8's kafka-configs --zookeeper on the 2.8 cluster and checks both
// messages; ktopo wrote nothing (--validate-only).
func TestRealKafkaConfigValidation(t *testing.T) {
	c := kafkatest.Shared(t, kafkatest.Kafka28)
	conn := connectTest(t, c.Connect())
	docs, err := os.ReadFile(filepath.Join("..", "docs", "compatibility.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, cc := range configCases {
		topic := "cv-" + cc.name
		runOK(t, "topics", "create", "--zookeeper", c.Connect(), "--topic", topic, "--partitions", "1", "--replication-factor", "1",
			"--config", "retention.ms=1000", "--no-wait")
		a := make([]string, len(cc.args))
		for j, s := range cc.args {
			a[j] = strings.ReplaceAll(s, "{t}", topic)
		}
		before, _, err := conn.Get(cluster.TopicConfigPath(topic))
		if err != nil {
			t.Fatal(err)
		}
		ours := append([]string{"configs", "--zookeeper", c.Connect()}, a...)
		if slices.Contains(a, "--alter") {
			ours = append(ours, "--validate-only")
		}
		code, _, errOut := runCLI(t, ours...)
		got := ""
		if code != 0 {
			got = strings.TrimPrefix(lastLine(errOut), "Error: ")
		}
		if after, _, err := conn.Get(cluster.TopicConfigPath(topic)); err != nil || string(after) != string(before) {
			t.Errorf("%s: ktopo changed the config: %s -> %s", cc.name, before, after)
		}
		res, err := c.Dist().Tool(configCommand, append([]string{"--zookeeper", c.Connect()}, a...)...)
		if err != nil {
			t.Fatal(err)
		}
		checkCase(t, cc, topic, configCommandMessage(res), got, res.Stdout+res.Stderr, string(docs))
	}
}

// configCommandMessage is what kafka-configs reported: the exception after
// "Error while executing config command" (its class left out), else the
// first line of its standard error (IllegalArgumentException and
// InvalidConfigurationException are printed bare), else "" for a success.
func configCommandMessage(r kafkatest.Result) string {
	lines := strings.Split(r.Stderr, "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, "Error while executing config command") && i+1 < len(lines) {
			// "java.util.concurrent.ExecutionException: org.…Exception: <message>"
			m := strings.TrimSpace(lines[i+1])
			for {
				class, rest, ok := strings.Cut(m, ": ")
				if !ok || !strings.HasSuffix(class, "Exception") || strings.Contains(class, " ") {
					return strings.TrimSuffix(m, ":")
				}
				m = rest
			}
		}
	}
	if r.Code == 0 {
		return ""
	}
	for _, l := range lines {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "[") {
			return l
		}
	}
	return strings.TrimSpace(r.Stdout)
}

// TestRealKafka39ConfigMessages: what 3.9's kafka-configs --bootstrap-server
// (incrementalAlterConfigs, a broker validating) says where ktopo, as the
// ZooKeeper tools, says otherwise (docs/compatibility.md).
func TestRealKafka39ConfigMessages(t *testing.T) {
	c := kafkatest.Shared(t, kafkatest.Kafka39)
	topic := "cm-39"
	runOK(t, "topics", "create", "--zookeeper", c.Connect(), "--topic", topic, "--partitions", "1", "--replication-factor", "1",
		"--config", "retention.ms=1000", "--timeout", "90s")
	// The controller writes the topic before the brokers learn it:
	// kafka-configs asks a broker (it answered UnknownTopicOrPartition when
	// asked too soon, on a loaded machine).
	if err := kafkatest.WaitTopicKnown(c.Nodes(), topic, time.Minute); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ args, kafka, ktopo string }{
		{"--add-config foo=bar", "Unknown topic config name: foo", "Unknown topic config name: foo"},
		{"--add-config retention.ms=abc",
			"Invalid config value for resource ConfigResource(type=TOPIC, name='cm-39'): Invalid value abc for configuration retention.ms: Not a number of type LONG",
			"Invalid value abc for configuration retention.ms: Not a number of type LONG"},
		{"--delete-config segment.ms", "Invalid config(s): segment.ms", "Invalid config(s): segment.ms"},
		{"--add-config retention.ms=5 --delete-config retention.ms", "Error due to duplicate config keys", ""},
	} {
		a := append([]string{"--entity-type", "topics", "--entity-name", topic, "--alter"}, args(tc.args)...)
		res, err := c.Dist().Tool(configCommand, append([]string{"--bootstrap-server", c.Bootstrap()}, a...)...)
		if err != nil {
			t.Fatal(err)
		}
		if got := configCommandMessage(res); got != tc.kafka {
			t.Errorf("%s: kafka-configs 3.9 said %q, want %q", tc.args, got, tc.kafka)
		}
		code, _, errOut := runCLI(t, append([]string{"configs", "--zookeeper", c.Connect(), "--validate-only"}, a...)...)
		got := ""
		if code != 0 {
			got = strings.TrimPrefix(lastLine(errOut), "Error: ")
		}
		if got != tc.ktopo {
			t.Errorf("%s: ktopo said %q, want %q", tc.args, got, tc.ktopo)
		}
	}
}
