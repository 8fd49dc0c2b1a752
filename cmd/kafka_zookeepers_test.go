package cmd

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/ktopo/ktopo/internal/testkit/kafkatest"
	"github.com/ktopo/ktopo/internal/testkit/zktest"
)

// Real Kafka brokers on ZooKeeper servers other than the package's (Debian's
// 3.8): on ktopo's own embedded server as "ktopo sandbox --empty" serves it,
// and on Apache ZooKeeper 3.5.9 and 3.9.5. Each run goes through a
// zktest.Recorder, which cuts the connections once (the brokers and ktopo
// resume their sessions and restore their watches) and lists every opcode
// sent: the server must have each one.

// TestKafkaOnSandboxEmpty runs a Kafka 3.9 cluster on "ktopo sandbox
// --empty" (zkserver): it starts, elects a controller, creates topics
// through kafka-topics and through ktopo, fails over when the controller's
// broker is killed (its session expires on the embedded server) and takes
// the broker back.
func TestKafkaOnSandboxEmpty(t *testing.T) {
	kafkatest.Require(t, kafkatest.Kafka39)
	addr := sandboxEmpty(t)
	runKafkaScenario(t, kafkatest.Kafka39, addr, "3.8.0")
}

// TestKafka28OnSandboxEmpty is the same with Kafka 2.8, whose ZooKeeper
// client is 3.5.9 (and whose kafka-topics writes through ZooKeeper).
func TestKafka28OnSandboxEmpty(t *testing.T) {
	if testing.Short() {
		t.Skip("a second Kafka version on the embedded server: outside -short")
	}
	kafkatest.Require(t, kafkatest.Kafka28)
	addr := sandboxEmpty(t)
	runKafkaScenario(t, kafkatest.Kafka28, addr, "3.8.0")
}

// TestKafkaOnZooKeeperVersions runs Kafka 2.8 on the ZooKeeper it ships
// (3.5.9) and Kafka 3.9 on the newest ZooKeeper (3.9.5), ktopo with them.
func TestKafkaOnZooKeeperVersions(t *testing.T) {
	if testing.Short() {
		t.Skip("two more Kafka clusters: outside -short")
	}
	for _, tc := range []struct{ kafka, zookeeper string }{
		{kafkatest.Kafka28, kafkatest.ZooKeeper35},
		{kafkatest.Kafka39, kafkatest.ZooKeeper39},
	} {
		t.Run("kafka-"+tc.kafka+"-zookeeper-"+tc.zookeeper, func(t *testing.T) {
			kafkatest.Require(t, tc.kafka)
			srv := kafkatest.StartZooKeeper(t, tc.zookeeper)
			runKafkaScenario(t, tc.kafka, srv.Addr(), tc.zookeeper)
			if refused := zktest.RefusedRequests(srv.Log()); len(refused) > 0 {
				t.Errorf("ZooKeeper %s refused requests:\n%s", tc.zookeeper, strings.Join(refused, "\n"))
			}
		})
	}
}

// sandboxEmpty runs "ktopo sandbox --empty" in-process until the test ends
// and returns the address it serves.
func sandboxEmpty(t *testing.T) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	var stderr strings.Builder
	done := make(chan int, 1)
	go func() {
		done <- runContext(ctx, []string{"sandbox", "--empty"}, strings.NewReader(""), pw, &stderr)
		pw.Close()
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	addr, ok := strings.CutPrefix(strings.TrimSpace(line), "listening on ")
	if err != nil || !ok {
		cancel()
		t.Fatalf("sandbox --empty: first line %q, %v (stderr %q)", line, err, stderr.String())
	}
	go func() { _, _ = io.Copy(io.Discard, pr) }()
	t.Cleanup(func() {
		cancel()
		select {
		case code := <-done:
			if code != 0 {
				t.Errorf("sandbox --empty: exit %d, stderr %q", code, stderr.String())
			}
		case <-time.After(30 * time.Second):
			t.Error("sandbox --empty did not stop")
		}
	})
	return addr
}

