package operate

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/go-zookeeper/zk"
	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/clusterops"
	"github.com/ktopo/ktopo/clusterwatch/zksource"
	"github.com/ktopo/ktopo/internal/testkit/fixture"
	"github.com/ktopo/ktopo/ui/internal/wizard"
	"github.com/ktopo/ktopo/ui/nav"
	"github.com/ktopo/ktopo/zkops"
	"github.com/ktopo/ktopo/zkwatch"
)

// opCase is one operation as a user runs it: opened on a cluster, the
// keys that make the plan, the writes `w` must show (what clusterops
// describes for that plan), the cluster carrying it out halfway and to
// the end, and the summary.
type opCase struct {
	name string
	spec func() fixture.Spec
	op   nav.Operation
	// prepare gives the fake ZooKeeper what the write reads; keys make the
	// plan (before enter).
	prepare func(e *env)
	keys    []string
	// want is the exact writes, from the plan previewed.
	want func(t *testing.T, e *env) []string
	// half and all are the cluster carrying the operation out.
	half, all func(e *env)
	// summary is how the done status line starts; start what the help
	// calls its enter, written what its `w` says the multi then does.
	summary, start, written string
}

func opCases() []opCase {
	drift := func() fixture.Spec {
		sp := spec()
		sp.Topics[0].Drift = []int{1, 2, 4}
		sp.Topics[0].Shrunk = map[int][]int{2: {3}}
		return sp
	}
	withConfig := func() fixture.Spec {
		sp := spec()
		sp.Topics[0].Config = map[string]string{"retention.ms": "604800000"}
		return sp
	}
	reassignWant := func(t *testing.T, e *env) []string {
		_, ws, err := zkops.NewWriter(e.z).StartReassignment(context.Background(), e.model.Snapshot(), clusterops.MovesAsReassignments(e.r().moves), e.r().throttle, clusterops.Describe)
		if err != nil {
			t.Fatal(err)
		}
		return ws.Lines()
	}
	reassignHalf := func(e *env) {
		moves := e.r().plan.Moves
		e.controller(moves[:1], moves[1:2])
	}
	reassignAll := func(e *env) { e.controller(e.r().plan.Moves, nil) }
	return []opCase{
		{name: "drain", spec: spec, op: nav.Operation{Kind: nav.OpDrain, Broker: 3}, keys: []string{"L", "t"},
			want: reassignWant, half: reassignHalf, all: reassignAll, summary: "Drained broker 3: 8 partitions moved in ",
			start: "drain…", written: "the controller then moves the replicas"},
		{name: "move", spec: spec, op: nav.Operation{Kind: nav.OpReassign, Topic: "metrics_raw"}, keys: []string{"+"},
			want: reassignWant, half: reassignHalf, all: reassignAll, summary: "Reassigned topic metrics_raw: 3 partitions moved in ",
			start: "reassign…", written: "the controller then moves the replicas"},
		{name: "add", spec: spec, op: nav.Operation{Kind: nav.OpAddPartitions, Topic: "orders"}, keys: []string{"-", "-", "-"},
			want: func(t *testing.T, e *env) []string {
				return zkops.DescribeOps(zkops.AddPartitionsOps(e.add().plan))
			},
			half: func(e *env) {
				p := e.add().plan
				tp := e.model.Snapshot().Topic(p.Topic)
				rs := p.Assignment()[6]
				st := cluster.EncodePartitionState(cluster.PartitionState{ControllerEpoch: 7, Leader: rs[0], Version: 1, ISR: rs})
				e.apply(ev(zkwatch.Changed, p.TopicPath, p.TopicJSON, tp.ZkVersion+1), ev(zkwatch.Created, cluster.PartitionStatePath(p.Topic, 6), st, 0))
			},
			all:     func(e *env) { e.addOnline(e.add().plan) },
			summary: "Added partitions to topic orders: 3 new partitions online in ", start: "add the partitions…", written: "the controller then creates the new partitions"},
		{name: "elect", spec: drift, op: nav.Operation{Kind: nav.OpElect, Topic: "orders"},
			want: func(t *testing.T, e *env) []string {
				ws, _, err := zkops.NewWriter(e.z).Elect(context.Background(), e.elect().plan, clusterops.Describe)
				if err != nil || len(ws.Steps) != 1 {
					t.Fatalf("%d multis: %v", len(ws.Steps), err)
				}
				return ws.Steps[0].Lines
			},
			half: func(e *env) {
				e.apply(ev(zkwatch.Created, cluster.PreferredReplicaElectionPath, e.z.Nodes[cluster.PreferredReplicaElectionPath], 0))
			},
			all: func(e *env) {
				var evs []zkwatch.Event
				for _, ep := range e.elect().rowsOf {
					if ep.Verdict == clusterops.ElectionWillMove {
						st := cluster.EncodePartitionState(cluster.PartitionState{ControllerEpoch: 7, Leader: ep.Preferred, LeaderEpoch: 2, Version: 1, ISR: ep.ISR})
						evs = append(evs, ev(zkwatch.Changed, cluster.PartitionStatePath(ep.Topic, ep.Partition), st, 3))
					}
				}
				e.apply(append(evs, zkwatch.Event{Type: zkwatch.Deleted, Path: cluster.PreferredReplicaElectionPath})...)
			},
			summary: "Preferred leader election of topic orders: 2 elected, 1 not (preferred replica not available)",
			start:   "elect…", written: "the controller then elects the preferred leaders it names"},
		{name: "configs", spec: withConfig, op: nav.Operation{Kind: nav.OpConfigs, Topic: "orders"},
			prepare: func(e *env) {
				e.z.Init()
				e.z.Nodes["/config/topics/orders"] = cluster.EncodeEntityConfig(map[string]string{"retention.ms": "604800000"})
				e.cfg().in.SetValue("retention.ms=3600000 cleanup.policy=compact")
				e.cfg().check()
			},
			keys: []string{"enter"},
			want: func(t *testing.T, e *env) []string {
				alt, ops, err := clusterops.PlanTopicConfigReplacement(context.Background(), zkops.NewWriter(e.z), e.model.Snapshot(), "orders", map[string]string{"retention.ms": "3600000", "cleanup.policy": "compact"})
				if err != nil || !slices.Equal(alt.Set, e.cfg().alt.Set) {
					t.Fatalf("%v: %v", err, alt)
				}
				return ops.Lines()
			},
			half: func(*env) {},
			all: func(e *env) {
				e.apply(ev(zkwatch.Changed, "/config/topics/orders", e.z.Nodes["/config/topics/orders"], 1))
			},
			summary: "Topic orders's configs changed: 2 overrides set, 0 overrides removed",
			start:   "change the configs…", written: "the brokers read the change notification and apply the new overrides"},
	}
}

