package cmd

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ktopo/ktopo/clusterops"
	"github.com/ktopo/ktopo/internal/testkit/kafkatest"
	"github.com/ktopo/ktopo/kraftsandbox"
	"github.com/twmb/franz-go/pkg/kgo"
)

// drainTitle is the drain wizard's title, naming its broker.
var drainTitle = regexp.MustCompile(`Drain broker (\d+) \(rack-[ab]\)`)

// TestRealKRaftOperations: on Kafka 4.4 with a controller and 4 brokers
// in 2 racks (replication factors 2 and 3, so that a broker can be
// drained and a partition can lose every in-sync replica): the fake
// controller's answers against Kafka's; every TUI operation with its
// defaults in the built binary in a real terminal (realkafka_kraftui_test.go);
// a reassignment cancelled mid-copy, an unclean election; each checked
// with Kafka's own tools. The drain runs three times (leaders first with
// the cordon, throttled, on a broker cordoned beforehand), and three more
// without -short: Kafka refused the drain's own reorder once it had
// cordoned the broker, a race it lost only some of the time.
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
	t.Run("the TUI's operations", func(t *testing.T) { drained = testKRaftTUI(t, rigOf(c)) })
	testKRaftAfterDrain(t, realKRaft{c}, drained)
}

// testKRaftAfterDrain runs the steps after the drain on the other
// brokers.
func testKRaftAfterDrain(t *testing.T, c kraftBackend, drained int) {
	var others []int
	for _, id := range c.BrokerIDs() {
		if id != drained {
			others = append(others, id)
		}
	}
	t.Run("reassign --additional, --cancel", func(t *testing.T) { testKRaftCancel(t, c, others) })
	t.Run("unclean election", func(t *testing.T) { testKRaftUnclean(t, c, others) })
}

// TestSandboxKRaftOperations is TestRealKRaftOperations on the simulated
// KRaft cluster (kraftsandbox, no Java): a controller and 4 brokers in 2
// racks; the fake controller's answers against the sandbox's, and every
// TUI operation in the built binary in a real terminal, each end state
// checked with ktopo's reads and franz-go's DescribeConfigs where the real
// test asks Kafka's tools.
func TestSandboxKRaftOperations(t *testing.T) {
	c := startSandboxKRaft(t, kraftsandbox.Config{Controllers: 1, Brokers: 4, Racks: 2})
	t.Run("the fake controller answers as the sandbox", func(t *testing.T) { testFakeWriter(t, c.Bootstrap()) })
	drained := 0
	t.Run("the TUI's operations", func(t *testing.T) { drained = testKRaftTUI(t, c.rig()) })
	testKRaftAfterDrain(t, c, drained)
}

// testKRaftTUI runs the TUI's operations in one terminal, in turn, and
// returns the broker drained (0: none).
func testKRaftTUI(t *testing.T, r kraftRig) int {
	k := startKRaftUI(t, r)
	type step struct {
		name string
		run  func(t *testing.T)
	}
	steps := []step{
		{"create (c)", func(t *testing.T) { k.create(t, "ui-orders", 0) }},
		{"drain (d), leaders first, cordoned", func(t *testing.T) { k.drain(t, false, false) }},
		{"c, R, a, e on a cluster with a cordoned broker", k.opsWhileCordoned},
		{"undo, preferred election (p)", k.undo},
		{"drain throttled", func(t *testing.T) { k.drain(t, true, false) }},
		{"undo, preferred election (p) again", k.undo},
		{"drain a broker cordoned beforehand", func(t *testing.T) { k.cordonByHand(t); k.drain(t, false, true) }},
	}
	if !testing.Short() {
		for i := range 3 {
			steps = append(steps, step{fmt.Sprintf("undo %d", i+2), k.undo},
				step{fmt.Sprintf("drain %d", i+4), func(t *testing.T) { k.drain(t, i%2 == 1, false) }})
		}
	}
	for _, st := range steps {
		if !t.Run(st.name, st.run) {
			break
		}
	}
	k.tm.keys("Escape", "q")
	return k.broker
}

