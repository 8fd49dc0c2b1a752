package cluster

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

// The spec's JSON examples (kafka-zk.md §1), verbatim.
const (
	specBrokerV5 = `{"features":{},"listener_security_protocol_map":{"PLAINTEXT":"PLAINTEXT","SSL":"SSL"},"endpoints":["PLAINTEXT://kafka-1:9092","SSL://kafka-1:9093"],"jmx_port":-1,"port":9092,"host":"kafka-1","version":5,"timestamp":"1700000000000","rack":"us-east-1a"}`
	specTopicV1  = `{"version":1,"partitions":{"0":[1,2],"1":[2,3]}}`
	specTopicV2  = `{"version":2,"partitions":{"0":[1,2],"1":[2,3]},"adding_replicas":{},"removing_replicas":{}}`
	specTopicV3  = `{"version":3,"partitions":{"0":[1,2],"1":[2,3]},"adding_replicas":{},"removing_replicas":{},"topic_id":"8t3wd6ZqQy-4XwKmL0lJmA"}`
	specState1   = `{"controller_epoch":1,"leader":1,"version":1,"leader_epoch":0,"isr":[1,2,3]}`
	specState2   = `{"controller_epoch":7,"leader":-1,"version":1,"leader_epoch":12,"isr":[3]}`
	specState3   = `{"controller_epoch":9,"leader":4,"version":1,"leader_recovery_state":1,"leader_epoch":13,"isr":[4]}`
	specCtrlV1   = `{"version":1,"brokerid":2,"timestamp":"1614570663255"}`
	specCtrlV2   = `{"version":2,"brokerid":2,"timestamp":"1614570663255","kraftControllerEpoch":-1}`
	specConfig   = `{"version":1,"config":{"retention.ms":"86400000","cleanup.policy":"compact"}}`
	specReassign = `{"version":1,"partitions":[{"topic":"foo","partition":1,"replicas":[1,2,3]}]}`
	specElection = `{"version":1,"partitions":[{"topic":"foo","partition":0}]}`
	specLogDir   = `{"version":1,"broker":3,"event":1}`
	specChangeV2 = `{"version":2,"entity_path":"topics/orders"}`
	specChangeV1 = `{"version":1,"entity_type":"topics","entity_name":"orders"}`
	specProdID   = `{"version":1,"broker":0,"block_start":"0","block_end":"999"}`
	specFeature1 = `{"version":1,"status":1,"features":{"f":{"min_version_level":1,"max_version_level":2}}}`
	specFeature2 = `{"version":2,"status":1,"features":{"metadata.version":{"max_version_level":7}}}`
	// specMigrate is in the order Kafka 3.9.2 writes it (its Map's hash order).
	specMigrate = `{"version":0,"kraft_metadata_offset":123456,"kraft_controller_id":3000,"kraft_metadata_epoch":5,"kraft_controller_epoch":2}`
)

