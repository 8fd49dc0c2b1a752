package sandbox

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ktopo/ktopo/cluster"
)

// TestCreateTopic: a topic created like ktopo does and one written by hand
// (v2, no topic id) both go online exactly as with Kafka's controller
// (spec §5.1); the hand-made one first gets a topic_id.
func TestCreateTopic(t *testing.T) {
	for _, tc := range []struct {
		name   string
		byHand string // topic znode JSON written by hand, without config
		id     bool   // written with a topic id (broker-side CreateTopics)
		assign map[int][]int
		want   map[int]*st
	}{
		{
			name:   "ktopo",
			assign: map[int][]int{0: {2, 3, 1}, 1: {3, 1, 2}, 2: {1, 2, 3}},
			want: map[int]*st{
				0: {leader: 2, isr: []int{2, 3, 1}, controllerEpoch: 1},
				1: {leader: 3, isr: []int{3, 1, 2}, controllerEpoch: 1},
				2: {leader: 1, isr: []int{1, 2, 3}, controllerEpoch: 1},
			},
		},
		{
			name:   "with-topic-id",
			id:     true,
			assign: map[int][]int{0: {1, 2}, 1: {2, 3}},
			want: map[int]*st{
				0: {leader: 1, isr: []int{1, 2}, controllerEpoch: 1},
				1: {leader: 2, isr: []int{2, 3}, controllerEpoch: 1},
			},
		},
		{
			name:   "by-hand",
			byHand: `{"version":2,"partitions":{"2":[3],"1":[3],"0":[3]},"adding_replicas":{},"removing_replicas":{}}`,
			assign: map[int][]int{0: {3}, 1: {3}, 2: {3}},
			want: map[int]*st{
				0: {leader: 3, isr: []int{3}, controllerEpoch: 1},
				1: {leader: 3, isr: []int{3}, controllerEpoch: 1},
				2: {leader: 3, isr: []int{3}, controllerEpoch: 1},
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, Config{Brokers: 3, Racks: 3})
			const topic = "events"
			id := ""
			switch {
			case tc.byHand != "":
				e.create(cluster.TopicPath(topic), []byte(tc.byHand))
			case tc.id:
				id = cluster.NewTopicID().String()
				e.createTopicWithID(topic, tc.assign, map[string]string{"retention.ms": "1000"}, id)
			default:
				e.createTopic(topic, tc.assign, map[string]string{"retention.ms": "1000"})
			}
			e.waitStates(topic, tc.want)
			tn := e.get(cluster.TopicPath(topic))
			a, err := cluster.DecodeTopicAssignment(tn.data)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := cluster.ParseUUID(a.TopicID); err != nil {
				t.Fatalf("topic_id %q: %v", a.TopicID, err)
			}
			// A topic written without a topic id gets one before its
			// partitions are created: one setData (v1), the rest kept.
			want := string(cluster.EncodeTopicAssignment(cluster.NewTopicAssignment(tc.assign, a.TopicID)))
			wantVersion := int32(1)
			if tc.id {
				wantVersion = 0
				if a.TopicID != id {
					t.Errorf("topic id %s, want %s", a.TopicID, id)
				}
			}
			if tn.version != wantVersion || string(tn.data) != want {
				t.Errorf("topic znode = %s (v%d), want %s (v%d)", tn.data, tn.version, want, wantVersion)
			}
			if tc.byHand == "" {
				if got := string(e.get(cluster.TopicConfigPath(topic)).data); got != `{"version":1,"config":{"retention.ms":"1000"}}` {
					t.Errorf("config = %s", got)
				}
			}
			for p := range tc.assign {
				for _, path := range []string{cluster.TopicPartitionsPath(topic), cluster.PartitionPath(topic, p)} {
					if n := e.get(path); !n.exists || len(n.data) != 0 || n.version != 0 {
						t.Errorf("%s: %+v, want an empty node", path, n)
					}
				}
			}
			if kids, _, _ := e.zk.Children(cluster.IsrChangeNotificationPath); len(kids) != 0 {
				t.Errorf("isr change notifications: %v", kids)
			}
		})
	}
}

