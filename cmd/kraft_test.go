package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestKRaftWritesChecks: on a KRaft cluster (--bootstrap-server, or a
// context's bootstrap-server) the commands that write are no longer
// refused as such: they write over the Kafka protocol (the real-Kafka
// tests write). What is refused before anything is asked of the cluster
// (nothing listens at the address given): a write on a read-only context,
// with the one read-only message; the placement flags of the other kind
// of cluster (--start-index and --replica-shift are ZooKeeper mode's,
// --seed the KRaft controller's); an unclean election through ZooKeeper.
func TestKRaftWritesChecks(t *testing.T) {
	dir := t.TempDir()
	plan := filepath.Join(dir, "plan.json")
	os.WriteFile(plan, []byte(`{"version":1,"partitions":[{"topic":"orders","partition":0,"replicas":[1]}]}`), 0o644)
	cfgDir := t.TempDir()
	writeFile(t, filepath.Join(mkdir(t, cfgDir, "ktopo"), "config.yaml"),
		"contexts:\n  k:\n    bootstrap-server: 127.0.0.1:1\n  kro:\n    bootstrap-server: 127.0.0.1:1\n    read-only: true\n")
	t.Setenv("XDG_CONFIG_HOME", cfgDir)
	for _, c := range []struct {
		args, want string
	}{
		{"topics create --topic ro --partitions 1 --replication-factor 1 --context kro",
			"Error: read-only mode: refusing to create topic ro (--validate-only checks it without writing); context kro is read-only"},
		{"topics create --topic ro --partitions 1 --replication-factor 1 --bootstrap-server 127.0.0.1:1 --read-only",
			"Error: read-only mode: refusing to create topic ro (--validate-only checks it without writing)"},
		{"leader-election --election-type unclean --all-topic-partitions --context kro",
			"Error: read-only mode: refusing to start an unclean leader election (--dry-run shows it without writing)"},
		{"reassign --cancel --reassignment-json-file " + plan + " --context kro",
			"Error: read-only mode: refusing to cancel a reassignment (--dry-run checks it and shows what would be sent)"},
		{"reassign --execute --reassignment-json-file " + plan + " --context kro",
			"Error: read-only mode: refusing to start a reassignment"},
		{"topics create --topic o --partitions 3 --replication-factor 1 --start-index 1 --context k",
			"Error: --start-index fixes ZooKeeper mode's placement (AdminUtils); a KRaft controller places replicas with its StripedReplicaPlacer, which --seed fixes"},
		{"topics alter --topic o --partitions 3 --seed 1 --zookeeper 127.0.0.1:1",
			"Error: --seed fixes a KRaft controller's placement (--bootstrap-server)"},
		{"plan --bootstrap-server 127.0.0.1:1 --partitions 3 --replication-factor 1 --start-index 0",
			"Error: --start-index fixes AdminUtils' placement (ZooKeeper mode); the KRaft controller's is fixed with --seed"},
		{"topics create --topic o --partitions 3 --replication-factor 1 --seed 4 --zookeeper 127.0.0.1:1",
			"Error: --seed fixes a KRaft controller's placement (--bootstrap-server); ZooKeeper mode's (AdminUtils) is fixed with --start-index and --replica-shift"},
		{"leader-election --election-type unclean --all-topic-partitions --zookeeper 127.0.0.1:1",
			"Error: --election-type unclean cannot be carried out through ZooKeeper"},
	} {
		args := strings.Fields(c.args)
		code, out, errOut := runCLI(t, args...)
		if code != 1 || !strings.HasPrefix(errOut, c.want) || out != "" {
			t.Errorf("ktopo %s: exit %d, stdout %q, stderr %q, want %q", c.args, code, out, errOut, c.want)
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
		{[]string{"brokers", "--bootstrap-server", "k:9092", "--sizes", "--sizes-listener", "INTERNAL"}, "--sizes-listener is for a ZooKeeper connection"},
		{[]string{"brokers", "--zookeeper", "zk:2181", "--command-config", props}, "--command-config is for a KRaft cluster"},
		{[]string{"brokers", "--bootstrap-server", "k:9092", "--command-config", props}, "SASL mechanism GSSAPI is not supported by ktopo"},
		{[]string{"brokers", "--bootstrap-server", "k:9092", "--command-config", "/nonexistent.properties"}, "--command-config: open /nonexistent.properties"},
		{[]string{"configs", "--entity-type", "topics", "--entity-default", "--describe", "--bootstrap-server", "k:9092"}, "topics have no default entity"},
		// Addresses as Kafka's clients and ZooKeeper's read them.
		{[]string{"brokers", "--bootstrap-server", "k:9092,k2"}, "--bootstrap-server: Invalid url in bootstrap.servers: k2 (want host:port, a broker's listener)"},
		{[]string{"brokers", "--zookeeper", "zk://zk1:2181/kafka"}, `connect string "zk://zk1:2181/kafka" starts with a URL scheme (zk://): a ZooKeeper connect string is host:port[,host:port…][/chroot], without one: zk1:2181/kafka`},
		{[]string{"migration", "--bootstrap-server", "k:9092"}, "migration reads the cluster from its ZooKeeper: give --zookeeper host:port[/chroot]"},
		{[]string{"migration", "--bootstrap-controller", "k:9093", "--watch"}, "migration reads the cluster from its ZooKeeper: give --zookeeper host:port[/chroot]"},
		{[]string{"migration", "--zookeeper", "zk:2181", "--bootstrap-controller", "k"}, "--bootstrap-controller: Invalid url in bootstrap.servers: k"},
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
