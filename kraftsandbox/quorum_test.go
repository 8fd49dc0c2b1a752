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

// nodeRequest sends req to one node's listener (a broker's or a
// controller's) and returns its answer.
func nodeRequest[R kmsg.Response](t testing.TB, addr string, req kmsg.Request) R {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.RequestRetries(0))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	resp, err := cl.SeedBrokers()[0].Request(ctx, req)
	if err != nil {
		t.Fatalf("%s to %s: %v", kmsg.NameForKey(req.Key()), addr, err)
	}
	return resp.(R)
}

func (c *Cluster) addrOf(id int32) string {
	if b := c.broker(id); b != nil {
		return b.n.addr()
	}
	return c.controller(id).n.addr()
}

// describeQuorum asks node id for the quorum.
func describeQuorum(t testing.TB, c *Cluster, id int32) *kmsg.DescribeQuorumResponse {
	t.Helper()
	req := kmsg.NewPtrDescribeQuorumRequest()
	rt := kmsg.NewDescribeQuorumRequestTopic()
	rt.Topic = "__cluster_metadata"
	rt.Partitions = append(rt.Partitions, kmsg.NewDescribeQuorumRequestTopicPartition())
	req.Topics = append(req.Topics, rt)
	return nodeRequest[*kmsg.DescribeQuorumResponse](t, c.addrOf(id), req)
}

// quorumPart is the answer's one partition, failing the test on an error.
func quorumPart(t testing.TB, resp *kmsg.DescribeQuorumResponse) kmsg.DescribeQuorumResponseTopicPartition {
	t.Helper()
	if resp.ErrorCode != 0 || len(resp.Topics) != 1 || len(resp.Topics[0].Partitions) != 1 {
		t.Fatalf("DescribeQuorum: error %d, topics %+v", resp.ErrorCode, resp.Topics)
	}
	p := resp.Topics[0].Partitions[0]
	if p.ErrorCode != 0 {
		t.Fatalf("DescribeQuorum: partition error %v", kerr.ErrorForCode(p.ErrorCode))
	}
	return p
}

func replica(rs []kmsg.DescribeQuorumResponseTopicPartitionReplicaState, id int32) (kmsg.DescribeQuorumResponseTopicPartitionReplicaState, bool) {
	for _, r := range rs {
		if r.ReplicaID == id {
			return r, true
		}
	}
	return kmsg.DescribeQuorumResponseTopicPartitionReplicaState{}, false
}

