package kafkawatch

import (
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/ktopo/ktopo/cluster"
)

// BenchmarkFirstPoll is the first poll of a KRaft cluster of 10,000
// topics × 10 partitions × RF 3 (1,000 topics under -short), from the
// Metadata response's bytes to the model, in its stages: the response
// read (metaResponse), the layout turning it into node events, and the
// model applying them. The events carry their topic and state values
// typed (NodeEvent.Value); encode-ms and decode-ms time what their JSON
// in Kafka's ZooKeeper layout would cost each way, and json-share that
// against the stages: the round trip the typed values save (it was 26%
// of a first poll's CPU when the poller encoded and the model decoded).
func BenchmarkFirstPoll(b *testing.B) {
	topics := 10_000
	if testing.Short() {
		topics = 1_000
	}
	const parts, brokers = 10, 8
	resp := benchMetadata(topics, parts, brokers)
	data := resp.AppendTo(nil)
	var read, lay, model, encode, decode time.Duration
	for b.Loop() {
		l := newLayout("PLAINTEXT")
		t0 := time.Now()
		r := &metaResponse{MetadataResponse: kmsg.MetadataResponse{Version: 12}, lay: l}
		if err := r.ReadFrom(data); err != nil {
			b.Fatal(err)
		}
		v := &view{at: time.Now(), hasTopics: true, clusterID: "cid", topics: r.topics, reassign: map[string]map[int32]reassignInfo{}, quorum: quorum(3000, 1)}
		for _, br := range r.Brokers {
			v.brokers = append(v.brokers, brokerInfo{id: br.NodeID, host: br.Host, port: br.Port})
		}
		t1 := time.Now()
		events, k, _ := l.apply(v)
		t2 := time.Now()
		m := cluster.NewModel(cluster.ModelOptions{NoChanges: true})
		m.SetKRaft(k)
		m.Apply(events, true)
		t3 := time.Now()
		read, lay, model = read+t1.Sub(t0), lay+t2.Sub(t1), model+t3.Sub(t2)
		e, d := jsonBothWays(b, events)
		encode, decode = encode+e, decode+d
	}
	n := float64(b.N)
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 / n }
	b.ReportMetric(ms(read), "read-ms")
	b.ReportMetric(ms(lay), "layout-ms")
	b.ReportMetric(ms(model), "model-ms")
	b.ReportMetric(ms(encode), "encode-ms")
	b.ReportMetric(ms(decode), "decode-ms")
	b.ReportMetric(float64(encode+decode)/float64(read+lay+model), "json-share")
}

// jsonBothWays times what the JSON of events' values would cost: each
// encoded as Kafka's ZooKeeper layout (encode) and decoded again as the
// model decodes a ZooKeeper node (decode): the round trip the typed
// values (NodeEvent.Value) save. (In a function of its own: go1.26.8's
// compiler crashes on this code in a b.Loop body.)
func jsonBothWays(b *testing.B, events []cluster.NodeEvent) (encode, decode time.Duration) {
	data := make([][]byte, len(events))
	t0 := time.Now()
	for i, e := range events {
		switch v := e.Value.(type) {
		case *cluster.PartitionState:
			data[i] = cluster.EncodePartitionState(*v)
		case *cluster.TopicAssignment:
			data[i] = cluster.EncodeTopicAssignment(*v)
		}
	}
	encode = time.Since(t0)
	t1 := time.Now()
	bad := 0
	for i, e := range events {
		var err error
		switch e.Value.(type) {
		case *cluster.PartitionState:
			_, err = cluster.DecodePartitionState(data[i])
		case *cluster.TopicAssignment:
			_, err = cluster.DecodeTopicAssignment(data[i])
		}
		if err != nil {
			bad++
		}
	}
	decode = time.Since(t1)
	if bad > 0 {
		b.Fatalf("%d events do not decode", bad)
	}
	return encode, decode
}

