package cmd

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/ktopo/ktopo/internal/testkit/zktest"
)

// TestSandboxEmpty runs "ktopo sandbox --empty" in-process, browses the
// printed address with go-zookeeper and stops it with SIGINT.
func TestSandboxEmpty(t *testing.T) {
	pr, pw := io.Pipe()
	var stderr bytes.Buffer
	done := make(chan int, 1)
	go func() {
		done <- run([]string{"sandbox", "--empty"}, strings.NewReader(""), pw, &stderr)
		pw.Close()
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatalf("reading the address line: %v (stderr %q)", err, stderr.String())
	}
	addr, ok := strings.CutPrefix(strings.TrimSpace(line), "listening on ")
	if !ok || !strings.HasPrefix(addr, "127.0.0.1:") {
		t.Fatalf("first line %q, want \"listening on 127.0.0.1:PORT\"", line)
	}
	go io.Copy(io.Discard, pr)

	conn, _, err := zk.Connect([]string{addr}, 10*time.Second, zk.WithLogInfo(false), zk.WithLogger(nopLogger{}))
	if err != nil {
		t.Fatal(err)
	}
	kids, stat, err := conn.Children("/")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(kids, []string{"zookeeper"}) || stat.Cversion != -1 {
		t.Fatalf("root: children %v cversion %d, want the pristine [zookeeper] and -1", kids, stat.Cversion)
	}
	conn.Close()
	browseWithZkCli(t, addr)

	if err := syscall.Kill(syscall.Getpid(), syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	select {
	case code := <-done:
		if code != 0 {
			t.Fatalf("exit status %d, stderr %q", code, stderr.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("sandbox did not stop on SIGINT")
	}
}

// runSandbox runs "ktopo <args>" in-process with stdin as given and
// returns a reader of its standard output, a channel with its exit status
// and its standard error.
func runSandbox(t *testing.T, stdin io.Reader, args ...string) (*bufio.Reader, <-chan int, *bytes.Buffer) {
	t.Helper()
	pr, pw := io.Pipe()
	var stderr bytes.Buffer
	done := make(chan int, 1)
	go func() {
		done <- run(args, stdin, pw, &stderr)
		pw.Close()
	}()
	return bufio.NewReader(pr), done, &stderr
}

// readUntil reads lines until one contains want, and returns them all.
func readUntil(t *testing.T, r *bufio.Reader, want string) string {
	t.Helper()
	var all strings.Builder
	for {
		line, err := r.ReadString('\n')
		all.WriteString(line)
		if strings.Contains(line, want) {
			return all.String()
		}
		if err != nil {
			t.Fatalf("output ended before %q: %v\n%s", want, err, all.String())
		}
	}
}

func interrupt(t *testing.T, done <-chan int, stderr *bytes.Buffer) {
	t.Helper()
	if err := syscall.Kill(syscall.Getpid(), syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	select {
	case code := <-done:
		if code != 0 {
			t.Fatalf("exit status %d, stderr %q", code, stderr.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("sandbox did not stop on SIGINT")
	}
}

// TestSandboxEmbedded runs "ktopo sandbox" on the embedded ZooKeeper,
// drives it through standard input and stops it with SIGINT: the brokers'
// registrations disappear, nothing else changes.
func TestSandboxEmbedded(t *testing.T) {
	t.Setenv(envZookeeper, "127.0.0.1:1/must-not-be-used")
	stdin := strings.NewReader("status\nkill 3\nrestart 3\nbogus\n")
	out, done, stderr := runSandbox(t, stdin, "sandbox", "--brokers", "3", "--racks", "3", "--demo-topics")
	first := readUntil(t, out, "listening on ")
	addr := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(first), "listening on "))
	text := readUntil(t, out, `unknown command "bogus"`)
	for _, want := range []string{"sandbox: 3 brokers (3 racks) on " + addr, "controller: broker 1 (epoch 1)",
		"broker 3 (rack-c): up", "broker 3 killed", "broker 3 restarted"} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks %q:\n%s", want, text)
		}
	}
	go io.Copy(io.Discard, out)
	conn, _, err := zk.Connect([]string{addr}, 10*time.Second, zk.WithLogInfo(false), zk.WithLogger(nopLogger{}))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ids, _, err := conn.Children("/brokers/ids")
	if err != nil || len(ids) != 3 {
		t.Fatalf("/brokers/ids = %v (%v)", ids, err)
	}
	topics, _, err := conn.Children("/brokers/topics")
	if err != nil || !slices.Contains(topics, "orders") {
		t.Fatalf("/brokers/topics = %v (%v)", topics, err)
	}
	interrupt(t, done, stderr)
}

// TestSandboxOnZooKeeper runs the sandbox on a given ZooKeeper chroot; on
// SIGINT only the ephemeral znodes go.
func TestSandboxOnZooKeeper(t *testing.T) {
	connect := zktest.Chroot(t)
	out, done, stderr := runSandbox(t, strings.NewReader("status\n"), "sandbox", "--zookeeper", connect, "--brokers", "2", "--racks", "0")
	text := readUntil(t, out, "controller: broker 1 (epoch 1)")
	if !strings.Contains(text, "sandbox: 2 brokers (no racks) on "+connect) || strings.Contains(text, "listening on") {
		t.Errorf("output:\n%s", text)
	}
	go io.Copy(io.Discard, out)
	conn := zktest.Connect(t, zktest.Addr(t))
	chroot := connect[strings.IndexByte(connect, '/'):]
	// The controller's failover ends with /feature on an empty cluster.
	deadline := time.Now().Add(30 * time.Second)
	for ok, _, _ := conn.Exists(chroot + "/feature"); !ok; ok, _, _ = conn.Exists(chroot + "/feature") {
		if time.Now().After(deadline) {
			t.Fatal("no /feature after 30s")
		}
		time.Sleep(10 * time.Millisecond)
	}
	before := dumpTree(t, conn, chroot)
	interrupt(t, done, stderr)
	after := dumpTree(t, conn, chroot)
	for p, v := range before {
		_, still := after[p]
		switch {
		case strings.HasPrefix(p, chroot+"/brokers/ids/") || p == chroot+"/controller":
			if still {
				t.Errorf("ephemeral %s still there after SIGINT", p)
			}
		case !still:
			t.Errorf("%s deleted by the shutdown", p)
		case after[p] != v:
			t.Errorf("%s changed by the shutdown: %s → %s", p, v, after[p])
		}
	}
	for p := range after {
		if _, ok := before[p]; !ok {
			t.Errorf("%s created by the shutdown", p)
		}
	}
}

func TestSandboxFlagConflicts(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"sandbox", "--empty", "--zookeeper", "127.0.0.1:1"}, "--empty"},
		{[]string{"sandbox", "--zookeeper", "127.0.0.1:1", "--listen", "127.0.0.1:0"}, "--listen"},
		{[]string{"sandbox", "--read-only"}, "read-only mode: refusing to run the sandbox"},
		{[]string{"sandbox", "--brokers", "0"}, "--brokers must be at least 1"},
	} {
		var stdout, stderr bytes.Buffer
		code := run(tc.args, strings.NewReader(""), &stdout, &stderr)
		if code == 0 || !strings.Contains(stderr.String(), tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want a failure naming %s", tc.args, code, stderr.String(), tc.want)
		}
	}
}

