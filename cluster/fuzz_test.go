package cluster

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strconv"
	"testing"
)

// Fuzz targets for every decoder. Seeds live in testdata/fuzz/<Name>/ (the
// spec's examples plus edge cases). Each target checks that decoding never
// panics, that errors are *DecodeError carrying the input, and that a
// successful decode re-encodes to a fixed point: Encode(Decode(Encode(d)))
// == Encode(d).
//
//	go test ./cluster -run '^$' -fuzz '^FuzzDecodeBroker$' -fuzztime 1m

// checkErr asserts the decode-error contract.
func checkErr(t *testing.T, err error, data []byte) {
	t.Helper()
	if err == nil {
		return
	}
	var de *DecodeError
	if !errors.As(err, &de) {
		t.Fatalf("error %v is %T, not *DecodeError", err, err)
	}
	if !bytes.Equal(de.Raw, data) {
		t.Fatalf("Raw %q != input %q", de.Raw, data)
	}
	if de.Error() == "" {
		t.Fatal("empty error")
	}
}

// fixedPoint checks Encode∘Decode is stable from the first encoding on.
func fixedPoint[T any](t *testing.T, d T, enc func(T) []byte, dec func([]byte) (T, error)) {
	t.Helper()
	e1 := enc(d)
	if !json.Valid(e1) && e1[0] == '{' {
		t.Fatalf("encoder wrote invalid JSON: %s", e1)
	}
	d2, err := dec(e1)
	if err != nil {
		t.Fatalf("re-decoding %s: %v", e1, err)
	}
	if e2 := enc(d2); !bytes.Equal(e1, e2) {
		t.Fatalf("not a fixed point:\n%s\n%s", e1, e2)
	}
}

func FuzzDecodeBroker(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		b, err := DecodeBroker(data)
		checkErr(t, err, data)
		if err == nil {
			fixedPoint(t, b, EncodeBroker, DecodeBroker)
		}
	})
}

func FuzzDecodeTopicAssignment(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		a, err := DecodeTopicAssignment(data)
		checkErr(t, err, data)
		if a.Partitions == nil || a.AddingReplicas == nil || a.RemovingReplicas == nil {
			t.Fatal("nil maps")
		}
		if err == nil {
			fixedPoint(t, a, EncodeTopicAssignment, DecodeTopicAssignment)
			if paths := DerivePaths(TopicPath("t"), data); len(paths) != len(a.Partitions) {
				t.Fatalf("DerivePaths: %d paths for %d partitions", len(paths), len(a.Partitions))
			}
		}
	})
}

func FuzzDecodePartitionState(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := DecodePartitionState(data)
		checkErr(t, err, data)
		if err != nil {
			return
		}
		again, err := DecodePartitionState(EncodePartitionState(s))
		if err != nil {
			t.Fatal(err)
		}
		s.Version, s.Extra = 1, nil
		if s.ISR == nil {
			s.ISR = []int{}
		}
		if again.ISR == nil {
			again.ISR = []int{}
		}
		if !reflect.DeepEqual(s, again) {
			t.Fatalf("%+v != %+v", s, again)
		}
	})
}

func FuzzDecodeController(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := DecodeController(data)
		checkErr(t, err, data)
		if err == nil {
			fixedPoint(t, c, EncodeController, DecodeController)
		}
	})
}

func FuzzDecodeControllerEpoch(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		e, err := DecodeControllerEpoch(data)
		checkErr(t, err, data)
		if err == nil {
			if e2, err := DecodeControllerEpoch(EncodeControllerEpoch(e)); err != nil || e2 != e {
				t.Fatal(e, e2, err)
			}
		}
	})
}

func FuzzDecodeClusterID(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := DecodeClusterID(data)
		checkErr(t, err, data)
		if err == nil {
			c2, err := DecodeClusterID(EncodeClusterID(c.ID))
			if err != nil || c2.ID != c.ID || c2.Version != "1" {
				t.Fatal(c, c2, err)
			}
		}
	})
}

func FuzzDecodeEntityConfig(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := DecodeEntityConfig(data)
		checkErr(t, err, data)
		if err == nil {
			c2, err := DecodeEntityConfig(EncodeEntityConfigEntries(c.Config))
			if err != nil || !reflect.DeepEqual(c2.Config, c.Config) {
				t.Fatalf("%+v\n%+v\n%v", c.Config, c2.Config, err)
			}
			// Whatever the user put in a config, validation never panics.
			_ = ValidateTopicConfig(c.Map())
		}
	})
}

