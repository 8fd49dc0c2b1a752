package kafkaops_test

import (
	"context"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/ktopo/ktopo/assign"
	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/clusterops"
	"github.com/ktopo/ktopo/internal/testkit/fixture"
	"github.com/ktopo/ktopo/internal/testkit/kraftfake"
	"github.com/ktopo/ktopo/kafkaops"
)

// These tests run the KRaft writer without Java: over the fake controller
// (kraftfake, whose refusals the real-Kafka table of cmd keeps equal to
// Kafka 4.4's) or over answers built by hand, they check what is sent,
// field by field, in each mode, and how the answers read.

// recorder is a Requester that keeps every request as it was sent (a copy:
// the writer sends one request twice, flipping its validateOnly) and
// passes it on to next.
type recorder struct {
	next kafkaops.Requester
	sent []kmsg.Request
}

func (r *recorder) Request(ctx context.Context, req kmsg.Request) (kmsg.Response, error) {
	v := reflect.New(reflect.TypeOf(req).Elem())
	v.Elem().Set(reflect.ValueOf(req).Elem())
	r.sent = append(r.sent, v.Interface().(kmsg.Request))
	return r.next.Request(ctx, req)
}

// summaries are the requests sent, as summary renders them.
func (r *recorder) summaries() []string {
	var out []string
	for _, req := range r.sent {
		out = append(out, summary(req))
	}
	return out
}

// requestFunc answers requests with a function: answers built by hand.
type requestFunc func(kmsg.Request) (kmsg.Response, error)

func (f requestFunc) Request(_ context.Context, req kmsg.Request) (kmsg.Response, error) {
	return f(req)
}

// testTimeout is the writers' timeout: every request carries 5000 ms.
const testTimeout = 5 * time.Second

// fakeCluster is the fake controller over the small KRaft fixture: brokers
// 1 to 6 in three racks, 6 fenced, 4 cordoned; topics orders (6
// partitions, RF 3; orders-1, -4 and -5 not led by their preferred
// replica, which is out of the ISR for orders-1 and fenced for orders-5),
// payments, clicks (12 partitions on [p%6+1, (p+1)%6+1]), audit-log,
// legacy, __consumer_offsets.
func fakeCluster() *kraftfake.Cluster {
	spec, k := fixture.SmallKRaft()
	m := spec.Model()
	m.SetKRaft(k)
	return kraftfake.New(m.Snapshot())
}

// newWriter is a writer over the fake controller, its requests recorded.
func newWriter() (*kafkaops.Writer, *recorder, *kraftfake.Cluster) {
	fake := fakeCluster()
	rec := &recorder{next: fake}
	return kafkaops.New(rec, testTimeout), rec, fake
}

