package cmd

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/ktopo/ktopo/assign"
	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/clusterops"
	"github.com/ktopo/ktopo/internal/testkit/kraftfake"
	"github.com/ktopo/ktopo/kafkaops"
	"github.com/ktopo/ktopo/kafkawatch"
)

// fakeStep is one write of the fake's table: sent through kafkaops.Writer
// to real Kafka and to the fake controller (kraftfake), whose answers
// must be Kafka's (want), and whose metadata must then be Kafka's for
// the topics named.
type fakeStep struct {
	name string
	// do sends the write through w, planned on s (the real cluster as last
	// read), and says what became of it beyond its error ("" for none).
	do   func(ctx context.Context, w *kafkaops.Writer, s *cluster.Snapshot) (string, error)
	want string
	// topics are compared after the step: replicas, reassignment and
	// leader of every partition, or the topic's absence.
	topics []string
	// cordon, when not 0, is the broker the step cordons (> 0) or
	// uncordons (< 0): real Kafka's controller learns it from the broker's
	// next heartbeat, which the table waits for.
	cordon int
	// catchUp: the step's copies are done on real Kafka (no data to copy),
	// which the fake is told.
	catchUp bool
	// configsOf is a topic whose configs are compared after the step
	// (DescribeConfigs through each writer).
	configsOf string
	// setup prepares the real cluster before the step (data to copy).
	setup func(t *testing.T, bootstrap string)
}

// createStep creates topic with the assignment a (partition → replicas).
func createStep(name, topic string, a assign.Assignment, m clusterops.Mode, want string) fakeStep {
	return fakeStep{name: name, want: want, topics: []string{topic}, do: func(ctx context.Context, w *kafkaops.Writer, _ *cluster.Snapshot) (string, error) {
		_, err := w.CreateTopic(ctx, &clusterops.TopicPlan{Name: topic, Result: assign.Result{Assignment: a}}, m)
		return "", err
	}}
}

// addStep grows topic from existing to n partitions, the new ones on a.
func addStep(name, topic string, existing, n int, a assign.Assignment, want string) fakeStep {
	return fakeStep{name: name, want: want, topics: []string{topic}, do: func(ctx context.Context, w *kafkaops.Writer, _ *cluster.Snapshot) (string, error) {
		_, err := w.AddPartitions(ctx, []*clusterops.AddPartitionsPlan{{Topic: topic, Existing: existing, Partitions: n, Result: assign.Result{Assignment: a}}}, clusterops.Apply)
		return "", err
	}}
}

// moveStep reassigns topic-p to replicas (a reorder when they are its
// own).
func moveStep(name, topic string, p int, replicas []int, want string) fakeStep {
	return fakeStep{name: name, want: want, topics: []string{topic}, do: func(ctx context.Context, w *kafkaops.Writer, s *cluster.Snapshot) (string, error) {
		_, _, err := w.StartReassignment(ctx, s, []cluster.Reassignment{{TopicPartition: cluster.TopicPartition{Topic: topic, Partition: p}, Replicas: replicas}}, -1, clusterops.Apply)
		return "", err
	}}
}

// cancelStep cancels topic-p's reassignment.
func cancelStep(name, topic string, p int, want string) fakeStep {
	return fakeStep{name: name, want: want, topics: []string{topic}, do: func(ctx context.Context, w *kafkaops.Writer, _ *cluster.Snapshot) (string, error) {
		_, err := w.CancelReassignment(ctx, []cluster.TopicPartition{{Topic: topic, Partition: p}}, clusterops.Apply)
		return "", err
	}}
}

