package kafkawatch

import (
	"slices"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// TestMetaResponse: the Metadata response read without decoding what did
// not change gives what kmsg reads, for every flexible version; a topic
// whose partitions are as the layout last applied them is not copied.
func TestMetaResponse(t *testing.T) {
	resp := kmsg.NewMetadataResponse()
	b := kmsg.NewMetadataResponseBroker()
	b.NodeID, b.Host, b.Port, b.Rack = 1, "kafka-1", 9092, str("r1")
	resp.Brokers = []kmsg.MetadataResponseBroker{b}
	resp.ClusterID, resp.ControllerID = str("cid"), 1
	for i, name := range []string{"a", "b"} {
		mt := kmsg.NewMetadataResponseTopic()
		mt.Topic, mt.TopicID, mt.IsInternal = str(name), [16]byte{byte(i + 1)}, i == 1
		for p := range int32(3) {
			mt.Partitions = append(mt.Partitions, mdPart(p, 1+p%2, p, []int32{1 + p%2, 2 - p%2}, []int32{1 + p%2}))
		}
		resp.Topics = append(resp.Topics, mt)
	}
	for version := int16(9); version <= 13; version++ {
		resp.Version = version
		data := resp.AppendTo(nil)
		var r metaResponse
		r.Version = version
		if err := r.ReadFrom(data); err != nil {
			t.Fatalf("v%d: %v", version, err)
		}
		if *r.ClusterID != "cid" || len(r.Brokers) != 1 || *r.Brokers[0].Rack != "r1" || len(r.topics) != 2 {
			t.Fatalf("v%d: %+v", version, r)
		}
		for i, mt := range r.topics {
			want := resp.Topics[i]
			if mt.name != *want.Topic || !mt.changed() || mt.internal != want.IsInternal || (version >= 10 && mt.id != want.TopicID) {
				t.Fatalf("v%d topic %d: %+v", version, i, mt)
			}
			got := mt.partitions()
			for j, p := range got {
				w := want.Partitions[j]
				if p.Partition != w.Partition || p.Leader != w.Leader || p.LeaderEpoch != w.LeaderEpoch ||
					!slices.Equal(p.Replicas, w.Replicas) || !slices.Equal(p.ISR, w.ISR) {
					t.Fatalf("v%d %s-%d: %+v, want %+v", version, mt.name, j, p, w)
				}
			}
		}
	}
	// Read against a layout that applied the same response: nothing to
	// look at, and the names are the layout's own strings.
	resp.Version = 13
	data := resp.AppendTo(nil)
	lay := newLayout("PLAINTEXT")
	first := &metaResponse{MetadataResponse: kmsg.MetadataResponse{Version: 13}, lay: lay}
	if err := first.ReadFrom(data); err != nil {
		t.Fatal(err)
	}
	lay.apply(&view{hasTopics: true, topics: first.topics})
	again := &metaResponse{MetadataResponse: kmsg.MetadataResponse{Version: 13}, lay: lay}
	if err := again.ReadFrom(data); err != nil {
		t.Fatal(err)
	}
	for _, mt := range again.topics {
		if mt.changed() {
			t.Fatalf("%s read as changed", mt.name)
		}
	}
	if events, _, _ := lay.apply(&view{hasTopics: true, topics: again.topics}); len(events) != 0 {
		t.Fatalf("unchanged response: %v", events)
	}
	// One partition's ISR changes: that topic alone is read.
	resp.Topics[1].Partitions[2].ISR = []int32{1, 2}
	changed := &metaResponse{MetadataResponse: kmsg.MetadataResponse{Version: 13}, lay: lay}
	if err := changed.ReadFrom(resp.AppendTo(nil)); err != nil {
		t.Fatal(err)
	}
	if changed.topics[0].changed() || !changed.topics[1].changed() {
		t.Fatalf("changed: a %v, b %v", changed.topics[0].changed(), changed.topics[1].changed())
	}
	events, _, _ := lay.apply(&view{hasTopics: true, topics: changed.topics})
	if len(events) != 1 || events[0].Path != "/brokers/topics/b/partitions/2/state" {
		t.Fatalf("events %+v", events)
	}
	// Once the layout knows the response's hash, the same bytes again
	// are not walked at all: the poll keeps every topic.
	quiet := newLayout("PLAINTEXT")
	r1 := &metaResponse{MetadataResponse: kmsg.MetadataResponse{Version: 13}, lay: quiet}
	if err := r1.ReadFrom(data); err != nil || r1.same {
		t.Fatalf("first read: same %v, %v", r1.same, err)
	}
	quiet.apply(&view{hasTopics: true, topics: r1.topics, metaHash: r1.hash})
	r2 := &metaResponse{MetadataResponse: kmsg.MetadataResponse{Version: 13}, lay: quiet}
	if err := r2.ReadFrom(data); err != nil || !r2.same || r2.topics != nil || *r2.ClusterID != "cid" || len(r2.Brokers) != 1 {
		t.Fatalf("the same bytes again: same %v, %d topics, %+v, %v", r2.same, len(r2.topics), r2.MetadataResponse, err)
	}
	if events, _, _ := quiet.apply(&view{hasTopics: true, sameTopics: true, metaHash: r2.hash}); len(events) != 0 || len(quiet.topics) != 2 || quiet.partitions != 6 {
		t.Fatalf("a poll of the same bytes: events %v, %d topics, %d partitions", events, len(quiet.topics), quiet.partitions)
	}
	// Other bytes (the ISR changed above) are walked again.
	r3 := &metaResponse{MetadataResponse: kmsg.MetadataResponse{Version: 13}, lay: quiet}
	if err := r3.ReadFrom(resp.AppendTo(nil)); err != nil || r3.same || len(r3.topics) != 2 {
		t.Fatalf("changed bytes: same %v, %d topics, %v", r3.same, len(r3.topics), err)
	}
	// A truncated response is an error, not a panic.
	if err := (&metaResponse{MetadataResponse: kmsg.MetadataResponse{Version: 13}}).ReadFrom(data[:len(data)/2]); err == nil {
		t.Fatal("a truncated response was read")
	}
}
