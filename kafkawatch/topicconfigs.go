package kafkawatch

import (
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/ktopo/ktopo/cluster"
)

// A DescribeConfigs answer of topics lists every config of every topic
// (Kafka 4.4: 37 a topic), with its value, source and flags; ktopo keeps
// a topic's own overrides and notes what the others inherit, which after
// the first topic of an answer is what it already noted. kmsg decodes it
// all into structs and strings: at 100,000 topics, seconds of CPU and
// much of the garbage of a first load. topicConfigsResponse reads the
// answer as bytes instead and makes strings only of what it keeps: the
// overrides, an inherited value that is new, an error's message, a
// topic's name (the request's own string when the answer names the
// topics in the order asked, as Kafka does when it may describe them
// all). It gives what
// configPart.read gives of kmsg's decoding, for every answer kmsg reads,
// and fails every answer kmsg fails.

// topicConfigsRequest is a DescribeConfigs of topics whose response is a
// topicConfigsResponse. franz-go sends it as it is: its sharding (which
// sends a *kmsg.DescribeConfigsRequest's topics to any broker, and a
// broker's resources to that broker) does not know the type, so
// Client.Request sends it to any broker, with the retries of an
// unsharded request: what sharding does for topics. Broker.Request sends
// it to its broker, as the kmsg request.
type topicConfigsRequest struct {
	*kmsg.DescribeConfigsRequest
	names []string // the topics asked, in the request's order
}

// newTopicConfigsRequest asks for the configs of names.
func newTopicConfigsRequest(names []string) topicConfigsRequest {
	req := kmsg.NewPtrDescribeConfigsRequest()
	for _, n := range names {
		r := kmsg.NewDescribeConfigsRequestResource()
		r.ResourceType, r.ResourceName = kmsg.ConfigResourceTypeTopic, n
		req.Resources = append(req.Resources, r)
	}
	return topicConfigsRequest{req, names}
}

// ResponseKind is the topicConfigsResponse of the version franz-go
// chose.
func (r topicConfigsRequest) ResponseKind() kmsg.Response {
	return &topicConfigsResponse{DescribeConfigsResponse: kmsg.DescribeConfigsResponse{Version: r.Version}, names: r.names}
}

// topicConfigsResponse is a DescribeConfigs answer of topics read into
// part's configs and inherited (the kmsg response keeps the throttle
// alone, for franz-go).
type topicConfigsResponse struct {
	kmsg.DescribeConfigsResponse
	names []string
	part  configPart
}

// errNotEnoughData is kmsg's error for a response cut short, which
// ReadFrom gives as kmsg would.
var errNotEnoughData = kmsg.NewPtrDescribeConfigsResponse().ReadFrom(nil)

// ReadFrom reads a DescribeConfigs response of a flexible version (4+,
// what current brokers answer); older versions are read by kmsg whole
// and taken by configPart.read, as metaResponse does.
func (r *topicConfigsResponse) ReadFrom(b []byte) error {
	if r.Version < 4 {
		if err := r.DescribeConfigsResponse.ReadFrom(b); err != nil {
			return err
		}
		r.part.read(&r.DescribeConfigsResponse)
		r.Resources = nil
		return nil
	}
	rd := &reader{b: b}
	r.ThrottleMillis = rd.int32()
	n := rd.arrayLen()
	// kmsg's bound (a resource is at least 7 bytes; the configs' 9, a
	// synonym's 4): what a response cannot hold fails at once.
	if n*7 > rd.left() {
		rd.err = errShort
	}
	r.part.configs = make(map[string]topicConfig, max(n, 0))
	var notes keyNotes
	for i := 0; i < n && rd.err == nil; i++ {
		code := rd.int16()
		msg := rd.nullableBytes()
		rd.skip(1) // resource type
		name := rd.bytes()
		topic := ""
		if i < len(r.names) && r.names[i] == string(name) {
			topic = r.names[i]
		} else {
			topic = string(name)
		}
		var err error
		if code != 0 {
			var m *string
			if msg != nil {
				s := string(msg)
				m = &s
			}
			err = codeError(code, m)
		} else if r.part.inherited == nil {
			r.part.inherited = &inheritance{set: map[string]string{}, unset: map[string]bool{}}
		}
		var own []cluster.ConfigEntry
		nc := rd.arrayLen()
		if nc*9 > rd.left() {
			rd.err = errShort
		}
		for j := range max(nc, 0) {
			k := rd.bytes()
			v := rd.nullableBytes()
			rd.skip(1) // read only
			source := kmsg.ConfigSource(rd.int8())
			rd.skip(1) // sensitive
			ns := rd.arrayLen()
			if ns*4 > rd.left() {
				rd.err = errShort
			}
			for range max(ns, 0) {
				rd.bytes()         // name
				rd.nullableBytes() // value
				rd.skip(1)         // source
				rd.tags()
				if rd.err != nil {
					break
				}
			}
			rd.skip(1)         // config type
			rd.nullableBytes() // documentation
			rd.tags()
			if rd.err != nil {
				break
			}
			if err != nil {
				continue // the topic's error is all that is kept of it
			}
			kn := notes.at(j, k)
			if source == sourceDynamicTopic {
				own = append(own, cluster.ConfigEntry{Key: kn.key, Value: string(v)})
				continue
			}
			kn.note(v, source)
		}
		rd.tags()
		if err != nil {
			r.part.configs[topic] = topicConfig{err: err}
		} else {
			r.part.configs[topic] = topicConfig{entries: own}
		}
	}
	rd.tags()
	if rd.err != nil {
		return errNotEnoughData
	}
	if in := r.part.inherited; in != nil {
		for _, kn := range notes.byKey {
			switch kn.state {
			case noteSet:
				in.set[kn.key] = kn.value
			case noteUnset:
				in.unset[kn.key] = true
			}
		}
	}
	return nil
}

// keyNotes are what the topics of an answer said of each config key, as
// inheritance.note would leave it (the result of a note depends on
// nothing but what the notes before said of its key). Looking a key up
// is cheap: Kafka lists every topic's configs in the same order, so an
// entry's key is most often the one at its position in the topic
// before, compared without hashing.
type keyNotes struct {
	byKey map[string]*keyNote
	last  []*keyNote // by position in a topic's entries
}

// keyNote is what the answer said of a key so far: inherited with value,
// at Kafka's default, or neither (0).
type keyNote struct {
	key   string // the answer's one string of the key
	state int8
	value string
}

const (
	noteSet = 1 + iota
	noteUnset
)

// at is the note of key k, the entry at position j of its topic.
func (ns *keyNotes) at(j int, k []byte) *keyNote {
	if j < len(ns.last) && ns.last[j].key == string(k) {
		return ns.last[j]
	}
	kn, ok := ns.byKey[string(k)] // no allocation for the lookup
	if !ok {
		if ns.byKey == nil {
			ns.byKey = map[string]*keyNote{}
		}
		kn = &keyNote{key: string(k)}
		ns.byKey[kn.key] = kn
	}
	switch {
	case j < len(ns.last):
		ns.last[j] = kn
	case j == len(ns.last):
		ns.last = append(ns.last, kn)
	}
	return kn
}

// note is inheritance.note of the key's entry of value v from source.
func (kn *keyNote) note(v []byte, source kmsg.ConfigSource) {
	switch source {
	case sourceDynamicBroker, sourceDynamicDefaultBroker, sourceStaticBroker:
		if kn.state != noteSet || kn.value != string(v) {
			kn.state, kn.value = noteSet, string(v)
		}
	case sourceDefault:
		if kn.state == 0 {
			kn.state = noteUnset
		}
	}
}
