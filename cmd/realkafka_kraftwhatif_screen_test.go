package cmd

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/clusterwatch"
	"github.com/ktopo/ktopo/kafkawatch"
	"github.com/ktopo/ktopo/ui/keys"
	"github.com/ktopo/ktopo/ui/screens/whatif"
	"github.com/ktopo/ktopo/ui/theme"
)

// whatIfScreen is the TUI's what-if screen following the cluster as the
// TUI does (a kafkawatch.Poller every 200 ms, each batch applied to a
// model and its snapshot given to the screen), on a goroutine of its own.
type whatIfScreen struct {
	cancel context.CancelFunc
	done   chan struct{}
	mu     sync.Mutex
	m      *whatif.Model
	err    error
}

// followWhatIf opens the what-if of brokers on c.
func (w *kraftWhatIf) followWhatIf(t *testing.T, brokers []int) *whatIfScreen {
	p, err := kafkawatch.Start(kafkawatch.Dial{Bootstrap: kafkawatch.SplitBootstrap(w.c.Bootstrap())}, kafkawatch.Options{Interval: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	sc := &whatIfScreen{cancel: cancel, done: make(chan struct{}), m: whatif.New(theme.New(true), keys.Default(), brokers, "")}
	sc.m.SetSize(200, 60)
	go func() {
		defer close(sc.done)
		defer p.Close()
		watch := clusterwatch.NewWatch(p, cluster.ModelOptions{})
		for {
			if _, _, err := watch.Next(ctx); err != nil {
				if ctx.Err() == nil {
					sc.mu.Lock()
					sc.err = err
					sc.mu.Unlock()
				}
				return
			}
			sc.mu.Lock()
			sc.m.SetSnapshot(watch.Model.Snapshot())
			sc.mu.Unlock()
		}
	}()
	t.Cleanup(sc.stop)
	return sc
}

func (sc *whatIfScreen) stop() {
	sc.cancel()
	<-sc.done
}

// waitFor waits until cond holds of the screen (3 minutes at most).
func (sc *whatIfScreen) waitFor(t *testing.T, what string, cond func(m *whatif.Model) bool) {
	t.Helper()
	deadline := time.Now().Add(3 * time.Minute)
	for {
		sc.mu.Lock()
		ok, err := sc.m.Impact() != nil && cond(sc.m), sc.err
		view := ""
		if !ok && time.Now().After(deadline) {
			view = ansi.Strip(sc.m.View())
		}
		sc.mu.Unlock()
		switch {
		case err != nil:
			t.Fatalf("the screen's poller: %v", err)
		case ok:
			return
		case view != "":
			t.Fatalf("timed out waiting until the screen %s:\n%s", what, view)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// checkHeld: once the brokers are fenced the screen holds the prediction
// it made before the failure, its WAS (each partition's state then) is
// before's, it predicts what the one-shot read predicted (fi), and it
// finds every partition as predicted.
func (sc *whatIfScreen) checkHeld(t *testing.T, before *cluster.Snapshot, fi *cluster.FailureImpact) {
	t.Helper()
	sc.waitFor(t, "finds every partition as predicted", func(m *whatif.Model) bool {
		return m.Verifying() && m.Matched() == m.Impact().Counts.Partitions
	})
	sc.mu.Lock()
	defer sc.mu.Unlock()
	held := sc.m.Impact()
	var diff []string
	if held.Counts != fi.Counts {
		diff = append(diff, fmt.Sprintf("counts %+v, the one-shot read's %+v", held.Counts, fi.Counts))
	}
	for _, tf := range held.Topics {
		for i := range tf.Partitions {
			f := &tf.Partitions[i]
			key := fmt.Sprintf("%s-%d", tf.Topic.Name, f.Partition.ID)
			var was *cluster.Partition
			if tp := before.Topic(tf.Topic.Name); tp != nil {
				was = tp.Partition(f.Partition.ID)
			}
			if was == nil || !stateOfPartition(was, false).equal(stateOfPartition(f.Partition, false)) {
				diff = append(diff, fmt.Sprintf("%s: WAS %s, before the kill %v", key, stateOfPartition(f.Partition, false), was))
			}
			if g := fi.Partition(tf.Topic.Name, f.Partition.ID); g == nil || !slices.EqualFunc(g.Outcomes(), f.Outcomes(), outcomeEqual) {
				diff = append(diff, fmt.Sprintf("%s: the screen predicts %+v, the one-shot read %+v", key, f.Outcomes(), g))
			}
		}
	}
	if len(diff) > 0 {
		t.Errorf("the held what-if is not the prediction before the failure:\n  %s\n%s", strings.Join(diff, "\n  "), ansi.Strip(sc.m.View()))
	}
}

func outcomeEqual(a, b cluster.FailureOutcome) bool {
	return pstate{a.Leader, a.LeaderEpoch, a.ISR, a.ELR, a.LastKnownELR, a.Recovering}.equal(pstate{b.Leader, b.LeaderEpoch, b.ISR, b.ELR, b.LastKnownELR, b.Recovering})
}
