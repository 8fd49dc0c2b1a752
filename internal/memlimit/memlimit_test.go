package memlimit

import (
	"math"
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

// current reads the memory limit without changing it.
func current() int64 { return debug.SetMemoryLimit(-1) }

// waitLimit collects until the limit satisfies ok (the governor adjusts
// from a finalizer, after a collection).
func waitLimit(t *testing.T, what string, ok func(int64) bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !ok(current()) {
		if time.Now().After(deadline) {
			t.Fatalf("%s: limit %d MiB", what, current()>>20)
		}
		runtime.GC()
		time.Sleep(5 * time.Millisecond)
	}
}

// TestFollowsLiveHeap: the limit starts at the floor, rises to a quarter
// above the live heap when that is more, comes back to the floor when
// the data goes, and is restored by stop.
func TestFollowsLiveHeap(t *testing.T) {
	before := current()
	const floor = 64 << 20
	stop := Start(floor)
	if got := current(); got != floor {
		t.Fatalf("limit %d after Start, want the floor %d", got, floor)
	}
	func() {
		keep := make([][]byte, 0, 96)
		for range 96 {
			keep = append(keep, make([]byte, 1<<20)) // 96 MiB live
		}
		waitLimit(t, "with 96 MiB live", func(l int64) bool { return l >= 96<<20*5/4 })
		if l := current(); l > 200<<20 {
			t.Fatalf("with 96 MiB live the limit is %d MiB", l>>20)
		}
		runtime.KeepAlive(keep)
	}()
	waitLimit(t, "with the data gone", func(l int64) bool { return l == floor })
	stop()
	if got := current(); got != before {
		t.Fatalf("limit %d after stop, want %d", got, before)
	}
	runtime.GC()
	time.Sleep(20 * time.Millisecond)
	if got := current(); got != before {
		t.Fatalf("limit %d after a collection after stop, want %d", got, before)
	}
}

// TestOperatorChooses: with GOMEMLIMIT set, nothing changes.
func TestOperatorChooses(t *testing.T) {
	t.Setenv("GOMEMLIMIT", "1GiB")
	before := current()
	stop := Start(64 << 20)
	defer stop()
	if got := current(); got != before {
		t.Fatalf("limit %d with GOMEMLIMIT set, want %d", got, before)
	}
}

func TestLimit(t *testing.T) {
	for _, c := range []struct{ floor, live, want int64 }{
		{150 << 20, 0, 150 << 20},
		{150 << 20, 100 << 20, 150 << 20},
		{150 << 20, 200 << 20, 250<<20 + slack},
		{0, math.MaxInt64 / 4, math.MaxInt64/4 + math.MaxInt64/16 + slack},
	} {
		if got := Limit(c.floor, c.live); got != c.want {
			t.Errorf("Limit(%d, %d) = %d, want %d", c.floor, c.live, got, c.want)
		}
	}
}

// TestRecurringRoom: an allocation that recurs gets room for six of it
// when that is more than a quarter of the live heap, and changes nothing
// when it is less.
func TestRecurringRoom(t *testing.T) {
	const mib = 1 << 20
	if got, want := LimitWith(150*mib, 340*mib, 44*mib), int64(340*mib+6*44*mib+slack); got != want {
		t.Fatalf("340 MiB live, 44 MiB recurring: limit %d MiB, want %d", got/mib, want/mib)
	}
	if got, want := LimitWith(150*mib, 112*mib, 4*mib), Limit(150*mib, 112*mib); got != want {
		t.Fatalf("112 MiB live, 4 MiB recurring: limit %d MiB, want %d (as without)", got/mib, want/mib)
	}
	stop := Start(64 * mib)
	defer stop()
	defer Recurring(0)
	keep := make([][]byte, 0, 96)
	for range 96 {
		keep = append(keep, make([]byte, mib)) // 96 MiB live
	}
	Recurring(40 * mib)
	waitLimit(t, "with 96 MiB live and 40 MiB recurring", func(l int64) bool { return l >= 96*mib+240*mib })
	runtime.KeepAlive(keep)
}

// TestTransientDoesNotStack: bytes a task holds do not raise the limit
// (its room is what the lasting heap needs), yet the limit stays an
// eighth above the whole live heap; with nothing held the limit is
// LimitWith's.
func TestTransientDoesNotStack(t *testing.T) {
	const mib = 1 << 20
	lasting, task, rec := int64(450*mib), int64(100*mib), int64(44*mib)
	if got, want := limitHolding(150*mib, lasting+task, rec, task), LimitWith(150*mib, lasting, rec); got != want {
		t.Errorf("a 100 MiB task on 450 MiB: limit %d MiB, want %d (the lasting heap's)", got/mib, want/mib)
	}
	if got, want := limitHolding(150*mib, lasting+task, rec, 0), LimitWith(150*mib, lasting+task, rec); got != want {
		t.Errorf("nothing held: limit %d MiB, want %d", got/mib, want/mib)
	}
	// A task bigger than the headroom: the collector still has an eighth.
	if got, want := limitHolding(150*mib, lasting+600*mib, rec, 600*mib), (lasting+600*mib)*9/8+slack; got != want {
		t.Errorf("a 600 MiB task: limit %d MiB, want %d", got/mib, want/mib)
	}
	// Held more than is live (the task's bytes already garbage): no less
	// than the floor, nor than an eighth above the live heap.
	if got := limitHolding(150*mib, 100*mib, 0, 300*mib); got != 150*mib {
		t.Errorf("held more than live: limit %d MiB", got/mib)
	}

	stop := Start(64 * mib)
	defer stop()
	keep := make([][]byte, 0, 96)
	for range 96 {
		keep = append(keep, make([]byte, mib)) // 96 MiB live
	}
	var tr Transient
	tr.Add(64 * mib)
	tr.Add(32 * mib)
	// With all 96 MiB held the lasting heap is none: the limit is the
	// larger of the floor and an eighth above the live heap.
	waitLimit(t, "with 96 MiB live, all held", func(l int64) bool { return l <= 96*mib*9/8+slack })
	tr.Release()
	tr.Release()
	waitLimit(t, "with 96 MiB live, released", func(l int64) bool { return l >= 96*mib*5/4+slack })
	runtime.KeepAlive(keep)
}
