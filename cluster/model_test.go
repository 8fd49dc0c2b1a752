package cluster

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// fakeZK keeps znodes with ZooKeeper-like stats and returns the events a
// watcher would see, so model tests read like the spec's §5 sequences.
type fakeZK struct {
	zxid  int64
	now   int64
	nodes map[string]*fakeNode
}

type fakeNode struct {
	data []byte
	stat Stat
}

func newFakeZK() *fakeZK {
	return &fakeZK{zxid: 0x100, now: 1_700_000_000_000, nodes: map[string]*fakeNode{}}
}

func (z *fakeZK) tick() {
	z.zxid++
	z.now += 10
}

func (z *fakeZK) create(path, data string) NodeEvent {
	z.tick()
	n := &fakeNode{data: []byte(data), stat: Stat{Czxid: z.zxid, Mzxid: z.zxid, Ctime: z.now, Mtime: z.now, DataLength: int32(len(data))}}
	z.nodes[path] = n
	return NodeEvent{Type: NodeCreated, Path: path, Data: n.data, Stat: n.stat}
}

func (z *fakeZK) set(path, data string) NodeEvent {
	z.tick()
	n := z.nodes[path]
	if n == nil {
		panic("set on missing node " + path)
	}
	n.data = []byte(data)
	n.stat.Mzxid, n.stat.Mtime, n.stat.Version = z.zxid, z.now, n.stat.Version+1
	return NodeEvent{Type: NodeChanged, Path: path, Data: n.data, Stat: n.stat}
}

func (z *fakeZK) del(path string) NodeEvent {
	z.tick()
	delete(z.nodes, path)
	return NodeEvent{Type: NodeDeleted, Path: path}
}

// all is a reset batch: every node, in path order.
func (z *fakeZK) all() []NodeEvent {
	var evs []NodeEvent
	for _, p := range slices.Sorted(maps.Keys(z.nodes)) {
		n := z.nodes[p]
		evs = append(evs, NodeEvent{Type: NodeCreated, Path: p, Data: n.data, Stat: n.stat})
	}
	return evs
}

func brokerJSON(id int, rack string) string {
	eps := []BrokerEndpoint{{Listener: "PLAINTEXT", SecurityProtocol: "PLAINTEXT", Host: "kafka-" + strconv.Itoa(id), Port: 9092}}
	return string(EncodeBroker(NewBrokerRegistration(5, eps, -1, rack, 1_700_000_000_000+int64(id), nil)))
}

func stateJSON(ctrlEpoch, leader, leaderEpoch int, isr ...int) string {
	return string(EncodePartitionState(PartitionState{ControllerEpoch: ctrlEpoch, Leader: leader, LeaderEpoch: leaderEpoch, ISR: isr}))
}

func topicJSON(parts map[int][]int) string {
	return string(EncodeTopicAssignment(NewTopicAssignment(parts, "")))
}

// apply applies a batch and checks the model's incremental bookkeeping
// against a recount of the new snapshot.
func apply(t *testing.T, m *Model, evs []NodeEvent, reset bool) []Change {
	t.Helper()
	cs := m.Apply(evs, reset)
	checkInvariants(t, m.Snapshot())
	return cs
}

// kinds summarises changes as "kind topic-partition/broker" strings.
func kinds(cs []Change) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.String()
	}
	return out
}

func wantChanges(t *testing.T, got []Change, want ...string) {
	t.Helper()
	g := kinds(got)
	if len(want) == 0 && len(g) == 0 {
		return
	}
	if !slices.Equal(g, want) {
		t.Errorf("changes:\n  %s\nwant:\n  %s", strings.Join(g, "\n  "), strings.Join(want, "\n  "))
	}
}

// newCluster builds 3 brokers (racks a, a, b), controller 1 at epoch 1, and
// topic "orders" with partitions 0:[1,2,3] 1:[2,3,1] led by their first replica.
func newCluster(t *testing.T) (*fakeZK, *Model) {
	t.Helper()
	z := newFakeZK()
	z.create(ClusterIDPath, string(EncodeClusterID("AbCdEfGhIjKlMnOpQrStUv")))
	z.create(ControllerEpochPath, "1")
	z.create(ControllerPath, string(EncodeController(NewControllerInfo(2, 1, 1))))
	for id, rack := range map[int]string{1: "a", 2: "a", 3: "b"} {
		z.create(BrokerIDPath(id), brokerJSON(id, rack))
	}
	z.create(TopicConfigPath("orders"), string(EncodeEntityConfig(nil)))
	z.create(TopicPath("orders"), topicJSON(map[int][]int{0: {1, 2, 3}, 1: {2, 3, 1}}))
	z.create(PartitionStatePath("orders", 0), stateJSON(1, 1, 0, 1, 2, 3))
	z.create(PartitionStatePath("orders", 1), stateJSON(1, 2, 0, 2, 3, 1))
	m := NewModel(ModelOptions{})
	apply(t, m, z.all(), true)
	return z, m
}

func TestModelInitialLoad(t *testing.T) {
	z := newFakeZK()
	z.create(ClusterIDPath, string(EncodeClusterID("AbCdEfGhIjKlMnOpQrStUv")))
	z.create(ControllerEpochPath, "1")
	z.create(ControllerPath, string(EncodeController(NewControllerInfo(2, 1, 1))))
	z.create(BrokerIDPath(1), brokerJSON(1, "a"))
	z.create(BrokerIDPath(2), brokerJSON(2, "a"))
	z.create(BrokerIDPath(3), brokerJSON(3, "b"))
	z.create(TopicConfigPath("orders"), string(EncodeEntityConfig(nil)))
	z.create(TopicPath("orders"), topicJSON(map[int][]int{0: {1, 2, 3}, 1: {2, 3, 1}}))
	z.create(PartitionStatePath("orders", 0), stateJSON(1, 1, 0, 1, 2, 3))
	z.create(PartitionStatePath("orders", 1), stateJSON(1, 2, 0, 2, 3, 1))
	m := NewModel(ModelOptions{})
	changes := apply(t, m, z.all(), true)
	wantChanges(t, changes,
		"broker_registered 1 (rack a)", "broker_registered 2 (rack a)", "broker_registered 3 (rack b)",
		"topic_created orders: 2 partitions, replication factor 3",
		"partition_appeared orders-0: leader 1, isr [1,2,3]",
		"partition_appeared orders-1: leader 2, isr [2,3,1]",
		"controller_moved none -> 1 (epoch 1)")

	s := m.Snapshot()
	if s.ClusterID() != "AbCdEfGhIjKlMnOpQrStUv" {
		t.Error(s.ClusterID())
	}
	c := s.Controller()
	if c.BrokerID != 1 || c.Epoch != 1 || c.EpochZkVersion != 0 {
		t.Errorf("%+v", c)
	}
	if got := s.LiveBrokerIDs(); !slices.Equal(got, []int{1, 2, 3}) {
		t.Error(got)
	}
	b, _ := s.Broker(1)
	if !b.Live || b.Rack != "a" || !b.IsController || b.Replicas != 2 || b.Leaders != 1 || b.Addr() != "kafka-1:9092" ||
		b.Epoch != z.nodes[BrokerIDPath(1)].stat.Czxid || b.RegisteredAt != 1_700_000_000_001 {
		t.Errorf("%+v", b)
	}
	racks := s.Racks()
	if len(racks) != 2 || racks[0].Name != "a" || !slices.Equal(racks[0].Brokers, []int{1, 2}) ||
		racks[0].Replicas != 4 || racks[0].Leaders != 2 || racks[1].Name != "b" || racks[1].Leaders != 0 || racks[1].Live != 1 {
		t.Errorf("%+v", racks)
	}
	tp := s.Topic("orders")
	if tp == nil || len(tp.Partitions) != 2 || tp.ReplicationFactor() != 3 || !tp.HasConfig || tp.MinISR != 1 {
		t.Fatalf("%+v", tp)
	}
	p := tp.Partition(1)
	if p.Leader != 2 || !slices.Equal(p.ISR, []int{2, 3, 1}) || !p.HasState || p.LeaderDrift() || p.UnderReplicated() {
		t.Errorf("%+v", p)
	}
	if h := s.Health(); h.Partitions != 2 || !h.Healthy() {
		t.Errorf("%+v", h)
	}
	if !s.TopicExists("orders") || s.TopicExists("x") || !slices.Equal(s.AllTopics(), []string{"orders"}) {
		t.Error("ExistingTopics")
	}
	// Nothing changed: the same snapshot comes back.
	if m.Snapshot() != s {
		t.Error("snapshot rebuilt without change")
	}
}

