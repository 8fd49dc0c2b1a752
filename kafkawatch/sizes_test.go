package kafkawatch

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/internal/memlimit"
)

// fakeDirs answers a reading as brokers would: Metadata lists ids, each
// broker answers DescribeLogDirs with its response or its error.
type fakeDirs struct {
	mu      sync.Mutex
	ids     []int32
	metaErr error
	dirs    map[int32]*kmsg.DescribeLogDirsResponse
	errs    map[int32]error
	asked   int
}

func (f *fakeDirs) any(_ context.Context, req kmsg.Request) (kmsg.Response, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.metaErr != nil {
		return nil, f.metaErr
	}
	if mr, ok := req.(*kmsg.MetadataRequest); !ok || mr.Topics == nil || len(mr.Topics) != 0 {
		return nil, fmt.Errorf("want Metadata of no topic, got %T", req)
	}
	r := kmsg.NewPtrMetadataResponse()
	for _, id := range f.ids {
		r.Brokers = append(r.Brokers, kmsg.MetadataResponseBroker{NodeID: id})
	}
	return r, nil
}

func (f *fakeDirs) broker(_ context.Context, id int32, req kmsg.Request) (kmsg.Response, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	r, ok := req.(logDirsRequest)
	if !ok || r.Topics != nil {
		return nil, fmt.Errorf("want DescribeLogDirs of every topic, got %T", req)
	}
	f.asked++
	if err := f.errs[id]; err != nil {
		return nil, err
	}
	// As a client reads the answer: encoded, then read by the request's
	// response.
	ans := f.dirs[id]
	r.Version = ans.Version
	resp := r.ResponseKind()
	if err := resp.ReadFrom(ans.AppendTo(nil)); err != nil {
		return nil, err
	}
	return resp, nil
}

// logDirs is a broker's answer at version v: one directory holding the
// replicas given as topic → partition → size.
func logDirs(v int16, path string, total, usable int64, replicas map[string]map[int32]int64) *kmsg.DescribeLogDirsResponse {
	r := kmsg.NewPtrDescribeLogDirsResponse()
	r.Version = v
	d := kmsg.NewDescribeLogDirsResponseDir()
	d.Dir, d.TotalBytes, d.UsableBytes = path, total, usable
	for t, ps := range replicas {
		dt := kmsg.NewDescribeLogDirsResponseDirTopic()
		dt.Topic = t
		for p, n := range ps {
			dp := kmsg.NewDescribeLogDirsResponseDirTopicPartition()
			dp.Partition, dp.Size = p, n
			dt.Partitions = append(dt.Partitions, dp)
		}
		d.Topics = append(d.Topics, dt)
	}
	r.Dirs = append(r.Dirs, d)
	return r
}

// roundTrip encodes r and decodes it at its version, as a client reads
// it: fields the version lacks come out at their defaults.
func roundTrip(r *kmsg.DescribeLogDirsResponse) *kmsg.DescribeLogDirsResponse {
	b := r.AppendTo(nil)
	out := kmsg.NewPtrDescribeLogDirsResponse()
	out.Version = r.Version
	if err := out.ReadFrom(b); err != nil {
		panic(err)
	}
	return out
}

