package cluster

import (
	"strconv"
	"strings"
)

// Decoders in this package follow one contract:
//
//   - they never panic, whatever the bytes;
//   - they return the value decoded as far as possible together with a
//     *DecodeError (Raw = the input) when the znode is malformed or lacks a
//     field Kafka requires — callers show "bad znode <path>: <reason>" and go on;
//   - optional fields that are missing get Kafka's defaults;
//   - unknown members of the top-level object are kept in Extra (in document
//     order) so that a newer Kafka's additions are visible, but encoders never
//     write them: encoders produce exactly what Kafka writes.
//
// Encoders write the members in the order of the spec's examples (§1), with
// Kafka's types (strings where Kafka writes strings).

// RawField is a member of a znode's JSON object that the decoder does not
// interpret, with its raw JSON value.
type RawField struct {
	Key   string
	Value []byte
}

// Presence tells whether an optional JSON member was absent, null or set.
type Presence uint8

// Presence values.
const (
	Absent Presence = iota
	Null
	Present
)

// extras collects the members whose key is not in known (last one wins for
// duplicate keys, as in Jackson).
func extras(ms []jmember, known ...string) []RawField {
	var out []RawField
outer:
	for i, m := range ms {
		for _, k := range known {
			if m.is(k) {
				continue outer
			}
		}
		name := m.name()
		for _, later := range ms[i+1:] {
			if later.is(name) {
				continue outer
			}
		}
		out = append(out, RawField{Key: name, Value: append([]byte(nil), m.val...)})
	}
	return out
}

// Security protocols known to Kafka (SecurityProtocol enum).
var securityProtocols = []string{"PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL"}

// BrokerEndpoint is one advertised listener of a broker.
type BrokerEndpoint struct {
	Listener         string // listener name, upper-case (e.g. "PLAINTEXT", "INTERNAL")
	SecurityProtocol string // PLAINTEXT, SSL, SASL_PLAINTEXT or SASL_SSL
	Host             string // "" when the listener has no host
	Port             int
}

// String renders the endpoint as Kafka writes it in "endpoints":
// LISTENER://host:port, IPv6 hosts in brackets, LISTENER://:port without host.
func (e BrokerEndpoint) String() string { return e.Listener + "://" + e.Addr() }

// Addr renders host:port (Kafka's Utils.formatAddress; ":port" without host).
func (e BrokerEndpoint) Addr() string {
	port := strconv.Itoa(e.Port)
	switch {
	case e.Host == "":
		return ":" + port
	case strings.Contains(e.Host, ":"):
		return "[" + e.Host + "]:" + port
	default:
		return e.Host + ":" + port
	}
}

// ParseBrokerEndpoint parses "LISTENER://host:port" the way Kafka's
// EndPoint.createEndPoint does, resolving the security protocol through
// protocolMap (listener name → protocol; nil means "listener name is the
// protocol name").
func ParseBrokerEndpoint(s string, protocolMap []ListenerProtocol) (BrokerEndpoint, error) {
	listener, hostport, ok := cutLast(s, "://")
	if !ok {
		return BrokerEndpoint{}, kafkaErr(ClassKafka, "Unable to parse "+s+" to a broker endpoint")
	}
	colon := strings.LastIndexByte(hostport, ':')
	if colon < 0 {
		return BrokerEndpoint{}, kafkaErr(ClassKafka, "Unable to parse "+s+" to a broker endpoint")
	}
	host, portStr := hostport[:colon], hostport[colon+1:]
	host = strings.TrimPrefix(host, "[")
	host = strings.TrimSuffix(host, "]")
	if !validEndpointHost(host) || !validEndpointPort(portStr) {
		return BrokerEndpoint{}, kafkaErr(ClassKafka, "Unable to parse "+s+" to a broker endpoint")
	}
	port, err := strconv.ParseInt(portStr, 10, 32)
	if err != nil {
		return BrokerEndpoint{}, kafkaErr(ClassKafka, "Unable to parse "+s+" to a broker endpoint")
	}
	listener = strings.ToUpper(listener) // ListenerName.normalised
	ep := BrokerEndpoint{Listener: listener, Host: host, Port: int(port)}
	if protocolMap == nil {
		for _, p := range securityProtocols {
			if p == listener {
				ep.SecurityProtocol = p
			}
		}
	} else {
		for _, lp := range protocolMap {
			if lp.Listener == listener {
				ep.SecurityProtocol = lp.Protocol
			}
		}
	}
	if ep.SecurityProtocol == "" {
		return ep, kafkaErr(ClassIllegalArgument, "No security protocol defined for listener "+listener)
	}
	return ep, nil
}