func TestModelResetIdentical(t *testing.T) {
	z, m := newCluster(t)
	s := m.Snapshot()
	wantChanges(t, apply(t, m, z.all(), true))
	if m.Snapshot() != s {
		t.Error("identical reset rebuilt the snapshot")
	}
	// Same with stats unknown (mzxid 0): decoded and compared, still no change.
	evs := z.all()
	for i := range evs {
		evs[i].Stat = Stat{}
	}
	wantChanges(t, apply(t, m, evs, true))
}

func TestModelTopicCreation(t *testing.T) {
	z, m := newCluster(t)
	// §5.1: config, topic, then the controller's partition znodes.
	wantChanges(t, apply(t, m, []NodeEvent{
		z.create(TopicConfigPath("new"), `{"version":1,"config":{"min.insync.replicas":"2"}}`),
		z.create(TopicPath("new"), topicJSON(map[int][]int{0: {2, 3, 1}, 1: {3, 1, 2}, 2: {1, 2, 3}})),
	}, false), "topic_created new: 3 partitions, replication factor 3")

	s := m.Snapshot()
	nt := s.Topic("new")
	if nt == nil || nt.MinISR != 2 || nt.Health.Uninitialized != 3 {
		t.Fatalf("%+v", nt)
	}
	// New partitions have no leader yet (kafka-topics: Leader: none).
	if h := s.TopicHealth(nt); h.Offline != 3 || h.UnderReplicated != 3 || h.UnderMinISR != 3 {
		t.Errorf("%+v", h)
	}
	id := NewTopicID().String()
	wantChanges(t, apply(t, m, []NodeEvent{
		z.set(TopicPath("new"), string(EncodeTopicAssignment(NewTopicAssignment(map[int][]int{0: {2, 3, 1}, 1: {3, 1, 2}, 2: {1, 2, 3}}, id)))),
		z.create(TopicPartitionsPath("new"), ""),
		z.create(PartitionPath("new", 0), ""),
		z.create(PartitionStatePath("new", 0), stateJSON(1, 2, 0, 2, 3, 1)),
		z.create(PartitionPath("new", 2), ""),
		z.create(PartitionStatePath("new", 2), stateJSON(1, 1, 0, 1, 2, 3)),
	}, false),
		"partition_appeared new-0: leader 2, isr [2,3,1]",
		"partition_appeared new-2: leader 1, isr [1,2,3]")
	s2 := m.Snapshot()
	nt2 := s2.Topic("new")
	if nt2.ID != id || nt2.Health.Uninitialized != 1 || s2.TopicHealth(nt2).Offline != 1 {
		t.Errorf("%+v %+v", nt2, s2.TopicHealth(nt2))
	}
	// The old snapshot still shows the old topic value.
	if s.Topic("new").ID != "" || s.Topic("new").Health.Uninitialized != 3 {
		t.Error("old snapshot changed")
	}
	// Creation check against the snapshot: exists, collides.
	if err := ValidateTopicCreate("new", map[int][]int{0: {1}}, nil, s2); ErrorClass(err) != ClassTopicExists {
		t.Error(err)
	}
}