func mustNoErr(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// wantDecodeErr checks that err is a *DecodeError whose reason contains want
// and that carries raw.
func wantDecodeErr(t *testing.T, err error, raw []byte, want string) {
	t.Helper()
	var de *DecodeError
	if !errors.As(err, &de) {
		t.Fatalf("error %v (%T), want *DecodeError containing %q", err, err, want)
	}
	if !strings.Contains(de.Error(), want) {
		t.Errorf("error %q, want it to contain %q", de.Error(), want)
	}
	if !bytes.Equal(de.Raw, raw) {
		t.Errorf("Raw = %q, want %q", de.Raw, raw)
	}
}

func TestBrokerV5SpecExample(t *testing.T) {
	b, err := DecodeBroker([]byte(specBrokerV5))
	mustNoErr(t, err)
	want := BrokerRegistration{
		Version: 5, Host: "kafka-1", Port: 9092, JMXPort: -1, Timestamp: "1700000000000",
		Rack: "us-east-1a", RackPresence: Present,
		Endpoints: []BrokerEndpoint{
			{Listener: "PLAINTEXT", SecurityProtocol: "PLAINTEXT", Host: "kafka-1", Port: 9092},
			{Listener: "SSL", SecurityProtocol: "SSL", Host: "kafka-1", Port: 9093},
		},
		ListenerSecurityProtocolMap: []ListenerProtocol{{"PLAINTEXT", "PLAINTEXT"}, {"SSL", "SSL"}},
		Features:                    []FeatureRange{},
	}
	if !reflect.DeepEqual(b, want) {
		t.Fatalf("decoded\n%+v\nwant\n%+v", b, want)
	}
	if got := string(EncodeBroker(b)); got != specBrokerV5 {
		t.Errorf("re-encoded\n%s\nwant\n%s", got, specBrokerV5)
	}
	// The constructor writes exactly the same bytes.
	nb := NewBrokerRegistration(5, want.Endpoints, -1, "us-east-1a", 1700000000000, nil)
	if got := string(EncodeBroker(nb)); got != specBrokerV5 {
		t.Errorf("NewBrokerRegistration encoded\n%s\nwant\n%s", got, specBrokerV5)
	}
	if ms, ok := b.TimestampMillis(); !ok || ms != 1700000000000 {
		t.Error("timestamp", ms, ok)
	}
	if b.Addr() != "kafka-1:9092" || !b.HasRack() {
		t.Error(b.Addr(), b.HasRack())
	}
}

func TestBrokerVersions(t *testing.T) {
	ep := func(l, p, h string, port int) BrokerEndpoint {
		return BrokerEndpoint{Listener: l, SecurityProtocol: p, Host: h, Port: port}
	}
	for _, tc := range []struct {
		name string
		json string
		want BrokerRegistration
		err  string // substring of the decode error, "" for none
	}{
		{name: "v1 host/port only", json: `{"version":1,"host":"h","port":9092,"jmx_port":9999,"timestamp":"1"}`,
			want: BrokerRegistration{Version: 1, Host: "h", Port: 9092, JMXPort: 9999, Timestamp: "1",
				Endpoints: []BrokerEndpoint{ep("PLAINTEXT", "PLAINTEXT", "h", 9092)}}},
		{name: "v2 endpoints, default protocol map", json: `{"version":2,"host":"h","port":9092,"jmx_port":-1,"timestamp":"1","endpoints":["PLAINTEXT://h:9092","SASL_SSL://h:9094"]}`,
			want: BrokerRegistration{Version: 2, Host: "h", Port: 9092, JMXPort: -1, Timestamp: "1",
				Endpoints: []BrokerEndpoint{ep("PLAINTEXT", "PLAINTEXT", "h", 9092), ep("SASL_SSL", "SASL_SSL", "h", 9094)}}},
		{name: "v3 rack", json: `{"version":3,"host":"h","port":9092,"jmx_port":-1,"timestamp":"1","endpoints":["PLAINTEXT://h:9092"],"rack":"r1"}`,
			want: BrokerRegistration{Version: 3, Host: "h", Port: 9092, JMXPort: -1, Timestamp: "1", Rack: "r1", RackPresence: Present,
				Endpoints: []BrokerEndpoint{ep("PLAINTEXT", "PLAINTEXT", "h", 9092)}}},
		{name: "v4 custom listeners, no PLAINTEXT", json: `{"listener_security_protocol_map":{"INTERNAL":"SSL","EXTERNAL":"SASL_SSL"},"endpoints":["INTERNAL://10.0.0.1:9093","EXTERNAL://[::1]:9094"],"jmx_port":-1,"port":-1,"host":null,"version":4,"timestamp":"1"}`,
			want: BrokerRegistration{Version: 4, Port: -1, JMXPort: -1, Timestamp: "1",
				ListenerSecurityProtocolMap: []ListenerProtocol{{"INTERNAL", "SSL"}, {"EXTERNAL", "SASL_SSL"}},
				Endpoints:                   []BrokerEndpoint{ep("INTERNAL", "SSL", "10.0.0.1", 9093), ep("EXTERNAL", "SASL_SSL", "::1", 9094)}}},
		{name: "rack null", json: `{"version":4,"jmx_port":-1,"endpoints":[],"rack":null}`,
			want: BrokerRegistration{Version: 4, Port: -1, JMXPort: -1, RackPresence: Null}},
		{name: "null host endpoint and lower-case listener", json: `{"version":2,"jmx_port":1,"endpoints":["plaintext://:9092"]}`,
			want: BrokerRegistration{Version: 2, Port: -1, JMXPort: 1, Endpoints: []BrokerEndpoint{ep("PLAINTEXT", "PLAINTEXT", "", 9092)}}},
		{name: "v5 features", json: `{"version":5,"jmx_port":-1,"endpoints":["PLAINTEXT://h:1"],"listener_security_protocol_map":{"PLAINTEXT":"PLAINTEXT"},"features":{"metadata.version":{"min_version":1,"max_version":21}}}`,
			want: BrokerRegistration{Version: 5, Port: -1, JMXPort: -1, Endpoints: []BrokerEndpoint{ep("PLAINTEXT", "PLAINTEXT", "h", 1)},
				ListenerSecurityProtocolMap: []ListenerProtocol{{"PLAINTEXT", "PLAINTEXT"}},
				Features:                    []FeatureRange{{"metadata.version", 1, 21}}}},
		{name: "numeric timestamp tolerated", json: `{"version":2,"jmx_port":-1,"endpoints":[],"timestamp":17}`,
			want: BrokerRegistration{Version: 2, Port: -1, JMXPort: -1, Timestamp: "17"}},
		{name: "unknown fields kept", json: `{"version":2,"jmx_port":-1,"endpoints":[],"x":{"a":[1]},"y":null}`,
			want: BrokerRegistration{Version: 2, Port: -1, JMXPort: -1,
				Extra: []RawField{{"x", []byte(`{"a":[1]}`)}, {"y", []byte(`null`)}}}},

		{name: "jmx_port missing", json: `{"version":5,"endpoints":[]}`, err: `missing field "jmx_port"`},
		{name: "version missing", json: `{"jmx_port":1,"endpoints":[]}`, err: `missing field "version"`},
		{name: "version 0", json: `{"version":0,"jmx_port":1}`, err: `Unsupported version of broker registration: {"version":0,"jmx_port":1}`},
		{name: "v2 without endpoints", json: `{"version":2,"jmx_port":1}`, err: `missing field "endpoints"`},
		{name: "v1 without host", json: `{"version":1,"jmx_port":1,"port":1}`, err: `missing field "host"`},
		{name: "unknown listener", json: `{"version":2,"jmx_port":1,"endpoints":["INTERNAL://h:1"]}`, err: "No security protocol defined for listener INTERNAL"},
		{name: "bad endpoint", json: `{"version":2,"jmx_port":1,"endpoints":["PLAINTEXT:h:1"]}`, err: "Unable to parse PLAINTEXT:h:1 to a broker endpoint"},
		{name: "bad protocol", json: `{"version":4,"jmx_port":1,"endpoints":[],"listener_security_protocol_map":{"A":"TLS"}}`, err: `unknown security protocol "TLS"`},
		{name: "string version", json: `{"version":"5","jmx_port":1}`, err: `field "version": expected an integer, got a string`},
		{name: "rack number", json: `{"version":3,"jmx_port":1,"endpoints":[],"rack":5}`, err: "rack"},
		{name: "not an object", json: `[1]`, err: "JSON object expected"},
		{name: "truncated", json: `{"version":5,`, err: "unexpected end of JSON"},
		{name: "empty", json: ``, err: "no data"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := DecodeBroker([]byte(tc.json))
			if tc.err != "" {
				wantDecodeErr(t, err, []byte(tc.json), tc.err)
				return
			}
			mustNoErr(t, err)
			if !reflect.DeepEqual(b, tc.want) {
				t.Fatalf("decoded\n%+v\nwant\n%+v", b, tc.want)
			}
			// Encoding then decoding gives the same registration (Extra aside).
			again, err := DecodeBroker(EncodeBroker(b))
			mustNoErr(t, err)
			b.Extra = nil
			if b.Version >= 2 && b.Version < 4 {
				b.ListenerSecurityProtocolMap = nil
			}
			if b.Version >= 4 && b.ListenerSecurityProtocolMap == nil {
				b.ListenerSecurityProtocolMap = []ListenerProtocol{} // v4 always writes the map
			}
			if !reflect.DeepEqual(again, b) {
				t.Errorf("round trip\n%+v\nwant\n%+v", again, b)
			}
		})
	}
}

