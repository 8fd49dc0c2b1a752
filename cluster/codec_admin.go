package cluster

import "strconv"

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
func DecodeReassignPartitions(data []byte) (ReassignPartitions, error) {
	const what = "partition reassignment"
	var r ReassignPartitions
	err := decodePartitionList(what, data, &r.Version, func(es []jmember) error {
		var p PartitionReassignment
		tp, err := decodeTopicPartition(es)
		if err != nil {
			return err
		}
		p.Topic, p.Partition = tp.Topic, tp.Partition
		rm, ok := lookup(es, "replicas")
		if !ok {
			return errMissing("replicas")
		}
		if p.Replicas, err = jsonIntList("replicas", rm.kind, rm.val); err != nil {
			return err
		}
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
		var buf [4]jmember
		es, _ := parseObject(buf[:0], e)
		return elem(es)
	})
	if err != nil {
		return wrapDecode(what, data, err)
	}
	return nil
}
