package zkwatch

import (
	"flag"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/ktopo/ktopo/internal/testkit/scaletree"
	"github.com/ktopo/ktopo/internal/testkit/zktest"
)

// The benchmarks need a big tree (10,000 topics × 10 partitions, RF 3, with
// partition states: 220,000 znodes). It is created once per test process,
// only when a benchmark runs, under its own chroot on the package's server.
//
//	go test ./zkwatch -run '^$' -bench . -benchtime 1x
var (
	benchTopics      = flag.Int("bench.topics", 10000, "topics in the benchmark tree")
	benchPartitions  = flag.Int("bench.partitions", 10, "partitions per topic in the benchmark tree")
	benchRounds      = flag.Int("bench.rounds", 5, "alternating mirror/bare rounds in BenchmarkLoad")
	benchConcurrency = flag.String("bench.concurrency", "", "comma-separated Mirror concurrencies to compare in BenchmarkLoad (default: the Mirror's default)")
)

var bigTree struct {
	once sync.Once
	cs   string // connect string with chroot
	err  error
}

func benchTree(b *testing.B) string {
	b.Helper()
	if testing.Short() {
		b.Skip("needs a big tree")
	}
	addr := zktest.Addr(b)
	bigTree.once.Do(func() {
		root := fmt.Sprintf("/ktopo-bench-%d", os.Getpid())
		bigTree.cs = addr + root
		start := time.Now()
		bigTree.err = buildTree(addr, root, *benchTopics, *benchPartitions)
		b.Logf("created %d topics × %d partitions in %v", *benchTopics, *benchPartitions, time.Since(start).Round(time.Millisecond))
	})
	if bigTree.err != nil {
		b.Fatal(bigTree.err)
	}
	return bigTree.cs
}

// buildTree writes the tree the way Kafka leaves it (scaletree.Scale, six
// brokers).
func buildTree(addr, root string, topics, parts int) error {
	conn, _, err := zk.Connect([]string{addr}, 30*time.Second, zk.WithLogInfo(false), zk.WithLogger(discard{}))
	if err != nil {
		return err
	}
	defer conn.Close()
	return scaletree.Scale{Topics: topics, Partitions: parts, Brokers: 6}.Write(conn, root)
}

type discard struct{}

func (discard) Printf(string, ...any) {}

// bareRead is the yardstick, scaletree.BareRead of the topics and their
// partition states on a new session: it returns the number of znodes read
// and the time and CPU the reads took (after the session is established).
// With watch, it uses GetW (and ignores the watches): the same work the
// server does for the mirror, which sets a watch with every read.
func bareRead(addr, root string, inflight int, watch bool) (int, time.Duration, time.Duration, error) {
	conn, ev, err := zk.Connect([]string{addr}, 30*time.Second, zk.WithLogInfo(false), zk.WithLogger(discard{}))
	if err != nil {
		return 0, 0, 0, err
	}
	defer conn.Close()
	for e := range ev {
		if e.State == zk.StateHasSession {
			break
		}
	}
	start, cpu := time.Now(), cpuTime()
	n, err := scaletree.BareRead(conn, root, inflight, watch, false)
	return n, time.Since(start), cpuTime() - cpu, err
}

// mirrorLoad connects, mirrors the Kafka shape and waits for the reset
// batch. It returns the load time (NewMirror to the reset received), the
// nodes and the heap the mirror holds.
func mirrorLoad(b *testing.B, cs string, concurrency int) (time.Duration, time.Duration, int, uint64) {
	c, err := Connect(b.Context(), cs, Options{Logger: discard{}})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	start, cpu := time.Now(), cpuTime()
	m, err := NewMirror(c, kafkaShape(), MirrorOptions{Concurrency: concurrency})
	if err != nil {
		b.Fatal(err)
	}
	defer m.Close()
	var nodes int
	for batch := range m.Batches() {
		if batch.Reset {
			nodes = len(batch.Events)
			break
		}
	}
	d, cpu := time.Since(start), cpuTime()-cpu
	mirrorRequests = m.Stats().Requests
	runtime.GC()
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	return d, cpu, nodes, after.HeapAlloc - min(after.HeapAlloc, before.HeapAlloc)
}

// cpuTime is the process's user+system CPU time so far: the client-side
// cost, steadier than wall time on a shared machine.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

var mirrorRequests int64

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

