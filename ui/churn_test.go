package ui

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/go-zookeeper/zk"

	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/clusterwatch/zksource"
	"github.com/ktopo/ktopo/internal/testkit/scaletree"
	"github.com/ktopo/ktopo/internal/testkit/zktest"
	"github.com/ktopo/ktopo/ui/screens/events"
	"github.com/ktopo/ktopo/zkwatch"
)

// churnDriverEnv makes the test binary the churn's writer (a separate
// process, so that the TUI's CPU time is its own): the variable holds a
// churnPlan in JSON.
const churnDriverEnv = "KTOPO_CHURN_DRIVER"

// churnPlan is what the driver writes: Rate partition-state writes per
// second for Duration at random partitions, and three bursts: at 35% the
// broker DeadBroker dies (its registration deleted, every partition it
// leads moved to the next replica and shrunk, in multis as a controller
// writes them), at 50% it registers again, at 65% the controller fails
// over (a new /controller and epoch, every partition state rewritten).
type churnPlan struct {
	Connect    string
	Scale      scaletree.Scale
	Rate       int
	Duration   time.Duration
	DeadBroker int
}

// churnDone is what the driver reports.
type churnDone struct {
	Writes, BurstWrites int
	Errors              int
	Bursts              map[string]time.Duration // since the start
}

func (p churnPlan) at(f float64) time.Duration { return time.Duration(f * float64(p.Duration)) }

func churnDriver(env string) int {
	var p churnPlan
	if err := json.Unmarshal([]byte(env), &p); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	d, err := drive(p)
	if err != nil {
		fmt.Fprintln(os.Stderr, "churn driver:", err)
		return 1
	}
	out, _ := json.Marshal(d)
	fmt.Printf("KTOPO-CHURN %s\n", out)
	return 0
}

