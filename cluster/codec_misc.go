package cluster

import (
	"maps"
	"slices"
	"strconv"
	"strings"
)

// ---------------------------------------------------------------------------
// Controller: /controller (spec §1.3)

// ControllerInfo is the JSON of /controller.
type ControllerInfo struct {
	Version  int
	BrokerID int
	// Timestamp is the election time in ms, as the string Kafka writes.
	Timestamp string
	// KRaftControllerEpoch is -1 for ZooKeeper controllers and when absent
	// (v1); a KRaft controller in migration writes a positive value.
	KRaftControllerEpoch int
	Extra                []RawField
}

// NewControllerInfo is what a ZooKeeper-mode broker writes when it wins the
// election: version 2 (Kafka 3.4+; pass 1 for older) with
// kraftControllerEpoch -1.
func NewControllerInfo(version, brokerID int, timestampMillis int64) ControllerInfo {
	return ControllerInfo{Version: version, BrokerID: brokerID,
		Timestamp: strconv.FormatInt(timestampMillis, 10), KRaftControllerEpoch: -1}
}

// EncodeController writes {"version":1,"brokerid":2,"timestamp":"..."}; from
// version 2 on ,"kraftControllerEpoch":<e> follows.
func EncodeController(c ControllerInfo) []byte {
	out := make([]byte, 0, 96)
	out = append(out, `{"version":`...)
	out = strconv.AppendInt(out, int64(c.Version), 10)
	out = append(out, `,"brokerid":`...)
	out = strconv.AppendInt(out, int64(c.BrokerID), 10)
	out = append(out, `,"timestamp":`...)
	out = appendJSONString(out, c.Timestamp)
	if c.Version >= 2 {
		out = append(out, `,"kraftControllerEpoch":`...)
		out = strconv.AppendInt(out, int64(c.KRaftControllerEpoch), 10)
	}
	return append(out, '}')
}

const whatController = "controller"

// DecodeController decodes /controller; only "brokerid" is required.
func DecodeController(data []byte) (ControllerInfo, error) {
	c := ControllerInfo{BrokerID: -1, KRaftControllerEpoch: -1}
	var buf [6]jmember
	ms, err := parseObject(buf[:0], data)
	if err != nil {
		return c, wrapDecode(whatController, data, err)
	}
	var firstErr error
	if m, ok := lookup(ms, "brokerid"); !ok {
		firstErr = errMissing("brokerid")
	} else if v, err := jsonInt32("brokerid", m); err != nil {
		firstErr = err
	} else {
		c.BrokerID = v
	}
	if m, ok := lookup(ms, "version"); ok && m.kind == kindNumber {
		c.Version, _ = jsonInt32("version", m)
	}
	if m, ok := lookup(ms, "timestamp"); ok {
		switch m.kind {
		case kindString:
			c.Timestamp, _ = unquoteJSON(m.val)
		case kindNumber:
			c.Timestamp = string(m.val)
		}
	}
	if m, ok := lookup(ms, "kraftControllerEpoch"); ok {
		if v, err := jsonInt32("kraftControllerEpoch", m); err != nil {
			if firstErr == nil {
				firstErr = err
			}
		} else {
			c.KRaftControllerEpoch = v
		}
	}
	c.Extra = extras(ms, "version", "brokerid", "timestamp", "kraftControllerEpoch")
	if firstErr != nil {
		return c, wrapDecode(whatController, data, firstErr)
	}
	return c, nil
}

// EncodeControllerEpoch writes the epoch as decimal text, e.g. "5".
func EncodeControllerEpoch(epoch int) []byte { return strconv.AppendInt(nil, int64(epoch), 10) }