// BenchmarkLoad compares the Mirror's first load with the bare pipelined
// reader (128 in flight), in alternating rounds, and reports the medians.
// Budget: mirror ≤ 1.5 × bare. It also times the bare reader with GetW
// instead of Get, to show what the watches alone cost the server.
func BenchmarkLoad(b *testing.B) {
	cs := benchTree(b)
	addr, root := cs[:strings.Index(cs, "/")], cs[strings.Index(cs, "/"):]
	concs := []int{0}
	if *benchConcurrency != "" {
		concs = nil
		for _, f := range strings.Split(*benchConcurrency, ",") {
			var n int
			fmt.Sscan(f, &n)
			concs = append(concs, n)
		}
	}
	for b.Loop() {
		bare, bareCPU := []time.Duration{}, []time.Duration{}
		bareW := []time.Duration{}
		mirror, mirrorCPU := map[int][]time.Duration{}, map[int][]time.Duration{}
		var nodes, reads int
		var heap uint64
		for range *benchRounds {
			n, d, cpu, err := bareRead(addr, root, 128, false)
			if err != nil {
				b.Fatal(err)
			}
			bare = append(bare, d)
			bareCPU = append(bareCPU, cpu)
			_, d, _, err = bareRead(addr, root, 128, true)
			if err != nil {
				b.Fatal(err)
			}
			bareW = append(bareW, d)
			reads = n
			for _, conc := range concs {
				d, cpu, nn, h := mirrorLoad(b, cs, conc)
				mirrorCPU[conc] = append(mirrorCPU[conc], cpu)
				mirror[conc] = append(mirror[conc], d)
				nodes, heap = nn, h
			}
		}
		mb := median(bare)
		b.ReportMetric(float64(mb.Milliseconds()), "bare-ms")
		b.ReportMetric(float64(median(bareCPU).Milliseconds()), "bare-cpu-ms")
		b.ReportMetric(float64(median(bareW).Milliseconds()), "bare-getw-ms")
		b.ReportMetric(float64(reads), "bare-reads")
		b.ReportMetric(float64(nodes), "mirror-nodes")
		b.ReportMetric(float64(mirrorRequests), "mirror-requests")
		b.ReportMetric(float64(heap)/(1<<20), "mirror-MiB")
		for _, conc := range concs {
			mm := median(mirror[conc])
			name := "mirror"
			if conc != 0 {
				name = fmt.Sprintf("mirror%d", conc)
			}
			b.ReportMetric(float64(mm.Milliseconds()), name+"-ms")
			b.ReportMetric(float64(mm)/float64(mb), name+"/bare")
			b.ReportMetric(float64(median(mirrorCPU[conc]).Milliseconds()), name+"-cpu-ms")
			b.Logf("%s: %v cpu %v (bare %v cpu %v; bare with GetW %v)", name, mirror[conc], mirrorCPU[conc], bare, bareCPU, bareW)
		}
	}
}

// BenchmarkEventLatency streams 1,000 partition-state writes per second
// into the big tree from another connection and measures, for each write,
// the time from its reply to the consumer receiving the batch with it.
// Budget: median under 50 ms.
func BenchmarkEventLatency(b *testing.B) {
	cs := benchTree(b)
	root := cs[strings.Index(cs, "/"):]
	c, err := Connect(b.Context(), cs, Options{Logger: discard{}})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	m, err := NewMirror(c, kafkaShape(), MirrorOptions{})
	if err != nil {
		b.Fatal(err)
	}
	defer m.Close()
	for batch := range m.Batches() {
		if batch.Reset {
			break
		}
	}
	w := zktest.Connect(b, zktest.Addr(b))

	type key struct {
		path    string
		version int32
	}
	type times struct{ reply, seen time.Time }
	var mu sync.Mutex
	seen := map[key]*times{}
	get := func(k key) *times {
		t := seen[k]
		if t == nil {
			t = &times{}
			seen[k] = t
		}
		return t
	}
	done := make(chan struct{})
	var batches, events atomic.Int64
	go func() {
		defer close(done)
		for batch := range m.Batches() {
			now := time.Now()
			batches.Add(1)
			mu.Lock()
			for _, ev := range batch.Events {
				if ev.Type == Changed {
					events.Add(1)
					get(key{ev.Path, ev.Stat.Version}).seen = now
				}
			}
			mu.Unlock()
		}
	}()

	const rate = 1000
	dur := 5 * time.Second
	for b.Loop() {
		r := newRand(1)
		var wg sync.WaitGroup
		writers := 16
		start := time.Now()
		for wi := range writers {
			wg.Go(func() {
				interval := time.Second * time.Duration(writers) / rate
				next := start.Add(time.Duration(wi) * time.Second / rate)
				for i := 0; time.Since(start) < dur; i++ {
					time.Sleep(time.Until(next))
					next = next.Add(interval)
					mu.Lock()
					t, p := r.IntN(*benchTopics), r.IntN(*benchPartitions)
					mu.Unlock()
					path := fmt.Sprintf("/brokers/topics/topic-%05d/partitions/%d/state", t, p)
					st, err := w.Set(root+path, fmt.Appendf(nil, `{"controller_epoch":1,"leader":%d,"version":1,"leader_epoch":%d,"isr":[1,2,3]}`, i%6+1, i), -1)
					now := time.Now()
					if err != nil {
						b.Error(err)
						return
					}
					mu.Lock()
					get(key{path, st.Version}).reply = now
					mu.Unlock()
				}
			})
		}
		wg.Wait()
	}
	time.Sleep(500 * time.Millisecond) // let the last batches arrive
	_ = m.Close()
	<-done

	var lat []time.Duration
	missed := 0
	mu.Lock()
	for _, t := range seen {
		switch {
		case t.reply.IsZero():
		case t.seen.IsZero():
			missed++ // superseded by a later write of the same node in one batch
		default:
			lat = append(lat, t.seen.Sub(t.reply))
		}
	}
	mu.Unlock()
	if len(lat) == 0 {
		b.Fatal("no events")
	}
	slices.Sort(lat)
	q := func(f float64) float64 { return float64(lat[int(f*float64(len(lat)-1))].Microseconds()) / 1000 }
	b.ReportMetric(q(0.5), "p50-ms")
	b.ReportMetric(q(0.9), "p90-ms")
	b.ReportMetric(q(0.99), "p99-ms")
	b.ReportMetric(float64(lat[len(lat)-1].Microseconds())/1000, "max-ms")
	b.ReportMetric(float64(len(lat))/dur.Seconds(), "writes/s")
	b.ReportMetric(float64(batches.Load())/dur.Seconds(), "batches/s")
	b.Logf("%d writes seen, %d merged away, %d batches", len(lat), missed, batches.Load())
}
