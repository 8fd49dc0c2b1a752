package sandbox

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/zkserver"
)

// BenchmarkCreateOnline measures, for a 1,000-partition RF 3 topic on 6
// brokers (pace 0), the time from the creating multi's reply until every
// state znode exists with a leader, as a watcher sees it. Budget: 2 s.
func BenchmarkCreateOnline(b *testing.B) {
	b.Run("apache-zookeeper", func(b *testing.B) { benchCreateOnline(b, "") })
	b.Run("embedded-zkserver", func(b *testing.B) {
		srv, err := zkserver.Start(zkserver.Config{})
		if err != nil {
			b.Fatal(err)
		}
		defer srv.Close()
		benchCreateOnline(b, srv.Addr()+"/bench")
	})
}

func benchCreateOnline(b *testing.B, connect string) {
	// Info-level logging into a discarding text handler: the formatting a
	// log file would cost, without the disk.
	e := newEnv(b, Config{Connect: connect, Brokers: 6, Racks: 3, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	assignment := rackAwareAssignment(b, 6, 3, 1000, 3)
	var took []time.Duration
	b.ResetTimer()
	for i := range b.N {
		topic := fmt.Sprintf("bench-%d", i)
		b.StartTimer()
		start := time.Now()
		e.createTopic(topic, assignment, nil)
		waitAllOnline(b, e.zk, topic, len(assignment))
		took = append(took, time.Since(start))
		b.StopTimer()
	}
	// The machine's load makes single runs noisy: report the spread too.
	slices.Sort(took)
	b.ReportMetric(float64(took[0].Milliseconds()), "min-ms")
	b.ReportMetric(float64(took[len(took)/2].Milliseconds()), "median-ms")
	b.ReportMetric(float64(took[len(took)-1].Milliseconds()), "max-ms")
}

// waitAllOnline sets an exists watch on every state znode at once
// (pipelined on the one connection, as a watcher like zkwatch would), waits
// for the missing ones to be created, then checks that all have a leader.
func waitAllOnline(t testing.TB, conn zkConn, topic string, n int) {
	t.Helper()
	chans := make([]<-chan zk.Event, n)
	errs := make([]error, n)
	parallel(n, func(p int) {
		ok, _, ch, err := conn.ExistsW(cluster.PartitionStatePath(topic, p))
		if err == nil && !ok {
			chans[p] = ch
		}
		errs[p] = err
	})
	deadline := time.After(waitDeadline)
	for p, ch := range chans {
		if errs[p] != nil {
			t.Fatal(errs[p])
		}
		if ch == nil {
			continue
		}
		select {
		case <-ch:
		case <-deadline:
			t.Fatalf("partition %d of %s not online in time", p, topic)
		}
	}
	parallel(n, func(p int) {
		data, _, err := conn.Get(cluster.PartitionStatePath(topic, p))
		if err == nil {
			var s cluster.PartitionState
			if s, err = cluster.DecodePartitionState(data); err == nil && s.Leader < 0 {
				err = errors.New("no leader")
			}
		}
		if err != nil {
			errs[p] = fmt.Errorf("partition %d: %w", p, err)
		}
	})
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
}

// parallel runs f(0..n-1) on 64 goroutines.
func parallel(n int, f func(i int)) {
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(64, n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				f(i)
			}
		}()
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
}
