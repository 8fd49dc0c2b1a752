package operate

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/clusterops"
	"github.com/ktopo/ktopo/internal/testkit/fixture"
	"github.com/ktopo/ktopo/ui/internal/wizard"
	"github.com/ktopo/ktopo/ui/nav"
	"github.com/ktopo/ktopo/ui/theme"
)

// bytesSpec is a small cluster for the tests by bytes: 4 brokers, no
// racks; orders-0 on 1,2 (led by 1), orders-1 on 2,1 (led by 2). Draining
// broker 1, the minimal strategy copies orders-0 from 1 to 3 and orders-1
// from 2 to 4.
func bytesSpec() fixture.Spec {
	return fixture.Spec{
		ClusterID: "hDx3q9bTRmWvZ1o8cPzKXg", Brokers: 4, Controller: 2, ControllerEpoch: 7, Time: 1_700_000_000_000,
		Topics: []fixture.Topic{{Name: "orders", Partitions: 2, RF: 2, Replicas: map[int][]int{0: {1, 2}, 1: {2, 1}}}},
	}
}

var (
	orders0 = cluster.TopicPartition{Topic: "orders", Partition: 0}
	orders1 = cluster.TopicPartition{Topic: "orders", Partition: 1}
)

// sizesOf are sizes read at at, as DescribeLogDirs reports them: every
// replica the snapshot lists holds its partition's bytes (0 for a
// partition not in bytes), except those extra sets (a new replica being
// copied); every live broker has one log directory with usable bytes free.
func sizesOf(s *cluster.Snapshot, at time.Time, usable int64, bytes map[cluster.TopicPartition]int64, extra map[cluster.TopicPartition]map[int]int64, prev *cluster.Sizes) *cluster.Sizes {
	b := cluster.NewSizesBuilder(at)
	for _, id := range s.LiveBrokerIDs() {
		b.Broker(id, []cluster.LogDir{{Path: "/data", Total: 1 << 40, Usable: usable}})
	}
	for _, t := range s.Topics() {
		for _, p := range t.Partitions {
			tp := cluster.TopicPartition{Topic: t.Name, Partition: p.ID}
			for _, r := range p.Replicas {
				n, ok := extra[tp][r]
				if !ok {
					n = bytes[tp]
				}
				b.Replica(t.Name, p.ID, cluster.ReplicaSize{Broker: int32(r), Bytes: n})
			}
		}
	}
	return b.Done(prev)
}

// screenLines are the wizard's lines, and the popup's, without styles or
// trailing blanks.
func screenLines(m *Model) []string {
	var out []string
	for _, l := range strings.Split(view(m), "\n") {
		out = append(out, strings.TrimRight(l, " "))
	}
	return out
}

// block are the lines of out from the first that starts with from, n of
// them.
func block(t *testing.T, out []string, from string, n int) []string {
	t.Helper()
	i := slices.IndexFunc(out, func(l string) bool { return strings.HasPrefix(strings.TrimSpace(l), from) })
	if i < 0 || i+n > len(out) {
		t.Fatalf("no %q in\n%s", from, strings.Join(out, "\n"))
	}
	return out[i : i+n]
}

// inner are the popup's lines without its border.
func inner(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = strings.TrimSpace(strings.Trim(strings.TrimSpace(l), "│"))
	}
	return out
}