// runKafkaScenario starts three brokers of a Kafka version on the ZooKeeper
// at server (through a recorder, chroot /kafka) and drives them:
//
//  1. registrations and the controller as ktopo brokers reports them;
//  2. topics created by ktopo (auto and manual assignment; ktopo waits for
//     the real controller) and by kafka-topics, described by ktopo;
//  3. the controller's broker killed: its registration goes when its
//     session expires, the controller moves to another broker with the next
//     epoch, the leaders it had move, every ISR loses it, and ktopo events
//     reports all of that;
//  4. the broker restarted: registered again, back in every ISR;
//  5. every connection cut: the brokers and ktopo resume their sessions,
//     setWatches restores their watches, a topic created next comes online;
//  6. the opcodes sent: all known to a server of serverVersion.
func runKafkaScenario(t *testing.T, version, server, serverVersion string) {
	rec := zktest.Record(t, server)
	// No automatic preferred election: a new controller runs its first one
	// 5 s after failing over, which could move leaders back to the
	// restarted broker while the test checks that they stay.
	c, err := kafkatest.Start(kafkatest.Options{Version: version, Connect: rec.Addr() + "/kafka",
		Props: map[string]string{"auto.leader.rebalance.enable": "false"}})
	if err != nil {
		t.Fatal(err)
	}
	kafkatest.Attach(t, c)
	t.Cleanup(func() {
		for _, b := range c.Brokers() {
			b.Kill() // no controlled shutdown: the cluster is thrown away
		}
		c.Stop()
	})
	connect := c.Connect()
	raw := zktest.Connect(t, server)
	step := func(name string) func() {
		start := time.Now()
		return func() { t.Logf("%s: %s", name, time.Since(start).Round(time.Millisecond)) }
	}

	// 1. Registrations and the controller.
	ctrl, epoch, err := c.Controller()
	if err != nil {
		t.Fatal(err)
	}
	bj := brokersJSON(t, connect)
	if bj.Controller == nil || *bj.Controller != ctrl || len(bj.Brokers) != 3 {
		t.Fatalf("ktopo brokers: controller %v, %d brokers; want controller %d, 3 brokers", bj.Controller, len(bj.Brokers), ctrl)
	}
	for i, b := range bj.Brokers {
		want := c.Broker(i + 1)
		if b.ID != want.ID || !b.Live || b.Rack == nil || *b.Rack != want.Rack || !slices.Contains(b.Endpoints, "PLAINTEXT://"+want.Addr()) {
			t.Errorf("ktopo brokers: %+v, want broker %d live in %s at %s", b, want.ID, want.Rack, want.Addr())
		}
	}

	// 2. Topics through ktopo and through kafka-topics.
	done := step("create three topics")
	for _, args := range [][]string{
		{"--topic", "ktopo-auto", "--partitions", "6", "--replication-factor", "3"},
		{"--topic", "ktopo-manual", "--replica-assignment", "1:2:3,2:3:1,3:1:2"},
	} {
		code, out, errOut := runCLI(t, append([]string{"topics", "create", "--zookeeper", connect}, args...)...)
		topic := args[1]
		if code != 0 || !strings.Contains(out, "Created topic "+topic+".") || !strings.Contains(out, "partitions online in") {
			t.Fatalf("ktopo topics create %s: exit %d\n%s\n%s", topic, code, out, errOut)
		}
	}
	res, err := c.Topics("--create", "--topic", "kafka-made", "--replica-assignment", "2:3:1,3:1:2")
	if err != nil || res.Code != 0 {
		t.Fatalf("kafka-topics --create: %v %+v", err, res)
	}
	manual := [][]int{{1, 2, 3}, {2, 3, 1}, {3, 1, 2}}
	for topic, assignment := range map[string][][]int{"ktopo-manual": manual, "kafka-made": {{2, 3, 1}, {3, 1, 2}}} {
		waitTopic(t, connect, topic, "every partition led by its first replica, ISR = replicas", func(ps []partJSON) bool {
			if len(ps) != len(assignment) {
				return false
			}
			for i, p := range ps {
				if p.Leader == nil || *p.Leader != assignment[i][0] || !slices.Equal(p.Replicas, assignment[i]) || !slices.Equal(p.ISR, assignment[i]) {
					return false
				}
			}
			return true
		})
	}
	waitTopic(t, connect, "ktopo-auto", "6 partitions online with 3 replicas in sync", func(ps []partJSON) bool {
		return len(ps) == 6 && !slices.ContainsFunc(ps, func(p partJSON) bool { return p.Leader == nil || len(p.ISR) != 3 })
	})
	done()

	// A topic config change: Kafka writes /config/topics/<t> and a
	// sequential /config/changes/config_change_N, which every broker's
	// child watch picks up.
	done = step("alter a topic config")
	via := []string{"--bootstrap-server", c.Bootstrap()}
	if strings.HasPrefix(version, "2.") {
		via = []string{"--zookeeper", connect}
	}
	res, err = c.Dist().Run("kafka.admin.ConfigCommand", append(via, "--alter", "--entity-type", "topics", "--entity-name", "kafka-made",
		"--add-config", "retention.ms=86400000")...)
	if err != nil || res.Code != 0 {
		t.Fatalf("kafka-configs --alter: %v %+v", err, res)
	}
	if changes, _, err := raw.Children("/kafka/config/changes"); err != nil || !slices.Equal(changes, []string{"config_change_0000000000"}) {
		t.Errorf("/kafka/config/changes: %v %v, want [config_change_0000000000]", changes, err)
	}
	for _, b := range c.Brokers() {
		waitFor(t, fmt.Sprintf("broker %d to apply the topic config", b.ID), 30*time.Second, func() bool {
			return strings.Contains(readLog(b.LogFile()), "Processing override for entityPath: topics/kafka-made")
		})
	}
	if code, out, errOut := runCLI(t, "topics", "describe", "--zookeeper", connect, "--topic", "kafka-made"); code != 0 ||
		!strings.Contains(out, "Configs: retention.ms=86400000") {
		t.Errorf("ktopo topics describe kafka-made: exit %d\n%s\n%s", code, out, errOut)
	}
	done()

	// 3. Kill the controller's broker.
	events := followEvents(t, connect)
	done = step(fmt.Sprintf("kill controller %d: session expiry and failover", ctrl))
	c.Broker(ctrl).Kill()
	waitFor(t, fmt.Sprintf("broker %d's registration to expire", ctrl), 60*time.Second, func() bool {
		ok, _, err := raw.Exists(fmt.Sprintf("/kafka/brokers/ids/%d", ctrl))
		return err == nil && !ok
	})
	if err := c.WaitReady(time.Minute); err != nil {
		t.Fatal(err)
	}
	ctrl2, epoch2, err := c.Controller()
	if err != nil || ctrl2 == ctrl || epoch2 != epoch+1 {
		t.Fatalf("after killing controller %d (epoch %d): controller %d epoch %d (%v); want another broker, epoch %d", ctrl, epoch, ctrl2, epoch2, err, epoch+1)
	}
	// Kafka elects the first live replica in the ISR; the ISR loses ctrl.
	without := func(rs []int) []int {
		return slices.DeleteFunc(slices.Clone(rs), func(r int) bool { return r == ctrl })
	}
	waitTopic(t, connect, "ktopo-manual", fmt.Sprintf("broker %d out of every ISR and leadership", ctrl), func(ps []partJSON) bool {
		for i, p := range ps {
			if p.Leader == nil || *p.Leader != without(manual[i])[0] || !slices.Equal(p.ISR, without(manual[i])) {
				return false
			}
		}
		return len(ps) == 3
	})
	waitTopic(t, connect, "ktopo-auto", fmt.Sprintf("broker %d out of every ISR", ctrl), func(ps []partJSON) bool {
		return !slices.ContainsFunc(ps, func(p partJSON) bool { return p.Leader == nil || *p.Leader == ctrl || slices.Contains(p.ISR, ctrl) })
	})
	led := slices.IndexFunc(manual, func(rs []int) bool { return rs[0] == ctrl })
	events.wait(fmt.Sprintf("broker_gone %d", ctrl), func(e map[string]any) bool { return e["kind"] == "broker_gone" && e["broker"] == float64(ctrl) })
	events.wait("controller_moved", func(e map[string]any) bool { return e["kind"] == "controller_moved" })
	// A new controller first takes the dead broker out of the ISRs, with
	// no leader where it led (ReplicaStateMachine, OfflineReplica), then
	// elects: two writes, which ktopo may see apart (ctrl -> -1 -> new) or
	// together (ctrl -> new).
	leaderMoved := func(from, to int) func(e map[string]any) bool {
		return func(e map[string]any) bool {
			return e["kind"] == "leader_moved" && e["topic"] == "ktopo-manual" && e["partition"] == float64(led) &&
				(from == 0 || e["from"] == float64(from)) && (to == 0 || e["to"] == float64(to))
		}
	}
	events.wait(fmt.Sprintf("ktopo-manual-%d leader_moved from %d", led, ctrl), leaderMoved(ctrl, 0))
	events.wait(fmt.Sprintf("ktopo-manual-%d leader_moved to %d", led, manual[led][1]), leaderMoved(0, manual[led][1]))
	for p := range manual {
		events.wait(fmt.Sprintf("ktopo-manual-%d isr_shrank by %d", p, ctrl), func(e map[string]any) bool {
			removed, _ := e["removed"].([]any)
			return e["kind"] == "isr_shrank" && e["topic"] == "ktopo-manual" && e["partition"] == float64(p) &&
				len(removed) == 1 && removed[0] == float64(ctrl)
		})
	}
	done()

	// 4. The broker comes back and catches up; leaders stay where they are
	// (no preferred election within the test).
	done = step(fmt.Sprintf("restart broker %d: back in every ISR", ctrl))
	if err := c.Heal(); err != nil {
		t.Fatal(err)
	}
	waitTopic(t, connect, "ktopo-manual", fmt.Sprintf("broker %d back in every ISR", ctrl), func(ps []partJSON) bool {
		for i, p := range ps {
			isr := slices.Sorted(slices.Values(p.ISR))
			if p.Leader == nil || *p.Leader != without(manual[i])[0] || !slices.Equal(isr, []int{1, 2, 3}) {
				return false
			}
		}
		return len(ps) == 3
	})
	events.wait(fmt.Sprintf("broker_registered %d", ctrl), func(e map[string]any) bool {
		return e["kind"] == "broker_registered" && e["broker"] == float64(ctrl)
	})
	done()

	// 5. Cut every connection: sessions resume, watches are restored.
	done = step("cut every connection: sessions resume, watches restored")
	owners := registrationOwners(t, raw)
	before := rec.Ops()[101]
	rec.Drop()
	waitFor(t, "the brokers and ktopo to restore their watches", 30*time.Second, func() bool { return rec.Ops()[101] >= before+4 })
	if got := registrationOwners(t, raw); !maps.Equal(got, owners) {
		t.Errorf("registrations after the cut %v, want the same sessions %v", got, owners)
	}
	code, out, errOut := runCLI(t, "topics", "create", "--zookeeper", connect, "--topic", "after-cut", "--replica-assignment", "3:1,1:2")
	if code != 0 || !strings.Contains(out, "All 2 partitions online in") {
		t.Fatalf("ktopo topics create after the cut: exit %d\n%s\n%s", code, out, errOut)
	}
	events.wait("topic_created after-cut", func(e map[string]any) bool { return e["kind"] == "topic_created" && e["topic"] == "after-cut" })
	done()

	// 6. What was sent.
	t.Logf("ZooKeeper requests: %s\ndetails: %s", rec.Summary(), rec.DetailSummary())
	if bad := rec.Unsupported(serverVersion); len(bad) > 0 {
		t.Errorf("opcodes %v sent, unknown to ZooKeeper %s", bad, serverVersion)
	}
	if d := rec.Details(); d["multi:check"] == 0 || d["create:ephemeral"]+d["multi:create:ephemeral"] == 0 {
		t.Errorf("no multi with a check op or no ephemeral create recorded: %v", d)
	}
}