func drive(p churnPlan) (churnDone, error) {
	done := churnDone{Bursts: map[string]time.Duration{}}
	i := bytes.IndexByte([]byte(p.Connect), '/')
	addr, root := p.Connect[:i], p.Connect[i:]
	conn, ev, err := zk.Connect([]string{addr}, 30*time.Second, zk.WithLogInfo(false), zk.WithLogger(nopLogger{}))
	if err != nil {
		return done, err
	}
	defer conn.Close()
	for e := range ev {
		if e.State == zk.StateHasSession {
			break
		}
	}
	s := p.Scale
	var mu sync.Mutex
	r := rand.New(rand.NewPCG(1, 2))
	var writes, errs, epoch atomic.Int64
	ctrlEpoch := atomic.Int64{}
	ctrlEpoch.Store(1)
	// A steady write moves the leader to another replica, or shrinks or
	// expands the ISR, as a controller and leaders do; a burst's writes
	// leave the dead broker out.
	state := func(t, q int, dead int) []byte {
		reps := s.Replicas(t, q)
		e := int(epoch.Add(1))
		isr := slices.DeleteFunc(slices.Clone(reps), func(b int) bool { return b == dead })
		if dead == 0 && e%4 == 0 {
			isr = isr[:2]
		}
		leader := isr[0]
		if dead == 0 {
			leader = isr[e%len(isr)]
		}
		return cluster.EncodePartitionState(cluster.PartitionState{ControllerEpoch: int(ctrlEpoch.Load()), Leader: leader,
			LeaderEpoch: e, ISR: isr})
	}
	statePath := func(t, q int) string { return root + cluster.PartitionStatePath(scaletree.Topic(t), q) }
	start := time.Now()
	var wg sync.WaitGroup
	const writers = 16
	for w := range writers {
		wg.Go(func() {
			interval := time.Second * writers / time.Duration(p.Rate)
			next := start.Add(time.Duration(w) * time.Second / time.Duration(p.Rate))
			for time.Since(start) < p.Duration {
				time.Sleep(time.Until(next))
				next = next.Add(interval)
				mu.Lock()
				t, q := r.IntN(s.Topics), r.IntN(s.Partitions)
				mu.Unlock()
				if _, err := conn.Set(statePath(t, q), state(t, q, 0), -1); err != nil {
					errs.Add(1)
				}
				writes.Add(1)
			}
		})
	}
	multi := func(paths []string, datas [][]byte) error {
		ops := make([]any, len(paths))
		for i := range paths {
			ops[i] = &zk.SetDataRequest{Path: paths[i], Data: datas[i], Version: -1}
		}
		_, err := conn.Multi(ops...)
		return err
	}
	rewrite := func(dead int, which func(t, q int) bool) error {
		var paths []string
		var datas [][]byte
		for t := range s.Topics {
			for q := range s.Partitions {
				if !which(t, q) {
					continue
				}
				paths, datas = append(paths, statePath(t, q)), append(datas, state(t, q, dead))
				if len(paths) == 1000 {
					if err := multi(paths, datas); err != nil {
						return err
					}
					done.BurstWrites += len(paths)
					paths, datas = paths[:0], datas[:0]
				}
			}
		}
		if len(paths) > 0 {
			done.BurstWrites += len(paths)
			return multi(paths, datas)
		}
		return nil
	}
	dead := p.DeadBroker
	time.Sleep(time.Until(start.Add(p.at(0.35))))
	done.Bursts["broker-death"] = time.Since(start)
	if err := conn.Delete(root+cluster.BrokerIDPath(dead), -1); err != nil {
		return done, fmt.Errorf("broker death: %w", err)
	}
	if err := rewrite(dead, func(t, q int) bool { return slices.Contains(s.Replicas(t, q), dead) }); err != nil {
		return done, fmt.Errorf("broker death: %w", err)
	}
	time.Sleep(time.Until(start.Add(p.at(0.5))))
	done.Bursts["broker-return"] = time.Since(start)
	reg := cluster.NewBrokerRegistration(5, []cluster.BrokerEndpoint{{Listener: "PLAINTEXT", SecurityProtocol: "PLAINTEXT", Host: "kafka-" + strconv.Itoa(dead), Port: 9092}},
		-1, "rack-"+string(rune('a'+dead%3)), time.Now().UnixMilli(), nil)
	if _, err := conn.Create(root+cluster.BrokerIDPath(dead), cluster.EncodeBroker(reg), 0, zk.WorldACL(zk.PermAll)); err != nil {
		return done, fmt.Errorf("broker return: %w", err)
	}
	time.Sleep(time.Until(start.Add(p.at(0.65))))
	done.Bursts["controller-failover"] = time.Since(start)
	ctrlEpoch.Store(2)
	if _, err := conn.Multi(&zk.DeleteRequest{Path: root + cluster.ControllerPath, Version: -1},
		&zk.CreateRequest{Path: root + cluster.ControllerPath, Data: cluster.EncodeController(cluster.NewControllerInfo(2, 2, time.Now().UnixMilli())), Acl: zk.WorldACL(zk.PermAll)},
		&zk.SetDataRequest{Path: root + cluster.ControllerEpochPath, Data: cluster.EncodeControllerEpoch(2), Version: -1}); err != nil {
		return done, fmt.Errorf("failover: %w", err)
	}
	if err := rewrite(0, func(int, int) bool { return true }); err != nil {
		return done, fmt.Errorf("failover: %w", err)
	}
	done.Bursts["failover-written"] = time.Since(start)
	wg.Wait()
	done.Writes, done.Errors = int(writes.Load()), int(errs.Load())
	return done, nil
}

// timedApp is the App as a tea.Model with every Update and View timed, and
// what the test reads of it published for the test's goroutine.
type timedApp struct {
	a *App

	mu         sync.Mutex
	views      []time.Duration
	updates    []time.Duration // batches only
	lastView   time.Time
	maxGap     time.Duration // between two frames, while measuring
	measure    bool
	timelineHi int

	loaded   atomic.Bool
	snap     atomic.Pointer[cluster.Snapshot]
	timeline atomic.Int64
}

func (w *timedApp) Init() tea.Cmd { return w.a.Init() }

func (w *timedApp) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	t0 := time.Now()
	_, cmd := w.a.Update(msg)
	d := time.Since(t0)
	if _, ok := msg.(batchReadyMsg); ok { // a mirror batch (see waitForBatch)
		w.mu.Lock()
		if w.measure {
			w.updates = append(w.updates, d)
		}
		n := w.a.events.Len()
		w.timelineHi = max(w.timelineHi, n)
		w.mu.Unlock()
		w.timeline.Store(int64(n))
		w.snap.Store(w.a.Snapshot())
		w.loaded.Store(w.a.loaded)
	}
	return w, cmd
}

