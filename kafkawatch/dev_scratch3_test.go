package kafkawatch

import (
	"context"
	"log"
	"os"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

func TestScratchChange(t *testing.T) {
	bs := os.Getenv("KTOPO_DEV_BOOTSTRAP")
	if bs == "" {
		t.Skip()
	}
	lg := log.New(os.Stderr, "poller: ", log.Lmicroseconds)
	t0 := time.Now()
	p, _ := Start(Dial{Bootstrap: SplitBootstrap(bs), Logger: lg}, Options{Progress: true, Logger: lg})
	defer p.Close()
	for {
		b, err := p.Next(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%v batch %d events partial %v loaded %v", time.Since(t0), len(b.Events), b.Partial, b.Loaded)
		if b.Loaded {
			break
		}
	}
	cl, _ := kgo.NewClient(kgo.SeedBrokers(bs))
	req := kmsg.NewPtrCreateTopicsRequest()
	tp := kmsg.NewCreateTopicsRequestTopic()
	tp.Topic, tp.NumPartitions, tp.ReplicationFactor = "chg-"+time.Now().Format("150405"), 1, 1
	req.Topics = append(req.Topics, tp)
	req.TimeoutMillis = 30000
	req.RequestWith(context.Background(), cl)
	t1 := time.Now()
	for i := 0; i < 5; i++ {
		b, err := p.Next(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		paths := []string{}
		for _, e := range b.Events {
			paths = append(paths, e.Type.String()+" "+e.Path)
		}
		t.Logf("+%v batch %v kraft %v stats %+v", time.Since(t1), paths, b.KRaft != nil, p.Stats())
	}
}