// TestOperations runs every operation as a user does, at both sizes:
// its preview, `w` (exactly what clusterops describes for the plan), the
// confirmation, y (the multi written is the one `w` showed), the
// progress as the cluster carries it out, and the summary; a golden of
// each screen.
func TestOperations(t *testing.T) {
	for _, tc := range opCases() {
		for _, sz := range [][2]int{{80, 24}, {200, 60}} {
			t.Run(fmt.Sprintf("%s/%dx%d", tc.name, sz[0], sz[1]), func(t *testing.T) {
				e := newAnyEnv(t, tc.spec(), tc.op, sz[0], sz[1])
				if tc.prepare != nil {
					tc.prepare(e)
				}
				e.press(tc.keys...)
				if e.m.Stage() != "preview" {
					t.Fatalf("stage %s", e.m.Stage())
				}
				shot := func(name string) {
					t.Helper()
					out := view(e.m)
					checkSize(t, out, sz[0], sz[1])
					t.Run(name, func(t *testing.T) { golden.RequireEqual(t, out) })
				}
				shot("preview")
				if h := e.m.ShortHelp()[0]; !h.Enabled() || h.Help().Desc != tc.start {
					t.Fatalf("enter is %q (enabled %v), want %q", h.Help().Desc, h.Enabled(), tc.start)
				}
				e.press("w")
				if out := strings.Join(strings.Fields(view(e.m)), " "); sz[0] == 200 && !strings.Contains(out, tc.written) {
					t.Fatalf("w does not say %q:\n%s", tc.written, view(e.m))
				}
				want := tc.want(t, e)
				if got := e.m.fr.Ops.Lines(); !slices.Equal(got, want) {
					t.Fatalf("w shows\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
				}
				shot("written")
				e.press("w", "enter")
				if e.m.Stage() != "confirm" {
					t.Fatalf("stage %s", e.m.Stage())
				}
				shot("confirm")
				e.press("y")
				if len(e.z.Sent) != 1 || !slices.Equal(zkops.DescribeOps(e.z.Sent[0]), want) {
					t.Fatalf("stage %s (%v): wrote %d multis, the first\n%s", e.m.Stage(), e.m.err, len(e.z.Sent), strings.Join(zkops.DescribeOps(e.z.Sent[0]), "\n"))
				}
				e.now = t0.Add(1200 * time.Millisecond)
				tc.half(e)
				if line, st := e.m.TaskStatus(); st != nav.TaskRunning || e.m.Stage() != "progress" || !e.m.Detach() {
					t.Fatalf("stage %s: %q %v", e.m.Stage(), line, st)
				}
				shot("progress")
				e.now = t0.Add(2500 * time.Millisecond)
				tc.all(e)
				c, _ := e.m.Update(wizard.TickMsg{})
				e.deliver(c)
				if line, st := e.m.TaskStatus(); st != nav.TaskDone || e.m.Stage() != "done" || !strings.HasPrefix(line, tc.summary) {
					t.Fatalf("stage %s: %q %v, want %q…", e.m.Stage(), line, st, tc.summary)
				}
				shot("done")
			})
		}
	}
}

// checkSize fails unless out is h lines of at most w columns.
func checkSize(t *testing.T, out string, w, h int) {
	t.Helper()
	screen, _, _ := strings.Cut(out, "\n--- popup ---\n")
	lines := strings.Split(screen, "\n")
	if len(lines) != h {
		t.Fatalf("%d lines, want %d", len(lines), h)
	}
	for i, l := range lines {
		if n := ansi.StringWidth(l); n > w {
			t.Fatalf("line %d is %d wide: %q", i, n, l)
		}
	}
}

// TestPreviewEnds: g and G show the first and the last rows of a long
// preview, and of the exact writes.
func TestPreviewEnds(t *testing.T) {
	e := newEnv(t, fixture.Sized(2_000), 3, 80, 24)
	win := &e.m.pv.win
	e.press("G")
	if from, to := win.Visible(); to != len(e.r().moves) || from == 0 {
		t.Fatalf("G shows rows %d–%d of %d", from, to, len(e.r().moves))
	}
	e.press("g")
	if from, _ := win.Visible(); from != 0 {
		t.Fatalf("g shows rows from %d", from)
	}
	e.press("L", "w")
	first := view(e.m)
	e.press("G")
	if last := view(e.m); last == first || !strings.Contains(last, "/admin/reassign_partitions") && !strings.Contains(last, "]}") {
		t.Fatalf("G in the exact writes:\n%s", last)
	}
	e.press("g")
	if view(e.m) != first {
		t.Fatalf("g in the exact writes:\n%s", view(e.m))
	}
}

// TestDoneTimesAgree: once done, the progress line's time is the
// summary's, to the millisecond (it said 100ms beside "in 56ms").
func TestDoneTimesAgree(t *testing.T) {
	c := opCases()[3] // the election
	e := newAnyEnv(t, c.spec(), c.op, 200, 60)
	e.press("enter", "y")
	e.now = t0.Add(56 * time.Millisecond)
	c.all(e)
	out := view(e.m)
	if e.m.Stage() != "done" || !strings.Contains(out, "2/3 elected · 1 not elected · 56ms") || !strings.Contains(out, " in 56ms.") {
		t.Fatalf("stage %s:\n%s", e.m.Stage(), out)
	}
}

// TestConfigEffects: a min.insync.replicas above the replication factor
// is said as `ktopo configs --alter` says it, in the preview (the effect
// and the warning) and in the confirmation (the warning).
func TestConfigEffects(t *testing.T) {
	e := configsEnv(t, map[string]string{"min.insync.replicas": "2"}, "min.insync.replicas=5", 200, 60)
	e.press("enter")
	fx := clusterops.TopicConfigEffects(e.model.Snapshot(), "orders", map[string]string{"min.insync.replicas": "5"}).Lines
	want := []string{"Effect: min.insync.replicas 2 -> 5: 6 of 6 partitions under min ISR (now 0); producers with acks=all get NOT_ENOUGH_REPLICAS from them.",
		"Warning: min.insync.replicas 5 is above the replication factor 3: no acks=all produce to orders can succeed."}
	if !slices.Equal(fx, want) {
		t.Fatalf("the command line says\n%s", strings.Join(fx, "\n"))
	}
	out := view(e.m)
	for _, l := range want {
		if !strings.Contains(out, l) {
			t.Fatalf("the preview lacks %q:\n%s", l, out)
		}
	}
	e.press("enter")
	popup := strings.Join(strings.Fields(strings.ReplaceAll(ansi.Strip(e.m.Modal()), "│", "")), " ")
	if !strings.Contains(popup, "⚠ min.insync.replicas 5 is above the replication factor 3: no acks=all produce to orders can succeed.") {
		t.Fatalf("popup:\n%s", e.m.Modal())
	}
	golden.RequireEqual(t, view(e.m))
}

// otherReassignment is another client's reassignment of topic's
// partition p onto broker to (started through the Admin API: the topic
// znode lists the adding replica); done finishes it.
func (e *env) otherReassignment(topic string, p, to int, done bool) {
	tp := e.model.Snapshot().Topic(topic)
	a := cluster.TopicAssignment{Version: 3, Partitions: map[int][]int{}, AddingReplicas: map[int][]int{}, RemovingReplicas: map[int][]int{}, TopicID: tp.ID}
	for _, q := range tp.Partitions {
		a.Partitions[q.ID] = q.Replicas
	}
	cur := tp.Partition(p).Replicas
	if done {
		a.Partitions[p] = append(slices.Clone(cur[:len(cur)-1]), to)
	} else {
		a.Partitions[p] = append(slices.Clone(cur), to)
		a.AddingReplicas[p] = []int{to}
		a.RemovingReplicas[p] = cur[len(cur)-1:]
	}
	e.apply(ev(zkwatch.Changed, cluster.TopicPath(topic), cluster.EncodeTopicAssignment(a), tp.ZkVersion+1))
}

// TestAnotherReassignment: while another reassignment runs, a drain's,
// a topic move's and an addition's previews say Kafka's reason (without
// its tool's --additional advice) before y, and enter does nothing: no
// loop of "changed since the preview". Once it is done the plan is made
// again and can be written.
func TestAnotherReassignment(t *testing.T) {
	for _, tc := range []struct {
		name string
		op   nav.Operation
		why  string
	}{
		{"drain", nav.Operation{Kind: nav.OpDrain, Broker: 3}, "Cannot execute because there is an existing partition assignment."},
		{"move", nav.Operation{Kind: nav.OpReassign, Topic: "metrics_raw"}, "Cannot execute because there is an existing partition assignment."},
		{"add", nav.Operation{Kind: nav.OpAddPartitions, Topic: "orders"}, "A partition reassignment is in progress for the topic 'orders'."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newAnyEnv(t, spec(), tc.op, 200, 60)
			if tc.name == "move" {
				e.press("+")
			}
			// Started after the preview was made: orders-0 (on 1,2,3) onto 4.
			e.otherReassignment("orders", 0, 4, false)
			out := view(e.m)
			if !strings.Contains(out, tc.why) || strings.Contains(out, "--additional") {
				t.Fatalf("the preview does not say why:\n%s", out)
			}
			e.press("enter", "y", "enter", "y")
			if e.m.Stage() != "preview" || len(e.z.Sent) != 0 || strings.Contains(view(e.m), "changed since the preview") {
				t.Fatalf("stage %s, %d multis:\n%s", e.m.Stage(), len(e.z.Sent), view(e.m))
			}
			e.otherReassignment("orders", 0, 4, true)
			if out := view(e.m); strings.Contains(out, tc.why) || !strings.Contains(out, "this is the plan as ") {
				t.Fatalf("done, the preview says:\n%s", out)
			}
			e.press("enter", "y")
			if len(e.z.Sent) == 0 {
				t.Fatalf("nothing written once the other was done (stage %s):\n%s", e.m.Stage(), view(e.m))
			}
		})
	}
}

