package sandbox

import (
	"errors"
	"fmt"
	"log/slog"
	"slices"

	"github.com/go-zookeeper/zk"

	"github.com/ktopo/ktopo/internal/text"
)

// rsmStartup is ReplicaStateMachine.startup: online replicas become
// OnlineReplica, the others ReplicaDeletionIneligible and then
// OfflineReplica, which removes them from the ISRs in ZooKeeper.
func (c *controller) rsmStartup() error {
	c.log.Info("Initializing replica state")
	var online, offline []replicaKey
	for _, p := range c.cc.allPartitions() {
		for _, r := range c.cc.replicas(p) {
			k := replicaKey{p, r}
			if c.cc.isReplicaOnline(r) {
				c.cc.replicaStates[k] = onlineReplica
				online = append(online, k)
			} else {
				// Replicas on dead brokers count as failed for topic deletion.
				c.cc.replicaStates[k] = replicaDeletionIneligible
				offline = append(offline, k)
			}
		}
	}
	c.log.Info("Triggering online replica state changes")
	if err := c.rsmHandleStateChanges(online, onlineReplica); err != nil {
		return err
	}
	c.log.Info("Triggering offline replica state changes")
	return c.rsmHandleStateChanges(offline, offlineReplica)
}

// rsmHandleStateChanges is ReplicaStateMachine.handleStateChanges: the
// replicas are handled grouped by broker, in the iteration order of the
// Scala map Kafka groups them into (scalaHashMapOrder, not id order),
// invalid transitions logged and skipped, requests sent at the end.
func (c *controller) rsmHandleStateChanges(rs []replicaKey, target replicaState) error {
	if len(rs) == 0 {
		return nil
	}
	byBroker := map[int][]replicaKey{}
	for _, r := range rs {
		byBroker[r.replica] = append(byBroker[r.replica], r)
	}
	ids := make([]int, 0, len(byBroker))
	for id := range byBroker {
		ids = append(ids, id)
	}
	for _, id := range scalaHashMapOrder(ids) {
		if err := c.rsmDoHandleStateChanges(id, byBroker[id], target); err != nil {
			c.batch = newRequestBatch()
			return err
		}
	}
	c.sendRequests()
	return nil
}

func (c *controller) rsmDoHandleStateChanges(id int, rs []replicaKey, target replicaState) error {
	for _, r := range rs {
		if _, ok := c.cc.replicaStates[r]; !ok {
			c.cc.replicaStates[r] = nonExistentReplica
		}
	}
	var valid []replicaKey
	for _, r := range rs {
		if slices.Contains(validPreviousReplicaStates[target], c.cc.replicaStates[r]) {
			valid = append(valid, r)
		} else {
			c.logInvalidReplicaTransition(r, target)
		}
	}
	switch target {
	case newReplica:
		for _, r := range valid {
			if l, ok := c.cc.leadership[r.tp]; ok {
				if l.leader == id {
					c.logFailedReplicaStateChange(r, c.cc.replicaStates[r], offlineReplica, failedf(
						"Replica %d for partition %s cannot be moved to NewReplica state as it is being requested to become leader", id, r.tp))
					continue
				}
				c.batch.addLeaderAndIsr([]int{id}, r.tp, l, c.cc.replicas(r.tp), true)
			}
			c.cc.replicaStates[r] = newReplica
		}
	case onlineReplica:
		for _, r := range valid {
			if c.cc.replicaStates[r] == newReplica {
				if replicas := c.cc.replicas(r.tp); !slices.Contains(replicas, id) {
					c.log.Error(fmt.Sprintf("Adding replica (%d) that is not part of the assignment %s", id, text.Ints(replicas)))
					c.cc.setAssignment(r.tp, append(slices.Clone(replicas), id))
				}
			} else if l, ok := c.cc.leadership[r.tp]; ok {
				c.batch.addLeaderAndIsr([]int{id}, r.tp, l, c.cc.replicas(r.tp), false)
			}
			c.cc.replicaStates[r] = onlineReplica
		}
	case offlineReplica:
		var withLeadership, without []tp
		for _, r := range valid {
			c.batch.addStopReplica([]int{id}, r.tp, false)
			if _, ok := c.cc.leadership[r.tp]; ok {
				withLeadership = append(withLeadership, r.tp)
			} else {
				without = append(without, r.tp)
			}
		}
		updated, err := c.removeReplicasFromIsr(id, withLeadership)
		if err != nil {
			return err
		}
		for _, p := range sortedTPs(updated) {
			li := updated[p]
			logf(c.stateLog, slog.LevelInfo, "Partition %s state changed to (Leader:%d,ISR:%s,LeaderRecoveryState:%s,LeaderEpoch:%d,ControllerEpoch:%d) after removing replica %d from the ISR as part of transition to %s",
				p, li.leader, text.Ints(li.isr), li.recoveryName(), li.leaderEpoch, li.controllerEpoch, id, offlineReplica)
			if !c.cc.isTopicQueuedUpForDeletion(p.topic) {
				var recipients []int
				for _, r := range c.cc.replicas(p) {
					if r != id {
						recipients = append(recipients, r)
					}
				}
				c.batch.addLeaderAndIsr(recipients, p, li, c.cc.replicas(p), false)
			}
			c.cc.replicaStates[replicaKey{p, id}] = offlineReplica
		}
		for _, p := range without {
			c.cc.replicaStates[replicaKey{p, id}] = offlineReplica
		}
	case replicaDeletionStarted:
		for _, r := range valid {
			c.cc.replicaStates[r] = replicaDeletionStarted
			c.batch.addStopReplica([]int{id}, r.tp, true)
		}
	case replicaDeletionIneligible, replicaDeletionSuccessful:
		for _, r := range valid {
			c.cc.replicaStates[r] = target
		}
	case nonExistentReplica:
		for _, r := range valid {
			var rest []int
			for _, x := range c.cc.replicas(r.tp) {
				if x != id {
					rest = append(rest, x)
				}
			}
			c.cc.setAssignment(r.tp, rest)
			delete(c.cc.replicaStates, r)
		}
	}
	return nil
}

