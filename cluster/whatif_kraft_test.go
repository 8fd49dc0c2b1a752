package cluster

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/ktopo/ktopo/internal/text"
)

// wiKRaft makes a wiCluster a KRaft cluster: its controller is the
// quorum's leader, the dead brokers are registered and fenced.
type wiKRaft struct {
	elr bool
	// mv is metadata.version's feature level (0: 4.4-IV2's).
	mv int
	// voters of the quorum (nil: controller 3000 alone).
	voters []int
	// elr and lke by topic, then partition (absent: none).
	elrs map[string]map[int][2][]int
}

// kraftSnapshot builds c as a KRaft cluster.
func (c wiCluster) kraftSnapshot(t *testing.T, k wiKRaft) *Snapshot {
	t.Helper()
	if c.controller == 0 {
		c.controller = 3000
	}
	_, m := c.build(t)
	mv := k.mv
	if mv == 0 {
		mv = 33
	}
	facts := &KRaft{ELR: true, FencedListed: true, Features: []Feature{{FeatureMetadataVersion, mv}}}
	if k.elr {
		facts.Features = append(facts.Features, Feature{FeatureELR, 1})
	}
	voters := k.voters
	if voters == nil {
		voters = []int{3000}
	}
	for _, v := range voters {
		facts.Quorum.Voters = append(facts.Quorum.Voters, QuorumReplica{ID: v})
	}
	facts.Quorum.LeaderID = c.controller
	for id := 1; id <= 6; id++ {
		facts.Brokers = append(facts.Brokers, KRaftBroker{ID: id, Fenced: slices.Contains(c.dead, id)})
	}
	m.SetKRaft(facts)
	var elrs []PartitionELR
	for topic, ps := range k.elrs {
		for id, e := range ps {
			elrs = append(elrs, PartitionELR{Topic: topic, Partition: id, ELR: e[0], LastKnownELR: e[1]})
		}
	}
	m.ApplyELR(elrs)
	return m.Snapshot()
}

// kfates renders what fates does, with the eligible leader replicas, the
// leader epoch and the other outcomes ("| …").
func kfates(fi *FailureImpact) []string {
	var out []string
	for _, tf := range fi.Topics {
		for i := range tf.Partitions {
			f := &tf.Partitions[i]
			var alts []string
			for _, o := range f.Outcomes() {
				s := fmt.Sprintf("leader %s isr [%s]", text.Broker(o.Leader), text.Ints(o.ISR))
				if len(o.ELR) > 0 {
					s += " elr [" + text.Ints(o.ELR) + "]"
				}
				if len(o.LastKnownELR) > 0 {
					s += " lke [" + text.Ints(o.LastKnownELR) + "]"
				}
				s += fmt.Sprintf(" epoch %d", o.LeaderEpoch)
				if o.Recovering {
					s += " unclean"
				}
				alts = append(alts, s)
			}
			s := fmt.Sprintf("%s-%d: %s +%d", tf.Topic.Name, f.Partition.ID, alts[0], f.Writes)
			for _, flag := range []struct {
				on   bool
				name string
			}{{f.Offline(), "offline"}, {f.UnderMinISR(), "<minISR"}, {f.UnderReplicated(), "urp"}, {!f.OnFailed, "elsewhere"}, {f.OrderDecides(), "order"}} {
				if flag.on {
					s += " " + flag.name
				}
			}
			for _, a := range alts[1:] {
				s += " | " + a
			}
			out = append(out, s)
		}
	}
	return out
}

