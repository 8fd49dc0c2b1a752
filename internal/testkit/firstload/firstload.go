// Package firstload builds a big cluster's first load as the Kafka poller
// delivers it to the TUI (Options.Progress): one Partial batch with the
// brokers, topics and partition states, then Partial batches of a few
// thousand topics' configs each, then single changes. It is the input of
// the benchmarks that measure what the model and the screens do per batch
// (packages cluster and ui/screens/overview).
package firstload

import (
	"fmt"
	"strconv"
	"testing"

	"github.com/ktopo/ktopo/cluster"
)

// Load is a cluster of Brokers brokers in three racks and Topics topics of
// Partitions partitions each (RF 3, round-robin, every partition led by its
// first replica with the full ISR), whose configs come ConfigBatch topics
// to a batch.
type Load struct {
	Topics, Partitions, Brokers, ConfigBatch int
}

// Bench is the benchmarks' first load: 100,000 topics × 10 partitions
// (1,000,000 partitions, as the KRaft scale benchmark's) on 6 brokers,
// configs 2,500 topics to a batch (the poller's first load at that size
// delivers about 40 such batches, one every 250 ms). Under -short (CI runs
// every benchmark once) a tenth of the topics.
func Bench() Load {
	l := Load{Topics: 100_000, Partitions: 10, Brokers: 6, ConfigBatch: 2_500}
	if testing.Short() {
		l.Topics = 10_000
	}
	return l
}

// Name is a benchmark's name for l: "what/topics=100000/batch=2500".
func (l Load) Name(what string, batch bool) string {
	if batch {
		return fmt.Sprintf("%s/topics=%d/batch=%d", what, l.Topics, l.ConfigBatch)
	}
	return fmt.Sprintf("%s/topics=%d", what, l.Topics)
}

// Topic names topic t.
func Topic(t int) string { return "topic-" + strconv.Itoa(100_000_000 + t)[1:] }

// Replicas is partition p of topic t's assignment.
func (l Load) Replicas(t, p int) []int {
	b := l.Brokers
	return []int{(t+p)%b + 1, (t+p+1)%b + 1, (t+p+2)%b + 1}
}

// Core is the first batch: the cluster id, the controller, the brokers,
// every topic and every partition state, no configs.
func (l Load) Core() []cluster.NodeEvent {
	evs := make([]cluster.NodeEvent, 0, 8+l.Brokers+l.Topics*(1+l.Partitions))
	zx := int64(1)
	add := func(path string, data []byte) {
		zx++
		evs = append(evs, cluster.NodeEvent{Type: cluster.NodeCreated, Path: path, Data: data,
			Stat: cluster.Stat{Czxid: zx, Mzxid: zx, Ctime: zx, Mtime: zx}})
	}
	add(cluster.ClusterIDPath, cluster.EncodeClusterID("AbCdEfGhIjKlMnOpQrStUv"))
	add(cluster.ControllerEpochPath, []byte("1"))
	add(cluster.ControllerPath, cluster.EncodeController(cluster.NewControllerInfo(2, 1, 1)))
	for b := 1; b <= l.Brokers; b++ {
		eps := []cluster.BrokerEndpoint{{Listener: "PLAINTEXT", SecurityProtocol: "PLAINTEXT", Host: "kafka-" + strconv.Itoa(b), Port: 9092}}
		add(cluster.BrokerIDPath(b), cluster.EncodeBroker(cluster.NewBrokerRegistration(5, eps, -1, "rack-"+strconv.Itoa(b%3), 1_700_000_000_000, nil)))
	}
	for t := range l.Topics {
		name := Topic(t)
		parts := make(map[int][]int, l.Partitions)
		for p := range l.Partitions {
			parts[p] = l.Replicas(t, p)
		}
		add(cluster.TopicPath(name), cluster.EncodeTopicAssignment(cluster.NewTopicAssignment(parts, cluster.NewTopicID().String())))
		for p := range l.Partitions {
			r := parts[p]
			add(cluster.PartitionStatePath(name, p), cluster.EncodePartitionState(cluster.PartitionState{ControllerEpoch: 1, Leader: r[0], ISR: r}))
		}
	}
	return evs
}

// ConfigBatches are the batches of every topic's config, ConfigBatch
// topics to a batch. Round r's configs differ from round r-1's (a
// retention override set in odd rounds), so that batches applied round
// after round keep changing their topics, as the first load's do.
func (l Load) ConfigBatches(r int) [][]cluster.NodeEvent {
	cfg := map[string]string{}
	if r%2 == 1 {
		cfg["retention.ms"] = "3600000"
	}
	data := cluster.EncodeEntityConfig(cfg)
	var out [][]cluster.NodeEvent
	for t0 := 0; t0 < l.Topics; t0 += l.ConfigBatch {
		var b []cluster.NodeEvent
		for t := t0; t < min(t0+l.ConfigBatch, l.Topics); t++ {
			b = append(b, cluster.NodeEvent{Type: cluster.NodeChanged, Path: cluster.TopicConfigPath(Topic(t)), Data: data})
		}
		out = append(out, b)
	}
	return out
}

// StateChange is a single change, the i-th: partition 0 of a topic picked
// by i/2, led by its second replica, its first out of the ISR, when i is
// even; back as it was when odd.
func (l Load) StateChange(i int) []cluster.NodeEvent {
	t := (i / 2 * 7919) % l.Topics
	r := l.Replicas(t, 0)
	st := cluster.PartitionState{ControllerEpoch: 1, Leader: r[0], LeaderEpoch: i + 1, ISR: r}
	if i%2 == 0 {
		st = cluster.PartitionState{ControllerEpoch: 1, Leader: r[1], LeaderEpoch: i + 1, ISR: r[1:]}
	}
	return []cluster.NodeEvent{{Type: cluster.NodeChanged, Path: cluster.PartitionStatePath(Topic(t), 0), Data: cluster.EncodePartitionState(st)}}
}
