package kafkatest

import (
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/ktopo/ktopo/internal/testkit/zktest"
)

// Options describe a cluster of real Kafka brokers in ZooKeeper mode.
type Options struct {
	// Version is the Kafka version (Kafka39, Kafka28).
	Version string
	// Connect is the ZooKeeper connect string with a chroot
	// ("127.0.0.1:2181/kafka"); the brokers create the chroot.
	Connect string
	// Brokers is the number of brokers, ids 1..N (default 3).
	Brokers int
	// Racks spreads the brokers round-robin over racks rack-a, rack-b, …
	// (default 3; -1: no broker.rack at all).
	Racks int
	// SessionTimeout is zookeeper.session.timeout.ms (default 6s), short so
	// that a killed broker's registration expires quickly.
	SessionTimeout time.Duration
	// Props are extra server.properties entries (they win over the defaults).
	Props map[string]string
	// Dir holds each broker's data, properties and logs; empty makes a
	// temporary directory that Stop removes.
	Dir string
	// Heap is the brokers' -Xmx (default 384m).
	Heap string
	// ZKTLS, when set, is how kafkatest's own ZooKeeper client (WaitReady,
	// Controller) dials Connect's servers: their secureClientPort. The
	// brokers' TLS settings go in Props (zookeeper.ssl.*).
	ZKTLS *tls.Config
	// FirstController, when set, is the id of a broker started alone
	// first: it wins the first election (controller epoch 1) and the
	// others start once it is elected. A scenario that kills "the
	// controller" can then name it in advance (the sandbox's first
	// controller is broker 1, the first it starts). 0: all start at once
	// and any may win.
	FirstController int
}

// Cluster is a set of running Kafka broker processes in ZooKeeper mode.
type Cluster struct {
	dist    *Dist
	opts    Options
	hosts   []string // ZooKeeper servers
	chroot  string
	dir     string
	ownsDir bool
	brokers []*Broker
}

// Start fetches the Kafka version if needed, starts the brokers and waits
// until every broker is registered and a controller is elected. A start
// that lost a port chosen free to another server is made again on other
// ports (as StartKRaft does), up to three times.
func Start(o Options) (*Cluster, error) {
	for attempt := 1; ; attempt++ {
		// A failed start is stopped, its directory removed when it was
		// its own (no Dir given).
		c, err := startCluster(o)
		if err == nil || !portTaken(err) || o.Dir != "" || attempt == 3 {
			return c, err
		}
	}
}

func startCluster(o Options) (*Cluster, error) {
	c, err := newCluster(o)
	if err != nil {
		return nil, err
	}
	rest := c.brokers
	if first := c.Broker(c.opts.FirstController); first != nil {
		if err := first.Start(); err != nil {
			c.Stop()
			return nil, err
		}
		if err := c.WaitReady(2 * time.Minute); err != nil {
			err = fmt.Errorf("%w\n%s", err, c.LogTails(40))
			c.Stop()
			return nil, err
		}
		rest = slices.DeleteFunc(slices.Clone(rest), func(b *Broker) bool { return b == first })
	}
	if err := startAll(rest); err != nil {
		c.Stop()
		return nil, err
	}
	if err := c.WaitReady(2 * time.Minute); err != nil {
		err = fmt.Errorf("%w\n%s", err, c.LogTails(40))
		c.Stop()
		return nil, err
	}
	return c, nil
}

// newCluster fetches the jars, makes the directory and the brokers, and
// starts nothing.
func newCluster(o Options) (*Cluster, error) {
	if o.Brokers <= 0 {
		o.Brokers = 3
	}
	if o.Racks == 0 {
		o.Racks = 3
	}
	if o.SessionTimeout <= 0 {
		o.SessionTimeout = 6 * time.Second
	}
	if o.Heap == "" {
		o.Heap = "384m"
	}
	hosts, chroot, err := splitConnect(o.Connect)
	if err != nil {
		return nil, err
	}
	dist, err := FetchKafka(o.Version)
	if err != nil {
		return nil, err
	}
	c := &Cluster{dist: dist, opts: o, hosts: hosts, chroot: chroot}
	if c.dir, c.ownsDir, err = makeDir(o.Dir); err != nil {
		return nil, err
	}
	for id := 1; id <= o.Brokers; id++ {
		b := newNode(id, ZKBroker, fmt.Sprintf("broker-%d", id), dist, c.dir, o.Heap, c.zkBrokerProps)
		if o.Racks > 0 {
			b.Rack = rackName(id, o.Racks)
		}
		c.brokers = append(c.brokers, b)
	}
	return c, nil
}

