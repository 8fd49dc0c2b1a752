package sandbox

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/zkwatch"
)

// Config describes a sandbox cluster.
type Config struct {
	// Connect is the ZooKeeper connect string, "host:port[,host:port…][/chroot]".
	// The chroot is created when missing, as Kafka brokers do.
	Connect string
	// Brokers is the number of brokers (ids 1..Brokers); 0 means 6.
	Brokers int
	// Racks spreads the brokers round-robin over racks "rack-a",
	// "rack-b", …; 0 gives brokers without rack information.
	Racks int
	// DemoTopics creates a few topics of different shapes after the
	// brokers have registered (see DemoTopics).
	DemoTopics bool
	// Pace is a delay before each controller write batch, so that every
	// transition can be watched; with a pace, new partitions are
	// initialised one at a time. 0 runs as fast as possible. See SetPace.
	Pace time.Duration
	// CatchUpDelay is how long a follower fetches before its leader asks
	// the controller to add it back to the ISR. 0 derives it from the pace:
	// 300 ms + 3 × pace.
	CatchUpDelay time.Duration
	// PartitionSize is the simulated size in bytes of every partition of a
	// topic that is not a demo topic (the demo topics have sizes of their
	// own, DemoTopic.PartitionSize): a replica that a reassignment adds
	// copies that much before it can join the ISR. 0 means
	// DefaultPartitionSize; negative means empty partitions (a new replica
	// joins after the catch-up delay, as on a Kafka cluster without data).
	PartitionSize int64
	// ReplicationRate is how many bytes per second a broker copies into
	// its new replicas, shared between them, when no throttle applies
	// (Kafka's leader and follower replication throttles apply as Kafka
	// applies them). 0 means DefaultReplicationRate.
	ReplicationRate int64
	// ProduceRate is how fast, in bytes per second, every partition of a
	// topic that is not a demo topic grows (the demo topics have rates of
	// their own, DemoTopic.ProduceRate): a simulated producer, so that
	// sizes grow between readings and a copy must catch up with what is
	// written while it runs. 0 means no growth.
	ProduceRate int64
	// LogDirs is how many log directories each broker has (Kafka's
	// log.dirs), each on a volume of its own; 0 means 1. A replica lives in
	// one of them, chosen by its topic, partition and broker.
	LogDirs int
	// DiskSize is the size in bytes of each log directory's volume, whose
	// usable space is what the replicas in it leave; 0 means
	// DefaultDiskSize.
	DiskSize int64
	// LeaderImbalanceCheckInterval is Kafka's
	// leader.imbalance.check.interval.seconds: how often the active
	// controller runs the automatic preferred leader election
	// (auto.leader.rebalance.enable, on by default as in Kafka): a broker
	// whose share of the partitions it prefers but does not lead is above
	// 10 % gets them back. The first check comes 5 s after a controller
	// takes over, as in Kafka. 0 means Kafka's 300 s.
	LeaderImbalanceCheckInterval time.Duration
	// NoAutoLeaderRebalance is auto.leader.rebalance.enable=false.
	NoAutoLeaderRebalance bool
	// SessionTimeout of each broker's ZooKeeper session; 0 means 18 s
	// (Kafka's zookeeper.session.timeout.ms).
	SessionTimeout time.Duration
	// ConnectTimeout bounds each session establishment; 0 means 10 s.
	ConnectTimeout time.Duration
	// Logger receives the brokers' and controllers' log lines (Kafka's
	// wording); nil discards them.
	Logger *slog.Logger
	// Rand, when set, makes the sandbox's own random choices, so that one
	// seed gives the same cluster on every run: the cluster id, and the
	// demo topics' start indexes, replica shifts and topic ids (written
	// with the topic, as a 2.8+ AdminZkClient does, instead of by the
	// controller). Other topics still get random ids from the controller:
	// Kafka tells a re-created topic by its new id. Nil draws at random.
	Rand *rand.Rand
}

