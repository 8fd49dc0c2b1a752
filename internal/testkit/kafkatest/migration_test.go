package kafkatest_test

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ktopo/ktopo/internal/testkit/kafkatest"
	"github.com/ktopo/ktopo/internal/testkit/zktest"
)

var update = flag.Bool("update", false, "record the migration transcripts into testdata/migration-3.9.2")

const transcriptDir = "testdata/migration-3.9.2"

// recorder takes a snapshot of ZooKeeper at each phase of a migration and,
// with -update, writes it as a transcript.
type recorder struct {
	t    *testing.T
	m    *kafkatest.Migration
	prev kafkatest.Snapshot
	took map[string]time.Duration
	from time.Time
}

func (r *recorder) record(phase string, steps ...string) kafkatest.Snapshot {
	r.t.Helper()
	s, err := r.m.Snapshot()
	if err != nil {
		r.t.Fatal(err)
	}
	tr := kafkatest.Transcript{Phase: phase, Kafka: kafkatest.Kafka39, Steps: steps, Nodes: r.m.Describe(),
		Changes: s.Diff(r.prev), ZNodes: s}
	if q, err := r.m.Quorum(); err == nil {
		tr.Quorum = fmt.Sprintf("leader %d, epoch %d, high watermark %d, leader log end offset %d", q.LeaderID, q.LeaderEpoch, q.HighWatermark, q.LeaderEndOffset())
	}
	r.took[phase] = time.Since(r.from)
	r.from = time.Now()
	r.t.Logf("phase %s reached in %s: created %v, deleted %v, changed %v", phase, r.took[phase].Round(time.Millisecond), tr.Changes.Created, tr.Changes.Deleted, tr.Changes.Changed)
	if *update {
		if err := kafkatest.WriteTranscript(transcriptDir, tr); err != nil {
			r.t.Fatal(err)
		}
	}
	r.prev = s
	return s
}

// controllerZNode is /controller's data.
type controllerZNode struct {
	Version              int    `json:"version"`
	BrokerID             int    `json:"brokerid"`
	Timestamp            string `json:"timestamp"`
	KRaftControllerEpoch *int   `json:"kraftControllerEpoch"`
}

func controllerOf(t *testing.T, s kafkatest.Snapshot) (controllerZNode, kafkatest.ZNode) {
	t.Helper()
	z, ok := s["/controller"]
	if !ok {
		t.Fatalf("no /controller")
	}
	var c controllerZNode
	if err := json.Unmarshal([]byte(z.Data), &c); err != nil {
		t.Fatalf("/controller %q: %v", z.Data, err)
	}
	return c, z
}

func children(s kafkatest.Snapshot, parent string) []string {
	var out []string
	for p := range s {
		if rest, ok := strings.CutPrefix(p, parent+"/"); ok && !strings.Contains(rest, "/") {
			out = append(out, rest)
		}
	}
	slices.Sort(out)
	return out
}

// syncOutcome says how the dual write came out of a stall, from the
// snapshot taken after it: stuck (and why, from the controller's log),
// resumed with the stall's topic, or resumed without it.
func syncOutcome(outcome string, s kafkatest.Snapshot, m *kafkatest.Migration) string {
	if outcome == "stuck" {
		why := ""
		if strings.Contains(readLog(m.Node(kafkatest.FirstControllerID)), "BadVersion for /migration") {
			why = ` (the controller's log: "BadVersion for /migration" at every delta)`
		}
		return "the dual write stayed stuck: /migration did not move in 30 s" + why
	}
	if _, ok := s["/brokers/topics/while-stuck"]; ok {
		return "the dual write resumed and topic while-stuck (created during the stall) reached ZooKeeper"
	}
	return "the dual write resumed (/migration caught up) but topic while-stuck (created during the stall) is missing from ZooKeeper"
}

func readLog(n *kafkatest.Node) string {
	b, _ := os.ReadFile(n.LogFile())
	return string(b)
}

