package kraftsandbox

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// startTest starts a sandbox for one test: cfg's zero fields get 6
// brokers in 3 racks, 3 controllers, a fixed seed.
func startTest(t testing.TB, cfg Config) *Cluster {
	t.Helper()
	if cfg.Brokers == 0 {
		cfg.Brokers = 6
	}
	if cfg.Controllers == 0 {
		cfg.Controllers = 3
	}
	if cfg.Racks == 0 {
		cfg.Racks = 3
	}
	if cfg.Rand == nil {
		cfg.Rand = rand.New(rand.NewPCG(1, 2))
	}
	c, err := Start(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// client is a franz-go client of the sandbox's brokers.
func client(t testing.TB, c *Cluster) *kgo.Client {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(strings.Split(c.Bootstrap(), ",")...), kgo.RequestTimeoutOverhead(5*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return cl
}

func TestStartServesMetadata(t *testing.T) {
	c := startTest(t, Config{DemoTopics: true})
	cl := client(t, c)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	resp, err := kmsg.NewPtrMetadataRequest().RequestWith(ctx, cl)
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Brokers) != 6 {
		t.Errorf("brokers: %d, want 6", len(resp.Brokers))
	}
	if *resp.ClusterID != c.ClusterID() {
		t.Errorf("cluster id %s, want %s", *resp.ClusterID, c.ClusterID())
	}
	parts := map[string]int{}
	for _, tp := range resp.Topics {
		parts[*tp.Topic] = len(tp.Partitions)
		for _, p := range tp.Partitions {
			if p.Leader < 0 || len(p.ISR) != len(p.Replicas) {
				t.Errorf("%s-%d: leader %d isr %v replicas %v", *tp.Topic, p.Partition, p.Leader, p.ISR, p.Replicas)
			}
		}
	}
	for _, d := range DemoTopics() {
		if parts[d.Name] != d.Partitions {
			t.Errorf("%s: %d partitions, want %d", d.Name, parts[d.Name], d.Partitions)
		}
	}
}
