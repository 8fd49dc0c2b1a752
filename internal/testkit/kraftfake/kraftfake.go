// Package kraftfake is a KRaft cluster's controller for tests: it answers
// the Admin API requests ktopo's KRaft writer (kafkaops.Writer) sends —
// CreateTopics, CreatePartitions, DeleteTopics, IncrementalAlterConfigs,
// DescribeConfigs, AlterPartitionReassignments, ElectLeaders, Metadata —
// as Kafka 4.4's controller does, refusals included, so that a test can
// give the TUI the real writer over it (kafkaops.New(fake, 0)) and follow
// what the writes did through the node events it emits (Batch).
//
// Its state starts as the snapshot it is given (brokers, their KRaft
// states, topics, partitions, configs) and changes only by what it
// applies: the writes it accepts, the cordons it is asked to set, the
// copies a test lets finish (CatchUp). It refuses a write as Kafka's
// controller does (ReplicationControlManager and ConfigurationControlManager
// of Kafka 4.4), in Kafka's words: a manual assignment naming a broker
// that is not registered or all of whose log directories are cordoned,
// a broker twice, replication factors that differ, an empty replica list;
// an unknown topic or partition; an existing topic; too few partitions;
// a cancelled reassignment that is not in progress; an election that is
// not needed or cannot happen; an unknown or invalid topic config. The
// checks are ktopo's own where it has them (clusterops.CheckKRaftManualPartition,
// cluster.ValidateTopicName, cluster.ValidateTopicConfigValue), so what
// a preview refuses early and what the fake refuses are one code; the
// table test cmd/realkafka_kraftfake_test.go sends the same requests to
// real Kafka 4.4 and to the fake and requires the same answers.
//
// What it does not emulate it does not accept: a request of another kind,
// or one asking the controller to place replicas itself, is answered
// with a Go error (the writer reports it as no answer), never a success.
package kraftfake

import (
	"context"
	"fmt"
	"hash/fnv"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/clusterwatch"
)

// Cluster is the fake controller and the metadata it holds.
type Cluster struct {
	mu sync.Mutex
	// m holds the metadata as node events in Kafka's ZooKeeper layout
	// (the mapping kafkawatch's poller uses): its snapshot is what the
	// controller's checks read.
	m     *cluster.Model
	kraft *cluster.KRaft
	// zxid orders the events; nodes are what the fake knows of each node
	// it wrote (czxid, version).
	zxid  int64
	ms    int64
	nodes map[string]*node
	// pending are the events (and the KRaft facts, when they changed)
	// not yet handed out by Batch.
	pending      []cluster.NodeEvent
	kraftChanged bool
	// fed counts the pending events the metadata has applied.
	fed     int
	applied []string
}

type node struct {
	czxid   int64
	version int32
}

// New is a controller whose metadata is s: its live and fenced brokers
// (racks, cordons), topics, partitions (replicas, reassignments, leaders,
// ISRs) and dynamic configs. s must be a KRaft cluster's (s.KRaft() not
// nil).
func New(s *cluster.Snapshot) *Cluster {
	if s.KRaft() == nil {
		panic("kraftfake.New: not a KRaft cluster's snapshot")
	}
	k := *s.KRaft()
	k.Brokers = slices.Clone(k.Brokers)
	c := &Cluster{m: cluster.NewModel(cluster.ModelOptions{NoChanges: true, DefaultMinISR: s.DefaultMinISR()}), kraft: &k, nodes: map[string]*node{}, ms: 1_700_000_000_000}
	for _, t := range s.Topics() {
		c.zxid = max(c.zxid, t.Mzxid)
		for _, p := range t.Partitions {
			c.zxid = max(c.zxid, p.StateMzxid)
		}
	}
	c.zxid += 1000
	c.load(s)
	c.pending, c.fed, c.kraftChanged = nil, 0, false
	return c
}

