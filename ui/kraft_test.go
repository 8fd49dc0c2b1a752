package ui

import (
	"context"
	"maps"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/ktopo/ktopo/assign"
	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/clusterops"
	"github.com/ktopo/ktopo/clusterwatch"
	"github.com/ktopo/ktopo/clusterwatch/zksource"
	"github.com/ktopo/ktopo/internal/testkit/fixture"
	"github.com/ktopo/ktopo/internal/testkit/kraftfake"
	"github.com/ktopo/ktopo/kafkaops"
	wz "github.com/ktopo/ktopo/ui/internal/wizard"
	"github.com/ktopo/ktopo/ui/nav"
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
func (s *kafkaSource) Backend() cluster.Backend { return cluster.ViaKafka }
func (s *kafkaSource) Server() string           { return "kafka-1:9092" }
func (s *kafkaSource) Close() error             { return nil }

// kraftApp is the shell on the fixtures' small KRaft cluster (broker 4
// cordoned, broker 6 fenced, metadata.version 4.3+; spec's changes
// made), writing through the real KRaft writer to a fake controller
// holding the same cluster, which refuses what Kafka 4.4's refuses
// (kraftfake, checked against real Kafka by
// cmd/realkafka_kraftfake_test.go).
func kraftApp(t *testing.T, change func(*fixture.Spec)) (*App, *kraftfake.Cluster) {
	t.Helper()
	spec, k := fixture.SmallKRaft()
	if change != nil {
		change(&spec)
	}
	m := spec.Model()
	m.SetKRaft(k)
	fc := kraftfake.New(m.Snapshot())
	a := New(Config{Source: &kafkaSource{ch: make(chan clusterwatch.Batch)}, Writer: kafkaops.New(fc, 0), Connect: "kafka-1:9092", Mode: ModeLive,
		Now: func() time.Time { return t0 }, Location: t0.Location(), Rand: rand.New(rand.NewPCG(1, 2))})
	a.update(tea.WindowSizeMsg{Width: 160, Height: 40})
	loadSpec(a, spec, k)
	return a, fc
}

// settle lets the fake cluster's changes reach the shell as the poller
// would deliver them, and the operation wizard's step move on at each
// tick, until neither has anything new (or n rounds).
func settle(a *App, fc *kraftfake.Cluster, n int) {
	for range n {
		b := fc.Batch()
		if len(b.Events) > 0 || b.KRaft != nil {
			run(a, batchMsg(b))
		}
		w := drainer(a)
		for id, o := range a.owners {
			if w != nil && o == Screen(w) {
				run(a, nav.TaskMsg{Task: id, Msg: wz.TickMsg{At: t0}})
			}
		}
	}
}

// applied are the fake controller's applied writes, each cut to its API
// and first word ("AlterPartitionReassignments clicks-1").
func applied(fc *kraftfake.Cluster) []string {
	var out []string
	for _, l := range fc.Applied() {
		f := strings.Fields(l)
		out = append(out, strings.Join(f[:min(len(f), 2)], " "))
	}
	return out
}

// holds lists the partitions with a replica on broker in s.
func holds(s *cluster.Snapshot, broker int) []string {
	var out []string
	for _, t := range s.Topics() {
		for _, p := range t.Partitions {
			if slices.Contains(p.Replicas, broker) {
				out = append(out, t.Name+"-"+strconv.Itoa(p.ID))
			}
		}
	}
	return out
}

// TestKRaftApp: on a KRaft cluster the shell shows the same screens fed
// by the Kafka-protocol source, without the ZooKeeper tree; its banner and
// status bar name Kafka and the source's figures; the overview names the
// quorum's leader as the controller; a drain with its defaults (leaders
// first, the broker cordoned: metadata.version 4.3+) runs to its end
// through the KRaft writer to a controller that refuses what Kafka
// refuses: the reorder, which names the broker, before the cordon (Kafka
// refuses a reassignment naming a cordoned broker), then the election,
// then the moves; a partition whose reorder would name cordoned broker 4
// keeps its leader until the copy, and the moves take 4's replicas along
// where a partition moves. The preview, `w`, the popup and the progress
// say the steps in that order.
func TestKRaftApp(t *testing.T) {
	loading := New(Config{Source: &kafkaSource{ch: make(chan clusterwatch.Batch)}, Connect: "kafka-1:9092", Mode: ModeLive, Now: func() time.Time { return t0 }, Location: t0.Location()})
	loading.update(tea.WindowSizeMsg{Width: 160, Height: 40})
	if s := screen(loading); !strings.Contains(s, "Connecting to Kafka…") || strings.Contains(s, "Tree") {
		t.Fatalf("before the first batch:\n%s", s)
	}
	// A large cluster's topics come in pieces, then their configs.
	run(loading, batchMsg{Partial: true, States: []clusterwatch.State{clusterwatch.StateConnected}, Progress: clusterwatch.Progress{Known: 60_000, Topics: 20_000}})
	if s := screen(loading); !strings.Contains(s, "Loading the cluster from Kafka… read the partitions of 20,000 of 60,000 topics") {
		t.Fatalf("loading the topics:\n%s", s)
	}
	run(loading, batchMsg{Partial: true, Progress: clusterwatch.Progress{Done: 2, Known: 6}})
	if s := screen(loading); !strings.Contains(s, "Loading the cluster from Kafka… read the configs of 2 of 6 topics") {
		t.Fatalf("loading:\n%s", s)
	}
	a, fc := kraftApp(t, nil)
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

	// Drain broker 2 with the defaults.
	press(a, "1", "right", "d")
	if w := drainer(a); w == nil || w.Stage() != "preview" || w.Operation().Broker != 2 {
		st, _ := a.Status()
		t.Fatalf("d opens no drain of broker 2 on a KRaft cluster: %q\n%s", st, screen(a))
	}
	preview := flat(screen(a))
	order := []string{"first: reorder 2 partitions, broker 2 last (none added: done at once), before broker 2 is cordoned: Kafka refuses a reorder naming a cordoned broker",
		"then: cordon broker 2 (cordoned.log.dirs=*): no new partition lands there while it drains; it stays cordoned",
		"then: 2 leaders move off broker 2 to 3 (2) by a preferred election · L turns this off",
		"2 partitions led by 2 keep their leaders until the copy: moving them first needs a reorder, which Kafka refuses while broker 4 is cordoned: __consumer_offsets-1, payments-1",
		"also moves broker 4's"}
	if !inOrder(preview, order...) {
		t.Errorf("the drain's preview does not say its steps in their order %q:\n%s", order, screen(a))
	}
	press(a, "w")
	if s := flat(screen(a)); !inOrder(s, "Sent as 4 Kafka requests, one after the other — the reorder first",
		"first: reorder 2 partitions", "AlterPartitionReassignments", "partition 1 replicas [3,2]",
		"then: cordon broker 2", "IncrementalAlterConfigs", "SET cordoned.log.dirs=*",
		"then: elect the preferred leaders of 2 partitions", "ElectLeaders electionType=PREFERRED",
		"then: the drain, once 2 leads none", "AlterPartitionReassignments") {
		t.Errorf("w does not show the requests in their order:\n%s", screen(a))
	}
	press(a, "w", "enter")
	if s := flat(screen(a)); !inOrder(s, "Drain broker 2?", "In this order:", "1. reorder 2 partitions (broker 2 last)", "2. cordon broker 2 (it stays cordoned)",
		"3. elect 2 leaders off broker 2", "4. send the reassignment (AlterPartitionReassignments)") || strings.Contains(s, "throttles") {
		t.Errorf("the popup does not say the steps in their order:\n%s", screen(a))
	}
	before := holds(a.Snapshot(), 2)
	press(a, "y")
	// Kafka took the reorder, then the cordon; the brokers do not show
	// the reorder yet.
	if s := flat(screen(a)); !inOrder(s, "Draining broker 2", "0/2 leaders moved off broker 2",
		"the reorder of 2 partitions is accepted (broker 2 last): waiting for the brokers to show it; broker 2 is cordoned; then the election, then 12 partitions move (their replicas)") {
		t.Errorf("the progress:\n%s", screen(a))
	}
	settle(a, fc, 6)
	if s := flat(screen(a)); !strings.Contains(s, "Draining broker 2") {
		t.Fatalf("the drain does not run:\n%s", screen(a))
	}
	fc.CatchUp()
	settle(a, fc, 4)
	want := []string{"AlterPartitionReassignments clicks-1", "AlterPartitionReassignments clicks-7", "IncrementalAlterConfigs BROKER",
		"ElectLeaders clicks-1", "ElectLeaders clicks-7"}
	if got := applied(fc); len(got) <= len(want) || !slices.Equal(got[:len(want)], want) ||
		slices.ContainsFunc(got[len(want):], func(s string) bool { return !strings.HasPrefix(s, "AlterPartitionReassignments ") }) {
		t.Errorf("the drain's writes: %q, want %q then the moves", got, want)
	}
	if on := holds(fc.Snapshot(), 2); len(on) > 0 || len(before) == 0 {
		t.Errorf("broker 2 still holds %v (before: %v)", on, before)
	}
	for _, p := range []string{"clicks-1", "clicks-7"} {
		if got := leaderOf(fc.Snapshot(), p); got != 3 {
			t.Errorf("%s led by %d, want 3 (elected before the copy)", p, got)
		}
	}
	if b, _ := fc.Snapshot().Broker(2); !b.Cordoned {
		t.Error("broker 2 not cordoned")
	}
	if s := flat(screen(a)); !strings.Contains(s, "Drained broker 2") || !strings.Contains(s, "it holds no replica") ||
		!strings.Contains(s, "leaders first: 2/2 moved off before the copy") || !strings.Contains(s, "broker 2 stays cordoned") {
		t.Errorf("the drain's end:\n%s", screen(a))
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

// TestKRaftDrainCordoned: a drain of a broker cordoned beforehand sends no
// reorder (Kafka would refuse it, naming the broker): the election moves
// the leader whose first replica is another broker, the others keep it
// until the copy, and the preview says why; Kafka's controller (the fake)
// takes every write, and the broker ends empty.
func TestKRaftDrainCordoned(t *testing.T) {
	a, fc := kraftApp(t, func(s *fixture.Spec) { s.Topics[2].Drift = []int{1} }) // clicks-1, [2,3], led by 3
	fc.SetCordoned(3, true)
	settle(a, fc, 1)
	press(a, "1", "right", "right", "d")
	if w := drainer(a); w == nil || w.Operation().Broker != 3 {
		t.Fatalf("no drain of broker 3:\n%s", screen(a))
	}
	if s := flat(screen(a)); !inOrder(s, "broker 3 is cordoned already: no new partition lands there", "first: 1 leader moves off broker 3 to 2 (1) · L turns this off",
		"6 partitions led by 3 keep their leaders until the copy: moving them first needs a reorder, which Kafka refuses while brokers 3,4 are cordoned",
		"the minimal strategy also moves broker 4's 8 replicas (cordoned): Kafka refuses a target naming a cordoned broker, so a partition that moves leaves it") ||
		strings.Contains(s, "reorder 1 partition") || strings.Contains(s, "cordon broker 3 (") {
		t.Errorf("the preview of a cordoned broker's drain:\n%s", screen(a))
	}
	press(a, "w")
	if s := flat(screen(a)); !inOrder(s, "Sent as 2 Kafka requests", "first: elect the preferred leaders of 1 partition", "ElectLeaders", "then: the drain", "AlterPartitionReassignments") ||
		strings.Contains(s, "IncrementalAlterConfigs") || strings.Contains(s, "partition 1 replicas [2,3]") {
		t.Errorf("w:\n%s", screen(a))
	}
	press(a, "w", "enter", "y")
	settle(a, fc, 6)
	fc.CatchUp()
	settle(a, fc, 4)
	got := applied(fc)
	if len(got) < 2 || got[0] != "ElectLeaders clicks-1" || slices.ContainsFunc(got[1:], func(s string) bool { return !strings.HasPrefix(s, "AlterPartitionReassignments ") }) {
		t.Errorf("the writes: %q, want the election, then the moves", got)
	}
	if on := holds(fc.Snapshot(), 3); len(on) > 0 {
		t.Errorf("broker 3 still holds %v", on)
	}
	if s := flat(screen(a)); !strings.Contains(s, "Drained broker 3") || !strings.Contains(s, "it holds no replica") {
		t.Errorf("the drain's end:\n%s", screen(a))
	}
}

// replicaLists are an assignment's replica lists in partition order, as
// the fake controller notes them ("[1,2] [2,3]").
func replicaLists(a assign.Assignment) string {
	var out []string
	for _, p := range a.Partitions() {
		parts := make([]string, len(a[p]))
		for i, r := range a[p] {
			parts[i] = strconv.Itoa(r)
		}
		out = append(out, "["+strings.Join(parts, ",")+"]")
	}
	return strings.Join(out, " ")
}

// inOrder reports that s holds every one of want, each after the one
// before.
func inOrder(s string, want ...string) bool {
	for _, w := range want {
		i := strings.Index(s, w)
		if i < 0 {
			return false
		}
		s = s[i+len(w):]
	}
	return true
}

// leaderOf is the leader of partition "topic-p" in s (-1: none).
func leaderOf(s *cluster.Snapshot, tp string) int {
	i := strings.LastIndexByte(tp, '-')
	p, _ := strconv.Atoi(tp[i+1:])
	if t := s.Topic(tp[:i]); t != nil {
		if pp := t.Partition(p); pp != nil {
			return pp.Leader
		}
	}
	return -1
}

// flat is a screen's text with every run of spaces and line breaks made
// one space, for finding a sentence however it was wrapped.
func flat(s string) string { return strings.Join(strings.Fields(s), " ") }

// loadSpec feeds a spec's batches as a KRaft source would, k (the
// cluster's KRaft facts) with the first.
func loadSpec(a *App, spec fixture.Spec, k *cluster.KRaft) {
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
	a, fc := kraftApp(t, nil)
	press(a, "c")
	// The form counts broker 4, cordoned, apart: it takes no new partition.
	if s := flat(screen(a)); !strings.Contains(s, "5 live brokers (1 cordoned)") || !strings.Contains(s, "30 replicas in all, about 8 per broker") {
		t.Errorf("the form's header does not say a live broker is cordoned:\n%s", screen(a))
	}
	press(a, "down", "down")
	if s := flat(screen(a)); !strings.Contains(s, "at most the 4 live brokers not cordoned") {
		t.Errorf("the replication factor's hint counts the cordoned broker:\n%s", screen(a))
	}
	press(a, "up", "up", "k", "w", "enter")
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
	if s := flat(screen(a)); !strings.Contains(s, "Sent as one Kafka request") || !strings.Contains(s, "CreateTopics timeoutMs=30000 (validateOnly=true first, then false) topic kw numPartitions=-1 replicationFactor=-1") {
		t.Errorf("w does not show the request:\n%s", screen(a))
	}
	press(a, "w", "enter")
	if s := screen(a); !strings.Contains(s, "Sends CreateTopics with this assignment") || !strings.Contains(s, "(validateOnly first, then for real).") {
		t.Errorf("the popup:\n%s", screen(a))
	}
	press(a, "y")
	created := map[int][]int{}
	if tp := fc.Snapshot().Topic("kw"); tp != nil {
		for _, p := range tp.Partitions {
			created[p.ID] = p.Replicas
		}
	}
	if !maps.EqualFunc(created, a0, slices.Equal) || !slices.Equal(fc.Applied(), []string{"CreateTopics kw " + replicaLists(a0)}) {
		t.Fatalf("Kafka created %v (%q), previewed %v (seed %d)", created, fc.Applied(), a0, plan.Result.Seed)
	}
}
