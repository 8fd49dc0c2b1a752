package cluster

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/ktopo/ktopo/internal/text"
)

// wiPart is a partition of a what-if case: replicas, then the state.
type wiPart struct {
	replicas    []int
	leader      int
	isr         []int
	recovering  bool
	leaderEpoch int
}

type wiTopic struct {
	name   string
	config map[string]string
	marked bool
	parts  []wiPart
	// adding and removing replicas by partition (a reassignment)
	adding, removing map[int][]int
}

// wiCluster is a cluster of brokers 1..6 (live unless dead) for what-if
// cases; brokerConfig are /config/brokers/<entity> overrides.
type wiCluster struct {
	dead         []int
	controller   int // 0: none
	brokerConfig map[string]map[string]string
	topics       []wiTopic
}

func (c wiCluster) snapshot(t *testing.T) *Snapshot {
	t.Helper()
	_, m := c.build(t)
	return m.Snapshot()
}

// build writes the cluster into a fake ZooKeeper and loads a model.
func (c wiCluster) build(t *testing.T) (*fakeZK, *Model) {
	t.Helper()
	z := newFakeZK()
	z.create(ControllerEpochPath, "4")
	if c.controller > 0 {
		z.create(ControllerPath, string(EncodeController(NewControllerInfo(2, c.controller, 1))))
	}
	for id := 1; id <= 6; id++ {
		if !slices.Contains(c.dead, id) {
			z.create(BrokerIDPath(id), brokerJSON(id, fmt.Sprintf("rack-%c", 'a'+(id-1)%3)))
		}
	}
	for _, e := range slices.Sorted(maps.Keys(c.brokerConfig)) {
		z.create(EntityConfigPath("brokers", e), string(EncodeEntityConfig(c.brokerConfig[e])))
	}
	for _, tp := range c.topics {
		parts := map[int][]int{}
		for i, p := range tp.parts {
			parts[i] = p.replicas
		}
		z.create(TopicConfigPath(tp.name), string(EncodeEntityConfig(tp.config)))
		a := NewTopicAssignment(parts, "")
		maps.Copy(a.AddingReplicas, tp.adding)
		maps.Copy(a.RemovingReplicas, tp.removing)
		z.create(TopicPath(tp.name), string(EncodeTopicAssignment(a)))
		for i, p := range tp.parts {
			st := PartitionState{ControllerEpoch: 4, Leader: p.leader, LeaderEpoch: p.leaderEpoch, ISR: p.isr, Version: 1}
			if p.recovering {
				st.LeaderRecoveryState = LeaderRecovering
			}
			z.create(PartitionStatePath(tp.name, i), string(EncodePartitionState(st)))
		}
		if tp.marked {
			z.create(DeleteTopicPath(tp.name), "")
		}
	}
	m := NewModel(ModelOptions{})
	apply(t, m, z.all(), true)
	return z, m
}

// fates renders the listed partitions as "t-0: leader L isr [..] +writes"
// with the flags that matter.
func fates(fi *FailureImpact) []string {
	var out []string
	for _, tf := range fi.Topics {
		for i := range tf.Partitions {
			f := &tf.Partitions[i]
			s := fmt.Sprintf("%s-%d: leader %s isr [%s] +%d", tf.Topic.Name, f.Partition.ID, text.Broker(f.Leader), text.Ints(f.ISR), f.Writes)
			for _, flag := range []struct {
				on   bool
				name string
			}{{f.Recovering, "unclean"}, {f.Offline(), "offline"}, {f.UnderMinISR(), "<minISR"}, {f.UnderReplicated(), "urp"}, {!f.OnFailed, "elsewhere"}} {
				if flag.on {
					s += " " + flag.name
				}
			}
			out = append(out, s)
		}
	}
	return out
}

func p(replicas []int, leader int, isr ...int) wiPart {
	return wiPart{replicas: replicas, leader: leader, isr: isr, leaderEpoch: 5}
}

func r(ids ...int) []int { return ids }

