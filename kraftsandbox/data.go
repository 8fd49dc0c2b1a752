package kraftsandbox

import (
	"encoding/binary"
	"hash/crc32"
	"slices"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// The data plane: Produce, Fetch, ListOffsets, OffsetForLeaderEpoch and
// InitProducerId, over the records held in memory in each partition's
// log (partition.log, nil until the first record: an empty partition
// costs nothing).
//
// One log per partition stands for every replica's copy: the ISR's
// replicas have every record at once, so the high watermark and the last
// stable offset are the log end. Only the leader (p.leader, the
// controller's choice) serves produce and fetch; any other broker answers
// NOT_LEADER_OR_FOLLOWER with the current leader (KIP-951), so that a
// client refreshes its metadata when the leadership moves.
//
// Lenient against Kafka: idempotent producers' sequences are not
// validated (a batch repeating the last batch of its producer id, epoch
// and base sequence is answered as the duplicate it is, anything else is
// appended); there is no transaction coordinator (a transactional
// producer gets COORDINATOR_NOT_AVAILABLE from FindCoordinator); fetch
// sessions are not kept (every fetch is answered sessionless, SessionID
// 0, which Kafka's and franz-go's consumers accept as a full fetch).

// dataState is the data plane's state outside the partitions' logs.
type dataState struct {
	// nextPID is the next producer id InitProducerId hands out.
	nextPID int64
	// wake is closed (and dropped) when records are appended: fetches
	// waiting for data (MaxWaitMillis) wait on it without c.mu. nil when
	// nobody waits.
	wake chan struct{}
}

func init() {
	handlerSets = append(handlerSets, map[int16]handler{
		kmsg.Produce.Int16():              (*Cluster).produce,
		kmsg.Fetch.Int16():                (*Cluster).fetch,
		kmsg.ListOffsets.Int16():          (*Cluster).listOffsets,
		kmsg.OffsetForLeaderEpoch.Int16(): (*Cluster).offsetForLeaderEpoch,
		kmsg.InitProducerID.Int16():       (*Cluster).initProducerID,
	})
}

// The record batch header (magic 2): what the broker reads and rewrites.
const (
	bBaseOffset     = 0
	bLength         = 8
	bLeaderEpoch    = 12
	bMagic          = 16
	bCRC            = 17
	bAttributes     = 21
	bLastDelta      = 23
	bFirstTimestamp = 27
	bMaxTimestamp   = 35
	bProducerID     = 43
	bProducerEpoch  = 51
	bBaseSequence   = 53
	bRecordCount    = 57
	batchHeaderLen  = 61
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// wakeFetchers wakes the fetches waiting for records. c.mu is held.
func (c *Cluster) wakeFetchers() {
	if c.ext.data.wake != nil {
		close(c.ext.data.wake)
		c.ext.data.wake = nil
	}
}

// waitChan is the channel closed at the next append. c.mu is held.
func (c *Cluster) waitChan() chan struct{} {
	if c.ext.data.wake == nil {
		c.ext.data.wake = make(chan struct{})
	}
	return c.ext.data.wake
}

// wait blocks (without c.mu) until ch closes, d passes, the cluster
// closes or the node's process is killed; it reports whether the node
// still runs.
func (c *Cluster) wait(n *node, ch <-chan struct{}, d time.Duration) bool {
	timer := time.NewTimer(d)
	defer timer.Stop()
	poll := time.NewTicker(c.cfg.Tick)
	defer poll.Stop()
	for {
		select {
		case <-ch:
			return n.listening()
		case <-timer.C:
			return n.listening()
		case <-c.ctx.Done():
			return false
		case <-poll.C:
			if !n.listening() {
				return false
			}
		}
	}
}

// requestTopic is the topic a Produce or Fetch names: by id from version
// 13 on, else by name (nil when unknown). c.mu is held.
func (c *Cluster) requestTopic(byID bool, name string, id [16]byte) *topic {
	if byID {
		return c.topicIDs[id]
	}
	return c.topics[name]
}

// partitionOf is partition idx of t (nil when t is nil or has no such
// partition). c.mu is held.
func (c *Cluster) partitionOf(t *topic, idx int32) *partition {
	if t == nil || idx < 0 || int(idx) >= len(t.parts) {
		return nil
	}
	return t.parts[idx]
}

// leaderCheck is the error a broker answers a client's request for a
// partition with: FENCED_LEADER_EPOCH or UNKNOWN_LEADER_EPOCH when the
// client's leader epoch is not the partition's (-1: no check), then
// NOT_LEADER_OR_FOLLOWER when the broker does not lead it. c.mu is held.
func (c *Cluster) leaderCheck(n *node, p *partition, epoch int32) *kerr.Error {
	if !slices.Contains(p.replicas, n.id) {
		return kerr.NotLeaderForPartition
	}
	if epoch >= 0 && epoch < p.leaderEpoch {
		return kerr.FencedLeaderEpoch
	}
	if epoch > p.leaderEpoch {
		return kerr.UnknownLeaderEpoch
	}
	if p.leader != n.id {
		return kerr.NotLeaderForPartition
	}
	return nil
}

// endpoint is a live broker's listener (ok false when it is not live).
// c.mu is held.
func (c *Cluster) endpoint(id int32) (b *broker, ok bool) {
	b = c.broker(id)
	if b == nil || !b.registered || b.fenced {
		return nil, false
	}
	return b, true
}

// produce answers Produce: each partition's batch appended to its log on
// the leader, its base offset (and partition leader epoch) rewritten.
func (c *Cluster) produce(r *request) (kmsg.Response, error) {
	req := r.req.(*kmsg.ProduceRequest)
	resp := req.ResponseKind().(*kmsg.ProduceResponse)
	if req.Acks == 0 {
		r.noReply = true
	}
	now := time.Now().UnixMilli()
	c.mu.Lock()
	defer c.mu.Unlock()
	leaders := map[int32]bool{}
	appended := false
	for _, rt := range req.Topics {
		t := c.requestTopic(req.Version >= 13, rt.Topic, rt.TopicID)
		st := kmsg.NewProduceResponseTopic()
		st.Topic, st.TopicID = rt.Topic, rt.TopicID
		for _, rp := range rt.Partitions {
			sp := kmsg.NewProduceResponseTopicPartition()
			sp.Partition = rp.Partition
			sp.BaseOffset, sp.LogAppendTime, sp.LogStartOffset = -1, -1, -1
			p := c.partitionOf(t, rp.Partition)
			switch {
			case t == nil && req.Version >= 13:
				sp.ErrorCode = kerr.UnknownTopicID.Code
			case p == nil:
				sp.ErrorCode = kerr.UnknownTopicOrPartition.Code
			default:
				if err := c.leaderCheck(r.node, p, -1); err != nil {
					sp.ErrorCode = err.Code
					if p.leader >= 0 {
						sp.CurrentLeader.LeaderID, sp.CurrentLeader.LeaderEpoch = p.leader, p.leaderEpoch
						leaders[p.leader] = true
					}
					break
				}
				c.appendBatch(req, t, p, rp.Records, now, &sp)
				appended = appended || sp.ErrorCode == 0
			}
			st.Partitions = append(st.Partitions, sp)
		}
		resp.Topics = append(resp.Topics, st)
	}
	if appended {
		c.wakeFetchers()
	}
	for _, id := range slices.Sorted(mapKeys(leaders)) {
		if b, ok := c.endpoint(id); ok {
			rb := kmsg.NewProduceResponseBroker()
			rb.NodeID, rb.Host, rb.Port, rb.Rack = b.id, b.n.host, b.n.port, b.rack
			resp.Brokers = append(resp.Brokers, rb)
		}
	}
	return resp, nil
}

func mapKeys[K comparable, V any](m map[K]V) func(func(K) bool) {
	return func(yield func(K) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// appendBatch validates one partition's records as a 4.4 broker does
// (exactly one batch of magic 2, its CRC, acks=all against
// min.insync.replicas) and appends it. c.mu is held.
func (c *Cluster) appendBatch(req *kmsg.ProduceRequest, t *topic, p *partition, recs []byte, now int64, sp *kmsg.ProduceResponseTopicPartition) {
	// Kafka answers these refusals with the error code alone (only a
	// RecordValidationException carries a message), as a real 4.4.0
	// broker was seen to do for NOT_ENOUGH_REPLICAS.
	fail := func(e *kerr.Error) { sp.ErrorCode = e.Code }
	if len(recs) < batchHeaderLen || recs[bMagic] != 2 {
		fail(kerr.InvalidRecord)
		return
	}
	n := int(int32(binary.BigEndian.Uint32(recs[bLength:]))) + 12
	if n < batchHeaderLen || n > len(recs) {
		fail(kerr.CorruptMessage)
		return
	}
	if n != len(recs) {
		// Produce v3+ takes exactly one batch per partition.
		fail(kerr.InvalidRecord)
		return
	}
	if crc32.Checksum(recs[bAttributes:n], castagnoli) != binary.BigEndian.Uint32(recs[bCRC:]) {
		fail(kerr.CorruptMessage)
		return
	}
	// acks=all needs an ISR of min.insync.replicas, capped at the
	// number of replicas (Partition.effectiveMinIsr).
	if req.Acks == -1 && len(p.isr) < min(c.minISR(t), len(p.replicas)) {
		fail(kerr.NotEnoughReplicas)
		return
	}
	if p.log == nil {
		p.log = &plog{}
	}
	l := p.log
	pid := int64(binary.BigEndian.Uint64(recs[bProducerID:]))
	seq := int32(binary.BigEndian.Uint32(recs[bBaseSequence:]))
	pepoch := int16(binary.BigEndian.Uint16(recs[bProducerEpoch:]))
	if pid >= 0 && seq >= 0 {
		// The retry of the last batch of this producer: its offset again.
		for i := len(l.batches) - 1; i >= 0 && i >= len(l.batches)-5; i-- {
			b := l.batches[i].raw
			if int64(binary.BigEndian.Uint64(b[bProducerID:])) == pid && int16(binary.BigEndian.Uint16(b[bProducerEpoch:])) == pepoch &&
				int32(binary.BigEndian.Uint32(b[bBaseSequence:])) == seq {
				sp.BaseOffset, sp.LogStartOffset = l.batches[i].base, l.start
				return
			}
		}
	}
	raw := slices.Clone(recs)
	base := l.hw
	binary.BigEndian.PutUint64(raw[bBaseOffset:], uint64(base))
	binary.BigEndian.PutUint32(raw[bLeaderEpoch:], uint32(p.leaderEpoch))
	maxTS := int64(binary.BigEndian.Uint64(raw[bMaxTimestamp:]))
	if t.configs["message.timestamp.type"] == "LogAppendTime" || c.brokerConfigs[""]["log.message.timestamp.type"] == "LogAppendTime" && t.configs["message.timestamp.type"] == "" {
		attrs := binary.BigEndian.Uint16(raw[bAttributes:]) | 0x08
		binary.BigEndian.PutUint16(raw[bAttributes:], attrs)
		binary.BigEndian.PutUint64(raw[bMaxTimestamp:], uint64(now))
		binary.BigEndian.PutUint32(raw[bCRC:], crc32.Checksum(raw[bAttributes:], castagnoli))
		maxTS = now
		sp.LogAppendTime = now
	}
	last := base + int64(int32(binary.BigEndian.Uint32(raw[bLastDelta:])))
	l.batches = append(l.batches, batch{base: base, last: last, maxTS: maxTS, raw: raw})
	l.hw = last + 1
	p.size += float64(len(raw))
	sp.BaseOffset, sp.LogStartOffset = base, l.start
}

// logEnd, logStart are a partition's high watermark and log start offset.
func (p *partition) logEnd() int64 {
	if p.log == nil {
		return 0
	}
	return p.log.hw
}

func (p *partition) logStart() int64 {
	if p.log == nil {
		return 0
	}
	return p.log.start
}

// batchAt is the index of the batch holding offset off (or the first
// after it); len(batches) when none.
func (l *plog) batchAt(off int64) int {
	i, _ := slices.BinarySearchFunc(l.batches, off, func(b batch, off int64) int {
		if b.last < off {
			return -1
		}
		if b.base > off {
			return 1
		}
		return 0
	})
	return i
}

// fetch answers Fetch from the partitions' leaders' logs, waiting up to
// MaxWaitMillis (without c.mu) for MinBytes of records.
func (c *Cluster) fetch(r *request) (kmsg.Response, error) {
	req := r.req.(*kmsg.FetchRequest)
	deadline := time.Now().Add(time.Duration(req.MaxWaitMillis) * time.Millisecond)
	for {
		c.mu.Lock()
		resp, bytes, failed := c.fetchOnce(r.node, req)
		if failed || int(bytes) >= int(req.MinBytes) || req.MinBytes <= 0 || !time.Now().Before(deadline) {
			c.mu.Unlock()
			return resp, nil
		}
		ch := c.waitChan()
		c.mu.Unlock()
		if !c.wait(r.node, ch, time.Until(deadline)) {
			return nil, errClose
		}
	}
}

// fetchOnce builds a fetch's response from the logs as they are: the
// bytes it holds, and whether a partition failed (which answers at
// once). c.mu is held.
func (c *Cluster) fetchOnce(n *node, req *kmsg.FetchRequest) (*kmsg.FetchResponse, int, bool) {
	resp := req.ResponseKind().(*kmsg.FetchResponse)
	resp.SessionID = 0
	total, failed := 0, false
	maxBytes := int(req.MaxBytes)
	if req.Version < 3 || maxBytes <= 0 {
		maxBytes = int(^uint(0) >> 1)
	}
	leaders := map[int32]bool{}
	for _, rt := range req.Topics {
		t := c.requestTopic(req.Version >= 13, rt.Topic, rt.TopicID)
		st := kmsg.NewFetchResponseTopic()
		st.Topic, st.TopicID = rt.Topic, rt.TopicID
		for _, rp := range rt.Partitions {
			sp := kmsg.NewFetchResponseTopicPartition()
			sp.Partition = rp.Partition
			sp.HighWatermark, sp.LastStableOffset, sp.LogStartOffset = -1, -1, -1
			p := c.partitionOf(t, rp.Partition)
			switch {
			case t == nil && req.Version >= 13:
				sp.ErrorCode = kerr.UnknownTopicID.Code
			case p == nil:
				sp.ErrorCode = kerr.UnknownTopicOrPartition.Code
			default:
				if err := c.leaderCheck(n, p, rp.CurrentLeaderEpoch); err != nil {
					sp.ErrorCode = err.Code
					if err == kerr.NotLeaderForPartition && p.leader >= 0 {
						sp.CurrentLeader.LeaderID, sp.CurrentLeader.LeaderEpoch = p.leader, p.leaderEpoch
						leaders[p.leader] = true
					}
					break
				}
				sp.HighWatermark, sp.LastStableOffset, sp.LogStartOffset = p.logEnd(), p.logEnd(), p.logStart()
				if rp.FetchOffset < p.logStart() || rp.FetchOffset > p.logEnd() {
					sp.ErrorCode = kerr.OffsetOutOfRange.Code
					break
				}
				if p.log == nil {
					break
				}
				l := p.log
				partBytes := 0
				var out []byte
				for i := l.batchAt(rp.FetchOffset); i < len(l.batches); i++ {
					sz := len(l.batches[i].raw)
					if partBytes+sz > int(rp.PartitionMaxBytes) || total+sz > maxBytes {
						if partBytes == 0 && total == 0 {
							// KIP-74: the first batch goes whole.
							out = append(out, l.batches[i].raw...)
							partBytes += sz
						}
						break
					}
					out = append(out, l.batches[i].raw...)
					partBytes += sz
				}
				sp.RecordBatches = out
				total += partBytes
			}
			if sp.ErrorCode != 0 {
				failed = true
			}
			st.Partitions = append(st.Partitions, sp)
		}
		resp.Topics = append(resp.Topics, st)
	}
	for _, id := range slices.Sorted(mapKeys(leaders)) {
		if b, ok := c.endpoint(id); ok {
			rb := kmsg.NewFetchResponseBroker()
			rb.NodeID, rb.Host, rb.Port, rb.Rack = b.id, b.n.host, b.n.port, b.rack
			resp.Brokers = append(resp.Brokers, rb)
		}
	}
	return resp, total, failed
}

// The special timestamps of ListOffsets.
const (
	latestTimestamp         = -1
	earliestTimestamp       = -2
	maxTimestamp            = -3
	earliestLocalTimestamp  = -4
	earliestPendingUpload   = -5
	latestTieredTimestamp   = -6
	unknownOffsetOrTimeStmp = -1
)

// listOffsets answers ListOffsets on the partitions' leaders: the log
// start, the log end, the record of the largest timestamp, or the first
// record at or after a timestamp.
func (c *Cluster) listOffsets(r *request) (kmsg.Response, error) {
	req := r.req.(*kmsg.ListOffsetsRequest)
	resp := req.ResponseKind().(*kmsg.ListOffsetsResponse)
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, rt := range req.Topics {
		t := c.topics[rt.Topic]
		st := kmsg.NewListOffsetsResponseTopic()
		st.Topic = rt.Topic
		for _, rp := range rt.Partitions {
			sp := kmsg.NewListOffsetsResponseTopicPartition()
			sp.Partition = rp.Partition
			sp.Timestamp, sp.Offset, sp.LeaderEpoch = unknownOffsetOrTimeStmp, unknownOffsetOrTimeStmp, -1
			p := c.partitionOf(t, rp.Partition)
			if p == nil {
				sp.ErrorCode = kerr.UnknownTopicOrPartition.Code
				st.Partitions = append(st.Partitions, sp)
				continue
			}
			if err := c.leaderCheck(r.node, p, rp.CurrentLeaderEpoch); err != nil {
				sp.ErrorCode = err.Code
				st.Partitions = append(st.Partitions, sp)
				continue
			}
			sp.LeaderEpoch = p.leaderEpoch
			switch rp.Timestamp {
			case earliestTimestamp, earliestLocalTimestamp:
				sp.Offset = p.logStart()
			case latestTimestamp:
				sp.Offset = p.logEnd()
			case earliestPendingUpload, latestTieredTimestamp:
				// No tiered storage: no offset.
			case maxTimestamp:
				sp.Offset, sp.Timestamp, sp.LeaderEpoch = p.maxTimestampOffset()
			default:
				if rp.Timestamp < 0 {
					sp.ErrorCode = kerr.UnsupportedVersion.Code
					break
				}
				sp.Offset, sp.Timestamp, sp.LeaderEpoch = p.offsetForTime(rp.Timestamp)
			}
			st.Partitions = append(st.Partitions, sp)
		}
		resp.Topics = append(resp.Topics, st)
	}
	return resp, nil
}

// batchEpoch is the partition leader epoch stamped in a stored batch.
func batchEpoch(b *batch) int32 { return int32(binary.BigEndian.Uint32(b.raw[bLeaderEpoch:])) }

// records calls fn with each record's offset and timestamp in a stored
// batch; false when the batch is compressed (its records unreadable here).
func (b *batch) records(fn func(off, ts int64) bool) bool {
	raw := b.raw
	attrs := binary.BigEndian.Uint16(raw[bAttributes:])
	if attrs&0x07 != 0 {
		return false
	}
	firstTS := int64(binary.BigEndian.Uint64(raw[bFirstTimestamp:]))
	logAppend := attrs&0x08 != 0
	n := int(int32(binary.BigEndian.Uint32(raw[bRecordCount:])))
	rest := raw[batchHeaderLen:]
	for range n {
		length, k := binary.Varint(rest)
		if k <= 0 || int(length) > len(rest)-k {
			return true
		}
		rec := rest[k : k+int(length)]
		rest = rest[k+int(length):]
		if len(rec) < 1 {
			return true
		}
		rec = rec[1:] // past the attributes
		tsDelta, k1 := binary.Varint(rec)
		if k1 <= 0 {
			return true
		}
		offDelta, k2 := binary.Varint(rec[k1:])
		if k2 <= 0 {
			return true
		}
		ts := firstTS + tsDelta
		if logAppend {
			ts = b.maxTS
		}
		if !fn(b.base+offDelta, ts) {
			return true
		}
	}
	return true
}

// maxTimestampOffset is the offset, timestamp and leader epoch of the
// first record with the largest timestamp (-1s on an empty log).
func (p *partition) maxTimestampOffset() (int64, int64, int32) {
	if p.log == nil || len(p.log.batches) == 0 {
		return -1, -1, -1
	}
	bi := 0
	for i := range p.log.batches {
		if p.log.batches[i].maxTS > p.log.batches[bi].maxTS {
			bi = i
		}
	}
	b := &p.log.batches[bi]
	off := b.last
	b.records(func(o, ts int64) bool {
		if ts == b.maxTS {
			off = o
			return false
		}
		return true
	})
	return off, b.maxTS, batchEpoch(b)
}

// offsetForTime is the first record whose timestamp is at or after ts:
// its offset, timestamp and leader epoch (-1s when none).
func (p *partition) offsetForTime(ts int64) (int64, int64, int32) {
	if p.log == nil {
		return -1, -1, -1
	}
	for i := range p.log.batches {
		b := &p.log.batches[i]
		if b.maxTS < ts {
			continue
		}
		off, at := b.base, b.maxTS
		b.records(func(o, t int64) bool {
			if t >= ts {
				off, at = o, t
				return false
			}
			return true
		})
		return off, at, batchEpoch(b)
	}
	return -1, -1, -1
}

// offsetForLeaderEpoch answers OffsetForLeaderEpoch: the end offset of a
// leader epoch (where the next epoch's records start, or the log end for
// the current epoch) and the largest epoch at or below the one asked for.
func (c *Cluster) offsetForLeaderEpoch(r *request) (kmsg.Response, error) {
	req := r.req.(*kmsg.OffsetForLeaderEpochRequest)
	resp := req.ResponseKind().(*kmsg.OffsetForLeaderEpochResponse)
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, rt := range req.Topics {
		t := c.topics[rt.Topic]
		st := kmsg.NewOffsetForLeaderEpochResponseTopic()
		st.Topic = rt.Topic
		for _, rp := range rt.Partitions {
			sp := kmsg.NewOffsetForLeaderEpochResponseTopicPartition()
			sp.Partition, sp.LeaderEpoch, sp.EndOffset = rp.Partition, -1, -1
			p := c.partitionOf(t, rp.Partition)
			if p == nil {
				sp.ErrorCode = kerr.UnknownTopicOrPartition.Code
			} else if err := c.leaderCheck(r.node, p, rp.CurrentLeaderEpoch); err != nil {
				sp.ErrorCode = err.Code
			} else {
				sp.LeaderEpoch, sp.EndOffset = p.epochEnd(rp.LeaderEpoch)
			}
			st.Partitions = append(st.Partitions, sp)
		}
		resp.Topics = append(resp.Topics, st)
	}
	return resp, nil
}

// epochEnd is the largest leader epoch at or below e and the offset where
// the epochs after it start (the log end when none does).
func (p *partition) epochEnd(e int32) (int32, int64) {
	if e >= p.leaderEpoch {
		return p.leaderEpoch, p.logEnd()
	}
	found := int32(-1)
	if p.log != nil {
		for i := range p.log.batches {
			be := batchEpoch(&p.log.batches[i])
			if be > e {
				if found < 0 {
					// Below the log's first epoch: the epoch asked
					// for ends where the first one starts.
					return e, p.log.batches[i].base
				}
				return found, p.log.batches[i].base
			}
			found = be
		}
	}
	if found < 0 {
		// No record of any epoch up to e: e ends where the log does.
		return e, p.logEnd()
	}
	return found, p.logEnd()
}

// initProducerID answers InitProducerId for idempotent producers: a new
// producer id in epoch 0, or the epoch after the one a producer names
// (KIP-360). Transactional ids have no coordinator here.
func (c *Cluster) initProducerID(r *request) (kmsg.Response, error) {
	req := r.req.(*kmsg.InitProducerIDRequest)
	resp := req.ResponseKind().(*kmsg.InitProducerIDResponse)
	c.mu.Lock()
	defer c.mu.Unlock()
	if req.TransactionalID != nil {
		resp.ErrorCode = kerr.NotCoordinator.Code
		resp.ProducerID, resp.ProducerEpoch = -1, -1
		return resp, nil
	}
	if req.ProducerID >= 0 && req.ProducerEpoch >= 0 && req.ProducerEpoch < 32766 {
		resp.ProducerID, resp.ProducerEpoch = req.ProducerID, req.ProducerEpoch+1
		return resp, nil
	}
	resp.ProducerID = c.ext.data.nextPID
	c.ext.data.nextPID++
	return resp, nil
}
