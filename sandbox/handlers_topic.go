package sandbox

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/go-zookeeper/zk"
	"github.com/ktopo/ktopo/cluster"
)

// topicAssignment is a decoded topic znode.
type topicAssignment struct {
	topic      string
	topicID    string
	partitions map[int][]int
	adding     map[int][]int
	removing   map[int][]int
}

func (c *controller) getReplicaAssignmentAndTopicIDForTopics(topics []string) ([]topicAssignment, error) {
	paths := make([]string, len(topics))
	for i, t := range topics {
		paths[i] = cluster.TopicPath(t)
	}
	reads, err := c.getMany(paths, true)
	if err != nil {
		return nil, err
	}
	var out []topicAssignment
	for i, r := range reads {
		if r.err != nil {
			if errors.Is(r.err, zk.ErrNoNode) {
				continue
			}
			return nil, r.err
		}
		a, err := cluster.DecodeTopicAssignment(r.data)
		if err != nil {
			c.log.Error(fmt.Sprintf("Failed to decode the assignment of topic %s", topics[i]), "err", err)
			continue
		}
		out = append(out, topicAssignment{topic: topics[i], topicID: a.TopicID,
			partitions: a.Partitions, adding: a.AddingReplicas, removing: a.RemovingReplicas})
	}
	return out, nil
}

// processTopicIDs gives every topic without a topic_id one, rewriting its
// znode (fenced, any version) before its partitions are created
// (KafkaController.processTopicIds with IBP ≥ 2.8).
func (c *controller) processTopicIDs(as []topicAssignment) error {
	var ops []any
	var idx []int
	for i := range as {
		if as[i].topicID != "" {
			continue
		}
		as[i].topicID = cluster.NewTopicID().String()
		a := cluster.TopicAssignment{Version: 3, Partitions: as[i].partitions, AddingReplicas: as[i].adding,
			RemovingReplicas: as[i].removing, TopicID: as[i].topicID}
		ops = append(ops, &zk.SetDataRequest{Path: cluster.TopicPath(as[i].topic), Data: cluster.EncodeTopicAssignment(a), Version: -1})
		idx = append(idx, i)
	}
	if len(ops) > 0 {
		errs, err := c.runBatched(ops)
		if err != nil {
			return err
		}
		for j, e := range errs {
			if e != nil {
				return fmt.Errorf("set topic id of %s: %w", as[idx[j]].topic, e)
			}
		}
	}
	for _, a := range as {
		c.cc.topicIDs[a.topic] = a.topicID
	}
	return nil
}

func (c *controller) processTopicChange() error {
	if !c.isActive() {
		return nil
	}
	topics, err := c.children(cluster.BrokerTopicsPath)
	if err != nil {
		return err
	}
	now := map[string]bool{}
	for _, t := range topics {
		now[t] = true
	}
	var added, deleted []string
	for _, t := range topics {
		if !c.cc.allTopics[t] {
			added = append(added, t)
		}
	}
	for _, t := range sortedKeys(c.cc.allTopics) {
		if !now[t] {
			deleted = append(deleted, t)
		}
	}
	slices.Sort(added)
	c.cc.allTopics = now
	c.registerPartitionModificationsHandlers(added)
	assignments, err := c.getReplicaAssignmentAndTopicIDForTopics(added)
	if err != nil {
		return err
	}
	for _, t := range deleted {
		c.cc.removeTopic(t)
	}
	if err := c.processTopicIDs(assignments); err != nil {
		return err
	}
	var newPartitions []tp
	for _, a := range assignments {
		c.cc.noteAssignment(a)
		for p := range a.partitions {
			newPartitions = append(newPartitions, tp{a.topic, p})
		}
	}
	slices.SortFunc(newPartitions, compareTP)
	c.log.Info(fmt.Sprintf("New topics: [Set(%s)], deleted topics: [Set(%s)]", joinStrings(added), joinStrings(deleted)))
	if len(newPartitions) > 0 {
		return c.onNewPartitionCreation(newPartitions)
	}
	return nil
}

func (c *controller) processPartitionModifications(topic string) error {
	if !c.isActive() {
		return nil
	}
	as, err := c.getReplicaAssignmentAndTopicIDForTopics([]string{topic})
	if err != nil || len(as) == 0 {
		return err
	}
	a := as[0]
	var toAdd []tp
	for p := range a.partitions {
		if c.cc.replicas(tp{topic, p}) == nil {
			toAdd = append(toAdd, tp{topic, p})
		}
	}
	slices.SortFunc(toAdd, compareTP)
	if c.cc.isTopicQueuedUpForDeletion(topic) {
		if len(toAdd) > 0 {
			ids := make([]string, len(toAdd))
			for i, p := range toAdd {
				ids[i] = strconv.Itoa(p.partition)
			}
			c.log.Warn(fmt.Sprintf("Skipping adding partitions %s for topic %s since it is currently being deleted", strings.Join(ids, ","), topic))
			return c.restorePartitionReplicaAssignment(topic, a)
		}
		c.log.Info("Ignoring partition change during topic deletion as no new partitions are added")
		return nil
	}
	if len(toAdd) == 0 {
		return nil
	}
	c.log.Info(fmt.Sprintf("New partitions to be added %s", tpsString(toAdd)))
	for _, p := range toAdd {
		c.cc.setAssignment(p, a.partitions[p.partition])
	}
	return c.onNewPartitionCreation(toAdd)
}

// restorePartitionReplicaAssignment writes back the assignment of the
// partitions that have a znode under partitions/, dropping new ones.
func (c *controller) restorePartitionReplicaAssignment(topic string, a topicAssignment) error {
	c.log.Info(fmt.Sprintf("Restoring the partition replica assignment for topic %s", topic))
	kids, err := c.children(cluster.TopicPartitionsPath(topic))
	if err != nil {
		return err
	}
	parts, adding, removing := map[int][]int{}, map[int][]int{}, map[int][]int{}
	for p := range a.partitions {
		if slices.Contains(kids, strconv.Itoa(p)) {
			full := c.cc.fullAssignment(tp{topic, p})
			parts[p] = full.replicas
			if len(full.adding) > 0 {
				adding[p] = full.adding
			}
			if len(full.removing) > 0 {
				removing[p] = full.removing
			}
		}
	}
	ta := cluster.TopicAssignment{Version: 3, Partitions: parts, AddingReplicas: adding,
		RemovingReplicas: removing, TopicID: c.cc.topicIDs[topic]}
	_, err = c.fenced(&zk.SetDataRequest{Path: cluster.TopicPath(topic), Data: cluster.EncodeTopicAssignment(ta), Version: -1})
	return err
}

// onNewPartitionCreation: New → NewReplica → Online (initialise) →
// OnlineReplica (spec §4.6).
func (c *controller) onNewPartitionCreation(ps []tp) error {
	c.log.Info(fmt.Sprintf("New partition creation callback for %s", tpsString(ps)))
	if _, err := c.psmHandleStateChanges(ps, newPartition, nil); err != nil {
		return err
	}
	if err := c.rsmHandleStateChanges(c.cc.replicasForPartitions(ps), newReplica); err != nil {
		return err
	}
	if _, err := c.psmHandleStateChanges(ps, onlinePartition, &offlineElection); err != nil {
		return err
	}
	return c.rsmHandleStateChanges(c.cc.replicasForPartitions(ps), onlineReplica)
}
