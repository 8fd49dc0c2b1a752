package sandbox

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/internal/text"
)

// controller is the controller module of one broker (Kafka's
// KafkaController): every broker runs one; the broker that wins the
// election of /controller is the active controller. All its work runs on
// one event goroutine fed by an unbounded queue (ControllerEventManager);
// ZooKeeper watch callbacks and in-process requests only enqueue events.
type controller struct {
	b        *broker
	log      *slog.Logger
	stateLog *slog.Logger
	events   *queue[event]
	w        *watcher

	activeControllerID int
	cc                 *controllerContext
	batch              *requestBatch
	// term counts this broker's controller terms; timers of an old term
	// are ignored.
	term   int
	sitOut bool
	// startupDone is closed once the broker's first election attempt is
	// decided (before a failover, which can take long on a big cluster).
	startupDone chan struct{}

	tmu    sync.Mutex
	timers map[*time.Timer]struct{}
}

func newController(b *broker) *controller {
	c := &controller{
		b:                  b,
		log:                b.log.With("component", "controller"),
		stateLog:           b.log.With("component", "state.change.logger"),
		events:             newQueue[event](),
		activeControllerID: -1,
		cc:                 newControllerContext(),
		batch:              newRequestBatch(),
		timers:             map[*time.Timer]struct{}{},
	}
	c.w = &watcher{b: b, push: c.events.push, armed: map[watchKey]bool{}, handlers: map[watchKey]watchHandler{}}
	return c
}

// controllerMovedError is Kafka's ControllerMovedException: the epoch
// check of a fenced write failed, or the election was lost.
type controllerMovedError struct{ msg string }

func (e *controllerMovedError) Error() string { return e.msg }

func moved(format string, args ...any) error {
	return &controllerMovedError{msg: fmt.Sprintf(format, args...)}
}

func isMoved(err error) bool {
	var m *controllerMovedError
	return errors.As(err, &m)
}

// logf formats and logs only when level is enabled (state-change lines
// come by the thousand for big topics).
func logf(l *slog.Logger, level slog.Level, format string, args ...any) {
	if l.Enabled(context.Background(), level) {
		l.Log(context.Background(), level, fmt.Sprintf(format, args...))
	}
}

func (c *controller) isActive() bool { return c.activeControllerID == c.b.id }

func (c *controller) run() {
	defer c.b.wg.Done()
	for {
		ev, ok := c.events.pop(c.b.stop)
		if !ok || c.b.stopped() {
			return
		}
		c.process(ev)
	}
}

func (c *controller) process(ev event) {
	var err error
	switch e := ev.(type) {
	case *evStartup:
		c.startupDone = e.done
		err = c.processStartup()
		c.startupAttempted()
	case *evControllerChange:
		err = c.maybeResign()
	case *evReelect:
		err = c.processReelect()
	case *evExpire:
		c.activeControllerID = -1
		c.onControllerResignation()
	case *evRegisterBrokerAndReelect:
		if err = c.b.register(); err == nil {
			err = c.processReelect()
		}
	case *evMoveController:
		err = c.processMoveController(e)
	case *evBrokerChange:
		err = c.processBrokerChange()
	case *evBrokerModifications:
		err = c.processBrokerModification(e.id)
	case *evTopicChange:
		err = c.processTopicChange()
	case *evPartitionModifications:
		err = c.processPartitionModifications(e.topic)
	case *evTopicDeletion:
		err = c.processTopicDeletion()
	case *evIsrChangeNotification:
		err = c.processIsrChangeNotification()
	case *evLogDirEventNotification:
		err = c.processLogDirEventNotification()
	case *evReplicaLeaderElection:
		err = c.processReplicaLeaderElection(e)
	case *evAutoPreferredReplicaLeaderElection:
		err = c.processAutoPreferredReplicaLeaderElection(e)
	case *evAlterPartition:
		err = c.processAlterPartition(e)
	case *evStopReplicaResponse:
		err = c.processTopicDeletionStopReplicaResponseReceived(e)
	case *evPartitionReassignment:
		err = c.processPartitionReassignment()
	case *evTopicUncleanLeaderElectionEnable:
		err = c.processTopicUncleanLeaderElectionEnable(e.topic)
	}
	switch {
	case err == nil, errors.Is(err, errStopped):
	case isMoved(err):
		c.log.Info(fmt.Sprintf("Controller moved to another broker when processing %s.", ev), "err", err)
		if err := c.maybeResign(); err != nil && !errors.Is(err, errStopped) {
			c.log.Error(fmt.Sprintf("Error processing event %s", ev), "err", err)
		}
	default:
		c.log.Error(fmt.Sprintf("Error processing event %s", ev), "err", err)
	}
}