// DecodeControllerEpoch parses /controller_epoch (decimal text, Java's
// Integer.parseInt; surrounding whitespace is tolerated).
func DecodeControllerEpoch(data []byte) (int, error) {
	s := strings.TrimSpace(string(data))
	v, ok := javaParseInt(s)
	if !ok {
		return 0, &DecodeError{What: "controller epoch", Reason: "not an integer: " + strconv.Quote(shorten(string(data))), Offset: -1, Raw: data}
	}
	return v, nil
}

func shorten(s string) string {
	if len(s) > 64 {
		return s[:64] + "…"
	}
	return s
}

// ---------------------------------------------------------------------------
// Cluster id: /cluster/id (spec §1.2)

// ClusterIDInfo is the JSON of /cluster/id. Version is a string ("1").
type ClusterIDInfo struct {
	Version string
	ID      string
	Extra   []RawField
}

// EncodeClusterID writes {"version":"1","id":"<id>"}.
func EncodeClusterID(id string) []byte {
	out := append([]byte(nil), `{"version":"1","id":`...)
	out = appendJSONString(out, id)
	return append(out, '}')
}

// DecodeClusterID decodes /cluster/id; "id" is required. A numeric version
// is accepted and kept as text.
func DecodeClusterID(data []byte) (ClusterIDInfo, error) {
	var c ClusterIDInfo
	var buf [4]jmember
	ms, err := parseObject(buf[:0], data)
	if err != nil {
		return c, wrapDecode("cluster id", data, err)
	}
	if m, ok := lookup(ms, "version"); ok {
		switch m.kind {
		case kindString:
			c.Version, _ = unquoteJSON(m.val)
		case kindNumber:
			c.Version = string(m.val)
		}
	}
	c.Extra = extras(ms, "version", "id")
	m, ok := lookup(ms, "id")
	if !ok {
		return c, wrapDecode("cluster id", data, errMissing("id"))
	}
	id, err := jsonString("id", m.kind, m.val)
	if err != nil {
		return c, wrapDecode("cluster id", data, err)
	}
	c.ID = id
	return c, nil
}

// ---------------------------------------------------------------------------
// Entity configs: /config/<type>/<entity> (spec §1.6)

// ConfigEntry is one config override; values are always strings in ZooKeeper.
type ConfigEntry struct {
	Key   string
	Value string
}

// EntityConfig is the JSON of /config/topics/<t> (and the other entity types):
// {"version":1,"config":{...}}.
type EntityConfig struct {
	Version int
	// Config holds the overrides in document order (a duplicated key keeps
	// its first position and its last value).
	Config []ConfigEntry
	Extra  []RawField
}

// Get returns the value of key k.
func (c *EntityConfig) Get(k string) (string, bool) {
	for _, e := range c.Config {
		if e.Key == k {
			return e.Value, true
		}
	}
	return "", false
}

// Map returns the overrides as a map.
func (c *EntityConfig) Map() map[string]string {
	m := make(map[string]string, len(c.Config))
	for _, e := range c.Config {
		m[e.Key] = e.Value
	}
	return m
}

// EncodeEntityConfig writes {"version":1,"config":{...}} with keys in
// lexicographic order. (Kafka writes a java.util.Properties, whose order is
// its hash order; order is not significant to Kafka's reader.) An empty or
// nil map gives {"version":1,"config":{}}, which Kafka writes at every topic
// creation.
func EncodeEntityConfig(config map[string]string) []byte {
	keys := slices.Sorted(maps.Keys(config))
	entries := make([]ConfigEntry, len(keys))
	for i, k := range keys {
		entries[i] = ConfigEntry{k, config[k]}
	}
	return EncodeEntityConfigEntries(entries)
}

// EncodeEntityConfigEntries is EncodeEntityConfig keeping the given order.
func EncodeEntityConfigEntries(entries []ConfigEntry) []byte {
	out := make([]byte, 0, 32+32*len(entries))
	out = append(out, `{"version":1,"config":{`...)
	for i, e := range entries {
		if i > 0 {
			out = append(out, ',')
		}
		out = appendKey(out, e.Key)
		out = appendJSONString(out, e.Value)
	}
	return append(out, "}}"...)
}

