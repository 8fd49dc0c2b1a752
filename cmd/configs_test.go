package cmd

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/clusterops"
	"github.com/ktopo/ktopo/internal/testkit/zktest"
	"github.com/ktopo/ktopo/sandbox"
	"github.com/ktopo/ktopo/zkops"
)

// TestConfigsAlterAndDescribe: on the Kafka-shaped tree, --alter writes the
// whole override set and the change notification (creating /config/changes,
// which no broker made here), --describe prints kafka-configs --zookeeper's
// line, for topics and for broker configs.
func TestConfigsAlterAndDescribe(t *testing.T) {
	addr := seed(t)
	conn := connectTest(t, addr)
	if err := zktest.CreateWith(conn, "/config/brokers/<default>", []byte(`{"version":1,"config":{"min.insync.replicas":"2"}}`)); err != nil {
		t.Fatal(err)
	}
	// "k=" is an empty value, which Kafka refuses for a long.
	code, _, errOut := runCLI(t, "configs", "--zookeeper", addr, "--entity-type", "topics", "--entity-name", "orders", "--alter",
		"--add-config", "cleanup.policy=[compact,delete], retention.ms = 5000,segment.ms=", "--delete-config", "min.insync.replicas")
	if code != 1 || errOut != "Error: Invalid value  for configuration segment.ms: Not a number of type LONG\n" {
		t.Fatalf("empty value: exit %d %q", code, errOut)
	}
	code, _, errOut = runCLI(t, "configs", "--zookeeper", addr, "--entity-type", "topics", "--entity-name", "orders", "--alter",
		"--add-config", "cleanup.policy=[compact,delete], retention.ms = 5000", "--delete-config", "min.insync.replicas")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	data, stat, err := conn.Get("/config/topics/orders")
	if err != nil || string(data) != `{"version":1,"config":{"cleanup.policy":"compact,delete","retention.ms":"5000"}}` || stat.Version != 1 {
		t.Errorf("config znode %s v%d %v", data, stat.Version, err)
	}
	kids, _, err := conn.Children("/config/changes")
	if err != nil || len(kids) != 1 || !strings.HasPrefix(kids[0], "config_change_") {
		t.Fatalf("notifications %v %v", kids, err)
	}
	if note, _, _ := conn.Get("/config/changes/" + kids[0]); string(note) != `{"version":2,"entity_path":"topics/orders"}` {
		t.Errorf("notification %s", note)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--entity-type", "topics", "--entity-name", "orders", "--describe"},
			"Configs for topic 'orders' are cleanup.policy=compact,delete,retention.ms=5000\n"},
		{[]string{"--entity-type", "topics", "--describe"},
			"Configs for topic 'legacy' are \nConfigs for topic 'orders' are cleanup.policy=compact,delete,retention.ms=5000\n"},
		{[]string{"--entity-type", "topics", "--entity-name", "fresh", "--describe"}, "Configs for topic 'fresh' are \n"},
		{[]string{"--entity-type", "brokers", "--entity-default", "--describe"}, "Configs for default brokers are min.insync.replicas=2\n"},
		{[]string{"--entity-type", "brokers", "--entity-name", "2", "--describe"}, "Configs for brokers '2' are \n"},
		{[]string{"--entity-type", "brokers", "--describe"}, "Configs for default brokers are min.insync.replicas=2\n"},
	} {
		if got := runOK(t, append([]string{"configs", "--zookeeper", addr}, tc.args...)...); got != tc.want {
			t.Errorf("%v: %q, want %q", tc.args, got, tc.want)
		}
	}
}

// TestConfigsValidation: kafka-configs' checks and ktopo's own refusals,
// nothing written.
func TestConfigsValidation(t *testing.T) {
	addr := seed(t)
	conn := connectTest(t, addr)
	before := dumpZK(t, conn, "/config")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--entity-type", "topics", "--entity-name", "orders", "--alter", "--add-config", "retention.ms=x"},
			"Invalid value x for configuration retention.ms: Not a number of type LONG"},
		{[]string{"--entity-type", "topics", "--entity-name", "orders", "--alter", "--add-config", "nope=1"}, "Unknown topic config name: nope"},
		{[]string{"--entity-type", "topics", "--entity-name", "orders", "--alter", "--delete-config", "segment.ms"}, "Invalid config(s): segment.ms"},
		{[]string{"--entity-type", "topics", "--entity-name", "orders", "--alter", "--add-config", "min.compaction.lag.ms=10,max.compaction.lag.ms=5"},
			"conflict topic config setting min.compaction.lag.ms (10) > max.compaction.lag.ms (5)"},
		{[]string{"--entity-type", "topics", "--entity-name", "nope", "--alter", "--add-config", "retention.ms=1"}, "Topic 'nope' does not exist."},
		{[]string{"--entity-type", "topics", "--entity-name", "bad/name", "--alter", "--add-config", "retention.ms=1"},
			"Topic name is invalid: 'bad/name' contains one or more characters other than ASCII alphanumerics, '.', '_' and '-'"},
		{[]string{"--entity-type", "topics", "--entity-name", "orders", "--alter", "--add-config", "a=1", "--add-config", "b=2"},
			"Found multiple arguments for option add-config, but you asked for only one"},
		{[]string{"--entity-type", "brokers", "--entity-name", "1", "--alter", "--add-config", "log.cleaner.threads=2"},
			"ktopo does not alter broker configs"},
		{[]string{"--entity-type", "users", "--entity-name", "alice", "--describe"}, "ktopo configs handles --entity-type topics and brokers, not users"},
		{[]string{"--entity-type", "topics", "--entity-default", "--describe"}, "topics have no default entity"},
		{[]string{"--describe", "--entity-type", "topics", "--delete-config", "x"}, `Option "[describe]" can't be used with option "[delete-config]"`},
	} {
		code, out, errOut := runCLI(t, append([]string{"configs", "--zookeeper", addr}, tc.args...)...)
		if code != 1 || !strings.HasPrefix(lastLine(errOut), "Error: "+tc.want) {
			t.Errorf("%v: exit %d stderr %q stdout %q\nwant %q", tc.args, code, errOut, out, tc.want)
		}
	}
	code, _, errOut := runCLI(t, "configs", "--zookeeper", addr, "--read-only", "--entity-type", "topics", "--entity-name", "orders",
		"--alter", "--add-config", "retention.ms=1")
	if code != 1 || !strings.Contains(errOut, "read-only mode: refusing to alter the config of topic orders") {
		t.Errorf("read-only: %d %q", code, errOut)
	}
	out := runOK(t, "configs", "--zookeeper", addr, "--entity-type", "topics", "--entity-name", "orders", "--alter",
		"--add-config", "retention.ms=1", "--validate-only")
	for _, want := range []string{"  ~ retention.ms  1000 -> 1\n",
		`  set    /config/topics/orders (at version 0) {"version":1,"config":{"min.insync.replicas":"2","retention.ms":"1"}}`,
		"  create /config/changes (no data)\n",
		`  create /config/changes/config_change_<sequence number> {"version":2,"entity_path":"topics/orders"}`} {
		if !strings.Contains(out, want) {
			t.Errorf("validate-only output lacks %q:\n%s", want, out)
		}
	}
	if after := dumpZK(t, conn, "/config"); len(after) != len(before) {
		t.Errorf("a refused or validate-only configs call wrote under /config: %v", after)
	}
}