// Errors returned by Cluster.
var (
	// ErrNoController: no sandbox broker is the active controller (a broker
	// of another cluster may be, or the election is still running).
	ErrNoController = errors.New("sandbox: no sandbox broker is the active controller")
	// ErrClosed: the cluster was closed.
	ErrClosed = errors.New("sandbox: cluster closed")
)

// Cluster is a running sandbox: simulated brokers, each with its own
// ZooKeeper session and controller module.
type Cluster struct {
	cfg Config
	log *slog.Logger

	mu      sync.Mutex
	brokers map[int]*broker // running incarnations
	racks   map[int]string
	nextInc uint64
	closed  bool
	// ops serialises Kill/Restart/MoveController/Close.
	ops sync.Mutex

	// admin is a client session (not a broker's) for the demo topics,
	// Status and KillTogether.
	admin *zkwatch.Conn

	active    atomic.Pointer[controller]
	clusterID atomic.Value // string
	randMu    sync.Mutex   // guards cfg.Rand

	pace        atomic.Int64
	paceMu      sync.Mutex
	paceChanged chan struct{}

	repl  *replication
	sizes *sizeModel

	// mig is the simulated KRaft controller of a migration (migration.go).
	mig     *migration
	migOnce sync.Once
}

// Start starts cfg.Brokers brokers on cfg.Connect, one after the other,
// each running Kafka's startup writes, registration and controller
// election (on an empty cluster broker 1 becomes the controller with epoch
// 1), then creates the demo topics when asked. It returns once every
// broker is registered and the active controller knows them all live, so
// that a topic created then is placed on every broker as on a running
// cluster (a controller still starting up brings a new topic's partitions
// online on the brokers it knows); the controller works on in the
// background.
func Start(ctx context.Context, cfg Config) (*Cluster, error) {
	if cfg.Brokers == 0 {
		cfg.Brokers = 6
	}
	switch {
	case cfg.Brokers < 0 || cfg.Brokers > 1000:
		return nil, fmt.Errorf("sandbox: Brokers must be between 1 and 1000, not %d", cfg.Brokers)
	case cfg.Racks < 0:
		return nil, fmt.Errorf("sandbox: Racks must not be negative, not %d", cfg.Racks)
	case cfg.Pace < 0 || cfg.CatchUpDelay < 0 || cfg.LeaderImbalanceCheckInterval < 0:
		return nil, errors.New("sandbox: durations must not be negative")
	case cfg.ReplicationRate < 0:
		return nil, errors.New("sandbox: ReplicationRate must not be negative")
	case cfg.ProduceRate < 0:
		return nil, errors.New("sandbox: ProduceRate must not be negative")
	case cfg.LogDirs < 0 || cfg.LogDirs > maxLogDirs:
		return nil, fmt.Errorf("sandbox: LogDirs must be between 1 and %d (0 means 1), not %d", maxLogDirs, cfg.LogDirs)
	case cfg.DiskSize < 0:
		return nil, errors.New("sandbox: DiskSize must not be negative")
	}
	if _, err := zkwatch.ParseConnectString(cfg.Connect); err != nil {
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	if cfg.SessionTimeout == 0 {
		cfg.SessionTimeout = 18 * time.Second
	}
	if cfg.ConnectTimeout == 0 {
		cfg.ConnectTimeout = 10 * time.Second
	}
	if cfg.LeaderImbalanceCheckInterval == 0 {
		cfg.LeaderImbalanceCheckInterval = 300 * time.Second
	}
	cl := &Cluster{cfg: cfg, log: cfg.Logger, brokers: map[int]*broker{}, racks: map[int]string{},
		paceChanged: make(chan struct{})}
	cl.repl = newReplication(cl)
	cl.sizes = newSizeModel()
	if cl.log == nil {
		cl.log = discardLogger()
	}
	cl.pace.Store(int64(cfg.Pace))
	cl.clusterID.Store("")
	for id := 1; id <= cfg.Brokers; id++ {
		if cfg.Racks > 0 {
			cl.racks[id] = RackName((id - 1) % cfg.Racks)
		}
	}
	actx, cancel := context.WithTimeout(ctx, cfg.ConnectTimeout)
	admin, err := connectSession(actx, cfg.Connect, dialOptions{sessionTimeout: cfg.SessionTimeout, logger: cl.log})
	cancel()
	if err != nil {
		return nil, err
	}
	cl.admin = admin
	for id := 1; id <= cfg.Brokers; id++ {
		if err := cl.startBroker(ctx, id); err != nil {
			_ = cl.Close()
			return nil, err
		}
	}
	if err := cl.waitControllerKnowsBrokers(ctx, cfg.Brokers); err != nil {
		_ = cl.Close()
		return nil, err
	}
	if cfg.DemoTopics {
		if err := cl.createDemoTopics(ctx); err != nil {
			_ = cl.Close()
			return nil, err
		}
	}
	// The partitions' skew is drawn now, after every other draw of
	// Config.Rand, so that sizes take nothing from the cluster id and the
	// placements one seed gave before sizes existed.
	cl.sizeSeed()
	return cl, nil
}

// waitControllerKnowsBrokers waits until the active controller counts n
// brokers live (it learns of the last ones registered through its watch,
// after its failover read the others).
func (cl *Cluster) waitControllerKnowsBrokers(ctx context.Context, n int) error {
	ctx, cancel := context.WithTimeout(ctx, cl.cfg.ConnectTimeout)
	defer cancel()
	for {
		if c := cl.activeController(); c != nil {
			reply := make(chan []int, 1)
			c.events.push(&evLiveBrokers{reply: reply})
			select {
			case live := <-reply:
				if len(live) >= n {
					return nil
				}
			case <-ctx.Done():
				return fmt.Errorf("sandbox: the controller did not learn of all %d brokers: %w", n, context.Cause(ctx))
			}
		}
		select {
		case <-time.After(10 * time.Millisecond):
		case <-ctx.Done():
			return fmt.Errorf("sandbox: the controller did not learn of all %d brokers: %w", n, context.Cause(ctx))
		}
	}
}

// RackName is the name of the i-th rack (from 0): "rack-a" … "rack-z",
// then "rack-aa", "rack-ab", ….
func RackName(i int) string {
	s := ""
	for {
		s = string(rune('a'+i%26)) + s
		i = i/26 - 1
		if i < 0 {
			return "rack-" + s
		}
	}
}

func (cl *Cluster) startBroker(ctx context.Context, id int) error {
	cl.mu.Lock()
	if cl.closed {
		cl.mu.Unlock()
		return ErrClosed
	}
	cl.nextInc++
	b := newBroker(cl, id, cl.racks[id], cl.nextInc)
	// Known before it registers, so that the controller's first requests
	// to it are delivered.
	cl.brokers[id] = b
	cl.mu.Unlock()
	ctx, cancel := context.WithTimeout(ctx, cl.cfg.ConnectTimeout)
	defer cancel()
	if err := b.start(ctx); err != nil {
		cl.mu.Lock()
		if cl.brokers[id] == b {
			delete(cl.brokers, id)
		}
		cl.mu.Unlock()
		return err
	}
	return nil
}

// Kill crashes broker id: its ZooKeeper session is closed at once, so its
// registration (and /controller, if it was the controller) disappears
// immediately, and its goroutines stop without another write.
func (cl *Cluster) Kill(id int) error {
	if cl.kraftOwned() {
		return ErrKRaftOwned
	}
	cl.ops.Lock()
	defer cl.ops.Unlock()
	cl.mu.Lock()
	if cl.closed {
		cl.mu.Unlock()
		return ErrClosed
	}
	b := cl.brokers[id]
	if b == nil {
		cl.mu.Unlock()
		if !cl.known(id) {
			return fmt.Errorf("sandbox: there is no broker %d (brokers are 1..%d)", id, cl.cfg.Brokers)
		}
		return fmt.Errorf("sandbox: broker %d is not running", id)
	}
	delete(cl.brokers, id)
	cl.mu.Unlock()
	b.log.Info("killed")
	b.kill()
	return nil
}

// KillTogether crashes several brokers at once, as when a rack loses
// power: their goroutines stop, then their registrations (and /controller,
// if one of them was the controller) are deleted in one ZooKeeper
// transaction, as when ZooKeeper expires their sessions in the same tick,
// and their sessions are closed. The controller sees them all gone in one
// broker change (Kafka's "deleted brokers: 2,5"), not one after the other
// as with successive Kills.
func (cl *Cluster) KillTogether(ids ...int) error {
	if cl.kraftOwned() {
		return ErrKRaftOwned
	}
	cl.ops.Lock()
	defer cl.ops.Unlock()
	cl.mu.Lock()
	if cl.closed {
		cl.mu.Unlock()
		return ErrClosed
	}
	var bs []*broker
	for _, id := range ids {
		b := cl.brokers[id]
		switch {
		case !cl.known(id):
			cl.mu.Unlock()
			return fmt.Errorf("sandbox: there is no broker %d (brokers are 1..%d)", id, cl.cfg.Brokers)
		case b == nil || slices.Contains(bs, b):
			cl.mu.Unlock()
			return fmt.Errorf("sandbox: broker %d is not running", id)
		}
		bs = append(bs, b)
	}
	for _, b := range bs {
		delete(cl.brokers, b.id)
	}
	cl.mu.Unlock()
	sessions := map[int64]bool{}
	for _, b := range bs {
		b.log.Info("killed")
		sessions[b.conn.SessionID()] = true
		b.halt()
	}
	for _, b := range bs {
		b.waitStopped(5 * time.Second)
	}
	// Their ephemeral znodes, in one multi.
	var ops []any
	if _, st, err := cl.admin.Get(cluster.ControllerPath); err == nil && sessions[st.EphemeralOwner] {
		ops = append(ops, &zk.DeleteRequest{Path: cluster.ControllerPath, Version: -1})
	}
	for _, b := range bs {
		p := cluster.BrokerIDPath(b.id)
		if _, st, err := cl.admin.Get(p); err == nil && sessions[st.EphemeralOwner] {
			ops = append(ops, &zk.DeleteRequest{Path: p, Version: -1})
		}
	}
	var err error
	if len(ops) > 0 {
		if _, err = cl.admin.Multi(ops...); err != nil {
			err = fmt.Errorf("sandbox: delete the registrations of brokers %v: %w", ids, err)
		}
	}
	for _, b := range bs {
		b.conn.Close()
		b.wg.Wait()
		b.cleanup()
	}
	return err
}

// Restart starts broker id again with a new session: it registers anew
// (a new broker epoch) and takes part in controller elections.
func (cl *Cluster) Restart(id int) error {
	if cl.kraftOwned() {
		return ErrKRaftOwned
	}
	cl.ops.Lock()
	defer cl.ops.Unlock()
	if !cl.known(id) {
		return fmt.Errorf("sandbox: there is no broker %d (brokers are 1..%d)", id, cl.cfg.Brokers)
	}
	cl.mu.Lock()
	running := cl.brokers[id] != nil
	closed := cl.closed
	cl.mu.Unlock()
	switch {
	case closed:
		return ErrClosed
	case running:
		return fmt.Errorf("sandbox: broker %d is already running", id)
	}
	return cl.startBroker(context.Background(), id)
}

func (cl *Cluster) known(id int) bool { return id >= 1 && id <= cl.cfg.Brokers }

// Running reports whether the sandbox runs broker id now (it is one of
// 1..N and not killed).
func (cl *Cluster) Running(id int) bool {
	cl.mu.Lock()
	defer cl.mu.Unlock()
	return cl.brokers[id] != nil
}

// AppliedTopicConfig returns the topic overrides broker id has applied
// from the config change notifications (its log config), and whether it
// has any for the topic; false too when the broker does not run.
func (cl *Cluster) AppliedTopicConfig(id int, topic string) (map[string]string, bool) {
	cl.mu.Lock()
	b := cl.brokers[id]
	cl.mu.Unlock()
	if b == nil {
		return nil, false
	}
	return b.cfgs.topicConfig(topic)
}

// MoveController makes the active controller resign (a fenced delete of
// /controller) and sit out the next election, so that another broker
// becomes controller with the next epoch. It waits (up to 10 s) for the
// new controller.
func (cl *Cluster) MoveController() error {
	if cl.kraftOwned() {
		return ErrKRaftOwned
	}
	cl.ops.Lock()
	defer cl.ops.Unlock()
	if cl.isClosed() {
		return ErrClosed
	}
	c := cl.activeController()
	if c == nil {
		return ErrNoController
	}
	cl.mu.Lock()
	others := len(cl.brokers) - 1
	cl.mu.Unlock()
	if others < 1 {
		return fmt.Errorf("sandbox: broker %d is the only running broker; no other broker can take over", c.b.id)
	}
	reply := make(chan error, 1)
	c.events.push(&evMoveController{reply: reply})
	select {
	case err := <-reply:
		if err != nil {
			return err
		}
	case <-c.b.stop:
		return ErrNoController
	case <-time.After(30 * time.Second):
		return errors.New("sandbox: the controller did not answer within 30s")
	}
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if n := cl.activeController(); n != nil && n != c {
			return nil
		}
		time.Sleep(10 * time.Millisecond)
	}
	return errors.New("sandbox: the controller resigned but no broker took over within 10s")
}

