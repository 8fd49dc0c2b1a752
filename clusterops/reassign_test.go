package clusterops

import (
	"slices"
	"strings"
	"testing"

	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/internal/testkit/clustertest"
)

// TestReassignTracker walks a partition through the controller's steps
// as ZooKeeper shows them, and a partition whose target is its current
// assignment (done only once the controller rewrote the topic znode and
// dropped it from the request).
func TestReassignTracker(t *testing.T) {
	m := cluster.NewModel(cluster.ModelOptions{})
	zx := int64(0)
	apply := func(evs ...cluster.NodeEvent) *cluster.Snapshot {
		for i := range evs {
			zx++
			evs[i].Stat.Mzxid, evs[i].Stat.Czxid = zx, 1
		}
		m.Apply(evs, false)
		return m.Snapshot()
	}
	topic := func(version int32, parts map[int][]int, adding, removing map[int][]int) cluster.NodeEvent {
		a := cluster.NewTopicAssignment(parts, "")
		if adding != nil {
			a.AddingReplicas, a.RemovingReplicas = adding, removing
		}
		return cluster.NodeEvent{Type: cluster.NodeChanged, Path: cluster.TopicPath("t"), Data: cluster.EncodeTopicAssignment(a), Stat: cluster.Stat{Version: version}}
	}
	state := func(p, leader, epoch int, isr ...int) cluster.NodeEvent {
		return cluster.NodeEvent{Type: cluster.NodeChanged, Path: cluster.PartitionStatePath("t", p),
			Data: cluster.EncodePartitionState(cluster.PartitionState{ControllerEpoch: 1, Leader: leader, LeaderEpoch: epoch, ISR: isr})}
	}
	for _, id := range []int{1, 2, 3} {
		apply(cluster.NodeEvent{Type: cluster.NodeCreated, Path: cluster.BrokerIDPath(id), Data: []byte(clustertest.BrokerJSON(id, "r"))})
	}
	apply(cluster.NodeEvent{Type: cluster.NodeCreated, Path: cluster.ControllerPath, Data: cluster.EncodeController(cluster.NewControllerInfo(2, 1, 1))})
	apply(topic(0, map[int][]int{0: {1, 2}, 1: {2, 3}}, nil, nil), state(0, 1, 0, 1, 2), state(1, 2, 0, 2, 3))
	moves := []PartitionMove{
		{TopicPartition: cluster.TopicPartition{Topic: "t", Partition: 0}, Current: []int{1, 2}, Target: []int{2, 3}},
		{TopicPartition: cluster.TopicPartition{Topic: "t", Partition: 1}, Current: []int{2, 3}, Target: []int{2, 3}},
	}
	tr := NewReassignTracker(moves, map[string]int32{"t": 0})
	request := cluster.NodeEvent{Type: cluster.NodeCreated, Path: cluster.ReassignPartitionsPath, Data: cluster.EncodeReassignPartitions([]cluster.PartitionReassignment{
		{Topic: "t", Partition: 0, Replicas: []int{2, 3}}, {Topic: "t", Partition: 1, Replicas: []int{2, 3}}})}
	steps := []struct {
		what  string
		evs   []cluster.NodeEvent
		want  [2]cluster.ReassignPhase
		first string
	}{
		{"before the request shows", nil, [2]cluster.ReassignPhase{cluster.ReassignQueued, cluster.ReassignRemoving}, "t-0: requested (replicas [1,2] → [2,3])"},
		{"the request", []cluster.NodeEvent{request}, [2]cluster.ReassignPhase{cluster.ReassignQueued, cluster.ReassignRemoving}, ""},
		{"U1", []cluster.NodeEvent{topic(1, map[int][]int{0: {2, 3, 1}, 1: {2, 3}}, map[int][]int{0: {3}}, map[int][]int{0: {1}})},
			[2]cluster.ReassignPhase{cluster.ReassignAdding, cluster.ReassignRemoving}, "t-0: adding [3] (1 of 2 target replicas in sync, isr [1,2])"},
		{"A1 and 3 joins", []cluster.NodeEvent{state(0, 1, 1, 1, 2), state(0, 1, 1, 1, 2, 3)},
			[2]cluster.ReassignPhase{cluster.ReassignLeader, cluster.ReassignRemoving}, "t-0: caught up (isr [1,2,3]), leader 1 to move into [2,3]"},
		{"Reassign election", []cluster.NodeEvent{state(0, 2, 2, 1, 2, 3)}, [2]cluster.ReassignPhase{cluster.ReassignInSync, cluster.ReassignRemoving}, "t-0: removing [1] (leader 2, isr [1,2,3])"},
		{"1 leaves, B6", []cluster.NodeEvent{state(0, 2, 3, 2, 3), topic(2, map[int][]int{0: {2, 3}, 1: {2, 3}}, nil, nil)},
			[2]cluster.ReassignPhase{cluster.ReassignRemoving, cluster.ReassignRemoving}, ""},
		{"dropped from the request", []cluster.NodeEvent{{Type: cluster.NodeDeleted, Path: cluster.ReassignPartitionsPath}},
			[2]cluster.ReassignPhase{cluster.ReassignDone, cluster.ReassignDone}, "t-0: done (replicas [2,3], leader 2, isr [2,3])"},
	}
	for _, st := range steps {
		pr := tr.Update(apply(st.evs...))
		got := [2]cluster.ReassignPhase{pr.Partitions[0].Phase, pr.Partitions[1].Phase}
		if got != st.want {
			t.Errorf("%s: phases %v, want %v", st.what, got, st.want)
		}
		if st.first != "" && pr.Partitions[0].Describe() != st.first {
			t.Errorf("%s: %q, want %q", st.what, pr.Partitions[0].Describe(), st.first)
		}
		if pr.Done() != (st.want == [2]cluster.ReassignPhase{cluster.ReassignDone, cluster.ReassignDone}) {
			t.Errorf("%s: Done %v", st.what, pr.Done())
		}
	}
	// Without a controller, the progress says so.
	apply(cluster.NodeEvent{Type: cluster.NodeDeleted, Path: cluster.ControllerPath})
	tr = NewReassignTracker([]PartitionMove{{TopicPartition: cluster.TopicPartition{Topic: "t", Partition: 0}, Current: []int{2, 3}, Target: []int{1, 9}}}, nil)
	pr := tr.Update(apply(request))
	if !slices.ContainsFunc(pr.Waiting, func(w string) bool {
		return w == "no active controller: /controller is absent, so no broker carries the reassignment out"
	}) {
		t.Errorf("waiting: %q", pr.Waiting)
	}
	// On a KRaft cluster: the quorum without a leader, in its words; a
	// quorum that could not be read says nothing of a controller it does
	// not know.
	m.SetKRaft(&cluster.KRaft{Quorum: cluster.Quorum{LeaderID: -1}})
	pr = tr.Update(apply())
	if !slices.Contains(pr.Waiting, "no active controller: the metadata quorum has no leader, so no controller carries the reassignment out") {
		t.Errorf("KRaft, no quorum leader: %q", pr.Waiting)
	}
	m.SetKRaft(&cluster.KRaft{Quorum: cluster.Quorum{LeaderID: -1}, QuorumErr: cluster.NoAccessText})
	pr = tr.Update(apply())
	if slices.ContainsFunc(pr.Waiting, func(w string) bool { return strings.Contains(w, "controller") }) {
		t.Errorf("KRaft, the quorum unread: %q", pr.Waiting)
	}
}

