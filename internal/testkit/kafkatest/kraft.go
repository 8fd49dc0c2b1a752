package kafkatest

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ktopo/ktopo/internal/testkit/zktest"
)

// FirstControllerID is the node id of the first KRaft controller of a
// KRaftCluster with separate controllers, and of a Migration's
// controllers: 3000, 3001, … (Kafka's own examples number controllers
// so; brokers keep ids 1..N, as in the ZooKeeper-mode rig).
const FirstControllerID = 3000

// KRaftOptions describe a KRaft-mode Kafka cluster: separate controllers
// and brokers, or combined nodes (process.roles=broker,controller).
type KRaftOptions struct {
	// Version is the Kafka version (Kafka44, Kafka39).
	Version string
	// Combined runs every node as broker and controller in one process:
	// nodes 1..Brokers, all voters (default one node). Controllers must be
	// 0 then.
	Combined bool
	// Controllers is the number of controller-only nodes, ids
	// FirstControllerID.. (default 3; 0 with Combined).
	Controllers int
	// Brokers is the number of brokers (or combined nodes), ids 1..N
	// (default 3; 1 with Combined).
	Brokers int
	// Racks spreads the brokers round-robin over racks rack-a, rack-b, …
	// (default 3; -1: no broker.rack at all).
	Racks int
	// ClusterID is the cluster id the nodes are formatted with (default:
	// a random one).
	ClusterID string
	// SessionTimeout is broker.session.timeout.ms (default 6 s): how long
	// after a broker's last heartbeat the controller fences it. Brokers
	// heartbeat every 500 ms.
	SessionTimeout time.Duration
	// Props are extra server.properties of the brokers and combined nodes
	// (they win over the defaults).
	Props map[string]string
	// ControllerProps are extra server.properties of the controllers.
	ControllerProps map[string]string
	// Dynamic makes the quorum dynamic (KIP-853) and starts observer
	// controllers (kraft_dynamic.go); nil: a static quorum.
	Dynamic *DynamicQuorum
	// Dir holds each node's data, properties and logs; empty makes a
	// temporary directory that Stop removes.
	Dir string
	// Heap is the brokers' and combined nodes' -Xmx (default 384m);
	// controllers get ControllerHeap (default 256m).
	Heap, ControllerHeap string
	// SASLUsers, when set, gives every broker a SASL_PLAINTEXT listener
	// too (Node.SASLPort; SASLBootstrap) taking PLAIN and SCRAM-SHA-256
	// for these users (name: password; their SCRAM credentials are
	// written when the storage is formatted), and turns on Kafka's
	// StandardAuthorizer: the PLAINTEXT and CONTROLLER listeners'
	// ANONYMOUS is a super user, a SASL user may do what ACLs allow
	// (kafka-acls through Bootstrap adds them).
	SASLUsers map[string]string
	// TLS, when set, gives every broker an SSL listener too
	// (Node.SSLPort; SSLBootstrap).
	TLS *TLSListener
	// ReleaseVersion is the metadata.version the cluster is formatted at
	// (kafka-storage format --release-version, e.g. "3.9-IV0"; default:
	// the newest Version's tool formats at).
	ReleaseVersion string
	// NodeVersions run chosen nodes on another Kafka version's jars (node
	// id → version, e.g. {4: Kafka39} beside Version Kafka44): a cluster
	// in the middle of a rolling upgrade. Such a node's storage is
	// formatted by its own version's kafka-storage and its properties
	// follow its own version.
	NodeVersions map[int]string
	// NodeProps, when set, may change a node's server.properties, after
	// every other option, each time they are written (at its format and
	// at every start): what one node alone should get, e.g. a broker
	// whose controller.quorum.voters lead through a proxy a test cuts.
	NodeProps func(n *Node, p map[string]string)
}

// TLSListener is a brokers' SSL listener: Kafka's PEM key and trust
// stores (files), and whether clients must show a certificate.
type TLSListener struct {
	// KeyStore holds the brokers' unencrypted PKCS#8 key, then its
	// certificate chain (tlstest.Pair.Combined); TrustStore the CA
	// certificates client certificates are checked against.
	KeyStore, TrustStore string
	// ClientAuth is ssl.client.auth: "required", "requested" or "none"
	// (default).
	ClientAuth string
	// SuperUsers are principals made super users (with the authorizer
	// SASLUsers turns on), e.g. "User:CN=admin" for a client certificate.
	SuperUsers []string
}

