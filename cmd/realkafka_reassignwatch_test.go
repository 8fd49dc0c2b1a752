package cmd

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/clusterwatch/zksource"
	"github.com/ktopo/ktopo/internal/testkit/kafkatest"
	"github.com/ktopo/ktopo/zkwatch"
)

// TestReassignmentElsewhereRealKafka: a reassignment asked the way Kafka
// 2.x's kafka-reassign-partitions --zookeeper asks it (the
// /admin/reassign_partitions znode), onto a broker that is down, on a real
// 3.9 cluster: Kafka's controller starts it and it stalls adding the dead
// broker, which ktopo's reassignment progress names; once the broker is
// back the controller finishes it, and the progress says it is done.
func TestReassignmentElsewhereRealKafka(t *testing.T) {
	c := kafkatest.Shared(t, kafkatest.Kafka39)
	victim, _, _ := ledBy(t, c)
	var others []int
	for _, b := range c.Brokers() {
		if b.ID != victim {
			others = append(others, b.ID)
		}
	}
	x, y := others[0], others[1]
	topic := "reassign-elsewhere"
	runOK(t, "topics", "create", "--zookeeper", c.Connect(), "--topic", topic, "--replica-assignment", fmt.Sprintf("%d:%d", x, y), "--timeout", "90s")
	conn, err := zkwatch.Connect(context.Background(), c.Connect(), zkwatch.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	var tracker cluster.AllReassignmentsTracker
	// observe polls the cluster until cond holds of its reassignments.
	observe := func(what string, cond func(pr cluster.ReassignmentProgress) bool) cluster.ReassignmentProgress {
		t.Helper()
		var pr cluster.ReassignmentProgress
		for deadline := time.Now().Add(90 * time.Second); ; time.Sleep(100 * time.Millisecond) {
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			s, err := zksource.Load(ctx, conn, cluster.ModelOptions{})
			cancel()
			if err != nil {
				t.Fatal(err)
			}
			if pr = tracker.Observe(s); cond(pr) {
				return pr
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: the progress is %+v", what, pr)
			}
		}
	}
	c.Broker(victim).Kill()
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		if ok, _, err := conn.Exists(cluster.BrokerIDPath(victim)); err == nil && !ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("broker %d never left", victim)
		}
	}
	// y out, the dead victim in: what the 2.x tool writes.
	target := []int{x, victim}
	data := cluster.EncodeReassignPartitions([]cluster.PartitionReassignment{{Topic: topic, Partition: 0, Replicas: target}})
	if _, err := conn.Create(cluster.ReassignPartitionsPath, data, 0, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	stalled := observe("the reassignment stalled on the dead broker", func(pr cluster.ReassignmentProgress) bool {
		return len(pr.Partitions) == 1 && pr.Partitions[0].Phase == cluster.ReassignAdding
	})
	p := stalled.Partitions[0]
	if p.Topic != topic || !slices.Equal(p.Target, target) || !slices.Equal(p.Adding, []int{victim}) || !slices.Equal(p.Removing, []int{y}) ||
		!slices.Equal(p.CatchingUp, []int{victim}) || !slices.Equal(p.Down, []int{victim}) || !p.ViaZnode || stalled.Total != 1 || stalled.Done != 0 {
		t.Fatalf("stalled: %+v", stalled)
	}
	if err := c.Broker(victim).Start(); err != nil {
		t.Fatal(err)
	}
	done := observe("the reassignment finished", func(pr cluster.ReassignmentProgress) bool { return !pr.Active() && pr.Total > 0 })
	if done.Total != 1 || done.Done != 1 {
		t.Fatalf("done: %+v", done)
	}
	// The controller wrote the target and dropped the znode.
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	s, err := zksource.Load(ctx, conn, cluster.ModelOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Topic(topic).Partition(0).Replicas; !slices.Equal(got, target) || s.PendingReassignment() != nil {
		t.Fatalf("replicas %v (want %v), /admin/reassign_partitions %+v", got, target, s.PendingReassignment())
	}
	t.Logf("stalled on broker %s, then done", strconv.Itoa(victim))
}