func TestModelBrokerDiesAndReturns(t *testing.T) {
	z, m := newCluster(t)
	z.create(TopicPath("solo"), topicJSON(map[int][]int{0: {2}}))
	z.create(PartitionStatePath("solo", 0), stateJSON(1, 2, 0, 2))
	apply(t, m, z.all(), true)

	// §5.3: broker 2's ephemeral node goes away first.
	wantChanges(t, apply(t, m, []NodeEvent{z.del(BrokerIDPath(2))}, false), "broker_gone 2")
	s := m.Snapshot()
	b2, ok := s.Broker(2)
	if !ok || b2.Live || b2.Rack != "a" || !b2.RackKnown || b2.Replicas != 3 || b2.Leaders != 2 {
		t.Errorf("offline broker: %+v", b2)
	}
	if h := s.Health(); h.Offline != 2 || h.NoLeader != 0 {
		t.Errorf("before the controller acts: %+v", h)
	}
	if h := s.TopicHealth(s.Topic("orders")); h.Offline != 1 {
		t.Errorf("%+v", h)
	}
	if !s.PartitionOffline(s.Topic("orders").Partition(1)) || s.PartitionOffline(s.Topic("orders").Partition(0)) {
		t.Error("PartitionOffline")
	}
	// The controller: orders-1 was led by 2 → leader 3 (next live ISR member
	// in assignment order), ISR loses 2, one write; orders-0 had 2 as a
	// follower → ISR shrink with epoch bump; solo-0 had 2 as sole ISR member →
	// leader -1, ISR kept as [2].
	wantChanges(t, apply(t, m, []NodeEvent{
		z.set(PartitionStatePath("orders", 1), stateJSON(1, 3, 1, 3, 1)),
		z.set(PartitionStatePath("orders", 0), stateJSON(1, 1, 1, 1, 3)),
		z.set(PartitionStatePath("solo", 0), stateJSON(1, -1, 1, 2)),
	}, false),
		"leader_moved orders-1: leader 2 -> 3 (leader epoch 1)",
		"isr_shrank orders-1: -[2] isr [3,1]",
		"isr_shrank orders-0: -[2] isr [1,3]",
		"leader_moved solo-0: leader 2 -> none (leader epoch 1)")
	s = m.Snapshot()
	h := s.Health()
	if h.Offline != 1 || h.NoLeader != 1 || h.UnderReplicated != 2 || h.PreferredLeaderDrift != 1 {
		t.Errorf("after failover: %+v", h)
	}
	if b2, _ := s.Broker(2); b2.Leaders != 0 || b2.Replicas != 3 {
		t.Errorf("%+v", b2)
	}

	// §5.4: broker 2 registers again (new session, new czxid); the
	// controller elects it for solo-0; the leader of orders-0 adds it back.
	ch := apply(t, m, []NodeEvent{z.create(BrokerIDPath(2), brokerJSON(2, "a"))}, false)
	wantChanges(t, ch, "broker_registered 2 (rack a)")
	if ch[0].BrokerEpoch != z.nodes[BrokerIDPath(2)].stat.Czxid {
		t.Error("broker epoch", ch[0].BrokerEpoch)
	}
	wantChanges(t, apply(t, m, []NodeEvent{
		z.set(PartitionStatePath("solo", 0), stateJSON(1, 2, 2, 2)),
		z.set(PartitionStatePath("orders", 0), stateJSON(1, 1, 1, 1, 3, 2)),
		z.set(PartitionStatePath("orders", 1), stateJSON(1, 3, 1, 3, 1, 2)),
	}, false),
		"leader_moved solo-0: leader none -> 2 (leader epoch 2)",
		"isr_expanded orders-0: +[2] isr [1,3,2]",
		"isr_expanded orders-1: +[2] isr [3,1,2]")
	// ISR order changes alone are not changes.
	wantChanges(t, apply(t, m, []NodeEvent{z.set(PartitionStatePath("orders", 0), stateJSON(1, 1, 1, 2, 1, 3))}, false))
	// Preferred election: leader back to 2 with ISR unchanged.
	wantChanges(t, apply(t, m, []NodeEvent{z.set(PartitionStatePath("orders", 1), stateJSON(1, 2, 2, 3, 1, 2))}, false),
		"leader_moved orders-1: leader 3 -> 2 (leader epoch 2)")
	if h := m.Snapshot().Health(); !h.Healthy() || h.PreferredLeaderDrift != 0 {
		t.Errorf("%+v", h)
	}
}

func TestModelLeaderMoveAndShrinkInOneWrite(t *testing.T) {
	z, m := newCluster(t)
	cs := apply(t, m, []NodeEvent{z.set(PartitionStatePath("orders", 0), stateJSON(2, 2, 1, 2, 3))}, false)
	wantChanges(t, cs, "leader_moved orders-0: leader 1 -> 2 (leader epoch 1)", "isr_shrank orders-0: -[1] isr [2,3]")
	c := cs[0]
	if c.Path != PartitionStatePath("orders", 0) || c.Zxid != z.zxid || c.Time != z.now || c.From != 1 || c.To != 2 {
		t.Errorf("%+v", c)
	}
	// Shrink and expand in the same write: each with the ISR after it (3
	// is still a replica: it fell out, then 1 caught up).
	wantChanges(t, apply(t, m, []NodeEvent{z.set(PartitionStatePath("orders", 0), stateJSON(2, 2, 1, 2, 1))}, false),
		"isr_shrank orders-0: -[3] isr [2]", "isr_expanded orders-0: +[1] isr [2,1]")
}

func TestModelControllerMoves(t *testing.T) {
	z, m := newCluster(t)
	// §5.5: the controller's session ends, broker 3 wins: one change per batch.
	wantChanges(t, apply(t, m, []NodeEvent{
		z.del(ControllerPath),
		z.create(ControllerPath, string(EncodeController(NewControllerInfo(2, 3, 5)))),
		z.set(ControllerEpochPath, "2"),
	}, false), "controller_moved 1 -> 3 (epoch 2)")
	c := m.Snapshot().Controller()
	if c.BrokerID != 3 || c.Epoch != 2 || c.EpochZkVersion != 1 {
		t.Errorf("%+v", c)
	}
	if b, _ := m.Snapshot().Broker(3); !b.IsController {
		t.Error("badge")
	}
	// Split over batches: gone, then back (same broker, new epoch).
	wantChanges(t, apply(t, m, []NodeEvent{z.del(ControllerPath)}, false), "controller_moved 3 -> none (epoch 2)")
	if m.Snapshot().Controller().BrokerID != -1 {
		t.Error("controller still set")
	}
	wantChanges(t, apply(t, m, []NodeEvent{
		z.set(ControllerEpochPath, "3"),
		z.create(ControllerPath, string(EncodeController(NewControllerInfo(2, 3, 6)))),
	}, false), "controller_moved none -> 3 (epoch 3)")
}

func TestModelTopicDeletion(t *testing.T) {
	z, m := newCluster(t)
	wantChanges(t, apply(t, m, []NodeEvent{z.create(DeleteTopicPath("orders"), "")}, false), "topic_marked_for_deletion orders")
	s := m.Snapshot()
	if !s.Topic("orders").MarkedForDeletion || !s.MarkedForDeletion("orders") {
		t.Error("not marked")
	}
	if err := ValidateTopicCreate("orders", map[int][]int{0: {1}}, nil, s); err == nil || err.Error() != "Topic 'orders' is marked for deletion." {
		t.Error(err)
	}
	if err := ValidateTopicDelete("orders", s); ErrorClass(err) != ClassTopicAlreadyMarkedForDeletion {
		t.Error(err)
	}
	// §5.6: replicas go offline one by one, then everything is deleted.
	apply(t, m, []NodeEvent{
		z.set(PartitionStatePath("orders", 0), stateJSON(1, -1, 1, 2, 3)),
		z.set(PartitionStatePath("orders", 1), stateJSON(1, -1, 1, 3, 1)),
	}, false)
	wantChanges(t, apply(t, m, []NodeEvent{
		z.del(PartitionStatePath("orders", 0)),
		z.del(PartitionPath("orders", 0)),
		z.del(PartitionStatePath("orders", 1)),
		z.del(PartitionPath("orders", 1)),
		z.del(TopicPartitionsPath("orders")),
		z.del(TopicPath("orders")),
		z.del(TopicConfigPath("orders")),
		z.del(DeleteTopicPath("orders")),
	}, false), "topic_deleted orders")
	s = m.Snapshot()
	if s.Topic("orders") != nil || len(s.Topics()) != 0 || len(s.DeletionMarkers()) != 0 || s.Health() != (TopicHealth{}) {
		t.Errorf("%v %v %+v", s.Topics(), s.DeletionMarkers(), s.Health())
	}
	for _, b := range s.Brokers() {
		if b.Replicas != 0 || b.Leaders != 0 {
			t.Errorf("%+v", b)
		}
	}
	if len(m.topics) != 0 {
		t.Errorf("model keeps %d topic states", len(m.topics))
	}
	// A marker for an unknown topic is reported (the controller removes it).
	wantChanges(t, apply(t, m, []NodeEvent{z.create(DeleteTopicPath("ghost"), "")}, false), "topic_marked_for_deletion ghost")
	if s := m.Snapshot(); !s.MarkedForDeletion("ghost") || s.TopicExists("ghost") {
		t.Error("ghost marker")
	}
}