// KRaftCluster is a KRaft-mode Kafka cluster: controller, broker and
// combined processes on loopback ports, one metadata quorum with static
// voters (controller.quorum.voters).
type KRaftCluster struct {
	dist      *Dist
	opts      KRaftOptions
	dir       string
	ownsDir   bool
	clusterID string
	nodes     []*Node // brokers (or combined nodes) by id, then controllers by id
	// observers are a dynamic quorum's observer controllers and dirIDs
	// its initial voters' directory ids (kraft_dynamic.go).
	observers map[int]bool
	dirIDs    map[int]string
}

// StartKRaft fetches the Kafka version if needed, formats every node's
// storage (kafka-storage format, in the dist's tool JVM), starts the nodes
// and waits until the quorum has a leader and every broker is registered
// and unfenced (WaitReady).
//
// A port is chosen free, then bound by the node's JVM seconds later:
// meanwhile a server another test package starts may take it. A cluster
// that fails so ("Address already in use") in a directory of its own is
// made again on other ports, up to three times.
func StartKRaft(o KRaftOptions) (*KRaftCluster, error) {
	for attempt := 1; ; attempt++ {
		c, err := newKRaft(o)
		if err != nil {
			return nil, err
		}
		err = c.start()
		if err == nil {
			return c, nil
		}
		c.Stop()
		if !portTaken(err) || !c.ownsDir || attempt == 3 {
			return nil, err
		}
	}
}

// portTaken reports a start that failed because a port chosen free was
// taken before the node bound it.
func portTaken(err error) bool {
	return strings.Contains(err.Error(), "Address already in use")
}

// Nodes are the numbers of controller-only nodes and of brokers (or
// combined nodes) the options start, their defaults applied.
func (o KRaftOptions) Nodes() (controllers, brokers int) {
	controllers, brokers = o.Controllers, o.Brokers
	switch {
	case o.Combined:
		controllers = 0
		if brokers <= 0 {
			brokers = 1
		}
	default:
		if controllers <= 0 {
			controllers = 3
		}
		if brokers <= 0 {
			brokers = 3
		}
	}
	return controllers, brokers
}

func newKRaft(o KRaftOptions) (*KRaftCluster, error) {
	if o.Combined && o.Controllers > 0 {
		return nil, errors.New("kafkatest: a combined cluster has no separate controllers (Controllers must be 0)")
	}
	o.Controllers, o.Brokers = o.Nodes()
	if o.Racks == 0 {
		o.Racks = 3
	}
	if o.SessionTimeout <= 0 {
		o.SessionTimeout = 6 * time.Second
	}
	if o.Heap == "" {
		o.Heap = "384m"
	}
	if o.ControllerHeap == "" {
		o.ControllerHeap = "256m"
	}
	if o.ClusterID == "" {
		o.ClusterID = NewClusterID()
	}
	dist, err := FetchKafka(o.Version)
	if err != nil {
		return nil, err
	}
	if dist.Major28() {
		return nil, fmt.Errorf("kafkatest: Kafka %s has no KRaft mode to test", o.Version)
	}
	for id := range o.NodeVersions {
		if (id < 1 || id > o.Brokers) && (id < FirstControllerID || id >= FirstControllerID+o.Controllers) {
			return nil, fmt.Errorf("kafkatest: NodeVersions names node %d, which the cluster does not have", id)
		}
	}
	dists, err := nodeDists(dist, o.NodeVersions)
	if err != nil {
		return nil, err
	}
	c := &KRaftCluster{dist: dist, opts: o, clusterID: o.ClusterID}
	if c.dir, c.ownsDir, err = makeDir(o.Dir); err != nil {
		return nil, err
	}
	role, prefix := KRaftBroker, "broker"
	if o.Combined {
		role, prefix = Combined, "node"
	}
	for id := 1; id <= o.Brokers; id++ {
		n := newNode(id, role, fmt.Sprintf("%s-%d", prefix, id), dists(id), c.dir, o.Heap, c.props)
		if o.Racks > 0 {
			n.Rack = rackName(id, o.Racks)
		}
		c.nodes = append(c.nodes, n)
	}
	for i := range o.Controllers {
		id := FirstControllerID + i
		c.nodes = append(c.nodes, newNode(id, KRaftController, fmt.Sprintf("controller-%d", id), dists(id), c.dir, o.ControllerHeap, c.props))
	}
	if err := c.addObserverControllers(); err != nil {
		return nil, err
	}
	// Every port is chosen before any node starts: the voters' addresses
	// are in every node's configuration.
	if err := allocatePorts(c.nodes); err != nil {
		return nil, err
	}
	for _, n := range c.Brokers() {
		if len(o.SASLUsers) > 0 {
			if n.SASLPort, err = zktest.FreePort(); err != nil {
				return nil, err
			}
		}
		if o.TLS != nil {
			if n.SSLPort, err = zktest.FreePort(); err != nil {
				return nil, err
			}
		}
	}
	return c, nil
}

