package sandbox

import (
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"

	"github.com/go-zookeeper/zk"
	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/internal/text"
)

// stateChangeFailed is Kafka's StateChangeFailedException.
type stateChangeFailed struct{ msg string }

func (e *stateChangeFailed) Error() string { return e.msg }

func failedf(format string, args ...any) error {
	return &stateChangeFailed{msg: fmt.Sprintf(format, args...)}
}

// electionResult is one partition's outcome of a move to OnlinePartition.
type electionResult struct {
	li  leaderAndIsr
	err error
}

// psmStartup is PartitionStateMachine.startup: partitions without a state
// znode are NewPartition, those with a live leader OnlinePartition, the
// rest OfflinePartition; then New and Offline partitions are moved online.
func (c *controller) psmStartup() error {
	c.log.Info("Initializing partition state")
	for _, p := range c.cc.allPartitions() {
		l, ok := c.cc.leadership[p]
		switch {
		case !ok:
			c.cc.partitionStates[p] = newPartition
		case c.cc.isReplicaOnline(l.leader):
			c.cc.partitionStates[p] = onlinePartition
		default:
			c.cc.partitionStates[p] = offlinePartition
		}
	}
	c.log.Info("Triggering online partition state changes")
	_, err := c.triggerOnlinePartitionStateChange()
	return err
}

// triggerOnlinePartitionStateChange moves every New or Offline partition
// (of topics not queued for deletion) online with the Offline strategy.
func (c *controller) triggerOnlinePartitionStateChange() (map[tp]electionResult, error) {
	var ps []tp
	for _, p := range c.cc.partitionsInStates(offlinePartition, newPartition) {
		if !c.cc.isTopicQueuedUpForDeletion(p.topic) {
			ps = append(ps, p)
		}
	}
	return c.psmHandleStateChanges(ps, onlinePartition, &offlineElection)
}

// psmHandleStateChanges is PartitionStateMachine.handleStateChanges:
// invalid transitions are logged and skipped, valid ones applied; the
// LeaderAndIsr requests they produce are sent at the end.
func (c *controller) psmHandleStateChanges(ps []tp, target partitionState, strat *strategy) (map[tp]electionResult, error) {
	if len(ps) == 0 {
		return nil, nil
	}
	res, err := c.psmDoHandleStateChanges(ps, target, strat)
	if err != nil {
		c.batch = newRequestBatch()
		return nil, err
	}
	c.sendRequests()
	return res, nil
}

func (c *controller) psmDoHandleStateChanges(ps []tp, target partitionState, strat *strategy) (map[tp]electionResult, error) {
	for _, p := range ps {
		if _, ok := c.cc.partitionStates[p]; !ok {
			c.cc.partitionStates[p] = nonExistentPartition
		}
	}
	var valid []tp
	for _, p := range ps {
		if slices.Contains(validPreviousPartitionStates[target], c.cc.partitionStates[p]) {
			valid = append(valid, p)
		} else {
			c.logInvalidPartitionTransition(p, target)
		}
	}
	switch target {
	case newPartition:
		for _, p := range valid {
			logf(c.stateLog, slog.LevelInfo, "Changed partition %s state from %s to %s with assigned replicas %s",
				p, c.cc.partitionStates[p], newPartition, text.Ints(c.cc.replicas(p)))
			c.cc.partitionStates[p] = newPartition
		}
	case onlinePartition:
		var uninitialized, toElect []tp
		for _, p := range valid {
			switch c.cc.partitionStates[p] {
			case newPartition:
				uninitialized = append(uninitialized, p)
			case offlinePartition, onlinePartition:
				toElect = append(toElect, p)
			}
		}
		if len(uninitialized) > 0 {
			ok, err := c.initializeLeaderAndIsrForPartitions(uninitialized)
			if err != nil {
				return nil, err
			}
			for _, p := range ok {
				logf(c.stateLog, slog.LevelInfo, "Changed partition %s from %s to %s with state %s",
					p, c.cc.partitionStates[p], onlinePartition, c.cc.leadership[p].leaderAndIsr)
				c.cc.partitionStates[p] = onlinePartition
			}
		}
		if len(toElect) > 0 {
			results, err := c.electLeaderForPartitions(toElect, *strat)
			if err != nil {
				return nil, err
			}
			for p, r := range results {
				if r.err == nil {
					logf(c.stateLog, slog.LevelInfo, "Changed partition %s from %s to %s with state %s",
						p, c.cc.partitionStates[p], onlinePartition, r.li)
					c.cc.partitionStates[p] = onlinePartition
				}
			}
			return results, nil
		}
	case offlinePartition, nonExistentPartition:
		for _, p := range valid {
			logf(c.stateLog, slog.LevelDebug, "Changed partition %s state from %s to %s", p, c.cc.partitionStates[p], target)
			c.cc.partitionStates[p] = target
		}
	}
	return nil, nil
}