func TestReadSizes(t *testing.T) {
	f := &fakeDirs{ids: []int32{3, 1, 2},
		dirs: map[int32]*kmsg.DescribeLogDirsResponse{
			1: roundTrip(logDirs(4, "/data/1", 1000, 600, map[string]map[int32]int64{"a": {0: 100, 1: 50}})),
			2: roundTrip(logDirs(2, "/data/2", 9, 9, map[string]map[int32]int64{"a": {0: 90}, "b": {0: 7}})),
		},
		errs: map[int32]error{3: context.DeadlineExceeded},
	}
	s := readSizes(context.Background(), f, nil, nil)
	if !s.Known() {
		t.Fatalf("sizes unknown: %s", s.Why())
	}
	if f.asked != 3 {
		t.Errorf("asked %d brokers, want 3", f.asked)
	}
	b1, _ := s.Broker(1)
	if total, usable, ok := b1.Disk(); !ok || total != 1000 || usable != 600 || b1.Bytes != 150 || b1.Replicas != 2 {
		t.Errorf("broker 1: disk %d/%d %v, %d bytes in %d replicas", total, usable, ok, b1.Bytes, b1.Replicas)
	}
	// Version 2 (before Kafka 3.3) has no volumes: unknown, not 9.
	b2, _ := s.Broker(2)
	if _, _, ok := b2.Disk(); ok || b2.Dirs[0].Total != -1 || b2.Dirs[0].Usable != -1 {
		t.Errorf("broker 2 answered at v2 but has volumes %+v", b2.Dirs)
	}
	if n, ok := s.PartitionBytes("a", 0); !ok || n != 100 {
		t.Errorf("a-0 is %d bytes (%v), want its largest replica's 100", n, ok)
	}
	if r, ok := s.Replica("a", 0, 2); !ok || r.Bytes != 90 {
		t.Errorf("a-0 on broker 2: %+v %v", r, ok)
	}
	if why := s.Unreached[3]; why != "no answer in time" {
		t.Errorf("broker 3 unreached: %q", why)
	}
	// What the reading held for the memory limit is let go with it.
	if n := memlimit.Held(); n != 0 {
		t.Errorf("%d bytes still held after the reading", n)
	}

	// A second reading gives the growth rates.
	f.dirs[1] = roundTrip(logDirs(4, "/data/1", 1000, 500, map[string]map[int32]int64{"a": {0: 300, 1: 50}}))
	s2 := readSizes(context.Background(), f, s, nil)
	if p, ok := s2.Partition("a", 0); !ok || !p.RateKnown || p.Rate <= 0 {
		t.Errorf("a-0 grew by 200 bytes but its rate is %+v", p)
	}
}

func TestReadSizesRefused(t *testing.T) {
	denied := &cluster.KafkaError{Code: kerr.ClusterAuthorizationFailed}
	for _, tc := range []struct {
		name string
		f    *fakeDirs
		want string
	}{
		{"no access", &fakeDirs{ids: []int32{1, 2}, errs: map[int32]error{1: denied, 2: denied}}, "sizes unknown: no access (DESCRIBE on the cluster)"},
		{"top-level error code", &fakeDirs{ids: []int32{1}, dirs: map[int32]*kmsg.DescribeLogDirsResponse{1: func() *kmsg.DescribeLogDirsResponse {
			r := kmsg.NewPtrDescribeLogDirsResponse()
			r.Version, r.ErrorCode = 3, kerr.ClusterAuthorizationFailed.Code
			return r
		}()}}, "sizes unknown: no access (DESCRIBE on the cluster)"},
		{"different failures", &fakeDirs{ids: []int32{1, 2}, errs: map[int32]error{1: denied, 2: errors.New("broken pipe")}},
			"sizes unknown: no broker answered (broker 1: no access (DESCRIBE on the cluster))"},
		{"no broker", &fakeDirs{}, "sizes unknown: the cluster lists no live broker"},
		{"refused", &fakeDirs{metaErr: &net.OpError{Op: "dial", Net: "tcp", Addr: &net.TCPAddr{IP: net.IPv4(10, 0, 0, 5), Port: 9092},
			Err: errors.New("connect: connection refused")}}, "sizes unknown: brokers not reachable at 10.0.0.5:9092: connect: connection refused"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := readSizes(context.Background(), tc.f, nil, nil)
			if s.Known() || s.Why() != tc.want {
				t.Errorf("got %q (known %v), want %q", s.Why(), s.Known(), tc.want)
			}
		})
	}
}