func (w *timedApp) View() tea.View {
	t0 := time.Now()
	v := w.a.View()
	d := time.Since(t0)
	w.mu.Lock()
	if w.measure {
		w.views = append(w.views, d)
		if !w.lastView.IsZero() {
			w.maxGap = max(w.maxGap, t0.Sub(w.lastView))
		}
	}
	w.lastView = t0
	w.mu.Unlock()
	return v
}

// churnSample is one look at the TUI's process during the churn.
type churnSample struct {
	at         time.Duration
	cpu        time.Duration // user+system so far
	heap       uint64        // live heap after a GC
	goroutines int
	timeline   int
}

type churnRun struct {
	plan       churnPlan
	capacity   int           // the timeline's
	sampleEach time.Duration // how often to sample
	gcSamples  bool          // GC before reading the heap
}

type churnResult struct {
	samples             []churnSample
	views, updates      []time.Duration
	maxGap              time.Duration
	timelineHi          int
	baseG, endG         int
	driver              churnDone
	mismatches, checked int
}

func quantile(ds []time.Duration, f float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[int(f*float64(len(s)-1))]
}

func rusageCPU() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// runChurn opens the TUI (the App in a real tea.Program drawing to
// nothing, its mirror as the ktopo command makes it) on the cluster, waits
// for the load, runs the driver and samples the process meanwhile.
func runChurn(t *testing.T, cr churnRun) churnResult {
	var res churnResult
	runtime.GC()
	res.baseG = runtime.NumGoroutine()
	conn, err := zkwatch.Connect(context.Background(), cr.plan.Connect, zkwatch.Options{})
	if err != nil {
		t.Fatal(err)
	}
	mirror, err := zkwatch.NewMirror(conn, zksource.Shape(), zksource.TUIMirror())
	if err != nil {
		t.Fatal(err)
	}
	app := New(Config{Source: zksource.New(mirror, conn), Prober: zksource.Prober{Browser: conn}, Connect: cr.plan.Connect, Mode: ModeReadOnly, EventCapacity: cr.capacity})
	w := &timedApp{a: app}
	p := tea.NewProgram(w, tea.WithInput(nil), tea.WithOutput(io.Discard), tea.WithWindowSize(200, 60), tea.WithoutSignalHandler())
	ran := make(chan error, 1)
	go func() { _, err := p.Run(); ran <- err }()
	// Show the events tab: the timeline is drawn every frame.
	p.Send(tea.KeyPressMsg{Code: '4', Text: "4"})
	deadline := time.Now().Add(5 * time.Minute)
	for !w.loaded.Load() {
		if time.Now().After(deadline) {
			t.Fatal("no load")
		}
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(time.Second) // the load's last batches
	w.mu.Lock()
	w.measure, w.lastView = true, time.Time{}
	w.mu.Unlock()

	plan, _ := json.Marshal(cr.plan)
	cmd := exec.Command(os.Args[0], "-test.run", "^$")
	cmd.Env = append(os.Environ(), churnDriverEnv+"="+string(plan))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		tick := time.NewTicker(cr.sampleEach)
		defer tick.Stop()
		for {
			s := churnSample{at: time.Since(start), cpu: rusageCPU(), goroutines: runtime.NumGoroutine(), timeline: int(w.timeline.Load())}
			if cr.gcSamples {
				runtime.GC()
			}
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			s.heap = ms.HeapAlloc
			res.samples = append(res.samples, s)
			select {
			case <-stop:
				return
			case <-tick.C:
			}
		}
	}()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("churn driver: %v\n%s", err, stderr.String())
	}
	time.Sleep(time.Second) // the last writes reach the screen
	close(stop)
	<-sampled
	for line := range bytes.SplitSeq(stdout.Bytes(), []byte("\n")) {
		if rest, ok := bytes.CutPrefix(line, []byte("KTOPO-CHURN ")); ok {
			if err := json.Unmarshal(rest, &res.driver); err != nil {
				t.Fatal(err)
			}
		}
	}

	// What the TUI shows is what ZooKeeper holds.
	check, _, err := zk.Connect([]string{cr.plan.Connect[:bytes.IndexByte([]byte(cr.plan.Connect), '/')]}, 30*time.Second,
		zk.WithLogInfo(false), zk.WithLogger(nopLogger{}))
	if err != nil {
		t.Fatal(err)
	}
	defer check.Close()
	root := cr.plan.Connect[bytes.IndexByte([]byte(cr.plan.Connect), '/'):]
	type sample struct {
		topic     string
		partition int
		state     cluster.PartitionState
	}
	var want []sample
	r := rand.New(rand.NewPCG(3, 4))
	for range 200 {
		ti, q := r.IntN(cr.plan.Scale.Topics), r.IntN(cr.plan.Scale.Partitions)
		data, _, err := check.Get(root + cluster.PartitionStatePath(scaletree.Topic(ti), q))
		if err != nil {
			t.Fatal(err)
		}
		st, _ := cluster.DecodePartitionState(data)
		want = append(want, sample{scaletree.Topic(ti), q, st})
	}
	// The driver has stopped: the screen catches up with ZooKeeper, however
	// loaded the machine (a second was not always enough on a busy one).
	differ := func() int {
		snap, n := w.snap.Load(), 0
		for _, s := range want {
			tp := snap.Topic(s.topic)
			if tp == nil || tp.Partition(s.partition) == nil || tp.Partition(s.partition).LeaderEpoch != s.state.LeaderEpoch || tp.Partition(s.partition).Leader != s.state.Leader {
				n++
			}
		}
		return n
	}
	res.checked = len(want)
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		if res.mismatches = differ(); res.mismatches == 0 || time.Now().After(deadline) {
			break
		}
	}

	check.Close()
	w.mu.Lock()
	res.views, res.updates, res.maxGap, res.timelineHi = w.views, w.updates, w.maxGap, w.timelineHi
	w.measure = false
	w.mu.Unlock()
	p.Quit()
	if err := <-ran; err != nil {
		t.Fatal(err)
	}
	_ = mirror.Close()
	conn.Close()
	// Everything the TUI started ends with it.
	for end := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		res.endG = runtime.NumGoroutine()
		if res.endG <= res.baseG || time.Now().After(end) {
			break
		}
	}
	return res
}

