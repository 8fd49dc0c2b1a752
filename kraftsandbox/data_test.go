package kraftsandbox

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/kversion"
)

// dataTopic creates a topic in the controller's state directly (placed
// by the placer, as CreateTopics without an assignment is).
func dataTopic(t testing.TB, c *Cluster, name string, parts, rf int, configs map[string]string) *topic {
	t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	a, err := c.place(0, parts, rf)
	if err != nil {
		t.Fatal(err)
	}
	return c.addTopic(name, a, configs)
}

func ctxT(t testing.TB, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// kclient is a franz-go client of the sandbox with opts.
func kclient(t testing.TB, c *Cluster, opts ...kgo.Opt) *kgo.Client {
	t.Helper()
	opts = append([]kgo.Opt{kgo.SeedBrokers(strings.Split(c.Bootstrap(), ",")...), kgo.RequestTimeoutOverhead(5 * time.Second)}, opts...)
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return cl
}

// produceN produces values prefix-0 … prefix-(n-1), keyed so that they
// spread over the partitions.
func produceN(t testing.TB, ctx context.Context, cl *kgo.Client, topic, prefix string, n int) {
	t.Helper()
	var rs []*kgo.Record
	for i := range n {
		rs = append(rs, &kgo.Record{Topic: topic, Key: fmt.Appendf(nil, "k%d", i), Value: fmt.Appendf(nil, "%s-%d", prefix, i)})
	}
	if err := cl.ProduceSync(ctx, rs...).FirstErr(); err != nil {
		t.Fatal(err)
	}
}

// consumeUntil polls cl until want holds every value, and returns how
// many records it read.
func consumeUntil(t testing.TB, ctx context.Context, cl *kgo.Client, seen map[string]int, done func() bool) {
	t.Helper()
	for !done() {
		fs := cl.PollFetches(ctx)
		if ctx.Err() != nil {
			t.Fatalf("consuming: %v (%d distinct values read)", ctx.Err(), len(seen))
		}
		fs.EachError(func(topic string, p int32, err error) {
			if !errors.Is(err, context.Canceled) {
				t.Logf("fetch %s-%d: %v", topic, p, err)
			}
		})
		fs.EachRecord(func(r *kgo.Record) { seen[string(r.Value)]++ })
	}
}

func TestDataGroupRoundTrip(t *testing.T) {
	c := startTest(t, Config{Logger: testLogger(t)})
	dataTopic(t, c, "rt", 6, 3, nil)
	ctx := ctxT(t, 60*time.Second)
	prod := kclient(t, c, kgo.DefaultProduceTopic("rt"))
	const n = 3000
	produceN(t, ctx, prod, "rt", "v", n)

	// Two members of one group share the partitions.
	var mu sync.Mutex
	seen := map[string]int{}
	var wg sync.WaitGroup
	var members []*kgo.Client
	for range 2 {
		cl := kclient(t, c, kgo.ConsumerGroup("g1"), kgo.ConsumeTopics("rt"), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
			kgo.DisableAutoCommit(), kgo.FetchMaxWait(500*time.Millisecond))
		members = append(members, cl)
	}
	pollCtx, donePolling := context.WithCancel(ctx)
	defer donePolling()
	for _, cl := range members {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				done := len(seen) >= n
				mu.Unlock()
				if done || pollCtx.Err() != nil {
					return
				}
				fs := cl.PollRecords(pollCtx, 100)
				mu.Lock()
				fs.EachRecord(func(r *kgo.Record) { seen[string(r.Value)]++ })
				if len(seen) >= n {
					donePolling() // the other member may wait for records
				}
				mu.Unlock()
				if err := cl.CommitUncommittedOffsets(ctx); err != nil && !errors.Is(err, kerr.RebalanceInProgress) {
					t.Logf("commit: %v", err)
				}
			}
		}()
	}
	wg.Wait()
	if len(seen) != n {
		t.Fatalf("read %d distinct values of %d", len(seen), n)
	}
	for i := range n {
		if seen[fmt.Sprintf("v-%d", i)] == 0 {
			t.Fatalf("v-%d not read", i)
		}
	}
	co := coordinatorOf(t, ctx, prod, "g1")
	// The group is described by its coordinator, both members in it.
	g := describeGroup(t, ctx, prod, co, "g1")
	if g.ErrorCode != 0 || g.State != "Stable" || len(g.Members) != 2 || g.Protocol == "" {
		t.Errorf("group g1: state %s protocol %q members %d err %d", g.State, g.Protocol, len(g.Members), g.ErrorCode)
	}
	lreq := kmsg.NewPtrListGroupsRequest()
	lresp, err := lreq.RequestWith(ctx, prod.Broker(int(co)))
	if err != nil {
		t.Fatal(err)
	}
	if len(lresp.Groups) != 1 || lresp.Groups[0].Group != "g1" || lresp.Groups[0].GroupState != "Stable" || lresp.Groups[0].ProtocolType != "consumer" {
		t.Errorf("ListGroups: %+v", lresp.Groups)
	}
	// The committed offsets add up to the records once every member
	// has committed what it read.
	for _, cl := range members {
		if err := cl.CommitUncommittedOffsets(ctx); err != nil {
			t.Logf("final commit: %v", err)
		}
	}
	ofreq := kmsg.NewPtrOffsetFetchRequest()
	ofg := kmsg.NewOffsetFetchRequestGroup()
	ofg.Group = "g1"
	ofreq.Groups = append(ofreq.Groups, ofg)
	ofresp, err := ofreq.RequestWith(ctx, prod.Broker(int(co)))
	if err != nil {
		t.Fatal(err)
	}
	var sum int64
	for _, ot := range ofresp.Groups[0].Topics {
		for _, op := range ot.Partitions {
			sum += op.Offset
		}
	}
	if sum != n {
		t.Errorf("committed offsets add up to %d, want %d", sum, n)
	}
	// Leaving empties the group.
	for _, cl := range members {
		cl.Close()
	}
	if g := describeGroup(t, ctx, prod, co, "g1"); g.State != "Empty" || len(g.Members) != 0 {
		t.Errorf("after leaving: state %s, %d members", g.State, len(g.Members))
	}
	// An empty group can be deleted; its offsets go with it.
	dreq := kmsg.NewPtrDeleteGroupsRequest()
	dreq.Groups = []string{"g1"}
	dresp, err := dreq.RequestWith(ctx, prod.Broker(int(co)))
	if err != nil || dresp.Groups[0].ErrorCode != 0 {
		t.Fatalf("DeleteGroups: %v %+v", err, dresp)
	}
}

