package cmd

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/ktopo/ktopo/internal/testkit/kafkatest"
	"github.com/ktopo/ktopo/kraftsandbox"
)

// The real-KRaft tests run ktopo's read-only commands against KRaft
// clusters of the kafkatest rig (Kafka 4.4.0 as one combined node and as
// 3 controllers + 3 brokers, Kafka 3.9.2 as 3 + 3), over the Kafka
// protocol, and compare what ktopo prints with what Kafka's own tools of
// the same version print for the same cluster.

// kraftCluster is one of the rig's KRaft clusters, by name.
type kraftCluster struct {
	name     string
	version  string
	combined bool
}

var kraftClusters = []kraftCluster{
	{"4.4-combined", kafkatest.Kafka44, true},
	{"4.4", kafkatest.Kafka44, false},
	{"3.9", kafkatest.Kafka39, false},
}

func (k kraftCluster) start(t *testing.T) *kafkatest.KRaftCluster {
	t.Helper()
	if k.combined {
		return kafkatest.SharedCombined(t, k.version)
	}
	return kafkatest.SharedKRaft(t, k.version)
}

// kafkaTool runs one of the cluster's version's tools and returns its
// standard output, failing the test on a non-zero exit.
func kafkaTool(t *testing.T, c *kafkatest.KRaftCluster, script string, args ...string) string {
	t.Helper()
	res, err := c.Dist().Command(script, args...)
	if err != nil || res.Code != 0 {
		t.Fatalf("%s %s: %v %+v", script, strings.Join(args, " "), err, res)
	}
	return res.Stdout
}

// compareKRaftDescribe compares ktopo's describe with kafka-topics' record
// by record: every field, Elr and LastKnownElr included; Configs as sets
// (Kafka prints them in its own order).
func compareKRaftDescribe(t *testing.T, ours, theirs []map[string]string) bool {
	t.Helper()
	if len(ours) != len(theirs) {
		return false
	}
	for i := range ours {
		o, k := maps.Clone(ours[i]), maps.Clone(theirs[i])
		if !maps.Equal(configSet(o["Configs"]), configSet(k["Configs"])) {
			return false
		}
		delete(o, "Configs")
		delete(k, "Configs")
		if !maps.Equal(o, k) {
			return false
		}
	}
	return true
}

// topicsSorted orders describe's records by topic, each topic's records
// kept in their order: kafka-topics --bootstrap-server prints the topics
// of a pattern in the order of a Java HashMap of their names, ktopo
// sorted.
func topicsSorted(recs []map[string]string) []map[string]string {
	slices.SortStableFunc(recs, func(a, b map[string]string) int { return strings.Compare(a["Topic"], b["Topic"]) })
	return recs
}

