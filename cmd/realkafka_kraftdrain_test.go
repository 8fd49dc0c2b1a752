package cmd

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ktopo/ktopo/clusterops"
	"github.com/ktopo/ktopo/internal/testkit/kafkatest"
	"github.com/twmb/franz-go/pkg/kgo"
)

// drainTitle is the drain wizard's title, naming its broker.
var drainTitle = regexp.MustCompile(`Drain broker (\d+) \(rack-[ab]\)`)

// TestRealKRaftOperations: on Kafka 4.4 with a controller and 4 brokers
// in 2 racks (replication factor 2, so that a broker can be drained and a
// partition can lose every in-sync replica), the operations the shared
// 3 + 3 cluster cannot hold: a drain in the TUI, a reassignment cancelled
// mid-copy, an unclean election; each checked with Kafka's own tools.
func TestRealKRaftOperations(t *testing.T) {
	kafkatest.Require(t, kafkatest.Kafka44)
	c, err := kafkatest.StartKRaft(kafkatest.KRaftOptions{Version: kafkatest.Kafka44, Controllers: 1, Brokers: 4, Racks: 2})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Stop)
	kafkatest.Attach(t, c)
	t.Run("the fake controller answers as Kafka", func(t *testing.T) { testFakeWriter(t, c.Bootstrap()) })
	drained := 0
	t.Run("drain in the TUI", func(t *testing.T) { drained = testKRaftTUIDrain(t, c) })
	// The other brokers, for the steps after the drain.
	var others []int
	for _, id := range c.BrokerIDs() {
		if id != drained {
			others = append(others, id)
		}
	}
	t.Run("reassign --additional, --cancel", func(t *testing.T) { testKRaftCancel(t, c, others) })
	t.Run("unclean election", func(t *testing.T) { testKRaftUnclean(t, c, others) })
}

// testKRaftTUIDrain: the built binary in a real terminal: d on a broker
// previews the drain with the cordon first, w shows the requests, y
// cordons the broker and moves its replicas off; the wizard follows it to
// the end. Kafka's own tools then see no replica on the broker, the broker
// cordoned (cordoned.log.dirs=*), every partition still in its two racks,
// and a topic created after places nothing on it. It returns the broker
// drained (0: none).
func testKRaftTUIDrain(t *testing.T, c *kafkatest.KRaftCluster) int {
	needTmux(t)
	bs := c.Bootstrap()
	topics := []string{"dr-orders", "dr-clicks"}
	for _, topic := range topics {
		kafkaTool(t, c, "kafka-topics", "--bootstrap-server", bs, "--create", "--topic", topic, "--partitions", "6", "--replication-factor", "2")
	}
	holds := func(broker string) []string {
		var on []string
		for _, topic := range topics {
			for p, rs := range kafkaAssignment(t, c, bs, topic) {
				if slices.Contains(strings.Split(rs, ","), broker) {
					on = append(on, topic+"-"+p)
				}
			}
		}
		slices.Sort(on)
		return on
	}

	bin := buildKtopo(t)
	logf := filepath.Join(t.TempDir(), "ktopo.log")
	tm := startTmux(t, 160, 45, []string{"KTOPO_LOG=" + logf, "TERM=xterm-256color"}, bin, "--bootstrap-server", bs)
	tm.waitFor("overview", 30*time.Second, "quorum leader 3000", "rack-a", "rack-b", "broker 4")
	tm.waitFor("the topics", 15*time.Second, "topics 2", "partitions 12")
	tm.keys("d")
	s := tm.waitFor("the drain's preview", 15*time.Second, "Drain broker", "◉ minimal:", "PARTITION")
	m := drainTitle.FindStringSubmatch(s)
	if m == nil {
		t.Fatalf("no broker in the drain's title:\n%s", s)
	}
	broker := m[1]
	before := holds(broker)
	if len(before) == 0 {
		t.Fatalf("broker %s holds no replica to drain", broker)
	}
	tm.waitFor("the cordon first", 5*time.Second, "first: cordon broker "+broker+" (cordoned.log.dirs=*)")
	tm.keys("w")
	tm.waitFor("the requests", 10*time.Second, "IncrementalAlterConfigs", "AlterPartitionReassignments")
	tm.keys("w", "Enter")
	tm.waitFor("confirmation", 5*time.Second, "Drain broker "+broker+"?", "first cordons broker "+broker)
	tm.keys("y")
	tm.waitFor("done", 90*time.Second, "Drained broker "+broker, "it holds no replica", "stays cordoned")

	if on := holds(broker); len(on) > 0 {
		t.Errorf("Kafka's kafka-topics still places %v on drained broker %s (before: %v)", on, broker, before)
	}
	if d := kafkaTool(t, c, "kafka-configs", "--bootstrap-server", bs, "--describe", "--entity-type", "brokers", "--entity-name", broker); !strings.Contains(d, "cordoned.log.dirs=*") {
		t.Errorf("broker %s is not cordoned after its drain:\n%s", broker, d)
	}
	// Every partition keeps its replication factor and its two racks
	// (brokers 1 and 3 in rack-a, 2 and 4 in rack-b).
	rack := func(id string) int { n, _ := strconv.Atoi(id); return n % 2 }
	for _, topic := range topics {
		for p, rs := range kafkaAssignment(t, c, bs, topic) {
			ids := strings.Split(rs, ",")
			if len(ids) != 2 || rack(ids[0]) == rack(ids[1]) {
				t.Errorf("%s-%s: replicas %s, want 2 in 2 racks", topic, p, rs)
			}
		}
	}
	after := "dr-after"
	kafkaTool(t, c, "kafka-topics", "--bootstrap-server", bs, "--create", "--topic", after, "--partitions", "8", "--replication-factor", "2")
	for p, rs := range kafkaAssignment(t, c, bs, after) {
		if slices.Contains(strings.Split(rs, ","), broker) {
			t.Errorf("partition %s of %s placed on drained, cordoned broker %s: %s", p, after, broker, rs)
		}
	}
	tm.keys("Escape", "q")
	id, _ := strconv.Atoi(broker)
	return id
}

