package kraftsandbox

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/ktopo/ktopo/internal/testkit/kafkatest"
)

// consoleRun runs one of Kafka's console tools with stdin.
func consoleRun(t *testing.T, d *kafkatest.Dist, stdin string, class string, args ...string) (string, string) {
	t.Helper()
	jargs := append([]string{"-Xms64m", "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Djava.awt.headless=true",
		"-Dorg.slf4j.simpleLogger.defaultLogLevel=warn", "-cp", d.Classpath(), class}, args...)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "java", jargs...)
	cmd.Stdin = strings.NewReader(stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %s: %v\nstdout:\n%s\nstderr:\n%s", class, strings.Join(args, " "), err, stdout.String(), stderr.String())
	}
	return stdout.String(), stderr.String()
}

// consoleRoundTrip writes lines with Kafka's console producer and reads
// them back with its console consumer, without and with a group: the
// lines each read, sorted, and what the consumer said on stderr.
func consoleRoundTrip(t *testing.T, d *kafkatest.Dist, bootstrap, topic string, lines []string) (plain, grouped []string) {
	t.Helper()
	// Each line goes with a key of its own, so the producer's partitioner
	// (murmur2 of the key) spreads them the same way on both clusters and
	// every partition gets some. Unkeyed, a partition could get none, and
	// whether a group then commits an offset for it depends on timing.
	var keyed strings.Builder
	for i, l := range lines {
		fmt.Fprintf(&keyed, "k%d:%s\n", i, l)
	}
	consoleRun(t, d, keyed.String(), "org.apache.kafka.tools.ConsoleProducer",
		"--bootstrap-server", bootstrap, "--topic", topic,
		"--property", "parse.key=true", "--property", "key.separator=:")
	read := func(extra ...string) []string {
		args := append([]string{"--bootstrap-server", bootstrap, "--topic", topic, "--from-beginning",
			"--max-messages", fmt.Sprint(len(lines)), "--timeout-ms", "60000"}, extra...)
		out, errOut := consoleRun(t, d, "", "org.apache.kafka.tools.consumer.ConsoleConsumer", args...)
		if !strings.Contains(errOut, fmt.Sprintf("Processed a total of %d messages", len(lines))) {
			t.Errorf("console consumer %v: stderr %q", extra, errOut)
		}
		got := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		slices.Sort(got)
		return got
	}
	return read(), read("--group", topic+"-group")
}

