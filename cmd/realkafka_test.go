package cmd

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/clusterwatch/zksource"
	"github.com/ktopo/ktopo/internal/testkit/kafkatest"
	"github.com/ktopo/ktopo/zkwatch"
)

// The real-Kafka tests run ktopo's commands against real brokers (package
// kafkatest: Kafka 3.9 and 2.8 on the package's Apache ZooKeeper) and
// compare what ktopo says and writes with what Kafka's own tools say and
// write for the same cluster.

var realVersions = []string{kafkatest.Kafka39, kafkatest.Kafka28}

// TestRealKafkaCreateDescribe: ktopo creates topics (automatic and manual
// assignment), the real controller brings every partition online, ktopo's
// wait reports it, and ktopo's describe equals kafka-topics' describe of
// the same topics field by field.
func TestRealKafkaCreateDescribe(t *testing.T) {
	for _, v := range realVersions {
		t.Run(v, func(t *testing.T) {
			c := kafkatest.Shared(t, v)
			auto := "auto-" + versionTag(v)
			code, out, errOut := runCLI(t, "topics", "create", "--zookeeper", c.Connect(), "--topic", auto,
				"--partitions", "6", "--replication-factor", "3", "--config", "retention.ms=86400000",
				"--config", "cleanup.policy=compact,delete", "--config", "min.insync.replicas=2", "--timeout", "90s")
			if code != 0 {
				t.Fatalf("create %s: exit %d\n%s%s", auto, code, out, errOut)
			}
			if !strings.Contains(out, "Created topic "+auto+".") || !strings.Contains(out, "All 6 partitions online in ") {
				t.Fatalf("create %s did not report every partition online:\n%s", auto, out)
			}
			manual := "manual-" + versionTag(v)
			code, out, errOut = runCLI(t, "topics", "create", "--zookeeper", c.Connect(), "--topic", manual,
				"--replica-assignment", "1:2:3,2:3:1,3:1:2,3:2:1", "--timeout", "90s")
			if code != 0 || !strings.Contains(out, "All 4 partitions online in ") {
				t.Fatalf("create %s: exit %d\n%s%s", manual, code, out, errOut)
			}
			for _, topic := range []string{auto, manual} {
				ours := describeRecords(t, runOK(t, "topics", "describe", "--zookeeper", c.Connect(), "--topic", topic))
				theirs := describeRecords(t, kafkaDescribe(t, c, topic))
				compareDescribe(t, v, ours, theirs)
			}
			// The manual assignment is written as given, leader first.
			ours := describeRecords(t, runOK(t, "topics", "describe", "--zookeeper", c.Connect(), "--topic", manual))
			var replicas []string
			for _, r := range ours[1:] {
				replicas = append(replicas, r["Replicas"])
			}
			if want := []string{"1,2,3", "2,3,1", "3,1,2", "3,2,1"}; !slices.Equal(replicas, want) {
				t.Errorf("manual assignment described as %v, want %v", replicas, want)
			}
		})
	}
}

// kafkaDescribe returns kafka-topics' describe of topic once the brokers
// know it: 3.x asks a broker, whose metadata may trail the ZooKeeper state
// ktopo saw by a moment.
func kafkaDescribe(t *testing.T, c *kafkatest.Cluster, topic string) string {
	t.Helper()
	var res kafkatest.Result
	var err error
	waitUntil(t, "kafka-topics describes "+topic, func() bool {
		res, err = c.Topics("--describe", "--topic", topic)
		return err == nil && res.Code == 0 && !strings.Contains(res.Stdout, "Leader: none")
	})
	return res.Stdout
}

// compareDescribe compares two describe outputs record by record. Where
// the layouts legitimately differ it says how (see docs/compatibility.md):
// 3.8+ prints Elr/LastKnownElr columns (always N/A in ZooKeeper mode),
// which ktopo leaves out; Configs come in Java HashMap order from Kafka, in
// key order from ktopo (compared as sets).
func compareDescribe(t *testing.T, version string, ours, theirs []map[string]string) {
	t.Helper()
	if len(ours) != len(theirs) {
		t.Fatalf("ktopo printed %d records, kafka-topics %d:\nktopo %v\nkafka %v", len(ours), len(theirs), ours, theirs)
	}
	for i := range ours {
		o, k := maps.Clone(ours[i]), maps.Clone(theirs[i])
		if _, partition := k["Partition"]; partition && !strings.HasPrefix(version, "2.") {
			for _, f := range []string{"Elr", "LastKnownElr"} {
				if k[f] != "N/A" {
					t.Errorf("record %d: kafka-topics %s %q, expected N/A in ZooKeeper mode", i, f, k[f])
				}
				delete(k, f)
			}
		}
		if o["Configs"] != "" || k["Configs"] != "" {
			if oc, kc := configSet(o["Configs"]), configSet(k["Configs"]); !maps.Equal(oc, kc) {
				t.Errorf("record %d: Configs ktopo %q, kafka-topics %q", i, o["Configs"], k["Configs"])
			}
			delete(o, "Configs")
			delete(k, "Configs")
		}
		if !maps.Equal(o, k) {
			t.Errorf("record %d differs:\nktopo        %v\nkafka-topics %v", i, ours[i], theirs[i])
		}
	}
}

