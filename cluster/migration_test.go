package cluster

import (
	"errors"
	"strings"
	"testing"
)

// ephemeral marks a created node as owned by a session (a broker's
// registration, a ZooKeeper controller's /controller).
func ephemeral(ev NodeEvent, session int64) NodeEvent {
	ev.Stat.EphemeralOwner = session
	return ev
}

func migrationJSON(id, epoch int, offset int64, metaEpoch int) string {
	return string(EncodeMigration(MigrationState{KRaftControllerID: id, KRaftControllerEpoch: epoch,
		KRaftMetadataOffset: offset, KRaftMetadataEpoch: metaEpoch}))
}

// migrationCluster is a ZooKeeper-mode cluster ready to migrate: brokers
// 1-3 registered, ZooKeeper controller 1 at epoch 1, topic "orders" with
// a topic id and two partitions.
func migrationCluster(t *testing.T) (*fakeZK, *Model) {
	t.Helper()
	z := newFakeZK()
	m := NewModel(ModelOptions{})
	evs := []NodeEvent{
		z.create(ClusterIDPath, string(EncodeClusterID("AbCdEfGhIjKlMnOpQrStUv"))),
		z.create(ControllerEpochPath, "1"),
		ephemeral(z.create(ControllerPath, string(EncodeController(NewControllerInfo(2, 1, 1)))), 0x101),
	}
	for id := 1; id <= 3; id++ {
		evs = append(evs, ephemeral(z.create(BrokerIDPath(id), brokerJSON(id, "")), int64(0x100+id)))
	}
	evs = append(evs,
		z.create(TopicPath("orders"), string(EncodeTopicAssignment(NewTopicAssignment(map[int][]int{0: {1, 2, 3}, 1: {2, 3, 1}}, "x7QvG8YcTkWm1jJ2bQ0ZPA")))),
		z.create(PartitionStatePath("orders", 0), stateJSON(1, 1, 0, 1, 2, 3)),
		z.create(PartitionStatePath("orders", 1), stateJSON(1, 2, 0, 2, 3, 1)),
	)
	apply(t, m, evs, false)
	return z, m
}

// claim is what a KRaft controller writes when it takes the cluster over
// (KafkaZkClient.tryRegisterKRaftControllerAsActiveController, then the
// driver's unconditional /migration update).
func claim(z *fakeZK, id, kraftEpoch int, zkEpoch string) []NodeEvent {
	return []NodeEvent{
		z.set(ControllerEpochPath, zkEpoch),
		z.del(ControllerPath),
		z.create(ControllerPath, string(EncodeController(ControllerInfo{Version: 2, BrokerID: id, Timestamp: "1700000000500", KRaftControllerEpoch: kraftEpoch}))),
		z.set(MigrationPath, migrationJSON(id, kraftEpoch, -1, -1)),
	}
}

