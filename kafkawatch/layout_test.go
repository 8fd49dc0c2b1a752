package kafkawatch

import (
	"slices"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/ktopo/ktopo/cluster"
)

// The layout is pure: views in, node events out. These tests feed it
// polls as Kafka answers them and check what the model makes of the
// events, as the TUI and the commands see it.

func str(s string) *string { return &s }

func mdTopic(name string, id byte, parts ...kmsg.MetadataResponseTopicPartition) metaTopic {
	if parts == nil {
		parts = []kmsg.MetadataResponseTopicPartition{}
	}
	return metaTopic{name: name, id: [16]byte{id}, decoded: parts}
}

func mdPart(id, leader, epoch int32, replicas, isr []int32) kmsg.MetadataResponseTopicPartition {
	p := kmsg.NewMetadataResponseTopicPartition()
	p.Partition, p.Leader, p.LeaderEpoch, p.Replicas, p.ISR = id, leader, epoch, replicas, isr
	return p
}

func quorum(leader, epoch int32) *kmsg.DescribeQuorumResponseTopicPartition {
	q := kmsg.NewDescribeQuorumResponseTopicPartition()
	q.LeaderID, q.LeaderEpoch, q.HighWatermark = leader, epoch, 100
	for _, id := range []int32{3000, 3001, 3002} {
		r := kmsg.NewDescribeQuorumResponseTopicPartitionReplicaState()
		r.ReplicaID, r.LogEndOffset = id, 100
		q.CurrentVoters = append(q.CurrentVoters, r)
	}
	return &q
}

// harness is a layout feeding a model.
type harness struct {
	t     *testing.T
	l     *layout
	m     *cluster.Model
	clock time.Time
}

func newHarness(t *testing.T) *harness {
	return &harness{t: t, l: newLayout("PLAINTEXT"), m: cluster.NewModel(cluster.ModelOptions{}), clock: time.UnixMilli(1_800_000_000_000)}
}

// poll applies a view and returns the events and the model's changes.
func (h *harness) poll(v *view) ([]cluster.NodeEvent, []cluster.Change) {
	h.clock = h.clock.Add(time.Second)
	v.at = h.clock
	events, k, elr := h.l.apply(v)
	if k != nil {
		h.m.SetKRaft(k)
	}
	changes := h.m.Apply(events, false)
	h.m.ApplyELR(elr)
	return events, changes
}

func kinds(cs []cluster.Change) []cluster.ChangeKind {
	var out []cluster.ChangeKind
	for _, c := range cs {
		out = append(out, c.Kind)
	}
	return out
}

func brokers(fenced ...int32) []brokerInfo {
	var out []brokerInfo
	for id := int32(1); id <= 3; id++ {
		out = append(out, brokerInfo{id: id, host: "kafka-" + string(rune('0'+id)), port: 9092, rack: str("r" + string(rune('0'+id))), fenced: slices.Contains(fenced, id)})
	}
	return out
}

func baseView() *view {
	return &view{hasTopics: true, clusterID: "cid", brokers: brokers(), fencedListed: true, quorum: quorum(3001, 5),
		reassign: map[string]map[int32]reassignInfo{},
		topics: []metaTopic{
			mdTopic("a", 1, mdPart(1, 2, 0, []int32{2, 3}, []int32{2, 3}), mdPart(0, 1, 0, []int32{1, 2}, []int32{1, 2})),
			mdTopic("b", 2, mdPart(0, 3, 0, []int32{3, 1}, []int32{3, 1})),
		}}
}

