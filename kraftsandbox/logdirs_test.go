package kraftsandbox

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/ktopo/ktopo/kafkawatch"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// brokerBytes is what each broker's replicas hold, as the sandbox has
// them now.
func brokerBytes(c *Cluster) map[int]int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := map[int]int64{}
	for _, b := range c.brokers {
		out[int(b.id)] = c.heldBytes(b)
	}
	return out
}

// ktopo's own reader of sizes (kafkawatch.ReadSizes: Metadata, then
// DescribeLogDirs to every broker) reads the sandbox's sizes: each
// broker's bytes, its volume, every replica.
func TestLogDirsReadByKafkawatch(t *testing.T) {
	c := startTest(t, Config{Brokers: 3, Controllers: 1, DemoTopics: true})
	// A reassignment under way: broker 3 is being added to payments-0
	// and has copied a quarter of it.
	c.mu.Lock()
	pay := c.topics["payments"]
	p := pay.parts[0]
	var adding int32 = -1
	for _, b := range c.brokers {
		if !slices.Contains(p.replicas, b.id) {
			adding = b.id
		}
	}
	if adding < 0 {
		// Three brokers, three replicas: take one out first.
		adding = p.replicas[len(p.replicas)-1]
		p.replicas, p.isr = without(p.replicas, adding), without(p.isr, adding)
	}
	p.replicas = append(p.replicas, adding)
	p.adding = []int32{adding}
	p.copied = map[int32]float64{adding: p.size / 4}
	size := int64(p.size)
	c.mu.Unlock()

	before := brokerBytes(c)
	cl := client(t, c)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s := kafkawatch.ReadSizes(ctx, cl)
	after := brokerBytes(c)
	if !s.Known() {
		t.Fatalf("sizes unknown: %s", s.Why())
	}
	if ids := s.BrokerIDs(); !slices.Equal(ids, []int{1, 2, 3}) {
		t.Fatalf("brokers %v", ids)
	}
	for _, id := range s.BrokerIDs() {
		d, _ := s.Broker(id)
		// Sizes only grow: what was read lies between the two looks.
		if d.Bytes < before[id] || d.Bytes > after[id] || d.Bytes == 0 {
			t.Errorf("broker %d: %d bytes, sandbox had %d then %d", id, d.Bytes, before[id], after[id])
		}
		total, usable, ok := d.Disk()
		if !ok || total != 100<<30 || usable != total-d.Bytes {
			t.Errorf("broker %d: volume %d usable %d (holding %d)", id, total, usable, d.Bytes)
		}
		if len(d.Dirs) != 1 || d.Dirs[0].Path == "" {
			t.Errorf("broker %d dirs %+v", id, d.Dirs)
		}
	}
	r, ok := s.Replica("payments", 0, int(adding))
	if !ok || r.Bytes != size/4 || r.OffsetLag <= 0 || r.Future {
		t.Errorf("adding replica on %d: %+v (size %d)", adding, r, size)
	}
	leader, ok := s.Replica("payments", 0, int(p.leader))
	if !ok || leader.Bytes < size || leader.OffsetLag != 0 {
		t.Errorf("leader's replica %+v (size %d)", leader, size)
	}
	// The poller a KRaft session runs reads the same.
	sp := kafkawatch.NewSizePoller(cl, kafkawatch.SizeOptions{Interval: c.cfg.Tick})
	defer sp.Close()
	ps, err := sp.Next(ctx)
	if err != nil || !ps.Known() {
		t.Fatalf("size poller: %v %s", err, ps.Why())
	}
	if d, _ := ps.Broker(int(adding)); d.Bytes < before[int(adding)] {
		t.Errorf("size poller: broker %d holds %d, sandbox had %d", adding, d.Bytes, before[int(adding)])
	}
	if got := len(s.Topics()); got != len(DemoTopics()) {
		t.Errorf("%d topics, want %d", got, len(c.topics))
	}
}

func TestDescribeLogDirsFilterAndCordon(t *testing.T) {
	c := startTest(t, Config{Brokers: 3, Controllers: 1, DemoTopics: true})
	c.mu.Lock()
	c.broker(2).dirs[0].cordoned = true
	var held []int32
	for i, p := range c.topics["orders"].parts {
		if slices.Contains(p.replicas, 2) {
			held = append(held, int32(i))
		}
	}
	c.mu.Unlock()
	req := kmsg.NewPtrDescribeLogDirsRequest()
	rt := kmsg.NewDescribeLogDirsRequestTopic()
	rt.Topic, rt.Partitions = "orders", []int32{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 99}
	nt := kmsg.NewDescribeLogDirsRequestTopic()
	nt.Topic, nt.Partitions = "nosuch", []int32{0}
	req.Topics = []kmsg.DescribeLogDirsRequestTopic{rt, nt}
	resp := nodeRequest[*kmsg.DescribeLogDirsResponse](t, c.addrOf(2), req)
	if len(resp.Dirs) != 1 || !resp.Dirs[0].IsCordoned || resp.Dirs[0].TotalBytes != 100<<30 {
		t.Fatalf("dirs %+v", resp.Dirs)
	}
	var got []int32
	for _, tp := range resp.Dirs[0].Topics {
		if tp.Topic != "orders" {
			t.Errorf("topic %s", tp.Topic)
		}
		for _, p := range tp.Partitions {
			got = append(got, p.Partition)
		}
	}
	if !slices.Equal(got, held) {
		t.Errorf("partitions %v, broker 2 holds %v", got, held)
	}
	// An empty list of topics: the directories without replicas.
	req.Topics = []kmsg.DescribeLogDirsRequestTopic{}
	resp = nodeRequest[*kmsg.DescribeLogDirsResponse](t, c.addrOf(2), req)
	if len(resp.Dirs) != 1 || len(resp.Dirs[0].Topics) != 0 {
		t.Errorf("no topics asked: %+v", resp.Dirs)
	}
}