// nodeDists fetches the versions of NodeVersions: the returned function
// gives a node id's jars (def for a node not named).
func nodeDists(def *Dist, versions map[int]string) (func(id int) *Dist, error) {
	byID := map[int]*Dist{}
	for id, v := range versions {
		d, err := FetchKafka(v)
		if err != nil {
			return nil, err
		}
		if d.Major28() {
			return nil, fmt.Errorf("kafkatest: Kafka %s has no KRaft mode to run node %d on", v, id)
		}
		byID[id] = d
	}
	return func(id int) *Dist {
		if d, ok := byID[id]; ok {
			return d
		}
		return def
	}, nil
}

// allocatePorts gives every node the loopback ports its role needs.
func allocatePorts(nodes []*Node) error {
	for _, n := range nodes {
		if n.Role.IsBroker() && n.Port == 0 {
			p, err := zktest.FreePort()
			if err != nil {
				return err
			}
			n.Port = p
		}
		if n.Role.IsController() && n.ControllerPort == 0 {
			p, err := zktest.FreePort()
			if err != nil {
				return err
			}
			n.ControllerPort = p
		}
	}
	return nil
}

// start formats and starts every node, controllers first, and waits.
func (c *KRaftCluster) start() error {
	var extra []string
	for _, name := range slices.Sorted(maps.Keys(c.opts.SASLUsers)) {
		extra = append(extra, "--add-scram", fmt.Sprintf("SCRAM-SHA-256=[name=%s,password=%s]", name, c.opts.SASLUsers[name]))
	}
	if c.opts.ReleaseVersion != "" {
		extra = append(extra, "--release-version", c.opts.ReleaseVersion)
	}
	for _, n := range c.nodes {
		// Each node's own kafka-storage formats it, as where it was
		// first installed.
		if err := format(n.dist, n, c.clusterID, append(slices.Clone(extra), c.quorumFormatArgs(n)...)...); err != nil {
			return err
		}
	}
	if err := startAll(c.nodes); err != nil {
		return err
	}
	if err := c.WaitReady(2 * time.Minute); err != nil {
		return fmt.Errorf("%w\n%s", err, c.LogTails(40))
	}
	return nil
}

// format runs kafka-storage format for a node's data directory once (a
// directory with meta.properties is formatted already), with extra
// arguments (--add-scram, --release-version).
func format(d *Dist, n *Node, clusterID string, extra ...string) error {
	if _, err := os.Stat(filepath.Join(n.DataDir(), "meta.properties")); err == nil {
		return nil
	}
	if err := os.WriteFile(n.PropertiesFile(), []byte(propertiesText(n.conf(n))), 0o644); err != nil {
		return err
	}
	// "--cluster-id=ID": a ZooKeeper-mode cluster's id may begin with "-",
	// which the option parser would take for an option.
	args := append([]string{"format", "--cluster-id=" + clusterID, "--config", n.PropertiesFile()}, extra...)
	res, err := d.Command("kafka-storage", args...)
	if err != nil {
		return err
	}
	if res.Code != 0 {
		return fmt.Errorf("kafkatest: kafka-storage format %s: exit %d\n%s%s", n.name, res.Code, res.Stdout, res.Stderr)
	}
	return nil
}

