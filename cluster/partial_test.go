package cluster

import "testing"

// TestModelPartialLoad: while a load is under way (SetLoading) snapshots
// are partial: brokers and the controller as read, the topics read in
// full, the half-read ones counted, never shown with partitions missing
// their state; health counts only the topics shown. The reset ends it.
func TestModelPartialLoad(t *testing.T) {
	z := newFakeZK()
	m := NewModel(ModelOptions{})
	m.SetLoading(true)
	m.SetQuiet(true)
	evs := []NodeEvent{
		z.create(ControllerEpochPath, "1"),
		z.create(ControllerPath, string(EncodeController(NewControllerInfo(2, 1, 1)))),
		z.create(BrokerIDPath(1), brokerJSON(1, "a")),
		z.create(BrokerIDPath(2), brokerJSON(2, "b")),
		z.create(TopicPath("orders"), topicJSON(map[int][]int{0: {1, 2}, 1: {2, 1}})),
		z.create(PartitionStatePath("orders", 0), stateJSON(1, 1, 0, 1, 2)),
		z.create(TopicPath("audit"), topicJSON(map[int][]int{0: {1, 2}})),
		z.create(PartitionStatePath("audit", 0), stateJSON(1, 1, 0, 1)),
	}
	if cs := m.Apply(evs, false); cs != nil {
		t.Fatalf("quiet model recorded %d changes", len(cs))
	}
	s := m.Snapshot()
	if !s.Partial() || s.LoadingTopics() != 1 || len(s.Topics()) != 1 || s.Topics()[0].Name != "audit" {
		t.Fatalf("partial %v, loading %d, topics %d", s.Partial(), s.LoadingTopics(), len(s.Topics()))
	}
	if s.Controller().BrokerID != 1 || len(s.Brokers()) != 2 || !s.IsLive(2) {
		t.Fatalf("controller %+v, brokers %+v", s.Controller(), s.Brokers())
	}
	// Only audit's partition counts: under-replicated, and no partition
	// of orders is "uninitialised" or offline.
	if h := s.Health(); h.Partitions != 1 || h.UnderReplicated != 1 || h.Uninitialized != 0 || h.Offline != 0 {
		t.Fatalf("health %+v", h)
	}
	m.Apply([]NodeEvent{z.create(PartitionStatePath("orders", 1), stateJSON(1, 2, 0, 2, 1))}, false)
	s = m.Snapshot()
	if !s.Partial() || s.LoadingTopics() != 0 || len(s.Topics()) != 2 || s.Health().Partitions != 3 {
		t.Fatalf("partial %v, loading %d, topics %d, health %+v", s.Partial(), s.LoadingTopics(), len(s.Topics()), s.Health())
	}
	// The load's reset: complete, and a topic without state now shows as
	// it is.
	z.create(TopicPath("new"), topicJSON(map[int][]int{0: {1, 2}}))
	m.SetQuiet(false)
	apply(t, m, z.all(), true)
	s = m.Snapshot()
	if s.Partial() || s.LoadingTopics() != 0 || len(s.Topics()) != 3 || s.Health().Uninitialized != 1 {
		t.Fatalf("after the reset: partial %v, loading %d, topics %d, health %+v", s.Partial(), s.LoadingTopics(), len(s.Topics()), s.Health())
	}
	// Changes are recorded again.
	if cs := m.Apply([]NodeEvent{z.set(PartitionStatePath("orders", 1), stateJSON(1, 1, 1, 2, 1))}, false); len(cs) == 0 {
		t.Fatal("no changes after SetQuiet(false)")
	}
}