// schedule pushes ev into the event queue after d.
func (c *controller) schedule(d time.Duration, ev event) {
	c.tmu.Lock()
	defer c.tmu.Unlock()
	if c.b.stopped() {
		return
	}
	var t *time.Timer
	t = time.AfterFunc(d, func() {
		c.tmu.Lock()
		delete(c.timers, t)
		c.tmu.Unlock()
		c.events.push(ev)
	})
	c.timers[t] = struct{}{}
}

func (c *controller) stopTimers() {
	c.tmu.Lock()
	defer c.tmu.Unlock()
	for t := range c.timers {
		t.Stop()
	}
	c.timers = map[*time.Timer]struct{}{}
}

// Watches (Kafka's ZooKeeperClient handler registry): a read of a path
// sets a watch exactly when a handler is registered for it, and a fired
// watch becomes the event the handler maps it to. Fired watches arrive
// through the session's event callback (fired), not through the watch
// channels, which are left alone.

type watchKey struct {
	child bool
	path  string
}

type watchHandler func(zk.EventType) event

type watcher struct {
	b        *broker
	push     func(event)
	mu       sync.Mutex
	armed    map[watchKey]bool
	handlers map[watchKey]watchHandler
}

func (w *watcher) register(k watchKey, h watchHandler) {
	w.mu.Lock()
	w.handlers[k] = h
	w.mu.Unlock()
}

func (w *watcher) unregister(k watchKey) {
	w.mu.Lock()
	delete(w.handlers, k)
	w.mu.Unlock()
}

// keepOnly unregisters every handler but the ones keep accepts.
func (w *watcher) keepOnly(keep func(watchKey) bool) {
	w.mu.Lock()
	for k := range w.handlers {
		if !keep(k) {
			delete(w.handlers, k)
		}
	}
	w.mu.Unlock()
}

// shouldArm reports whether a read of k must set a watch and, if so,
// marks it armed (one outstanding watch per path and kind).
func (w *watcher) shouldArm(k watchKey) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.handlers[k] == nil || w.armed[k] {
		return false
	}
	w.armed[k] = true
	return true
}

func (w *watcher) disarm(k watchKey) {
	w.mu.Lock()
	delete(w.armed, k)
	w.mu.Unlock()
}

// fired dispatches a fired watch, on go-zookeeper's receive goroutine and
// so in the server's order (as Kafka's ZooKeeper event thread calls its
// handlers), before the replies that follow the event on the wire: the
// watch is known to be gone before a read issued after a write, and the
// handler's event is queued before anything that follows. Only watches
// this controller set (armed) are dispatched.
func (w *watcher) fired(ev zk.Event) {
	var keys []watchKey
	switch ev.Type {
	case zk.EventNodeCreated, zk.EventNodeDataChanged:
		keys = []watchKey{{false, ev.Path}}
	case zk.EventNodeChildrenChanged:
		keys = []watchKey{{true, ev.Path}}
	case zk.EventNodeDeleted:
		keys = []watchKey{{false, ev.Path}, {true, ev.Path}}
	case zk.EventNotWatching:
		// The session expired or closed: its watches are gone.
		w.mu.Lock()
		delete(w.armed, watchKey{false, ev.Path})
		delete(w.armed, watchKey{true, ev.Path})
		w.mu.Unlock()
		return
	default:
		return
	}
	var events []event
	w.mu.Lock()
	for _, k := range keys {
		if !w.armed[k] {
			continue
		}
		delete(w.armed, k)
		if h := w.handlers[k]; h != nil {
			if e := h(ev.Type); e != nil {
				events = append(events, e)
			}
		}
	}
	w.mu.Unlock()
	for _, e := range events {
		w.push(e)
	}
}

