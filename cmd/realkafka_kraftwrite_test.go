package cmd

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ktopo/ktopo/clusterops"
	"github.com/ktopo/ktopo/internal/testkit/kafkatest"
	"github.com/ktopo/ktopo/kafkaops"
	"github.com/ktopo/ktopo/kafkawatch"
)

// The real-KRaft write tests: ktopo's writes over the Kafka protocol
// (package kafkaops) on Kafka 4.4's 3 controllers + 3 brokers, each
// checked with Kafka's own tools. One topic, a few steps, on the shared
// cluster: they cost a few seconds beside its start.

// requestReplicas reads the "partition N replicas [a,b]" lines of a
// CreateTopics or CreatePartitions request as ktopo prints it.
var requestReplicas = regexp.MustCompile(`partition (\d+) replicas \[([\d,]+)\]`)

func requestAssignment(t *testing.T, out string) map[string]string {
	t.Helper()
	m := map[string]string{}
	for _, sub := range requestReplicas.FindAllStringSubmatch(out, -1) {
		m[sub[1]] = sub[2]
	}
	if len(m) == 0 {
		t.Fatalf("no partition in the request:\n%s", out)
	}
	return m
}

// kafkaAssignment is kafka-topics --describe's replicas per partition,
// as broker addr sees them (nil: it does not describe the topic).
func kafkaAssignment(t *testing.T, c *kafkatest.KRaftCluster, addr, topic string) map[string]string {
	t.Helper()
	res, err := c.Dist().Command("kafka-topics", "--bootstrap-server", addr, "--describe", "--topic", topic)
	if err != nil || res.Code != 0 {
		return nil
	}
	m := map[string]string{}
	for _, r := range describeRecords(t, res.Stdout) {
		if p, ok := r["Partition"]; ok {
			m[p] = r["Replicas"]
		}
	}
	return m
}

// waitAssignment waits until every broker's metadata shows topic with
// the replicas of want, and says what the last one showed if not.
func waitAssignment(t *testing.T, c *kafkatest.KRaftCluster, topic string, want map[string]string) {
	t.Helper()
	var last map[string]string
	waitUntilShowing(t, "every broker shows "+topic+" as planned", func() bool {
		for _, b := range c.Brokers() {
			if last = kafkaAssignment(t, c, b.Addr(), topic); !maps.Equal(last, want) {
				return false
			}
		}
		return true
	}, func() string { return fmt.Sprintf("%v, want %v", last, want) })
}

// kafkaLeader is kafka-topics --describe's leader of a partition.
func kafkaLeader(t *testing.T, c *kafkatest.KRaftCluster, topic, partition string) string {
	t.Helper()
	for _, r := range describeRecords(t, kafkaTool(t, c, "kafka-topics", "--bootstrap-server", c.Bootstrap(), "--describe", "--topic", topic)) {
		if r["Partition"] == partition {
			return r["Leader"]
		}
	}
	t.Fatalf("no partition %s of %s", partition, topic)
	return ""
}