// ElectionSummary is the outcome of ElectPreferred.
type ElectionSummary struct {
	// Elected partitions now led by their preferred replica.
	Elected int
	// NotNeeded partitions were already led by it (ELECTION_NOT_NEEDED).
	NotNeeded int
	// Failed partitions, one line each: "orders-3: PREFERRED_LEADER_NOT_AVAILABLE: …".
	Failed []string
}

// String is a one-line summary: "3 elected, 5 not needed, 1 failed".
func (s ElectionSummary) String() string {
	return fmt.Sprintf("%d elected, %d not needed, %d failed", s.Elected, s.NotNeeded, len(s.Failed))
}

// ElectPreferred runs a preferred leader election (as Kafka's Admin API
// electLeaders(PREFERRED) does) for every partition of topic, or of all
// topics when topic is "". It waits for the controller's answer (with a
// pace set, the election itself is paced).
func (cl *Cluster) ElectPreferred(topic string) (ElectionSummary, error) {
	var sum ElectionSummary
	if cl.kraftOwned() {
		return sum, ErrKRaftOwned
	}
	if cl.isClosed() {
		return sum, ErrClosed
	}
	c := cl.activeController()
	if c == nil {
		return sum, ErrNoController
	}
	reply := make(chan electionReply, 1)
	c.events.push(&evReplicaLeaderElection{trigger: adminClientTriggered, topic: topic, reply: reply})
	var r electionReply
	select {
	case r = <-reply:
	case <-c.b.stop:
		return sum, ErrNoController
	}
	if r.err != nil {
		return sum, r.err
	}
	for _, p := range sortedTPs(r.results) {
		o := r.results[p]
		switch o.err {
		case errNone:
			sum.Elected++
		case errElectionNotNeeded:
			sum.NotNeeded++
		default:
			line := p.String() + ": " + o.err.String()
			if o.msg != "" {
				line += ": " + o.msg
			}
			sum.Failed = append(sum.Failed, line)
		}
	}
	return sum, nil
}

