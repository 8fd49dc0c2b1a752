package zktest

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// EnsembleOptions tune StartEnsemble. The zero value is a 3-server
// ensemble of Debian's ZooKeeper (or $KTOPO_ZK_CLASSPATH's).
type EnsembleOptions struct {
	// Servers in the ensemble (default 3).
	Servers int
	// TickTime in ms (default 500: a failover takes a few ticks).
	TickTime int
	// MaxSessionTimeout in ms (default 30000, above the 20 ticks ZooKeeper
	// would allow), so that tests can ask for sessions that outlive a
	// failover; the minimum stays 2 ticks.
	MaxSessionTimeout int
	// Classpath is every server's class path (another ZooKeeper version,
	// kafkatest.FetchZooKeeper); empty means $KTOPO_ZK_CLASSPATH, else
	// Debian's.
	Classpath string
	// Heap is each server's maximum heap (default "64m").
	Heap string
}

// Ensemble is a ZooKeeper ensemble on loopback: one QuorumPeerMain per
// server, each with its own client, quorum and election ports and its own
// directory (admin server off, a small heap). Servers are numbered from
// 0 here (their ZooKeeper ids are 1..n). Its methods are safe for
// concurrent use.
type Ensemble struct {
	servers []*Server
	mu      sync.Mutex
	up      []bool
}

// StartEnsemble starts every server and waits until the ensemble serves
// (a leader elected, the others following).
func StartEnsemble(o EnsembleOptions) (*Ensemble, error) {
	if o.Servers <= 0 {
		o.Servers = 3
	}
	if o.TickTime <= 0 {
		o.TickTime = 500
	}
	if o.MaxSessionTimeout <= 0 {
		o.MaxSessionTimeout = 30000
	}
	if o.Heap == "" {
		o.Heap = "64m"
	}
	if o.Classpath == "" {
		o.Classpath = os.Getenv(ClasspathEnv)
	}
	if err := checkInstalled(o.Classpath); err != nil {
		return nil, err
	}
	var lastErr error
	// Free ports are picked, then bound by the JVMs: another process can
	// take one in between, so a failed start is tried again on new ports.
	for range 3 {
		e, err := startEnsemble(o)
		if err == nil {
			return e, nil
		}
		lastErr = err
	}
	return nil, lastErr
}

func startEnsemble(o EnsembleOptions) (*Ensemble, error) {
	e := &Ensemble{up: make([]bool, o.Servers)}
	ports := make([]int, 3*o.Servers)
	for i := range ports {
		p, err := FreePort()
		if err != nil {
			return nil, err
		}
		ports[i] = p
	}
	var peers []string
	for i := range o.Servers {
		peers = append(peers, fmt.Sprintf("%d=%d:%d", i+1, ports[3*i+1], ports[3*i+2]))
	}
	for i := range o.Servers {
		s := &Server{port: ports[3*i], tick: o.TickTime, classpath: o.Classpath, env: []string{
			"ZK_MYID=" + strconv.Itoa(i+1),
			"ZK_PEERS=" + strings.Join(peers, " "),
			"ZK_HEAP=" + o.Heap,
			"ZK_MAX_SESSION_TIMEOUT=" + strconv.Itoa(o.MaxSessionTimeout),
		}}
		if err := s.prepareDir(); err != nil {
			e.Stop()
			return nil, err
		}
		e.servers = append(e.servers, s)
	}
	// Each start waits until its server serves, which needs a quorum:
	// they start together.
	errs := make([]error, o.Servers)
	var wg sync.WaitGroup
	for i, s := range e.servers {
		wg.Go(func() { errs[i] = s.start() })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		e.Stop()
		return nil, err
	}
	for i := range e.up {
		e.up[i] = true
	}
	return e, nil
}

// NewEnsemble starts an ensemble for one test (stopped at cleanup). It
// skips the test when Apache ZooKeeper is not installed and CI is unset.
func NewEnsemble(t testing.TB, o EnsembleOptions) *Ensemble {
	t.Helper()
	e, err := StartEnsemble(o)
	skipOrFail(t, err)
	t.Cleanup(e.Stop)
	return e
}

var sharedEnsemble struct {
	sync.Mutex
	e   *Ensemble
	err error
}

// SharedEnsemble returns the package's 3-server ensemble, started on first
// use and stopped by Main after the tests, so that a package's tests pay
// for one ensemble. When the test ends, every server it stopped is
// started again and the ensemble serves before the next test. It skips
// the test when Apache ZooKeeper is not installed and CI is unset.
func SharedEnsemble(t testing.TB) *Ensemble {
	t.Helper()
	sharedEnsemble.Lock()
	if sharedEnsemble.e == nil && sharedEnsemble.err == nil {
		sharedEnsemble.e, sharedEnsemble.err = StartEnsemble(EnsembleOptions{})
	}
	e, err := sharedEnsemble.e, sharedEnsemble.err
	sharedEnsemble.Unlock()
	skipOrFail(t, err)
	if err := e.Heal(); err != nil {
		t.Fatalf("zktest: ensemble: %v", err)
	}
	t.Cleanup(func() {
		if err := e.Heal(); err != nil {
			t.Errorf("zktest: ensemble after the test: %v", err)
		}
	})
	return e
}

// stopSharedEnsemble stops the package's ensemble, if one was started.
func stopSharedEnsemble() {
	sharedEnsemble.Lock()
	defer sharedEnsemble.Unlock()
	if sharedEnsemble.e != nil {
		sharedEnsemble.e.Stop()
		sharedEnsemble.e = nil
	}
}

// Len is the number of servers.
func (e *Ensemble) Len() int { return len(e.servers) }