func (c *controller) logInvalidPartitionTransition(p tp, target partitionState) {
	cur := c.cc.partitionStates[p]
	e := fmt.Errorf("Partition %s should be in one of %s states before moving to %s state. Instead it is in %s state",
		p, joinStates(validPreviousPartitionStates[target]), target, cur)
	c.logFailedPartitionStateChange(p, cur, target, e)
}

func (c *controller) logFailedPartitionStateChange(p tp, cur, target partitionState, err error) {
	c.stateLog.Error(fmt.Sprintf("Controller %d epoch %d failed to change state for partition %s from %s to %s",
		c.b.id, c.cc.epoch, p, cur, target), "err", err)
}

// initializeLeaderAndIsrForPartitions moves New partitions online: leader
// = first live replica, ISR = live replicas in assignment order, leader
// epoch 0. With a pace set, partitions are written one at a time so they
// visibly come online one by one.
func (c *controller) initializeLeaderAndIsrForPartitions(ps []tp) ([]tp, error) {
	var entries []stateCreate
	for _, p := range ps {
		replicas := c.cc.replicas(p)
		var live []int
		for _, r := range replicas {
			if c.cc.isReplicaOnline(r) {
				live = append(live, r)
			}
		}
		if len(live) == 0 {
			c.logFailedPartitionStateChange(p, newPartition, onlinePartition, failedf(
				"Controller %d epoch %d encountered error during state change of partition %s from New to Online, assigned replicas are [%s], live brokers are [%s]. No assigned replica is alive.",
				c.b.id, c.cc.epoch, p, text.Ints(replicas), setString(c.cc.liveBrokerIDs())))
			continue
		}
		li := leaderIsrAndControllerEpoch{leaderAndIsr: leaderAndIsr{leader: live[0], isr: live}, controllerEpoch: c.cc.epoch}
		entries = append(entries, stateCreate{p: p, li: li})
	}
	var groups [][]stateCreate
	if c.b.cl.Pace() > 0 {
		for _, e := range entries {
			groups = append(groups, []stateCreate{e})
		}
	} else if len(entries) > 0 {
		groups = [][]stateCreate{entries}
	}
	var ok []tp
	for _, g := range groups {
		res, err := c.createTopicPartitionStates(g)
		if err != nil {
			return ok, err
		}
		for _, e := range g {
			if err := res[e.p]; err != nil {
				c.logFailedPartitionStateChange(e.p, newPartition, onlinePartition, fmt.Errorf("create %s: %w",
					cluster.PartitionStatePath(e.p.topic, e.p.partition), err))
				continue
			}
			c.cc.leadership[e.p] = e.li
			c.batch.addLeaderAndIsr(e.li.isr, e.p, e.li, c.cc.replicas(e.p), true)
			ok = append(ok, e.p)
		}
		if c.b.cl.Pace() > 0 {
			// Tell the replicas at once so that each partition is served as
			// soon as it shows.
			c.sendRequests()
		}
	}
	return ok, nil
}

// electLeaderForPartitions elects until no partition needs a retry
// (a BADVERSION means the znode changed under us: re-read and elect again).
func (c *controller) electLeaderForPartitions(ps []tp, strat strategy) (map[tp]electionResult, error) {
	all := map[tp]electionResult{}
	remaining := ps
	for len(remaining) > 0 {
		finished, retry, err := c.doElectLeaderForPartitions(remaining, strat)
		if err != nil {
			return nil, err
		}
		for p, r := range finished {
			if r.err != nil {
				c.logFailedPartitionStateChange(p, c.cc.partitionStates[p], onlinePartition, r.err)
			}
			all[p] = r
		}
		remaining = retry
		if len(remaining) > 0 {
			c.log.Info(fmt.Sprintf("Retrying leader election with strategy %s for partitions %s", strat, tpsString(remaining)))
		}
	}
	return all, nil
}

