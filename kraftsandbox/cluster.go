package kraftsandbox

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	"github.com/ktopo/ktopo/assign"
)

// Config describes a simulated KRaft cluster.
type Config struct {
	// Brokers (ids 1..N) and Controllers (ids 3000..) are how many
	// processes of each role to run; Racks spreads the brokers over racks
	// rack-a, rack-b, … round-robin (0: no broker.rack).
	Brokers, Controllers, Racks int
	// DemoTopics creates the demo topics (DemoTopics) at start.
	DemoTopics bool
	// Host is the address the listeners bind (default 127.0.0.1).
	Host string
	// Port, when set, is the first broker's port: the brokers listen on
	// Port, Port+1, …, the controllers on the ports after the brokers'
	// (0: free ports).
	Port int
	// Rand draws the cluster id, topic ids, the placer's randomness and
	// the demo topics' skew; nil: random.
	Rand *rand.Rand
	// SessionTimeout is broker.session.timeout.ms: a broker whose
	// heartbeats stop is fenced this long after the last (default 9 s,
	// Kafka's).
	SessionTimeout time.Duration
	// Tick is how often the simulation advances (copies, growth, fencing;
	// default 100 ms).
	Tick time.Duration
	// LeaderImbalanceCheckInterval is leader.imbalance.check.interval.seconds
	// (default 300 s); NoAutoLeaderRebalance turns the automatic preferred
	// election off (auto.leader.rebalance.enable=false).
	LeaderImbalanceCheckInterval time.Duration
	NoAutoLeaderRebalance        bool
	// Logger gets the controller's and brokers' log lines (default: none).
	Logger *slog.Logger
	// DynamicQuorum formats the controllers as a dynamic quorum
	// (kafka-storage format --initial-controllers, KIP-853):
	// kraft.version 1, every voter with its directory id, and its
	// voters changed by AddRaftVoter and RemoveRaftVoter.
	DynamicQuorum bool
	// ObserverControllers are controllers started besides the voters,
	// ids after theirs, formatted with --no-initial-controllers: they
	// fetch the metadata log as observers until added as voters (with
	// DynamicQuorum only).
	ObserverControllers int
}

func (cfg *Config) defaults() error {
	if cfg.Brokers <= 0 {
		return fmt.Errorf("the sandbox needs at least 1 broker, not %d", cfg.Brokers)
	}
	if cfg.Controllers <= 0 {
		return fmt.Errorf("the sandbox needs at least 1 controller, not %d", cfg.Controllers)
	}
	if cfg.ObserverControllers < 0 || (cfg.ObserverControllers > 0 && !cfg.DynamicQuorum) {
		return fmt.Errorf("observer controllers need a dynamic quorum (a static quorum's controllers are all voters), not %d", cfg.ObserverControllers)
	}
	if cfg.Racks < 0 {
		return fmt.Errorf("racks must not be negative, not %d", cfg.Racks)
	}
	if cfg.Host == "" {
		cfg.Host = "127.0.0.1"
	}
	if cfg.Rand == nil {
		cfg.Rand = rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64()))
	}
	if cfg.SessionTimeout <= 0 {
		cfg.SessionTimeout = 9 * time.Second
	}
	if cfg.Tick <= 0 {
		cfg.Tick = 100 * time.Millisecond
	}
	if cfg.LeaderImbalanceCheckInterval <= 0 {
		cfg.LeaderImbalanceCheckInterval = 300 * time.Second
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	return nil
}

// FirstControllerID is the first controller's node id (as the test
// clusters number them: 3000, 3001, …).
const FirstControllerID = 3000

