package cluster

import (
	"bytes"
	"strconv"
)

// TopicPartition names one partition.
type TopicPartition struct {
	Topic     string
	Partition int
}

// PartitionReassignment is one entry of /admin/reassign_partitions.
type PartitionReassignment struct {
	Topic     string
	Partition int
	Replicas  []int
}

// ReassignPartitions is the JSON of /admin/reassign_partitions (version 1).
type ReassignPartitions struct {
	Version    int
	Partitions []PartitionReassignment
}

// EncodeReassignPartitions writes
// {"version":1,"partitions":[{"topic":"foo","partition":1,"replicas":[1,2,3]}]}.
func EncodeReassignPartitions(ps []PartitionReassignment) []byte {
	out := append([]byte(nil), `{"version":1,"partitions":[`...)
	for i, p := range ps {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, `{"topic":`...)
		out = appendJSONString(out, p.Topic)
		out = append(out, `,"partition":`...)
		out = strconv.AppendInt(out, int64(p.Partition), 10)
		out = append(out, `,"replicas":`...)
		out = appendIntList(out, p.Replicas)
		out = append(out, '}')
	}
	return append(out, "]}"...)
}

// DecodeReassignPartitions decodes /admin/reassign_partitions; each entry
// needs topic, partition and replicas (other members, such as log_dirs, are
// ignored).
//
// The znode holds every partition of a reassignment and the controller
// rewrites it as each completes, so it is decoded in one pass over each
// entry, its replica lists sharing one allocation.
func DecodeReassignPartitions(data []byte) (ReassignPartitions, error) {
	const what = "partition reassignment"
	var r ReassignPartitions
	r.Partitions = make([]PartitionReassignment, 0, bytes.Count(data, []byte(`"topic"`)))
	backing := make([]int, 0, 3*cap(r.Partitions))
	err := decodePartitionListRaw(what, data, &r.Version, func(e []byte) error {
		var p PartitionReassignment
		var topic, partition, replicas jmember
		var seen uint8
		_ = eachMember(e, func(m jmember) error {
			switch {
			case m.is("topic"):
				topic, seen = m, seen|1
			case m.is("partition"):
				partition, seen = m, seen|2
			case m.is("replicas"):
				replicas, seen = m, seen|4
			}
			return nil
		})
		// Checked in the order of the other partition lists' decoders.
		var err error
		if seen&1 == 0 {
			return errMissing("topic")
		}
		if p.Topic, err = jsonString("topic", topic.kind, topic.val); err != nil {
			return err
		}
		if seen&2 == 0 {
			return errMissing("partition")
		}
		if p.Partition, err = jsonInt32("partition", partition); err != nil {
			return err
		}
		if seen&4 == 0 {
			return errMissing("replicas")
		}
		if replicas.kind != kindArray {
			return errType("replicas", "an array of integers", replicas.kind)
		}
		from := len(backing)
		err = eachElem(replicas.val, func(k jsonKind, v []byte) error {
			x, err := jsonInt("replicas", k, v, minInt32, maxInt32)
			backing = append(backing, int(x))
			return err
		})
		if err != nil {
			return err
		}
		p.Replicas = backing[from:len(backing):len(backing)]
		r.Partitions = append(r.Partitions, p)
		return nil
	})
	return r, err
}

func decodeTopicPartition(es []jmember) (TopicPartition, error) {
	var tp TopicPartition
	tm, ok := lookup(es, "topic")
	if !ok {
		return tp, errMissing("topic")
	}
	t, err := jsonString("topic", tm.kind, tm.val)
	if err != nil {
		return tp, err
	}
	pm, ok := lookup(es, "partition")
	if !ok {
		return tp, errMissing("partition")
	}
	p, err := jsonInt32("partition", pm)
	if err != nil {
		return tp, err
	}
	return TopicPartition{Topic: t, Partition: p}, nil
}

// PartitionsNotification is the shape shared by
// /admin/preferred_replica_election and /isr_change_notification/isr_change_<seq>:
// {"version":1,"partitions":[{"topic":"foo","partition":0},...]}.
type PartitionsNotification struct {
	Version    int
	Partitions []TopicPartition
}

// EncodePartitionsNotification writes
// {"version":1,"partitions":[{"topic":"foo","partition":0}]}, the data of
// both /admin/preferred_replica_election and isr_change_<seq> nodes.
func EncodePartitionsNotification(ps []TopicPartition) []byte {
	out := append([]byte(nil), `{"version":1,"partitions":[`...)
	for i, p := range ps {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, `{"topic":`...)
		out = appendJSONString(out, p.Topic)
		out = append(out, `,"partition":`...)
		out = strconv.AppendInt(out, int64(p.Partition), 10)
		out = append(out, '}')
	}
	return append(out, "]}"...)
}

// DecodePreferredReplicaElection decodes /admin/preferred_replica_election.
func DecodePreferredReplicaElection(data []byte) (PartitionsNotification, error) {
	return decodePartitionsNotification("preferred replica election", data)
}

// DecodeIsrChangeNotification decodes /isr_change_notification/isr_change_<seq>.
func DecodeIsrChangeNotification(data []byte) (PartitionsNotification, error) {
	return decodePartitionsNotification("ISR change notification", data)
}

func decodePartitionsNotification(what string, data []byte) (PartitionsNotification, error) {
	var n PartitionsNotification
	err := decodePartitionList(what, data, &n.Version, func(es []jmember) error {
		tp, err := decodeTopicPartition(es)
		if err != nil {
			return err
		}
		n.Partitions = append(n.Partitions, tp)
		return nil
	})
	return n, err
}

// decodePartitionList decodes the shape the admin and notification znodes
// share, {"version":1,"partitions":[{…},…]}: an object, an optional
// numeric version (stored in version), and a required array of objects,
// each handed to elem. Errors are DecodeErrors about what.
func decodePartitionList(what string, data []byte, version *int, elem func(members []jmember) error) error {
	return decodePartitionListRaw(what, data, version, func(e []byte) error {
		var buf [4]jmember
		es, _ := parseObject(buf[:0], e)
		return elem(es)
	})
}

// decodePartitionListRaw is decodePartitionList handing each element's
// raw (validated) object to elem.
func decodePartitionListRaw(what string, data []byte, version *int, elem func(e []byte) error) error {
	var buf [4]jmember
	ms, err := parseObject(buf[:0], data)
	if err != nil {
		return wrapDecode(what, data, err)
	}
	if m, ok := lookup(ms, "version"); ok && m.kind == kindNumber {
		*version, _ = jsonInt32("version", m)
	}
	m, ok := lookup(ms, "partitions")
	if !ok {
		return wrapDecode(what, data, errMissing("partitions"))
	}
	if m.kind != kindArray {
		return wrapDecode(what, data, errType("partitions", "an array", m.kind))
	}
	err = eachElem(m.val, func(k jsonKind, e []byte) error {
		if k != kindObject {
			return errType("partitions", "an array of objects", k)
		}
		return elem(e)
	})
	if err != nil {
		return wrapDecode(what, data, err)
	}
	return nil
}
