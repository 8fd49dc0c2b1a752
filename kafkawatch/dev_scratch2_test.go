package kafkawatch

import (
	"context"
	"os"
	"syscall"
	"testing"
	"time"
)

func cpu() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func TestScratchPollCost(t *testing.T) {
	bs := os.Getenv("KTOPO_DEV_BOOTSTRAP")
	if bs == "" {
		t.Skip()
	}
	t0 := time.Now()
	p, _ := Start(Dial{Bootstrap: SplitBootstrap(bs)}, Options{Progress: true})
	defer p.Close()
	for {
		b, err := p.Next(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if len(b.Events) > 0 && b.Partial && b.Progress.Done == 0 {
			t.Logf("first batch at %v: %d events", time.Since(t0), len(b.Events))
		}
		if b.Loaded {
			t.Logf("loaded at %v", time.Since(t0))
			break
		}
	}
	c0, w0 := cpu(), time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for {
		if _, err := p.Next(ctx); err != nil {
			break
		}
	}
	t.Logf("10 batches in %v, cpu %v (%.1f%% of a core), stats %+v", time.Since(w0), cpu()-c0, float64(cpu()-c0)*100/float64(time.Since(w0)), p.Stats())
}