func TestBrokerEncodeByVersion(t *testing.T) {
	eps := []BrokerEndpoint{{Listener: "SSL", SecurityProtocol: "SSL", Host: "h", Port: 9093},
		{Listener: "PLAINTEXT", SecurityProtocol: "PLAINTEXT", Host: "fe80::1", Port: 9092}}
	for _, tc := range []struct {
		version int
		rack    string
		want    string
	}{
		{4, "", `{"listener_security_protocol_map":{"SSL":"SSL","PLAINTEXT":"PLAINTEXT"},"endpoints":["SSL://h:9093","PLAINTEXT://[fe80::1]:9092"],"jmx_port":-1,"port":9092,"host":"fe80::1","version":4,"timestamp":"5"}`},
		{2, "r", `{"endpoints":["SSL://h:9093","PLAINTEXT://[fe80::1]:9092"],"jmx_port":-1,"port":9092,"host":"fe80::1","version":2,"timestamp":"5"}`},
		{5, "r", `{"features":{"f":{"min_version":0,"max_version":1}},"listener_security_protocol_map":{"SSL":"SSL","PLAINTEXT":"PLAINTEXT"},"endpoints":["SSL://h:9093","PLAINTEXT://[fe80::1]:9092"],"jmx_port":-1,"port":9092,"host":"fe80::1","version":5,"timestamp":"5","rack":"r"}`},
	} {
		b := NewBrokerRegistration(tc.version, eps, -1, tc.rack, 5, []FeatureRange{{"f", 0, 1}})
		if got := string(EncodeBroker(b)); got != tc.want {
			t.Errorf("v%d:\n%s\nwant\n%s", tc.version, got, tc.want)
		}
	}
	// No PLAINTEXT listener: host null, port -1.
	b := NewBrokerRegistration(5, eps[:1], 9999, "", 5, nil)
	want := `{"features":{},"listener_security_protocol_map":{"SSL":"SSL"},"endpoints":["SSL://h:9093"],"jmx_port":9999,"port":-1,"host":null,"version":5,"timestamp":"5"}`
	if got := string(EncodeBroker(b)); got != want {
		t.Errorf("no PLAINTEXT:\n%s\nwant\n%s", got, want)
	}
	// A decoded "rack":null is written back as null.
	d, err := DecodeBroker([]byte(`{"version":4,"jmx_port":-1,"endpoints":[],"rack":null}`))
	mustNoErr(t, err)
	if !strings.HasSuffix(string(EncodeBroker(d)), `,"rack":null}`) {
		t.Error(string(EncodeBroker(d)))
	}
}

func TestBrokerEndpoint(t *testing.T) {
	for _, tc := range []struct {
		in, out string
		err     string
	}{
		{"PLAINTEXT://h:9092", "PLAINTEXT://h:9092", ""},
		{"PLAINTEXT://[::1]:9092", "PLAINTEXT://[::1]:9092", ""},
		{"PLAINTEXT://::1:9092", "PLAINTEXT://[::1]:9092", ""},
		{"PLAINTEXT://:9092", "PLAINTEXT://:9092", ""},
		{"SSL://host.example.com:-1", "SSL://host.example.com:-1", ""},
		{"PLAINTEXT://h:99999999999", "", "Unable to parse"},
		{"PLAINTEXT://h/x:1", "", "Unable to parse"},
		{"PLAINTEXT://h:", "", "Unable to parse"},
		{"h:1", "", "Unable to parse"},
		{"FOO://h:1", "", "No security protocol defined for listener FOO"},
	} {
		e, err := ParseBrokerEndpoint(tc.in, nil)
		switch {
		case tc.err != "":
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: err %v, want %q", tc.in, err, tc.err)
			}
		case err != nil:
			t.Errorf("%s: %v", tc.in, err)
		case e.String() != tc.out:
			t.Errorf("%s: %s, want %s", tc.in, e.String(), tc.out)
		}
	}
}

