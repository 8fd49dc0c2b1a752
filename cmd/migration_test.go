package cmd

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ktopo/ktopo/cluster"
)

// migrationOut is ktopo migration's JSON, as a script reads it.
type migrationOut struct {
	Phase           string `json:"phase"`
	KRaftController *int   `json:"kraftController"`
	ZKController    *int   `json:"zkController"`
	Migration       *struct {
		KRaftMetadataOffset int64 `json:"kraftMetadataOffset"`
	} `json:"migration"`
	SyncStopped bool `json:"syncStopped"`
	Brokers     struct {
		ZooKeeper    []int `json:"zookeeper"`
		KRaft        []int `json:"kraft"`
		Unregistered []int `json:"unregistered"`
	} `json:"brokers"`
	TopicsWithoutID []string `json:"topicsWithoutId"`
	Write           struct {
		Verdict string `json:"verdict"`
		Reason  string `json:"reason"`
	} `json:"write"`
	Hazards []struct {
		Code string `json:"code"`
	} `json:"hazards"`
}

func migrationJSONOf(t *testing.T, args ...string) migrationOut {
	t.Helper()
	code, out, errOut := runCLI(t, append([]string{"migration", "--output", "json"}, args...)...)
	var m migrationOut
	if err := json.Unmarshal([]byte(out), &m); code != 0 || err != nil {
		t.Fatalf("exit %d %v\n%s\n%s", code, err, out, errOut)
	}
	return m
}

func hazardCodes(m migrationOut) []string {
	var out []string
	for _, h := range m.Hazards {
		out = append(out, h.Code)
	}
	return out
}

// TestMigrationCommand: ktopo migration names the phase, the controllers,
// the brokers by mode and the hazards, as text and JSON, on the seeded
// tree before and during a migration.
func TestMigrationCommand(t *testing.T) {
	addr := seed(t)
	conn := connectTest(t, addr)

	m := migrationJSONOf(t, "--zookeeper", addr)
	// The seeded tree: broker 4 holds a replica of "gone" without being
	// registered; five topics have no topic_id.
	if m.Phase != "none" || m.ZKController == nil || *m.ZKController != 1 || m.Write.Verdict != "ok" ||
		strings.Join(hazardCodes(m), ",") != cluster.HazardUnregistered+","+cluster.HazardNoTopicID ||
		len(m.Brokers.Unregistered) != 1 || m.Brokers.Unregistered[0] != 4 || len(m.TopicsWithoutID) != 6 {
		t.Errorf("before: %+v", m)
	}

	prepareMigration(t, conn)
	code, out, errOut := runCLI(t, "migration", "--zookeeper", addr)
	for _, want := range []string{
		"ZooKeeper to KRaft migration: KRaft controllers ready, waiting for brokers [waiting-for-brokers]\n",
		"  controller      ZooKeeper controller 1; /controller_epoch 3\n",
		"  /migration      kraft_controller_id -1, kraft_controller_epoch -1, kraft_metadata_offset -1 (epoch -1); offset moved ",
		"  brokers         ZooKeeper mode 1,2,3 · unregistered 4\n",
		"  ZK writes       asked first: a ZooKeeper to KRaft migration is being prepared",
		"Hazards:\n  ! unregistered-replicas: broker 4 holds replicas but is not registered: the KRaft controller starts the migration only once every broker named in an assignment has registered with it",
	} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("waiting: exit %d, lacks %q:\n%s%s", code, want, out, errOut)
		}
	}

	kraftTakeOver(t, conn, 3000, 5)
	m = migrationJSONOf(t, "--zookeeper", addr)
	if m.Phase != "dual-write" || m.KRaftController == nil || *m.KRaftController != 3000 || m.ZKController != nil ||
		m.Write.Verdict != "refused" || m.Migration == nil || m.Migration.KRaftMetadataOffset != 77 {
		t.Errorf("taken over: %+v", m)
	}
	// The seeded tree's deletion marker and reassignment are left behind.
	if got := strings.Join(hazardCodes(m), ","); !strings.Contains(got, cluster.HazardPendingDeletions) {
		t.Errorf("taken over: hazards %s", got)
	}
	// A quorum that cannot be asked says so, and the rest is reported.
	code, out, _ = runCLI(t, "migration", "--zookeeper", addr, "--bootstrap-server", "127.0.0.1:1")
	if code != 0 || !strings.Contains(out, "  ZooKeeper lag   unknown: DescribeQuorum: 127.0.0.1:1: ") {
		t.Errorf("unreachable quorum: exit %d\n%s", code, out)
	}
	// --command-config secures the KRaft side (it was refused as "for a
	// KRaft cluster"): read, and used.
	props := filepath.Join(t.TempDir(), "client.properties")
	writeFile(t, props, "security.protocol=SASL_SSL\nsasl.mechanism=GSSAPI\n")
	code, out, errOut = runCLI(t, "migration", "--zookeeper", addr, "--bootstrap-controller", "127.0.0.1:1", "--command-config", props)
	if code == 0 || !strings.Contains(errOut, "SASL mechanism GSSAPI is not supported by ktopo") {
		t.Errorf("--command-config for the KRaft side: exit %d\n%s%s", code, out, errOut)
	}
	writeFile(t, props, "security.protocol=PLAINTEXT\n")
	code, out, errOut = runCLI(t, "migration", "--zookeeper", addr, "--bootstrap-controller", "127.0.0.1:1", "--command-config", props)
	if code != 0 || !strings.Contains(out, "  ZooKeeper lag   unknown: DescribeQuorum: 127.0.0.1:1: ") {
		t.Errorf("--command-config for the KRaft side: exit %d\n%s%s", code, out, errOut)
	}
}

// TestMigrationWatch: --watch prints the report, then a line when the
// phase changes, and flags a sync that stopped.
func TestMigrationWatch(t *testing.T) {
	addr := seed(t)
	conn := connectTest(t, addr)
	prepareMigration(t, conn)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pr, pw := io.Pipe()
	done := make(chan int, 1)
	go func() {
		var errOut strings.Builder
		done <- runContext(ctx, []string{"migration", "--watch", "--interval", "200ms", "--zookeeper", addr}, strings.NewReader(""), pw, &errOut)
		pw.Close()
	}()
	lines := bufio.NewScanner(pr)
	waitLine := func(want string) string {
		t.Helper()
		deadline := time.AfterFunc(30*time.Second, cancel)
		defer deadline.Stop()
		for lines.Scan() {
			if strings.Contains(lines.Text(), want) {
				return lines.Text()
			}
		}
		t.Fatalf("no line with %q", want)
		return ""
	}
	waitLine("[waiting-for-brokers]")
	waitLine("Hazards:")
	kraftTakeOver(t, conn, 3000, 5)
	l := waitLine(" · dual-write · KRaft controller 3000 (epoch 5)")
	if !strings.Contains(l, "offset 77") {
		t.Errorf("line %q", l)
	}
	// /migration is not written again: the sync stopped.
	l = waitLine("sync-stopped")
	if !strings.Contains(l, "hazards ") {
		t.Errorf("line %q", l)
	}
	waitLine("  ! sync-stopped: the KRaft controller's sync into ZooKeeper stopped: /migration's offset 77 has not moved for 5s")
	cancel()
	go io.Copy(io.Discard, pr)
	if code := <-done; code != 0 {
		t.Errorf("exit %d", code)
	}
}
