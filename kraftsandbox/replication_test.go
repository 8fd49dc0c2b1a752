package kraftsandbox

import (
	"context"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// mkTopic registers a topic with the given replicas (the CreateTopics
// handler is another part's) and sets every partition's simulated size.
func mkTopic(t *testing.T, c *Cluster, name string, replicas [][]int32, configs map[string]string, size float64) {
	t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	tp := c.addTopic(name, replicas, configs)
	for _, p := range tp.parts {
		p.size = size
	}
	c.ext.repl.scanned = false
}

// state is a partition's registration, read under the lock.
type pstate struct {
	replicas, isr, elr, lastKnown, adding, removing []int32
	leader, leaderEpoch, epoch                      int32
}

func state(c *Cluster, name string, i int) pstate {
	c.mu.Lock()
	defer c.mu.Unlock()
	p := c.topics[name].parts[i]
	return pstate{slices.Clone(p.replicas), slices.Clone(p.isr), slices.Clone(p.elr), slices.Clone(p.lastKnownELR),
		slices.Clone(p.adding), slices.Clone(p.removing), p.leader, p.leaderEpoch, p.epoch}
}

// waitFor polls cond until it holds (a test deadline, not a threshold of
// the behaviour: the sandbox's clock runs at wall-clock speed).
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func ctx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// alter sends one AlterPartitionReassignments of one partition (nil
// replicas: cancel) and returns its error code and message.
func alter(t *testing.T, cl *kgo.Client, version int16, allowRF bool, topic string, part int32, replicas []int32) (int16, string) {
	t.Helper()
	req := kmsg.NewPtrAlterPartitionAssignmentsRequest()
	req.Version = version
	req.AllowReplicationFactorChange = allowRF
	rt := kmsg.NewAlterPartitionAssignmentsRequestTopic()
	rt.Topic = topic
	rp := kmsg.NewAlterPartitionAssignmentsRequestTopicPartition()
	rp.Partition, rp.Replicas = part, replicas
	rt.Partitions = append(rt.Partitions, rp)
	req.Topics = append(req.Topics, rt)
	resp, err := req.RequestWith(ctx(t), cl)
	if err != nil {
		t.Fatal(err)
	}
	p := resp.Topics[0].Partitions[0]
	msg := "<null>"
	if p.ErrorMessage != nil {
		msg = *p.ErrorMessage
	}
	return p.ErrorCode, msg
}

func listReassignments(t *testing.T, cl *kgo.Client) map[string][]kmsg.ListPartitionReassignmentsResponseTopicPartition {
	t.Helper()
	resp, err := kmsg.NewPtrListPartitionReassignmentsRequest().RequestWith(ctx(t), cl)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]kmsg.ListPartitionReassignmentsResponseTopicPartition{}
	for _, rt := range resp.Topics {
		out[rt.Topic] = rt.Partitions
	}
	return out
}

func TestReassignmentCompletes(t *testing.T) {
	c := startTest(t, Config{})
	cl := client(t, c)
	mkTopic(t, c, "moves", [][]int32{{1, 2, 3}}, nil, 32<<20)
	before := state(c, "moves", 0)
	if code, msg := alter(t, cl, 0, true, "moves", 0, []int32{4, 5, 1}); code != 0 {
		t.Fatalf("alter: %d %s", code, msg)
	}
	s := state(c, "moves", 0)
	if !slices.Equal(s.replicas, []int32{4, 5, 1, 2, 3}) || !slices.Equal(s.adding, []int32{4, 5}) || !slices.Equal(s.removing, []int32{2, 3}) {
		t.Fatalf("started: %+v", s)
	}
	if s.leader != 1 || s.leaderEpoch != before.leaderEpoch {
		t.Errorf("the leader stays while copying: %+v", s)
	}
	l := listReassignments(t, cl)["moves"]
	if len(l) != 1 || !slices.Equal(l[0].Replicas, []int32{4, 5, 1, 2, 3}) || !slices.Equal(l[0].AddingReplicas, []int32{4, 5}) || !slices.Equal(l[0].RemovingReplicas, []int32{2, 3}) {
		t.Fatalf("listed: %+v", l)
	}
	waitFor(t, "the reassignment to complete", func() bool { return !state(c, "moves", 0).reassigning() })
	s = state(c, "moves", 0)
	if !slices.Equal(s.replicas, []int32{4, 5, 1}) || !slices.Equal(s.isr, []int32{1, 4, 5}) || s.leader != 1 {
		t.Fatalf("completed: %+v", s)
	}
	if s.leaderEpoch != before.leaderEpoch+1 {
		t.Errorf("removing replicas bumps the leader epoch: %d, was %d", s.leaderEpoch, before.leaderEpoch)
	}
	if len(listReassignments(t, cl)) != 0 {
		t.Errorf("still listed after completion")
	}
	// A reassignment away from the leader elects the target's first
	// in-sync replica.
	if code, msg := alter(t, cl, 0, true, "moves", 0, []int32{5, 4}); code != 0 {
		t.Fatalf("alter: %d %s", code, msg)
	}
	s = state(c, "moves", 0)
	if !slices.Equal(s.replicas, []int32{5, 4}) || s.leader != 5 || s.reassigning() {
		t.Fatalf("shrink away from the leader completes at once: %+v", s)
	}
}

