package kafkatest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/ktopo/ktopo/internal/testkit/zktest"
)

// Role is what a Kafka server process is: a ZooKeeper-mode broker, or in
// KRaft mode the value of its process.roles.
type Role string

// The roles of a Node.
const (
	// ZKBroker is a broker in ZooKeeper mode (broker.id, zookeeper.connect;
	// during a migration also with zookeeper.metadata.migration.enable).
	ZKBroker Role = "zk-broker"
	// KRaftBroker is process.roles=broker.
	KRaftBroker Role = "broker"
	// KRaftController is process.roles=controller.
	KRaftController Role = "controller"
	// Combined is process.roles=broker,controller: one process, both roles.
	Combined Role = "broker,controller"
)

// IsBroker reports whether a node of this role serves clients (a broker
// listener, partitions).
func (r Role) IsBroker() bool { return r != KRaftController }

// IsController reports whether a node of this role is a KRaft controller
// (a voter of the metadata quorum).
func (r Role) IsController() bool { return r == KRaftController || r == Combined }

// Node is one Kafka server process: a broker of a ZooKeeper-mode Cluster,
// or a KRaft broker, controller or combined node of a KRaftCluster or a
// Migration. It can be stopped, killed, paused and started again with the
// same id, ports and data; a Migration changes its Role between starts
// (the same broker, restarted in KRaft mode).
type Node struct {
	// ID is broker.id (ZooKeeper mode) or node.id (KRaft).
	ID int
	// Rack is broker.rack ("" for none; controllers have none).
	Rack string
	// Port is the PLAINTEXT listener of a broker (0 for a controller).
	Port int
	// ControllerPort is the CONTROLLER listener of a KRaft controller or
	// combined node (0 for a broker).
	ControllerPort int
	// SASLPort is the SASL_PLAINTEXT listener of a KRaft broker of a
	// cluster with SASL users (KRaftOptions.SASLUsers; 0 otherwise).
	SASLPort int
	// SSLPort is the SSL listener of a KRaft broker of a cluster with a
	// TLS listener (KRaftOptions.TLS; 0 otherwise).
	SSLPort int
	// Role is what the node runs as at its next start (and, while it runs,
	// what it was started as).
	Role Role

	dist *Dist
	dir  string // the cluster's directory
	name string // "broker-1", "controller-3000", "node-1": its files' names
	heap string
	conf func(*Node) map[string]string // server.properties, asked at each start

	mu      sync.Mutex
	cmd     *exec.Cmd
	exited  chan struct{}
	started time.Time
	role    Role // what it was started as
	wantUp  bool // started and not stopped or killed since
	runs    int  // how many times it was started
}

// Broker is a node of a ZooKeeper-mode Cluster (the name the ZooKeeper-mode
// rig has always used).
type Broker = Node

func newNode(id int, role Role, name string, dist *Dist, dir, heap string, conf func(*Node) map[string]string) *Node {
	return &Node{ID: id, Role: role, dist: dist, dir: dir, name: name, heap: heap, conf: conf}
}

// Name is the node's name in its cluster's directory ("broker-1",
// "controller-3000", "node-1"): its properties, log and data are
// <name>.properties, <name>.log and <name>-data there.
func (n *Node) Name() string { return n.name }

// Addr is the node's PLAINTEXT (broker) listener, "" for a controller.
func (n *Node) Addr() string {
	if n.Port == 0 {
		return ""
	}
	return "127.0.0.1:" + strconv.Itoa(n.Port)
}

// SASLAddr is the node's SASL_PLAINTEXT listener, "" when it has none.
func (n *Node) SASLAddr() string {
	if n.SASLPort == 0 {
		return ""
	}
	return "127.0.0.1:" + strconv.Itoa(n.SASLPort)
}

// SSLAddr is the node's SSL listener, "" when it has none.
func (n *Node) SSLAddr() string {
	if n.SSLPort == 0 {
		return ""
	}
	return "127.0.0.1:" + strconv.Itoa(n.SSLPort)
}

