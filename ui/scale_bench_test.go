package ui

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/clusterwatch/zksource"

	tea "charm.land/bubbletea/v2"
	"github.com/go-zookeeper/zk"

	"github.com/ktopo/ktopo/clusterwatch"
	"github.com/ktopo/ktopo/internal/memlimit"
	"github.com/ktopo/ktopo/internal/testkit/scaletree"
	"github.com/ktopo/ktopo/internal/testkit/zktest"
	"github.com/ktopo/ktopo/zkwatch"
)

// scaleChildEnv makes the test binary a child of BenchmarkScaleLoad: it
// loads the cluster at the connect string the variable holds through the
// TUI (the mirror as the ktopo command makes it, the App applying every
// batch and drawing a frame after each), prints its measurements and exits.
const scaleChildEnv = "KTOPO_SCALE_CHILD"

// scaleResult is what a child measured.
type scaleResult struct {
	LoadMS         float64 // NewMirror to the full load applied and drawn
	FirstTopicsMS  float64 // NewMirror to the first frame showing topics
	FirstProgress  string  // the banner of the first frame after connecting
	Frames         int     // frames drawn during the load
	PartialFrames  int     // of those, frames drawn with a partial snapshot
	FrameP99MS     float64 // Update+View of a batch during the load, p99
	FrameMaxMS     float64
	HeapMiB        float64 // live heap after the load (GC'd), minus before
	BaseRSSKiB     int     // VmRSS before connecting
	PeakRSSKiB     int     // VmHWM after the load
	Partitions     int
	Topics         int
	MirrorRequests int64
	// SizesMS is two readings of every replica's size built (as a poller
	// builds them) and applied to the TUI, with a frame of the overview
	// and of the topics each; SizesHeapMiB the live heap they add.
	SizesMS      float64
	SizesHeapMiB float64
	// SizesBuildMS is the part of SizesMS spent building the readings;
	// LoadPeakRSSKiB the peak RSS before the sizes.
	SizesBuildMS   float64
	LoadPeakRSSKiB int
}

// scaleChild is the child's main.
func scaleChild(cs string) int {
	if path := os.Getenv("KTOPO_SCALE_CPUPROFILE"); path != "" {
		f, err := os.Create(path)
		if err == nil && pprof.StartCPUProfile(f) == nil {
			defer pprof.StopCPUProfile()
		}
	}
	res, err := scaleLoad(cs)
	if err != nil {
		fmt.Fprintln(os.Stderr, "scale child:", err)
		return 1
	}
	res.PeakRSSKiB = max(res.PeakRSSKiB, childPeakRSSKiB())
	out, _ := json.Marshal(res)
	fmt.Printf("KTOPO-SCALE %s\n", out)
	return 0
}

func procStatusKiB(field string) int {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), field+":"); ok {
			n, _ := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")))
			return n
		}
	}
	return 0
}

