package cmd

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/ktopo/ktopo/assign"
	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/internal/testkit/fixture"
	"github.com/ktopo/ktopo/internal/testkit/zktest"
	"github.com/ktopo/ktopo/sandbox"
)

// tmuxTerm runs a command in a detached tmux session of a private server
// and reads its screen with capture-pane: a real terminal, as a user has.
type tmuxTerm struct {
	t      *testing.T
	socket string
}

// needTmux skips without tmux, except under CI=true where it fails: CI
// installs it (Debian package "tmux").
func needTmux(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("CI=true and tmux is not installed (apt-get install tmux)")
		}
		t.Skip("skipping: tmux is not installed (apt-get install tmux)")
	}
}

var builtKtopo string

// buildKtopo builds the binary once per test run.
func buildKtopo(t *testing.T) string {
	t.Helper()
	if builtKtopo != "" {
		return builtKtopo
	}
	dir, err := os.MkdirTemp("", "ktopo-e2e-bin")
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "ktopo")
	out, err := exec.Command("go", "build", "-o", bin, "github.com/ktopo/ktopo").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	builtKtopo = bin
	return bin
}

func startTmux(t *testing.T, w, h int, env []string, args ...string) *tmuxTerm {
	t.Helper()
	tm := &tmuxTerm{t: t, socket: "ktopo-e2e-" + strconv.Itoa(os.Getpid()) + "-" + strconv.FormatInt(time.Now().UnixNano(), 36)}
	cmd := append([]string{"env"}, env...)
	cmd = append(cmd, args...)
	full := append([]string{"-L", tm.socket, "-f", "/dev/null", "new-session", "-d", "-s", "e2e",
		"-x", strconv.Itoa(w), "-y", strconv.Itoa(h)}, cmd...)
	if out, err := exec.Command("tmux", full...).CombinedOutput(); err != nil {
		t.Fatalf("tmux new-session: %v\n%s", err, out)
	}
	// Keep the pane after the program exits, so its last screen (or its
	// error) can still be read.
	exec.Command("tmux", "-L", tm.socket, "set-option", "-t", "e2e", "remain-on-exit", "on").Run()
	t.Cleanup(func() { exec.Command("tmux", "-L", tm.socket, "kill-server").Run() })
	return tm
}

func (tm *tmuxTerm) screen() string {
	out, err := exec.Command("tmux", "-L", tm.socket, "capture-pane", "-p", "-t", "e2e").Output()
	if err != nil {
		return "(capture-pane: " + err.Error() + ")"
	}
	return string(out)
}

// scrollback is the pane's history and screen.
func (tm *tmuxTerm) scrollback() string {
	out, err := exec.Command("tmux", "-L", tm.socket, "capture-pane", "-p", "-S", "-", "-t", "e2e").Output()
	if err != nil {
		return "(capture-pane: " + err.Error() + ")"
	}
	return string(out)
}

// keys sends tmux key names ("Enter", "Escape", "q", …).
func (tm *tmuxTerm) keys(keys ...string) {
	tm.t.Helper()
	args := append([]string{"-L", tm.socket, "send-keys", "-t", "e2e"}, keys...)
	if out, err := exec.Command("tmux", args...).CombinedOutput(); err != nil {
		tm.t.Fatalf("tmux send-keys: %v\n%s", err, out)
	}
}

// waitFor polls the screen until every want appears.
func (tm *tmuxTerm) waitFor(what string, timeout time.Duration, want ...string) string {
	tm.t.Helper()
	deadline := time.Now().Add(timeout)
	var s string
	for time.Now().Before(deadline) {
		s = tm.screen()
		ok := true
		for _, w := range want {
			if !strings.Contains(s, w) {
				ok = false
				break
			}
		}
		if ok {
			return s
		}
		time.Sleep(50 * time.Millisecond)
	}
	tm.t.Fatalf("%s: the screen never showed %q; it shows:\n%s", what, want, s)
	return ""
}

func (tm *tmuxTerm) paneDead() bool {
	out, _ := exec.Command("tmux", "-L", tm.socket, "display-message", "-p", "-t", "e2e", "#{pane_dead}").Output()
	return strings.TrimSpace(string(out)) == "1"
}