func sameLines(t *testing.T, got, want []string) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Fatalf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestPreviewBytes: with sizes, the drain's preview says what each
// strategy copies, who sends what to whom, and the ETA under the chosen
// throttle and the others; the popup names the bytes and the ETA. With
// the leaders first (the default) broker 2 leads orders-0 before the
// copy, so it sends both partitions; without, broker 1 sends orders-0.
func TestPreviewBytes(t *testing.T) {
	e := newEnv(t, bytesSpec(), 1, 200, 40)
	s := e.model.Snapshot()
	e.m.SetSizes(sizesOf(s, t0, 1<<40, map[cluster.TopicPartition]int64{orders0: 300 << 20, orders1: 100 << 20}, nil, nil))
	e.press("t") // 10 MiB/s
	sameLines(t, block(t, screenLines(e.m), "◉ minimal", 10), []string{
		" ◉ minimal: 2 of 4 replicas copied (400 MiB), 1 preferred leader changes",
		" ○ balanced: 2 of 4 replicas copied (400 MiB), 1 preferred leader changes",
		" ○ kafka: 3 of 4 replicas copied (700 MiB), 2 preferred leaders change",
		" 2 partitions move · rack-safe · throttle 10 MiB/s, removed when done",
		" bytes: 400 MiB to copy",
		" from \\ to       → 3       → 4     sends",
		" broker 2    300 MiB   100 MiB   400 MiB",
		" receives    300 MiB   100 MiB   400 MiB",
		" ETA: throttle 10 MiB/s: about 40s (broker 2 sending) · 50 MiB/s: about 8s · 100 MiB/s: about 4s · none: as fast as the network allows",
		" first: 1 leader moves off broker 1 to 2 (1) by a preferred election, 1 reordered before it · L turns this off",
	})
	e.press("L")
	sameLines(t, block(t, screenLines(e.m), "bytes:", 6), []string{
		" bytes: 400 MiB to copy",
		" from \\ to       → 3       → 4     sends",
		" broker 1    300 MiB         ·   300 MiB",
		" broker 2          ·   100 MiB   100 MiB",
		" receives    300 MiB   100 MiB   400 MiB",
		" ETA: throttle 10 MiB/s: about 30s (broker 1 sending) · 50 MiB/s: about 6s · 100 MiB/s: about 3s · none: as fast as the network allows",
	})
	// The exact writes (w) take the matrix's room; the total and the ETA
	// stay.
	e.press("w")
	if out := view(e.m); strings.Contains(out, "from \\ to") || !strings.Contains(out, "bytes: 400 MiB to copy") || !strings.Contains(out, "ETA: throttle") {
		t.Fatalf("with the exact writes open:\n%s", out)
	}
	e.press("w")
	if out := view(e.m); !strings.Contains(out, "from \\ to") {
		t.Fatalf("the writes closed, no matrix:\n%s", out)
	}
	e.press("t", "t", "t") // none
	sameLines(t, block(t, screenLines(e.m), "ETA:", 1), []string{
		" ETA: throttle none: as fast as the network allows · 10 MiB/s: about 30s · 50 MiB/s: about 6s · 100 MiB/s: about 3s",
	})
	e.press("t", "enter")
	sameLines(t, inner(block(t, screenLines(e.m), "│ throttle", 2)), []string{
		"throttle 10 MiB/s, removed when done",
		"400 MiB to copy, about 30s at 10 MiB/s",
	})
}

// TestPreviewBytesNever: a partition growing faster than the throttle
// (measured between two readings) never finishes under it: the ETA says
// never, and a warning says which broker and that t raises it.
func TestPreviewBytesNever(t *testing.T) {
	e := newEnv(t, bytesSpec(), 1, 200, 40)
	s := e.model.Snapshot()
	prev := sizesOf(s, t0.Add(-10*time.Second), 1<<40, map[cluster.TopicPartition]int64{orders0: 100 << 20, orders1: 100 << 20}, nil, nil)
	e.m.SetSizes(sizesOf(s, t0, 1<<40, map[cluster.TopicPartition]int64{orders0: 300 << 20, orders1: 100 << 20}, nil, prev)) // orders-0 grows 20 MiB/s
	e.press("t")
	sameLines(t, block(t, screenLines(e.m), "ETA:", 2), []string{
		" ETA: throttle 10 MiB/s: never · 50 MiB/s: about 13s · 100 MiB/s: about 5s · none: as fast as the network allows",
		" ⚠ at 10 MiB/s the copy never ends: the partitions broker 2 is sending grow faster than the throttle; t raises it",
	})
	e.press("enter")
	sameLines(t, inner(block(t, screenLines(e.m), "│ 400 MiB", 1)), []string{"400 MiB to copy: never ends at 10 MiB/s"})
}

// TestPreviewDiskRefused: a plan that would fill a broker's log
// directories is refused as Kafka's refusals are: the line names the
// broker, what it would receive and what it has, and enter writes
// nothing.
func TestPreviewDiskRefused(t *testing.T) {
	e := newEnv(t, bytesSpec(), 1, 200, 40)
	s := e.model.Snapshot()
	e.m.SetSizes(sizesOf(s, t0, 200<<20, map[cluster.TopicPartition]int64{orders0: 300 << 20, orders1: 100 << 20}, nil, nil))
	sameLines(t, block(t, screenLines(e.m), "✗", 1), []string{
		" ✗ broker 3 would receive 300 MiB but its log directories have 200 MiB usable: enter writes nothing; s tries another strategy.",
	})
	e.press("L", "enter", "y")
	if e.m.Stage() != "preview" || len(e.z.Sent) != 0 {
		t.Fatalf("stage %s, %d multis", e.m.Stage(), len(e.z.Sent))
	}
	// The disks freed: the plan can be written.
	e.m.SetSizes(sizesOf(s, t0.Add(time.Minute), 1<<40, map[cluster.TopicPartition]int64{orders0: 300 << 20, orders1: 100 << 20}, nil, nil))
	e.press("enter", "y")
	if e.m.Stage() != "progress" || len(e.z.Sent) != 1 {
		t.Fatalf("stage %s, %d multis", e.m.Stage(), len(e.z.Sent))
	}
}

