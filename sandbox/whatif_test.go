package sandbox

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/clusterwatch/zksource"
	"github.com/ktopo/ktopo/internal/text"
	"github.com/ktopo/ktopo/zkwatch"
)

// load reads the cluster as ktopo sees it.
func (e *env) load(conn *zkwatch.Conn) *cluster.Snapshot {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	s, err := zksource.Load(ctx, conn, cluster.ModelOptions{})
	if err != nil {
		e.t.Fatalf("load: %v", err)
	}
	return s
}

// stateOf is a partition's state in the words of the comparison.
func stateOf(leader, epoch int, isr []int, recovering bool) string {
	s := fmt.Sprintf("leader %s isr [%s] epoch %d", text.Broker(leader), text.Ints(isr), epoch)
	if recovering {
		s += " recovering"
	}
	return s
}

// expected is every partition's state once the controller has done what
// the what-if predicts: the predicted state where it writes, the state
// before elsewhere.
func expected(before *cluster.Snapshot, fi *cluster.FailureImpact) map[string]string {
	out := map[string]string{}
	for _, t := range before.Topics() {
		for _, p := range t.Partitions {
			tp := t.Name + "-" + fmt.Sprint(p.ID)
			if f := fi.Partition(t.Name, p.ID); f != nil {
				out[tp] = stateOf(f.Leader, f.LeaderEpoch, f.ISR, f.Recovering)
			} else {
				out[tp] = stateOf(p.Leader, p.LeaderEpoch, p.ISR, p.LeaderRecoveryState == cluster.LeaderRecovering)
			}
		}
	}
	return out
}

func actual(s *cluster.Snapshot) map[string]string {
	out := map[string]string{}
	for _, t := range s.Topics() {
		for _, p := range t.Partitions {
			out[t.Name+"-"+fmt.Sprint(p.ID)] = stateOf(p.Leader, p.LeaderEpoch, p.ISR, p.LeaderRecoveryState == cluster.LeaderRecovering)
		}
	}
	return out
}

func predictionDiff(want, got map[string]string) string {
	var b strings.Builder
	for _, k := range sortedKeys(want) {
		if got[k] != want[k] {
			fmt.Fprintf(&b, "  %s: got %s, predicted %s\n", k, got[k], want[k])
		}
	}
	return b.String()
}

// atRest reports that the controller has nothing left to elect: every
// partition with a live in-sync replica (or, where unclean election is
// allowed, a live replica) has a live leader.
func atRest(s *cluster.Snapshot) (bool, string) {
	ctrl := s.Controller().BrokerID
	if ctrl < 0 {
		return false, "no controller"
	}
	for _, t := range s.Topics() {
		for _, p := range t.Partitions {
			if !s.PartitionOffline(p) {
				continue
			}
			can := slices.ContainsFunc(p.ISR, s.IsLive) || s.UncleanLeaderElection(t, ctrl, false) && slices.ContainsFunc(p.Replicas, s.IsLive)
			if can || !p.HasState {
				return false, fmt.Sprintf("%s-%d has no leader yet: %s", t.Name, p.ID, stateOf(p.Leader, p.LeaderEpoch, p.ISR, false))
			}
		}
	}
	return true, ""
}

// TestWhatIfMatchesController predicts broker and rack failures with
// cluster.PredictFailure on the running sandbox, then makes them happen:
// the controller must write exactly the predicted leader, ISR, leader epoch
// and recovery state of every partition, so the partitions offline and
// under min ISR are the predicted ones. Restarted brokers never catch up
// (CatchUpDelay of an hour), so that out-of-sync replicas stay live and
// unclean elections can happen.
func TestWhatIfMatchesController(t *testing.T) {
	e := newEnv(t, Config{Brokers: 6, Racks: 3, CatchUpDelay: time.Hour})
	conn, err := zkwatch.Connect(context.Background(), e.connect, zkwatch.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(conn.Close)
	e.createTopic("orders", rackAwareAssignment(t, 6, 3, 12, 3), nil)
	e.createTopic("pay", map[int][]int{0: {2, 3}, 1: {3, 2}, 2: {3, 5}, 3: {4, 3}, 4: {1, 4}}, map[string]string{"min.insync.replicas": "2"})
	e.createTopic("solo", map[int][]int{0: {3}, 1: {4}, 2: {1}}, nil)
	e.createTopic("dirty", map[int][]int{0: {3, 2}, 1: {2, 3}, 2: {1, 4, 2}}, map[string]string{"unclean.leader.election.enable": "true"})
	e.createTopic("wide", map[int][]int{0: {1, 4, 2, 5, 3, 6}, 1: {4, 1, 5, 2}, 2: {2, 5, 1, 4}}, map[string]string{"min.insync.replicas": "3"})
	waitFor(t, "every partition online and in sync", func() (bool, string) {
		s := e.load(conn)
		h := s.Health()
		return h.Partitions == 26 && h.UnderReplicated == 0 && h.Offline == 0, fmt.Sprintf("%+v", h)
	})
	for _, step := range []struct {
		name string
		fail []int
		do   func()
	}{
		{"broker 3", []int{3}, func() { e.kill(3) }},
		{"restart 3", nil, func() { e.restart(3) }},
		{"broker 2, with 3 back but out of sync", []int{2}, func() { e.kill(2) }},
		{"rack-a with the controller", []int{1, 4}, func() {
			if err := e.c.KillTogether(1, 4); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(step.name, func(t *testing.T) {
			before := e.load(conn)
			if step.fail == nil {
				step.do()
				waitFor(t, "the controller at rest", func() (bool, string) { return atRest(e.load(conn)) })
				return
			}
			fi := cluster.PredictFailure(before, step.fail...)
			if fi.Counts.Partitions == 0 {
				t.Fatal("the what-if lists no partition")
			}
			want := expected(before, fi)
			step.do()
			var after *cluster.Snapshot
			waitFor(t, "the predicted states", func() (bool, string) {
				after = e.load(conn)
				d := predictionDiff(want, actual(after))
				return d == "", d
			})
			// Nothing more comes: at rest, the states are still the predicted ones.
			waitFor(t, "the controller at rest", func() (bool, string) {
				after = e.load(conn)
				return atRest(after)
			})
			if d := predictionDiff(want, actual(after)); d != "" {
				t.Fatalf("after the predicted states, the controller wrote more:\n%s", d)
			}
			gotOff, gotMin := after.Troubled()
			wantOff, wantMin := fi.TroubledAfter(before)
			if !slices.Equal(gotOff, wantOff) || !slices.Equal(gotMin, wantMin) {
				t.Errorf("offline %v, predicted %v; under min ISR %v, predicted %v", gotOff, wantOff, gotMin, wantMin)
			}
			t.Logf("predicted and seen: %d partitions, %d leaders lost (%d moved), %d offline, %d under min ISR, %d unclean",
				fi.Counts.Partitions, fi.Counts.LeadersLost, fi.Counts.LeadersMoved, fi.Counts.Offline, fi.Counts.UnderMinISR, fi.Counts.Unclean)
		})
	}
}