func TestModelTopicDeletedBeforeChildren(t *testing.T) {
	// The mirror may report the topic's deletion before its children's.
	z, m := newCluster(t)
	wantChanges(t, apply(t, m, []NodeEvent{
		z.del(TopicPath("orders")),
		z.del(PartitionStatePath("orders", 0)),
		z.del(PartitionStatePath("orders", 1)),
	}, false), "topic_deleted orders")
	if h := m.Snapshot().Health(); h != (TopicHealth{}) {
		t.Errorf("%+v", h)
	}
}

func TestModelConfigChanges(t *testing.T) {
	z, m := newCluster(t)
	wantChanges(t, apply(t, m, []NodeEvent{
		z.set(TopicConfigPath("orders"), `{"version":1,"config":{"min.insync.replicas":"3","retention.ms":"1000"}}`),
		z.create(ConfigChangePath(1), string(EncodeConfigChangeNotification("topics/orders"))),
	}, false), "config_changed orders: min.insync.replicas, retention.ms")
	s := m.Snapshot()
	tp := s.Topic("orders")
	if tp.MinISR != 3 || tp.Health.UnderMinISR != 0 {
		t.Errorf("%+v", tp)
	}
	if v, _ := tp.ConfigValue("retention.ms"); v != "1000" {
		t.Error(v)
	}
	// A shrink below min ISR.
	apply(t, m, []NodeEvent{z.set(PartitionStatePath("orders", 0), stateJSON(1, 1, 1, 1, 2))}, false)
	if h := m.Snapshot().Health(); h.UnderMinISR != 1 || h.UnderReplicated != 1 {
		t.Errorf("%+v", h)
	}
	// Removing the override restores the default.
	wantChanges(t, apply(t, m, []NodeEvent{z.set(TopicConfigPath("orders"), `{"version":1,"config":{"retention.ms":"1000"}}`)}, false),
		"config_changed orders: min.insync.replicas")
	if h := m.Snapshot().Health(); h.UnderMinISR != 0 {
		t.Errorf("%+v", h)
	}
	// Rewriting the same config is not a change; the version it is at
	// moves on.
	v := m.Snapshot().Topic("orders").ConfigVersion
	wantChanges(t, apply(t, m, []NodeEvent{z.set(TopicConfigPath("orders"), `{"version":1,"config":{"retention.ms":"1000"}}`)}, false))
	if got := m.Snapshot().Topic("orders").ConfigVersion; v < 1 || got != v+1 {
		t.Errorf("config version %d after a rewrite at %d", got, v)
	}
	wantChanges(t, apply(t, m, []NodeEvent{z.del(TopicConfigPath("orders"))}, false), "config_changed orders: retention.ms")
	if tp := m.Snapshot().Topic("orders"); tp.HasConfig {
		t.Error("config still there")
	}
	// A model with another default min ISR.
	m2 := NewModel(ModelOptions{DefaultMinISR: 2})
	apply(t, m2, z.all(), true)
	if s := m2.Snapshot(); s.Topic("orders").MinISR != 2 || s.DefaultMinISR() != 2 || s.Health().UnderMinISR != 0 {
		t.Errorf("%+v", s.Health())
	}
}

func TestModelReassignmentAndAddPartitions(t *testing.T) {
	z, m := newCluster(t)
	a := NewTopicAssignment(map[int][]int{0: {4, 1, 2, 3}, 1: {2, 3, 1}}, "")
	a.AddingReplicas[0], a.RemovingReplicas[0] = []int{4}, []int{3}
	wantChanges(t, apply(t, m, []NodeEvent{z.set(TopicPath("orders"), string(EncodeTopicAssignment(a)))}, false),
		"reassignment_started orders-0: adding [4] removing [3]")
	s := m.Snapshot()
	if b4, ok := s.Broker(4); !ok || b4.Live || b4.RackKnown || b4.Replicas != 1 {
		t.Errorf("broker 4 (never registered): %+v", b4)
	}
	if r := s.Racks(); r[len(r)-1].Kind != RackUnknown || !slices.Equal(r[len(r)-1].Brokers, []int{4}) || r[len(r)-1].Label() != "(unknown rack)" {
		t.Errorf("%+v", r)
	}
	if s.Health().Reassigning != 1 {
		t.Error(s.Health())
	}
	wantChanges(t, apply(t, m, []NodeEvent{z.set(TopicPath("orders"), topicJSON(map[int][]int{0: {4, 1, 2}, 1: {2, 3, 1}}))}, false),
		"reassignment_finished orders-0: replicas [4,1,2]")
	// Add partitions (§5.2).
	wantChanges(t, apply(t, m, []NodeEvent{
		z.set(TopicPath("orders"), topicJSON(map[int][]int{0: {4, 1, 2}, 1: {2, 3, 1}, 2: {3, 1, 2}, 3: {1, 2, 3}})),
		z.create(PartitionStatePath("orders", 2), stateJSON(1, 3, 0, 3, 1, 2)),
	}, false), "partitions_added orders: 2,3", "partition_appeared orders-2: leader 3, isr [3,1,2]")
	tp := m.Snapshot().Topic("orders")
	if len(tp.Partitions) != 4 || tp.Health.Uninitialized != 1 {
		t.Errorf("%+v", tp.Health)
	}
}

