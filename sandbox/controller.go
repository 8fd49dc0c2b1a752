package sandbox

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"
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