func (c *controller) doElectLeaderForPartitions(ps []tp, strat strategy) (map[tp]electionResult, []tp, error) {
	reads, err := c.readStates(ps)
	if err != nil {
		return nil, nil, err
	}
	results := map[tp]electionResult{}
	type valid struct {
		p   tp
		cur leaderAndIsr
	}
	var vs []valid
	for i, p := range ps {
		r := reads[i]
		switch {
		case errors.Is(r.err, zk.ErrNoNode):
			results[p] = electionResult{err: failedf("LeaderAndIsr information doesn't exist for partition %s in %s state", p, c.cc.partitionStates[p])}
		case r.err != nil:
			results[p] = electionResult{err: r.err}
		default:
			li, err := decodeLeaderIsr(r.data, r.stat.Version)
			switch {
			case err != nil:
				results[p] = electionResult{err: err}
			case li.controllerEpoch > c.cc.epoch:
				results[p] = electionResult{err: failedf("Aborted leader election for partition %s since the LeaderAndIsr path was already written by another controller. This probably means that the current controller %d went through a soft failure and another controller was elected with epoch %d.",
					p, c.b.id, li.controllerEpoch)}
			default:
				vs = append(vs, valid{p, li.leaderAndIsr})
			}
		}
	}
	if len(vs) == 0 {
		return results, nil, nil
	}
	live := c.cc.isReplicaOnline
	updates := map[tp]leaderAndIsr{}
	recipients := map[tp][]int{}
	var unclean map[string]bool
	if strat.kind == offlineStrategy && !strat.allowUnclean {
		// Topics with partitions that have no live in-sync replica need
		// their unclean.leader.election.enable (read from ZooKeeper).
		var topics []string
		for _, v := range vs {
			if !slices.ContainsFunc(v.cur.isr, live) && !slices.Contains(topics, v.p.topic) {
				topics = append(topics, v.p.topic)
			}
		}
		if unclean, err = c.uncleanLeaderElectionEnabled(topics); err != nil {
			return nil, nil, err
		}
	}
	for _, v := range vs {
		assignment := c.cc.replicas(v.p)
		var next leaderAndIsr
		var ok bool
		switch strat.kind {
		case preferredStrategy:
			next, ok = leaderForPreferred(v.cur, assignment, live)
			recipients[v.p] = assignment
		case reassignStrategy:
			next, ok = leaderForReassign(v.cur, assignment, live)
			recipients[v.p] = assignment
		default:
			allow := strat.allowUnclean || !slices.ContainsFunc(v.cur.isr, live) && unclean[v.p.topic]
			next, ok = leaderForOffline(v.cur, assignment, live, allow)
			var lr []int
			for _, r := range assignment {
				if live(r) {
					lr = append(lr, r)
				}
			}
			recipients[v.p] = lr
		}
		if !ok {
			results[v.p] = electionResult{err: failedf("Failed to elect leader for partition %s under strategy %s", v.p, strat)}
			continue
		}
		updates[v.p] = next
	}
	finished, retry, failed, err := c.updateLeaderAndIsr(updates, c.cc.epoch)
	if err != nil {
		return nil, nil, err
	}
	for p, e := range failed {
		results[p] = electionResult{err: e}
	}
	for _, p := range sortedTPs(finished) {
		li := leaderIsrAndControllerEpoch{leaderAndIsr: finished[p], controllerEpoch: c.cc.epoch}
		c.cc.leadership[p] = li
		c.batch.addLeaderAndIsr(recipients[p], p, li, c.cc.replicas(p), false)
		results[p] = electionResult{li: finished[p]}
	}
	return results, retry, nil
}

// uncleanLeaderElectionEnabled reads the topics' effective
// unclean.leader.election.enable (override, else the broker default false).
func (c *controller) uncleanLeaderElectionEnabled(topics []string) (map[string]bool, error) {
	out := map[string]bool{}
	if len(topics) == 0 {
		return out, nil
	}
	paths := make([]string, len(topics))
	for i, t := range topics {
		paths[i] = cluster.TopicConfigPath(t)
	}
	reads, err := c.getMany(paths, false)
	if err != nil {
		return nil, err
	}
	for i, r := range reads {
		if r.err != nil {
			continue
		}
		cfg, err := cluster.DecodeEntityConfig(r.data)
		if err != nil {
			continue
		}
		if v, ok := cfg.Get("unclean.leader.election.enable"); ok {
			out[topics[i]] = strings.EqualFold(strings.TrimSpace(v), "true")
		}
	}
	return out, nil
}

// updateLeaderAndIsrCache re-reads the state znodes of partitions into the
// cache (with the controller epoch stored in each znode).
func (c *controller) updateLeaderAndIsrCache(ps []tp) error {
	reads, err := c.readStates(ps)
	if err != nil {
		return err
	}
	for i, p := range ps {
		r := reads[i]
		if r.err != nil {
			if !errors.Is(r.err, zk.ErrNoNode) {
				return r.err
			}
			continue
		}
		li, err := decodeLeaderIsr(r.data, r.stat.Version)
		if err != nil {
			c.log.Error(fmt.Sprintf("Failed to decode the state of partition %s", p), "err", err)
			continue
		}
		c.cc.leadership[p] = li
		c.cc.partitionsNode[p.topic] = true
	}
	return nil
}
