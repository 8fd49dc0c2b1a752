package kafkawatch_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/clusterwatch"
	"github.com/ktopo/ktopo/internal/testkit/kafkatest"
	"github.com/ktopo/ktopo/kafkawatch"
	"github.com/ktopo/ktopo/kraftsandbox"
)

// TestPollerFenceIsCausal (Kafka 4.4, a controller and 3 brokers): a
// broker killed is fenced by the controller in the same record batch
// that moves its leaders and shrinks the ISRs it was in. Whatever broker
// a poll's requests reach, and however a request to the dead broker is
// retried, ktopo sees the fence no later than its effects: no leader
// moves off the broker and no ISR loses it while it is still live in the
// model (the newcomer saw 13 leader moves and 32 ISR shrinks a poll
// before "broker left", and the what-if's prediction checked against the
// state after the failure). A race, so two pollers at 100 ms watch kill
// after kill (3 under -short, 10 otherwise).
func TestPollerFenceIsCausal(t *testing.T) {
	kafkatest.Require(t, kafkatest.Kafka44)
	c, err := kafkatest.StartKRaft(kafkatest.KRaftOptions{Version: kafkatest.Kafka44, Controllers: 1, Brokers: 3, Racks: 3,
		SessionTimeout: 3 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Stop()
	kafkatest.Attach(t, c)
	testFenceIsCausal(t, c)
}

// TestSandboxPollerFenceIsCausal is TestPollerFenceIsCausal on the
// simulated KRaft cluster (kraftsandbox, no Java): its controller too
// fences a killed broker in the same change that moves its leaders and
// shrinks its ISRs, and ktopo's poller must see the fence first.
func TestSandboxPollerFenceIsCausal(t *testing.T) {
	c, err := kraftsandbox.Start(kraftsandbox.Config{Brokers: 3, Controllers: 1, Racks: 3, SessionTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	testFenceIsCausal(t, c)
}

// testFenceIsCausal is the scenario of TestPollerFenceIsCausal on a
// cluster of 3 brokers and a controller.
func testFenceIsCausal(t *testing.T, c kafkatest.KRaftNodes) {
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	cl, err := kgo.NewClient(kgo.SeedBrokers(kafkawatch.SplitBootstrap(c.Bootstrap())...), kgo.RetryTimeout(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	req := kmsg.NewPtrCreateTopicsRequest()
	req.TimeoutMillis = 60_000
	for _, name := range []string{"causal-a", "causal-b"} {
		ct := kmsg.NewCreateTopicsRequestTopic()
		ct.Topic, ct.NumPartitions, ct.ReplicationFactor = name, 12, 3
		req.Topics = append(req.Topics, ct)
	}
	createTopics(ctx, t, cl, req)

	const pollers = 2
	var ws []*watcher
	for i := range pollers {
		p, err := kafkawatch.Start(kafkawatch.Dial{Bootstrap: kafkawatch.SplitBootstrap(c.Bootstrap())},
			kafkawatch.Options{Interval: 100 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		defer p.Close()
		w := &watcher{name: fmt.Sprintf("poller %d", i+1), w: clusterwatch.NewWatch(p, cluster.ModelOptions{})}
		if _, err := w.w.Loaded(ctx); err != nil {
			t.Fatal(err)
		}
		ws = append(ws, w)
	}
	kills := 10
	if testing.Short() {
		kills = 3
	}
	ids := c.BrokerIDs()
	for k := range kills {
		victim := ids[k%len(ids)]
		for _, w := range ws {
			w.waitHealthy(ctx, t, len(ids))
		}
		var wg sync.WaitGroup
		results := make([]string, len(ws))
		for i, w := range ws {
			led := ledBy(w.w.Model.Snapshot(), victim)
			wg.Add(1)
			go func() {
				defer wg.Done()
				results[i] = w.followKill(ctx, victim, led)
			}()
		}
		if err := c.Kill(victim); err != nil {
			t.Fatal(err)
		}
		wg.Wait()
		for _, r := range results {
			if r != "" {
				t.Errorf("kill %d of broker %d: %s", k+1, victim, r)
			}
		}
		if err := c.Restart(victim); err != nil {
			t.Fatal(err)
		}
		if t.Failed() {
			return
		}
	}
}

// watcher is one poller's model, followed batch by batch.
type watcher struct {
	name string
	w    *clusterwatch.Watch
}

// waitHealthy follows the poller until every broker is live and every
// partition fully in sync.
func (w *watcher) waitHealthy(ctx context.Context, t *testing.T, brokers int) {
	t.Helper()
	for {
		s := w.w.Model.Snapshot()
		if len(s.LiveBrokerIDs()) == brokers && s.Health().Healthy() && s.Topic("causal-a") != nil && s.Topic("causal-b") != nil {
			return
		}
		if _, _, err := w.w.Next(ctx); err != nil {
			t.Fatalf("%s: waiting for a healthy cluster: %v", w.name, err)
		}
	}
}

// followKill follows the poller from the kill of victim until every
// partition it led has another leader, and reports the first effect seen
// while the victim was still live ("" when the fence came first).
func (w *watcher) followKill(ctx context.Context, victim int, led []cluster.TopicPartition) string {
	fenced := false
	moved := map[cluster.TopicPartition]bool{}
	for len(moved) < len(led) || !fenced {
		_, changes, err := w.w.Next(ctx)
		if err != nil {
			return fmt.Sprintf("%s: %v (fenced %v, %d of %d leaders moved)", w.name, err, fenced, len(moved), len(led))
		}
		for _, c := range changes {
			switch {
			case c.Kind == cluster.ChangeBrokerGone && c.Broker == victim:
				fenced = true
			case c.Kind == cluster.ChangeLeaderMoved && c.From == victim,
				c.Kind == cluster.ChangeIsrShrank && slices.Contains(c.Removed, victim):
				if !fenced {
					return fmt.Sprintf("%s: %s while broker %d was still live (batch: %s)", w.name, c, victim, kindsOf(changes))
				}
				if c.Kind == cluster.ChangeLeaderMoved {
					moved[cluster.TopicPartition{Topic: c.Topic, Partition: c.Partition}] = true
				}
			}
		}
	}
	return ""
}

func kindsOf(cs []cluster.Change) string {
	var out []string
	for _, c := range cs {
		out = append(out, string(c.Kind))
	}
	if len(out) > 8 {
		out = append(out[:8], fmt.Sprintf("… %d in all", len(cs)))
	}
	return strings.Join(out, ", ")
}

// ledBy lists the partitions broker leads.
func ledBy(s *cluster.Snapshot, broker int) []cluster.TopicPartition {
	var out []cluster.TopicPartition
	for _, t := range s.Topics() {
		for _, p := range t.Partitions {
			if p.Leader == broker {
				out = append(out, cluster.TopicPartition{Topic: t.Name, Partition: p.ID})
			}
		}
	}
	return out
}