func TestLayoutFirstPoll(t *testing.T) {
	h := newHarness(t)
	events, _ := h.poll(baseView())
	s := h.m.Snapshot()
	if s.ClusterID() != "cid" || s.Controller().BrokerID != 3001 || s.Controller().Epoch != 5 {
		t.Fatalf("cluster %q controller %+v", s.ClusterID(), s.Controller())
	}
	if len(s.Topics()) != 2 || len(s.LiveBrokerIDs()) != 3 {
		t.Fatalf("topics %d brokers %v", len(s.Topics()), s.LiveBrokerIDs())
	}
	a := s.Topic("a")
	if a.ID != "AQAAAAAAAAAAAAAAAAAAAA" || a.ReplicationFactor() != 2 || len(a.Partitions) != 2 {
		t.Fatalf("topic a %+v", a)
	}
	if p := a.Partition(1); p.Leader != 2 || !slices.Equal(p.Replicas, []int{2, 3}) || !slices.Equal(p.ISR, []int{2, 3}) {
		t.Fatalf("a-1 %+v", p)
	}
	b, _ := s.Broker(2)
	if b.Rack != "r2" || b.Addr() != "kafka-2:9092" || b.RegisteredAt != 0 {
		t.Fatalf("broker 2 %+v", b)
	}
	// A topic znode comes before its partitions' states (write order).
	ia, is := -1, -1
	for i, e := range events {
		switch e.Path {
		case "/brokers/topics/a":
			ia = i
		case "/brokers/topics/a/partitions/0/state":
			is = i
		}
		if i > 0 && e.Stat.Mzxid <= events[i-1].Stat.Mzxid {
			t.Fatalf("zxids not increasing at %s", e.Path)
		}
	}
	if ia < 0 || is < ia {
		t.Fatalf("topic at %d, its state at %d", ia, is)
	}
	k := s.KRaft()
	if k == nil || k.Quorum.LeaderID != 3001 || len(k.Quorum.Voters) != 3 || !k.FencedListed || len(k.Brokers) != 3 {
		t.Fatalf("KRaft facts %+v", k)
	}
	// The same poll again: nothing changed, nothing emitted.
	if events, _ := h.poll(baseView()); len(events) != 0 {
		t.Fatalf("an unchanged poll emitted %v", events)
	}
}

func TestLayoutChanges(t *testing.T) {
	h := newHarness(t)
	h.poll(baseView())

	// a-0's leader moves from 1 to 2, and 1 leaves its ISR.
	v := baseView()
	v.topics[0].decoded[1] = mdPart(0, 2, 1, []int32{1, 2}, []int32{2})
	events, changes := h.poll(v)
	if len(events) != 1 || events[0].Path != "/brokers/topics/a/partitions/0/state" || events[0].Stat.Version != 1 {
		t.Fatalf("events %+v", events)
	}
	if got := kinds(changes); !slices.Equal(got, []cluster.ChangeKind{cluster.ChangeLeaderMoved, cluster.ChangeIsrShrank}) {
		t.Fatalf("changes %v", got)
	}

	// Broker 1 is fenced: gone from the live brokers, shown fenced.
	v.brokers = brokers(1)
	_, changes = h.poll(v)
	if got := kinds(changes); !slices.Equal(got, []cluster.ChangeKind{cluster.ChangeBrokerGone}) {
		t.Fatalf("fenced: %v", got)
	}
	s := h.m.Snapshot()
	if b, _ := s.Broker(1); b.Live || !b.Fenced {
		t.Fatalf("broker 1 %+v", b)
	}
	// Unfenced again: a new registration.
	v.brokers = brokers()
	_, changes = h.poll(v)
	if got := kinds(changes); !slices.Equal(got, []cluster.ChangeKind{cluster.ChangeBrokerRegistered}) {
		t.Fatalf("unfenced: %v", got)
	}

	// The quorum elects 3002: the controller moves.
	v.quorum = quorum(3002, 6)
	_, changes = h.poll(v)
	if len(changes) != 1 || changes[0].Kind != cluster.ChangeControllerMoved || changes[0].From != 3001 || changes[0].To != 3002 || changes[0].Epoch != 6 {
		t.Fatalf("controller: %+v", changes)
	}

	// b-0 is reassigned from [3,1] to [1,2]: adding 2, removing 3.
	v.topics[1].decoded[0] = mdPart(0, 3, 0, []int32{1, 2, 3}, []int32{3, 1})
	v.reassign = map[string]map[int32]reassignInfo{"b": {0: {adding: []int32{2}, removing: []int32{3}}}}
	_, changes = h.poll(v)
	if got := kinds(changes); !slices.Equal(got, []cluster.ChangeKind{cluster.ChangeReassignmentStarted}) {
		t.Fatalf("reassignment: %v", got)
	}
	if p := h.m.Snapshot().Topic("b").Partition(0); !p.Reassigning() || !slices.Equal(p.Adding(), []int{2}) {
		t.Fatalf("b-0 %+v", p)
	}
	v.topics[1].decoded[0] = mdPart(0, 1, 1, []int32{1, 2}, []int32{1, 2})
	v.reassign = map[string]map[int32]reassignInfo{}
	_, changes = h.poll(v)
	if !slices.Contains(kinds(changes), cluster.ChangeReassignmentFinished) {
		t.Fatalf("reassignment done: %v", kinds(changes))
	}

	// a is deleted and created again with one partition: a new topic.
	v.topics[0] = mdTopic("a", 9, mdPart(0, 3, 0, []int32{3}, []int32{3}))
	v.topics[1] = mdTopic("b", 2, mdPart(0, 1, 1, []int32{1, 2}, []int32{1, 2}))
	_, changes = h.poll(v)
	got := kinds(changes)
	if !slices.Contains(got, cluster.ChangeTopicDeleted) || !slices.Contains(got, cluster.ChangeTopicCreated) {
		t.Fatalf("re-created: %v", got)
	}
	if a := h.m.Snapshot().Topic("a"); len(a.Partitions) != 1 || a.ID != "CQAAAAAAAAAAAAAAAAAAAA" {
		t.Fatalf("a %+v", a)
	}

	// b is deleted.
	v.topics = v.topics[:1]
	v.topics[0] = mdTopic("a", 9, mdPart(0, 3, 0, []int32{3}, []int32{3}))
	_, changes = h.poll(v)
	if got := kinds(changes); !slices.Equal(got, []cluster.ChangeKind{cluster.ChangeTopicDeleted}) || h.m.Snapshot().Topic("b") != nil {
		t.Fatalf("deleted: %v", got)
	}
}

