package main

import (
	"bufio"
	"bytes"
	"io"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
)

// TestSandboxDataDir: "ktopo sandbox --empty --data-dir DIR" keeps the tree
// across runs; the ephemeral node of the first run's session is gone.
func TestSandboxDataDir(t *testing.T) {
	dir := t.TempDir()
	for run := range 2 {
		addr, stop := startSandbox(t, "sandbox", "--empty", "--data-dir", dir)
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
		stop() // SIGINT while the session is open
		conn.Close()
	}
}

// startSandbox runs ktopo in-process and returns the address it prints and
// a func that stops it with SIGINT.
func startSandbox(t *testing.T, args ...string) (string, func()) {
	t.Helper()
	pr, pw := io.Pipe()
	var stderr bytes.Buffer
	done := make(chan int, 1)
	go func() {
		done <- run(args, strings.NewReader(""), pw, &stderr)
		pw.Close()
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatalf("reading the address line: %v (stderr %q)", err, stderr.String())
	}
	addr, ok := strings.CutPrefix(strings.TrimSpace(line), "listening on ")
	if !ok {
		t.Fatalf("first line %q, want \"listening on HOST:PORT\"", line)
	}
	go io.Copy(io.Discard, pr)
	return addr, func() {
		t.Helper()
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
}