// coordinatorOf is a group's coordinator.
func coordinatorOf(t testing.TB, ctx context.Context, cl *kgo.Client, group string) int32 {
	t.Helper()
	fc := kmsg.NewPtrFindCoordinatorRequest()
	fc.CoordinatorKeys = []string{group}
	fr, err := fc.RequestWith(ctx, cl)
	if err != nil {
		t.Fatal(err)
	}
	if co := fr.Coordinators[0]; co.ErrorCode != 0 {
		t.Fatalf("FindCoordinator %s: %+v", group, co)
	}
	return fr.Coordinators[0].NodeID
}

func describeGroup(t testing.TB, ctx context.Context, cl *kgo.Client, co int32, group string) kmsg.DescribeGroupsResponseGroup {
	t.Helper()
	dg := kmsg.NewPtrDescribeGroupsRequest()
	dg.Groups = []string{group}
	dr, err := dg.RequestWith(ctx, cl.Broker(int(co)))
	if err != nil {
		t.Fatal(err)
	}
	return dr.Groups[0]
}

// listOffset is ListOffsets of one partition at a timestamp on a broker.
func listOffset(t testing.TB, ctx context.Context, cl *kgo.Client, broker int32, topic string, p int32, ts int64) kmsg.ListOffsetsResponseTopicPartition {
	t.Helper()
	req := kmsg.NewPtrListOffsetsRequest()
	rt := kmsg.NewListOffsetsRequestTopic()
	rt.Topic = topic
	rp := kmsg.NewListOffsetsRequestTopicPartition()
	rp.Partition, rp.Timestamp = p, ts
	rt.Partitions = append(rt.Partitions, rp)
	req.Topics = append(req.Topics, rt)
	resp, err := req.RequestWith(ctx, cl.Broker(int(broker)))
	if err != nil {
		t.Fatal(err)
	}
	return resp.Topics[0].Partitions[0]
}

