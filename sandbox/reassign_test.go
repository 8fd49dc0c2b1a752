package sandbox

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/go-zookeeper/zk"
	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/clusterops"
	"github.com/ktopo/ktopo/zkops"
)

// requestReassignment creates /admin/reassign_partitions as
// kafka-reassign-partitions --zookeeper does.
func (e *env) requestReassignment(ps ...cluster.PartitionReassignment) {
	e.t.Helper()
	e.create(cluster.ReassignPartitionsPath, cluster.EncodeReassignPartitions(ps))
}

// waitTopicZnode waits until the topic znode holds want (partition →
// replicas) with no adding or removing replicas, at dataVersion version.
func (e *env) waitTopicZnode(topic string, want map[int][]int, version int32) {
	e.t.Helper()
	exp := string(cluster.EncodeTopicAssignment(cluster.NewTopicAssignment(want, "")))
	waitFor(e.t, "topic znode "+topic, func() (bool, string) {
		n := e.get(cluster.TopicPath(topic))
		a, err := cluster.DecodeTopicAssignment(n.data)
		if err != nil {
			return false, err.Error()
		}
		got := string(cluster.EncodeTopicAssignment(cluster.NewTopicAssignment(a.Partitions, ""))) // topic id aside
		if len(a.AddingReplicas) > 0 || len(a.RemovingReplicas) > 0 {
			got = string(n.data)
		}
		return got == exp && n.version == version, fmt.Sprintf("%s (v%d), want %s (v%d)", n.data, n.version, exp, version)
	})
}

// TestReassignThroughZooKeeper: /admin/reassign_partitions moves a leader
// out (Reassign election), grows a partition (leader epoch bump in B3) and
// shrinks one (complete at once), with Kafka's writes: the leader epoch
// bumps of A1 and B3, one ISR expansion per new replica, one ISR shrink
// per removed replica, the topic znode written twice per partition, and
// the request znode deleted once the last partition is done.
func TestReassignThroughZooKeeper(t *testing.T) {
	e := newEnv(t, Config{Brokers: 4, PartitionSize: -1})
	e.createTopic("t", map[int][]int{0: {1, 2, 3}, 1: {2, 3, 4}, 2: {3, 4}}, nil)
	e.waitStates("t", map[int]*st{0: s(1, 0, 1, 0, 1, 2, 3), 1: s(2, 0, 1, 0, 2, 3, 4), 2: s(3, 0, 1, 0, 3, 4)})
	e.requestReassignment(
		cluster.PartitionReassignment{Topic: "t", Partition: 0, Replicas: []int{2, 3, 4}},
		cluster.PartitionReassignment{Topic: "t", Partition: 1, Replicas: []int{2, 3, 4, 1}},
		cluster.PartitionReassignment{Topic: "t", Partition: 2, Replicas: []int{3}},
	)
	e.waitGone(cluster.ReassignPartitionsPath)
	e.waitStates("t", map[int]*st{
		// A1 (epoch 1), 4 joins [1,2,3,4], Reassign election of 2 (epoch 2), 1 leaves (epoch 3).
		0: s(2, 3, 1, 4, 2, 3, 4),
		// A1, 1 joins, B3 bumps the epoch (2 stays leader).
		1: s(2, 2, 1, 3, 2, 3, 4, 1),
		// Complete at once: B3 bumps the epoch, 4 leaves.
		2: s(3, 2, 1, 2, 3),
	})
	// Created (v0), topic id (v1), then U1 and B6 of each partition.
	e.waitTopicZnode("t", map[int][]int{0: {2, 3, 4}, 1: {2, 3, 4, 1}, 2: {3}}, 7)
}

// TestReassignUnknownPartitions: entries naming partitions that do not
// exist are dropped from the request; a request of only those is deleted.
func TestReassignUnknownPartitions(t *testing.T) {
	e := newEnv(t, Config{Brokers: 3, PartitionSize: -1})
	e.createTopic("t", map[int][]int{0: {1, 2}}, nil)
	e.waitStates("t", map[int]*st{0: s(1, 0, 1, 0, 1, 2)})
	e.requestReassignment(
		cluster.PartitionReassignment{Topic: "nope", Partition: 0, Replicas: []int{1}},
		cluster.PartitionReassignment{Topic: "t", Partition: 9, Replicas: []int{1}},
	)
	e.waitGone(cluster.ReassignPartitionsPath)
	e.requestReassignment(
		cluster.PartitionReassignment{Topic: "nope", Partition: 0, Replicas: []int{1}},
		cluster.PartitionReassignment{Topic: "t", Partition: 0, Replicas: []int{2, 3}},
	)
	e.waitGone(cluster.ReassignPartitionsPath)
	e.waitStates("t", map[int]*st{0: s(2, 3, 1, 4, 2, 3)})
}