// summary is one line of every field of a request the writer sets.
func summary(req kmsg.Request) string {
	var b strings.Builder
	b.WriteString(kmsg.NameForKey(req.Key()))
	switch r := req.(type) {
	case *kmsg.CreateTopicsRequest:
		fmt.Fprintf(&b, " timeoutMs=%d validateOnly=%v", r.TimeoutMillis, r.ValidateOnly)
		for _, t := range r.Topics {
			fmt.Fprintf(&b, " %s numPartitions=%d replicationFactor=%d", t.Topic, t.NumPartitions, t.ReplicationFactor)
			for _, a := range t.ReplicaAssignment {
				fmt.Fprintf(&b, " %d:%v", a.Partition, a.Replicas)
			}
			for _, c := range t.Configs {
				fmt.Fprintf(&b, " %s=%s", c.Name, deref(c.Value))
			}
		}
	case *kmsg.CreatePartitionsRequest:
		fmt.Fprintf(&b, " timeoutMs=%d validateOnly=%v", r.TimeoutMillis, r.ValidateOnly)
		for _, t := range r.Topics {
			fmt.Fprintf(&b, " %s count=%d", t.Topic, t.Count)
			for _, a := range t.Assignment {
				fmt.Fprintf(&b, " %v", a.Replicas)
			}
		}
	case *kmsg.DeleteTopicsRequest:
		fmt.Fprintf(&b, " timeoutMs=%d names=%v", r.TimeoutMillis, r.TopicNames)
		for _, t := range r.Topics {
			fmt.Fprintf(&b, " topic=%s", deref(t.Topic))
		}
	case *kmsg.IncrementalAlterConfigsRequest:
		fmt.Fprintf(&b, " validateOnly=%v", r.ValidateOnly)
		for _, res := range r.Resources {
			fmt.Fprintf(&b, " %s %q:", res.ResourceType, res.ResourceName)
			for _, c := range res.Configs {
				fmt.Fprintf(&b, " %s %s", c.Op, c.Name)
				if c.Value != nil {
					b.WriteString("=" + *c.Value)
				}
			}
		}
	case *kmsg.AlterPartitionAssignmentsRequest:
		fmt.Fprintf(&b, " timeoutMs=%d allowReplicationFactorChange=%v", r.TimeoutMillis, r.AllowReplicationFactorChange)
		for _, t := range r.Topics {
			for _, p := range t.Partitions {
				replicas := "null"
				if p.Replicas != nil {
					replicas = fmt.Sprint(p.Replicas)
				}
				fmt.Fprintf(&b, " %s-%d=%s", t.Topic, p.Partition, replicas)
			}
		}
	case *kmsg.ElectLeadersRequest:
		fmt.Fprintf(&b, " electionType=%d timeoutMs=%d", r.ElectionType, r.TimeoutMillis)
		for _, t := range r.Topics {
			fmt.Fprintf(&b, " %s=%v", t.Topic, t.Partitions)
		}
	case *kmsg.MetadataRequest:
		if r.Topics == nil {
			b.WriteString(" every topic")
		}
		for _, t := range r.Topics {
			b.WriteString(" " + deref(t.Topic))
		}
	case *kmsg.DescribeConfigsRequest:
		fmt.Fprintf(&b, " includeSynonyms=%v", r.IncludeSynonyms)
		for _, res := range r.Resources {
			fmt.Fprintf(&b, " %s %q", res.ResourceType, res.ResourceName)
		}
	default:
		b.WriteString(" (not summarized)")
	}
	return b.String()
}

func deref(s *string) string {
	if s == nil {
		return "null"
	}
	return *s
}

// alteration sets set's keys and deletes del of an entity's configs.
func alteration(entityType, entity string, set map[string]string, del ...string) *clusterops.ConfigAlteration {
	a := &clusterops.ConfigAlteration{Set: slices.Sorted(maps.Keys(set)), Deleted: del}
	a.Change.EntityType, a.Change.Entity, a.Change.Config = entityType, entity, set
	return a
}

// move is a reassignment of topic-p to replicas.
func move(topic string, p int, replicas ...int) cluster.Reassignment {
	return cluster.Reassignment{TopicPartition: cluster.TopicPartition{Topic: topic, Partition: p}, Replicas: replicas}
}

// modeCase is one write: setup runs on the writer first (in Apply), do is
// the write in a mode; sent are the requests each mode sends (Describe:
// none, always), applied what the controller applied once it ran.
type modeCase struct {
	name     string
	setup    func(ctx context.Context, w *kafkaops.Writer, fake *kraftfake.Cluster) error
	do       func(ctx context.Context, w *kafkaops.Writer, s *cluster.Snapshot, m clusterops.Mode) (clusterops.Writes, error)
	validate []string
	apply    []string
	applied  []string
}