// TestPredictFailureKRaft: Kafka 4.4's KRaft controller replayed, one rule
// a case, each citing the code it comes from (org.apache.kafka.controller
// in kafka-metadata 4.4.0).
func TestPredictFailureKRaft(t *testing.T) {
	unclean := map[string]string{UncleanLeaderElectionEnable: "true"}
	minISR2 := map[string]string{"min.insync.replicas": "2"}
	for _, c := range []struct {
		name    string
		cluster wiCluster
		kraft   wiKRaft
		fail    []int
		want    []string
	}{
		// ReplicationControlManager.handleBrokerFenced visits the
		// partitions with the broker in their ISR (BrokersToIsrs); the
		// ISR loses it (generateLeaderAndIsrUpdates), and
		// PartitionChangeBuilder.electAnyLeader keeps a leader still in it,
		// else takes the first acceptable ISR member in assignment order.
		// Since metadata.version 3.6-IV0 a shrink alone bumps no epoch
		// (triggerLeaderEpochBumpForIsrShrinkIfNeeded).
		{"fencing: the ISR loses the broker, its leaderships go to the first ISR replica in assignment order",
			wiCluster{topics: []wiTopic{{name: "t", parts: []wiPart{p(r(1, 2, 3), 1, 1, 3, 2), p(r(2, 1, 3), 2, 2, 1, 3), p(r(2, 1), 2, 2), p(r(4, 5), 4, 4, 5)}}}},
			wiKRaft{}, []int{1}, []string{
				"t-0: leader 2 isr [3,2] epoch 6 +1 urp",
				"t-1: leader 2 isr [2,3] epoch 5 +1 urp",
				"t-2: leader 2 isr [2] epoch 5 +0 urp", // not in the ISR: not visited
			}},
		// MetadataVersion.isLeaderEpochBumpRequiredOnIsrShrink: before
		// 3.6-IV0 (feature level 12) every shrink bumps the epoch.
		{"metadata.version before 3.6-IV0: a shrink bumps the leader epoch",
			wiCluster{topics: []wiTopic{{name: "t", parts: []wiPart{p(r(2, 1, 3), 2, 2, 1, 3)}}}},
			wiKRaft{mv: 11}, []int{1}, []string{"t-0: leader 2 isr [2,3] epoch 6 +1 urp"}},
		// PartitionChangeBuilder.build: without ELR an empty target ISR is
		// not written, so the last member stays, without leader.
		{"ELR off: the last ISR member stays, leaderless",
			wiCluster{topics: []wiTopic{{name: "t", config: minISR2, parts: []wiPart{p(r(1, 2), 1, 1)}}}},
			wiKRaft{}, []int{1}, []string{"t-0: leader none isr [1] epoch 6 +1 offline <minISR urp"}},
		// maybePopulateTargetElr: below the min ISR, the members leaving
		// the ISR join the ELR; at or above it the ELR is emptied.
		{"ELR on: below min ISR the broker fenced becomes eligible",
			wiCluster{topics: []wiTopic{
				{name: "m1", parts: []wiPart{p(r(1, 2), 2, 1, 2)}},
				{name: "m2", config: minISR2, parts: []wiPart{p(r(1, 2), 1, 1, 2), p(r(2, 1), 2, 2, 1)}}}},
			wiKRaft{elr: true}, []int{2}, []string{
				"m1-0: leader 1 isr [1] epoch 6 +1 urp",
				"m2-0: leader 1 isr [1] elr [2] epoch 5 +1 <minISR urp",
				"m2-1: leader 1 isr [1] elr [2] epoch 6 +1 <minISR urp",
			}},
		// getTopicEffectiveMinIsr: the topic's min ISR, at most the
		// replication factor of its partition 0: here 2, so partition 1
		// (4 replicas) keeps no ELR with 2 in its ISR.
		{"ELR on: the min ISR is at most partition 0's replication factor",
			wiCluster{topics: []wiTopic{{name: "t", config: map[string]string{"min.insync.replicas": "3"},
				parts: []wiPart{p(r(1, 2), 1, 1, 2), p(r(1, 2, 3, 4), 1, 1, 2, 3)}}}},
			wiKRaft{elr: true}, []int{1}, []string{
				"t-0: leader 2 isr [2] elr [1] epoch 6 +1 <minISR urp",
				"t-1: leader 2 isr [2,3] epoch 6 +1 <minISR urp",
			}},
		// build writes an empty ISR when ELR is on;
		// maybeUpdateLastKnownLeader remembers the leader lost as the
		// last known ELR.
		{"ELR on: the ISR empties and the last leader is remembered",
			wiCluster{dead: []int{2}, topics: []wiTopic{{name: "t", config: minISR2, parts: []wiPart{p(r(1, 2), 1, 1)}}}},
			wiKRaft{elr: true, elrs: map[string]map[int][2][]int{"t": {0: {r(2), nil}}}}, []int{1},
			[]string{"t-0: leader none isr [] elr [1,2] lke [1] epoch 6 +1 offline <minISR urp"}},
		// isValidNewLeader: with an empty ISR an active ELR member is a
		// clean leader; tryElection makes it the ISR and takes it out of
		// the ELR.
		{"ELR on: an eligible replica leads once the ISR is empty",
			wiCluster{topics: []wiTopic{{name: "t", config: minISR2, parts: []wiPart{p(r(1, 2, 3), 1, 1)}}}},
			wiKRaft{elr: true, elrs: map[string]map[int][2][]int{"t": {0: {r(3), nil}}}}, []int{1},
			[]string{"t-0: leader 3 isr [3] elr [1] epoch 6 +1 <minISR urp"}},
		// electAnyLeader with Election.UNCLEAN (the topic's
		// unclean.leader.election.enable): the first acceptable replica,
		// alone in the ISR, RECOVERING; maybeUpdateRecordElr empties the
		// ELR after an unclean election.
		{"unclean: the first active replica leads, recovering, and the ELR empties",
			wiCluster{topics: []wiTopic{
				{name: "d", config: map[string]string{UncleanLeaderElectionEnable: "true", "min.insync.replicas": "2"}, parts: []wiPart{p(r(1, 2, 3), 1, 1)}},
				{name: "e", config: minISR2, parts: []wiPart{p(r(1, 2, 3), 1, 1)}}}},
			wiKRaft{elr: true}, []int{1}, []string{
				"d-0: leader 2 isr [2] epoch 6 unclean +1 <minISR urp",
				"e-0: leader none isr [] elr [1] lke [1] epoch 6 +1 offline <minISR urp",
			}},
		// maybeFenceOneStaleBroker fences one broker at a time, in an order
		// only the heartbeats decide: every order is an outcome. Without
		// ELR the ISR keeps whichever was fenced last; a broker not fenced
		// yet is still acceptable (generateLeaderAndIsrUpdates), so it may
		// lead in between, which moves only the epoch.
		{"brokers lost together: every fencing order (ELR off)",
			wiCluster{topics: []wiTopic{{name: "t", parts: []wiPart{p(r(1, 2), 1, 1, 2), p(r(1, 2, 3), 1, 1, 2, 3), p(r(3, 4), 3, 3, 4)}},
				{name: "u", config: unclean, parts: []wiPart{p(r(1, 2, 3), 1, 1)}}}},
			wiKRaft{}, []int{1, 2}, []string{
				"t-0: leader none isr [1] epoch 6 +2 offline urp order | leader none isr [2] epoch 7",
				"t-1: leader 3 isr [3] epoch 6 +2 urp | leader 3 isr [3] epoch 7",
				"u-0: leader 3 isr [3] epoch 6 unclean +2 urp | leader 3 isr [3] epoch 7 unclean",
			}},
		{"brokers lost together: every fencing order (ELR on)",
			wiCluster{topics: []wiTopic{{name: "t", config: minISR2, parts: []wiPart{p(r(1, 2), 1, 1, 2)}}}},
			wiKRaft{elr: true}, []int{1, 2}, []string{
				"t-0: leader none isr [] elr [1,2] lke [1] epoch 6 +2 offline <minISR urp order | leader none isr [] elr [1,2] lke [2] epoch 7",
			}},
		// Without a majority of the voters no controller is elected, and
		// nobody is fenced.
		{"the quorum loses its majority: nothing is written",
			wiCluster{controller: 1, topics: []wiTopic{{name: "t", parts: []wiPart{p(r(1, 4), 1, 1, 4)}}}},
			wiKRaft{voters: r(1, 2, 3)}, []int{1, 2}, []string{"t-0: leader 1 isr [1,4] epoch 5 +0 offline"}},
		// ClusterControlManager.activate: a new controller gives the live
		// brokers a session and fences only those that lose it; a broker
		// fenced already is not handled again (ZooKeeper mode's failover
		// is).
		{"the controller lost: its successor fences the same brokers",
			wiCluster{controller: 1, dead: []int{6}, topics: []wiTopic{{name: "t", parts: []wiPart{p(r(1, 2, 3), 1, 1, 2, 3), p(r(6, 4), -1, 6)}}}},
			wiKRaft{voters: r(1, 2, 3)}, []int{1}, []string{"t-0: leader 2 isr [2,3] epoch 6 +1 urp"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := c.cluster.kraftSnapshot(t, c.kraft)
			fi := PredictFailure(s, c.fail...)
			if !fi.KRaft || fi.ELR != c.kraft.elr {
				t.Errorf("impact KRaft %v ELR %v", fi.KRaft, fi.ELR)
			}
			got := kfates(fi)
			if !slices.Equal(got, c.want) {
				t.Errorf("got:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(c.want, "\n  "))
			}
		})
	}
}

// TestPredictFailureKRaftCounts: the order-dependent partitions are
// counted, the worst outcome is counted, and a predictor reuses nothing
// once the rules change (ELR turned off).
func TestPredictFailureKRaftCounts(t *testing.T) {
	c := wiCluster{topics: []wiTopic{{name: "t", config: map[string]string{"min.insync.replicas": "2"},
		parts: []wiPart{p(r(1, 2), 1, 1, 2), p(r(1, 2, 3), 1, 1, 2, 3), p(r(4, 5), 4, 4, 5)}}}}
	fi := PredictFailure(c.kraftSnapshot(t, wiKRaft{}), 1, 2)
	if fi.Counts.OrderDecides != 1 || fi.Counts.Offline != 1 || fi.Counts.Partitions != 2 || fi.QuorumLost {
		t.Errorf("counts %+v", fi.Counts)
	}
	f := fi.Partition("t", 0)
	if f == nil || !f.OrderDecides() || len(f.Outcomes()) != 2 || !f.Changed() {
		t.Fatalf("t-0: %+v", f)
	}
	// Matches: any outcome, the epoch only when asked.
	now := &Partition{Leader: -1, ISR: r(2), LeaderEpoch: 7}
	if !f.Matches(now, CompareELR|CompareEpoch) || f.Matches(&Partition{Leader: -1, ISR: r(2), LeaderEpoch: 6}, CompareEpoch) ||
		!f.Matches(&Partition{Leader: -1, ISR: r(2), LeaderEpoch: 6}, 0) || f.Matches(&Partition{Leader: 1, ISR: r(1)}, 0) {
		t.Errorf("Matches: %+v", f.Outcomes())
	}
	fp := NewFailurePredictor(1, 2)
	on := fates(fp.Predict(c.kraftSnapshot(t, wiKRaft{elr: true})))
	off := fates(fp.Predict(c.kraftSnapshot(t, wiKRaft{})))
	if slices.Equal(on, off) {
		t.Errorf("ELR on and off predicted alike: %v", on)
	}
	if want := fates(PredictFailure(c.kraftSnapshot(t, wiKRaft{}), 1, 2)); !slices.Equal(off, want) {
		t.Errorf("kept %v, fresh %v", off, want)
	}
}

// TestJavaIntSetOrder: the ELR's order is a java.util.HashSet<Integer>'s
// (PartitionChangeBuilder.maybePopulateTargetElr): by bucket, then the
// order added; the table grows past three quarters full.
func TestJavaIntSetOrder(t *testing.T) {
	for _, c := range []struct {
		first, then, want []int
	}{
		{r(2), r(1, 2), r(1, 2)},
		{r(17), r(3, 17, 20), r(17, 3, 20)}, // 17 is in bucket 1 of 16
		{r(33), r(1), r(33, 1)},             // one bucket: the order added
		{nil, r(16, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 0), r(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 16)}, // 14 members: a table of 32
		{nil, r(3, 65539), r(65539, 3)}, // 65539 spreads to bucket 2 (0x10003 ^ 0x1), 3 is in bucket 3
	} {
		if got := javaIntSetOrder(c.first, c.then); !slices.Equal(got, c.want) {
			t.Errorf("javaIntSetOrder(%v, %v) = %v, want %v", c.first, c.then, got, c.want)
		}
	}
}
