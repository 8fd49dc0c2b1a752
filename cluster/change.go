package cluster

import (
	"strconv"
	"strings"

	"github.com/ktopo/ktopo/internal/text"
)

// ChangeKind names a change; the values are the "kind" of `ktopo events`.
type ChangeKind string

// Change kinds.
const (
	// ChangeBrokerRegistered: /brokers/ids/<id> appeared, or was re-created
	// by a new session (its czxid, the broker epoch, changed).
	ChangeBrokerRegistered ChangeKind = "broker_registered"
	// ChangeBrokerUpdated: a broker rewrote its registration (same session).
	ChangeBrokerUpdated ChangeKind = "broker_updated"
	// ChangeBrokerGone: /brokers/ids/<id> disappeared.
	ChangeBrokerGone ChangeKind = "broker_gone"
	// ChangeControllerMoved: /controller now names another broker, or a new
	// election happened (From, To: broker ids, -1 for none; Epoch: the
	// controller epoch after the batch).
	ChangeControllerMoved ChangeKind = "controller_moved"
	// ChangeTopicCreated: /brokers/topics/<t> appeared.
	ChangeTopicCreated ChangeKind = "topic_created"
	// ChangeTopicMarkedForDeletion: /admin/delete_topics/<t> appeared.
	ChangeTopicMarkedForDeletion ChangeKind = "topic_marked_for_deletion"
	// ChangeTopicDeleted: /brokers/topics/<t> disappeared.
	ChangeTopicDeleted ChangeKind = "topic_deleted"
	// ChangePartitionsAdded: an existing topic's assignment gained partitions.
	ChangePartitionsAdded ChangeKind = "partitions_added"
	// ChangePartitionAppeared: a partition's state znode appeared (the
	// controller initialised it: it has a leader and ISR now).
	ChangePartitionAppeared ChangeKind = "partition_appeared"
	// ChangeLeaderMoved: a partition's leader changed (To -1 = no leader).
	ChangeLeaderMoved ChangeKind = "leader_moved"
	// ChangeIsrShrank: replicas left a partition's ISR (Removed).
	ChangeIsrShrank ChangeKind = "isr_shrank"
	// ChangeIsrExpanded: replicas joined a partition's ISR (Added).
	ChangeIsrExpanded ChangeKind = "isr_expanded"
	// ChangeConfigChanged: an existing topic's config overrides changed (Keys).
	ChangeConfigChanged ChangeKind = "config_changed"
	// ChangeReassignmentStarted: a partition got adding/removing replicas.
	ChangeReassignmentStarted ChangeKind = "reassignment_started"
	// ChangeReassignmentFinished: a partition's adding/removing replicas are gone.
	ChangeReassignmentFinished ChangeKind = "reassignment_finished"
	// ChangeZNodeInvalid: a znode the model reads could not be decoded
	// (Error); the model keeps going without it.
	ChangeZNodeInvalid ChangeKind = "znode_invalid"
)

// ChangeSubject is what a change is about: a broker, the controller, a
// topic, one partition, or a znode (a screen files a change by it).
type ChangeSubject uint8

// Subjects.
const (
	SubjectBroker ChangeSubject = iota
	SubjectController
	SubjectTopic
	SubjectPartition
	SubjectZNode
)

// changeKinds is the one table of change kinds: every kind, in the order
// of the constants, and what it is about. TestEveryChangeKindIsHandled
// fails until a new kind has its row here and its text and JSON below;
// the events screen's and the flashes' tests then ask for theirs, and the
// switches that must name every kind are marked //exhaustive:enforce.
var changeKinds = [...]struct {
	kind    ChangeKind
	subject ChangeSubject
}{
	{ChangeBrokerRegistered, SubjectBroker},
	{ChangeBrokerUpdated, SubjectBroker},
	{ChangeBrokerGone, SubjectBroker},
	{ChangeControllerMoved, SubjectController},
	{ChangeTopicCreated, SubjectTopic},
	{ChangeTopicMarkedForDeletion, SubjectTopic},
	{ChangeTopicDeleted, SubjectTopic},
	{ChangePartitionsAdded, SubjectTopic},
	{ChangePartitionAppeared, SubjectPartition},
	{ChangeLeaderMoved, SubjectPartition},
	{ChangeIsrShrank, SubjectPartition},
	{ChangeIsrExpanded, SubjectPartition},
	{ChangeConfigChanged, SubjectTopic},
	{ChangeReassignmentStarted, SubjectPartition},
	{ChangeReassignmentFinished, SubjectPartition},
	{ChangeZNodeInvalid, SubjectZNode},
}

