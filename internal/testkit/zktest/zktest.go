// Package zktest runs a throwaway ZooKeeper for a package's tests.
//
// Every test package that needs ZooKeeper calls Main from its TestMain:
//
//	func TestMain(m *testing.M) { zktest.Main(m) }
//
// Main starts one Apache ZooKeeper 3.8 server (through scripts/zk-test-server)
// on a free loopback port in a temporary directory, runs the tests and stops it.
// Before starting, it stops servers that an earlier, crashed test run left
// behind (found by their pid files under the shared base directory).
//
// Another Apache ZooKeeper version can stand in for Debian's: with
// $KTOPO_ZK_CLASSPATH set every server starts from that class path, and
// with $KTOPO_ZK_REPORT Main also records every request the tests send
// (Recorder) and writes what it saw there (kafkatest.OnZooKeeper sets them
// to re-run a package's tests on 3.5.9 and 3.9.5).
//
// When the zookeeper package is not installed:
//   - with CI=true the run fails: CI must test against the real server;
//   - otherwise the tests run against ktopo's embedded server (package
//     zkserver), started in-process; Kind reports "embedded" then.
package zktest

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/ktopo/ktopo/zkserver"
)

// ErrNotInstalled means the zookeeper package (Java server) is not installed.
var ErrNotInstalled = errors.New("Apache ZooKeeper is not installed (run scripts/zk-test-server install as root)")

var (
	shared     *Server // the package-wide server started by Main
	sharedAddr string  // its address (or the embedded server's)
	kind       = "apache"
)

// Main starts the package's ZooKeeper, runs the tests and stops it. It never
// returns. Each of after runs once the tests are done, before the server
// stops: what lives on the package's server (a shared Kafka cluster) ends
// first.
func Main(m *testing.M, after ...func()) {
	os.Exit(run(m, after))
}

func run(m *testing.M, after []func()) int {
	ReapStale()
	defer stopSharedEnsemble()
	srv, err := Start(Options{})
	switch {
	case err == nil:
		shared, sharedAddr = srv, srv.Addr()
		defer srv.Stop()
		if path := os.Getenv(ReportEnv); path != "" {
			// A run on another ZooKeeper version (see ClasspathEnv): every
			// request goes through a recorder, whose findings are written
			// once the tests are done, before the server stops.
			rec, rerr := NewRecorder(srv.Addr())
			if rerr != nil {
				fmt.Fprintf(os.Stderr, "zktest: recorder: %v\n", rerr)
				return 1
			}
			sharedAddr = rec.Addr()
			defer func() {
				if werr := writeReport(path, rec, srv); werr != nil {
					fmt.Fprintf(os.Stderr, "zktest: %v\n", werr)
				}
				rec.Close()
			}()
		}
	case errors.Is(err, ErrNotInstalled) && os.Getenv("CI") == "true":
		fmt.Fprintf(os.Stderr, "zktest: CI=true and %v\n", err)
		return 1
	case errors.Is(err, ErrNotInstalled):
		// No Java server here: use the embedded one so the tests still run.
		es, eerr := zkserver.Start(zkserver.Config{})
		if eerr != nil {
			fmt.Fprintf(os.Stderr, "zktest: embedded server: %v\n", eerr)
			return 1
		}
		defer es.Close()
		fmt.Fprintf(os.Stderr, "zktest: %v; running against the embedded server (zkserver) at %s\n", err, es.Addr())
		sharedAddr, kind = es.Addr(), "embedded"
	default:
		fmt.Fprintf(os.Stderr, "zktest: %v\n", err)
		return 1
	}
	serverVersion = probeVersion(sharedAddr)
	code := m.Run()
	for _, f := range after {
		f()
	}
	return code
}

// Addr returns the host:port of the package's server.
func Addr(t testing.TB) string {
	t.Helper()
	if sharedAddr == "" {
		t.Fatal("zktest: no server; call zktest.Main from TestMain")
	}
	return sharedAddr
}

// Kind reports which server the package runs against: "apache" or "embedded".
func Kind() string { return kind }

// SharedServer returns the Apache server started by Main (nil when the
// package runs against the embedded server or skips).
func SharedServer() *Server { return shared }

var chrootSeq struct {
	sync.Mutex
	n int
}

// Chroot creates a fresh, unique znode for the calling test and returns the
// connect string rooted there ("127.0.0.1:PORT/ktopo-test/<name>-<n>"), so
// tests sharing one server never see each other's data.
func Chroot(t testing.TB) string {
	t.Helper()
	return chrootOn(t, Addr(t))
}

