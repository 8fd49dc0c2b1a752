package kraftsandbox

import (
	"bytes"
	"slices"
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// referenceMetadata is a Metadata response built as kmsg structs from the
// state (what encodeMetadata writes by hand). c.mu is held.
func referenceMetadata(c *Cluster, req *kmsg.MetadataRequest, brokers []kmsg.MetadataResponseBroker, controller int32) *kmsg.MetadataResponse {
	resp := req.ResponseKind().(*kmsg.MetadataResponse)
	resp.Version = req.Version
	resp.Brokers, resp.ClusterID, resp.ControllerID = brokers, &c.clusterID, controller
	topic := func(t *topic) kmsg.MetadataResponseTopic {
		mt := kmsg.NewMetadataResponseTopic()
		name := t.name
		mt.Topic, mt.TopicID, mt.IsInternal = &name, t.id, t.name == "__consumer_offsets"
		if req.IncludeTopicAuthorizedOperations {
			mt.AuthorizedOperations = allTopicOperations
		}
		for i, p := range t.parts {
			mp := kmsg.NewMetadataResponseTopicPartition()
			mp.Partition, mp.Leader, mp.LeaderEpoch = int32(i), p.leader, p.leaderEpoch
			mp.Replicas, mp.ISR = p.replicas, p.isr
			for _, r := range p.replicas {
				if !c.usable(r) {
					mp.OfflineReplicas = append(mp.OfflineReplicas, r)
				}
			}
			if p.leader < 0 {
				mp.ErrorCode = kerr.LeaderNotAvailable.Code
			}
			mt.Partitions = append(mt.Partitions, mp)
		}
		return mt
	}
	if req.Topics == nil {
		var names []string
		for n := range c.topics {
			names = append(names, n)
		}
		slices.Sort(names)
		for _, n := range names {
			resp.Topics = append(resp.Topics, topic(c.topics[n]))
		}
		return resp
	}
	for _, rt := range req.Topics {
		t := c.topicIDs[rt.TopicID]
		if rt.Topic != nil {
			t = c.topics[*rt.Topic]
		}
		if t != nil {
			resp.Topics = append(resp.Topics, topic(t))
			continue
		}
		mt := kmsg.NewMetadataResponseTopic()
		mt.Topic, mt.TopicID = rt.Topic, rt.TopicID
		mt.ErrorCode = kerr.UnknownTopicOrPartition.Code
		if rt.Topic == nil {
			mt.ErrorCode = kerr.UnknownTopicID.Code
		}
		resp.Topics = append(resp.Topics, mt)
	}
	return resp
}

// TestMetadataEncoding checks the hand-written Metadata encoding against
// kmsg's, byte for byte, at every version a 4.4.0 broker serves: every
// topic and some asked for (by name, by id, unknown ones), with fenced
// brokers (offline replicas, partitions without a leader).
func TestMetadataEncoding(t *testing.T) {
	c := startTest(t, Config{DemoTopics: true})
	c.mu.Lock()
	for _, id := range []int32{1, 2, 3, 4} {
		b := c.broker(id)
		b.alive = false
		c.fence(b)
	}
	orders := c.topics["orders"]
	c.mu.Unlock()
	leaderless := false
	for _, p := range c.topics["clicks"].parts {
		leaderless = leaderless || p.leader < 0
	}
	if !leaderless {
		t.Fatal("the test wants a partition without a leader")
	}
	r, _ := c.served(false, kmsg.Metadata.Int16())
	name, unknown := "orders", "nope"
	asks := map[string]func(*kmsg.MetadataRequest){
		"all": func(*kmsg.MetadataRequest) {},
		"some": func(req *kmsg.MetadataRequest) {
			for _, n := range []*string{&name, &unknown} {
				rt := kmsg.NewMetadataRequestTopic()
				rt.Topic = n
				req.Topics = append(req.Topics, rt)
			}
			if req.Version >= 12 {
				byID := kmsg.NewMetadataRequestTopic()
				byID.TopicID = orders.id
				missing := kmsg.NewMetadataRequestTopic()
				missing.TopicID = [16]byte{1, 2, 3}
				req.Topics = append(req.Topics, byID, missing)
			}
		},
		"none": func(req *kmsg.MetadataRequest) { req.Topics = []kmsg.MetadataRequestTopic{} },
	}
	for v := r.min; v <= r.max; v++ {
		for what, ask := range asks {
			for _, ops := range []bool{false, true} {
				req := kmsg.NewPtrMetadataRequest()
				req.Version, req.IncludeTopicAuthorizedOperations = v, ops
				ask(req)
				if v == 0 && req.Topics != nil && len(req.Topics) == 0 {
					continue // v0 cannot ask for no topic
				}
				got, err := c.metadata(&request{node: c.brokers[2].n, req: req})
				if err != nil {
					t.Fatal(err)
				}
				gotMeta := got.(*encodedResponse).Response.(*kmsg.MetadataResponse)
				c.mu.Lock()
				want := referenceMetadata(c, req, gotMeta.Brokers, gotMeta.ControllerID)
				c.mu.Unlock()
				gb, wb := got.AppendTo(nil), want.AppendTo(nil)
				if !bytes.Equal(gb, wb) {
					t.Errorf("v%d %s (authorized operations %v): the encoding differs from kmsg's (%d bytes, want %d)", v, what, ops, len(gb), len(wb))
					continue
				}
				back := kmsg.NewPtrMetadataResponse()
				back.Version = v
				if err := back.ReadFrom(gb); err != nil {
					t.Errorf("v%d %s: %v", v, what, err)
				}
			}
		}
	}
}

// TestSortedTopicsFollowsChanges checks that the kept order of topics
// changes with the topics, also when one is deleted and another created
// (the same number of topics).
func TestSortedTopicsFollowsChanges(t *testing.T) {
	c := startTest(t, Config{})
	if err := c.CreateTopicsBulk("b-", 3, 2, 3); err != nil {
		t.Fatal(err)
	}
	names := func() []string {
		c.mu.Lock()
		defer c.mu.Unlock()
		var out []string
		for _, t := range c.sortedTopics() {
			out = append(out, t.name)
		}
		return out
	}
	if got, want := names(), []string{"b-00000", "b-00001", "b-00002"}; !slices.Equal(got, want) {
		t.Fatalf("topics %v, want %v", got, want)
	}
	c.mu.Lock()
	gone := c.topics["b-00001"]
	delete(c.topics, gone.name)
	delete(c.topicIDs, gone.id)
	a, err := c.place(0, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	c.addTopic("a-new", a, nil)
	c.mu.Unlock()
	if got, want := names(), []string{"a-new", "b-00000", "b-00002"}; !slices.Equal(got, want) {
		t.Fatalf("after a deletion and a creation: topics %v, want %v", got, want)
	}
	c.mu.Lock()
	gone = c.topics["a-new"]
	delete(c.topics, gone.name)
	delete(c.topicIDs, gone.id)
	c.mu.Unlock()
	if got, want := names(), []string{"b-00000", "b-00002"}; !slices.Equal(got, want) {
		t.Fatalf("after a deletion: topics %v, want %v", got, want)
	}
	// CreateTopicsBulk skips the topics that exist.
	if err := c.CreateTopicsBulk("b-", 4, 2, 3); err != nil {
		t.Fatal(err)
	}
	if got, want := names(), []string{"b-00000", "b-00001", "b-00002", "b-00003"}; !slices.Equal(got, want) {
		t.Fatalf("after a second fill: topics %v, want %v", got, want)
	}
	for _, n := range names() {
		tp := c.topics[n]
		if len(tp.parts) != 2 {
			t.Errorf("%s: %d partitions, want 2", n, len(tp.parts))
		}
		for i, p := range tp.parts {
			if len(p.replicas) != 3 || !slices.Equal(p.isr, p.replicas) || p.leader != p.replicas[0] {
				t.Errorf("%s-%d: replicas %v isr %v leader %d", n, i, p.replicas, p.isr, p.leader)
			}
		}
	}
}
