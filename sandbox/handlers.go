package sandbox

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"

	"github.com/go-zookeeper/zk"
	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/internal/text"
)

// deleteNotifications lists path's children (re-arming the watch) and
// deletes them, fenced; only those selected by keep when it is not nil.
func (c *controller) deleteNotifications(path string, names []string) ([]string, error) {
	if names == nil {
		kids, err := c.children(path)
		if err != nil {
			return nil, err
		}
		names = kids
	}
	slices.Sort(names)
	paths := make([]string, len(names))
	for i, n := range names {
		paths[i] = path + "/" + n
	}
	return names, c.fencedDeletes(paths)
}

// processIsrChangeNotification handles isr_change_<seq> nodes written by
// leaders running an old IBP (the sandbox's own leaders use
// AlterPartition): refresh the cache from the state znodes, then delete
// the notifications.
func (c *controller) processIsrChangeNotification() error {
	if !c.isActive() {
		return nil
	}
	kids, err := c.children(cluster.IsrChangeNotificationPath)
	if err != nil || len(kids) == 0 {
		return err
	}
	slices.Sort(kids)
	paths := make([]string, len(kids))
	for i, k := range kids {
		paths[i] = cluster.IsrChangeNotificationPath + "/" + k
	}
	reads, err := c.getMany(paths, false)
	if err != nil {
		return err
	}
	var ps []tp
	for _, r := range reads {
		if r.err != nil {
			continue
		}
		n, err := cluster.DecodeIsrChangeNotification(r.data)
		if err != nil {
			continue
		}
		for _, x := range n.Partitions {
			p := tp{x.Topic, x.Partition}
			if !slices.Contains(ps, p) && c.cc.replicas(p) != nil {
				ps = append(ps, p)
			}
		}
	}
	if err := c.updateLeaderAndIsrCache(ps); err != nil {
		return err
	}
	for _, p := range ps {
		if err := c.maybeCompleteReassignment(p); err != nil {
			return err
		}
	}
	_, err = c.deleteNotifications(cluster.IsrChangeNotificationPath, kids)
	return err
}

// processLogDirEventNotification deletes log_dir_event_<seq> nodes (the
// sandbox's brokers have no log directories to fail).
func (c *controller) processLogDirEventNotification() error {
	if !c.isActive() {
		return nil
	}
	kids, err := c.children(cluster.LogDirEventNotificationPath)
	if err != nil || len(kids) == 0 {
		return err
	}
	c.log.Info(fmt.Sprintf("Deleting log dir event notifications %s (log directory failures are not simulated)", joinStrings(kids)))
	_, err = c.deleteNotifications(cluster.LogDirEventNotificationPath, kids)
	return err
}

