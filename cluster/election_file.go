package cluster

import (
	"errors"
	"slices"
	"strconv"
	"strings"
)

// Kafka's partition names and kafka-leader-election's --path-to-json-file:
// the partition lists the tools print and read.

// String renders the partition as Kafka's TopicPartition does: "orders-3".
func (tp TopicPartition) String() string { return tp.Topic + "-" + strconv.Itoa(tp.Partition) }

// JoinPartitions renders partitions separated by sep, as Kafka's tools list
// them ("orders-0, orders-3" or "orders-0,orders-3").
func JoinPartitions(ps []TopicPartition, sep string) string {
	var b strings.Builder
	for i, p := range ps {
		if i > 0 {
			b.WriteString(sep)
		}
		b.WriteString(p.String())
	}
	return b.String()
}

// ParseElectionFile reads a --path-to-json-file document as
// kafka-leader-election.sh does ({"partitions":[{"topic":"foo",
// "partition":1},…]}, other members ignored, so the znode's own JSON with
// its "version" is accepted), with its messages. Where Kafka's are
// misleading ktopo says what is wrong instead: Kafka reports a document
// that is not JSON as "Replica election data is empty", and ignores data
// after the object, which ktopo refuses.
func ParseElectionFile(data []byte) ([]TopicPartition, error) {
	if len(strings.TrimSpace(string(data))) == 0 {
		return nil, kafkaErr(ClassAdminOperation, "Replica election data is empty")
	}
	var buf [4]jmember
	ms, err := parseObject(buf[:0], data)
	var se *syntaxError
	switch {
	case errors.As(err, &se) && se.msg == "JSON object expected":
		return nil, expected("JSON object", strings.TrimSpace(string(data)))
	case err != nil:
		return nil, kafkaErr(ClassAdminOperation, "Replica election data is not valid JSON: "+err.Error())
	}
	pm, ok := lookup(ms, "partitions")
	if !ok {
		return nil, kafkaErr(ClassAdminOperation, `Replica election data is missing "partitions" field`)
	}
	if pm.kind != kindArray {
		return nil, expected("JSON array", string(pm.val))
	}
	var out []TopicPartition
	seen := map[TopicPartition]bool{}
	var dups []TopicPartition
	err = eachElem(pm.val, func(k jsonKind, e []byte) error {
		if k != kindObject {
			return expected("JSON object", string(e))
		}
		var buf [4]jmember
		es, _ := parseObject(buf[:0], e)
		tm, ok := lookup(es, "topic")
		if !ok {
			return noSuchField("topic")
		}
		if tm.kind != kindString {
			return expected("`String` value", string(tm.val))
		}
		topic, err := unquoteJSON(tm.val)
		if err != nil {
			return expected("`String` value", string(tm.val))
		}
		pm, ok := lookup(es, "partition")
		if !ok {
			return noSuchField("partition")
		}
		p, err := jsonInt32("partition", pm)
		if err != nil {
			return expected("`Integer` value", string(pm.val))
		}
		tp := TopicPartition{Topic: topic, Partition: p}
		if seen[tp] && !slices.Contains(dups, tp) {
			dups = append(dups, tp)
		}
		seen[tp] = true
		out = append(out, tp)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(dups) > 0 {
		return nil, kafkaErr(ClassAdminOperation, "Replica election data contains duplicate partitions: ["+JoinPartitions(dups, ", ")+"]")
	}
	return out, nil
}

// expected is Jackson's JsonMappingException for a value of the wrong
// type, as Kafka's tool passes it on.
func expected(what, got string) error {
	const max = 100
	if len(got) > max {
		got = got[:max] + "…"
	}
	return kafkaErr(ClassJsonMapping, "Expected "+what+", received "+got)
}

func noSuchField(f string) error { return kafkaErr(ClassJsonMapping, "No such field exists: `"+f+"`") }