// TestCreateWithDeadReplicas: partitions whose replicas are all on
// unregistered brokers get no znodes until one registers (§5.1, §5.4);
// a live replica missing at creation joins the ISR through the leader's
// AlterPartition (same leader epoch).
func TestCreateWithDeadReplicas(t *testing.T) {
	e := newEnv(t, Config{Brokers: 3})
	e.kill(3)
	e.waitRegistered("1", "2")
	e.createTopic("t", map[int][]int{0: {3}, 1: {3, 2}, 2: {1, 2}}, nil)
	e.waitStates("t", map[int]*st{
		0: nil,
		1: {leader: 2, isr: []int{2}, controllerEpoch: 1},
		2: {leader: 1, isr: []int{1, 2}, controllerEpoch: 1},
	})
	if e.exists(cluster.PartitionPath("t", 0)) {
		t.Errorf("%s exists although no replica is alive", cluster.PartitionPath("t", 0))
	}
	if !strings.Contains(e.logs.String(), "No assigned replica is alive.") {
		t.Errorf("no \"No assigned replica is alive.\" in the log")
	}
	e.restart(3)
	e.waitStates("t", map[int]*st{
		0: {leader: 3, isr: []int{3}, controllerEpoch: 1},
		1: {leader: 2, isr: []int{2, 3}, controllerEpoch: 1, version: 1},
		2: {leader: 1, isr: []int{1, 2}, controllerEpoch: 1},
	})
}

// TestAddPartitions: new partition ids written into the topic znode are
// created like at topic creation (§5.2); the topic id is kept.
func TestAddPartitions(t *testing.T) {
	e := newEnv(t, Config{Brokers: 3})
	e.createTopic("t", map[int][]int{0: {1, 2}}, nil)
	e.waitStates("t", map[int]*st{0: {leader: 1, isr: []int{1, 2}, controllerEpoch: 1}})
	n := e.get(cluster.TopicPath("t"))
	a, _ := cluster.DecodeTopicAssignment(n.data)
	a.Partitions[1] = []int{2, 3}
	a.Partitions[2] = []int{3, 1}
	if _, err := e.zk.Set(cluster.TopicPath("t"), cluster.EncodeTopicAssignment(a), n.version); err != nil {
		t.Fatal(err)
	}
	e.waitStates("t", map[int]*st{
		0: {leader: 1, isr: []int{1, 2}, controllerEpoch: 1},
		1: {leader: 2, isr: []int{2, 3}, controllerEpoch: 1},
		2: {leader: 3, isr: []int{3, 1}, controllerEpoch: 1},
	})
}

// TestCreateLargeTopic: 1,000 partitions, RF 3, on 6 brokers in 3 racks,
// assigned by Kafka's algorithm.
func TestCreateLargeTopic(t *testing.T) {
	if testing.Short() {
		t.Skip("1,000-partition topic skipped in -short mode")
	}
	e := newEnv(t, Config{Brokers: 6, Racks: 3})
	assignment := rackAwareAssignment(t, 6, 3, 1000, 3)
	e.createTopic("big", assignment, nil)
	want := map[int]*st{}
	for p, r := range assignment {
		want[p] = &st{leader: r[0], isr: r, controllerEpoch: 1}
	}
	e.waitStates("big", want)
	if n := e.get(cluster.TopicPartitionsPath("big")); !n.exists {
		t.Fatal("partitions znode missing")
	}
	kids, _, err := e.zk.Children(cluster.TopicPartitionsPath("big"))
	if err != nil || len(kids) != 1000 {
		t.Fatalf("%d partition znodes (%v)", len(kids), err)
	}
}

func (s *st) Format(f fmt.State, verb rune) { fmt.Fprint(f, s.String()) }