// load writes s's metadata as the events of a first load.
func (c *Cluster) load(s *cluster.Snapshot) {
	c.set(cluster.ClusterIDPath, cluster.EncodeClusterID(s.ClusterID()))
	if ctl := s.Controller(); ctl.BrokerID >= 0 {
		info := cluster.NewControllerInfo(2, ctl.BrokerID, c.ms)
		info.KRaftControllerEpoch = ctl.Epoch
		c.set(cluster.ControllerPath, cluster.EncodeController(info))
		c.set(cluster.ControllerEpochPath, cluster.EncodeControllerEpoch(ctl.Epoch))
	}
	for _, b := range s.Brokers() {
		if b.Live {
			c.set(cluster.BrokerIDPath(b.ID), cluster.EncodeBroker(b.Registration))
		}
		if cfg, ok := s.BrokerConfig(strconv.Itoa(b.ID)); ok {
			c.set(cluster.BrokerConfigPath(b.ID), cluster.EncodeEntityConfigEntries(cfg))
		}
	}
	if cfg, ok := s.BrokerConfig(cluster.BrokerDefaultEntity); ok {
		c.set(cluster.EntityConfigPath(cluster.EntityBrokers, cluster.BrokerDefaultEntity), cluster.EncodeEntityConfigEntries(cfg))
	}
	for _, t := range s.Topics() {
		c.nodes[cluster.TopicPath(t.Name)] = &node{czxid: t.Czxid, version: t.ZkVersion}
		c.writeTopic(t.Name, t.ID, partitionsOf(t))
		if t.HasConfig {
			c.set(cluster.TopicConfigPath(t.Name), cluster.EncodeEntityConfigEntries(t.Config))
		}
	}
	c.m.SetKRaft(c.kraft)
	c.flush()
}

// part is a partition as the controller holds it.
type part struct {
	id                         int
	replicas, adding, removing []int
	isr                        []int
	leader, leaderEpoch        int
	recovering                 bool
}

func partitionsOf(t *cluster.Topic) []*part {
	var out []*part
	for _, p := range t.Partitions {
		if !p.InAssignment {
			continue
		}
		np := &part{id: p.ID, replicas: slices.Clone(p.Replicas), adding: slices.Clone(p.Adding()), removing: slices.Clone(p.Removing()),
			isr: slices.Clone(p.ISR), leader: p.Leader, leaderEpoch: p.LeaderEpoch, recovering: p.LeaderRecoveryState != cluster.LeaderRecovered}
		if !p.HasState {
			np.leader = cluster.NoLeader
		}
		out = append(out, np)
	}
	return out
}

// topicParts reads topic's partitions from the metadata (nil: no such
// topic).
func (c *Cluster) topicParts(s *cluster.Snapshot, topic string) (*cluster.Topic, []*part) {
	t := s.Topic(topic)
	if t == nil {
		return nil, nil
	}
	return t, partitionsOf(t)
}

// writeTopic writes a topic's znode and every partition's state.
func (c *Cluster) writeTopic(name, id string, ps []*part) {
	a := cluster.NewTopicAssignment(map[int][]int{}, id)
	for _, p := range ps {
		a.Partitions[p.id] = p.replicas
		if len(p.adding) > 0 {
			a.AddingReplicas[p.id] = p.adding
		}
		if len(p.removing) > 0 {
			a.RemovingReplicas[p.id] = p.removing
		}
	}
	c.set(cluster.TopicPath(name), cluster.EncodeTopicAssignment(a))
	for _, p := range ps {
		c.writeState(name, p)
	}
}

// writeState writes a partition's state znode.
func (c *Cluster) writeState(topic string, p *part) {
	st := cluster.PartitionState{ControllerEpoch: -1, Leader: p.leader, Version: 1, LeaderEpoch: p.leaderEpoch, ISR: p.isr}
	if c.kraft != nil {
		st.ControllerEpoch = c.kraft.Quorum.LeaderEpoch
	}
	if p.recovering {
		st.LeaderRecoveryState = 1 // RECOVERING
	}
	c.set(cluster.PartitionStatePath(topic, p.id), cluster.EncodePartitionState(st))
}

// set records a node's new data as an event (created the first time).
func (c *Cluster) set(path string, data []byte) {
	c.zxid++
	n, ok := c.nodes[path]
	typ := cluster.NodeChanged
	if !ok {
		n = &node{czxid: c.zxid}
		c.nodes[path] = n
		typ = cluster.NodeCreated
	} else {
		n.version++
	}
	c.pending = append(c.pending, cluster.NodeEvent{Type: typ, Path: path, Data: data,
		Stat: cluster.Stat{Czxid: n.czxid, Mzxid: c.zxid, Ctime: c.ms, Mtime: c.ms, Version: n.version, DataLength: int32(len(data))}})
}

// del records a node's deletion.
func (c *Cluster) del(path string) {
	if _, ok := c.nodes[path]; !ok {
		return
	}
	delete(c.nodes, path)
	c.zxid++
	c.pending = append(c.pending, cluster.NodeEvent{Type: cluster.NodeDeleted, Path: path, Stat: cluster.Stat{Mzxid: c.zxid, Mtime: c.ms}})
}

