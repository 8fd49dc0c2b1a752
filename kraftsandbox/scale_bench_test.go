package kraftsandbox

import (
	"bufio"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// The sandbox at scale: the benchmarks fill a sandbox of 6 brokers in 3
// racks (3 controllers) with scale-00000… topics of 10 partitions,
// replication factor 3 (CreateTopicsBulk), and measure what a cluster of
// that size costs the sandbox. 10,000 topics (100,000 partitions) by
// default, 100 under -short (CI runs every benchmark once);
// KTOPO_SANDBOX_BENCH_TOPICS sets another number (100000: the issue's
// 1,000,000 partitions), KTOPO_SANDBOX_BENCH_RF the replication factor.
//
// Run with: KTOPO_SANDBOX_BENCH_TOPICS=100000 go test -run '^$' -bench Scale -benchtime 1x ./kraftsandbox

const scaleParts = 10

func scaleTopics() int {
	n := 10_000
	if testing.Short() {
		n = 100
	}
	if v, err := strconv.Atoi(os.Getenv("KTOPO_SANDBOX_BENCH_TOPICS")); err == nil && v > 0 {
		n = v
	}
	return n
}

func scaleRF() int {
	if v, err := strconv.Atoi(os.Getenv("KTOPO_SANDBOX_BENCH_RF")); err == nil && v > 0 {
		return v
	}
	return 3
}

// startScale starts a sandbox filled with topics × scaleParts partitions;
// it returns how long the filling took.
func startScale(tb testing.TB, topics int) (*Cluster, time.Duration) {
	tb.Helper()
	c, err := Start(Config{Brokers: 6, Controllers: 3, Racks: 3, Rand: rand.New(rand.NewPCG(1, 2))})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { c.Close() })
	start := time.Now()
	if err := c.CreateTopicsBulk("scale-", topics, scaleParts, scaleRF()); err != nil {
		tb.Fatal(err)
	}
	return c, time.Since(start)
}

// BenchmarkScaleMemory reports the heap a partition takes (live heap
// after a collection, filled sandbox minus empty one) and how long the
// filling takes.
func BenchmarkScaleMemory(b *testing.B) {
	topics := scaleTopics()
	for b.Loop() {
		b.StopTimer()
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		b.StartTimer()
		c, took := startScale(b, topics)
		b.StopTimer()
		runtime.GC()
		runtime.ReadMemStats(&after)
		heap := float64(after.HeapAlloc) - float64(before.HeapAlloc)
		b.ReportMetric(float64(took.Milliseconds()), "fill-ms")
		b.ReportMetric(heap/float64(topics*scaleParts), "heap-B/partition")
		b.ReportMetric(heap/(1<<20), "heap-MiB")
		b.ReportMetric(float64(after.HeapObjects-before.HeapObjects)/float64(topics*scaleParts), "objects/partition")
		runtime.KeepAlive(c)
		c.Close()
		b.StartTimer()
	}
}

// BenchmarkScaleMetadata reports how long a Metadata of every topic
// takes: the handler (under c.mu) with its encoding (handler-ms), and
// over the wire to a kmsg-decoded response (wire-ms, most of which is
// the client's decoding).
func BenchmarkScaleMetadata(b *testing.B) {
	c, _ := startScale(b, scaleTopics())
	cl := scaleClient(b, c)
	b0 := c.brokers[0].n
	body := metadataRequestBody(b)
	ctx := context.Background()
	var handler, wire time.Duration
	var size int
	for b.Loop() {
		b.StopTimer()
		runtime.GC() // the client's decoding of the last one is not the handler's
		b.StartTimer()
		start := time.Now()
		resp, _, err := c.handle(b0, body)
		if err != nil {
			b.Fatal(err)
		}
		size = len(resp.(*encodedResponse).raw)
		handler += time.Since(start)
		start = time.Now()
		mr, err := kmsg.NewPtrMetadataRequest().RequestWith(ctx, cl)
		if err != nil {
			b.Fatal(err)
		}
		wire += time.Since(start)
		if n := countPartitions(mr); n != scaleTopics()*scaleParts {
			b.Fatalf("%d partitions, want %d", n, scaleTopics()*scaleParts)
		}
	}
	b.ReportMetric(float64(handler.Microseconds())/1000/float64(b.N), "handler-ms")
	b.ReportMetric(float64(wire.Microseconds())/1000/float64(b.N), "wire-ms")
	b.ReportMetric(float64(size)/(1<<20), "response-MiB")
}