// cutLast splits s around the last occurrence of sep (Kafka's regex
// "^(.*)://" is greedy).
func cutLast(s, sep string) (before, after string, ok bool) {
	i := strings.LastIndex(s, sep)
	if i < 0 {
		return s, "", false
	}
	return s[:i], s[i+len(sep):], true
}

// validEndpointHost matches Kafka's host pattern [0-9a-zA-Z\-%._:]*.
func validEndpointHost(h string) bool {
	for i := 0; i < len(h); i++ {
		c := h[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' ||
			c == '-' || c == '%' || c == '.' || c == '_' || c == ':') {
			return false
		}
	}
	return true
}

// validEndpointPort matches -?[0-9]+.
func validEndpointPort(p string) bool {
	p = strings.TrimPrefix(p, "-")
	if p == "" {
		return false
	}
	for i := 0; i < len(p); i++ {
		if !isDigit(p[i]) {
			return false
		}
	}
	return true
}

// ListenerProtocol is one entry of listener_security_protocol_map.
type ListenerProtocol struct {
	Listener string
	Protocol string
}

// FeatureRange is a supported-version range of a broker feature (v5
// registrations: {"name":{"min_version":a,"max_version":b}}).
type FeatureRange struct {
	Name       string
	MinVersion int
	MaxVersion int
}

// BrokerRegistration is the JSON of /brokers/ids/<id>, versions 1–5. The
// broker id is not part of it: Kafka takes it from the znode name.
type BrokerRegistration struct {
	Version int
	// Host and Port are the JSON's "host"/"port": the first PLAINTEXT
	// endpoint, or "" (null) and -1 when there is none.
	Host      string
	Port      int
	Endpoints []BrokerEndpoint
	JMXPort   int
	// Timestamp is the registration time in ms since the epoch, as the
	// string Kafka writes.
	Timestamp string
	Rack      string
	// RackPresence distinguishes an absent "rack" from "rack":null (both
	// mean "no rack") and a set one.
	RackPresence Presence
	// ListenerSecurityProtocolMap is nil when the member is absent (v < 4).
	ListenerSecurityProtocolMap []ListenerProtocol
	// Features is nil when the member is absent (v < 5).
	Features []FeatureRange
	Extra    []RawField
}

// HasRack reports whether the broker has a rack (Kafka: rack is Some).
func (b *BrokerRegistration) HasRack() bool { return b.RackPresence == Present }

// TimestampMillis parses Timestamp.
func (b *BrokerRegistration) TimestampMillis() (int64, bool) {
	ms, err := strconv.ParseInt(b.Timestamp, 10, 64)
	return ms, err == nil
}

// Addr is the broker's host:port for display: the JSON host/port (first
// PLAINTEXT listener) if set, else the first endpoint's, else "".
func (b *BrokerRegistration) Addr() string {
	if b.Host != "" {
		return BrokerEndpoint{Host: b.Host, Port: b.Port}.Addr()
	}
	if len(b.Endpoints) > 0 {
		return b.Endpoints[0].Addr()
	}
	return ""
}

// NewBrokerRegistration builds what a Kafka broker of the given registration
// version writes (5 for IBP ≥ 2.7, 4 before; spec §1.4): host/port from the
// first PLAINTEXT endpoint, the protocol map from the endpoints.
// timestampMillis is the registration time; rack "" means no rack.
func NewBrokerRegistration(version int, endpoints []BrokerEndpoint, jmxPort int, rack string, timestampMillis int64, features []FeatureRange) BrokerRegistration {
	b := BrokerRegistration{
		Version:   version,
		Port:      -1,
		Endpoints: endpoints,
		JMXPort:   jmxPort,
		Timestamp: strconv.FormatInt(timestampMillis, 10),
	}
	for _, e := range endpoints {
		if e.SecurityProtocol == "PLAINTEXT" {
			b.Host, b.Port = e.Host, e.Port
			break
		}
	}
	if rack != "" && version >= 3 {
		b.Rack, b.RackPresence = rack, Present
	}
	if version >= 4 {
		b.ListenerSecurityProtocolMap = protocolMapOf(endpoints)
	}
	if version >= 5 {
		b.Features = features
		if b.Features == nil {
			b.Features = []FeatureRange{}
		}
	}
	return b
}

func protocolMapOf(endpoints []BrokerEndpoint) []ListenerProtocol {
	m := make([]ListenerProtocol, 0, len(endpoints))
outer:
	for _, e := range endpoints {
		for i := range m {
			if m[i].Listener == e.Listener {
				m[i].Protocol = e.SecurityProtocol
				continue outer
			}
		}
		m = append(m, ListenerProtocol{Listener: e.Listener, Protocol: e.SecurityProtocol})
	}
	return m
}