// report logs a churn's numbers and checks what holds whatever the
// machine: the timeline bounded, the screen in step with ZooKeeper, no
// goroutine left behind.
func (res churnResult) report(t *testing.T, cr churnRun) {
	t.Helper()
	p := cr.plan
	t.Logf("driver: %d steady writes (%.0f/s), %d in bursts, %d errors; bursts at %v", res.driver.Writes,
		float64(res.driver.Writes)/p.Duration.Seconds(), res.driver.BurstWrites, res.driver.Errors, res.driver.Bursts)
	t.Logf("frames: %d views p50 %v p99 %v max %v; batches: %d updates p50 %v p99 %v max %v; longest gap between frames %v",
		len(res.views), quantile(res.views, 0.5), quantile(res.views, 0.99), quantile(res.views, 1),
		len(res.updates), quantile(res.updates, 0.5), quantile(res.updates, 0.99), quantile(res.updates, 1), res.maxGap)
	// CPU: the steady windows are after the warm-up (10%) up to the first
	// burst, and from 80% (bursts done) to the end.
	steady := func(from, to time.Duration) (time.Duration, time.Duration) {
		var a, b *churnSample
		for i := range res.samples {
			s := &res.samples[i]
			if a == nil && s.at >= from {
				a = s
			}
			if s.at <= to {
				b = s
			}
		}
		if a == nil || b == nil || b.at <= a.at {
			return 0, 0
		}
		return b.cpu - a.cpu, b.at - a.at
	}
	c1, d1 := steady(p.at(0.1), p.at(0.35))
	c2, d2 := steady(p.at(0.8), p.Duration)
	all := res.samples[len(res.samples)-1].cpu - res.samples[0].cpu
	span := res.samples[len(res.samples)-1].at - res.samples[0].at
	if d1+d2 > 0 {
		t.Logf("CPU: %.2f cores at steady churn (%v of %v), %.2f over the whole run with the bursts", (c1+c2).Seconds()/(d1+d2).Seconds(), c1+c2, d1+d2, all.Seconds()/span.Seconds())
	}
	var heaps []string
	warm := 0
	for i, s := range res.samples {
		if s.at < p.at(0.1) {
			warm = i + 1
		}
		if i%max(len(res.samples)/12, 1) == 0 || i == len(res.samples)-1 {
			heaps = append(heaps, fmt.Sprintf("%v: %.0f MiB %dg %d events", s.at.Round(time.Second), float64(s.heap)/(1<<20), s.goroutines, s.timeline))
		}
	}
	t.Logf("heap, goroutines, timeline: %v", heaps)
	t.Logf("goroutines: %d before the TUI, %d after it closed; timeline at most %d of %d; %d of %d partitions checked differ from ZooKeeper",
		res.baseG, res.endG, res.timelineHi, cr.capacity, res.mismatches, res.checked)
	if res.timelineHi > cr.capacity {
		t.Errorf("the timeline held %d events, over its capacity %d", res.timelineHi, cr.capacity)
	}
	if res.mismatches > 0 {
		t.Errorf("%d of %d partitions shown differ from ZooKeeper", res.mismatches, res.checked)
	}
	if res.endG > res.baseG {
		t.Errorf("%d goroutines after the TUI closed, %d before", res.endG, res.baseG)
	}
	if res.driver.Errors > 0 {
		t.Errorf("%d writes failed", res.driver.Errors)
	}
	if warm < len(res.samples) {
		lo, hi := res.samples[warm].goroutines, res.samples[warm].goroutines
		for _, s := range res.samples[warm:] {
			lo, hi = min(lo, s.goroutines), max(hi, s.goroutines)
		}
		t.Logf("goroutines after the warm-up: %d to %d", lo, hi)
	}
}