// TestPreviewHeavyBytes: a plan that leaves a broker it copies to far
// above the mean bytes warns of it (a broker already heavy that the plan
// gives nothing is not its doing).
func TestPreviewHeavyBytes(t *testing.T) {
	spec := bytesSpec()
	spec.Brokers = 5
	spec.Topics[0].Replicas = map[int][]int{0: {1, 2}, 1: {3, 1}}
	e := newEnv(t, spec, 1, 120, 40)
	s := e.model.Snapshot()
	// The plan is made by the first reading (orders-1 the larger, placed
	// first on the emptiest broker), which it keeps; the next reading,
	// orders-0 grown to 1000 MiB, measures the same plan again: the broker
	// that takes orders-0 would hold twice the mean. (Planned by the second
	// reading, the byte-aware placement would avoid it where it could.)
	e.m.SetSizes(sizesOf(s, t0, 1<<40, map[cluster.TopicPartition]int64{orders0: 1 << 20, orders1: 100 << 20}, nil, nil))
	e.m.SetSizes(sizesOf(s, t0.Add(time.Minute), 1<<40, map[cluster.TopicPartition]int64{orders0: 1000 << 20, orders1: 1 << 20}, nil, nil))
	sameLines(t, block(t, screenLines(e.m), "⚠", 1), []string{" ⚠ broker 5 would hold 1000 MiB (0 B now), 100% above the mean of 500 MiB"})
	if out := view(e.m); strings.Contains(out, "broker 2 would hold") {
		t.Fatalf("warns of broker 2, which the plan gives nothing:\n%s", out)
	}
}

// TestPreviewSizesUnknown: without sizes the preview counts replicas as
// before, and one line says why.
func TestPreviewSizesUnknown(t *testing.T) {
	e := newEnv(t, bytesSpec(), 1, 120, 40)
	before := view(e.m)
	e.m.SetSizes(cluster.UnknownSizes(t0, "broker 2: i/o timeout"))
	out := screenLines(e.m)
	sameLines(t, block(t, out, "◉ minimal", 5), []string{
		" ◉ minimal: 2 of 4 replicas copied, 1 preferred leader changes",
		" ○ balanced: 2 of 4 replicas copied, 1 preferred leader changes",
		" ○ kafka: 3 of 4 replicas copied, 2 preferred leaders change",
		" 2 partitions move · rack-safe · throttle none",
		" sizes unknown: broker 2: i/o timeout: the plan counts replicas only",
	})
	if strings.Contains(strings.Join(out, "\n"), "ETA") || !strings.Contains(before, "2 partitions move") {
		t.Fatalf("\n%s", strings.Join(out, "\n"))
	}
	e.press("enter")
	if got := view(e.m); strings.Contains(got, "to copy") {
		t.Fatalf("the popup names bytes:\n%s", got)
	}
	// A reading that failed after one that did not: the last sizes kept,
	// marked (as the shell keeps them).
	e.press("esc")
	known := sizesOf(e.model.Snapshot(), t0, 1<<40, map[cluster.TopicPartition]int64{orders0: 300 << 20, orders1: 100 << 20}, nil, nil)
	e.m.SetSizes(known.Stale(cluster.UnknownSizes(t0.Add(time.Minute), "broker 2: i/o timeout")))
	sameLines(t, block(t, screenLines(e.m), "bytes:", 1), []string{" bytes: 400 MiB to copy · sizes of an earlier reading: the newest failed (broker 2: i/o timeout)"})
}

