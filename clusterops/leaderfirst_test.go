package clusterops

import (
	"fmt"
	"slices"
	"testing"

	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/internal/testkit/clustertest"
)

// leaderCluster is newCluster's brokers 1, 2, 3 with topic "lf" whose
// partitions broker 3 leads (but 4): 0:[3,1,2] in sync (3 is preferred:
// reorder), 1:[1,3,2] in sync (an election alone), 2:[3,2] ISR [3] (no
// other in-sync replica: cannot), 3:[1,3,2] ISR [3,2] (the preferred 1 out
// of the ISR: reorder to 2), 4:[2,3] led by 2 (not the broker's).
func leaderCluster(t *testing.T) (*clustertest.FakeZK, *cluster.Model) {
	t.Helper()
	z, m := clustertest.NewCluster(t)
	evs := []cluster.NodeEvent{
		z.Create(cluster.TopicPath("lf"), clustertest.TopicJSON(map[int][]int{0: {3, 1, 2}, 1: {1, 3, 2}, 2: {3, 2}, 3: {1, 3, 2}, 4: {2, 3}})),
		z.Create(cluster.PartitionStatePath("lf", 0), clustertest.StateJSON(1, 3, 0, 3, 1, 2)),
		z.Create(cluster.PartitionStatePath("lf", 1), clustertest.StateJSON(1, 3, 0, 1, 3, 2)),
		z.Create(cluster.PartitionStatePath("lf", 2), clustertest.StateJSON(1, 3, 0, 3)),
		z.Create(cluster.PartitionStatePath("lf", 3), clustertest.StateJSON(1, 3, 0, 3, 2)),
		z.Create(cluster.PartitionStatePath("lf", 4), clustertest.StateJSON(1, 2, 0, 2, 3)),
	}
	clustertest.Apply(t, m, evs, false)
	return z, m
}

func TestPlanLeadershipFirst(t *testing.T) {
	z, m := leaderCluster(t)
	s := m.Snapshot()
	tp := func(p int) cluster.TopicPartition { return cluster.TopicPartition{Topic: "lf", Partition: p} }
	// The drain's targets: 0 keeps 1 and 2 with 2 first, 3 keeps 1 then 2.
	moves := []PartitionMove{
		{TopicPartition: tp(0), Current: []int{3, 1, 2}, Target: []int{2, 1}},
		{TopicPartition: tp(1), Current: []int{1, 3, 2}, Target: []int{1, 2}},
		{TopicPartition: tp(2), Current: []int{3, 2}, Target: []int{2, 1}},
		{TopicPartition: tp(3), Current: []int{1, 3, 2}, Target: []int{1, 2}},
		{TopicPartition: tp(4), Current: []int{2, 3}, Target: []int{2, 1}},
	}
	l := PlanLeadershipFirst(s, 3, moves)
	got := ""
	for _, lm := range l.Moves {
		got += fmt.Sprintf("%s→%d%v ", lm.String(), lm.To, lm.Reorder)
	}
	if want := "lf-0→2[2 1 3] lf-1→1[] lf-3→2[2 1 3] "; got != want {
		t.Fatalf("moves %q, want %q", got, want)
	}
	if cluster.JoinPartitions(l.Cannot, ",") != "lf-2" || cluster.JoinPartitions(l.Elect, ",") != "lf-0,lf-1,lf-3" {
		t.Fatalf("cannot %v elect %v", l.Cannot, l.Elect)
	}
	if len(l.Reorder) != 2 || l.Reorder[0].TopicPartition != tp(0) || !slices.Equal(l.Reorder[0].Replicas, []int{2, 1, 3}) || l.Reorder[1].TopicPartition != tp(3) {
		t.Fatalf("reorder %+v", l.Reorder)
	}
	if to := l.To(); to[1] != 1 || to[2] != 2 || len(to) != 2 {
		t.Fatalf("to %v", to)
	}
	if ep := l.ElectionPlan(s); string(ep.JSON) != `{"version":1,"partitions":[{"topic":"lf","partition":0},{"topic":"lf","partition":1},{"topic":"lf","partition":3}]}` || ep.Controller != 1 {
		t.Fatalf("election %s controller %d", ep.JSON, ep.Controller)
	}
	if !l.Same(PlanLeadershipFirst(s, 3, moves)) || l.Same(PlanLeadershipFirst(s, 1, moves)) || l.MovedOff(s) != 0 || l.Reordered(s) {
		t.Fatal("same, moved off or reordered on the plan's own snapshot")
	}
	// The reorder only reorders: no replica added or dropped.
	for _, lm := range l.Moves {
		if lm.Reorder != nil && !slices.Equal(slices.Sorted(slices.Values(lm.Reorder)), slices.Sorted(slices.Values(lm.Replicas))) {
			t.Fatalf("%s reorder %v of %v", lm.String(), lm.Reorder, lm.Replicas)
		}
	}
	// The controller completes the reorder at once, then elects.
	clustertest.Apply(t, m, []cluster.NodeEvent{z.Set(cluster.TopicPath("lf"), clustertest.TopicJSON(map[int][]int{0: {2, 1, 3}, 1: {1, 3, 2}, 2: {3, 2}, 3: {2, 1, 3}, 4: {2, 3}}))}, false)
	s = m.Snapshot()
	if !l.Reordered(s) || l.MovedOff(s) != 0 {
		t.Fatal("reorder not seen")
	}
	if ep, err := PlanPreferredElection(s, ElectionRequest{Partitions: l.Elect}); err != nil || len(ep.Write) != 3 || ep.Count(ElectionWillMove) != 3 {
		t.Fatalf("election after the reorder: %v %+v", err, ep)
	}
	clustertest.Apply(t, m, []cluster.NodeEvent{
		z.Set(cluster.PartitionStatePath("lf", 0), clustertest.StateJSON(1, 2, 1, 3, 1, 2)),
		z.Set(cluster.PartitionStatePath("lf", 1), clustertest.StateJSON(1, 1, 1, 1, 3, 2)),
		z.Set(cluster.PartitionStatePath("lf", 3), clustertest.StateJSON(1, 2, 1, 3, 2)),
	}, false)
	s = m.Snapshot()
	if l.MovedOff(s) != 3 {
		t.Fatalf("moved off %d", l.MovedOff(s))
	}
	// The drain's moves re-planned on it: the reordered partitions keep
	// their targets from the new order; one changed otherwise is stale.
	out, stale := RebaseMoves(s, moves, l)
	if len(stale) != 0 || len(out) != 5 || !slices.Equal(out[0].Current, []int{2, 1, 3}) || !slices.Equal(out[0].Target, []int{2, 1}) ||
		!slices.Equal(out[3].Current, []int{2, 1, 3}) || !slices.Equal(out[1].Current, []int{1, 3, 2}) {
		t.Fatalf("rebased %+v stale %v", out, stale)
	}
	clustertest.Apply(t, m, []cluster.NodeEvent{z.Set(cluster.TopicPath("lf"), clustertest.TopicJSON(map[int][]int{0: {1, 2, 3}, 1: {1, 3, 2}, 2: {3, 2}, 3: {2, 1, 3}, 4: {2, 3}}))}, false)
	if _, stale := RebaseMoves(m.Snapshot(), moves, l); cluster.JoinPartitions(stale, ",") != "lf-0" {
		t.Fatalf("stale %v", stale)
	}
	if PlanLeadershipFirst(m.Snapshot(), 1, nil).Empty() {
		t.Fatal("broker 1 leads orders-0 and lf-1")
	}
}
