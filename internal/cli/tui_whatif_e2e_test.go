package cli

import (
	"context"
	"fmt"
	"net"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/ktopo/ktopo/assign"
	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/clusterwatch"
	"github.com/ktopo/ktopo/zkwatch"
)

var countsLine = regexp.MustCompile(`(\d+) offline · (\d+) under min ISR`)

// TestTUIWhatIfSandbox runs the built ktopo on its own sandbox in a real
// terminal, adds two fragile topics through its ZooKeeper, opens the
// what-if of broker 2 (f), kills broker 2 with the sandbox's x key and
// reads the screen saying the prediction held; the cluster itself, read
// from ZooKeeper, has exactly the predicted partitions offline and under
// min ISR.
func TestTUIWhatIfSandbox(t *testing.T) {
	needTmux(t)
	bin := buildKtopo(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	home := t.TempDir()
	tm := startTmux(t, 140, 45, []string{"HOME=" + home, "XDG_CONFIG_HOME=" + home, "KTOPO_ZOOKEEPER=", "KTOPO_LOG=" + filepath.Join(home, "ktopo.log"),
		"TERM=xterm-256color"}, bin, "--seed", "1", "--listen", addr, "--pace", "50ms")
	tm.waitFor("overview", 20*time.Second, "SANDBOX", "rack-a", "broker 6")

	ctx := context.Background()
	conn, err := zkwatch.Connect(ctx, addr, zkwatch.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	load := func() *cluster.Snapshot {
		t.Helper()
		lctx, cancel := context.WithTimeout(ctx, 20*time.Second)
		defer cancel()
		s, err := clusterwatch.Load(lctx, conn, cluster.ModelOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	// Topics that broker 2's loss hurts: one partition only on it, and a
	// pair that needs both replicas in sync.
	for _, tp := range []struct {
		name   string
		manual assign.Assignment
		config map[string]string
	}{
		{"single", assign.Assignment{0: {2}, 1: {3}}, nil},
		{"strict", assign.Assignment{0: {2, 5}, 1: {5, 2}, 2: {1, 4}}, map[string]string{"min.insync.replicas": "2"}},
	} {
		plan, err := cluster.PlanTopic(load(), cluster.TopicRequest{Name: tp.name, Assignment: tp.manual, Config: tp.config, StartIndex: -1, ReplicaShift: -1})
		if err != nil {
			t.Fatal(err)
		}
		if err := cluster.CreateTopic(conn, plan); err != nil {
			t.Fatal(err)
		}
	}
	var before *cluster.Snapshot
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		before = load()
		h := before.Health()
		if before.Topic("single") != nil && before.Topic("strict") != nil && h.Offline == 0 && h.UnderReplicated == 0 && h.Uninitialized == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the new topics never came online: %+v", h)
		}
	}
	fi := cluster.PredictFailure(before, 2)
	wantOff, wantMin := fi.TroubledAfter(before)
	if len(wantOff) == 0 || len(wantMin) == 0 {
		t.Fatalf("the scenario predicts nothing to check: offline %v, under min ISR %v", wantOff, wantMin)
	}

	// Broker 2 is the first card of rack-b.
	// u keeps only the partitions going offline or under min ISR.
	tm.keys("l", "f")
	tm.waitFor("what-if", 10*time.Second, "What if broker 2 fails")
	tm.keys("u")
	s := tm.waitFor("the worst", 10*time.Second, "single-0", "strict-0", "strict-1")
	m := countsLine.FindStringSubmatch(s)
	if m == nil || m[1] != strconv.Itoa(fi.Counts.Offline) || m[2] != strconv.Itoa(fi.Counts.UnderMinISR) {
		t.Fatalf("the screen predicts %v, the what-if %d offline and %d under min ISR:\n%s", m, fi.Counts.Offline, fi.Counts.UnderMinISR, s)
	}
	tm.keys("x")
	s = tm.waitFor("the prediction held", 30*time.Second, "Broker 2 is down", "✓ As predicted: all "+strconv.Itoa(fi.Counts.Partitions)+" partitions")
	after := load()
	gotOff, gotMin := after.Troubled()
	if !slices.Equal(gotOff, wantOff) || !slices.Equal(gotMin, wantMin) {
		t.Fatalf("offline %v, predicted %v; under min ISR %v, predicted %v\nscreen:\n%s", gotOff, wantOff, gotMin, wantMin, s)
	}
	if testing.Verbose() {
		fmt.Println(s)
	}
	tm.keys("q")
}