func TestLayoutConfigsAndELR(t *testing.T) {
	h := newHarness(t)
	h.poll(baseView())
	denied := codeError(kerr.TopicAuthorizationFailed.Code, nil)
	_, changes := h.poll(&view{configs: map[string]topicConfig{
		"a": {entries: []cluster.ConfigEntry{{Key: "retention.ms", Value: "1000"}}},
		"b": {err: denied},
	}, inherited: &inheritance{set: map[string]string{"min.insync.replicas": "2"}}})
	s := h.m.Snapshot()
	if v, ok := s.Topic("a").ConfigValue("retention.ms"); !ok || v != "1000" {
		t.Fatalf("a's config %+v", s.Topic("a").Config)
	}
	if got := s.TopicAccess(s.Topic("b")); !slices.Equal(got, []string{"/config/topics/b"}) {
		t.Fatalf("b's config should be no access: %v", got)
	}
	if k := s.KRaft(); len(k.InheritedConfigs) != 1 {
		t.Fatalf("inherited %+v", k.InheritedConfigs)
	}
	_ = changes
	// A config changed later is a config change.
	_, changes = h.poll(&view{configs: map[string]topicConfig{"a": {entries: []cluster.ConfigEntry{{Key: "retention.ms", Value: "2000"}}}}})
	if got := kinds(changes); !slices.Equal(got, []cluster.ChangeKind{cluster.ChangeConfigChanged}) {
		t.Fatalf("config change: %v", got)
	}

	// b-0's ISR shrinks below min ISR: 1 is an eligible leader replica.
	v := baseView()
	v.topics[1].decoded[0] = mdPart(0, 3, 1, []int32{3, 1}, []int32{3})
	h.poll(v)
	if got := h.l.elrTopics(); !slices.Equal(got, []string{"b"}) {
		t.Fatalf("ELR asked of %v", got)
	}
	v = &view{}
	p := kmsg.NewDescribeTopicPartitionsResponseTopicPartition()
	p.Partition, p.EligibleLeaderReplicas, p.LastKnownELR = 0, []int32{1}, []int32{}
	v.elr, v.elrKnown = map[string][]kmsg.DescribeTopicPartitionsResponseTopicPartition{"b": {p}}, true
	h.poll(v)
	s = h.m.Snapshot()
	if part := s.Topic("b").Partition(0); !slices.Equal(part.ELR(), []int{1}) || part.LastKnownELR() != nil || !s.KRaft().ELR {
		t.Fatalf("b-0 ELR %v last %v known %v", part.ELR(), part.LastKnownELR(), s.KRaft().ELR)
	}
	// Back in sync: asked once more (it had an ELR), then no more.
	h.poll(baseView())
	if got := h.l.elrTopics(); !slices.Equal(got, []string{"b"}) {
		t.Fatalf("ELR asked of %v after recovery", got)
	}
	p.EligibleLeaderReplicas = []int32{}
	h.poll(&view{elr: map[string][]kmsg.DescribeTopicPartitionsResponseTopicPartition{"b": {p}}, elrKnown: true})
	if part := h.m.Snapshot().Topic("b").Partition(0); part.ELR() != nil {
		t.Fatalf("ELR left %v", part.ELR())
	}
	if got := h.l.elrTopics(); len(got) != 0 {
		t.Fatalf("ELR still asked of %v", got)
	}
}

