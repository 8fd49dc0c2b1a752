package sandbox

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/clusterops"
)

// configChangeExpiration is how old a change notification gets before a
// broker deletes it (ZkNodeChangeNotificationListener's changeExpirationMs).
const configChangeExpiration = 15 * time.Minute

// configListener is a broker's ZkConfigManager: a
// ZkNodeChangeNotificationListener on /config/changes (a child watch, a
// thread of its own) that applies every notification with a sequence
// number above the last one applied, reading the entity's config znode,
// then purges notifications older than 15 minutes. Topic configs become
// the broker's log configs (TopicConfigHandler); a topic whose
// unclean.leader.election.enable is true makes the broker's controller,
// when active, run the Offline election for the topic's leaderless
// partitions (TopicUncleanLeaderElectionEnable, spec §4.5). Other entity
// types are recorded and logged only.
type configListener struct {
	b    *broker
	w    *watcher
	wake *queue[struct{}]
	last int64 // lastExecutedChange; -1: apply every notification

	mu     sync.Mutex
	topics map[string]map[string]string // applied topic overrides
}

type evConfigNotifications struct{}

func (*evConfigNotifications) String() string { return "ConfigChangeNotification" }

var configChangesKey = watchKey{true, cluster.ConfigChangesPath}

func newConfigListener(b *broker) *configListener {
	l := &configListener{b: b, wake: newQueue[struct{}](), last: -1, topics: map[string]map[string]string{}}
	l.w = &watcher{b: b, push: func(event) { l.wake.push(struct{}{}) },
		armed: map[watchKey]bool{}, handlers: map[watchKey]watchHandler{}}
	l.w.register(configChangesKey, always(&evConfigNotifications{}))
	return l
}

// run is ZkConfigManager.startup then the listener's thread: every topic
// config is applied once (as DynamicConfigManager bootstraps them), then
// notifications as they come.
func (l *configListener) run() {
	defer l.b.wg.Done()
	if err := l.applyAll(); err != nil && !errors.Is(err, errStopped) {
		l.b.log.Error("Error while applying the topic configs at startup", "err", err)
	}
	l.wake.push(struct{}{})
	for {
		if _, ok := l.wake.pop(l.b.stop); !ok || l.b.stopped() {
			return
		}
		if err := l.processNotifications(); err != nil && !errors.Is(err, errStopped) {
			l.b.log.Error("Error while processing notification change for path = "+cluster.ConfigChangesPath, "err", err)
		}
	}
}

func (l *configListener) applyAll() error {
	var topics []string
	err := l.b.retry(func() (err error) { topics, _, err = l.b.conn.Children(cluster.ConfigTopicsPath); return err })
	if errors.Is(err, zk.ErrNoNode) {
		return nil
	}
	if err != nil {
		return err
	}
	slices.Sort(topics)
	for _, t := range topics {
		if err := l.applyEntity(cluster.EntityTopics, t, false); err != nil {
			return err
		}
	}
	return nil
}

func (l *configListener) processNotifications() error {
	var kids []string
	k := configChangesKey
	var err error
	if l.w.shouldArm(k) {
		err = l.b.retry(func() (err error) { kids, _, _, err = l.b.conn.ChildrenW(k.path); return err })
		if err != nil {
			l.w.disarm(k)
		}
	} else {
		err = l.b.retry(func() (err error) { kids, _, err = l.b.conn.Children(k.path); return err })
	}
	if errors.Is(err, zk.ErrNoNode) || err == nil && len(kids) == 0 {
		return nil
	}
	if err != nil {
		return err
	}
	slices.Sort(kids)
	l.b.log.Info("Processing notification(s) to " + cluster.ConfigChangesPath)
	now := time.Now()
	for _, n := range kids {
		seq, err := strconv.ParseInt(strings.TrimPrefix(n, cluster.ConfigChangePrefix), 10, 64)
		if err != nil || seq <= l.last {
			continue
		}
		if err := l.processNotification(n); err != nil {
			return err
		}
		l.last = seq
	}
	return l.purgeObsolete(now, kids)
}

