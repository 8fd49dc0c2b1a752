package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestParse(t *testing.T) {
	f, err := Parse("c.yaml", []byte(`
contexts:
  prod:
    zookeeper: zk1:2181,zk2:2181/kafka
    digest: admin:secret
    read-only: true
    production: true
  dev:
    zookeeper: localhost:2181
    session-timeout: 30s
`))
	if err != nil {
		t.Fatal(err)
	}
	if got := f.Names(); strings.Join(got, ",") != "dev,prod" {
		t.Fatalf("names %v", got)
	}
	p, err := f.Context("prod")
	if err != nil {
		t.Fatal(err)
	}
	if p.Name != "prod" || p.Zookeeper != "zk1:2181,zk2:2181/kafka" || p.Digest != "admin:secret" || !p.ReadOnly || !p.Production {
		t.Fatalf("prod = %+v", p)
	}
	d, _ := f.Context("dev")
	if d.SessionTimeout != 30*time.Second || d.ReadOnly {
		t.Fatalf("dev = %+v", d)
	}
	if _, err := f.Context("nope"); err == nil || !strings.Contains(err.Error(), "dev, prod") {
		t.Fatalf("unknown context error: %v", err)
	}
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct{ yaml, want string }{
		{"contexts:\n  a:\n    zookeper: x:1\n", "field zookeper not found"},
		{"contexts:\n  a:\n    digest: x\n    zookeeper: h:1\n", "user:password"},
		{"contexts:\n  a:\n    read-only: true\n", "no zookeeper connect string"},
		{"contexts:\n  a:\n", "is empty"},
		{"contexts: [1, 2]\n", "c.yaml"},
		{"contexts:\n  a:\n    zookeeper: h:1\n    session-timeout: soon\n", "c.yaml"},
	} {
		if _, err := Parse("c.yaml", []byte(tc.yaml)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want it to mention %q", tc.yaml, err, tc.want)
		}
	}
	if f, err := Parse("c.yaml", nil); err != nil || len(f.Contexts) != 0 {
		t.Errorf("empty file: %v %v", f, err)
	}
}

func TestLoadAndPath(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", dir)
	if got, want := Path(), filepath.Join(dir, "ktopo", "config.yaml"); got != want {
		t.Fatalf("Path() = %s, want %s", got, want)
	}
	f, err := Load(Path())
	if err != nil || len(f.Contexts) != 0 {
		t.Fatalf("missing file: %v %v", f, err)
	}
	os.MkdirAll(filepath.Dir(Path()), 0o755)
	os.WriteFile(Path(), []byte("contexts:\n  x:\n    zookeeper: h:2181\n"), 0o600)
	f, err = Load(Path())
	if err != nil || f.Contexts["x"].Zookeeper != "h:2181" {
		t.Fatalf("Load: %v %v", f, err)
	}
}
