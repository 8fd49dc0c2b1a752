package ui

import (
	"context"
	"maps"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/clusterops"
	"github.com/ktopo/ktopo/clusterwatch"
	"github.com/ktopo/ktopo/clusterwatch/zksource"
	"github.com/ktopo/ktopo/internal/testkit/fixture"
)

// kafkaSource is a KRaft cluster's source fed by the test: no ZooKeeper
// subtrees, Kind Kafka.
type kafkaSource struct{ ch chan clusterwatch.Batch }

func (s *kafkaSource) Next(ctx context.Context) (clusterwatch.Batch, error) {
	select {
	case <-ctx.Done():
		return clusterwatch.Batch{}, ctx.Err()
	case b := <-s.ch:
		return b, nil
	}
}
func (s *kafkaSource) Stats() clusterwatch.Stats {
	return clusterwatch.Stats{Counts: []clusterwatch.Count{{N: 28, Unit: "partitions"}, {N: 12, Unit: "ms a poll"}}}
}
func (s *kafkaSource) Kind() clusterwatch.Kind { return clusterwatch.Kafka }
func (s *kafkaSource) Server() string          { return "kafka-1:9092" }
func (s *kafkaSource) Close() error            { return nil }

// fakeKafkaWriter is a KRaft cluster's writer for the shell's tests: it
// answers every write with one request's lines, records what it applies
// (in order), and lets every write go ahead as Kafka's writer does.
type fakeKafkaWriter struct {
	mu      sync.Mutex
	applied []string
	// created are the plans CreateTopic applied.
	created []*clusterops.TopicPlan
}

var _ clusterops.Writer = (*fakeKafkaWriter)(nil)

func (w *fakeKafkaWriter) record(m clusterops.Mode, what string) clusterops.Writes {
	if m == clusterops.Apply {
		w.mu.Lock()
		w.applied = append(w.applied, what)
		w.mu.Unlock()
	}
	return clusterops.Writes{Target: clusterops.Kafka, Steps: []clusterops.WriteStep{{Title: what, Lines: []string{"FakeRequest " + what}}}}
}

func (w *fakeKafkaWriter) Applied() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.applied)
}

func (w *fakeKafkaWriter) Target() clusterops.Target { return clusterops.Kafka }
func (w *fakeKafkaWriter) Verdict(*cluster.Snapshot) cluster.WriteVerdict {
	return cluster.WriteVerdict{}
}
func (w *fakeKafkaWriter) Check(context.Context) (cluster.WriteVerdict, error) {
	return cluster.WriteVerdict{}, nil
}
func (w *fakeKafkaWriter) Confirm(cluster.WriteVerdict) clusterops.Writer { return w }
func (w *fakeKafkaWriter) CreateTopic(_ context.Context, p *clusterops.TopicPlan, m clusterops.Mode) (clusterops.Writes, error) {
	if m == clusterops.Apply {
		w.mu.Lock()
		w.created = append(w.created, p)
		w.mu.Unlock()
	}
	return w.record(m, "create "+p.Name), nil
}
func (w *fakeKafkaWriter) MaybeWritten(error) bool { return false }
func (w *fakeKafkaWriter) VerifyCreate(context.Context, *clusterops.TopicPlan, error) clusterops.Outcome {
	return clusterops.Outcome{}
}
func (w *fakeKafkaWriter) AddPartitions(_ context.Context, ps []*clusterops.AddPartitionsPlan, m clusterops.Mode) (clusterops.Writes, error) {
	return w.record(m, "add partitions to "+ps[0].Topic), nil
}
func (w *fakeKafkaWriter) ReadConfig(context.Context, string, string) ([]cluster.ConfigEntry, int32, error) {
	return nil, -1, nil
}
func (w *fakeKafkaWriter) AlterConfigs(_ context.Context, as []*clusterops.ConfigAlteration, m clusterops.Mode) (clusterops.Writes, error) {
	return w.record(m, "alter configs of "+as[0].Change.Entity), nil
}
func (w *fakeKafkaWriter) DeleteTopic(_ context.Context, _ *cluster.Snapshot, topic string, m clusterops.Mode) (clusterops.Writes, error) {
	return w.record(m, "delete "+topic), nil
}
func (w *fakeKafkaWriter) StartReassignment(_ context.Context, s *cluster.Snapshot, rs []cluster.Reassignment, throttle int64, m clusterops.Mode) (*clusterops.ReassignPlan, clusterops.Writes, error) {
	p, err := clusterops.CheckReassignment(s, rs, throttle)
	if err != nil {
		return nil, clusterops.Writes{}, err
	}
	return p, w.record(m, "reassign "+strconv.Itoa(len(rs))+" partitions"), nil
}
func (w *fakeKafkaWriter) AddReassignment(ctx context.Context, s *cluster.Snapshot, rs []cluster.Reassignment, throttle int64, m clusterops.Mode) (*clusterops.ReassignPlan, clusterops.Writes, error) {
	return w.StartReassignment(ctx, s, rs, throttle, m)
}
func (w *fakeKafkaWriter) CancelReassignment(_ context.Context, tps []cluster.TopicPartition, m clusterops.Mode) (clusterops.Writes, error) {
	return w.record(m, "cancel "+strconv.Itoa(len(tps))+" reassignments"), nil
}
func (w *fakeKafkaWriter) RemoveThrottles(_ context.Context, _ *cluster.Snapshot, _ []cluster.Reassignment, m clusterops.Mode) (*clusterops.ThrottleClear, []string, clusterops.Writes, error) {
	return &clusterops.ThrottleClear{}, nil, w.record(m, "remove the throttles"), nil
}
func (w *fakeKafkaWriter) Elect(_ context.Context, p *clusterops.ElectionPlan, m clusterops.Mode) (clusterops.Writes, *clusterops.ElectionResult, error) {
	ws := w.record(m, "elect "+strconv.Itoa(len(p.Write))+" leaders")
	if m != clusterops.Apply {
		return ws, nil, nil
	}
	return ws, &clusterops.ElectionResult{Elected: p.Write}, nil
}
func (w *fakeKafkaWriter) Cordon(_ context.Context, broker int, cordon bool, m clusterops.Mode) (clusterops.Writes, error) {
	what := "uncordon "
	if cordon {
		what = "cordon "
	}
	return w.record(m, what+strconv.Itoa(broker)), nil
}

