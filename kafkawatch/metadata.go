package kafkawatch

import (
	"encoding/binary"
	"errors"
	"hash/maphash"
	"math"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// A Metadata response of every topic is the bulk of a poll: megabytes for
// 100,000 partitions, nearly all of them as they were a second ago.
// metaResponse reads it without decoding what did not change: it walks
// each topic's partitions as bytes, hashes them, and keeps a copy only of
// the topics whose hash differs from the poll before (or that the layout
// does not know). Those alone are decoded into partitions. A poll of a
// quiet cluster allocates next to nothing.

// metaTopic is one topic of a Metadata response.
type metaTopic struct {
	name     string
	id       [16]byte
	err      int16
	internal bool
	// hash is its partitions' bytes' hash; parts their copy when they
	// changed (nil when unchanged: the layout's state is current).
	hash  uint64
	parts []byte
	// decoded are the partitions of a response of an older version, read
	// by kmsg (always taken as changed).
	decoded []kmsg.MetadataResponseTopicPartition
}

// changed reports a topic whose partitions must be looked at.
func (t *metaTopic) changed() bool { return t.parts != nil || t.decoded != nil }

// metaRequest is a Metadata request of every topic whose response is a
// metaResponse, and that franz-go passes through as it is (it would copy
// a *kmsg.MetadataRequest's whole response into its own cache).
type metaRequest struct {
	*kmsg.MetadataRequest
	lay *layout
}

// ResponseKind is the metaResponse reading against the layout.
func (r metaRequest) ResponseKind() kmsg.Response {
	return &metaResponse{MetadataResponse: kmsg.MetadataResponse{Version: r.Version}, lay: r.lay}
}

// metaResponse is a Metadata response: the kmsg one (brokers, cluster
// id, error) without its topics, which are in topics.
type metaResponse struct {
	kmsg.MetadataResponse
	lay    *layout
	topics []metaTopic
	// hash is the hash of the bytes after the brokers, cluster id and
	// controller (the topics and the error); same says they are those of
	// the response the layout applied last: no topic was read (topics is
	// nil), the layout's are current.
	hash uint64
	same bool
	size int // the response's bytes
}

var errShort = errors.New("metadata response too short")

// seed is the partitions' hash seed (the process's).
var seed = maphash.MakeSeed()

// ReadFrom reads a Metadata response of a flexible version (9+, what
// every KRaft broker answers); older versions are read by kmsg whole.
// It runs while the poller waits for it, so it may read the layout.
func (r *metaResponse) ReadFrom(b []byte) error {
	r.size = len(b)
	if r.Version < 9 {
		if err := r.MetadataResponse.ReadFrom(b); err != nil {
			return err
		}
		for _, t := range r.Topics {
			mt := metaTopic{id: t.TopicID, err: t.ErrorCode, internal: t.IsInternal}
			if t.Topic == nil {
				continue
			}
			mt.name, mt.decoded = *t.Topic, t.Partitions
			if mt.decoded == nil {
				mt.decoded = []kmsg.MetadataResponseTopicPartition{}
			}
			r.topics = append(r.topics, mt)
		}
		r.Topics = nil
		return nil
	}
	rd := &reader{b: b}
	r.ThrottleMillis = rd.int32()
	nb := rd.arrayLen()
	for range max(nb, 0) {
		br := kmsg.NewMetadataResponseBroker()
		br.NodeID = rd.int32()
		br.Host = rd.string()
		br.Port = rd.int32()
		br.Rack = rd.nullableString()
		rd.tags()
		r.Brokers = append(r.Brokers, br)
	}
	r.ClusterID = rd.nullableString()
	r.ControllerID = rd.int32()
	// A quiet cluster answers the same bytes poll after poll (Kafka lists
	// the topics of its metadata image in an order that holds while the
	// image does): hashing them is all a poll then costs, a few ms for a
	// million partitions where walking them took a hundred.
	if rd.err == nil {
		r.hash = maphash.Bytes(seed, rd.b[rd.off:])
		if r.lay != nil && r.lay.metaHash != 0 && r.lay.metaHash == r.hash {
			r.same = true
			return nil
		}
	}
	nt := rd.arrayLen()
	if nt > 0 {
		r.topics = make([]metaTopic, 0, min(nt, len(b)/8)) // a count read from garbage allocates no more than the bytes allow
	}
	for range max(nt, 0) {
		var t metaTopic
		t.err = rd.int16()
		name := rd.nullableBytes()
		if r.Version >= 10 {
			copy(t.id[:], rd.take(16))
		}
		t.internal = rd.int8() != 0
		from := rd.off
		np := rd.arrayLen()
		for range max(np, 0) {
			rd.skip(2 + 4 + 4 + 4) // error, partition, leader, leader epoch
			for range 3 {          // replicas, ISR, offline replicas
				if n := rd.arrayLen(); n > 0 {
					rd.skip(4 * n)
				}
			}
			rd.tags()
		}
		span := rd.b[from:min(rd.off, len(rd.b))]
		t.hash = maphash.Bytes(seed, span)
		var tn *topicNode
		if name != nil && r.lay != nil {
			tn = r.lay.topics[string(name)] // no allocation for the lookup
		}
		switch {
		case tn != nil:
			t.name = tn.name
		case name != nil:
			t.name = string(name)
		}
		if tn == nil || tn.hash != t.hash || tn.id != t.id {
			t.parts = append([]byte(nil), span...)
		}
		rd.skip(4) // authorized operations
		rd.tags()
		if name != nil {
			r.topics = append(r.topics, t)
		}
	}
	if r.Version >= 8 && r.Version <= 10 {
		rd.skip(4) // cluster authorized operations
	}
	if r.Version >= 13 {
		r.ErrorCode = rd.int16()
	}
	rd.tags()
	return rd.err
}

// count is how many partitions the topic has in the response (those
// of a topic that did not change are not counted: it has no bytes).
func (t *metaTopic) count() int {
	if t.decoded != nil {
		return len(t.decoded)
	}
	if t.parts == nil {
		return 0
	}
	rd := &reader{b: t.parts}
	return max(rd.arrayLen(), 0)
}

// partitions decodes a changed topic's partitions.
func (t *metaTopic) partitions() []kmsg.MetadataResponseTopicPartition {
	if t.decoded != nil {
		return t.decoded
	}
	rd := &reader{b: t.parts}
	n := rd.arrayLen()
	out := make([]kmsg.MetadataResponseTopicPartition, 0, max(n, 0))
	for range max(n, 0) {
		p := kmsg.NewMetadataResponseTopicPartition()
		p.ErrorCode = rd.int16()
		p.Partition = rd.int32()
		p.Leader = rd.int32()
		p.LeaderEpoch = rd.int32()
		p.Replicas = rd.int32s()
		p.ISR = rd.int32s()
		p.OfflineReplicas = rd.int32s()
		rd.tags()
		out = append(out, p)
	}
	return out
}

// zeros are what reader.take gives for a number past the end.
var zeros [16]byte

// reader reads Kafka's flexible encoding; the first error sticks. It
// reads as kmsg does (32-bit varints of at most five bytes, array
// lengths that cannot exceed the bytes left), so that a response either
// reads, both read alike, and a length no response could hold ends the
// reading at once instead of looping over it.
type reader struct {
	b   []byte
	off int
	err error
}

// take is the next n bytes. Past an error it is zeros for a number (at
// most 16 bytes) and nothing for bytes: a length read from garbage must
// not allocate what it says.
func (r *reader) take(n int) []byte {
	if r.err != nil || n < 0 || n > len(r.b)-r.off {
		r.err = errShort
		if n >= 0 && n <= len(zeros) {
			return zeros[:n:n]
		}
		return nil
	}
	s := r.b[r.off : r.off+n]
	r.off += n
	return s
}

func (r *reader) skip(n int) { r.take(n) }

// left is how many bytes are not read yet.
func (r *reader) left() int { return len(r.b) - r.off }

func (r *reader) int8() int8   { return int8(r.take(1)[0]) }
func (r *reader) int16() int16 { return int16(binary.BigEndian.Uint16(r.take(2))) }
func (r *reader) int32() int32 { return int32(binary.BigEndian.Uint32(r.take(4))) }

// uvarint is an unsigned varint of 32 bits, as Kafka writes lengths
// (kmsg refuses a longer one, or a fifth byte over 0x0f).
func (r *reader) uvarint() uint32 {
	if r.err == nil && r.off < len(r.b) && r.b[r.off] < 0x80 { // one byte: most lengths
		r.off++
		return uint32(r.b[r.off-1])
	}
	return r.longUvarint()
}

func (r *reader) longUvarint() uint32 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b[r.off:])
	if n <= 0 || n > 5 || v > math.MaxUint32 {
		r.err = errShort
		return 0
	}
	r.off += n
	return uint32(v)
}