// chrootOn creates a fresh chroot for t on the servers of addr and returns
// addr rooted there.
func chrootOn(t testing.TB, addr string) string {
	t.Helper()
	chrootSeq.Lock()
	chrootSeq.n++
	n := chrootSeq.n
	chrootSeq.Unlock()
	name := strings.NewReplacer("/", "_", " ", "_", "#", "_").Replace(t.Name())
	root := fmt.Sprintf("/ktopo-test/%s-%d-%d", name, os.Getpid(), n)
	conn := Connect(t, addr)
	if err := CreateAll(conn, root); err != nil {
		t.Fatalf("zktest: create chroot %s: %v", root, err)
	}
	return addr + root
}

// ChrootPath returns a fresh, unique chroot path for name on the package's
// server ("/ktopo-test/<name>-<pid>-<n>"), without creating it: for what
// outlives one test (a shared Kafka cluster creates its own chroot).
func ChrootPath(name string) string {
	chrootSeq.Lock()
	chrootSeq.n++
	n := chrootSeq.n
	chrootSeq.Unlock()
	return fmt.Sprintf("/ktopo-test/%s-%d-%d", name, os.Getpid(), n)
}

// SharedAddr returns the package's server address, or "" before Main.
func SharedAddr() string { return sharedAddr }

// CreateAll creates path and any missing parents with no data.
func CreateAll(conn Creator, path string) error { return CreateWith(conn, path, nil) }

// Creator is what CreateWith needs: go-zookeeper's Create, which *zk.Conn
// and ktopo's *zkwatch.Conn (chroot-aware) both have.
type Creator interface {
	Create(path string, data []byte, flags int32, acl []zk.ACL) (string, error)
}

// CreateWith creates path with data, and any missing parent without data;
// an existing node is left as it is.
func CreateWith(conn Creator, path string, data []byte) error {
	parts := strings.Split(strings.Trim(path, "/"), "/")
	cur := ""
	for i, part := range parts {
		cur += "/" + part
		var d []byte
		if i == len(parts)-1 {
			d = data
		}
		if _, err := conn.Create(cur, d, 0, zk.WorldACL(zk.PermAll)); err != nil && !errors.Is(err, zk.ErrNodeExists) {
			return err
		}
	}
	return nil
}

// Connect opens a plain go-zookeeper connection to addr (host:port, or
// several separated by commas; no chroot), waits for the session and closes it when the test ends.
func Connect(t testing.TB, addr string) *zk.Conn {
	t.Helper()
	conn, ev, err := zk.Connect(strings.Split(addr, ","), 10*time.Second, zk.WithLogInfo(false), zk.WithLogger(NewLogger(t)))
	if err != nil {
		t.Fatalf("zktest: connect %s: %v", addr, err)
	}
	t.Cleanup(conn.Close)
	deadline := time.After(15 * time.Second)
	for {
		select {
		case e := <-ev:
			if e.State == zk.StateHasSession {
				return conn
			}
		case <-deadline:
			t.Fatalf("zktest: no session with %s after 15s", addr)
		}
	}
}

// Options tune a dedicated server.
type Options struct {
	// TickTime in ms (default 2000); session timeouts are clamped to [2, 20] ticks.
	TickTime int
	// Port to bind; 0 picks a free one.
	Port int
	// Dir for the server's files; empty creates a temporary one (removed by Stop).
	Dir string
	// Classpath, when set, is the server's whole class path: another
	// ZooKeeper version than Debian's (kafkatest.FetchZooKeeper). Empty
	// means $KTOPO_ZK_CLASSPATH, else Debian's.
	Classpath string
	// TLS, when set, also serves TLS on a secureClientPort (Server.SecureAddr).
	TLS *TLS
	// JVMFlags are extra flags for the server's JVM, e.g.
	// "-Dzookeeper.DigestAuthenticationProvider.superDigest=super:…".
	JVMFlags []string
}

// TLS is a server's secureClientPort setup, as PEM files (ZooKeeper's
// ssl.keyStore.type=PEM): what a Kafka cluster's ZooKeeper TLS guide sets,
// with the Netty connection factory and x509 authentication.
type TLS struct {
	// KeyStore holds the server's private key and certificate chain.
	KeyStore string
	// TrustStore holds the CAs that sign client certificates.
	TrustStore string
	// ClientAuth is ssl.clientAuth: "need" (default), "want" or "none".
	ClientAuth string
}

// Server is one Apache ZooKeeper process started through the script.
type Server struct {
	dir        string
	port       int
	securePort int
	tick       int
	classpath  string
	tls        *TLS
	jvmFlags   []string
	ownsDir    bool
	// env is added to the script's environment (an ensemble member's id,
	// peers and limits).
	env []string
}

