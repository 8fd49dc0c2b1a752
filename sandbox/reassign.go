package sandbox

import (
	"errors"
	"fmt"
	"log/slog"
	"slices"

	"github.com/go-zookeeper/zk"
	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/internal/text"
)

// Partition reassignment, as Kafka's controller carries out the ones
// requested through /admin/reassign_partitions (KafkaController's
// onPartitionReassignment and its callers; spec §4.13). With ORS the
// original replicas and TRS the target:
//
//	U1  topic znode: RS = TRS ++ (ORS − TRS), adding = TRS − ORS, removing = ORS − TRS
//	A1  leader epoch + 1 (state znode), LeaderAndIsr with RS to ORS and AR
//	A2  adding replicas → NewReplica; they copy the partition and the
//	    leader adds them to the ISR (AlterPartition)
//	B1  (once TRS ⊆ ISR) adding replicas → OnlineReplica
//	B3  a leader outside TRS (or dead) is replaced by the Reassign
//	    election, else the leader epoch is bumped again
//	B4  removed replicas → OfflineReplica (each leaves the ISR, leader
//	    epoch + 1), then StopReplica(delete) → NonExistentReplica
//	B6  topic znode: RS = TRS, adding and removing empty
//	B7  the partition leaves /admin/reassign_partitions (the znode is
//	    deleted when it is the last)

// replicaAssignment is Kafka's ReplicaAssignment: the full replica list
// (during a reassignment, target first) and the replicas being added and
// removed.
type replicaAssignment struct {
	replicas, adding, removing []int
}

func (a replicaAssignment) origin() []int { return diff(a.replicas, a.adding) }
func (a replicaAssignment) target() []int { return diff(a.replicas, a.removing) }

func (a replicaAssignment) beingReassigned() bool { return len(a.adding) > 0 || len(a.removing) > 0 }

// reassignTo is ReplicaAssignment.reassignTo: RS = (TRS ++ ORS).distinct.
func (a replicaAssignment) reassignTo(target []int) replicaAssignment {
	full := distinct(append(slices.Clone(target), a.origin()...))
	return replicaAssignment{replicas: full, adding: diff(full, a.origin()), removing: diff(full, target)}
}

func (a replicaAssignment) equal(b replicaAssignment) bool {
	return slices.Equal(a.replicas, b.replicas) && slices.Equal(a.adding, b.adding) && slices.Equal(a.removing, b.removing)
}

func (a replicaAssignment) String() string {
	return fmt.Sprintf("ReplicaAssignment(replicas=%s, addingReplicas=%s, removingReplicas=%s)",
		text.Ints(a.replicas), text.Ints(a.adding), text.Ints(a.removing))
}

// diff is Seq.diff: a without the members of b, order kept.
func diff(a, b []int) []int {
	out := make([]int, 0, len(a))
	for _, x := range a {
		if !slices.Contains(b, x) {
			out = append(out, x)
		}
	}
	return out
}

