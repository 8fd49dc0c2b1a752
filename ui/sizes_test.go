package ui

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/clusterwatch/zksource"
	"github.com/ktopo/ktopo/internal/testkit/fixture"
)

// fakeSizes is a clusterwatch.SizeSource handing out the readings put on
// ch, closed when ch is.
type fakeSizes struct {
	ch     chan *cluster.Sizes
	mu     sync.Mutex
	hurry  []bool
	closed bool
}

func (f *fakeSizes) Next(ctx context.Context) (*cluster.Sizes, error) {
	select {
	case s, ok := <-f.ch:
		if !ok {
			return nil, errors.New("closed")
		}
		return s, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (f *fakeSizes) Hurry(on bool) { f.mu.Lock(); f.hurry = append(f.hurry, on); f.mu.Unlock() }
func (f *fakeSizes) Close() error  { f.closed = true; return nil }

// readingOf are sizes of every live replica of snap, 64 MiB each, on one
// 1 TiB log directory per broker; the others did not answer.
func readingOf(snap *cluster.Snapshot, at time.Time) *cluster.Sizes {
	b := cluster.NewSizesBuilder(at)
	for _, br := range snap.Brokers() {
		if br.Live {
			b.Broker(br.ID, []cluster.LogDir{{Path: "/var/lib/kafka", Total: 1 << 40, Usable: 3 << 38}})
		} else {
			b.Unreached(br.ID, "connection refused")
		}
	}
	for _, t := range snap.Topics() {
		for _, p := range t.Partitions {
			for _, r := range p.Replicas {
				if br, ok := snap.Broker(r); ok && br.Live {
					b.Replica(t.Name, p.ID, cluster.ReplicaSize{Broker: int32(r), Bytes: 64 << 20})
				}
			}
		}
	}
	return b.Done(nil)
}

// TestSizesReachTheScreens: a reading of the sizes source reaches the
// overview (hidden or not), the topics and a topic opened before or
// after it; the receive is re-armed after each; a reading that fails
// keeps the last sizes, marked stale; a reassignment hurries the source.
func TestSizesReachTheScreens(t *testing.T) {
	src, sizes := newSource(), &fakeSizes{ch: make(chan *cluster.Sizes, 1)}
	a := New(Config{Source: src, Prober: zksource.Prober{Browser: &fakeBrowser{}}, Connect: "zk1:2181/kafka", Mode: ModeLive,
		Now: func() time.Time { return t0 }, Location: time.UTC, Sizes: sizes})
	a.update(tea.WindowSizeMsg{Width: 200, Height: 60})
	load(a, fixture.Small())
	if out := screen(a); !strings.Contains(out, "sizes unknown: not read yet") {
		t.Fatalf("before the first reading the overview says why there are no sizes:\n%s", out)
	}
	press(a, "2") // the topics: the overview gets the reading hidden
	sizes.ch <- readingOf(a.Snapshot(), t0.Add(-5*time.Second))
	msg := waitForSizes(sizes)()
	if _, ok := msg.(sizesMsg); !ok {
		t.Fatalf("the receive got %T", msg)
	}
	cmd := a.update(msg)
	if cmd == nil {
		t.Fatal("the sizes' receive is not re-armed")
	}
	if out := screen(a); !strings.Contains(out, "SIZE") || !strings.Contains(out, "960 MiB") { // orders: 6 × 3 × 64 MiB, less broker 6's 3
		t.Errorf("the topics show no sizes:\n%s", out)
	}
	press(a, "1")
	out := screen(a)
	for _, want := range []string{"sizes of 5 brokers", "(2 not reached), 5s ago", "held", "▕", "25%"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q on the overview:\n%s", want, out)
		}
	}
	press(a, "2", "enter") // a topic pushed after the reading gets it
	if out := screen(a); !strings.Contains(out, "REPLICA SIZES") || !strings.Contains(out, "64.0 MiB") {
		t.Errorf("the topic shows no sizes:\n%s", out)
	}
	// A failed reading keeps the sizes, marked stale, on every screen.
	a.update(sizesMsg{cluster.UnknownSizes(t0, "broker 1: i/o timeout")})
	if out := screen(a); !strings.Contains(out, "stale sizes (newer sizes unknown: broker 1: i/o timeout)") || !strings.Contains(out, "64.0 MiB") {
		t.Errorf("the topic does not keep the stale sizes:\n%s", out)
	}
	press(a, "1")
	if out := screen(a); !strings.Contains(out, "stale sizes of 5 brokers") {
		t.Errorf("the overview does not mark the stale sizes:\n%s", out)
	}
	if len(sizes.hurry) != 0 {
		t.Errorf("no reassignment runs, yet the sizes were hurried: %v", sizes.hurry)
	}
	close(sizes.ch)
	if msg := waitForSizes(sizes)(); msg != (sizesClosedMsg{}) {
		t.Errorf("a closed source: %T", msg)
	}
}

// TestSizesHurry: a reassignment running asks the sizes source for
// readings more often (its progress is the new replicas' bytes).
func TestSizesHurry(t *testing.T) {
	sizes := &fakeSizes{ch: make(chan *cluster.Sizes, 1)}
	a := New(Config{Source: newSource(), Connect: "zk1:2181/kafka", Now: func() time.Time { return t0 }, Location: time.UTC, Sizes: sizes})
	a.update(tea.WindowSizeMsg{Width: 120, Height: 40})
	load(a, fixture.Reassigning())
	if len(sizes.hurry) != 1 || !sizes.hurry[0] {
		t.Errorf("a reassignment does not hurry the sizes: %v", sizes.hurry)
	}
}

// TestSizesOff: without a sizes source the overview says why, as the
// command line gave it.
func TestSizesOff(t *testing.T) {
	a := New(Config{Source: newSource(), Connect: "zk1:2181/kafka", Now: func() time.Time { return t0 }, Location: time.UTC,
		SizesOff: "ZooKeeper holds no sizes; give --bootstrap-server"})
	a.update(tea.WindowSizeMsg{Width: 120, Height: 40})
	load(a, fixture.Small())
	if out := screen(a); !strings.Contains(out, "sizes unknown: ZooKeeper holds no sizes; give --bootstrap-server") {
		t.Errorf("the overview does not say why:\n%s", out)
	}
}
