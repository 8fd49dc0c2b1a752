// Package memlimit bounds how far ktopo's Go heap grows past the data it
// holds. The garbage collector's default lets the heap reach twice the
// live data before it collects (GOGC=100): for the TUI on 100,000
// partitions (about 120 MB live after the first load) that is a peak of
// ~240 MB, most of it garbage. A soft memory limit (debug.SetMemoryLimit)
// makes the collector run earlier instead; kept at a floor or a quarter
// above the live heap, whichever is more, it never starves a bigger
// cluster (the limit follows the live heap up) and costs a small cluster
// nothing (its heap never reaches the floor).
package memlimit

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"sync/atomic"
)

// Floor is ktopo's floor (cmd.Main starts the limit for every command).
// The TUI's first load of 100,000 partitions holds about 112 MiB live at
// its end, so its limit then is 156 MiB; it allocates about 400 MB in
// all, so the collector runs a few more times than with 180 MiB and half
// again the live heap (peak RSS 178 → 156 MiB, the load's time the same
// within the machine's noise: BenchmarkScaleLoad).
const Floor = 150 << 20

// slack is what the runtime holds besides heap objects (stacks, its own
// metadata), which the memory limit counts too.
const slack = 16 << 20

// Limit is the memory limit for a live heap of live bytes.
func Limit(floor, live int64) int64 { return max(floor, live+live/4+slack) }

// Start sets the soft memory limit to floor and, after every garbage
// collection, to Limit(floor, live heap). It does nothing when GOMEMLIMIT
// is set: the operator chose. stop restores the previous limit.
func Start(floor int64) (stop func()) {
	if os.Getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	g := &governor{floor: floor, sample: []metrics.Sample{{Name: "/gc/heap/live:bytes"}}}
	g.prev = debug.SetMemoryLimit(floor)
	g.arm()
	var once sync.Once
	return func() {
		once.Do(func() {
			g.stopped.Store(true)
			g.mu.Lock()
			defer g.mu.Unlock()
			debug.SetMemoryLimit(g.prev)
		})
	}
}

type governor struct {
	floor   int64
	prev    int64
	stopped atomic.Bool
	mu      sync.Mutex // orders adjust against stop
	sample  []metrics.Sample
}

// sentinel is garbage as soon as it is made: its finalizer runs after the
// next collection. (Big enough to stay out of the tiny allocator, whose
// objects may never be finalized.)
type sentinel struct {
	_ *int
	_ [8]byte
}

// arm makes a sentinel whose finalizer adjusts the limit and arms the next.
func (g *governor) arm() {
	runtime.SetFinalizer(new(sentinel), func(*sentinel) {
		if g.stopped.Load() {
			return
		}
		g.adjust()
		g.arm()
	})
}

func (g *governor) adjust() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.stopped.Load() {
		return
	}
	metrics.Read(g.sample)
	if g.sample[0].Value.Kind() != metrics.KindUint64 {
		return
	}
	debug.SetMemoryLimit(Limit(g.floor, int64(g.sample[0].Value.Uint64())))
}