// TestRealKRaftTopics: topics created by Kafka's own kafka-topics (one
// with configs, one with a manual assignment) are listed and described by
// ktopo over the Kafka protocol exactly as kafka-topics --bootstrap-server
// lists and describes them, on every KRaft version and shape.
func TestRealKRaftTopics(t *testing.T) {
	for _, k := range kraftClusters {
		t.Run(k.name, func(t *testing.T) {
			c := k.start(t)
			rf, assignment := "3", "1:2:3,2:3:1,3:1:2"
			if k.combined {
				rf, assignment = "1", "1,1,1"
			}
			auto, manual := "kr-auto", "kr-manual"
			for _, args := range [][]string{
				{"--create", "--if-not-exists", "--topic", auto, "--partitions", "6", "--replication-factor", rf,
					"--config", "retention.ms=86400000", "--config", "cleanup.policy=compact,delete"},
				{"--create", "--if-not-exists", "--topic", manual, "--replica-assignment", assignment},
			} {
				if res, err := c.Topics(args...); err != nil || res.Code != 0 {
					t.Fatalf("kafka-topics %v: %v %+v", args, err, res)
				}
			}
			bs := c.Bootstrap()
			for _, topic := range []string{auto, manual} {
				var ours, theirs string
				waitUntilShowing(t, "ktopo and kafka-topics describe "+topic+" alike", func() bool {
					ours = runOK(t, "topics", "describe", "--bootstrap-server", bs, "--topic", topic)
					theirs = kafkaTool(t, c, "kafka-topics", "--bootstrap-server", bs, "--describe", "--topic", topic)
					return compareKRaftDescribe(t, describeRecords(t, ours), describeRecords(t, theirs))
				}, func() string { return "ktopo:\n" + ours + "kafka-topics:\n" + theirs })
			}
			// A cluster-wide broker default that one topic overrides and
			// the others inherit: every topic described together reads as
			// kafka-topics reads it (the inherited values of the last topic
			// of an answer were taken for all: kr-inherit lost retention.ms).
			kafkaTool(t, c, "kafka-configs", "--bootstrap-server", bs, "--entity-type", "brokers", "--entity-default",
				"--alter", "--add-config", "log.retention.ms=604800001")
			t.Cleanup(func() {
				kafkaTool(t, c, "kafka-configs", "--bootstrap-server", bs, "--entity-type", "brokers", "--entity-default",
					"--alter", "--delete-config", "log.retention.ms")
			})
			if res, err := c.Topics("--create", "--if-not-exists", "--topic", "kr-inherit", "--partitions", "1", "--replication-factor", "1"); err != nil || res.Code != 0 {
				t.Fatalf("kafka-topics --create kr-inherit: %v %+v", err, res)
			}
			var all, allTheirs string
			waitUntilShowing(t, "ktopo and kafka-topics describe kr-.* alike, the broker default inherited", func() bool {
				all = runOK(t, "topics", "describe", "--bootstrap-server", bs, "--topic", "kr-.*")
				allTheirs = kafkaTool(t, c, "kafka-topics", "--bootstrap-server", bs, "--describe", "--topic", "kr-.*")
				return strings.Contains(allTheirs, "retention.ms=604800001") &&
					compareKRaftDescribe(t, topicsSorted(describeRecords(t, all)), topicsSorted(describeRecords(t, allTheirs)))
			}, func() string { return "ktopo:\n" + all + "kafka-topics:\n" + allTheirs })
			// The report options select the same partitions (none here).
			for _, opt := range []string{"--under-replicated-partitions", "--unavailable-partitions", "--under-min-isr-partitions"} {
				ours := runOK(t, "topics", "describe", "--bootstrap-server", bs, "--topic", "kr-.*", opt)
				theirs := kafkaTool(t, c, "kafka-topics", "--bootstrap-server", bs, "--describe", "--topic", "kr-.*", opt)
				if ours != theirs {
					t.Errorf("%s: ktopo %q, kafka-topics %q", opt, ours, theirs)
				}
			}
			ours := strings.Fields(runOK(t, "topics", "list", "--bootstrap-server", bs))
			theirs := strings.Fields(kafkaTool(t, c, "kafka-topics", "--bootstrap-server", bs, "--list"))
			if !slices.Equal(ours, theirs) {
				t.Errorf("list: ktopo %v, kafka-topics %v", ours, theirs)
			}
			// The JSON carries the same partitions and the overrides.
			var js struct {
				Topics []struct {
					Name       string            `json:"name"`
					Configs    map[string]string `json:"configs"`
					Partitions []json.RawMessage `json:"partitions"`
				} `json:"topics"`
			}
			if err := json.Unmarshal([]byte(runOK(t, "topics", "describe", "--bootstrap-server", bs, "--topic", auto, "--output", "json")), &js); err != nil {
				t.Fatal(err)
			}
			if len(js.Topics) != 1 || len(js.Topics[0].Partitions) != 6 || js.Topics[0].Configs["retention.ms"] != "86400000" {
				t.Errorf("describe --output json: %+v", js)
			}
		})
	}
}

