package cmd

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
	"github.com/ktopo/ktopo/clusterops"
	"github.com/ktopo/ktopo/clusterwatch/zksource"
	"github.com/ktopo/ktopo/zkops"
	"github.com/ktopo/ktopo/zkwatch"
)

// whatIfCheck verifies a what-if shown in a real terminal against the
// cluster: the prediction is made on the cluster read from ZooKeeper
// before the failure, the screen must show its counts, and once the
// brokers are down, say that it held, while ZooKeeper holds exactly the
// predicted partitions offline and under min ISR.
type whatIfCheck struct {
	t       *testing.T
	conn    *zkwatch.Conn
	subject string // "broker 2"
	before  *cluster.Snapshot
	fi      *cluster.FailureImpact
}

// newWhatIfCheck connects to connect; predict makes the prediction.
func newWhatIfCheck(t *testing.T, connect string) *whatIfCheck {
	t.Helper()
	conn, err := zkwatch.Connect(context.Background(), connect, zkwatch.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(conn.Close)
	return &whatIfCheck{t: t, conn: conn}
}

// load reads the cluster as ktopo sees it.
func (w *whatIfCheck) load() *cluster.Snapshot {
	w.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	s, err := zksource.Load(ctx, w.conn, cluster.ModelOptions{})
	if err != nil {
		w.t.Fatal(err)
	}
	return s
}

// predict waits until every partition is initialised and in sync (so that
// nothing but the failure changes the ISRs: brokers other tests restarted
// catch up), and until ready holds (nil: nothing more), then predicts the
// loss of broker.
func (w *whatIfCheck) predict(broker int, ready func(*cluster.Snapshot) bool) {
	w.t.Helper()
	for deadline := time.Now().Add(90 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		w.before = w.load()
		h := w.before.Health()
		catching := catchingUp(w.before)
		if len(catching) == 0 && h.Offline == 0 && h.Uninitialized == 0 && (ready == nil || ready(w.before)) {
			break
		}
		if time.Now().After(deadline) {
			w.t.Fatalf("the cluster never got in sync: %+v; catching up: %v", h, catching)
		}
	}
	w.subject = "broker " + strconv.Itoa(broker)
	w.fi = cluster.PredictFailure(w.before, broker)
	if w.fi.Counts.NewlyOffline == 0 || w.fi.Counts.NewlyUnderMinISR == 0 {
		w.t.Fatalf("the scenario predicts nothing to check: %+v", w.fi.Counts)
	}
}

// shown waits for the what-if's screen with the predicted counts.
func (w *whatIfCheck) shown(tm *tmuxTerm) {
	w.t.Helper()
	tm.waitFor("the what-if", 10*time.Second, "What if "+w.subject+" fails",
		fmt.Sprintf("%d newly offline · %d newly under min ISR", w.fi.Counts.NewlyOffline, w.fi.Counts.NewlyUnderMinISR))
}

// held waits for the screen to say the prediction held, then compares the
// cluster with it.
func (w *whatIfCheck) held(tm *tmuxTerm) string {
	w.t.Helper()
	shot := tm.waitFor("the prediction held", 90*time.Second, "B"+w.subject[1:]+" is down",
		"✓ As predicted: all "+strconv.Itoa(w.fi.Counts.Partitions)+" partitions")
	wantOff, wantMin := w.fi.TroubledAfter(w.before)
	gotOff, gotMin := w.load().Troubled()
	if !slices.Equal(gotOff, wantOff) || !slices.Equal(gotMin, wantMin) {
		w.t.Fatalf("offline %v, predicted %v; under min ISR %v, predicted %v\nscreen:\n%s", gotOff, wantOff, gotMin, wantMin, shot)
	}
	return shot
}

var countsLine = regexp.MustCompile(`(\d+) newly offline · (\d+) newly under min ISR`)

// TestTUIWhatIfSandbox runs the built ktopo on its own sandbox in a real
// terminal, adds two fragile topics through its ZooKeeper, opens the
// what-if of broker 2 (f; u keeps the partitions going offline or under
// min ISR), kills broker 2 with the sandbox's x key and reads the screen
// saying the prediction held; the cluster itself, read from ZooKeeper, has
// exactly the predicted partitions offline and under min ISR.
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
	w := newWhatIfCheck(t, addr)
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
		plan, err := clusterops.PlanTopic(w.load(), clusterops.TopicRequest{Name: tp.name, Assignment: tp.manual, Config: tp.config, StartIndex: -1, ReplicaShift: -1})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := zkops.NewWriter(w.conn).CreateTopic(context.Background(), plan, clusterops.Apply); err != nil {
			t.Fatal(err)
		}
	}
	w.predict(2, func(s *cluster.Snapshot) bool { return s.Topic("single") != nil && s.Topic("strict") != nil })
	// Broker 2 is the first card of rack-b.
	tm.keys("l", "f")
	w.shown(tm)
	tm.keys("u")
	s := tm.waitFor("the worst", 10*time.Second, "single-0", "strict-0", "strict-1")
	if m := countsLine.FindStringSubmatch(s); m == nil || m[1] != strconv.Itoa(w.fi.Counts.NewlyOffline) || m[2] != strconv.Itoa(w.fi.Counts.NewlyUnderMinISR) {
		t.Fatalf("the screen predicts %v, the what-if %+v:\n%s", m, w.fi.Counts, s)
	}
	tm.keys("x")
	w.held(tm)
	tm.keys("q")
}

// catchingUp lists the partitions with a replica out of the ISR on a
// registered broker: one that may rejoin while the test runs. A replica on
// a broker that is not registered (another test's topic on a stopped
// broker, a broker id that never ran) stays out, so it changes nothing.
func catchingUp(s *cluster.Snapshot) []string {
	var out []string
	for _, t := range s.Topics() {
		for _, p := range t.Partitions {
			for _, r := range p.Replicas {
				if s.IsLive(r) && !slices.Contains(p.ISR, r) {
					out = append(out, fmt.Sprintf("%s-%d replicas %v isr %v", t.Name, p.ID, p.Replicas, p.ISR))
					break
				}
			}
		}
	}
	return out
}