func modeCases() []modeCase {
	const (
		iac            = "IncrementalAlterConfigs validateOnly="
		clicksMove     = "AlterPartitionAssignments timeoutMs=5000 allowReplicationFactorChange=true clicks-0=[1 3]"
		clicksThrottle = ` TOPIC "clicks": SET leader.replication.throttled.replicas=0:1,0:2 SET follower.replication.throttled.replicas=0:3` +
			` BROKER "1": SET leader.replication.throttled.rate=1000 SET follower.replication.throttled.rate=1000` +
			` BROKER "2": SET leader.replication.throttled.rate=1000 SET follower.replication.throttled.rate=1000` +
			` BROKER "3": SET leader.replication.throttled.rate=1000 SET follower.replication.throttled.rate=1000`
	)
	start := func(ctx context.Context, w *kafkaops.Writer, fake *kraftfake.Cluster) error {
		_, _, err := w.StartReassignment(ctx, fake.Snapshot(), []cluster.Reassignment{move("clicks", 0, 1, 3)}, 1000, clusterops.Apply)
		return err
	}
	return []modeCase{
		{name: "create a topic: its assignment by hand, its configs",
			do: func(ctx context.Context, w *kafkaops.Writer, _ *cluster.Snapshot, m clusterops.Mode) (clusterops.Writes, error) {
				return w.CreateTopic(ctx, &clusterops.TopicPlan{Name: "fresh", Config: map[string]string{"retention.ms": "1000", "cleanup.policy": "compact"},
					Result: assign.Result{Assignment: assign.Assignment{1: {2, 3}, 0: {1, 2}}}}, m)
			},
			validate: []string{"CreateTopics timeoutMs=5000 validateOnly=true fresh numPartitions=-1 replicationFactor=-1 0:[1 2] 1:[2 3] cleanup.policy=compact retention.ms=1000"},
			apply: []string{"CreateTopics timeoutMs=5000 validateOnly=true fresh numPartitions=-1 replicationFactor=-1 0:[1 2] 1:[2 3] cleanup.policy=compact retention.ms=1000",
				"CreateTopics timeoutMs=5000 validateOnly=false fresh numPartitions=-1 replicationFactor=-1 0:[1 2] 1:[2 3] cleanup.policy=compact retention.ms=1000"},
			applied: []string{"CreateTopics fresh [1,2] [2,3]"}},
		{name: "add partitions: the new ones' replicas",
			do: func(ctx context.Context, w *kafkaops.Writer, _ *cluster.Snapshot, m clusterops.Mode) (clusterops.Writes, error) {
				return w.AddPartitions(ctx, []*clusterops.AddPartitionsPlan{{Topic: "clicks", Existing: 12, Partitions: 14,
					Result: assign.Result{Assignment: assign.Assignment{13: {5, 1}, 12: {3, 5}}}}}, m)
			},
			validate: []string{"CreatePartitions timeoutMs=5000 validateOnly=true clicks count=14 [3 5] [5 1]"},
			apply: []string{"CreatePartitions timeoutMs=5000 validateOnly=true clicks count=14 [3 5] [5 1]",
				"CreatePartitions timeoutMs=5000 validateOnly=false clicks count=14 [3 5] [5 1]"},
			applied: []string{"CreatePartitions clicks 12[3,5] 13[5,1]"}},
		{name: "alter configs: SET and DELETE, a topic's and the brokers' default",
			do: func(ctx context.Context, w *kafkaops.Writer, _ *cluster.Snapshot, m clusterops.Mode) (clusterops.Writes, error) {
				return w.AlterConfigs(ctx, []*clusterops.ConfigAlteration{
					alteration(cluster.EntityTopics, "orders", map[string]string{"retention.ms": "5", "cleanup.policy": "delete"}, "min.insync.replicas"),
					alteration(cluster.EntityBrokers, cluster.BrokerDefaultEntity, map[string]string{cluster.ConfigLeaderThrottledRate: "10"}),
				}, m)
			},
			validate: []string{iac + `true TOPIC "orders": SET cleanup.policy=delete SET retention.ms=5 DELETE min.insync.replicas BROKER "": SET leader.replication.throttled.rate=10`},
			apply: []string{iac + `true TOPIC "orders": SET cleanup.policy=delete SET retention.ms=5 DELETE min.insync.replicas BROKER "": SET leader.replication.throttled.rate=10`,
				iac + `false TOPIC "orders": SET cleanup.policy=delete SET retention.ms=5 DELETE min.insync.replicas BROKER "": SET leader.replication.throttled.rate=10`},
			applied: []string{"IncrementalAlterConfigs TOPIC orders SET cleanup.policy=delete,SET retention.ms=5,DELETE min.insync.replicas",
				"IncrementalAlterConfigs BROKER <default> SET leader.replication.throttled.rate=10"}},
		{name: "cordon a broker",
			do: func(ctx context.Context, w *kafkaops.Writer, _ *cluster.Snapshot, m clusterops.Mode) (clusterops.Writes, error) {
				return w.Cordon(ctx, 3, true, m)
			},
			validate: []string{iac + `true BROKER "3": SET cordoned.log.dirs=*`},
			apply:    []string{iac + `true BROKER "3": SET cordoned.log.dirs=*`, iac + `false BROKER "3": SET cordoned.log.dirs=*`},
			applied:  []string{"IncrementalAlterConfigs BROKER 3 SET cordoned.log.dirs=*"}},
		{name: "uncordon a broker",
			do: func(ctx context.Context, w *kafkaops.Writer, _ *cluster.Snapshot, m clusterops.Mode) (clusterops.Writes, error) {
				return w.Cordon(ctx, 4, false, m)
			},
			validate: []string{iac + `true BROKER "4": DELETE cordoned.log.dirs`},
			apply:    []string{iac + `true BROKER "4": DELETE cordoned.log.dirs`, iac + `false BROKER "4": DELETE cordoned.log.dirs`},
			applied:  []string{"IncrementalAlterConfigs BROKER 4 DELETE cordoned.log.dirs"}},
		{name: "delete a topic: no validateOnly, nothing sent to validate",
			do: func(ctx context.Context, w *kafkaops.Writer, s *cluster.Snapshot, m clusterops.Mode) (clusterops.Writes, error) {
				return w.DeleteTopic(ctx, s, "clicks", m)
			},
			apply:   []string{"DeleteTopics timeoutMs=5000 names=[clicks] topic=clicks"},
			applied: []string{"DeleteTopics clicks"}},
		{name: "a reassignment with throttles: the throttles validated, set, then the reassignment",
			do: func(ctx context.Context, w *kafkaops.Writer, s *cluster.Snapshot, m clusterops.Mode) (clusterops.Writes, error) {
				_, ws, err := w.StartReassignment(ctx, s, []cluster.Reassignment{move("clicks", 0, 1, 3)}, 1000, m)
				return ws, err
			},
			validate: []string{iac + "true" + clicksThrottle},
			apply:    []string{iac + "true" + clicksThrottle, iac + "false" + clicksThrottle, clicksMove},
			applied: []string{
				"IncrementalAlterConfigs TOPIC clicks SET leader.replication.throttled.replicas=0:1,0:2,SET follower.replication.throttled.replicas=0:3",
				"IncrementalAlterConfigs BROKER 1 SET leader.replication.throttled.rate=1000,SET follower.replication.throttled.rate=1000",
				"IncrementalAlterConfigs BROKER 2 SET leader.replication.throttled.rate=1000,SET follower.replication.throttled.rate=1000",
				"IncrementalAlterConfigs BROKER 3 SET leader.replication.throttled.rate=1000,SET follower.replication.throttled.rate=1000",
				"AlterPartitionReassignments clicks-0 [1,3]"}},
		{name: "a reassignment without throttles: nothing to validate",
			do: func(ctx context.Context, w *kafkaops.Writer, s *cluster.Snapshot, m clusterops.Mode) (clusterops.Writes, error) {
				_, ws, err := w.StartReassignment(ctx, s, []cluster.Reassignment{move("clicks", 0, 1, 3)}, -1, m)
				return ws, err
			},
			apply:   []string{clicksMove},
			applied: []string{"AlterPartitionReassignments clicks-0 [1,3]"}},
		{name: "another reassignment while one runs (--additional)", setup: start,
			do: func(ctx context.Context, w *kafkaops.Writer, s *cluster.Snapshot, m clusterops.Mode) (clusterops.Writes, error) {
				_, ws, err := w.AddReassignment(ctx, s, []cluster.Reassignment{move("clicks", 2, 3, 5)}, -1, m)
				return ws, err
			},
			apply:   []string{"AlterPartitionAssignments timeoutMs=5000 allowReplicationFactorChange=true clicks-2=[3 5]"},
			applied: []string{"AlterPartitionReassignments clicks-2 [3,5]"}},
		{name: "cancel a reassignment: its partition with null replicas", setup: start,
			do: func(ctx context.Context, w *kafkaops.Writer, _ *cluster.Snapshot, m clusterops.Mode) (clusterops.Writes, error) {
				return w.CancelReassignment(ctx, []cluster.TopicPartition{{Topic: "clicks", Partition: 0}}, m)
			},
			apply:   []string{"AlterPartitionAssignments timeoutMs=5000 allowReplicationFactorChange=true clicks-0=null"},
			applied: []string{"AlterPartitionReassignments clicks-0 cancel"}},
		{name: "remove the throttles once the reassignment is done",
			setup: func(ctx context.Context, w *kafkaops.Writer, fake *kraftfake.Cluster) error {
				err := start(ctx, w, fake)
				fake.CatchUp()
				return err
			},
			do: func(ctx context.Context, w *kafkaops.Writer, s *cluster.Snapshot, m clusterops.Mode) (clusterops.Writes, error) {
				_, _, ws, err := w.RemoveThrottles(ctx, s, []cluster.Reassignment{move("clicks", 0, 1, 3)}, m)
				return ws, err
			},
			validate: []string{iac + "true" + throttlesRemoved},
			apply:    []string{iac + "true" + throttlesRemoved, iac + "false" + throttlesRemoved},
			applied: []string{
				"IncrementalAlterConfigs BROKER 1 " + brokerThrottlesDeleted, "IncrementalAlterConfigs BROKER 2 " + brokerThrottlesDeleted,
				"IncrementalAlterConfigs BROKER 3 " + brokerThrottlesDeleted, "IncrementalAlterConfigs BROKER 4 " + brokerThrottlesDeleted,
				"IncrementalAlterConfigs BROKER 5 " + brokerThrottlesDeleted,
				"IncrementalAlterConfigs TOPIC clicks DELETE leader.replication.throttled.replicas,DELETE follower.replication.throttled.replicas"}},
		{name: "a preferred election: nothing to validate",
			do: func(ctx context.Context, w *kafkaops.Writer, s *cluster.Snapshot, m clusterops.Mode) (clusterops.Writes, error) {
				p, err := clusterops.PlanPreferredElection(s, clusterops.ElectionRequest{Topic: "orders"})
				if err != nil {
					return clusterops.Writes{}, err
				}
				ws, _, err := w.Elect(ctx, p, m)
				return ws, err
			},
			apply:   []string{"ElectLeaders electionType=0 timeoutMs=5000 orders=[1 4 5]"},
			applied: []string{"ElectLeaders orders-4"}},
	}
}