// NewClusterID returns a random cluster id in Kafka's form (a UUID in
// URL-safe base64, no padding, never starting with '-', as kafka-storage
// random-uuid prints).
func NewClusterID() string {
	for {
		var b [16]byte
		_, _ = rand.Read(b[:])
		id := base64.RawURLEncoding.EncodeToString(b[:])
		if !strings.HasPrefix(id, "-") {
			return id
		}
	}
}

// props is a KRaft node's server.properties.
func (c *KRaftCluster) props(n *Node) map[string]string {
	p := kraftProps(n, n.dist, c.QuorumVoters(), c.opts.Brokers, c.opts.SessionTimeout, c.opts.Props, c.opts.ControllerProps)
	if len(c.opts.SASLUsers) > 0 {
		saslProps(n, p, c.opts.SASLUsers)
		if c.opts.TLS != nil {
			p["super.users"] = strings.Join(append([]string{p["super.users"]}, c.opts.TLS.SuperUsers...), ";")
		}
	}
	if c.opts.TLS != nil {
		tlsProps(n, p, c.opts.TLS)
	}
	c.dynamicQuorumProps(p)
	if c.opts.NodeProps != nil {
		c.opts.NodeProps(n, p)
	}
	return p
}

// tlsProps adds a broker's SSL listener with Kafka's PEM stores.
func tlsProps(n *Node, p map[string]string, l *TLSListener) {
	p["listener.security.protocol.map"] += ",SSL:SSL"
	if !n.Role.IsBroker() || n.SSLPort == 0 {
		return
	}
	p["listeners"] += ",SSL://" + n.SSLAddr()
	p["advertised.listeners"] += ",SSL://" + n.SSLAddr()
	p["listener.name.ssl.ssl.keystore.type"] = "PEM"
	p["listener.name.ssl.ssl.keystore.location"] = l.KeyStore
	p["listener.name.ssl.ssl.truststore.type"] = "PEM"
	p["listener.name.ssl.ssl.truststore.location"] = l.TrustStore
	auth := l.ClientAuth
	if auth == "" {
		auth = "none"
	}
	p["listener.name.ssl.ssl.client.auth"] = auth
}

// SSLBootstrap is the brokers' SSL listeners (KRaftOptions.TLS),
// host:port,…; "" without one.
func (c *KRaftCluster) SSLBootstrap() string {
	var addrs []string
	for _, n := range c.Brokers() {
		if a := n.SSLAddr(); a != "" {
			addrs = append(addrs, a)
		}
	}
	return strings.Join(addrs, ",")
}

// saslProps adds to a node's properties what KRaftOptions.SASLUsers asks:
// the authorizer (controllers too: they authorize what brokers forward),
// and on a broker the SASL_PLAINTEXT listener with PLAIN's users in its
// JAAS configuration (SCRAM's are in the metadata).
func saslProps(n *Node, p map[string]string, users map[string]string) {
	p["authorizer.class.name"] = "org.apache.kafka.metadata.authorizer.StandardAuthorizer"
	p["super.users"] = "User:ANONYMOUS"
	p["listener.security.protocol.map"] += ",SASL_PLAINTEXT:SASL_PLAINTEXT"
	if !n.Role.IsBroker() || n.SASLPort == 0 {
		return
	}
	p["listeners"] += ",SASL_PLAINTEXT://" + n.SASLAddr()
	p["advertised.listeners"] += ",SASL_PLAINTEXT://" + n.SASLAddr()
	p["sasl.enabled.mechanisms"] = "PLAIN,SCRAM-SHA-256"
	jaas := "org.apache.kafka.common.security.plain.PlainLoginModule required"
	for _, name := range slices.Sorted(maps.Keys(users)) {
		jaas += fmt.Sprintf(" user_%s=%q", name, users[name])
	}
	p["listener.name.sasl_plaintext.plain.sasl.jaas.config"] = jaas + ";"
	p["listener.name.sasl_plaintext.scram-sha-256.sasl.jaas.config"] = "org.apache.kafka.common.security.scram.ScramLoginModule required;"
}

