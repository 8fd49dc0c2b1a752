package sandbox

import (
	"errors"
	"slices"
	"sync"

	"github.com/go-zookeeper/zk"
	"github.com/ktopo/ktopo/cluster"
)

// Batching: Kafka pipelines one fenced multi per znode; the sandbox puts
// many ops behind one epoch check to stay within its time budget, keeping
// each multi well under ZooKeeper's 1 MiB frame limit.
const (
	maxOpsPerMulti   = 1000
	maxBytesPerMulti = 512 << 10
)

// fencedMulti runs ops in one multi guarded by check(/controller_epoch,
// zkVersion) (KafkaZkClient's wrapRequestWithControllerEpochCheck). It
// returns the ops' results without the check's. A failed check is a
// controllerMovedError; otherwise a failed multi returns its results and
// the first op error.
func (c *controller) fencedMulti(zkVersion int32, ops []any) ([]zk.MultiResponse, error) {
	all := make([]any, 0, len(ops)+1)
	all = append(all, &zk.CheckVersionRequest{Path: cluster.ControllerEpochPath, Version: zkVersion})
	all = append(all, ops...)
	var res []zk.MultiResponse
	err := c.b.retry(func() (err error) { res, err = c.b.conn.Multi(all...); return err })
	if err == nil {
		return res[1:], nil
	}
	if len(res) == 0 {
		return nil, err
	}
	if res[0].Error != nil {
		return nil, moved("Controller epoch zkVersion check fails. Expected zkVersion = %d", zkVersion)
	}
	return res[1:], err
}

// fenced is fencedMulti with the current epoch zkVersion.
func (c *controller) fenced(ops ...any) ([]zk.MultiResponse, error) {
	return c.fencedMulti(c.cc.epochZkVersion, ops)
}

// chunks splits ops into multis of at most maxOpsPerMulti ops and about
// maxBytesPerMulti bytes, keeping their order.
func chunks(ops []any) [][2]int {
	var out [][2]int
	start, bytes := 0, 0
	for i, op := range ops {
		n := opSize(op)
		if i > start && (i-start >= maxOpsPerMulti || bytes+n > maxBytesPerMulti) {
			out = append(out, [2]int{start, i})
			start, bytes = i, 0
		}
		bytes += n
	}
	if start < len(ops) {
		out = append(out, [2]int{start, len(ops)})
	}
	return out
}

func opSize(op any) int {
	switch r := op.(type) {
	case *zk.CreateRequest:
		return 64 + len(r.Path) + len(r.Data)
	case *zk.SetDataRequest:
		return 32 + len(r.Path) + len(r.Data)
	case *zk.DeleteRequest:
		return 32 + len(r.Path)
	}
	return 64
}

func (c *controller) pause() error { return c.b.cl.pause(c.b.stop) }

// runBatched runs ops in fenced multis (a pace pause before each). When a
// multi fails on one of its ops, its ops are retried one fenced multi each,
// as Kafka sends them. It returns one error per op (nil = applied).
func (c *controller) runBatched(ops []any) ([]error, error) {
	errs := make([]error, len(ops))
	for _, ch := range chunks(ops) {
		if err := c.pause(); err != nil {
			return nil, err
		}
		part := ops[ch[0]:ch[1]]
		_, err := c.fenced(part...)
		if err == nil {
			continue
		}
		if isMoved(err) || errors.Is(err, errStopped) {
			return nil, err
		}
		for i, op := range part {
			_, err := c.fenced(op)
			if isMoved(err) || errors.Is(err, errStopped) {
				return nil, err
			}
			errs[ch[0]+i] = err
		}
	}
	return errs, nil
}

// readResult is one answer of getMany.
type readResult struct {
	data []byte
	stat *zk.Stat
	err  error
}

// getMany reads many znodes concurrently (go-zookeeper pipelines them on
// the one connection). With watch, each read sets a data watch when a
// handler is registered for its path.
func (c *controller) getMany(paths []string, watch bool) ([]readResult, error) {
	out := make([]readResult, len(paths))
	if len(paths) == 0 {
		return out, nil
	}
	workers := min(64, len(paths))
	next := make(chan int)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				r := &out[i]
				if watch {
					r.data, r.stat, r.err = c.get(paths[i])
				} else {
					r.err = c.b.retry(func() (err error) { r.data, r.stat, err = c.b.conn.Get(paths[i]); return err })
				}
			}
		}()
	}
	for i := range paths {
		next <- i
	}
	close(next)
	wg.Wait()
	for _, r := range out {
		if errors.Is(r.err, errStopped) {
			return nil, errStopped
		}
	}
	return out, nil
}