// ChangeKinds returns every change kind, in the order of the constants.
func ChangeKinds() []ChangeKind {
	out := make([]ChangeKind, len(changeKinds))
	for i, k := range changeKinds {
		out[i] = k.kind
	}
	return out
}

// Subject is what changes of kind k are about (SubjectZNode for a kind
// not in the table).
func (k ChangeKind) Subject() ChangeSubject {
	for _, c := range changeKinds {
		if c.kind == k {
			return c.subject
		}
	}
	return SubjectZNode
}

// Change is one typed change found by Model.Apply. Which fields are set
// depends on Kind (see MarshalJSON for the list per kind); slices are shared
// with the model's immutable state and must not be modified.
type Change struct {
	Kind ChangeKind
	// Path is the znode whose event caused the change.
	Path string
	// Zxid and Time (ms) are the mzxid and mtime of that znode's write,
	// 0 when unknown (deletions).
	Zxid int64
	Time int64

	Topic     string
	Partition int
	Broker    int
	// From and To: leader_moved (broker ids, -1 = none), controller_moved.
	From, To int
	// Epoch: the leader epoch (partition kinds) or controller epoch
	// (controller_moved).
	Epoch int
	// BrokerEpoch is the czxid of the registration (broker_registered).
	BrokerEpoch int64
	Rack        string
	// Leader (partition_appeared).
	Leader int
	// ISR after the change (partition kinds).
	ISR []int
	// Replicas: partition_appeared, reassignment_finished (final list).
	Replicas []int
	// Added: isr_expanded, reassignment_started (adding replicas).
	Added []int
	// Removed: isr_shrank, reassignment_started (removing replicas).
	Removed []int
	// Partitions: partitions_added (ids).
	Partitions []int
	// PartitionCount, ReplicationFactor and TopicID: topic_created.
	PartitionCount    int
	ReplicationFactor int
	TopicID           string
	// Keys: config_changed (keys added, changed or removed, sorted).
	Keys []string
	// Error: znode_invalid.
	Error string
}

// MarshalJSON writes {"kind":...} followed by the fields of that kind, then
// "path", "zxid" and "mtime" (the write's time in ms) when known:
//
//	broker_registered          broker, rack, broker_epoch
//	broker_updated, broker_gone broker
//	controller_moved           from, to, epoch
//	topic_created              topic, topic_id, partitions, replication_factor
//	topic_marked_for_deletion, topic_deleted  topic
//	partitions_added           topic, partitions
//	partition_appeared         topic, partition, leader, isr, replicas, leader_epoch
//	leader_moved               topic, partition, from, to, leader_epoch
//	isr_shrank                 topic, partition, removed, isr, leader_epoch
//	isr_expanded               topic, partition, added, isr, leader_epoch
//	config_changed             topic, keys
//	reassignment_started       topic, partition, adding, removing
//	reassignment_finished      topic, partition, replicas
//	znode_invalid              error
func (c Change) MarshalJSON() ([]byte, error) {
	b := make([]byte, 0, 160)
	b = append(b, `{"kind":`...)
	b = appendJSONString(b, string(c.Kind))
	str := func(k, v string) {
		b = append(b, ',')
		b = appendKey(b, k)
		b = appendJSONString(b, v)
	}
	num := func(k string, v int64) {
		b = append(b, ',')
		b = appendKey(b, k)
		b = strconv.AppendInt(b, v, 10)
	}
	list := func(k string, v []int) {
		b = append(b, ',')
		b = appendKey(b, k)
		if v == nil {
			v = []int{}
		}
		b = appendIntList(b, v)
	}
	topicPart := func() {
		str("topic", c.Topic)
		num("partition", int64(c.Partition))
	}
	//exhaustive:enforce
	switch c.Kind {
	case ChangeBrokerRegistered:
		num("broker", int64(c.Broker))
		if c.Rack != "" {
			str("rack", c.Rack)
		}
		if c.BrokerEpoch != 0 { // unknown for a KRaft cluster's broker
			num("broker_epoch", c.BrokerEpoch)
		}
	case ChangeBrokerUpdated, ChangeBrokerGone:
		num("broker", int64(c.Broker))
	case ChangeControllerMoved:
		num("from", int64(c.From))
		num("to", int64(c.To))
		num("epoch", int64(c.Epoch))
	case ChangeTopicCreated:
		str("topic", c.Topic)
		if c.TopicID != "" {
			str("topic_id", c.TopicID)
		}
		num("partitions", int64(c.PartitionCount))
		num("replication_factor", int64(c.ReplicationFactor))
	case ChangeTopicMarkedForDeletion, ChangeTopicDeleted:
		str("topic", c.Topic)
	case ChangePartitionsAdded:
		str("topic", c.Topic)
		list("partitions", c.Partitions)
	case ChangePartitionAppeared:
		topicPart()
		num("leader", int64(c.Leader))
		list("isr", c.ISR)
		list("replicas", c.Replicas)
		num("leader_epoch", int64(c.Epoch))
	case ChangeLeaderMoved:
		topicPart()
		num("from", int64(c.From))
		num("to", int64(c.To))
		num("leader_epoch", int64(c.Epoch))
	case ChangeIsrShrank:
		topicPart()
		list("removed", c.Removed)
		list("isr", c.ISR)
		num("leader_epoch", int64(c.Epoch))
	case ChangeIsrExpanded:
		topicPart()
		list("added", c.Added)
		list("isr", c.ISR)
		num("leader_epoch", int64(c.Epoch))
	case ChangeConfigChanged:
		str("topic", c.Topic)
		b = append(b, `,"keys":[`...)
		for i, k := range c.Keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSONString(b, k)
		}
		b = append(b, ']')
	case ChangeReassignmentStarted:
		topicPart()
		list("adding", c.Added)
		list("removing", c.Removed)
	case ChangeReassignmentFinished:
		topicPart()
		list("replicas", c.Replicas)
	case ChangeZNodeInvalid:
		str("error", c.Error)
	}
	if c.Path != "" {
		str("path", c.Path)
	}
	if c.Zxid != 0 {
		num("zxid", c.Zxid)
	}
	if c.Time != 0 {
		num("mtime", c.Time)
	}
	return append(b, '}'), nil
}

