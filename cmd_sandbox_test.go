package main

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
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

func TestSandboxRequiresEmpty(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := run([]string{"sandbox"}, strings.NewReader(""), &stdout, &stderr)
	if code == 0 || !strings.Contains(stderr.String(), "--empty") {
		t.Fatalf("exit %d, stderr %q: want a failure that names --empty", code, stderr.String())
	}
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