func TestTopicAssignment(t *testing.T) {
	parts := map[int][]int{0: {1, 2}, 1: {2, 3}}
	for _, tc := range []struct {
		json string
		want TopicAssignment
	}{
		{specTopicV1, TopicAssignment{Version: 1, Partitions: parts}},
		{specTopicV2, TopicAssignment{Version: 2, Partitions: parts}},
		{specTopicV3, TopicAssignment{Version: 3, Partitions: parts, TopicID: "8t3wd6ZqQy-4XwKmL0lJmA"}},
	} {
		a, err := DecodeTopicAssignment([]byte(tc.json))
		mustNoErr(t, err)
		tc.want.AddingReplicas, tc.want.RemovingReplicas = map[int][]int{}, map[int][]int{}
		if !reflect.DeepEqual(a, tc.want) {
			t.Errorf("%s:\n%+v\nwant %+v", tc.json, a, tc.want)
		}
		if got := string(EncodeTopicAssignment(a)); got != tc.json {
			t.Errorf("re-encoded\n%s\nwant\n%s", got, tc.json)
		}
	}
	// The constructor gives the v3 example.
	if got := string(EncodeTopicAssignment(NewTopicAssignment(parts, "8t3wd6ZqQy-4XwKmL0lJmA"))); got != specTopicV3 {
		t.Errorf("NewTopicAssignment: %s", got)
	}
	if got := string(EncodeTopicAssignment(NewTopicAssignment(parts, ""))); got != strings.TrimSuffix(specTopicV3, `,"topic_id":"8t3wd6ZqQy-4XwKmL0lJmA"}`)+"}" {
		t.Errorf("without id: %s", got)
	}
}

func TestTopicAssignmentDetails(t *testing.T) {
	// Numeric key order, reassignment maps, empty lists dropped.
	a := TopicAssignment{Version: 3,
		Partitions:       map[int][]int{10: {1}, 2: {2}, 0: {3, 4, 1}},
		AddingReplicas:   map[int][]int{0: {3}, 2: {}},
		RemovingReplicas: map[int][]int{0: {1}},
	}
	want := `{"version":3,"partitions":{"0":[3,4,1],"2":[2],"10":[1]},"adding_replicas":{"0":[3]},"removing_replicas":{"0":[1]}}`
	if got := string(EncodeTopicAssignment(a)); got != want {
		t.Errorf("got %s", got)
	}
	// Version 0 is written as 3.
	if got := string(EncodeTopicAssignment(TopicAssignment{Partitions: map[int][]int{0: {1}}})); got != `{"version":3,"partitions":{"0":[1]},"adding_replicas":{},"removing_replicas":{}}` {
		t.Errorf("got %s", got)
	}

	for _, tc := range []struct {
		name, json string
		parts      map[int][]int
		adding     map[int][]int
		err        string
	}{
		{"missing partitions", `{"version":2}`, map[int][]int{}, map[int][]int{}, ""},
		{"no version", `{"partitions":{"0":[1]}}`, map[int][]int{0: {1}}, map[int][]int{}, ""},
		{"java keys", `{"partitions":{"+1":[1],"02":[2]}}`, map[int][]int{1: {1}, 2: {2}}, map[int][]int{}, ""},
		{"adding for unlisted partition ignored", `{"partitions":{"0":[1,2]},"adding_replicas":{"0":[2],"5":[9]}}`,
			map[int][]int{0: {1, 2}}, map[int][]int{0: {2}}, ""},
		{"null topic_id", `{"version":3,"partitions":{},"topic_id":null}`, map[int][]int{}, map[int][]int{}, ""},
		{"bad key", `{"partitions":{"x":[1]}}`, nil, nil, `partition id "x" is not an integer`},
		{"bad replicas", `{"partitions":{"0":[1,"2"]}}`, nil, nil, `field "partitions": expected an integer, got a string`},
		{"float replica", `{"partitions":{"0":[1.0]}}`, nil, nil, `expected an integer, got 1.0`},
		{"huge replica", `{"partitions":{"0":[4294967296]}}`, nil, nil, `integer out of range`},
		{"bad topic id", `{"version":3,"partitions":{},"topic_id":"nope"}`, nil, nil, `invalid UUID 'nope'`},
		{"partitions not object", `{"partitions":[]}`, nil, nil, `expected an object, got an array`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, err := DecodeTopicAssignment([]byte(tc.json))
			if tc.err != "" {
				wantDecodeErr(t, err, []byte(tc.json), tc.err)
				return
			}
			mustNoErr(t, err)
			if !reflect.DeepEqual(a.Partitions, tc.parts) || !reflect.DeepEqual(a.AddingReplicas, tc.adding) {
				t.Errorf("got %+v", a)
			}
		})
	}
}