// Cluster is a running simulated KRaft cluster.
type Cluster struct {
	cfg       Config
	handlers  map[int16]handler
	clusterID string

	mu sync.Mutex
	// rnd draws ids; placer is the controller's java.util.Random (one for
	// the controller's life, as QuorumController's placer has).
	rnd    *rand.Rand
	placer *assign.JavaRandom
	// offset is the metadata log's end offset (records appended so far).
	offset int64
	// brokers and controllers by id, in id order.
	brokers     []*broker
	controllers []*controller
	// quorum is the metadata quorum's leader (-1: none) and epoch.
	leader      int32
	leaderEpoch int32
	topics      map[string]*topic
	topicIDs    map[[16]byte]*topic
	// byName is the topics in name order, while the same exist
	// (sortedTopics).
	byName topicOrder
	// brokerConfigs are the dynamic broker configs: "" is the
	// cluster-wide default, else a broker id.
	brokerConfigs map[string]map[string]string
	// features are the finalized feature levels; featuresEpoch the
	// offset of their last change.
	features      map[string]int16
	featuresEpoch int64

	// ext holds the state of the parts of the simulation that are not
	// the controller's (groups, producer ids): see their files.
	ext ext

	// pacing slows or stops the simulation (pace.go).
	pacing pacing

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// Start runs the cluster: every controller and broker listening on
// loopback, registered and unfenced, the quorum led by the first
// controller, and the demo topics created when asked.
func Start(cfg Config) (*Cluster, error) {
	if err := cfg.defaults(); err != nil {
		return nil, err
	}
	c := &Cluster{cfg: cfg, rnd: cfg.Rand, leader: -1, topics: map[string]*topic{},
		topicIDs: map[[16]byte]*topic{}, brokerConfigs: map[string]map[string]string{
			// With ELR, a new 4.x cluster's controller writes the
			// cluster-wide min.insync.replicas (KIP-966).
			"": {"min.insync.replicas": "1"},
		}}
	c.placer = assign.NewJavaRandom(int64(c.rnd.Uint64()))
	c.handlers = c.allHandlers()
	var cid [16]byte
	c.uuidInto(&cid)
	c.clusterID = base64.RawURLEncoding.EncodeToString(cid[:])
	c.features = defaultFeatures()
	if cfg.DynamicQuorum {
		// kafka-storage format --initial-controllers writes
		// kraft.version 1 (KRaftVersion.LATEST_PRODUCTION).
		c.features["kraft.version"] = 1
	}
	c.ctx, c.cancel = context.WithCancel(context.Background())
	now := time.Now()
	for i := range cfg.Controllers + cfg.ObserverControllers {
		ct := &controller{id: int32(FirstControllerID + i), alive: true, observer: i >= cfg.Controllers}
		ct.n = &node{id: ct.id, controller: true, host: cfg.Host}
		c.uuidInto(&ct.dirID)
		ct.lastFetch, ct.lastCaughtUp = now, now
		c.controllers = append(c.controllers, ct)
	}
	for i := range cfg.Brokers {
		b := &broker{id: int32(i + 1)}
		b.n = &node{id: b.id, host: cfg.Host}
		if cfg.Racks > 0 {
			r := rackName(i, cfg.Racks)
			b.rack = &r
		}
		c.brokers = append(c.brokers, b)
	}
	if cfg.Port > 0 {
		for i, b := range c.brokers {
			b.n.port = int32(cfg.Port + i)
		}
		for i, ct := range c.controllers {
			ct.n.port = int32(cfg.Port + len(c.brokers) + i)
		}
	}
	for _, ct := range c.controllers {
		if err := c.listen(ct.n); err != nil {
			c.Close()
			return nil, err
		}
	}
	for _, b := range c.brokers {
		if err := c.listen(b.n); err != nil {
			c.Close()
			return nil, err
		}
	}
	c.mu.Lock()
	c.electQuorumLeader()
	for _, b := range c.brokers {
		c.registerBroker(b, now)
		b.fenced, b.unfenceAt = false, time.Time{} // the first start is caught up at once
		c.record()
	}
	c.mu.Unlock()
	if cfg.DemoTopics {
		if err := c.createDemoTopics(); err != nil {
			c.Close()
			return nil, err
		}
	}
	c.wg.Add(1)
	go c.run()
	return c, nil
}

// rackName is the rack of the i-th broker (0-based).
func rackName(i, racks int) string { return "rack-" + string(rune('a'+i%racks)) }

// Close stops every process.
func (c *Cluster) Close() error {
	if c.cancel != nil {
		c.cancel()
	}
	c.wg.Wait()
	for _, ct := range c.controllers {
		ct.n.stopListening()
	}
	for _, b := range c.brokers {
		b.n.stopListening()
	}
	return nil
}

// ClusterID is the cluster's id.
func (c *Cluster) ClusterID() string { return c.clusterID }

// Bootstrap is the brokers' listeners, comma-separated (what
// --bootstrap-server takes).
func (c *Cluster) Bootstrap() string { return joinAddrs(brokerNodes(c.brokers)) }

// ControllerBootstrap is the controllers' listeners (what
// --bootstrap-controller takes).
func (c *Cluster) ControllerBootstrap() string {
	var ns []*node
	for _, ct := range c.controllers {
		ns = append(ns, ct.n)
	}
	return joinAddrs(ns)
}

func brokerNodes(bs []*broker) []*node {
	var ns []*node
	for _, b := range bs {
		ns = append(ns, b.n)
	}
	return ns
}

func joinAddrs(ns []*node) string {
	s := ""
	for i, n := range ns {
		if i > 0 {
			s += ","
		}
		s += n.addr()
	}
	return s
}

// BrokerIDs and ControllerIDs are the processes' ids.
func (c *Cluster) BrokerIDs() []int {
	var ids []int
	for _, b := range c.brokers {
		ids = append(ids, int(b.id))
	}
	return ids
}

// ControllerIDs are the controllers' ids.
func (c *Cluster) ControllerIDs() []int {
	var ids []int
	for _, ct := range c.controllers {
		ids = append(ids, int(ct.id))
	}
	return ids
}

// ErrNoNode is the error of Kill and Restart for an id that is neither a
// broker nor a controller.
var ErrNoNode = errors.New("no such broker or controller")

// Kill stops a broker's or a controller's process at once, as kill -9
// does: its listener and connections close; a broker's heartbeats stop,
// so the controller fences it SessionTimeout later; a controller leaves
// the quorum's live voters, and when it led, the others elect a leader
// (when a majority is alive).
func (c *Cluster) Kill(id int) error {
	if b := c.broker(int32(id)); b != nil {
		if !b.n.listening() {
			return fmt.Errorf("broker %d is not running", id)
		}
		b.n.stopListening()
		c.mu.Lock()
		b.alive = false
		c.logf("broker %d killed", id)
		c.mu.Unlock()
		return nil
	}
	if ct := c.controller(int32(id)); ct != nil {
		if !ct.n.listening() {
			return fmt.Errorf("controller %d is not running", id)
		}
		ct.n.stopListening()
		c.mu.Lock()
		ct.alive = false
		c.logf("controller %d killed", id)
		if c.leader == ct.id {
			c.electQuorumLeader()
		}
		c.mu.Unlock()
		return nil
	}
	return fmt.Errorf("%w: %d", ErrNoNode, id)
}

// Restart starts a killed process again on its old address: a broker
// registers anew (new incarnation and epoch, fenced until it has caught
// up with the metadata log, then unfenced); a controller rejoins the
// quorum (and is elected leader when there was none).
func (c *Cluster) Restart(id int) error {
	if b := c.broker(int32(id)); b != nil {
		if b.n.listening() {
			return fmt.Errorf("broker %d is already running", id)
		}
		if err := c.listen(b.n); err != nil {
			return err
		}
		c.mu.Lock()
		c.brokerRestarting(b)
		c.registerBroker(b, time.Now())
		c.logf("broker %d restarted", id)
		c.mu.Unlock()
		return nil
	}
	if ct := c.controller(int32(id)); ct != nil {
		if ct.n.listening() {
			return fmt.Errorf("controller %d is already running", id)
		}
		if err := c.listen(ct.n); err != nil {
			return err
		}
		c.mu.Lock()
		ct.alive = true
		ct.lastFetch = time.Now()
		if c.leader < 0 {
			c.electQuorumLeader()
		}
		c.logf("controller %d restarted", id)
		c.mu.Unlock()
		return nil
	}
	return fmt.Errorf("%w: %d", ErrNoNode, id)
}

// Running reports whether a broker's or controller's process runs.
func (c *Cluster) Running(id int) bool {
	if b := c.broker(int32(id)); b != nil {
		return b.n.listening()
	}
	if ct := c.controller(int32(id)); ct != nil {
		return ct.n.listening()
	}
	return false
}

// broker and controller find a process by id (nil when none); the slices
// never change after Start, so no lock is needed.
func (c *Cluster) broker(id int32) *broker {
	i, ok := slices.BinarySearchFunc(c.brokers, id, func(b *broker, id int32) int { return int(b.id - id) })
	if !ok {
		return nil
	}
	return c.brokers[i]
}

func (c *Cluster) controller(id int32) *controller {
	for _, ct := range c.controllers {
		if ct.id == id {
			return ct
		}
	}
	return nil
}

// registerBroker registers a starting broker: a new incarnation and
// epoch, its log directory, fenced until it catches up (about a second
// later, as a real broker's first heartbeats report). c.mu is held.
func (c *Cluster) registerBroker(b *broker, now time.Time) {
	c.uuidInto(&b.incarnation)
	b.epoch = c.record()
	if len(b.dirs) == 0 {
		d := logDir{path: fmt.Sprintf("/var/lib/kafka/broker-%d", b.id), total: 100 << 30}
		c.uuidInto(&d.id)
		b.dirs = []logDir{d}
	}
	b.registered, b.alive, b.fenced = true, true, true
	b.lastHeartbeat, b.unfenceAt = now, now.Add(time.Second)
}

// electQuorumLeader makes the lowest live controller the quorum's leader
// in a new epoch when a majority of the voters is alive, else leaves the
// quorum without one. c.mu is held.
func (c *Cluster) electQuorumLeader() {
	live, voters := c.liveVoters()
	var first *controller
	for _, ct := range c.controllers {
		if !ct.observer && ct.alive && first == nil {
			first = ct
		}
	}
	if live*2 <= voters {
		if c.leader >= 0 {
			c.logf("metadata quorum has no leader: %d of %d voters alive", live, voters)
		}
		c.leader = -1
		return
	}
	c.leader = first.id
	c.leaderEpoch++
	c.logf("controller %d is the metadata quorum's leader in epoch %d", first.id, c.leaderEpoch)
	c.record()
}

// record appends one record to the metadata log and returns its offset.
// c.mu is held.
func (c *Cluster) record() int64 {
	off := c.offset
	c.offset++
	return off
}

// uuidInto draws a random UUID into u, never the zero or the reserved
// one (a Kafka Uuid). c.mu is held, or the cluster is starting.
func (c *Cluster) uuidInto(u *[16]byte) {
	for {
		for i := 0; i < 16; i += 8 {
			v := c.rnd.Uint64()
			for j := range 8 {
				u[i+j] = byte(v >> (8 * j))
			}
		}
		u[6] = u[6]&0x0f | 0x40
		u[8] = u[8]&0x3f | 0x80
		if *u != ([16]byte{}) && *u != ([16]byte{15: 1}) {
			return
		}
	}
}

// logf writes one of the simulated processes' log lines.
func (c *Cluster) logf(format string, args ...any) {
	c.cfg.Logger.Info(fmt.Sprintf(format, args...))
}

// run advances the simulation every Tick until Close.
func (c *Cluster) run() {
	defer c.wg.Done()
	t := time.NewTicker(c.cfg.Tick)
	defer t.Stop()
	last := time.Now()
	for {
		select {
		case <-c.ctx.Done():
			return
		case now := <-t.C:
			c.mu.Lock()
			if c.Paused() {
				c.hold(now.Sub(last))
			} else {
				c.tick(now, now.Sub(last))
			}
			c.mu.Unlock()
			last = now
		}
	}
}

// tick is one step of the simulation: brokers' heartbeats (fencing the
// silent, unfencing the caught up), the simulated produce and copies, and
// the controller's periodic work. c.mu is held.
func (c *Cluster) tick(now time.Time, dt time.Duration) {
	for _, b := range c.brokers {
		if b.alive {
			b.lastHeartbeat = now
			if b.fenced && !b.unfenceAt.IsZero() && !now.Before(b.unfenceAt) {
				c.unfence(b)
			}
		} else if b.registered && !b.fenced && now.Sub(b.lastHeartbeat) >= c.cfg.SessionTimeout {
			c.fence(b)
		}
	}
	for _, ct := range c.controllers {
		if ct.alive {
			ct.leo, ct.lastFetch, ct.lastCaughtUp = c.offset, now, now
		}
	}
	for _, s := range tickers {
		s(c, now, dt)
	}
}

// tickers are the other parts' periodic steps (copies, growth, the
// automatic leader rebalance), registered by their files.
var tickers []func(c *Cluster, now time.Time, dt time.Duration)