// TestChurn is the churn in small (200 topics × 10 partitions, 30
// brokers, 1,000 state writes/s for 6 s with the three bursts, the
// timeline's capacity 2,000), in every run: the timeline stays bounded,
// the screen ends in step with ZooKeeper and the TUI leaves no goroutine
// behind. Its timings are logged, never asserted.
func TestChurn(t *testing.T) {
	s := scaletree.Scale{Topics: 200, Partitions: 10, Brokers: 30}
	cs := zktest.Chroot(t)
	i := bytes.IndexByte([]byte(cs), '/')
	if err := s.Write(zktest.Connect(t, cs[:i]), cs[i:]+"/c"); err != nil {
		t.Fatal(err)
	}
	cr := churnRun{plan: churnPlan{Connect: cs + "/c", Scale: s, Rate: 1000, Duration: 6 * time.Second, DeadBroker: 7},
		capacity: 2000, sampleEach: 500 * time.Millisecond}
	runChurn(t, cr).report(t, cr)
}

// TestChurnSoak is the churn at scale, with KTOPO_SOAK=1 outside -short:
// the TUI on 10,000 topics × 10 partitions (30 brokers) while 1,000
// partition-state writes a second go on for KTOPO_SOAK_DURATION (10m),
// with the bursts (broker 7, the leader of 3,333 partitions, dies and
// comes back; the controller fails over and every state is rewritten).
// It logs render and batch times, the TUI's CPU at steady churn, its heap,
// goroutines and timeline over time; it fails only on what holds on any
// machine (see report) and on a heap that grows by half after the warm-up.
//
//	CI=true KTOPO_SOAK=1 go test ./ui -run TestChurnSoak -timeout 30m -v
func TestChurnSoak(t *testing.T) {
	if testing.Short() || os.Getenv("KTOPO_SOAK") == "" {
		t.Skip("a soak: KTOPO_SOAK=1, outside -short")
	}
	d := 10 * time.Minute
	if v, err := time.ParseDuration(os.Getenv("KTOPO_SOAK_DURATION")); err == nil && v > 0 {
		d = v
	}
	s := scaleSpec()
	cs := zktest.Addr(t) + fmt.Sprintf("/ktopo-soak-%d", os.Getpid())
	start := time.Now()
	if err := s.Write(zktest.Connect(t, zktest.Addr(t)), cs[bytes.IndexByte([]byte(cs), '/'):]); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %d topics × %d partitions on %d brokers in %v", s.Topics, s.Partitions, s.Brokers, time.Since(start).Round(time.Millisecond))
	cr := churnRun{plan: churnPlan{Connect: cs, Scale: s, Rate: 1000, Duration: d, DeadBroker: 7},
		capacity: events.DefaultCapacity, sampleEach: 5 * time.Second, gcSamples: true}
	res := runChurn(t, cr)
	res.report(t, cr)
	var warm, last churnSample
	for _, smp := range res.samples {
		if smp.at <= cr.plan.at(0.1) {
			warm = smp
		}
		last = smp
	}
	if warm.heap > 0 && float64(last.heap) > 1.5*float64(warm.heap) {
		t.Errorf("heap grew from %.0f MiB after the warm-up to %.0f MiB", float64(warm.heap)/(1<<20), float64(last.heap)/(1<<20))
	}
}