type partJSON struct {
	Partition int   `json:"partition"`
	Leader    *int  `json:"leader"`
	Replicas  []int `json:"replicas"`
	ISR       []int `json:"isr"`
}

// describeJSON returns ktopo topics describe --output json's partitions of
// a topic (nil while the topic is unknown).
func describeJSON(t *testing.T, connect, topic string) []partJSON {
	t.Helper()
	code, out, _ := runCLI(t, "topics", "describe", "--zookeeper", connect, "--topic", "^"+topic+"$", "--output", "json")
	if code != 0 {
		return nil
	}
	var d struct {
		Topics []struct {
			Partitions []partJSON `json:"partitions"`
		} `json:"topics"`
	}
	if err := json.Unmarshal([]byte(out), &d); err != nil || len(d.Topics) != 1 {
		return nil
	}
	return d.Topics[0].Partitions
}

// waitTopic waits until ktopo describes the topic as cond wants.
func waitTopic(t *testing.T, connect, topic, what string, cond func([]partJSON) bool) {
	t.Helper()
	var last []partJSON
	deadline := time.Now().Add(90 * time.Second)
	for {
		if last = describeJSON(t, connect, topic); last != nil && cond(last) {
			return
		}
		if time.Now().After(deadline) {
			b, _ := json.Marshal(last)
			t.Fatalf("%s: not %s after 90s; ktopo describes %s", topic, what, b)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

type brokersOut struct {
	Controller *int `json:"controller"`
	Brokers    []struct {
		ID        int      `json:"id"`
		Live      bool     `json:"live"`
		Rack      *string  `json:"rack"`
		Endpoints []string `json:"endpoints"`
	} `json:"brokers"`
}

func brokersJSON(t *testing.T, connect string) brokersOut {
	t.Helper()
	code, out, errOut := runCLI(t, "brokers", "--zookeeper", connect, "--output", "json")
	var b brokersOut
	if err := json.Unmarshal([]byte(out), &b); code != 0 || err != nil {
		t.Fatalf("ktopo brokers: exit %d %v\n%s\n%s", code, err, out, errOut)
	}
	return b
}

// registrationOwners maps each broker registration to its session.
func registrationOwners(t *testing.T, raw *zk.Conn) map[string]int64 {
	t.Helper()
	ids, _, err := raw.Children("/kafka/brokers/ids")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int64{}
	for _, id := range ids {
		_, st, err := raw.Get("/kafka/brokers/ids/" + id)
		if err != nil && !errors.Is(err, zk.ErrNoNode) {
			t.Fatal(err)
		}
		if st != nil {
			out[id] = st.EphemeralOwner
		}
	}
	return out
}

func readLog(path string) string {
	b, _ := os.ReadFile(path)
	return string(b)
}

func waitFor(t *testing.T, what string, timeout time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", timeout, what)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// eventLog is ktopo events --output json running until the test ends,
// keeping every event: wait looks among all of them, in any order.
type eventLog struct {
	t    *testing.T
	mu   sync.Mutex
	seen []map[string]any
	more chan struct{}
}

func followEvents(t *testing.T, connect string) *eventLog {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	var stderr strings.Builder
	done := make(chan int, 1)
	go func() {
		done <- runContext(ctx, []string{"events", "--zookeeper", connect, "--output", "json"}, strings.NewReader(""), pw, &stderr)
		pw.Close()
	}()
	es := &eventLog{t: t, more: make(chan struct{}, 1)}
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			var m map[string]any
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				continue
			}
			es.mu.Lock()
			es.seen = append(es.seen, m)
			es.mu.Unlock()
			select {
			case es.more <- struct{}{}:
			default:
			}
		}
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Error("ktopo events did not stop")
		}
	})
	es.wait("the connection", func(e map[string]any) bool { return e["kind"] == "connection" && e["state"] == "connected" })
	return es
}

// wait waits for an event that match accepts, among all seen so far.
func (es *eventLog) wait(what string, match func(map[string]any) bool) {
	es.t.Helper()
	deadline := time.After(60 * time.Second)
	for {
		es.mu.Lock()
		found := slices.ContainsFunc(es.seen, match)
		n := len(es.seen)
		es.mu.Unlock()
		if found {
			return
		}
		select {
		case <-es.more:
		case <-deadline:
			es.mu.Lock()
			var kinds []string
			for _, e := range es.seen {
				b, _ := json.Marshal(e)
				kinds = append(kinds, string(b))
			}
			es.mu.Unlock()
			es.t.Fatalf("ktopo events: no %s within 60s; %d events seen:\n%s", what, n, strings.Join(kinds, "\n"))
		}
	}
}