func (s pstate) reassigning() bool { return len(s.adding) > 0 || len(s.removing) > 0 }

func TestThrottledReassignmentIsSlower(t *testing.T) {
	c := startTest(t, Config{})
	cl := client(t, c)
	mkTopic(t, c, "fast", [][]int32{{1}}, nil, 256<<20)
	mkTopic(t, c, "slow", [][]int32{{2}}, map[string]string{followerThrottledReplicas: "0:4"}, 256<<20)
	c.mu.Lock()
	c.brokerConfigs["4"] = map[string]string{followerThrottledRate: "1048576"}
	c.mu.Unlock()
	for _, m := range []struct {
		topic string
		to    []int32
	}{{"fast", []int32{3}}, {"slow", []int32{4}}} {
		if code, msg := alter(t, cl, 0, true, m.topic, 0, m.to); code != 0 {
			t.Fatalf("%s: %d %s", m.topic, code, msg)
		}
	}
	var copies []CopyStatus
	waitFor(t, "both copies to run", func() bool {
		copies = c.Copies()
		return len(copies) == 2 && copies[0].Rate > 0 && copies[1].Rate > 0
	})
	fast, slow := copies[0], copies[1]
	if fast.Topic != "fast" || fast.Rate != ReplicationRate || fast.Throttled {
		t.Errorf("fast copy: %+v", fast)
	}
	if slow.Topic != "slow" || slow.Rate != 1<<20 || !slow.Throttled {
		t.Errorf("throttled copy: %+v", slow)
	}
	waitFor(t, "the unthrottled reassignment", func() bool { return !state(c, "fast", 0).reassigning() })
	if s := state(c, "slow", 0); !s.reassigning() {
		t.Errorf("the throttled copy finished with the unthrottled one: %+v", s)
	}
	cs := c.Copies()
	if len(cs) != 1 || cs[0].Copied >= cs[0].Size {
		t.Errorf("throttled copy: %+v", cs)
	}
}

func TestCancelReassignment(t *testing.T) {
	c := startTest(t, Config{})
	cl := client(t, c)
	mkTopic(t, c, "big", [][]int32{{1, 2}}, nil, 1<<40)
	if code, msg := alter(t, cl, 0, true, "big", 0, nil); code != kerr.NoReassignmentInProgress.Code || msg != "<null>" {
		t.Errorf("cancel of nothing: %d %q", code, msg)
	}
	if code, msg := alter(t, cl, 0, true, "big", 0, []int32{3, 4}); code != 0 {
		t.Fatalf("alter: %d %s", code, msg)
	}
	if code, msg := alter(t, cl, 0, true, "big", 0, nil); code != 0 {
		t.Fatalf("cancel: %d %s", code, msg)
	}
	s := state(c, "big", 0)
	if !slices.Equal(s.replicas, []int32{1, 2}) || s.reassigning() || s.leader != 1 || !slices.Equal(s.isr, []int32{1, 2}) {
		t.Errorf("cancelled: %+v", s)
	}
	if len(listReassignments(t, cl)) != 0 || len(c.Copies()) != 0 {
		t.Errorf("still reassigning after the cancel")
	}
}