// TestKRaftNoOpMoveIsDone: on a KRaft cluster a move to the replicas a
// partition already has makes the controller write nothing (no version
// moves), so the plan keeps no versions and the tracker says done at
// once, instead of waiting for ever (it hung ktopo reassign --execute).
func TestKRaftNoOpMoveIsDone(t *testing.T) {
	m := cluster.NewModel(cluster.ModelOptions{})
	var evs []cluster.NodeEvent
	for _, id := range []int{1, 2, 3} {
		evs = append(evs, cluster.NodeEvent{Type: cluster.NodeCreated, Path: cluster.BrokerIDPath(id), Data: []byte(clustertest.BrokerJSON(id, "r"))})
	}
	evs = append(evs, cluster.NodeEvent{Type: cluster.NodeCreated, Path: cluster.TopicPath("t"),
		Data: cluster.EncodeTopicAssignment(cluster.NewTopicAssignment(map[int][]int{0: {1, 2}}, "")), Stat: cluster.Stat{Version: 4}},
		cluster.NodeEvent{Type: cluster.NodeCreated, Path: cluster.PartitionStatePath("t", 0),
			Data: cluster.EncodePartitionState(cluster.PartitionState{ControllerEpoch: 1, Leader: 1, LeaderEpoch: 0, ISR: []int{1, 2}})})
	for i := range evs {
		evs[i].Stat.Mzxid, evs[i].Stat.Czxid = int64(i+1), int64(i+1)
	}
	m.Apply(evs, false)
	m.SetKRaft(&cluster.KRaft{Quorum: cluster.Quorum{LeaderID: 3000, LeaderEpoch: 1}})
	s := m.Snapshot()
	plan, err := CheckReassignment(s, []cluster.Reassignment{{TopicPartition: cluster.TopicPartition{Topic: "t", Partition: 0}, Replicas: []int{1, 2}}}, -1)
	if err != nil {
		t.Fatal(err)
	}
	if plan.TopicVersions != nil {
		t.Errorf("a KRaft plan keeps versions: %v", plan.TopicVersions)
	}
	pr := NewReassignTracker(plan.Moves, plan.TopicVersions).Update(s)
	if len(pr.Partitions) != 1 || pr.Partitions[0].Phase != cluster.ReassignDone {
		t.Errorf("a move that changes nothing: %+v", pr.Partitions)
	}
}