// TestMigrationVerdicts: who owns the metadata in the cases ZooKeeper can
// show, and what a write meets.
func TestMigrationVerdicts(t *testing.T) {
	since := int64(1_700_000_000_000)
	zkCtrl := ControllerInfo{Version: 2, BrokerID: 1, KRaftControllerEpoch: -1}
	kraftCtrl := ControllerInfo{Version: 2, BrokerID: 3000, KRaftControllerEpoch: 0}
	oldKRaft := ControllerInfo{Version: 1, BrokerID: 3000, KRaftControllerEpoch: -1}
	fresh := MigrationNode{Present: true, Czxid: 7, Ctime: since, Mtime: since, State: MigrationState{KRaftControllerID: -1, KRaftControllerEpoch: -1, KRaftMetadataOffset: -1, KRaftMetadataEpoch: -1}}
	left := MigrationNode{Present: true, Czxid: 8, Mtime: since, State: MigrationState{KRaftControllerID: 3000, KRaftControllerEpoch: 4, KRaftMetadataOffset: 1234, KRaftMetadataEpoch: 4}}
	bad := MigrationNode{Present: true, Czxid: 9, Err: errors.New(`bad migration state: missing field "version"`)}
	for _, c := range []struct {
		name   string
		f      OwnerFacts
		level  WriteLevel
		reason string
	}{
		{"no migration", OwnerFacts{ControllerPresent: true, Controller: zkCtrl, ControllerRegistered: true}, WriteOK, ""},
		{"no controller, no migration", OwnerFacts{}, WriteOK, ""},
		{"kraftControllerEpoch 0", OwnerFacts{ControllerPresent: true, Controller: kraftCtrl, ControllerPersistent: true, ControllerSince: since, Migration: left},
			WriteRefused, "KRaft controller 3000 (epoch 0) owns this cluster's metadata since 2023-11-14 22:13:20 UTC (/controller names it with kraftControllerEpoch 0)"},
		{"persistent, not registered", OwnerFacts{ControllerPresent: true, Controller: oldKRaft, ControllerPersistent: true},
			WriteRefused, "KRaft controller 3000 owns this cluster's metadata (/controller is persistent and names node 3000, which is not a registered broker)"},
		{"persistent, registered", OwnerFacts{ControllerPresent: true, Controller: zkCtrl, ControllerPersistent: true, ControllerRegistered: true}, WriteOK, ""},
		{"no /controller, /migration names KRaft", OwnerFacts{Migration: left},
			WriteRefused, "KRaft controller 3000 (epoch 4) owns this cluster's metadata since 2023-11-14 22:13:20 UTC (no controller holds /controller and /migration names it)"},
		{"no /controller, fresh /migration", OwnerFacts{Migration: fresh}, WriteWarn, "no controller holds /controller"},
		{"waiting", OwnerFacts{ControllerPresent: true, Controller: zkCtrl, ControllerRegistered: true, Migration: fresh},
			WriteWarn, "a ZooKeeper to KRaft migration is being prepared: KRaft controllers created /migration at 2023-11-14 22:13:20 UTC and wait for the brokers, while ZooKeeper controller 1 still holds /controller"},
		{"left from an earlier attempt", OwnerFacts{ControllerPresent: true, Controller: zkCtrl, ControllerRegistered: true, Migration: left},
			WriteWarn, "/migration is left from an earlier migration attempt (KRaft controller 3000, metadata offset 1234"},
		{"unreadable /migration", OwnerFacts{ControllerPresent: true, Controller: zkCtrl, ControllerRegistered: true, Migration: bad}, WriteWarn, `missing field "version"`},
		{"unreadable /controller during a migration", OwnerFacts{ControllerPresent: true, ControllerErr: errors.New("bad controller: not JSON"), Migration: fresh},
			WriteRefused, "/controller cannot be read (bad controller: not JSON): who owns the metadata cannot be told"},
		{"unreadable /controller, no migration", OwnerFacts{ControllerPresent: true, ControllerErr: errors.New("bad controller: not JSON")}, WriteOK, ""},
	} {
		v := JudgeZooKeeperWrite(c.f)
		if v.Level != c.level || !strings.Contains(v.Reason, c.reason) {
			t.Errorf("%s: %v %q, want %v containing %q", c.name, v.Level, v.Reason, c.level, c.reason)
		}
		if v.Level != WriteOK && v.Instead == "" {
			t.Errorf("%s: no advice", c.name)
		}
		if v.Level == WriteWarn && v.MigrationCzxid != c.f.Migration.Czxid {
			t.Errorf("%s: warning about /migration %d, want %d", c.name, v.MigrationCzxid, c.f.Migration.Czxid)
		}
	}
}

// TestMigrationModelFollowsZNode: /migration goes through the model like
// any fixed-path znode (decode error kept, reset sweep deletes it), and
// /controller's persistence is seen.
func TestMigrationModelFollowsZNode(t *testing.T) {
	z, m := migrationCluster(t)
	if m.Snapshot().Controller().Persistent || !m.Snapshot().Controller().Present {
		t.Fatalf("ZooKeeper controller seen as persistent")
	}
	apply(t, m, []NodeEvent{z.create(MigrationPath, `{"version":0}`)}, false)
	mg := m.Snapshot().Migration()
	if !mg.Present || mg.Err == nil {
		t.Fatalf("bad /migration: %+v", mg)
	}
	apply(t, m, []NodeEvent{z.set(MigrationPath, migrationJSON(3000, 1, 10, 1))}, false)
	mg = m.Snapshot().Migration()
	if mg.Err != nil || mg.State.KRaftMetadataOffset != 10 || mg.Version != 1 || mg.Mtime != z.now {
		t.Fatalf("/migration: %+v", mg)
	}
	apply(t, m, claim(z, 3000, 2, "2"), false)
	if c := m.Snapshot().Controller(); !c.Persistent || c.BrokerID != 3000 || c.Info.KRaftControllerEpoch != 2 {
		t.Fatalf("KRaft controller: %+v", c)
	}
	delete(z.nodes, MigrationPath)
	apply(t, m, z.all(), true)
	if m.Snapshot().Migration().Present {
		t.Errorf("reset kept a deleted /migration")
	}
}