// writeCluster writes a fixture's znodes under the chroot of connect.
func writeCluster(t *testing.T, conn *zk.Conn, root string, s fixture.Spec) {
	t.Helper()
	for _, b := range s.Batches() {
		for _, e := range b.Events {
			p := root + e.Path
			if e.Type == 3 { // deleted
				if err := conn.Delete(p, -1); err != nil {
					t.Fatalf("delete %s: %v", p, err)
				}
				continue
			}
			if err := zktest.CreateAll(conn, p[:strings.LastIndexByte(p, '/')]); err != nil {
				t.Fatalf("create parents of %s: %v", p, err)
			}
			if _, err := conn.Create(p, e.Data, 0, zk.WorldACL(zk.PermAll)); err != nil && !errors.Is(err, zk.ErrNodeExists) {
				t.Fatalf("create %s: %v", p, err)
			}
		}
	}
}

// TestTUIEndToEnd runs the built ktopo in tmux on a real ZooKeeper holding
// a Kafka-shaped cluster, reads the screen and changes the cluster under it.
func TestTUIEndToEnd(t *testing.T) {
	needTmux(t)
	connect := zktest.Chroot(t)
	addr, root, _ := strings.Cut(connect, "/")
	root = "/" + root
	conn := zktest.Connect(t, addr)
	spec := fixture.Small()
	writeCluster(t, conn, root, spec)
	bin := buildKtopo(t)
	logf := filepath.Join(t.TempDir(), "ktopo.log")
	// Through a shell that writes a line after ktopo, as a prompt would.
	tm := startTmux(t, 120, 36, []string{"KTOPO_LOG=" + logf, "TERM=xterm-256color"}, "sh", "-c", `"$0" --zookeeper "$1"; echo after-ktopo`, bin, connect)

	// Overview: racks as columns, broker cards, the offline broker.
	tm.waitFor("overview", 15*time.Second, "rack-a", "rack-b", "rack-c", "broker 1", "★ ctrl e7", "OFFLINE", "(unknown rack)", "LIVE")

	// Topics, filtered, then the topic screen.
	tm.keys("2")
	tm.waitFor("topics", 5*time.Second, "Topics", "orders", "payments", "clicks")
	tm.keys("/", "o", "r", "d", "Enter")
	s := tm.waitFor("filter", 5*time.Second, "1 of 6", "/ord")
	if strings.Contains(s, "payments") {
		t.Fatalf("the filter left payments on screen:\n%s", s)
	}
	tm.keys("Enter")
	tm.waitFor("topic", 5*time.Second, "Topic orders", "REPLICAS", "min.insync.replicas=2", "under-replicated")

	// A leader moves in ZooKeeper: the cell flashes old → new.
	st := spec.State(&spec.Topics[0], 0)
	old := st.Leader
	st.Leader, st.LeaderEpoch = 4, st.LeaderEpoch+1
	st.ISR = []int{4, 2}
	if _, err := conn.Set(root+cluster.PartitionStatePath("orders", 0), cluster.EncodePartitionState(st), -1); err != nil {
		t.Fatal(err)
	}
	tm.waitFor("leader change", 5*time.Second, strconv.Itoa(old)+"→4")

	// The events screen has it, in words.
	tm.keys("4")
	tm.waitFor("events", 5*time.Second, "leader moved", "orders-0", "ISR shrank")

	// The tree: expand /brokers and /brokers/ids, select broker 1's registration.
	tm.keys("3")
	tm.waitFor("tree", 5*time.Second, "ZooKeeper", "▾ /", "brokers")
	// Help, then quit.
	tm.keys("?")
	tm.waitFor("help", 5*time.Second, "Keys", "quit")
	tm.keys("Escape")
	time.Sleep(300 * time.Millisecond) // ESC then q at once would read as alt+q
	tm.keys("q")
	deadline := time.Now().Add(5 * time.Second)
	for !tm.paneDead() && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if !tm.paneDead() {
		t.Fatalf("ktopo did not quit on q:\n%s", tm.screen())
	}
	// The terminal as the shell gets it back: the pre-TUI line
	// ("Connecting to …") is erased, not left for the prompt to overwrite.
	if s := tm.scrollback(); !slices.Contains(strings.Split(s, "\n"), "after-ktopo") {
		t.Errorf("the line after ktopo is not clean:\n%s", s)
	}
	if data, _ := os.ReadFile(logf); !strings.Contains(string(data), "TUI on") {
		t.Errorf("the log file lacks the start line:\n%s", data)
	}
}