// SASLBootstrap is the brokers' SASL_PLAINTEXT listeners (KRaftOptions.SASLUsers),
// host:port,…; "" without SASL users.
func (c *KRaftCluster) SASLBootstrap() string {
	var addrs []string
	for _, n := range c.Brokers() {
		if a := n.SASLAddr(); a != "" {
			addrs = append(addrs, a)
		}
	}
	return strings.Join(addrs, ",")
}

// kraftProps is the server.properties of a KRaft node of role n.Role:
// loopback listeners, static voters, quick heartbeats, small thread
// pools; extra (brokers) or controllerExtra (controllers) win.
func kraftProps(n *Node, d *Dist, voters string, brokers int, session time.Duration, extra, controllerExtra map[string]string) map[string]string {
	var p map[string]string
	if n.Role.IsBroker() {
		p = commonProps(n, brokers)
		p["broker.session.timeout.ms"] = strconv.FormatInt(session.Milliseconds(), 10)
		p["broker.heartbeat.interval.ms"] = "500"
		p["inter.broker.listener.name"] = "PLAINTEXT"
		if !strings.HasPrefix(d.Version, "3.") {
			// 4.x's share groups keep their state in a topic of their own.
			p["share.coordinator.state.topic.replication.factor"] = p["offsets.topic.replication.factor"]
			p["share.coordinator.state.topic.min.isr"] = "1"
		}
	} else {
		p = map[string]string{"log.dirs": n.DataDir(), "num.network.threads": "2", "num.io.threads": "2", "background.threads": "2"}
	}
	p["process.roles"] = string(n.Role)
	p["node.id"] = strconv.Itoa(n.ID)
	p["controller.listener.names"] = "CONTROLLER"
	p["listener.security.protocol.map"] = "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT"
	p["controller.quorum.voters"] = voters
	var listeners []string
	if n.Role.IsBroker() {
		listeners = append(listeners, "PLAINTEXT://"+n.Addr())
		p["advertised.listeners"] = "PLAINTEXT://" + n.Addr()
	}
	if n.Role.IsController() {
		listeners = append(listeners, "CONTROLLER://"+n.ControllerAddr())
	}
	p["listeners"] = strings.Join(listeners, ",")
	if n.Role.IsBroker() {
		for k, v := range extra {
			p[k] = v
		}
	}
	if n.Role.IsController() {
		for k, v := range controllerExtra {
			p[k] = v
		}
	}
	return p
}

// Version is the cluster's Kafka version.
func (c *KRaftCluster) Version() string { return c.dist.Version }

// Dist is the cluster's Kafka jars (and tools).
func (c *KRaftCluster) Dist() *Dist { return c.dist }

// NodeVersion is the Kafka version node id runs (KRaftOptions.NodeVersions,
// else Version); "" for an unknown id.
func (c *KRaftCluster) NodeVersion(id int) string {
	if n := c.Node(id); n != nil {
		return n.dist.Version
	}
	return ""
}

// ClusterID is the id the nodes were formatted with.
func (c *KRaftCluster) ClusterID() string { return c.clusterID }

// Dir holds the nodes' data, properties and logs.
func (c *KRaftCluster) Dir() string { return c.dir }

// Combined reports whether the nodes are broker and controller at once.
func (c *KRaftCluster) Combined() bool { return c.opts.Combined }

// Nodes returns every node, running or not: brokers (or combined nodes)
// by id, then controllers by id.
func (c *KRaftCluster) Nodes() []*Node { return c.nodes }

// Node returns the node with id (nil if none).
func (c *KRaftCluster) Node(id int) *Node { return nodeByID(c.nodes, id) }

// Brokers returns the nodes with a broker role (combined nodes included).
func (c *KRaftCluster) Brokers() []*Node {
	return slices.DeleteFunc(slices.Clone(c.nodes), func(n *Node) bool { return !n.Role.IsBroker() })
}

// Controllers returns the voters of the quorum (combined nodes included).
func (c *KRaftCluster) Controllers() []*Node {
	return slices.DeleteFunc(slices.Clone(c.nodes), func(n *Node) bool { return !n.Role.IsController() })
}