// Addr is server i's client address, "127.0.0.1:PORT".
func (e *Ensemble) Addr(i int) string { return e.servers[i].Addr() }

// Addrs are every server's client address, in order.
func (e *Ensemble) Addrs() []string {
	out := make([]string, len(e.servers))
	for i, s := range e.servers {
		out[i] = s.Addr()
	}
	return out
}

// Connect is the ensemble's connect string, "127.0.0.1:P1,127.0.0.1:P2,…".
func (e *Ensemble) Connect() string { return strings.Join(e.Addrs(), ",") }

// Index returns the server whose client address is addr, -1 if none.
func (e *Ensemble) Index(addr string) int {
	for i, s := range e.servers {
		if s.Addr() == addr {
			return i
		}
	}
	return -1
}

// Server returns server i.
func (e *Ensemble) Server(i int) *Server { return e.servers[i] }

// Up reports whether server i runs (as far as Kill and Start know).
func (e *Ensemble) Up(i int) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.up[i]
}

// Kill crashes server i (SIGKILL: no goodbye to its peers or clients; the
// operating system closes its sockets). Its data stays for Start.
func (e *Ensemble) Kill(i int) error {
	script, err := Script()
	if err != nil {
		return err
	}
	cmd := exec.Command(script, "stop", e.servers[i].dir)
	cmd.Env = append(os.Environ(), "ZK_STOP_SIGNAL=KILL")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("zktest: kill server %d: %w: %s", i, err, out)
	}
	e.mu.Lock()
	e.up[i] = false
	e.mu.Unlock()
	// The process is gone once its pid is; its listening sockets a moment
	// later, and Start needs the ports free.
	deadline := time.Now().Add(10 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", e.servers[i].Addr(), time.Second)
		if err != nil {
			return nil
		}
		_ = c.Close()
		if time.Now().After(deadline) {
			return fmt.Errorf("zktest: server %d still listens on %s after its kill", i, e.servers[i].Addr())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Start starts server i again with its data. When it makes a quorum with
// the servers up, it waits until it serves; otherwise until it listens on
// its client port (it answers no client until a quorum forms).
func (e *Ensemble) Start(i int) error {
	e.mu.Lock()
	n := 1
	for j, u := range e.up {
		if u && j != i {
			n++
		}
	}
	e.mu.Unlock()
	s := e.servers[i]
	env := s.env
	if n <= len(e.servers)/2 {
		s.env = append(append([]string(nil), env...), "ZK_READY=listening")
	}
	err := s.start()
	s.env = env
	if err != nil {
		return err
	}
	e.mu.Lock()
	e.up[i] = true
	e.mu.Unlock()
	return nil
}

// Mode asks server i what it is: "leader", "follower", "not serving" (up,
// without a quorum) or "down" (no answer).
func (e *Ensemble) Mode(i int) string {
	reply, err := FourLetter(e.servers[i].Addr(), "srvr")
	switch {
	case err != nil && reply == "":
		return "down"
	case strings.Contains(reply, "not currently serving"):
		return "not serving"
	}
	for _, l := range strings.Split(reply, "\n") {
		if m, ok := strings.CutPrefix(l, "Mode: "); ok {
			return strings.TrimSpace(m)
		}
	}
	return "down"
}

// Leader returns the server that leads, -1 when none does.
func (e *Ensemble) Leader() int {
	for i := range e.servers {
		if e.Up(i) && e.Mode(i) == "leader" {
			return i
		}
	}
	return -1
}

// Follower returns a server other than not that follows, -1 when none.
func (e *Ensemble) Follower(not int) int {
	for i := range e.servers {
		if i != not && e.Up(i) && e.Mode(i) == "follower" {
			return i
		}
	}
	return -1
}

// WaitServing waits until every server that is up serves (one leader, the
// others following), at most timeout.
func (e *Ensemble) WaitServing(timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		modes, leaders, ok := e.modes()
		if ok && leaders == 1 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("ensemble not serving after %s: %s", timeout, strings.Join(modes, ", "))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// modes lists every server's mode; ok when every server up serves.
func (e *Ensemble) modes() (modes []string, leaders int, ok bool) {
	ok = true
	for i := range e.servers {
		m := "stopped"
		if e.Up(i) {
			m = e.Mode(i)
			switch m {
			case "leader":
				leaders++
			case "follower":
			default:
				ok = false
			}
		}
		modes = append(modes, fmt.Sprintf("%d %s", i, m))
	}
	return modes, leaders, ok
}

// Heal starts every server that is down, together (a lone server of a
// stopped majority would wait for the others), and waits until all serve.
func (e *Ensemble) Heal() error {
	errs := make([]error, len(e.servers))
	var wg sync.WaitGroup
	for i, s := range e.servers {
		if e.Up(i) {
			continue
		}
		wg.Go(func() {
			if errs[i] = s.start(); errs[i] == nil {
				e.mu.Lock()
				e.up[i] = true
				e.mu.Unlock()
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return err
	}
	return e.WaitServing(60 * time.Second)
}

// Stop stops every server and removes their directories.
func (e *Ensemble) Stop() {
	var wg sync.WaitGroup
	for _, s := range e.servers {
		wg.Go(s.Stop)
	}
	wg.Wait()
	e.mu.Lock()
	clear(e.up)
	e.mu.Unlock()
}

// Log returns what server i has logged so far.
func (e *Ensemble) Log(i int) string { return e.servers[i].Log() }

// Chroot creates a fresh, unique znode for the calling test on the
// ensemble and returns the connect string rooted there
// ("127.0.0.1:P1,…/ktopo-test/<name>-<n>").
func (e *Ensemble) Chroot(t testing.TB) string {
	t.Helper()
	return chrootOn(t, e.Connect())
}