// setThrottles writes Kafka's throttle configs for moving p of topic from
// sources to destination (what kafka-reassign-partitions --throttle
// writes) with rate bytes per second.
func (e *env) setThrottles(topic, leader, follower string, rate string, brokers ...string) {
	e.t.Helper()
	cfg := map[string]string{}
	if leader != "" || follower != "" {
		cfg = map[string]string{cluster.ConfigLeaderThrottledReplicas: leader, cluster.ConfigFollowerThrottledReplicas: follower}
	}
	changes := []clusterops.ConfigChange{{EntityType: cluster.EntityTopics, Entity: topic, Version: e.get(cluster.TopicConfigPath(topic)).version, Config: cfg}}
	for _, b := range brokers {
		v := int32(-1)
		if n := e.get(cluster.BrokerConfigPath(atoiMust(b))); n.exists {
			v = n.version
		}
		changes = append(changes, clusterops.ConfigChange{EntityType: cluster.EntityBrokers, Entity: b, Version: v,
			Config: map[string]string{cluster.ConfigLeaderThrottledRate: rate, cluster.ConfigFollowerThrottledRate: rate}})
	}
	e.ensure(cluster.ConfigChangesPath)
	e.ensure(cluster.ConfigBrokersPath)
	if _, err := e.zk.Multi(zkops.ConfigChangeOps(changes...)...); err != nil {
		e.t.Fatalf("set throttles: %v", err)
	}
}

func (e *env) ensure(p string) {
	if _, err := e.zk.Create(p, nil, 0, openACL); err != nil && !errors.Is(err, zk.ErrNodeExists) {
		e.t.Fatalf("create %s: %v", p, err)
	}
}

func atoiMust(s string) int {
	n := 0
	for _, c := range s {
		n = n*10 + int(c-'0')
	}
	return n
}

// TestReassignThrottledCopy: a new replica copies its partition at the
// throttle's rate while Kafka's throttle configs name it (leader and
// follower side), at the replication rate once they are removed; a
// controller failover in between resumes the reassignment from
// /admin/reassign_partitions (A1 again: one more leader epoch).
func TestReassignThrottledCopy(t *testing.T) {
	const throttle = 1024
	e := newEnv(t, Config{Brokers: 4, PartitionSize: 1 << 30, ReplicationRate: 1 << 40})
	e.createTopic("t", map[int][]int{0: {2, 3}}, nil)
	e.waitStates("t", map[int]*st{0: s(2, 0, 1, 0, 2, 3)})
	e.setThrottles("t", "0:2,0:3", "0:4", "1024", "2", "3", "4")
	e.requestReassignment(cluster.PartitionReassignment{Topic: "t", Partition: 0, Replicas: []int{3, 4}})
	waitFor(t, "broker 4 copying t-0 at the throttle's rate", func() (bool, string) {
		cs := e.c.Copies()
		if len(cs) != 1 {
			return false, strings.Repeat("copy ", len(cs))
		}
		c := cs[0]
		return c.Topic == "t" && c.Partition == 0 && c.Broker == 4 && c.Leader == 2 && c.Throttled && c.Rate == throttle, e.statusString()
	})
	if st, _ := e.c.Status(); !strings.Contains(st.String(), "copying t-0 to broker 4 from broker 2") || !strings.Contains(st.String(), "(throttled)") {
		t.Errorf("status does not show the copy:\n%s", st)
	}
	// The controller (broker 1, no replica of t) fails: broker 2, 3 or 4
	// takes over and resumes the reassignment.
	e.kill(1)
	waitFor(t, "a new controller", func() (bool, string) { id, epoch := e.controller(); return id > 1 && epoch == 2, "" })
	e.waitStates("t", map[int]*st{0: s(2, 2, 2, 2, 2, 3)})
	// Removing the throttles lets the copy finish at once.
	e.setThrottles("t", "", "", "0")
	e.waitGone(cluster.ReassignPartitionsPath)
	// 4 joins [2,3,4], 3 is elected (epoch 3), 2 leaves (epoch 4).
	e.waitStates("t", map[int]*st{0: s(3, 4, 2, 5, 3, 4)})
	if cs := e.c.Copies(); len(cs) != 0 {
		t.Errorf("copies left: %+v", cs)
	}
}

func (e *env) statusString() string {
	st, err := e.c.Status()
	if err != nil {
		return err.Error()
	}
	return st.String()
}

// TestReassignToDownBroker: a target broker that is down (the ZooKeeper
// path does not check) keeps the reassignment waiting; when it starts it
// gets the partition (the controller resumes the reassignment) and the
// reassignment completes.
func TestReassignToDownBroker(t *testing.T) {
	e := newEnv(t, Config{Brokers: 3, PartitionSize: -1})
	e.createTopic("t", map[int][]int{0: {1, 2}}, nil)
	e.waitStates("t", map[int]*st{0: s(1, 0, 1, 0, 1, 2)})
	e.kill(3)
	e.waitRegistered("1", "2")
	e.requestReassignment(cluster.PartitionReassignment{Topic: "t", Partition: 0, Replicas: []int{1, 3}})
	// A1 bumped the epoch; 3 cannot join.
	e.waitStates("t", map[int]*st{0: s(1, 1, 1, 1, 1, 2)})
	if !e.exists(cluster.ReassignPartitionsPath) {
		t.Fatal("the reassignment completed without its target broker")
	}
	e.restart(3)
	e.waitGone(cluster.ReassignPartitionsPath)
	// Resumed: A1 again (epoch 2), 3 joins, B3 bump (epoch 3), 2 leaves (epoch 4).
	e.waitStates("t", map[int]*st{0: s(1, 4, 1, 5, 1, 3)})
}