// BrokerIDs are the brokers' node ids, ascending.
func (c *KRaftCluster) BrokerIDs() []int { return ids(c.Brokers()) }

// ControllerIDs are the controllers' node ids, ascending.
func (c *KRaftCluster) ControllerIDs() []int { return ids(c.Controllers()) }

func ids(nodes []*Node) []int {
	var out []int
	for _, n := range nodes {
		out = append(out, n.ID)
	}
	slices.Sort(out)
	return out
}

// Bootstrap is the brokers' listener list for Kafka clients and tools
// (--bootstrap-server).
func (c *KRaftCluster) Bootstrap() string { return bootstrap(c.nodes) }

// ControllerBootstrap is the controllers' CONTROLLER listener list, for
// tools' --bootstrap-controller (kafka-metadata-quorum, kafka-features,
// kafka-cluster; Kafka 3.7+) and for controller.quorum.bootstrap.servers.
func (c *KRaftCluster) ControllerBootstrap() string { return controllerBootstrap(c.nodes) }

func controllerBootstrap(nodes []*Node) string {
	var out []string
	for _, n := range nodes {
		if n.Role.IsController() {
			out = append(out, n.ControllerAddr())
		}
	}
	return strings.Join(out, ",")
}

// QuorumVoters is the controller.quorum.voters every node has
// ("3000@127.0.0.1:PORT,…").
func (c *KRaftCluster) QuorumVoters() string { return quorumVoters(c.nodes) }

func quorumVoters(nodes []*Node) string {
	var out []string
	for _, n := range nodes {
		if n.Role.IsController() {
			out = append(out, fmt.Sprintf("%d@%s", n.ID, n.ControllerAddr()))
		}
	}
	return strings.Join(out, ",")
}

// Running returns the nodes whose process is alive.
func (c *KRaftCluster) Running() []*Node {
	return slices.DeleteFunc(slices.Clone(c.nodes), func(n *Node) bool { return !n.Running() })
}

// Quorum describes the metadata quorum, asked of its leader.
func (c *KRaftCluster) Quorum() (Quorum, error) {
	return describeQuorum(context.Background(), runningControllerAddrs(c.nodes))
}

func runningControllerAddrs(nodes []*Node) []string {
	var out []string
	for _, n := range nodes {
		if n.Role.IsController() && n.Running() {
			out = append(out, n.ControllerAddr())
		}
	}
	return out
}

// WaitReady waits until the quorum has a leader among the running
// controllers, every other running controller has fetched from it since
// it started, and every running broker lists exactly the running brokers
// as registered and unfenced (a stopped or killed one is fenced: a
// killed broker after the session timeout).
func (c *KRaftCluster) WaitReady(timeout time.Duration) error {
	return waitKRaft(c.nodes, timeout)
}