// electStep elects the preferred leaders of tps, and says the groups.
func electStep(name string, tps []cluster.TopicPartition, want string, topics ...string) fakeStep {
	return fakeStep{name: name, want: want, topics: topics, do: func(ctx context.Context, w *kafkaops.Writer, _ *cluster.Snapshot) (string, error) {
		_, res, err := w.Elect(ctx, &clusterops.ElectionPlan{Write: tps}, clusterops.Apply)
		if err != nil || res == nil {
			return "", err
		}
		var b strings.Builder
		fmt.Fprintf(&b, "elected %s; not needed %s", cluster.JoinPartitions(res.Elected, ","), cluster.JoinPartitions(res.NotNeeded, ","))
		for _, f := range res.Failed {
			fmt.Fprintf(&b, "; %s: %s (%s)", f.TopicPartition, f.Message, f.Class)
		}
		return b.String(), nil
	}}
}

// cordonStep cordons (or uncordons) broker.
func cordonStep(broker int, cordon bool) fakeStep {
	st := fakeStep{name: "cordon " + strconv.Itoa(broker), want: "ok", cordon: broker, do: func(ctx context.Context, w *kafkaops.Writer, _ *cluster.Snapshot) (string, error) {
		_, err := w.Cordon(ctx, broker, cordon, clusterops.Apply)
		return "", err
	}}
	if !cordon {
		st.name, st.cordon = "uncordon "+strconv.Itoa(broker), -broker
	}
	return st
}

// configStep sets (v != "") or deletes topic config k.
func configStep(name, topic, k, v, want string) fakeStep {
	return fakeStep{name: name, want: want, configsOf: topic, do: func(ctx context.Context, w *kafkaops.Writer, _ *cluster.Snapshot) (string, error) {
		a := &clusterops.ConfigAlteration{Change: clusterops.ConfigChange{EntityType: cluster.EntityTopics, Entity: topic, Config: map[string]string{}}}
		if v == "" {
			a.Deleted = []string{k}
		} else {
			a.Change.Config[k], a.Set = v, []string{k}
		}
		_, err := w.AlterConfigs(ctx, []*clusterops.ConfigAlteration{a}, clusterops.Apply)
		return "", err
	}}
}

// topicConfigs are a topic's overrides as w reads them (DescribeConfigs).
func topicConfigs(ctx context.Context, w *kafkaops.Writer, topic string) string {
	entries, _, err := w.ReadConfig(ctx, cluster.EntityTopics, topic)
	if err != nil {
		return err.Error()
	}
	var kv []string
	for _, e := range entries {
		kv = append(kv, e.Key+"="+e.Value)
	}
	slices.Sort(kv)
	return strings.Join(kv, ",")
}

func tp(topic string, p int) cluster.TopicPartition {
	return cluster.TopicPartition{Topic: topic, Partition: p}
}

