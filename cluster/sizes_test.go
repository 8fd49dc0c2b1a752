package cluster

import (
	"fmt"
	"math"
	"testing"
	"time"
)

// TestSizesBuilder: replicas recorded one by one and a broker's whole are
// found by topic, partition and broker, sorted, summed per broker and
// directory, whatever the order and gaps of their partitions.
func TestSizesBuilder(t *testing.T) {
	b := NewSizesBuilder(time.Unix(100, 0))
	b.Broker(1, []LogDir{{Path: "/a"}, {Path: "/b"}})
	b.Broker(2, []LogDir{{Path: "/c"}})
	b.Unreached(3, "no answer in time")
	var r BrokerReplicas
	r.Replica(0, 0, false, 1, 0) // before any topic: ignored
	r.Topic([]byte("t"))
	r.Replica(5, 1, true, 40, 0)
	r.Replica(5, 0, false, 50, 3)
	r.Replica(-1, 0, false, 1, 0) // no partition: ignored
	r.Replica(math.MaxInt32, 0, false, 7, 0)
	r.Topic([]byte("u"))
	r.Replica(0, 0, false, 9, 0)
	b.Replicas(1, &r)
	b.Replica("t", 5, ReplicaSize{Broker: 2, Bytes: 60})
	b.Replica("t", 0, ReplicaSize{Broker: 2, Bytes: 2})
	b.Replica("t", -3, ReplicaSize{Broker: 2, Bytes: 2})
	s := b.Done(nil)

	p, ok := s.Partition("t", 5)
	if !ok || fmt.Sprint(p.Replicas) != "[{1 0 false 50 3} {1 1 true 40 0} {2 0 false 60 0}]" {
		t.Errorf("t-5: %v %v", p.Replicas, ok)
	}
	if n, ok := s.PartitionBytes("t", 5); !ok || n != 60 {
		t.Errorf("t-5 is %d bytes (%v)", n, ok)
	}
	if r, ok := s.Replica("t", math.MaxInt32, 1); !ok || r.Bytes != 7 {
		t.Errorf("t-%d: %+v %v", math.MaxInt32, r, ok)
	}
	for _, part := range []int{-1, 1, 4, 6, math.MaxInt32 + 1} {
		if _, ok := s.Partition("t", part); ok {
			t.Errorf("t-%d was not reported but is known", part)
		}
	}
	if _, ok := s.Partition("v", 0); ok {
		t.Error("topic v was not reported but is known")
	}
	if disk, data, ok := s.TopicBytes("t"); !ok || disk != 50+40+60+7+2 || data != 60+7+2 {
		t.Errorf("t: %d on disk, %d of data (%v)", disk, data, ok)
	}
	if got := fmt.Sprint(s.Topics()); got != "[t u]" {
		t.Errorf("topics %s", got)
	}
	b1, _ := s.Broker(1)
	if b1.Bytes != 50+40+7+9 || b1.Replicas != 4 || b1.Dirs[0].Bytes != 66 || b1.Dirs[1].Replicas != 1 {
		t.Errorf("broker 1: %+v", b1)
	}
	if b2, _ := s.Broker(2); b2.Bytes != 62 || b2.Replicas != 2 {
		t.Errorf("broker 2: %+v", b2)
	}
	if _, ok := s.TopicRate("t"); ok {
		t.Error("a first reading has a rate")
	}

	// The next reading: rates of the partitions in both, the one measured
	// before kept where retention shrank a log.
	b = NewSizesBuilder(time.Unix(110, 0))
	b.Broker(1, []LogDir{{Path: "/a"}})
	b.Replica("t", 5, ReplicaSize{Broker: 1, Bytes: 160})
	b.Replica("t", 0, ReplicaSize{Broker: 1, Bytes: 1})
	b.Replica("t", 9, ReplicaSize{Broker: 1, Bytes: 1})
	b.Replica("u", 0, ReplicaSize{Broker: 1, Bytes: 109})
	s2 := b.Done(s)
	if p, _ := s2.Partition("t", 5); !p.RateKnown || p.Rate != 10 {
		t.Errorf("t-5 grew 100 bytes in 10 s: %+v", p)
	}
	if p, _ := s2.Partition("t", 0); p.RateKnown {
		t.Errorf("t-0 shrank with no rate before: %+v", p)
	}
	if p, _ := s2.Partition("t", 9); p.RateKnown {
		t.Errorf("t-9 is new: %+v", p)
	}
	if r, ok := s2.TopicRate("u"); !ok || r != 10 {
		t.Errorf("u: %v %v", r, ok)
	}
	b = NewSizesBuilder(time.Unix(120, 0))
	b.Broker(1, []LogDir{{Path: "/a"}})
	b.Replica("t", 5, ReplicaSize{Broker: 1, Bytes: 20})
	if p, _ := b.Done(s2).Partition("t", 5); !p.RateKnown || p.Rate != 10 {
		t.Errorf("t-5 shrank by retention: %+v, want the rate before", p)
	}
}

// TestSizesBigTopic: a topic of more replicas than an insertion sort is
// for is sorted as a small one, by partition then broker.
func TestSizesBigTopic(t *testing.T) {
	b := NewSizesBuilder(time.Unix(0, 0))
	for id := 3; id >= 1; id-- {
		b.Broker(id, []LogDir{{Path: "/d"}})
		var r BrokerReplicas
		r.Topic([]byte("big"))
		for p := int32(99); p >= 0; p-- {
			r.Replica(p, 0, false, int64(p)*10+int64(id), 0)
		}
		b.Replicas(id, &r)
	}
	s := b.Done(nil)
	for p := range 100 {
		ps, ok := s.Partition("big", p)
		if !ok || len(ps.Replicas) != 3 {
			t.Fatalf("big-%d: %+v", p, ps)
		}
		for i, r := range ps.Replicas {
			if int(r.Broker) != i+1 || r.Bytes != int64(p)*10+int64(i+1) {
				t.Fatalf("big-%d: %+v", p, ps.Replicas)
			}
		}
	}
}

// TestSizesFootprint: what a reading holds for the memory limit grows with
// the replicas recorded (a broker's records, then the sizes to build).
func TestSizesFootprint(t *testing.T) {
	var r BrokerReplicas
	if r.Footprint() != 0 {
		t.Fatalf("no replica: %d bytes", r.Footprint())
	}
	r.Topic([]byte("orders"))
	for p := range int32(20_000) {
		r.Replica(p, 0, false, 1<<20, 0)
	}
	if n := r.Footprint(); n < 20_000*32 || n > 3*20_000*32 {
		t.Errorf("20,000 replicas: %d bytes", n)
	}
	b := NewSizesBuilder(time.Unix(0, 0))
	b.Broker(1, []LogDir{{Path: "/data"}})
	b.Replicas(1, &r)
	if n := b.BuildFootprint(); n < 20_000*24 {
		t.Errorf("sizes of 20,000 replicas: %d bytes", n)
	}
}
