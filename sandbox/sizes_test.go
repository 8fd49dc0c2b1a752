package sandbox

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/clusterops"
	"github.com/ktopo/ktopo/clusterwatch"
	"github.com/ktopo/ktopo/clusterwatch/zksource"
)

// fastSizes reads every 50 ms: the tests wait on conditions, not on the
// intervals.
var fastSizes = SizeOptions{Interval: 50 * time.Millisecond, Hurried: 20 * time.Millisecond}

// nextSizes reads the source's next sizes.
func nextSizes(t *testing.T, src *SizeSource) *cluster.Sizes {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitDeadline)
	defer cancel()
	sz, err := src.Next(ctx)
	if err != nil {
		t.Fatalf("Next: %v", err)
	}
	return sz
}

// waitSizes reads until cond holds.
func waitSizes(t *testing.T, src *SizeSource, what string, cond func(*cluster.Sizes) (bool, string)) *cluster.Sizes {
	t.Helper()
	deadline := time.Now().Add(waitDeadline)
	for {
		sz := nextSizes(t, src)
		ok, seen := cond(sz)
		if ok {
			return sz
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s; last seen: %s", what, seen)
		}
	}
}

// holds reports whether the sizes have a replica of every partition on
// every broker of assignment.
func holds(sz *cluster.Sizes, topic string, assignment map[int][]int) (bool, string) {
	for p, rs := range assignment {
		for _, b := range rs {
			if _, ok := sz.Replica(topic, p, b); !ok {
				return false, fmt.Sprintf("no replica of %s-%d on broker %d (%s)", topic, p, b, sz.Summary(sz.At))
			}
		}
	}
	return true, ""
}

// TestSizesGrow: every broker reports its log directories (two here, with
// the configured volume) and a replica per partition it holds, the
// leader's and the in-sync follower's the partition's size, which grows
// at the produce rate between readings; the rates measured between
// readings are the produce rate.
func TestSizesGrow(t *testing.T) {
	const (
		base = 1 << 20
		rate = 4 << 20
		disk = 1 << 30
	)
	e := newEnv(t, Config{Brokers: 3, PartitionSize: base, ProduceRate: rate, LogDirs: 2, DiskSize: disk})
	assignment := map[int][]int{0: {1, 2}, 1: {2, 3}, 2: {3, 1}}
	e.createTopic("t", assignment, nil)
	e.waitStates("t", map[int]*st{0: s(1, 0, 1, 0, 1, 2), 1: s(2, 0, 1, 0, 2, 3), 2: s(3, 0, 1, 0, 3, 1)})
	src := e.c.Sizes(fastSizes)
	defer src.Close()
	first := waitSizes(t, src, "every replica of t", func(sz *cluster.Sizes) (bool, string) { return holds(sz, "t", assignment) })
	second := waitSizes(t, src, "a second reading", func(sz *cluster.Sizes) (bool, string) { return holds(sz, "t", assignment) })
	if !second.Known() || second.Interval <= 0 {
		t.Fatalf("second reading: %s, interval %s", second.Summary(second.At), second.Interval)
	}
	for p := range assignment {
		then, _ := first.PartitionBytes("t", p)
		now, _ := second.PartitionBytes("t", p)
		if then < base || now <= then {
			t.Errorf("t-%d: %d then %d bytes: it did not grow from at least %d", p, then, now, base)
		}
		// The sizes are computed at the reading's time: the growth is the
		// rate times the time between readings, to the byte.
		if want := float64(rate) * second.At.Sub(first.At).Seconds(); math.Abs(float64(now-then)-want) > 2 {
			t.Errorf("t-%d grew %d bytes in %s, want %.0f", p, now-then, second.At.Sub(first.At), want)
		}
		// Sizes are whole bytes: the rate is the produce rate to within a
		// byte or two per interval.
		ps, _ := second.Partition("t", p)
		if !ps.RateKnown || math.Abs(ps.Rate-rate) > 2/second.Interval.Seconds() {
			t.Errorf("t-%d rate %.0f (known %v), want %d", p, ps.Rate, ps.RateKnown, rate)
		}
		for _, r := range ps.Replicas {
			if r.Bytes != now {
				t.Errorf("t-%d on broker %d: %d bytes, want the partition's %d (in sync)", p, r.Broker, r.Bytes, now)
			}
		}
	}
	if rt, ok := second.TopicRate("t"); !ok || math.Abs(rt-3*rate) > 6/second.Interval.Seconds() {
		t.Errorf("topic rate %.0f, want %d", rt, 3*rate)
	}
	for _, id := range []int{1, 2, 3} {
		d, ok := second.Broker(id)
		if !ok {
			t.Fatalf("broker %d did not report", id)
		}
		if len(d.Dirs) != 2 || d.Dirs[0].Path != "/var/lib/kafka/data-1" || d.Dirs[1].Path != "/var/lib/kafka/data-2" {
			t.Errorf("broker %d dirs %+v", id, d.Dirs)
		}
		var sum int64
		for _, dir := range d.Dirs {
			if dir.Total != disk || dir.Usable != disk-dir.Bytes {
				t.Errorf("broker %d dir %s: total %d usable %d holding %d", id, dir.Path, dir.Total, dir.Usable, dir.Bytes)
			}
			sum += dir.Bytes
		}
		if d.Replicas != 2 || d.Bytes != sum {
			t.Errorf("broker %d: %d replicas, %d bytes (dirs %d)", id, d.Replicas, d.Bytes, sum)
		}
		if total, usable, ok := d.Disk(); !ok || total != 2*disk || usable != 2*disk-d.Bytes {
			t.Errorf("broker %d disk %d/%d %v", id, usable, total, ok)
		}
	}
	// Status shows each broker's bytes and free space.
	if st := RunCommand(e.c, "status"); !strings.Contains(st, "in 2 replicas") || !strings.Contains(st, "free of 2.00 GiB") {
		t.Errorf("status without sizes:\n%s", st)
	}
}

