package ui

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ktopo/ktopo/internal/testkit/kafkatest"
	"github.com/ktopo/ktopo/kafkawatch"
)

// BenchmarkKRaftScale opens the TUI on a real KRaft cluster (Kafka 4.4.0)
// of 10,000 topics × 10 partitions, in a child process (the test binary,
// see kraftChildEnv) so that its peak RSS is its own, and reports: the
// first frame showing topics, the full model (every topic's configs read),
// the peak RSS, the CPU of the quiet cluster's polls (the poller and the
// TUI, per cent of a core at the default 1 s poll), and how long a topic
// created on the cluster, at a random moment between two polls, takes to
// be on screen. Budgets: first topics
// under 1 s, the full model under 3 s, peak RSS under 200 MiB, a change on
// screen under 1.5 s, a poll's CPU under 5 % of a core.
//
// One broker cannot hold 100,000 partitions here (a process may open
// 20,000 files, and every partition keeps one open): the cluster has one
// controller and a broker per 14,000 partitions, replication factor 1.
// Under -short (CI runs every benchmark once) it is 100 topics on one
// combined node. KTOPO_KRAFT_BENCH_BOOTSTRAP names a cluster to use
// instead of starting one (its missing scale-* topics are created),
// KTOPO_KRAFT_BENCH_TOPICS another number of topics. Each iteration runs
// KTOPO_KRAFT_ROUNDS children (3; 1 under -short), each after a bare
// reader of the same Metadata and DescribeConfigs (what the brokers need,
// the floor of a load), and reports the medians (the peak RSS: the
// highest). KTOPO_KRAFT_CPUPROFILE writes a child's CPU profile of its
// first load, KTOPO_KRAFT_IDLE_CPUPROFILE of its idle polls,
// KTOPO_KRAFT_HEAPPROFILE its heap after them,
// KTOPO_KRAFT_CHILD_LOG its poller's log, KTOPO_KRAFT_MEMTRACE its RSS
// and the runtime's memory figures every 10 ms (memTrace).
//
// BenchmarkKRaftSandboxScale measures the same on a KRaft sandbox
// (no Java; 100,000 topics with KTOPO_KRAFT_BENCH_TOPICS=100000).
//
// Run with: go test -run '^$' -bench KRaftScale -benchtime 1x ./ui
func BenchmarkKRaftScale(b *testing.B) {
	topics, parts := 10_000, 10
	if testing.Short() {
		topics = 100
	}
	if n, err := strconv.Atoi(os.Getenv("KTOPO_KRAFT_BENCH_TOPICS")); err == nil {
		topics = n
	}
	bs := os.Getenv("KTOPO_KRAFT_BENCH_BOOTSTRAP")
	if bs == "" {
		kafkatest.Require(b, kafkatest.Kafka44)
		o := kafkatest.KRaftOptions{Version: kafkatest.Kafka44, Combined: true, Racks: 3}
		if n := (topics*parts + 13_999) / 14_000; n > 1 {
			o = kafkatest.KRaftOptions{Version: kafkatest.Kafka44, Controllers: 1, Brokers: n, Racks: 3,
				Heap: "640m", ControllerHeap: "1g"}
		}
		start := time.Now()
		c, err := kafkatest.StartKRaft(o)
		if err != nil {
			b.Fatal(err)
		}
		defer c.Stop()
		bs = c.Bootstrap()
		b.Logf("KRaft cluster of %d broker(s) ready in %s", len(c.Brokers()), time.Since(start).Round(time.Millisecond))
	}
	start := time.Now()
	created, err := populateKRaft(bs, topics, parts)
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("created %d topics × %d partitions in %s", created, parts, time.Since(start).Round(time.Millisecond))
	kraftScale(b, bs, topics)
}