// TestRealKRaftBrokersAndQuorum: ktopo brokers lists the cluster's
// brokers, and names as the controller the quorum's leader that
// kafka-metadata-quorum reports, never a broker Metadata guesses.
func TestRealKRaftBrokersAndQuorum(t *testing.T) {
	for _, k := range kraftClusters {
		t.Run(k.name, func(t *testing.T) {
			c := k.start(t)
			status := kafkaTool(t, c, "kafka-metadata-quorum", "--bootstrap-server", c.Bootstrap(), "describe", "--status")
			leader, epoch := quorumField(t, status, "LeaderId"), quorumField(t, status, "LeaderEpoch")
			var out struct {
				ClusterID  string `json:"clusterId"`
				Controller *int   `json:"controller"`
				Epoch      int    `json:"controllerEpoch"`
				Brokers    []struct {
					ID         int     `json:"id"`
					Live       bool    `json:"live"`
					Rack       *string `json:"rack"`
					Controller bool    `json:"controller"`
					Port       int     `json:"port"`
				} `json:"brokers"`
			}
			if err := json.Unmarshal([]byte(runOK(t, "brokers", "--bootstrap-server", c.Bootstrap(), "--output", "json")), &out); err != nil {
				t.Fatal(err)
			}
			if out.ClusterID != c.ClusterID() || out.Controller == nil || *out.Controller != leader || out.Epoch != epoch {
				t.Errorf("cluster %s controller %v epoch %d, want %s, %d (epoch %d)", out.ClusterID, out.Controller, out.Epoch, c.ClusterID(), leader, epoch)
			}
			var ids []int
			for _, b := range out.Brokers {
				ids = append(ids, b.ID)
				node := c.Node(b.ID)
				if !b.Live || b.Rack == nil || *b.Rack != node.Rack || b.Port != node.Port || b.Controller != (b.ID == leader) {
					t.Errorf("broker %+v (node %s, rack %s, port %d)", b, node.Name(), node.Rack, node.Port)
				}
			}
			if !slices.Equal(ids, c.BrokerIDs()) {
				t.Errorf("brokers %v, want %v", ids, c.BrokerIDs())
			}
			text := runOK(t, "brokers", "--bootstrap-server", c.Bootstrap())
			if !strings.Contains(text, "127.0.0.1:"+strconv.Itoa(c.Node(c.BrokerIDs()[0]).Port)) ||
				!strings.Contains(text, fmt.Sprintf("Controller: %d, the quorum's leader (epoch %d)", leader, epoch)) {
				t.Errorf("brokers:\n%s", text)
			}
			// plan places on the cluster's brokers, with their racks.
			plan := runOK(t, "plan", "--bootstrap-server", c.Bootstrap(), "--partitions", "6", "--replication-factor", "1", "--seed", "0")
			for _, id := range c.BrokerIDs() {
				if !strings.Contains(plan, c.Node(id).Rack) {
					t.Errorf("plan does not place on broker %d's rack %s:\n%s", id, c.Node(id).Rack, plan)
				}
			}
		})
	}
}

// quorumField reads "Name: value" of kafka-metadata-quorum --status.
func quorumField(t *testing.T, status, name string) int {
	t.Helper()
	for _, line := range strings.Split(status, "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == name {
			n, err := strconv.Atoi(strings.TrimSpace(v))
			if err != nil {
				t.Fatalf("%s: %q", name, line)
			}
			return n
		}
	}
	t.Fatalf("no %s in\n%s", name, status)
	return 0
}