// arrayLen is a compact array's length (negative for null). As kmsg's,
// it is computed in 32 bits (a length past 2^31 is negative: an empty
// array), and one longer than the bytes left is an error.
func (r *reader) arrayLen() int {
	n := int(int32(r.uvarint()) - 1)
	if n > r.left() {
		r.err = errShort
		return 0
	}
	return n
}

func (r *reader) nullableBytes() []byte {
	n := int(r.uvarint()) - 1
	if n < 0 {
		return nil
	}
	return r.take(n)
}

// bytes is a string that may not be null (kmsg fails a null one).
func (r *reader) bytes() []byte {
	n := int(r.uvarint()) - 1
	return r.take(n)
}

func (r *reader) string() string { return string(r.nullableBytes()) }

func (r *reader) nullableString() *string {
	b := r.nullableBytes()
	if b == nil {
		return nil
	}
	s := string(b)
	return &s
}

func (r *reader) int32s() []int32 {
	n := r.arrayLen()
	if n < 0 {
		return nil
	}
	out := make([]int32, n)
	for i := range out {
		out[i] = r.int32()
	}
	return out
}

// tags skips tagged fields.
func (r *reader) tags() {
	if r.err == nil && r.off < len(r.b) && r.b[r.off] == 0 { // none: most
		r.off++
		return
	}
	for range r.uvarint() {
		r.uvarint()
		r.skip(int(r.uvarint()))
		if r.err != nil {
			return
		}
	}
}