// kraftScale is BenchmarkKRaftScale's measurements on the cluster at bs,
// which holds at least topics topics.
func kraftScale(b *testing.B, bs string, topics int) {
	idle, changes, rounds := "10", "3", 3
	if testing.Short() {
		idle, changes, rounds = "3", "1", 1
	}
	if n, err := strconv.Atoi(os.Getenv("KTOPO_KRAFT_ROUNDS")); err == nil && n > 0 {
		rounds = n
	}
	for b.Loop() {
		var results []kraftResult
		var bareMeta, bareConfigs []float64
		for range rounds {
			meta, configs, err := bareKRaft(bs)
			if err != nil {
				b.Fatal(err)
			}
			bareMeta = append(bareMeta, float64(meta.Microseconds())/1000)
			bareConfigs = append(bareConfigs, float64(configs.Microseconds())/1000)
			cmd := exec.Command(os.Args[0], "-test.run", "^$")
			cmd.Env = append(os.Environ(), kraftChildEnv+"="+bs, "KTOPO_KRAFT_CHILD_IDLE="+idle, "KTOPO_KRAFT_CHILD_CHANGES="+changes)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Run(); err != nil {
				b.Fatalf("kraft child: %v\n%s", err, stderr.String())
			}
			var r kraftResult
			for line := range strings.SplitSeq(stdout.String(), "\n") {
				if rest, ok := strings.CutPrefix(line, "KTOPO-KRAFT "); ok {
					if err := json.Unmarshal([]byte(rest), &r); err != nil {
						b.Fatal(err)
					}
				}
			}
			if r.Topics < topics {
				b.Fatalf("the model holds %d topics, want at least %d", r.Topics, topics)
			}
			results = append(results, r)
			b.Logf("round: bare Metadata %.0f ms, bare configs %.0f ms; first topics %.0f ms, full model %.0f ms (ktopo's CPU %.0f ms), peak RSS %.0f MiB (%.0f MiB when loaded, %.0f MiB before the sizes), idle polls %.1f%% of a core (last poll %.0f ms), changes on screen %v ms",
				bareMeta[len(bareMeta)-1], bareConfigs[len(bareConfigs)-1], r.FirstTopicsMS, r.LoadMS, r.LoadCPUMS, float64(r.PeakRSSKiB)/1024, float64(r.LoadedRSSKiB)/1024, float64(r.LoadPeakRSSKiB)/1024, r.IdleCPUPct, r.PollMS, r.ChangeMS)
		}
		of := func(f func(kraftResult) float64) []float64 {
			var out []float64
			for _, r := range results {
				out = append(out, f(r))
			}
			return out
		}
		var change []float64
		for _, r := range results {
			change = append(change, r.ChangeMS...)
		}
		r := results[0]
		b.ReportMetric(medianF(of(func(r kraftResult) float64 { return r.FirstTopicsMS })), "first-topics-ms")
		b.ReportMetric(medianF(of(func(r kraftResult) float64 { return r.LoadMS })), "full-model-ms")
		b.ReportMetric(medianF(bareConfigs), "bare-configs-ms")
		b.ReportMetric(medianF(bareMeta), "bare-meta-ms")
		b.ReportMetric(medianF(of(func(r kraftResult) float64 { return r.LoadCPUMS })), "load-CPU-ms")
		b.ReportMetric(slices.Max(of(func(r kraftResult) float64 { return float64(r.PeakRSSKiB) }))/1024, "peak-RSS-MiB")
		b.ReportMetric(slices.Max(of(func(r kraftResult) float64 { return float64(r.LoadPeakRSSKiB) }))/1024, "load-peak-RSS-MiB")
		b.ReportMetric(slices.Max(of(func(r kraftResult) float64 { return float64(r.LoadedRSSKiB) }))/1024, "loaded-RSS-MiB")
		sizesCPU := medianF(of(func(r kraftResult) float64 { return r.SizesCPUMS }))
		b.ReportMetric(sizesCPU, "sizes-CPU-ms")
		// A reading every DefaultSizesInterval (30 s) and, while a move
		// runs, every DefaultSizesHurried (5 s): its share of a core.
		b.ReportMetric(sizesCPU/float64(kafkawatch.DefaultSizesInterval.Milliseconds())*100, "sizes-CPU-%")
		b.ReportMetric(sizesCPU/float64(kafkawatch.DefaultSizesHurried.Milliseconds())*100, "sizes-hurried-CPU-%")
		b.ReportMetric(float64(r.SizesReplicas), "sizes-replicas")
		b.ReportMetric(medianF(of(func(r kraftResult) float64 { return r.IdleCPUPct })), "poll-CPU-%")
		b.ReportMetric(medianF(of(func(r kraftResult) float64 { return r.PollMS })), "poll-ms")
		if len(change) > 0 {
			b.ReportMetric(medianF(change), "change-ms")
			b.ReportMetric(slices.Max(change), "change-max-ms")
		}
		b.Logf("%d topics, %d partitions, %d round(s): medians: bare Metadata %.0f ms, bare configs %.0f ms; first topics %.0f ms, full model %.0f ms; peak RSS %.0f MiB (base %.0f); idle polls %.1f%% of a core; changes on screen %v ms",
			r.Topics, r.Partitions, rounds, medianF(bareMeta), medianF(bareConfigs), medianF(of(func(r kraftResult) float64 { return r.FirstTopicsMS })),
			medianF(of(func(r kraftResult) float64 { return r.LoadMS })), slices.Max(of(func(r kraftResult) float64 { return float64(r.PeakRSSKiB) }))/1024,
			float64(r.BaseRSSKiB)/1024, medianF(of(func(r kraftResult) float64 { return r.IdleCPUPct })), change)
	}
}

// medianF is the median of xs (0 for none).
func medianF(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}