func scaleLoad(cs string) (scaleResult, error) {
	// The memory policy of the ktopo command (cmd.Main).
	defer memlimit.Start(memlimit.Floor)()
	var res scaleResult
	res.BaseRSSKiB = procStatusKiB("VmRSS")
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	conn, err := zkwatch.Connect(context.Background(), cs, zkwatch.Options{})
	if err != nil {
		return res, err
	}
	defer conn.Close()
	start := time.Now()
	mirror, err := zkwatch.NewMirror(conn, zksource.Shape(), zksource.TUIMirror())
	if err != nil {
		return res, err
	}
	defer mirror.Close()
	app := New(Config{Source: zksource.New(mirror, conn), Prober: zksource.Prober{Browser: conn}, Connect: cs, Mode: ModeReadOnly})
	app.Update(tea.WindowSizeMsg{Width: 200, Height: 60})
	var frames []time.Duration
	for b := range mirror.Batches() {
		t0 := time.Now()
		app.Update(mirrorBatch(b))
		v := app.View()
		_ = v.Content
		frames = append(frames, time.Since(t0))
		if res.FirstProgress == "" && app.haveState && app.state == clusterwatch.StateConnected {
			res.FirstProgress = app.banner()
		}
		if snap := app.Snapshot(); snap != nil && res.FirstTopicsMS == 0 && len(snap.Topics()) > 0 {
			res.FirstTopicsMS = float64(time.Since(start).Microseconds()) / 1000
		}
		if !app.loaded && app.Snapshot() != nil {
			res.PartialFrames++
		}
		if app.loaded {
			break
		}
	}
	res.LoadMS = float64(time.Since(start).Microseconds()) / 1000
	res.Frames = len(frames)
	slices.Sort(frames)
	if n := len(frames); n > 0 {
		res.FrameP99MS = float64(frames[(n-1)*99/100].Microseconds()) / 1000
		res.FrameMaxMS = float64(frames[n-1].Microseconds()) / 1000
	}
	snap := app.Snapshot()
	if snap == nil {
		return res, fmt.Errorf("mirror closed before the load")
	}
	for _, t := range snap.Topics() {
		res.Partitions += len(t.Partitions)
	}
	res.Topics = len(snap.Topics())
	res.MirrorRequests = mirror.Stats().Requests
	runtime.GC()
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	res.HeapMiB = float64(after.HeapAlloc-min(after.HeapAlloc, before.HeapAlloc)) / (1 << 20)
	res.LoadPeakRSSKiB = procStatusKiB("VmHWM")
	sizesStart := time.Now()
	var prev *cluster.Sizes
	for i := range 2 {
		t0 := time.Now()
		prev = scaleSizes(snap, sizesStart.Add(time.Duration(i)*30*time.Second), prev)
		res.SizesBuildMS += float64(time.Since(t0).Microseconds()) / 1000
		app.Update(sizesMsg{prev})
		for _, tab := range []string{"1", "2"} {
			app.Update(tea.KeyPressMsg{Code: rune(tab[0]), Text: tab})
			_ = app.View().Content
		}
	}
	res.SizesMS = float64(time.Since(sizesStart).Microseconds()) / 1000
	runtime.GC()
	var withSizes runtime.MemStats
	runtime.ReadMemStats(&withSizes)
	res.SizesHeapMiB = (float64(withSizes.HeapAlloc) - float64(after.HeapAlloc)) / (1 << 20)
	res.PeakRSSKiB = procStatusKiB("VmHWM")
	if path := os.Getenv("KTOPO_SCALE_MEMPROFILE"); path != "" {
		if f, err := os.Create(path); err == nil {
			_ = pprof.WriteHeapProfile(f)
			f.Close()
		}
	}
	runtime.KeepAlive(app)
	return res, nil
}

var scaleTree struct {
	once  sync.Once
	cs    string
	scale scaletree.Scale
	err   error
}

// scaleSpec is the benchmark's cluster: 10,000 topics × 10 partitions on
// 30 brokers unless KTOPO_SCALE_TOPICS / KTOPO_SCALE_PARTITIONS say else.
func scaleSpec() scaletree.Scale {
	s := scaletree.Scale{Topics: 10_000, Partitions: 10, Brokers: 30, Configs: true}
	if v, err := strconv.Atoi(os.Getenv("KTOPO_SCALE_TOPICS")); err == nil && v > 0 {
		s.Topics = v
	}
	if v, err := strconv.Atoi(os.Getenv("KTOPO_SCALE_PARTITIONS")); err == nil && v > 0 {
		s.Partitions = v
	}
	return s
}

// bigCluster writes the scale cluster once per test process under its own
// chroot on the package's server and returns its connect string.
func bigCluster(tb testing.TB) (string, scaletree.Scale) {
	tb.Helper()
	addr := zktest.Addr(tb)
	scaleTree.once.Do(func() {
		scaleTree.scale = scaleSpec()
		root := fmt.Sprintf("/ktopo-scale-%d", os.Getpid())
		conn := zktest.Connect(tb, addr)
		start := time.Now()
		scaleTree.err = scaleTree.scale.Write(conn, root)
		scaleTree.cs = addr + root
		tb.Logf("wrote %d topics × %d partitions on %d brokers (%d znodes) in %v", scaleTree.scale.Topics,
			scaleTree.scale.Partitions, scaleTree.scale.Brokers, scaleTree.scale.Znodes(), time.Since(start).Round(time.Millisecond))
	})
	if scaleTree.err != nil {
		tb.Fatal(scaleTree.err)
	}
	return scaleTree.cs, scaleTree.scale
}

// bareLoad times scaletree.BareRead on a new session, after the handshake.
func bareLoad(addr, root string, watch, all bool) (int, time.Duration, error) {
	conn, ev, err := zk.Connect([]string{addr}, 30*time.Second, zk.WithLogInfo(false), zk.WithLogger(nopLogger{}))
	if err != nil {
		return 0, 0, err
	}
	defer conn.Close()
	for e := range ev {
		if e.State == zk.StateHasSession {
			break
		}
	}
	start := time.Now()
	n, err := scaletree.BareRead(conn, root, 128, watch, all)
	return n, time.Since(start), err
}