// waitZNode waits until path exists in the migration's chroot.
func waitZNode(t *testing.T, m *kafkatest.Migration, path string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		s, err := m.Snapshot()
		if _, ok := s[path]; ok && err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s never appeared in ZooKeeper (%v)", path, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// waitTopicID waits until the topic's znode has a topic_id.
func waitTopicID(m *kafkatest.Migration, topic string) error {
	deadline := time.Now().Add(time.Minute)
	for {
		s, err := m.Snapshot()
		if err == nil && strings.Contains(s["/brokers/topics/"+topic].Data, `"topic_id"`) {
			return nil
		}
		if time.Now().After(deadline) {
			if err != nil {
				return fmt.Errorf("/brokers/topics/%s never got a topic_id: %w", topic, err)
			}
			return fmt.Errorf("/brokers/topics/%s never got a topic_id", topic)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func mustTopics(t *testing.T, m *kafkatest.Migration, args ...string) string {
	t.Helper()
	res, err := m.Topics(args...)
	if err != nil || res.Code != 0 {
		t.Fatalf("kafka-topics %v: %v %+v", args, err, res)
	}
	return res.Stdout
}

// TestMigration drives a real Kafka 3.9.2 cluster from ZooKeeper mode to
// KRaft, phase by phase, checks at each what ZooKeeper shows (the facts
// doc.go and docs/compatibility.md state), stalls the controller's sync
// into ZooKeeper while KRaft goes on, and finalizes. With -update it
// writes the transcripts of testdata/migration-3.9.2.
func TestMigration(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: a whole migration takes minutes")
	}
	kafkatest.Require(t, kafkatest.Kafka39)
	began := time.Now()
	m, err := kafkatest.StartMigration(kafkatest.MigrationOptions{Connect: zktest.Addr(t) + zktest.ChrootPath("migration")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(m.Stop) // after Attach's cleanup, which prints the logs of a failed test
	kafkatest.Attach(t, m)
	r := &recorder{t: t, m: m, took: map[string]time.Duration{}, from: began}

	mustTopics(t, m, "--create", "--topic", "zk-era", "--partitions", "3", "--replication-factor", "3")
	// A topic as Kafka 2.8's kafka-topics --zookeeper writes it: no
	// topic_id in its znode until the 3.9 controller adds one.
	d28 := kafkatest.Require(t, kafkatest.Kafka28)
	if res, err := d28.Command("kafka-topics", "--zookeeper", m.Connect(), "--create", "--topic", "legacy", "--partitions", "1", "--replication-factor", "2"); err != nil || res.Code != 0 {
		t.Fatalf("2.8's kafka-topics --zookeeper --create: %v %+v", err, res)
	}
	if err := waitTopicID(m, "legacy"); err != nil {
		t.Fatal(err)
	}
	s := r.record("zk", "3 brokers in ZooKeeper mode (inter.broker.protocol.version=3.9), racks rack-a..c",
		"topic zk-era created with kafka-topics --bootstrap-server (3 partitions, replication factor 3)",
		"topic legacy created with Kafka 2.8.2's kafka-topics --zookeeper (its znode written without topic_id; the 3.9 controller then adds one: data version 1)")
	if z := s["/brokers/topics/legacy"]; z.Version != 1 || !strings.Contains(z.Data, `"topic_id"`) {
		t.Errorf("zk: /brokers/topics/legacy version %d %s: want the controller's rewrite with a topic_id", z.Version, z.Data)
	}
	ctrl, z := controllerOf(t, s)
	if !z.Ephemeral() || ctrl.BrokerID < 1 || ctrl.BrokerID > 3 || (ctrl.KRaftControllerEpoch != nil && *ctrl.KRaftControllerEpoch != -1) {
		t.Errorf("zk: /controller %s (owner %s): want an ephemeral broker's, no KRaft epoch", z.Data, z.EphemeralOwner)
	}
	if _, ok := s["/migration"]; ok {
		t.Errorf("zk: /migration exists")
	}
	if got := children(s, "/brokers/ids"); !slices.Equal(got, []string{"1", "2", "3"}) {
		t.Errorf("zk: /brokers/ids %v", got)
	}
	zkEpoch := s["/controller_epoch"].Data

	if err := m.ProvisionControllers(); err != nil {
		t.Fatal(err)
	}
	s = r.record("controllers", "kafka-storage format of controller 3000 with the cluster id from /cluster/id",
		"controller 3000 started: process.roles=controller, zookeeper.metadata.migration.enable=true, zookeeper.connect (through a proxy), controller.quorum.voters")
	ctrl2, z2 := controllerOf(t, s)
	if !z2.Ephemeral() || ctrl2.BrokerID != ctrl.BrokerID {
		t.Errorf("controllers: /controller %s: want broker %d's still", z2.Data, ctrl.BrokerID)
	}

	if err := m.EnableMigration(); err != nil {
		t.Fatal(err)
	}
	mustTopics(t, m, "--create", "--topic", "hybrid-era", "--partitions", "2", "--replication-factor", "2")
	waitZNode(t, m, "/brokers/topics/hybrid-era/partitions/1/state") // the dual write follows the KRaft commit
	s = r.record("hybrid", "every broker restarted with zookeeper.metadata.migration.enable=true, controller.quorum.voters, controller.listener.names=CONTROLLER",
		"the KRaft controller migrated the metadata (log: Completed migration of metadata from ZooKeeper to KRaft) and entered DUAL_WRITE",
		"topic hybrid-era created with kafka-topics --bootstrap-server (2 partitions, replication factor 2)")
	ctrl3, z3 := controllerOf(t, s)
	if z3.Ephemeral() || ctrl3.BrokerID != kafkatest.FirstControllerID || ctrl3.KRaftControllerEpoch == nil || *ctrl3.KRaftControllerEpoch < 1 {
		t.Errorf("hybrid: /controller %s (owner %s): want a persistent znode of controller 3000 with its KRaft epoch", z3.Data, z3.EphemeralOwner)
	}
	if s["/controller_epoch"].Data == zkEpoch {
		t.Errorf("hybrid: /controller_epoch still %s", zkEpoch)
	}
	st, err := m.MigrationState()
	if err != nil || st.KRaftControllerID != kafkatest.FirstControllerID || st.KRaftMetadataOffset < 0 {
		t.Errorf("hybrid: /migration %+v: %v", st, err)
	}
	if got := children(s, "/brokers/ids"); !slices.Equal(got, []string{"1", "2", "3"}) {
		t.Errorf("hybrid: /brokers/ids %v", got)
	}
	if _, ok := s["/brokers/topics/hybrid-era"]; !ok {
		t.Errorf("hybrid: the KRaft controller did not write topic hybrid-era to ZooKeeper")
	}

	if err := m.RollBrokerToKRaft(1); err != nil {
		t.Fatal(err)
	}
	s = r.record("rolling-1", "broker 1 restarted in KRaft mode: process.roles=broker, node.id=1, no zookeeper.connect, no migration flag",
		"brokers 2 and 3 still in ZooKeeper mode with the migration enabled")
	if got := children(s, "/brokers/ids"); !slices.Equal(got, []string{"2", "3"}) {
		t.Errorf("rolling-1: /brokers/ids %v, want [2 3] (a KRaft broker does not register in ZooKeeper)", got)
	}

	if err := m.RollToKRaft(); err != nil {
		t.Fatal(err)
	}
	mustTopics(t, m, "--create", "--topic", "dual-write-era", "--partitions", "1", "--replication-factor", "3")
	waitZNode(t, m, "/brokers/topics/dual-write-era/partitions/0/state")
	s = r.record("dual-write", "brokers 2 and 3 restarted in KRaft mode: every broker is a KRaft broker",
		"topic dual-write-era created with kafka-topics --bootstrap-server (1 partition, replication factor 3)")
	if got := children(s, "/brokers/ids"); len(got) != 0 {
		t.Errorf("dual-write: /brokers/ids %v, want none", got)
	}
	if _, ok := s["/brokers/topics/dual-write-era"]; !ok {
		t.Errorf("dual-write: the KRaft controller did not write topic dual-write-era to ZooKeeper")
	}

	// A stuck sync: the controller's ZooKeeper connection black-holed,
	// metadata changes go on in KRaft (a topic created, a broker killed:
	// leaders and ISRs move), /migration stays where it was.
	// The black hole closes the controller's connection at once: no write
	// reaches ZooKeeper after it, so what /migration holds then stays.
	m.StallSync()
	before, err := m.MigrationState()
	if err != nil {
		t.Fatal(err)
	}
	q0, err := m.Quorum()
	if err != nil {
		t.Fatal(err)
	}
	mustTopics(t, m, "--create", "--topic", "while-stuck", "--partitions", "2", "--replication-factor", "3")
	m.Node(3).Kill()
	if err := m.WaitReady(time.Minute); err != nil {
		t.Fatal(err)
	}
	desc := mustTopics(t, m, "--describe", "--topic", "zk-era")
	if strings.Contains(desc, "Leader: 3\t") {
		t.Errorf("broker 3 killed and fenced but still a leader:\n%s", desc)
	}
	q1, err := m.Quorum()
	if err != nil {
		t.Fatal(err)
	}
	after, err := m.MigrationState()
	if err != nil {
		t.Fatal(err)
	}
	if q1.LeaderEndOffset() <= q0.LeaderEndOffset() || after.KRaftMetadataOffset != before.KRaftMetadataOffset || after.ZNodeVersion != before.ZNodeVersion {
		t.Errorf("stuck sync: KRaft log end offset %d → %d, /migration offset %d (version %d) → %d (version %d): want KRaft on, /migration frozen",
			q0.LeaderEndOffset(), q1.LeaderEndOffset(), before.KRaftMetadataOffset, before.ZNodeVersion, after.KRaftMetadataOffset, after.ZNodeVersion)
	}
	s = r.record("stuck-sync", "the controller's ZooKeeper connection black-holed (zktest proxy): its dual writes stop",
		"topic while-stuck created with kafka-topics --bootstrap-server; broker 3 killed (SIGKILL) and fenced: leaders and ISRs moved in KRaft")
	if _, ok := s["/brokers/topics/while-stuck"]; ok {
		t.Errorf("stuck-sync: topic while-stuck reached ZooKeeper through a black hole")
	}
	t.Logf("stuck sync: KRaft log end offset %d → %d while /migration stayed at offset %d", q0.LeaderEndOffset(), q1.LeaderEndOffset(), after.KRaftMetadataOffset)

	m.ResumeSync()
	if err := m.Node(3).Start(); err != nil {
		t.Fatal(err)
	}
	if err := m.WaitReady(time.Minute); err != nil {
		t.Fatal(err)
	}
	// Three outcomes were seen once the controller reaches ZooKeeper again
	// (3.9.2's KRaftMigrationDriver does not retry a delta whose ZooKeeper
	// writes failed, though it logs "Will retry"):
	//   - the sync goes on and the stall's changes reach ZooKeeper;
	//   - the sync goes on but a change made during the stall (the topic)
	//     never reaches ZooKeeper, /migration's offset moving past it;
	//   - the sync stays stuck: a /migration write was applied but its
	//     reply lost in the black hole, so the controller's idea of the
	//     znode's version is stale and every later write of it fails
	//     ("BadVersion for /migration"), for good.
	// Only a new active controller (a restart, a failover) mends each.
	outcome := "stuck"
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		st, err := m.MigrationState()
		if err == nil && st.KRaftMetadataOffset >= q1.LeaderEndOffset() {
			outcome = "resumed"
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	snap, err := m.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	what := syncOutcome(outcome, snap, m)
	t.Logf("after the stall: %s", what)
	r.record("resumed", "the proxy lets the controller through again; broker 3 started again", "outcome of this run: "+what)

	// A controller restart makes the new active controller reconcile
	// ZooKeeper with the whole KRaft image (SYNC_KRAFT_TO_ZK).
	if err := m.Node(kafkatest.FirstControllerID).Restart(); err != nil {
		t.Fatal(err)
	}
	if err := m.WaitMigrated(2 * time.Minute); err != nil {
		t.Fatal(err)
	}
	s = r.record("reconciled", "controller 3000 restarted (still in migration mode): as active controller it claims /controller again and performs a full metadata sync from KRaft to ZooKeeper before dual-writing deltas")
	if _, ok := s["/brokers/topics/while-stuck"]; !ok {
		t.Errorf("reconciled: topic while-stuck still not in ZooKeeper after the full sync")
	}
	if st, err := m.MigrationState(); err != nil || st.KRaftMetadataOffset < q1.LeaderEndOffset() {
		t.Errorf("reconciled: /migration %+v (%v), want past KRaft offset %d", st, err, q1.LeaderEndOffset())
	}

	if err := m.Finalize(); err != nil {
		t.Fatal(err)
	}
	atFinal, err := m.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	mustTopics(t, m, "--create", "--topic", "kraft-era", "--partitions", "1", "--replication-factor", "1")
	// Long enough for a dual write to have happened, had there been one.
	if err := m.Node(3).Restart(); err != nil {
		t.Fatal(err)
	}
	if err := m.WaitReady(time.Minute); err != nil {
		t.Fatal(err)
	}
	s = r.record("finalized", "controller 3000 restarted without zookeeper.metadata.migration.enable and without zookeeper.connect",
		"topic kraft-era created with kafka-topics --bootstrap-server; broker 3 restarted")
	if _, ok := s["/brokers/topics/kraft-era"]; ok {
		t.Errorf("finalized: topic kraft-era written to ZooKeeper")
	}
	for _, p := range []string{"/controller", "/controller_epoch", "/migration", "/brokers/topics"} {
		if s[p].Mzxid != atFinal[p].Mzxid || s[p].Pzxid != atFinal[p].Pzxid {
			t.Errorf("finalized: %s written after the controller left migration mode", p)
		}
	}
	t.Logf("whole migration: %s (%v)", time.Since(began).Round(time.Millisecond), r.took)
}

// TestMigrationAbandon gives a migration up in its hybrid phase without
// removing /migration, as an operator who skips that revert step does. It
// takes the package's shared migration there with MigrateTo (the only
// test of this package that uses it: an abandoned migration goes no
// further).
func TestMigrationAbandon(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: a migration takes minutes")
	}
	began := time.Now()
	m := kafkatest.SharedMigration(t)
	r := &recorder{t: t, m: m, took: map[string]time.Duration{}, from: began}
	if err := m.MigrateTo(kafkatest.PhaseHybrid); err != nil {
		t.Fatal(err)
	}
	if err := m.MigrateTo(kafkatest.PhaseControllers); err == nil || !strings.Contains(err.Error(), `already in phase "hybrid"`) {
		t.Errorf("MigrateTo back to controllers: %v", err)
	}
	// A killed broker comes back in its role when the test ends (Heal);
	// here at once, to abandon from a whole cluster.
	m.Node(2).Kill()
	if err := m.Heal(); err != nil {
		t.Fatal(err)
	}
	r.prev, _ = m.Snapshot()
	if err := m.Abandon(); err != nil {
		t.Fatal(err)
	}
	s := r.record("abandoned", "from the hybrid phase: controller 3000 stopped (deprovisioned), /controller deleted",
		"every broker restarted without zookeeper.metadata.migration.enable, controller.quorum.voters and controller.listener.names",
		"/migration NOT deleted (Kafka's revert says get /migration, then rmr /migration)")
	ctrl, z := controllerOf(t, s)
	if !z.Ephemeral() || ctrl.BrokerID < 1 || ctrl.BrokerID > 3 {
		t.Errorf("abandoned: /controller %s: want an ephemeral broker's", z.Data)
	}
	st, err := m.MigrationState()
	if err != nil || st.KRaftControllerID != kafkatest.FirstControllerID || st.KRaftMetadataOffset < 0 {
		t.Errorf("abandoned: /migration %+v (%v), want it left as the migration wrote it", st, err)
	}
	mustTopics(t, m, "--create", "--topic", "after-abandon", "--partitions", "1", "--replication-factor", "3")
	if _, ok := s["/brokers/topics/after-abandon"]; ok {
		t.Errorf("the topic exists before it was created")
	}
	if later, err := m.MigrationState(); err != nil || later != st {
		t.Errorf("abandoned: /migration changed to %+v (%v) after a topic was created: nothing should write it", later, err)
	}
	t.Logf("abandoned migration: %s", time.Since(began).Round(time.Millisecond))
}