// TestAnotherReassignmentAtY: one started between the confirmation and y
// writes nothing and says Kafka's reason, not "changed since the
// preview".
func TestAnotherReassignmentAtY(t *testing.T) {
	e := newEnv(t, spec(), 3, 200, 60)
	e.press("L", "enter")
	e.model.Apply(zksource.NodeEvents(zkwatch.Batch{Events: []zkwatch.Event{
		ev(zkwatch.Created, cluster.ReassignPartitionsPath, cluster.EncodeReassignPartitions([]cluster.PartitionReassignment{{Topic: "orders", Partition: 0, Replicas: []int{4, 5, 6}}}), 0)}}), false)
	e.m.snap = e.model.Snapshot() // the popup is open: the snapshot lands without a refresh
	e.press("y")
	if len(e.z.Sent) != 0 || e.m.Stage() != "preview" || e.m.fr.Note.Text != "Not written: Cannot execute because there is an existing partition assignment." {
		t.Fatalf("stage %s, %d multis, note %q", e.m.Stage(), len(e.z.Sent), e.m.fr.Note.Text)
	}
}

// TestKafkaNumbersStay: the kafka strategy's numbers are the same for
// every plan the wizard makes (they changed with each replan), and every
// strategy counts against the same total, a partition mid-reassignment
// included.
func TestKafkaNumbersStay(t *testing.T) {
	e := newEnv(t, spec(), 3, 200, 60)
	before := e.r().gen.Count(clusterops.StrategyKafka)
	for range 3 {
		e.r().replan()
		if got := e.r().gen.Count(clusterops.StrategyKafka); got.Replicas != before.Replicas || got.Leaders != before.Leaders {
			t.Fatalf("kafka %+v, then %+v", before, got)
		}
	}
	e.otherReassignment("orders", 0, 4, false) // orders-0 lists 4 replicas meanwhile
	e.r().replan()
	totals := map[int]bool{}
	for _, st := range clusterops.Strategies() {
		totals[e.r().gen.Count(st).TotalReplicas] = true
	}
	if len(totals) != 1 {
		t.Fatalf("the strategies count against %v", totals)
	}
}