// SetPace changes the pace at run time; a pause in progress is shortened
// or lengthened at once.
func (cl *Cluster) SetPace(d time.Duration) {
	if d < 0 {
		d = 0
	}
	cl.pace.Store(int64(d))
	cl.paceMu.Lock()
	close(cl.paceChanged)
	cl.paceChanged = make(chan struct{})
	cl.paceMu.Unlock()
}

// Pace returns the current pace.
func (cl *Cluster) Pace() time.Duration { return time.Duration(cl.pace.Load()) }

func (cl *Cluster) catchUpDelay() time.Duration {
	if cl.cfg.CatchUpDelay > 0 {
		return cl.cfg.CatchUpDelay
	}
	return 300*time.Millisecond + 3*cl.Pace()
}

// pause waits for the pace (re-read when it changes) or until stop closes.
func (cl *Cluster) pause(stop <-chan struct{}) error {
	start := time.Now()
	for {
		d := cl.Pace() - time.Since(start)
		if d <= 0 {
			return nil
		}
		cl.paceMu.Lock()
		changed := cl.paceChanged
		cl.paceMu.Unlock()
		t := time.NewTimer(d)
		select {
		case <-t.C:
		case <-changed:
			t.Stop()
		case <-stop:
			t.Stop()
			return errStopped
		}
	}
}

