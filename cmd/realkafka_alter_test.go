package cmd

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ktopo/ktopo/internal/testkit/kafkatest"
)

// TestRealKafkaAddPartitions: the same partitions added by 2.8's
// kafka-topics.sh --zookeeper --alter and by ktopo topics alter, to two
// topics with the same assignment on the same cluster, give the same topic
// znode (topic ids aside), automatic placement (rack-aware, the start index
// from partition 0's first replica) and manual alike; the real controller
// brings the new partitions online, ktopo's wait says so, and ktopo's
// describe of the grown topic equals kafka-topics'.
func TestRealKafkaAddPartitions(t *testing.T) {
	tool := kafkatest.Require(t, kafkatest.Kafka28)
	for _, v := range realVersions {
		t.Run(v, func(t *testing.T) {
			c := kafkatest.Shared(t, v)
			conn := connectTest(t, c.Connect())
			for _, tc := range []struct {
				name, initial string
				alter         []string
				added         int
			}{
				// Partition 0 starts on broker 2: Kafka's start index is 1.
				{"auto", "2:3,3:1,1:2", []string{"--partitions", "8"}, 5},
				{"manual", "3:1,1:2", []string{"--partitions", "4", "--replica-assignment", "3:1,1:2,2:1,1:3"}, 2},
			} {
				kafkaTopic, ktopoTopic := "ap-"+tc.name+"-kafka-"+versionTag(v), "ap-"+tc.name+"-ktopo-"+versionTag(v)
				for _, topic := range []string{kafkaTopic, ktopoTopic} {
					runOK(t, "topics", "create", "--zookeeper", c.Connect(), "--topic", topic, "--replica-assignment", tc.initial, "--timeout", "90s")
				}
				waitUntil(t, "the controller gives both topics an id", func() bool {
					return topicID(conn, kafkaTopic) != "" && topicID(conn, ktopoTopic) != ""
				})
				res, err := c.TopicsZK(tool, append([]string{"--alter", "--topic", kafkaTopic}, tc.alter...)...)
				if err != nil || res.Code != 0 || !strings.Contains(res.Stdout, "Adding partitions succeeded!") {
					t.Fatalf("kafka-topics --alter: %v %+v", err, res)
				}
				out := runOK(t, append([]string{"topics", "alter", "--zookeeper", c.Connect(), "--topic", ktopoTopic, "--timeout", "90s"}, tc.alter...)...)
				for _, want := range []string{"Adding partitions succeeded!", "All " + strconv.Itoa(tc.added) + " partitions online in "} {
					if !strings.Contains(out, want) {
						t.Errorf("%s: ktopo alter did not say %q:\n%s", tc.name, want, out)
					}
				}
				k, _, err := conn.Get("/brokers/topics/" + kafkaTopic)
				if err != nil {
					t.Fatal(err)
				}
				o, _, err := conn.Get("/brokers/topics/" + ktopoTopic)
				if err != nil {
					t.Fatal(err)
				}
				kv, ov := jsonValue(t, k), jsonValue(t, o)
				if kv["topic_id"] != topicID(conn, kafkaTopic) || ov["topic_id"] != topicID(conn, ktopoTopic) || ov["topic_id"] == "" {
					t.Errorf("%s: the topic ids were not kept: %s / %s", tc.name, k, o)
				}
				delete(kv, "topic_id")
				delete(ov, "topic_id")
				kb, _ := json.Marshal(kv)
				ob, _ := json.Marshal(ov)
				if string(kb) != string(ob) {
					t.Errorf("%s: kafka-topics --alter wrote %s\nktopo wrote               %s", tc.name, k, o)
				}
				ours := describeRecords(t, runOK(t, "topics", "describe", "--zookeeper", c.Connect(), "--topic", ktopoTopic))
				// 3.x's describe asks a broker, whose metadata may not have
				// the new partitions yet.
				var described string
				waitUntil(t, "kafka-topics describes the new partitions of "+ktopoTopic, func() bool {
					described = kafkaDescribe(t, c, ktopoTopic)
					return strings.Contains(described, "PartitionCount: "+strconv.Itoa(len(ours)-1)+"\t")
				})
				theirs := describeRecords(t, described)
				compareDescribe(t, v, ours, theirs)
			}
		})
	}
}

// alterCase is one bad (or odd) alter that ktopo and 2.8's kafka-topics
// --zookeeper --alter both judge, each on a topic of its own
// ("{t}": 3 partitions, replicas 1:2,2:3,3:1).
type alterCase = validationCase