func TestPartitionState(t *testing.T) {
	for _, tc := range []struct {
		json string
		want PartitionState
	}{
		{specState1, PartitionState{ControllerEpoch: 1, Leader: 1, Version: 1, LeaderEpoch: 0, ISR: []int{1, 2, 3}}},
		{specState2, PartitionState{ControllerEpoch: 7, Leader: -1, Version: 1, LeaderEpoch: 12, ISR: []int{3}}},
		{specState3, PartitionState{ControllerEpoch: 9, Leader: 4, Version: 1, LeaderEpoch: 13, ISR: []int{4}, LeaderRecoveryState: 1}},
	} {
		s, err := DecodePartitionState([]byte(tc.json))
		mustNoErr(t, err)
		if !reflect.DeepEqual(s, tc.want) {
			t.Errorf("%s: %+v", tc.json, s)
		}
		if got := string(EncodePartitionState(s)); got != tc.json {
			t.Errorf("re-encoded\n%s\nwant\n%s", got, tc.json)
		}
	}
	// Key order does not matter; "leader_recovery_state":0 is RECOVERED and not written back.
	s, err := DecodePartitionState([]byte(` { "isr" : [ 2 ] , "leader":2, "leader_epoch":3,"controller_epoch":4,"leader_recovery_state":0,"zz":true}`))
	mustNoErr(t, err)
	if got := string(EncodePartitionState(s)); got != `{"controller_epoch":4,"leader":2,"version":1,"leader_epoch":3,"isr":[2]}` {
		t.Error(got)
	}
	if len(s.Extra) != 1 || s.Extra[0].Key != "zz" {
		t.Errorf("extra %+v", s.Extra)
	}
	// Duplicate keys: the last wins (Jackson).
	s, err = DecodePartitionState([]byte(`{"controller_epoch":1,"leader":1,"leader_epoch":0,"isr":[1],"leader":2}`))
	mustNoErr(t, err)
	if s.Leader != 2 {
		t.Error("duplicate key", s.Leader)
	}
	for _, tc := range []struct{ json, err string }{
		{`{"controller_epoch":1,"version":1,"leader_epoch":0,"isr":[1]}`, `missing field "leader"`},
		{`{"controller_epoch":1,"leader":1,"isr":[1]}`, `missing field "leader_epoch"`},
		{`{"controller_epoch":1,"leader":1,"leader_epoch":0}`, `missing field "isr"`},
		{`{"leader":1,"leader_epoch":0,"isr":[1]}`, `missing field "controller_epoch"`},
		{`{"controller_epoch":1,"leader":"1","leader_epoch":0,"isr":[1]}`, `field "leader": expected an integer, got a string`},
		{`{"controller_epoch":1,"leader":1,"leader_epoch":0,"isr":[1],"leader_recovery_state":2}`, `unknown value 2`},
		{`{"controller_epoch":1,"leader":1,"leader_epoch":0,"isr":{}}`, `expected an array of integers`},
		{`{"controller_epoch":1,"leader":1,"leader_epoch":0,"isr":[1,]}`, `looking for a value`},
		{`{"controller_epoch":1,"leader":1} x`, `unexpected data after the JSON object`},
		{``, `no data`},
	} {
		_, err := DecodePartitionState([]byte(tc.json))
		wantDecodeErr(t, err, []byte(tc.json), tc.err)
	}
	// A bad state keeps leader -1 rather than a misleading 0.
	s, _ = DecodePartitionState([]byte(`{"leader":"x"}`))
	if s.Leader != NoLeader {
		t.Error("leader", s.Leader)
	}
}

func TestController(t *testing.T) {
	for _, tc := range []struct {
		json string
		want ControllerInfo
	}{
		{specCtrlV1, ControllerInfo{Version: 1, BrokerID: 2, Timestamp: "1614570663255", KRaftControllerEpoch: -1}},
		{specCtrlV2, ControllerInfo{Version: 2, BrokerID: 2, Timestamp: "1614570663255", KRaftControllerEpoch: -1}},
	} {
		c, err := DecodeController([]byte(tc.json))
		mustNoErr(t, err)
		if !reflect.DeepEqual(c, tc.want) {
			t.Errorf("%+v", c)
		}
		if got := string(EncodeController(c)); got != tc.json {
			t.Errorf("re-encoded %s", got)
		}
	}
	if got := string(EncodeController(NewControllerInfo(2, 2, 1614570663255))); got != specCtrlV2 {
		t.Error(got)
	}
	c, err := DecodeController([]byte(`{"brokerid":7}`))
	mustNoErr(t, err)
	if c.BrokerID != 7 || c.KRaftControllerEpoch != -1 {
		t.Errorf("%+v", c)
	}
	c, err = DecodeController([]byte(`{"version":2,"brokerid":3000,"timestamp":"1","kraftControllerEpoch":5}`))
	mustNoErr(t, err)
	if c.KRaftControllerEpoch != 5 {
		t.Errorf("%+v", c)
	}
	_, err = DecodeController([]byte(`{"version":1}`))
	wantDecodeErr(t, err, []byte(`{"version":1}`), `missing field "brokerid"`)
}

