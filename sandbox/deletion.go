package sandbox

import (
	"errors"
	"fmt"
	"slices"

	"github.com/go-zookeeper/zk"
	"github.com/ktopo/ktopo/cluster"
)

// Topic deletion: Kafka's TopicDeletionManager (spec §4.12) with
// delete.topic.enable=true (Kafka's default).

func (c *controller) processTopicDeletion() error {
	if !c.isActive() {
		return nil
	}
	topics, err := c.children(cluster.DeleteTopicsPath)
	if err != nil {
		return err
	}
	slices.Sort(topics)
	var unknown, known []string
	for _, t := range topics {
		if c.cc.allTopics[t] {
			known = append(known, t)
		} else {
			unknown = append(unknown, t)
		}
	}
	if len(unknown) > 0 {
		c.log.Warn(fmt.Sprintf("Ignoring request to delete non-existing topics %s", joinStrings(unknown)))
		if _, err := c.deleteNotifications(cluster.DeleteTopicsPath, unknown); err != nil {
			return err
		}
	}
	if len(known) > 0 {
		c.log.Info(fmt.Sprintf("Starting topic deletion for topics %s", joinStrings(known)))
		return c.enqueueTopicsForDeletion(known)
	}
	return nil
}

// fetchTopicDeletionsInProgress reads /admin/delete_topics at failover;
// topics with a replica on a dead broker are ineligible for now.
func (c *controller) fetchTopicDeletionsInProgress() ([]string, []string, error) {
	toDelete, err := c.children(cluster.DeleteTopicsPath)
	if err != nil {
		return nil, nil, err
	}
	slices.Sort(toDelete)
	var ineligible []string
	for _, t := range sortedKeys(c.cc.allTopics) {
		for _, r := range c.cc.replicasForTopic(t) {
			if !c.cc.isReplicaOnline(r.replica) {
				ineligible = append(ineligible, t)
				break
			}
		}
	}
	// Topics being reassigned wait for their reassignment too.
	for _, t := range c.cc.topicsBeingReassigned() {
		if !slices.Contains(ineligible, t) {
			ineligible = append(ineligible, t)
		}
	}
	slices.Sort(ineligible)
	c.log.Info(fmt.Sprintf("List of topics to be deleted: %s", joinStrings(toDelete)))
	c.log.Info(fmt.Sprintf("List of topics ineligible for deletion: %s", joinStrings(ineligible)))
	return toDelete, ineligible, nil
}

func (c *controller) deletionInit(toDelete, ineligible []string) {
	c.log.Info(fmt.Sprintf("Initializing manager with initial deletions: Set(%s), initial ineligible deletions: Set(%s)",
		joinStrings(toDelete), joinStrings(ineligible)))
	for _, t := range toDelete {
		c.cc.topicsToBeDeleted[t] = true
	}
	for _, t := range ineligible {
		if c.cc.topicsToBeDeleted[t] {
			c.cc.topicsIneligibleForDeletion[t] = true
		}
	}
}

func (c *controller) tryTopicDeletion() error { return c.resumeDeletions() }

func (c *controller) enqueueTopicsForDeletion(topics []string) error {
	for _, t := range topics {
		c.cc.topicsToBeDeleted[t] = true
	}
	return c.resumeDeletions()
}

func (c *controller) resumeDeletionForTopics(topics []string) error {
	var resume []string
	for _, t := range topics {
		if c.cc.topicsToBeDeleted[t] {
			resume = append(resume, t)
		}
	}
	if len(resume) == 0 {
		return nil
	}
	for _, t := range resume {
		delete(c.cc.topicsIneligibleForDeletion, t)
	}
	return c.resumeDeletions()
}

func (c *controller) failReplicaDeletion(rs []replicaKey) error {
	var failed []replicaKey
	var topics []string
	for _, r := range rs {
		if c.cc.isTopicQueuedUpForDeletion(r.topic) {
			failed = append(failed, r)
			if !slices.Contains(topics, r.topic) {
				topics = append(topics, r.topic)
			}
		}
	}
	if len(failed) == 0 {
		return nil
	}
	if err := c.rsmHandleStateChanges(failed, replicaDeletionIneligible); err != nil {
		return err
	}
	c.markTopicIneligibleForDeletion(topics, "replica deletion failure")
	return c.resumeDeletions()
}

func (c *controller) markTopicIneligibleForDeletion(topics []string, reason string) {
	var halted []string
	for _, t := range topics {
		if c.cc.topicsToBeDeleted[t] {
			c.cc.topicsIneligibleForDeletion[t] = true
			halted = append(halted, t)
		}
	}
	if len(halted) > 0 {
		c.log.Info(fmt.Sprintf("Halted deletion of topics %s due to %s", joinStrings(halted), reason))
	}
}

func (c *controller) completeReplicaDeletion(rs []replicaKey) error {
	var done []replicaKey
	for _, r := range rs {
		if c.cc.isTopicQueuedUpForDeletion(r.topic) {
			done = append(done, r)
		}
	}
	if err := c.rsmHandleStateChanges(done, replicaDeletionSuccessful); err != nil {
		return err
	}
	return c.resumeDeletions()
}

func (c *controller) isTopicEligibleForDeletion(t string) bool {
	return c.cc.topicsToBeDeleted[t] && !c.cc.isAnyReplicaInState(t, replicaDeletionStarted) &&
		!c.cc.topicsIneligibleForDeletion[t]
}