// The throttles --verify removes: those of every live broker and of the
// file's topics, whether set or not.
const (
	brokerThrottlesDeleted = "DELETE leader.replication.throttled.rate,DELETE follower.replication.throttled.rate,DELETE replica.alter.log.dirs.io.max.bytes.per.second"
	brokerDeletes          = ": DELETE leader.replication.throttled.rate DELETE follower.replication.throttled.rate DELETE replica.alter.log.dirs.io.max.bytes.per.second"
	throttlesRemoved       = ` BROKER "1"` + brokerDeletes + ` BROKER "2"` + brokerDeletes + ` BROKER "3"` + brokerDeletes +
		` BROKER "4"` + brokerDeletes + ` BROKER "5"` + brokerDeletes +
		` TOPIC "clicks": DELETE leader.replication.throttled.replicas DELETE follower.replication.throttled.replicas`
)

// TestModes: each write sends exactly the requests Kafka's tools send, in
// each mode: Describe nothing; Validate only what has validateOnly, so;
// Apply validateOnly first, then for real (the controller applies only
// then). The exact writes (what `w` shows) are the same in every mode.
func TestModes(t *testing.T) {
	ctx := context.Background()
	for _, c := range modeCases() {
		t.Run(c.name, func(t *testing.T) {
			var described clusterops.Writes
			for _, m := range []clusterops.Mode{clusterops.Describe, clusterops.Validate, clusterops.Apply} {
				w, rec, fake := newWriter()
				if c.setup != nil {
					if err := c.setup(ctx, w, fake); err != nil {
						t.Fatal(err)
					}
				}
				rec.sent = nil
				before := len(fake.Applied())
				ws, err := c.do(ctx, w, fake.Snapshot(), m)
				if err != nil {
					t.Fatalf("mode %d: %v", m, err)
				}
				want := map[clusterops.Mode][]string{clusterops.Validate: c.validate, clusterops.Apply: c.apply}[m]
				if got := rec.summaries(); !slices.Equal(got, want) {
					t.Errorf("mode %d sent:\n%s\nwant:\n%s", m, strings.Join(got, "\n"), strings.Join(want, "\n"))
				}
				applied := fake.Applied()[before:]
				if m != clusterops.Apply && len(applied) > 0 {
					t.Errorf("mode %d applied %q", m, applied)
				}
				if m == clusterops.Apply && !slices.Equal(applied, c.applied) {
					t.Errorf("applied:\n%s\nwant:\n%s", strings.Join(applied, "\n"), strings.Join(c.applied, "\n"))
				}
				if ws.Backend != cluster.ViaKafka || len(ws.Lines()) == 0 {
					t.Errorf("mode %d: writes %+v", m, ws)
				}
				if m == clusterops.Describe {
					described = ws
				} else if !reflect.DeepEqual(ws, described) {
					t.Errorf("mode %d: writes\n%q\nwant those described\n%q", m, ws.Lines(), described.Lines())
				}
			}
		})
	}
}