// fakeTable are the writes of the KRaft TUI's operations and the command
// line's, with what Kafka 4.4 answers (brokers 1-4 registered, none
// cordoned at first).
func fakeTable() []fakeStep {
	const a, b, slow = "ff-a", "ff-b", "ff-slow"
	cordoned := "The manual partition assignment includes broker 3, but all its log directories are cordoned. (INVALID_REPLICA_ASSIGNMENT)"
	return []fakeStep{
		createStep("create", a, assign.Assignment{0: {1, 2}, 1: {2, 3}, 2: {3, 4}}, clusterops.Apply, "ok"),
		createStep("create an existing topic", a, assign.Assignment{0: {1, 2}}, clusterops.Apply, "Topic 'ff-a' already exists. (TOPIC_ALREADY_EXISTS)"),
		createStep("an unknown broker", b, assign.Assignment{0: {1, 9}}, clusterops.Apply,
			"The manual partition assignment includes broker 9, but no such broker is registered. (INVALID_REPLICA_ASSIGNMENT)"),
		createStep("a broker twice", b, assign.Assignment{0: {2, 2}}, clusterops.Apply,
			"The manual partition assignment includes the broker 2 more than once. (INVALID_REPLICA_ASSIGNMENT)"),
		createStep("brokers checked in id order", b, assign.Assignment{0: {9, 2, 2}}, clusterops.Apply,
			"The manual partition assignment includes the broker 2 more than once. (INVALID_REPLICA_ASSIGNMENT)"),
		createStep("replication factors that differ", b, assign.Assignment{0: {1, 2}, 1: {3}}, clusterops.Apply,
			"The manual partition assignment includes a partition with 1 replica(s), but this is not consistent with previous partitions, which have 2 replica(s). (INVALID_REPLICA_ASSIGNMENT)"),
		createStep("a partition missing", b, assign.Assignment{0: {1, 2}, 2: {3, 4}}, clusterops.Apply,
			"partitions should be a consecutive 0-based integer sequence (INVALID_REPLICA_ASSIGNMENT)"),
		createStep("an empty replica list", b, assign.Assignment{0: {}}, clusterops.Apply,
			"The manual partition assignment includes an empty replica list. (INVALID_REPLICA_ASSIGNMENT)"),
		createStep("an invalid name", "ff b", assign.Assignment{0: {1, 2}}, clusterops.Apply,
			"Topic name is invalid: 'ff b' contains one or more characters other than ASCII alphanumerics, '.', '_' and '-' (INVALID_TOPIC_EXCEPTION)"),
		createStep("validate only", b, assign.Assignment{0: {1, 2}}, clusterops.Validate, "ok"),
		createStep("create another", slow, assign.Assignment{0: {1, 2}}, clusterops.Apply, "ok"),

		addStep("add a partition", a, 3, 4, assign.Assignment{3: {4, 1}}, "ok"),
		addStep("no new partition", a, 4, 4, assign.Assignment{}, "Topic already has 4 partition(s). (INVALID_PARTITIONS)"),
		addStep("fewer partitions", a, 4, 3, assign.Assignment{}, "The topic ff-a currently has 4 partition(s); 3 would not be an increase. (INVALID_PARTITIONS)"),
		addStep("another replication factor", a, 4, 5, assign.Assignment{4: {1}},
			"The manual partition assignment includes a partition with 1 replica(s), but this is not consistent with previous partitions, which have 2 replica(s). (INVALID_REPLICA_ASSIGNMENT)"),
		addStep("too few assignments", a, 4, 6, assign.Assignment{4: {1, 2}},
			"Attempted to add 2 additional partition(s), but only 1 assignment(s) were specified. (INVALID_REPLICA_ASSIGNMENT)"),
		addStep("an unknown topic", "ff-zz", 1, 2, assign.Assignment{1: {1, 2}}, "This server does not host this topic-partition. (UNKNOWN_TOPIC_OR_PARTITION)"),
		addStep("an unknown broker", a, 4, 5, assign.Assignment{4: {1, 9}},
			"The manual partition assignment includes broker 9, but no such broker is registered. (INVALID_REPLICA_ASSIGNMENT)"),

		cancelStep("cancel none in progress", a, 0, "No partition reassignment is in progress. (NO_REASSIGNMENT_IN_PROGRESS)"),
		cancelStep("cancel in an unknown topic", "ff-zz", 0, "Unable to find a topic named ff-zz. (UNKNOWN_TOPIC_OR_PARTITION)"),
		cancelStep("cancel an unknown partition", a, 9, "Unable to find partition ff-a:9. (UNKNOWN_TOPIC_OR_PARTITION)"),
		moveStep("a reorder", a, 0, []int{2, 1}, "ok"),
		electStep("a preferred election", []cluster.TopicPartition{tp(a, 0), tp(a, 1), tp(a, 9), tp("ff-zz", 0)},
			"ok elected ff-a-0; not needed ff-a-1; ff-a-9: No such partition as ff-a-9 (UnknownTopicOrPartitionException); ff-zz-0: No such topic as ff-zz (UnknownTopicOrPartitionException)", a),
		withCatchUp(moveStep("a move", a, 3, []int{4, 2}, "ok")),
		withCatchUp(moveStep("a move to more replicas", a, 2, []int{3, 4, 1}, "ok")),
		moveStep("a move naming an unknown broker (the tool's check)", a, 2, []int{4, 9},
			"The proposed assignment contains non-existent brokerIDs: 9"),

		cordonStep(3, true),
		moveStep("a reorder naming a cordoned broker", a, 1, []int{3, 2}, cordoned),
		moveStep("a move to a cordoned broker", a, 0, []int{2, 3}, cordoned),
		createStep("a cordoned broker", b, assign.Assignment{0: {3, 1}}, clusterops.Apply, cordoned),
		createStep("a cordoned broker before an unknown one", b, assign.Assignment{0: {9, 3}}, clusterops.Apply, cordoned),
		addStep("a cordoned broker in a new partition", a, 4, 5, assign.Assignment{4: {3, 1}}, cordoned),
		withCatchUp(moveStep("a move off a cordoned broker", a, 2, []int{4, 1}, "ok")),
		cordonStep(3, false),
		withCatchUp(moveStep("a move to an uncordoned broker", a, 2, []int{4, 3}, "ok")),

		// A copy in progress: 8 MB throttled to 1 KB/s (Kafka lets a
		// fetch of 1 MB through every 11 s or so: over a minute).
		{name: "a throttled move", want: "ok", topics: []string{slow}, setup: func(t *testing.T, bs string) { produce(t, bs, slow, 8000, 1000) },
			do: func(ctx context.Context, w *kafkaops.Writer, s *cluster.Snapshot) (string, error) {
				_, _, err := w.StartReassignment(ctx, s, []cluster.Reassignment{{TopicPartition: tp(slow, 0), Replicas: []int{1, 4}}}, 1024, clusterops.Apply)
				return "", err
			}},
		moveStep("another move while it runs", a, 0, []int{1, 2}, clusterops.MessageReassignmentExists),
		{name: "another target while it runs (--additional)", want: "ok", topics: []string{slow},
			do: func(ctx context.Context, w *kafkaops.Writer, s *cluster.Snapshot) (string, error) {
				_, _, err := w.AddReassignment(ctx, s, []cluster.Reassignment{{TopicPartition: tp(slow, 0), Replicas: []int{1, 3}}}, 1024, clusterops.Apply)
				return "", err
			}},
		cancelStep("cancel it", slow, 0, "ok"),
		{name: "remove the throttles", want: "ok", do: func(ctx context.Context, w *kafkaops.Writer, s *cluster.Snapshot) (string, error) {
			c, kept, _, err := w.RemoveThrottles(ctx, s, []cluster.Reassignment{{TopicPartition: tp(slow, 0), Replicas: []int{1, 3}}}, clusterops.Apply)
			if c == nil {
				return fmt.Sprintf("kept %v", kept), err
			}
			return "", err
		}},

		configStep("a topic config", a, "retention.ms", "3600000", "ok"),
		configStep("an unknown topic config", a, "retention.mss", "1", "Unknown topic config name: retention.mss (INVALID_CONFIG)"),
		configStep("an invalid value", a, "retention.ms", "soon", "Invalid value soon for configuration retention.ms: Not a number of type LONG (INVALID_CONFIG)"),
		configStep("an unknown topic's config", "ff-zz", "retention.ms", "1", "The topic 'ff-zz' does not exist. (UNKNOWN_TOPIC_OR_PARTITION)"),
		configStep("a topic config deleted", a, "retention.ms", "", "ok"),
		deleteStep(slow), deleteStep(a),
	}
}