// leaderOf is a partition's leader and leader epoch.
func leaderOf(c *Cluster, topic string, p int) (int32, int32) {
	c.mu.Lock()
	defer c.mu.Unlock()
	pt := c.topics[topic].parts[p]
	return pt.leader, pt.leaderEpoch
}

// oneBatch is a record batch of values (magic 2, uncompressed, no
// producer id) with its CRC, as a producer sends it.
func oneBatch(ts int64, values ...string) []byte {
	var recs []byte
	for i, v := range values {
		r := kmsg.NewRecord()
		r.OffsetDelta, r.TimestampDelta64 = int32(i), int64(i)
		r.Value = []byte(v)
		r.Length = int32(len(r.AppendTo(nil)) - 1) // what follows the length
		recs = r.AppendTo(recs)
	}
	b := kmsg.NewRecordBatch()
	b.Magic = 2
	b.LastOffsetDelta = int32(len(values) - 1)
	b.FirstTimestamp, b.MaxTimestamp = ts, ts+int64(len(values)-1)
	b.ProducerID, b.ProducerEpoch, b.FirstSequence = -1, -1, -1
	b.NumRecords = int32(len(values))
	b.Records = recs
	raw := b.AppendTo(nil)
	binary.BigEndian.PutUint32(raw[bLength:], uint32(len(raw)-12))
	fixCRC(raw)
	return raw
}

func fixCRC(raw []byte) {
	crc := crc32Castagnoli(raw[bAttributes:])
	raw[bCRC], raw[bCRC+1], raw[bCRC+2], raw[bCRC+3] = byte(crc>>24), byte(crc>>16), byte(crc>>8), byte(crc)
}

// produceTo sends one batch to a partition on one broker, acks as given.
func produceTo(t testing.TB, ctx context.Context, c *Cluster, broker int32, version int16, topic string, id [16]byte, p int32, acks int16, raw []byte) kmsg.ProduceResponseTopicPartition {
	t.Helper()
	req := kmsg.NewPtrProduceRequest()
	req.Version, req.Acks, req.TimeoutMillis = version, acks, 5000
	rt := kmsg.NewProduceRequestTopic()
	rt.Topic, rt.TopicID = topic, id
	rp := kmsg.NewProduceRequestTopicPartition()
	rp.Partition, rp.Records = p, raw
	rt.Partitions = append(rt.Partitions, rp)
	req.Topics = append(req.Topics, rt)
	// kgo sends the newest version both sides know and its own acks:
	// pin both.
	ack := kgo.LeaderAck()
	switch acks {
	case -1:
		ack = kgo.AllISRAcks()
	case 0:
		ack = kgo.NoAck()
	}
	cl := kclient(t, c, kgo.MaxVersions(pinned(kmsg.Produce, version)), kgo.RequiredAcks(ack), kgo.DisableIdempotentWrite())
	resp, err := req.RequestWith(ctx, cl.Broker(int(broker)))
	if err != nil {
		t.Fatal(err)
	}
	return resp.Topics[0].Partitions[0]
}

// pinned is franz-go's versions with key's newest version at v.
func pinned(key kmsg.Key, v int16) *kversion.Versions {
	vs := kversion.Stable()
	vs.SetMaxKeyVersion(key.Int16(), v)
	return vs
}