// get reads a node, setting a data watch when a handler is registered.
func (c *controller) get(p string) (data []byte, stat *zk.Stat, err error) {
	k := watchKey{false, p}
	if c.w.shouldArm(k) {
		err = c.b.retry(func() (err error) { data, stat, _, err = c.b.conn.GetW(p); return err })
		if err != nil {
			// No watch is set on a failed read (a missing node included).
			c.w.disarm(k)
			return nil, nil, err
		}
		return data, stat, nil
	}
	err = c.b.retry(func() (err error) { data, stat, err = c.b.conn.Get(p); return err })
	return data, stat, err
}

// exists checks a node, setting an exist/data watch when a handler is
// registered (registerZNodeChangeHandlerAndCheckExistence).
func (c *controller) exists(p string) (ok bool, stat *zk.Stat, err error) {
	k := watchKey{false, p}
	if c.w.shouldArm(k) {
		err = c.b.retry(func() (err error) { ok, stat, _, err = c.b.conn.ExistsW(p); return err })
		if err != nil {
			c.w.disarm(k)
			return false, nil, err
		}
		return ok, stat, nil
	}
	err = c.b.retry(func() (err error) { ok, stat, err = c.b.conn.Exists(p); return err })
	return ok, stat, err
}

// children lists a node's children, setting a child watch when a handler
// is registered. A missing node has no children.
func (c *controller) children(p string) (kids []string, err error) {
	k := watchKey{true, p}
	if c.w.shouldArm(k) {
		err = c.b.retry(func() (err error) { kids, _, _, err = c.b.conn.ChildrenW(p); return err })
		if err != nil {
			c.w.disarm(k)
		}
	} else {
		err = c.b.retry(func() (err error) { kids, _, err = c.b.conn.Children(p); return err })
	}
	if errors.Is(err, zk.ErrNoNode) {
		return nil, nil
	}
	return kids, err
}

var controllerKey = watchKey{false, cluster.ControllerPath}

func (c *controller) controllerChangeHandler(t zk.EventType) event {
	switch t {
	case zk.EventNodeCreated, zk.EventNodeDataChanged:
		return &evControllerChange{}
	case zk.EventNodeDeleted:
		return &evReelect{}
	}
	return nil
}

func (c *controller) startupAttempted() {
	if c.startupDone != nil {
		close(c.startupDone)
		c.startupDone = nil
	}
}

func (c *controller) registerControllerChangeHandler() error {
	c.w.register(controllerKey, c.controllerChangeHandler)
	_, _, err := c.exists(cluster.ControllerPath)
	return err
}

func (c *controller) processStartup() error {
	if err := c.registerControllerChangeHandler(); err != nil {
		return err
	}
	return c.elect()
}

// getControllerID reads /controller; -1 when there is none.
func (c *controller) getControllerID() (int, error) {
	data, _, err := c.get(cluster.ControllerPath)
	if errors.Is(err, zk.ErrNoNode) {
		return -1, nil
	}
	if err != nil {
		return -1, err
	}
	info, err := cluster.DecodeController(data)
	if err != nil {
		return -1, err
	}
	return info.BrokerID, nil
}

func (c *controller) getControllerEpoch() (epoch int, version int32, err error) {
	var data []byte
	var stat *zk.Stat
	if err = c.b.retry(func() (err error) { data, stat, err = c.b.conn.Get(cluster.ControllerEpochPath); return err }); err != nil {
		return 0, 0, err
	}
	epoch, err = cluster.DecodeControllerEpoch(data)
	return epoch, stat.Version, err
}