// metadataRequestBody is a Metadata v12 request of every topic, as a
// request frame's body (header and request).
func metadataRequestBody(tb testing.TB) []byte {
	req := kmsg.NewPtrMetadataRequest()
	req.Version = 12
	var out []byte
	out = append(out, 0, 3, 0, 12, 0, 0, 0, 1, 0, 5, 'b', 'e', 'n', 'c', 'h', 0)
	return req.AppendTo(out)
}

func countPartitions(r *kmsg.MetadataResponse) int {
	n := 0
	for _, t := range r.Topics {
		n += len(t.Partitions)
	}
	return n
}

func scaleClient(tb testing.TB, c *Cluster) *kgo.Client {
	tb.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(strings.Split(c.Bootstrap(), ",")...), kgo.BrokerMaxReadBytes(1<<30))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(cl.Close)
	return cl
}

// BenchmarkScaleDescribe reports how long the reads of ktopo's poller
// take when the sandbox serves them: every topic's configs as its first
// load asks them (250 topics a DescribeConfigs, 4 in flight, to the
// brokers in turn) and every topic's partitions with
// DescribeTopicPartitions (2,000 partitions a page).
func BenchmarkScaleDescribe(b *testing.B) {
	c, _ := startScale(b, scaleTopics())
	cl := scaleClient(b, c)
	var names []string
	c.mu.Lock()
	for n := range c.topics {
		names = append(names, n)
	}
	c.mu.Unlock()
	ctx := context.Background()
	_, configs := c.handlers[kmsg.DescribeConfigs.Int16()]
	_, dtp := c.handlers[kmsg.DescribeTopicPartitions.Int16()]
	var configsTook, dtpTook time.Duration
	for b.Loop() {
		if configs {
			start := time.Now()
			if err := describeAllConfigs(ctx, cl, c.BrokerIDs(), names); err != nil {
				b.Fatal(err)
			}
			configsTook += time.Since(start)
		}
		if dtp {
			start := time.Now()
			n, err := describeAllPartitions(ctx, cl, names)
			if err != nil {
				b.Fatal(err)
			}
			if n != len(names)*scaleParts {
				b.Fatalf("DescribeTopicPartitions: %d partitions, want %d", n, len(names)*scaleParts)
			}
			dtpTook += time.Since(start)
		}
	}
	if configs {
		b.ReportMetric(float64(configsTook.Microseconds())/1000/float64(b.N), "configs-ms")
	} else {
		b.Log("no DescribeConfigs handler yet")
	}
	if dtp {
		b.ReportMetric(float64(dtpTook.Microseconds())/1000/float64(b.N), "describe-partitions-ms")
	} else {
		b.Log("no DescribeTopicPartitions handler yet")
	}
}