func TestControllerEpoch(t *testing.T) {
	for in, want := range map[string]int{"0": 0, "5": 5, "2147483647": 2147483647, "+3": 3, " 7\n": 7, "-1": -1} {
		got, err := DecodeControllerEpoch([]byte(in))
		if err != nil || got != want {
			t.Errorf("%q: %d %v", in, got, err)
		}
	}
	for _, in := range []string{"", "x", "1.0", "2147483648", `"1"`} {
		_, err := DecodeControllerEpoch([]byte(in))
		wantDecodeErr(t, err, []byte(in), "not an integer")
	}
	if string(EncodeControllerEpoch(12)) != "12" {
		t.Error(string(EncodeControllerEpoch(12)))
	}
}

func TestClusterID(t *testing.T) {
	const js = `{"version":"1","id":"AbCdEfGhIjKlMnOpQrStUv"}`
	c, err := DecodeClusterID([]byte(js))
	mustNoErr(t, err)
	if c.ID != "AbCdEfGhIjKlMnOpQrStUv" || c.Version != "1" {
		t.Errorf("%+v", c)
	}
	if got := string(EncodeClusterID(c.ID)); got != js {
		t.Error(got)
	}
	c, err = DecodeClusterID([]byte(`{"version":1,"id":"x"}`))
	mustNoErr(t, err)
	if c.Version != "1" {
		t.Error(c.Version)
	}
	_, err = DecodeClusterID([]byte(`{"version":"1"}`))
	wantDecodeErr(t, err, []byte(`{"version":"1"}`), `missing field "id"`)
	_, err = DecodeClusterID([]byte(`{"id":1}`))
	wantDecodeErr(t, err, []byte(`{"id":1}`), `expected a string`)
}

func TestEntityConfig(t *testing.T) {
	c, err := DecodeEntityConfig([]byte(specConfig))
	mustNoErr(t, err)
	want := []ConfigEntry{{"retention.ms", "86400000"}, {"cleanup.policy", "compact"}}
	if !reflect.DeepEqual(c.Config, want) || c.Version != 1 {
		t.Fatalf("%+v", c)
	}
	if got := string(EncodeEntityConfigEntries(c.Config)); got != specConfig {
		t.Error(got)
	}
	if got := string(EncodeEntityConfig(c.Map())); got != `{"version":1,"config":{"cleanup.policy":"compact","retention.ms":"86400000"}}` {
		t.Error(got)
	}
	if got := string(EncodeEntityConfig(nil)); got != `{"version":1,"config":{}}` {
		t.Error(got)
	}
	if v, ok := c.Get("cleanup.policy"); !ok || v != "compact" {
		t.Error(v, ok)
	}
	for _, in := range []string{``, `{"version":1}`, `{"version":1,"config":null}`, `{"version":1,"config":{}}`} {
		c, err := DecodeEntityConfig([]byte(in))
		if err != nil || len(c.Config) != 0 {
			t.Errorf("%q: %+v %v", in, c, err)
		}
	}
	c, err = DecodeEntityConfig([]byte(`{"config":{"a":"1","b":"2","a":"3"}}`))
	mustNoErr(t, err)
	if !reflect.DeepEqual(c.Config, []ConfigEntry{{"a", "3"}, {"b", "2"}}) {
		t.Errorf("duplicates: %+v", c.Config)
	}
	_, err = DecodeEntityConfig([]byte(`{"version":1,"config":{"retention.ms":86400000}}`))
	wantDecodeErr(t, err, []byte(`{"version":1,"config":{"retention.ms":86400000}}`), `field "retention.ms": expected a string, got a number`)
	// Escaping is Jackson's: '/' and non-ASCII raw, controls escaped.
	got := string(EncodeEntityConfig(map[string]string{"k": "a/b \"q\" \\ é \n\t\x01"}))
	if want := `{"version":1,"config":{"k":"a/b \"q\" \\ é \n\t\u0001"}}`; got != want {
		t.Errorf("escaping:\n%s\n%s", got, want)
	}
	back, err := DecodeEntityConfig([]byte(got))
	mustNoErr(t, err)
	if v, _ := back.Get("k"); v != "a/b \"q\" \\ é \n\t\x01" {
		t.Errorf("%q", v)
	}
}