// TestDataConsoleTools runs Kafka 4.4's console producer and consumer
// against the sandbox and against a real 4.4 cluster: the same lines come
// back from both, with and without a group.
func TestDataConsoleTools(t *testing.T) {
	d := kafkatest.Require(t, kafkatest.Kafka44)
	const n = 200
	var lines []string
	for i := range n {
		lines = append(lines, fmt.Sprintf("line-%03d", i))
	}
	want := slices.Sorted(slices.Values(lines))

	c := startTest(t, Config{Brokers: 3})
	dataTopic(t, c, "console", 3, 3, nil)
	plain, grouped := consoleRoundTrip(t, d, c.Bootstrap(), "console", lines)
	if !slices.Equal(plain, want) || !slices.Equal(grouped, want) {
		t.Errorf("sandbox: read back %d and %d lines (without and with a group), want the %d written", len(plain), len(grouped), n)
	}
	// The group committed every line's offset.
	ctx := ctxT(t, 30*time.Second)
	cl := kclient(t, c)
	co := coordinatorOf(t, ctx, cl, "console-group")
	ofreq := kmsg.NewPtrOffsetFetchRequest()
	ofg := kmsg.NewOffsetFetchRequestGroup()
	ofg.Group = "console-group"
	ofreq.Groups = append(ofreq.Groups, ofg)
	ofresp, err := ofreq.RequestWith(ctx, cl.Broker(int(co)))
	if err != nil {
		t.Fatal(err)
	}
	var sum int64
	for _, ot := range ofresp.Groups[0].Topics {
		for _, op := range ot.Partitions {
			sum += op.Offset
		}
	}
	if sum != n {
		t.Errorf("sandbox: the console consumer's group committed offsets adding up to %d, want %d", sum, n)
	}

	// The same against real Kafka 4.4.
	rk := kafkatest.SharedKRaft(t, kafkatest.Kafka44)
	rcl, err := kgo.NewClient(kgo.SeedBrokers(strings.Split(rk.Bootstrap(), ",")...))
	if err != nil {
		t.Fatal(err)
	}
	defer rcl.Close()
	// The real cluster is shared by the package's tests and outlives a
	// run (-count=N): what an earlier run left, the topic and its groups,
	// goes first.
	forgetConsole(t, ctx, rcl)
	ct := kmsg.NewPtrCreateTopicsRequest()
	rt := kmsg.NewCreateTopicsRequestTopic()
	rt.Topic, rt.NumPartitions, rt.ReplicationFactor = "console", 3, 1
	ct.Topics = append(ct.Topics, rt)
	if _, err := ct.RequestWith(ctx, rcl); err != nil {
		t.Fatal(err)
	}
	rplain, rgrouped := consoleRoundTrip(t, rk.Dist(), rk.Bootstrap(), "console", lines)
	if !slices.Equal(rplain, plain) || !slices.Equal(rgrouped, grouped) {
		t.Errorf("real Kafka read back %d and %d lines, the sandbox %d and %d", len(rplain), len(rgrouped), len(plain), len(grouped))
	}

	// kafka-consumer-groups --list and --describe read the group alike,
	// offsets per partition included (the lines are keyed, so both
	// clusters got the same ones in each partition).
	groups := func(bootstrap string) (string, []string) {
		list, _ := consoleRun(t, d, "", "org.apache.kafka.tools.consumer.group.ConsumerGroupCommand", "--bootstrap-server", bootstrap, "--list")
		desc, _ := consoleRun(t, d, "", "org.apache.kafka.tools.consumer.group.ConsumerGroupCommand", "--bootstrap-server", bootstrap,
			"--describe", "--group", "console-group")
		var rows []string
		var total int
		for _, l := range strings.Split(strings.TrimSpace(desc), "\n") {
			f := strings.Fields(l)
			if len(f) == 9 && f[0] == "console-group" {
				var cur int
				fmt.Sscan(f[3], &cur)
				total += cur
			}
			rows = append(rows, strings.Join(f, " "))
		}
		rows = append(rows, fmt.Sprint("total ", total))
		return list, rows
	}
	slist, sdesc := groups(c.Bootstrap())
	rlist, rdesc := groups(rk.Bootstrap())
	// The group of a console consumer without --group is
	// console-consumer-<random>; the brokers answer in any order.
	names := func(list string) []string {
		var out []string
		for _, g := range strings.Fields(list) {
			if strings.HasPrefix(g, "console-consumer-") {
				g = "console-consumer-N"
			}
			out = append(out, g)
		}
		slices.Sort(out)
		return out
	}
	if !slices.Contains(names(slist), "console-group") || !slices.Equal(names(slist), names(rlist)) {
		t.Errorf("kafka-consumer-groups --list: sandbox %q, real %q", slist, rlist)
	}
	if !slices.Equal(sdesc, rdesc) {
		t.Errorf("kafka-consumer-groups --describe:\nsandbox:\n%s\nreal:\n%s", strings.Join(sdesc, "\n"), strings.Join(rdesc, "\n"))
	}
}

// forgetConsole deletes the topic console and every group on a cluster,
// so that a run of TestDataConsoleTools starts from none of either.
func forgetConsole(t *testing.T, ctx context.Context, cl *kgo.Client) {
	t.Helper()
	dt := kmsg.NewPtrDeleteTopicsRequest()
	dtt := kmsg.NewDeleteTopicsRequestTopic()
	dtt.Topic = kmsg.StringPtr("console")
	dt.Topics = append(dt.Topics, dtt)
	dt.TopicNames = []string{"console"}
	dt.TimeoutMillis = 30000
	if _, err := dt.RequestWith(ctx, cl); err != nil {
		t.Fatal(err)
	}
	lg, err := kmsg.NewPtrListGroupsRequest().RequestWith(ctx, cl)
	if err != nil {
		t.Fatal(err)
	}
	dg := kmsg.NewPtrDeleteGroupsRequest()
	for _, g := range lg.Groups {
		dg.Groups = append(dg.Groups, g.Group)
	}
	if len(dg.Groups) > 0 {
		if _, err := dg.RequestWith(ctx, cl); err != nil {
			t.Fatal(err)
		}
	}
}