// testKRaftCancel: a reassignment throttled to 1 KB/s, started with
// ktopo reassign --execute --no-wait, is listed as Kafka's tool lists it;
// another target for its partition is refused, then sent with
// --additional; ktopo reassign --cancel puts the partition back on its
// replicas, as Kafka's tool then sees it, and removes the throttles.
func testKRaftCancel(t *testing.T, c kraftBackend, others []int) {
	bs := c.Bootstrap()
	topic := "kc-cancel"
	c.createTopic(t, topic, fmt.Sprintf("%d:%d", others[0], others[1]))
	c.waitAssignment(t, topic, map[string]string{"0": fmt.Sprintf("%d,%d", others[0], others[1])})
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
	l, ok := c.kafkaTool(t, "kafka-reassign-partitions", "--bootstrap-server", bs, "--list")
	if !ok {
		l = runOK(t, "reassign", "--list", "--bootstrap-server", bs) // no Kafka tools: ktopo's, Kafka's words
	}
	if !strings.Contains(l, "No partition reassignments found.") {
		t.Errorf("after --cancel, Kafka's tool lists:\n%s", l)
	}
	c.waitAssignment(t, topic, map[string]string{"0": back})
	c.waitNoThrottles(t, topic)
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
func waitListed(t *testing.T, c kraftBackend, listed string) {
	t.Helper()
	bs := c.Bootstrap()
	var ours string
	waitUntilShowing(t, "the reassignment listed", func() bool {
		ours = runOK(t, "reassign", "--list", "--bootstrap-server", bs)
		return strings.Contains(ours, listed)
	}, func() string { return ours + "want " + listed })
	// ktopo's progress by bytes is on standard error: standard output is
	// Kafka's.
	kafkas := ours
	if theirs, ok := c.kafkaTool(t, "kafka-reassign-partitions", "--bootstrap-server", bs, "--list"); ok && strings.TrimSpace(kafkas) != strings.TrimSpace(theirs) {
		t.Errorf("--list:\nktopo:\n%s\nkafka-reassign-partitions:\n%s", ours, theirs)
	}
}

// testKRaftUnclean: a partition whose in-sync replicas are all gone (its
// follower fenced, then its leader) has no leader; ktopo leader-election
// --election-type unclean elects the follower once it is back, out of
// sync, as Kafka's ElectLeaders does.
func testKRaftUnclean(t *testing.T, c kraftBackend, others []int) {
	bs := c.Bootstrap()
	topic := "ku-unclean"
	leader, follower := others[0], others[1]
	c.createTopic(t, topic, fmt.Sprintf("%d:%d", leader, follower))
	c.waitAssignment(t, topic, map[string]string{"0": fmt.Sprintf("%d,%d", leader, follower)})
	produce(t, bs, topic, 10, 100)
	isr := func() (string, string) {
		out, ok := c.kafkaTool(t, "kafka-topics", "--bootstrap-server", bs, "--describe", "--topic", topic)
		if !ok {
			out = runOK(t, "topics", "describe", "--bootstrap-server", bs, "--topic", topic) // kafka-topics' words
		}
		for _, r := range describeRecords(t, out) {
			if r["Partition"] == "0" {
				return r["Leader"], r["Isr"]
			}
		}
		return "", ""
	}
	if err := c.Kill(follower); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Restart(follower) })
	waitUntilShowing(t, "the follower out of the ISR", func() bool { l, i := isr(); return l == strconv.Itoa(leader) && i == strconv.Itoa(leader) },
		func() string { l, i := isr(); return "leader " + l + ", isr " + i })
	if err := c.Kill(leader); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Restart(leader) })
	waitUntilShowing(t, "no leader", func() bool { l, _ := isr(); return l == "none" }, func() string { l, i := isr(); return "leader " + l + ", isr " + i })
	if err := c.Restart(follower); err != nil {
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