func (c *controller) resumeDeletions() error {
	queued := sortedKeys(c.cc.topicsToBeDeleted)
	if len(queued) > 0 {
		c.log.Info(fmt.Sprintf("Handling deletion for topics %s", joinStrings(queued)))
	}
	var retry, eligible []string
	for _, t := range queued {
		if c.cc.areAllReplicasInState(t, replicaDeletionSuccessful) {
			if err := c.completeDeleteTopic(t); err != nil {
				return err
			}
			c.log.Info(fmt.Sprintf("Deletion of topic %s successfully completed", t))
		} else if !c.cc.isAnyReplicaInState(t, replicaDeletionStarted) &&
			c.cc.isAnyReplicaInState(t, replicaDeletionIneligible) {
			retry = append(retry, t)
		}
		if c.isTopicEligibleForDeletion(t) {
			c.log.Info(fmt.Sprintf("Deletion of topic %s (re)started", t))
			eligible = append(eligible, t)
		}
	}
	for _, t := range retry {
		failed := c.cc.replicasInState(t, replicaDeletionIneligible)
		c.log.Info(fmt.Sprintf("Retrying deletion of topic %s since replicas %s were not successfully deleted",
			t, replicasString(failed, []string{t})))
		if err := c.rsmHandleStateChanges(failed, offlineReplica); err != nil {
			return err
		}
	}
	if len(eligible) > 0 {
		return c.onTopicDeletion(eligible)
	}
	return nil
}

func (c *controller) onTopicDeletion(topics []string) error {
	var unseen []tp
	var unseenTopics []string
	for _, t := range topics {
		if !c.cc.topicsWithDeletionStarted[t] {
			unseenTopics = append(unseenTopics, t)
			unseen = append(unseen, c.cc.partitionsForTopic(t)...)
		}
	}
	if len(unseen) > 0 {
		if _, err := c.psmHandleStateChanges(unseen, offlinePartition, nil); err != nil {
			return err
		}
		if _, err := c.psmHandleStateChanges(unseen, nonExistentPartition, nil); err != nil {
			return err
		}
	}
	for _, t := range unseenTopics {
		c.cc.topicsWithDeletionStarted[t] = true
	}
	return c.onPartitionDeletion(topics)
}

func (c *controller) onPartitionDeletion(topics []string) error {
	var dead, retry []replicaKey
	var ineligible []string
	for _, t := range topics {
		var alive []replicaKey
		hasDead := false
		for _, r := range c.cc.replicasForTopic(t) {
			if c.cc.isReplicaOnline(r.replica) {
				alive = append(alive, r)
			} else {
				dead = append(dead, r)
				hasDead = true
			}
		}
		for _, r := range alive {
			if c.cc.replicaStates[r] != replicaDeletionSuccessful {
				retry = append(retry, r)
			}
		}
		if hasDead {
			ineligible = append(ineligible, t)
		}
	}
	if err := c.rsmHandleStateChanges(dead, replicaDeletionIneligible); err != nil {
		return err
	}
	if err := c.rsmHandleStateChanges(retry, offlineReplica); err != nil {
		return err
	}
	if err := c.rsmHandleStateChanges(retry, replicaDeletionStarted); err != nil {
		return err
	}
	if len(ineligible) > 0 {
		c.markTopicIneligibleForDeletion(ineligible, "offline replicas")
	}
	return nil
}

// completeDeleteTopic removes the topic from ZooKeeper: the topic znode
// recursively (depth first: each state, each partitions/<p>, partitions,
// the topic), its config and its deletion marker, every delete fenced.
func (c *controller) completeDeleteTopic(t string) error {
	c.w.unregister(watchKey{false, cluster.TopicPath(t)})
	if err := c.rsmHandleStateChanges(c.cc.replicasInState(t, replicaDeletionSuccessful), nonExistentReplica); err != nil {
		return err
	}
	paths, err := c.subtreeDepthFirst(cluster.TopicPath(t))
	if err != nil {
		return err
	}
	paths = append(paths, cluster.TopicConfigPath(t), cluster.DeleteTopicPath(t))
	if err := c.fencedDeletes(paths); err != nil {
		return err
	}
	c.cc.removeTopic(t)
	c.b.cl.forgetTopic(t)
	return nil
}

// subtreeDepthFirst lists p and its descendants children-first, in the
// order KafkaZkClient.deleteRecursive deletes them.
func (c *controller) subtreeDepthFirst(p string) ([]string, error) {
	var kids []string
	err := c.b.retry(func() (err error) { kids, _, err = c.b.conn.Children(p); return err })
	if errors.Is(err, zk.ErrNoNode) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	sortChildren(kids)
	var out []string
	for _, k := range kids {
		sub, err := c.subtreeDepthFirst(p + "/" + k)
		if err != nil {
			return nil, err
		}
		out = append(out, sub...)
	}
	return append(out, p), nil
}

// sortChildren orders child names numerically when they are partition ids.
func sortChildren(kids []string) {
	slices.SortFunc(kids, func(a, b string) int {
		ai, aerr := atoiStrict(a)
		bi, berr := atoiStrict(b)
		if aerr == nil && berr == nil {
			return ai - bi
		}
		if a < b {
			return -1
		}
		if a > b {
			return 1
		}
		return 0
	})
}

func atoiStrict(s string) (int, error) {
	n := 0
	if s == "" || len(s) > 9 {
		return 0, errors.New("not a small integer")
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, errors.New("not an integer")
		}
		n = n*10 + int(s[i]-'0')
	}
	return n, nil
}

func (c *controller) processTopicDeletionStopReplicaResponseReceived(e *evStopReplicaResponse) error {
	if !c.isActive() || e.controllerEpoch != c.cc.epoch {
		return nil
	}
	var failed, done []replicaKey
	for _, p := range e.parts {
		r := replicaKey{p, e.replica}
		if e.err != errNone {
			failed = append(failed, r)
		} else {
			done = append(done, r)
		}
	}
	if err := c.failReplicaDeletion(failed); err != nil {
		return err
	}
	if len(done) > 0 {
		return c.completeReplicaDeletion(done)
	}
	return nil
}