// makeDir returns dir, or makes a temporary directory (owned: Stop removes
// it), with the owner file that lets a later run reap what a crashed test
// left there.
func makeDir(dir string) (string, bool, error) {
	// The first cluster of a test process reaps what crashed ones left.
	reapOnce.Do(ReapStale)
	owned := false
	if dir == "" {
		if err := os.MkdirAll(baseDir(), 0o755); err != nil {
			return "", false, err
		}
		var err error
		if dir, err = os.MkdirTemp(baseDir(), strconv.Itoa(os.Getpid())+"-"); err != nil {
			return "", false, err
		}
		owned = true
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", false, err
	}
	if err := os.WriteFile(filepath.Join(dir, "owner.pid"), []byte(strconv.Itoa(os.Getpid())), 0o644); err != nil {
		return "", false, err
	}
	return dir, owned, nil
}

// rackName is the rack of broker id among racks: rack-a, rack-b, … round-robin.
func rackName(id, racks int) string { return "rack-" + string(rune('a'+(id-1)%racks)) }

// Version is the cluster's Kafka version.
func (c *Cluster) Version() string { return c.dist.Version }

// Dist is the cluster's Kafka jars.
func (c *Cluster) Dist() *Dist { return c.dist }

// Connect is the ZooKeeper connect string with the chroot, as ktopo's
// --zookeeper takes it.
func (c *Cluster) Connect() string { return strings.Join(c.hosts, ",") + c.chroot }

// Chroot is the cluster's ZooKeeper chroot ("/kafka-…").
func (c *Cluster) Chroot() string { return c.chroot }

// Bootstrap is the brokers' listener list for Kafka clients and tools.
func (c *Cluster) Bootstrap() string { return bootstrap(c.brokers) }

// bootstrap joins the broker listeners of nodes.
func bootstrap(nodes []*Node) string {
	var out []string
	for _, n := range nodes {
		if a := n.Addr(); a != "" && n.Role.IsBroker() {
			out = append(out, a)
		}
	}
	return strings.Join(out, ",")
}

// Dir holds the brokers' data, properties and logs.
func (c *Cluster) Dir() string { return c.dir }

// Brokers returns every broker, running or not, by id.
func (c *Cluster) Brokers() []*Broker { return c.brokers }

// Nodes returns every broker (what Attach prints the logs of).
func (c *Cluster) Nodes() []*Node { return c.brokers }

// Broker returns the broker with id (nil if none).
func (c *Cluster) Broker(id int) *Broker { return nodeByID(c.brokers, id) }

func nodeByID(nodes []*Node, id int) *Node {
	for _, n := range nodes {
		if n.ID == id {
			return n
		}
	}
	return nil
}

// zkBrokerProps is a ZooKeeper-mode broker's server.properties: loopback,
// small, fast to fail over, nothing created behind the tests' backs.
func (c *Cluster) zkBrokerProps(b *Broker) map[string]string {
	o := c.opts
	p := commonProps(b, o.Brokers)
	p["broker.id"] = strconv.Itoa(b.ID)
	p["listeners"] = "PLAINTEXT://" + b.Addr()
	p["advertised.listeners"] = "PLAINTEXT://" + b.Addr()
	p["zookeeper.connect"] = c.Connect()
	p["zookeeper.session.timeout.ms"] = strconv.FormatInt(o.SessionTimeout.Milliseconds(), 10)
	p["zookeeper.connection.timeout.ms"] = "30000"
	p["controlled.shutdown.retry.backoff.ms"] = "500"
	for k, v := range o.Props {
		p[k] = v
	}
	return p
}

// commonProps are the server.properties every broker of every mode gets:
// its data, small thread pools, no log cleaner, internal topics sized to
// the cluster.
func commonProps(n *Node, brokers int) map[string]string {
	rf := strconv.Itoa(max(1, min(3, brokers)))
	p := map[string]string{
		"log.dirs":                                 n.DataDir(),
		"offsets.topic.replication.factor":         rf,
		"offsets.topic.num.partitions":             "5",
		"transaction.state.log.replication.factor": rf,
		"transaction.state.log.min.isr":            "1",
		"group.initial.rebalance.delay.ms":         "0",
		"auto.create.topics.enable":                "false",
		"num.network.threads":                      "2",
		"num.io.threads":                           "2",
		"background.threads":                       "2",
		"num.recovery.threads.per.data.dir":        "1",
		"log.cleaner.enable":                       "false", // its dedupe buffer alone is 128 MiB of heap
	}
	if n.Rack != "" {
		p["broker.rack"] = n.Rack
	}
	return p
}