func TestDataProduceRefusals(t *testing.T) {
	c := startTest(t, Config{})
	tp := dataTopic(t, c, "pr", 1, 3, map[string]string{"min.insync.replicas": "4"})
	ctx := ctxT(t, 30*time.Second)
	cl := client(t, c)
	if _, err := kmsg.NewPtrMetadataRequest().RequestWith(ctx, cl); err != nil {
		t.Fatal(err)
	}
	leader, epoch := leaderOf(c, "pr", 0)
	var other int32
	for _, r := range tp.parts[0].replicas {
		if r != leader {
			other = r
		}
	}
	// A follower is not the leader: it names the leader (KIP-951).
	sp := produceTo(t, ctx, c, other, 12, "pr", [16]byte{}, 0, 1, oneBatch(1000, "a"))
	if sp.ErrorCode != kerr.NotLeaderForPartition.Code || sp.CurrentLeader.LeaderID != leader || sp.CurrentLeader.LeaderEpoch != epoch {
		t.Errorf("produce to follower %d: error %d leader %+v, want NOT_LEADER_OR_FOLLOWER naming %d", other, sp.ErrorCode, sp.CurrentLeader, leader)
	}
	// Unknown topics, by name and by id.
	if sp := produceTo(t, ctx, c, leader, 12, "nope", [16]byte{}, 0, 1, oneBatch(1000, "a")); sp.ErrorCode != kerr.UnknownTopicOrPartition.Code {
		t.Errorf("unknown topic: error %d", sp.ErrorCode)
	}
	if sp := produceTo(t, ctx, c, leader, 13, "", [16]byte{1}, 0, 1, oneBatch(1000, "a")); sp.ErrorCode != kerr.UnknownTopicID.Code {
		t.Errorf("unknown topic id: error %d", sp.ErrorCode)
	}
	if sp := produceTo(t, ctx, c, leader, 12, "pr", [16]byte{}, 7, 1, oneBatch(1000, "a")); sp.ErrorCode != kerr.UnknownTopicOrPartition.Code {
		t.Errorf("unknown partition: error %d", sp.ErrorCode)
	}
	// min.insync.replicas 4 on 3 replicas is capped at 3: acks=all
	// works with the whole ISR (Partition.effectiveMinIsr).
	if sp := produceTo(t, ctx, c, leader, 12, "pr", [16]byte{}, 0, -1, oneBatch(500, "z")); sp.ErrorCode != 0 || sp.BaseOffset != 0 {
		t.Errorf("acks=all with the whole ISR: error %d base %d", sp.ErrorCode, sp.BaseOffset)
	}
	// The ISR shrinks to the leader: acks=all is refused, with the code
	// alone (as a real 4.4.0 broker answers).
	c.mu.Lock()
	c.change(tp, tp.parts[0], []int32{leader}, electAny)
	c.mu.Unlock()
	sp = produceTo(t, ctx, c, leader, 12, "pr", [16]byte{}, 0, -1, oneBatch(1000, "a"))
	if sp.ErrorCode != kerr.NotEnoughReplicas.Code || sp.ErrorMessage != nil {
		t.Errorf("acks=all below min ISR: error %d message %v", sp.ErrorCode, sp.ErrorMessage)
	}
	// acks=1 is not held to it; by topic id (v13) too.
	if sp := produceTo(t, ctx, c, leader, 12, "pr", [16]byte{}, 0, 1, oneBatch(1000, "a", "b")); sp.ErrorCode != 0 || sp.BaseOffset != 1 {
		t.Errorf("acks=1: error %d base %d", sp.ErrorCode, sp.BaseOffset)
	}
	if sp := produceTo(t, ctx, c, leader, 13, "", tp.id, 0, 1, oneBatch(2000, "c")); sp.ErrorCode != 0 || sp.BaseOffset != 3 {
		t.Errorf("by topic id: error %d base %d", sp.ErrorCode, sp.BaseOffset)
	}
	// A corrupt batch.
	bad := oneBatch(1000, "x")
	bad[len(bad)-1] ^= 0xff
	if sp := produceTo(t, ctx, c, leader, 12, "pr", [16]byte{}, 0, 1, bad); sp.ErrorCode != kerr.CorruptMessage.Code {
		t.Errorf("corrupt batch: error %d", sp.ErrorCode)
	}
	// Two batches in one partition's records.
	two := append(oneBatch(1000, "x"), oneBatch(1000, "y")...)
	if sp := produceTo(t, ctx, c, leader, 12, "pr", [16]byte{}, 0, 1, two); sp.ErrorCode != kerr.InvalidRecord.Code {
		t.Errorf("two batches: error %d", sp.ErrorCode)
	}

	// ListOffsets: earliest, latest, max timestamp, by timestamp.
	for _, tc := range []struct {
		what     string
		ts, want int64
	}{{"earliest", -2, 0}, {"latest", -1, 4}, {"at 1001", 1001, 2}, {"max timestamp", -3, 3}, {"at 5000", 5000, -1}} {
		o := listOffset(t, ctx, cl, leader, "pr", 0, tc.ts)
		if o.ErrorCode != 0 || o.Offset != tc.want {
			t.Errorf("ListOffsets %s: offset %d error %d, want %d", tc.what, o.Offset, o.ErrorCode, tc.want)
		}
	}
	if o := listOffset(t, ctx, cl, other, "pr", 0, -1); o.ErrorCode != kerr.NotLeaderForPartition.Code {
		t.Errorf("ListOffsets on a follower: error %d", o.ErrorCode)
	}

	// OffsetForLeaderEpoch: the current epoch ends at the log end.
	oreq := kmsg.NewPtrOffsetForLeaderEpochRequest()
	ot := kmsg.NewOffsetForLeaderEpochRequestTopic()
	ot.Topic = "pr"
	op := kmsg.NewOffsetForLeaderEpochRequestTopicPartition()
	op.Partition, op.CurrentLeaderEpoch, op.LeaderEpoch = 0, epoch, epoch
	ot.Partitions = append(ot.Partitions, op)
	oreq.Topics = append(oreq.Topics, ot)
	oresp, err := oreq.RequestWith(ctx, cl.Broker(int(leader)))
	if err != nil {
		t.Fatal(err)
	}
	if got := oresp.Topics[0].Partitions[0]; got.ErrorCode != 0 || got.EndOffset != 4 || got.LeaderEpoch != epoch {
		t.Errorf("OffsetForLeaderEpoch: %+v", got)
	}
}