func (c *controller) elect() error {
	id, err := c.getControllerID()
	if err != nil {
		return err
	}
	c.activeControllerID = id
	if id != -1 {
		logf(c.log, slog.LevelDebug, "Broker %d has been elected as the controller, so stopping the election process.", id)
		return nil
	}
	epoch, zkVersion, err := c.registerControllerAndIncrementControllerEpoch()
	c.startupAttempted()
	if err == nil {
		c.cc = newControllerContext()
		c.cc.epoch, c.cc.epochZkVersion = epoch, zkVersion
		c.activeControllerID = c.b.id
		c.log.Info(fmt.Sprintf("%d successfully elected as the controller. Epoch incremented to %d and epoch zk version is now %d",
			c.b.id, epoch, zkVersion))
		c.b.cl.setActive(c)
		err = c.onControllerFailover()
	}
	switch {
	case err == nil, errors.Is(err, errStopped):
		return err
	case isMoved(err):
		if err := c.maybeResign(); err != nil {
			return err
		}
		if c.activeControllerID != -1 {
			logf(c.log, slog.LevelDebug, "Broker %d was elected as controller instead of broker %d", c.activeControllerID, c.b.id)
		} else {
			c.log.Warn("A controller has been elected but just resigned, this will result in another round of election", "err", err)
		}
		return nil
	default:
		c.log.Error(fmt.Sprintf("Error while electing or becoming controller on broker %d. Trigger controller movement immediately", c.b.id), "err", err)
		return c.triggerControllerMove()
	}
}

// registerControllerAndIncrementControllerEpoch creates /controller and
// bumps /controller_epoch in one multi (KafkaZkClient).
func (c *controller) registerControllerAndIncrementControllerEpoch() (int, int32, error) {
	ts := time.Now().UnixMilli()
	curEpoch, curVersion, err := c.getControllerEpoch()
	if errors.Is(err, zk.ErrNoNode) {
		curEpoch, curVersion, err = c.maybeCreateControllerEpochZNode()
	}
	if err != nil {
		return 0, 0, err
	}
	newEpoch := curEpoch + 1
	logf(c.log, slog.LevelDebug, "Try to create %s and increment controller epoch to %d with expected controller epoch zkVersion %d",
		cluster.ControllerPath, newEpoch, curVersion)
	data := cluster.EncodeController(cluster.NewControllerInfo(2, c.b.id, ts))
	var res []zk.MultiResponse
	err = c.b.retry(func() (err error) {
		res, err = c.b.conn.Multi(
			&zk.CreateRequest{Path: cluster.ControllerPath, Data: data, Acl: openACL, Flags: zk.FlagEphemeral},
			&zk.SetDataRequest{Path: cluster.ControllerEpochPath, Data: cluster.EncodeControllerEpoch(newEpoch), Version: curVersion},
		)
		return err
	})
	switch {
	case err == nil:
		return newEpoch, res[1].Stat.Version, nil
	case errors.Is(err, zk.ErrNodeExists), errors.Is(err, zk.ErrBadVersion):
		return c.checkControllerAndEpoch(newEpoch)
	default:
		return 0, 0, err
	}
}

func (c *controller) checkControllerAndEpoch(newEpoch int) (int, int32, error) {
	id, err := c.getControllerID()
	if err != nil {
		return 0, 0, err
	}
	if id == -1 {
		return 0, 0, moved("The ephemeral node at %s went away while checking whether the controller election succeeds. Aborting controller startup procedure", cluster.ControllerPath)
	}
	if id == c.b.id {
		epoch, version, err := c.getControllerEpoch()
		if err != nil {
			return 0, 0, err
		}
		if epoch == newEpoch {
			return newEpoch, version, nil
		}
	}
	return 0, 0, moved("Controller moved to another broker. Aborting controller startup procedure")
}