// TestDrainNamesTheDownBroker: with broker 4 down, a drain of broker 1
// keeps broker 4's replicas where they are with the minimal strategy,
// and the kafka strategy's line names the ones it moves.
func TestDrainNamesTheDownBroker(t *testing.T) {
	sp := spec()
	sp.Down = []int{4}
	e := newEnv(t, sp, 1, 200, 60)
	for _, m := range e.r().moves {
		if slices.Contains(m.Removing(), 4) && !slices.Contains(m.Removing(), 1) {
			t.Fatalf("minimal moves %s off broker 4: %v → %v", m.TopicPartition, m.Current, m.Target)
		}
	}
	k := e.r().gen.Count(clusterops.StrategyKafka).Offline[4]
	if want := fmt.Sprintf("also moves broker 4's %d replicas (offline)", k); k == 0 || !strings.Contains(view(e.m), want) {
		t.Fatalf("no %q:\n%s", want, view(e.m))
	}
	e.press("s", "s") // kafka
	if !strings.Contains(view(e.m), "⚠ the kafka strategy also moves broker 4's") {
		t.Fatalf("the chosen kafka strategy does not warn:\n%s", view(e.m))
	}
}

// TestMixedReplicationFactors: R on a topic whose partitions differ keeps
// every partition's replication factor unless +/− asks for one, says the
// factor is mixed, and shows every partition's change.
func TestMixedReplicationFactors(t *testing.T) {
	e := newAnyEnv(t, spec(), nav.Operation{Kind: nav.OpReassign, Topic: "orders"}, 200, 60)
	e.otherReassignment("orders", 0, 4, false)
	e.otherReassignment("orders", 0, 4, true) // orders-0 now [1,2,4]
	tp := e.model.Snapshot().Topic("orders")
	a := cluster.TopicAssignment{Version: 3, Partitions: map[int][]int{}, TopicID: tp.ID}
	for _, p := range tp.Partitions {
		a.Partitions[p.ID] = p.Replicas
	}
	a.Partitions[0] = tp.Partitions[0].Replicas[:2] // orders-0 at RF 2
	e.apply(ev(zkwatch.Changed, cluster.TopicPath("orders"), cluster.EncodeTopicAssignment(a), tp.ZkVersion+1))
	e = newAnyEnvModel(t, e.model, nav.Operation{Kind: nav.OpReassign, Topic: "orders"}, 200, 60)
	if out := view(e.m); !strings.Contains(out, "replication factor 2–3 (mixed: each partition keeps its own; +/− sets one for all)") {
		t.Fatalf("not said mixed:\n%s", out)
	}
	for _, st := range clusterops.Strategies() {
		for _, m := range e.r().gen.Moves(st) {
			if len(m.Target) != len(m.Current) {
				t.Fatalf("%s changes %s's RF: %v → %v", st, m.TopicPartition, m.Current, m.Target)
			}
		}
	}
	e.press("+")
	if e.r().rf != 3 || len(e.r().moves) != 1 || !strings.Contains(view(e.m), "replication factor 2–3 → 3") {
		t.Fatalf("rf %d, moves %v:\n%s", e.r().rf, e.r().moves, view(e.m))
	}
	golden.RequireEqual(t, view(e.m))
}