// TestDataFetchWaits: a fetch waiting for records (MaxWaitMillis) holds
// no lock (metadata is answered meanwhile) and is answered when records
// arrive.
func TestDataFetchWaits(t *testing.T) {
	c := startTest(t, Config{})
	fw := dataTopic(t, c, "fw", 1, 1, nil)
	ctx := ctxT(t, 50*time.Second)
	cl := client(t, c)
	leader, _ := leaderOf(c, "fw", 0)
	if _, err := kmsg.NewPtrMetadataRequest().RequestWith(ctx, cl); err != nil {
		t.Fatal(err)
	}
	got := make(chan *kmsg.FetchResponse, 1)
	go func() {
		req := kmsg.NewPtrFetchRequest()
		req.Version, req.MaxWaitMillis, req.MinBytes, req.MaxBytes, req.SessionEpoch = 12, 40000, 1, 1<<20, -1
		rt := kmsg.NewFetchRequestTopic()
		rt.Topic, rt.TopicID = "fw", fw.id
		rp := kmsg.NewFetchRequestTopicPartition()
		rp.PartitionMaxBytes = 1 << 20
		rt.Partitions = append(rt.Partitions, rp)
		req.Topics = append(req.Topics, rt)
		resp, err := req.RequestWith(ctx, cl.Broker(int(leader)))
		if err != nil {
			t.Error(err)
		}
		got <- resp
		close(got)
	}()
	// The fetch waits on its own connection; metadata and a produce go
	// on others.
	other := client(t, c)
	if _, err := kmsg.NewPtrMetadataRequest().RequestWith(ctx, other); err != nil {
		t.Fatal(err)
	}
	// Wait until the fetch waits, then produce.
	for {
		c.mu.Lock()
		w := c.ext.data.wake != nil
		c.mu.Unlock()
		if w {
			break
		}
		select {
		case resp := <-got:
			t.Fatalf("the fetch did not wait: %+v", resp)
		case <-time.After(10 * time.Millisecond):
		}
	}
	if sp := produceTo(t, ctx, c, leader, 12, "fw", [16]byte{}, 0, 1, oneBatch(1000, "hello")); sp.ErrorCode != 0 {
		t.Fatalf("produce: %d", sp.ErrorCode)
	}
	resp := <-got
	if resp == nil {
		t.Fatal("no fetch response")
	}
	p := resp.Topics[0].Partitions[0]
	if p.ErrorCode != 0 || p.HighWatermark != 1 || len(p.RecordBatches) == 0 {
		t.Fatalf("fetch: error %d hw %d %d bytes", p.ErrorCode, p.HighWatermark, len(p.RecordBatches))
	}
	var b kmsg.RecordBatch
	if err := b.ReadFrom(p.RecordBatches); err != nil || b.FirstOffset != 0 || b.NumRecords != 1 {
		t.Fatalf("batch: %+v %v", b, err)
	}
	// Past the log end: OFFSET_OUT_OF_RANGE at once.
	req := kmsg.NewPtrFetchRequest()
	req.Version, req.MaxWaitMillis, req.MinBytes, req.MaxBytes, req.SessionEpoch = 12, 40000, 1, 1<<20, -1
	rt := kmsg.NewFetchRequestTopic()
	rt.Topic, rt.TopicID = "fw", fw.id
	rp := kmsg.NewFetchRequestTopicPartition()
	rp.FetchOffset, rp.PartitionMaxBytes = 5, 1<<20
	rt.Partitions = append(rt.Partitions, rp)
	req.Topics = append(req.Topics, rt)
	fr, err := req.RequestWith(ctx, cl.Broker(int(leader)))
	if err != nil {
		t.Fatal(err)
	}
	if e := fr.Topics[0].Partitions[0].ErrorCode; e != kerr.OffsetOutOfRange.Code {
		t.Errorf("fetch past the end: error %d", e)
	}
}