func TestModelMalformedZNodes(t *testing.T) {
	z, m := newCluster(t)
	cs := apply(t, m, []NodeEvent{
		z.set(PartitionStatePath("orders", 1), `{"controller_epoch":1,"leader":2,`),
		z.create(BrokerIDPath(9), `{"version":5}`),
		z.set(ControllerEpochPath, "two"),
		z.create(TopicPath("bad"), `{"version":3,"partitions":{"0":[1,2]},"topic_id":"###"}`),
		z.create(TopicConfigPath("cfg"), `{"config":{"a":1}}`),
	}, false)
	wantChanges(t, cs,
		"znode_invalid /brokers/topics/orders/partitions/1/state: bad partition state: unexpected end of JSON in object (at byte 33)",
		`znode_invalid /brokers/ids/9: bad broker registration: missing field "jmx_port"`,
		"broker_registered 9",
		`znode_invalid /controller_epoch: bad controller epoch: not an integer: "two"`,
		`znode_invalid /brokers/topics/bad: bad topic assignment: field "topic_id": invalid UUID '###': expected 22 base64url characters`,
		"topic_created bad: 1 partitions, replication factor 2",
		`znode_invalid /config/topics/cfg: bad config: field "a": expected a string, got a number`,
	)
	s := m.Snapshot()
	errs := s.Errors()
	if len(errs) != 5 || errs[0].Path != "/brokers/ids/9" {
		t.Fatalf("%+v", errs)
	}
	p := s.Topic("orders").Partition(1)
	if p.StateErr() == nil || p.Leader != NoLeader || !p.HasState || s.Health().BadState != 1 {
		t.Errorf("%+v", p)
	}
	var de *DecodeError
	if !errors.As(p.StateErr(), &de) {
		t.Fatalf("StateErr %T, want *DecodeError", p.StateErr)
	}
	if raw := de.Raw; string(raw) != `{"controller_epoch":1,"leader":2,` {
		t.Errorf("raw %q", raw)
	}
	if s.Controller().Epoch != 1 || s.Controller().Err == nil {
		t.Errorf("%+v", s.Controller())
	}
	if b, _ := s.Broker(9); b.Err == nil || !b.Live {
		t.Errorf("%+v", b)
	}
	if _, err := s.BrokerMetadatas(RackAwareDisabled, nil); err == nil || !strings.HasPrefix(err.Error(), "Failed to parse ZooKeeper registration for broker 9: {") {
		t.Error(err)
	}
	if bt := s.Topic("bad"); bt.Err == nil || len(bt.Partitions) != 1 {
		t.Errorf("%+v", bt)
	}
	// Fixing an unreadable assignment is not "partitions added".
	wantChanges(t, apply(t, m, []NodeEvent{z.set(TopicPath("bad"), topicJSON(map[int][]int{0: {1, 2}, 1: {2, 1}}))}, false))
	// The same bad data again is not reported twice; a fix clears it.
	wantChanges(t, apply(t, m, []NodeEvent{z.set(BrokerIDPath(9), `{"version":5}`)}, false))
	wantChanges(t, apply(t, m, []NodeEvent{
		z.set(PartitionStatePath("orders", 1), stateJSON(1, 2, 0, 2, 3, 1)),
		z.del(BrokerIDPath(9)),
		z.set(ControllerEpochPath, "2"),
	}, false), "broker_gone 9", "controller_moved 1 -> 1 (epoch 2)")
	if errs := m.Snapshot().Errors(); len(errs) != 1 || errs[0].Path != TopicConfigPath("cfg") {
		t.Errorf("%+v", errs)
	}
}

func TestModelResetWithDifferences(t *testing.T) {
	z, m := newCluster(t)
	old := m.Snapshot()
	// While the session was away: broker 3 died and came back, the
	// controller moved leadership, a topic appeared and one was deleted.
	z.del(BrokerIDPath(3))
	z.create(BrokerIDPath(3), brokerJSON(3, "b"))
	z.set(PartitionStatePath("orders", 1), stateJSON(1, 3, 1, 3, 1))
	z.create(TopicPath("fresh"), topicJSON(map[int][]int{0: {1}}))
	z.create(PartitionStatePath("fresh", 0), stateJSON(1, 1, 0, 1))
	z.del(BrokerIDPath(2))
	wantChanges(t, apply(t, m, z.all(), true),
		"broker_registered 3 (rack b)",
		"topic_created fresh: 1 partitions, replication factor 1",
		"partition_appeared fresh-0: leader 1, isr [1]",
		"leader_moved orders-1: leader 2 -> 3 (leader epoch 1)",
		"isr_shrank orders-1: -[2] isr [3,1]",
		"broker_gone 2")
	// The previous snapshot is untouched.
	if old.Topic("orders").Partition(1).Leader != 2 || old.Topic("fresh") != nil || !old.IsLive(2) {
		t.Error("old snapshot modified")
	}
	// A topic deleted and created again while away: deleted + created.
	z.del(PartitionStatePath("fresh", 0))
	z.del(TopicPath("fresh"))
	z.create(TopicPath("fresh"), topicJSON(map[int][]int{0: {3}}))
	z.create(PartitionStatePath("fresh", 0), stateJSON(2, 3, 0, 3))
	wantChanges(t, apply(t, m, z.all(), true),
		"topic_deleted fresh",
		"topic_created fresh: 1 partitions, replication factor 1",
		"partition_appeared fresh-0: leader 3, isr [3]")
	// A reset that drops everything.
	z2 := newFakeZK()
	cs := apply(t, m, z2.all(), true)
	got := kinds(cs)
	slices.Sort(got)
	want := []string{"broker_gone 1", "broker_gone 3", "controller_moved 1 -> none (epoch 0)", "topic_deleted fresh", "topic_deleted orders"}
	if !slices.Equal(got, want) {
		t.Errorf("%q", got)
	}
	s := m.Snapshot()
	if len(s.Topics()) != 0 || len(s.Brokers()) != 0 || s.ClusterID() != "" || s.Health() != (TopicHealth{}) {
		t.Errorf("%+v", s)
	}
}

func TestModelOutOfOrderEvents(t *testing.T) {
	z := newFakeZK()
	st := z.create(PartitionStatePath("t", 0), stateJSON(1, 1, 0, 1))
	tp := z.create(TopicPath("t"), topicJSON(map[int][]int{0: {1}}))
	cfg := z.create(TopicConfigPath("t"), `{"version":1,"config":{"min.insync.replicas":"2"}}`)
	br := z.create(BrokerIDPath(1), brokerJSON(1, ""))
	m := NewModel(ModelOptions{})
	wantChanges(t, apply(t, m, []NodeEvent{st, cfg, tp, br}, false),
		"partition_appeared t-0: leader 1, isr [1]",
		"topic_created t: 1 partitions, replication factor 1",
		"broker_registered 1")
	s := m.Snapshot()
	p := s.Topic("t").Partition(0)
	if p.Leader != 1 || !p.InAssignment || s.Topic("t").MinISR != 2 || s.Health().UnderMinISR != 1 {
		t.Errorf("%+v %+v", p, s.Health())
	}
	if r := s.Racks(); len(r) != 1 || r[0].Kind != RackNone || r[0].Label() != "(no rack)" {
		t.Errorf("%+v", r)
	}
	// A config reported after its topic in the creating batch is part of
	// the creation.
	wantChanges(t, apply(t, m, []NodeEvent{
		z.create(TopicPath("u"), topicJSON(map[int][]int{0: {1}})),
		z.create(TopicConfigPath("u"), `{"version":1,"config":{"retention.ms":"1"}}`),
	}, false), "topic_created u: 1 partitions, replication factor 1")
	// Deletion events for unknown nodes and Changed events for new ones.
	apply(t, m, []NodeEvent{{Type: NodeDeleted, Path: "/brokers/ids/77"}, {Type: NodeDeleted, Path: TopicPath("nope")},
		{Type: NodeDeleted, Path: PartitionStatePath("nope", 1)}, {Type: NodeDeleted, Path: TopicConfigPath("nope")},
		{Type: NodeDeleted, Path: DeleteTopicPath("nope")}}, false)
	if len(m.topics) != 2 {
		t.Errorf("phantom topics: %v", slices.Collect(maps.Keys(m.topics)))
	}
	wantChanges(t, apply(t, m, []NodeEvent{{Type: NodeChanged, Path: BrokerIDPath(5), Data: []byte(brokerJSON(5, "x")), Stat: Stat{Czxid: 9, Mzxid: 9}}}, false),
		"broker_registered 5 (rack x)")
	// Paths the model does not read are ignored.
	wantChanges(t, apply(t, m, []NodeEvent{{Type: NodeCreated, Path: "/zookeeper/quota", Data: []byte("x")}, {Type: NodeCreated, Path: "", Data: nil}}, false))
}