// testKRaftCancel: a reassignment throttled to 1 KB/s, started with
// ktopo reassign --execute --no-wait, is listed as Kafka's tool lists it;
// another target for its partition is refused, then sent with
// --additional; ktopo reassign --cancel puts the partition back on its
// replicas, as Kafka's tool then sees it, and removes the throttles.
func testKRaftCancel(t *testing.T, c *kafkatest.KRaftCluster, others []int) {
	bs := c.Bootstrap()
	topic := "kc-cancel"
	kafkaTool(t, c, "kafka-topics", "--bootstrap-server", bs, "--create", "--topic", topic,
		"--replica-assignment", fmt.Sprintf("%d:%d", others[0], others[1]))
	waitAssignment(t, c, topic, map[string]string{"0": fmt.Sprintf("%d,%d", others[0], others[1])})
	// 16 MB: Kafka's throttle lets a partition's fetch of 1 MB through
	// whenever its quota's 11 one-second samples have forgotten the last
	// one, whatever the rate: 3 minutes of copying.
	produce(t, bs, topic, 16000, 1000)
	file := moveFile(t, topic, others[0], others[2])
	runOK(t, "reassign", "--execute", "--bootstrap-server", bs, "--reassignment-json-file", file, "--throttle", "1024", "--no-wait")
	waitListed(t, c, fmt.Sprintf("adding: %d. removing: %d.", others[2], others[1]))

	// Another target for the partition while it moves: refused as Kafka's
	// tool refuses it, then sent with --additional, its preview naming the
	// target it replaces; the controller then moves the partition from its
	// first replicas to the new target.
	redirect := moveFile(t, topic, others[1], others[2])
	execute := []string{"reassign", "--execute", "--bootstrap-server", bs, "--reassignment-json-file", redirect, "--throttle", "1024", "--no-wait"}
	if code, _, errOut := runCLI(t, execute...); code == 0 || !strings.Contains(errOut, clusterops.MessageReassignmentExists) {
		t.Errorf("--execute while a reassignment runs: exit %d\n%s", code, errOut)
	}
	preview := runOK(t, append(execute, "--additional", "--dry-run")...)
	if !strings.Contains(preview, fmt.Sprintf("replaces the reassignment in progress to %d,%d", others[0], others[2])) {
		t.Errorf("--additional --dry-run:\n%s", preview)
	}
	runOK(t, append(execute, "--additional")...)
	waitListed(t, c, fmt.Sprintf("adding: %d. removing: %d.", others[2], others[0]))

	// Cancelled, the partition is back on its replicas, in the order the
	// controller reverts them to (the replicas less those being added, as
	// listed now: [o1,o0] after the redirect, not the [o0,o1] it had),
	// which ktopo says before it sends the request.
	back := fmt.Sprintf("%d,%d", others[1], others[0])
	out := runOK(t, "reassign", "--cancel", "--bootstrap-server", bs, "--reassignment-json-file", file)
	if !strings.Contains(out, topic+"-0: back to "+back+" (it was moving to "+fmt.Sprintf("%d,%d", others[1], others[2])+")") ||
		!strings.Contains(out, "Successfully cancelled partition reassignment for: "+topic+"-0") {
		t.Errorf("reassign --cancel:\n%s", out)
	}
	if l := kafkaTool(t, c, "kafka-reassign-partitions", "--bootstrap-server", bs, "--list"); !strings.Contains(l, "No partition reassignments found.") {
		t.Errorf("after --cancel, Kafka's tool lists:\n%s", l)
	}
	waitAssignment(t, c, topic, map[string]string{"0": back})
	waitNoThrottles(t, c, topic)
}