// describeRecords splits describe output into one map per line.
func describeRecords(t *testing.T, out string) []map[string]string {
	t.Helper()
	var recs []map[string]string
	for _, line := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
		if line == "" {
			continue
		}
		rec := map[string]string{}
		for _, f := range strings.Split(strings.TrimPrefix(line, "\t"), "\t") {
			k, v, ok := strings.Cut(f, ": ")
			if !ok {
				k, v = strings.TrimSuffix(f, ":"), ""
			}
			rec[k] = v
		}
		recs = append(recs, rec)
	}
	return recs
}

// configSet splits "k=v,k=v" where values may hold commas
// (cleanup.policy=compact,delete): a piece without '=' continues the value.
func configSet(s string) map[string]string {
	out := map[string]string{}
	last := ""
	for _, p := range strings.Split(s, ",") {
		if p == "" {
			continue
		}
		if k, v, ok := strings.Cut(p, "="); ok {
			out[k], last = v, k
		} else if last != "" {
			out[last] += "," + p
		}
	}
	return out
}

func runOK(t *testing.T, args ...string) string {
	t.Helper()
	code, out, errOut := runCLI(t, args...)
	if code != 0 {
		t.Fatalf("ktopo %s: exit %d\n%s%s", strings.Join(args, " "), code, out, errOut)
	}
	return out
}

func versionTag(v string) string { return strings.ReplaceAll(v, ".", "") }

// TestRealKafkaZnodes: the same topic created by kafka-topics.sh
// --zookeeper (2.8's, on either cluster) and by ktopo gives the same JSON
// values in /brokers/topics/<t> and /config/topics/<t>, topic ids aside.
// Kafka serialises these maps in Scala hash order, ktopo in a fixed order:
// the values are compared, not the bytes.
func TestRealKafkaZnodes(t *testing.T) {
	tool := kafkatest.Require(t, kafkatest.Kafka28)
	for _, v := range realVersions {
		t.Run(v, func(t *testing.T) {
			c := kafkatest.Shared(t, v)
			assignment := "1:2:3,2:3:1,3:1:2,1:3:2,2:1:3,3:2:1,1:2:3,2:3:1,3:1:2,1:3:2,2:1:3,3:2:1,1:2:3,2:3:1"
			configs := []string{"retention.ms=3600000", "cleanup.policy=compact", "max.message.bytes=2000000",
				"min.insync.replicas=2", "segment.bytes=104857600", "compression.type=zstd"}
			kafkaTopic, ktopoTopic := "zn-kafka-"+versionTag(v), "zn-ktopo-"+versionTag(v)
			args := []string{"--create", "--topic", kafkaTopic, "--replica-assignment", assignment}
			for _, cfg := range configs {
				args = append(args, "--config", cfg)
			}
			res, err := c.TopicsZK(tool, args...)
			if err != nil || res.Code != 0 {
				t.Fatalf("kafka-topics --create: %v %+v", err, res)
			}
			args = []string{"topics", "create", "--zookeeper", c.Connect(), "--topic", ktopoTopic, "--replica-assignment", assignment, "--timeout", "90s"}
			for _, cfg := range configs {
				args = append(args, "--config", cfg)
			}
			runOK(t, args...)
			conn := connectTest(t, c.Connect())
			// Both get their topic id from the controller; wait for Kafka's.
			waitUntil(t, "the controller gives both topics an id", func() bool {
				return topicID(conn, kafkaTopic) != "" && topicID(conn, ktopoTopic) != ""
			})
			for _, path := range []string{"/brokers/topics/", "/config/topics/"} {
				k, _, err := conn.Get(path + kafkaTopic)
				if err != nil {
					t.Fatal(err)
				}
				o, _, err := conn.Get(path + ktopoTopic)
				if err != nil {
					t.Fatal(err)
				}
				kv, ov := jsonValue(t, k), jsonValue(t, o)
				delete(kv, "topic_id")
				delete(ov, "topic_id")
				kb, _ := json.Marshal(kv)
				ob, _ := json.Marshal(ov)
				if string(kb) != string(ob) {
					t.Errorf("%s: kafka-topics wrote %s\nktopo wrote        %s", path, k, o)
				}
			}
		})
	}
}

