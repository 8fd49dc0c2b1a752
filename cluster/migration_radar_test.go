package cluster

import (
	"slices"
	"strings"
	"testing"
	"time"
)

func codes(hs []MigrationHazard) []string {
	var out []string
	for _, h := range hs {
		out = append(out, h.Code)
	}
	return out
}

// TestMigrationPhases walks a migration through every phase, as Kafka
// 3.9 writes it, and checks the phase, the write verdict and the brokers
// by mode at each.
func TestMigrationPhases(t *testing.T) {
	z, m := migrationCluster(t)
	now := time.UnixMilli(z.now)
	var sync SyncWatch
	assess := func() MigrationStatus {
		t.Helper()
		return AssessMigration(m.Snapshot(), now, &sync, nil)
	}

	st := assess()
	if st.Phase != PhaseNone || st.Verdict.Level != WriteOK || st.ZKController != 1 || len(st.Hazards) != 0 {
		t.Fatalf("before: %+v", st)
	}

	// KRaft controllers start with the migration enabled.
	apply(t, m, []NodeEvent{z.create(MigrationPath, migrationJSON(-1, -1, -1, -1))}, false)
	st = assess()
	if st.Phase != PhaseWaiting || st.Verdict.Level != WriteWarn || st.Verdict.ZKController != 1 {
		t.Fatalf("waiting: %v %+v", st.Phase, st.Verdict)
	}
	if !strings.Contains(st.Verdict.Reason, "being prepared") || !strings.Contains(st.Verdict.Reason, "ZooKeeper controller 1 still holds /controller") {
		t.Errorf("waiting reason: %s", st.Verdict.Reason)
	}
	if st.Verdict.MigrationCzxid != m.Snapshot().Migration().Czxid || st.Verdict.MigrationCzxid == 0 {
		t.Errorf("warning about /migration %d, want %d", st.Verdict.MigrationCzxid, m.Snapshot().Migration().Czxid)
	}

	// Every broker registered with KRaft: the controller takes over.
	apply(t, m, claim(z, 3000, 5, "2"), false)
	st = assess()
	if st.Phase != PhaseCopying || st.Verdict.Level != WriteRefused || st.KRaftController != 3000 || st.KRaftEpoch != 5 {
		t.Fatalf("copying: %v %+v", st.Phase, st.Verdict)
	}
	want := "KRaft controller 3000 (epoch 5) owns this cluster's metadata since " + FormatSince(m.Snapshot().Controller().Since) +
		" (/controller names it with kraftControllerEpoch 5): a write through ZooKeeper would be lost or undone: " + ZooKeeperWriteInstead
	if got := st.Verdict.Message(); got != want {
		t.Errorf("refusal:\n got %s\nwant %s", got, want)
	}

	// The metadata copied: dual write while brokers run in ZooKeeper mode.
	apply(t, m, []NodeEvent{z.set(MigrationPath, migrationJSON(3000, 5, 42, 5))}, false)
	st = assess()
	if st.Phase != PhaseDualWrite || !slices.Equal(st.ZKBrokers, []int{1, 2, 3}) || len(st.KRaftBrokers) != 0 || st.SyncStopped {
		t.Fatalf("dual write: %v zk %v kraft %v stopped %v", st.Phase, st.ZKBrokers, st.KRaftBrokers, st.SyncStopped)
	}

	// The offset moves every half second; then it stops.
	for i := 0; i < 8; i++ {
		now = now.Add(500 * time.Millisecond)
		apply(t, m, []NodeEvent{z.set(MigrationPath, migrationJSON(3000, 5, int64(43+i), 5))}, false)
		if st = assess(); st.SyncStopped || st.Phase != PhaseDualWrite {
			t.Fatalf("moving sync flagged: %+v", st)
		}
	}
	now = now.Add(SyncStalledAfter)
	st = assess()
	if !st.SyncStopped || st.Phase != PhaseDualWrite {
		t.Fatalf("stalled sync not flagged: %v age %v", st.Phase, st.SyncAge)
	}
	if h, ok := st.Hazard(HazardSyncStopped); !ok || !strings.Contains(h.Text, "offset 50 has not moved for 5s") {
		t.Errorf("sync hazard: %q", h.Text)
	}
	// A quorum at the same offset says ZooKeeper is not behind: idle, not stopped.
	if st := AssessMigration(m.Snapshot(), now, &sync, &KRaftQuorum{LeaderID: 3000, HighWatermark: 51}); st.SyncStopped || st.Lag != 0 || !st.LagKnown {
		t.Errorf("caught-up quorum: stopped %v lag %d", st.SyncStopped, st.Lag)
	}
	if st := AssessMigration(m.Snapshot(), now, &sync, &KRaftQuorum{LeaderID: 3000, HighWatermark: 80}); !st.SyncStopped || st.Lag != 29 {
		t.Errorf("lagging quorum: stopped %v lag %d", st.SyncStopped, st.Lag)
	}

	// Broker 3 rolled to KRaft: it leaves /brokers/ids and the controller
	// keeps it in the ISRs it writes.
	now = now.Add(time.Second)
	apply(t, m, []NodeEvent{z.del(BrokerIDPath(3)), z.set(MigrationPath, migrationJSON(3000, 5, 60, 5)),
		z.set(PartitionStatePath("orders", 0), stateJSON(5, 1, 1, 1, 2, 3))}, false)
	st = assess()
	if st.Phase != PhaseDualWrite || !slices.Equal(st.ZKBrokers, []int{1, 2}) || !slices.Equal(st.KRaftBrokers, []int{3}) {
		t.Fatalf("rolling: %v zk %v kraft %v", st.Phase, st.ZKBrokers, st.KRaftBrokers)
	}
	if got := st.Brokers(); got != "ZooKeeper mode 1,2 · KRaft 3" {
		t.Errorf("Brokers() = %q", got)
	}
	// The sync resumed after its stall: what changed meanwhile may be
	// missing until a controller's full sync.
	if h, ok := st.Hazard(HazardSyncGap); !ok || !strings.Contains(h.Text, "the sync stopped for 6s (offsets 50 to 60") {
		t.Errorf("no sync gap after the stall: %v %q", codes(st.Hazards), h.Text)
	}
	// The controller restarted (a new epoch): its full sync covers the gap.
	now = now.Add(time.Second)
	apply(t, m, []NodeEvent{z.set(MigrationPath, migrationJSON(3000, 6, 61, 6))}, false)
	if st = assess(); len(st.Hazards) != 0 {
		t.Errorf("after a new controller epoch: %v", codes(st.Hazards))
	}

	// Every broker on KRaft.
	now = now.Add(time.Second)
	apply(t, m, []NodeEvent{z.del(BrokerIDPath(1)), z.del(BrokerIDPath(2)), z.set(MigrationPath, migrationJSON(3000, 6, 70, 6))}, false)
	st = assess()
	if st.Phase != PhaseKRaftBrokers || len(st.ZKBrokers) != 0 || !slices.Equal(st.KRaftBrokers, []int{1, 2, 3}) || len(st.Hazards) != 0 {
		t.Fatalf("brokers on KRaft: %v zk %v kraft %v hazards %v", st.Phase, st.ZKBrokers, st.KRaftBrokers, codes(st.Hazards))
	}

	// The controllers leave migration mode: /migration is no longer written.
	now = now.Add(SyncStalledAfter + time.Second)
	st = assess()
	if st.Phase != PhaseFinalized || st.Verdict.Level != WriteRefused || st.SyncStopped {
		t.Fatalf("finalized: %v %v stopped %v", st.Phase, st.Verdict.Level, st.SyncStopped)
	}
	// The quorum tells the two apart: the leader that last wrote ZooKeeper
	// still leads (a frozen sync), or a later one never wrote (finalized:
	// the controllers restarted without the migration).
	if st := AssessMigration(m.Snapshot(), now, &sync, &KRaftQuorum{LeaderID: 3000, LeaderEpoch: 6, HighWatermark: 90}); st.Phase != PhaseKRaftBrokers || !st.SyncStopped {
		t.Errorf("frozen under the same leader: %v stopped %v", st.Phase, st.SyncStopped)
	}
	if st := AssessMigration(m.Snapshot(), now, &sync, &KRaftQuorum{LeaderID: 3000, LeaderEpoch: 7, HighWatermark: 90}); st.Phase != PhaseFinalized || st.SyncStopped {
		t.Errorf("finalized under a later leader: %v stopped %v", st.Phase, st.SyncStopped)
	}
}

