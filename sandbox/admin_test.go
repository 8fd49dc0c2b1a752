package sandbox

import (
	"testing"

	"github.com/go-zookeeper/zk"
	"github.com/ktopo/ktopo/cluster"
)

func (e *env) waitGone(paths ...string) {
	e.t.Helper()
	waitFor(e.t, "deletion", func() (bool, string) {
		for _, p := range paths {
			if e.exists(p) {
				return false, p + " still exists"
			}
		}
		return true, ""
	})
}

func topicPaths(topic string) []string {
	return []string{cluster.TopicPath(topic), cluster.TopicConfigPath(topic), cluster.DeleteTopicPath(topic)}
}

// TestDeleteTopic: deletion with every replica up, with a replica's broker
// down (the topic stays marked until it returns), and of an unknown topic
// (spec §4.12, §5.6).
func TestDeleteTopic(t *testing.T) {
	e := newEnv(t, Config{Brokers: 4})
	t1 := failureTopics["t"]
	e.createTopic("t", t1, nil)
	e.createTopic("keep", map[int][]int{0: {2, 3}}, nil)
	e.waitAll(topicStates{"t": failureInitial["t"], "keep": {0: s(2, 0, 1, 0, 2, 3)}})

	t.Run("all up", func(t *testing.T) {
		e.create(cluster.DeleteTopicPath("t"), nil)
		e.waitGone(topicPaths("t")...)
		e.waitStates("keep", map[int]*st{0: s(2, 0, 1, 0, 2, 3)})
	})

	t.Run("unknown topic", func(t *testing.T) {
		e.create(cluster.DeleteTopicPath("nope"), nil)
		e.waitGone(cluster.DeleteTopicPath("nope"))
	})

	t.Run("broker down", func(t *testing.T) {
		e.createTopic("t", t1, nil)
		e.waitStates("t", failureInitial["t"])
		e.kill(4)
		e.waitStates("t", map[int]*st{0: s(2, 1, 1, 1, 2, 3), 1: s(3, 1, 1, 1, 3, 2), 2: s(2, 1, 1, 1, 2, 3)})
		e.create(cluster.DeleteTopicPath("t"), nil)
		// The live replicas leave the ISRs (leader epoch + 1 each time, the
		// last member stays), then the deletion waits for broker 4.
		e.waitStates("t", map[int]*st{0: s(-1, 3, 1, 3, 3), 1: s(-1, 3, 1, 3, 3), 2: s(-1, 3, 1, 3, 3)})
		for _, p := range topicPaths("t") {
			if !e.exists(p) {
				t.Errorf("%s deleted while broker 4 is down", p)
			}
		}
		status, err := e.c.Status()
		if err != nil {
			t.Fatal(err)
		}
		for _, ts := range status.Topics {
			if ts.Name == "t" && !ts.MarkedForDeletion {
				t.Errorf("status does not show t as marked for deletion:\n%s", status)
			}
		}
		e.restart(4)
		e.waitGone(topicPaths("t")...)
		e.waitStates("keep", map[int]*st{0: s(2, 0, 1, 0, 2, 3)})
	})
}

// TestPreferredElectionNode: /admin/preferred_replica_election triggers a
// preferred election of the listed partitions and is deleted afterwards.
func TestPreferredElectionNode(t *testing.T) {
	e := newEnv(t, Config{Brokers: 3})
	e.createTopic("t", map[int][]int{0: {2, 3}, 1: {3, 2}}, nil)
	e.waitStates("t", map[int]*st{0: s(2, 0, 1, 0, 2, 3), 1: s(3, 0, 1, 0, 3, 2)})
	e.kill(2)
	e.waitStates("t", map[int]*st{0: s(3, 1, 1, 1, 3), 1: s(3, 1, 1, 1, 3)})
	e.restart(2)
	e.waitStates("t", map[int]*st{0: s(3, 1, 1, 2, 3, 2), 1: s(3, 1, 1, 2, 3, 2)})
	e.create(cluster.PreferredReplicaElectionPath,
		cluster.EncodePartitionsNotification([]cluster.TopicPartition{{Topic: "t", Partition: 0}, {Topic: "t", Partition: 1}}))
	e.waitStates("t", map[int]*st{0: s(2, 2, 1, 3, 3, 2), 1: s(3, 1, 1, 2, 3, 2)})
	e.waitGone(cluster.PreferredReplicaElectionPath)
	// A second request is seen too (the existence watch is re-armed).
	e.kill(2)
	e.waitStates("t", map[int]*st{0: s(3, 3, 1, 4, 3), 1: s(3, 2, 1, 3, 3)})
	e.restart(2)
	e.waitStates("t", map[int]*st{0: s(3, 3, 1, 5, 3, 2), 1: s(3, 2, 1, 4, 3, 2)})
	e.create(cluster.PreferredReplicaElectionPath,
		cluster.EncodePartitionsNotification([]cluster.TopicPartition{{Topic: "t", Partition: 0}}))
	e.waitStates("t", map[int]*st{0: s(2, 4, 1, 6, 3, 2), 1: s(3, 2, 1, 4, 3, 2)})
	e.waitGone(cluster.PreferredReplicaElectionPath)
	// Text that is not JSON is an election of nothing to Kafka's decoder:
	// the znode is deleted, nothing else written (internal/testkit/fidelity checks
	// it against Kafka 3.9).
	e.create(cluster.PreferredReplicaElectionPath, []byte(`{"version":1,"partitions":[`))
	e.waitGone(cluster.PreferredReplicaElectionPath)
	e.waitStates("t", map[int]*st{0: s(2, 4, 1, 6, 3, 2), 1: s(3, 2, 1, 4, 3, 2)})
}

// TestForeignIsrChangeNotification: isr_change_<seq> nodes written by
// someone else (a leader on an old IBP) are processed and deleted.
func TestForeignIsrChangeNotification(t *testing.T) {
	e := newEnv(t, Config{Brokers: 2})
	e.createTopic("t", map[int][]int{0: {1, 2}}, nil)
	e.waitStates("t", map[int]*st{0: s(1, 0, 1, 0, 1, 2)})
	p, err := e.zk.Create(cluster.IsrChangeNotificationPath+"/"+cluster.IsrChangePrefix,
		cluster.EncodePartitionsNotification([]cluster.TopicPartition{{Topic: "t", Partition: 0}}), zk.FlagSequence, openACL)
	if err != nil {
		t.Fatal(err)
	}
	e.waitGone(p)
}

// TestTwoSandboxesOneServer: two sandboxes on two chroots of one server
// are independent clusters.
func TestTwoSandboxesOneServer(t *testing.T) {
	a := newEnv(t, Config{Brokers: 2})
	b := newEnv(t, Config{Brokers: 3, Racks: 3})
	for _, e := range []*env{a, b} {
		if id, epoch := e.controller(); id != 1 || epoch != 1 {
			t.Fatalf("%s: controller %d epoch %d", e.connect, id, epoch)
		}
		e.createTopic("t", map[int][]int{0: {2, 1}}, nil)
		e.waitStates("t", map[int]*st{0: s(2, 0, 1, 0, 2, 1)})
	}
	a.kill(2)
	a.waitStates("t", map[int]*st{0: s(1, 1, 1, 1, 1)})
	b.waitStates("t", map[int]*st{0: s(2, 0, 1, 0, 2, 1)})
	if got := b.registered(); len(got) != 3 {
		t.Errorf("b's brokers: %v", got)
	}
}
