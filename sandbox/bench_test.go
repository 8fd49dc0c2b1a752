package sandbox

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/ktopo/ktopo/cluster"
)

// BenchmarkCreateOnline measures, for a 1,000-partition RF 3 topic on 6
// brokers (pace 0), the time from the creating multi's reply until every
// state znode exists with a leader, as a watcher sees it. Budget: 2 s.
func BenchmarkCreateOnline(b *testing.B) {
	e := newEnv(b, Config{Brokers: 6, Racks: 3})
	assignment := rackAwareAssignment(b, 6, 3, 1000, 3)
	b.ResetTimer()
	for i := range b.N {
		topic := fmt.Sprintf("bench-%d", i)
		b.StartTimer()
		e.createTopic(topic, assignment, nil)
		waitAllOnline(b, e.zk, topic, len(assignment))
		b.StopTimer()
	}
}

// waitAllOnline waits with one-shot exists watches, partition by
// partition, until every state znode exists, then checks all have a
// leader.
func waitAllOnline(t testing.TB, conn zkConn, topic string, n int) {
	t.Helper()
	deadline := time.After(waitDeadline)
	for p := range n {
		for {
			ok, _, ch, err := conn.ExistsW(cluster.PartitionStatePath(topic, p))
			if err != nil {
				t.Fatal(err)
			}
			if ok {
				break
			}
			select {
			case <-ch:
			case <-deadline:
				t.Fatalf("partition %d of %s not online in time", p, topic)
			}
		}
	}
	res := make(chan error, n)
	for p := range n {
		go func() {
			data, _, err := conn.Get(cluster.PartitionStatePath(topic, p))
			if err == nil {
				var s cluster.PartitionState
				if s, err = cluster.DecodePartitionState(data); err == nil && s.Leader < 0 {
					err = errors.New("no leader")
				}
			}
			if errors.Is(err, zk.ErrNoNode) {
				err = fmt.Errorf("partition %d: %w", p, err)
			}
			res <- err
		}()
	}
	for range n {
		if err := <-res; err != nil {
			t.Fatal(err)
		}
	}
}
