package cluster

import (
	"strconv"
)

// TopicAssignment is the JSON of /brokers/topics/<t>, versions 1–3.
type TopicAssignment struct {
	// Version as written (0 when absent; Kafka does not check it).
	Version int
	// Partitions maps partition id → ordered replica list (first = preferred
	// leader). During a reassignment it holds target ++ original replicas.
	Partitions map[int][]int
	// AddingReplicas and RemovingReplicas list, per partition under
	// reassignment, the replicas being added and removed. Never nil after
	// decoding.
	AddingReplicas   map[int][]int
	RemovingReplicas map[int][]int
	// TopicID is the base64url topic id, "" when absent (v < 3, or a v3
	// node written by a pre-2.8-IBP path).
	TopicID string
	Extra   []RawField
}

// NewTopicAssignment is what a Kafka 2.8+ creator writes: version 3, the
// given partitions, no reassignment, topicID ("" to let the controller add
// one, spec §1.5).
func NewTopicAssignment(partitions map[int][]int, topicID string) TopicAssignment {
	return TopicAssignment{
		Version:          3,
		Partitions:       partitions,
		AddingReplicas:   map[int][]int{},
		RemovingReplicas: map[int][]int{},
		TopicID:          topicID,
	}
}

// EncodeTopicAssignment writes the topic znode as Kafka does, e.g.
//
//	{"version":3,"partitions":{"0":[1,2],"1":[2,3]},"adding_replicas":{},"removing_replicas":{},"topic_id":"..."}
//
// Partition keys are in numeric order. Version 1 writes only version and
// partitions; version 2 adds adding/removing_replicas (entries with empty
// lists are omitted, as Kafka does); version ≥ 3 adds topic_id when set. A
// Version of 0 is written as 3 (what every Kafka since 2.8 writes).
func EncodeTopicAssignment(a TopicAssignment) []byte {
	v := a.Version
	if v == 0 {
		v = 3
	}
	n := 64
	for _, r := range a.Partitions {
		n += 8 + 3*len(r)
	}
	out := make([]byte, 0, n)
	out = append(out, `{"version":`...)
	out = strconv.AppendInt(out, int64(v), 10)
	out = append(out, `,"partitions":`...)
	out = appendReplicaMap(out, a.Partitions)
	if v >= 2 {
		out = append(out, `,"adding_replicas":`...)
		out = appendReplicaMap(out, nonEmpty(a.AddingReplicas))
		out = append(out, `,"removing_replicas":`...)
		out = appendReplicaMap(out, nonEmpty(a.RemovingReplicas))
	}
	if v >= 3 && a.TopicID != "" {
		out = append(out, `,"topic_id":`...)
		out = appendJSONString(out, a.TopicID)
	}
	return append(out, '}')
}

func nonEmpty(m map[int][]int) map[int][]int {
	for _, v := range m {
		if len(v) == 0 {
			out := make(map[int][]int, len(m))
			for k, v := range m {
				if len(v) > 0 {
					out[k] = v
				}
			}
			return out
		}
	}
	return m
}

const whatTopic = "topic assignment"

// DecodeTopicAssignment decodes /brokers/topics/<t> like Kafka's
// TopicZNode.decode: a missing "partitions" is an empty assignment, missing
// adding/removing are empty, the version is not checked, adding/removing
// entries count only for partitions listed in "partitions", partition keys
// are parsed as Java's Integer.parseInt does ("+1" and "01" are 1), and
// "topic_id" must be a valid base64url UUID.
func DecodeTopicAssignment(data []byte) (TopicAssignment, error) {
	a := TopicAssignment{Partitions: map[int][]int{}, AddingReplicas: map[int][]int{}, RemovingReplicas: map[int][]int{}}
	var buf [8]jmember
	ms, err := parseObject(buf[:0], data)
	if err != nil {
		return a, wrapDecode(whatTopic, data, err)
	}
	var firstErr error
	fail := func(e error) {
		if firstErr == nil {
			firstErr = e
		}
	}
	if m, ok := lookup(ms, "version"); ok {
		if v, err := jsonInt32("version", m); err != nil {
			fail(err)
		} else {
			a.Version = v
		}
	}
	if m, ok := lookup(ms, "partitions"); ok {
		if err := decodeReplicaMap("partitions", m, a.Partitions); err != nil {
			fail(err)
		}
	}
	for _, f := range []struct {
		key string
		dst map[int][]int
	}{{"adding_replicas", a.AddingReplicas}, {"removing_replicas", a.RemovingReplicas}} {
		m, ok := lookup(ms, f.key)
		if !ok {
			continue
		}
		all := map[int][]int{}
		if err := decodeReplicaMap(f.key, m, all); err != nil {
			fail(err)
			continue
		}
		for p, r := range all {
			if _, listed := a.Partitions[p]; listed && len(r) > 0 {
				f.dst[p] = r
			}
		}
	}
	if m, ok := lookup(ms, "topic_id"); ok && m.kind != kindNull {
		s, err := jsonString("topic_id", m.kind, m.val)
		if err != nil {
			fail(err)
		} else {
			a.TopicID = s
			if _, err := ParseUUID(s); err != nil {
				fail(&fieldError{field: "topic_id", msg: err.Error()})
			}
		}
	}
	a.Extra = extras(ms, "version", "partitions", "adding_replicas", "removing_replicas", "topic_id")
	if firstErr != nil {
		return a, wrapDecode(whatTopic, data, firstErr)
	}
	return a, nil
}