func topicID(conn *zkwatch.Conn, topic string) string {
	b, _, err := conn.Get("/brokers/topics/" + topic)
	if err != nil {
		return ""
	}
	var v struct {
		ID string `json:"topic_id"`
	}
	_ = json.Unmarshal(b, &v)
	return v.ID
}

func jsonValue(t *testing.T, b []byte) map[string]any {
	t.Helper()
	var v map[string]any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	return v
}

// waitUntil polls cond for up to a minute: a test's way to await a state
// written by a process it does not control (a real controller).
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	waitUntilShowing(t, what, cond, nil)
}

// waitUntilShowing is waitUntil that, on timing out, says what show
// returns (the state last seen).
func waitUntilShowing(t *testing.T, what string, cond func() bool, show func() string) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			if show != nil {
				t.Fatalf("timed out waiting until %s; last seen:\n%s", what, show())
			}
			t.Fatalf("timed out waiting until %s", what)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestRealKafkaDecodes: everything real brokers, controllers and Kafka's
// tools write (registrations, /controller, /feature, partition states,
// topic znodes with ids, entity configs, config change notifications,
// preferred election and reassignment requests, deletion markers) decodes
// without errors in package cluster, with the values they were given.
// Kafka's 2.8 ZooKeeper tools write the admin requests while no broker
// runs, so that no controller consumes them before they are read.
func TestRealKafkaDecodes(t *testing.T) {
	tool := kafkatest.Require(t, kafkatest.Kafka28)
	for _, v := range realVersions {
		t.Run(v, func(t *testing.T) {
			c := kafkatest.Shared(t, v)
			topic := "decode-" + versionTag(v)
			runOK(t, "topics", "create", "--zookeeper", c.Connect(), "--topic", topic,
				"--partitions", "3", "--replication-factor", "3", "--timeout", "90s")
			conn := connectTest(t, c.Connect())
			s := loadSnapshot(t, conn)
			for _, ne := range s.Errors() {
				t.Errorf("%s does not decode: %v", ne.Path, ne.Err)
			}
			id, epoch, err := c.Controller()
			if err != nil {
				t.Fatal(err)
			}
			if s.Controller().BrokerID != id || s.Controller().Epoch != epoch {
				t.Errorf("controller %+v, want broker %d epoch %d", s.Controller(), id, epoch)
			}
			for _, kb := range c.Brokers() {
				b, ok := s.Broker(kb.ID)
				if !ok || !b.Live || b.Err != nil {
					t.Errorf("broker %d not live in the model (%v)", kb.ID, b.Err)
					continue
				}
				r := b.Registration
				if b.Rack != kb.Rack || r.Host != "127.0.0.1" || r.Port != kb.Port || len(r.Endpoints) != 1 ||
					r.Endpoints[0].String() != "PLAINTEXT://"+kb.Addr() {
					t.Errorf("broker %d decoded as %+v, want rack %s at %s", kb.ID, r, kb.Rack, kb.Addr())
				}
			}
			tp := s.Topic(topic)
			if tp == nil || tp.ID == "" || len(tp.Partitions) != 3 {
				t.Fatalf("topic decoded as %+v", tp)
			}
			for _, p := range tp.Partitions {
				if !p.HasLeader() || len(p.ISR) != 3 || p.ControllerEpoch < 1 || p.ControllerEpoch > epoch {
					t.Errorf("partition %d decoded as leader %d isr %v controller epoch %d", p.ID, p.Leader, p.ISR, p.ControllerEpoch)
				}
			}

			// The admin requests, written by Kafka's tools with no controller.
			// The reassignment tool wants registered brokers: their
			// registrations stand in for them (ephemeral, our session).
			regs := map[string][]byte{}
			for _, b := range c.Brokers() {
				path := "/brokers/ids/" + strconv.Itoa(b.ID)
				if regs[path], _, err = conn.Get(path); err != nil {
					t.Fatal(err)
				}
			}
			c.StopBrokers()
			run28 := func(class string, args ...string) {
				t.Helper()
				res, err := tool.Tool(class, append([]string{"--zookeeper", c.Connect()}, args...)...)
				if err != nil || res.Code != 0 {
					t.Fatalf("%s %v: %v\n%s%s", class, args, err, res.Stdout, res.Stderr)
				}
			}
			// Broker configs go through ZooKeeper only while no broker is
			// registered.
			waitUntil(t, "every stopped broker is deregistered", func() bool {
				ids, _, err := conn.Children("/brokers/ids")
				return err == nil && len(ids) == 0
			})
			run28("kafka.admin.ConfigCommand", "--alter", "--entity-type", "brokers", "--entity-default", "--add-config", "log.cleaner.backoff.ms=20000")
			run28("kafka.admin.ConfigCommand", "--alter", "--entity-type", "brokers", "--entity-name", "2", "--add-config", "log.cleaner.threads=2")
			for path, data := range regs {
				if _, err := conn.Create(path, data, zk.FlagEphemeral, zk.WorldACL(zk.PermAll)); err != nil {
					t.Fatal(err)
				}
			}
			dir := t.TempDir()
			reassign := dir + "/reassign.json"
			writeFile(t, reassign, `{"version":1,"partitions":[{"topic":"`+topic+`","partition":0,"replicas":[3,2,1]}]}`)
			elect := dir + "/elect.json"
			writeFile(t, elect, `{"partitions":[{"topic":"`+topic+`","partition":1},{"topic":"`+topic+`","partition":2}]}`)
			run28("kafka.admin.ConfigCommand", "--alter", "--entity-type", "topics", "--entity-name", topic, "--add-config", "retention.ms=1000,segment.ms=600000")
			run28("kafka.admin.ReassignPartitionsCommand", "--execute", "--reassignment-json-file", reassign)
			run28("kafka.admin.PreferredReplicaLeaderElectionCommand", "--path-to-json-file", elect)
			res, err := c.TopicsZK(tool, "--delete", "--topic", topic)
			if err != nil || res.Code != 0 {
				t.Fatalf("kafka-topics --delete: %v %+v", err, res)
			}
			tree := readTree(t, conn, "/")
			kinds := map[cluster.PathKind]int{}
			for path, data := range tree {
				kinds[cluster.ParsePath(path).Kind]++
				if _, err := cluster.DecodeZNode(path, data); err != nil {
					t.Errorf("%s = %s does not decode: %v", path, data, err)
				}
			}
			for _, k := range []cluster.PathKind{cluster.KindConfigChange, cluster.KindReassignPartitions,
				cluster.KindPreferredReplicaElection, cluster.KindEntityConfig, cluster.KindTopicConfig, cluster.KindFeature} {
				if kinds[k] == 0 {
					t.Errorf("no znode of kind %v was written (kinds seen: %v)", k, kinds)
				}
			}
			s = loadSnapshot(t, conn)
			for _, ne := range s.Errors() {
				t.Errorf("%s does not decode: %v", ne.Path, ne.Err)
			}
			if r := s.PendingReassignment(); r == nil || len(r.Partitions) != 1 || !slices.Equal(r.Partitions[0].Replicas, []int{3, 2, 1}) {
				t.Errorf("pending reassignment %+v", r)
			}
			if pe := s.PendingPreferredElection(); pe == nil || len(pe.Partitions) != 2 {
				t.Errorf("pending preferred election %+v", pe)
			}
			if tp := s.Topic(topic); tp == nil || !tp.MarkedForDeletion || configSet(configString(tp))["retention.ms"] != "1000" {
				t.Errorf("topic after the tools: %+v", tp)
			}
			// The controller that comes back carries the requests out.
			for path := range regs {
				if err := conn.Delete(path, -1); err != nil {
					t.Fatal(err)
				}
			}
			if err := c.Heal(); err != nil {
				t.Fatal(err)
			}
			waitUntil(t, "the controller deletes the topic", func() bool {
				_, _, err := conn.Get("/brokers/topics/" + topic)
				return errors.Is(err, zk.ErrNoNode)
			})
		})
	}
}