// processNotification applies one notification; one that cannot be read
// is logged and skipped, as Kafka does.
func (l *configListener) processNotification(name string) error {
	path := cluster.ConfigChangesPath + "/" + name
	var data []byte
	err := l.b.retry(func() (err error) { data, _, err = l.b.conn.Get(path); return err })
	if errors.Is(err, zk.ErrNoNode) {
		l.b.log.Warn("read null data from " + path)
		return nil
	}
	if err != nil {
		return err
	}
	n, err := cluster.DecodeConfigChangeNotification(data)
	if err != nil {
		l.b.log.Error(fmt.Sprintf("error processing change notification %s from %s", data, path), "err", err)
		return nil
	}
	entityType, entity, ok := strings.Cut(n.Path(), "/")
	if !ok || !slices.Contains(clusterops.ZooKeeperEntityTypes(), entityType) {
		l.b.log.Error(fmt.Sprintf("error processing change notification %s from %s: unknown entity path", data, path))
		return nil
	}
	return l.applyEntity(entityType, entity, true)
}

// applyEntity reads an entity's config and applies it; a topic config
// with unclean leader election on asks the controller to elect.
func (l *configListener) applyEntity(entityType, entity string, notified bool) error {
	var data []byte
	err := l.b.retry(func() (err error) {
		data, _, err = l.b.conn.Get(cluster.EntityConfigPath(entityType, entity))
		return err
	})
	cfg := map[string]string{}
	switch {
	case errors.Is(err, zk.ErrNoNode):
	case err != nil:
		return err
	default:
		if ec, err := cluster.DecodeEntityConfig(data); err == nil {
			cfg = ec.Map()
		}
	}
	if notified {
		l.b.log.Info(fmt.Sprintf("Processing override for entityPath: %s/%s with config: %s", entityType, entity, scalaMap(cfg)))
	}
	if entityType != cluster.EntityTopics {
		return nil
	}
	l.mu.Lock()
	l.topics[entity] = cfg
	l.mu.Unlock()
	if strings.EqualFold(cfg[cluster.ConfigUncleanLeaderElectionEnable], "true") {
		l.b.ctrl.events.push(&evTopicUncleanLeaderElectionEnable{topic: entity})
	}
	return nil
}

func (l *configListener) purgeObsolete(now time.Time, kids []string) error {
	for _, n := range kids {
		path := cluster.ConfigChangesPath + "/" + n
		var stat *zk.Stat
		err := l.b.retry(func() (err error) { _, stat, err = l.b.conn.Get(path); return err })
		if errors.Is(err, zk.ErrNoNode) {
			continue
		}
		if err != nil {
			return err
		}
		if now.Sub(time.UnixMilli(stat.Ctime)) > configChangeExpiration {
			if err := l.b.retry(func() error { return l.b.conn.Delete(path, -1) }); err != nil && !errors.Is(err, zk.ErrNoNode) {
				return err
			}
		}
	}
	return nil
}

// topicConfig returns the overrides the broker applied for topic.
func (l *configListener) topicConfig(topic string) (map[string]string, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	cfg, ok := l.topics[topic]
	return maps.Clone(cfg), ok
}

// scalaMap renders a config as Kafka logs a Scala map: Map(k -> v, …).
func scalaMap(cfg map[string]string) string {
	parts := make([]string, 0, len(cfg))
	for _, k := range slices.Sorted(maps.Keys(cfg)) {
		parts = append(parts, k+" -> "+cfg[k])
	}
	return "Map(" + strings.Join(parts, ", ") + ")"
}

// evTopicUncleanLeaderElectionEnable is Kafka's
// TopicUncleanLeaderElectionEnable, queued by the broker's config handler.
type evTopicUncleanLeaderElectionEnable struct{ topic string }

func (e *evTopicUncleanLeaderElectionEnable) String() string {
	return "TopicUncleanLeaderElectionEnable(" + e.topic + ")"
}

// processTopicUncleanLeaderElectionEnable runs the Offline election for
// the topic's New and Offline partitions, which now read the topic's
// unclean.leader.election.enable as true (KafkaController's handler).
func (c *controller) processTopicUncleanLeaderElectionEnable(topic string) error {
	if !c.isActive() {
		return nil
	}
	c.log.Info("Unclean leader election has been enabled for topic " + topic)
	if c.cc.isTopicQueuedUpForDeletion(topic) {
		return nil
	}
	var ps []tp
	for _, p := range c.cc.partitionsInStates(offlinePartition, newPartition) {
		if p.topic == topic {
			ps = append(ps, p)
		}
	}
	_, err := c.psmHandleStateChanges(ps, onlinePartition, &offlineElection)
	return err
}