func FuzzDecodeConfigChangeNotification(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		n, err := DecodeConfigChangeNotification(data)
		checkErr(t, err, data)
		if err == nil {
			n2, err := DecodeConfigChangeNotification(EncodeConfigChangeNotification(n.Path()))
			if err != nil || n2.Path() != n.Path() {
				t.Fatal(n, n2, err)
			}
		}
	})
}

func FuzzDecodeReassignPartitions(f *testing.F) {
	enc := func(r ReassignPartitions) []byte { return EncodeReassignPartitions(r.Partitions) }
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := DecodeReassignPartitions(data)
		checkErr(t, err, data)
		if err == nil {
			fixedPoint(t, r, enc, DecodeReassignPartitions)
		}
	})
}

func FuzzDecodePartitionsNotification(f *testing.F) {
	enc := func(n PartitionsNotification) []byte { return EncodePartitionsNotification(n.Partitions) }
	f.Fuzz(func(t *testing.T, data []byte) {
		n, err := DecodePreferredReplicaElection(data)
		checkErr(t, err, data)
		n2, err2 := DecodeIsrChangeNotification(data)
		checkErr(t, err2, data)
		if (err == nil) != (err2 == nil) || !reflect.DeepEqual(n, n2) {
			t.Fatal("the two decoders disagree")
		}
		if err == nil {
			fixedPoint(t, n, enc, DecodePreferredReplicaElection)
		}
	})
}

func FuzzDecodeLogDirEvent(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		e, err := DecodeLogDirEvent(data)
		checkErr(t, err, data)
		if err == nil {
			e2, err := DecodeLogDirEvent(EncodeLogDirEvent(e.Broker))
			if err != nil || e2.Broker != e.Broker {
				t.Fatal(e, e2, err)
			}
		}
	})
}

func FuzzDecodeProducerIDBlock(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		b, err := DecodeProducerIDBlock(data)
		checkErr(t, err, data)
		if err == nil && len(data) > 0 {
			b.Version = 1
			b2, err := DecodeProducerIDBlock(EncodeProducerIDBlock(b))
			if err != nil || b2 != b {
				t.Fatal(b, b2, err)
			}
		}
	})
}

func FuzzDecodeFeature(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		z, err := DecodeFeature(data)
		checkErr(t, err, data)
		if err == nil {
			fixedPoint(t, z, EncodeFeature, DecodeFeature)
		}
	})
}

func FuzzDecodeMigration(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := DecodeMigration(data)
		checkErr(t, err, data)
		if err == nil {
			fixedPoint(t, s, EncodeMigration, DecodeMigration)
		}
	})
}

// FuzzJSONScanner checks the scanner against encoding/json.Valid.
func FuzzJSONScanner(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		ours := validJSON(data)
		if std := json.Valid(data); (ours == nil) != std {
			var se *syntaxError
			if errors.As(ours, &se) && se.msg == "JSON nested too deeply" {
				return
			}
			t.Fatalf("%q: ours %v, encoding/json %v", data, ours, std)
		}
	})
}

// FuzzParsePath: never panics; what it recognises rebuilds to the same path.
func FuzzParsePath(f *testing.F) {
	f.Fuzz(func(t *testing.T, p string) {
		info := ParsePath(p)
		var rebuilt string
		switch info.Kind {
		case KindBroker:
			rebuilt = BrokerIDPath(info.BrokerID)
		case KindTopic:
			rebuilt = TopicPath(info.Topic)
		case KindTopicPartitions:
			rebuilt = TopicPartitionsPath(info.Topic)
		case KindPartition:
			rebuilt = PartitionPath(info.Topic, info.Partition)
		case KindPartitionState:
			rebuilt = PartitionStatePath(info.Topic, info.Partition)
		case KindTopicConfig:
			rebuilt = TopicConfigPath(info.Topic)
		case KindDeleteTopic:
			rebuilt = DeleteTopicPath(info.Topic)
		default:
			return
		}
		if rebuilt != p {
			t.Fatalf("%q parsed as %+v rebuilds to %q", p, info, rebuilt)
		}
		_, _ = DecodeZNode(p, []byte(p))
	})
}