// ControllerAddr is the node's CONTROLLER listener, "" when it has none.
func (n *Node) ControllerAddr() string {
	if n.ControllerPort == 0 {
		return ""
	}
	return "127.0.0.1:" + strconv.Itoa(n.ControllerPort)
}

// LogFile is the node's log (all of Kafka's loggers, one file).
func (n *Node) LogFile() string { return filepath.Join(n.dir, n.name+".log") }

// OutFile is what the node's JVM printed itself (crashes, JVM warnings).
func (n *Node) OutFile() string { return filepath.Join(n.dir, n.name+".out") }

// PropertiesFile is the server.properties the node was last started with.
func (n *Node) PropertiesFile() string { return filepath.Join(n.dir, n.name+".properties") }

// DataDir is the node's log.dirs (with the KRaft metadata log, for
// controllers).
func (n *Node) DataDir() string { return filepath.Join(n.dir, n.name+"-data") }

func (n *Node) pidFile() string { return filepath.Join(n.dir, n.name+".pid") }

// Running reports whether the node's process is alive.
func (n *Node) Running() bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.runningLocked()
}

func (n *Node) runningLocked() bool {
	if n.cmd == nil {
		return false
	}
	select {
	case <-n.exited:
		return false
	default:
		return true
	}
}

// crashed reports whether the node's process ended although nobody
// stopped or killed it (a bad configuration, a fatal error).
func (n *Node) crashed() bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.wantUp && !n.runningLocked()
}

// everStarted reports whether the node was started at least once.
func (n *Node) everStarted() bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.cmd != nil
}

// StartedAt is when the node's process was last started (zero if never).
func (n *Node) StartedAt() time.Time {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.started
}

// Pid is the node's process id (0 when it does not run).
func (n *Node) Pid() int {
	n.mu.Lock()
	defer n.mu.Unlock()
	if !n.runningLocked() {
		return 0
	}
	return n.cmd.Process.Pid
}

// Runs counts the node's starts: its current log is LogFile, the log of
// its run k < Runs() is LogFile()+".k".
func (n *Node) Runs() int {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.runs
}

// Properties returns the server.properties the node gets at its next
// start (its role's defaults and the cluster's extra properties).
func (n *Node) Properties() map[string]string { return n.conf(n) }

// Start starts the node's process (again, after Stop or Kill: same id,
// ports and data) with its current Role. It does not wait for the node
// to be ready: the cluster's WaitReady does.
func (n *Node) Start() error {
	if n.Running() {
		return nil
	}
	if n.Port == 0 && n.Role.IsBroker() {
		p, err := zktest.FreePort()
		if err != nil {
			return err
		}
		n.Port = p
	}
	if err := os.WriteFile(n.PropertiesFile(), []byte(propertiesText(n.conf(n))), 0o644); err != nil {
		return err
	}
	// Kafka's logger truncates its file: the log of the node's previous
	// run is kept as <name>.log.<run>.
	n.mu.Lock()
	n.runs++
	run := n.runs
	n.mu.Unlock()
	if run > 1 {
		_ = os.Rename(n.LogFile(), fmt.Sprintf("%s.%d", n.LogFile(), run-1))
	}
	out, err := os.OpenFile(n.OutFile(), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	cds := classSharing(n.dist, cdsKind(n.Role))
	args := append(jvmArgs(n.heap), cds.flags...)
	args = append(args,
		"-Dorg.slf4j.simpleLogger.logFile="+n.LogFile(),
		"-Dorg.slf4j.simpleLogger.showDateTime=true",
		"-Dorg.slf4j.simpleLogger.dateTimeFormat=HH:mm:ss.SSS",
		"-Dktopo.kafkatest.dir="+n.dir, // lets ReapStale recognise the process
		"-cp", n.dist.Classpath(), "kafka.Kafka", n.PropertiesFile())
	cmd := exec.Command("java", args...)
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		out.Close()
		return fmt.Errorf("kafkatest: start %s: %w", n.name, err)
	}
	exited := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		out.Close()
		cds.done()
		close(exited)
	}()
	n.mu.Lock()
	n.cmd, n.exited, n.started, n.role, n.wantUp = cmd, exited, time.Now(), n.Role, true
	n.mu.Unlock()
	return os.WriteFile(n.pidFile(), []byte(strconv.Itoa(cmd.Process.Pid)), 0o644)
}

