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

// TestTLSKeysAndSecrets: the zk-tls-* keys are resolved against the config
// file's directory (~ is the home directory); Permissions warns about a
// file with a digest that others may read, naming the chmod, and not about
// one without a digest or a private one.
func TestTLSKeysAndSecrets(t *testing.T) {
	home, _ := os.UserHomeDir()
	dir := t.TempDir()
	path := filepath.Join(dir, "config.yaml")
	data := []byte("contexts:\n  s:\n    zookeeper: zk:2281\n    digest: admin:pw\n    zk-tls-ca: certs/ca.pem\n    zk-tls-cert: /etc/ktopo/me.crt\n    zk-tls-key: ~/me.key\n")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	c, _ := f.Context("s")
	if c.TLSCA != filepath.Join(dir, "certs", "ca.pem") || c.TLSCert != "/etc/ktopo/me.crt" || c.TLSKey != filepath.Join(home, "me.key") {
		t.Errorf("resolved %q %q %q", c.TLSCA, c.TLSCert, c.TLSKey)
	}
	w := f.Permissions()
	if !strings.Contains(w, path+" holds a ZooKeeper password (digest) and is readable by every user (mode 0644): chmod 600 "+path) ||
		strings.Contains(w, "pw") && strings.Contains(w, "admin:pw") {
		t.Errorf("warning %q", w)
	}
	if err := os.Chmod(path, 0o640); err != nil {
		t.Fatal(err)
	}
	if w := f.Permissions(); !strings.Contains(w, "readable by its group (mode 0640)") {
		t.Errorf("group-readable: %q", w)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		t.Fatal(err)
	}
	if w := f.Permissions(); w != "" {
		t.Errorf("private file: %q", w)
	}
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	c.Digest = ""
	if w := f.Permissions(); w != "" {
		t.Errorf("no secrets: %q", w)
	}
	// A malformed digest's error does not show it.
	_, err = Parse("c.yaml", []byte("contexts:\n  a:\n    zookeeper: h:1\n    digest: nocolonsecret\n"))
	if err == nil || strings.Contains(err.Error(), "nocolonsecret") {
		t.Errorf("malformed digest: %v", err)
	}
}