// TestSizePollerSeedsUnreachable: a ZooKeeper-mode poller whose brokers'
// registered address refuses the connection says so, in the reading; one
// whose seeds are not known yet says why and tries again.
func TestSizePollerSeedsUnreachable(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now
	calls := 0
	p := NewSizePollerSeeds(func() ([]string, error) {
		calls++
		if calls == 1 {
			return nil, errors.New("no broker is registered yet")
		}
		return []string{addr}, nil
	}, Dial{RequestTimeout: 2 * time.Second}, SizeOptions{Interval: 10 * time.Millisecond, Timeout: 2 * time.Second})
	defer p.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	s, err := p.Next(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if s.Why() != "sizes unknown: no broker is registered yet" {
		t.Errorf("first reading: %q", s.Why())
	}
	s, err = p.Next(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if want := "sizes unknown: brokers not reachable at " + addr + ": "; !strings.HasPrefix(s.Why(), want) || !strings.Contains(s.Why(), "refused") {
		t.Errorf("second reading: %q, want %q…connection refused", s.Why(), want)
	}
}

// TestSizePollerHurry: readings come at the calm interval, at once when
// hurried, and Next ends with the poller.
func TestSizePollerHurry(t *testing.T) {
	f := &fakeDirs{ids: []int32{1}, dirs: map[int32]*kmsg.DescribeLogDirsResponse{
		1: roundTrip(logDirs(4, "/d", 10, 5, map[string]map[int32]int64{"a": {0: 1}}))}}
	p := newSizePoller(SizeOptions{Interval: time.Hour, Hurried: time.Millisecond})
	p.fake = f
	go p.run()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if s, err := p.Next(ctx); err != nil || !s.Known() {
		t.Fatalf("first reading: %v %v", s.Why(), err)
	}
	// Calm: the next reading is an hour away; hurried, it comes at once,
	// and the ones after at the hurried interval.
	p.Hurry(true)
	for range 3 {
		if s, err := p.Next(ctx); err != nil || !s.Known() {
			t.Fatalf("hurried reading: %v %v", s.Why(), err)
		}
	}
	p.Close()
	if _, err := p.Next(ctx); err == nil {
		t.Error("Next after Close did not fail")
	}
}

// BenchmarkSizesBuild decodes and builds one reading of 30 brokers
// holding 300,000 replicas (10,000 topics × 10 partitions × RF 3), as
// their DescribeLogDirs responses arrive (the Kafka encoding, v4); a
// tenth under -short.
func BenchmarkSizesBuild(b *testing.B) {
	topics, brokers := 10000, int32(30)
	if testing.Short() {
		topics = 1000
	}
	raw := make([][]byte, brokers)
	resps := make([]*kmsg.DescribeLogDirsResponse, brokers)
	for id := range brokers {
		r := kmsg.NewPtrDescribeLogDirsResponse()
		r.Version = 4
		for d := range 2 {
			dir := kmsg.NewDescribeLogDirsResponseDir()
			dir.Dir, dir.TotalBytes, dir.UsableBytes = fmt.Sprintf("/data/%d", d), 1<<40, 1<<39
			r.Dirs = append(r.Dirs, dir)
		}
		resps[id] = r
	}
	replicas := 0
	for t := range topics {
		name := fmt.Sprintf("topic-%05d", t)
		for p := range int32(10) {
			for k := range int32(3) {
				id := (int32(t) + p + k) % brokers
				dir := &resps[id].Dirs[(t+int(p))%2]
				if n := len(dir.Topics); n == 0 || dir.Topics[n-1].Topic != name {
					dt := kmsg.NewDescribeLogDirsResponseDirTopic()
					dt.Topic = name
					dir.Topics = append(dir.Topics, dt)
				}
				dp := kmsg.NewDescribeLogDirsResponseDirTopicPartition()
				dp.Partition, dp.Size, dp.OffsetLag = p, int64(t)*1000+int64(p), 0
				dt := &dir.Topics[len(dir.Topics)-1]
				dt.Partitions = append(dt.Partitions, dp)
				replicas++
			}
		}
	}
	for id, r := range resps {
		raw[id] = r.AppendTo(nil)
	}
	var prev *cluster.Sizes
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		bld := cluster.NewSizesBuilder(time.Unix(int64(i), 0))
		for id, buf := range raw {
			r := readLogDirs(b, 4, buf)
			addBroker(bld, int32(id), r)
		}
		prev = bld.Done(prev)
	}
	b.StopTimer()
	if n, ok := prev.PartitionBytes("topic-00007", 3); !ok || n != 7003 {
		b.Fatalf("topic-00007-3 is %d bytes (%v)", n, ok)
	}
	b.ReportMetric(float64(replicas), "replicas")
}

// logDirsAnswer is a broker's DescribeLogDirs answer as Kafka 4.4 encodes
// it (version 4, flexible): one log directory holding topics × parts
// replicas, sizes and offset lags spread out.
func logDirsAnswer(topics, parts int) []byte {
	r := kmsg.NewPtrDescribeLogDirsResponse()
	r.Version = 4
	dir := kmsg.NewDescribeLogDirsResponseDir()
	dir.Dir, dir.TotalBytes, dir.UsableBytes = "/var/lib/kafka/data", 4<<40, 2<<40
	dir.Topics = make([]kmsg.DescribeLogDirsResponseDirTopic, topics)
	for t := range dir.Topics {
		dt := &dir.Topics[t]
		dt.Topic = fmt.Sprintf("topic-%06d", t)
		dt.Partitions = make([]kmsg.DescribeLogDirsResponseDirTopicPartition, parts)
		for p := range dt.Partitions {
			dt.Partitions[p] = kmsg.DescribeLogDirsResponseDirTopicPartition{Partition: int32(p),
				Size: int64(1+(t*7919+p*104729)%10_000) << 17, OffsetLag: int64(t % 3)}
		}
	}
	r.Dirs = append(r.Dirs, dir)
	return r.AppendTo(nil)
}

// BenchmarkSizesReading decodes and builds one broker's answer of 500,000
// replicas (100,000 topics × 5 partitions, one log directory, version 4 as
// a Kafka 4.4 broker answers): what each of a million-partition cluster's
// six brokers costs a reading. A tenth under -short.
func BenchmarkSizesReading(b *testing.B) {
	topics := 100_000
	if testing.Short() {
		topics = 10_000
	}
	raw := logDirsAnswer(topics, 5)
	for _, path := range []string{"lean", "kmsg"} {
		b.Run(path, func(b *testing.B) {
			var s *cluster.Sizes
			b.ReportAllocs()
			for i := range b.N {
				bld := cluster.NewSizesBuilder(time.Unix(int64(i), 0))
				var r *logDirsResponse
				if path == "lean" {
					r = readLogDirs(b, 4, raw)
				} else {
					k := kmsg.NewPtrDescribeLogDirsResponse()
					k.Version = 4
					if err := k.ReadFrom(raw); err != nil {
						b.Fatal(err)
					}
					r = &logDirsResponse{DescribeLogDirsResponse: *k}
					r.dirs = logDirsOf(k, &r.reps)
				}
				addBroker(bld, 1, r)
				s = bld.Done(nil)
			}
			b.StopTimer()
			if d, ok := s.Broker(1); !ok || d.Replicas != topics*5 {
				b.Fatalf("broker 1: %+v", d)
			}
			b.ReportMetric(float64(len(raw)), "response-bytes")
		})
	}
}

// readLogDirs reads a DescribeLogDirs answer of version v as a reading
// does.
func readLogDirs(tb testing.TB, v int16, raw []byte) *logDirsResponse {
	req := logDirsRequest{kmsg.NewPtrDescribeLogDirsRequest()}
	req.Version = v
	r := req.ResponseKind().(*logDirsResponse)
	if err := r.ReadFrom(raw); err != nil {
		tb.Fatal(err)
	}
	return r
}
