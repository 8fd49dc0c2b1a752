package cmd

import (
	"bufio"
	"crypto/tls"
	"crypto/x509/pkix"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/ktopo/ktopo/internal/testkit/fixture"
	"github.com/ktopo/ktopo/internal/testkit/tlstest"
	"github.com/ktopo/ktopo/internal/testkit/zktest"
	"github.com/ktopo/ktopo/zkserver"
)

// writeConfig writes a contexts file with one context, c, whose digest is
// digest, with the file mode given, and points XDG_CONFIG_HOME at it.
func writeConfig(t *testing.T, connect, digest string, mode os.FileMode) string {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "ktopo", "config.yaml")
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	data := "contexts:\n  c:\n    zookeeper: " + connect + "\n    digest: " + digest + "\n"
	if err := os.WriteFile(path, []byte(data), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil { // past the umask
		t.Fatal(err)
	}
	t.Setenv("XDG_CONFIG_HOME", dir)
	return path
}

// TestSecretsInProcess: a digest password from a context or
// $KTOPO_ZK_DIGEST authenticates, and never shows in --help, in errors or
// in the log file; a contexts file holding one that others may read gets a
// warning naming the chmod that fixes it, and none once fixed.
func TestSecretsInProcess(t *testing.T) {
	connect := zktest.Chroot(t)
	const ctxPass, envPass = "ctx-pass-7781", "env-pass-9923"
	logf := filepath.Join(t.TempDir(), "ktopo.log")
	t.Setenv("KTOPO_LOG", logf)
	// A node only alice may read: authentication works from both sources.
	addr, root, _ := strings.Cut(connect, "/")
	raw := zktest.Connect(t, addr)
	if _, err := raw.Create("/"+root+"/brokers", nil, 0, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	if _, err := raw.Create("/"+root+"/brokers/ids", nil, 0, zk.DigestACL(zk.PermAll, "alice", ctxPass)); err != nil {
		t.Fatal(err)
	}

	cfgPath := writeConfig(t, connect, "alice:"+ctxPass, 0o644)
	code, out, errOut := runCLI(t, "brokers", "--context", "c")
	if code != 0 || !strings.Contains(errOut, "warning: "+cfgPath+" holds a ZooKeeper password (digest) and is readable by every user (mode 0644): chmod 600 "+cfgPath) {
		t.Errorf("brokers on a world-readable contexts file: exit %d\n%s%s", code, out, errOut)
	}
	if err := os.Chmod(cfgPath, 0o600); err != nil {
		t.Fatal(err)
	}
	if code, out, errOut := runCLI(t, "brokers", "--context", "c"); code != 0 || strings.Contains(errOut, "warning") {
		t.Errorf("brokers on a private contexts file: exit %d\n%s%s", code, out, errOut)
	}
	// The wrong password through the environment: refused reads, named
	// without the password.
	t.Setenv(envDigest, "alice:"+envPass)
	_, out2, errOut2 := runCLI(t, "brokers", "--zookeeper", connect)
	code3, out3, errOut3 := runCLI(t, "--help")
	code4, out4, errOut4 := runCLI(t, "topics", "create", "--zookeeper", "127.0.0.1:1", "--topic", "x", "--partitions", "1", "--replication-factor", "1")
	if code3 != 0 || code4 != 1 {
		t.Errorf("--help exit %d, create on a closed port exit %d", code3, code4)
	}
	logged, _ := os.ReadFile(logf)
	for what, s := range map[string]string{"brokers": out + errOut + out2 + errOut2, "--help": out3 + errOut3,
		"an error": out4 + errOut4, "the log file": string(logged)} {
		for _, pass := range []string{ctxPass, envPass} {
			if strings.Contains(s, pass) {
				t.Errorf("%s shows the password %q:\n%s", what, pass, s)
			}
		}
	}
	if strings.Contains(errOut, "no access") || !strings.Contains(errOut2, "ktopo: no access to /brokers/ids: ZooKeeper's ACL does not let this session read its children") ||
		!strings.Contains(out2, "(no access) to /brokers/ids: the registered brokers cannot be listed") {
		t.Errorf("with the wrong password, /brokers should be no access:\n%s%s", out2, errOut2)
	}
}

// TestSecretsProcess: what ps shows of a running ktopo (its
// /proc/<pid>/cmdline): a password from $KTOPO_ZK_DIGEST is never there; one
// given with --zk-digest is overwritten as soon as ktopo starts, and the
// TUI's status bar warns about it and never shows it.
func TestSecretsProcess(t *testing.T) {
	if _, err := os.Stat("/proc/self/cmdline"); err != nil {
		t.Skip("skipping: no /proc")
	}
	connect := zktest.Chroot(t)
	bin := buildKtopo(t)
	const envPass, flagPass = "env-pass-5512", "flag-pass-6634"
	logf := filepath.Join(t.TempDir(), "ktopo.log")

	// ktopo events runs until interrupted.
	cmd := exec.Command(bin, "events", "--zookeeper", connect)
	cmd.Env = append(os.Environ(), envDigest+"=alice:"+envPass, "KTOPO_LOG="+logf)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Signal(syscall.SIGINT); _ = cmd.Wait() }()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || !strings.Contains(line, "connection connected") {
		t.Fatalf("ktopo events: %q %v", line, err)
	}
	cmdline := procCmdline(t, cmd.Process.Pid)
	if strings.Contains(cmdline, envPass) {
		t.Errorf("the password from %s is in the arguments: %q", envDigest, cmdline)
	}
	if info, err := os.Stat("/proc/" + strconv.Itoa(cmd.Process.Pid) + "/environ"); err != nil || info.Mode().Perm()&0o044 != 0 {
		t.Errorf("the environment should be readable by its owner only: %v %v", info.Mode(), err)
	}

	// The TUI with --zk-digest.
	needTmux(t)
	addr, root, _ := strings.Cut(connect, "/")
	writeCluster(t, zktest.Connect(t, addr), "/"+root, fixture.Small())
	tm := startTmux(t, 140, 30, []string{"KTOPO_LOG=" + logf, "TERM=xterm-256color"}, bin, "--zookeeper", connect, "--zk-digest", "alice:"+flagPass)
	screen := tm.waitFor("overview", 15*time.Second, "rack-a", "LIVE", "--zk-digest is visible")
	out, err := exec.Command("tmux", "-L", tm.socket, "display-message", "-p", "-t", "e2e", "#{pane_pid}").Output()
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(out)))
	cmdline = procCmdline(t, pid)
	if strings.Contains(cmdline, flagPass) || !strings.Contains(cmdline, "--zk-digest alice:"+strings.Repeat("x", len(flagPass))) {
		t.Errorf("ps shows %q", cmdline)
	}
	for _, k := range []string{"3", "4", "2"} { // the tree, the events, the topics
		tm.keys(k)
		screen += tm.screen()
	}
	tm.keys("q")
	logged, _ := os.ReadFile(logf)
	for what, s := range map[string]string{"the TUI": screen, "the log file": string(logged)} {
		for _, pass := range []string{envPass, flagPass} {
			if strings.Contains(s, pass) {
				t.Errorf("%s shows the password %q:\n%s", what, pass, s)
			}
		}
	}
}