func (c *controller) logInvalidReplicaTransition(r replicaKey, target replicaState) {
	cur := c.cc.replicaStates[r]
	e := fmt.Errorf("Replica %s should be in the %s states before moving to %s state. Instead it is in %s state",
		r, joinStates(validPreviousReplicaStates[target]), target, cur)
	c.logFailedReplicaStateChange(r, cur, target, e)
}

func (c *controller) logFailedReplicaStateChange(r replicaKey, cur, target replicaState, err error) {
	c.stateLog.Error(fmt.Sprintf("Controller %d epoch %d initiated state change of replica %d for partition %s from %s to %s failed",
		c.b.id, c.cc.epoch, r.replica, r.tp, cur, target), "err", err)
}

// removeReplicasFromIsr removes replica from the ISR of partitions in
// ZooKeeper until no write needs a retry; it returns the partitions'
// resulting states (also those whose ISR did not contain the replica).
func (c *controller) removeReplicasFromIsr(replica int, ps []tp) (map[tp]leaderIsrAndControllerEpoch, error) {
	results := map[tp]leaderIsrAndControllerEpoch{}
	remaining := ps
	for len(remaining) > 0 {
		finished, failed, retry, err := c.doRemoveReplicasFromIsr(replica, remaining)
		if err != nil {
			return nil, err
		}
		for p, e := range failed {
			r := replicaKey{p, replica}
			c.logFailedReplicaStateChange(r, c.cc.replicaStates[r], offlineReplica, e)
		}
		for p, li := range finished {
			results[p] = li
		}
		remaining = retry
	}
	return results, nil
}

func (c *controller) doRemoveReplicasFromIsr(replica int, ps []tp) (map[tp]leaderIsrAndControllerEpoch, map[tp]error, []tp, error) {
	reads, err := c.readStates(ps)
	if err != nil {
		return nil, nil, nil, err
	}
	finished := map[tp]leaderIsrAndControllerEpoch{}
	failed := map[tp]error{}
	updates := map[tp]leaderAndIsr{}
	for i, p := range ps {
		r := reads[i]
		if errors.Is(r.err, zk.ErrNoNode) {
			if !c.cc.isTopicQueuedUpForDeletion(p.topic) {
				failed[p] = failedf("Failed to change state of replica %d for partition %s since the leader and isr path in zookeeper is empty", replica, p)
			}
			continue
		}
		if r.err != nil {
			failed[p] = r.err
			continue
		}
		li, err := decodeLeaderIsr(r.data, r.stat.Version)
		if err != nil {
			failed[p] = err
			continue
		}
		if li.controllerEpoch > c.cc.epoch {
			failed[p] = failedf("Leader and isr path written by another controller. This probably means the current controller with epoch %d went through a soft failure and another controller was elected with epoch %d. Aborting state change by this controller",
				c.cc.epoch, li.controllerEpoch)
			continue
		}
		if !slices.Contains(li.isr, replica) {
			cached := leaderIsrAndControllerEpoch{leaderAndIsr: li.leaderAndIsr, controllerEpoch: c.cc.epoch}
			c.cc.leadership[p] = cached
			finished[p] = cached
			continue
		}
		updates[p] = removeReplicaFromIsr(li.leaderAndIsr, replica)
	}
	done, retry, errs, err := c.updateLeaderAndIsr(updates, c.cc.epoch)
	if err != nil {
		return nil, nil, nil, err
	}
	for p, e := range errs {
		failed[p] = e
	}
	for p, li := range done {
		cached := leaderIsrAndControllerEpoch{leaderAndIsr: li, controllerEpoch: c.cc.epoch}
		c.cc.leadership[p] = cached
		finished[p] = cached
	}
	return finished, failed, retry, nil
}