func (c *controller) processReplicaLeaderElection(e *evReplicaLeaderElection) error {
	reply := func(r electionReply) {
		if e.reply != nil {
			e.reply <- r
		}
	}
	if !c.isActive() {
		reply(electionReply{err: ErrNoController})
		return nil
	}
	var partitions []tp
	if e.trigger == adminClientTriggered {
		if e.topic == "" {
			partitions = c.cc.allPartitions()
		} else if partitions = c.cc.partitionsForTopic(e.topic); len(partitions) == 0 {
			reply(electionReply{err: fmt.Errorf("sandbox: topic %q does not exist", e.topic)})
			return nil
		}
	} else {
		ok, _, err := c.exists(cluster.PreferredReplicaElectionPath)
		if err != nil || !ok {
			return err
		}
		data, _, err := c.get(cluster.PreferredReplicaElectionPath)
		if errors.Is(err, zk.ErrNoNode) {
			return nil
		}
		if err != nil {
			return err
		}
		n, err := cluster.DecodePreferredReplicaElection(data)
		if err != nil && !notJSON(data) {
			return err // Kafka's decoder throws: the znode stays
		}
		for _, x := range n.Partitions {
			if p := (tp{x.Topic, x.Partition}); !slices.Contains(partitions, p) {
				partitions = append(partitions, p)
			}
		}
	}
	results := map[tp]electionOutcome{}
	var electable []tp
	for _, p := range partitions {
		replicas := c.cc.replicas(p)
		switch {
		case replicas == nil:
			c.log.Info(fmt.Sprintf("Skipping replica leader election (PREFERRED) for partition %s by %s since it doesn't exist.", p, e.trigger))
			results[p] = electionOutcome{err: errUnknownTopicOrPartition, msg: "The partition does not exist."}
		case c.cc.isTopicQueuedUpForDeletion(p.topic):
			c.log.Warn(fmt.Sprintf("Skipping replica leader election (PREFERRED) for partitions %s by %s since the respective topics are being deleted", p, e.trigger))
			results[p] = electionOutcome{err: errInvalidTopic, msg: "The topic is being deleted"}
		default:
			l, ok := c.cc.leadership[p]
			switch {
			case !ok:
				// Not initialised yet (Kafka's controller would fail the
				// whole request on the missing leadership here).
				results[p] = electionOutcome{err: errPreferredLeaderNotAvailable,
					msg: fmt.Sprintf("LeaderAndIsr information doesn't exist for partition %s in %s state", p, c.cc.partitionStates[p])}
			case l.leader == replicas[0]:
				results[p] = electionOutcome{leader: l.leader, err: errElectionNotNeeded}
			default:
				electable = append(electable, p)
			}
		}
	}
	outcome, err := c.onReplicaElection(electable, e.trigger)
	if err != nil {
		reply(electionReply{err: err})
		return err
	}
	for _, p := range electable {
		r, ok := outcome[p]
		switch {
		case !ok:
			results[p] = electionOutcome{err: errPreferredLeaderNotAvailable,
				msg: fmt.Sprintf("Failed to elect leader for partition %s under strategy %s", p, preferredElection)}
		case r.err != nil:
			results[p] = electionOutcome{err: errPreferredLeaderNotAvailable, msg: r.err.Error()}
		default:
			results[p] = electionOutcome{leader: r.li.leader}
		}
	}
	reply(electionReply{results: results})
	return nil
}

// notJSON reports data that does not parse as JSON at all, which Kafka's
// PreferredReplicaElectionZNode.decode takes for no partitions (its
// Json.parseBytes gives no value): the election of nothing that follows
// deletes the znode. Empty data parses (Jackson's missing node), as does
// JSON of the wrong shape: Kafka's decoder throws on those.
func notJSON(data []byte) bool {
	return len(bytes.TrimSpace(data)) > 0 && !json.Valid(data)
}

// onReplicaElection runs a preferred election; ZooKeeper-triggered runs
// then delete /admin/preferred_replica_election (fenced) and re-arm its
// existence watch.
func (c *controller) onReplicaElection(ps []tp, trigger electionTrigger) (map[tp]electionResult, error) {
	c.log.Info(fmt.Sprintf("Starting replica leader election (PREFERRED) for partitions %s triggered by %s", tpsString(ps), trigger))
	results, err := c.psmHandleStateChanges(ps, onlinePartition, &preferredElection)
	if err != nil {
		return nil, err
	}
	if trigger != autoTriggered {
		for _, p := range ps {
			if r, ok := results[p]; ok && r.err != nil {
				c.log.Error(fmt.Sprintf("Error completing replica leader election (PREFERRED) for partition %s", p), "err", r.err)
			}
		}
	}
	if trigger != adminClientTriggered {
		for _, p := range ps {
			l := c.cc.leadership[p]
			if replicas := c.cc.replicas(p); len(replicas) > 0 && l.leader == replicas[0] {
				c.log.Info(fmt.Sprintf("Partition %s completed preferred replica leader election. New leader is %d", p, replicas[0]))
			} else if len(replicas) > 0 {
				c.log.Warn(fmt.Sprintf("Partition %s failed to complete preferred replica leader election to %d. Leader is still %d", p, replicas[0], l.leader))
			}
		}
		if trigger == zkTriggered {
			if err := c.fencedDeletes([]string{cluster.PreferredReplicaElectionPath}); err != nil {
				return nil, err
			}
			c.events.push(&evReplicaLeaderElection{trigger: zkTriggered})
		}
	}
	return results, nil
}