const whatConfig = "config"

// DecodeEntityConfig decodes a config znode like Kafka's
// ConfigEntityZNode.decode: no data or no "config" member is an empty
// config; every value must be a string.
func DecodeEntityConfig(data []byte) (EntityConfig, error) {
	var c EntityConfig
	if len(data) == 0 {
		return c, nil
	}
	var buf [4]jmember
	ms, err := parseObject(buf[:0], data)
	if err != nil {
		return c, wrapDecode(whatConfig, data, err)
	}
	var firstErr error
	if m, ok := lookup(ms, "version"); ok && m.kind == kindNumber {
		c.Version, _ = jsonInt32("version", m)
	}
	if m, ok := lookup(ms, "config"); ok && m.kind != kindNull {
		if m.kind != kindObject {
			firstErr = errType("config", "an object", m.kind)
		} else {
			firstErr = eachMember(m.val, func(e jmember) error {
				k := e.name()
				v, err := jsonString(k, e.kind, e.val)
				if err != nil {
					return err
				}
				for i := range c.Config {
					if c.Config[i].Key == k {
						c.Config[i].Value = v
						return nil
					}
				}
				c.Config = append(c.Config, ConfigEntry{k, v})
				return nil
			})
		}
	}
	c.Extra = extras(ms, "version", "config")
	if firstErr != nil {
		return c, wrapDecode(whatConfig, data, firstErr)
	}
	return c, nil
}

// ---------------------------------------------------------------------------
// Config change notifications: /config/changes/config_change_<seq> (spec §1.6)

// ConfigChangeNotification is the JSON of a config change notification:
// v2 {"version":2,"entity_path":"topics/<t>"} or
// v1 {"version":1,"entity_type":"topics","entity_name":"<t>"}.
type ConfigChangeNotification struct {
	Version    int
	EntityPath string // v2
	EntityType string // v1
	EntityName string // v1
}

// Path returns the entity path ("topics/<t>"), also for v1 notifications.
func (n ConfigChangeNotification) Path() string {
	if n.EntityPath != "" {
		return n.EntityPath
	}
	if n.EntityType == "" {
		return ""
	}
	return n.EntityType + "/" + n.EntityName
}

// EncodeConfigChangeNotification writes the v2 form Kafka writes.
func EncodeConfigChangeNotification(entityPath string) []byte {
	out := append([]byte(nil), `{"version":2,"entity_path":`...)
	out = appendJSONString(out, entityPath)
	return append(out, '}')
}

// DecodeConfigChangeNotification decodes v1 and v2 notifications.
func DecodeConfigChangeNotification(data []byte) (ConfigChangeNotification, error) {
	const what = "config change notification"
	var n ConfigChangeNotification
	var buf [4]jmember
	ms, err := parseObject(buf[:0], data)
	if err != nil {
		return n, wrapDecode(what, data, err)
	}
	m, ok := lookup(ms, "version")
	if !ok {
		return n, wrapDecode(what, data, errMissing("version"))
	}
	if n.Version, err = jsonInt32("version", m); err != nil {
		return n, wrapDecode(what, data, err)
	}
	str := func(k string) (string, error) {
		m, ok := lookup(ms, k)
		if !ok {
			return "", errMissing(k)
		}
		return jsonString(k, m.kind, m.val)
	}
	switch n.Version {
	case 1:
		if n.EntityType, err = str("entity_type"); err == nil {
			n.EntityName, err = str("entity_name")
		}
	case 2:
		n.EntityPath, err = str("entity_path")
	default:
		err = &fieldError{msg: "Unsupported version " + strconv.Itoa(n.Version) + " of config change notification"}
	}
	if err != nil {
		return n, wrapDecode(what, data, err)
	}
	return n, nil
}