// Addr is the server's "127.0.0.1:PORT".
func (s *Server) Addr() string { return "127.0.0.1:" + strconv.Itoa(s.port) }

// SecureAddr is the server's TLS "127.0.0.1:PORT" ("" without Options.TLS).
func (s *Server) SecureAddr() string {
	if s.tls == nil {
		return ""
	}
	return "127.0.0.1:" + strconv.Itoa(s.securePort)
}

// Dir is the directory holding the server's config, data and logs.
func (s *Server) Dir() string { return s.dir }

// Log returns what the server has logged so far (its log file, then the
// JVM's own output).
func (s *Server) Log() string {
	var b strings.Builder
	for _, f := range []string{"zookeeper.log", "zookeeper.out"} {
		data, _ := os.ReadFile(filepath.Join(s.dir, f))
		b.Write(data)
	}
	return b.String()
}

// StartServer starts a dedicated server for one test (stopped at cleanup).
// It skips the test when Apache ZooKeeper is not installed and CI is unset.
func StartServer(t testing.TB, o Options) *Server {
	t.Helper()
	s, err := Start(o)
	skipOrFail(t, err)
	t.Cleanup(s.Stop)
	return s
}

// skipOrFail skips t when Apache ZooKeeper is not installed (a failure
// under CI=true) and fails it on any other error.
func skipOrFail(t testing.TB, err error) {
	t.Helper()
	if errors.Is(err, ErrNotInstalled) && os.Getenv("CI") != "true" {
		t.Skip("skipping: " + err.Error())
	}
	if err != nil {
		t.Fatalf("zktest: %v", err)
	}
}

// Start starts an Apache ZooKeeper server: Debian's, or the one of
// Options.Classpath, else of $KTOPO_ZK_CLASSPATH.
func Start(o Options) (*Server, error) {
	if o.Classpath == "" {
		o.Classpath = os.Getenv(ClasspathEnv)
	}
	if err := checkInstalled(o.Classpath); err != nil {
		return nil, err
	}
	s := &Server{dir: o.Dir, tick: o.TickTime, port: o.Port, classpath: o.Classpath, tls: o.TLS, jvmFlags: o.JVMFlags}
	if err := s.prepareDir(); err != nil {
		return nil, err
	}
	var err error
	var lastErr error
	for attempt := 0; attempt < 5; attempt++ {
		if o.Port == 0 {
			if s.port, err = FreePort(); err != nil {
				return nil, err
			}
		}
		if s.tls != nil {
			if s.securePort, err = FreePort(); err != nil {
				return nil, err
			}
		}
		if lastErr = s.start(); lastErr == nil {
			return s, nil
		}
		if o.Port != 0 {
			break
		}
	}
	if s.ownsDir {
		_ = os.RemoveAll(s.dir)
	}
	return nil, lastErr
}

// checkInstalled runs the script's check: ErrNotInstalled when Java or the
// jars are missing.
func checkInstalled(classpath string) error {
	script, err := Script()
	if err != nil {
		return err
	}
	check := exec.Command(script, "check")
	if classpath != "" {
		check.Env = append(os.Environ(), "ZK_CLASSPATH="+classpath)
	}
	if out, err := check.CombinedOutput(); err != nil {
		if ee := (*exec.ExitError)(nil); errors.As(err, &ee) && ee.ExitCode() == 3 {
			return ErrNotInstalled
		}
		return fmt.Errorf("%s check: %w: %s", script, err, out)
	}
	return nil
}

// prepareDir creates the server's directory (a fresh one under the shared
// base when none was given) and its owner file, which lets a later run
// tell whether the server is orphaned.
func (s *Server) prepareDir() error {
	if s.dir == "" {
		base := baseDir()
		if err := os.MkdirAll(base, 0o755); err != nil {
			return err
		}
		d, err := os.MkdirTemp(base, strconv.Itoa(os.Getpid())+"-")
		if err != nil {
			return err
		}
		s.dir, s.ownsDir = d, true
	}
	return os.WriteFile(filepath.Join(s.dir, "owner.pid"), []byte(strconv.Itoa(os.Getpid())), 0o644)
}