// TestPredictFailure: Kafka's controller replayed, case by case (spec §4.4,
// §4.5, §4.7; the order of several brokers' ISR removals is
// docs/sandbox-fidelity.md's).
func TestPredictFailure(t *testing.T) {
	unclean := map[string]string{UncleanLeaderElectionEnable: "true"}
	for _, c := range []struct {
		name    string
		cluster wiCluster
		fail    []int
		want    []string
	}{
		{"leader moves to the first live in-sync replica in assignment order", wiCluster{controller: 3, topics: []wiTopic{{name: "t", parts: []wiPart{
			p(r(1, 2, 3), 1, 1, 3, 2), p(r(2, 1, 3), 2, 2, 1, 3), p(r(2, 1), 2, 2), p(r(4, 5), 4, 4, 5)}}}},
			[]int{1}, []string{
				"t-0: leader 2 isr [3,2] +1 urp",
				"t-1: leader 2 isr [2,3] +1 urp",
				"t-2: leader 2 isr [2] +0 urp", // 1 out of the ISR already: no write
			}},
		{"the last ISR member stays listed; unclean only where allowed", wiCluster{controller: 3, topics: []wiTopic{
			{name: "clean", parts: []wiPart{p(r(1, 2), 1, 1)}},
			{name: "dirty", config: unclean, parts: []wiPart{p(r(1, 4, 2), 1, 1)}},
			{name: "off", config: map[string]string{UncleanLeaderElectionEnable: "false"}, parts: []wiPart{p(r(1, 2), 1, 1)}}}},
			[]int{1}, []string{
				"clean-0: leader none isr [1] +1 offline urp",
				"dirty-0: leader 4 isr [4] +1 unclean urp",
				"off-0: leader none isr [1] +1 offline urp",
			}},
		{"unclean from the controller's dynamic config, else <default>", wiCluster{controller: 3,
			brokerConfig: map[string]map[string]string{"3": unclean, BrokerDefaultEntity: {UncleanLeaderElectionEnable: "false"}},
			topics:       []wiTopic{{name: "t", parts: []wiPart{p(r(1, 2), 1, 1)}}, {name: "u", config: map[string]string{UncleanLeaderElectionEnable: "FALSE"}, parts: []wiPart{p(r(1, 2), 1, 1)}}}},
			[]int{1}, []string{
				"t-0: leader 2 isr [2] +1 unclean urp",
				"u-0: leader none isr [1] +1 offline urp",
			}},
		{"a new controller's own config is unknown: <default> only", wiCluster{controller: 3,
			brokerConfig: map[string]map[string]string{"3": unclean},
			topics:       []wiTopic{{name: "t", parts: []wiPart{p(r(1, 2), 1, 1)}}}},
			[]int{1, 3}, []string{"t-0: leader none isr [1] +1 offline urp"}},
		{"brokers lost together leave the ISRs in Kafka's hash order (5 before 2)", wiCluster{controller: 1, topics: []wiTopic{{name: "t", parts: []wiPart{
			p(r(2, 5), 2, 2, 5), p(r(5, 2), 5, 5, 2), p(r(2, 5, 3), 3, 3, 2, 5), p(r(2, 5, 3), 2, 2, 5, 3)}}}},
			[]int{2, 5}, []string{
				"t-0: leader none isr [2] +2 offline urp",
				"t-1: leader none isr [2] +2 offline urp",
				"t-2: leader 3 isr [3] +2 urp",
				"t-3: leader 3 isr [3] +1 urp",
			}},
		{"the controller lost: its successor's failover shrinks first, then elects", wiCluster{controller: 1, dead: []int{6}, topics: []wiTopic{{name: "t", parts: []wiPart{
			p(r(1, 2, 3), 1, 1, 2, 3), p(r(1, 2), 1, 1), p(r(6, 4), -1, 6), p(r(4, 5), 4, 4, 5)}}}},
			[]int{1}, []string{
				"t-0: leader 2 isr [2,3] +2 urp",
				"t-1: leader none isr [1] +1 offline urp",
				"t-2: leader none isr [6] +1 offline urp elsewhere", // broker 6's replicas go offline again at failover
			}},
		{"min ISR: the topic's, else the new leader's dynamic config", wiCluster{controller: 3,
			brokerConfig: map[string]map[string]string{"2": {"min.insync.replicas": "3"}},
			topics: []wiTopic{
				{name: "m2", config: map[string]string{"min.insync.replicas": "2"}, parts: []wiPart{p(r(1, 2), 1, 1, 2), p(r(1, 4, 5), 1, 1, 4, 5)}},
				{name: "dyn", parts: []wiPart{p(r(1, 2, 4), 1, 1, 2, 4), p(r(1, 4, 5), 1, 1, 4, 5)}}}},
			[]int{1}, []string{
				"dyn-0: leader 2 isr [2,4] +1 <minISR urp",
				"dyn-1: leader 4 isr [4,5] +1 urp",
				"m2-0: leader 2 isr [2] +1 <minISR urp",
				"m2-1: leader 4 isr [4,5] +1 urp",
			}},
		{"a topic being deleted is left to the deletion", wiCluster{controller: 3, topics: []wiTopic{{name: "gone", marked: true, parts: []wiPart{p(r(1, 2), 1, 1, 2)}}}},
			[]int{1}, nil},
		{"a broker already down changes nothing", wiCluster{controller: 3, dead: []int{6}, topics: []wiTopic{{name: "t", parts: []wiPart{p(r(6, 4), -1, 6), p(r(4, 6), 4, 4)}}}},
			[]int{6}, []string{"t-0: leader none isr [6] +0 offline urp", "t-1: leader 4 isr [4] +0 urp"}},
		{"an offline partition gets an unclean leader at the broker change", wiCluster{controller: 3, dead: []int{6}, topics: []wiTopic{
			{name: "t", config: unclean, parts: []wiPart{p(r(6, 4), -1, 6)}}}},
			[]int{1}, []string{"t-0: leader 4 isr [4] +1 unclean urp elsewhere"}},
		{"no controller: the next one's failover", wiCluster{topics: []wiTopic{{name: "t", parts: []wiPart{p(r(1, 2, 3), 1, 1, 2, 3)}}}},
			[]int{1}, []string{"t-0: leader 2 isr [2,3] +2 urp"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := c.cluster.snapshot(t)
			got := fates(PredictFailure(s, c.fail...))
			if !slices.Equal(got, c.want) {
				t.Errorf("got:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(c.want, "\n  "))
			}
		})
	}
}

// TestPredictFailureCounts: the sums, the deletion count and the lookup.
func TestPredictFailureCounts(t *testing.T) {
	s := wiCluster{controller: 3, topics: []wiTopic{
		{name: "a", config: map[string]string{"min.insync.replicas": "2"}, parts: []wiPart{p(r(1, 2), 1, 1, 2), p(r(2, 1), 2, 2), p(r(1, 2, 4), 1, 1, 2, 4)}},
		{name: "b", parts: []wiPart{p(r(1), 1, 1), p(r(4, 5), 4, 4, 5)}},
		{name: "c", config: map[string]string{UncleanLeaderElectionEnable: "true"}, parts: []wiPart{p(r(1, 5), 1, 1)}},
		{name: "d", marked: true, parts: []wiPart{p(r(1, 5), 1, 1, 5)}},
	}}.snapshot(t)
	fi := PredictFailure(s, 1, 1)
	want := FailureCounts{Partitions: 5, LeadersLost: 4, LeadersMoved: 3, Offline: 1, UnderMinISR: 2, UnderReplicated: 4,
		WasUnderMinISR: 1, WasUnderReplicated: 2, NewlyOffline: 1, NewlyUnderMinISR: 1, Unclean: 1}
	if fi.Counts != want {
		t.Errorf("counts %+v\nwant   %+v", fi.Counts, want)
	}
	// a-1 is under its min ISR already: the failure is not to blame; a-0
	// goes under it, b-0 offline.
	if f := fi.Partition("a", 1); f == nil || !f.UnderMinISR() || !f.WasUnderMinISR() || f.NewlyUnderMinISR() {
		t.Errorf("a-1 (already under min ISR): %+v", f)
	}
	if f := fi.Partition("a", 0); f == nil || !f.NewlyUnderMinISR() || f.NewlyOffline() {
		t.Errorf("a-0 (newly under min ISR): %+v", f)
	}
	if f := fi.Partition("b", 0); f == nil || !f.NewlyOffline() {
		t.Errorf("b-0 (newly offline): %+v", f)
	}
	if fi.Deleting != 1 || !slices.Equal(fi.Brokers, []int{1}) || !slices.Equal(fi.Live, []int{1}) || fi.ControllerFails {
		t.Errorf("impact %+v", fi)
	}
	if f := fi.Partition("a", 2); f == nil || f.Leader != 2 || f.Before != ConditionOnline || f.After != ConditionUnderReplicated {
		t.Errorf("a-2: %+v", f)
	}
	if f := fi.Partition("b", 1); f != nil {
		t.Errorf("b-1 is not on broker 1: %+v", f)
	}
	if f := fi.Partition("b", 0); f == nil || f.After != ConditionOffline || !f.LeaderLost || f.State().Leader != -1 {
		t.Errorf("b-0: %+v", f)
	}
}

// TestFailurePredictorMemo: a predictor remembers the candidates of
// unchanged topics and sees the changed ones anew.
func TestFailurePredictorMemo(t *testing.T) {
	z, m := newCluster(t) // orders 0:[1,2,3] 1:[2,3,1]; brokers 1,2,3
	fp := NewFailurePredictor(3)
	fi := fp.Predict(m.Snapshot())
	if got := fates(fi); !slices.Equal(got, []string{"orders-0: leader 1 isr [1,2] +1 urp", "orders-1: leader 2 isr [2,1] +1 urp"}) {
		t.Fatalf("first: %v", got)
	}
	if fp.memo[m.Snapshot().Topic("orders")] == nil {
		t.Fatal("orders not remembered")
	}
	apply(t, m, []NodeEvent{
		z.create(TopicPath("other"), topicJSON(map[int][]int{0: {1, 2}})),
		z.create(PartitionStatePath("other", 0), stateJSON(1, 1, 0, 1, 2)),
		z.set(TopicPath("orders"), topicJSON(map[int][]int{0: {1, 2, 3}, 1: {2, 3, 1}, 2: {3, 1, 2}})),
		z.create(PartitionStatePath("orders", 2), stateJSON(1, 3, 0, 3, 1, 2)),
	}, false)
	got := fates(fp.Predict(m.Snapshot()))
	want := []string{"orders-0: leader 1 isr [1,2] +1 urp", "orders-1: leader 2 isr [2,1] +1 urp", "orders-2: leader 1 isr [1,2] +1 urp"}
	if !slices.Equal(got, want) {
		t.Fatalf("after the change:\n  %s", strings.Join(got, "\n  "))
	}
	if len(fp.memo) != 2 {
		t.Errorf("memo holds %d topics", len(fp.memo))
	}
	// What a predictor keeps is what a fresh prediction gives, whatever
	// changes: a state, a broker, a dynamic config, the controller.
	for _, evs := range [][]NodeEvent{
		{z.set(PartitionStatePath("other", 0), stateJSON(1, 2, 1, 2))},
		{z.del(BrokerIDPath(2))},
		{z.create(EntityConfigPath("brokers", BrokerDefaultEntity), `{"version":1,"config":{"min.insync.replicas":"3"}}`)},
		{z.create(BrokerIDPath(2), brokerJSON(2, "a"))},
		{z.del(ControllerPath)},
		{z.create(ControllerPath, string(EncodeController(NewControllerInfo(2, 3, 1))))},
	} {
		apply(t, m, evs, false)
		s := m.Snapshot()
		if got, want := fates(fp.Predict(s)), fates(PredictFailure(s, 3)); !slices.Equal(got, want) {
			t.Fatalf("after %s: kept\n  %s\nfresh\n  %s", evs[0].Path, strings.Join(got, "\n  "), strings.Join(want, "\n  "))
		}
	}
}

// TestTroubled: the partitions offline and under min ISR now, and after a
// predicted failure.
func TestTroubled(t *testing.T) {
	s := wiCluster{controller: 3, dead: []int{6}, topics: []wiTopic{
		{name: "a", config: map[string]string{"min.insync.replicas": "2"}, parts: []wiPart{p(r(1, 2), 1, 1, 2), p(r(6, 2), 2, 2), p(r(4, 5), 4, 4, 5)}},
		{name: "b", parts: []wiPart{p(r(1), 1, 1), p(r(6), -1, 6)}},
	}}.snapshot(t)
	tp := func(t string, p int) TopicPartition { return TopicPartition{Topic: t, Partition: p} }
	off, under := s.Troubled()
	if !slices.Equal(off, []TopicPartition{tp("b", 1)}) || !slices.Equal(under, []TopicPartition{tp("a", 1)}) {
		t.Errorf("now: offline %v, under min ISR %v", off, under)
	}
	off, under = PredictFailure(s, 1).TroubledAfter(s)
	if !slices.Equal(off, []TopicPartition{tp("b", 0), tp("b", 1)}) || !slices.Equal(under, []TopicPartition{tp("a", 0), tp("a", 1)}) {
		t.Errorf("after broker 1: offline %v, under min ISR %v", off, under)
	}
}