// TestKRaftApp: on a KRaft cluster the shell shows the same screens fed
// by the Kafka-protocol source, without the ZooKeeper tree; its banner and
// status bar name Kafka and the source's figures; the overview names the
// quorum's leader as the controller; the operation wizards open and write
// through the Kafka writer: a drain cordons its broker first (the
// cluster's metadata.version is 4.3+) and its preview, `w` and popup say
// so.
func TestKRaftApp(t *testing.T) {
	src := &kafkaSource{ch: make(chan clusterwatch.Batch)}
	kw := &fakeKafkaWriter{}
	a := New(Config{Source: src, Writer: kw, Connect: "kafka-1:9092", Mode: ModeLive, Now: func() time.Time { return t0 }, Location: t0.Location(),
		Rand: rand.New(rand.NewPCG(1, 2))})
	a.update(tea.WindowSizeMsg{Width: 160, Height: 40})
	if s := screen(a); !strings.Contains(s, "Connecting to Kafka…") || strings.Contains(s, "Tree") {
		t.Fatalf("before the first batch:\n%s", s)
	}
	run(a, batchMsg{Partial: true, States: []clusterwatch.State{clusterwatch.StateConnected}, Progress: clusterwatch.Progress{Done: 2, Known: 6}})
	if s := screen(a); !strings.Contains(s, "Loading the cluster from Kafka… read the configs of 2 of 6 topics") {
		t.Fatalf("loading:\n%s", s)
	}
	loadKRaft(a)
	s := screen(a)
	header := strings.Split(s, "\n")[0]
	if strings.Contains(header, "Tree") || !strings.Contains(header, " 4 Events ") {
		t.Fatalf("tabs: %s", header)
	}
	for _, want := range []string{"controller 3001 (epoch 12)", "quorum leader 3001 (epoch 12)", "FENCED", "28 partitions · 12 ms a poll"} {
		if !strings.Contains(s, want) {
			t.Errorf("no %q in\n%s", want, s)
		}
	}
	if strings.Contains(s, "znodes") {
		t.Errorf("ZooKeeper's figures on a KRaft cluster:\n%s", s)
	}
	press(a, "3")
	if a.Active() != "overview" {
		t.Fatalf("3 (the tree's number, absent on KRaft) opens %s", a.Active())
	}
	press(a, "4")
	if a.Active() != "events" {
		t.Fatalf("4 opens %s", a.Active())
	}
	press(a, ":", "t", "r", "e", "e", "enter")
	if a.Active() == "tree" {
		t.Fatal(":tree opened the ZooKeeper tree on a KRaft cluster")
	}
	// Drain the selected broker: balanced, so that broker 6 (fenced) is no
	// target; without the leaders-first step, whose reorder would name it.
	press(a, "1", "d", "s", "L")
	if w := drainer(a); w == nil || w.Stage() != "preview" {
		st, _ := a.Status()
		t.Fatalf("d opens no drain on a KRaft cluster: %q\n%s", st, screen(a))
	}
	if s := flat(screen(a)); !strings.Contains(s, "first: cordon broker 1 (cordoned.log.dirs=*): no new partition lands there while it drains") {
		t.Errorf("the drain's preview does not say it cordons first:\n%s", screen(a))
	}
	press(a, "w")
	if s := flat(screen(a)); !strings.Contains(s, "first: cordon 1 FakeRequest cordon 1 then: reassign 15 partitions") ||
		!strings.Contains(s, "Kafka requests") {
		t.Errorf("w does not show the cordon first:\n%s", screen(a))
	}
	press(a, "w", "enter")
	if s := flat(screen(a)); !strings.Contains(s, "first cordons broker 1") {
		t.Errorf("the popup does not say the broker is cordoned first:\n%s", screen(a))
	}
	press(a, "y")
	if got := kw.Applied(); len(got) < 2 || got[0] != "cordon 1" || !strings.HasPrefix(got[1], "reassign ") {
		t.Errorf("the drain's writes: %q, want the cordon, then the reassignment", got)
	}
	press(a, "esc")
	run(a, batchMsg{States: []clusterwatch.State{clusterwatch.StateDisconnected}})
	if s := screen(a); !strings.Contains(s, "Disconnected from Kafka — reconnecting; the data shown is as of 03:04:05") {
		t.Fatalf("disconnected:\n%s", s)
	}
	run(a, batchMsg{States: []clusterwatch.State{clusterwatch.StateUnresponsive}})
	if s := screen(a); !strings.Contains(s, "Kafka is not answering") {
		t.Fatalf("unresponsive:\n%s", s)
	}
}

