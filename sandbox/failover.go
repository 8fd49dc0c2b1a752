package sandbox

import (
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/internal/text"
)

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