func TestModelAdminNodes(t *testing.T) {
	z, m := newCluster(t)
	apply(t, m, []NodeEvent{
		z.create(ReassignPartitionsPath, specReassign),
		z.create(PreferredReplicaElectionPath, specElection),
		z.create(IsrChangePath(1), specElection),
		z.create(IsrChangePath(2), specElection),
		z.create(LogDirEventPath(1), specLogDir),
	}, false)
	s := m.Snapshot()
	if s.PendingReassignment() == nil || len(s.PendingReassignment().Partitions) != 1 || s.PendingPreferredElection() == nil ||
		s.IsrChangeNotifications() != 2 || s.LogDirEvents() != 1 {
		t.Errorf("%+v", s)
	}
	apply(t, m, []NodeEvent{z.del(ReassignPartitionsPath), z.del(PreferredReplicaElectionPath), z.del(IsrChangePath(1))}, false)
	s = m.Snapshot()
	if s.PendingReassignment() != nil || s.PendingPreferredElection() != nil || s.IsrChangeNotifications() != 1 {
		t.Errorf("%+v", s)
	}
	apply(t, m, z.all(), true)
	if s := m.Snapshot(); s.IsrChangeNotifications() != 1 || s.LogDirEvents() != 1 {
		t.Error("reset lost children")
	}
	delete(z.nodes, IsrChangePath(2))
	apply(t, m, z.all(), true)
	if s := m.Snapshot(); s.IsrChangeNotifications() != 0 {
		t.Error("reset kept a gone child")
	}
}

func TestModelBrokerUpdate(t *testing.T) {
	z, m := newCluster(t)
	eps := []BrokerEndpoint{
		{Listener: "PLAINTEXT", SecurityProtocol: "PLAINTEXT", Host: "kafka-1", Port: 9092},
		{Listener: "SSL", SecurityProtocol: "SSL", Host: "kafka-1", Port: 9093},
	}
	wantChanges(t, apply(t, m, []NodeEvent{z.set(BrokerIDPath(1), string(EncodeBroker(NewBrokerRegistration(5, eps, -1, "a", 1, nil))))}, false),
		"broker_updated 1")
	if b, _ := m.Snapshot().Broker(1); len(b.Registration.Endpoints) != 2 {
		t.Errorf("%+v", b)
	}
}

// Snapshots are immutable: applying batches never changes a snapshot taken
// before (checked by deep comparison with a copy).
func TestModelSnapshotsImmutable(t *testing.T) {
	z, m := newCluster(t)
	s1 := m.Snapshot()
	copy1 := deepTopics(s1)
	apply(t, m, []NodeEvent{
		z.set(PartitionStatePath("orders", 0), stateJSON(1, 2, 1, 2, 3)),
		z.set(TopicConfigPath("orders"), `{"version":1,"config":{"min.insync.replicas":"2"}}`),
		z.create(DeleteTopicPath("orders"), ""),
	}, false)
	s2 := m.Snapshot()
	apply(t, m, []NodeEvent{z.set(PartitionStatePath("orders", 1), stateJSON(1, 3, 1, 3))}, false)
	apply(t, m, []NodeEvent{z.set(TopicPath("orders"), topicJSON(map[int][]int{0: {1, 2, 3}, 1: {2, 3, 1}, 2: {1, 2, 3}}))}, false)
	_ = m.Snapshot()
	if !reflect.DeepEqual(copy1, deepTopics(s1)) {
		t.Error("snapshot 1 changed")
	}
	if s2.Topic("orders").Partition(1).Leader != 2 || len(s2.Topic("orders").Partitions) != 2 {
		t.Error("snapshot 2 changed")
	}
	// Unchanged topics are shared between snapshots.
	apply(t, m, []NodeEvent{z.create(TopicPath("other"), topicJSON(map[int][]int{0: {1}}))}, false)
	s3 := m.Snapshot()
	apply(t, m, []NodeEvent{z.set(BrokerIDPath(3), brokerJSON(3, "c"))}, false)
	s4 := m.Snapshot()
	if s3.Topic("orders") != s4.Topic("orders") || s3 == s4 {
		t.Error("topic not shared")
	}
}

// deepTopics is every topic of s as JSON, with what each partition holds
// apart (Partition.Adding, StateErr, ELR …) beside it.
func deepTopics(s *Snapshot) string {
	type more struct {
		Adding, Removing, ELR, LastKnownELR []int
		StateErr                            string
	}
	var parts []more
	for _, t := range s.Topics() {
		for _, p := range t.Partitions {
			m := more{Adding: p.Adding(), Removing: p.Removing(), ELR: p.ELR(), LastKnownELR: p.LastKnownELR()}
			if err := p.StateErr(); err != nil {
				m.StateErr = err.Error()
			}
			parts = append(parts, m)
		}
	}
	b, err := json.Marshal([]any{s.Topics(), parts})
	if err != nil {
		panic(err)
	}
	return string(b)
}