// TestRealKRaftReassignVerify: a reassignment made by Kafka's own
// kafka-reassign-partitions is verified by ktopo as Kafka's --verify
// verifies it (the same lines), and --list agrees with Kafka's.
func TestRealKRaftReassignVerify(t *testing.T) {
	for _, k := range kraftClusters {
		if k.combined {
			continue // one broker: nowhere to move to
		}
		t.Run(k.name, func(t *testing.T) {
			c := k.start(t)
			bs := c.Bootstrap()
			topic := "kr-move"
			if res, err := c.Topics("--create", "--if-not-exists", "--topic", topic, "--replica-assignment", "1:2,2:3"); err != nil || res.Code != 0 {
				t.Fatalf("create: %v %+v", err, res)
			}
			// Every broker knows the topic before Kafka's tool asks one.
			waitUntil(t, "the brokers know "+topic, func() bool {
				for _, b := range c.Brokers() {
					res, err := c.Dist().Command("kafka-topics", "--bootstrap-server", b.Addr(), "--describe", "--topic", topic)
					if err != nil || res.Code != 0 || strings.Count(res.Stdout, "Leader: ") != 2 {
						return false
					}
				}
				return true
			})
			plan := filepath.Join(t.TempDir(), "plan.json")
			os.WriteFile(plan, []byte(`{"version":1,"partitions":[{"topic":"kr-move","partition":0,"replicas":[3,1]},{"topic":"kr-move","partition":1,"replicas":[2,1]}]}`), 0o644)
			kafkaTool(t, c, "kafka-reassign-partitions", "--bootstrap-server", bs, "--reassignment-json-file", plan, "--execute")
			// Done, as the controller and every broker's metadata say: the
			// brokers' metadata may trail the controller's list.
			waitUntil(t, "the reassignment completes", func() bool {
				if !strings.Contains(runOK(t, "reassign", "--list", "--bootstrap-server", bs), "No partition reassignments found.") {
					return false
				}
				for _, b := range c.Brokers() {
					res, err := c.Dist().Command("kafka-topics", "--bootstrap-server", b.Addr(), "--describe", "--topic", topic)
					if err != nil || res.Code != 0 || !strings.Contains(res.Stdout, "Replicas: 3,1\t") || !strings.Contains(res.Stdout, "Replicas: 2,1\t") {
						return false
					}
				}
				return true
			})
			// The controller says it is done before every broker's
			// metadata lists the new replicas: wait for them too, as
			// Kafka's tool run later would see them.
			var ours string
			waitUntil(t, "the brokers' metadata lists the new replicas", func() bool {
				ours = runOK(t, "reassign", "--verify", "--bootstrap-server", bs, "--reassignment-json-file", plan)
				return strings.Count(ours, " is completed.") == 2
			})
			theirs := kafkaTool(t, c, "kafka-reassign-partitions", "--bootstrap-server", bs, "--reassignment-json-file", plan, "--verify")
			if strings.TrimSpace(ours) != strings.TrimSpace(theirs) {
				t.Errorf("--verify:\nktopo:\n%s\nkafka-reassign-partitions:\n%s", ours, theirs)
			}
			ours = runOK(t, "reassign", "--list", "--bootstrap-server", bs)
			theirs = kafkaTool(t, c, "kafka-reassign-partitions", "--bootstrap-server", bs, "--list")
			if strings.TrimSpace(ours) != strings.TrimSpace(theirs) {
				t.Errorf("--list:\nktopo:\n%s\nkafka-reassign-partitions:\n%s", ours, theirs)
			}
		})
	}
}

// TestRealKRaftEvents: ktopo events polls a KRaft cluster and reports a
// topic Kafka's tool creates, then, on 3 + 3 controllers and brokers, a
// broker fenced after it is killed (leaders moving off it) and
// registered again when it comes back, and a new quorum leader when the
// leader is stopped.
func TestRealKRaftEvents(t *testing.T) {
	for _, k := range kraftClusters {
		t.Run(k.name, func(t *testing.T) {
			testKRaftEvents(t, realKRaft{k.start(t)}, k.combined)
		})
	}
}

// TestSandboxKRaftEvents is TestRealKRaftEvents on the simulated KRaft
// cluster of 3 + 3 (kraftsandbox, no Java).
func TestSandboxKRaftEvents(t *testing.T) {
	testKRaftEvents(t, startSandboxKRaft(t, kraftsandbox.Config{Controllers: 3, Brokers: 3, Racks: 3}), false)
}

// testKRaftEvents is TestRealKRaftEvents' scenario on c (one combined
// node, or 3 + 3).
func testKRaftEvents(t *testing.T, c kraftBackend, combined bool) {
	ev := startEventsWith(t, []string{"--bootstrap-server", c.Bootstrap(), "--poll-interval", "300ms"})
	ev.waitFor("the connection", func(m map[string]any) bool { return m["kind"] == "connection" && m["state"] == "connected" })
	topic := "kr-events"
	rf := 3
	if combined {
		rf = 1
	}
	c.createTopicRF(t, topic, 3, rf)
	created := ev.waitFor("topic_created", func(m map[string]any) bool { return m["kind"] == "topic_created" && m["topic"] == topic })
	if num(created["partitions"]) != 3 || created["path"] != nil || created["zxid"] != nil {
		t.Errorf("topic_created %v", created)
	}
	ev.waitFor("partition_appeared", func(m map[string]any) bool { return m["kind"] == "partition_appeared" && m["topic"] == topic })
	if combined {
		ev.stop()
		return
	}
	if err := c.Kill(2); err != nil {
		t.Fatal(err)
	}
	ev.waitFor("broker 2 fenced", func(m map[string]any) bool { return m["kind"] == "broker_gone" && num(m["broker"]) == 2 })
	if err := c.Restart(2); err != nil {
		t.Fatal(err)
	}
	ev.waitFor("broker 2 back", func(m map[string]any) bool { return m["kind"] == "broker_registered" && num(m["broker"]) == 2 })
	testKRaftMoveEvents(t, c, ev)
	leader := c.quorumLeader(t)
	if err := c.stopNode(leader); err != nil {
		t.Fatal(err)
	}
	moved := ev.waitFor("a new quorum leader", func(m map[string]any) bool { return m["kind"] == "controller_moved" })
	if num(moved["from"]) != leader || num(moved["to"]) == leader || num(moved["to"]) < kafkatest.FirstControllerID {
		t.Errorf("controller_moved %v, from quorum leader %d", moved, leader)
	}
	if err := c.Heal(); err != nil {
		t.Fatal(err)
	}
	ev.stop()
}