// TestScreenshots saves the screens at 80×24 and 200×60 for a look by eye
// (KTOPO_SCREENSHOTS=DIR go test -run TestScreenshots .).
func TestScreenshots(t *testing.T) {
	dir := os.Getenv("KTOPO_SCREENSHOTS")
	if dir == "" {
		t.Skip("set KTOPO_SCREENSHOTS=DIR to save screenshots")
	}
	needTmux(t)
	connect := zktest.Chroot(t)
	addr, root, _ := strings.Cut(connect, "/")
	conn := zktest.Connect(t, addr)
	writeCluster(t, conn, "/"+root, fixture.Small())
	bin := buildKtopo(t)
	for _, size := range [][2]int{{80, 24}, {200, 60}} {
		tm := startTmux(t, size[0], size[1], []string{"KTOPO_LOG=" + filepath.Join(t.TempDir(), "log"), "TERM=xterm-256color"}, bin, "--zookeeper", connect)
		tm.waitFor("start", 15*time.Second, "rack-a")
		shot := func(name string, keys ...string) {
			for _, k := range keys {
				tm.keys(k)
				time.Sleep(150 * time.Millisecond)
			}
			time.Sleep(300 * time.Millisecond)
			f := filepath.Join(dir, fmt.Sprintf("%dx%d-%s.txt", size[0], size[1], name))
			if err := os.WriteFile(f, []byte(tm.screen()), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		shot("overview")
		shot("broker", "Enter")
		shot("topics", "2")
		shot("topic", "Enter")
		shot("topic-unhealthy", "u")
		shot("tree", "3", "j", "l", "j", "l", "j")
		shot("events", "4")
		shot("help", "?")
		tm.keys("Escape")
		time.Sleep(200 * time.Millisecond)
		tm.keys("q")
	}
}

// TestTUICreateEndToEnd creates a topic through the wizard in the built
// ktopo, in a real terminal, on a real ZooKeeper with a sandbox cluster
// (brokers and controller) running beside it, and checks ZooKeeper holds
// exactly the previewed map.
func TestTUICreateEndToEnd(t *testing.T) {
	needTmux(t)
	connect := zktest.Chroot(t)
	addr, root, _ := strings.Cut(connect, "/")
	root = "/" + root
	conn := zktest.Connect(t, addr)
	sb, err := sandbox.Start(context.Background(), sandbox.Config{Connect: connect, Brokers: 6, Racks: 3, Pace: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Close()
	bin := buildKtopo(t)
	tm := startTmux(t, 120, 40, []string{"KTOPO_LOG=" + filepath.Join(t.TempDir(), "ktopo.log"), "TERM=xterm-256color"}, bin, "--zookeeper", connect)
	tm.waitFor("overview", 15*time.Second, "rack-a", "rack-c", "LIVE", "★")

	tm.keys("c")
	tm.waitFor("form", 5*time.Second, "Create a topic", "Replication factor")
	tm.keys("e", "2", "e", "/")
	tm.waitFor("invalid name", 5*time.Second, "contains one or more characters other than ASCII alphanumerics")
	tm.keys("BSpace", "Tab", "C-u", "1", "2", "Tab", "C-u", "3", "Enter")
	s := tm.waitFor("preview", 5*time.Second, "Preview e2e", "start index", "rack-a", "after: replicas")
	var start, shift int
	i := strings.Index(s, "start index ")
	if _, err := fmt.Sscanf(s[i:], "start index %d, replica shift %d", &start, &shift); err != nil {
		t.Fatalf("the preview shows no start index: %v\n%s", err, s)
	}
	tm.keys("Enter")
	tm.waitFor("confirmation", 5*time.Second, "Create topic e2e?", "[ Create ]")
	tm.keys("y")
	shot := tm.waitFor("online", 15*time.Second, "Topic e2e is online", "12/12 online")
	if os.Getenv("KTOPO_SHOW") != "" {
		t.Logf("preview:\n%s\nsummary:\n%s", s, shot)
	}
	// ZooKeeper holds the previewed map: Kafka's placement with the start
	// index and shift the preview showed.
	data, _, err := conn.Get(root + cluster.TopicPath("e2e"))
	if err != nil {
		t.Fatal(err)
	}
	a, err := cluster.DecodeTopicAssignment(data)
	if err != nil {
		t.Fatalf("written %s: %v", data, err)
	}
	var brokers []assign.Broker
	for id := 1; id <= 6; id++ {
		brokers = append(brokers, assign.BR(id, sandbox.RackName((id-1)%3)))
	}
	want, _ := assign.Assign(brokers, 12, 3, assign.Options{StartIndex: start, ReplicaShift: shift, StartPartition: -1})
	if fmt.Sprint(a.Partitions) != fmt.Sprint(map[int][]int(want.Assignment)) {
		t.Fatalf("written %v, previewed start %d shift %d = %v", a.Partitions, start, shift, want.Assignment)
	}
	tm.keys("Enter")
	tm.waitFor("topic screen", 5*time.Second, "Topic e2e", "REPLICAS")
	tm.keys("q")
}

// TestTUISandboxCreate creates a topic through the wizard on ktopo's own
// sandbox, slowed down with --pace, and leaves the creation running in
// the background (the pace key is tested in ui's TestFlowBrokerDies).
func TestTUISandboxCreate(t *testing.T) {
	needTmux(t)
	bin := buildKtopo(t)
	home := t.TempDir()
	tm := startTmux(t, 120, 40, []string{"HOME=" + home, "XDG_CONFIG_HOME=" + home, "KTOPO_ZOOKEEPER=", "KTOPO_LOG=" + filepath.Join(home, "ktopo.log"),
		"TERM=xterm-256color"}, bin, "--pace", "300ms")
	tm.waitFor("overview", 20*time.Second, "SANDBOX", "rack-a", "broker 6")
	// The sandbox slows to --pace only once its demo topics are online: wait
	// for that (its log says so), or a slow machine would create the topic
	// at full speed before the pace applies.
	logPath := filepath.Join(home, "ktopo.log")
	for deadline := time.Now().Add(40 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if b, _ := os.ReadFile(logPath); strings.Contains(string(b), "sandbox: pace 300ms") {
			break
		}
		if time.Now().After(deadline) {
			b, _ := os.ReadFile(logPath)
			t.Fatalf("the sandbox never logged its pace:\n%s", b)
		}
	}
	tm.keys("c")
	tm.waitFor("form", 5*time.Second, "Create a topic", "6 live brokers in 3 racks")
	tm.keys("w", "a", "t", "c", "h", "e", "d", "Enter")
	tm.waitFor("preview", 5*time.Second, "Preview watched", "start index")
	tm.keys("r", "Enter", "Enter")
	tm.waitFor("progress", 10*time.Second, "Creating watched", "sandbox pace 300ms (p)", "/12 online")
	tm.keys("Escape")
	tm.waitFor("background", 5*time.Second, "⟳ Creating topic watched:")
	tm.waitFor("done", 40*time.Second, "Topic watched created: all 12 partitions online")
	tm.keys("4")
	tm.waitFor("events", 5*time.Second, "partition online", "watched-")
	tm.keys("q")
}

// TestTUISandboxDrain: in a real terminal on the sandbox, d on broker 3's
// card, the preview, its three writes (w: leaders first), y, the
// progress, esc; the status bar follows the
// drain to its end and the card shows broker 3 holding no replica.
func TestTUISandboxDrain(t *testing.T) {
	needTmux(t)
	bin := buildKtopo(t)
	home := t.TempDir()
	tm := startTmux(t, 120, 40, []string{"HOME=" + home, "XDG_CONFIG_HOME=" + home, "KTOPO_ZOOKEEPER=", "KTOPO_LOG=" + filepath.Join(home, "ktopo.log"),
		"TERM=xterm-256color"}, bin, "--pace", "100ms")
	tm.waitFor("overview", 20*time.Second, "SANDBOX", "rack-a", "broker 6")
	// The demo topics online first, so that the drain's plan covers them.
	logPath := filepath.Join(home, "ktopo.log")
	for deadline := time.Now().Add(40 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if b, _ := os.ReadFile(logPath); strings.Contains(string(b), "sandbox: pace 100ms") {
			break
		}
		if time.Now().After(deadline) {
			b, _ := os.ReadFile(logPath)
			t.Fatalf("the sandbox never logged its pace:\n%s", b)
		}
	}
	tm.keys("Right", "Right", "d")
	tm.waitFor("preview", 10*time.Second, "Drain broker 3 (rack-c)", "◉ minimal:", "○ kafka:", "PARTITION")
	tm.keys("w")
	// Leaders first (the default): the reorder, the election, the drain.
	tm.waitFor("the exact znodes", 10*time.Second, "Written in 3 steps", "first: reorder", "/admin/preferred_replica_election", "then: the drain")
	tm.keys("w", "Enter")
	tm.waitFor("confirmation", 5*time.Second, "Drain broker 3?", "[ Reassign ]")
	tm.keys("y")
	tm.waitFor("progress", 10*time.Second, "Draining broker 3", "strategy minimal")
	tm.keys("Escape")
	tm.waitFor("background", 10*time.Second, "Draining broker 3:")
	tm.waitFor("done", 90*time.Second, "Drained broker 3:", "it holds no replica")
	tm.keys("4")
	tm.waitFor("events", 5*time.Second, "reassigned")
	tm.keys("q")
}

// TestTUISandboxTopicOps: in a real terminal on the sandbox, R on topic
// clicks raises its replication factor from 2 to 3, then a on audit-log
// doubles its partitions; each followed to its end on screen.
func TestTUISandboxTopicOps(t *testing.T) {
	needTmux(t)
	bin := buildKtopo(t)
	home := t.TempDir()
	tm := startTmux(t, 120, 40, []string{"HOME=" + home, "XDG_CONFIG_HOME=" + home, "KTOPO_ZOOKEEPER=", "KTOPO_LOG=" + filepath.Join(home, "ktopo.log"),
		"TERM=xterm-256color"}, bin, "--pace", "50ms")
	tm.waitFor("overview", 20*time.Second, "SANDBOX", "rack-a", "broker 6")
	logPath := filepath.Join(home, "ktopo.log")
	for deadline := time.Now().Add(40 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if b, _ := os.ReadFile(logPath); strings.Contains(string(b), "sandbox: pace 50ms") {
			break
		}
		if time.Now().After(deadline) {
			b, _ := os.ReadFile(logPath)
			t.Fatalf("the sandbox never logged its pace:\n%s", b)
		}
	}
	tm.keys(":", "topic clicks", "Enter")
	tm.waitFor("topic", 5*time.Second, "clicks")
	tm.keys("R")
	tm.waitFor("preview", 10*time.Second, "Reassign topic clicks", "replication factor 2")
	tm.keys("+")
	tm.waitFor("RF 3", 5*time.Second, "replication factor 2 → 3", "24 partitions move")
	tm.keys("Enter")
	tm.waitFor("confirmation", 5*time.Second, "Reassign topic clicks?", "replication factor 2 → 3")
	tm.keys("y")
	tm.waitFor("done", 120*time.Second, "Reassigned topic clicks: 24 partitions moved", "replication factor 3")
	tm.keys("Escape")
	time.Sleep(300 * time.Millisecond) // an escape followed at once by ':' reads as alt+:
	tm.keys(":", "topic audit-log", "Enter")
	tm.waitFor("topic", 5*time.Second, "audit-log")
	tm.keys("a")
	tm.waitFor("preview", 10*time.Second, "Add partitions to audit-log", "3 → 6 partitions")
	tm.keys("Enter", "y")
	tm.waitFor("done", 60*time.Second, "Added partitions to topic audit-log: 3 new partitions online")
	tm.keys("q")
}

// TestTUIMissingChroot: the TUI on a connect string whose root holds no
// Kafka cluster, with one under /kafka, says so on the overview rather
// than showing an empty cluster.
func TestTUIMissingChroot(t *testing.T) {
	needTmux(t)
	connect := zktest.Chroot(t)
	addr, root, _ := strings.Cut(connect, "/")
	root = "/" + root
	writeCluster(t, zktest.Connect(t, addr), root+"/kafka", fixture.Small())
	bin := buildKtopo(t)
	tm := startTmux(t, 200, 30, []string{"KTOPO_LOG=" + filepath.Join(t.TempDir(), "ktopo.log"), "TERM=xterm-256color"}, bin, "--zookeeper", connect)
	// The note wraps where the window ends: compared word by word.
	want := "No brokers registered. No Kafka cluster at " + connect + ": " + root + "/brokers/ids does not exist (no broker ever started there). " +
		"Found a Kafka cluster under " + root + "/kafka: connect to " + connect + "/kafka."
	var s string
	for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		s = tm.screen()
		if strings.Contains(strings.Join(strings.Fields(s), " "), want) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the overview does not say %q:\n%s", want, s)
		}
	}
	tm.keys("q")
}