func TestChangeJSON(t *testing.T) {
	for _, tc := range []struct {
		c    Change
		want string
	}{
		{Change{Kind: ChangeLeaderMoved, Topic: "t", Partition: 0, From: 1, To: -1, Epoch: 4, Path: "/p", Zxid: 9, Time: 10},
			`{"kind":"leader_moved","topic":"t","partition":0,"from":1,"to":-1,"leader_epoch":4,"path":"/p","zxid":9,"mtime":10}`},
		{Change{Kind: ChangeBrokerGone, Broker: 0}, `{"kind":"broker_gone","broker":0}`},
		{Change{Kind: ChangeBrokerRegistered, Broker: 2, Rack: "r", BrokerEpoch: 77}, `{"kind":"broker_registered","broker":2,"rack":"r","broker_epoch":77}`},
		{Change{Kind: ChangeControllerMoved, From: -1, To: 2, Epoch: 1}, `{"kind":"controller_moved","from":-1,"to":2,"epoch":1}`},
		{Change{Kind: ChangeIsrShrank, Topic: "t", Partition: 1, Removed: []int{2}, ISR: []int{1}}, `{"kind":"isr_shrank","topic":"t","partition":1,"removed":[2],"isr":[1],"leader_epoch":0}`},
		{Change{Kind: ChangeIsrExpanded, Topic: "t", Partition: 1, Added: []int{2}, ISR: []int{1, 2}, Epoch: 3}, `{"kind":"isr_expanded","topic":"t","partition":1,"added":[2],"isr":[1,2],"leader_epoch":3}`},
		{Change{Kind: ChangeTopicCreated, Topic: "t", PartitionCount: 3, ReplicationFactor: 2, TopicID: "x"}, `{"kind":"topic_created","topic":"t","topic_id":"x","partitions":3,"replication_factor":2}`},
		{Change{Kind: ChangeTopicDeleted, Topic: "t"}, `{"kind":"topic_deleted","topic":"t"}`},
		{Change{Kind: ChangeTopicMarkedForDeletion, Topic: "t"}, `{"kind":"topic_marked_for_deletion","topic":"t"}`},
		{Change{Kind: ChangePartitionAppeared, Topic: "t", Leader: 1, ISR: []int{1}, Replicas: []int{1}}, `{"kind":"partition_appeared","topic":"t","partition":0,"leader":1,"isr":[1],"replicas":[1],"leader_epoch":0}`},
		{Change{Kind: ChangePartitionsAdded, Topic: "t", Partitions: []int{2, 3}}, `{"kind":"partitions_added","topic":"t","partitions":[2,3]}`},
		{Change{Kind: ChangeConfigChanged, Topic: "t", Keys: []string{"a", "b"}}, `{"kind":"config_changed","topic":"t","keys":["a","b"]}`},
		{Change{Kind: ChangeReassignmentStarted, Topic: "t", Added: []int{4}}, `{"kind":"reassignment_started","topic":"t","partition":0,"adding":[4],"removing":[]}`},
		{Change{Kind: ChangeReassignmentFinished, Topic: "t", Replicas: []int{4}}, `{"kind":"reassignment_finished","topic":"t","partition":0,"replicas":[4]}`},
		{Change{Kind: ChangeZNodeInvalid, Path: "/x", Error: "bad \"x\""}, `{"kind":"znode_invalid","error":"bad \"x\"","path":"/x"}`},
		{Change{Kind: ChangeBrokerUpdated, Broker: 1}, `{"kind":"broker_updated","broker":1}`},
	} {
		b, err := json.Marshal(tc.c)
		if err != nil || string(b) != tc.want {
			t.Errorf("%s\nwant %s (%v)", b, tc.want, err)
		}
		if !json.Valid(b) || tc.c.String() == "" {
			t.Error("invalid")
		}
	}
}

func TestMirrorShape(t *testing.T) {
	sh := KafkaMirrorShape()
	for _, c := range sh.Containers {
		if k := ParsePath(c.Path).Kind; k == KindUnknown {
			t.Errorf("%s", c.Path)
		}
	}
	if got := sh.Derive(TopicPath("t"), []byte(specTopicV3)); !slices.Equal(got, []string{PartitionStatePath("t", 0), PartitionStatePath("t", 1)}) {
		t.Error(got)
	}
	if got := DerivePaths(TopicPath("t"), []byte(`{"partitions":{"10":[1],"2":[1]},"topic_id":"bad"}`)); !slices.Equal(got, []string{PartitionStatePath("t", 2), PartitionStatePath("t", 10)}) {
		t.Error(got)
	}
	for _, p := range []string{BrokerIDPath(1), TopicConfigPath("t"), PartitionStatePath("t", 0), TopicPath("t") + "x/y"} {
		if DerivePaths(p, []byte(specTopicV3)) != nil {
			t.Error(p)
		}
	}
	if DerivePaths(TopicPath("t"), []byte("{")) != nil {
		t.Error("garbage")
	}
	// Every path the model reads is covered by the shape.
	covered := func(p string) bool {
		if slices.Contains(sh.Nodes, p) {
			return true
		}
		for _, c := range sh.Containers {
			if strings.HasPrefix(p, c.Path+"/") && !strings.Contains(p[len(c.Path)+1:], "/") {
				return true
			}
		}
		return strings.HasSuffix(p, "/state")
	}
	z, _ := newCluster(t)
	z.create(DeleteTopicPath("orders"), "")
	z.create(IsrChangePath(1), specElection)
	for p := range z.nodes {
		if !covered(p) {
			t.Errorf("%s not in the mirror shape", p)
		}
	}
}

// The model never panics on arbitrary bytes at any Kafka path.
func TestModelGarbage(t *testing.T) {
	m := NewModel(ModelOptions{})
	paths := []string{BrokerIDPath(1), TopicPath("t"), PartitionStatePath("t", 0), TopicConfigPath("t"), ControllerPath,
		ControllerEpochPath, ClusterIDPath, ReassignPartitionsPath, PreferredReplicaElectionPath, DeleteTopicPath("t")}
	datas := []string{"", "{", "null", "[]", `{"a":1}`, "\xff\xfe", `{"version":1,"partitions":{"0":[1,1,1]}}`, "-1"}
	zx := int64(0)
	for i := 0; i < 3; i++ {
		for _, p := range paths {
			for _, d := range datas {
				zx++
				apply(t, m, []NodeEvent{{Type: NodeCreated, Path: p, Data: []byte(d), Stat: Stat{Czxid: zx, Mzxid: zx}}}, i == 2)
				_ = m.Snapshot()
			}
		}
	}
	_ = fmt.Sprint(m.Snapshot().Errors())
}

// TestModelNoChanges: a model that records no changes builds the same
// picture, batch after batch.
func TestModelNoChanges(t *testing.T) {
	z, m := newCluster(t)
	quiet := NewModel(ModelOptions{NoChanges: true})
	if cs := quiet.Apply(z.all(), true); cs != nil {
		t.Fatalf("first load recorded %d changes", len(cs))
	}
	batches := [][]NodeEvent{
		{z.del(BrokerIDPath(2)), z.set(PartitionStatePath("orders", 1), stateJSON(1, 3, 1, 3, 1))},
		{z.create(ControllerPath, string(EncodeController(NewControllerInfo(2, 3, 2))))},
	}
	for _, b := range batches {
		if len(apply(t, m, b, false)) == 0 {
			t.Fatal("the recording model saw no change")
		}
		if cs := quiet.Apply(b, false); cs != nil {
			t.Fatalf("recorded %v", kinds(cs))
		}
		if got, want := deepTopics(quiet.Snapshot()), deepTopics(m.Snapshot()); got != want {
			t.Fatalf("topics differ:\n%s\nwant\n%s", got, want)
		}
		if got, want := fmt.Sprintf("%+v", quiet.Snapshot().Controller()), fmt.Sprintf("%+v", m.Snapshot().Controller()); got != want {
			t.Fatalf("controller %+v, want %+v", got, want)
		}
	}
}