var alterCases = []alterCase{
	same("decrease", args("--topic {t} --partitions 2"),
		"The number of partitions for a topic can only be increased. Topic {t} currently has 3 partitions, 2 would not be an increase."),
	same("same-count", args("--topic {t} --partitions 3"),
		"The number of partitions for a topic can only be increased. Topic {t} currently has 3 partitions, 3 would not be an increase."),
	same("unknown-topic", args("--topic nope-{t} --partitions 4"), "Topic 'nope-{t}' does not exist as expected"),
	same("unknown-if-exists", args("--topic nope-{t} --partitions 4 --if-exists"), ""),
	same("not-a-number", args("--topic {t} --partitions x"), "Cannot parse argument 'x' of option partitions"),
	same("replication-factor", args("--topic {t} --partitions 4 --replication-factor 2"), `Option "[replication-factor]" can't be used with option "[alter]"`),
	same("manual-unknown-broker", args("--topic {t} --partitions 4 --replica-assignment 1:2,2:3,3:1,1:9"),
		"Some brokers specified for partition id 3 are not available. Specified brokers: 1, 9, available brokers: 1, 2, 3."),
	same("manual-duplicate", args("--topic {t} --partitions 4 --replica-assignment 1:2,2:3,3:1,1:1"),
		"Partition replica lists may not contain duplicate entries: 1"),
	{name: "manual-rf-differs", args: args("--topic {t} --partitions 4 --replica-assignment 1:2,2:3,3:1,1"),
		kafka: "Partition 3 has different replication factor: [I@", ktopo: "Partition 3 has different replication factor: [1]", diff: "replica-list-rendering"},
	same("manual-rf-of-partition-0", args("--topic {t} --partitions 4 --replica-assignment 1:2:3,2:3:1,3:1:2,1:2:3"),
		"Inconsistent replication factor between partitions, partition 0 has 2 while partitions [3] have replication factors [3], respectively."),
	// 2.8 adds the partitions the list has, whatever --partitions says (and
	// falls back to automatic placement when the list has none beyond the
	// existing ones); ktopo requires one entry per new partition, as 3.x.
	{name: "manual-too-few", args: args("--topic {t} --partitions 5 --replica-assignment 1:2,2:3,3:1,1:3"),
		kafka: "", ktopo: "Increasing the number of partitions by 2 but 1 assignments provided.", diff: "alter-assignment-count"},
	{name: "manual-existing-only", args: args("--topic {t} --partitions 4 --replica-assignment 1:2,2:3,3:1"),
		kafka: "", ktopo: "Increasing the number of partitions by 1 but 0 assignments provided.", diff: "alter-assignment-count"},
	same("ok", args("--topic {t} --partitions 4"), ""),
}

// TestRealKafkaAlterValidation runs every case through ktopo
// (--validate-only) and through 2.8's kafka-topics.sh --zookeeper --alter
// on the 2.8 cluster, each case on a fresh topic, and checks both
// messages; ktopo's failed cases wrote nothing.
func TestRealKafkaAlterValidation(t *testing.T) {
	c := kafkatest.Shared(t, kafkatest.Kafka28)
	conn := connectTest(t, c.Connect())
	docs, err := os.ReadFile(filepath.Join("..", "docs", "compatibility.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, ac := range alterCases {
		topic := "av-" + ac.name
		runOK(t, "topics", "create", "--zookeeper", c.Connect(), "--topic", topic, "--replica-assignment", "1:2,2:3,3:1", "--no-wait")
		a := make([]string, len(ac.args))
		for j, s := range ac.args {
			a[j] = strings.ReplaceAll(s, "{t}", topic)
		}
		waitUntil(t, "the controller gives "+topic+" an id", func() bool { return topicID(conn, topic) != "" })
		before, stat, err := conn.Get("/brokers/topics/" + topic)
		if err != nil {
			t.Fatal(err)
		}
		code, _, errOut := runCLI(t, append([]string{"topics", "alter", "--zookeeper", c.Connect(), "--validate-only"}, a...)...)
		got := ""
		if code != 0 {
			got = strings.TrimPrefix(lastLine(errOut), "Error: ")
		}
		after, stat2, err := conn.Get("/brokers/topics/" + topic)
		if err != nil || string(after) != string(before) || stat2.Version != stat.Version {
			t.Errorf("%s: ktopo --validate-only changed the topic znode: %s -> %s", ac.name, before, after)
		}
		res, err := c.Topics(append([]string{"--alter"}, a...)...)
		if err != nil {
			t.Fatal(err)
		}
		checkCase(t, ac, topic, kafkaMessage(res), got, res.Stdout+res.Stderr, string(docs))
	}
}