// reorderDone is the controller completing a leaders-first step's
// reorder: the topic znodes rewritten with the reordered replicas.
func (e *env) reorderDone(lead *clusterops.LeadershipFirst) {
	s := e.model.Snapshot()
	reorder := map[cluster.TopicPartition][]int{}
	for _, r := range lead.Reorder {
		reorder[r.TopicPartition] = r.Replicas
	}
	var evs []zkwatch.Event
	for _, t := range s.Topics() {
		a := cluster.TopicAssignment{Version: 3, Partitions: map[int][]int{}, TopicID: t.ID}
		changed := false
		for _, p := range t.Partitions {
			a.Partitions[p.ID] = p.Replicas
			if rs, ok := reorder[cluster.TopicPartition{Topic: t.Name, Partition: p.ID}]; ok {
				a.Partitions[p.ID], changed = rs, true
			}
		}
		if changed {
			evs = append(evs, ev(zkwatch.Changed, cluster.TopicPath(t.Name), cluster.EncodeTopicAssignment(a), t.ZkVersion+1))
		}
	}
	e.apply(evs...)
}

// TestQuitBetweenSteps: quitting during a drain's leaders-first step
// (B1): the wizard says what is left and how to finish it; stopped, it
// finishes the step it started (the election, once the controller has
// reordered the replicas) and writes no drain.
func TestQuitBetweenSteps(t *testing.T) {
	sp := spec()
	sp.Topics[0].Drift = []int{1} // orders-1 led by 3, its second replica: reordered
	e := newEnv(t, sp, 3, 200, 60)
	lead := e.r().lead.plan
	e.press("enter", "y")
	if !e.r().leading() || len(e.z.Sent) != 1 || len(lead.Reorder) == 0 {
		t.Fatalf("not between steps: %d multis", len(e.z.Sent))
	}
	// The reorder is written; the controller has not done it yet (N9: it
	// is not said done while reassign --list still shows it).
	left := strings.Join(e.m.Leaving(false), " ")
	for _, want := range []string{"The drain of broker 3 is between its steps:",
		"the reorder of 3 partitions (broker 3 last) is written, 3 of them still in progress (ktopo reassign --list shows them) and broker 3 still leads them",
		"Quitting first finishes this step (their preferred election, once the controller has done the reorder)", "d on broker 3"} {
		if !strings.Contains(left, want) {
			t.Fatalf("%q lacks %q", left, want)
		}
	}
	e.deliver(e.m.Stop())
	if !e.m.Stopping() || len(e.z.Sent) != 1 {
		t.Fatalf("stopping %v, %d multis before the reorder completed", e.m.Stopping(), len(e.z.Sent))
	}
	if final := strings.Join(e.m.Leaving(true), " "); !strings.Contains(final, "3 of them still in progress") ||
		!strings.Contains(final, "To finish the step, once ktopo reassign --list shows none of them in progress: ktopo leader-election") {
		t.Fatalf("final, the reorder in progress: %q", final)
	}
	e.reorderDone(lead)
	if left := strings.Join(e.m.Leaving(false), " "); !strings.Contains(left, "the replicas of 3 partitions are reordered (broker 3 last) and broker 3 still leads them") {
		t.Fatalf("the reorder done: %q", left)
	}
	c, _ := e.m.Update(wizard.TickMsg{})
	e.deliver(c)
	if e.m.Stopping() || len(e.z.Sent) != 2 || !strings.Contains(strings.Join(zkops.DescribeOps(e.z.Sent[1]), " "), cluster.PreferredReplicaElectionPath) {
		t.Fatalf("stopping %v, %d multis: the election not written", e.m.Stopping(), len(e.z.Sent))
	}
	// The controller elects; the step is over, yet no drain is written.
	var evs []zkwatch.Event
	for _, lm := range lead.Moves {
		p := e.model.Snapshot().Topic(lm.Topic).Partition(lm.Partition)
		st := cluster.EncodePartitionState(cluster.PartitionState{ControllerEpoch: 7, Leader: lm.To, LeaderEpoch: 1, Version: 1, ISR: p.ISR})
		evs = append(evs, ev(zkwatch.Changed, cluster.PartitionStatePath(lm.Topic, lm.Partition), st, 1))
	}
	e.apply(evs...)
	e.now = e.now.Add(time.Minute)
	c, _ = e.m.Update(wizard.TickMsg{})
	e.deliver(c)
	if len(e.z.Sent) != 2 {
		t.Fatalf("%d multis: the drain was written after the TUI closed", len(e.z.Sent))
	}
	if final := strings.Join(e.m.Leaving(true), " "); !strings.Contains(final, "its leaders-first step is done") || !strings.Contains(final, "the drain's reassignment was not written. To drain it: d on broker 3 in ktopo.") {
		t.Fatalf("final: %q", final)
	}
}