// flush applies the pending events the metadata has not seen (they stay
// pending for Batch).
func (c *Cluster) flush() {
	if c.fed < len(c.pending) {
		c.m.Apply(c.pending[c.fed:], false)
		c.fed = len(c.pending)
	}
}

// Snapshot is the metadata as the controller holds it now.
func (c *Cluster) Snapshot() *cluster.Snapshot {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.m.Snapshot()
}

// Batch hands out what changed since the last Batch, as a KRaft source's
// batch (node events in write order, the KRaft facts when they changed):
// what the poller would show once it polled.
func (c *Cluster) Batch() clusterwatch.Batch {
	c.mu.Lock()
	defer c.mu.Unlock()
	b := clusterwatch.Batch{Events: c.pending}
	if c.kraftChanged {
		b.KRaft = c.kraft
	}
	c.pending, c.fed, c.kraftChanged = nil, 0, false
	return b
}

// Applied are the writes the controller applied (validateOnly ones and
// refusals left out), oldest first, one line each: the API and what it
// did ("AlterPartitionReassignments orders-1 [1,4,3]").
func (c *Cluster) Applied() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.applied)
}

// SetCordoned cordons (or uncordons) every log directory of broker id as
// its own heartbeat would report it: what an operator's
// cordoned.log.dirs=* set outside ktopo comes to.
func (c *Cluster) SetCordoned(id int, cordoned bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.setCordoned(id, cordoned)
	c.flush()
}

func (c *Cluster) setCordoned(id int, cordoned bool) {
	k := *c.kraft
	k.Brokers = slices.Clone(k.Brokers)
	for i := range k.Brokers {
		if b := &k.Brokers[i]; b.ID == id {
			b.Cordoned = cordoned
			b.Dirs = max(b.Dirs, 1)
			b.CordonedDirs = 0
			if cordoned {
				b.CordonedDirs = b.Dirs
			}
		}
	}
	c.kraft, c.kraftChanged = &k, true
	c.m.SetKRaft(c.kraft)
}

// Request answers one Admin API request as the controller would (the
// kafkaops.Requester a writer sends through).
func (c *Cluster) Request(ctx context.Context, req kmsg.Request) (kmsg.Response, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	defer c.flush()
	s := c.m.Snapshot()
	switch r := req.(type) {
	case *kmsg.CreateTopicsRequest:
		return c.createTopics(s, r)
	case *kmsg.CreatePartitionsRequest:
		return c.createPartitions(s, r)
	case *kmsg.DeleteTopicsRequest:
		return c.deleteTopics(s, r), nil
	case *kmsg.IncrementalAlterConfigsRequest:
		return c.alterConfigs(s, r)
	case *kmsg.DescribeConfigsRequest:
		return c.describeConfigs(s, r)
	case *kmsg.AlterPartitionAssignmentsRequest:
		return c.alterReassignments(s, r), nil
	case *kmsg.ElectLeadersRequest:
		return c.electLeaders(s, r)
	case *kmsg.MetadataRequest:
		return c.metadata(s, r), nil
	}
	return nil, notEmulated(kmsg.NameForKey(req.Key()))
}

// notEmulated is the answer to what the fake does not emulate.
func notEmulated(what string) error {
	return fmt.Errorf("kraftfake: %s is not emulated", what)
}

// note records an applied write.
func (c *Cluster) note(api string, what ...string) {
	c.applied = append(c.applied, strings.Join(append([]string{api}, what...), " "))
}

// active reports a broker the controller counts as active: registered,
// not fenced.
func active(s *cluster.Snapshot, id int) bool { return s.IsLive(id) }

// topicID is a deterministic topic id for a new topic.
func topicID(name string) string {
	h := fnv.New128a()
	h.Write([]byte(name))
	var u cluster.UUID
	copy(u[:], h.Sum(nil))
	u[0] |= 1
	return u.String()
}

// ints is a replica list as Kafka prints one: [1,4,3].
func ints(xs []int) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = strconv.Itoa(x)
	}
	return "[" + strings.Join(parts, ",") + "]"
}

func int32s(xs []int) []int32 {
	out := make([]int32, len(xs))
	for i, x := range xs {
		out[i] = int32(x)
	}
	return out
}

func fromInt32s(xs []int32) []int {
	out := make([]int, len(xs))
	for i, x := range xs {
		out[i] = int(x)
	}
	return out
}