// TestEffectiveMinISR: a partition's min.insync.replicas is the topic's
// override, else its leader's dynamic broker config, else the cluster's
// dynamic default, else 1; the health counts follow every change of them.
func TestEffectiveMinISR(t *testing.T) {
	z, m := newCluster(t) // brokers 1, 2, 3
	m.Apply([]NodeEvent{
		z.create(TopicPath("t"), topicJSON(map[int][]int{0: {1, 2, 3}, 1: {2, 3, 1}})),
		z.create(PartitionStatePath("t", 0), stateJSON(1, 1, 0, 1, 2)),
		z.create(PartitionStatePath("t", 1), stateJSON(1, 2, 0, 2, 3)),
	}, false)
	check := func(what string, want0, want1, under int) {
		t.Helper()
		s := m.Snapshot()
		tp := s.Topic("t")
		if got0, got1 := s.MinISR(tp, tp.Partitions[0]), s.MinISR(tp, tp.Partitions[1]); got0 != want0 || got1 != want1 {
			t.Errorf("%s: min ISR %d, %d; want %d, %d", what, got0, got1, want0, want1)
		}
		if tp.Health.UnderMinISR != under || s.Health().UnderMinISR != under {
			t.Errorf("%s: under min ISR topic %d, cluster %d; want %d", what, tp.Health.UnderMinISR, s.Health().UnderMinISR, under)
		}
	}
	check("defaults", 1, 1, 0)
	m.Apply([]NodeEvent{z.create(EntityConfigPath("brokers", BrokerDefaultEntity), `{"version":1,"config":{"min.insync.replicas":"3"}}`)}, false)
	check("cluster default 3", 3, 3, 2)
	m.Apply([]NodeEvent{z.create(BrokerConfigPath(2), `{"version":1,"config":{"min.insync.replicas":"2"}}`)}, false)
	check("broker 2 (leads partition 1) says 2", 3, 2, 1)
	m.Apply([]NodeEvent{z.create(TopicConfigPath("t"), `{"version":1,"config":{"min.insync.replicas":"1"}}`)}, false)
	check("the topic's override wins", 1, 1, 0)
	m.Apply([]NodeEvent{z.del(TopicConfigPath("t"))}, false)
	check("override gone", 3, 2, 1)
	// The leader moves from 2 to 3: partition 1 follows broker 3, i.e. the default.
	m.Apply([]NodeEvent{z.set(PartitionStatePath("t", 1), stateJSON(1, 3, 1, 3))}, false)
	check("leader 3", 3, 3, 2)
	m.Apply([]NodeEvent{z.del(EntityConfigPath("brokers", BrokerDefaultEntity)), z.del(BrokerConfigPath(2))}, false)
	check("all gone", 1, 1, 0)
	if c, ok := m.Snapshot().BrokerConfig("2"); ok || len(c) != 0 {
		t.Errorf("broker 2's config after deletion: %v", c)
	}
	// A reset that no longer holds a broker config forgets it.
	m.Apply([]NodeEvent{z.create(BrokerConfigPath(1), `{"version":1,"config":{"min.insync.replicas":"3"}}`)}, false)
	check("broker 1 says 3", 3, 1, 1)
	var rest []NodeEvent
	for _, ev := range z.all() {
		if ev.Path != BrokerConfigPath(1) {
			rest = append(rest, ev)
		}
	}
	m.Apply(rest, true)
	check("reset without it", 1, 1, 0)
}

// TestPartitionsChangedInPlaceOnlyUnseen: a partition the model made
// since its last snapshot is changed where it is (a first load's state
// following its assignment), one a snapshot holds is copied: the
// snapshot keeps what it showed.
func TestPartitionsChangedInPlaceOnlyUnseen(t *testing.T) {
	for _, pack := range []bool{false, true} {
		t.Run(fmt.Sprintf("pack=%v", pack), func(t *testing.T) { inPlaceOnlyUnseen(t, pack) })
	}
}

func inPlaceOnlyUnseen(t *testing.T, pack bool) {
	z := newFakeZK()
	m := NewModel(ModelOptions{PackPartitions: pack})
	// Assignment and state in one batch: the state lands in the partition
	// the assignment made.
	apply(t, m, []NodeEvent{
		z.create(TopicPath("t"), topicJSON(map[int][]int{0: {1, 2}, 1: {2, 1}})),
		z.create(PartitionStatePath("t", 0), stateJSON(1, 1, 0, 1, 2)),
	}, false)
	s1 := m.Snapshot()
	p0 := s1.Topic("t").Partition(0)
	if p0.Leader != 1 || !p0.HasState || !slices.Equal(p0.ISR, []int{1, 2}) {
		t.Fatalf("partition 0 after assignment and state: %+v", *p0)
	}
	// A change after the snapshot: the snapshot's partitions stay as
	// they were, the next snapshot has the change.
	apply(t, m, []NodeEvent{
		z.set(PartitionStatePath("t", 0), stateJSON(1, 2, 1, 2)),
		z.create(PartitionStatePath("t", 1), stateJSON(1, 2, 0, 2, 1)),
	}, false)
	apply(t, m, []NodeEvent{z.set(PartitionStatePath("t", 1), stateJSON(1, 1, 1, 1))}, false)
	if p := s1.Topic("t").Partition(0); p.Leader != 1 || p.LeaderEpoch != 0 || !slices.Equal(p.ISR, []int{1, 2}) {
		t.Fatalf("the first snapshot's partition 0 changed: %+v", *p)
	}
	if p := s1.Topic("t").Partition(1); p.HasState {
		t.Fatalf("the first snapshot's partition 1 got a state: %+v", *p)
	}
	s2 := m.Snapshot()
	if p := s2.Topic("t").Partition(0); p.Leader != 2 || p.LeaderEpoch != 1 || !slices.Equal(p.ISR, []int{2}) {
		t.Fatalf("the second snapshot's partition 0: %+v", *p)
	}
	if p := s2.Topic("t").Partition(1); p.Leader != 1 || p.LeaderEpoch != 1 || !slices.Equal(p.ISR, []int{1}) {
		t.Fatalf("the second snapshot's partition 1: %+v", *p)
	}
	if h := s2.Health(); h.Partitions != 2 || h.UnderReplicated != 2 {
		t.Fatalf("health %+v", h)
	}
}