// TestConfigsIsVersionChecked: a config changed by someone else between
// the read and the write fails the multi: nothing written, no
// notification, ErrConcurrentConfigChange.
func TestConfigsIsVersionChecked(t *testing.T) {
	addr := seed(t)
	conn := connectTest(t, addr)
	s := loadSnapshot(t, conn)
	w := zkops.NewWriter(conn)
	entries, version, err := w.ReadConfig(context.Background(), cluster.EntityTopics, "orders")
	if err != nil {
		t.Fatal(err)
	}
	alt, err := clusterops.PlanTopicConfigAlteration("orders", entries, version, map[string]string{"retention.ms": "7"}, nil, s)
	if err != nil {
		t.Fatal(err)
	}
	theirs := `{"version":1,"config":{"retention.ms":"99"}}`
	if _, err := conn.Set("/config/topics/orders", []byte(theirs), -1); err != nil {
		t.Fatal(err)
	}
	_, err = w.AlterConfigs(context.Background(), []*clusterops.ConfigAlteration{alt}, clusterops.Apply)
	if !errors.Is(err, zkops.ErrConcurrentConfigChange) {
		t.Fatalf("got %v", err)
	}
	if data, _, _ := conn.Get("/config/topics/orders"); string(data) != theirs {
		t.Errorf("config %s", data)
	}
	if ok, _, _ := conn.Exists("/config/changes"); ok {
		t.Error("the failed multi created /config/changes")
	}
}

// TestConfigsOnSandbox: on the sandbox, enabling unclean leader election
// on a topic whose only in-sync replica is down makes the simulated
// controller elect the live replica at once, and ktopo follows it.
func TestConfigsOnSandbox(t *testing.T) {
	connect := zktest.Chroot(t)
	sb, err := sandbox.Start(context.Background(), sandbox.Config{Connect: connect, Brokers: 3, NoAutoLeaderRebalance: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sb.Close() })
	runOK(t, "topics", "create", "--zookeeper", connect, "--topic", "dirty", "--replica-assignment", "2:3", "--timeout", "30s")
	if err := sb.Kill(3); err != nil {
		t.Fatal(err)
	}
	waitTopic(t, connect, "dirty", "broker 3 leaves the ISR", func(ps []partJSON) bool { return len(ps) == 1 && len(ps[0].ISR) == 1 })
	if err := sb.Kill(2); err != nil {
		t.Fatal(err)
	}
	waitTopic(t, connect, "dirty", "no leader", func(ps []partJSON) bool { return len(ps) == 1 && ps[0].Leader == nil })
	if err := sb.Restart(3); err != nil {
		t.Fatal(err)
	}
	out := runOK(t, "configs", "--zookeeper", connect, "--entity-type", "topics", "--entity-name", "dirty", "--alter",
		"--add-config", "unclean.leader.election.enable=true", "--timeout", "30s")
	for _, want := range []string{"Effect: partition 0 has no live in-sync replica (ISR [2]): the controller elects broker 3",
		"Completed updating config for entity: topic 'dirty'.", "All 1 partitions online in "} {
		if !strings.Contains(out, want) {
			t.Errorf("configs --alter did not say %q:\n%s", want, out)
		}
	}
	waitTopic(t, connect, "dirty", "broker 3 leads", func(ps []partJSON) bool { return len(ps) == 1 && ps[0].Leader != nil && *ps[0].Leader == 3 })
	waitFor(t, "every broker applied the config", 10*time.Second, func() bool {
		for _, id := range []int{1, 3} {
			if cfg, _ := sb.AppliedTopicConfig(id, "dirty"); cfg["unclean.leader.election.enable"] != "true" {
				return false
			}
		}
		return true
	})
}