// decodeReplicaMap decodes {"0":[1,2],...} into dst.
func decodeReplicaMap(field string, m jmember, dst map[int][]int) error {
	if m.kind != kindObject {
		return errType(field, "an object", m.kind)
	}
	return eachMember(m.val, func(e jmember) error {
		p, ok := javaParseInt(e.name())
		if !ok {
			return &fieldError{field: field, msg: "partition id " + strconv.Quote(e.name()) + " is not an integer"}
		}
		r, err := jsonIntList(field, e.kind, e.val)
		if err != nil {
			return err
		}
		dst[p] = r
		return nil
	})
}

// javaParseInt is Integer.parseInt for ASCII input: optional sign, decimal
// digits, int32 range.
func javaParseInt(s string) (int, bool) {
	if s == "" {
		return 0, false
	}
	digits := s
	if s[0] == '+' || s[0] == '-' {
		digits = s[1:]
	}
	if digits == "" {
		return 0, false
	}
	for i := 0; i < len(digits); i++ {
		if !isDigit(digits[i]) {
			return 0, false
		}
	}
	v, err := strconv.ParseInt(s, 10, 32)
	if err != nil {
		return 0, false
	}
	return int(v), true
}

// NoLeader is the leader id of a partition without leader (LeaderAndIsr.NoLeader).
const NoLeader = -1

// Leader recovery states (3.2+, "leader_recovery_state").
const (
	LeaderRecovered  = 0
	LeaderRecovering = 1
)

// PartitionState is the JSON of a partition's state znode.
type PartitionState struct {
	ControllerEpoch int
	Leader          int // broker id or NoLeader (-1)
	Version         int // always 1 when written by Kafka; not read back by Kafka
	LeaderEpoch     int
	ISR             []int
	// LeaderRecoveryState is LeaderRecovered (absent) or LeaderRecovering.
	LeaderRecoveryState int
	Extra               []RawField
}

// EncodePartitionState writes the state znode byte for byte as Kafka 3.9.2
// does (the order of its Scala hash map, seen on a real cluster):
//
//	{"controller_epoch":1,"leader":1,"version":1,"leader_epoch":0,"isr":[1,2,3]}
//
// with "leader_recovery_state":1 after "version" only when it is not
// RECOVERED. "version" is always 1.
func EncodePartitionState(s PartitionState) []byte {
	out := make([]byte, 0, 80+4*len(s.ISR))
	out = append(out, `{"controller_epoch":`...)
	out = strconv.AppendInt(out, int64(s.ControllerEpoch), 10)
	out = append(out, `,"leader":`...)
	out = strconv.AppendInt(out, int64(s.Leader), 10)
	out = append(out, `,"version":1`...)
	if s.LeaderRecoveryState != LeaderRecovered {
		out = append(out, `,"leader_recovery_state":`...)
		out = strconv.AppendInt(out, int64(s.LeaderRecoveryState), 10)
	}
	out = append(out, `,"leader_epoch":`...)
	out = strconv.AppendInt(out, int64(s.LeaderEpoch), 10)
	out = append(out, `,"isr":`...)
	out = appendIntList(out, s.ISR)
	return append(out, '}')
}

const whatState = "partition state"

// DecodePartitionState decodes a state znode like Kafka's
// TopicPartitionStateZNode.decode: "leader", "leader_epoch", "isr" and
// "controller_epoch" are required; "leader_recovery_state" is optional
// (absent = RECOVERED) and must be 0 or 1; "version" is not checked.
func DecodePartitionState(data []byte) (PartitionState, error) {
	s := PartitionState{Leader: NoLeader}
	var buf [8]jmember
	ms, err := parseObject(buf[:0], data)
	if err != nil {
		return s, wrapDecode(whatState, data, err)
	}
	var firstErr error
	var have uint8
	const (
		hLeader = 1 << iota
		hEpoch
		hISR
		hCtrl
	)
	extra := false
	// One pass; later duplicates overwrite earlier ones (Jackson semantics).
	for i := range ms {
		m := &ms[i]
		var err error
		switch {
		case m.is("leader"):
			var v int
			if v, err = jsonInt32("leader", *m); err == nil {
				s.Leader = v
			}
			have |= hLeader
		case m.is("leader_epoch"):
			s.LeaderEpoch, err = jsonInt32("leader_epoch", *m)
			have |= hEpoch
		case m.is("isr"):
			s.ISR, err = jsonIntList("isr", m.kind, m.val)
			have |= hISR
		case m.is("controller_epoch"):
			s.ControllerEpoch, err = jsonInt32("controller_epoch", *m)
			have |= hCtrl
		case m.is("version"):
			if m.kind == kindNumber {
				s.Version, _ = jsonInt32("version", *m)
			}
		case m.is("leader_recovery_state"):
			var v int
			v, err = jsonInt32("leader_recovery_state", *m)
			if err == nil && v != LeaderRecovered && v != LeaderRecovering {
				err = &fieldError{field: "leader_recovery_state", msg: "unknown value " + strconv.Itoa(v)}
			}
			s.LeaderRecoveryState = v
		default:
			extra = true
		}
		if err != nil && firstErr == nil {
			firstErr = err
		}
	}
	if extra {
		s.Extra = extras(ms, "leader", "leader_epoch", "isr", "controller_epoch", "version", "leader_recovery_state")
	}
	if firstErr == nil {
		switch {
		case have&hLeader == 0:
			firstErr = errMissing("leader")
		case have&hEpoch == 0:
			firstErr = errMissing("leader_epoch")
		case have&hISR == 0:
			firstErr = errMissing("isr")
		case have&hCtrl == 0:
			firstErr = errMissing("controller_epoch")
		}
	}
	if firstErr != nil {
		return s, wrapDecode(whatState, data, firstErr)
	}
	return s, nil
}