// TestSizesOfACopy: a replica a reassignment adds reports what it has
// copied, which rises to the partition's (growing) size while it copies;
// the reassignment then finishes and the new replica holds the whole
// partition. Copy progress measured from these sizes (clusterops.ProgressOf)
// rises with them.
func TestSizesOfACopy(t *testing.T) {
	const (
		base = 4 << 20
		rate = 1 << 20
	)
	e := newEnv(t, Config{Brokers: 3, PartitionSize: base, ProduceRate: rate, ReplicationRate: 4 << 20})
	e.createTopic("t", map[int][]int{0: {1, 2}}, nil)
	e.waitStates("t", map[int]*st{0: s(1, 0, 1, 0, 1, 2)})
	src := e.c.Sizes(fastSizes)
	defer src.Close()
	src.Hurry(true)
	e.requestReassignment(cluster.PartitionReassignment{Topic: "t", Partition: 0, Replicas: []int{1, 2, 3}})
	moves := []clusterops.PartitionMove{{TopicPartition: cluster.TopicPartition{Topic: "t", Partition: 0},
		Current: []int{1, 2}, Target: []int{1, 2, 3}}}
	var (
		last      int64 = -1
		percent   float64
		readings  int
		partial   bool
		finalSize *cluster.Sizes
	)
	waitSizes(t, src, "the copy to broker 3 to finish", func(sz *cluster.Sizes) (bool, string) {
		full, _ := sz.PartitionBytes("t", 0)
		r, ok := sz.Replica("t", 0, 3)
		if !ok {
			return false, "no replica on broker 3 yet"
		}
		readings++
		if r.Bytes < last {
			t.Errorf("broker 3's replica shrank from %d to %d bytes", last, r.Bytes)
		}
		last = r.Bytes
		// The progress a screen shows, from the snapshot and these sizes.
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		snap, err := zksource.Load(ctx, e.c.admin, cluster.ModelOptions{})
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		pr := clusterops.ProgressOf(snap, sz, moves)
		if pr.Percent() < percent {
			t.Errorf("progress went back from %.1f%% to %.1f%%", percent, pr.Percent())
		}
		percent = pr.Percent()
		if r.Bytes < full {
			partial = true
			return false, fmt.Sprintf("%d of %d bytes (%.1f%%)", r.Bytes, full, percent)
		}
		finalSize = sz
		return true, ""
	})
	if !partial {
		t.Errorf("broker 3's replica was never seen partly copied (%d readings)", readings)
	}
	if percent != 100 {
		t.Errorf("progress %.1f%% once copied", percent)
	}
	e.waitGone(cluster.ReassignPartitionsPath)
	e.waitStates("t", map[int]*st{0: s(1, 2, 1, 3, 1, 2, 3)})
	sz := nextSizes(t, src)
	full, _ := sz.PartitionBytes("t", 0)
	if r, ok := sz.Replica("t", 0, 3); !ok || r.Bytes != full || full <= base {
		t.Errorf("after the reassignment broker 3 holds %d bytes of %d (base %d)", r.Bytes, full, base)
	}
	if finalSize == nil {
		t.Fatal("no reading")
	}
}

