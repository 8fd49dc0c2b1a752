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