// Stop stops the node cleanly (SIGTERM: a broker's controlled shutdown,
// its leaderships moved first) and waits, killing it after 45 s.
func (n *Node) Stop() { n.signal(syscall.SIGTERM, 45*time.Second) }

// Kill kills the node (SIGKILL): no controlled shutdown. A ZooKeeper-mode
// broker's registration disappears when its session expires, a KRaft
// broker is fenced when its heartbeats stop for the session timeout.
func (n *Node) Kill() { n.signal(syscall.SIGKILL, 10*time.Second) }

// Restart stops the node cleanly and starts it again (with its current
// Role and properties).
func (n *Node) Restart() error {
	n.Stop()
	return n.Start()
}

func (n *Node) signal(sig syscall.Signal, wait time.Duration) {
	n.mu.Lock()
	cmd, exited := n.cmd, n.exited
	n.wantUp = false
	n.mu.Unlock()
	if cmd == nil {
		return
	}
	_ = cmd.Process.Signal(sig)
	_ = cmd.Process.Signal(syscall.SIGCONT) // a paused node cannot act on SIGTERM
	select {
	case <-exited:
	case <-time.After(wait):
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-exited
	}
	_ = os.Remove(n.pidFile())
}

// Pause freezes the node's process (SIGSTOP), as a long GC pause or a
// stalled machine would: its sockets stay open, it sends nothing, and its
// ZooKeeper session expires (or its KRaft heartbeats lapse) while it is
// frozen.
func (n *Node) Pause() { n.sendSignal(syscall.SIGSTOP) }

// Resume lets a paused node run again (SIGCONT). A ZooKeeper-mode broker
// frozen for longer than its session timeout finds its session expired
// and registers again with a new one.
func (n *Node) Resume() { n.sendSignal(syscall.SIGCONT) }

func (n *Node) sendSignal(sig syscall.Signal) {
	n.mu.Lock()
	cmd := n.cmd
	n.mu.Unlock()
	if cmd != nil && cmd.Process != nil {
		_ = cmd.Process.Signal(sig)
	}
}

// logTail is the last lines of what the node printed and logged.
func (n *Node) logTail(lines int) string {
	return fmt.Sprintf("--- %s (%s) ---\n%s\n%s\n", n.name, n.LogFile(), tail(readFile(n.OutFile()), 10), tail(readFile(n.LogFile()), lines))
}

// exitedError reports a node that was started and is no longer running
// although it should be, with what it printed.
func (n *Node) exitedError() error {
	return fmt.Errorf("kafkatest: %s exited\n%s\n%s", n.name, tail(readFile(n.OutFile()), 20), tail(readFile(n.LogFile()), 20))
}

// propertiesText writes a server.properties, sorted by key.
func propertiesText(p map[string]string) string {
	keys := make([]string, 0, len(p))
	for k := range p {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var sb strings.Builder
	for _, k := range keys {
		sb.WriteString(k + "=" + p[k] + "\n")
	}
	return sb.String()
}

// stopAll stops nodes cleanly, in parallel.
func stopAll(nodes []*Node) {
	var wg sync.WaitGroup
	for _, n := range nodes {
		wg.Add(1)
		go func() { defer wg.Done(); n.Stop() }()
	}
	wg.Wait()
}

// startAll starts nodes in parallel (each JVM takes seconds to start).
func startAll(nodes []*Node) error {
	errs := make([]error, len(nodes))
	var wg sync.WaitGroup
	for i, n := range nodes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = n.Start()
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
