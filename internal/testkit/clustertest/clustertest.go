// Package clustertest builds cluster models for tests of the packages above
// cluster (clusterops, the screens): a fake ZooKeeper tree that returns the
// node events a watcher would see, the JSON of Kafka's znodes, and a small
// and a large cluster ready to use. cluster's own tests keep their copy
// (they cannot import a package that imports cluster).
package clustertest

import (
	"maps"
	"math/rand/v2"
	"slices"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/ktopo/ktopo/cluster"
)

// FakeZK keeps znodes with ZooKeeper-like stats and returns the events a
// watcher would see, so that tests read like the spec's sequences.
type FakeZK struct {
	zxid  int64
	now   int64
	nodes map[string]*node
}

type node struct {
	data []byte
	stat cluster.Stat
}

// NewFakeZK returns an empty tree.
func NewFakeZK() *FakeZK {
	return &FakeZK{zxid: 0x100, now: 1_700_000_000_000, nodes: map[string]*node{}}
}

func (z *FakeZK) tick() {
	z.zxid++
	z.now += 10
}

// Create creates path with data.
func (z *FakeZK) Create(path, data string) cluster.NodeEvent {
	z.tick()
	n := &node{data: []byte(data), stat: cluster.Stat{Czxid: z.zxid, Mzxid: z.zxid, Ctime: z.now, Mtime: z.now, DataLength: int32(len(data))}}
	z.nodes[path] = n
	return cluster.NodeEvent{Type: cluster.NodeCreated, Path: path, Data: n.data, Stat: n.stat}
}

// Set sets path's data (it must exist).
func (z *FakeZK) Set(path, data string) cluster.NodeEvent {
	z.tick()
	n := z.nodes[path]
	if n == nil {
		panic("set on missing node " + path)
	}
	n.data = []byte(data)
	n.stat.Mzxid, n.stat.Mtime, n.stat.Version = z.zxid, z.now, n.stat.Version+1
	return cluster.NodeEvent{Type: cluster.NodeChanged, Path: path, Data: n.data, Stat: n.stat}
}

// Del deletes path.
func (z *FakeZK) Del(path string) cluster.NodeEvent {
	z.tick()
	delete(z.nodes, path)
	return cluster.NodeEvent{Type: cluster.NodeDeleted, Path: path}
}

// All is a reset batch: every node, in path order.
func (z *FakeZK) All() []cluster.NodeEvent {
	var evs []cluster.NodeEvent
	for _, p := range slices.Sorted(maps.Keys(z.nodes)) {
		n := z.nodes[p]
		evs = append(evs, cluster.NodeEvent{Type: cluster.NodeCreated, Path: p, Data: n.data, Stat: n.stat})
	}
	return evs
}

// BrokerJSON is a version-5 registration of broker id in rack ("" for none).
func BrokerJSON(id int, rack string) string {
	eps := []cluster.BrokerEndpoint{{Listener: "PLAINTEXT", SecurityProtocol: "PLAINTEXT", Host: "kafka-" + strconv.Itoa(id), Port: 9092}}
	return string(cluster.EncodeBroker(cluster.NewBrokerRegistration(5, eps, -1, rack, 1_700_000_000_000+int64(id), nil)))
}

// StateJSON is a partition state.
func StateJSON(ctrlEpoch, leader, leaderEpoch int, isr ...int) string {
	return string(cluster.EncodePartitionState(cluster.PartitionState{ControllerEpoch: ctrlEpoch, Leader: leader, LeaderEpoch: leaderEpoch, ISR: isr}))
}

// TopicJSON is a topic znode with parts, without a topic id.
func TopicJSON(parts map[int][]int) string {
	return string(cluster.EncodeTopicAssignment(cluster.NewTopicAssignment(parts, "")))
}

// Apply applies a batch to m.
func Apply(t testing.TB, m *cluster.Model, evs []cluster.NodeEvent, reset bool) []cluster.Change {
	t.Helper()
	return m.Apply(evs, reset)
}