// jvmArgs keep the JVMs small and quick to start on a 2-core machine.
func jvmArgs(heap string) []string {
	return []string{"-Xms64m", "-Xmx" + heap, "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
		"-Xss512k", "-Djava.awt.headless=true"}
}

// Running returns the brokers whose process is alive.
func (c *Cluster) Running() []*Broker {
	var out []*Broker
	for _, b := range c.brokers {
		if b.Running() {
			out = append(out, b)
		}
	}
	return out
}

// WaitReady waits until every running broker is registered in ZooKeeper
// (and no stopped one is), a controller is elected among them, and every
// running broker's Metadata names that controller and lists them all.
func (c *Cluster) WaitReady(timeout time.Duration) error {
	conn, err := c.zk()
	if err != nil {
		return err
	}
	defer conn.Close()
	deadline := time.Now().Add(timeout)
	var last string
	for {
		var want []int
		for _, b := range c.brokers {
			if b.Running() {
				want = append(want, b.ID)
			}
		}
		for _, b := range c.brokers {
			if b.crashed() {
				return b.exitedError()
			}
		}
		ids, _, err := conn.Children(c.chroot + "/brokers/ids")
		got := atoiAll(ids)
		ctrl, _, cerr := conn.Get(c.chroot + "/controller")
		stale := staleRegistration(conn, c.chroot, c.brokers)
		switch {
		case err != nil:
			last = "no /brokers/ids yet"
		case !slices.Equal(got, want):
			last = fmt.Sprintf("registered brokers %v, running %v", got, want)
		case stale != "":
			last = stale
		case cerr != nil:
			last = "no controller yet"
		case !slices.Contains(want, controllerID(ctrl)):
			last = fmt.Sprintf("controller %d is not a running broker", controllerID(ctrl))
		default:
			// The controller must have acted on every registration too:
			// ZooKeeper shows a broker before the controller has handled
			// its arrival, and a topic created in between gets the
			// controller's older view (a broker missing from its first
			// ISR, which joins later, at the end).
			why := brokersSee(c.Running(), want, controllerID(ctrl))
			if why == "" {
				return nil
			}
			last = why
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("kafkatest: cluster not ready after %s: %s", timeout, last)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// staleRegistration names a running ZooKeeper-mode broker whose
// /brokers/ids/N was made before the broker's process started: the
// registration of its previous run, whose session (a killed process's)
// has not expired yet. The new process fails its own registration then
// and exits; until it does, the old one must not count. "" when none.
func staleRegistration(conn *zk.Conn, chroot string, brokers []*Node) string {
	for _, b := range brokers {
		if !b.Running() || b.Role != ZKBroker {
			continue
		}
		_, st, err := conn.Exists(chroot + "/brokers/ids/" + strconv.Itoa(b.ID))
		if err != nil || st == nil {
			continue
		}
		// Both clocks are this machine's; ZooKeeper's is in milliseconds.
		if st.Ctime < b.StartedAt().UnixMilli()-5 {
			return fmt.Sprintf("broker %d's registration is its previous run's", b.ID)
		}
	}
	return ""
}

// Controller returns the id of the active controller and the controller
// epoch, read from ZooKeeper (-1 when none).
func (c *Cluster) Controller() (id, epoch int, err error) {
	conn, err := c.zk()
	if err != nil {
		return -1, -1, err
	}
	defer conn.Close()
	ctrl, _, err := conn.Get(c.chroot + "/controller")
	if errors.Is(err, zk.ErrNoNode) {
		id = -1
	} else if err != nil {
		return -1, -1, err
	} else {
		id = controllerID(ctrl)
	}
	e, _, err := conn.Get(c.chroot + "/controller_epoch")
	if err != nil {
		return id, -1, err
	}
	epoch, _ = strconv.Atoi(strings.TrimSpace(string(e)))
	return id, epoch, nil
}

// StopBrokers stops every broker cleanly, in parallel, keeping the
// cluster's directory so that Heal can start them again.
func (c *Cluster) StopBrokers() { stopAll(c.brokers) }

// Stop stops every broker (SIGTERM, in parallel) and removes the directory
// if Start made it.
func (c *Cluster) Stop() {
	c.StopBrokers()
	if c.ownsDir {
		_ = os.RemoveAll(c.dir)
	}
}

// Heal starts every stopped broker again and waits until the cluster is
// ready: what a test that killed brokers of a shared cluster calls last.
func (c *Cluster) Heal() error {
	var down []*Broker
	for _, b := range c.brokers {
		if !b.Running() {
			down = append(down, b)
		}
	}
	if err := startAll(down); err != nil {
		return err
	}
	return c.WaitReady(2 * time.Minute)
}

// LogTails returns the last n lines of every broker's log.
func (c *Cluster) LogTails(n int) string {
	var sb strings.Builder
	for _, b := range c.brokers {
		sb.WriteString(b.logTail(n))
	}
	return sb.String()
}

// zk opens a plain ZooKeeper connection (no chroot: paths are prefixed).
func (c *Cluster) zk() (*zk.Conn, error) {
	dial := zk.Dialer(net.DialTimeout)
	if cfg := c.opts.ZKTLS; cfg != nil {
		dial = func(network, addr string, timeout time.Duration) (net.Conn, error) {
			return tls.DialWithDialer(&net.Dialer{Timeout: timeout}, network, addr, cfg)
		}
	}
	conn, ev, err := zk.Connect(c.hosts, 10*time.Second, zk.WithLogInfo(false), zk.WithLogger(quiet{}), zk.WithDialer(dial))
	if err != nil {
		return nil, err
	}
	timeout := time.After(15 * time.Second)
	for {
		select {
		case e := <-ev:
			if e.State == zk.StateHasSession {
				return conn, nil
			}
		case <-timeout:
			conn.Close()
			return nil, fmt.Errorf("kafkatest: no ZooKeeper session with %v", c.hosts)
		}
	}
}

type quiet struct{}

func (quiet) Printf(string, ...any) {}

// controllerID reads the broker id of a /controller znode ({"brokerid":1,…}).
func controllerID(data []byte) int {
	s := string(data)
	i := strings.Index(s, `"brokerid":`)
	if i < 0 {
		return -1
	}
	s = s[i+len(`"brokerid":`):]
	j := strings.IndexAny(s, ",}")
	if j < 0 {
		return -1
	}
	id, err := strconv.Atoi(strings.TrimSpace(s[:j]))
	if err != nil {
		return -1
	}
	return id
}

func atoiAll(ss []string) []int {
	out := make([]int, 0, len(ss))
	for _, s := range ss {
		if n, err := strconv.Atoi(s); err == nil {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return out
}

// splitConnect splits "h1:p1,h2:p2/chroot" into servers and chroot.
func splitConnect(s string) ([]string, string, error) {
	hosts, chroot := s, ""
	if i := strings.Index(s, "/"); i >= 0 {
		hosts, chroot = s[:i], strings.TrimRight(s[i:], "/")
	}
	if hosts == "" {
		return nil, "", fmt.Errorf("kafkatest: no ZooKeeper server in %q", s)
	}
	if chroot == "" {
		return nil, "", fmt.Errorf("kafkatest: give the cluster a chroot (%q has none), so tests sharing a ZooKeeper never see each other", s)
	}
	return strings.Split(hosts, ","), chroot, nil
}

func readFile(path string) string {
	b, _ := os.ReadFile(path)
	return string(b)
}

func baseDir() string { return filepath.Join(os.TempDir(), "ktopo-kafkatest") }

var reapOnce sync.Once

// ReapStale kills Kafka processes left behind by test processes that no
// longer run and removes their directories. The first cluster a process
// starts (any rig) calls it.
func ReapStale() {
	entries, err := os.ReadDir(baseDir())
	if err != nil {
		return
	}
	for _, e := range entries {
		dir := filepath.Join(baseDir(), e.Name())
		b, err := os.ReadFile(filepath.Join(dir, "owner.pid"))
		if err != nil {
			continue
		}
		owner, err := strconv.Atoi(strings.TrimSpace(string(b)))
		if err != nil || zktest.Alive(owner) {
			continue
		}
		pids, _ := filepath.Glob(filepath.Join(dir, "*.pid"))
		for _, p := range pids {
			b, _ := os.ReadFile(p)
			pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
			if err != nil || pid <= 0 {
				continue
			}
			cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
			if strings.Contains(string(cmdline), "-Dktopo.kafkatest.dir="+dir) {
				_ = syscall.Kill(-pid, syscall.SIGKILL)
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		}
		_ = os.RemoveAll(dir)
	}
}
