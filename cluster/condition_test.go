package cluster_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/internal/testkit/fixture"
)

func TestPartitionCondition(t *testing.T) {
	s := fixture.Small().Model().Snapshot()
	live := s.LiveBrokerIDs()
	a, b, c := live[0], live[1], live[2]
	topic := &cluster.Topic{Name: "t", MinISR: 2}
	ok := func(p cluster.Partition) *cluster.Partition {
		p.HasState, p.Replicas = true, []int{a, b, c}
		if p.ISR == nil {
			p.ISR = []int{a, b, c}
		}
		return &p
	}
	for _, tc := range []struct {
		p    *cluster.Partition
		want cluster.Condition
	}{
		{ok(cluster.Partition{Leader: a}), cluster.ConditionOnline},
		{ok(cluster.Partition{Leader: a}.SetMoves([]int{c}, nil)), cluster.ConditionReassigning},
		{ok(cluster.Partition{Leader: a, ISR: []int{a, b}}), cluster.ConditionUnderReplicated},
		{ok(cluster.Partition{Leader: a, ISR: []int{a}}), cluster.ConditionUnderMinISR},
		{&cluster.Partition{Replicas: []int{a}, Leader: -1}, cluster.ConditionNew},
		{ok(cluster.Partition{Leader: -1}), cluster.ConditionOffline},
		{ok(cluster.Partition{Leader: 99}), cluster.ConditionOffline}, // a leader that is not registered
		{ok(cluster.Partition{Leader: a}.SetStateErr(errors.New("bad"))), cluster.ConditionBad},
	} {
		if got := s.PartitionCondition(topic, tc.p); got != tc.want {
			t.Errorf("%+v: %v, want %v", tc.p, got, tc.want)
		}
	}
	if !cluster.ConditionReassigning.Healthy() || cluster.ConditionUnderReplicated.Healthy() {
		t.Fatal("healthy")
	}
}

func TestTopicFilter(t *testing.T) {
	s := fixture.Small().Model().Snapshot()
	for _, tc := range []struct {
		pattern    string
		noInternal bool
		want       []string
	}{
		{"", false, []string{"__consumer_offsets", "audit-log", "clicks", "legacy", "orders", "payments"}},
		{"", true, []string{"audit-log", "clicks", "legacy", "orders", "payments"}},
		{`"orders, payments"`, false, []string{"orders", "payments"}}, // IncludeList: quotes and blanks dropped, ',' is '|'
		{"order", false, nil}, // the whole name must match
		{"c.*", false, []string{"clicks"}},
	} {
		f, err := cluster.NewTopicFilter(tc.pattern, tc.noInternal)
		if err != nil {
			t.Fatal(err)
		}
		if got := f.Names(s); !slices.Equal(got, tc.want) {
			t.Errorf("%q: %v, want %v", tc.pattern, got, tc.want)
		}
	}
	if _, err := cluster.NewTopicFilter("(", false); err == nil {
		t.Fatal("a bad pattern is an error")
	}
}