// TestRealKRaftBrokerStates (Kafka 4.4, 3 + 3): a broker whose log
// directories are cordoned (KIP-1066, cordoned.log.dirs set with Kafka's
// kafka-configs) is shown cordoned and gets no partition of ktopo's plan;
// a killed broker is shown fenced (4.x lists fenced brokers), then online
// again once it is back.
func TestRealKRaftBrokerStates(t *testing.T) {
	c := kafkatest.SharedKRaft(t, kafkatest.Kafka44)
	bs := c.Bootstrap()
	kafkaTool(t, c, "kafka-configs", "--bootstrap-server", bs, "--alter", "--entity-type", "brokers", "--entity-name", "3", "--add-config", "cordoned.log.dirs=*")
	t.Cleanup(func() {
		kafkaTool(t, c, "kafka-configs", "--bootstrap-server", bs, "--alter", "--entity-type", "brokers", "--entity-name", "3", "--delete-config", "cordoned.log.dirs")
	})
	waitBrokerState(t, bs, 3, "cordoned")
	plan := runOK(t, "plan", "--bootstrap-server", bs, "--partitions", "6", "--replication-factor", "2", "--output", "json")
	var p struct {
		Assignment map[string][]int `json:"assignment"`
	}
	if err := json.Unmarshal([]byte(plan), &p); err != nil || len(p.Assignment) != 6 {
		t.Fatalf("plan: %v\n%s", err, plan)
	}
	for part, rs := range p.Assignment {
		if slices.Contains(rs, 3) {
			t.Errorf("partition %s placed on cordoned broker 3: %v", part, rs)
		}
	}
	c.Node(2).Kill()
	// Every read must succeed, the one that starts on the broker just
	// killed (before the controller fences it) too: ktopo sends a request
	// whose broker refuses the connection to another one.
	waitBrokerState(t, bs, 2, "fenced")
	if err := c.Node(2).Start(); err != nil {
		t.Fatal(err)
	}
	waitBrokerState(t, bs, 2, "online")
}