// EncodeBroker writes a broker registration in the member order of the
// spec's v5 example:
//
//	{"features":{},"listener_security_protocol_map":{...},"endpoints":[...],
//	 "jmx_port":-1,"port":9092,"host":"kafka-1","version":5,"timestamp":"...","rack":"r"}
//
// Members are gated by version as in Kafka's BrokerIdZNode.encode: endpoints
// from v2, rack from v3 (only when set; a decoded "rack":null is kept),
// listener_security_protocol_map from v4, features from v5. A Host of ""
// is written as null from v2 on (Kafka's null host).
func EncodeBroker(b BrokerRegistration) []byte {
	out := make([]byte, 0, 256)
	out = append(out, '{')
	if b.Version >= 5 {
		out = append(out, `"features":{`...)
		for i, f := range b.Features {
			if i > 0 {
				out = append(out, ',')
			}
			out = appendKey(out, f.Name)
			out = append(out, `{"min_version":`...)
			out = strconv.AppendInt(out, int64(f.MinVersion), 10)
			out = append(out, `,"max_version":`...)
			out = strconv.AppendInt(out, int64(f.MaxVersion), 10)
			out = append(out, '}')
		}
		out = append(out, "},"...)
	}
	if b.Version >= 4 {
		pm := b.ListenerSecurityProtocolMap
		if pm == nil {
			pm = protocolMapOf(b.Endpoints)
		}
		out = append(out, `"listener_security_protocol_map":{`...)
		for i, lp := range pm {
			if i > 0 {
				out = append(out, ',')
			}
			out = appendKey(out, lp.Listener)
			out = appendJSONString(out, lp.Protocol)
		}
		out = append(out, "},"...)
	}
	if b.Version >= 2 {
		out = append(out, `"endpoints":[`...)
		for i, e := range b.Endpoints {
			if i > 0 {
				out = append(out, ',')
			}
			out = appendJSONString(out, e.String())
		}
		out = append(out, "],"...)
	}
	out = append(out, `"jmx_port":`...)
	out = strconv.AppendInt(out, int64(b.JMXPort), 10)
	out = append(out, `,"port":`...)
	out = strconv.AppendInt(out, int64(b.Port), 10)
	out = append(out, `,"host":`...)
	if b.Host == "" && b.Version >= 2 {
		out = append(out, "null"...)
	} else {
		out = appendJSONString(out, b.Host)
	}
	out = append(out, `,"version":`...)
	out = strconv.AppendInt(out, int64(b.Version), 10)
	out = append(out, `,"timestamp":`...)
	out = appendJSONString(out, b.Timestamp)
	if b.Version >= 3 {
		switch b.RackPresence {
		case Present:
			out = append(out, `,"rack":`...)
			out = appendJSONString(out, b.Rack)
		case Null:
			out = append(out, `,"rack":null`...)
		}
	}
	return append(out, '}')
}

const whatBroker = "broker registration"