// TestQuitThrottled: quitting while a throttled reassignment runs (B2)
// names its throttles and what removes them; once closed, its plan for
// --verify.
func TestQuitThrottled(t *testing.T) {
	sp := spec()
	sp.Topics[1] = fixture.Topic{Name: "metrics_raw", Partitions: 6, RF: 2}
	e := newOpEnv(t, sp, 0, "metrics_raw", 200, 60)
	if e.m.Leaving(false) != nil {
		t.Fatalf("the preview leaves %q", e.m.Leaving(false))
	}
	e.press("+", "t", "enter", "y")
	left := strings.Join(e.m.Leaving(false), " ")
	if !strings.Contains(left, "The reassignment of topic metrics_raw (6 partitions) runs on without ktopo, and its throttles (10 MiB/s on brokers 1,2,3,4,5,6 and topic metrics_raw) stay until removed") ||
		!strings.Contains(left, "ktopo reassign --verify --reassignment-json-file FILE removes them") {
		t.Fatalf("%q", left)
	}
	if e.m.Stopping() {
		t.Fatal("a running reassignment keeps ktopo from closing")
	}
	final := e.m.Leaving(true)
	if len(final) != 2 || final[1] != string(e.r().plan.NodeJSON) {
		t.Fatalf("final: %q", final)
	}
	// With a saver (the command line's: a file), the plan is kept there
	// and what is printed is its path and the exact command, not a
	// screen-wide line of JSON (newcomer 2026-12b, friction 4).
	var saved []byte
	e.m.savePlan = func(name string, plan []byte) (string, string, error) {
		if name != "topic-metrics_raw" {
			t.Errorf("saved as %q", name)
		}
		saved = plan
		return "/tmp/ktopo-reassign-topic-metrics_raw-1.json", "ktopo reassign --zookeeper zk:2181/kafka --verify --reassignment-json-file /tmp/ktopo-reassign-topic-metrics_raw-1.json", nil
	}
	if left := strings.Join(e.m.Leaving(false), " "); !strings.Contains(left, "ktopo reassign --verify removes them, from its plan (written to a file when ktopo exits)") {
		t.Fatalf("with a saver: %q", left)
	}
	final = e.m.Leaving(true)
	if len(final) != 1 || string(saved) != string(e.r().plan.NodeJSON) ||
		!strings.Contains(final[0], "once it is done,\n\n  ktopo reassign --zookeeper zk:2181/kafka --verify --reassignment-json-file /tmp/ktopo-reassign-topic-metrics_raw-1.json\n\nremoves them (its plan is in /tmp/ktopo-reassign-topic-metrics_raw-1.json).") ||
		strings.Contains(final[0], `"partitions"`) {
		t.Fatalf("final with a saver: %q", final)
	}
	e.m.savePlan = func(string, []byte) (string, string, error) { return "", "", errors.New("disk full") }
	if final = e.m.Leaving(true); len(final) != 2 || !strings.Contains(final[0], "writing its plan to a file failed (disk full)") || final[1] != string(e.r().plan.NodeJSON) {
		t.Fatalf("final, the file not written: %q", final)
	}
	e.controller(e.r().plan.Moves, nil)
	c, _ := e.m.Update(wizard.TickMsg{})
	e.deliver(c)
	if e.m.Leaving(false) != nil {
		t.Fatalf("done, throttles removed: %q", e.m.Leaving(false))
	}
}