// TestRealKRaftTUI: the built binary in a real terminal (tmux) on Kafka
// 4.4's 3 + 3 cluster: the overview names the quorum's leader as the
// controller (a controller node, no broker card badged), lists the
// voters; a topic Kafka's tool creates appears in the topics tab; the
// ZooKeeper tree is no tab; the creation wizard creates a topic exactly
// as it previewed it; when the brokers stop answering the banner says
// so, and goes once they are back.
func TestRealKRaftTUI(t *testing.T) {
	needTmux(t)
	c := kafkatest.SharedKRaft(t, kafkatest.Kafka44)
	q, err := c.Quorum()
	if err != nil {
		t.Fatal(err)
	}
	bin := buildKtopo(t)
	logf := filepath.Join(t.TempDir(), "ktopo.log")
	tm := startTmux(t, 160, 40, []string{"KTOPO_LOG=" + logf, "TERM=xterm-256color"}, bin, "--bootstrap-server", c.Bootstrap())
	leader := strconv.Itoa(q.LeaderID)
	s := tm.waitFor("overview", 30*time.Second, "controller "+leader+" (epoch", "quorum leader "+leader, "voters 3000", "rack-a", "broker 1", "LIVE")
	if strings.Contains(s, "★ ctrl") || strings.Contains(s, "Tree") {
		t.Fatalf("a broker badged as the controller, or the ZooKeeper tree:\n%s", s)
	}
	if res, err := c.Topics("--create", "--topic", "kr-tui", "--partitions", "2", "--replication-factor", "3"); err != nil || res.Code != 0 {
		t.Fatalf("create: %v %+v", err, res)
	}
	tm.keys("2")
	tm.waitFor("the new topic", 15*time.Second, "kr-tui")
	tm.keys("4") // Events is 4 on a KRaft cluster too (no tree for 3)
	tm.waitFor("its creation in the events", 5*time.Second, "topic created", "kr-tui")
	// The creation wizard: the KRaft controller's placement from a seed,
	// created exactly as previewed (the placement ktopo plan makes from
	// the seed shown).
	tm.keys("c")
	tm.waitFor("form", 10*time.Second, "Create a topic", "Replication factor")
	tm.keys("kr-wiz", "Tab", "C-u", "6", "Tab", "C-u", "2", "Enter")
	s = tm.waitFor("preview", 10*time.Second, "the KRaft controller's placement, seed ")
	var seed int64
	i := strings.Index(s, "the KRaft controller's placement, seed ")
	if _, err := fmt.Sscanf(s[i:], "the KRaft controller's placement, seed %d", &seed); err != nil {
		t.Fatalf("the preview shows no seed: %v\n%s", err, s)
	}
	tm.keys("Enter")
	tm.waitFor("confirmation", 5*time.Second, "Create topic kr-wiz?", "Sends CreateTopics")
	tm.keys("y")
	tm.waitFor("online", 30*time.Second, "Topic kr-wiz is online")
	var plan struct {
		Assignment map[string][]int `json:"assignment"`
	}
	out := runOK(t, "plan", "--bootstrap-server", c.Bootstrap(), "--partitions", "6", "--replication-factor", "2", "--seed", strconv.FormatInt(seed, 10), "--output", "json")
	if err := json.Unmarshal([]byte(out), &plan); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{}
	for p, rs := range plan.Assignment {
		want[p] = joinInts(rs)
	}
	waitAssignment(t, c, "kr-wiz", want)
	tm.keys("Escape")
	for _, b := range c.Brokers() {
		b.Pause()
	}
	tm.waitFor("the banner", 40*time.Second, "Kafka")
	s = tm.waitFor("the banner", 40*time.Second, "the data shown is as of")
	for _, b := range c.Brokers() {
		b.Resume()
	}
	deadline := time.Now().Add(60 * time.Second)
	for strings.Contains(tm.screen(), "the data shown is as of") && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
	}
	if s2 := tm.screen(); strings.Contains(s2, "the data shown is as of") {
		t.Fatalf("the banner stays after the brokers are back:\n%s\n(while paused:\n%s)", s2, s)
	}
	tm.keys("q")
	if err := c.WaitReady(time.Minute); err != nil {
		t.Fatal(err)
	}
}

