package cluster

import (
	"encoding/base64"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ktopo/ktopo/internal/testkit/kafkatest"
)

// transcriptDir holds what ZooKeeper showed at each phase of a real Kafka
// 3.9.2 migration (kafkatest's TestMigrationTranscripts records them).
const transcriptDir = "../internal/testkit/kafkatest/testdata/migration-3.9.2"

// transcriptModel loads a transcript into a model, as the mirror would
// report its znodes, and returns its newest write time.
func transcriptModel(t *testing.T, tr kafkatest.Transcript) (*Model, time.Time) {
	t.Helper()
	var evs []NodeEvent
	var newest time.Time
	parse := func(p, s string) int64 {
		ts, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			t.Fatalf("%s: time %q: %v", p, s, err)
		}
		if ts.After(newest) {
			newest = ts
		}
		return ts.UnixMilli()
	}
	for p, z := range tr.ZNodes {
		data := []byte(z.Data)
		if b, ok := strings.CutPrefix(z.Data, "base64:"); ok {
			var err error
			if data, err = base64.StdEncoding.DecodeString(b); err != nil {
				t.Fatal(err)
			}
		}
		owner, err := strconv.ParseInt(strings.TrimPrefix(z.EphemeralOwner, "0x"), 16, 64)
		if err != nil {
			t.Fatalf("%s: owner %q", p, z.EphemeralOwner)
		}
		evs = append(evs, NodeEvent{Type: NodeCreated, Path: p, Data: data, Stat: Stat{Czxid: z.Czxid, Mzxid: z.Mzxid,
			Ctime: parse(p, z.Ctime), Mtime: parse(p, z.Mtime), Version: z.Version, EphemeralOwner: owner}})
	}
	slices.SortFunc(evs, func(a, b NodeEvent) int { return int(a.Stat.Mzxid - b.Stat.Mzxid) })
	m := NewModel(ModelOptions{})
	m.Apply(evs, true)
	return m, newest
}

// transcriptQuorum parses "leader 3000, epoch 1, high watermark 184, …".
func transcriptQuorum(t *testing.T, s string) *KRaftQuorum {
	t.Helper()
	if s == "" {
		return nil
	}
	var q KRaftQuorum
	var end int64
	if _, err := fmt.Sscanf(s, "leader %d, epoch %d, high watermark %d, leader log end offset %d", &q.LeaderID, &q.LeaderEpoch, &q.HighWatermark, &end); err != nil {
		t.Fatalf("quorum %q: %v", s, err)
	}
	q.Voters = []int{q.LeaderID}
	return &q
}

// TestMigrationRadarOnRealKafka reads what real Kafka 3.9.2 left in
// ZooKeeper at each phase of a migration and checks the phase the radar
// names, what a write through ZooKeeper meets, the brokers by mode and
// the hazards. "later" is how long after the transcript's newest write
// the radar looks (the sync's silence).
func TestMigrationRadarOnRealKafka(t *testing.T) {
	for _, tc := range []struct {
		phase     string
		later     time.Duration
		quorum    bool // ask the transcript's quorum too
		want      MigrationPhase
		verdict   WriteLevel
		zk, kraft []int
		hazards   []string
	}{
		{phase: "zk", want: PhaseNone, verdict: WriteOK, zk: []int{1, 2, 3}},
		{phase: "controllers", want: PhaseWaiting, verdict: WriteWarn, zk: []int{1, 2, 3}},
		{phase: "hybrid", want: PhaseDualWrite, verdict: WriteRefused, zk: []int{1, 2, 3}},
		{phase: "hybrid", later: 6 * time.Second, want: PhaseDualWrite, verdict: WriteRefused, zk: []int{1, 2, 3}, hazards: []string{HazardSyncStopped}},
		{phase: "rolling-1", want: PhaseDualWrite, verdict: WriteRefused, zk: []int{2, 3}, kraft: []int{1}},
		{phase: "dual-write", want: PhaseKRaftBrokers, verdict: WriteRefused, kraft: []int{1, 2, 3}},
		// The controller's ZooKeeper connection black-holed: the same
		// leader, silent, is a sync that stopped; ZooKeeper alone cannot
		// tell it from a finalized migration.
		{phase: "stuck-sync", later: 6 * time.Second, want: PhaseFinalized, verdict: WriteRefused, kraft: []int{1, 2, 3}},
		{phase: "stuck-sync", later: 6 * time.Second, quorum: true, want: PhaseKRaftBrokers, verdict: WriteRefused, kraft: []int{1, 2, 3}, hazards: []string{HazardSyncStopped}},
		{phase: "resumed", quorum: true, want: PhaseKRaftBrokers, verdict: WriteRefused, kraft: []int{1, 2, 3}},
		{phase: "reconciled", quorum: true, want: PhaseKRaftBrokers, verdict: WriteRefused, kraft: []int{1, 2, 3}},
		// Finalized: a leader of a later epoch than /migration's never
		// wrote ZooKeeper.
		{phase: "finalized", later: 6 * time.Second, quorum: true, want: PhaseFinalized, verdict: WriteRefused, kraft: []int{1, 2, 3}},
		{phase: "abandoned", want: PhaseReverted, verdict: WriteWarn, zk: []int{1, 2, 3}, hazards: []string{HazardStaleMigration}},
	} {
		t.Run(fmt.Sprintf("%s+%s", tc.phase, tc.later), func(t *testing.T) {
			tr, err := kafkatest.ReadTranscript(transcriptDir, tc.phase)
			if err != nil {
				t.Fatal(err)
			}
			m, newest := transcriptModel(t, tr)
			var q *KRaftQuorum
			if tc.quorum {
				q = transcriptQuorum(t, tr.Quorum)
			}
			st := AssessMigration(m.Snapshot(), newest.Add(300*time.Millisecond+tc.later), nil, q)
			if st.Phase != tc.want || st.Verdict.Level != tc.verdict {
				t.Errorf("phase %s, verdict %s; want %s, %s", st.Phase, st.Verdict.Level, tc.want, tc.verdict)
			}
			if !slices.Equal(st.ZKBrokers, tc.zk) || !slices.Equal(st.KRaftBrokers, tc.kraft) {
				t.Errorf("brokers: %s; want ZooKeeper %v, KRaft %v", st.Brokers(), tc.zk, tc.kraft)
			}
			if got := codes(st.Hazards); !slices.Equal(got, tc.hazards) {
				t.Errorf("hazards %v, want %v", got, tc.hazards)
			}
		})
	}
}