// TestLayoutQuorumDenied: a session that may not describe the cluster
// sees the quorum as "no access", not as no quorum.
func TestLayoutQuorumDenied(t *testing.T) {
	h := newHarness(t)
	v := baseView()
	v.quorum, v.quorumErr = nil, codeError(kerr.ClusterAuthorizationFailed.Code, nil)
	h.poll(v)
	s := h.m.Snapshot()
	if k := s.KRaft(); k.QuorumErr != cluster.NoAccessText || s.Controller().BrokerID != -1 {
		t.Fatalf("quorum %+v controller %+v", k, s.Controller())
	}
	if err := v.quorumErr.Error(); err != "Cluster authorization failed. (CLUSTER_AUTHORIZATION_FAILED)" {
		t.Fatalf("Kafka's message: %s", err)
	}
}

// TestSplitLoadIsTheWholeLoad: a first load laid out in pieces (a large
// cluster's, view.split) emits the very events one piece would, ends
// with the same partition count, and the next poll still finds a topic
// gone (its generation is that of the whole poll, not of a piece).
func TestSplitLoadIsTheWholeLoad(t *testing.T) {
	mk := func() *view {
		v := &view{clusterID: "c1", hasTopics: true, brokers: brokers(), quorum: quorum(3000, 4)}
		for i := range 7 {
			var ps []kmsg.MetadataResponseTopicPartition
			for p := range int32(i%3 + 1) {
				ps = append(ps, mdPart(p, 1+p%3, 0, []int32{1 + p%3, 1 + (p+1)%3}, []int32{1 + p%3}))
			}
			v.topics = append(v.topics, mdTopic(string(rune('a'+i))+"-topic", byte(i+1), ps...))
		}
		return v
	}
	whole, split := newHarness(t), newHarness(t)
	wantEvents, _ := whole.poll(mk())
	pieces := mk().split(2)
	if len(pieces) < 3 {
		t.Fatalf("%d pieces of 7 topics cut at 2 partitions, want several", len(pieces))
	}
	var gotEvents []cluster.NodeEvent
	n := 0
	for i, piece := range pieces {
		if piece.more != (i < len(pieces)-1) || piece.cont != (i > 0) {
			t.Fatalf("piece %d: more %v cont %v", i, piece.more, piece.cont)
		}
		n += len(piece.topics)
		ev, _ := split.poll(piece)
		gotEvents = append(gotEvents, ev...)
	}
	if n != 7 {
		t.Fatalf("the pieces hold %d topics, want 7", n)
	}
	strip := func(evs []cluster.NodeEvent) []string {
		var out []string
		for _, e := range evs {
			out = append(out, e.Type.String()+" "+e.Path)
		}
		return out
	}
	if !slices.Equal(strip(gotEvents), strip(wantEvents)) {
		t.Fatalf("in pieces:\n%v\nwhole:\n%v", strip(gotEvents), strip(wantEvents))
	}
	if split.l.partitions != whole.l.partitions || split.l.partitions != 13 {
		t.Fatalf("partitions: in pieces %d, whole %d, want 13", split.l.partitions, whole.l.partitions)
	}
	ws, ss := whole.m.Snapshot(), split.m.Snapshot()
	if len(ws.Topics()) != 7 || len(ss.Topics()) != 7 || ws.Health() != ss.Health() {
		t.Fatalf("models differ: whole %d topics %+v, in pieces %d topics %+v", len(ws.Topics()), ws.Health(), len(ss.Topics()), ss.Health())
	}
	// The next poll lists one topic fewer: it is gone, in both.
	next := mk()
	next.topics = next.topics[1:]
	for _, h := range []*harness{whole, split} {
		h.poll(next)
		if s := h.m.Snapshot(); s.Topic("a-topic") != nil || len(s.Topics()) != 6 {
			t.Fatalf("a-topic not gone after a poll without it: %d topics", len(s.Topics()))
		}
	}
	// A view of fewer partitions than a piece is not cut.
	if v := mk(); len(v.split(1000)) != 1 || v.split(1000)[0] != v {
		t.Fatal("a small view was cut")
	}
}