func TestReassignmentRefusals(t *testing.T) {
	c := startTest(t, Config{})
	cl := client(t, c)
	mkTopic(t, c, "r", [][]int32{{1, 2}}, nil, 1<<20)
	c.mu.Lock()
	c.broker(6).dirs[0].cordoned = true
	c.mu.Unlock()
	for _, tc := range []struct {
		topic    string
		part     int32
		replicas []int32
		v1NoRF   bool
		code     int16
		msg      string
	}{
		{"nope", 0, []int32{1}, false, kerr.UnknownTopicOrPartition.Code, "Unable to find a topic named nope."},
		{"r", 7, []int32{1}, false, kerr.UnknownTopicOrPartition.Code, "Unable to find partition r:7."},
		{"r", 0, []int32{}, false, kerr.InvalidReplicaAssignment.Code, "The manual partition assignment includes an empty replica list."},
		{"r", 0, []int32{2, 2}, false, kerr.InvalidReplicaAssignment.Code, "The manual partition assignment includes the broker 2 more than once."},
		{"r", 0, []int32{1, 9}, false, kerr.InvalidReplicaAssignment.Code, "The manual partition assignment includes broker 9, but no such broker is registered."},
		{"r", 0, []int32{1, 6}, false, kerr.InvalidReplicaAssignment.Code, "The manual partition assignment includes broker 6, but all its log directories are cordoned."},
		{"r", 0, []int32{1, 2, 3}, true, kerr.InvalidReplicationFactor.Code, "The replication factor is changed from 2 to 3"},
	} {
		v := int16(0)
		if tc.v1NoRF {
			v = 1
		}
		code, msg := alter(t, cl, v, !tc.v1NoRF, tc.topic, tc.part, tc.replicas)
		if code != tc.code || msg != tc.msg {
			t.Errorf("%s-%d %v: %d %q, want %d %q", tc.topic, tc.part, tc.replicas, code, msg, tc.code, tc.msg)
		}
	}
}

// elect sends one ElectLeaders (topics nil: all) and returns the results
// by "topic-partition".
func elect(t *testing.T, cl *kgo.Client, typ int8, topics map[string][]int32) map[string][2]any {
	t.Helper()
	req := kmsg.NewPtrElectLeadersRequest()
	req.ElectionType = typ
	req.TimeoutMillis = 10000
	if topics != nil {
		req.Topics = []kmsg.ElectLeadersRequestTopic{}
		for name, ids := range topics {
			rt := kmsg.NewElectLeadersRequestTopic()
			rt.Topic, rt.Partitions = name, ids
			req.Topics = append(req.Topics, rt)
		}
	}
	// The client's cached controller may be a broker the test killed:
	// retry, as Kafka's admin client does, with fresh metadata.
	resp, err := req.RequestWith(ctx(t), cl)
	for i := 0; err != nil && i < 10; i++ {
		cl.ForceMetadataRefresh()
		time.Sleep(100 * time.Millisecond)
		resp, err = req.RequestWith(ctx(t), cl)
	}
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][2]any{}
	for _, rt := range resp.Topics {
		for _, p := range rt.Partitions {
			var msg any
			if p.ErrorMessage != nil {
				msg = *p.ErrorMessage
			}
			out[rt.Topic+"-"+strconv.Itoa(int(p.Partition))] = [2]any{p.ErrorCode, msg}
		}
	}
	return out
}

