package ui

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/zkops"
)

// TestSizesReachBackgroundDrain: a reading of the sizes goes to the
// operation wizard on the stack (its preview counts bytes) and, once it
// is left to the background, still to it: the status bar's line follows
// the bytes.
func TestSizesReachBackgroundDrain(t *testing.T) {
	a := New(Config{Source: newSource(), Writer: zkops.NewWriter(&fakeWriter{}), Mode: ModeLive, Connect: "zk1:2181/kafka",
		Now: func() time.Time { return t0 }, Location: time.UTC, Rand: rand.New(rand.NewPCG(1, 2))})
	a.update(tea.WindowSizeMsg{Width: 200, Height: 60})
	load(a, wizardSpec())
	reading := func(at time.Time) *cluster.Sizes {
		b := cluster.NewSizesBuilder(at)
		for _, id := range a.snap.LiveBrokerIDs() {
			b.Broker(id, []cluster.LogDir{{Path: "/data", Total: 1 << 40, Usable: 1 << 39}})
		}
		for _, tp := range a.snap.Topics() {
			for _, p := range tp.Partitions {
				for _, r := range p.Replicas {
					b.Replica(tp.Name, p.ID, cluster.ReplicaSize{Broker: int32(r), Bytes: 1 << 30})
				}
			}
		}
		return b.Done(nil)
	}
	press(a, "right", "right", "d")
	if out := screen(a); !strings.Contains(out, "sizes unknown: not read by this session: the plan counts replicas only") {
		t.Fatalf("the preview before any reading:\n%s", out)
	}
	a.update(sizesMsg{reading(t0)})
	if out := screen(a); !strings.Contains(out, "bytes: 5.00 GiB to copy") {
		t.Fatalf("the preview with sizes:\n%s", out)
	}
	press(a, "L", "enter", "y", "esc")
	if len(a.Tasks()) != 1 {
		t.Fatalf("%d tasks", len(a.Tasks()))
	}
	a.update(sizesMsg{reading(t0.Add(time.Minute))})
	if line, _ := a.Tasks()[0].TaskStatus(); !strings.Contains(line, "0/5 partitions moved, 0 B of 5.00 GiB copied (0%)") {
		t.Fatalf("status %q", line)
	}
}
