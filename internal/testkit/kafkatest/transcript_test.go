package kafkatest_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ktopo/ktopo/internal/testkit/kafkatest"
)

// TestTranscripts checks that the committed transcripts of a real
// migration (testdata/migration-3.9.2, recorded by TestMigration and
// TestMigrationAbandon with -update) show the facts doc.go and
// docs/compatibility.md state, so that a new recording that shows
// otherwise fails here, and so that what the migration radar is built
// against is what the documentation says. It needs no Java.
func TestTranscripts(t *testing.T) {
	read := func(phase string) kafkatest.Transcript {
		t.Helper()
		tr, err := kafkatest.ReadTranscript(transcriptDir, phase)
		if err != nil {
			t.Fatal(err)
		}
		if tr.Phase != phase || tr.Kafka != kafkatest.Kafka39 || len(tr.ZNodes) == 0 {
			t.Fatalf("%s: phase %q, Kafka %q, %d znodes", phase, tr.Phase, tr.Kafka, len(tr.ZNodes))
		}
		return tr
	}
	type migration struct {
		ControllerID int   `json:"kraft_controller_id"`
		Epoch        int   `json:"kraft_controller_epoch"`
		Offset       int64 `json:"kraft_metadata_offset"`
	}
	ctrl := func(tr kafkatest.Transcript) (controllerZNode, kafkatest.ZNode) { return controllerOf(t, tr.ZNodes) }
	mig := func(tr kafkatest.Transcript) (migration, kafkatest.ZNode, bool) {
		z, ok := tr.ZNodes["/migration"]
		var m migration
		if ok {
			if err := json.Unmarshal([]byte(z.Data), &m); err != nil {
				t.Fatalf("%s: /migration %q: %v", tr.Phase, z.Data, err)
			}
		}
		return m, z, ok
	}
	ids := func(tr kafkatest.Transcript) []string { return children(tr.ZNodes, "/brokers/ids") }

	zk := read("zk")
	c, z := ctrl(zk)
	if !z.Ephemeral() || z.Owner != "broker "+itoa(c.BrokerID) || c.KRaftControllerEpoch == nil || *c.KRaftControllerEpoch != -1 {
		t.Errorf("zk: /controller %s owned by %q: want a broker's ephemeral znode with kraftControllerEpoch -1", z.Data, z.Owner)
	}
	if _, _, ok := mig(zk); ok {
		t.Errorf("zk: /migration exists")
	}
	if got := ids(zk); !slices.Equal(got, []string{"1", "2", "3"}) {
		t.Errorf("zk: /brokers/ids %v", got)
	}
	if l := zk.ZNodes["/brokers/topics/legacy"]; l.Version != 1 {
		t.Errorf("zk: /brokers/topics/legacy at version %d, want 1 (written by 2.8 without topic_id, rewritten with one)", l.Version)
	}

	ctl := read("controllers")
	m, mz, ok := mig(ctl)
	if !ok || mz.Ephemeral() || m.ControllerID != -1 || m.Epoch != -1 || m.Offset != -1 {
		t.Errorf("controllers: /migration %q (present %v): want a persistent znode, all -1", mz.Data, ok)
	}
	if _, z2 := ctrl(ctl); z2.Czxid != z.Czxid || !z2.Ephemeral() {
		t.Errorf("controllers: /controller changed: %+v", z2)
	}

	hy := read("hybrid")
	c3, z3 := ctrl(hy)
	if z3.Ephemeral() || c3.BrokerID != kafkatest.FirstControllerID || c3.KRaftControllerEpoch == nil || *c3.KRaftControllerEpoch < 1 {
		t.Errorf("hybrid: /controller %s (owner %s): want persistent, controller 3000, its KRaft epoch", z3.Data, z3.EphemeralOwner)
	}
	epoch := func(tr kafkatest.Transcript) int { n, _ := strconv.Atoi(tr.ZNodes["/controller_epoch"].Data); return n }
	if epoch(hy) <= epoch(zk) {
		t.Errorf("hybrid: /controller_epoch %s, was %s", hy.ZNodes["/controller_epoch"].Data, zk.ZNodes["/controller_epoch"].Data)
	}
	if m, mz, _ := mig(hy); m.ControllerID != kafkatest.FirstControllerID || m.Epoch != *c3.KRaftControllerEpoch || m.Offset < 0 || mz.Czxid != ctl.ZNodes["/migration"].Czxid {
		t.Errorf("hybrid: /migration %s: want controller 3000's epoch and a migrated offset, the same znode", mz.Data)
	}
	if got := ids(hy); !slices.Equal(got, []string{"1", "2", "3"}) {
		t.Errorf("hybrid: /brokers/ids %v", got)
	}
	for _, id := range []string{"1", "2", "3"} {
		if hy.ZNodes["/brokers/ids/"+id].Czxid == zk.ZNodes["/brokers/ids/"+id].Czxid {
			t.Errorf("hybrid: broker %s did not register again", id)
		}
	}

	if got := ids(read("rolling-1")); !slices.Equal(got, []string{"2", "3"}) {
		t.Errorf("rolling-1: /brokers/ids %v, want [2 3]", got)
	}
	dw := read("dual-write")
	if got := ids(dw); len(got) != 0 {
		t.Errorf("dual-write: /brokers/ids %v, want none", got)
	}
	if _, ok := dw.ZNodes["/brokers/topics/dual-write-era"]; !ok {
		t.Errorf("dual-write: no /brokers/topics/dual-write-era")
	}

	st := read("stuck-sync")
	if st.ZNodes["/migration"].Mzxid != dw.ZNodes["/migration"].Mzxid {
		t.Errorf("stuck-sync: /migration written while the sync was black-holed")
	}
	re := read("resumed")
	stuck := slices.ContainsFunc(re.Steps, func(s string) bool { return strings.Contains(s, "stayed stuck") })
	if !stuck && re.ZNodes["/migration"].Version <= st.ZNodes["/migration"].Version {
		t.Errorf("resumed: /migration not written after the sync resumed")
	}
	rc := read("reconciled")
	c5, z5 := ctrl(rc)
	if z5.Czxid == z3.Czxid || *c5.KRaftControllerEpoch != *c3.KRaftControllerEpoch+1 || z5.Ephemeral() {
		t.Errorf("reconciled: /controller %s (czxid %d, was %d): want it made again with the next KRaft epoch", z5.Data, z5.Czxid, z3.Czxid)
	}
	if _, ok := rc.ZNodes["/brokers/topics/while-stuck"]; !ok {
		t.Errorf("reconciled: the full sync did not write while-stuck")
	}
	// After finalizing, the controller's new KRaft epochs never reach
	// ZooKeeper: /controller and /migration keep an older one.
	fin := read("finalized")
	var leader, quorumEpoch int
	if _, err := fmt.Sscanf(fin.Quorum, "leader %d, epoch %d", &leader, &quorumEpoch); err != nil {
		t.Fatalf("finalized: quorum %q: %v", fin.Quorum, err)
	}
	c7, _ := ctrl(fin)
	m7, _, _ := mig(fin)
	if *c7.KRaftControllerEpoch >= quorumEpoch || m7.Epoch >= quorumEpoch {
		t.Errorf("finalized: /controller epoch %d, /migration epoch %d, KRaft epoch %d: want ZooKeeper left behind", *c7.KRaftControllerEpoch, m7.Epoch, quorumEpoch)
	}
	if _, ok := fin.ZNodes["/brokers/topics/kraft-era"]; ok {
		t.Errorf("finalized: a topic created after finalizing is in ZooKeeper")
	}

	ab := read("abandoned")
	c6, z6 := ctrl(ab)
	if !z6.Ephemeral() || z6.Owner != "broker "+itoa(c6.BrokerID) || *c6.KRaftControllerEpoch != -1 {
		t.Errorf("abandoned: /controller %s owned by %q: want a broker's ephemeral znode again", z6.Data, z6.Owner)
	}
	if m, _, ok := mig(ab); !ok || m.ControllerID != kafkatest.FirstControllerID || m.Offset < 0 {
		t.Errorf("abandoned: /migration %+v (present %v): want the migration's state left behind", m, ok)
	}
}