// eventually polls cond until it holds (or fails the test after a
// generous while: the sandbox's ticks are 100 ms).
func eventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("never: %s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestDescribeQuorum(t *testing.T) {
	c := startTest(t, Config{Brokers: 3, Controllers: 3})
	for _, id := range []int32{1, 3000} {
		resp := describeQuorum(t, c, id)
		if resp.Topics[0].Topic != "__cluster_metadata" {
			t.Errorf("node %d: topic %q", id, resp.Topics[0].Topic)
		}
		p := quorumPart(t, resp)
		if p.LeaderID != 3000 || p.LeaderEpoch != 1 || p.HighWatermark <= 0 {
			t.Errorf("node %d: leader %d epoch %d hw %d", id, p.LeaderID, p.LeaderEpoch, p.HighWatermark)
		}
		var voters, observers []int32
		for _, v := range p.CurrentVoters {
			voters = append(voters, v.ReplicaID)
			if v.ReplicaDirectoryID != ([16]byte{}) {
				t.Errorf("voter %d of a static quorum has directory id %x", v.ReplicaID, v.ReplicaDirectoryID)
			}
			if v.LogEndOffset < 0 || v.LastFetchTimestamp < 0 || v.LastCaughtUpTimestamp < 0 {
				t.Errorf("live voter %+v", v)
			}
		}
		for _, o := range p.Observers {
			observers = append(observers, o.ReplicaID)
			if o.ReplicaDirectoryID == ([16]byte{}) {
				t.Errorf("observer %d has no directory id", o.ReplicaID)
			}
		}
		if !slices.Equal(voters, []int32{3000, 3001, 3002}) || !slices.Equal(observers, []int32{1, 2, 3}) {
			t.Errorf("node %d: voters %v observers %v", id, voters, observers)
		}
		var nodes []int32
		for _, n := range resp.Nodes {
			nodes = append(nodes, n.NodeID)
			if len(n.Listeners) != 1 || n.Listeners[0].Name != "CONTROLLER" || c.addrOf(n.NodeID) != n.Listeners[0].Host+":"+strconv.Itoa(int(n.Listeners[0].Port)) {
				t.Errorf("node %d listeners %+v", n.NodeID, n.Listeners)
			}
		}
		if !slices.Equal(nodes, []int32{3000, 3001, 3002}) {
			t.Errorf("nodes %v", nodes)
		}
	}
	// A follower answers NOT_LEADER_OR_FOLLOWER, as KafkaRaftClient does.
	resp := describeQuorum(t, c, 3001)
	if got := resp.Topics[0].Partitions[0].ErrorCode; got != kerr.NotLeaderForPartition.Code {
		t.Errorf("follower: error %v", kerr.ErrorForCode(got))
	}
	// Another topic is unknown.
	req := kmsg.NewPtrDescribeQuorumRequest()
	rt := kmsg.NewDescribeQuorumRequestTopic()
	rt.Topic = "foo"
	rt.Partitions = append(rt.Partitions, kmsg.NewDescribeQuorumRequestTopicPartition())
	req.Topics = append(req.Topics, rt)
	bad := nodeRequest[*kmsg.DescribeQuorumResponse](t, c.addrOf(1), req)
	if p := bad.Topics[0].Partitions[0]; p.ErrorCode != kerr.UnknownTopicOrPartition.Code || *p.ErrorMessage != "This server does not host this topic-partition." {
		t.Errorf("unknown topic: %v %v", kerr.ErrorForCode(p.ErrorCode), p.ErrorMessage)
	}
	// The offsets move on an idle cluster (the leader's NoOpRecords).
	hw := quorumPart(t, describeQuorum(t, c, 1)).HighWatermark
	eventually(t, "the high watermark moves", func() bool { return quorumPart(t, describeQuorum(t, c, 1)).HighWatermark > hw })
}

func TestQuorumLeaderKilled(t *testing.T) {
	defer func(d time.Duration) { forwardTimeout = d }(forwardTimeout)
	forwardTimeout = time.Second
	c := startTest(t, Config{Brokers: 3, Controllers: 3})
	p := quorumPart(t, describeQuorum(t, c, 1))
	e1 := p.LeaderEpoch
	if err := c.Kill(3000); err != nil {
		t.Fatal(err)
	}
	p = quorumPart(t, describeQuorum(t, c, 1))
	if p.LeaderID != 3001 || p.LeaderEpoch <= e1 {
		t.Fatalf("after killing the leader: leader %d epoch %d (was 3000, %d)", p.LeaderID, p.LeaderEpoch, e1)
	}
	e2 := p.LeaderEpoch
	// The dead voter never fetched from the new leader: -1 as a new
	// LeaderState has it, its lag the whole log.
	if v, _ := replica(p.CurrentVoters, 3000); v.LogEndOffset != -1 || v.LastFetchTimestamp != -1 || v.LastCaughtUpTimestamp != -1 {
		t.Errorf("dead voter 3000: %+v", v)
	}
	if v, _ := replica(p.CurrentVoters, 3002); v.LogEndOffset < 0 {
		t.Errorf("live voter 3002: %+v", v)
	}
	// The old leader's listener is closed; the new one answers.
	if quorumPart(t, describeQuorum(t, c, 3001)).LeaderID != 3001 {
		t.Error("3001 does not answer as leader")
	}
	// Two of three dead: no leader. Controllers answer
	// NOT_LEADER_OR_FOLLOWER; a broker holds the request then times out.
	eventually(t, "a tick sees leader 3001", func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		return c.ext.quorum.lastLeader == 3001
	})
	if err := c.Kill(3001); err != nil {
		t.Fatal(err)
	}
	if got := describeQuorum(t, c, 3002).Topics[0].Partitions[0].ErrorCode; got != kerr.NotLeaderForPartition.Code {
		t.Errorf("no leader, controller: %v", kerr.ErrorForCode(got))
	}
	if got := describeQuorum(t, c, 1).ErrorCode; got != kerr.RequestTimedOut.Code {
		t.Errorf("no leader, broker: %v", kerr.ErrorForCode(got))
	}
	// A controller keeps naming the last leader it knew, as a real one
	// does.
	un := kmsg.NewPtrUnregisterBrokerRequest()
	un.BrokerID = 99
	if r := nodeRequest[*kmsg.UnregisterBrokerResponse](t, c.addrOf(3002), un); r.ErrorCode != kerr.NotController.Code ||
		*r.ErrorMessage != "The active controller appears to be node 3001." {
		t.Errorf("no leader, unregister on a controller: %v %v", kerr.ErrorForCode(r.ErrorCode), r.ErrorMessage)
	}
	// A majority back: a leader in a later epoch.
	if err := c.Restart(3000); err != nil {
		t.Fatal(err)
	}
	p = quorumPart(t, describeQuorum(t, c, 1))
	if p.LeaderID < 0 || p.LeaderEpoch <= e2 {
		t.Errorf("after restart: leader %d epoch %d (was %d)", p.LeaderID, p.LeaderEpoch, e2)
	}
}