// dumpTree maps every node under root to its data and version.
func dumpTree(t *testing.T, conn *zk.Conn, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	var walk func(p string)
	walk = func(p string) {
		data, stat, err := conn.Get(p)
		if err != nil {
			t.Fatalf("get %s: %v", p, err)
		}
		out[p] = fmt.Sprintf("%s v%d", data, stat.Version)
		kids, _, err := conn.Children(p)
		if err != nil {
			t.Fatalf("children %s: %v", p, err)
		}
		for _, k := range kids {
			walk(p + "/" + k)
		}
	}
	walk(root)
	return out
}

// browseWithZkCli lists the sandbox with the Java client (zkCli.sh's main
// class) when it is installed.
func browseWithZkCli(t *testing.T, addr string) {
	t.Helper()
	java, err := exec.LookPath("java")
	const jar = "/usr/share/java/zookeeper.jar"
	if _, jerr := os.Stat(jar); err != nil || jerr != nil {
		t.Log("Java ZooKeeper client not installed: zkCli browse not checked")
		return
	}
	cmd := exec.Command(java, "-cp", jar+":/usr/share/java/slf4j-nop.jar", "org.apache.zookeeper.ZooKeeperMain", "-server", addr, "ls", "-R", "/")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "/zookeeper/config\n/zookeeper/quota\n") {
		t.Fatalf("zkCli ls -R / on the sandbox: %v\n%s", err, out)
	}
}

type nopLogger struct{}

func (nopLogger) Printf(string, ...any) {}