// BenchmarkQuietPoll is a poll of a quiet KRaft cluster of 10,000 topics
// × 10 partitions × RF 3 (100,000 topics with KTOPO_BENCH_QUIET_TOPICS),
// once its first poll is in: the Metadata response read against the
// layout and applied, nothing having changed. What every poll of an idle
// cluster costs besides the network.
func BenchmarkQuietPoll(b *testing.B) {
	topics := benchPollTopics()
	const parts, brokers = 10, 6
	resp := benchMetadata(topics, parts, brokers)
	data := resp.AppendTo(nil)
	poll := benchPoller(b, newLayout("PLAINTEXT"))
	poll(data)
	for b.Loop() {
		if n := poll(data); n != 0 {
			b.Fatalf("a quiet poll made %d events", n)
		}
	}
}

// benchMetadata is a Metadata response (v12) of topics topic-000000… of
// parts partitions each, replication factor 3 over brokers brokers.
func benchMetadata(topics, parts, brokers int) *kmsg.MetadataResponse {
	resp := kmsg.NewPtrMetadataResponse()
	resp.Version = 12
	resp.ClusterID = str("cid")
	for id := int32(1); id <= int32(brokers); id++ {
		br := kmsg.NewMetadataResponseBroker()
		br.NodeID, br.Host, br.Port = id, fmt.Sprintf("kafka-%d", id), 9092
		resp.Brokers = append(resp.Brokers, br)
	}
	n := int32(brokers)
	for i := range topics {
		mt := kmsg.NewMetadataResponseTopic()
		mt.Topic, mt.TopicID = str(fmt.Sprintf("topic-%06d", i)), [16]byte{byte(i), byte(i >> 8), byte(i >> 16), 1}
		for p := range int32(parts) {
			rs := []int32{1 + (int32(i)+p)%n, 1 + (int32(i)+p+1)%n, 1 + (int32(i)+p+2)%n}
			mt.Partitions = append(mt.Partitions, mdPart(p, rs[0], 3, rs, rs))
		}
		resp.Topics = append(resp.Topics, mt)
	}
	return resp
}

// BenchmarkChangedPoll is BenchmarkQuietPoll's cluster with one change
// between polls: every other poll has one topic more (created, then
// deleted). What the poll that brings a change to the screen costs.
func BenchmarkChangedPoll(b *testing.B) {
	topics := benchPollTopics()
	const parts, brokers = 10, 6
	resp := benchMetadata(topics, parts, brokers)
	quiet := resp.AppendTo(nil)
	extra := kmsg.NewMetadataResponseTopic()
	extra.Topic, extra.TopicID = str("change-1"), [16]byte{0xff, 1}
	extra.Partitions = append(extra.Partitions, mdPart(0, 1, 1, []int32{1}, []int32{1}))
	resp.Topics = append(resp.Topics, extra)
	changed := resp.AppendTo(nil)
	poll := benchPoller(b, newLayout("PLAINTEXT"))
	poll(quiet)
	i := 0
	for b.Loop() {
		data := quiet
		if i%2 == 0 {
			data = changed
		}
		i++
		if n := poll(data); n == 0 {
			b.Fatalf("poll %d brought no event", i)
		}
	}
}

// benchPollTopics is the poll benchmarks' number of topics: 10,000, or
// KTOPO_BENCH_QUIET_TOPICS.
func benchPollTopics() int {
	if n, err := strconv.Atoi(os.Getenv("KTOPO_BENCH_QUIET_TOPICS")); err == nil && n > 0 {
		return n
	}
	return 10_000
}

// benchPoller returns a poll of the layout l as the poller makes one: a
// Metadata response (v12) read against l, then applied; it returns how
// many events the poll made.
func benchPoller(b *testing.B, l *layout) func(data []byte) int {
	return func(data []byte) int {
		r := &metaResponse{MetadataResponse: kmsg.MetadataResponse{Version: 12}, lay: l}
		if err := r.ReadFrom(data); err != nil {
			b.Fatal(err)
		}
		v := &view{at: time.Now(), hasTopics: true, clusterID: "cid", topics: r.topics, sameTopics: r.same, metaHash: r.hash,
			reassign: map[string]map[int32]reassignInfo{}, quorum: quorum(3000, 1)}
		for _, br := range r.Brokers {
			v.brokers = append(v.brokers, brokerInfo{id: br.NodeID, host: br.Host, port: br.Port})
		}
		events, _, _ := l.apply(v)
		return len(events)
	}
}
