package kafkawatch

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/ktopo/ktopo/cluster"
)

func TestScratchLoad(t *testing.T) {
	bs := os.Getenv("KTOPO_DEV_BOOTSTRAP")
	if bs == "" {
		t.Skip()
	}
	s, err := Load(context.Background(), Dial{Bootstrap: SplitBootstrap(bs)}, cluster.ModelOptions{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("cluster %s controller %+v", s.ClusterID(), s.Controller())
	for _, b := range s.Brokers() {
		t.Logf("broker %+v", b)
	}
	for _, tp := range s.Topics() {
		t.Logf("topic %s id %s cfg %v", tp.Name, tp.ID, tp.Config)
		for _, p := range tp.Partitions {
			t.Logf("  %+v", *p)
		}
	}
	t.Logf("kraft %+v", *s.KRaft())
	p, _ := Start(Dial{Bootstrap: SplitBootstrap(bs)}, Options{Progress: true})
	defer p.Close()
	for i := 0; i < 4; i++ {
		b, err := p.Next(context.Background())
		t.Logf("%v batch: %d events partial %v loaded %v reset %v kraft %v states %v progress %v", time.Now().Format("15:04:05.000"), len(b.Events), b.Partial, b.Loaded, b.Reset, b.KRaft != nil, b.States, b.Progress)
		if err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("stats %+v", p.Stats())
}