type nopLogger struct{}

func (nopLogger) Printf(string, ...any) {}

// BenchmarkScaleLoad is the TUI's first load of a big cluster (10,000
// topics × 10 partitions, RF 3, 30 brokers, topic configs, in the
// package's real ZooKeeper) against a bare pipelined reader of the same
// znodes (scaletree.BareRead, 128 in flight on one connection), rounds
// alternating in the same run. ktopo's side runs in a child process (this
// test binary, see scaleChildEnv), so that its peak RSS is the load's own:
// the mirror, the model, the tree and the App drawing a frame per batch.
// The bare reader reads the topics and the partition states; bare-all
// also the broker registrations and topic configs, every znode the mirror
// reads (without watches; bare-all-getw with them, the server's work for
// the mirror). It reports the medians: bare-ms, load-ms, load/bare and
// load/bare-all (budget 1.2: the full load against a bare reader of the
// same znodes; the topics-and-states reader reads 9% fewer, and the
// watches cost the server more again, which bare-all-getw shows), the
// first frame with topics, the live heap and peak RSS and both per
// partition (budget: peak RSS under 200 MiB at 100,000 partitions).
//
//	CI=true go test ./ui -run '^$' -bench ScaleLoad -benchtime 1x
//
// KTOPO_SCALE_ROUNDS (3), KTOPO_SCALE_TOPICS and KTOPO_SCALE_PARTITIONS
// change the run; KTOPO_SCALE_CPUPROFILE and KTOPO_SCALE_MEMPROFILE name
// files for the child's CPU profile and its heap profile after the load.
func BenchmarkScaleLoad(b *testing.B) {
	if testing.Short() {
		b.Skip("writes a 230,000-znode cluster")
	}
	cs, spec := bigCluster(b)
	addr, root := cs[:strings.Index(cs, "/")], cs[strings.Index(cs, "/"):]
	rounds := 3
	if v, err := strconv.Atoi(os.Getenv("KTOPO_SCALE_ROUNDS")); err == nil && v > 0 {
		rounds = v
	}
	for b.Loop() {
		var bare, bareAll, bareW, load, first []time.Duration
		var results []scaleResult
		for range rounds {
			n, d, err := bareLoad(addr, root, false, false)
			if err != nil {
				b.Fatal(err)
			}
			if want := 1 + spec.Topics*(1+spec.Partitions); n != want {
				b.Fatalf("bare reader read %d znodes, want %d", n, want)
			}
			bare = append(bare, d)
			_, d, err = bareLoad(addr, root, false, true)
			if err != nil {
				b.Fatal(err)
			}
			bareAll = append(bareAll, d)
			_, d, err = bareLoad(addr, root, true, true)
			if err != nil {
				b.Fatal(err)
			}
			bareW = append(bareW, d)
			r := runScaleChild(b, cs)
			if r.Partitions != spec.Topics*spec.Partitions {
				b.Fatalf("the TUI loaded %d partitions, want %d", r.Partitions, spec.Topics*spec.Partitions)
			}
			results = append(results, r)
			load = append(load, time.Duration(r.LoadMS*float64(time.Millisecond)))
			first = append(first, time.Duration(r.FirstTopicsMS*float64(time.Millisecond)))
		}
		mb, ml := median(bare), median(load)
		slices.SortFunc(results, func(x, y scaleResult) int { return int(x.LoadMS - y.LoadMS) })
		mid := results[len(results)/2]
		parts := float64(spec.Topics * spec.Partitions)
		peak := medianOf(results, func(r scaleResult) float64 { return float64(r.PeakRSSKiB) })
		base := medianOf(results, func(r scaleResult) float64 { return float64(r.BaseRSSKiB) })
		heap := medianOf(results, func(r scaleResult) float64 { return r.HeapMiB })
		b.ReportMetric(float64(mb.Milliseconds()), "bare-ms")
		ma := median(bareAll)
		b.ReportMetric(float64(ma.Milliseconds()), "bare-all-ms")
		b.ReportMetric(float64(median(bareW).Milliseconds()), "bare-all-getw-ms")
		b.ReportMetric(float64(ml.Milliseconds()), "load-ms")
		b.ReportMetric(float64(ml)/float64(mb), "load/bare")
		b.ReportMetric(float64(ml)/float64(ma), "load/bare-all")
		b.ReportMetric(float64(median(first).Milliseconds()), "first-topics-ms")
		b.ReportMetric(peak/1024, "peak-RSS-MiB")
		b.ReportMetric(heap, "heap-MiB")
		b.ReportMetric(heap*(1<<20)/parts, "heap-B/partition")
		b.ReportMetric((peak-base)*1024/parts, "RSS-B/partition")
		b.ReportMetric(float64(mid.Frames), "load-frames")
		b.ReportMetric(mid.FrameP99MS, "load-frame-p99-ms")
		b.ReportMetric(medianOf(results, func(r scaleResult) float64 { return r.SizesMS }), "sizes-2-readings-ms")
		b.ReportMetric(medianOf(results, func(r scaleResult) float64 { return r.SizesHeapMiB }), "sizes-heap-MiB")
		b.ReportMetric(medianOf(results, func(r scaleResult) float64 { return r.SizesBuildMS }), "sizes-build-ms")
		b.ReportMetric(medianOf(results, func(r scaleResult) float64 { return float64(r.LoadPeakRSSKiB) })/1024, "load-peak-RSS-MiB")
		b.Logf("bare %v (with brokers and configs %v, and GetW %v), TUI load %v (%.2f×, %.2f× the same znodes), first topics at %v; peak RSS %.0f MiB (base %.0f), heap %.1f MiB; %.0f B/partition heap, %.0f B/partition RSS; first banner %q; %d frames (%d partial), frame p99 %.1f ms max %.1f ms; %d requests",
			mb.Round(time.Millisecond), ma.Round(time.Millisecond), median(bareW).Round(time.Millisecond), ml.Round(time.Millisecond), float64(ml)/float64(mb), float64(ml)/float64(ma),
			median(first).Round(time.Millisecond), peak/1024, base/1024, heap, heap*(1<<20)/parts, (peak-base)*1024/parts,
			mid.FirstProgress, mid.Frames, mid.PartialFrames, mid.FrameP99MS, mid.FrameMaxMS, mid.MirrorRequests)
		b.Logf("rounds: bare %v, with brokers and configs %v, and GetW %v, load %v", bare, bareAll, bareW, load)
	}
}