// configsEnv is e's editor on topic orders, whose overrides (in the
// snapshot and in ZooKeeper) are config, its field holding typed.
func configsEnv(t *testing.T, config map[string]string, typed string, w, h int) *env {
	sp := spec()
	sp.Topics[0].Config = config
	e := newAnyEnv(t, sp, nav.Operation{Kind: nav.OpConfigs, Topic: "orders"}, w, h)
	e.z.Init()
	e.z.Nodes["/config/topics/orders"] = cluster.EncodeEntityConfig(config)
	e.cfg().in.SetValue(typed)
	e.cfg().check()
	return e
}

// TestStaleWrites: what changed between the preview and y writes
// nothing and shows the plan made again, for each operation that checks.
func TestStaleWrites(t *testing.T) {
	t.Run("add", func(t *testing.T) {
		e := newAnyEnv(t, spec(), nav.Operation{Kind: nav.OpAddPartitions, Topic: "orders"}, 120, 40)
		e.press("enter")
		e.addOnline(e.add().plan) // someone else added the same partitions first
		e.press("y")
		if len(e.z.Sent) != 0 || e.m.Stage() != "preview" || !strings.HasPrefix(e.m.fr.Note.Text, "Not written") {
			t.Fatalf("stage %s, %d multis, note %q", e.m.Stage(), len(e.z.Sent), e.m.fr.Note.Text)
		}
	})
	t.Run("elect", func(t *testing.T) {
		sp := spec()
		sp.Topics[0].Drift = []int{1}
		e := newAnyEnv(t, sp, nav.Operation{Kind: nav.OpElect, Topic: "orders"}, 120, 40)
		e.press("enter")
		ep := e.elect().rowsOf[0]
		st := cluster.EncodePartitionState(cluster.PartitionState{ControllerEpoch: 7, Leader: ep.Preferred, LeaderEpoch: 3, Version: 1, ISR: ep.ISR})
		e.apply(ev(zkwatch.Changed, cluster.PartitionStatePath(ep.Topic, ep.Partition), st, 4)) // elected meanwhile
		e.press("y")
		if len(e.z.Sent) != 0 || e.m.Stage() != "preview" || !strings.Contains(e.m.fr.Note.Text, "the leaders changed since the preview") {
			t.Fatalf("stage %s, %d multis, note %q", e.m.Stage(), len(e.z.Sent), e.m.fr.Note.Text)
		}
	})
}