// fetchPendingPreferredReplicaElections reads the partitions named in
// /admin/preferred_replica_election that still need an election.
func (c *controller) fetchPendingPreferredReplicaElections() ([]tp, error) {
	data, _, err := c.get(cluster.PreferredReplicaElectionPath)
	if errors.Is(err, zk.ErrNoNode) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	n, err := cluster.DecodePreferredReplicaElection(data)
	if err != nil {
		c.log.Error("Failed to decode "+cluster.PreferredReplicaElectionPath, "err", err)
		return nil, nil
	}
	var pending []tp
	for _, x := range n.Partitions {
		p := tp{x.Topic, x.Partition}
		replicas := c.cc.replicas(p)
		if replicas == nil || c.cc.isTopicQueuedUpForDeletion(p.topic) || slices.Contains(pending, p) {
			continue
		}
		if l, ok := c.cc.leadership[p]; ok && l.leader == replicas[0] {
			continue
		}
		pending = append(pending, p)
	}
	c.log.Info(fmt.Sprintf("Partitions undergoing preferred replica election: %s", tpsString(pending)))
	return pending, nil
}

// processAutoPreferredReplicaLeaderElection is checkAndTriggerAutoLeaderRebalance:
// for every broker whose share of partitions it prefers but does not lead
// exceeds 10 %, a preferred election of those partitions.
func (c *controller) processAutoPreferredReplicaLeaderElection(e *evAutoPreferredReplicaLeaderElection) error {
	if !c.isActive() || e.term != c.term {
		return nil
	}
	defer c.schedule(c.b.cl.cfg.LeaderImbalanceCheckInterval, &evAutoPreferredReplicaLeaderElection{term: c.term})
	c.log.Info("Processing automatic preferred replica leader election")
	byPreferred := map[int][]tp{}
	for _, p := range c.cc.allPartitions() {
		if c.cc.isTopicQueuedUpForDeletion(p.topic) {
			continue
		}
		if r := c.cc.replicas(p); len(r) > 0 {
			byPreferred[r[0]] = append(byPreferred[r[0]], p)
		}
	}
	brokers := make([]int, 0, len(byPreferred))
	for b := range byPreferred {
		brokers = append(brokers, b)
	}
	for _, b := range scalaHashMapOrder(brokers) {
		ps := byPreferred[b]
		var notPreferred []tp
		for _, p := range ps {
			if l, ok := c.cc.leadership[p]; ok && l.leader != b {
				notPreferred = append(notPreferred, p)
			}
		}
		ratio := float64(len(notPreferred)) / float64(len(ps))
		if ratio <= leaderImbalancePerBrokerPercentage/100 {
			continue
		}
		var candidates []tp
		for _, p := range notPreferred {
			l := c.cc.leadership[p]
			if !c.cc.isTopicQueuedUpForDeletion(p.topic) && c.cc.allTopics[p.topic] &&
				preferredReplicaPartitionLeaderElection(c.cc.replicas(p), l.isr, c.cc.isReplicaOnline) >= 0 {
				candidates = append(candidates, p)
			}
		}
		if _, err := c.onReplicaElection(candidates, autoTriggered); err != nil {
			return err
		}
	}
	return nil
}

const leaderImbalancePerBrokerPercentage = 10.0