func TestQuorumDeadFollowerAndObserverFreeze(t *testing.T) {
	c := startTest(t, Config{Brokers: 3, Controllers: 3})
	// Let every node fetch once in this epoch.
	eventually(t, "all fetched", func() bool {
		p := quorumPart(t, describeQuorum(t, c, 1))
		v, _ := replica(p.CurrentVoters, 3002)
		return v.LogEndOffset > 0 && len(p.Observers) == 3
	})
	if err := c.Kill(3002); err != nil {
		t.Fatal(err)
	}
	if err := c.Kill(2); err != nil {
		t.Fatal(err)
	}
	p0 := quorumPart(t, describeQuorum(t, c, 1))
	v0, _ := replica(p0.CurrentVoters, 3002)
	o0, _ := replica(p0.Observers, 2)
	eventually(t, "the log grows past the dead nodes", func() bool {
		return quorumPart(t, describeQuorum(t, c, 1)).HighWatermark > max(v0.LogEndOffset, o0.LogEndOffset)
	})
	p1 := quorumPart(t, describeQuorum(t, c, 1))
	if p1.LeaderID != 3000 {
		t.Errorf("leader %d, want 3000 (a majority is alive)", p1.LeaderID)
	}
	v1, _ := replica(p1.CurrentVoters, 3002)
	o1, ok := replica(p1.Observers, 2)
	if !sameFetch(v1, v0) || !ok || !sameFetch(o1, o0) {
		t.Errorf("dead nodes moved: voter %+v → %+v, observer %+v → %+v", v0, v1, o0, o1)
	}
	if v1.LogEndOffset < 0 || p1.HighWatermark-v1.LogEndOffset <= 0 {
		t.Errorf("dead voter's lag: hw %d leo %d", p1.HighWatermark, v1.LogEndOffset)
	}
	live, _ := replica(p1.Observers, 1)
	if live.LogEndOffset <= o1.LogEndOffset {
		t.Errorf("live observer %+v does not follow the log", live)
	}
}

func sameFetch(a, b kmsg.DescribeQuorumResponseTopicPartitionReplicaState) bool {
	return a.ReplicaID == b.ReplicaID && a.LogEndOffset == b.LogEndOffset &&
		a.LastFetchTimestamp == b.LastFetchTimestamp && a.LastCaughtUpTimestamp == b.LastCaughtUpTimestamp
}

func TestQuorumLeaderResignsWithoutMajority(t *testing.T) {
	c := startTest(t, Config{Brokers: 1, Controllers: 3})
	for _, id := range []int{3001, 3002} {
		if err := c.Kill(id); err != nil {
			t.Fatal(err)
		}
	}
	eventually(t, "the leader resigns", func() bool {
		return describeQuorum(t, c, 3000).Topics[0].Partitions[0].ErrorCode == kerr.NotLeaderForPartition.Code
	})
	c.mu.Lock()
	e := c.leaderEpoch
	c.mu.Unlock()
	if err := c.Restart(3001); err != nil {
		t.Fatal(err)
	}
	p := quorumPart(t, describeQuorum(t, c, 3000))
	if p.LeaderID != 3000 || p.LeaderEpoch <= e {
		t.Errorf("leader %d epoch %d (was %d)", p.LeaderID, p.LeaderEpoch, e)
	}
}