// stateCreate is one partition to initialise.
type stateCreate struct {
	p  tp
	li leaderIsrAndControllerEpoch
}

// createTopicPartitionStates is createTopicPartitionStatesRaw: create
// /brokers/topics/<t>/partitions (once per topic), then each
// partitions/<p>, then each partitions/<p>/state, every create fenced.
// Failures of the first two kinds are ignored (NODEEXISTS is normal); the
// result maps each partition to the error of its state create.
func (c *controller) createTopicPartitionStates(entries []stateCreate) (map[tp]error, error) {
	var ops []any
	var stateIndex []int // op index of each entry's state create
	var topics []string
	for _, e := range entries {
		if !slices.Contains(topics, e.p.topic) {
			topics = append(topics, e.p.topic)
		}
	}
	for _, t := range topics {
		if !c.cc.partitionsNode[t] {
			ops = append(ops, &zk.CreateRequest{Path: cluster.TopicPartitionsPath(t), Acl: openACL})
		}
	}
	for _, e := range entries {
		ops = append(ops, &zk.CreateRequest{Path: cluster.PartitionPath(e.p.topic, e.p.partition), Acl: openACL})
	}
	for _, e := range entries {
		stateIndex = append(stateIndex, len(ops))
		ops = append(ops, &zk.CreateRequest{Path: cluster.PartitionStatePath(e.p.topic, e.p.partition), Data: e.li.encode(), Acl: openACL})
	}
	errs, err := c.runBatched(ops)
	if err != nil {
		return nil, err
	}
	out := make(map[tp]error, len(entries))
	for i, e := range entries {
		out[e.p] = errs[stateIndex[i]]
		if errs[stateIndex[i]] == nil {
			c.cc.partitionsNode[e.p.topic] = true
		}
	}
	return out, nil
}

// updateLeaderAndIsr writes new states with conditional setData on their
// partition epochs (KafkaZkClient.updateLeaderAndIsr): finished holds the
// states with their new partition epoch, retry the partitions whose znode
// changed meanwhile (BADVERSION), failed the others.
func (c *controller) updateLeaderAndIsr(updates map[tp]leaderAndIsr, controllerEpoch int) (finished map[tp]leaderAndIsr, retry []tp, failed map[tp]error, err error) {
	keys := make([]tp, 0, len(updates))
	for p := range updates {
		keys = append(keys, p)
	}
	slices.SortFunc(keys, compareTP)
	finished, failed = map[tp]leaderAndIsr{}, map[tp]error{}
	ops := make([]any, len(keys))
	for i, p := range keys {
		li := updates[p]
		data := leaderIsrAndControllerEpoch{leaderAndIsr: li, controllerEpoch: controllerEpoch}.encode()
		ops[i] = &zk.SetDataRequest{Path: cluster.PartitionStatePath(p.topic, p.partition), Data: data, Version: li.partitionEpoch}
	}
	for _, ch := range chunks(ops) {
		if err := c.pause(); err != nil {
			return nil, nil, nil, err
		}
		res, err := c.fenced(ops[ch[0]:ch[1]]...)
		if err == nil {
			for i, r := range res {
				p := keys[ch[0]+i]
				li := updates[p]
				li.partitionEpoch = r.Stat.Version
				finished[p] = li
			}
			continue
		}
		if isMoved(err) || errors.Is(err, errStopped) {
			return nil, nil, nil, err
		}
		for i := ch[0]; i < ch[1]; i++ {
			p := keys[i]
			res, err := c.fenced(ops[i])
			switch {
			case isMoved(err), errors.Is(err, errStopped):
				return nil, nil, nil, err
			case err == nil:
				li := updates[p]
				li.partitionEpoch = res[0].Stat.Version
				finished[p] = li
			case errors.Is(err, zk.ErrBadVersion):
				retry = append(retry, p)
			default:
				failed[p] = err
			}
		}
	}
	return finished, retry, failed, nil
}

// fencedDeletes deletes paths (in order, any version), each fenced;
// missing nodes are fine.
func (c *controller) fencedDeletes(paths []string) error {
	ops := make([]any, len(paths))
	for i, p := range paths {
		ops[i] = &zk.DeleteRequest{Path: p, Version: -1}
	}
	errs, err := c.runBatched(ops)
	if err != nil {
		return err
	}
	for _, e := range errs {
		if e != nil && !errors.Is(e, zk.ErrNoNode) {
			return e
		}
	}
	return nil
}

// readStates reads the state znodes of partitions (no watch).
func (c *controller) readStates(ps []tp) ([]readResult, error) {
	paths := make([]string, len(ps))
	for i, p := range ps {
		paths[i] = cluster.PartitionStatePath(p.topic, p.partition)
	}
	return c.getMany(paths, false)
}
