package zktest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/go-zookeeper/zk"
)

func TestMain(m *testing.M) { Main(m) }

// TestRoundTrip really talks to the package's server: a write, a read and a
// four-letter word.
func TestRoundTrip(t *testing.T) {
	addr := Chroot(t)
	root := addr[strings.Index(addr, "/"):]
	conn := Connect(t, Addr(t))
	if _, err := conn.Create(root+"/hello", []byte("world"), 0, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	data, stat, err := conn.Get(root + "/hello")
	if err != nil {
		t.Fatal(err)
	}
	if string(data) != "world" || stat.Version != 0 {
		t.Fatalf("got %q version %d, want \"world\" version 0", data, stat.Version)
	}
	reply, err := FourLetter(Addr(t), "ruok")
	if err != nil || reply != "imok" {
		t.Fatalf("ruok: %q %v", reply, err)
	}
	t.Logf("server kind=%s", Kind())
}

// TestEmbeddedFallback runs TestRoundTrip in a child test process whose
// zk-test-server reports "not installed" (exit 3): with CI unset, Main must
// run the tests against the embedded server instead of skipping.
func TestEmbeddedFallback(t *testing.T) {
	if os.Getenv("ZKTEST_CHILD") != "" {
		t.Skip("child process")
	}
	fake := filepath.Join(t.TempDir(), "zk-test-server")
	if err := os.WriteFile(fake, []byte("#!/bin/sh\necho 'zk-test-server: missing: java' >&2\nexit 3\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	run := func(ci string) (string, error) {
		cmd := exec.Command(os.Args[0], "-test.run", "^TestRoundTrip$", "-test.v", "-test.count=1")
		env := []string{"KTOPO_ZK_TEST_SERVER=" + fake, "ZKTEST_CHILD=1"}
		for _, kv := range os.Environ() {
			if !strings.HasPrefix(kv, "CI=") && !strings.HasPrefix(kv, "KTOPO_ZK_TEST_SERVER=") {
				env = append(env, kv)
			}
		}
		if ci != "" {
			env = append(env, "CI="+ci)
		}
		cmd.Env = env
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	out, err := run("")
	if err != nil || !strings.Contains(out, "server kind=embedded") || !strings.Contains(out, "--- PASS: TestRoundTrip") {
		t.Fatalf("without CI: want TestRoundTrip to pass on the embedded server; err=%v\n%s", err, out)
	}
	out, err = run("true")
	if err == nil || !strings.Contains(out, "CI=true") {
		t.Fatalf("with CI=true: want the run to fail; err=%v\n%s", err, out)
	}
}

// TestReapStale starts a server owned by a process that no longer exists and
// checks that ReapStale stops it and removes its directory.
func TestReapStale(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a second JVM")
	}
	s := StartServer(t, Options{})
	// Pretend the owner crashed: pid 0x7ffffff0 does not run.
	if err := os.WriteFile(filepath.Join(s.Dir(), "owner.pid"), []byte(strconv.Itoa(0x7ffffff0)), 0o644); err != nil {
		t.Fatal(err)
	}
	ReapStale()
	if _, err := os.Stat(s.Dir()); !os.IsNotExist(err) {
		t.Fatalf("stale server dir still present: %v", err)
	}
	if _, err := FourLetter(s.Addr(), "ruok"); err == nil {
		t.Fatal("stale server still answers")
	}
	// The package's own server is owned by this process and must survive.
	if reply, err := FourLetter(Addr(t), "ruok"); Kind() == "apache" && (err != nil || reply != "imok") {
		t.Fatalf("shared server reaped: %q %v", reply, err)
	}
}

func TestRestartKeepsData(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a second JVM")
	}
	s := StartServer(t, Options{})
	conn, _, err := zk.Connect([]string{s.Addr()}, 10e9, zk.WithLogInfo(false), zk.WithLogger(NewLogger(t)))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Create("/kept", []byte("1"), 0, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	conn.Close()
	if err := s.Restart(); err != nil {
		t.Fatal(err)
	}
	c2 := Connect(t, s.Addr())
	if data, _, err := c2.Get("/kept"); err != nil || string(data) != "1" {
		t.Fatalf("after restart: %q %v", data, err)
	}
}