// TestReadConfigs: ReadConfig asks DescribeConfigs of the entity and keeps
// the configs of its own dynamic level; DescribeConfigs (kafka-configs
// --describe) lists the topics first, then asks with synonyms.
func TestReadConfigs(t *testing.T) {
	ctx := context.Background()
	w, rec, _ := newWriter()
	got, version, err := w.ReadConfig(ctx, cluster.EntityTopics, "orders")
	want := []cluster.ConfigEntry{{Key: "min.insync.replicas", Value: "2"}, {Key: "retention.ms", Value: "604800000"}}
	if err != nil || version != -1 || !slices.Equal(got, want) {
		t.Errorf("ReadConfig: %v %d %v", got, version, err)
	}
	if s := rec.summaries(); !slices.Equal(s, []string{`DescribeConfigs includeSynonyms=false TOPIC "orders"`}) {
		t.Errorf("ReadConfig sent %q", s)
	}

	rec.sent = nil
	ds, err := w.DescribeConfigs(ctx, cluster.EntityTopics, "payments")
	if err != nil || len(ds) != 1 || ds[0].Name != "payments" || len(ds[0].Configs) != 1 ||
		ds[0].Configs[0].Name != "min.insync.replicas" || deref(ds[0].Configs[0].Value) != "3" {
		t.Errorf("DescribeConfigs: %+v %v", ds, err)
	}
	if s := rec.summaries(); !slices.Equal(s, []string{"Metadata every topic", `DescribeConfigs includeSynonyms=true TOPIC "payments"`}) {
		t.Errorf("DescribeConfigs sent %q", s)
	}
	if _, err := w.DescribeConfigs(ctx, cluster.EntityTopics, "nope"); err == nil || err.Error() != (&clusterops.NoEntityError{EntityType: cluster.EntityTopics, Entity: "nope"}).Error() {
		t.Errorf("an unknown topic: %v", err)
	}
}