// waitKRaft is WaitReady for any set of KRaft nodes.
func waitKRaft(nodes []*Node, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	var last string
	for {
		ok, why, err := kraftReady(nodes)
		if err != nil {
			return err
		}
		if ok {
			return nil
		}
		last = why
		if time.Now().After(deadline) {
			return fmt.Errorf("kafkatest: KRaft cluster not ready after %s: %s", timeout, last)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// kraftReady checks the KRaft nodes among nodes once: whether they are
// ready, and if not why; err when a node died on its own.
func kraftReady(nodes []*Node) (bool, string, error) { return kraftReadyWith(nodes, nil) }

// kraftReadyWith is kraftReady where the running brokers should see want
// registered and unfenced (nil: the running KRaft brokers among nodes).
func kraftReadyWith(nodes []*Node, want []int) (bool, string, error) {
	var brokers, voters []*Node
	for _, n := range nodes {
		if n.crashed() {
			return false, "", n.exitedError()
		}
		if !n.Running() {
			continue
		}
		if n.Role.IsController() {
			voters = append(voters, n)
		}
		if n.Role == KRaftBroker || n.Role == Combined {
			brokers = append(brokers, n)
		}
	}
	ctx := context.Background()
	if len(voters) > 0 {
		addrs := make([]string, 0, len(voters))
		for _, v := range voters {
			addrs = append(addrs, v.ControllerAddr())
		}
		q, err := describeQuorum(ctx, addrs)
		if err != nil {
			return false, "no quorum leader yet: " + err.Error(), nil
		}
		if !slices.ContainsFunc(voters, func(n *Node) bool { return n.ID == q.LeaderID }) {
			return false, fmt.Sprintf("quorum leader %d is not a running controller", q.LeaderID), nil
		}
		for _, v := range voters {
			if v.ID == q.LeaderID {
				continue
			}
			r, ok := q.Voter(v.ID)
			if !ok {
				// A dynamic quorum's observer controller fetches as
				// an observer.
				r, ok = q.Observer(v.ID)
			}
			if !ok || r.LastFetch.Before(v.StartedAt()) {
				return false, fmt.Sprintf("controller %d has not fetched from leader %d since it started", v.ID, q.LeaderID), nil
			}
		}
	}
	if want == nil {
		want = ids(brokers)
	}
	if why := brokersSee(brokers, want, -1); why != "" {
		return false, why, nil
	}
	return true, "", nil
}

// StopNodes stops every node cleanly, keeping the directory: the brokers
// first (their controlled shutdown needs the controllers), then the
// controllers.
func (c *KRaftCluster) StopNodes() { stopKRaft(c.nodes) }

func stopKRaft(nodes []*Node) {
	var brokers, controllers []*Node
	for _, n := range nodes {
		if n.Role == KRaftController {
			controllers = append(controllers, n)
		} else {
			brokers = append(brokers, n)
		}
	}
	stopAll(brokers)
	stopAll(controllers)
}

// Stop stops every node and removes the directory if StartKRaft made it.
func (c *KRaftCluster) Stop() {
	c.StopNodes()
	if c.ownsDir {
		_ = os.RemoveAll(c.dir)
	}
}

// Heal starts every stopped node again and waits until the cluster is
// ready: what a test that stopped or killed nodes of a shared cluster
// calls last.
func (c *KRaftCluster) Heal() error {
	var down []*Node
	for _, n := range c.nodes {
		if !n.Running() {
			down = append(down, n)
		}
	}
	if err := startAll(down); err != nil {
		return err
	}
	return c.WaitReady(2 * time.Minute)
}

// KRaftNodes is what a KRaft scenario needs of a cluster to run on real
// Kafka (a KRaftCluster) or on the simulated one (kraftsandbox.Cluster):
// its listeners, its processes' ids, and kill -9 and a start again of one
// of them.
type KRaftNodes interface {
	Bootstrap() string
	ControllerBootstrap() string
	BrokerIDs() []int
	ControllerIDs() []int
	Kill(id int) error
	Restart(id int) error
}

var _ KRaftNodes = (*KRaftCluster)(nil)

// Kill kills node id (SIGKILL) and waits until it is gone.
func (c *KRaftCluster) Kill(id int) error {
	n := c.Node(id)
	if n == nil {
		return fmt.Errorf("no node %d", id)
	}
	n.Kill()
	return nil
}

// Restart starts node id again after a Kill or a Stop (Node.Restart
// stops a running one first).
func (c *KRaftCluster) Restart(id int) error {
	n := c.Node(id)
	if n == nil {
		return fmt.Errorf("no node %d", id)
	}
	return n.Start()
}

// LogTails returns the last n lines of every node's log.
func (c *KRaftCluster) LogTails(n int) string { return logTails(c.nodes, n) }

func logTails(nodes []*Node, n int) string {
	var sb strings.Builder
	for _, node := range nodes {
		sb.WriteString(node.logTail(n))
	}
	return sb.String()
}

// Topics runs the version's kafka-topics against the brokers
// (--bootstrap-server).
func (c *KRaftCluster) Topics(args ...string) (Result, error) {
	return c.dist.Command("kafka-topics", append([]string{"--bootstrap-server", c.Bootstrap()}, args...)...)
}

// MetadataQuorum runs the version's kafka-metadata-quorum against the
// controllers (--bootstrap-controller).
func (c *KRaftCluster) MetadataQuorum(args ...string) (Result, error) {
	return c.dist.Command("kafka-metadata-quorum", append([]string{"--bootstrap-controller", c.ControllerBootstrap()}, args...)...)
}