// Close stops every broker: first all their goroutines (so none reacts to
// another's departure), then their sessions, whose ephemeral znodes
// disappear. Nothing else is written. Close is idempotent.
func (cl *Cluster) Close() error {
	cl.closeMigration()
	cl.ops.Lock()
	defer cl.ops.Unlock()
	cl.mu.Lock()
	if cl.closed {
		cl.mu.Unlock()
		return nil
	}
	cl.closed = true
	bs := make([]*broker, 0, len(cl.brokers))
	for _, id := range sortedInts(cl.brokers) {
		bs = append(bs, cl.brokers[id])
	}
	cl.brokers = map[int]*broker{}
	cl.mu.Unlock()
	for _, b := range bs {
		b.halt()
	}
	for _, b := range bs {
		b.waitStopped(5 * time.Second)
	}
	for _, b := range bs {
		if b.conn != nil {
			b.conn.Close()
		}
	}
	for _, b := range bs {
		b.wg.Wait()
		b.cleanup()
	}
	cl.admin.Close()
	return nil
}

func (cl *Cluster) isClosed() bool {
	cl.mu.Lock()
	defer cl.mu.Unlock()
	return cl.closed
}

func (cl *Cluster) setClusterID(id string) { cl.clusterID.Store(id) }

// newUUID draws a Kafka Uuid from Config.Rand, or at random without it.
func (cl *Cluster) newUUID() cluster.UUID {
	if cl.cfg.Rand == nil {
		return cluster.NewTopicID()
	}
	cl.randMu.Lock()
	defer cl.randMu.Unlock()
	u, _ := cluster.NewTopicIDFrom(randReader{cl.cfg.Rand}) // a randReader never fails
	return u
}