// TestRealKRaftWrites: on a real KRaft cluster (Kafka 4.4, 3 + 3), ktopo
// creates a topic exactly as its --validate-only previewed it (the
// controller's placement from --seed, sent as a manual assignment), adds
// partitions likewise, changes a config, executes and verifies a
// reassignment with a throttle (its lines those of Kafka's --verify),
// runs a preferred election, and, once a broker is cordoned as a drain
// cordons it (kafkaops' Cordon), places nothing on it.
func TestRealKRaftWrites(t *testing.T) {
	c := kafkatest.SharedKRaft(t, kafkatest.Kafka44)
	bs := c.Bootstrap()
	topic := "kw-orders"

	// Create: the preview's request is what the controller creates.
	create := []string{"topics", "create", "--bootstrap-server", bs, "--topic", topic, "--partitions", "6", "--replication-factor", "2", "--seed", "7"}
	preview := runOK(t, append(create, "--validate-only")...)
	if !strings.Contains(preview, "CreateTopics") || !strings.Contains(preview, "seed 7") {
		t.Fatalf("--validate-only:\n%s", preview)
	}
	if strings.Contains(kafkaTool(t, c, "kafka-topics", "--bootstrap-server", bs, "--list"), topic) {
		t.Fatal("--validate-only created the topic")
	}
	want := requestAssignment(t, preview)
	runOK(t, create...)
	waitAssignment(t, c, topic, want)

	// Add partitions: the same, with CreatePartitions.
	alter := []string{"topics", "alter", "--bootstrap-server", bs, "--topic", topic, "--partitions", "8", "--seed", "3"}
	added := requestAssignment(t, runOK(t, append(alter, "--validate-only")...))
	if len(added) != 2 || added["6"] == "" || added["7"] == "" {
		t.Fatalf("the new partitions' request: %v", added)
	}
	runOK(t, alter...)
	for p, rs := range added {
		want[p] = rs
	}
	waitAssignment(t, c, topic, want)

	// A config, with IncrementalAlterConfigs.
	out := runOK(t, "configs", "--bootstrap-server", bs, "--entity-type", "topics", "--entity-name", topic, "--alter", "--add-config", "retention.ms=3600000")
	if !strings.Contains(out, "Completed updating config for topic "+topic+".") {
		t.Errorf("configs --alter:\n%s", out)
	}
	var d string
	waitUntilShowing(t, "kafka-configs --describe showing retention.ms=3600000", func() bool {
		d = kafkaTool(t, c, "kafka-configs", "--bootstrap-server", bs, "--describe", "--entity-type", "topics", "--entity-name", topic)
		return strings.Contains(d, "retention.ms=3600000")
	}, func() string { return d })
	// A broker's, previewed in kafka-configs --bootstrap-server's words.
	out = runOK(t, "configs", "--bootstrap-server", bs, "--entity-type", "brokers", "--entity-name", "2", "--alter", "--add-config", "log.cleaner.threads=2", "--validate-only")
	if !strings.Contains(out, "Config overrides of broker 2:") || !strings.Contains(out, "+ log.cleaner.threads  2") {
		t.Errorf("configs --alter --validate-only of a broker:\n%s", out)
	}

	// A reassignment: partition 0's replicas reversed (its leader is then
	// not its preferred replica), partition 1's second replica moved to
	// the broker it lacks; throttled, executed, then verified.
	r0, r1 := ints(t, want["0"]), ints(t, want["1"])
	slices.Reverse(r0)
	for _, b := range c.BrokerIDs() {
		if !slices.Contains(r1, b) {
			r1[1] = b
			break
		}
	}
	file := filepath.Join(t.TempDir(), "move.json")
	os.WriteFile(file, []byte(`{"version":1,"partitions":[{"topic":"`+topic+`","partition":0,"replicas":[`+joinInts(r0)+`]},`+
		`{"topic":"`+topic+`","partition":1,"replicas":[`+joinInts(r1)+`]}]}`), 0o644)
	runOK(t, "reassign", "--bootstrap-server", bs, "--execute", "--reassignment-json-file", file, "--throttle", "50000000")
	want["0"], want["1"] = joinInts(r0), joinInts(r1)
	waitAssignment(t, c, topic, want)
	ours := runOK(t, "reassign", "--verify", "--bootstrap-server", bs, "--reassignment-json-file", file)
	theirs := kafkaTool(t, c, "kafka-reassign-partitions", "--bootstrap-server", bs, "--reassignment-json-file", file, "--verify")
	if strings.TrimSpace(ours) != strings.TrimSpace(theirs) {
		t.Errorf("--verify:\nktopo:\n%s\nkafka-reassign-partitions:\n%s", ours, theirs)
	}
	waitNoThrottles(t, c, topic)

	// A preferred election: partition 0 led by its first replica again
	// (the controller may have moved it already as the reassignment
	// completed: then Kafka's "already elected").
	preferred := strconv.Itoa(r0[0])
	out = runOK(t, "leader-election", "--bootstrap-server", bs, "--election-type", "preferred", "--topic", topic, "--partition", "0")
	if !strings.Contains(out, "Successfully completed leader election (PREFERRED) for partitions "+topic+"-0") &&
		!strings.Contains(out, "Valid replica already elected for partitions "+topic+"-0") {
		t.Errorf("leader-election (preferred %s):\n%s", preferred, out)
	}
	waitUntilShowing(t, "partition 0 led by its preferred replica", func() bool { return kafkaLeader(t, c, topic, "0") == preferred },
		func() string { return "leader " + kafkaLeader(t, c, topic, "0") + ", preferred " + preferred })

	// A drain's first step: the broker cordoned (KIP-1066); a topic
	// created after places nothing on it.
	drained := 3
	cl, err := kafkawatch.NewClient(kafkawatch.Dial{Bootstrap: strings.Split(bs, ",")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close) // after the uncordon below
	w := kafkaops.New(cl, 0)
	if _, err := w.Cordon(context.Background(), drained, true, clusterops.Apply); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if _, err := w.Cordon(context.Background(), drained, false, clusterops.Apply); err != nil {
			t.Errorf("uncordon: %v", err)
		}
	})
	waitBrokerState(t, bs, drained, "cordoned")
	after := "kw-after-drain"
	runOK(t, "topics", "create", "--bootstrap-server", bs, "--topic", after, "--partitions", "6", "--replication-factor", "2")
	var placed map[string]string
	waitUntil(t, after+" described", func() bool { placed = kafkaAssignment(t, c, bs, after); return len(placed) == 6 })
	for p, rs := range placed {
		if slices.Contains(ints(t, rs), drained) {
			t.Errorf("partition %s of %s placed on cordoned broker %d: %s", p, after, drained, rs)
		}
	}
}