func configString(t *cluster.Topic) string {
	parts := make([]string, len(t.Config))
	for i, e := range t.Config {
		parts[i] = e.Key + "=" + e.Value
	}
	return strings.Join(parts, ",")
}

func loadSnapshot(t *testing.T, conn *zkwatch.Conn) *cluster.Snapshot {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s, err := zksource.Load(ctx, conn, cluster.ModelOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// readTree reads every znode under root (nodes deleted meanwhile are
// left out), except ZooKeeper's own /zookeeper.
func readTree(t *testing.T, conn *zkwatch.Conn, root string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	var walk func(p string)
	walk = func(p string) {
		if p == "/zookeeper" {
			return
		}
		data, _, err := conn.Get(p)
		if errors.Is(err, zk.ErrNoNode) {
			return
		}
		if err != nil {
			t.Fatalf("get %s: %v", p, err)
		}
		out[p] = data
		kids, _, err := conn.Children(p)
		if err != nil && !errors.Is(err, zk.ErrNoNode) {
			t.Fatalf("children %s: %v", p, err)
		}
		for _, k := range kids {
			walk(strings.TrimSuffix(p, "/") + "/" + k)
		}
	}
	walk(root)
	return out
}

func writeFile(t *testing.T, path, data string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestRealKafkaReassignmentInProgress: a reassignment that cannot finish
// (its new replica is a registration with no broker behind it), started by
// Kafka's own tool (3.9: the Admin API; 2.8: /admin/reassign_partitions),
// is described by ktopo as 3.9's kafka-topics describes it: replication
// factor without the replicas being added, Adding/Removing columns.
func TestRealKafkaReassignmentInProgress(t *testing.T) {
	tool39 := kafkatest.Require(t, kafkatest.Kafka39)
	for _, v := range realVersions {
		t.Run(v, func(t *testing.T) {
			c := kafkatest.Shared(t, v)
			topic := "moving-" + versionTag(v)
			runOK(t, "topics", "create", "--zookeeper", c.Connect(), "--topic", topic, "--replica-assignment", "1:2,2:3", "--timeout", "90s")
			conn := connectTest(t, c.Connect())
			// Broker 4: registered, never there.
			b1, _, err := conn.Get("/brokers/ids/1")
			if err != nil {
				t.Fatal(err)
			}
			fake := strings.ReplaceAll(string(b1), strconv.Itoa(c.Broker(1).Port), "1")
			if _, err := conn.Create("/brokers/ids/4", []byte(fake), zk.FlagEphemeral, zk.WorldACL(zk.PermAll)); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = conn.Delete("/brokers/ids/4", -1) })
			plan := filepath.Join(t.TempDir(), "plan.json")
			writeFile(t, plan, `{"version":1,"partitions":[{"topic":"`+topic+`","partition":0,"replicas":[1,4]}]}`)
			var res kafkatest.Result
			if strings.HasPrefix(v, "2.") {
				res, err = c.Dist().Tool("kafka.admin.ReassignPartitionsCommand", "--zookeeper", c.Connect(), "--execute", "--reassignment-json-file", plan)
			} else {
				// Through a broker: it knows broker 4 once the controller
				// has seen the registration and sent it the metadata; until
				// then the tool refuses before writing anything.
				waitUntil(t, "a broker knows broker 4", func() bool {
					res, err = tool39.Tool("org.apache.kafka.tools.reassign.ReassignPartitionsCommand", "--bootstrap-server", c.Bootstrap(), "--execute", "--reassignment-json-file", plan)
					return err != nil || !strings.Contains(res.Stdout+res.Stderr, "Unknown broker id 4")
				})
			}
			if err != nil || res.Code != 0 {
				t.Fatalf("kafka-reassign-partitions --execute: %v\n%s%s", err, res.Stdout, res.Stderr)
			}
			waitUntil(t, "the controller starts the reassignment", func() bool {
				b, _, err := conn.Get("/brokers/topics/" + topic)
				return err == nil && strings.Contains(string(b), `"adding_replicas":{"0":[4]}`)
			})
			ours := runOK(t, "topics", "describe", "--zookeeper", c.Connect(), "--topic", topic)
			want := "Topic: " + topic + "\tTopicId: " + topicID(conn, topic) + "\tPartitionCount: 2\tReplicationFactor: 2\tConfigs: \n" +
				"\tTopic: " + topic + "\tPartition: 0\tLeader: 1\tReplicas: 1,4,2\tIsr: 1,2\tAdding Replicas: 4\tRemoving Replicas: 2\n" +
				"\tTopic: " + topic + "\tPartition: 1\tLeader: 2\tReplicas: 2,3\tIsr: 2,3\n"
			if ours != want {
				t.Errorf("ktopo describe during the reassignment:\n%s\nwant\n%s", ours, want)
			}
			// 3.9's describe says the same (Elr aside); 2.8's --zookeeper
			// describe counts the replicas being added and has no columns
			// for them (docs/compatibility.md).
			res, err = c.Topics("--describe", "--topic", topic)
			if err != nil || res.Code != 0 {
				t.Fatalf("kafka-topics --describe: %v %+v", err, res)
			}
			if strings.HasPrefix(v, "2.") {
				if !strings.Contains(res.Stdout, "ReplicationFactor: 3") || strings.Contains(res.Stdout, "Adding Replicas") {
					t.Errorf("2.8's describe changed:\n%s", res.Stdout)
				}
			} else {
				compareDescribe(t, v, describeRecords(t, ours), describeRecords(t, res.Stdout))
			}
			if got := runOK(t, "topics", "describe", "--zookeeper", c.Connect(), "--topic", topic, "--under-replicated-partitions"); got != "" {
				t.Errorf("the moving partition is in sync (ISR 1,2 of RF 2), ktopo lists it as under-replicated:\n%s", got)
			}
			// Cancelled through the Admin API (2.8 accepts it for a
			// reassignment started in ZooKeeper too): back to [1,2].
			cancelled, err := tool39.Tool("org.apache.kafka.tools.reassign.ReassignPartitionsCommand", "--bootstrap-server", c.Bootstrap(), "--cancel", "--preserve-throttles", "--reassignment-json-file", plan)
			if err != nil || cancelled.Code != 0 {
				t.Fatalf("kafka-reassign-partitions --cancel: %v\n%s%s", err, cancelled.Stdout, cancelled.Stderr)
			}
			waitUntil(t, "the reassignment is cancelled", func() bool {
				b, _, err := conn.Get("/brokers/topics/" + topic)
				return err == nil && strings.Contains(string(b), `"adding_replicas":{}`) && strings.Contains(string(b), `"0":[1,2]`)
			})
		})
	}
}

// TestRealKafkaUnderMinISR: --under-min-isr-partitions uses the effective
// min.insync.replicas, as 3.9's describe does: the topic's override, else
// the cluster's dynamic default (/config/brokers/<default>). A default of 4
// puts every partition of RF 3 under it, unless its topic says 3.
func TestRealKafkaUnderMinISR(t *testing.T) {
	c := kafkatest.Shared(t, kafkatest.Kafka39)
	runOK(t, "topics", "create", "--zookeeper", c.Connect(), "--topic", "minisr-default", "--replica-assignment", "1:2:3,2:3:1", "--timeout", "90s")
	runOK(t, "topics", "create", "--zookeeper", c.Connect(), "--topic", "minisr-topic", "--replica-assignment", "3:1:2", "--config", "min.insync.replicas=3", "--timeout", "90s")
	configs := func(args ...string) {
		t.Helper()
		res, err := c.Dist().Tool("kafka.admin.ConfigCommand", append([]string{"--bootstrap-server", c.Bootstrap(),
			"--entity-type", "brokers", "--entity-default", "--alter"}, args...)...)
		if err != nil || res.Code != 0 {
			t.Fatalf("kafka-configs %v: %v\n%s%s", args, err, res.Stdout, res.Stderr)
		}
	}
	configs("--add-config", "min.insync.replicas=4")
	t.Cleanup(func() { configs("--delete-config", "min.insync.replicas") })
	conn := connectTest(t, c.Connect())
	waitUntil(t, "the default is in ZooKeeper", func() bool {
		b, _, err := conn.Get("/config/brokers/<default>")
		return err == nil && strings.Contains(string(b), `"min.insync.replicas":"4"`)
	})
	var theirs string
	waitUntil(t, "the brokers apply the default", func() bool {
		res, err := c.Topics("--describe", "--under-min-isr-partitions", "--topic", "minisr-.*")
		theirs = res.Stdout
		return err == nil && res.Code == 0 && strings.Count(theirs, "\tPartition: ") == 2
	})
	ours := runOK(t, "topics", "describe", "--zookeeper", c.Connect(), "--under-min-isr-partitions", "--topic", "minisr-.*")
	compareDescribe(t, c.Version(), describeRecords(t, ours), describeRecords(t, theirs))
	if !strings.Contains(ours, "minisr-default\tPartition: 0") || !strings.Contains(ours, "minisr-default\tPartition: 1") || strings.Contains(ours, "minisr-topic") {
		t.Errorf("ktopo's under-min-ISR partitions:\n%s", ours)
	}
}