func (s *Server) start() error {
	script, err := Script()
	if err != nil {
		return err
	}
	cmd := exec.Command(script, "start", strconv.Itoa(s.port), s.dir)
	cmd.Env = os.Environ()
	if s.tick > 0 {
		cmd.Env = append(cmd.Env, "ZK_TICK_TIME="+strconv.Itoa(s.tick))
	}
	if s.classpath != "" {
		cmd.Env = append(cmd.Env, "ZK_CLASSPATH="+s.classpath)
	}
	if t := s.tls; t != nil {
		auth := t.ClientAuth
		if auth == "" {
			auth = "need"
		}
		cmd.Env = append(cmd.Env, "ZK_SECURE_PORT="+strconv.Itoa(s.securePort),
			"ZK_TLS_KEYSTORE="+t.KeyStore, "ZK_TLS_TRUSTSTORE="+t.TrustStore, "ZK_TLS_CLIENT_AUTH="+auth)
	}
	if len(s.jvmFlags) > 0 {
		cmd.Env = append(cmd.Env, "ZK_JVM_OPTS="+strings.Join(s.jvmFlags, " "))
	}
	cmd.Env = append(cmd.Env, s.env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("zk-test-server start %d %s: %w: %s", s.port, s.dir, err, strings.TrimSpace(stderr.String()))
	}
	return nil
}

// Stop stops the server and removes its directory if Start created it.
func (s *Server) Stop() {
	s.stop()
	if s.ownsDir {
		_ = os.RemoveAll(s.dir)
	}
}

func (s *Server) stop() {
	script, err := Script()
	if err != nil {
		return
	}
	_ = exec.Command(script, "stop", s.dir).Run()
}

// Restart stops the server and starts it again on the same port with the
// same data directory (its tree survives; sessions may expire meanwhile).
func (s *Server) Restart() error {
	s.stop()
	return s.start()
}

// Kill stops the server (SIGTERM, then SIGKILL) but keeps its directory, so
// Restart can bring it back with its data.
func (s *Server) Kill() { s.stop() }

// FourLetter sends a four-letter word and returns the reply.
func (s *Server) FourLetter(word string) (string, error) {
	return FourLetter(s.Addr(), word)
}

// FourLetter sends a four-letter word to addr and returns the reply.
func FourLetter(addr, word string) (string, error) {
	c, err := net.DialTimeout("tcp", addr, 3*time.Second)
	if err != nil {
		return "", err
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(3 * time.Second))
	if _, err := c.Write([]byte(word)); err != nil {
		return "", err
	}
	var buf bytes.Buffer
	_, err = buf.ReadFrom(c)
	return buf.String(), err
}

// ReapStale stops servers left behind by test processes that no longer run.
func ReapStale() {
	script, err := Script()
	if err != nil {
		return
	}
	entries, err := os.ReadDir(baseDir())
	if err != nil {
		return
	}
	for _, e := range entries {
		dir := filepath.Join(baseDir(), e.Name())
		b, err := os.ReadFile(filepath.Join(dir, "owner.pid"))
		if err != nil {
			if info, serr := os.Stat(dir); serr == nil && time.Since(info.ModTime()) > time.Hour {
				_ = exec.Command(script, "stop", dir).Run()
				_ = os.RemoveAll(dir)
			}
			continue
		}
		pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
		if err != nil || Alive(pid) {
			continue
		}
		_ = exec.Command(script, "stop", dir).Run()
		_ = os.RemoveAll(dir)
	}
}

// Alive reports whether process pid exists: what a reaper of leftovers
// from crashed test runs asks about their owners.
func Alive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

func baseDir() string { return filepath.Join(os.TempDir(), "ktopo-zktest") }

// FreePort returns a loopback port free at the time of asking, below the
// kernel's ephemeral range where it can: a server stopped and started
// again on its port (an ensemble member, a Kafka broker) would otherwise
// find it taken by some client connection's local port in the meantime
// (seen once in CI: a restarted ensemble member never came back).
func FreePort() (int, error) {
	if lo := ephemeralLow(); lo > 10000 {
		for range 64 {
			p := 10000 + rand.IntN(lo-10000)
			if l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(p)); err == nil {
				l.Close()
				return p, nil
			}
		}
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// ephemeralLow is the first port of the kernel's ephemeral range (0 when
// unknown).
func ephemeralLow() int {
	b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return 0
	}
	lo, _ := strconv.Atoi(f[0])
	return lo
}

// Script locates zk-test-server: $KTOPO_ZK_TEST_SERVER, else the
// module's scripts/zk-test-server.
func Script() (string, error) {
	if p := os.Getenv("KTOPO_ZK_TEST_SERVER"); p != "" {
		return p, nil
	}
	root, err := ModuleRoot()
	if err != nil {
		return "", err
	}
	p := filepath.Join(root, "scripts", "zk-test-server")
	if _, err := os.Stat(p); err != nil {
		return "", fmt.Errorf("%w: %s not found (set KTOPO_ZK_TEST_SERVER)", ErrNotInstalled, p)
	}
	return p, nil
}

// ModuleRoot returns the directory holding go.mod, found upwards from the
// working directory (go test runs in the package directory).
func ModuleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("zktest: go.mod not found above the working directory")
		}
		dir = parent
	}
}