// waitNoThrottles waits until Kafka's kafka-configs shows no throttle on
// any broker nor on topic: ktopo has removed them (the controller has
// committed it) when it returns, and the broker Kafka's tool asks may
// learn it a moment later.
func waitNoThrottles(t *testing.T, c *kafkatest.KRaftCluster, topic string) {
	t.Helper()
	var left []string
	waitUntilShowing(t, "no throttle left", func() bool {
		left = nil
		for _, b := range c.BrokerIDs() {
			if d := kafkaTool(t, c, "kafka-configs", "--bootstrap-server", c.Bootstrap(), "--describe", "--entity-type", "brokers", "--entity-name", strconv.Itoa(b)); strings.Contains(d, "throttled.rate") {
				left = append(left, d)
			}
		}
		if d := kafkaTool(t, c, "kafka-configs", "--bootstrap-server", c.Bootstrap(), "--describe", "--entity-type", "topics", "--entity-name", topic); strings.Contains(d, "throttled.replicas") {
			left = append(left, d)
		}
		return len(left) == 0
	}, func() string { return strings.Join(left, "\n") })
}

// brokerState is a broker of ktopo brokers --output json.
type brokerState struct {
	ID    int    `json:"id"`
	State string `json:"state"`
}

// waitBrokerState waits until ktopo brokers shows broker id in state;
// every read of ktopo brokers must succeed meanwhile.
func waitBrokerState(t *testing.T, bs string, id int, state string) {
	t.Helper()
	waitUntilShowing(t, fmt.Sprintf("broker %d %s", id, state), func() bool {
		var out struct {
			Brokers []brokerState `json:"brokers"`
		}
		if err := json.Unmarshal([]byte(runOK(t, "brokers", "--bootstrap-server", bs, "--output", "json")), &out); err != nil {
			t.Fatal(err)
		}
		return slices.Contains(out.Brokers, brokerState{ID: id, State: state})
	}, func() string { return runOK(t, "brokers", "--bootstrap-server", bs) })
}

func ints(t *testing.T, s string) []int {
	t.Helper()
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(f)
		if err != nil {
			t.Fatalf("replicas %q", s)
		}
		out = append(out, n)
	}
	return out
}

func joinInts(xs []int) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = strconv.Itoa(x)
	}
	return strings.Join(parts, ",")
}

// TestRealKRaftREADME runs the commands of the README's "KRaft clusters"
// section as written, on real KRaft clusters (Kafka 4.4 and 3.9, 3 + 3):
// only the bootstrap server is the cluster's. After each, Kafka's own
// tools must see what it did: the topic created with the replicas its
// --validate-only previewed, its partitions added, its config, its
// leaders the preferred ones, broker 3 cordoned and uncordoned. Cordoning
// (KIP-1066) is Kafka 4.3's: on 3.9 those two lines are left out.
func TestRealKRaftREADME(t *testing.T) {
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, sec, ok := strings.Cut(string(b), "\n## KRaft clusters\n")
	if !ok {
		t.Fatal("the README has no KRaft clusters section")
	}
	sec, _, _ = strings.Cut(sec, "\n## ")
	_, block, _ := strings.Cut(sec, "```sh\n")
	block, _, _ = strings.Cut(block, "```")
	var cmds [][]string
	for _, line := range strings.Split(block, "\n") {
		args := shellWords(t, line)
		if len(args) < 2 || args[0] != "ktopo" || strings.HasPrefix(args[1], "-") {
			continue // the TUI
		}
		cmds = append(cmds, args[1:])
	}
	if len(cmds) < 6 {
		t.Fatalf("found %d commands in the README's KRaft section:\n%s", len(cmds), block)
	}
	for _, k := range kraftClusters {
		if k.combined {
			continue // one broker: the README's replication factor is 3
		}
		t.Run(k.name, func(t *testing.T) {
			c := k.start(t)
			bs := c.Bootstrap()
			var want map[string]string
			for _, args := range cmds {
				args = slices.Clone(args)
				line := strings.Join(args, " ")
				if strings.Contains(line, "cordoned.log.dirs") && k.version != kafkatest.Kafka44 {
					t.Logf("left out on %s (cordoning is Kafka 4.3's): ktopo %s", k.version, line)
					continue
				}
				for i, a := range args {
					args[i] = strings.ReplaceAll(a, "kafka1:9092", bs)
				}
				out := runOK(t, args...)
				t.Logf("ktopo %s:\n%s", line, out)
				checkREADMECommand(t, c, args, out, &want)
			}
		})
	}
}

