package cluster

import "strconv"

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

// MigrationState is the JSON of /migration.
type MigrationState struct {
	Version              int
	KRaftControllerID    int
	KRaftControllerEpoch int
	KRaftMetadataOffset  int64
	KRaftMetadataEpoch   int
}

// EncodeMigration writes /migration as Kafka 3.9.2 does (MigrationZNode:
// a Scala Map of five keys, serialised in its hash order):
// {"version":0,"kraft_metadata_offset":..,"kraft_controller_id":..,"kraft_metadata_epoch":..,"kraft_controller_epoch":..}.
func EncodeMigration(m MigrationState) []byte {
	out := append([]byte(nil), `{"version":`...)
	out = strconv.AppendInt(out, int64(m.Version), 10)
	out = append(out, `,"kraft_metadata_offset":`...)
	out = strconv.AppendInt(out, m.KRaftMetadataOffset, 10)
	out = append(out, `,"kraft_controller_id":`...)
	out = strconv.AppendInt(out, int64(m.KRaftControllerID), 10)
	out = append(out, `,"kraft_metadata_epoch":`...)
	out = strconv.AppendInt(out, int64(m.KRaftMetadataEpoch), 10)
	out = append(out, `,"kraft_controller_epoch":`...)
	out = strconv.AppendInt(out, int64(m.KRaftControllerEpoch), 10)
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
