package cluster

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestLeaderBalance: the automatic rebalance's counts (spec §4.11):
// partitions with another leader or none count against their preferred
// broker, above 10 % (strictly) it acts on those it leads' ISR holds,
// topics being deleted are left out.
func TestLeaderBalance(t *testing.T) {
	tenth := make([]wiPart, 10) // broker 4 prefers 10, one led by 5: 10 %, not above
	for i := range tenth {
		tenth[i] = p(r(4, 5), 4, 4, 5)
	}
	tenth[3].leader = 5
	s := wiCluster{controller: 3, dead: []int{6}, topics: []wiTopic{
		{name: "a", parts: []wiPart{p(r(1, 2), 1, 1, 2), p(r(1, 2), 2, 2, 1), p(r(1, 3), 3, 3), p(r(2, 1), 2, 2, 1), p(r(6, 5), -1, 6)}},
		{name: "b", marked: true, parts: []wiPart{p(r(1, 2), 2, 2, 1), p(r(2, 1), 1, 1, 2)}},
		{name: "c", parts: tenth},
	}}.snapshot(t)
	var got []string
	for _, b := range LeaderBalance(s) {
		got = append(got, fmt.Sprintf("%d: %d/%d not led, %d movable, %d%%, rebalance %t", b.Broker, b.NotLed, b.Preferred, b.Movable, b.Percent(), b.WouldRebalance()))
	}
	want := []string{
		"1: 2/3 not led, 1 movable, 66%, rebalance true",
		"2: 0/1 not led, 0 movable, 0%, rebalance false",
		"4: 1/10 not led, 1 movable, 10%, rebalance false",
		"6: 1/1 not led, 0 movable, 100%, rebalance false", // down: nothing to move back
	}
	if !slices.Equal(got, want) {
		t.Errorf("got:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}

// TestBalanceTracker: a tracker gives what LeaderBalance gives, counting
// unchanged topics from memory.
func TestBalanceTracker(t *testing.T) {
	z, m := newCluster(t) // orders 0:[1,2,3] led 1, 1:[2,3,1] led 2
	var bt BalanceTracker
	first := bt.Balance(m.Snapshot())
	if len(first) != 2 || first[0].NotLed != 0 || first[1].NotLed != 0 {
		t.Fatalf("%+v", first)
	}
	apply(t, m, []NodeEvent{z.set(PartitionStatePath("orders", 0), stateJSON(1, 2, 1, 2, 3, 1))}, false)
	got := bt.Balance(m.Snapshot())
	if !slices.Equal(got, LeaderBalance(m.Snapshot())) || got[0] != (BrokerBalance{Broker: 1, Preferred: 1, NotLed: 1, Movable: 1}) {
		t.Fatalf("%+v", got)
	}
	if len(bt.contrib.topics) != 1 {
		t.Errorf("tracking %d topics", len(bt.contrib.topics))
	}
	// A new topic, a deletion marker, a topic gone: summed again, and
	// still what LeaderBalance says.
	apply(t, m, []NodeEvent{z.create(TopicPath("audit"), topicJSON(map[int][]int{0: {3, 1}, 1: {1, 3}})),
		z.create(PartitionStatePath("audit", 0), stateJSON(1, 1, 0, 1, 3))}, false)
	if got := bt.Balance(m.Snapshot()); !slices.Equal(got, LeaderBalance(m.Snapshot())) || len(got) != 3 {
		t.Fatalf("new topic: %+v, want %+v", got, LeaderBalance(m.Snapshot()))
	}
	apply(t, m, []NodeEvent{z.create(DeleteTopicPath("orders"), "")}, false)
	if got := bt.Balance(m.Snapshot()); !slices.Equal(got, LeaderBalance(m.Snapshot())) {
		t.Fatalf("marked: %+v, want %+v", got, LeaderBalance(m.Snapshot()))
	}
	apply(t, m, []NodeEvent{z.set(PartitionStatePath("audit", 0), stateJSON(1, 3, 1, 3, 1))}, false)
	if got := bt.Balance(m.Snapshot()); !slices.Equal(got, LeaderBalance(m.Snapshot())) {
		t.Fatalf("changed: %+v, want %+v", got, LeaderBalance(m.Snapshot()))
	}
}