// checkREADMECommand checks with Kafka's own tools what one command of the
// README's KRaft section did; want is the topic's replicas as previewed.
func checkREADMECommand(t *testing.T, c *kafkatest.KRaftCluster, args []string, out string, want *map[string]string) {
	t.Helper()
	bs := c.Bootstrap()
	flag := func(name string) string {
		if i := slices.Index(args, name); i >= 0 && i+1 < len(args) {
			return args[i+1]
		}
		return ""
	}
	topic, entity := flag("--topic"), flag("--entity-name")
	switch {
	case args[0] == "topics" && args[1] == "create" && slices.Contains(args, "--validate-only"):
		*want = requestAssignment(t, out)
		if got := kafkaAssignment(t, c, bs, topic); got != nil {
			t.Fatalf("--validate-only created %s: %v", topic, got)
		}
	case args[0] == "topics" && args[1] == "create":
		waitAssignment(t, c, topic, *want)
	case args[0] == "topics" && args[1] == "alter":
		n, _ := strconv.Atoi(flag("--partitions"))
		var got map[string]string
		waitUntilShowing(t, topic+" with its partitions added", func() bool { got = kafkaAssignment(t, c, bs, topic); return len(got) == n },
			func() string { return fmt.Sprintf("%v, want %d partitions", got, n) })
		for p, rs := range *want {
			if got[p] != rs {
				t.Errorf("partition %s of %s: replicas %s after adding partitions, %s before", p, topic, got[p], rs)
			}
		}
	case args[0] == "configs":
		// The controller has committed the change when ktopo (and Kafka's
		// tool) says so; the broker Kafka's tool then asks may learn it a
		// moment later.
		var d string
		describe := func() string {
			d = kafkaTool(t, c, "kafka-configs", "--bootstrap-server", bs, "--describe", "--entity-type", flag("--entity-type"), "--entity-name", entity)
			return d
		}
		if kv := strings.SplitN(flag("--add-config"), "=", 2); len(kv) == 2 {
			waitUntilShowing(t, "kafka-configs --describe of "+entity+" showing "+kv[0]+"="+kv[1], func() bool { return strings.Contains(describe(), kv[0]+"="+kv[1]) },
				func() string { return d })
		} else if key := flag("--delete-config"); key != "" {
			waitUntilShowing(t, "kafka-configs --describe of "+entity+" without "+key, func() bool { return !strings.Contains(describe(), key+"=") },
				func() string { return d })
		} else {
			t.Fatalf("a configs command the test does not check: ktopo %s", strings.Join(args, " "))
		}
	case args[0] == "leader-election":
		var off []string
		waitUntilShowing(t, "every partition of "+topic+" led by its preferred replica", func() bool {
			off = nil
			for _, r := range describeRecords(t, kafkaTool(t, c, "kafka-topics", "--bootstrap-server", bs, "--describe", "--topic", topic)) {
				if p, ok := r["Partition"]; ok && r["Leader"] != strings.Split(r["Replicas"], ",")[0] {
					off = append(off, p+": leader "+r["Leader"]+", replicas "+r["Replicas"])
				}
			}
			return len(off) == 0
		}, func() string { return strings.Join(off, "; ") })
	default:
		t.Fatalf("the README's KRaft section has a command this test does not check: ktopo %s", strings.Join(args, " "))
	}
}

// shellWords splits a shell command line of the docs: words apart by
// spaces, 'single quotes' kept whole, a # comment dropped.
func shellWords(t *testing.T, line string) []string {
	t.Helper()
	var words []string
	var cur strings.Builder
	inWord, quoted := false, false
	for _, r := range line {
		switch {
		case quoted && r == '\'':
			quoted = false
		case quoted:
			cur.WriteRune(r)
		case r == '\'':
			quoted, inWord = true, true
		case r == '#' && !inWord:
			return words
		case r == ' ' || r == '\t':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if quoted {
		t.Fatalf("unterminated quote in %q", line)
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words
}