// procCmdline is what ps shows as a process's command line.
func procCmdline(t *testing.T, pid int) string {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	if err != nil {
		t.Fatal(err)
	}
	return strings.ReplaceAll(strings.TrimRight(string(b), "\x00"), "\x00", " ")
}

// TestTLSContextEmbedded: a context's zk-tls-* keys (relative to the
// config file) connect to the embedded server's TLS port with a client
// certificate; TLS mistakes made through flags fail at once, each saying
// what is wrong.
func TestTLSContextEmbedded(t *testing.T) {
	dir := t.TempDir()
	certs := filepath.Join(dir, "ktopo", "certs")
	if err := os.MkdirAll(certs, 0o700); err != nil {
		t.Fatal(err)
	}
	ca := tlstest.NewCA(t, certs, "zk-ca")
	other := tlstest.NewCA(t, certs, "other-ca")
	server := ca.Issue(t, "server", tlstest.Options{Server: true})
	me := ca.Issue(t, "me", tlstest.Options{Subject: pkix.Name{CommonName: "ktopo"}})
	srv, err := zkserver.Start(zkserver.Config{TLS: tlstest.ServerConfig(server, ca, tls.RequireAndVerifyClientCert)})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	cfg := filepath.Join(dir, "ktopo", "config.yaml")
	data := "contexts:\n  tls:\n    zookeeper: " + srv.SecureAddr() + "\n    zk-tls-ca: certs/zk-ca.pem\n    zk-tls-cert: certs/me.crt\n    zk-tls-key: certs/me.key\n"
	if err := os.WriteFile(cfg, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("XDG_CONFIG_HOME", dir)
	if code, out, errOut := runCLI(t, "brokers", "--context", "tls"); code != 0 || !strings.HasPrefix(out, "ID") {
		t.Fatalf("brokers over TLS: exit %d\n%s%s", code, out, errOut)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--context", "tls", "--zk-tls-ca", other.File}, "is not signed by a trusted CA: give the CA that signed it with --zk-tls-ca"},
		{[]string{"--context", "tls", "--zk-tls-cert", ca.File}, "(--zk-tls-ca, --zk-tls-cert, --zk-tls-key or the context's zk-tls-* keys)"},
		{[]string{"--zookeeper", srv.Addr(), "--zk-tls-ca", ca.File, "--zk-tls-cert", me.CertFile, "--zk-tls-key", me.KeyFile}, "probably a plaintext port"},
		{[]string{"--zookeeper", srv.SecureAddr(), "--zk-tls-ca", ca.File}, "the server wants a client certificate: give one with --zk-tls-cert and --zk-tls-key"},
	} {
		code, out, errOut := runCLI(t, append([]string{"brokers"}, c.args...)...)
		if code != 1 || !strings.Contains(errOut, c.want) {
			t.Errorf("brokers %q: exit %d, want an error saying %q\n%s%s", c.args, code, c.want, out, errOut)
		}
	}
}