// NewCluster builds 3 brokers (racks a, a, b), controller 1 at epoch 1, and
// topic "orders" with partitions 0:[1,2,3] 1:[2,3,1] led by their first
// replica.
func NewCluster(t testing.TB) (*FakeZK, *cluster.Model) {
	t.Helper()
	z := NewFakeZK()
	z.Create(cluster.ClusterIDPath, string(cluster.EncodeClusterID("AbCdEfGhIjKlMnOpQrStUv")))
	z.Create(cluster.ControllerEpochPath, "1")
	z.Create(cluster.ControllerPath, string(cluster.EncodeController(cluster.NewControllerInfo(2, 1, 1))))
	for id, rack := range map[int]string{1: "a", 2: "a", 3: "b"} {
		z.Create(cluster.BrokerIDPath(id), BrokerJSON(id, rack))
	}
	z.Create(cluster.TopicConfigPath("orders"), string(cluster.EncodeEntityConfig(nil)))
	z.Create(cluster.TopicPath("orders"), TopicJSON(map[int][]int{0: {1, 2, 3}, 1: {2, 3, 1}}))
	z.Create(cluster.PartitionStatePath("orders", 0), StateJSON(1, 1, 0, 1, 2, 3))
	z.Create(cluster.PartitionStatePath("orders", 1), StateJSON(1, 2, 0, 2, 3, 1))
	m := cluster.NewModel(cluster.ModelOptions{})
	Apply(t, m, z.All(), true)
	return z, m
}

// Big is a reset batch of a cluster of nBrokers (racks rack-0..2) and
// nTopics topics "topic-<i>" of nParts partitions, replication factor 3,
// each led by its first replica.
func Big(nBrokers, nTopics, nParts int) []cluster.NodeEvent {
	var evs []cluster.NodeEvent
	zx := int64(1)
	add := func(path string, data []byte) {
		zx++
		evs = append(evs, cluster.NodeEvent{Type: cluster.NodeCreated, Path: path, Data: data, Stat: cluster.Stat{Czxid: zx, Mzxid: zx, Ctime: zx, Mtime: zx}})
	}
	add(cluster.ClusterIDPath, cluster.EncodeClusterID("AbCdEfGhIjKlMnOpQrStUv"))
	add(cluster.ControllerEpochPath, []byte("1"))
	add(cluster.ControllerPath, cluster.EncodeController(cluster.NewControllerInfo(2, 0, 1)))
	for b := 0; b < nBrokers; b++ {
		add(cluster.BrokerIDPath(b), []byte(BrokerJSON(b, "rack-"+strconv.Itoa(b%3))))
	}
	for t := 0; t < nTopics; t++ {
		name := "topic-" + strconv.Itoa(t)
		parts := make(map[int][]int, nParts)
		for p := 0; p < nParts; p++ {
			parts[p] = []int{(t + p) % nBrokers, (t + p + 1) % nBrokers, (t + p + 2) % nBrokers}
		}
		add(cluster.TopicConfigPath(name), cluster.EncodeEntityConfig(nil))
		add(cluster.TopicPath(name), cluster.EncodeTopicAssignment(cluster.NewTopicAssignment(parts, cluster.NewTopicID().String())))
		for p := 0; p < nParts; p++ {
			r := parts[p]
			add(cluster.PartitionStatePath(name, p), cluster.EncodePartitionState(cluster.PartitionState{ControllerEpoch: 1, Leader: r[0], ISR: r}))
		}
	}
	return evs
}

// Churn returns k batches of n state writes on random partitions of Big's
// cluster, alternating between "leader moved to the second replica, first
// dropped from the ISR" and back, so that every application changes the
// model.
func Churn(k, n, nBrokers, nTopics, nParts int) [][]cluster.NodeEvent {
	rng := rand.New(rand.NewPCG(1, 2))
	out := make([][]cluster.NodeEvent, k)
	for i := range out {
		batch := make([]cluster.NodeEvent, n)
		for j := range batch {
			t, p := rng.IntN(nTopics), rng.IntN(nParts)
			r := []int{(t + p) % nBrokers, (t + p + 1) % nBrokers, (t + p + 2) % nBrokers}
			st := cluster.PartitionState{ControllerEpoch: 1, Leader: r[0], LeaderEpoch: 2 * i, ISR: r}
			if i%2 == 0 {
				st = cluster.PartitionState{ControllerEpoch: 1, Leader: r[1], LeaderEpoch: 2*i + 1, ISR: r[1:]}
			}
			batch[j] = cluster.NodeEvent{Type: cluster.NodeChanged, Path: cluster.PartitionStatePath("topic-"+strconv.Itoa(t), p), Data: cluster.EncodePartitionState(st)}
		}
		out[i] = batch
	}
	return out
}

// CPUTime is the process's user and system CPU time: on a loaded machine
// it tells what a benchmark costs better than the wall clock.
func CPUTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