func TestRaftVotersAndUnregisterBroker(t *testing.T) {
	c := startTest(t, Config{Brokers: 3, Controllers: 3, DemoTopics: true})
	add := kmsg.NewPtrAddRaftVoterRequest()
	add.VoterID, add.VoterDirectoryID = 9999, [16]byte{1: 1}
	l := kmsg.NewAddRaftVoterRequestListener()
	l.Name, l.Host, l.Port = "CONTROLLER", "127.0.0.1", 1
	add.Listeners = append(add.Listeners, l)
	rm := kmsg.NewPtrRemoveRaftVoterRequest()
	rm.VoterID, rm.VoterDirectoryID = 3002, [16]byte{1: 1}
	for _, id := range []int32{1, 3000} {
		a := nodeRequest[*kmsg.AddRaftVoterResponse](t, c.addrOf(id), add)
		if a.ErrorCode != kerr.UnsupportedVersion.Code || *a.ErrorMessage != "Cluster doesn't support adding voter because the kraft.version feature is 0" {
			t.Errorf("AddRaftVoter on %d: %v %v", id, kerr.ErrorForCode(a.ErrorCode), a.ErrorMessage)
		}
		r := nodeRequest[*kmsg.RemoveRaftVoterResponse](t, c.addrOf(id), rm)
		if r.ErrorCode != kerr.UnsupportedVersion.Code || *r.ErrorMessage != "Cluster doesn't support removing voter because the kraft.version feature is 0" {
			t.Errorf("RemoveRaftVoter on %d: %v %v", id, kerr.ErrorForCode(r.ErrorCode), r.ErrorMessage)
		}
	}
	if a := nodeRequest[*kmsg.AddRaftVoterResponse](t, c.addrOf(3001), add); a.ErrorCode != kerr.NotLeaderForPartition.Code {
		t.Errorf("AddRaftVoter on a follower: %v", kerr.ErrorForCode(a.ErrorCode))
	}

	un := kmsg.NewPtrUnregisterBrokerRequest()
	un.BrokerID = 99
	if r := nodeRequest[*kmsg.UnregisterBrokerResponse](t, c.addrOf(1), un); r.ErrorCode != kerr.BrokerIDNotRegistered.Code || *r.ErrorMessage != "Broker ID 99 is not currently registered" {
		t.Errorf("unregister 99: %v %v", kerr.ErrorForCode(r.ErrorCode), r.ErrorMessage)
	}
	un.BrokerID = 2
	if r := nodeRequest[*kmsg.UnregisterBrokerResponse](t, c.addrOf(3001), un); r.ErrorCode != kerr.NotController.Code || *r.ErrorMessage != "The active controller appears to be node 3000." {
		t.Errorf("unregister on a follower: %v %v", kerr.ErrorForCode(r.ErrorCode), r.ErrorMessage)
	}
	// Kafka 4.4 unregisters a live broker too.
	if r := nodeRequest[*kmsg.UnregisterBrokerResponse](t, c.addrOf(1), un); r.ErrorCode != 0 {
		t.Fatalf("unregister 2: %v %v", kerr.ErrorForCode(r.ErrorCode), r.ErrorMessage)
	}
	meta := nodeRequest[*kmsg.MetadataResponse](t, c.addrOf(1), kmsg.NewPtrMetadataRequest())
	for _, b := range meta.Brokers {
		if b.NodeID == 2 {
			t.Error("broker 2 still in the metadata")
		}
	}
	for _, tp := range meta.Topics {
		for _, p := range tp.Partitions {
			if p.Leader == 2 || slices.Contains(p.ISR, 2) {
				t.Errorf("%s-%d: leader %d isr %v", *tp.Topic, p.Partition, p.Leader, p.ISR)
			}
		}
	}
	if r := nodeRequest[*kmsg.UnregisterBrokerResponse](t, c.addrOf(1), un); r.ErrorCode != kerr.BrokerIDNotRegistered.Code {
		t.Errorf("unregister 2 again: %v", kerr.ErrorForCode(r.ErrorCode))
	}
	// A restart registers it anew.
	if err := c.Kill(2); err != nil {
		t.Fatal(err)
	}
	if err := c.Restart(2); err != nil {
		t.Fatal(err)
	}
	c.mu.Lock()
	reg := c.broker(2).registered
	c.mu.Unlock()
	if !reg {
		t.Error("restarted broker 2 is not registered")
	}
}
