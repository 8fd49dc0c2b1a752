package sandbox

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"path"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/ktopo/ktopo/cluster"
)

// errStopped ends work on a broker that is being killed or closed.
var errStopped = errors.New("sandbox: broker stopped")

// broker is one incarnation of a simulated Kafka broker: its own ZooKeeper
// session, its registration, its controller module and a tiny replica
// manager that follows leaders and, as a leader, asks the controller to
// add caught-up followers back to the ISR. Restart creates a new broker.
type broker struct {
	cl   *Cluster
	id   int
	rack string
	inc  uint64 // incarnation, unique within the Cluster
	log  *slog.Logger

	conn  zkConn
	epoch atomic.Int64 // broker epoch: czxid of its registration znode

	ctrl  *controller
	cfgs  *configListener
	inbox *queue[brokerMsg]

	stop     chan struct{}
	stopOnce sync.Once
	wg       sync.WaitGroup
	expired  atomic.Bool

	// Replica manager state, owned by the inbox goroutine.
	parts  map[tp]*localPartition
	parked map[tp]map[int]fetchReq // fetches that arrived before the leader knew its new epoch
	// Follower side: partitions this broker fetches without being in
	// their ISR, by leader, re-sent every fetchInterval (a real follower
	// fetches continuously, so a restarted leader sees it again).
	fetching     map[tp]fetchTarget
	fetchTicking bool
	timers       map[*time.Timer]struct{}
	tmu          sync.Mutex
}

func newBroker(cl *Cluster, id int, rack string, inc uint64) *broker {
	b := &broker{
		cl: cl, id: id, rack: rack, inc: inc,
		log:      cl.log.With("broker", id),
		inbox:    newQueue[brokerMsg](),
		stop:     make(chan struct{}),
		parts:    map[tp]*localPartition{},
		parked:   map[tp]map[int]fetchReq{},
		fetching: map[tp]fetchTarget{},
		timers:   map[*time.Timer]struct{}{},
	}
	b.ctrl = newController(b)
	b.cfgs = newConfigListener(b)
	return b
}

// start connects, runs Kafka's startup writes (spec §1.2) and registers
// the broker, then starts the controller module and waits for its first
// election attempt.
func (b *broker) start(ctx context.Context) error {
	conn, err := connectSession(ctx, b.cl.cfg.Connect, dialOptions{
		sessionTimeout: b.cl.cfg.SessionTimeout,
		logger:         b.log,
		onEvent:        b.onSessionEvent,
	})
	if err != nil {
		return err
	}
	b.conn = conn
	fail := func(err error) error {
		b.kill()
		return fmt.Errorf("sandbox: broker %d: %w", b.id, err)
	}
	if err := b.createTopLevelPaths(); err != nil {
		return fail(err)
	}
	if err := b.ensureClusterID(); err != nil {
		return fail(err)
	}
	if err := b.register(); err != nil {
		return fail(err)
	}
	b.wg.Add(3)
	go b.runInbox()
	go b.ctrl.run()
	go b.cfgs.run()
	done := make(chan struct{})
	b.ctrl.events.push(&evStartup{done: done})
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return fail(context.Cause(ctx))
	}
}

// kill stops the broker like a crash whose session has already expired:
// the session is closed at once (its ephemeral znodes go) and its
// goroutines stop without any further ZooKeeper write.
func (b *broker) kill() {
	b.halt()
	if b.conn != nil {
		b.conn.Close()
	}
	b.wg.Wait()
	b.cleanup()
}

// halt asks the broker's goroutines to stop.
func (b *broker) halt() { b.stopOnce.Do(func() { close(b.stop) }) }

func (b *broker) cleanup() {
	b.tmu.Lock()
	for t := range b.timers {
		t.Stop()
	}
	b.timers = map[*time.Timer]struct{}{}
	b.tmu.Unlock()
	b.ctrl.stopTimers()
	b.cl.clearActive(b.ctrl)
}

