package clusterops

import (
	"fmt"
	"slices"
	"testing"

	"github.com/ktopo/ktopo/assign"
	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/internal/testkit/clustertest"
)

func TestCheckPlacement(t *testing.T) {
	z, m := clustertest.NewCluster(t) // brokers 1 (a), 2 (a), 3 (b)
	s := m.Snapshot()
	for _, tc := range []struct {
		p, rf int
		mode  cluster.RackAwareMode
		want  string
	}{
		{60000, 3, cluster.RackAwareEnforced, ""},
		{200000, 1, cluster.RackAwareEnforced, "200000 partitions cannot fit in a topic znode: Kafka's ZooKeeper clients read at most 1048575 bytes per znode (jute.maxbuffer), room for fewer than 174762 partitions"},
		{0, 3, cluster.RackAwareEnforced, "Number of partitions must be larger than 0."},
		{-1, 0, cluster.RackAwareEnforced, "Number of partitions must be larger than 0."},
		{1, 0, cluster.RackAwareEnforced, "Replication factor must be larger than 0."},
		{1, 4, cluster.RackAwareEnforced, "Replication factor: 4 larger than available brokers: 3."},
	} {
		err := CheckPlacement(s, tc.p, tc.rf, tc.mode)
		if got := fmt.Sprint(err); (tc.want == "" && err != nil) || (tc.want != "" && got != tc.want) {
			t.Errorf("%d×%d: %v, want %q", tc.p, tc.rf, err, tc.want)
		}
		// The same checks, in the same order, as the full plan.
		_, perr := PlanTopic(s, TopicRequest{Name: "x", Partitions: tc.p, ReplicationFactor: tc.rf, StartIndex: 0, ReplicaShift: -1})
		if fmt.Sprint(err) != fmt.Sprint(perr) {
			t.Errorf("%d×%d: CheckPlacement %v, PlanTopic %v", tc.p, tc.rf, err, perr)
		}
	}
	// The encoded assignment must fit too: 100,000 partitions of RF 3 pass
	// the count bound but not the size.
	_, err := PlanTopic(s, TopicRequest{Name: "x", Partitions: 100000, ReplicationFactor: 3, StartIndex: 0, ReplicaShift: -1})
	if want := "Topic 'x' cannot be created: its assignment is 1588962 bytes of JSON, and Kafka's ZooKeeper clients read at most 1048511 bytes per znode (jute.maxbuffer); with replication factor 3 about 65988 partitions fit"; fmt.Sprint(err) != want {
		t.Errorf("100000×3: %v\nwant %s", err, want)
	}
	// A broker without a rack: Enforced fails as AdminZkClient does.
	m.Apply([]cluster.NodeEvent{z.Create(cluster.BrokerIDPath(4), clustertest.BrokerJSON(4, ""))}, false)
	s = m.Snapshot()
	if err := CheckPlacement(s, 3, 3, cluster.RackAwareEnforced); err == nil || err.Error() != cluster.MessageNotAllBrokersHaveRack {
		t.Fatalf("partial racks: %v", err)
	}
	if err := CheckPlacement(s, 3, 3, cluster.RackAwareDisabled); err != nil {
		t.Fatal(err)
	}
}

func TestSamePlanAndWarnings(t *testing.T) {
	z, m := clustertest.NewCluster(t)
	s := m.Snapshot()
	req := TopicRequest{Name: "t", Partitions: 6, ReplicationFactor: 2, StartIndex: 1, ReplicaShift: 2}
	a, err := PlanTopic(s, req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := PlanTopic(s, req)
	if !SamePlan(a, b) || SamePlan(a, nil) || !SamePlan(nil, nil) {
		t.Fatal("same request, same plan")
	}
	req.StartIndex = 2
	c, _ := PlanTopic(s, req)
	if SamePlan(a, c) {
		t.Fatal("another start index, another plan")
	}
	req.StartIndex, req.Config = 1, map[string]string{"retention.ms": "1"}
	d, _ := PlanTopic(s, req)
	if SamePlan(a, d) {
		t.Fatal("another config, another plan")
	}

	// Racks a (brokers 1, 2) and b (3): RF 2 spans both; broker 3 carries
	// more replicas than 1 and 2.
	w := PlanWarnings(s, a, PlanStats(a))
	if !slices.Contains(w, "replicas are not spread evenly over the brokers") {
		t.Fatalf("warnings %q", w)
	}
	// An offline broker and no controller.
	m.Apply([]cluster.NodeEvent{z.Del(cluster.BrokerIDPath(3)), z.Del(cluster.ControllerPath)}, false)
	s = m.Snapshot()
	w = PlanWarnings(s, a, PlanStats(a))
	for _, want := range []string{"broker 3 is offline (not registered) and receives no replica",
		"no active controller: the topic is written, but no partition comes online until a controller is elected"} {
		if !slices.Contains(w, want) {
			t.Errorf("missing %q in %q", want, w)
		}
	}
	// A manual assignment on unregistered brokers.
	man, err := PlanTopic(s, TopicRequest{Name: "m", Assignment: assign.Assignment{0: {1, 7}, 1: {8, 9}}})
	if err != nil {
		t.Fatal(err)
	}
	w = PlanWarnings(s, man, PlanStats(man))
	if !slices.Contains(w, "replicas on brokers 7, 8, 9 that are not registered: partition 1 stays offline until one of its brokers registers") {
		t.Fatalf("manual: %q", w)
	}
}
