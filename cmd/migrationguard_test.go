package cmd

import (
	"bytes"
	"io"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/zkwatch"
)

// prepareMigration creates /migration as a Kafka 3.9 KRaft controller
// with the migration enabled does at startup (every field -1).
func prepareMigration(t *testing.T, conn *zkwatch.Conn) {
	t.Helper()
	if _, err := conn.Create(cluster.MigrationPath, cluster.EncodeMigration(cluster.MigrationState{KRaftControllerID: -1,
		KRaftControllerEpoch: -1, KRaftMetadataOffset: -1, KRaftMetadataEpoch: -1}), 0, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
}

// kraftTakeOver writes what a Kafka 3.9 KRaft controller writes when it
// takes the cluster over: /controller_epoch + 1 and a persistent
// /controller naming it in one multi, then /migration.
func kraftTakeOver(t *testing.T, conn *zkwatch.Conn, id, kraftEpoch int) {
	t.Helper()
	data, st, err := conn.Get(cluster.ControllerEpochPath)
	if err != nil {
		t.Fatal(err)
	}
	epoch, _ := cluster.DecodeControllerEpoch(data)
	_, cst, err := conn.Get(cluster.ControllerPath)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Multi(
		&zk.SetDataRequest{Path: cluster.ControllerEpochPath, Data: cluster.EncodeControllerEpoch(epoch + 1), Version: st.Version},
		&zk.DeleteRequest{Path: cluster.ControllerPath, Version: cst.Version},
		&zk.CreateRequest{Path: cluster.ControllerPath, Data: cluster.EncodeController(cluster.ControllerInfo{Version: 2, BrokerID: id,
			Timestamp: strconv.FormatInt(time.Now().UnixMilli(), 10), KRaftControllerEpoch: kraftEpoch}), Acl: zk.WorldACL(zk.PermAll)},
	); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Set(cluster.MigrationPath, cluster.EncodeMigration(cluster.MigrationState{KRaftControllerID: id,
		KRaftControllerEpoch: kraftEpoch, KRaftMetadataOffset: 77, KRaftMetadataEpoch: kraftEpoch}), -1); err != nil {
		t.Fatal(err)
	}
}

// guardedWrites are the command lines of every kind of write ktopo makes,
// on the seeded tree (reassign.json moves orders-0 to [2,3]; throttles.json
// is a finished reassignment whose throttles --verify removes).
func guardedWrites(t *testing.T, addr string) map[string][]string {
	dir := t.TempDir()
	plan := filepath.Join(dir, "reassign.json")
	done := filepath.Join(dir, "throttles.json")
	writeFile(t, plan, `{"version":1,"partitions":[{"topic":"orders","partition":0,"replicas":[2,3]}]}`)
	writeFile(t, done, `{"version":1,"partitions":[{"topic":"orders","partition":1,"replicas":[2,3]}]}`)
	z := []string{"--zookeeper", addr}
	return map[string][]string{
		"create topic payments": append([]string{"topics", "create", "--topic", "payments", "--partitions", "2", "--replication-factor", "2", "--no-wait"}, z...),
		"delete topic orders":   append([]string{"topics", "delete", "--topic", "orders"}, z...),
		"alter topic orders":    append([]string{"topics", "alter", "--topic", "orders", "--partitions", "5", "--no-wait"}, z...),
		"alter the config of topic orders": append([]string{"configs", "--entity-type", "topics", "--entity-name", "orders",
			"--alter", "--add-config", "retention.ms=5000"}, z...),
		"start a reassignment":              append([]string{"reassign", "--execute", "--reassignment-json-file", plan, "--no-wait"}, z...),
		"remove the throttles":              append([]string{"reassign", "--verify", "--reassignment-json-file", done}, z...),
		"start a preferred leader election": append([]string{"leader-election", "--election-type", "preferred", "--all-topic-partitions", "--no-wait"}, z...),
	}
}

// seedThrottles ends the seeded tree's reassignment (of moving-0) and
// adds the throttles a finished reassignment of orders-1 leaves, for
// --verify to remove.
func seedThrottles(t *testing.T, conn *zkwatch.Conn) {
	t.Helper()
	if _, err := conn.Set(cluster.TopicPath("moving"), []byte(`{"version":3,"partitions":{"0":[3,1]},"adding_replicas":{},"removing_replicas":{}}`), -1); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Set(cluster.TopicConfigPath("orders"), cluster.EncodeEntityConfig(map[string]string{"retention.ms": "1000",
		"min.insync.replicas": "2", "leader.replication.throttled.replicas": "1:2,1:3"}), -1); err != nil {
		t.Fatal(err)
	}
}

// TestMigrationGuardCLI: once a KRaft controller owns the cluster every
// write command fails with why and what to use instead, writing nothing;
// a dry run notes it and succeeds.
func TestMigrationGuardCLI(t *testing.T) {
	addr := seed(t)
	conn := connectTest(t, addr)
	seedThrottles(t, conn)
	prepareMigration(t, conn)
	kraftTakeOver(t, conn, 3000, 5)
	before := readTree(t, conn, "/")
	writes := guardedWrites(t, addr)
	for _, what := range slices.Sorted(maps.Keys(writes)) {
		code, out, errOut := runCLI(t, writes[what]...)
		want := "Error: refusing to " + what + ": write through ZooKeeper refused: KRaft controller 3000 (epoch 5) owns this cluster's metadata since "
		if code != 1 || !strings.Contains(errOut, want) || !strings.Contains(errOut, "a write through ZooKeeper would be lost or undone: use Kafka's tools with --bootstrap-server") {
			t.Errorf("%s: exit %d\nstderr %s\nstdout %s", what, code, errOut, out)
		}
	}
	after := readTree(t, conn, "/")
	if !maps.EqualFunc(before, after, bytes.Equal) {
		t.Errorf("written while a KRaft controller owns the cluster")
	}
	// A dry run is refused too, before it plans: once the brokers run in
	// KRaft mode no plan can be made from ZooKeeper.
	code, out, errOut := runCLI(t, "topics", "create", "--topic", "payments", "--partitions", "1", "--replication-factor", "1", "--validate-only", "--zookeeper", addr)
	if code != 1 || !strings.Contains(errOut, "Error: refusing to create topic payments: write through ZooKeeper refused: KRaft controller 3000 (epoch 5)") {
		t.Errorf("validate-only: exit %d\n%s\n%s", code, out, errOut)
	}
}

// runIn runs the command line with stdin.
func runIn(stdin io.Reader, args ...string) (int, string, string) {
	var out, errw bytes.Buffer
	code := run(args, stdin, &out, &errw)
	return code, out.String(), errw.String()
}

// TestMigrationGuardCLIAsks: while KRaft controllers wait for the brokers
// a write warns, then asks on a terminal (y writes, anything else does
// not); without a terminal it is refused unless
// --accept-migration-warning is given.
func TestMigrationGuardCLIAsks(t *testing.T) {
	addr := seed(t)
	conn := connectTest(t, addr)
	prepareMigration(t, conn)
	create := func(topic string, extra ...string) []string {
		return append([]string{"topics", "create", "--topic", topic, "--partitions", "1", "--replication-factor", "1", "--no-wait", "--zookeeper", addr}, extra...)
	}
	exists := func(topic string) bool {
		ok, _, err := conn.Exists(cluster.TopicPath(topic))
		if err != nil {
			t.Fatal(err)
		}
		return ok
	}
	const warning = "Warning: a ZooKeeper to KRaft migration is being prepared: KRaft controllers created /migration at "

	code, _, errOut := runIn(strings.NewReader("y\n"), create("no-tty")...)
	if code != 1 || !strings.Contains(errOut, warning) || exists("no-tty") ||
		!strings.Contains(errOut, "Error: refusing to create topic no-tty without confirmation (a ZooKeeper to KRaft migration is being prepared, see the warning above): on a terminal ktopo asks; elsewhere --accept-migration-warning confirms it") {
		t.Errorf("no terminal: exit %d\n%s", code, errOut)
	}
	// A dry run notes it and passes.
	code, out, errOut := runIn(strings.NewReader(""), append(create("dry"), "--validate-only")...)
	if code != 0 || !strings.Contains(out, "Validation passed") || exists("dry") ||
		!strings.Contains(errOut, "Note: the write would ask for confirmation first: a ZooKeeper to KRaft migration is being prepared") {
		t.Errorf("validate-only: exit %d\n%s%s", code, out, errOut)
	}
	code, _, errOut = runIn(strings.NewReader(""), create("accepted", "--accept-migration-warning")...)
	if code != 0 || !exists("accepted") || !strings.Contains(errOut, "--accept-migration-warning given: writing through ZooKeeper anyway.") {
		t.Errorf("--accept-migration-warning: exit %d\n%s", code, errOut)
	}

	defer func(f func(io.Reader) bool) { stdinIsTerminal = f }(stdinIsTerminal)
	stdinIsTerminal = func(io.Reader) bool { return true }
	code, _, errOut = runIn(strings.NewReader("y\n"), create("yes")...)
	if code != 0 || !exists("yes") || !strings.Contains(errOut, warning) || !strings.Contains(errOut, "Create topic yes through ZooKeeper anyway? [y/N] ") {
		t.Errorf("answered y: exit %d\n%s", code, errOut)
	}
	for _, answer := range []string{"\n", "n\n", ""} {
		code, _, errOut = runIn(strings.NewReader(answer), create("no")...)
		if code != 1 || exists("no") || !strings.Contains(errOut, "Error: not confirmed: did not create topic no; nothing was written") {
			t.Errorf("answered %q: exit %d\n%s", answer, code, errOut)
		}
	}
}
