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

// Limit is the memory limit for a live heap of live bytes, when no
// allocation recurs of more than a twenty-fourth of it (see Recurring).
func Limit(floor, live int64) int64 { return LimitWith(floor, live, 0) }

// recurringRoom is how many of the recurring allocation the headroom
// holds: the collector runs at most every so many of them.
const recurringRoom = 6

// LimitWith is the memory limit for a live heap of live bytes when an
// allocation of about recurring bytes recurs (Recurring): the headroom is
// a quarter of the live heap or room for recurringRoom of them, whichever
// is more.
func LimitWith(floor, live, recurring int64) int64 {
	return max(floor, live+max(live/4, recurringRoom*recurring)+slack)
}

// recurring is the size of the allocation that recurs (Recurring);
// held the live bytes that passing tasks hold (Transient).
var recurring, held atomic.Int64

// limitHolding is LimitWith for a live heap of which held bytes are a
// passing task's: the limit is what the lasting part of the heap needs,
// or an eighth above all of it, whichever is more. A task's bytes counted
// as lasting would raise the limit by their size at every collection
// during the task, and the headroom would stack on top of them.
func limitHolding(floor, live, recurring, held int64) int64 {
	lasting := max(live-held, 0)
	return max(LimitWith(floor, lasting, recurring), live+live/8+slack)
}

// Recurring tells the limit that an allocation of about n bytes recurs:
// the response of a poll, garbage once read. A million partitions'
// Metadata is 44 MiB a second: with a quarter of its ~340 MiB live heap as
// headroom the collector ran every other poll, marking the whole heap
// each time (three quarters of an idle TUI's CPU); with room for six it
// runs every sixth. A small cluster's responses are smaller than a
// quarter of its heap: its limit is unchanged. Safe from any goroutine;
// it takes effect after the next collection.
func Recurring(n int64) { recurring.Store(max(n, 0)) }

// A Transient is memory a task keeps live for a while and then lets go:
// a size reading of a million partitions holds three million replicas'
// records, then the sizes built from them, about 200 MB for a second or
// two. Counted as the live heap that lasts, a collection during the
// reading would raise the limit by that much, and the headroom for the
// polls' responses would come on top of it (peak RSS 840 MiB where the
// loaded TUI holds 730 MiB; 745 MiB held). Held, the limit stays where the lasting heap
// puts it, with at least an eighth of the whole live heap as room so that
// the collector does not run back to back. The zero value holds nothing;
// safe from any goroutine.
type Transient struct{ n atomic.Int64 }

// Add holds n more bytes (an estimate of what the task keeps live).
func (t *Transient) Add(n int64) {
	if n > 0 {
		t.n.Add(n)
		held.Add(n)
	}
}

// Held is how many bytes the Transients hold now.
func Held() int64 { return held.Load() }

// Release lets go of everything t holds (the task's memory is garbage
// now, or kept on as lasting data). It may be called more than once.
func (t *Transient) Release() { held.Add(-t.n.Swap(0)) }

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
	debug.SetMemoryLimit(limitHolding(g.floor, int64(g.sample[0].Value.Uint64()), recurring.Load(), held.Load()))
}
