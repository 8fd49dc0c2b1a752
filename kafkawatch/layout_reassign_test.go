package kafkawatch

import (
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/ktopo/ktopo/cluster"
)

// wirePoll encodes resp as a broker sends it (Metadata v12), reads it as
// the poller does (against the layout: a topic whose bytes did not change
// is not decoded), and applies it with the reassignments listed.
func (h *harness) wirePoll(resp *kmsg.MetadataResponse, reassign map[string]map[int32]reassignInfo) []cluster.Change {
	h.t.Helper()
	resp.Version = 12
	r := &metaResponse{MetadataResponse: kmsg.MetadataResponse{Version: 12}, lay: h.l}
	if err := r.ReadFrom(resp.AppendTo(nil)); err != nil {
		h.t.Fatal(err)
	}
	v := &view{hasTopics: true, clusterID: "cid", brokers: brokers(), fencedListed: true, quorum: quorum(3001, 5),
		topics: r.topics, reassign: reassign}
	for _, b := range r.Brokers {
		if !slices.ContainsFunc(v.brokers, func(x brokerInfo) bool { return x.id == b.NodeID }) {
			v.brokers = append(v.brokers, brokerInfo{id: b.NodeID, host: b.Host, port: b.Port})
		}
	}
	_, changes := h.poll(v)
	return changes
}

// twelve is a Metadata response of one topic "t" of 12 partitions on
// brokers 1-3, each fully in sync.
func twelve() *kmsg.MetadataResponse {
	resp := kmsg.NewPtrMetadataResponse()
	resp.ClusterID = str("cid")
	mt := kmsg.NewMetadataResponseTopic()
	mt.Topic, mt.TopicID = str("t"), [16]byte{7}
	for p := range int32(12) {
		rs := []int32{1 + p%3, 1 + (p+1)%3, 1 + (p+2)%3}
		mt.Partitions = append(mt.Partitions, mdPart(p, rs[0], 0, rs, slices.Clone(rs)))
	}
	resp.Topics = []kmsg.MetadataResponseTopic{mt}
	return resp
}

// TestLayoutReassignmentOverPolls: a topic whose partitions move over
// several polls. While its Metadata stays the same (its bytes are not
// decoded) only the reassignments change: each partition that finishes
// is one reassignment_finished, and the topic never loses or regains its
// partitions (the poller used to rebuild such a topic from nothing: every
// poll in which a moved partition finished then reported
// partitions_added and partition_appeared for all 12 and
// reassignment_started again for those still moving, and almost never
// reassignment_finished).
func TestLayoutReassignmentOverPolls(t *testing.T) {
	h := newHarness(t)
	resp := twelve()
	none := map[string]map[int32]reassignInfo{}
	h.wirePoll(resp, none)

	// Partitions 0 and 1 start moving broker 1's replica to broker 4; the
	// broker's metadata shows the four replicas.
	moving := func(p int32) reassignInfo {
		rs := resp.Topics[0].Partitions[p].Replicas
		return reassignInfo{replicas: rs, adding: []int32{4}, removing: []int32{1}}
	}
	for _, p := range []int32{0, 1} {
		part := &resp.Topics[0].Partitions[p]
		part.Replicas = append(part.Replicas, 4)
	}
	list := map[string]map[int32]reassignInfo{"t": {0: moving(0), 1: moving(1)}}
	got := h.wirePoll(resp, list)
	if k := kinds(got); !slices.Equal(k, []cluster.ChangeKind{cluster.ChangeReassignmentStarted, cluster.ChangeReassignmentStarted}) {
		t.Fatalf("the moves start: %v", k)
	}
	// Nothing changed: nothing is reported.
	if got := h.wirePoll(resp, list); len(got) != 0 {
		t.Fatalf("a quiet poll while moving: %v", kinds(got))
	}
	// The controller finishes partition 0 before the broker's metadata
	// shows it: the list alone changed.
	list = map[string]map[int32]reassignInfo{"t": {1: moving(1)}}
	got = h.wirePoll(resp, list)
	if len(got) != 1 || got[0].Kind != cluster.ChangeReassignmentFinished || got[0].Partition != 0 {
		t.Fatalf("partition 0 finished: %v", got)
	}
	if n := len(h.m.Snapshot().Topic("t").Partitions); n != 12 {
		t.Fatalf("the topic holds %d partitions, want 12", n)
	}
	// The metadata catches up (broker 1 left partition 0), and partition
	// 1 finishes in the same poll.
	for _, p := range []int32{0, 1} {
		part := &resp.Topics[0].Partitions[p]
		part.Replicas = slices.DeleteFunc(slices.Clone(part.Replicas), func(b int32) bool { return b == 1 })
		part.ISR = slices.Clone(part.Replicas)
		part.Leader = part.Replicas[0]
		part.LeaderEpoch++
	}
	got = h.wirePoll(resp, none)
	for _, c := range got {
		switch c.Kind {
		case cluster.ChangePartitionsAdded, cluster.ChangePartitionAppeared, cluster.ChangeReassignmentStarted:
			t.Fatalf("the end of the moves reported %s: %v", c.Kind, kinds(got))
		}
	}
	finished := 0
	for _, c := range got {
		if c.Kind == cluster.ChangeReassignmentFinished {
			finished++
		}
	}
	if finished != 1 {
		t.Fatalf("partition 1's move finished %d times: %v", finished, kinds(got))
	}
	s := h.m.Snapshot().Topic("t")
	for _, p := range []int{0, 1} {
		if rs := s.Partition(p).Replicas; slices.Contains(rs, 1) || len(rs) != 3 || s.Partition(p).Reassigning() {
			t.Fatalf("t-%d after its move: %+v", p, s.Partition(p))
		}
	}
}

