package kafkawatch_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/clusterwatch"
	"github.com/ktopo/ktopo/internal/testkit/kafkatest"
	"github.com/ktopo/ktopo/kafkawatch"
	"github.com/ktopo/ktopo/kraftsandbox"
)

// TestPollerReadsEveryTopicsConfigs runs the poller against a real Kafka
// 4.4 node with more topics than one DescribeConfigs asks about: the
// first load delivers the topics, then their configs as they come (the
// progress only growing), and its Loaded batch holds every topic with
// exactly its overrides; after it, a topic created with overrides shows
// with them in the same batch, and an override changed by another client
// on a topic read long ago shows within the turns of the configs.
func TestPollerReadsEveryTopicsConfigs(t *testing.T) {
	kafkatest.Require(t, kafkatest.Kafka44)
	c, err := kafkatest.StartKRaft(kafkatest.KRaftOptions{Version: kafkatest.Kafka44, Combined: true})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Stop()
	testPollerReadsEveryTopicsConfigs(t, c.Bootstrap())
}

// TestSandboxPollerReadsEveryTopicsConfigs is
// TestPollerReadsEveryTopicsConfigs on the simulated KRaft cluster
// (kraftsandbox, no Java) of one broker.
func TestSandboxPollerReadsEveryTopicsConfigs(t *testing.T) {
	c, err := kraftsandbox.Start(kraftsandbox.Config{Brokers: 1, Controllers: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	testPollerReadsEveryTopicsConfigs(t, c.Bootstrap())
}

// testPollerReadsEveryTopicsConfigs is the scenario of
// TestPollerReadsEveryTopicsConfigs on the brokers of bootstrap.
func testPollerReadsEveryTopicsConfigs(t *testing.T, bootstrap string) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cl, err := kgo.NewClient(kgo.SeedBrokers(kafkawatch.SplitBootstrap(bootstrap)...), kgo.RetryTimeout(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()

	// 600 topics (three DescribeConfigs' worth), every 40th with two
	// overrides.
	const n = 600
	want := map[string][]cluster.ConfigEntry{}
	for from := 0; from < n; from += 200 {
		req := kmsg.NewPtrCreateTopicsRequest()
		req.TimeoutMillis = 60_000
		for i := from; i < from+200; i++ {
			name := fmt.Sprintf("load-%03d", i)
			ct := kmsg.NewCreateTopicsRequestTopic()
			ct.Topic, ct.NumPartitions, ct.ReplicationFactor = name, 1, 1
			want[name] = nil
			if i%40 == 0 {
				want[name] = []cluster.ConfigEntry{{Key: "cleanup.policy", Value: "compact"}, {Key: "retention.ms", Value: fmt.Sprint(1000 * (i + 1))}}
				for _, e := range want[name] {
					cc := kmsg.NewCreateTopicsRequestTopicConfig()
					cc.Name, cc.Value = e.Key, kmsg.StringPtr(e.Value)
					ct.Configs = append(ct.Configs, cc)
				}
			}
			req.Topics = append(req.Topics, ct)
		}
		createTopics(ctx, t, cl, req)
	}

	// The controller answers once it has committed the topics; the broker
	// lists them a moment later.
	for {
		resp, err := kmsg.NewPtrMetadataRequest().RequestWith(ctx, cl)
		if err != nil {
			t.Fatal(err)
		}
		listed := 0
		for _, mt := range resp.Topics {
			if mt.Topic != nil && strings.HasPrefix(*mt.Topic, "load-") {
				listed++
			}
		}
		if listed >= n {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatalf("the broker lists %d of the %d topics created", listed, n)
		case <-time.After(100 * time.Millisecond):
		}
	}

	p, err := kafkawatch.Start(kafkawatch.Dial{Bootstrap: kafkawatch.SplitBootstrap(bootstrap)},
		kafkawatch.Options{Progress: true, Interval: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	w := clusterwatch.NewWatch(p, cluster.ModelOptions{})
	var progress []clusterwatch.Progress
	for {
		b, _, err := w.Next(ctx)
		if err != nil {
			t.Fatalf("first load: %v (the last poll: %v)", err, p.Err())
		}
		if b.Partial || b.Loaded {
			progress = append(progress, b.Progress)
		}
		if b.Loaded {
			break
		}
	}
	if len(progress) < 3 || progress[0].Done != 0 || progress[0].Known < n {
		t.Fatalf("the first load's progress: %+v, want the topics first (0 of at least %d), then their configs", progress, n)
	}
	for i := 1; i < len(progress); i++ {
		if progress[i].Done < progress[i-1].Done || progress[i].Known != progress[0].Known {
			t.Fatalf("the first load's progress went from %+v to %+v", progress[i-1], progress[i])
		}
	}
	if last := progress[len(progress)-1]; last.Done != last.Known {
		t.Fatalf("the Loaded batch's progress is %+v, want every topic done", last)
	}
	s := w.Model.Snapshot()
	// The polls' DescribeQuorum in full, for the TUI's Quorum tab: the
	// leader the model names, among the voters, with its endpoint and
	// log end (DescribeQuorum v2, Kafka 3.9+).
	live, ok := p.LiveQuorum()
	if !ok || live.QuorumErr != "" || s.KRaft() == nil || live.Quorum.LeaderID != s.KRaft().Quorum.LeaderID || live.Quorum.HighWatermark <= 0 {
		t.Fatalf("the live quorum %v %+v, the model's %+v", ok, live, s.KRaft())
	}
	leader := slices.IndexFunc(live.Quorum.Voters, func(m cluster.QuorumMember) bool { return m.ID == live.Quorum.LeaderID })
	if leader < 0 || len(live.Quorum.Voters[leader].Endpoints) == 0 || live.Quorum.Voters[leader].LogEndOffset <= 0 || live.Quorum.Version < 2 {
		t.Fatalf("the live quorum's voters %+v (DescribeQuorum v%d): want the leader with its endpoint and log end", live.Quorum.Voters, live.Quorum.Version)
	}
	for name, cfg := range want {
		tp := s.Topic(name)
		if tp == nil {
			t.Fatalf("%s is not in the loaded model", name)
		}
		if !tp.HasConfig || !sameEntries(tp.Config, cfg) {
			t.Fatalf("%s's configs once loaded: has %v, %v; want %v", name, tp.HasConfig, tp.Config, cfg)
		}
	}

	// A topic created now shows with its overrides.
	req := kmsg.NewPtrCreateTopicsRequest()
	req.TimeoutMillis = 60_000
	ct := kmsg.NewCreateTopicsRequestTopic()
	ct.Topic, ct.NumPartitions, ct.ReplicationFactor = "late", 2, 1
	cc := kmsg.NewCreateTopicsRequestTopicConfig()
	cc.Name, cc.Value = "max.message.bytes", kmsg.StringPtr("65536")
	ct.Configs = append(ct.Configs, cc)
	req.Topics = append(req.Topics, ct)
	createTopics(ctx, t, cl, req)
	for w.Model.Snapshot().Topic("late") == nil {
		if _, _, err := w.Next(ctx); err != nil {
			t.Fatalf("the topic created after the load never showed: %v", err)
		}
	}
	if tp := w.Model.Snapshot().Topic("late"); !tp.HasConfig || !sameEntries(tp.Config, []cluster.ConfigEntry{{Key: "max.message.bytes", Value: "65536"}}) {
		t.Fatalf("the new topic showed with configs %v (read: %v), want its override", tp.Config, tp.HasConfig)
	}

	// An override another client sets on a topic read in the first load
	// shows once the configs' turn comes to it.
	alter := kmsg.NewPtrIncrementalAlterConfigsRequest()
	r := kmsg.NewIncrementalAlterConfigsRequestResource()
	r.ResourceType, r.ResourceName = kmsg.ConfigResourceTypeTopic, "load-123"
	rc := kmsg.NewIncrementalAlterConfigsRequestResourceConfig()
	rc.Name, rc.Value = "segment.ms", kmsg.StringPtr("3600000")
	r.Configs = append(r.Configs, rc)
	alter.Resources = append(alter.Resources, r)
	aresp, err := alter.RequestWith(ctx, cl)
	if err == nil {
		err = kerr.ErrorForCode(aresp.Resources[0].ErrorCode)
	}
	if err != nil {
		t.Fatal(err)
	}
	for {
		if tp := w.Model.Snapshot().Topic("load-123"); sameEntries(tp.Config, []cluster.ConfigEntry{{Key: "segment.ms", Value: "3600000"}}) {
			break
		}
		if _, _, err := w.Next(ctx); err != nil {
			t.Fatalf("the override set after the load never showed: %v", err)
		}
	}
}

func createTopics(ctx context.Context, t *testing.T, cl *kgo.Client, req *kmsg.CreateTopicsRequest) {
	t.Helper()
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		t.Fatal(err)
	}
	for _, ct := range resp.Topics {
		if err := kerr.ErrorForCode(ct.ErrorCode); err != nil {
			t.Fatalf("create %s: %v", ct.Topic, err)
		}
	}
}

// sameEntries compares configs as sets of key=value.
func sameEntries(got, want []cluster.ConfigEntry) bool {
	key := func(es []cluster.ConfigEntry) []string {
		var out []string
		for _, e := range es {
			out = append(out, e.Key+"="+e.Value)
		}
		slices.Sort(out)
		return out
	}
	return slices.Equal(key(got), key(want))
}