func (c *controller) processAlterPartition(e *evAlterPartition) error {
	if !c.isActive() {
		e.reply(leaderAndIsr{}, errNotController)
		return nil
	}
	epoch, ok := c.cc.liveBrokers[e.brokerID]
	if !ok {
		c.log.Info(fmt.Sprintf("Ignoring AlterPartition due to unknown broker %d", e.brokerID))
		e.reply(leaderAndIsr{}, errStaleBrokerEpoch)
		return nil
	}
	if epoch != e.brokerEpoch {
		c.log.Info(fmt.Sprintf("Ignoring AlterPartition due to stale broker epoch %d and local broker epoch %d for broker %d",
			e.brokerEpoch, epoch, e.brokerID))
		e.reply(leaderAndIsr{}, errStaleBrokerEpoch)
		return nil
	}
	l, ok := c.cc.leadership[e.p]
	if !ok {
		e.reply(leaderAndIsr{}, errUnknownTopicOrPartition)
		return nil
	}
	cur, req := l.leaderAndIsr, e.proposed
	switch {
	case req.partitionEpoch > cur.partitionEpoch || req.leaderEpoch > cur.leaderEpoch:
		e.reply(leaderAndIsr{}, errNotController)
		return nil
	case req.leaderEpoch < cur.leaderEpoch:
		e.reply(leaderAndIsr{}, errFencedLeaderEpoch)
		return nil
	case req.equalsAllowStalePartitionEpoch(cur):
		e.reply(cur, errNone)
		return nil
	case req.partitionEpoch < cur.partitionEpoch:
		e.reply(leaderAndIsr{}, errInvalidUpdateVersion)
		return nil
	case req.recovering && len(req.isr) > 1:
		c.log.Info(fmt.Sprintf("Rejecting AlterPartition from node %d for %s because leader is recovering and ISR is greater than 1: %s",
			e.brokerID, e.p, req))
		e.reply(leaderAndIsr{}, errInvalidRequest)
		return nil
	case !cur.recovering && req.recovering:
		c.log.Info(fmt.Sprintf("Rejecting AlterPartition from node %d for %s because the leader recovery state cannot change from RECOVERED to RECOVERING: %s",
			e.brokerID, e.p, req))
		e.reply(leaderAndIsr{}, errInvalidRequest)
		return nil
	}
	var ineligible []int
	for _, r := range req.isr {
		if !c.cc.isReplicaOnline(r) {
			ineligible = append(ineligible, r)
		}
	}
	if len(ineligible) > 0 {
		c.log.Info(fmt.Sprintf("Rejecting AlterPartition request from node %d for %s because it specified ineligible replicas Set(%s) in the new ISR %s.",
			e.brokerID, e.p, text.Ints(ineligible), text.Ints(req.isr)))
		e.reply(leaderAndIsr{}, errIneligibleReplica)
		return nil
	}
	finished, retry, failed, err := c.updateLeaderAndIsr(map[tp]leaderAndIsr{e.p: req}, c.cc.epoch)
	if err != nil {
		e.reply(leaderAndIsr{}, errNotController)
		return err
	}
	switch {
	case len(retry) > 0:
		c.log.Info(fmt.Sprintf("Failed to update ISR to %s for partition %s, bad ZK version.", req, e.p))
		e.reply(leaderAndIsr{}, errInvalidUpdateVersion)
	case len(failed) > 0:
		c.log.Error(fmt.Sprintf("Failed to update ISR for partition %s", e.p), "err", failed[e.p])
		e.reply(leaderAndIsr{}, errUnknownServerError)
	default:
		li := finished[e.p]
		c.cc.leadership[e.p] = leaderIsrAndControllerEpoch{leaderAndIsr: li, controllerEpoch: c.cc.epoch}
		logf(c.log, slog.LevelDebug, "ISR for partition %s updated to %s and zkVersion updated to version %d", e.p, text.Ints(li.isr), li.partitionEpoch)
		e.reply(li, errNone)
		// A follower that joins the ISR may complete a reassignment.
		return c.maybeCompleteReassignment(e.p)
	}
	return nil
}
