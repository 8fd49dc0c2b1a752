package cluster

import (
	"strconv"
	"strings"
)

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