// TestMigrationHazards: what the radar warns about, phase by phase.
func TestMigrationHazards(t *testing.T) {
	z, m := migrationCluster(t)
	now := time.UnixMilli(z.now)
	// Broker 7 holds a replica but never registered; topic "legacy" has no
	// topic_id.
	apply(t, m, []NodeEvent{
		z.create(TopicPath("legacy"), topicJSON(map[int][]int{0: {1, 7}})),
		z.create(PartitionStatePath("legacy", 0), stateJSON(1, 1, 0, 1)),
	}, false)
	st := AssessMigration(m.Snapshot(), now, nil, nil)
	if got := codes(st.Hazards); !slices.Equal(got, []string{HazardUnregistered, HazardNoTopicID}) {
		t.Fatalf("before a migration: %v", got)
	}
	if h, _ := st.Hazard(HazardUnregistered); !strings.HasPrefix(h.Text, "broker 7 holds replicas but is not registered") {
		t.Errorf("unregistered: %s", h.Text)
	}
	if h, _ := st.Hazard(HazardNoTopicID); !strings.Contains(h.Text, "1 topic without topic_id (legacy): the migration's copy of the metadata fails on it") {
		t.Errorf("no topic id: %s", h.Text)
	}

	// A revert that left /migration behind.
	apply(t, m, []NodeEvent{z.create(MigrationPath, migrationJSON(3000, 4, 1234, 4))}, false)
	st = AssessMigration(m.Snapshot(), now, nil, nil)
	if st.Phase != PhaseReverted || st.KRaftController != 3000 {
		t.Fatalf("reverted: %v %d", st.Phase, st.KRaftController)
	}
	if _, ok := st.Hazard(HazardStaleMigration); !ok {
		t.Errorf("no stale-migration hazard: %v", codes(st.Hazards))
	}

	// Taken over; then ZooKeeper-side writes behind the controller's back.
	apply(t, m, claim(z, 3000, 5, "2"), false)
	apply(t, m, []NodeEvent{z.set(MigrationPath, migrationJSON(3000, 5, 2000, 5))}, false)
	apply(t, m, []NodeEvent{
		z.create(ReassignPartitionsPath, `{"version":1,"partitions":[{"topic":"orders","partition":0,"replicas":[2,3,1]}]}`),
		z.create(PreferredReplicaElectionPath, `{"version":1,"partitions":[{"topic":"orders","partition":1}]}`),
		z.create(DeleteTopicPath("orders"), ""),
		z.set(TopicPath("orders"), string(EncodeTopicAssignment(NewTopicAssignment(map[int][]int{0: {1, 2, 3}, 1: {2, 3, 1}, 2: {3, 1, 2}}, "x7QvG8YcTkWm1jJ2bQ0ZPA")))),
	}, false)
	st = AssessMigration(m.Snapshot(), time.UnixMilli(z.now), nil, nil)
	want := []string{HazardNoTopicID, HazardAdminRequests, HazardPendingDeletions, HazardNewPartitions}
	if got := codes(st.Hazards); !slices.Equal(got, want) {
		t.Fatalf("taken over: %v, want %v", got, want)
	}
	if h, _ := st.Hazard(HazardNoTopicID); !strings.Contains(h.Text, "the controller's next full sync into ZooKeeper fails on it and retries for ever") {
		t.Errorf("no topic id: %s", h.Text)
	}
	if h, _ := st.Hazard(HazardAdminRequests); !strings.HasPrefix(h.Text, "/admin/reassign_partitions and /admin/preferred_replica_election left behind") {
		t.Errorf("admin: %s", h.Text)
	}
	if h, _ := st.Hazard(HazardNewPartitions); !strings.Contains(h.Text, "1 partition in an assignment without a state (orders-2)") {
		t.Errorf("new partitions: %s", h.Text)
	}
	// Broker 7 is not flagged once KRaft owns the metadata: it is listed
	// as unregistered.
	if !slices.Equal(st.Unregistered, []int{7}) {
		t.Errorf("unregistered: %v", st.Unregistered)
	}

	// /migration deleted by hand.
	apply(t, m, []NodeEvent{z.del(MigrationPath)}, false)
	st = AssessMigration(m.Snapshot(), time.UnixMilli(z.now), nil, nil)
	if _, ok := st.Hazard(HazardMigrationMissing); !ok || st.Phase != PhaseCopying {
		t.Errorf("missing /migration: %v %v", st.Phase, codes(st.Hazards))
	}
}