// DecodeBroker decodes /brokers/ids/<id> as Kafka's BrokerIdZNode.decode
// does: "version" and "jmx_port" are mandatory; version < 1 is unsupported;
// v1 has one PLAINTEXT endpoint made of host/port; v2+ parse "endpoints",
// resolving protocols through listener_security_protocol_map (default: the
// listener name is the protocol name); "rack" may be absent or null.
func DecodeBroker(data []byte) (BrokerRegistration, error) {
	b := BrokerRegistration{Port: -1}
	var buf [12]jmember
	ms, err := parseObject(buf[:0], data)
	if err != nil {
		return b, wrapDecode(whatBroker, data, err)
	}
	var firstErr error
	fail := func(e error) {
		if firstErr == nil {
			firstErr = e
		}
	}
	if m, ok := lookup(ms, "version"); !ok {
		fail(errMissing("version"))
	} else if v, err := jsonInt32("version", m); err != nil {
		fail(err)
	} else {
		b.Version = v
	}
	if m, ok := lookup(ms, "jmx_port"); !ok {
		fail(errMissing("jmx_port"))
	} else if v, err := jsonInt32("jmx_port", m); err != nil {
		fail(err)
	} else {
		b.JMXPort = v
	}
	if m, ok := lookup(ms, "host"); ok && m.kind != kindNull {
		if s, err := jsonString("host", m.kind, m.val); err != nil {
			fail(err)
		} else {
			b.Host = s
		}
	}
	if m, ok := lookup(ms, "port"); ok {
		if v, err := jsonInt32("port", m); err != nil {
			fail(err)
		} else {
			b.Port = v
		}
	}
	if m, ok := lookup(ms, "timestamp"); ok {
		// Kafka writes a string and never reads it back; accept a number too.
		switch m.kind {
		case kindString:
			b.Timestamp, _ = unquoteJSON(m.val)
		case kindNumber:
			b.Timestamp = string(m.val)
		}
	}
	if m, ok := lookup(ms, "rack"); ok {
		switch m.kind {
		case kindNull:
			b.RackPresence = Null
		case kindString:
			b.Rack, _ = unquoteJSON(m.val)
			b.RackPresence = Present
		default:
			fail(errType("rack", "a string or null", m.kind))
		}
	}
	if m, ok := lookup(ms, "listener_security_protocol_map"); ok {
		pm, err := decodeProtocolMap(m)
		if err != nil {
			fail(err)
		}
		b.ListenerSecurityProtocolMap = pm
	}
	if m, ok := lookup(ms, "features"); ok {
		fs, err := decodeBrokerFeatures(m)
		if err != nil {
			fail(err)
		}
		b.Features = fs
	}
	switch {
	case firstErr != nil:
	case b.Version < 1:
		fail(&fieldError{msg: "Unsupported version of broker registration: " + string(data)})
	case b.Version == 1:
		if b.Host == "" {
			if m, ok := lookup(ms, "host"); !ok {
				fail(errMissing("host"))
			} else if m.kind == kindNull {
				fail(errType("host", "a string", kindNull))
			}
		}
		if _, ok := lookup(ms, "port"); !ok {
			fail(errMissing("port"))
		}
		b.Endpoints = []BrokerEndpoint{{Listener: "PLAINTEXT", SecurityProtocol: "PLAINTEXT", Host: b.Host, Port: b.Port}}
	default:
		m, ok := lookup(ms, "endpoints")
		if !ok {
			fail(errMissing("endpoints"))
			break
		}
		if m.kind != kindArray {
			fail(errType("endpoints", "an array of strings", m.kind))
			break
		}
		err := eachElem(m.val, func(k jsonKind, e []byte) error {
			s, err := jsonString("endpoints", k, e)
			if err != nil {
				return err
			}
			ep, err := ParseBrokerEndpoint(s, b.ListenerSecurityProtocolMap)
			if ep.Listener != "" {
				b.Endpoints = append(b.Endpoints, ep)
			}
			if err != nil {
				fail(&fieldError{field: "endpoints", msg: err.Error()})
			}
			return nil
		})
		if err != nil {
			fail(err)
		}
	}
	b.Extra = extras(ms, "version", "host", "port", "endpoints", "jmx_port", "timestamp", "rack",
		"listener_security_protocol_map", "features")
	if firstErr != nil {
		return b, wrapDecode(whatBroker, data, firstErr)
	}
	return b, nil
}

func decodeProtocolMap(m jmember) ([]ListenerProtocol, error) {
	if m.kind != kindObject {
		return nil, errType("listener_security_protocol_map", "an object", m.kind)
	}
	pm := []ListenerProtocol{}
	err := eachMember(m.val, func(e jmember) error {
		p, err := jsonString("listener_security_protocol_map", e.kind, e.val)
		if err != nil {
			return err
		}
		up := strings.ToUpper(p) // SecurityProtocol.forName
		known := false
		for _, sp := range securityProtocols {
			known = known || sp == up
		}
		if !known {
			return &fieldError{field: "listener_security_protocol_map", msg: "unknown security protocol " + strconv.Quote(p)}
		}
		name := e.name()
		for i := range pm {
			if pm[i].Listener == name {
				pm[i].Protocol = up
				return nil
			}
		}
		pm = append(pm, ListenerProtocol{Listener: name, Protocol: up})
		return nil
	})
	return pm, err
}

func decodeBrokerFeatures(m jmember) ([]FeatureRange, error) {
	if m.kind != kindObject {
		return nil, errType("features", "an object", m.kind)
	}
	fs := []FeatureRange{}
	err := eachMember(m.val, func(e jmember) error {
		if e.kind != kindObject {
			return errType("features", "an object per feature", e.kind)
		}
		f := FeatureRange{Name: e.name()}
		var minSet, maxSet bool
		err := eachMember(e.val, func(v jmember) error {
			switch {
			case v.is("min_version"):
				n, err := jsonInt("features", v.kind, v.val, -32768, 32767)
				f.MinVersion, minSet = int(n), true
				return err
			case v.is("max_version"):
				n, err := jsonInt("features", v.kind, v.val, -32768, 32767)
				f.MaxVersion, maxSet = int(n), true
				return err
			}
			return nil
		})
		if err != nil {
			return err
		}
		if !minSet || !maxSet {
			return &fieldError{field: "features", msg: "feature " + strconv.Quote(f.Name) + " needs min_version and max_version"}
		}
		fs = append(fs, f)
		return nil
	})
	return fs, err
}
