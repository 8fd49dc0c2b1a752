package cmd

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestKRaftSandboxCommand runs "ktopo sandbox --kraft" in-process: it
// prints the brokers' and controllers' listeners, on which "ktopo topics"
// and "ktopo brokers" read the simulated cluster over the Kafka protocol
// as any KRaft cluster; a broker killed on its standard input is fenced
// once its session times out (--session-timeout), as "status" and "ktopo
// brokers" then say; SIGINT stops it.
func TestKRaftSandboxCommand(t *testing.T) {
	t.Setenv(envZookeeper, "")
	t.Setenv(envBootstrap, "")
	t.Setenv("KTOPO_LOG", filepath.Join(t.TempDir(), "ktopo.log"))
	inR, inW := io.Pipe()
	defer inW.Close()
	out, done, stderr := runSandbox(t, inR, "sandbox", "--kraft", "--brokers", "3", "--racks", "3", "--controllers", "3",
		"--demo-topics", "--seed", "1", "--session-timeout", "500ms")
	text := readUntil(t, out, `type "help" for commands`)
	bootstrap := lineValue(t, text, "--bootstrap-server ")
	controllers := lineValue(t, text, "--bootstrap-controller ")
	if n := len(strings.Split(bootstrap, ",")); n != 3 || !strings.HasPrefix(bootstrap, "127.0.0.1:") {
		t.Fatalf("--bootstrap-server %q: want 3 listeners on 127.0.0.1", bootstrap)
	}
	if n := len(strings.Split(controllers, ",")); n != 3 {
		t.Fatalf("--bootstrap-controller %q: want 3 listeners", controllers)
	}
	if !strings.Contains(text, "3 brokers (3 racks), 3 controllers") {
		t.Errorf("output:\n%s", text)
	}

	code, list, errOut := runCLI(t, "topics", "list", "--bootstrap-server", bootstrap)
	if code != 0 || list != "__consumer_offsets\naudit-log\nclicks\norders\npayments\n" {
		t.Errorf("ktopo topics list: exit %d\n%s%s", code, list, errOut)
	}
	code, desc, errOut := runCLI(t, "topics", "describe", "--topic", "orders", "--bootstrap-server", bootstrap)
	if code != 0 || !strings.Contains(desc, "Topic: orders\tTopicId: ") || !strings.Contains(desc, "PartitionCount: 12\tReplicationFactor: 3") {
		t.Errorf("ktopo topics describe: exit %d\n%s%s", code, desc, errOut)
	}
	code, brokers, errOut := runCLI(t, "brokers", "--bootstrap-server", bootstrap)
	if code != 0 || strings.Count(brokers, "online") != 3 || !strings.Contains(brokers, "rack-c") {
		t.Errorf("ktopo brokers: exit %d\n%s%s", code, brokers, errOut)
	}

	io.WriteString(inW, "kill 2\n")
	readUntil(t, out, "broker 2 killed")
	deadline := time.Now().Add(30 * time.Second)
	for {
		io.WriteString(inW, "status\n")
		st := readUntil(t, out, "topic payments:")
		if strings.Contains(st, "broker 2 (rack-b): down, fenced") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("broker 2 never fenced:\n%s", st)
		}
		time.Sleep(50 * time.Millisecond)
	}
	code, brokers, errOut = runCLI(t, "brokers", "--bootstrap-server", bootstrap)
	if code != 0 || strings.Count(brokers, "online") != 2 || !strings.Contains(brokers, "fenced") {
		t.Errorf("ktopo brokers with broker 2 fenced: exit %d\n%s%s", code, brokers, errOut)
	}
	go io.Copy(io.Discard, out)
	interrupt(t, done, stderr)
}

// lineValue is the rest of text's line that starts with prefix.
func lineValue(t *testing.T, text, prefix string) string {
	t.Helper()
	for _, l := range strings.Split(text, "\n") {
		if v, ok := strings.CutPrefix(l, prefix); ok {
			return strings.TrimSpace(v)
		}
	}
	t.Fatalf("no line starts with %q:\n%s", prefix, text)
	return ""
}