// randReader reads the bytes of a *rand.Rand's numbers.
type randReader struct{ r *rand.Rand }

func (rr randReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(rr.r.Uint64())
	}
	return len(p), nil
}

func (cl *Cluster) setActive(c *controller) { cl.active.Store(c) }

func (cl *Cluster) clearActive(c *controller) { cl.active.CompareAndSwap(c, nil) }

// activeController returns the sandbox's active controller, if any.
// ActiveController is the broker that is the active controller, -1 when
// none is.
func (cl *Cluster) ActiveController() int {
	if c := cl.activeController(); c != nil {
		return c.b.id
	}
	return -1
}

func (cl *Cluster) activeController() *controller {
	c := cl.active.Load()
	if c == nil || c.b.stopped() {
		return nil
	}
	return c
}

// deliver hands a request to the running incarnation of broker id;
// requests to a stopped broker are dropped.
func (cl *Cluster) deliver(id int, m brokerMsg) {
	cl.mu.Lock()
	b := cl.brokers[id]
	cl.mu.Unlock()
	if b != nil && !b.stopped() {
		b.inbox.push(m)
	}
}

// brokerAlive reports whether incarnation inc of broker id still runs.
func (cl *Cluster) brokerAlive(id int, inc uint64) bool {
	cl.mu.Lock()
	defer cl.mu.Unlock()
	b := cl.brokers[id]
	return b != nil && b.inc == inc && !b.stopped()
}

// runningIDs returns the ids of running brokers.
func (cl *Cluster) runningIDs() []int {
	cl.mu.Lock()
	defer cl.mu.Unlock()
	return sortedInts(cl.brokers)
}