// waitStopped waits at most d for the broker's goroutines to end.
func (b *broker) waitStopped(d time.Duration) {
	done := make(chan struct{})
	go func() { b.wg.Wait(); close(done) }()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
	}
}

func (b *broker) stopped() bool {
	select {
	case <-b.stop:
		return true
	default:
		return false
	}
}

// onSessionEvent turns a session expiry into Kafka's Expire and
// RegisterBrokerAndReelect events (go-zookeeper opens the new session by
// itself), and tells the watcher which watches fired.
func (b *broker) onSessionEvent(ev zk.Event) {
	if ev.Type != zk.EventSession {
		b.ctrl.w.fired(ev)
		b.cfgs.w.fired(ev)
		return
	}
	switch ev.State {
	case zk.StateExpired:
		if !b.expired.Swap(true) {
			b.ctrl.events.push(&evExpire{})
		}
	case zk.StateHasSession:
		if b.expired.Swap(false) {
			b.ctrl.events.push(&evRegisterBrokerAndReelect{})
			b.cfgs.wake.push(struct{}{}) // afterInitializingSession
		}
	}
}

// retry runs a ZooKeeper request until it gets an answer from the server,
// as Kafka's retryRequestUntilConnected does, or the broker stops.
func (b *broker) retry(f func() error) error {
	for {
		err := f()
		if err == nil || !connectionError(err) {
			return err
		}
		if b.stopped() {
			return errStopped
		}
		select {
		case <-b.stop:
			return errStopped
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// createTopLevelPaths is KafkaZkClient.createTopLevelPaths: every path of
// ZkData.PersistentZkPaths, created recursively without data.
func (b *broker) createTopLevelPaths() error {
	for _, p := range cluster.PersistentPaths(true) {
		if err := b.createRecursive(p, nil); err != nil && !errors.Is(err, zk.ErrNodeExists) {
			return fmt.Errorf("create %s: %w", p, err)
		}
	}
	return nil
}

// createRecursive creates p with data, creating missing parents without
// data first (KafkaZkClient.createRecursive). It returns zk.ErrNodeExists
// when p already exists.
func (b *broker) createRecursive(p string, data []byte) error {
	create := func(p string, data []byte) error {
		return b.retry(func() error {
			_, err := b.conn.Create(p, data, 0, openACL)
			return err
		})
	}
	err := create(p, data)
	if !errors.Is(err, zk.ErrNoNode) {
		return err
	}
	parent := path.Dir(p)
	if parent != "/" {
		if err := b.createRecursive(parent, nil); err != nil && !errors.Is(err, zk.ErrNodeExists) {
			return err
		}
	}
	return create(p, data)
}

// ensureClusterID reads /cluster/id or creates it with a fresh id; a racing
// creator loses with NODEEXISTS and re-reads (createOrGetClusterId).
func (b *broker) ensureClusterID() error {
	read := func() (string, error) {
		var data []byte
		err := b.retry(func() (err error) {
			data, _, err = b.conn.Get(cluster.ClusterIDPath)
			return err
		})
		if err != nil {
			return "", err
		}
		c, err := cluster.DecodeClusterID(data)
		if err != nil {
			return "", err
		}
		return c.ID, nil
	}
	id, err := read()
	if err == nil {
		b.cl.setClusterID(id)
		return nil
	}
	if !errors.Is(err, zk.ErrNoNode) {
		return fmt.Errorf("read %s: %w", cluster.ClusterIDPath, err)
	}
	proposed := b.cl.newUUID().String() // cluster.NewClusterID, or from Config.Rand
	err = b.createRecursive(cluster.ClusterIDPath, cluster.EncodeClusterID(proposed))
	switch {
	case err == nil:
		b.cl.setClusterID(proposed)
		return nil
	case errors.Is(err, zk.ErrNodeExists):
		if id, err = read(); err != nil {
			return fmt.Errorf("Failed to get cluster id from Zookeeper. This can happen if /cluster/id is deleted from Zookeeper.: %w", err)
		}
		b.cl.setClusterID(id)
		return nil
	default:
		return fmt.Errorf("create %s: %w", cluster.ClusterIDPath, err)
	}
}

// registration is the broker's znode JSON (v5, IBP ≥ 2.7).
func (b *broker) registration() []byte {
	ep := cluster.BrokerEndpoint{Listener: "PLAINTEXT", SecurityProtocol: "PLAINTEXT", Host: "localhost", Port: 9092 + b.id}
	reg := cluster.NewBrokerRegistration(5, []cluster.BrokerEndpoint{ep}, -1, b.rack, time.Now().UnixMilli(), nil)
	return cluster.EncodeBroker(reg)
}

// register creates /brokers/ids/<id> the way KafkaZkClient.registerBroker
// does (spec §1.4): one multi of create(empty, EPHEMERAL) + setData(json,
// version 0), so the znode is born with dataVersion 1; its czxid becomes
// the broker epoch.
func (b *broker) register() error {
	p := cluster.BrokerIDPath(b.id)
	data := b.registration()
	var res []zk.MultiResponse
	err := b.retry(func() (err error) {
		res, err = b.conn.Multi(
			&zk.CreateRequest{Path: p, Data: nil, Acl: openACL, Flags: zk.FlagEphemeral},
			&zk.SetDataRequest{Path: p, Data: data, Version: 0},
		)
		return err
	})
	var czxid int64
	switch {
	case err == nil:
		czxid = res[1].Stat.Czxid
	case errors.Is(err, zk.ErrNodeExists):
		var stat *zk.Stat
		if gerr := b.retry(func() (err error) { _, stat, err = b.conn.Get(p); return err }); gerr != nil {
			return fmt.Errorf("register %s: %w", p, gerr)
		}
		if stat.EphemeralOwner != b.conn.SessionID() {
			return fmt.Errorf("Error while creating ephemeral at %s, node already exists and owner '0x%x' does not match current session '0x%x'",
				p, stat.EphemeralOwner, b.conn.SessionID())
		}
		czxid = stat.Czxid
	default:
		return fmt.Errorf("Error while creating ephemeral at %s: %w", p, err)
	}
	b.epoch.Store(czxid)
	b.log.Info(fmt.Sprintf("Registered broker %d at path %s with addresses: PLAINTEXT://localhost:%d, czxid (broker epoch): %d",
		b.id, p, 9092+b.id, czxid))
	return nil
}

// after delivers msg to the broker's own inbox after d.
func (b *broker) after(d time.Duration, msg brokerMsg) {
	b.tmu.Lock()
	defer b.tmu.Unlock()
	if b.stopped() {
		return
	}
	var t *time.Timer
	t = time.AfterFunc(d, func() {
		b.tmu.Lock()
		delete(b.timers, t)
		b.tmu.Unlock()
		b.inbox.push(msg)
	})
	b.timers[t] = struct{}{}
}

type brokerMsg any

// partitionStateMsg is one partition of a LeaderAndIsr request.
type partitionStateMsg struct {
	p        tp
	li       leaderIsrAndControllerEpoch
	replicas []int
	isNew    bool
}

type msgLeaderAndIsr struct {
	controllerEpoch int
	parts           []partitionStateMsg
}

type msgStopReplica struct {
	controllerEpoch int
	parts           []tp
	delete          bool
	from            *controller
}

// msgFetch stands for a follower's fetch requests to one leader: "I
// follow you for these partitions at these leader epochs".
type msgFetch struct {
	follower int
	inc      uint64
	parts    []fetchReq
}

// fetchReq is one partition of a fetch.
type fetchReq struct {
	p           tp
	follower    int
	inc         uint64
	leaderEpoch int
}

// msgFetchReply tells a follower which partitions it is in sync for (in
// the ISR), so that it stops sending fetches for them.
type msgFetchReply struct{ inSync []fetchReq }

// msgFetchTick re-sends the follower's pending fetches.
type msgFetchTick struct{}

type fetchTarget struct {
	leader      int
	leaderEpoch int
}

const fetchInterval = 100 * time.Millisecond

type msgIsrCheck struct{ p tp }

// msgAlterPartitionCheck re-checks an in-flight AlterPartition: if the
// controller it went to is gone, the request is sent again (Kafka's
// AlterPartitionManager retries on disconnection).
type msgAlterPartitionCheck struct{ p tp }

type msgAlterPartitionResponse struct {
	p      tp
	seq    uint64
	sent   leaderAndIsr
	result leaderAndIsr
	err    apiError
}

// localPartition is a broker's view of one of its partitions.
type localPartition struct {
	leader          int
	leaderEpoch     int
	isr             []int
	partitionEpoch  int32
	replicas        []int
	controllerEpoch int
	// Leader only: followers fetching but not yet in the ISR, and whether
	// an AlterPartition is in flight.
	fetchers map[int]fetchState
	inflight bool
	// sentTo is the controller the in-flight AlterPartition went to and
	// seq its number.
	sentTo *controller
	seq    uint64
}

type fetchState struct {
	since time.Time
	inc   uint64
}

func (b *broker) runInbox() {
	defer b.wg.Done()
	for {
		m, ok := b.inbox.pop(b.stop)
		if !ok || b.stopped() {
			return
		}
		switch m := m.(type) {
		case *msgLeaderAndIsr:
			b.becomeLeaderOrFollower(m)
		case *msgStopReplica:
			b.stopReplicas(m)
		case *msgFetch:
			var inSync []fetchReq
			for _, f := range m.parts {
				if b.handleFetch(f) {
					inSync = append(inSync, f)
				}
			}
			if len(inSync) > 0 {
				b.cl.deliver(m.follower, &msgFetchReply{inSync: inSync})
			}
		case *msgFetchReply:
			for _, f := range m.inSync {
				if t, ok := b.fetching[f.p]; ok && t.leaderEpoch == f.leaderEpoch {
					delete(b.fetching, f.p)
				}
			}
		case *msgFetchTick:
			b.fetchTicking = false
			b.sendFetches()
		case *msgIsrCheck:
			b.maybeExpandIsr(m.p)
		case *msgDescribeLogDirs:
			b.describeLogDirs(m)
		case *msgAlterPartitionResponse:
			b.handleAlterPartitionResponse(m)
		case *msgAlterPartitionCheck:
			if lp := b.parts[m.p]; lp != nil && lp.inflight {
				if lp.sentTo == nil || lp.sentTo.b.stopped() || b.cl.activeController() != lp.sentTo {
					lp.inflight, lp.sentTo = false, nil
					b.maybeExpandIsr(m.p)
				} else {
					b.after(alterPartitionCheckInterval, &msgAlterPartitionCheck{p: m.p})
				}
			}
		}
	}
}

// becomeLeaderOrFollower applies a LeaderAndIsr request: states with an
// older leader epoch (or the same epoch and no newer partition epoch) are
// ignored, as ReplicaManager does.
func (b *broker) becomeLeaderOrFollower(m *msgLeaderAndIsr) {
	for _, ps := range m.parts {
		cur := b.parts[ps.p]
		if cur != nil && (ps.li.leaderEpoch < cur.leaderEpoch ||
			ps.li.leaderEpoch == cur.leaderEpoch && ps.li.partitionEpoch <= cur.partitionEpoch) {
			continue
		}
		if !slices.Contains(ps.replicas, b.id) {
			continue
		}
		lp := &localPartition{
			leader: ps.li.leader, leaderEpoch: ps.li.leaderEpoch, isr: slices.Clone(ps.li.isr),
			partitionEpoch: ps.li.partitionEpoch, replicas: slices.Clone(ps.replicas),
			controllerEpoch: ps.li.controllerEpoch, fetchers: map[int]fetchState{},
		}
		if cur != nil && cur.leaderEpoch == lp.leaderEpoch {
			lp.fetchers, lp.inflight = cur.fetchers, cur.inflight
		}
		b.parts[ps.p] = lp
		delete(b.fetching, ps.p)
		switch {
		case slices.Contains(lp.isr, b.id):
			b.cl.repl.done(ps.p, b.id)
		case ps.isNew && lp.leader >= 0:
			// A replica this broker never held: it copies the partition.
			b.cl.repl.start(ps.p, b.id, lp.leader)
		}
		b.cl.repl.follow(ps.p, b.id, lp.leader)
		switch {
		case lp.leader == b.id:
			// A new leader marks the partition RECOVERED locally (Partition.makeLeader);
			// its next AlterPartition carries that state.
			parked := b.parked[ps.p]
			delete(b.parked, ps.p)
			for _, id := range slices.Sorted(maps.Keys(parked)) {
				b.handleFetch(parked[id])
			}
		case lp.leader >= 0 && !slices.Contains(lp.isr, b.id):
			b.fetching[ps.p] = fetchTarget{leader: lp.leader, leaderEpoch: lp.leaderEpoch}
		}
	}
	b.sendFetches()
}

// sendFetches sends the pending fetches, one message per leader, and
// schedules the next round while any is pending.
func (b *broker) sendFetches() {
	if len(b.fetching) == 0 {
		return
	}
	byLeader := map[int][]fetchReq{}
	for _, p := range sortedTPs(b.fetching) {
		t := b.fetching[p]
		byLeader[t.leader] = append(byLeader[t.leader], fetchReq{p: p, follower: b.id, inc: b.inc, leaderEpoch: t.leaderEpoch})
	}
	for _, l := range sortedInts(byLeader) {
		b.cl.deliver(l, &msgFetch{follower: b.id, inc: b.inc, parts: byLeader[l]})
	}
	if !b.fetchTicking {
		b.fetchTicking = true
		b.after(fetchInterval, &msgFetchTick{})
	}
}

func (b *broker) stopReplicas(m *msgStopReplica) {
	for _, p := range m.parts {
		delete(b.parts, p)
		delete(b.parked, p)
		delete(b.fetching, p)
		if m.delete {
			b.cl.repl.done(p, b.id)
		}
	}
	if m.delete && m.from != nil {
		m.from.events.push(&evStopReplicaResponse{replica: b.id, parts: m.parts, controllerEpoch: m.controllerEpoch})
	}
}

// handleFetch records a follower that fetches from this leader; it
// reports whether the follower is in the ISR already. A fetch for a leader
// epoch this broker has not seen yet waits for its LeaderAndIsr.
func (b *broker) handleFetch(f fetchReq) (inSync bool) {
	lp := b.parts[f.p]
	if lp == nil || lp.leaderEpoch < f.leaderEpoch {
		m := b.parked[f.p]
		if m == nil {
			m = map[int]fetchReq{}
			b.parked[f.p] = m
		}
		m[f.follower] = f
		return false
	}
	if lp.leaderEpoch != f.leaderEpoch || lp.leader != b.id {
		return false
	}
	if slices.Contains(lp.isr, f.follower) {
		return true
	}
	if st, ok := lp.fetchers[f.follower]; ok && st.inc == f.inc {
		return false
	}
	lp.fetchers[f.follower] = fetchState{since: time.Now(), inc: f.inc}
	b.after(b.cl.catchUpDelay(), &msgIsrCheck{p: f.p})
	return false
}

// maybeExpandIsr is the leader's side of ISR expansion: a follower that has
// been fetching for the catch-up delay is in sync, and the leader asks the
// controller to add it (one follower per AlterPartition, as Kafka does),
// in the order of Kafka's ISR set (scalaSetAdd).
func (b *broker) maybeExpandIsr(p tp) {
	lp := b.parts[p]
	if lp == nil || lp.leader != b.id || lp.inflight {
		return
	}
	now := time.Now()
	delay := b.cl.catchUpDelay()
	best, next := -1, time.Duration(0)
	var bestSince time.Time
	for _, f := range slices.Sorted(maps.Keys(lp.fetchers)) {
		st := lp.fetchers[f]
		if slices.Contains(lp.isr, f) || !slices.Contains(lp.replicas, f) || !b.cl.brokerAlive(f, st.inc) {
			delete(lp.fetchers, f)
			continue
		}
		if b.cl.repl.copying(p, f) {
			// Not caught up before its copy is complete; the copy reports
			// to the leader when it is (msgIsrCheck).
			continue
		}
		if waited := now.Sub(st.since); waited >= delay {
			if best < 0 || st.since.Before(bestSince) {
				best, bestSince = f, st.since
			}
		} else if rest := delay - waited; next == 0 || rest < next {
			next = rest
		}
	}
	if best < 0 {
		if next > 0 {
			b.after(next, &msgIsrCheck{p: p})
		}
		return
	}
	isr := scalaSetAdd(lp.isr, best)
	proposed := leaderAndIsr{leader: b.id, leaderEpoch: lp.leaderEpoch, isr: isr, partitionEpoch: lp.partitionEpoch}
	lp.inflight = true
	lp.seq++
	lp.sentTo = b.submitAlterPartition(p, proposed, lp.seq)
	if lp.sentTo != nil {
		b.after(alterPartitionCheckInterval, &msgAlterPartitionCheck{p: p})
	}
}

// submitAlterPartition sends an AlterPartition request to the active
// controller (an in-process call standing for the RPC).
func (b *broker) submitAlterPartition(p tp, proposed leaderAndIsr, seq uint64) *controller {
	ctrl := b.cl.activeController()
	if ctrl == nil {
		b.inbox.push(&msgAlterPartitionResponse{p: p, seq: seq, sent: proposed, err: errNotController})
		return nil
	}
	ctrl.events.push(&evAlterPartition{
		brokerID: b.id, brokerEpoch: b.epoch.Load(), p: p, proposed: proposed,
		reply: func(result leaderAndIsr, err apiError) {
			b.inbox.push(&msgAlterPartitionResponse{p: p, seq: seq, sent: proposed, result: result, err: err})
		},
	})
	return ctrl
}

func (b *broker) handleAlterPartitionResponse(m *msgAlterPartitionResponse) {
	lp := b.parts[m.p]
	if lp == nil || lp.leader != b.id || lp.leaderEpoch != m.sent.leaderEpoch {
		return
	}
	if !lp.inflight || m.seq != lp.seq {
		// An answer to a request that was already given up on (its
		// controller went away): keep a success, ignore the rest.
		if m.err == errNone && m.result.leaderEpoch == lp.leaderEpoch && m.result.partitionEpoch > lp.partitionEpoch {
			lp.isr = slices.Clone(m.result.isr)
			lp.partitionEpoch = m.result.partitionEpoch
		}
		return
	}
	lp.inflight, lp.sentTo = false, nil
	switch m.err {
	case errNone:
		if m.result.leaderEpoch == lp.leaderEpoch && m.result.partitionEpoch >= lp.partitionEpoch {
			lp.isr = slices.Clone(m.result.isr)
			lp.partitionEpoch = m.result.partitionEpoch
		}
		b.maybeExpandIsr(m.p)
	case errNotController, errStaleBrokerEpoch:
		// Kafka's AlterPartitionManager retries until a controller answers.
		b.after(alterPartitionRetryBackoff, &msgIsrCheck{p: m.p})
	case errIneligibleReplica, errOperationNotAttempted:
		b.after(b.cl.catchUpDelay(), &msgIsrCheck{p: m.p})
	default:
		// FENCED_LEADER_EPOCH, INVALID_UPDATE_VERSION, …: the leader waits
		// for the controller's next LeaderAndIsr.
		b.log.Info(fmt.Sprintf("Failed to alter partition to %s for %s: %s", m.sent, m.p, m.err))
	}
}

const (
	alterPartitionRetryBackoff  = 100 * time.Millisecond
	alterPartitionCheckInterval = 500 * time.Millisecond
)
