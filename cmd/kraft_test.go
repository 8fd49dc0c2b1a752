package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestKRaftRefusesEveryWrite: on a KRaft cluster (--bootstrap-server, or a
// context's bootstrap-server) every command that writes, and its dry run,
// is refused with the one message, before anything is asked of the
// cluster (nothing listens at the address given).
func TestKRaftRefusesEveryWrite(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "plan.json"), []byte(`{"version":1,"partitions":[{"topic":"orders","partition":0,"replicas":[1]}]}`), 0o644)
	cfgDir := t.TempDir()
	writeFile(t, filepath.Join(mkdir(t, cfgDir, "ktopo"), "config.yaml"), "contexts:\n  k:\n    bootstrap-server: 127.0.0.1:1\n")
	t.Setenv("XDG_CONFIG_HOME", cfgDir)
	plan := filepath.Join(dir, "plan.json")
	for _, c := range []struct {
		args, what string
	}{
		{"topics create --topic ro --partitions 1 --replication-factor 1", "create topic ro"},
		{"topics create --topic ro --partitions 1 --replication-factor 1 --validate-only", "create topic ro"},
		{"topics delete --topic orders", "delete topic orders"},
		{"topics alter --topic orders --partitions 9", "alter topic orders"},
		{"topics alter --topic orders --partitions 9 --validate-only", "alter topic orders"},
		{"configs --entity-type topics --entity-name orders --alter --add-config retention.ms=1", "alter the config of topic orders"},
		{"configs --entity-type topics --entity-name orders --alter --add-config retention.ms=1 --validate-only", "alter the config of topic orders"},
		{"leader-election --election-type preferred --all-topic-partitions", "start a preferred leader election"},
		{"leader-election --election-type preferred --all-topic-partitions --dry-run", "start a preferred leader election"},
		{"reassign --execute --reassignment-json-file " + plan, "start a reassignment"},
		{"reassign --execute --reassignment-json-file " + plan + " --dry-run", "start a reassignment"},
		{"reassign --cancel --reassignment-json-file " + plan, "cancel a reassignment"},
	} {
		for _, target := range [][]string{{"--bootstrap-server", "127.0.0.1:1"}, {"--context", "k"}} {
			args := append(strings.Fields(c.args), target...)
			start := time.Now()
			code, out, errOut := runCLI(t, args...)
			want := "Error: refusing to " + c.what + ": ktopo does not write to KRaft clusters yet"
			if code != 1 || !strings.HasPrefix(errOut, want) || out != "" {
				t.Errorf("ktopo %s: exit %d, stdout %q, stderr %q, want %q", strings.Join(args, " "), code, out, errOut, want)
			}
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("ktopo %s took %s: it asked the cluster before refusing", strings.Join(args, " "), d)
			}
		}
	}
}

// TestKRaftFlags: the ways of naming a KRaft cluster, and the mistakes
// refused with what to do instead.
func TestKRaftFlags(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	props := filepath.Join(t.TempDir(), "client.properties")
	os.WriteFile(props, []byte("security.protocol=SASL_SSL\nsasl.mechanism=GSSAPI\n"), 0o600)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"brokers", "--zookeeper", "zk:2181", "--bootstrap-server", "k:9092"}, "--zookeeper and --bootstrap-server name two clusters"},
		{[]string{"brokers", "--bootstrap-server", "k:9092", "--zk-digest", "a:b"}, "--zk-digest is for a ZooKeeper connection"},
		{[]string{"brokers", "--zookeeper", "zk:2181", "--command-config", props}, "--command-config is for a KRaft cluster"},
		{[]string{"brokers", "--bootstrap-server", "k:9092", "--command-config", props}, "SASL mechanism GSSAPI is not supported by ktopo"},
		{[]string{"brokers", "--bootstrap-server", "k:9092", "--command-config", "/nonexistent.properties"}, "--command-config: open /nonexistent.properties"},
		{[]string{"configs", "--entity-type", "topics", "--describe", "--bootstrap-server", "k:9092"}, "kafka-configs.sh --bootstrap-server --describe"},
	} {
		code, _, errOut := runCLI(t, c.args...)
		if code != 1 || !strings.Contains(errOut, c.want) {
			t.Errorf("ktopo %s: exit %d, %q, want %q", strings.Join(c.args, " "), code, errOut, c.want)
		}
	}
	t.Setenv(envBootstrap, "k:9092")
	t.Setenv(envZookeeper, "zk:2181")
	if code, _, errOut := runCLI(t, "brokers"); code != 1 || !strings.Contains(errOut, "$KTOPO_ZOOKEEPER and $KTOPO_BOOTSTRAP_SERVER are both set") {
		t.Errorf("both variables: exit %d, %q", code, errOut)
	}
}
