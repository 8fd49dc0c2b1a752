package cluster

import (
	"slices"
	"testing"
)

// TestModelNoAccess: znodes the session may not read are recorded as such,
// not as invalid (no znode_invalid, no Errors) and not as missing: the topic
// stays with its partitions from the assignment, the broker stays
// registered; readable again, they are cleared; a reset forgets them.
func TestModelNoAccess(t *testing.T) {
	z, m := newCluster(t)
	denied := func(path string, a Access) NodeEvent {
		return NodeEvent{Type: NodeChanged, Path: path, Stat: z.nodes[path].stat, Denied: a}
	}
	cs := apply(t, m, []NodeEvent{
		denied(TopicConfigPath("orders"), NoData),
		denied(PartitionStatePath("orders", 1), NoData),
		denied(BrokerIDPath(3), NoData),
		{Type: NodeCreated, Path: BrokerTopicsPath, Denied: NoChildren},
	}, false)
	for _, c := range cs {
		if c.Kind == ChangeZNodeInvalid {
			t.Errorf("a znode that may not be read is reported invalid: %v", c)
		}
	}
	s := m.Snapshot()
	want := []string{BrokerIDPath(3), BrokerTopicsPath, TopicConfigPath("orders"), PartitionStatePath("orders", 1)}
	slices.Sort(want)
	if got := s.NoAccess(); !slices.Equal(got, want) || len(s.Errors()) != 0 {
		t.Fatalf("no access %q (errors %v), want %q", got, s.Errors(), want)
	}
	if s.Access(BrokerTopicsPath) != NoChildren || s.Access(TopicPath("orders")) != 0 {
		t.Errorf("access: %v %v", s.Access(BrokerTopicsPath), s.Access(TopicPath("orders")))
	}
	topic := s.Topic("orders")
	if topic == nil || len(topic.Partitions) != 2 {
		t.Fatalf("orders: %+v", topic)
	}
	if got := s.TopicAccess(topic); !slices.Equal(got, []string{TopicConfigPath("orders"), PartitionStatePath("orders", 1)}) {
		t.Errorf("topic access %q", got)
	}
	if !s.IsLive(3) {
		t.Error("broker 3, whose registration may not be read, is not registered")
	}

	// Readable again: cleared.
	z.tick()
	cs = apply(t, m, []NodeEvent{z.set(BrokerIDPath(3), brokerJSON(3, "b"))}, false)
	if got := m.Snapshot().NoAccess(); slices.Contains(got, BrokerIDPath(3)) {
		t.Errorf("after a readable read: %q (%v)", got, cs)
	}
	// A reset is a complete picture: what it does not mark is readable.
	apply(t, m, z.all(), true)
	if got := m.Snapshot().NoAccess(); len(got) != 0 {
		t.Errorf("after a reset: %q", got)
	}
}
