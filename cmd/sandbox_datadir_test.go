package cmd

import (
	"bytes"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
)

// TestSandboxDataDir: "ktopo sandbox --empty --data-dir DIR" keeps the tree
// across runs; the ephemeral node of the first run's session is gone.
func TestSandboxDataDir(t *testing.T) {
	dir := t.TempDir()
	for run := range 2 {
		out, done, stderr := runSandbox(t, strings.NewReader(""), "sandbox", "--empty", "--data-dir", dir)
		addr := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(readUntil(t, out, "listening on ")), "listening on "))
		go io.Copy(io.Discard, out)
		conn, _, err := zk.Connect([]string{addr}, 10*time.Second, zk.WithLogInfo(false), zk.WithLogger(nopLogger{}))
		if err != nil {
			t.Fatal(err)
		}
		if run == 0 {
			if _, err := conn.Create("/kept", []byte("v1"), 0, zk.WorldACL(zk.PermAll)); err != nil {
				t.Fatal(err)
			}
			if _, err := conn.Create("/gone", nil, zk.FlagEphemeral, zk.WorldACL(zk.PermAll)); err != nil {
				t.Fatal(err)
			}
		} else {
			data, _, err := conn.Get("/kept")
			if err != nil || string(data) != "v1" {
				t.Fatalf("second run: /kept = %q, %v; want the first run's v1", data, err)
			}
			if ok, _, err := conn.Exists("/gone"); ok || err != nil {
				t.Fatalf("second run: ephemeral /gone exists=%v (%v); sessions end with the process", ok, err)
			}
		}
		interrupt(t, done, stderr) // while the session is open
		conn.Close()
	}
}

// TestSandboxDataDirCluster: the simulated cluster's topics survive a
// restart with --data-dir; the brokers register again and a new controller
// is elected with the next epoch.
func TestSandboxDataDirCluster(t *testing.T) {
	t.Setenv(envZookeeper, "127.0.0.1:1/must-not-be-used")
	dir := t.TempDir()
	for run := range 2 {
		args := []string{"sandbox", "--brokers", "3", "--data-dir", dir}
		if run == 0 {
			args = append(args, "--demo-topics")
		}
		out, done, stderr := runSandbox(t, strings.NewReader(""), args...)
		addr := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(readUntil(t, out, "listening on ")), "listening on "))
		readUntil(t, out, "sandbox: 3 brokers")
		go io.Copy(io.Discard, out)
		conn, _, err := zk.Connect([]string{addr}, 10*time.Second, zk.WithLogInfo(false), zk.WithLogger(nopLogger{}))
		if err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(30 * time.Second)
		for {
			ids, _, _ := conn.Children("/brokers/ids")
			topics, _, _ := conn.Children("/brokers/topics")
			// The first run elects the first controller; the second, after
			// the restart, the next one.
			epoch, _, _ := conn.Get("/controller_epoch")
			_, _, errCtl := conn.Get("/controller")
			if len(ids) == 3 && slices.Contains(topics, "orders") && errCtl == nil && string(epoch) == []string{"1", "2"}[run] {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("run %d: brokers %v, topics %v, /controller_epoch %q (controller: %v) after 30s; want 3 brokers, the demo topics and epoch %d",
					run, ids, topics, epoch, errCtl, run+1)
			}
			time.Sleep(20 * time.Millisecond)
		}
		conn.Close()
		interrupt(t, done, stderr)
	}
}

func TestSandboxDataDirNeedsEmbedded(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := run([]string{"sandbox", "--zookeeper", "127.0.0.1:1", "--data-dir", t.TempDir()}, strings.NewReader(""), &stdout, &stderr)
	if code == 0 || !strings.Contains(stderr.String(), "--data-dir") {
		t.Fatalf("exit %d, stderr %q; want a failure naming --data-dir", code, stderr.String())
	}
}
