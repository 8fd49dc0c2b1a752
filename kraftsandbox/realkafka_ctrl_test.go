package kraftsandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/ktopo/ktopo/internal/testkit/kafkatest"
)

// TestKafkaToolsReassignAndElect runs Kafka 4.4's own
// kafka-reassign-partitions (--execute, --verify, --cancel) and
// kafka-leader-election against the sandbox (Java needed: skipped
// without it unless CI=true).
func TestKafkaToolsReassignAndElect(t *testing.T) {
	d := kafkatest.Require(t, kafkatest.Kafka44)
	c := startTest(t, Config{Brokers: 4, Racks: 1, NoAutoLeaderRebalance: true})
	mkTopic(t, c, "tools", [][]int32{{1, 2}, {2, 3}}, nil, 64<<20)
	mkTopic(t, c, "huge", [][]int32{{1, 2}}, nil, 1<<42)
	dir := t.TempDir()
	plan := filepath.Join(dir, "plan.json")
	write := func(s string) {
		if err := os.WriteFile(plan, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	run := func(script string, args ...string) string {
		t.Helper()
		r, err := d.Command(script, append([]string{"--bootstrap-server", c.Bootstrap()}, args...)...)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s %s: exit %d\n%s%s", script, strings.Join(args, " "), r.Code, r.Stdout, r.Stderr)
		return r.Stdout + r.Stderr
	}
	// kafka-reassign-partitions reads the log directories (DescribeLogDirs,
	// another part of the sandbox) before it alters anything.
	if c.handlers[kmsg.DescribeLogDirs.Int16()] == nil {
		t.Log("the sandbox does not serve DescribeLogDirs yet: kafka-reassign-partitions skipped")
	} else {
		write(`{"version":1,"partitions":[{"topic":"tools","partition":0,"replicas":[3,4],"log_dirs":["any","any"]}]}`)
		out := run("kafka-reassign-partitions", "--execute", "--reassignment-json-file", plan)
		if !strings.Contains(out, "Successfully started partition reassignment for tools-0") {
			t.Errorf("execute: %s", out)
		}
		waitFor(t, "tools-0 moved", func() bool { return !state(c, "tools", 0).reassigning() })
		out = run("kafka-reassign-partitions", "--verify", "--preserve-throttles", "--reassignment-json-file", plan)
		if !strings.Contains(out, "Reassignment of partition tools-0 is completed.") {
			t.Errorf("verify: %s", out)
		}
		write(`{"version":1,"partitions":[{"topic":"huge","partition":0,"replicas":[3,4],"log_dirs":["any","any"]}]}`)
		run("kafka-reassign-partitions", "--execute", "--reassignment-json-file", plan)
		out = run("kafka-reassign-partitions", "--verify", "--preserve-throttles", "--reassignment-json-file", plan)
		if !strings.Contains(out, "Reassignment of partition huge-0 is still in progress.") {
			t.Errorf("verify in progress: %s", out)
		}
		out = run("kafka-reassign-partitions", "--cancel", "--preserve-throttles", "--reassignment-json-file", plan)
		if !strings.Contains(out, "Successfully cancelled partition reassignment for: huge-0") {
			t.Errorf("cancel: %s", out)
		}
		if s := state(c, "huge", 0); s.reassigning() || len(s.replicas) != 2 || s.replicas[0] != 1 {
			t.Errorf("after the cancel: %+v", s)
		}
	}

	// Leadership off the preferred replica, then the tool's elections.
	if err := c.Stop(2); err != nil {
		t.Fatal(err)
	}
	if err := c.Restart(2); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "2 back in tools-1's ISR", func() bool { s := state(c, "tools", 1); return len(s.isr) == 2 })
	out := run("kafka-leader-election", "--election-type", "preferred", "--topic", "tools", "--partition", "1")
	if !strings.Contains(out, "Successfully completed leader election (PREFERRED) for partitions tools-1") {
		t.Errorf("preferred election: %s", out)
	}
	if err := c.Stop(1); err != nil {
		t.Fatal(err)
	}
	if err := c.Restart(1); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "1 back in huge-0's ISR", func() bool { s := state(c, "huge", 0); return len(s.isr) == 2 })
	out = run("kafka-leader-election", "--election-type", "preferred", "--all-topic-partitions")
	if !strings.Contains(out, "Successfully completed leader election (PREFERRED) for partitions") || !strings.Contains(out, "huge-0") || strings.Contains(out, "tools-1") {
		t.Errorf("all partitions: %s", out)
	}
	out = run("kafka-leader-election", "--election-type", "unclean", "--topic", "tools", "--partition", "1")
	if !strings.Contains(out, "Valid replica already elected for partitions tools-1") {
		t.Errorf("unclean election of a led partition: %s", out)
	}
}