// FuzzModel drives the model with events derived from the input and checks
// that its incremental bookkeeping matches a recount of the snapshot.
func FuzzModel(f *testing.F) {
	paths := []string{BrokerIDPath(1), BrokerIDPath(2), TopicPath("a"), TopicPath("b"), PartitionStatePath("a", 0),
		PartitionStatePath("a", 1), PartitionStatePath("b", 0), TopicConfigPath("a"), DeleteTopicPath("a"),
		ControllerPath, ControllerEpochPath}
	datas := []string{brokerJSON(1, "r"), brokerJSON(2, ""), `{"partitions":{"0":[1,2],"1":[2,1]}}`, `{"partitions":{"0":[2]}}`,
		stateJSON(1, 1, 0, 1, 2), stateJSON(1, 2, 1, 2), stateJSON(1, -1, 2, 1), `{"config":{"min.insync.replicas":"2"}}`,
		`{"brokerid":1}`, "3", "", "{", `{"partitions":{"0":[3,3]},"adding_replicas":{"0":[3]}}`}
	f.Fuzz(func(t *testing.T, ops []byte, raw []byte) {
		m := NewModel(ModelOptions{})
		var batch []NodeEvent
		zx := int64(0)
		for i, op := range ops {
			zx++
			ev := NodeEvent{Type: NodeEventType(op%3 + 1), Path: paths[int(op>>2)%len(paths)], Stat: Stat{Czxid: zx, Mzxid: zx, Version: int32(i)}}
			if d := int(op>>4) % (len(datas) + 1); d < len(datas) {
				ev.Data = []byte(datas[d])
			} else {
				ev.Data = raw
			}
			batch = append(batch, ev)
			if op&0x80 != 0 || i == len(ops)-1 {
				m.Apply(batch, op&0x40 != 0 && op&0x80 != 0)
				checkInvariants(t, m.Snapshot())
				batch = nil
			}
		}
	})
}

// checkInvariants recomputes everything the model maintains incrementally.
func checkInvariants(t *testing.T, s *Snapshot) {
	t.Helper()
	var total TopicHealth
	replicas, leaders := map[int]int{}, map[int]int{}
	preferred, preferredLed := map[int]int{}, map[int]int{}
	for _, tp := range s.Topics() {
		var h TopicHealth
		for i := range tp.Partitions {
			p := tp.Partitions[i]
			if i > 0 && tp.Partitions[i-1].ID >= p.ID {
				t.Fatalf("%s: partitions out of order", tp.Name)
			}
			if !p.InAssignment && !p.HasState {
				t.Fatalf("%s-%d: empty partition kept", tp.Name, p.ID)
			}
			h.add(partitionHealth(p, tp.MinISR), 1)
			for _, r := range p.Replicas {
				replicas[r]++
			}
			if p.HasLeader() {
				leaders[p.Leader]++
			}
			if pl := p.PreferredLeader(); pl >= 0 && p.InAssignment {
				preferred[pl]++
				if p.HasLeader() && p.Leader == pl {
					preferredLed[pl]++
				}
			}
		}
		if h != tp.Health {
			t.Fatalf("%s: health %+v, recount %+v", tp.Name, tp.Health, h)
		}
		total.add(h, 1)
		th := s.TopicHealth(tp)
		off := 0
		for i := range tp.Partitions {
			if s.PartitionOffline(tp.Partitions[i]) {
				off++
			}
		}
		if th.Offline != off {
			t.Fatalf("%s: offline %d, recount %d", tp.Name, th.Offline, off)
		}
	}
	h := s.Health()
	h.Offline = 0
	if h != total {
		t.Fatalf("cluster health %+v, recount %+v", h, total)
	}
	for _, b := range s.Brokers() {
		if b.Replicas != replicas[b.ID] || b.Leaders != leaders[b.ID] {
			t.Fatalf("broker %d: %d/%d, recount %d/%d", b.ID, b.Replicas, b.Leaders, replicas[b.ID], leaders[b.ID])
		}
		if b.Preferred != preferred[b.ID] || b.PreferredLed != preferredLed[b.ID] {
			t.Fatalf("broker %d: preferred %d/%d, recount %d/%d", b.ID, b.PreferredLed, b.Preferred, preferredLed[b.ID], preferred[b.ID])
		}
		delete(replicas, b.ID)
		delete(leaders, b.ID)
	}
	if len(replicas)+len(leaders) > 0 {
		t.Fatalf("brokers missing from the snapshot: %v %v", replicas, leaders)
	}
	_ = strconv.Itoa
}