// TestKRaftSandboxFlagConflicts: the KRaft sandbox refuses the ZooKeeper
// sandbox's flags and a cluster of its own, and the TUI's --sandbox is
// refused beside a cluster and for an unknown kind.
func TestKRaftSandboxFlagConflicts(t *testing.T) {
	t.Setenv(envZookeeper, "")
	t.Setenv(envBootstrap, "")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"sandbox", "--kraft", "--zookeeper", "127.0.0.1:1"}, "cannot be combined with --zookeeper"},
		{[]string{"sandbox", "--kraft", "--bootstrap-server", "127.0.0.1:1"}, "cannot be combined with --bootstrap-server"},
		{[]string{"sandbox", "--kraft", "--context", "prod"}, "not on a --context"},
		{[]string{"sandbox", "--kraft", "--listen", "127.0.0.1"}, `--listen "127.0.0.1": address 127.0.0.1: missing port in address`},
		{[]string{"sandbox", "--kraft", "--empty"}, "--empty is for the ZooKeeper-mode sandbox"},
		{[]string{"sandbox", "--kraft", "--data-dir", "/tmp/x"}, "--data-dir is for the ZooKeeper-mode sandbox"},
		{[]string{"sandbox", "--kraft", "--pace", "-1s"}, "--pace must not be negative"},
		{[]string{"sandbox", "--kraft", "--read-only"}, "read-only mode: refusing to run the KRaft sandbox"},
		{[]string{"sandbox", "--kraft", "--controllers", "0"}, "--controllers must be at least 1"},
		{[]string{"sandbox", "--kraft", "--brokers", "0"}, "--brokers must be at least 1"},
		{[]string{"sandbox", "--controllers", "3"}, "--controllers is for the KRaft sandbox (--kraft)"},
		{[]string{"sandbox", "--kraft", "--observer-controllers", "1"}, "--observer-controllers needs --dynamic-quorum"},
		{[]string{"sandbox", "--kraft", "--dynamic-quorum", "--observer-controllers", "-1"}, "--observer-controllers must not be negative"},
		{[]string{"sandbox", "--dynamic-quorum"}, "--dynamic-quorum and --observer-controllers are for the KRaft sandbox (--kraft)"},
		{[]string{"--sandbox", "kraft", "--zookeeper", "127.0.0.1:1"}, "--sandbox is for the sandbox"},
		{[]string{"--sandbox", "kraft", "--bootstrap-server", "127.0.0.1:1"}, "--sandbox is for the sandbox"},
		{[]string{"--sandbox", "zk", "--zookeeper", "127.0.0.1:1"}, "--sandbox is for the sandbox"},
		{[]string{"--sandbox", "raft"}, `--sandbox "raft": the sandbox is zk (ZooKeeper mode) or kraft`},
		{[]string{"--sandbox", "kraft", "--bootstrap-controller", "127.0.0.1:1"}, "--bootstrap-controller is for a cluster: "},
	} {
		var stdout, stderr bytes.Buffer
		code := run(tc.args, strings.NewReader(""), &stdout, &stderr)
		if code == 0 || !strings.Contains(stderr.String(), tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want a failure saying %q", tc.args, code, stderr.String(), tc.want)
		}
	}
}

// TestTUIKRaftSandbox runs the built ktopo with --sandbox kraft in a real
// terminal: the TUI opens on the simulated KRaft cluster (6 brokers in 3
// racks, the KRaft tabs: no tree, no radar); a broker killed with x is
// fenced once its session times out (--session-timeout 1s, so that the
// test does not wait Kafka's 9 s), x restarts it, m moves the quorum's
// leader, and the topics are the demo topics.
func TestTUIKRaftSandbox(t *testing.T) {
	needTmux(t)
	bin := buildKtopo(t)
	home := t.TempDir()
	logf := filepath.Join(home, "ktopo.log")
	tm := startTmux(t, 120, 40, []string{"HOME=" + home, "XDG_CONFIG_HOME=" + home, "KTOPO_ZOOKEEPER=", "KTOPO_BOOTSTRAP_SERVER=",
		"KTOPO_LOG=" + logf, "TERM=xterm-256color"}, bin, "--sandbox", "kraft", "--seed", "1", "--session-timeout", "1s")
	s := tm.waitFor("overview", 30*time.Second, "SANDBOX", "1 Overview  2 Topics  4 Events", "rack-a", "rack-c", "broker 6", "brokers 6/6 live")
	if strings.Contains(s, "Tree") || strings.Contains(s, "Migration") {
		t.Errorf("the KRaft sandbox shows ZooKeeper's tabs:\n%s", s)
	}
	tm.keys("x")
	tm.waitFor("kill", 20*time.Second, "Killed broker 1")
	tm.waitFor("fenced", 20*time.Second, "FENCED", "brokers 5/6 live")
	tm.keys("x")
	tm.waitFor("restart", 20*time.Second, "Restarted broker 1", "brokers 6/6 live")
	tm.keys("m")
	tm.waitFor("move the controller", 20*time.Second, "The metadata quorum's leader moved to controller 3001.")
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
	for _, want := range []string{"KRaft sandbox: --bootstrap-server 127.0.0.1:", "TUI on KRaft cluster", "(sandbox, every",
		`msg="broker 1 killed"`, "Fencing broker 1 because its session has timed out.", "controller 3001 is the metadata quorum's leader in epoch 2"} {
		if !strings.Contains(string(data), want) {
			t.Errorf("the log file lacks %q:\n%s", want, data)
		}
	}
}