// TestProgressBytes: once written, the progress is measured on the new
// replicas' sizes at each reading: bytes copied, the percentage and the
// time left (first from the preview's estimate, then at the rate
// measured between readings), the partitions still copying with the most
// left; a reading that shows less (a copy restarted) never takes the
// progress shown back.
func TestProgressBytes(t *testing.T) {
	e := newEnv(t, bytesSpec(), 1, 120, 30)
	sizes := map[cluster.TopicPartition]int64{orders0: 300 << 20, orders1: 100 << 20}
	e.m.SetSizes(sizesOf(e.model.Snapshot(), t0, 1<<40, sizes, nil, nil))
	e.press("L", "t", "enter", "y")
	if e.m.Stage() != "progress" {
		t.Fatalf("stage %s", e.m.Stage())
	}
	// Queued: nothing copied yet, whatever the reading says.
	if line, _ := e.m.TaskStatus(); !strings.HasPrefix(line, "Draining broker 1: 0/2 partitions moved, 0 B of 400 MiB copied (0%), about 30s left") {
		t.Fatalf("status %q", line)
	}
	e.controller(nil, e.r().plan.Moves)
	reading := func(at time.Duration, new0, new1 int64) {
		e.m.SetSizes(sizesOf(e.model.Snapshot(), t0.Add(at), 1<<40, sizes, map[cluster.TopicPartition]map[int]int64{orders0: {3: new0}, orders1: {4: new1}}, nil))
	}
	steps := []struct {
		at         time.Duration
		new0, new1 int64
		status     string
		copying    string
	}{
		// The first reading after the write: the preview's estimate,
		// scaled to what is left (30s × 250/400).
		{10 * time.Second, 100 << 20, 50 << 20, "150 MiB of 400 MiB copied (37%), about 19s left",
			"copying: orders-0 100 MiB of 300 MiB · orders-1 50.0 MiB of 100 MiB"},
		// Then the rate between readings: 110 MiB in 10s, 140 MiB left.
		{20 * time.Second, 200 << 20, 60 << 20, "260 MiB of 400 MiB copied (65%), about 13s left",
			"copying: orders-0 200 MiB of 300 MiB · orders-1 60.0 MiB of 100 MiB"},
		// orders-1's copy restarted: the reading shows less (250 MiB),
		// the screen keeps what it showed; no rate measured, the time
		// left is the estimate's for what the reading says is left.
		{30 * time.Second, 250 << 20, 0, "260 MiB of 400 MiB copied (65%), about 11s left",
			"copying: orders-0 250 MiB of 300 MiB · orders-1 60.0 MiB of 100 MiB"},
	}
	for _, st := range steps {
		reading(st.at, st.new0, st.new1)
		out := screenLines(e.m)
		sameLines(t, block(t, out, "bytes:", 2), []string{" bytes: " + st.status, " " + st.copying})
		if line, _ := e.m.TaskStatus(); line != "Draining broker 1: 0/2 partitions moved, "+st.status+" — waiting: copies throttled to 10 MiB/s per broker" {
			t.Fatalf("at %v: status %q", st.at, line)
		}
	}
	e.controller(e.r().plan.Moves, nil)
	reading(40*time.Second, 300<<20, 100<<20)
	c, _ := e.m.Update(wizard.TickMsg{}) // the throttles go
	e.deliver(c)
	if line, st := e.m.TaskStatus(); e.m.Stage() != "done" || !strings.Contains(line, "2 partitions moved in 0s (400 MiB copied)") {
		t.Fatalf("stage %s: %q %v", e.m.Stage(), line, st)
	}
}

// TestBackgroundBytes: a drain left to the background still gets the
// readings (the shell hands them to its tasks) and its status line
// follows the bytes.
func TestBackgroundBytes(t *testing.T) {
	e := newEnv(t, bytesSpec(), 1, 120, 30)
	e.press("L", "enter", "y")
	e.controller(nil, e.r().plan.Moves)
	if !e.m.Detach() {
		t.Fatal("not detached")
	}
	e.m.SetSizes(sizesOf(e.model.Snapshot(), t0.Add(time.Second), 1<<40, map[cluster.TopicPartition]int64{orders0: 300 << 20, orders1: 100 << 20},
		map[cluster.TopicPartition]map[int]int64{orders0: {3: 100 << 20}, orders1: {4: 100 << 20}}, nil))
	if line, st := e.m.TaskStatus(); st != nav.TaskRunning || line != "Draining broker 1: 0/2 partitions moved, 200 MiB of 400 MiB copied (50%)" {
		t.Fatalf("status %q %v", line, st)
	}
}

// TestMatrixFolds: with more brokers than fit, the matrix keeps those
// that send and receive the most (in id order) and folds the others into
// a line each, with what they send or receive together.
func TestMatrixFolds(t *testing.T) {
	mb := clusterops.MoveBytes{In: map[int]int64{}, Out: map[int]int64{}, Matrix: map[[2]int]int64{}, Known: true}
	for src := 1; src <= 5; src++ {
		dst := src + 5
		n := int64(src) * 100 << 20
		mb.Out[src] += n
		mb.In[dst] += n
		mb.Matrix[[2]int{src, dst}] += n
		mb.Total += n
	}
	st := theme.Mono()
	var got []string
	for _, l := range matrixLines(&st, mb, 60, 24) {
		got = append(got, strings.TrimRight(ansi.Strip(l), " "))
	}
	sameLines(t, got, []string{
		" from \\ to       → 8       → 9      → 10     sends",
		" broker 3    300 MiB         ·         ·   300 MiB",
		" broker 4          ·   400 MiB         ·   400 MiB",
		" broker 5          ·         ·   500 MiB   500 MiB",
		" receives    300 MiB   400 MiB   500 MiB  1.46 GiB",
		" + 2 more brokers send 300 MiB (1,2)",
		" + 2 more brokers receive 300 MiB (6,7)",
	})
}