// ---------------------------------------------------------------------------
// Admin requests (spec §1.7)

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
	var buf [4]jmember
	ms, err := parseObject(buf[:0], data)
	if err != nil {
		return r, wrapDecode(what, data, err)
	}
	if m, ok := lookup(ms, "version"); ok && m.kind == kindNumber {
		r.Version, _ = jsonInt32("version", m)
	}
	m, ok := lookup(ms, "partitions")
	if !ok {
		return r, wrapDecode(what, data, errMissing("partitions"))
	}
	if m.kind != kindArray {
		return r, wrapDecode(what, data, errType("partitions", "an array", m.kind))
	}
	err = eachElem(m.val, func(k jsonKind, e []byte) error {
		if k != kindObject {
			return errType("partitions", "an array of objects", k)
		}
		var buf [4]jmember
		es, _ := parseObject(buf[:0], e)
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
	if err != nil {
		return r, wrapDecode(what, data, err)
	}
	return r, nil
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
	var buf [4]jmember
	ms, err := parseObject(buf[:0], data)
	if err != nil {
		return n, wrapDecode(what, data, err)
	}
	if m, ok := lookup(ms, "version"); ok && m.kind == kindNumber {
		n.Version, _ = jsonInt32("version", m)
	}
	m, ok := lookup(ms, "partitions")
	if !ok {
		return n, wrapDecode(what, data, errMissing("partitions"))
	}
	if m.kind != kindArray {
		return n, wrapDecode(what, data, errType("partitions", "an array", m.kind))
	}
	err = eachElem(m.val, func(k jsonKind, e []byte) error {
		if k != kindObject {
			return errType("partitions", "an array of objects", k)
		}
		var buf [4]jmember
		es, _ := parseObject(buf[:0], e)
		tp, err := decodeTopicPartition(es)
		if err != nil {
			return err
		}
		n.Partitions = append(n.Partitions, tp)
		return nil
	})
	if err != nil {
		return n, wrapDecode(what, data, err)
	}
	return n, nil
}

// ---------------------------------------------------------------------------
// Log dir failure events: /log_dir_event_notification/log_dir_event_<seq> (spec §1.8)

// LogDirFailureEvent is the only event code Kafka writes.
const LogDirFailureEvent = 1

// LogDirEvent is {"version":1,"broker":3,"event":1}.
type LogDirEvent struct {
	Version int
	Broker  int
	Event   int
}

// EncodeLogDirEvent writes {"version":1,"broker":<id>,"event":1}.
func EncodeLogDirEvent(broker int) []byte {
	out := append([]byte(nil), `{"version":1,"broker":`...)
	out = strconv.AppendInt(out, int64(broker), 10)
	return append(out, `,"event":1}`...)
}

// DecodeLogDirEvent decodes a log dir event; "broker" is required (Kafka
// reads nothing else).
func DecodeLogDirEvent(data []byte) (LogDirEvent, error) {
	const what = "log dir event"
	e := LogDirEvent{Broker: -1}
	var buf [4]jmember
	ms, err := parseObject(buf[:0], data)
	if err != nil {
		return e, wrapDecode(what, data, err)
	}
	if m, ok := lookup(ms, "version"); ok && m.kind == kindNumber {
		e.Version, _ = jsonInt32("version", m)
	}
	if m, ok := lookup(ms, "event"); ok && m.kind == kindNumber {
		e.Event, _ = jsonInt32("event", m)
	}
	m, ok := lookup(ms, "broker")
	if !ok {
		return e, wrapDecode(what, data, errMissing("broker"))
	}
	if e.Broker, err = jsonInt32("broker", m); err != nil {
		e.Broker = -1
		return e, wrapDecode(what, data, err)
	}
	return e, nil
}

// ---------------------------------------------------------------------------
// /latest_producer_id_block (spec §1.9)

// ProducerIDBlock is {"version":1,"broker":0,"block_start":"0","block_end":"999"}.
// The zero value (Version 0) stands for the empty node that exists before
// the first block is allocated.
type ProducerIDBlock struct {
	Version    int
	Broker     int
	BlockStart int64
	BlockEnd   int64
}

// EncodeProducerIDBlock writes the block with start/end as strings, as Kafka does.
func EncodeProducerIDBlock(b ProducerIDBlock) []byte {
	out := append([]byte(nil), `{"version":1,"broker":`...)
	out = strconv.AppendInt(out, int64(b.Broker), 10)
	out = append(out, `,"block_start":"`...)
	out = strconv.AppendInt(out, b.BlockStart, 10)
	out = append(out, `","block_end":"`...)
	out = strconv.AppendInt(out, b.BlockEnd, 10)
	return append(out, `"}`...)
}

// DecodeProducerIDBlock decodes /latest_producer_id_block. No data is not an
// error (zero value). block_start and block_end are strings holding longs
// (numbers are tolerated).
func DecodeProducerIDBlock(data []byte) (ProducerIDBlock, error) {
	const what = "producer id block"
	var b ProducerIDBlock
	if len(data) == 0 {
		return b, nil
	}
	var buf [6]jmember
	ms, err := parseObject(buf[:0], data)
	if err != nil {
		return b, wrapDecode(what, data, err)
	}
	if m, ok := lookup(ms, "version"); ok && m.kind == kindNumber {
		b.Version, _ = jsonInt32("version", m)
	}
	long := func(k string) (int64, error) {
		m, ok := lookup(ms, k)
		if !ok {
			return 0, errMissing(k)
		}
		switch m.kind {
		case kindNumber:
			return jsonInt(k, m.kind, m.val, minInt64, maxInt64)
		case kindString:
			s, _ := unquoteJSON(m.val)
			v, err := strconv.ParseInt(s, 10, 64)
			if err != nil {
				return 0, &fieldError{field: k, msg: "not a long: " + strconv.Quote(shorten(s))}
			}
			return v, nil
		}
		return 0, errType(k, "a string", m.kind)
	}
	var firstErr error
	if m, ok := lookup(ms, "broker"); !ok {
		firstErr = errMissing("broker")
	} else if b.Broker, err = jsonInt32("broker", m); err != nil {
		firstErr = err
	}
	if b.BlockStart, err = long("block_start"); err != nil && firstErr == nil {
		firstErr = err
	}
	if b.BlockEnd, err = long("block_end"); err != nil && firstErr == nil {
		firstErr = err
	}
	if firstErr != nil {
		return b, wrapDecode(what, data, firstErr)
	}
	return b, nil
}

// ---------------------------------------------------------------------------
// /feature (spec §1.9)

// Feature znode status values.
const (
	FeatureStatusDisabled = 0
	FeatureStatusEnabled  = 1
)

// FeatureLevels is one finalized feature of /feature. MinVersionLevel is
// written only by version 1.
type FeatureLevels struct {
	Name            string
	MinVersionLevel int
	MaxVersionLevel int
}

// FeatureZNode is the JSON of /feature:
// {"version":1,"status":1,"features":{"f":{"min_version_level":1,"max_version_level":2}}}
// (version 2 drops min_version_level).
type FeatureZNode struct {
	Version  int
	Status   int
	Features []FeatureLevels
	Extra    []RawField
}

// EncodeFeature writes the /feature znode.
func EncodeFeature(f FeatureZNode) []byte {
	out := append([]byte(nil), `{"version":`...)
	out = strconv.AppendInt(out, int64(f.Version), 10)
	out = append(out, `,"status":`...)
	out = strconv.AppendInt(out, int64(f.Status), 10)
	out = append(out, `,"features":{`...)
	for i, l := range f.Features {
		if i > 0 {
			out = append(out, ',')
		}
		out = appendKey(out, l.Name)
		out = append(out, '{')
		if f.Version < 2 {
			out = append(out, `"min_version_level":`...)
			out = strconv.AppendInt(out, int64(l.MinVersionLevel), 10)
			out = append(out, ',')
		}
		out = append(out, `"max_version_level":`...)
		out = strconv.AppendInt(out, int64(l.MaxVersionLevel), 10)
		out = append(out, '}')
	}
	return append(out, "}}"...)
}

// DecodeFeature decodes /feature: version (1 or 2) and status (0 or 1) are
// required; a missing "features" is empty; each feature needs
// max_version_level (and min_version_level in version 1).
func DecodeFeature(data []byte) (FeatureZNode, error) {
	const what = "feature"
	var f FeatureZNode
	var buf [4]jmember
	ms, err := parseObject(buf[:0], data)
	if err != nil {
		return f, wrapDecode(what, data, err)
	}
	f.Extra = extras(ms, "version", "status", "features")
	m, ok := lookup(ms, "version")
	if !ok {
		return f, wrapDecode(what, data, errMissing("version"))
	}
	if f.Version, err = jsonInt32("version", m); err != nil {
		return f, wrapDecode(what, data, err)
	}
	if f.Version != 1 && f.Version != 2 {
		return f, wrapDecode(what, data, &fieldError{msg: "Unsupported version: " + strconv.Itoa(f.Version) + " of feature information"})
	}
	m, ok = lookup(ms, "status")
	if !ok {
		return f, wrapDecode(what, data, errMissing("status"))
	}
	if f.Status, err = jsonInt32("status", m); err != nil {
		return f, wrapDecode(what, data, err)
	}
	if f.Status != FeatureStatusDisabled && f.Status != FeatureStatusEnabled {
		return f, wrapDecode(what, data, &fieldError{field: "status", msg: "unknown status " + strconv.Itoa(f.Status)})
	}
	m, ok = lookup(ms, "features")
	if !ok || m.kind == kindNull {
		return f, nil
	}
	if m.kind != kindObject {
		return f, wrapDecode(what, data, errType("features", "an object", m.kind))
	}
	err = eachMember(m.val, func(e jmember) error {
		if e.kind != kindObject {
			return errType("features", "an object per feature", e.kind)
		}
		l := FeatureLevels{Name: e.name()}
		var minSet, maxSet bool
		err := eachMember(e.val, func(v jmember) error {
			var err error
			switch {
			case v.is("min_version_level"):
				l.MinVersionLevel, err = jsonInt32("min_version_level", v)
				minSet = true
			case v.is("max_version_level"):
				l.MaxVersionLevel, err = jsonInt32("max_version_level", v)
				maxSet = true
			}
			return err
		})
		if err != nil {
			return err
		}
		if !maxSet || (f.Version == 1 && !minSet) {
			return &fieldError{field: "features", msg: "feature " + strconv.Quote(l.Name) + " lacks its version levels"}
		}
		f.Features = append(f.Features, l)
		return nil
	})
	if err != nil {
		return f, wrapDecode(what, data, err)
	}
	return f, nil
}

// ---------------------------------------------------------------------------
// /migration (3.4+, ZK→KRaft migration only; spec §1.9)

// MigrationState is the JSON of /migration.
type MigrationState struct {
	Version              int
	KRaftControllerID    int
	KRaftControllerEpoch int
	KRaftMetadataOffset  int64
	KRaftMetadataEpoch   int
}

// EncodeMigration writes
// {"version":0,"kraft_controller_id":..,"kraft_controller_epoch":..,"kraft_metadata_offset":..,"kraft_metadata_epoch":..}.
func EncodeMigration(m MigrationState) []byte {
	out := append([]byte(nil), `{"version":`...)
	out = strconv.AppendInt(out, int64(m.Version), 10)
	out = append(out, `,"kraft_controller_id":`...)
	out = strconv.AppendInt(out, int64(m.KRaftControllerID), 10)
	out = append(out, `,"kraft_controller_epoch":`...)
	out = strconv.AppendInt(out, int64(m.KRaftControllerEpoch), 10)
	out = append(out, `,"kraft_metadata_offset":`...)
	out = strconv.AppendInt(out, m.KRaftMetadataOffset, 10)
	out = append(out, `,"kraft_metadata_epoch":`...)
	out = strconv.AppendInt(out, int64(m.KRaftMetadataEpoch), 10)
	return append(out, '}')
}

// DecodeMigration decodes /migration; all five members are required.
func DecodeMigration(data []byte) (MigrationState, error) {
	const what = "migration state"
	var s MigrationState
	var buf [6]jmember
	ms, err := parseObject(buf[:0], data)
	if err != nil {
		return s, wrapDecode(what, data, err)
	}
	for _, f := range []struct {
		k     string
		dst32 *int
		dst64 *int64
	}{
		{"version", &s.Version, nil},
		{"kraft_controller_id", &s.KRaftControllerID, nil},
		{"kraft_controller_epoch", &s.KRaftControllerEpoch, nil},
		{"kraft_metadata_offset", nil, &s.KRaftMetadataOffset},
		{"kraft_metadata_epoch", &s.KRaftMetadataEpoch, nil},
	} {
		m, ok := lookup(ms, f.k)
		if !ok {
			return s, wrapDecode(what, data, errMissing(f.k))
		}
		if f.dst64 != nil {
			*f.dst64, err = jsonInt(f.k, m.kind, m.val, minInt64, maxInt64)
		} else {
			*f.dst32, err = jsonInt32(f.k, m)
		}
		if err != nil {
			return s, wrapDecode(what, data, err)
		}
	}
	return s, nil
}

// ---------------------------------------------------------------------------
// Dispatch by path

// DecodeZNode decodes data according to what path means (ParsePath) and
// returns one of the value types of this package: BrokerRegistration,
// TopicAssignment, PartitionState, ControllerInfo, int (controller epoch),
// ClusterIDInfo, EntityConfig, ConfigChangeNotification,
// ReassignPartitions, PartitionsNotification, LogDirEvent,
// ProducerIDBlock, FeatureZNode, MigrationState, int64 (legacy consumer
// offset). Paths whose data Kafka does not define (containers, deletion
// markers, /brokers/seqid, ACLs, tokens) give (nil, nil). The error is a
// *DecodeError; the value is still returned as far as it was decoded.
func DecodeZNode(path string, data []byte) (any, error) {
	switch ParsePath(path).Kind {
	case KindBroker:
		return DecodeBroker(data)
	case KindTopic:
		return DecodeTopicAssignment(data)
	case KindPartitionState:
		return DecodePartitionState(data)
	case KindController:
		return DecodeController(data)
	case KindControllerEpoch:
		return DecodeControllerEpoch(data)
	case KindClusterID:
		return DecodeClusterID(data)
	case KindTopicConfig, KindEntityConfig:
		return DecodeEntityConfig(data)
	case KindConfigChange:
		return DecodeConfigChangeNotification(data)
	case KindReassignPartitions:
		return DecodeReassignPartitions(data)
	case KindPreferredReplicaElection:
		return DecodePreferredReplicaElection(data)
	case KindIsrChange:
		return DecodeIsrChangeNotification(data)
	case KindLogDirEvent:
		return DecodeLogDirEvent(data)
	case KindLatestProducerIDBlock:
		return DecodeProducerIDBlock(data)
	case KindFeature:
		return DecodeFeature(data)
	case KindMigration:
		return DecodeMigration(data)
	case KindConsumerOffset:
		v, err := strconv.ParseInt(strings.TrimSpace(string(data)), 10, 64)
		if err != nil {
			return int64(0), &DecodeError{What: "consumer offset", Reason: "not a long: " + strconv.Quote(shorten(string(data))), Offset: -1, Raw: data}
		}
		return v, nil
	}
	return nil, nil
}