func distinct(a []int) []int {
	out := make([]int, 0, len(a))
	for _, x := range a {
		if !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	return out
}

// reassignContext is the reassignment part of the ControllerContext: the
// adding and removing replicas of partitions being reassigned (their full
// replica list is the assignment), and partitionsBeingReassigned.
type reassignContext struct {
	adding, removing map[tp][]int
	reassigning      map[tp]bool
}

func newReassignContext() *reassignContext {
	return &reassignContext{adding: map[tp][]int{}, removing: map[tp][]int{}, reassigning: map[tp]bool{}}
}

func (r *reassignContext) forgetTopic(topic string) {
	for _, m := range []map[tp][]int{r.adding, r.removing} {
		for p := range m {
			if p.topic == topic {
				delete(m, p)
			}
		}
	}
	for p := range r.reassigning {
		if p.topic == topic {
			delete(r.reassigning, p)
		}
	}
}

// fullAssignment is partitionFullReplicaAssignment.
func (cc *controllerContext) fullAssignment(p tp) replicaAssignment {
	return replicaAssignment{replicas: cc.replicas(p), adding: cc.ra.adding[p], removing: cc.ra.removing[p]}
}

// setFullAssignment is updatePartitionFullReplicaAssignment.
func (cc *controllerContext) setFullAssignment(p tp, a replicaAssignment) {
	cc.setAssignment(p, a.replicas)
	if len(a.adding) > 0 {
		cc.ra.adding[p] = a.adding
	} else {
		delete(cc.ra.adding, p)
	}
	if len(a.removing) > 0 {
		cc.ra.removing[p] = a.removing
	} else {
		delete(cc.ra.removing, p)
	}
}

// topicsBeingReassigned lists the topics with a partition being reassigned.
func (cc *controllerContext) topicsBeingReassigned() []string {
	var ts []string
	for p := range cc.ra.reassigning {
		if !slices.Contains(ts, p.topic) {
			ts = append(ts, p.topic)
		}
	}
	slices.Sort(ts)
	return ts
}

// noteAssignment records a topic znode's reassignment fields (failover,
// new topics).
func (cc *controllerContext) noteAssignment(a topicAssignment) {
	for p, r := range a.partitions {
		ra := replicaAssignment{replicas: r, adding: a.adding[p], removing: a.removing[p]}
		cc.setFullAssignment(tp{a.topic, p}, ra)
		if ra.beingReassigned() {
			cc.ra.reassigning[tp{a.topic, p}] = true
		}
	}
}

// processPartitionReassignment handles ZkPartitionReassignment: the
// creation of /admin/reassign_partitions (and the re-check after the
// controller deleted it).
func (c *controller) processPartitionReassignment() error {
	if !c.isActive() {
		return nil
	}
	_, err := c.processZkPartitionReassignment()
	return err
}

// processZkPartitionReassignment reads /admin/reassign_partitions (setting
// its existence watch) and starts every partition it names; those that
// cannot be (unknown, or of a topic being deleted) are dropped from it. It
// returns the partitions started.
func (c *controller) processZkPartitionReassignment() ([]tp, error) {
	ok, _, err := c.exists(cluster.ReassignPartitionsPath)
	if err != nil || !ok {
		return nil, err
	}
	data, _, err := c.get(cluster.ReassignPartitionsPath)
	if errors.Is(err, zk.ErrNoNode) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	req, err := cluster.DecodeReassignPartitions(data)
	if err != nil {
		c.log.Error("Failed to decode "+cluster.ReassignPartitionsPath, "err", err)
		return nil, nil
	}
	var started, failed []tp
	for _, x := range req.Partitions {
		p := tp{x.Topic, x.Partition}
		switch {
		case c.cc.isTopicQueuedUpForDeletion(p.topic):
			c.log.Info(fmt.Sprintf("Skipping reassignment of %s since the topic is currently being deleted", p))
			failed = append(failed, p)
		case c.cc.replicas(p) == nil:
			failed = append(failed, p)
		default:
			ra := c.cc.fullAssignment(p).reassignTo(x.Replicas)
			if err := c.onPartitionReassignment(p, ra); err != nil {
				if isMoved(err) || errors.Is(err, errStopped) {
					return nil, err
				}
				c.log.Error(fmt.Sprintf("Error completing reassignment of partition %s", p), "err", err)
				failed = append(failed, p)
				continue
			}
			started = append(started, p)
		}
	}
	if len(failed) > 0 {
		c.log.Warn(fmt.Sprintf("Failed reassignment through zk with the following errors: %s", tpsString(failed)))
		if err := c.maybeRemoveFromZkReassignment(func(p tp, _ []int) bool { return slices.Contains(failed, p) }); err != nil {
			return nil, err
		}
	}
	return started, nil
}

// initializePartitionReassignments resumes reassignments at failover:
// those of /admin/reassign_partitions first, then the others found in
// topic znodes (started through the Admin API of a real controller).
func (c *controller) initializePartitionReassignments() error {
	resumed, err := c.processZkPartitionReassignment()
	if err != nil {
		return err
	}
	return c.maybeResumeReassignments(func(p tp, _ replicaAssignment) bool { return !slices.Contains(resumed, p) })
}

// maybeResumeReassignments continues the reassignments should selects
// (failover; a broker of their target starting).
func (c *controller) maybeResumeReassignments(should func(tp, replicaAssignment) bool) error {
	ps := make([]tp, 0, len(c.cc.ra.reassigning))
	for p := range c.cc.ra.reassigning {
		ps = append(ps, p)
	}
	slices.SortFunc(ps, compareTP)
	for _, p := range ps {
		if a := c.cc.fullAssignment(p); should(p, a) {
			if err := c.onPartitionReassignment(p, a); err != nil {
				return err
			}
		}
	}
	return nil
}

// maybeCompleteReassignment finishes a partition's reassignment once its
// target is in the ISR (after an AlterPartition or an ISR notification).
func (c *controller) maybeCompleteReassignment(p tp) error {
	if !c.cc.ra.reassigning[p] {
		return nil
	}
	a := c.cc.fullAssignment(p)
	complete, err := c.isReassignmentComplete(p, a)
	if err != nil || !complete {
		return err
	}
	c.log.Info(fmt.Sprintf("Target replicas %s have all caught up with the leader for reassigning partition %s", text.List(a.target()), p))
	return c.onPartitionReassignment(p, a)
}

// onPartitionReassignment is Kafka's: phase U, then A or B.
func (c *controller) onPartitionReassignment(p tp, a replicaAssignment) error {
	c.markTopicIneligibleForDeletion([]string{p.topic}, "topic reassignment in progress")
	if err := c.updateCurrentReassignment(p, a); err != nil {
		return err
	}
	complete, err := c.isReassignmentComplete(p, a)
	if err != nil {
		return err
	}
	if !complete {
		if err := c.updateLeaderEpochAndSendRequest(p, a); err != nil {
			return err
		}
		for _, r := range a.adding {
			if err := c.rsmHandleStateChanges([]replicaKey{{p, r}}, newReplica); err != nil {
				return err
			}
		}
		return nil
	}
	adding := make([]replicaKey, len(a.adding))
	for i, r := range a.adding {
		adding[i] = replicaKey{p, r}
	}
	if err := c.rsmHandleStateChanges(adding, onlineReplica); err != nil {
		return err
	}
	completed := replicaAssignment{replicas: a.target()}
	c.cc.setFullAssignment(p, completed)
	if err := c.moveReassignedPartitionLeaderIfRequired(p, completed); err != nil {
		return err
	}
	if err := c.stopRemovedReplicasOfReassignedPartition(p, a.removing); err != nil {
		return err
	}
	if err := c.updateReplicaAssignmentForPartition(p, completed); err != nil {
		return err
	}
	if err := c.removePartitionFromReassigningPartitions(p, completed); err != nil {
		return err
	}
	return c.resumeDeletionForTopics([]string{p.topic})
}

// updateCurrentReassignment is phase U: the new state in ZooKeeper, then
// in memory; replicas an earlier reassignment was adding that the new one
// drops are stopped.
func (c *controller) updateCurrentReassignment(p tp, a replicaAssignment) error {
	cur := c.cc.fullAssignment(p)
	if !cur.equal(a) {
		logf(c.log, slog.LevelDebug, "Updating assignment of partition %s from %s to %s", p, cur, a)
		if err := c.updateReplicaAssignmentForPartition(p, a); err != nil {
			return err
		}
		c.cc.setFullAssignment(p, a)
		if unneeded := diff(cur.replicas, a.replicas); len(unneeded) > 0 {
			if err := c.stopRemovedReplicasOfReassignedPartition(p, unneeded); err != nil {
				return err
			}
		}
	}
	c.cc.ra.reassigning[p] = true
	return nil
}

// isReassignmentComplete: not being reassigned, or the state znode's ISR
// (read again from ZooKeeper) holds every target replica.
func (c *controller) isReassignmentComplete(p tp, a replicaAssignment) (bool, error) {
	if !a.beingReassigned() {
		return true, nil
	}
	reads, err := c.readStates([]tp{p})
	if err != nil {
		return false, err
	}
	if reads[0].err != nil {
		if errors.Is(reads[0].err, zk.ErrNoNode) {
			return false, nil
		}
		return false, reads[0].err
	}
	li, err := decodeLeaderIsr(reads[0].data, reads[0].stat.Version)
	if err != nil {
		return false, err
	}
	for _, r := range a.target() {
		if !slices.Contains(li.isr, r) {
			return false, nil
		}
	}
	return true, nil
}

// updateLeaderEpochAndSendRequest bumps the leader epoch (leader and ISR
// unchanged), so that the replicas learn the new replica list, and sends
// LeaderAndIsr to the original replicas and (as new) to the adding ones.
func (c *controller) updateLeaderEpochAndSendRequest(p tp, a replicaAssignment) error {
	li, ok, err := c.updateLeaderEpoch(p)
	if err != nil {
		return err
	}
	if !ok {
		c.stateLog.Error(fmt.Sprintf("Failed to send LeaderAndIsr request with new replica assignment %s to leader for partition being reassigned %s", a, p))
		return nil
	}
	c.batch.addLeaderAndIsr(a.origin(), p, li, a.replicas, false)
	c.batch.addLeaderAndIsr(a.adding, p, li, a.replicas, true)
	c.sendRequests()
	logf(c.stateLog, slog.LevelInfo, "Sent LeaderAndIsr request %s with new replica assignment %s to leader %d for partition being reassigned %s",
		li.leaderAndIsr, a, li.leader, p)
	return nil
}

// updateLeaderEpoch is Kafka's: re-read the state znode and write it back
// with the leader epoch + 1, until the conditional write succeeds.
func (c *controller) updateLeaderEpoch(p tp) (leaderIsrAndControllerEpoch, bool, error) {
	for {
		reads, err := c.readStates([]tp{p})
		if err != nil {
			return leaderIsrAndControllerEpoch{}, false, err
		}
		if reads[0].err != nil {
			if errors.Is(reads[0].err, zk.ErrNoNode) {
				return leaderIsrAndControllerEpoch{}, false, fmt.Errorf("Cannot update leader epoch for partition %s as leaderAndIsr path is empty. This could mean we somehow tried to reassign a partition that doesn't exist", p)
			}
			return leaderIsrAndControllerEpoch{}, false, reads[0].err
		}
		cur, err := decodeLeaderIsr(reads[0].data, reads[0].stat.Version)
		if err != nil {
			return leaderIsrAndControllerEpoch{}, false, err
		}
		if cur.controllerEpoch > c.cc.epoch {
			return leaderIsrAndControllerEpoch{}, false, failedf("Leader and isr path written by another controller. This probably means the current controller with epoch %d went through a soft failure and another controller was elected with epoch %d. Aborting state change by this controller",
				c.cc.epoch, cur.controllerEpoch)
		}
		next := cur.newLeaderAndIsr(cur.leader, slices.Clone(cur.isr))
		finished, retry, failed, err := c.updateLeaderAndIsr(map[tp]leaderAndIsr{p: next}, c.cc.epoch)
		if err != nil {
			return leaderIsrAndControllerEpoch{}, false, err
		}
		if e := failed[p]; e != nil {
			return leaderIsrAndControllerEpoch{}, false, e
		}
		if len(retry) > 0 {
			continue
		}
		li := leaderIsrAndControllerEpoch{leaderAndIsr: finished[p], controllerEpoch: c.cc.epoch}
		c.cc.leadership[p] = li
		logf(c.log, slog.LevelInfo, "Updated leader epoch for partition %s to %d, zkVersion=%d", p, li.leaderEpoch, li.partitionEpoch)
		return li, true, nil
	}
}

// moveReassignedPartitionLeaderIfRequired is step B3.
func (c *controller) moveReassignedPartitionLeaderIfRequired(p tp, a replicaAssignment) error {
	leader := c.cc.leadership[p].leader
	switch {
	case !slices.Contains(a.replicas, leader):
		c.log.Info(fmt.Sprintf("Leader %d for partition %s being reassigned, is not in the new list of replicas %s. Re-electing leader",
			leader, p, text.Ints(a.replicas)))
		_, err := c.psmHandleStateChanges([]tp{p}, onlinePartition, &reassignElection)
		return err
	case c.cc.isReplicaOnline(leader):
		c.log.Info(fmt.Sprintf("Leader %d for partition %s being reassigned, is already in the new list of replicas %s and is alive",
			leader, p, text.Ints(a.replicas)))
		return c.updateLeaderEpochAndSendRequest(p, a)
	default:
		c.log.Info(fmt.Sprintf("Leader %d for partition %s being reassigned, is already in the new list of replicas %s but is dead",
			leader, p, text.Ints(a.replicas)))
		_, err := c.psmHandleStateChanges([]tp{p}, onlinePartition, &reassignElection)
		return err
	}
}

// stopRemovedReplicasOfReassignedPartition is steps B4 and B5: the
// replicas leave the ISR (OfflineReplica), then are deleted.
func (c *controller) stopRemovedReplicasOfReassignedPartition(p tp, removed []int) error {
	if len(removed) == 0 {
		return nil
	}
	rs := make([]replicaKey, len(removed))
	for i, r := range removed {
		rs[i] = replicaKey{p, r}
	}
	for _, target := range []replicaState{offlineReplica, replicaDeletionStarted, replicaDeletionSuccessful, nonExistentReplica} {
		if err := c.rsmHandleStateChanges(rs, target); err != nil {
			return err
		}
	}
	return nil
}

// updateReplicaAssignmentForPartition writes the topic znode with the
// partition's new state and every other partition's current one (fenced).
func (c *controller) updateReplicaAssignmentForPartition(p tp, a replicaAssignment) error {
	parts := map[int][]int{}
	adding, removing := map[int][]int{}, map[int][]int{}
	for _, q := range c.cc.partitionsForTopic(p.topic) {
		qa := c.cc.fullAssignment(q)
		if q == p {
			qa = a
		}
		parts[q.partition] = qa.replicas
		if len(qa.adding) > 0 {
			adding[q.partition] = qa.adding
		}
		if len(qa.removing) > 0 {
			removing[q.partition] = qa.removing
		}
	}
	ta := cluster.TopicAssignment{Version: 3, Partitions: parts, AddingReplicas: adding, RemovingReplicas: removing, TopicID: c.cc.topicIDs[p.topic]}
	if err := c.pause(); err != nil {
		return err
	}
	_, err := c.fenced(&zk.SetDataRequest{Path: cluster.TopicPath(p.topic), Data: cluster.EncodeTopicAssignment(ta), Version: -1})
	switch {
	case err == nil:
		c.log.Info(fmt.Sprintf("Successfully updated assignment of partition %s to %s", p, a))
		return nil
	case errors.Is(err, zk.ErrNoNode):
		return fmt.Errorf("Failed to update assignment for %s since the topic has no current assignment", p)
	default:
		return err
	}
}

// removePartitionFromReassigningPartitions is step B7.
func (c *controller) removePartitionFromReassigningPartitions(p tp, a replicaAssignment) error {
	if !c.cc.ra.reassigning[p] {
		return errors.New("Cannot remove a reassigning partition because it is not present in memory")
	}
	err := c.maybeRemoveFromZkReassignment(func(q tp, replicas []int) bool { return q == p && slices.Equal(replicas, a.replicas) })
	delete(c.cc.ra.reassigning, p)
	return err
}

// maybeRemoveFromZkReassignment drops the partitions remove selects from
// /admin/reassign_partitions (fenced), deleting the znode when none is
// left (then the controller looks for the next one, setting its watch).
func (c *controller) maybeRemoveFromZkReassignment(remove func(tp, []int) bool) error {
	var data []byte
	err := c.b.retry(func() (err error) { data, _, err = c.b.conn.Get(cluster.ReassignPartitionsPath); return err })
	if errors.Is(err, zk.ErrNoNode) {
		return nil
	}
	if err != nil {
		return err
	}
	req, err := cluster.DecodeReassignPartitions(data)
	if err != nil {
		return err
	}
	var keep []cluster.PartitionReassignment
	var removing []tp
	for _, x := range req.Partitions {
		if remove(tp{x.Topic, x.Partition}, x.Replicas) {
			removing = append(removing, tp{x.Topic, x.Partition})
		} else {
			keep = append(keep, x)
		}
	}
	c.log.Info(fmt.Sprintf("Removing partitions %s from the list of reassigned partitions in zookeeper", tpsString(removing)))
	if len(keep) == 0 {
		c.log.Info(fmt.Sprintf("No more partitions need to be reassigned. Deleting zk path %s", cluster.ReassignPartitionsPath))
		if err := c.fencedDeletes([]string{cluster.ReassignPartitionsPath}); err != nil {
			return err
		}
		c.events.push(&evPartitionReassignment{})
		return nil
	}
	if len(removing) == 0 {
		return nil
	}
	if err := c.pause(); err != nil {
		return err
	}
	_, err = c.fenced(&zk.SetDataRequest{Path: cluster.ReassignPartitionsPath, Data: cluster.EncodeReassignPartitions(keep), Version: -1})
	if errors.Is(err, zk.ErrNoNode) {
		_, err = c.fenced(&zk.CreateRequest{Path: cluster.ReassignPartitionsPath, Data: cluster.EncodeReassignPartitions(keep), Acl: openACL})
	}
	return err
}
