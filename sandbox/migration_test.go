package sandbox

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/clusterops"
	"github.com/ktopo/ktopo/clusterwatch/zksource"
	"github.com/ktopo/ktopo/zkops"
	"github.com/ktopo/ktopo/zkwatch"
)

// TestMigrate steps the sandbox through a ZooKeeper to KRaft migration
// and checks, at each step, the znodes Kafka 3.9.2 writes (as the rig's
// transcript of a real migration shows them), the phase the radar names,
// and the write guard; the sandbox's own ZooKeeper-mode controller steps
// aside once the KRaft controller takes over.
func TestMigrate(t *testing.T) {
	e := newEnv(t, Config{Brokers: 3, Racks: 3})
	e.createTopic("t", map[int][]int{0: {1, 2, 3}, 1: {2, 3, 1}, 2: {3, 1, 2}}, nil)
	e.waitStates("t", map[int]*st{0: s(1, 0, 1, 0, 1, 2, 3), 1: s(2, 0, 1, 0, 2, 3, 1), 2: s(3, 0, 1, 0, 3, 1, 2)})
	conn, err := zkwatch.Connect(context.Background(), e.connect, zkwatch.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(conn.Close)
	radar := func() cluster.MigrationStatus {
		t.Helper()
		s, err := zksource.Load(context.Background(), conn, cluster.ModelOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return cluster.AssessMigration(s, time.Now(), nil, nil)
	}
	migrate := func(arg, want string) {
		t.Helper()
		if got := RunCommand(e.c, strings.TrimSpace("migrate "+arg)); !strings.Contains(got, want) {
			t.Fatalf("migrate %s: %q, want %q", arg, got, want)
		}
	}
	_, epochBefore := e.controller()

	migrate("", "/migration created")
	if got := string(e.get(cluster.MigrationPath).data); got != `{"version":0,"kraft_metadata_offset":-1,"kraft_controller_id":-1,"kraft_metadata_epoch":-1,"kraft_controller_epoch":-1}` {
		t.Errorf("/migration = %s", got)
	}
	if rs := radar(); rs.Phase != cluster.PhaseWaiting || rs.Verdict.Level != cluster.WriteWarn {
		t.Errorf("controllers ready: %v %v", rs.Phase, rs.Verdict.Level)
	}

	migrate("", "KRaft controller 3000 (epoch 1) took the cluster over")
	ctrl, _, err := conn.Get(cluster.ControllerPath)
	if err != nil {
		t.Fatal(err)
	}
	_, cst, _ := conn.Get(cluster.ControllerPath)
	info, err := cluster.DecodeController(ctrl)
	if err != nil || info.BrokerID != 3000 || info.KRaftControllerEpoch != 1 || info.Version != 2 || cst.EphemeralOwner != 0 {
		t.Errorf("/controller = %s (owner %x)", ctrl, cst.EphemeralOwner)
	}
	if _, epoch := e.controller(); epoch != epochBefore+1 {
		t.Errorf("/controller_epoch %d, want %d", epoch, epochBefore+1)
	}
	rs := radar()
	if rs.Phase != cluster.PhaseDualWrite || rs.Verdict.Level != cluster.WriteRefused || rs.KRaftController != 3000 ||
		rs.Migration.State.KRaftMetadataOffset <= 0 || !slices.Equal(rs.ZKBrokers, []int{1, 2, 3}) {
		t.Fatalf("taken over: %+v", rs)
	}
	waitFor(t, "the sandbox's controller to resign", func() (bool, string) { return e.c.activeController() == nil, "still active" })
	if _, err := e.c.ElectPreferred(""); !errors.Is(err, ErrKRaftOwned) {
		t.Errorf("election under KRaft: %v", err)
	}
	if err := e.c.Kill(2); !errors.Is(err, ErrKRaftOwned) {
		t.Errorf("kill under KRaft: %v", err)
	}
	// ktopo's own writes are refused like anywhere else.
	snap, _ := zksource.Load(context.Background(), conn, cluster.ModelOptions{})
	plan, err := clusterops.PlanTopic(snap, clusterops.TopicRequest{Name: "late", Partitions: 1, ReplicationFactor: 1, StartIndex: -1, ReplicaShift: -1})
	if err != nil {
		t.Fatal(err)
	}
	var me *zkops.MigrationError
	if _, err := zkops.NewWriter(conn).CreateTopic(context.Background(), plan, clusterops.Apply); !errors.As(err, &me) {
		t.Errorf("a ktopo write under KRaft: %v", err)
	}
	// Dual write: the offset moves every half second; frozen, it stands.
	offset := func() int64 {
		m, _ := cluster.DecodeMigration(e.get(cluster.MigrationPath).data)
		return m.KRaftMetadataOffset
	}
	o := offset()
	waitFor(t, "the offset to move", func() (bool, string) { return offset() > o, "" })
	migrate("freeze", "frozen")
	o = offset()
	time.Sleep(3 * syncInterval)
	if offset() != o {
		t.Errorf("the offset moved while frozen")
	}
	migrate("thaw", "resumed")
	waitFor(t, "the offset to move again", func() (bool, string) { return offset() > o, "" })

	migrate("", "rolling brokers 1, 2, 3 to KRaft mode")
	waitFor(t, "every broker in KRaft mode", func() (bool, string) {
		rs := radar()
		return rs.Phase == cluster.PhaseKRaftBrokers && slices.Equal(rs.KRaftBrokers, []int{1, 2, 3}),
			rs.Phase.String() + " " + rs.Brokers()
	})
	// The controller wrote the states with its epoch, each broker back in its ISRs.
	e.waitStates("t", map[int]*st{0: s(1, 2, 1, 6, 1, 2, 3), 1: s(2, 2, 1, 6, 1, 2, 3), 2: s(1, 1, 1, 6, 1, 2, 3)})

	migrate("", "finalized")
	o = offset()
	time.Sleep(3 * syncInterval)
	if offset() != o {
		t.Errorf("the offset moved once finalized")
	}
	if got := RunCommand(e.c, "migrate"); !strings.HasPrefix(got, "error: the migration is finalized") {
		t.Errorf("migrate after finalize: %q", got)
	}
	if got := RunCommand(e.c, "status"); !strings.Contains(got, "controller: KRaft controller 3000") || !strings.Contains(got, "migration: finalized") ||
		!strings.Contains(got, "broker 1 (rack-a): up, KRaft mode") {
		t.Errorf("status:\n%s", got)
	}
}