// flat is a screen's text with every run of spaces and line breaks made
// one space, for finding a sentence however it was wrapped.
func flat(s string) string { return strings.Join(strings.Fields(s), " ") }

// loadKRaft feeds a the small KRaft cluster of the fixtures (broker 4
// cordoned, broker 6 fenced, metadata.version 4.3+), its KRaft facts with
// the first batch.
func loadKRaft(a *App) {
	spec, k := fixture.SmallKRaft()
	for i, b := range spec.Batches() {
		cb := zksource.FromMirrorBatch(b)
		if i == 0 {
			cb.KRaft = k
		}
		run(a, batchMsg(cb))
	}
}

// TestKRaftCreate: on a KRaft cluster the creation wizard previews the
// KRaft controller's placement drawn from a seed (the fenced and the
// cordoned broker get nothing), r and →/← change the seed, `w` shows the
// CreateTopics request, and what is sent is exactly the plan previewed:
// the plan clusterops makes from the seed shown.
func TestKRaftCreate(t *testing.T) {
	kw := &fakeKafkaWriter{}
	a := New(Config{Source: &kafkaSource{ch: make(chan clusterwatch.Batch)}, Writer: kw, Connect: "kafka-1:9092", Mode: ModeLive,
		Now: func() time.Time { return t0 }, Location: t0.Location(), Rand: rand.New(rand.NewPCG(1, 2))})
	a.update(tea.WindowSizeMsg{Width: 160, Height: 40})
	loadKRaft(a)
	press(a, "c", "k", "w", "enter")
	w := wizard(a)
	if w == nil || w.Stage() != "preview" {
		t.Fatalf("no preview:\n%s", screen(a))
	}
	shown := func() *clusterops.TopicPlan {
		t.Helper()
		p := w.Plan()
		if p == nil || !p.Result.Striped {
			t.Fatalf("the preview is not the KRaft controller's placement: %+v", p)
		}
		if s := flat(screen(a)); !strings.Contains(s, "the KRaft controller's placement, seed "+strconv.FormatInt(p.Result.Seed, 10)) {
			t.Fatalf("the preview does not name its seed %d:\n%s", p.Result.Seed, screen(a))
		}
		for id, rs := range p.Assignment() {
			if slices.Contains(rs, 4) || slices.Contains(rs, 6) {
				t.Errorf("partition %d placed on the cordoned or the fenced broker: %v", id, rs)
			}
		}
		return p
	}
	first := shown()
	press(a, "r")
	if p := shown(); p.Result.Seed == first.Result.Seed {
		t.Errorf("r kept the seed %d", p.Result.Seed)
	}
	press(a, "right")
	plan := shown()
	a0 := plan.Assignment()
	want, err := clusterops.PlanTopic(a.Snapshot(), clusterops.TopicRequest{Name: "kw", Partitions: len(a0), ReplicationFactor: len(a0[0]),
		Seed: plan.Result.Seed, HasSeed: true})
	if err != nil || !maps.EqualFunc(want.Assignment(), a0, slices.Equal) {
		t.Fatalf("the preview %v is not the plan of its seed %d: %v (%v)", a0, plan.Result.Seed, want, err)
	}
	press(a, "w")
	if s := flat(screen(a)); !strings.Contains(s, "Sent as one Kafka request") || !strings.Contains(s, "FakeRequest create kw") {
		t.Errorf("w does not show the request:\n%s", screen(a))
	}
	press(a, "w", "enter")
	if s := screen(a); !strings.Contains(s, "Sends CreateTopics with this assignment") || !strings.Contains(s, "(validateOnly first, then for real).") {
		t.Errorf("the popup:\n%s", screen(a))
	}
	press(a, "y")
	kw.mu.Lock()
	created := slices.Clone(kw.created)
	kw.mu.Unlock()
	if len(created) != 1 || !maps.EqualFunc(created[0].Assignment(), a0, slices.Equal) || created[0].Result.Seed != plan.Result.Seed {
		t.Fatalf("sent %v, previewed %v (seed %d)", created, a0, plan.Result.Seed)
	}
}