func TestAdminAndNotifications(t *testing.T) {
	r, err := DecodeReassignPartitions([]byte(specReassign))
	mustNoErr(t, err)
	if !reflect.DeepEqual(r, ReassignPartitions{Version: 1, Partitions: []PartitionReassignment{{"foo", 1, []int{1, 2, 3}}}}) {
		t.Errorf("%+v", r)
	}
	if got := string(EncodeReassignPartitions(r.Partitions)); got != specReassign {
		t.Error(got)
	}
	r, err = DecodeReassignPartitions([]byte(`{"version":1,"partitions":[{"topic":"a","partition":0,"replicas":[1],"log_dirs":["any"]}]}`))
	mustNoErr(t, err)
	if len(r.Partitions) != 1 {
		t.Error(r)
	}
	_, err = DecodeReassignPartitions([]byte(`{"version":1,"partitions":[{"topic":"a","partition":0}]}`))
	wantDecodeErr(t, err, []byte(`{"version":1,"partitions":[{"topic":"a","partition":0}]}`), `missing field "replicas"`)

	for _, dec := range []func([]byte) (PartitionsNotification, error){DecodePreferredReplicaElection, DecodeIsrChangeNotification} {
		n, err := dec([]byte(specElection))
		mustNoErr(t, err)
		if !reflect.DeepEqual(n, PartitionsNotification{Version: 1, Partitions: []TopicPartition{{"foo", 0}}}) {
			t.Errorf("%+v", n)
		}
		if got := string(EncodePartitionsNotification(n.Partitions)); got != specElection {
			t.Error(got)
		}
		_, err = dec([]byte(`{"version":1}`))
		wantDecodeErr(t, err, []byte(`{"version":1}`), `missing field "partitions"`)
		_, err = dec([]byte(`{"partitions":[{"topic":"a"}]}`))
		wantDecodeErr(t, err, []byte(`{"partitions":[{"topic":"a"}]}`), `missing field "partition"`)
		_, err = dec([]byte(`{"partitions":[1]}`))
		wantDecodeErr(t, err, []byte(`{"partitions":[1]}`), `array of objects`)
	}

	e, err := DecodeLogDirEvent([]byte(specLogDir))
	mustNoErr(t, err)
	if e != (LogDirEvent{1, 3, 1}) || string(EncodeLogDirEvent(3)) != specLogDir {
		t.Errorf("%+v %s", e, EncodeLogDirEvent(3))
	}
	_, err = DecodeLogDirEvent([]byte(`{"version":1}`))
	wantDecodeErr(t, err, []byte(`{"version":1}`), `missing field "broker"`)

	for _, tc := range []struct{ json, path string }{{specChangeV2, "topics/orders"}, {specChangeV1, "topics/orders"}} {
		n, err := DecodeConfigChangeNotification([]byte(tc.json))
		mustNoErr(t, err)
		if n.Path() != tc.path {
			t.Errorf("%+v", n)
		}
	}
	if got := string(EncodeConfigChangeNotification("topics/orders")); got != specChangeV2 {
		t.Error(got)
	}
	_, err = DecodeConfigChangeNotification([]byte(`{"version":3}`))
	wantDecodeErr(t, err, []byte(`{"version":3}`), "Unsupported version 3")
	_, err = DecodeConfigChangeNotification([]byte(`{"version":1,"entity_type":"topics"}`))
	wantDecodeErr(t, err, []byte(`{"version":1,"entity_type":"topics"}`), `missing field "entity_name"`)
}

func TestProducerIDBlock(t *testing.T) {
	b, err := DecodeProducerIDBlock([]byte(specProdID))
	mustNoErr(t, err)
	if b != (ProducerIDBlock{1, 0, 0, 999}) || string(EncodeProducerIDBlock(b)) != specProdID {
		t.Errorf("%+v %s", b, EncodeProducerIDBlock(b))
	}
	b, err = DecodeProducerIDBlock(nil)
	if err != nil || b != (ProducerIDBlock{}) {
		t.Error(b, err)
	}
	b, err = DecodeProducerIDBlock([]byte(`{"version":1,"broker":2,"block_start":1000,"block_end":"9223372036854775807"}`))
	mustNoErr(t, err)
	if b.BlockStart != 1000 || b.BlockEnd != 9223372036854775807 {
		t.Errorf("%+v", b)
	}
	_, err = DecodeProducerIDBlock([]byte(`{"version":1,"broker":2,"block_start":"x","block_end":"1"}`))
	wantDecodeErr(t, err, []byte(`{"version":1,"broker":2,"block_start":"x","block_end":"1"}`), `not a long: "x"`)
}

func TestFeatureAndMigration(t *testing.T) {
	for _, js := range []string{specFeature1, specFeature2, `{"version":1,"status":0,"features":{}}`} {
		f, err := DecodeFeature([]byte(js))
		mustNoErr(t, err)
		if got := string(EncodeFeature(f)); got != js {
			t.Errorf("%s -> %s", js, got)
		}
	}
	for _, tc := range []struct{ json, err string }{
		{`{"status":1}`, `missing field "version"`},
		{`{"version":3,"status":1}`, "Unsupported version: 3 of feature information"},
		{`{"version":1}`, `missing field "status"`},
		{`{"version":1,"status":2}`, "unknown status 2"},
		{`{"version":1,"status":1,"features":{"f":{"max_version_level":2}}}`, "lacks its version levels"},
	} {
		_, err := DecodeFeature([]byte(tc.json))
		wantDecodeErr(t, err, []byte(tc.json), tc.err)
	}
	m, err := DecodeMigration([]byte(specMigrate))
	mustNoErr(t, err)
	if m != (MigrationState{0, 3000, 2, 123456, 5}) || string(EncodeMigration(m)) != specMigrate {
		t.Errorf("%+v", m)
	}
	_, err = DecodeMigration([]byte(`{"version":0}`))
	wantDecodeErr(t, err, []byte(`{"version":0}`), `missing field "kraft_controller_id"`)
}