// testKRaftMoveEvents: moves as a real cluster has them, some done at
// once, some waiting, one cancelled, while ktopo events follows. On a 3 +
// 3 cluster with broker 3 stopped, kr-moves (RF 1, on broker 1) moves
// partitions 0 and 1 to broker 3 (their copies wait for it) and 2-5 to
// broker 2 (done at once); partition 1's move is cancelled; broker 3
// returns and partition 0's move completes. Each waiting move is one
// reassignment_started and one reassignment_finished; nothing reports
// partitions added to, or appearing in, the topic (the poller rebuilt a
// topic whose moves changed while its metadata did not, from no
// partitions); ktopo reassign --list prints what Kafka's prints.
func testKRaftMoveEvents(t *testing.T, c kraftBackend, ev *eventStream) {
	t.Helper()
	bs, topic := c.Bootstrap(), "kr-moves"
	c.createTopic(t, topic, "1,1,1,1,1,1")
	ev.waitFor(topic+" created", func(m map[string]any) bool { return m["kind"] == "topic_created" && m["topic"] == topic })
	if err := c.stopNode(3); err != nil {
		t.Fatal(err)
	}
	ev.waitFor("broker 3 fenced", func(m map[string]any) bool { return m["kind"] == "broker_gone" && num(m["broker"]) == 3 })
	// Kafka's tool refuses a fenced broker as a target ("Unknown broker
	// id 3"), its controller does not: sent as another client would.
	alterReassignments(t, bs, topic, map[int32][]int32{0: {3}, 1: {3}, 2: {2}, 3: {2}, 4: {2}, 5: {2}})
	// Once the moves to broker 2 are done, the two waiting ones are all
	// that is listed: ktopo's --list is Kafka's.
	want := "Current partition reassignments:\nkr-moves-0: replicas: 3,1. adding: 3. removing: 1.\n" +
		"kr-moves-1: replicas: 3,1. adding: 3. removing: 1.\n"
	var ours string
	waitUntilShowing(t, "the two waiting moves listed", func() bool {
		ours = runOK(t, "reassign", "--list", "--bootstrap-server", bs)
		return ours == want
	}, func() string { return ours + "want\n" + want })
	if theirs, ok := c.kafkaTool(t, "kafka-reassign-partitions", "--bootstrap-server", bs, "--list"); ok && theirs != ours {
		t.Errorf("--list:\nktopo:\n%s\nkafka-reassign-partitions:\n%s", ours, theirs)
	}
	// Cancelled by another client (Kafka's tool would also clear the
	// throttles of every broker and wait for the stopped one).
	alterReassignments(t, bs, topic, map[int32][]int32{1: nil})
	if err := c.Restart(3); err != nil {
		t.Fatal(err)
	}
	started, finished := map[int]int{}, map[int]int{}
	for finished[0] == 0 || finished[1] == 0 {
		m := ev.waitFor("the moves of "+topic, func(m map[string]any) bool { return m["topic"] == topic })
		p := int(num(m["partition"]))
		switch m["kind"] {
		case "partitions_added", "partition_appeared", "topic_created", "topic_deleted":
			t.Fatalf("while its partitions move, %s reports %v", topic, m)
		case "reassignment_started":
			started[p]++
		case "reassignment_finished":
			finished[p]++
		}
	}
	for _, p := range []int{0, 1} {
		if started[p] != 1 || finished[p] != 1 {
			t.Errorf("%s-%d: %d reassignment_started, %d reassignment_finished; want one each", topic, p, started[p], finished[p])
		}
	}
	var theirs string
	waitUntilShowing(t, "ktopo and kafka-topics describe "+topic+" alike after the moves", func() bool {
		ours = runOK(t, "topics", "describe", "--bootstrap-server", bs, "--topic", topic)
		var ok bool
		if theirs, ok = c.kafkaTool(t, "kafka-topics", "--bootstrap-server", bs, "--describe", "--topic", topic); !ok {
			theirs = ours // no Kafka tools (the sandbox): ktopo's own describe
		}
		return strings.Contains(theirs, "Partition: 0\tLeader: 3") && compareKRaftDescribe(t, describeRecords(t, ours), describeRecords(t, theirs))
	}, func() string { return "ktopo:\n" + ours + "kafka-topics:\n" + theirs })
}

// alterReassignments sends one AlterPartitionReassignments of topic's
// partitions to their targets and fails the test on any refusal.
func alterReassignments(t *testing.T, bootstrap, topic string, targets map[int32][]int32) {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(strings.Split(bootstrap, ",")...))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	req := kmsg.NewPtrAlterPartitionAssignmentsRequest()
	rt := kmsg.NewAlterPartitionAssignmentsRequestTopic()
	rt.Topic = topic
	for p, rs := range targets {
		rp := kmsg.NewAlterPartitionAssignmentsRequestTopicPartition()
		rp.Partition, rp.Replicas = p, rs
		rt.Partitions = append(rt.Partitions, rp)
	}
	req.Topics = append(req.Topics, rt)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		t.Fatal(err)
	}
	if err := kerr.ErrorForCode(resp.ErrorCode); err != nil {
		t.Fatalf("AlterPartitionReassignments: %v", err)
	}
	for _, rt := range resp.Topics {
		for _, rp := range rt.Partitions {
			if err := kerr.ErrorForCode(rp.ErrorCode); err != nil {
				t.Fatalf("AlterPartitionReassignments of %s-%d: %v", rt.Topic, rp.Partition, err)
			}
		}
	}
}