func TestElections(t *testing.T) {
	c := startTest(t, Config{Brokers: 3, Racks: 1, SessionTimeout: 300 * time.Millisecond, NoAutoLeaderRebalance: true})
	cl := client(t, c)
	mkTopic(t, c, "e", [][]int32{{1, 2, 3}, {2, 3, 1}}, nil, 1<<20)
	res := elect(t, cl, 0, map[string][]int32{"e": {0, 5}, "none": {0}})
	if got := res["e-0"]; got != [2]any{kerr.ElectionNotNeeded.Code, "Leader election not needed for topic partition."} {
		t.Errorf("preferred leader already: %v", got)
	}
	if got := res["e-5"]; got != [2]any{kerr.UnknownTopicOrPartition.Code, "No such partition as e-5"} {
		t.Errorf("unknown partition: %v", got)
	}
	if got := res["none-0"]; got != [2]any{kerr.UnknownTopicOrPartition.Code, "No such topic as none"} {
		t.Errorf("unknown topic: %v", got)
	}
	// A controlled shutdown of broker 1 moves e-0's leadership to 2.
	if err := c.Stop(1); err != nil {
		t.Fatal(err)
	}
	if s := state(c, "e", 0); s.leader != 2 || !slices.Equal(s.isr, []int32{2, 3}) {
		t.Fatalf("after stopping 1: %+v", s)
	}
	if got := elect(t, cl, 0, map[string][]int32{"e": {0}})["e-0"]; got != [2]any{kerr.PreferredLeaderNotAvailable.Code, "The preferred leader was not available."} {
		t.Errorf("preferred leader down: %v", got)
	}
	if err := c.Restart(1); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "broker 1 to rejoin e-0's ISR", func() bool { return slices.Contains(state(c, "e", 0).isr, 1) })
	if s := state(c, "e", 0); s.leader != 2 {
		t.Fatalf("the automatic rebalance is off, yet: %+v", s)
	}
	all := elect(t, cl, 0, nil)
	if got, ok := all["e-0"]; !ok || got != [2]any{int16(0), nil} || len(all) != 1 {
		t.Errorf("elect all: %v", all)
	}
	if s := state(c, "e", 0); s.leader != 1 {
		t.Errorf("after the preferred election: %+v", s)
	}
	// Unclean: a partition with a leader needs none; one whose ISR is down
	// elects a live replica outside it.
	if got := elect(t, cl, 1, map[string][]int32{"e": {1}})["e-1"]; got[0] != kerr.ElectionNotNeeded.Code {
		t.Errorf("unclean with a leader: %v", got)
	}
	mkTopic(t, c, "u", [][]int32{{3, 2}}, nil, 1<<40)
	c.mu.Lock()
	up := c.topics["u"].parts[0]
	c.change(c.topics["u"], up, []int32{3}, electAny) // 2 fell behind
	up.copied[2] = 0
	c.mu.Unlock()
	if err := c.Kill(3); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "u-0 to lose its leader", func() bool { return state(c, "u", 0).leader < 0 })
	if err := c.Kill(2); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "broker 2 to be fenced", func() bool { c.mu.Lock(); defer c.mu.Unlock(); return c.broker(2).fenced })
	if got := elect(t, cl, 1, map[string][]int32{"u": {0}})["u-0"]; got != [2]any{kerr.EligibleLeadersNotAvailable.Code, "Eligible topic partition leaders are not available."} {
		t.Errorf("unclean with no live replica: %v", got)
	}
	if err := c.Restart(2); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "broker 2 to be unfenced", func() bool { c.mu.Lock(); defer c.mu.Unlock(); return !c.broker(2).fenced })
	before := state(c, "u", 0)
	if got := elect(t, cl, 1, map[string][]int32{"u": {0}})["u-0"]; got != [2]any{int16(0), nil} {
		t.Errorf("unclean election: %v", got)
	}
	if s := state(c, "u", 0); s.leader != 2 || !slices.Equal(s.isr, []int32{2}) || s.leaderEpoch != before.leaderEpoch+1 {
		t.Errorf("after the unclean election: %+v (before %+v)", s, before)
	}
}

func TestAutomaticRebalance(t *testing.T) {
	c := startTest(t, Config{Brokers: 3, Racks: 1, LeaderImbalanceCheckInterval: 500 * time.Millisecond})
	mkTopic(t, c, "a", [][]int32{{1, 2}}, nil, 1<<20)
	if err := c.Stop(1); err != nil {
		t.Fatal(err)
	}
	if s := state(c, "a", 0); s.leader != 2 {
		t.Fatalf("after stopping 1: %+v", s)
	}
	if err := c.Restart(1); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the preferred leader back", func() bool { return state(c, "a", 0).leader == 1 })
}