func TestDecodeZNode(t *testing.T) {
	for _, tc := range []struct {
		path string
		data string
		want any
	}{
		{"/brokers/ids/1", specBrokerV5, BrokerRegistration{}},
		{"/brokers/topics/t", specTopicV3, TopicAssignment{}},
		{"/brokers/topics/t/partitions/0/state", specState1, PartitionState{}},
		{"/controller", specCtrlV2, ControllerInfo{}},
		{"/controller_epoch", "3", 0},
		{"/cluster/id", `{"version":"1","id":"x"}`, ClusterIDInfo{}},
		{"/config/topics/t", specConfig, EntityConfig{}},
		{"/config/brokers/<default>", specConfig, EntityConfig{}},
		{"/config/changes/config_change_0000000001", specChangeV2, ConfigChangeNotification{}},
		{"/admin/reassign_partitions", specReassign, ReassignPartitions{}},
		{"/admin/preferred_replica_election", specElection, PartitionsNotification{}},
		{"/isr_change_notification/isr_change_0000000001", specElection, PartitionsNotification{}},
		{"/log_dir_event_notification/log_dir_event_0000000001", specLogDir, LogDirEvent{}},
		{"/latest_producer_id_block", specProdID, ProducerIDBlock{}},
		{"/feature", specFeature1, FeatureZNode{}},
		{"/migration", specMigrate, MigrationState{}},
		{"/consumers/g/offsets/t/0", "42", int64(0)},
		{"/admin/delete_topics/t", "", nil},
		{"/brokers/topics/t/partitions", "", nil},
	} {
		v, err := DecodeZNode(tc.path, []byte(tc.data))
		if err != nil {
			t.Errorf("%s: %v", tc.path, err)
		}
		if reflect.TypeOf(v) != reflect.TypeOf(tc.want) {
			t.Errorf("%s: %T, want %T", tc.path, v, tc.want)
		}
	}
	if _, err := DecodeZNode("/consumers/g/offsets/t/0", []byte("x")); err == nil {
		t.Error("bad offset accepted")
	}
	if _, err := DecodeZNode("/brokers/ids/1", []byte("{")); err == nil {
		t.Error("bad broker accepted")
	}
}

func TestUUID(t *testing.T) {
	u, err := ParseUUID("8t3wd6ZqQy-4XwKmL0lJmA")
	mustNoErr(t, err)
	if u.String() != "8t3wd6ZqQy-4XwKmL0lJmA" {
		t.Error(u)
	}
	if ZeroUUID.String() != "AAAAAAAAAAAAAAAAAAAAAA" || !ZeroUUID.IsZero() {
		t.Error(ZeroUUID.String())
	}
	if MetadataTopicID.String() != "AAAAAAAAAAAAAAAAAAAAAQ" {
		t.Error(MetadataTopicID.String())
	}
	for _, bad := range []string{"", "short", "8t3wd6ZqQy-4XwKmL0lJmA=", "8t3wd6ZqQy+4XwKmL0lJmA", "8t3wd6ZqQy-4XwKmL0lJmB"} {
		if _, err := ParseUUID(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	for range 2000 {
		id := NewTopicID()
		s := id.String()
		if len(s) != 22 || strings.HasPrefix(s, "-") || id.IsZero() || id == MetadataTopicID {
			t.Fatal(s)
		}
		if id[6]>>4 != 4 || id[8]>>6 != 2 {
			t.Fatalf("not a version-4 UUID: %x", id[:])
		}
		if back, err := ParseUUID(s); err != nil || back != id {
			t.Fatal(s, err)
		}
	}
	// Ids whose text starts with '-' (first byte 0xF8–0xFB) are redrawn.
	src := bytes.NewReader(append(bytes.Repeat([]byte{0xF8}, 16), bytes.Repeat([]byte{0x11}, 16)...))
	id, err := NewTopicIDFrom(src)
	mustNoErr(t, err)
	if strings.HasPrefix(id.String(), "-") || id[0] != 0x11 {
		t.Error(id)
	}
	if _, err := NewTopicIDFrom(bytes.NewReader(nil)); err == nil {
		t.Error("no error on empty source")
	}
	if c := NewClusterID(); len(c) != 22 {
		t.Error(c)
	}
}

// The scanner agrees with encoding/json on what is valid JSON.
func TestScannerAgreesWithEncodingJSON(t *testing.T) {
	for _, in := range []string{
		`{}`, `[]`, `0`, `-0`, `-0.5e+10`, `1E2`, `"\u00e9\n"`, `"\ud800"`, `true`, ` null `,
		`{"a":[1,{"b":null}],"c":"\\"}`, `01`, `1.`, `.5`, `-`, `1e`, `"abc`, `"\x"`, `"\u12"`, `[1,]`,
		`{"a":1,}`, `{"a" 1}`, `{1:2}`, `tru`, `nul`, `[1 2]`, "\"\x01\"", `{} {}`, ``, ` `, `"é"`, "\"\xff\"",
		strings.Repeat("[", 600) + strings.Repeat("]", 600),
	} {
		ours := validJSON([]byte(in)) == nil
		std := json.Valid([]byte(in))
		if strings.HasPrefix(in, "[[[[") {
			std = false // ours has a depth limit of 512
		}
		if ours != std {
			t.Errorf("%q: ours %v, encoding/json %v", in, ours, std)
		}
	}
}

func TestJSONStringEscaping(t *testing.T) {
	for in, want := range map[string]string{
		"plain":      `"plain"`,
		"a\"b\\c":    `"a\"b\\c"`,
		"\b\f\n\r\t": `"\b\f\n\r\t"`,
		"\x00\x1f":   `"\u0000\u001F"`,
		"</script>":  `"</script>"`,
		"\u2028é😀":   "\"\u2028é😀\"",
		"bad\xffut":  "\"bad\uFFFDut\"",
	} {
		if got := string(appendJSONString(nil, in)); got != want {
			t.Errorf("%q: %s, want %s", in, got, want)
		}
	}
}
