package zkops

import (
	"context"
	"errors"
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/clusterops"
	"github.com/ktopo/ktopo/clusterwatch/zksource"
	"github.com/ktopo/ktopo/internal/testkit/zktest"
	"github.com/ktopo/ktopo/zkwatch"
)

// guardCluster writes a ZooKeeper-mode cluster into a fresh chroot as
// Kafka 3.9 leaves it: brokers 1-3 registered (ephemeral), ZooKeeper
// controller 1 at epoch 1, topic "orders" (3 partitions, RF 2, a topic id,
// a retention override and the reassignment throttles of an earlier
// reassignment). It returns a session in the chroot and one
// (ephemeral-owning, like the brokers') for the test's own writes.
func guardCluster(t *testing.T) (conn *zkwatch.Conn, direct *zkwatch.Conn) {
	t.Helper()
	cs := zktest.Chroot(t)
	ctx := context.Background()
	var err error
	if direct, err = zkwatch.Connect(ctx, cs, zkwatch.Options{Logger: zktest.NewLogger(t)}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(direct.Close)
	if conn, err = zkwatch.Connect(ctx, cs, zkwatch.Options{Logger: zktest.NewLogger(t)}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(conn.Close)
	for _, d := range []string{cluster.BrokerIDsPath, cluster.BrokerTopicsPath, cluster.ConfigTopicsPath, cluster.ConfigBrokersPath,
		cluster.ConfigChangesPath, cluster.DeleteTopicsPath, cluster.AdminPath} {
		if err := direct.CreateAll(d); err != nil {
			t.Fatal(err)
		}
	}
	acl := zk.WorldACL(zk.PermAll)
	create := func(p, data string, flags int32) {
		t.Helper()
		if _, err := direct.Create(p, []byte(data), flags, acl); err != nil {
			t.Fatalf("create %s: %v", p, err)
		}
	}
	for id := 1; id <= 3; id++ {
		eps := []cluster.BrokerEndpoint{{Listener: "PLAINTEXT", SecurityProtocol: "PLAINTEXT", Host: "kafka-" + strconv.Itoa(id), Port: 9092}}
		create(cluster.BrokerIDPath(id), string(cluster.EncodeBroker(cluster.NewBrokerRegistration(5, eps, -1, "", 1_700_000_000_000, nil))), zk.FlagEphemeral)
	}
	create(cluster.ControllerEpochPath, "1", 0)
	create(cluster.ControllerPath, string(cluster.EncodeController(cluster.NewControllerInfo(2, 1, 1_700_000_000_000))), zk.FlagEphemeral)
	parts := map[int][]int{0: {1, 2}, 1: {2, 3}, 2: {3, 1}}
	create(cluster.TopicPath("orders"), string(cluster.EncodeTopicAssignment(cluster.NewTopicAssignment(parts, "x7QvG8YcTkWm1jJ2bQ0ZPA"))), 0)
	create(cluster.TopicPartitionsPath("orders"), "", 0)
	for p, rs := range parts {
		create(cluster.PartitionPath("orders", p), "", 0)
		create(cluster.PartitionStatePath("orders", p), string(cluster.EncodePartitionState(cluster.PartitionState{ControllerEpoch: 1, Leader: rs[1], ISR: rs})), 0)
	}
	create(cluster.TopicConfigPath("orders"), string(cluster.EncodeEntityConfig(map[string]string{"retention.ms": "86400000",
		"leader.replication.throttled.replicas": "0:1,0:2", "follower.replication.throttled.replicas": "0:3"})), 0)
	return conn, direct
}

// load reads the cluster into a snapshot.
func load(t *testing.T, conn *zkwatch.Conn) *cluster.Snapshot {
	t.Helper()
	s, err := zksource.Load(context.Background(), conn, cluster.ModelOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// takeOver writes what a Kafka 3.9 KRaft controller writes when it takes
// a cluster over (KafkaZkClient.tryRegisterKRaftControllerAsActiveController,
// then /migration), creating /migration first as every KRaft controller
// with the migration enabled does at startup.
func takeOver(t *testing.T, direct *zkwatch.Conn, id, kraftEpoch int) {
	t.Helper()
	if ok, _, _ := direct.Exists(cluster.MigrationPath); !ok {
		if _, err := direct.Create(cluster.MigrationPath, cluster.EncodeMigration(cluster.MigrationState{KRaftControllerID: -1, KRaftControllerEpoch: -1,
			KRaftMetadataOffset: -1, KRaftMetadataEpoch: -1}), 0, zk.WorldACL(zk.PermAll)); err != nil {
			t.Fatal(err)
		}
	}
	data, st, err := direct.Get(cluster.ControllerEpochPath)
	if err != nil {
		t.Fatal(err)
	}
	epoch, _ := cluster.DecodeControllerEpoch(data)
	_, cst, err := direct.Get(cluster.ControllerPath)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := direct.Multi(
		&zk.SetDataRequest{Path: cluster.ControllerEpochPath, Data: cluster.EncodeControllerEpoch(epoch + 1), Version: st.Version},
		&zk.DeleteRequest{Path: cluster.ControllerPath, Version: cst.Version},
		&zk.CreateRequest{Path: cluster.ControllerPath, Data: cluster.EncodeController(cluster.ControllerInfo{Version: 2, BrokerID: id,
			Timestamp: strconv.FormatInt(time.Now().UnixMilli(), 10), KRaftControllerEpoch: kraftEpoch}), Acl: zk.WorldACL(zk.PermAll)},
	); err != nil {
		t.Fatalf("take over: %v", err)
	}
	if _, err := direct.Set(cluster.MigrationPath, cluster.EncodeMigration(cluster.MigrationState{KRaftControllerID: id, KRaftControllerEpoch: kraftEpoch,
		KRaftMetadataOffset: 42, KRaftMetadataEpoch: kraftEpoch}), -1); err != nil {
		t.Fatal(err)
	}
}

// reelect moves the ZooKeeper controller to broker id as Kafka's election
// does (the old /controller gone with its session, then one multi).
func reelect(t *testing.T, direct *zkwatch.Conn, id int) {
	t.Helper()
	if err := direct.Delete(cluster.ControllerPath, -1); err != nil {
		t.Fatal(err)
	}
	data, st, err := direct.Get(cluster.ControllerEpochPath)
	if err != nil {
		t.Fatal(err)
	}
	epoch, _ := cluster.DecodeControllerEpoch(data)
	if _, err := direct.Multi(
		&zk.CreateRequest{Path: cluster.ControllerPath, Data: cluster.EncodeController(cluster.NewControllerInfo(2, id, time.Now().UnixMilli())),
			Acl: zk.WorldACL(zk.PermAll), Flags: zk.FlagEphemeral},
		&zk.SetDataRequest{Path: cluster.ControllerEpochPath, Data: cluster.EncodeControllerEpoch(epoch + 1), Version: st.Version},
	); err != nil {
		t.Fatalf("re-elect: %v", err)
	}
}

// treeDump is every znode under / with its data, version and child
// version: a write of any kind changes it.
func treeDump(t *testing.T, conn *zkwatch.Conn) map[string]string {
	t.Helper()
	out := map[string]string{}
	var walk func(string)
	walk = func(p string) {
		data, st, err := conn.Get(p)
		if err != nil {
			t.Fatalf("dump %s: %v", p, err)
		}
		out[p] = string(data) + "@" + strconv.Itoa(int(st.Version)) + "/" + strconv.Itoa(int(st.Cversion))
		kids, _, err := conn.Children(p)
		if err != nil {
			t.Fatalf("dump %s: %v", p, err)
		}
		for _, k := range kids {
			walk(strings.TrimSuffix(p, "/") + "/" + k)
		}
	}
	walk("/")
	return out
}

func sameTree(t *testing.T, before, after map[string]string) {
	t.Helper()
	if maps.Equal(before, after) {
		return
	}
	for _, p := range slices.Sorted(maps.Keys(after)) {
		if before[p] != after[p] {
			t.Errorf("written: %s: %q → %q", p, before[p], after[p])
		}
	}
	for p := range before {
		if _, ok := after[p]; !ok {
			t.Errorf("deleted: %s", p)
		}
	}
}

// writeKind is one of the six kinds of ktopo writes, planned against a
// snapshot taken while a ZooKeeper controller owned the cluster.
type writeKind struct {
	name  string
	write func(z ZK) error
}

func everyWriteKind(t *testing.T, conn *zkwatch.Conn) []writeKind {
	t.Helper()
	s := load(t, conn)
	create, err := clusterops.PlanTopic(s, clusterops.TopicRequest{Name: "payments", Partitions: 3, ReplicationFactor: 2, StartIndex: -1, ReplicaShift: -1})
	if err != nil {
		t.Fatal(err)
	}
	add, err := clusterops.PlanAddPartitions(s, clusterops.AddPartitionsRequest{Topic: "orders", Partitions: 5})
	if err != nil {
		t.Fatal(err)
	}
	orders := s.Topic("orders")
	topicCfg, err := clusterops.PlanTopicConfigAlteration("orders", orders.Config, orders.ConfigVersion, map[string]string{"retention.ms": "1000"}, nil, s)
	if err != nil {
		t.Fatal(err)
	}
	brokerCfg := clusterops.ConfigChange{EntityType: cluster.EntityBrokers, Entity: "1", Config: map[string]string{"log.cleaner.threads": "2"}, Version: -1}
	userCfg := clusterops.ConfigChange{EntityType: "users", Entity: "alice", Config: map[string]string{"producer_byte_rate": "1024"}, Version: -1}
	rs := []cluster.Reassignment{{TopicPartition: cluster.TopicPartition{Topic: "orders", Partition: 0}, Replicas: []int{2, 3}}}
	_, reassign, err := planReassignment(s, conn, rs, 1_000_000)
	if err != nil {
		t.Fatal(err)
	}
	clear, err := clusterops.PlanThrottleClear(s, configReader{conn}, []cluster.Reassignment{{TopicPartition: cluster.TopicPartition{Topic: "orders", Partition: 0}, Replicas: []int{1, 2}}})
	if err != nil {
		t.Fatal(err)
	}
	clearOps := ConfigChangeOps(clear.Changes...)
	if len(clearOps) == 0 {
		t.Fatal("no throttle to clear")
	}
	elect, err := clusterops.PlanPreferredElection(s, clusterops.ElectionRequest{All: true})
	if err != nil {
		t.Fatal(err)
	}
	return []writeKind{
		{"topic create", func(z ZK) error { return createTopic(z, create) }},
		{"topic delete", func(z ZK) error { return deleteTopic(z, "orders", s) }},
		{"add partitions", func(z ZK) error { return writeAlteration(z, AddPartitionsOps(add)) }},
		{"topic config", func(z ZK) error { return writeAlteration(z, ConfigChangeOps(topicCfg.Change)) }},
		{"broker config", func(z ZK) error { return writeAlteration(z, ConfigChangeOps(brokerCfg)) }},
		{"user config", func(z ZK) error { return writeAlteration(z, ConfigChangeOps(userCfg)) }},
		{"reassignment", func(z ZK) error { return executeReassignment(z, reassign) }},
		{"throttle clear", func(z ZK) error { return clearThrottles(z, clearOps) }},
		{"preferred election", func(z ZK) error { return startPreferredElection(z, elect) }},
	}
}

// TestGuardRefusesEveryWriteKind: once a KRaft controller owns the
// cluster, every kind of write is refused with a message that says why
// and what to use instead, and nothing is written.
func TestGuardRefusesEveryWriteKind(t *testing.T) {
	conn, direct := guardCluster(t)
	kinds := everyWriteKind(t, conn)
	if v, err := checkWrite(conn); err != nil || v.Level != cluster.WriteOK {
		t.Fatalf("before: %+v %v", v, err)
	}
	takeOver(t, direct, 3000, 5)
	v, err := checkWrite(conn)
	if err != nil || v.Level != cluster.WriteRefused || v.KRaftController != 3000 || v.KRaftEpoch != 5 {
		t.Fatalf("after the takeover: %+v %v", v, err)
	}
	before := treeDump(t, direct)
	for _, k := range kinds {
		err := k.write(conn)
		var me *MigrationError
		if !errors.As(err, &me) || me.Verdict.Level != cluster.WriteRefused || me.Unconfirmed {
			t.Errorf("%s: %v, want a refusal", k.name, err)
			continue
		}
		if MaybeWritten(err) {
			t.Errorf("%s: refusal reported as maybe written", k.name)
		}
		msg := err.Error()
		for _, want := range []string{"KRaft controller 3000 (epoch 5) owns this cluster's metadata since ",
			"a write through ZooKeeper would be lost or undone", "--bootstrap-server"} {
			if !strings.Contains(msg, want) {
				t.Errorf("%s: %q lacks %q", k.name, msg, want)
			}
		}
		// A confirmation does not lift a refusal.
		if err := k.write(confirm(conn, v)); !errors.As(err, &me) {
			t.Errorf("%s confirmed: %v, want a refusal", k.name, err)
		}
	}
	sameTree(t, before, treeDump(t, direct))
}

// TestGuardWarnsWhilePrepared: while KRaft controllers wait for the
// brokers (/migration exists, a ZooKeeper controller holds /controller) a
// write goes ahead only when confirmed, and a confirmation holds for the
// /migration it was given about.
func TestGuardWarnsWhilePrepared(t *testing.T) {
	conn, direct := guardCluster(t)
	s := load(t, conn)
	mk := func(name string) *clusterops.TopicPlan {
		p, err := clusterops.PlanTopic(s, clusterops.TopicRequest{Name: name, Partitions: 1, ReplicationFactor: 1, StartIndex: -1, ReplicaShift: -1})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	newMigration := func() {
		t.Helper()
		if _, err := direct.Create(cluster.MigrationPath, cluster.EncodeMigration(cluster.MigrationState{KRaftControllerID: -1, KRaftControllerEpoch: -1,
			KRaftMetadataOffset: -1, KRaftMetadataEpoch: -1}), 0, zk.WorldACL(zk.PermAll)); err != nil {
			t.Fatal(err)
		}
	}
	newMigration()
	v, err := checkWrite(conn)
	if err != nil || v.Level != cluster.WriteWarn || v.ZKController != 1 {
		t.Fatalf("prepared: %+v %v", v, err)
	}
	if snap := clusterops.SnapshotVerdict(load(t, conn)); snap != v {
		t.Errorf("snapshot verdict %+v, fresh %+v", snap, v)
	}
	before := treeDump(t, direct)
	err = createTopic(conn, mk("unconfirmed"))
	var me *MigrationError
	if !errors.As(err, &me) || !me.Unconfirmed || MaybeWritten(err) {
		t.Fatalf("unconfirmed write: %v", err)
	}
	if !strings.Contains(err.Error(), "not confirmed: a ZooKeeper to KRaft migration is being prepared") {
		t.Errorf("message: %s", err)
	}
	sameTree(t, before, treeDump(t, direct))
	if err := createTopic(confirm(conn, v), mk("confirmed")); err != nil {
		t.Fatalf("confirmed write: %v", err)
	}
	// A confirmation of "no migration" does not cover one.
	if err := createTopic(confirm(conn, cluster.WriteVerdict{}), mk("stale")); !errors.As(err, &me) || !me.Unconfirmed {
		t.Errorf("write confirmed before the migration: %v", err)
	}
	// A new /migration (an attempt after a revert) needs its own.
	if err := direct.Delete(cluster.MigrationPath, -1); err != nil {
		t.Fatal(err)
	}
	newMigration()
	if err := createTopic(confirm(conn, v), mk("other")); !errors.As(err, &me) || !me.Unconfirmed {
		t.Errorf("write confirmed about another /migration: %v", err)
	}
}

// hookZK runs a hook right before the first multi it sends: between the
// guard's read and its multi.
type hookZK struct {
	*zkwatch.Conn
	hook func()
}

func (h *hookZK) Multi(ops ...any) ([]zk.MultiResponse, error) {
	if f := h.hook; f != nil {
		h.hook = nil
		f()
	}
	return h.Conn.Multi(ops...)
}

// TestGuardRace: a controller change between the guard's read and its
// multi fails the multi's check of /controller_epoch: a KRaft takeover
// then refuses the write (nothing written), a new ZooKeeper controller
// lets it through on the second try. A migration prepared between the
// preview and the write is asked about again.
func TestGuardRace(t *testing.T) {
	conn, direct := guardCluster(t)
	kinds := everyWriteKind(t, conn)
	v, err := checkWrite(conn) // the preview
	if err != nil || v.Level != cluster.WriteOK {
		t.Fatal(v, err)
	}

	// A ZooKeeper controller change: the write goes through.
	var elect writeKind
	for _, k := range kinds {
		if k.name == "preferred election" {
			elect = k
		}
	}
	if err := elect.write(&hookZK{Conn: conn, hook: func() { reelect(t, direct, 2) }}); err != nil {
		t.Fatalf("write across a ZooKeeper controller change: %v", err)
	}
	if ok, _, _ := direct.Exists(cluster.PreferredReplicaElectionPath); !ok {
		t.Fatal("the election was not written")
	}
	if err := direct.Delete(cluster.PreferredReplicaElectionPath, -1); err != nil {
		t.Fatal(err)
	}

	// A KRaft takeover: refused, nothing written.
	before := treeDump(t, direct)
	var after map[string]string
	err = kinds[0].write(&hookZK{Conn: conn, hook: func() {
		takeOver(t, direct, 3000, 7)
		after = treeDump(t, direct)
	}})
	var me *MigrationError
	if !errors.As(err, &me) || !me.Raced || me.Verdict.Level != cluster.WriteRefused || MaybeWritten(err) {
		t.Fatalf("write raced by a takeover: %v", err)
	}
	if !strings.Contains(err.Error(), "the controller changed while writing: write through ZooKeeper refused: KRaft controller 3000 (epoch 7)") {
		t.Errorf("message: %s", err)
	}
	if maps.Equal(before, after) {
		t.Fatal("the takeover wrote nothing")
	}
	sameTree(t, after, treeDump(t, direct))
}
