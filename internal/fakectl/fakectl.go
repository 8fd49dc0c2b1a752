// Package fakectl is a minimal stand-in for Kafka's controller, for tests
// that create topics against a real ZooKeeper before (or without) the
// sandbox: it watches /brokers/topics and initialises the partitions of
// every new topic as Kafka's controller does on a healthy cluster (spec
// §5.1): a state znode per partition with the first live replica as leader
// and the live replicas as ISR, in partition order, optionally one step
// per Pace. Partitions without a live replica stay uninitialised. It does
// nothing else (no failover, no ISR changes): tests that need those use
// the sandbox.
package fakectl

import (
	"errors"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/ktopo/ktopo/cluster"
)

// Conn is what the controller needs from a session (*zkwatch.Conn).
type Conn interface {
	ChildrenW(path string) ([]string, *zk.Stat, <-chan zk.Event, error)
	Children(path string) ([]string, *zk.Stat, error)
	Get(path string) ([]byte, *zk.Stat, error)
	Exists(path string) (bool, *zk.Stat, error)
	Create(path string, data []byte, flags int32, acl []zk.ACL) (string, error)
}

// Controller is a running fake controller.
type Controller struct {
	conn Conn
	pace atomic.Int64
	done chan struct{}
	wg   sync.WaitGroup
	once sync.Once
}

// Start runs a controller on conn; pace is the delay before each
// partition is initialised.
func Start(conn Conn, pace time.Duration) *Controller {
	c := &Controller{conn: conn, done: make(chan struct{})}
	c.pace.Store(int64(pace))
	c.wg.Add(1)
	go c.run()
	return c
}

// SetPace changes the delay before each partition.
func (c *Controller) SetPace(d time.Duration) { c.pace.Store(int64(d)) }

// Pace returns the delay before each partition.
func (c *Controller) Pace() time.Duration { return time.Duration(c.pace.Load()) }

// Stop ends the controller and waits for it.
func (c *Controller) Stop() {
	c.once.Do(func() { close(c.done) })
	c.wg.Wait()
}

func (c *Controller) run() {
	defer c.wg.Done()
	seen := map[string]bool{}
	for {
		topics, _, ch, err := c.conn.ChildrenW(cluster.BrokerTopicsPath)
		if errors.Is(err, zk.ErrNoNode) {
			// Kafka's brokers create /brokers/topics at startup; wait for it.
			if c.sleep(20 * time.Millisecond) {
				return
			}
			continue
		}
		if err != nil {
			return
		}
		slices.Sort(topics)
		for _, t := range topics {
			if seen[t] {
				continue
			}
			seen[t] = true
			if c.initialise(t) {
				return
			}
		}
		select {
		case <-ch:
		case <-c.done:
			return
		}
	}
}

// sleep waits d; true when stopped meanwhile.
func (c *Controller) sleep(d time.Duration) bool {
	if d <= 0 {
		select {
		case <-c.done:
			return true
		default:
			return false
		}
	}
	select {
	case <-c.done:
		return true
	case <-time.After(d):
		return false
	}
}

// wait waits for the pace, following changes made meanwhile; true when
// stopped.
func (c *Controller) wait() bool {
	start := time.Now()
	for {
		left := c.Pace() - time.Since(start)
		if left <= 0 {
			return c.sleep(0)
		}
		if c.sleep(min(left, 10*time.Millisecond)) {
			return true
		}
	}
}

// initialise creates the state znodes of topic t's new partitions; true
// when stopped meanwhile.
func (c *Controller) initialise(t string) bool {
	data, _, err := c.conn.Get(cluster.TopicPath(t))
	if err != nil {
		return false
	}
	a, err := cluster.DecodeTopicAssignment(data)
	if err != nil {
		return false
	}
	ids := make([]int, 0, len(a.Partitions))
	for id := range a.Partitions {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	acl := zk.WorldACL(zk.PermAll)
	for _, id := range ids {
		if c.wait() {
			return true
		}
		if ok, _, _ := c.conn.Exists(cluster.PartitionStatePath(t, id)); ok {
			continue
		}
		brokers, _, err := c.conn.Children(cluster.BrokerIDsPath)
		if err != nil {
			continue
		}
		var isr []int
		for _, r := range a.Partitions[id] {
			if slices.Contains(brokers, strconv.Itoa(r)) {
				isr = append(isr, r)
			}
		}
		if len(isr) == 0 {
			continue // no replica alive: stays NewPartition
		}
		state := cluster.EncodePartitionState(cluster.PartitionState{ControllerEpoch: 1, Leader: isr[0], Version: 1, ISR: isr})
		for _, p := range []string{cluster.TopicPath(t) + "/partitions", cluster.TopicPath(t) + "/partitions/" + strconv.Itoa(id)} {
			if _, err := c.conn.Create(p, nil, 0, acl); err != nil && !errors.Is(err, zk.ErrNodeExists) {
				return false
			}
		}
		_, _ = c.conn.Create(cluster.PartitionStatePath(t, id), state, 0, acl)
	}
	return false
}