func (c *controller) maybeCreateControllerEpochZNode() (int, int32, error) {
	err := c.b.retry(func() error {
		_, err := c.b.conn.Create(cluster.ControllerEpochPath, cluster.EncodeControllerEpoch(0), 0, openACL)
		return err
	})
	switch {
	case err == nil:
		c.log.Info(fmt.Sprintf("Successfully created %s with initial epoch 0", cluster.ControllerEpochPath))
		return 0, 0, nil
	case errors.Is(err, zk.ErrNodeExists):
		return c.getControllerEpoch()
	default:
		return 0, 0, err
	}
}

func (c *controller) maybeResign() error {
	wasActive := c.isActive()
	if err := c.registerControllerChangeHandler(); err != nil {
		return err
	}
	id, err := c.getControllerID()
	if err != nil {
		return err
	}
	c.activeControllerID = id
	if wasActive && !c.isActive() {
		c.onControllerResignation()
	}
	return nil
}

func (c *controller) processReelect() error {
	if err := c.maybeResign(); err != nil {
		return err
	}
	if c.sitOut {
		// move-controller: let another broker win this round; if nobody
		// does, stand again later.
		c.sitOut = false
		c.schedule(sitOutRetry, &evReelect{})
		return nil
	}
	return c.elect()
}

const sitOutRetry = 2 * time.Second

// triggerControllerMove resigns and deletes /controller (fenced).
func (c *controller) triggerControllerMove() error {
	id, err := c.getControllerID()
	if err != nil {
		return err
	}
	c.activeControllerID = id
	if !c.isActive() {
		c.log.Warn("Controller has already moved when trying to trigger controller movement")
		return nil
	}
	expected := c.cc.epochZkVersion
	c.activeControllerID = -1
	c.onControllerResignation()
	_, err = c.fencedMulti(expected, []any{&zk.DeleteRequest{Path: cluster.ControllerPath, Version: -1}})
	switch {
	case err == nil, errors.Is(err, zk.ErrNoNode):
		return nil
	case isMoved(err):
		c.log.Warn("Controller has already moved when trying to trigger controller movement")
		return nil
	default:
		return err
	}
}

func (c *controller) processMoveController(e *evMoveController) error {
	if !c.isActive() {
		e.reply <- ErrNoController
		return nil
	}
	c.sitOut = true
	err := c.triggerControllerMove()
	if err != nil {
		c.sitOut = false
	}
	e.reply <- err
	return err
}

// onControllerResignation drops the controller's handlers, timers and
// cache; only the /controller watch stays.
func (c *controller) onControllerResignation() {
	c.w.keepOnly(func(k watchKey) bool { return k == controllerKey })
	c.stopTimers()
	c.cc = newControllerContext()
	c.batch = newRequestBatch()
	c.b.cl.clearActive(c)
	c.log.Info("Resigned")
}

var (
	brokerIDsKey          = watchKey{true, cluster.BrokerIDsPath}
	topicsKey             = watchKey{true, cluster.BrokerTopicsPath}
	deleteTopicsKey       = watchKey{true, cluster.DeleteTopicsPath}
	logDirEventsKey       = watchKey{true, cluster.LogDirEventNotificationPath}
	isrChangesKey         = watchKey{true, cluster.IsrChangeNotificationPath}
	preferredElectionKey  = watchKey{false, cluster.PreferredReplicaElectionPath}
	reassignPartitionsKey = watchKey{false, cluster.ReassignPartitionsPath}
)

func always(e event) watchHandler { return func(zk.EventType) event { return e } }

