package sandbox

import (
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/ktopo/ktopo/cluster"
)

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