// recordedLog keeps the log records of the copies, with their times.
type recordedLog struct {
	mu      sync.Mutex
	records []slog.Record
}

func (l *recordedLog) Enabled(context.Context, slog.Level) bool { return true }
func (l *recordedLog) Handle(_ context.Context, r slog.Record) error {
	if strings.Contains(r.Message, "copying partition") || strings.Contains(r.Message, "partition copied") {
		l.mu.Lock()
		l.records = append(l.records, r.Clone())
		l.mu.Unlock()
	}
	return nil
}
func (l *recordedLog) WithAttrs([]slog.Attr) slog.Handler { return l }
func (l *recordedLog) WithGroup(string) slog.Handler      { return l }

func (l *recordedLog) find(msg string) (slog.Record, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, r := range l.records {
		if r.Message == msg {
			return r, true
		}
	}
	return slog.Record{}, false
}

func attr(r slog.Record, key string) slog.Value {
	var v slog.Value
	r.Attrs(func(a slog.Attr) bool {
		if a.Key == key {
			v = a.Value
			return false
		}
		return true
	})
	return v
}

// TestCopyETAUnderGrowth: a copy throttled at T of a partition growing at
// G takes size / (T − G), what clusterops.MoveBytes.ETA predicts, not
// size / T: the new replica must copy what is produced while it copies.
// With G at 3/4 of T the copy takes four times as long as without growth.
func TestCopyETAUnderGrowth(t *testing.T) {
	const (
		base     = 640 << 10
		growth   = 768 << 10
		throttle = 1 << 20
	)
	logs := &recordedLog{}
	e := newEnv(t, Config{Brokers: 3, PartitionSize: base, ProduceRate: growth, ReplicationRate: 1 << 40, Logger: slog.New(logs)})
	e.createTopic("t", map[int][]int{0: {1, 2}}, nil)
	e.waitStates("t", map[int]*st{0: s(1, 0, 1, 0, 1, 2)})
	// The sizes as a screen would read them: the partition's rate is the
	// produce rate.
	src := e.c.Sizes(fastSizes)
	defer src.Close()
	nextSizes(t, src)
	sz := nextSizes(t, src)
	if ps, ok := sz.Partition("t", 0); !ok || !ps.RateKnown || math.Abs(ps.Rate-growth) > 2/sz.Interval.Seconds() {
		t.Fatalf("t-0's measured rate %.0f (known %v), want %d", ps.Rate, ps.RateKnown, growth)
	}
	e.setThrottles("t", "0:1", "0:3", fmt.Sprint(throttle), "1", "2", "3")
	e.requestReassignment(cluster.PartitionReassignment{Topic: "t", Partition: 0, Replicas: []int{1, 2, 3}})
	e.waitGone(cluster.ReassignPartitionsPath)
	start, ok1 := logs.find("copying partition from its leader")
	end, ok2 := logs.find("partition copied")
	if !ok1 || !ok2 {
		t.Fatalf("no copy logged (start %v, end %v)", ok1, ok2)
	}
	size, g := attr(start, "bytes").Int64(), attr(start, "growth").Float64()
	if g != growth || size < base {
		t.Fatalf("copy of %d bytes growing at %.0f/s", size, g)
	}
	// The estimate of the same copy as the preview makes it.
	mb := clusterops.MoveBytes{Known: true, Total: size,
		In: map[int]int64{3: size}, InRate: map[int]float64{3: g}, Out: map[int]int64{1: size}, OutRate: map[int]float64{1: g}}
	eta := mb.ETA(throttle)
	took := end.Time.Sub(start.Time)
	t.Logf("copied %s growing at %s under %s: took %s, estimate %s (%s without growth)", cluster.FormatBytes(size),
		cluster.FormatRate(g), cluster.FormatRate(throttle), took, eta.Duration, time.Duration(float64(size)/throttle*float64(time.Second)))
	if !eta.Known || eta.Never {
		t.Fatalf("estimate %s", eta)
	}
	// The copy advances in ticks of copyTick and ends at the first tick
	// past the estimate: never before it (3 % for the clocks' reading),
	// and late by a tick or a busy machine's delay at most.
	want := eta.Duration
	if took < want*97/100 || took > want*103/100+5*copyTick {
		t.Errorf("the copy took %s, the estimate is %s", took, want)
	}
}

