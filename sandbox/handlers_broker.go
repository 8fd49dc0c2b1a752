package sandbox

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/go-zookeeper/zk"
	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/internal/text"
)

func (c *controller) processBrokerChange() error {
	if !c.isActive() {
		return nil
	}
	cur, err := c.getAllBrokerAndEpochsInCluster()
	if err != nil {
		return err
	}
	var newIDs, deadIDs, bouncedIDs []int
	for id, epoch := range cur {
		known, ok := c.cc.liveBrokers[id]
		switch {
		case !ok:
			newIDs = append(newIDs, id)
		case epoch > known:
			bouncedIDs = append(bouncedIDs, id)
		}
	}
	for id := range c.cc.liveBrokers {
		if _, ok := cur[id]; !ok {
			deadIDs = append(deadIDs, id)
		}
	}
	slices.Sort(newIDs)
	slices.Sort(deadIDs)
	slices.Sort(bouncedIDs)
	c.log.Info(fmt.Sprintf("Newly added brokers: %s, deleted brokers: %s, bounced brokers: %s, all live brokers: %s",
		text.Ints(newIDs), text.Ints(deadIDs), text.Ints(bouncedIDs), text.Ints(sortedInts(cur))))
	if len(newIDs) > 0 {
		for _, id := range newIDs {
			c.cc.liveBrokers[id] = cur[id]
		}
		if err := c.onBrokerStartup(newIDs); err != nil {
			return err
		}
	}
	if len(bouncedIDs) > 0 {
		for _, id := range bouncedIDs {
			delete(c.cc.liveBrokers, id)
		}
		if err := c.onBrokerFailure(bouncedIDs); err != nil {
			return err
		}
		for _, id := range bouncedIDs {
			c.cc.liveBrokers[id] = cur[id]
		}
		if err := c.onBrokerStartup(bouncedIDs); err != nil {
			return err
		}
	}
	if len(deadIDs) > 0 {
		for _, id := range deadIDs {
			delete(c.cc.liveBrokers, id)
		}
		if err := c.onBrokerFailure(deadIDs); err != nil {
			return err
		}
	}
	if len(newIDs)+len(deadIDs)+len(bouncedIDs) > 0 {
		c.log.Info(fmt.Sprintf("Updated broker epochs cache: %s", brokerEpochsString(c.cc.liveBrokers)))
	}
	return nil
}

func (c *controller) onBrokerStartup(ids []int) error {
	c.log.Info(fmt.Sprintf("New broker startup callback for %s", text.Ints(ids)))
	set := map[int]bool{}
	for _, id := range ids {
		set[id] = true
	}
	replicas := c.cc.replicasOnBrokers(set)
	if err := c.rsmHandleStateChanges(replicas, onlineReplica); err != nil {
		return err
	}
	if _, err := c.triggerOnlinePartitionStateChange(); err != nil {
		return err
	}
	err := c.maybeResumeReassignments(func(_ tp, a replicaAssignment) bool {
		return slices.ContainsFunc(a.target(), func(r int) bool { return set[r] })
	})
	if err != nil {
		return err
	}
	var deleting []string
	for _, r := range replicas {
		if c.cc.isTopicQueuedUpForDeletion(r.topic) && !slices.Contains(deleting, r.topic) {
			deleting = append(deleting, r.topic)
		}
	}
	if len(deleting) > 0 {
		c.log.Info(fmt.Sprintf("Some replicas %s for topics scheduled for deletion %s are on the newly restarted brokers %s. Signaling restart of topic deletion for these topics",
			replicasString(replicas, deleting), joinStrings(deleting), text.Ints(ids)))
		if err := c.resumeDeletionForTopics(deleting); err != nil {
			return err
		}
	}
	return c.registerBrokerModificationsHandler(ids)
}

func replicasString(rs []replicaKey, topics []string) string {
	var parts []string
	for _, r := range rs {
		if slices.Contains(topics, r.topic) {
			parts = append(parts, r.String())
		}
	}
	return strings.Join(parts, ",")
}

func (c *controller) onBrokerFailure(ids []int) error {
	c.log.Info(fmt.Sprintf("Broker failure callback for %s", text.Ints(ids)))
	set := map[int]bool{}
	for _, id := range ids {
		set[id] = true
	}
	if err := c.onReplicasBecomeOffline(c.cc.replicasOnBrokers(set)); err != nil {
		return err
	}
	c.unregisterBrokerModificationsHandler(ids)
	return nil
}

// onReplicasBecomeOffline: partitions led by an offline replica go
// OfflinePartition, New/Offline partitions are elected (Offline strategy),
// then the offline replicas go OfflineReplica (removed from the ISRs).
func (c *controller) onReplicasBecomeOffline(rs []replicaKey) error {
	var forDeletion, notForDeletion []replicaKey
	for _, r := range rs {
		if c.cc.isTopicQueuedUpForDeletion(r.topic) {
			forDeletion = append(forDeletion, r)
		} else {
			notForDeletion = append(notForDeletion, r)
		}
	}
	if _, err := c.psmHandleStateChanges(c.cc.partitionsWithOfflineLeader(), offlinePartition, nil); err != nil {
		return err
	}
	if _, err := c.triggerOnlinePartitionStateChange(); err != nil {
		return err
	}
	if err := c.rsmHandleStateChanges(notForDeletion, offlineReplica); err != nil {
		return err
	}
	if len(forDeletion) > 0 {
		return c.failReplicaDeletion(forDeletion)
	}
	return nil
}

func (c *controller) processBrokerModification(id int) error {
	if !c.isActive() {
		return nil
	}
	// Reading re-arms the watch; sandbox brokers never change their
	// endpoints, so there is nothing to propagate.
	_, _, err := c.get(cluster.BrokerIDPath(id))
	if errors.Is(err, zk.ErrNoNode) {
		return nil
	}
	return err
}