// TestConfigsFailed: a config multi ZooKeeper refuses writes nothing; the
// failure says so, its status is a failure, and esc goes back to the
// preview of the same change.
func TestConfigsFailed(t *testing.T) {
	e := configsEnv(t, map[string]string{"retention.ms": "604800000"}, "retention.ms=3600000", 120, 40)
	e.z.Fail = zk.ErrBadVersion
	e.press("enter", "enter", "y")
	if line, st := e.m.TaskStatus(); e.m.Stage() != "failed" || st != nav.TaskFailed || !strings.Contains(line, "failed: ") ||
		!strings.Contains(view(e.m), "nothing was written; enter or esc goes back") {
		t.Fatalf("stage %s, %q:\n%s", e.m.Stage(), line, view(e.m))
	}
	if !e.m.Back() || e.m.Stage() != "preview" || e.cfg().alt == nil || !strings.Contains(view(e.m), "retention.ms") {
		t.Fatalf("esc: stage %s", e.m.Stage())
	}
	if !e.m.Back() || e.m.Stage() != "form" || !e.m.Capturing() {
		t.Fatalf("esc again: stage %s, editing %v", e.m.Stage(), e.m.Capturing())
	}
}

// TestNoWriter: without a session to write through, `w` says so and y
// writes nothing, saying why.
func TestNoWriter(t *testing.T) {
	e := newEnv(t, spec(), 3, 120, 40)
	e.m.wr = nil
	e.press("L", "w")
	if !strings.Contains(view(e.m), wizard.ErrNoWriter.Error()) {
		t.Fatalf("w:\n%s", view(e.m))
	}
	e.press("w", "enter", "y")
	if e.m.Stage() != "preview" || e.m.fr.Note.Text != wizard.ErrNoWriter.Error() {
		t.Fatalf("stage %s, note %q", e.m.Stage(), e.m.fr.Note.Text)
	}
}