// String renders the change as one line of text, e.g.
// "leader_moved orders-3: leader 1 -> 2 (leader epoch 5)".
func (c Change) String() string {
	tp := c.Topic + "-" + strconv.Itoa(c.Partition)
	//exhaustive:enforce
	switch c.Kind {
	case ChangeBrokerRegistered:
		s := "broker_registered " + strconv.Itoa(c.Broker)
		if c.Rack != "" {
			s += " (rack " + c.Rack + ")"
		}
		return s
	case ChangeBrokerUpdated, ChangeBrokerGone:
		return string(c.Kind) + " " + strconv.Itoa(c.Broker)
	case ChangeControllerMoved:
		return "controller_moved " + text.Broker(c.From) + " -> " + text.Broker(c.To) + " (epoch " + strconv.Itoa(c.Epoch) + ")"
	case ChangeTopicCreated:
		return "topic_created " + c.Topic + ": " + strconv.Itoa(c.PartitionCount) + " partitions, replication factor " + strconv.Itoa(c.ReplicationFactor)
	case ChangeTopicMarkedForDeletion, ChangeTopicDeleted:
		return string(c.Kind) + " " + c.Topic
	case ChangePartitionsAdded:
		return "partitions_added " + c.Topic + ": " + text.Ints(c.Partitions)
	case ChangePartitionAppeared:
		return "partition_appeared " + tp + ": leader " + text.Broker(c.Leader) + ", isr [" + text.Ints(c.ISR) + "]"
	case ChangeLeaderMoved:
		return "leader_moved " + tp + ": leader " + text.Broker(c.From) + " -> " + text.Broker(c.To) + " (leader epoch " + strconv.Itoa(c.Epoch) + ")"
	case ChangeIsrShrank:
		return "isr_shrank " + tp + ": -[" + text.Ints(c.Removed) + "] isr [" + text.Ints(c.ISR) + "]"
	case ChangeIsrExpanded:
		return "isr_expanded " + tp + ": +[" + text.Ints(c.Added) + "] isr [" + text.Ints(c.ISR) + "]"
	case ChangeConfigChanged:
		return "config_changed " + c.Topic + ": " + strings.Join(c.Keys, ", ")
	case ChangeReassignmentStarted:
		return "reassignment_started " + tp + ": adding [" + text.Ints(c.Added) + "] removing [" + text.Ints(c.Removed) + "]"
	case ChangeReassignmentFinished:
		return "reassignment_finished " + tp + ": replicas [" + text.Ints(c.Replicas) + "]"
	case ChangeZNodeInvalid:
		return "znode_invalid " + c.Path + ": " + c.Error
	}
	return string(c.Kind)
}
