package cluster

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestReassignments: the phases of reassignments in progress, started
// through the topic znode or /admin/reassign_partitions, and a tracker's
// done/total across snapshots.
func TestReassignments(t *testing.T) {
	c := wiCluster{controller: 3, dead: []int{6}, topics: []wiTopic{{name: "r",
		parts: []wiPart{
			p(r(1, 2, 4, 3), 1, 1, 2, 3),    // adding 4, not in sync yet
			p(r(4, 5, 1, 2), 1, 1, 2, 4, 5), // target in sync, leader 1 is leaving
			p(r(4, 5, 1, 2), 4, 1, 2, 4, 5), // led by the target; 1, 2 still in the ISR
			p(r(4, 5, 1, 2), 4, 4, 5),       // 1, 2 out of the ISR
			p(r(1, 2, 3), 1, 1, 2, 3),       // replication factor raised, in sync
			p(r(1, 6, 2), 1, 1, 2),          // adding 6, which is down
			p(r(1, 2), 1, 1, 2),             // not reassigned
		},
		adding:   map[int][]int{0: {4}, 1: {4, 5}, 2: {4, 5}, 3: {4, 5}, 4: {3}, 5: {6}},
		removing: map[int][]int{0: {3}, 1: {1, 2}, 2: {1, 2}, 3: {1, 2}, 5: {2}},
	}, {name: "q", parts: []wiPart{p(r(1, 2), 1, 1, 2)}}}}
	z, m := c.build(t)
	apply(t, m, []NodeEvent{z.create(ReassignPartitionsPath, string(EncodeReassignPartitions([]PartitionReassignment{
		{Topic: "r", Partition: 0, Replicas: []int{1, 2, 4}}, {Topic: "q", Partition: 0, Replicas: []int{2, 5}}})))}, false)
	var got []string
	for _, rp := range Reassignments(m.Snapshot()) {
		got = append(got, fmt.Sprintf("%s-%d %s target %v catching up %v down %v znode %t", rp.Topic, rp.Partition, rp.Phase, rp.Target, rp.CatchingUp, rp.Down, rp.ViaZnode))
	}
	want := []string{
		"q-0 queued target [2 5] catching up [5] down [] znode true",
		"r-0 adding target [1 2 4] catching up [4] down [] znode true",
		"r-1 leader target [4 5] catching up [] down [] znode false",
		"r-2 in sync target [4 5] catching up [] down [] znode false",
		"r-3 removing target [4 5] catching up [] down [] znode false",
		"r-4 in sync target [1 2 3] catching up [] down [] znode false",
		"r-5 adding target [1 6] catching up [6] down [6] znode false",
	}
	if !slices.Equal(got, want) {
		t.Errorf("got:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
	if rs := ReassignStateOf(m.Snapshot().Topic("r").Partition(6)); rs.Phase != ReassignDone || !slices.Equal(rs.Target, []int{1, 2}) {
		t.Errorf("r-6: %+v", rs)
	}

	var rt AllReassignmentsTracker
	pr := rt.Observe(m.Snapshot())
	if pr.Total != 7 || pr.Done != 0 || pr.CatchingUp != 3 || pr.Adding != 9 || pr.Removing != 8 || pr.ViaZnode != 2 ||
		pr.ByPhase != [ReassignDone]int{1, 2, 1, 2, 1} || !pr.Active() {
		t.Fatalf("first: %+v", pr)
	}
	// r-4 finishes: the controller rewrites the topic znode without it.
	a := NewTopicAssignment(map[int][]int{0: {1, 2, 4, 3}, 1: {4, 5, 1, 2}, 2: {4, 5, 1, 2}, 3: {4, 5, 1, 2}, 4: {1, 2, 3}, 5: {1, 6, 2}, 6: {1, 2}}, "")
	a.AddingReplicas = map[int][]int{0: {4}, 1: {4, 5}, 2: {4, 5}, 3: {4, 5}, 5: {6}}
	a.RemovingReplicas = map[int][]int{0: {3}, 1: {1, 2}, 2: {1, 2}, 3: {1, 2}, 5: {2}}
	apply(t, m, []NodeEvent{z.set(TopicPath("r"), string(EncodeTopicAssignment(a)))}, false)
	if pr := rt.Observe(m.Snapshot()); pr.Total != 7 || pr.Done != 1 || len(pr.Partitions) != 6 {
		t.Fatalf("one done: %+v", pr)
	}
	// All done, the znode deleted: the last progress stays until the next.
	apply(t, m, []NodeEvent{z.set(TopicPath("r"), topicJSON(map[int][]int{0: {1, 2, 4}, 1: {4, 5}, 2: {4, 5}, 3: {4, 5}, 4: {1, 2, 3}, 5: {1, 6}, 6: {1, 2}})),
		z.del(ReassignPartitionsPath)}, false)
	for range 2 {
		if pr := rt.Observe(m.Snapshot()); pr.Total != 7 || pr.Done != 7 || pr.Active() {
			t.Fatalf("all done: %+v", pr)
		}
	}
	apply(t, m, []NodeEvent{z.create(ReassignPartitionsPath, string(EncodeReassignPartitions([]PartitionReassignment{{Topic: "q", Partition: 0, Replicas: []int{2, 5}}})))}, false)
	if pr := rt.Observe(m.Snapshot()); pr.Total != 1 || pr.Done != 0 || pr.ByPhase[ReassignQueued] != 1 {
		t.Fatalf("a new one: %+v", pr)
	}
}

// TestThrottlesLeftOver: throttles set while no reassignment runs are
// found on broker entities (ids in numeric order, <default> last) and
// topics; none while a reassignment is requested, or once removed.
func TestThrottlesLeftOver(t *testing.T) {
	c := wiCluster{controller: 1, topics: []wiTopic{{name: "a", parts: []wiPart{p(r(1, 2), 1, 1, 2)}}, {name: "b", parts: []wiPart{p(r(2, 3), 2, 2, 3)}}}}
	z, m := c.build(t)
	if l := ThrottlesLeftOver(m.Snapshot()); !l.Empty() {
		t.Fatalf("without throttles: %+v", l)
	}
	rate := `{"version":1,"config":{"leader.replication.throttled.rate":"1000","follower.replication.throttled.rate":"1000"}}`
	apply(t, m, []NodeEvent{
		z.create(BrokerConfigPath(10), rate), z.create(BrokerConfigPath(2), rate),
		z.create(EntityConfigPath(EntityBrokers, BrokerDefaultEntity), `{"version":1,"config":{"replica.alter.log.dirs.io.max.bytes.per.second":"1"}}`),
		z.create(BrokerConfigPath(3), `{"version":1,"config":{"min.insync.replicas":"2"}}`),
		z.create(TopicConfigPath("b"), `{"version":1,"config":{"leader.replication.throttled.replicas":"0:2,0:3","retention.ms":"1"}}`),
		z.create(TopicConfigPath("a"), `{"version":1,"config":{"retention.ms":"1"}}`),
	}, false)
	l := ThrottlesLeftOver(m.Snapshot())
	if !slices.Equal(l.Brokers, []string{"2", "10", BrokerDefaultEntity}) || !slices.Equal(l.Topics, []string{"b"}) {
		t.Fatalf("left: %+v", l)
	}
	apply(t, m, []NodeEvent{z.create(ReassignPartitionsPath, string(EncodeReassignPartitions([]PartitionReassignment{{Topic: "a", Partition: 0, Replicas: []int{1, 3}}})))}, false)
	if l := ThrottlesLeftOver(m.Snapshot()); !l.Empty() {
		t.Fatalf("during a reassignment: %+v", l)
	}
	apply(t, m, []NodeEvent{z.del(ReassignPartitionsPath), z.set(TopicConfigPath("b"), `{"version":1,"config":{"retention.ms":"1"}}`)}, false)
	if l := ThrottlesLeftOver(m.Snapshot()); len(l.Brokers) != 3 || len(l.Topics) != 0 {
		t.Fatalf("after the topic's were removed: %+v", l)
	}
}