// TestElectionAnswers: an election's answer sorts the partitions as
// Kafka's tool does (elected, not needed, failed with Kafka's class and
// message); an unclean one is sent as electionType 1.
func TestElectionAnswers(t *testing.T) {
	var sent []kmsg.Request
	w := kafkaops.New(requestFunc(func(req kmsg.Request) (kmsg.Response, error) {
		sent = append(sent, req)
		resp := req.ResponseKind().(*kmsg.ElectLeadersResponse)
		rt := kmsg.NewElectLeadersResponseTopic()
		rt.Topic = "orders"
		for _, p := range []struct {
			id   int32
			code int16
			msg  *string
		}{{0, 0, nil}, {1, kerr.ElectionNotNeeded.Code, nil}, {2, kerr.EligibleLeadersNotAvailable.Code, strPtr("Partition orders-2 has no eligible leader.")}} {
			pr := kmsg.NewElectLeadersResponseTopicPartition()
			pr.Partition, pr.ErrorCode, pr.ErrorMessage = p.id, p.code, p.msg
			rt.Partitions = append(rt.Partitions, pr)
		}
		resp.Topics = append(resp.Topics, rt)
		return resp, nil
	}), testTimeout)
	tps := []cluster.TopicPartition{{Topic: "orders", Partition: 0}, {Topic: "orders", Partition: 1}, {Topic: "orders", Partition: 2}, {Topic: "orders", Partition: 3}}
	ws, res, err := w.Elect(context.Background(), &clusterops.ElectionPlan{Unclean: true, Write: tps}, clusterops.Apply)
	if err != nil {
		t.Fatal(err)
	}
	if len(sent) != 1 || summary(sent[0]) != "ElectLeaders electionType=1 timeoutMs=5000 orders=[0 1 2 3]" {
		t.Errorf("sent %q", summary(sent[0]))
	}
	if l := ws.Lines(); len(l) != 2 || l[0] != "ElectLeaders electionType=UNCLEAN timeoutMs=5000" || l[1] != "  topic orders partitions [0,1,2,3]" {
		t.Errorf("writes %q", l)
	}
	want := &clusterops.ElectionResult{
		Elected:   []cluster.TopicPartition{tps[0]},
		NotNeeded: []cluster.TopicPartition{tps[1]},
		Failed: []clusterops.ElectionFailure{
			{TopicPartition: tps[2], Class: "EligibleLeadersNotAvailableException", Message: "Partition orders-2 has no eligible leader."},
			{TopicPartition: tps[3], Message: "the controller did not answer for it"},
		},
	}
	if !reflect.DeepEqual(res, want) {
		t.Errorf("result %+v\nwant %+v", res, want)
	}
}

func strPtr(s string) *string { return &s }

// TestRemoveThrottlesWhileMoving: --verify removes no throttle while a
// reassignment runs in the cluster: nothing is sent, and it names the
// throttles left.
func TestRemoveThrottlesWhileMoving(t *testing.T) {
	ctx := context.Background()
	w, rec, fake := newWriter()
	rs := []cluster.Reassignment{move("clicks", 0, 1, 3)}
	if _, _, err := w.StartReassignment(ctx, fake.Snapshot(), rs, 1000, clusterops.Apply); err != nil {
		t.Fatal(err)
	}
	rec.sent = nil
	cleared, kept, ws, err := w.RemoveThrottles(ctx, fake.Snapshot(), rs, clusterops.Apply)
	if err != nil || cleared != nil || len(ws.Steps) != 0 || len(rec.sent) != 0 {
		t.Fatalf("cleared %+v, writes %q, sent %q, %v", cleared, ws.Lines(), rec.summaries(), err)
	}
	if want := []string{"broker 1", "broker 2", "broker 3", "topic clicks"}; !slices.Equal(kept, want) {
		t.Errorf("kept %q, want %q", kept, want)
	}
	if len(fake.Applied()) != 5 {
		t.Errorf("applied %q", fake.Applied())
	}
}
