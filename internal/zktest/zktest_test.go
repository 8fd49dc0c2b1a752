package zktest

import (
	"os"
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
	if Kind() == "apache" {
		reply, err := FourLetter(Addr(t), "ruok")
		if err != nil || reply != "imok" {
			t.Fatalf("ruok: %q %v", reply, err)
		}
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
	conn, _, err := zk.Connect([]string{s.Addr()}, 10e9, zk.WithLogInfo(false), zk.WithLogger(testLogger{t}))
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