// TestSizesKilledBroker: a broker that does not run is unreached, "broker
// not running"; the others report; with every broker down the sizes are
// unknown, saying why; a closed source ends Next.
func TestSizesKilledBroker(t *testing.T) {
	e := newEnv(t, Config{Brokers: 3, PartitionSize: 1 << 20, ProduceRate: 1 << 10})
	assignment := map[int][]int{0: {1, 2, 3}}
	e.createTopic("t", assignment, nil)
	e.waitStates("t", map[int]*st{0: s(1, 0, 1, 0, 1, 2, 3)})
	src := e.c.Sizes(fastSizes)
	waitSizes(t, src, "every replica of t", func(sz *cluster.Sizes) (bool, string) { return holds(sz, "t", assignment) })
	e.kill(2)
	sz := nextSizes(t, src)
	if why := sz.Unreached[2]; why != "broker not running" {
		t.Errorf("broker 2 unreached %q, want \"broker not running\"", why)
	}
	if _, ok := sz.Broker(2); ok {
		t.Error("the killed broker 2 reported sizes")
	}
	if _, ok := sz.Replica("t", 0, 2); ok {
		t.Error("a replica on the killed broker 2 has a size")
	}
	for _, id := range []int{1, 3} {
		if _, ok := sz.Replica("t", 0, id); !ok {
			t.Errorf("broker %d's replica has no size", id)
		}
	}
	if !sz.Known() || !strings.Contains(sz.Summary(sz.At), "1 not reached") {
		t.Errorf("summary %q", sz.Summary(sz.At))
	}
	if err := e.c.KillTogether(1, 3); err != nil {
		t.Fatal(err)
	}
	sz = nextSizes(t, src)
	if sz.Known() || !strings.Contains(sz.Why(), "broker not running") {
		t.Errorf("every broker down: %q", sz.Why())
	}
	if err := src.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := src.Next(context.Background()); !errors.Is(err, clusterwatch.ErrClosed) {
		t.Errorf("Next after Close: %v", err)
	}
}