// TestFencingAndELR kills the brokers of a topic with min.insync.replicas=2
// one by one: each is fenced after the session timeout, its leaderships
// move, the ISR shrinks, and the replicas leaving an ISR below 2 become
// eligible leaders (KIP-966); a broker restarted after a hard kill leaves
// the ELR, rejoins the ISR once caught up.
func TestFencingAndELR(t *testing.T) {
	c := startTest(t, Config{Brokers: 4, Racks: 1, SessionTimeout: 300 * time.Millisecond, NoAutoLeaderRebalance: true})
	cl := client(t, c)
	mkTopic(t, c, "elr", [][]int32{{1, 2, 3}}, map[string]string{"min.insync.replicas": "2"}, 8<<20)
	c.mu.Lock()
	c.topics["elr"].parts[0].rate = 1 << 20
	c.ext.repl.scanned = false
	c.mu.Unlock()
	fenced := func(id int32) func() bool {
		return func() bool { c.mu.Lock(); defer c.mu.Unlock(); return c.broker(id).fenced }
	}
	kill := func(id int) {
		t.Helper()
		if err := c.Kill(id); err != nil {
			t.Fatal(err)
		}
		waitFor(t, "the fencing", fenced(int32(id)))
	}
	kill(1)
	s := state(c, "elr", 0)
	if s.leader != 2 || !slices.Equal(s.isr, []int32{2, 3}) || len(s.elr) != 0 {
		t.Fatalf("after killing 1: %+v", s)
	}
	md := metadataPartition(t, cl, "elr", 0)
	if md.Leader != 2 || !slices.Equal(md.ISR, []int32{2, 3}) || !slices.Equal(md.OfflineReplicas, []int32{1}) || md.LeaderEpoch != s.leaderEpoch {
		t.Errorf("metadata after killing 1: %+v", md)
	}
	kill(2)
	if s = state(c, "elr", 0); s.leader != 3 || !slices.Equal(s.isr, []int32{3}) || !slices.Equal(s.elr, []int32{2}) {
		t.Fatalf("after killing 2: %+v", s)
	}
	kill(3)
	if s = state(c, "elr", 0); s.leader != -1 || len(s.isr) != 0 || !slices.Equal(s.elr, []int32{2, 3}) || !slices.Equal(s.lastKnown, []int32{3}) {
		t.Fatalf("after killing 3: %+v", s)
	}
	// 2 comes back from a hard kill: no longer an eligible leader.
	if err := c.Restart(2); err != nil {
		t.Fatal(err)
	}
	if s = state(c, "elr", 0); s.leader != -1 || !slices.Equal(s.elr, []int32{3}) {
		t.Fatalf("after restarting 2: %+v", s)
	}
	waitFor(t, "broker 2 unfenced", func() bool { return !fenced(2)() })
	if s = state(c, "elr", 0); s.leader != -1 {
		t.Fatalf("2 is not eligible, yet: %+v", s)
	}
	// 3 comes back too: out of the ELR, but the last known leader, so it
	// leads again once unfenced (balanced recovery).
	if err := c.Restart(3); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "3 leading", func() bool { return state(c, "elr", 0).leader == 3 })
	if s = state(c, "elr", 0); !slices.Contains(s.isr, 3) || len(s.elr) != 0 || len(s.lastKnown) != 0 {
		t.Fatalf("after 3's return: %+v", s)
	}
	// 2 catches up with what 3 holds and rejoins the ISR, which clears
	// the ELR; 1 rejoins after its restart.
	waitFor(t, "2 in the ISR", func() bool { return slices.Contains(state(c, "elr", 0).isr, 2) })
	if err := c.Restart(1); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "1 in the ISR", func() bool { return len(state(c, "elr", 0).isr) == 3 })
}

// TestCleanStopKeepsELR: a broker stopped cleanly stays an eligible
// leader and leads again when it returns.
func TestCleanStopKeepsELR(t *testing.T) {
	c := startTest(t, Config{Brokers: 3, Racks: 1, NoAutoLeaderRebalance: true})
	mkTopic(t, c, "clean", [][]int32{{1, 2}}, map[string]string{"min.insync.replicas": "2"}, 1<<20)
	for _, id := range []int{1, 2} {
		if err := c.Stop(id); err != nil {
			t.Fatal(err)
		}
	}
	if s := state(c, "clean", 0); s.leader != -1 || len(s.isr) != 0 || !slices.Equal(s.elr, []int32{1, 2}) {
		t.Fatalf("after stopping 1 and 2: %+v", s)
	}
	if err := c.Restart(1); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "1 leading from the ELR", func() bool { return state(c, "clean", 0).leader == 1 })
	if s := state(c, "clean", 0); !slices.Equal(s.isr, []int32{1}) || !slices.Equal(s.elr, []int32{2}) {
		t.Fatalf("after restarting 1: %+v", s)
	}
}

func metadataPartition(t *testing.T, cl *kgo.Client, topic string, part int32) kmsg.MetadataResponseTopicPartition {
	t.Helper()
	req := kmsg.NewPtrMetadataRequest()
	rt := kmsg.NewMetadataRequestTopic()
	rt.Topic = &topic
	req.Topics = append(req.Topics, rt)
	resp, err := req.RequestWith(ctx(t), cl)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range resp.Topics[0].Partitions {
		if p.Partition == part {
			return p
		}
	}
	t.Fatalf("no partition %s-%d", topic, part)
	return kmsg.MetadataResponseTopicPartition{}
}

// BenchmarkTickMillionPartitions is one tick of a cluster of 1,000,000
// partitions of which 1,000 grow and none copies.
func BenchmarkTickMillionPartitions(b *testing.B) {
	c := startTest(b, Config{Brokers: 6, Tick: time.Hour, NoAutoLeaderRebalance: true})
	c.mu.Lock()
	for i := range 1000 {
		rs := make([][]int32, 1000)
		for j := range rs {
			rs[j] = []int32{int32(j%6 + 1), int32((j+1)%6 + 1)}
		}
		t := c.addTopic("t"+strconv.Itoa(i), rs, nil)
		t.parts[0].rate = 1000
	}
	now := time.Now()
	c.tick(now, 0)
	c.mu.Unlock()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		c.mu.Lock()
		now = now.Add(100 * time.Millisecond)
		c.tick(now, 100*time.Millisecond)
		c.mu.Unlock()
	}
}