// TestReassignThrottles: Kafka's tool's throttle lists and brokers for a
// plan (the values TestRealKafkaReassign compares with the tool's).
func TestReassignThrottles(t *testing.T) {
	moves := []PartitionMove{
		{TopicPartition: cluster.TopicPartition{Topic: "a", Partition: 0}, Current: []int{1, 2}, Target: []int{2, 3}},
		{TopicPartition: cluster.TopicPartition{Topic: "a", Partition: 10}, Current: []int{2, 3}, Target: []int{3, 1, 2}},
		{TopicPartition: cluster.TopicPartition{Topic: "a", Partition: 2}, Current: []int{3, 1}, Target: []int{1, 3}},
		{TopicPartition: cluster.TopicPartition{Topic: "b", Partition: 0}, Current: []int{4}, Target: []int{4}},
	}
	th, brokers := reassignThrottles(moves)
	want := []TopicThrottle{
		// Strings in TreeSet order: "10:1" sorts before "2:1".
		{Topic: "a", Leader: "0:1,0:2,10:2,10:3,2:1,2:3", Follower: "0:3,10:1"},
		// A partition that does not move still throttles its leader; its
		// follower list is empty, and written so.
		{Topic: "b", Leader: "0:4", Follower: ""},
	}
	if !slices.Equal(th, want) || !slices.Equal(brokers, []int{1, 2, 3, 4}) {
		t.Errorf("throttles %+v brokers %v", th, brokers)
	}
}