// deleteStep deletes topic.
func deleteStep(topic string) fakeStep {
	return fakeStep{name: "delete " + topic, want: "ok", topics: []string{topic}, do: func(ctx context.Context, w *kafkaops.Writer, s *cluster.Snapshot) (string, error) {
		_, err := w.DeleteTopic(ctx, s, topic, clusterops.Apply)
		return "", err
	}}
}

func withCatchUp(st fakeStep) fakeStep { st.catchUp = true; return st }

// testFakeWriter sends the table's writes to the cluster at bootstrap
// (Kafka 4.4, brokers 1-4) and to a fake controller made from its
// metadata, each through kafkaops.Writer, and requires the same answers,
// Kafka's, and the same metadata after each.
func testFakeWriter(t *testing.T, bootstrap string) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	bs := strings.Split(bootstrap, ",")
	cl, err := kgo.NewClient(kgo.SeedBrokers(bs...))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	real := kafkaops.New(cl, 0)
	read := func() *cluster.Snapshot {
		t.Helper()
		s, err := kafkawatch.Load(ctx, kafkawatch.Dial{Bootstrap: bs}, cluster.ModelOptions{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	fc := kraftfake.New(read())
	fake := kafkaops.New(fc, 0)
	for _, st := range fakeTable() {
		if st.setup != nil {
			st.setup(t, bootstrap)
		}
		s := read()
		got, err := st.do(ctx, real, s)
		realOut := outcome(got, err)
		got, err = st.do(ctx, fake, s)
		fakeOut := outcome(got, err)
		t.Logf("%s: %s", st.name, realOut)
		if realOut != st.want {
			t.Errorf("%s: Kafka answers %q, the table says %q", st.name, realOut, st.want)
		}
		if fakeOut != realOut {
			t.Errorf("%s: the fake answers %q, Kafka %q", st.name, fakeOut, realOut)
		}
		switch {
		case st.cordon > 0:
			waitControllerCordon(t, ctx, real, st.cordon, true)
		case st.cordon < 0:
			waitControllerCordon(t, ctx, real, -st.cordon, false)
		}
		if st.catchUp {
			fc.CatchUp()
		}
		if topic := st.configsOf; topic != "" {
			want := topicConfigs(ctx, fake, topic)
			var last string
			waitUntilShowing(t, st.name+": Kafka reads the configs of "+topic+" as the fake does", func() bool {
				last = topicConfigs(ctx, real, topic)
				return last == want
			}, func() string { return "Kafka: " + last + "\nthe fake: " + want })
		}
		for _, topic := range st.topics {
			want := topicLayout(fc.Snapshot(), topic)
			var last string
			waitUntilShowing(t, st.name+": Kafka shows "+topic+" as the fake does", func() bool {
				last = topicLayout(read(), topic)
				return last == want
			}, func() string { return "Kafka: " + last + "\nthe fake: " + want })
		}
	}
}

// outcome is a write's answer as the table says it.
func outcome(got string, err error) string {
	if err != nil {
		var se *kafkaops.SendError
		if errors.As(err, &se) {
			return "no answer: " + err.Error()
		}
		return err.Error()
	}
	return strings.TrimSpace("ok " + got)
}

// topicLayout is a topic's partitions as the table compares them: each
// one's replicas, those being added and removed, its leader.
func topicLayout(s *cluster.Snapshot, topic string) string {
	t := s.Topic(topic)
	if t == nil {
		return "(no topic " + topic + ")"
	}
	var b strings.Builder
	for _, p := range t.Partitions {
		fmt.Fprintf(&b, "%d:%v+%v-%v@%d ", p.ID, p.Replicas, p.Adding(), p.Removing(), p.Leader)
	}
	return b.String()
}

// waitControllerCordon waits until Kafka's controller refuses (cordoned)
// or accepts a manual assignment naming broker: the broker reports its
// cordoned log directories in its heartbeats.
func waitControllerCordon(t *testing.T, ctx context.Context, w *kafkaops.Writer, broker int, cordoned bool) {
	t.Helper()
	var err error
	waitUntilShowing(t, fmt.Sprintf("Kafka's controller sees broker %d cordoned=%v", broker, cordoned), func() bool {
		_, err = w.CreateTopic(ctx, &clusterops.TopicPlan{Name: "ff-probe", Result: assign.Result{Assignment: assign.Assignment{0: {broker}}}}, clusterops.Validate)
		return (err != nil) == cordoned
	}, func() string { return fmt.Sprint(err) })
}