// TestSizesSkewSeeded: the demo topics' partitions are skewed, by
// weights of 0.5 to 1.5 that one seed draws the same; a busy topic's
// partitions grow at its share of its produce rate.
func TestSizesSkewSeeded(t *testing.T) {
	shapes := func(seed uint64) []float64 {
		cl := &Cluster{cfg: Config{DemoTopics: true, Rand: rand.New(rand.NewPCG(seed, 1))}, sizes: newSizeModel()}
		var out []float64
		for _, dt := range DemoTopics() {
			var sum float64
			for p := range dt.Partitions {
				base, rate := cl.partitionShape(tp{dt.Name, p})
				w := float64(base) / float64(dt.PartitionSize)
				if w < 0.5 || w >= 1.5 {
					t.Errorf("%s-%d: weight %.3f", dt.Name, p, w)
				}
				if want := float64(dt.ProduceRate) / float64(dt.Partitions) * w; math.Abs(rate-want) > want*1e-6+1 {
					t.Errorf("%s-%d: rate %.0f, want %.0f", dt.Name, p, rate, want)
				}
				sum += rate
				out = append(out, w)
			}
			if dt.ProduceRate > 0 && (sum < float64(dt.ProduceRate)/2 || sum > float64(dt.ProduceRate)*3/2) {
				t.Errorf("%s grows at %.0f, its produce rate is %d", dt.Name, sum, dt.ProduceRate)
			}
		}
		return out
	}
	a, b, c := shapes(7), shapes(7), shapes(8)
	if fmt.Sprint(a) != fmt.Sprint(b) {
		t.Error("one seed gave two skews")
	}
	if fmt.Sprint(a) == fmt.Sprint(c) {
		t.Error("two seeds gave one skew")
	}
	// Other topics are not skewed.
	cl := &Cluster{cfg: Config{PartitionSize: 1000, ProduceRate: 10}, sizes: newSizeModel()}
	if base, rate := cl.partitionShape(tp{"t", 3}); base != 1000 || rate != 10 {
		t.Errorf("other topic: %d bytes at %.0f/s", base, rate)
	}
}

// TestDemoSizes: the demo cluster's sizes as the TUI's sandbox shows them:
// every demo replica sized, one 100 GiB log directory a broker, the busy
// topics the big ones.
func TestDemoSizes(t *testing.T) {
	e := newEnv(t, Config{Brokers: 6, Racks: 3, DemoTopics: true, Rand: rand.New(rand.NewPCG(1, 1))})
	src := e.c.Sizes(fastSizes)
	defer src.Close()
	want := 0
	for _, d := range DemoTopics() {
		want += d.Partitions * d.ReplicationFactor
	}
	sz := waitSizes(t, src, "every demo replica", func(sz *cluster.Sizes) (bool, string) {
		n := 0
		for _, id := range sz.BrokerIDs() {
			d, _ := sz.Broker(id)
			n += d.Replicas
		}
		return n == want && len(sz.BrokerIDs()) == 6, fmt.Sprintf("%d of %d replicas", n, want)
	})
	for _, id := range sz.BrokerIDs() {
		d, _ := sz.Broker(id)
		total, usable, ok := d.Disk()
		if len(d.Dirs) != 1 || d.Dirs[0].Path != "/var/lib/kafka/data" || !ok || total != DefaultDiskSize || usable != total-d.Bytes {
			t.Errorf("broker %d: dirs %+v", id, d.Dirs)
		}
		t.Logf("broker %d: %s in %d replicas, %s free of %s", id, cluster.FormatBytes(d.Bytes), d.Replicas,
			cluster.FormatBytes(usable), cluster.FormatBytes(total))
	}
	var prev int64 = -1
	for _, name := range []string{"clicks", "orders", "payments", "audit-log"} {
		_, data, ok := sz.TopicBytes(name)
		if !ok || (prev >= 0 && data >= prev) {
			t.Errorf("%s holds %s (the topic before it %s)", name, cluster.FormatBytes(data), cluster.FormatBytes(prev))
		}
		prev = data
	}
}

// TestSizesConfigRejected: impossible sizes are refused before anything
// connects.
func TestSizesConfigRejected(t *testing.T) {
	for _, tc := range []struct {
		cfg  Config
		want string
	}{
		{Config{ProduceRate: -1}, "ProduceRate must not be negative"},
		{Config{LogDirs: -1}, "LogDirs must be between 1 and 16 (0 means 1), not -1"},
		{Config{LogDirs: 17}, "LogDirs must be between 1 and 16 (0 means 1), not 17"},
		{Config{DiskSize: -1}, "DiskSize must not be negative"},
	} {
		tc.cfg.Connect = "127.0.0.1:1"
		if _, err := Start(context.Background(), tc.cfg); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", tc.cfg, err, tc.want)
		}
	}
}