func (c *controller) onControllerFailover() error {
	c.term++
	if err := c.maybeSetupFeatureVersioning(); err != nil {
		return err
	}
	c.log.Info("Registering handlers")
	c.w.register(brokerIDsKey, always(&evBrokerChange{}))
	c.w.register(topicsKey, always(&evTopicChange{}))
	c.w.register(deleteTopicsKey, always(&evTopicDeletion{}))
	c.w.register(logDirEventsKey, always(&evLogDirEventNotification{}))
	c.w.register(isrChangesKey, always(&evIsrChangeNotification{}))
	c.w.register(preferredElectionKey, func(t zk.EventType) event {
		if t == zk.EventNodeCreated {
			return &evReplicaLeaderElection{trigger: zkTriggered}
		}
		return nil
	})
	c.w.register(reassignPartitionsKey, func(t zk.EventType) event {
		if t == zk.EventNodeCreated {
			return &evPartitionReassignment{}
		}
		return nil
	})
	if _, _, err := c.exists(cluster.PreferredReplicaElectionPath); err != nil {
		return err
	}
	c.log.Info("Deleting log dir event notifications")
	if _, err := c.deleteNotifications(cluster.LogDirEventNotificationPath, nil); err != nil {
		return err
	}
	c.log.Info("Deleting isr change notifications")
	if _, err := c.deleteNotifications(cluster.IsrChangeNotificationPath, nil); err != nil {
		return err
	}
	c.log.Info("Initializing controller context")
	if err := c.initializeControllerContext(); err != nil {
		return err
	}
	c.log.Info("Fetching topic deletions in progress")
	toDelete, ineligible, err := c.fetchTopicDeletionsInProgress()
	if err != nil {
		return err
	}
	c.log.Info("Initializing topic deletion manager")
	c.deletionInit(toDelete, ineligible)
	if err := c.rsmStartup(); err != nil {
		return err
	}
	if err := c.psmStartup(); err != nil {
		return err
	}
	c.log.Info(fmt.Sprintf("Ready to serve as the new controller with epoch %d", c.cc.epoch))
	if err := c.initializePartitionReassignments(); err != nil {
		return err
	}
	if err := c.tryTopicDeletion(); err != nil {
		return err
	}
	pending, err := c.fetchPendingPreferredReplicaElections()
	if err != nil {
		return err
	}
	if _, err := c.onReplicaElection(pending, zkTriggered); err != nil {
		return err
	}
	if !c.b.cl.cfg.NoAutoLeaderRebalance {
		c.schedule(firstLeaderImbalanceCheck, &evAutoPreferredReplicaLeaderElection{term: c.term})
	}
	return nil
}

// firstLeaderImbalanceCheck is when a new controller first checks the
// leader balance (Kafka's scheduleAutoLeaderRebalanceTask(delay = 5 s) at
// the end of onControllerFailover, whatever the interval).
const firstLeaderImbalanceCheck = 5 * time.Second

// maybeSetupFeatureVersioning is enableFeatureVersioning for IBP ≥ 3.3:
// /feature is created as {"version":2,"status":1,"features":{}} (enabled,
// with the finalized features the sandbox brokers support: none), or
// switched to enabled.
func (c *controller) maybeSetupFeatureVersioning() error {
	want := cluster.FeatureZNode{Version: 2, Status: cluster.FeatureStatusEnabled}
	var data []byte
	err := c.b.retry(func() (err error) { data, _, err = c.b.conn.Get(cluster.FeaturePath); return err })
	if errors.Is(err, zk.ErrNoNode) {
		err = c.b.retry(func() error {
			_, err := c.b.conn.Create(cluster.FeaturePath, cluster.EncodeFeature(want), 0, openACL)
			return err
		})
		if errors.Is(err, zk.ErrNodeExists) {
			return nil
		}
		return err
	}
	if err != nil {
		return err
	}
	cur, err := cluster.DecodeFeature(data)
	if err != nil {
		return err
	}
	if cur.Status == cluster.FeatureStatusEnabled {
		want.Features = cur.Features
	}
	if cur.Version == want.Version && cur.Status == want.Status && len(cur.Features) == len(want.Features) {
		return nil
	}
	return c.b.retry(func() error {
		_, err := c.b.conn.Set(cluster.FeaturePath, cluster.EncodeFeature(want), -1)
		return err
	})
}