// TestDataLeaderKilled: a producer and a group's consumer carry on when
// the broker leading a partition (perhaps also the group's coordinator)
// is killed, fenced and replaced as leader.
func TestDataLeaderKilled(t *testing.T) {
	c := startTest(t, Config{Brokers: 3, SessionTimeout: time.Second})
	c.mu.Lock()
	c.ext.groups.noInitialDelay = true
	c.mu.Unlock()
	dataTopic(t, c, "lk", 3, 3, nil)
	ctx := ctxT(t, 90*time.Second)
	prod := kclient(t, c, kgo.DefaultProduceTopic("lk"))
	produceN(t, ctx, prod, "lk", "a", 500)
	cons := kclient(t, c, kgo.ConsumerGroup("gk"), kgo.ConsumeTopics("lk"), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.FetchMaxWait(500*time.Millisecond))
	seen := map[string]int{}
	consumeUntil(t, ctx, cons, seen, func() bool { return len(seen) >= 500 })

	// Kill the group's coordinator, leading a partition of lk too.
	leader := coordinatorOf(t, ctx, prod, "gk")
	part := -1
	for i := range 3 {
		if l, _ := leaderOf(c, "lk", i); l == leader {
			part = i
		}
	}
	if part < 0 {
		t.Fatalf("the coordinator %d leads no partition of lk", leader)
	}
	_, epoch := leaderOf(c, "lk", part)
	if err := c.Kill(int(leader)); err != nil {
		t.Fatal(err)
	}
	for {
		l, e := leaderOf(c, "lk", part)
		if l != leader && l >= 0 && e > epoch {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	produceN(t, ctx, prod, "lk", "b", 500)
	consumeUntil(t, ctx, cons, seen, func() bool { return len(seen) >= 1000 })
	for i := range 500 {
		if seen[fmt.Sprintf("a-%d", i)] == 0 || seen[fmt.Sprintf("b-%d", i)] == 0 {
			t.Fatalf("record %d missing", i)
		}
	}
	if err := c.Restart(int(leader)); err != nil {
		t.Fatal(err)
	}
}

func TestDataGroupErrors(t *testing.T) {
	c := startTest(t, Config{Brokers: 3})
	ctx := ctxT(t, 30*time.Second)
	cl := client(t, c)
	fc := kmsg.NewPtrFindCoordinatorRequest()
	fc.CoordinatorKeys = []string{"ge"}
	fr, err := fc.RequestWith(ctx, cl)
	if err != nil {
		t.Fatal(err)
	}
	co := fr.Coordinators[0]
	if co.ErrorCode != 0 || co.NodeID < 1 {
		t.Fatalf("FindCoordinator: %+v", co)
	}
	c.mu.Lock()
	ot := c.topics["__consumer_offsets"]
	c.mu.Unlock()
	if ot == nil || len(ot.parts) != 50 || len(ot.parts[0].replicas) != 3 {
		t.Fatalf("__consumer_offsets not created as Kafka does")
	}
	var notCo int32
	for _, id := range []int32{1, 2, 3} {
		if id != co.NodeID {
			notCo = id
		}
	}
	join := func(broker int32, member string, session int32) *kmsg.JoinGroupResponse {
		t.Helper()
		req := kmsg.NewPtrJoinGroupRequest()
		req.Group, req.MemberID, req.SessionTimeoutMillis, req.RebalanceTimeoutMillis, req.ProtocolType = "ge", member, session, 10000, "consumer"
		p := kmsg.NewJoinGroupRequestProtocol()
		p.Name, p.Metadata = "range", []byte{0}
		req.Protocols = append(req.Protocols, p)
		resp, err := req.RequestWith(ctx, cl.Broker(int(broker)))
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	if r := join(notCo, "", 10000); r.ErrorCode != kerr.NotCoordinator.Code {
		t.Errorf("join at %d: %d, want NOT_COORDINATOR", notCo, r.ErrorCode)
	}
	if r := join(co.NodeID, "", 100); r.ErrorCode != kerr.InvalidSessionTimeout.Code {
		t.Errorf("join with a session of 100 ms: %d", r.ErrorCode)
	}
	r := join(co.NodeID, "", 10000)
	if r.ErrorCode != kerr.MemberIDRequired.Code || r.MemberID == "" {
		t.Fatalf("first join: %d %q", r.ErrorCode, r.MemberID)
	}
	if r := join(co.NodeID, "stranger", 10000); r.ErrorCode != kerr.UnknownMemberID.Code {
		t.Errorf("unknown member: %d", r.ErrorCode)
	}
	r = join(co.NodeID, r.MemberID, 10000) // waits out the initial delay
	if r.ErrorCode != 0 || r.Generation != 1 || r.LeaderID != r.MemberID || len(r.Members) != 1 {
		t.Fatalf("join: %+v", r)
	}
	hb := kmsg.NewPtrHeartbeatRequest()
	hb.Group, hb.MemberID, hb.Generation = "ge", r.MemberID, 1
	hr, err := hb.RequestWith(ctx, cl.Broker(int(co.NodeID)))
	if err != nil {
		t.Fatal(err)
	}
	if hr.ErrorCode != 0 {
		t.Errorf("heartbeat in CompletingRebalance: %d", hr.ErrorCode)
	}
	hb.Generation = 7
	if hr, _ := hb.RequestWith(ctx, cl.Broker(int(co.NodeID))); hr == nil || hr.ErrorCode != kerr.IllegalGeneration.Code {
		t.Errorf("heartbeat of another generation: %+v", hr)
	}
	// A commit without a generation to a group with members.
	oc := kmsg.NewPtrOffsetCommitRequest()
	oc.Group, oc.Generation = "ge", -1
	ct := kmsg.NewOffsetCommitRequestTopic()
	ct.Topic = "x"
	cp := kmsg.NewOffsetCommitRequestTopicPartition()
	cp.Offset = 5
	ct.Partitions = append(ct.Partitions, cp)
	oc.Topics = append(oc.Topics, ct)
	or, err := oc.RequestWith(ctx, cl.Broker(int(co.NodeID)))
	if err != nil {
		t.Fatal(err)
	}
	if e := or.Topics[0].Partitions[0].ErrorCode; e != kerr.UnknownMemberID.Code {
		t.Errorf("commit without generation to a group with members: %d", e)
	}
	// DescribeGroups of a group that does not exist (v6: GROUP_ID_NOT_FOUND).
	dg := kmsg.NewPtrDescribeGroupsRequest()
	dg.Groups = []string{"nobody"}
	fc.CoordinatorKeys = []string{"nobody"}
	fr, _ = fc.RequestWith(ctx, cl)
	dr, err := dg.RequestWith(ctx, cl.Broker(int(fr.Coordinators[0].NodeID)))
	if err != nil {
		t.Fatal(err)
	}
	if g := dr.Groups[0]; g.ErrorCode != kerr.GroupIDNotFound.Code || g.State != "Dead" || g.ErrorMessage == nil || *g.ErrorMessage != "Group nobody not found." {
		t.Errorf("describe unknown group: %+v", g)
	}
	// The member's session expires: the group empties.
	c.mu.Lock()
	c.tickGroups(time.Now().Add(time.Minute), 0)
	state := c.ext.groups.groups["ge"].state
	c.mu.Unlock()
	if state != "Empty" {
		t.Errorf("after the session timeout: %s", state)
	}
}

// TestDataEmptyPartitionsCostNothing: partitions never produced to hold
// no log.
func TestDataEmptyPartitionsCostNothing(t *testing.T) {
	c := startTest(t, Config{Brokers: 3})
	tp := dataTopic(t, c, "big", 1000, 1, nil)
	for _, p := range tp.parts {
		if p.log != nil {
			t.Fatal("an empty partition has a log")
		}
	}
}

func crc32Castagnoli(b []byte) uint32 { return crc32.Checksum(b, castagnoli) }

// testLogger logs the sandbox's lines in the test's log.
func testLogger(t testing.TB) *slog.Logger {
	return slog.New(slog.NewTextHandler(tWriter{t}, nil))
}

type tWriter struct{ t testing.TB }

func (w tWriter) Write(b []byte) (int, error) {
	w.t.Log(strings.TrimSpace(string(b)))
	return len(b), nil
}

// TestDataOldVersions: a client pinned to old versions (topics by name:
// Produce v7, Fetch v4 and v11, ListOffsets v1, no fetch sessions before
// v7) produces and consumes as a new one does.
func TestDataOldVersions(t *testing.T) {
	c := startTest(t, Config{Brokers: 3})
	dataTopic(t, c, "old", 3, 2, nil)
	for _, fetchV := range []int16{4, 11} {
		ctx := ctxT(t, 30*time.Second)
		vs := kversion.Stable()
		vs.SetMaxKeyVersion(kmsg.Produce.Int16(), 7)
		vs.SetMaxKeyVersion(kmsg.Fetch.Int16(), fetchV)
		vs.SetMaxKeyVersion(kmsg.ListOffsets.Int16(), 1)
		topic := "old"
		prefix := fmt.Sprintf("f%d", fetchV)
		prod := kclient(t, c, kgo.MaxVersions(vs), kgo.DefaultProduceTopic(topic))
		produceN(t, ctx, prod, topic, prefix, 300)
		cons := kclient(t, c, kgo.MaxVersions(vs), kgo.ConsumeTopics(topic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
			kgo.FetchMaxWait(200*time.Millisecond))
		seen := map[string]int{}
		consumeUntil(t, ctx, cons, seen, func() bool {
			for i := range 300 {
				if seen[fmt.Sprintf("%s-%d", prefix, i)] == 0 {
					return false
				}
			}
			return true
		})
	}
}