// moveFile writes a reassignment file moving partition 0 of topic to
// replicas.
func moveFile(t *testing.T, topic string, replicas ...int) string {
	t.Helper()
	file := filepath.Join(t.TempDir(), "move.json")
	body := fmt.Sprintf(`{"version":1,"partitions":[{"topic":%q,"partition":0,"replicas":[%s]}]}`, topic, joinInts(replicas))
	if err := os.WriteFile(file, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return file
}

// waitListed waits until ktopo reassign --list shows a reassignment with
// listed ("adding: 4. removing: 3."), then checks that Kafka's
// kafka-reassign-partitions --list prints the same.
func waitListed(t *testing.T, c *kafkatest.KRaftCluster, listed string) {
	t.Helper()
	bs := c.Bootstrap()
	var ours string
	waitUntilShowing(t, "the reassignment listed", func() bool {
		ours = runOK(t, "reassign", "--list", "--bootstrap-server", bs)
		return strings.Contains(ours, listed)
	}, func() string { return ours + "want " + listed })
	if theirs := kafkaTool(t, c, "kafka-reassign-partitions", "--bootstrap-server", bs, "--list"); strings.TrimSpace(ours) != strings.TrimSpace(theirs) {
		t.Errorf("--list:\nktopo:\n%s\nkafka-reassign-partitions:\n%s", ours, theirs)
	}
}

// testKRaftUnclean: a partition whose in-sync replicas are all gone (its
// follower fenced, then its leader) has no leader; ktopo leader-election
// --election-type unclean elects the follower once it is back, out of
// sync, as Kafka's ElectLeaders does.
func testKRaftUnclean(t *testing.T, c *kafkatest.KRaftCluster, others []int) {
	bs := c.Bootstrap()
	topic := "ku-unclean"
	leader, follower := others[0], others[1]
	kafkaTool(t, c, "kafka-topics", "--bootstrap-server", bs, "--create", "--topic", topic,
		"--replica-assignment", fmt.Sprintf("%d:%d", leader, follower))
	waitAssignment(t, c, topic, map[string]string{"0": fmt.Sprintf("%d,%d", leader, follower)})
	produce(t, bs, topic, 10, 100)
	isr := func() (string, string) {
		for _, r := range describeRecords(t, kafkaTool(t, c, "kafka-topics", "--bootstrap-server", bs, "--describe", "--topic", topic)) {
			if r["Partition"] == "0" {
				return r["Leader"], r["Isr"]
			}
		}
		return "", ""
	}
	c.Node(follower).Kill()
	t.Cleanup(func() { c.Node(follower).Start() })
	waitUntilShowing(t, "the follower out of the ISR", func() bool { l, i := isr(); return l == strconv.Itoa(leader) && i == strconv.Itoa(leader) },
		func() string { l, i := isr(); return "leader " + l + ", isr " + i })
	c.Node(leader).Kill()
	t.Cleanup(func() { c.Node(leader).Start() })
	waitUntilShowing(t, "no leader", func() bool { l, _ := isr(); return l == "none" }, func() string { l, i := isr(); return "leader " + l + ", isr " + i })
	if err := c.Node(follower).Start(); err != nil {
		t.Fatal(err)
	}
	waitBrokerState(t, bs, follower, "online")
	if l, _ := isr(); l != "none" {
		t.Fatalf("the partition got leader %s without an unclean election", l)
	}
	out := runOK(t, "leader-election", "--bootstrap-server", bs, "--election-type", "unclean", "--topic", topic, "--partition", "0")
	if !strings.Contains(out, "Successfully completed leader election (UNCLEAN) for partitions "+topic+"-0") {
		t.Errorf("leader-election --election-type unclean:\n%s", out)
	}
	if l, _ := isr(); l != strconv.Itoa(follower) {
		t.Errorf("leader %s after the unclean election, want %d", l, follower)
	}
}

// produce writes n records of size bytes to topic, acknowledged by every
// in-sync replica.
func produce(t *testing.T, bootstrap, topic string, n, size int) {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(strings.Split(bootstrap, ",")...), kgo.DefaultProduceTopic(topic))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	// Random bytes: the batches do not compress, so the bytes on disk,
	// and those a throttled copy moves, are n × size.
	rng := rand.New(rand.NewPCG(uint64(n), uint64(size)))
	records := make([]*kgo.Record, n)
	for i := range records {
		value := make([]byte, size)
		for j := range value {
			value[j] = byte(rng.Uint32())
		}
		records[i] = &kgo.Record{Value: value}
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := cl.ProduceSync(ctx, records...).FirstErr(); err != nil {
		t.Fatalf("produce to %s: %v", topic, err)
	}
}