func (c *controller) initializeControllerContext() error {
	brokers, err := c.getAllBrokerAndEpochsInCluster()
	if err != nil {
		return err
	}
	c.cc.liveBrokers = brokers
	c.log.Info(fmt.Sprintf("Initialized broker epochs cache: %s", brokerEpochsString(brokers)))
	topics, err := c.children(cluster.BrokerTopicsPath)
	if err != nil {
		return err
	}
	for _, t := range topics {
		c.cc.allTopics[t] = true
	}
	c.registerPartitionModificationsHandlers(topics)
	assignments, err := c.getReplicaAssignmentAndTopicIDForTopics(topics)
	if err != nil {
		return err
	}
	if err := c.processTopicIDs(assignments); err != nil {
		return err
	}
	for _, a := range assignments {
		c.cc.noteAssignment(a)
	}
	c.cc.leadership = map[tp]leaderIsrAndControllerEpoch{}
	if err := c.registerBrokerModificationsHandler(c.cc.liveBrokerIDs()); err != nil {
		return err
	}
	if err := c.updateLeaderAndIsrCache(c.cc.allPartitions()); err != nil {
		return err
	}
	c.log.Info(fmt.Sprintf("Currently active brokers in the cluster: %s", setString(c.cc.liveBrokerIDs())))
	c.log.Info(fmt.Sprintf("Current list of topics in the cluster: Set(%s)", joinStrings(sortedKeys(c.cc.allTopics))))
	return nil
}

func (c *controller) registerPartitionModificationsHandlers(topics []string) {
	for _, t := range topics {
		topic := t
		c.w.register(watchKey{false, cluster.TopicPath(t)}, func(ty zk.EventType) event {
			if ty == zk.EventNodeDataChanged {
				return &evPartitionModifications{topic: topic}
			}
			return nil
		})
	}
}

func (c *controller) registerBrokerModificationsHandler(ids []int) error {
	for _, id := range ids {
		bid := id
		p := cluster.BrokerIDPath(id)
		c.w.register(watchKey{false, p}, func(ty zk.EventType) event {
			if ty == zk.EventNodeDataChanged {
				return &evBrokerModifications{id: bid}
			}
			return nil
		})
		if _, _, err := c.exists(p); err != nil {
			return err
		}
	}
	return nil
}

func (c *controller) unregisterBrokerModificationsHandler(ids []int) {
	for _, id := range ids {
		c.w.unregister(watchKey{false, cluster.BrokerIDPath(id)})
	}
}

// getAllBrokerAndEpochsInCluster lists /brokers/ids and reads each
// registration: id → czxid.
func (c *controller) getAllBrokerAndEpochsInCluster() (map[int]int64, error) {
	kids, err := c.children(cluster.BrokerIDsPath)
	if err != nil {
		return nil, err
	}
	var ids []int
	var paths []string
	for _, k := range kids {
		id, err := strconv.Atoi(k)
		if err != nil {
			continue
		}
		ids = append(ids, id)
		paths = append(paths, cluster.BrokerIDPath(id))
	}
	res, err := c.getMany(paths, true)
	if err != nil {
		return nil, err
	}
	out := map[int]int64{}
	for i, r := range res {
		if r.err != nil {
			if !errors.Is(r.err, zk.ErrNoNode) {
				return nil, r.err
			}
			continue
		}
		if _, err := cluster.DecodeBroker(r.data); err != nil {
			c.log.Error(fmt.Sprintf("Failed to parse ZooKeeper registration for broker %d: %s", ids[i], r.data), "err", err)
			continue
		}
		out[ids[i]] = r.stat.Czxid
	}
	return out, nil
}

func brokerEpochsString(m map[int]int64) string {
	s := "Map("
	first := true
	for _, id := range sortedInts(m) {
		if !first {
			s += ", "
		}
		first = false
		s += fmt.Sprintf("%d -> %d", id, m[id])
	}
	return s + ")"
}

func setString(ids []int) string { return "Set(" + text.Ints(ids) + ")" }