// TestLayoutReassignmentReplicasFromController: right after a move
// starts, a broker's metadata may still show the old replicas while the
// controller lists the move (Kafka 3.9 does): the topic's replicas are
// the controller's, so that they hold the replicas being added, as
// kafka-reassign-partitions --list prints them.
func TestLayoutReassignmentReplicasFromController(t *testing.T) {
	h := newHarness(t)
	resp := twelve()
	h.wirePoll(resp, map[string]map[int32]reassignInfo{})
	list := map[string]map[int32]reassignInfo{"t": {0: {replicas: []int32{4, 1, 2, 3}, adding: []int32{4}, removing: []int32{3}}}}
	h.wirePoll(resp, list)
	p := h.m.Snapshot().Topic("t").Partition(0)
	if !slices.Equal(p.Replicas, []int{4, 1, 2, 3}) || !slices.Equal(p.Adding(), []int{4}) || !slices.Equal(p.Removing(), []int{3}) {
		t.Fatalf("t-0 while the broker's metadata trails: replicas %v adding %v removing %v", p.Replicas, p.Adding(), p.Removing())
	}
	// Cancelled before the metadata showed it: back to Metadata's.
	h.wirePoll(resp, map[string]map[int32]reassignInfo{})
	p = h.m.Snapshot().Topic("t").Partition(0)
	if !slices.Equal(p.Replicas, []int{1, 2, 3}) || p.Reassigning() {
		t.Fatalf("t-0 after the cancel: %+v", p)
	}
}

// TestLayoutValuesAreTheJSONs: the poller hands the model its topic and
// state values typed (NodeEvent.Value), not as JSON; each value is what
// the model would have decoded from the JSON of Kafka's ZooKeeper layout
// for it, so the two paths are one.
func TestLayoutValuesAreTheJSONs(t *testing.T) {
	h := newHarness(t)
	resp := twelve()
	resp.Topics[0].Partitions[3].ISR = []int32{}
	resp.Topics[0].Partitions[3].Leader = -1
	part := &resp.Topics[0].Partitions[0]
	part.Replicas = append(part.Replicas, 4)
	list := map[string]map[int32]reassignInfo{"t": {0: {replicas: part.Replicas, adding: []int32{4}, removing: []int32{1}}}}
	resp.Version = 12
	r := &metaResponse{MetadataResponse: kmsg.MetadataResponse{Version: 12}, lay: h.l}
	if err := r.ReadFrom(resp.AppendTo(nil)); err != nil {
		t.Fatal(err)
	}
	events, _, _ := h.l.apply(&view{hasTopics: true, brokers: brokers(), topics: r.topics, reassign: list, quorum: quorum(3001, 5)})
	typed := 0
	for _, e := range events {
		switch v := e.Value.(type) {
		case *cluster.TopicAssignment:
			typed++
			back, err := cluster.DecodeTopicAssignment(cluster.EncodeTopicAssignment(*v))
			if err != nil || !reflect.DeepEqual(back, *v) {
				t.Fatalf("%s: %+v decodes from its JSON as %+v (%v)", e.Path, *v, back, err)
			}
		case *cluster.PartitionState:
			typed++
			back, err := cluster.DecodePartitionState(cluster.EncodePartitionState(*v))
			if err != nil || !reflect.DeepEqual(back, *v) {
				t.Fatalf("%s: %+v decodes from its JSON as %+v (%v)", e.Path, *v, back, err)
			}
		case nil:
		default:
			t.Fatalf("%s: a value of type %T", e.Path, v)
		}
	}
	if typed != 13 {
		t.Fatalf("%d typed values, want the topic's and its 12 states", typed)
	}
}

// TestStatsBeforeTheFirstLoad: the status bar shows no figures before
// the first load is over (it read "0 partitions · 0 ms a poll"), then the
// partitions and the poll's time.
func TestStatsBeforeTheFirstLoad(t *testing.T) {
	p := &Poller{lay: newLayout("")}
	if s := p.Stats(); len(s.Counts) != 0 || !s.LastHeard.IsZero() {
		t.Fatalf("before the first load: %+v", s)
	}
	p.lay.partitions = 12
	p.noted(time.Now().Add(-20*time.Millisecond), nil)
	if s := p.Stats(); len(s.Counts) != 2 || s.Counts[0].N != 12 || s.Counts[1].N < 20 {
		t.Fatalf("after it: %+v", s)
	}
}

// TestRefreshBrokers: the broker parts (configs, log directories and
// their cordons) are read every brokerEvery polls, and on each of the
// polls after RefreshBrokers (a cordon ktopo sent shows within a poll).
func TestRefreshBrokers(t *testing.T) {
	p := &Poller{lay: newLayout("")}
	reads := func(polls int) (n int) {
		for range polls {
			if p.nextJob(false).brokers != nil {
				n++
			}
			p.polls++
		}
		return n
	}
	p.nextJob(true)
	if n := reads(brokerEvery - 1); n != 0 {
		t.Fatalf("read the brokers %d times in the %d polls after the first", n, brokerEvery-1)
	}
	p.RefreshBrokers()
	if n := reads(brokersAfterChange); n != brokersAfterChange {
		t.Fatalf("after RefreshBrokers: read in %d of the next %d polls", n, brokersAfterChange)
	}
}