func TestJavaHashSetOrder(t *testing.T) {
	// Small non-negative ints iterate ascending; 16 and 0 share a bucket
	// of the 16-slot table (insertion order within it).
	if got := javaHashSetOrder([]int{3, 16, 1, 0, 2}, javaIntHash); !slices.Equal(got, []int{16, 0, 1, 2, 3}) {
		t.Errorf("ints: %v", got)
	}
	// "b" (98) and "a" (97): buckets 2 and 1.
	if got := javaHashSetOrder([]string{"b", "a"}, javaStringHash); !slices.Equal(got, []string{"a", "b"}) {
		t.Errorf("strings: %v", got)
	}
	if javaStringHash("orders") != -1008770331 {
		t.Errorf(`"orders".hashCode() = %d`, javaStringHash("orders"))
	}
}

// TestCheckAdditionalReassignment: with reassignments in progress, --execute
// is refused with Kafka's message and --additional is not; a partition of
// the file among them starts from the replicas it had before and names
// the target it replaces; the throttles cover the other one too, as Kafka's
// calculateProposedMoveMap does.
func TestCheckAdditionalReassignment(t *testing.T) {
	m := cluster.NewModel(cluster.ModelOptions{})
	zx := int64(0)
	apply := func(evs ...cluster.NodeEvent) {
		for i := range evs {
			zx++
			evs[i].Stat.Mzxid, evs[i].Stat.Czxid = zx, 1
		}
		m.Apply(evs, false)
	}
	for _, id := range []int{1, 2, 3, 4} {
		apply(cluster.NodeEvent{Type: cluster.NodeCreated, Path: cluster.BrokerIDPath(id), Data: []byte(clustertest.BrokerJSON(id, "r"))})
	}
	// t-0 moves from [1,2] to [1,3] (replicas [1,3,2], adding 3, removing
	// 2), t-1 from [2,3] to [2,4]; t-2 stays on [3,1].
	a := cluster.NewTopicAssignment(map[int][]int{0: {1, 3, 2}, 1: {2, 4, 3}, 2: {3, 1}}, "")
	a.AddingReplicas, a.RemovingReplicas = map[int][]int{0: {3}, 1: {4}}, map[int][]int{0: {2}, 1: {3}}
	apply(cluster.NodeEvent{Type: cluster.NodeCreated, Path: cluster.TopicPath("t"), Data: cluster.EncodeTopicAssignment(a)})
	s := m.Snapshot()
	rs := []cluster.Reassignment{
		{TopicPartition: cluster.TopicPartition{Topic: "t", Partition: 0}, Replicas: []int{1, 4}},
		{TopicPartition: cluster.TopicPartition{Topic: "t", Partition: 2}, Replicas: []int{3, 2}},
	}
	if _, err := CheckReassignment(s, rs, 1000); err == nil || !strings.Contains(err.Error(), MessageReassignmentExists) {
		t.Fatalf("without --additional: %v", err)
	}
	p, err := CheckAdditionalReassignment(s, rs, 1000)
	if err != nil {
		t.Fatal(err)
	}
	if mv := p.Moves[0]; !slices.Equal(mv.Current, []int{1, 2}) || !slices.Equal(mv.Replaces, []int{1, 3}) || !slices.Equal(mv.Adding(), []int{4}) {
		t.Errorf("t-0: %+v, want from [1,2] to [1,4], replacing [1,3]", mv)
	}
	if mv := p.Moves[1]; !slices.Equal(mv.Current, []int{3, 1}) || mv.Replaces != nil {
		t.Errorf("t-2: %+v, want from [3,1], replacing nothing", mv)
	}
	// Leaders: every source replica (t-0's [1,2], t-1's [2,3], t-2's
	// [3,1]); followers: what each adds (t-0: 4, t-1: 4, t-2: 2).
	want := []TopicThrottle{{Topic: "t", Leader: "0:1,0:2,1:2,1:3,2:1,2:3", Follower: "0:4,1:4,2:2"}}
	if !slices.Equal(p.TopicThrottles, want) || !slices.Equal(p.ThrottledBrokers, []int{1, 2, 3, 4}) {
		t.Errorf("throttles %+v brokers %v, want %+v and 1-4", p.TopicThrottles, p.ThrottledBrokers, want)
	}
}