func describeAllConfigs(ctx context.Context, cl *kgo.Client, brokers []int, names []string) error {
	const chunk = 250
	sem := make(chan struct{}, 4)
	errs := make(chan error, (len(names)+chunk-1)/chunk)
	var wg sync.WaitGroup
	for i := 0; i*chunk < len(names); i++ {
		req := kmsg.NewPtrDescribeConfigsRequest()
		for _, n := range names[i*chunk : min((i+1)*chunk, len(names))] {
			r := kmsg.NewDescribeConfigsRequestResource()
			r.ResourceType, r.ResourceName = kmsg.ConfigResourceTypeTopic, n
			req.Resources = append(req.Resources, r)
		}
		br := cl.Broker(brokers[i%len(brokers)])
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			resp, err := req.RequestWith(ctx, br)
			if err == nil {
				for _, r := range resp.Resources {
					if r.ErrorCode != 0 {
						err = fmt.Errorf("DescribeConfigs %s: error code %d", r.ResourceName, r.ErrorCode)
						break
					}
				}
			}
			if err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	return <-errs
}

func describeAllPartitions(ctx context.Context, cl *kgo.Client, names []string) (int, error) {
	req := kmsg.NewPtrDescribeTopicPartitionsRequest()
	for _, n := range names {
		t := kmsg.NewDescribeTopicPartitionsRequestTopic()
		t.Topic = n
		req.Topics = append(req.Topics, t)
	}
	req.ResponsePartitionLimit = 2000
	n := 0
	for {
		resp, err := req.RequestWith(ctx, cl)
		if err != nil {
			return n, err
		}
		for _, t := range resp.Topics {
			n += len(t.Partitions)
		}
		if resp.NextCursor == nil {
			return n, nil
		}
		req.Cursor = &kmsg.DescribeTopicPartitionsRequestCursor{Topic: resp.NextCursor.Topic, Partition: resp.NextCursor.Partition}
	}
}

// BenchmarkScaleTick reports what the simulation's steps (c.tick:
// heartbeats, every part's tickers) cost at this size: an operation is
// ten simulated seconds of ticks (so that the work done every second or
// so is in it), reported as the CPU per tick and the share of a core at
// the default Tick of 100 ms.
func BenchmarkScaleTick(b *testing.B) {
	c, _ := startScale(b, scaleTopics())
	now := time.Now()
	const ticks = 100
	var maxTick time.Duration
	for b.Loop() {
		for range ticks {
			now = now.Add(c.cfg.Tick)
			start := time.Now()
			c.mu.Lock()
			c.tick(now, c.cfg.Tick)
			c.mu.Unlock()
			maxTick = max(maxTick, time.Since(start))
		}
	}
	per := float64(b.Elapsed()) / float64(b.N*ticks)
	b.ReportMetric(per/1e6, "tick-ms")
	b.ReportMetric(float64(maxTick.Microseconds())/1000, "max-tick-ms")
	b.ReportMetric(per/float64(c.cfg.Tick)*100, "tick-CPU-%")
}

// scaleChildEnv makes the test binary a filled sandbox (TestScaleChild):
// "topics" to fill it with; it answers a few Metadata requests of every
// topic as ktopo's polls would and prints its peak RSS.
const scaleChildEnv = "KTOPO_SANDBOX_SCALE_CHILD"

// BenchmarkScaleRSS runs a filled sandbox in a child process (the test
// binary, TestScaleChild) so that its peak RSS is its own: filled, then
// answering 5 Metadata requests of every topic.
func BenchmarkScaleRSS(b *testing.B) {
	topics := scaleTopics()
	for b.Loop() {
		cmd := exec.Command(os.Args[0], "-test.run", "^TestScaleChild$")
		cmd.Env = append(os.Environ(), scaleChildEnv+"="+strconv.Itoa(topics))
		out, err := cmd.CombinedOutput()
		if err != nil {
			b.Fatalf("child: %v\n%s", err, out)
		}
		var heap, hwm float64
		sc := bufio.NewScanner(strings.NewReader(string(out)))
		for sc.Scan() {
			if rest, ok := strings.CutPrefix(sc.Text(), "KTOPO-SANDBOX-SCALE "); ok {
				fmt.Sscanf(rest, "heap=%g hwm=%g", &heap, &hwm)
			}
		}
		// The child's own VmHWM, not the kernel's rusage of it: that
		// holds the parent's high-water mark (ui's childPeakRSSKiB says
		// why).
		b.ReportMetric(hwm, "peak-RSS-MiB")
		b.ReportMetric(heap, "live-heap-MiB")
	}
}

// TestScaleChild is BenchmarkScaleRSS's child (skipped otherwise).
func TestScaleChild(t *testing.T) {
	v := os.Getenv(scaleChildEnv)
	if v == "" {
		t.Skip("only as BenchmarkScaleRSS's child")
	}
	topics, err := strconv.Atoi(v)
	if err != nil {
		t.Fatal(err)
	}
	c, took := startScale(t, topics)
	fmt.Printf("filled in %s: VmHWM %d MiB, VmRSS %d MiB\n", took, procKiB("VmHWM")/1024, procKiB("VmRSS")/1024)
	// The requests on a bare connection: a kgo client would decode the
	// responses into this process's heap.
	conn, err := net.Dial("tcp", c.brokers[0].n.addr())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	body := metadataRequestBody(t)
	frame := binary.BigEndian.AppendUint32(nil, uint32(len(body)))
	frame = append(frame, body...)
	for range 5 {
		if _, err := conn.Write(frame); err != nil {
			t.Fatal(err)
		}
		var size [4]byte
		if _, err := io.ReadFull(conn, size[:]); err != nil {
			t.Fatal(err)
		}
		if _, err := io.CopyN(io.Discard, conn, int64(binary.BigEndian.Uint32(size[:]))); err != nil {
			t.Fatal(err)
		}
	}
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	fmt.Printf("KTOPO-SANDBOX-SCALE heap=%.1f hwm=%.1f\n", float64(ms.HeapAlloc)/(1<<20), float64(procKiB("VmHWM"))/1024)
}

// procKiB reads a field of /proc/self/status in KiB (0 when unknown).
func procKiB(field string) int {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, field+":"); ok {
			n, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(rest), " kB"))
			return n
		}
	}
	return 0
}
