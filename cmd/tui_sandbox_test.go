package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestTUISandbox runs the built ktopo without a cluster: the TUI opens on
// its own sandbox (embedded ZooKeeper, 6 brokers in 3 racks, demo topics),
// and killing and restarting a broker from the overview works.
func TestTUISandbox(t *testing.T) {
	needTmux(t)
	bin := buildKtopo(t)
	home := t.TempDir()
	logf := filepath.Join(home, "ktopo.log")
	tm := startTmux(t, 140, 40, []string{"HOME=" + home, "XDG_CONFIG_HOME=" + home, "KTOPO_ZOOKEEPER=", "KTOPO_LOG=" + logf, "TERM=xterm-256color"}, bin)
	tm.waitFor("overview", 20*time.Second, "SANDBOX", "rack-a", "rack-b", "rack-c", "broker 6")
	tm.keys("x")
	tm.waitFor("kill", 10*time.Second, "Killed broker", "OFFLINE")
	tm.keys("x")
	tm.waitFor("restart", 10*time.Second, "Restarted broker")
	tm.keys("2")
	tm.waitFor("topics", 10*time.Second, "orders", "payments", "clicks", "audit-log")
	tm.keys("q")
	deadline := time.Now().Add(10 * time.Second)
	for !tm.paneDead() && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if !tm.paneDead() {
		t.Fatalf("ktopo did not quit on q:\n%s", tm.screen())
	}
	data, _ := os.ReadFile(logf)
	// The first broker card is broker 1, the controller: killing it moves
	// the controller.
	for _, want := range []string{"TUI on", "msg=killed broker=1", "Epoch incremented to 2"} {
		if !strings.Contains(string(data), want) {
			t.Errorf("the log file lacks %q:\n%s", want, data)
		}
	}
}

// TestSandboxFlagsNeedTheSandbox: --listen and --seed mean nothing on a
// cluster, and saying so beats ignoring them.
func TestSandboxFlagsNeedTheSandbox(t *testing.T) {
	t.Setenv("KTOPO_ZOOKEEPER", "")
	for _, args := range [][]string{
		{"--zookeeper", "127.0.0.1:1", "--seed", "1"},
		{"--zookeeper", "127.0.0.1:1", "--listen", "127.0.0.1:0"},
	} {
		code, _, errOut := runCLI(t, args...)
		if code != 1 || !strings.Contains(errOut, "is for the sandbox") {
			t.Errorf("ktopo %s: exit %d, %q", strings.Join(args, " "), code, errOut)
		}
	}
}

// TestBootstrapControllerNeedsCluster: the TUI's --bootstrap-controller
// asks the KRaft quorum of a ZooKeeper cluster that migrates, or a KRaft
// cluster's voters their feature ranges; on the sandbox it would mean
// nothing, and says so.
func TestBootstrapControllerNeedsCluster(t *testing.T) {
	t.Setenv("KTOPO_ZOOKEEPER", "")
	t.Setenv("KTOPO_BOOTSTRAP_SERVER", "")
	for _, args := range [][]string{
		{"--bootstrap-controller", "127.0.0.1:1"},
		{"--sandbox", "kraft", "--bootstrap-controller", "127.0.0.1:1"},
	} {
		code, _, errOut := runCLI(t, args...)
		if code != 1 || !strings.Contains(errOut, "--bootstrap-controller is for a cluster") {
			t.Errorf("ktopo %s: exit %d, %q", strings.Join(args, " "), code, errOut)
		}
	}
}

// TestTUISandboxMigration runs the built ktopo on its sandbox and steps a
// ZooKeeper to KRaft migration with :migrate: the Migration tab names
// each phase, the overview's badge names the KRaft controller, a frozen
// sync is flagged, and the creation wizard's write is refused.
func TestTUISandboxMigration(t *testing.T) {
	needTmux(t)
	bin := buildKtopo(t)
	home := t.TempDir()
	tm := startTmux(t, 140, 45, []string{"HOME=" + home, "XDG_CONFIG_HOME=" + home, "KTOPO_ZOOKEEPER=", "KTOPO_LOG=" + filepath.Join(home, "ktopo.log"), "TERM=xterm-256color"},
		bin, "--seed", "1")
	tm.waitFor("overview", 20*time.Second, "SANDBOX", "broker 6", "controller 1 (epoch 1)")
	tm.keys("5")
	tm.waitFor("the radar", 10*time.Second, "Migration  no migration  [none]", "HAZARDS  none")
	step := func(arg string, want ...string) {
		t.Helper()
		tm.keys(":")
		tm.keys("-l", strings.TrimSpace("migrate "+arg))
		tm.keys("Enter")
		tm.waitFor("migrate "+arg, 15*time.Second, want...)
	}
	step("", "[waiting-for-brokers]", "asked first")
	step("", "[dual-write]", "KRaft controller 3000 (epoch 1)", "ZooKeeper mode   1, 2, 3, 4, 5, 6", "refused")
	step("freeze", "[dual-write]", "sync-stopped: the KRaft controller's sync into ZooKeeper stopped")
	step("thaw", "moved ", "sync-gap: the sync stopped for")
	step("", "[brokers-on-kraft]", "KRaft mode       1, 2, 3, 4, 5, 6")
	tm.keys("1")
	tm.waitFor("the overview's badge", 10*time.Second, "KRaft controller 3000 (epoch 1)")
	tm.keys("5")
	step("", "[finalized-or-frozen]")
	tm.keys("q")
}