// runScaleChild runs one child load and returns its result (its peak RSS
// as the child measured it: childPeakRSSKiB).
func runScaleChild(b *testing.B, cs string) scaleResult {
	b.Helper()
	cmd := exec.Command(os.Args[0], "-test.run", "^$")
	cmd.Env = append(os.Environ(), scaleChildEnv+"="+cs)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		b.Fatalf("scale child: %v\n%s", err, stderr.String())
	}
	var r scaleResult
	for line := range strings.SplitSeq(stdout.String(), "\n") {
		if rest, ok := strings.CutPrefix(line, "KTOPO-SCALE "); ok {
			if err := json.Unmarshal([]byte(rest), &r); err != nil {
				b.Fatal(err)
			}
		}
	}
	return r
}

// childPeakRSSKiB is a benchmark child's peak RSS as its own VmHWM says,
// read as it ends: the peak of this process since its exec. The kernel's
// rusage of the child (its Maxrss) is not: Go starts a child with
// clone(CLONE_VM|CLONE_VFORK), so until exec it runs in the parent's
// memory, and exec folds that memory's high-water mark into the child's
// Maxrss. A parent that read the cluster bare before (1.1 GiB for a
// million partitions) gave its own peak as the child's.
func childPeakRSSKiB() int { return procStatusKiB("VmHWM") }

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

func medianOf(rs []scaleResult, f func(scaleResult) float64) float64 {
	xs := make([]float64, len(rs))
	for i, r := range rs {
		xs[i] = f(r)
	}
	slices.Sort(xs)
	return xs[len(xs)/2]
}

// scaleSizes is a reading of every replica's size in snap at at, as a
// poller builds one from DescribeLogDirs (one directory per broker; sizes
// spread over four orders of magnitude; each partition grown since prev).
func scaleSizes(snap *cluster.Snapshot, at time.Time, prev *cluster.Sizes) *cluster.Sizes {
	b := cluster.NewSizesBuilder(at)
	for _, br := range snap.Brokers() {
		b.Broker(br.ID, []cluster.LogDir{{Path: "/var/lib/kafka/data", Total: 4 << 40, Usable: 2 << 40}})
	}
	grown := int64(0)
	if prev != nil {
		grown = 30 << 20
	}
	for ti, t := range snap.Topics() {
		for _, p := range t.Partitions {
			n := int64(1+(ti*7919+p.ID*104729)%10_000)<<17 + grown
			for _, r := range p.Replicas {
				b.Replica(t.Name, p.ID, cluster.ReplicaSize{Broker: int32(r), Bytes: n})
			}
		}
	}
	return b.Done(prev)
}
