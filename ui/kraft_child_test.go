package ui

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"math/rand/v2"
	"os"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/ktopo/ktopo/internal/memlimit"
	"github.com/ktopo/ktopo/kafkawatch"
)

// kraftChildEnv makes the test binary a child of BenchmarkKRaftScale: it
// opens the TUI on the KRaft cluster whose bootstrap servers the variable
// holds (the poller as the ktopo command makes it, every batch applied
// and a frame drawn), measures, prints its measurements and exits.
// KTOPO_KRAFT_CHILD_IDLE is how long to measure the polls of the quiet
// cluster, KTOPO_KRAFT_CHILD_CHANGES how many changes to time.
const kraftChildEnv = "KTOPO_KRAFT_CHILD"

// kraftResult is what a child measured.
type kraftResult struct {
	FirstTopicsMS float64   // Start to the first frame showing topics
	LoadMS        float64   // Start to the full model (every topic's configs) applied and drawn
	LoadCPUMS     float64   // the process's CPU until then
	Topics        int       // in the model once loaded
	Partitions    int       // the same
	IdleCPUPct    float64   // CPU of the whole process, over the idle window, per cent of a core
	IdleSeconds   float64   // the idle window
	PollMS        float64   // the last poll's duration (wall)
	ChangeMS      []float64 // a topic created (CreateTopics answered) to the frame showing it
	BaseRSSKiB    int       // VmRSS before starting
	PeakRSSKiB    int       // VmHWM at the end
	// LoadPeakRSSKiB is VmHWM before the sizes; SizesCPUMS the process's
	// CPU per sizes reading (read, built, applied, drawn), SizesReplicas
	// the replicas a reading held.
	LoadPeakRSSKiB int
	// LoadedRSSKiB is VmHWM when the full model is in.
	LoadedRSSKiB  int
	SizesCPUMS    float64
	SizesReplicas int
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// kraftChild is the child's main.
func kraftChild(bootstrap string) int {
	res, err := kraftLoad(bootstrap)
	if err != nil {
		fmt.Fprintln(os.Stderr, "kraft child:", err)
		return 1
	}
	res.PeakRSSKiB = max(res.PeakRSSKiB, childPeakRSSKiB())
	out, _ := json.Marshal(res)
	fmt.Printf("KTOPO-KRAFT %s\n", out)
	return 0
}

func envInt(name string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil {
		return n
	}
	return def
}

func kraftLoad(bootstrap string) (kraftResult, error) {
	defer memlimit.Start(memlimit.Floor)() // the ktopo command's memory policy
	if path := os.Getenv("KTOPO_KRAFT_MEMTRACE"); path != "" {
		stop := memTrace(path)
		defer stop()
	}
	var res kraftResult
	res.BaseRSSKiB = procStatusKiB("VmRSS")
	stopProfile := func() {}
	if path := os.Getenv("KTOPO_KRAFT_CPUPROFILE"); path != "" {
		if f, err := os.Create(path); err == nil && pprof.StartCPUProfile(f) == nil {
			stopProfile = func() { pprof.StopCPUProfile(); f.Close() }
		}
	}
	ctx := context.Background()
	start, cpu0 := time.Now(), cpuTime()
	d := kafkawatch.Dial{Bootstrap: kafkawatch.SplitBootstrap(bootstrap)}
	var logger *log.Logger
	if path := os.Getenv("KTOPO_KRAFT_CHILD_LOG"); path != "" {
		if f, err := os.Create(path); err == nil {
			defer f.Close()
			logger = log.New(f, "", log.Lmicroseconds)
			d.Logger = logger
		}
	}
	p, err := kafkawatch.Start(d, kafkawatch.Options{Progress: true, Logger: logger})
	if err != nil {
		return res, err
	}
	defer p.Close()
	app := New(Config{Source: p, Connect: bootstrap, Mode: ModeReadOnly})
	app.Update(tea.WindowSizeMsg{Width: 200, Height: 60})
	apply := func(b tea.Msg) {
		app.Update(b)
		_ = app.View().Content
	}
	for {
		b, err := p.Next(ctx)
		if err != nil {
			return res, err
		}
		apply(batchMsg(b))
		if s := app.Snapshot(); res.FirstTopicsMS == 0 && s != nil && len(s.Topics()) > 0 {
			res.FirstTopicsMS = float64(time.Since(start).Microseconds()) / 1000
		}
		if b.Loaded {
			res.LoadMS = float64(time.Since(start).Microseconds()) / 1000
			res.LoadCPUMS = float64((cpuTime() - cpu0).Microseconds()) / 1000
			res.LoadedRSSKiB = procStatusKiB("VmHWM")
			stopProfile()
			break
		}
	}
	s := app.Snapshot()
	res.Topics, res.Partitions = len(s.Topics()), s.Health().Partitions

	// The quiet cluster: what its polls cost (the poller and the TUI).
	idle := time.Duration(envInt("KTOPO_KRAFT_CHILD_IDLE", 10)) * time.Second
	stopIdleProfile := func() {}
	if path := os.Getenv("KTOPO_KRAFT_IDLE_CPUPROFILE"); path != "" {
		if f, err := os.Create(path); err == nil && pprof.StartCPUProfile(f) == nil {
			stopIdleProfile = func() { pprof.StopCPUProfile(); f.Close() }
		}
	}
	c0, w0 := cpuTime(), time.Now()
	// follow applies the poller's batches for d.
	follow := func(d time.Duration) {
		fctx, cancel := context.WithTimeout(ctx, d)
		defer cancel()
		for {
			b, err := p.Next(fctx)
			if err != nil {
				return
			}
			apply(batchMsg(b))
		}
	}
	follow(idle)
	stopIdleProfile()
	if path := os.Getenv("KTOPO_KRAFT_HEAPPROFILE"); path != "" {
		if f, err := os.Create(path); err == nil {
			runtime.GC()
			_ = pprof.WriteHeapProfile(f)
			f.Close()
		}
	}
	res.IdleSeconds = time.Since(w0).Seconds()
	res.IdleCPUPct = float64(cpuTime()-c0) * 100 / float64(time.Since(w0))
	for _, c := range p.Stats().Counts {
		if c.Unit == "ms a poll" {
			res.PollMS = float64(c.N)
		}
	}

	// Changes: a topic created, timed until the frame that shows it.
	cl, err := kgo.NewClient(kgo.SeedBrokers(d.Bootstrap...))
	if err != nil {
		return res, err
	}
	defer cl.Close()
	for i := range envInt("KTOPO_KRAFT_CHILD_CHANGES", 3) {
		// A change lands at any moment between two polls, as on a real
		// cluster: created right after the frame that showed the last
		// one, each would come just after a poll and wait a whole
		// interval. The polls go on (and are applied) meanwhile.
		follow(time.Duration(rand.Int64N(int64(kafkawatch.DefaultInterval))))
		name := fmt.Sprintf("change-%d-%d", os.Getpid(), i)
		req := kmsg.NewPtrCreateTopicsRequest()
		t := kmsg.NewCreateTopicsRequestTopic()
		t.Topic, t.NumPartitions, t.ReplicationFactor = name, 1, 1
		req.Topics = append(req.Topics, t)
		req.TimeoutMillis = 30_000
		resp, err := req.RequestWith(ctx, cl)
		if err == nil && resp.Topics[0].ErrorCode != 0 {
			err = fmt.Errorf("create %s: error code %d", name, resp.Topics[0].ErrorCode)
		}
		if err != nil {
			return res, err
		}
		t0 := time.Now()
		cctx, cancel := context.WithTimeout(ctx, time.Minute)
		for app.Snapshot().Topic(name) == nil {
			b, err := p.Next(cctx)
			if err != nil {
				cancel()
				return res, fmt.Errorf("%s never shown: %w (the last poll: %w)", name, err, p.Err())
			}
			apply(batchMsg(b))
		}
		cancel()
		res.ChangeMS = append(res.ChangeMS, float64(time.Since(t0).Microseconds())/1000)
		del := kmsg.NewPtrDeleteTopicsRequest()
		del.TopicNames = []string{name}
		dt := kmsg.NewDeleteTopicsRequestTopic()
		dt.Topic = &name
		del.Topics = []kmsg.DeleteTopicsRequestTopic{dt}
		_, _ = del.RequestWith(ctx, cl)
	}
	res.LoadPeakRSSKiB = procStatusKiB("VmHWM")

	// Sizes: three readings of every broker's log directories (the
	// session's SizePoller on the poller's client), each applied to the
	// TUI and drawn on the overview and the topics; the CPU of one.
	sp := kafkawatch.NewSizePoller(p.Client(), kafkawatch.SizeOptions{Interval: time.Second})
	defer sp.Close()
	c1 := cpuTime()
	const readings = 3
	for range readings {
		sz, err := sp.Next(ctx)
		if err != nil {
			return res, err
		}
		if !sz.Known() {
			return res, fmt.Errorf("sizes: %s", sz.Why())
		}
		app.Update(sizesMsg{sz})
		for _, tab := range []string{"1", "2"} {
			app.Update(tea.KeyPressMsg{Code: rune(tab[0]), Text: tab})
			_ = app.View().Content
		}
		res.SizesReplicas = 0
		for _, id := range sz.BrokerIDs() {
			d, _ := sz.Broker(id)
			res.SizesReplicas += d.Replicas
		}
	}
	res.SizesCPUMS = float64((cpuTime() - c1).Microseconds()) / 1000 / readings
	res.PeakRSSKiB = procStatusKiB("VmHWM")
	return res, nil
}

// populateKRaft creates, on the cluster at bootstrap, the topics
// scale-00000… (parts partitions each, replication factor 1) it lacks,
// 200 a request; it returns how many it created.
func populateKRaft(bootstrap string, topics, parts int) (int, error) {
	cl, err := kgo.NewClient(kgo.SeedBrokers(kafkawatch.SplitBootstrap(bootstrap)...), kgo.RetryTimeout(5*time.Minute))
	if err != nil {
		return 0, err
	}
	defer cl.Close()
	ctx := context.Background()
	created := 0
	for from := 0; from < topics; from += 200 {
		req := kmsg.NewPtrCreateTopicsRequest()
		req.TimeoutMillis = 300_000
		for i := from; i < min(from+200, topics); i++ {
			t := kmsg.NewCreateTopicsRequestTopic()
			t.Topic, t.NumPartitions, t.ReplicationFactor = fmt.Sprintf("scale-%05d", i), int32(parts), 1
			req.Topics = append(req.Topics, t)
		}
		resp, err := req.RequestWith(ctx, cl)
		if err != nil {
			return created, err
		}
		for _, t := range resp.Topics {
			switch t.ErrorCode {
			case 0:
				created++
			case 36: // TOPIC_ALREADY_EXISTS: a cluster populated before
			default:
				msg := ""
				if t.ErrorMessage != nil {
					msg = *t.ErrorMessage
				}
				return created, fmt.Errorf("create %s: error code %d %s", t.Topic, t.ErrorCode, msg)
			}
		}
	}
	// The controller answers once it has committed the topics; the
	// brokers create their partitions after, which takes a while for
	// 100,000: wait until a broker's Metadata lists every topic, each
	// partition with a leader, then until every broker holds the log of
	// every partition assigned to it. (A broker still creating them is
	// minutes behind the others' metadata and busy: a load measured then
	// measures the brokers' catching up.)
	deadline := time.Now().Add(15 * time.Minute)
	for {
		resp, err := kmsg.NewPtrMetadataRequest().RequestWith(ctx, cl)
		if err != nil {
			return created, err
		}
		ready := 0
		assigned := map[int32]int{}
		for _, t := range resp.Topics {
			for _, p := range t.Partitions {
				for _, r := range p.Replicas {
					assigned[r]++
				}
			}
			if t.Topic == nil || !strings.HasPrefix(*t.Topic, "scale-") || len(t.Partitions) != parts {
				continue
			}
			led := true
			for _, p := range t.Partitions {
				led = led && p.Leader >= 0
			}
			if led {
				ready++
			}
		}
		if ready >= topics {
			missing, err := missingLogs(ctx, cl, assigned)
			if err != nil {
				return created, err
			}
			if missing == 0 {
				return created, nil
			}
			if time.Now().After(deadline) {
				return created, fmt.Errorf("after 15 minutes the brokers lack the logs of %d partitions", missing)
			}
		} else if time.Now().After(deadline) {
			return created, fmt.Errorf("after 15 minutes %d of %d topics have every partition led", ready, topics)
		}
		time.Sleep(2 * time.Second)
	}
}

// missingLogs asks every broker of assigned (broker → partitions
// assigned to it) for its log directories and returns how many of its
// partitions have no log there yet.
func missingLogs(ctx context.Context, cl *kgo.Client, assigned map[int32]int) (int, error) {
	missing := 0
	for id, want := range assigned {
		req := kmsg.NewPtrDescribeLogDirsRequest() // Topics nil: every partition
		resp, err := req.RequestWith(ctx, cl.Broker(int(id)))
		if err != nil {
			return 0, err
		}
		have := 0
		for _, d := range resp.Dirs {
			for _, t := range d.Topics {
				have += len(t.Partitions)
			}
		}
		missing += max(want-have, 0)
	}
	return missing, nil
}

// bareKRaft reads what the poller's first load reads, without applying
// any of it: Metadata of every topic, then every topic's configs as the
// poller asks them (250 topics a DescribeConfigs, 4 requests in flight,
// each to the next broker in turn), every response decoded by kmsg. It
// returns how long each took: what the brokers need to answer, the floor
// of a load.
func bareKRaft(bootstrap string) (meta, configs time.Duration, err error) {
	cl, err := kgo.NewClient(kgo.SeedBrokers(kafkawatch.SplitBootstrap(bootstrap)...), kgo.BrokerMaxReadBytes(1<<30))
	if err != nil {
		return 0, 0, err
	}
	defer cl.Close()
	ctx := context.Background()
	start := time.Now()
	resp, err := kmsg.NewPtrMetadataRequest().RequestWith(ctx, cl)
	if err != nil {
		return 0, 0, err
	}
	meta = time.Since(start)
	var names []string
	for _, t := range resp.Topics {
		if t.Topic != nil {
			names = append(names, *t.Topic)
		}
	}
	var brokers []int32
	for _, b := range resp.Brokers {
		brokers = append(brokers, b.NodeID)
	}
	start = time.Now()
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
		broker := cl.Broker(int(brokers[i%len(brokers)]))
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			if _, err := req.RequestWith(ctx, broker); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	return meta, time.Since(start), <-errs
}

// memTrace writes to path, every 10 ms until stop, the process's RSS and
// the runtime's view of its memory (MiB): what peak RSS is made of.
func memTrace(path string) (stop func()) {
	f, err := os.Create(path)
	if err != nil {
		return func() {}
	}
	names := []string{"/memory/classes/total:bytes", "/memory/classes/heap/objects:bytes", "/memory/classes/heap/free:bytes",
		"/memory/classes/heap/released:bytes", "/gc/heap/live:bytes", "/gc/heap/goal:bytes", "/gc/gomemlimit:bytes", "/gc/cycles/total:gc-cycles"}
	samples := make([]metrics.Sample, len(names))
	for i, n := range names {
		samples[i].Name = n
	}
	fmt.Fprintf(f, "ms rss total objects free released live goal limit gcs\n")
	done := make(chan struct{})
	ended := make(chan struct{})
	t0 := time.Now()
	go func() {
		defer close(ended)
		tk := time.NewTicker(10 * time.Millisecond)
		defer tk.Stop()
		for {
			select {
			case <-done:
				return
			case <-tk.C:
			}
			metrics.Read(samples)
			fmt.Fprintf(f, "%d %d", time.Since(t0).Milliseconds(), procStatusKiB("VmRSS")>>10)
			for i, s := range samples {
				v := s.Value.Uint64()
				if i < len(samples)-1 {
					v >>= 20
				}
				fmt.Fprintf(f, " %d", v)
			}
			fmt.Fprintln(f)
		}
	}()
	return func() { close(done); <-ended; f.Close() }
}
