package operate

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/go-zookeeper/zk"
	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/clusterops"
	"github.com/ktopo/ktopo/clusterwatch/zksource"
	"github.com/ktopo/ktopo/internal/testkit/fixture"
	"github.com/ktopo/ktopo/ui/internal/wizard"
	"github.com/ktopo/ktopo/ui/internal/wizard/wizardtest"
	"github.com/ktopo/ktopo/ui/keys"
	"github.com/ktopo/ktopo/ui/nav"
	"github.com/ktopo/ktopo/ui/theme"
	"github.com/ktopo/ktopo/zkops"
	"github.com/ktopo/ktopo/zkwatch"
)

// The wizards' shared test kit: the clock, the shell's task id, the
// cluster, the in-memory ZooKeeper written to.
var (
	t0   = wizardtest.T0
	spec = wizardtest.Spec
)

const testTask = wizardtest.Task

type fakeZK = wizardtest.FakeZK

type env struct {
	m     *Model
	model *cluster.Model
	z     *fakeZK
	now   time.Time
}

// newEnv is the drain of broker.
func newEnv(tb testing.TB, sp fixture.Spec, broker, w, h int) *env {
	return newAnyEnv(tb, sp, nav.Operation{Kind: nav.OpDrain, Broker: broker}, w, h)
}

// newOpEnv is the move of topic's partitions (the drain of broker
// without a topic).
func newOpEnv(tb testing.TB, sp fixture.Spec, broker int, topic string, w, h int) *env {
	if topic == "" {
		return newEnv(tb, sp, broker, w, h)
	}
	return newAnyEnv(tb, sp, nav.Operation{Kind: nav.OpReassign, Topic: topic}, w, h)
}

func newAnyEnv(tb testing.TB, sp fixture.Spec, op nav.Operation, w, h int) *env {
	return newAnyEnvModel(tb, sp.Model(), op, w, h)
}

// newAnyEnvModel is the wizard of op on the cluster model holds.
func newAnyEnvModel(_ testing.TB, model *cluster.Model, op nav.Operation, w, h int) *env {
	e := &env{model: model, z: &fakeZK{Overwrite: true}, now: t0}
	e.m = New(Options{Styles: theme.Mono(), Keys: keys.Default(), Writer: zkops.NewWriter(e.z), Op: op,
		Now: func() time.Time { return e.now }, Tick: wizardtest.NoTicks, Rand: rand.New(rand.NewPCG(1, 2)), Task: testTask})
	e.m.SetSize(w, h)
	e.m.SetSnapshot(e.model.Snapshot())
	return e
}

// r, add, elect and cfg are the operation the wizard runs.
func (e *env) r() *reassign        { return e.m.op.(*reassign) }
func (e *env) add() *addPartitions { return e.m.op.(*addPartitions) }
func (e *env) elect() *election    { return e.m.op.(*election) }
func (e *env) cfg() *configs       { return e.m.op.(*configs) }

// press sends keys, running their commands and delivering the results.
func (e *env) press(ks ...string) []nav.Request {
	var reqs []nav.Request
	for _, k := range ks {
		cmd, req := e.m.Update(fixture.Key(k))
		if req != nil {
			reqs = append(reqs, req)
		}
		e.deliver(cmd)
	}
	return reqs
}

// deliver runs cmd and hands the wizard its results, as the shell does.
func (e *env) deliver(cmd tea.Cmd) { wizardtest.Deliver(e.m.Update, cmd) }

var zxid int64 = 50_000

func (e *env) apply(evs ...zkwatch.Event) {
	e.model.Apply(zksource.NodeEvents(zkwatch.Batch{Events: evs}), false)
	e.m.SetSnapshot(e.model.Snapshot())
}

func ev(typ zkwatch.EventType, path string, data []byte, version int32) zkwatch.Event {
	zxid++
	return zkwatch.Event{Type: typ, Path: path, Data: data,
		Stat: &zk.Stat{Czxid: 100, Mzxid: zxid, Ctime: 1, Mtime: 2, Version: version, DataLength: int32(len(data))}}
}

// controller moves the reassignment on as Kafka's controller would: the
// moves in done are finished, those in adding have their new replicas
// copying; the request lists what is not done.
func (e *env) controller(done, adding []clusterops.PartitionMove) {
	s := e.model.Snapshot()
	byTopic := map[string][]clusterops.PartitionMove{}
	for _, m := range done {
		byTopic[m.Topic] = append(byTopic[m.Topic], m)
	}
	addingSet := map[cluster.TopicPartition]clusterops.PartitionMove{}
	for _, m := range adding {
		byTopic[m.Topic] = append(byTopic[m.Topic], m)
		addingSet[m.TopicPartition] = m
	}
	var evs []zkwatch.Event
	for _, name := range slices.Sorted(maps.Keys(byTopic)) {
		t := s.Topic(name)
		a := cluster.TopicAssignment{Version: 3, Partitions: map[int][]int{}, AddingReplicas: map[int][]int{}, RemovingReplicas: map[int][]int{}, TopicID: t.ID}
		for _, p := range t.Partitions {
			a.Partitions[p.ID] = p.Replicas
		}
		for _, m := range byTopic[name] {
			if _, ok := addingSet[m.TopicPartition]; ok {
				a.Partitions[m.Partition] = append(slices.Clone(m.Target), m.Removing()...)
				a.AddingReplicas[m.Partition] = m.Adding()
				a.RemovingReplicas[m.Partition] = m.Removing()
				continue
			}
			a.Partitions[m.Partition] = m.Target
			st := cluster.EncodePartitionState(cluster.PartitionState{ControllerEpoch: 7, Leader: m.Target[0], LeaderEpoch: 1, Version: 1, ISR: m.Target})
			evs = append(evs, ev(zkwatch.Changed, cluster.PartitionStatePath(m.Topic, m.Partition), st, 2))
		}
		evs = append(evs, ev(zkwatch.Changed, cluster.TopicPath(name), cluster.EncodeTopicAssignment(a), t.ZkVersion+1))
	}
	var left []cluster.PartitionReassignment
	for _, m := range e.r().plan.Moves {
		if !slices.ContainsFunc(done, func(d clusterops.PartitionMove) bool { return d.TopicPartition == m.TopicPartition }) {
			left = append(left, cluster.PartitionReassignment{Topic: m.Topic, Partition: m.Partition, Replicas: m.Target})
		}
	}
	if len(left) > 0 {
		evs = append(evs, ev(zkwatch.Changed, cluster.ReassignPartitionsPath, cluster.EncodeReassignPartitions(left), 1))
	} else {
		evs = append(evs, zkwatch.Event{Type: zkwatch.Deleted, Path: cluster.ReassignPartitionsPath})
	}
	e.apply(evs...)
}

func view(m *Model) string {
	out := ansi.Strip(m.View())
	if p := m.Modal(); p != "" {
		out += "\n--- popup ---\n" + ansi.Strip(p)
	}
	return out
}

// TestDrain: the preview is the minimal drain of broker 3, `w` shows the
// exact multi, y writes that multi, and the progress follows the
// controller until every partition is done.
func TestDrain(t *testing.T) {
	e := newEnv(t, spec(), 3, 120, 40)
	s := e.model.Snapshot()
	want, err := clusterops.PlanDrain(s, clusterops.DrainRequest{Broker: 3, Strategy: clusterops.StrategyMinimal})
	if err != nil {
		t.Fatal(err)
	}
	moves := want.Moves(clusterops.StrategyMinimal)
	if !clusterops.SameMoves(e.r().moves, moves) || len(moves) == 0 {
		t.Fatalf("preview moves %v, want %v", e.r().moves, moves)
	}
	for _, m := range moves {
		if slices.Contains(m.Target, 3) {
			t.Fatalf("%s keeps broker 3", m.TopicPartition)
		}
	}
	if on, lead := e.r().lead.on, e.r().lead.plan; !on || lead.Empty() {
		t.Fatalf("leaders first %v: %+v", on, lead)
	}
	e.press("L") // the leaders move with the copy (TestDrainLeadersFirst: first)
	if e.r().lead.on {
		t.Fatal("L did not turn the leadership step off")
	}
	e.press("t") // 10 MiB/s
	e.press("w")
	_, ws, err := zkops.NewWriter(e.z).StartReassignment(context.Background(), s, clusterops.MovesAsReassignments(moves), 10<<20, clusterops.Describe)
	if err != nil {
		t.Fatal(err)
	}
	wantOps := ws.Lines()
	if !slices.Equal(e.m.fr.Ops.Lines(), wantOps) {
		t.Fatalf("w shows\n%s\nwant\n%s", strings.Join(e.m.fr.Ops.Lines(), "\n"), strings.Join(wantOps, "\n"))
	}
	e.press("w", "enter")
	if e.m.Stage() != "confirm" {
		t.Fatalf("stage %s", e.m.Stage())
	}
	e.press("y")
	if e.m.Stage() != "progress" {
		t.Fatalf("stage %s: %v", e.m.Stage(), e.m.err)
	}
	if len(e.z.Sent) != 1 || zkops.DescribeOps(e.z.Sent[0])[len(wantOps)-1] != wantOps[len(wantOps)-1] || !slices.Equal(zkops.DescribeOps(e.z.Sent[0]), wantOps) {
		t.Fatalf("wrote %v", e.z.Sent)
	}
	if line, st := e.m.TaskStatus(); st != nav.TaskRunning || !strings.Contains(line, "0/"+fmt.Sprint(len(moves))+" partitions moved") {
		t.Fatalf("status %q %v", line, st)
	}
	e.controller(moves[:2], moves[2:3])
	pr := e.m.pr
	if pr.Count[cluster.ReassignDone] != 2 || pr.Count[cluster.ReassignAdding] != 1 {
		t.Fatalf("progress %v", pr.Count)
	}
	e.controller(moves, nil)
	if e.m.Stage() != "done" {
		t.Fatalf("stage %s, progress %v", e.m.Stage(), e.m.pr.Count)
	}
	// The throttles go at the next tick, in one multi: no throttle config
	// is left on any broker or topic.
	if line, st := e.m.TaskStatus(); st != nav.TaskRunning || !strings.HasSuffix(line, "every partition moved; removing the throttles…") || !e.m.Detach() {
		t.Fatalf("status %q %v", line, st)
	}
	c, _ := e.m.Update(wizard.TickMsg{})
	e.deliver(c)
	if len(e.z.Sent) != 2 {
		t.Fatalf("%d multis: the throttles were not removed", len(e.z.Sent))
	}
	for p, d := range e.z.Nodes {
		if strings.HasPrefix(p, "/config/") && strings.Contains(string(d), "throttled") {
			t.Fatalf("%s still has a throttle: %s", p, d)
		}
	}
	if line, st := e.m.TaskStatus(); st != nav.TaskDone || !strings.Contains(line, "it holds no replica; throttles removed from brokers 1,2,3,4,5,6 and topics ") {
		t.Fatalf("status %q %v", line, st)
	}
}

// TestThrottlesKept: when another reassignment runs as this one ends,
// its throttles stay (removing the brokers' rates would lift the other's)
// and the summary names them; nothing is written.
func TestThrottlesKept(t *testing.T) {
	sp := spec()
	sp.Topics[1] = fixture.Topic{Name: "metrics_raw", Partitions: 6, RF: 2}
	e := newOpEnv(t, sp, 0, "metrics_raw", 120, 40)
	e.press("+", "t", "enter", "y")
	if !e.r().throttled() || len(e.z.Sent) != 1 {
		t.Fatalf("throttle %d, %d multis", e.r().throttle, len(e.z.Sent))
	}
	// Another topic's partition is being reassigned (started elsewhere).
	o := e.model.Snapshot().Topic("orders")
	a := cluster.TopicAssignment{Version: 3, Partitions: map[int][]int{}, AddingReplicas: map[int][]int{0: {6}}, RemovingReplicas: map[int][]int{0: {o.Partitions[0].Replicas[0]}}, TopicID: o.ID}
	for _, p := range o.Partitions {
		a.Partitions[p.ID] = p.Replicas
	}
	a.Partitions[0] = append(slices.Clone(o.Partitions[0].Replicas), 6)
	e.apply(ev(zkwatch.Changed, cluster.TopicPath("orders"), cluster.EncodeTopicAssignment(a), o.ZkVersion+1))
	e.controller(e.r().plan.Moves, nil)
	if !e.r().removingThrottles() {
		t.Fatalf("stage %s, unthrottle %v", e.m.Stage(), e.r().unthrottle.phase)
	}
	c, _ := e.m.Update(wizard.TickMsg{})
	e.deliver(c)
	line, st := e.m.TaskStatus()
	if len(e.z.Sent) != 1 || st != nav.TaskDone || !strings.Contains(line, "; the throttles stay on broker 1, ") || !strings.Contains(line, "topic metrics_raw: another reassignment is running") {
		t.Fatalf("%d multis, status %q %v", len(e.z.Sent), line, st)
	}
}

// TestDrainLeadersFirst: by default a drain writes the leadership step
// first: the reorder of the partitions broker 3 leads as their preferred
// replica, once the controller completed it the preferred election, once
// the leaders left broker 3 the drain's reassignment, re-planned on that
// snapshot with the targets previewed; `w` shows the three writes in
// that order.
func TestDrainLeadersFirst(t *testing.T) {
	for _, stale := range []bool{false, true} {
		t.Run(fmt.Sprintf("stale=%v", stale), func(t *testing.T) { testDrainLeadersFirst(t, stale) })
	}
}

// testDrainLeadersFirst: stale, a partition the step did not reorder
// changes meanwhile: the drain is not written, the new plan shown.
func testDrainLeadersFirst(t *testing.T, stale bool) {
	sp := spec()
	sp.Topics[0].Drift = []int{1}               // orders-1 led by 3, its second replica
	sp.Topics[1].Shrunk = map[int][]int{2: {4}} // metrics_raw-2: 3 alone in the ISR
	e := newEnv(t, sp, 3, 120, 40)
	s := e.model.Snapshot()
	moves := e.r().moves
	lead := clusterops.PlanLeadershipFirst(s, 3, moves)
	if on, l := e.r().lead.on, e.r().lead.plan; !on || !l.Same(lead) || len(lead.Reorder) == 0 || len(lead.Elect) <= len(lead.Reorder) || len(lead.Cannot) != 1 {
		t.Fatalf("leaders first %v %+v, want %+v", on, l, lead)
	}
	e.press("w")
	steps := e.m.Written()
	if len(steps) != 3 || !strings.HasPrefix(e.m.fr.Ops.Lines()[0], "first: reorder ") {
		t.Fatalf("w shows %d steps:\n%s", len(steps), strings.Join(e.m.fr.Ops.Lines(), "\n"))
	}
	e.press("w", "enter", "y")
	if !e.r().leading() || len(e.z.Sent) != 1 || !slices.Equal(zkops.DescribeOps(e.z.Sent[0]), steps[0]) {
		t.Fatalf("stage %s, %d multis", e.m.Stage(), len(e.z.Sent))
	}
	if line, _ := e.m.TaskStatus(); !strings.Contains(line, "leaders first, 0/"+fmt.Sprint(len(lead.Elect))+" moved off") {
		t.Fatalf("status %q", line)
	}
	tick := func() {
		cmd, _ := e.m.Update(wizard.TickMsg{})
		e.deliver(cmd)
	}
	tick() // the controller has not completed the reorder: nothing more
	if len(e.z.Sent) != 1 {
		t.Fatalf("%d multis before the reorder completed", len(e.z.Sent))
	}
	// The controller completes the reorder at once: the topic znodes
	// rewritten, the request deleted.
	e.reorderDone(lead)
	reorder := map[cluster.TopicPartition][]int{}
	for _, r := range lead.Reorder {
		reorder[r.TopicPartition] = r.Replicas
	}
	tick()
	if len(e.z.Sent) != 2 || !slices.Equal(zkops.DescribeOps(e.z.Sent[1]), steps[1]) {
		t.Fatalf("%d multis; the election %v, w showed %v", len(e.z.Sent), e.z.Sent[len(e.z.Sent)-1], steps[1])
	}
	// The controller elects: every partition of the step led by its new
	// preferred replica, the znode deleted.
	var evs []zkwatch.Event
	for _, lm := range lead.Moves {
		p := s.Topic(lm.Topic).Partition(lm.Partition)
		st := cluster.EncodePartitionState(cluster.PartitionState{ControllerEpoch: 7, Leader: lm.To, LeaderEpoch: 1, Version: 1, ISR: p.ISR})
		evs = append(evs, ev(zkwatch.Changed, cluster.PartitionStatePath(lm.Topic, lm.Partition), st, 1))
	}
	if stale {
		i := slices.IndexFunc(moves, func(m clusterops.PartitionMove) bool { _, ok := reorder[m.TopicPartition]; return !ok })
		mv := moves[i]
		tp := e.model.Snapshot().Topic(mv.Topic)
		a := cluster.TopicAssignment{Version: 3, Partitions: map[int][]int{}, TopicID: tp.ID}
		for _, p := range tp.Partitions {
			a.Partitions[p.ID] = p.Replicas
		}
		a.Partitions[mv.Partition] = slices.Concat(mv.Current[1:], mv.Current[:1])
		evs = append(evs, ev(zkwatch.Changed, cluster.TopicPath(mv.Topic), cluster.EncodeTopicAssignment(a), tp.ZkVersion+1))
	}
	e.apply(evs...)
	tick()
	if stale {
		if e.m.Stage() != "preview" || len(e.z.Sent) != 2 || !strings.Contains(e.m.fr.Note.Text, "Leaders first done, the drain not written") {
			t.Fatalf("stage %s, %d multis, note %q", e.m.Stage(), len(e.z.Sent), e.m.fr.Note.Text)
		}
		if l := e.r().lead.plan; !l.Empty() {
			t.Fatalf("the new plan moves leaders first again: %+v", l)
		}
		return
	}
	if len(e.z.Sent) != 3 || e.m.Stage() != "progress" {
		t.Fatalf("%d multis, stage %s: %v", len(e.z.Sent), e.m.Stage(), e.m.err)
	}
	data := zkops.DescribeOps(e.z.Sent[2])
	if data[len(data)-1] != steps[2][len(steps[2])-1] {
		t.Fatalf("the drain wrote %s, w showed %s", data[len(data)-1], steps[2][len(steps[2])-1])
	}
	for i, m := range e.r().plan.Moves {
		if !slices.Equal(m.Target, moves[i].Target) {
			t.Fatalf("%s target %v, previewed %v", m.TopicPartition, m.Target, moves[i].Target)
		}
		if rs, ok := reorder[m.TopicPartition]; ok && !slices.Equal(m.Current, rs) {
			t.Fatalf("%s current %v, the reorder %v", m.TopicPartition, m.Current, rs)
		}
	}
	if b, _ := e.model.Snapshot().Broker(3); b.Leaders != 1 || cluster.JoinPartitions(lead.Cannot, ",") != "metrics_raw-2" {
		t.Fatalf("broker 3 leads %d when the drain is written (only %v cannot move first)", b.Leaders, lead.Cannot)
	}
	e.controller(e.r().plan.Moves, nil)
	if line, st := e.m.TaskStatus(); e.m.Stage() != "done" || st != nav.TaskDone || !strings.Contains(line, fmt.Sprintf("leaders first: %d/%d moved off before the copy", len(lead.Elect), len(lead.Elect))) {
		t.Fatalf("stage %s: %q", e.m.Stage(), line)
	}
}

// TestDrainStale: a partition reassigned between the preview and the
// confirmation: nothing written, the new plan shown.
func TestDrainStale(t *testing.T) {
	e := newEnv(t, spec(), 3, 120, 40)
	mv := e.r().moves[0]
	tp := e.model.Snapshot().Topic(mv.Topic)
	a := cluster.TopicAssignment{Version: 3, Partitions: map[int][]int{}, TopicID: tp.ID}
	for _, p := range tp.Partitions {
		a.Partitions[p.ID] = p.Replicas
	}
	a.Partitions[mv.Partition] = []int{6, 5, 3}
	e.model.Apply(zksource.NodeEvents(zkwatch.Batch{Events: []zkwatch.Event{ev(zkwatch.Changed, cluster.TopicPath(mv.Topic), cluster.EncodeTopicAssignment(a), tp.ZkVersion+1)}}), false)
	e.m.SetSnapshot(e.model.Snapshot())
	e.press("enter", "y")
	if e.m.Stage() != "preview" || len(e.z.Sent) != 0 || !strings.Contains(e.m.fr.Note.Text, "changed since the preview") {
		t.Fatalf("stage %s, %d multis, note %q", e.m.Stage(), len(e.z.Sent), e.m.fr.Note.Text)
	}
}

// TestStrategySwitch: s cycles minimal → balanced (copies at least as
// much, evening out) → kafka (copies more) → minimal.
func TestStrategySwitch(t *testing.T) {
	e := newEnv(t, spec(), 3, 120, 40)
	minimal := e.r().gen.Count(clusterops.StrategyMinimal).Replicas
	e.press("s")
	if e.r().strategy != clusterops.StrategyBalanced || e.r().gen.Count(clusterops.StrategyBalanced).Replicas < minimal {
		t.Fatalf("strategy %v copies %d (minimal %d)", e.r().strategy, e.r().gen.Count(e.r().strategy).Replicas, minimal)
	}
	e.press("s")
	if e.r().strategy != clusterops.StrategyKafka || len(e.r().moves) <= minimal {
		t.Fatalf("strategy %v moves %d (minimal %d)", e.r().strategy, len(e.r().moves), minimal)
	}
	e.press("s")
	if e.r().strategy != clusterops.StrategyMinimal {
		t.Fatalf("strategy %v", e.r().strategy)
	}
}

// TestReassignTopic: R's wizard on a topic: + raises the replication
// factor, the minimal strategy keeping every replica and adding one in
// the rack each partition lacks; written and followed like a drain.
func TestReassignTopic(t *testing.T) {
	sp := spec()
	sp.Topics[1] = fixture.Topic{Name: "metrics_raw", Partitions: 6, RF: 2}
	e := newOpEnv(t, sp, 0, "metrics_raw", 120, 40)
	if e.r().rf != 0 || e.r().lo != 2 || e.r().hi != 2 || len(e.r().moves) != 0 {
		t.Fatalf("rf %d (%d–%d), moves %v", e.r().rf, e.r().lo, e.r().hi, e.r().moves)
	}
	e.press("+")
	moves := e.r().moves
	if e.r().rf != 3 || len(moves) != 6 {
		t.Fatalf("rf %d, moves %v", e.r().rf, moves)
	}
	for _, m := range moves {
		racks := map[string]bool{}
		for _, r := range m.Target {
			racks[sp.Rack(r)] = true
		}
		if len(m.Target) != 3 || len(racks) != 3 || len(m.Removing()) != 0 || m.Target[0] != m.Current[0] {
			t.Fatalf("%s: %v → %v", m.TopicPartition, m.Current, m.Target)
		}
	}
	e.press("enter", "y")
	e.controller(e.r().plan.Moves, nil)
	if e.m.Stage() != "done" || !strings.Contains(e.m.op.(interface{ summaryLine() string }).summaryLine(), "Reassigned topic metrics_raw: 6 partitions moved") {
		t.Fatalf("stage %s: %s", e.m.Stage(), e.m.op.(interface{ summaryLine() string }).summaryLine())
	}
	e.press("-") // not in the preview any more: nothing
	if e.r().rf != 3 {
		t.Fatal("- acted after the write")
	}
}

// TestAddPartitions: a's wizard: the plan is kafka-topics --alter's
// (cluster.PlanAddPartitions), − and + change the count, y writes the
// topic znode at the version read, and the new partitions come online.
func TestAddPartitions(t *testing.T) {
	e := newAnyEnv(t, spec(), nav.Operation{Kind: nav.OpAddPartitions, Topic: "orders"}, 120, 40)
	if e.add().count != 12 || len(e.add().news) != 6 {
		t.Fatalf("count %d, %d new", e.add().count, len(e.add().news))
	}
	e.press("-", "-", "+")
	want, err := clusterops.PlanAddPartitions(e.model.Snapshot(), clusterops.AddPartitionsRequest{Topic: "orders", Partitions: 11})
	if err != nil {
		t.Fatal(err)
	}
	if e.add().count != 11 || string(e.add().plan.TopicJSON) != string(want.TopicJSON) {
		t.Fatalf("count %d: %s, want %s", e.add().count, e.add().plan.TopicJSON, want.TopicJSON)
	}
	e.press("w")
	if got := e.m.fr.Ops.Lines(); !slices.Equal(got, zkops.DescribeOps(zkops.AddPartitionsOps(want))) {
		t.Fatalf("w shows %v", got)
	}
	e.press("w", "enter", "y")
	if e.m.Stage() != "progress" || len(e.z.Sent) != 1 || !slices.Equal(zkops.DescribeOps(e.z.Sent[0]), zkops.DescribeOps(zkops.AddPartitionsOps(want))) {
		t.Fatalf("stage %s, wrote %v", e.m.Stage(), e.z.Sent)
	}
	e.addOnline(want)
	if e.m.Stage() != "done" || !strings.Contains(e.m.op.(interface{ summaryLine() string }).summaryLine(), "5 new partitions online") {
		t.Fatalf("stage %s: %s", e.m.Stage(), e.m.op.(interface{ summaryLine() string }).summaryLine())
	}
}

// addOnline is the controller writing the new topic znode and bringing
// the new partitions online.
func (e *env) addOnline(p *clusterops.AddPartitionsPlan) {
	tp := e.model.Snapshot().Topic(p.Topic)
	evs := []zkwatch.Event{ev(zkwatch.Changed, p.TopicPath, p.TopicJSON, tp.ZkVersion+1)}
	for id, rs := range p.Assignment() {
		st := cluster.EncodePartitionState(cluster.PartitionState{ControllerEpoch: 7, Leader: rs[0], Version: 1, ISR: rs})
		evs = append(evs, ev(zkwatch.Created, cluster.PartitionStatePath(p.Topic, id), st, 0))
	}
	e.apply(evs...)
}

// TestGoldens: every stage at 80×24 and 200×60.
func TestGoldens(t *testing.T) {
	for _, sz := range [][2]int{{80, 24}, {200, 60}} {
		for _, stage := range []string{"preview", "written", "confirm", "leading", "progress", "done", "failed", "topic-preview", "topic-confirm", "add-preview", "add-confirm", "add-done", "elect-preview", "elect-confirm"} {
			t.Run(fmt.Sprintf("%dx%d/%s", sz[0], sz[1], stage), func(t *testing.T) {
				e := newEnv(t, spec(), 3, sz[0], sz[1])
				if strings.HasPrefix(stage, "topic-") {
					e = newOpEnv(t, spec(), 0, "orders", sz[0], sz[1])
					e.press("+")
				}
				if strings.HasPrefix(stage, "elect-") {
					sp := spec()
					sp.Topics[0].Drift = []int{1, 2, 4}
					sp.Topics[0].Shrunk = map[int][]int{2: {3}}
					e = newAnyEnv(t, sp, nav.Operation{Kind: nav.OpElect}, sz[0], sz[1])
				}
				if stage == "elect-confirm" {
					e.press("enter")
				}
				if strings.HasPrefix(stage, "add-") {
					e = newAnyEnv(t, spec(), nav.Operation{Kind: nav.OpAddPartitions, Topic: "orders"}, sz[0], sz[1])
				}
				switch stage {
				case "add-confirm":
					e.press("enter")
				case "add-done":
					plan := e.add().plan
					e.press("enter", "y")
					e.now = t0.Add(800 * time.Millisecond)
					e.addOnline(plan)
				case "topic-confirm":
					e.press("enter")
				case "written":
					e.press("t", "w")
				case "confirm":
					e.press("enter")
				case "leading":
					e.press("enter", "y")
					e.now = t0.Add(700 * time.Millisecond)
					e.m.SetSize(sz[0], sz[1])
				case "progress", "done":
					e.press("L", "enter", "y")
					moves := e.r().plan.Moves
					e.now = t0.Add(1500 * time.Millisecond)
					if stage == "progress" {
						e.controller(moves[:2], moves[2:4])
					} else {
						e.controller(moves, nil)
					}
				case "failed":
					e.z.Fail = zk.ErrNoAuth
					e.press("enter", "y")
				}
				golden.RequireEqual(t, view(e.m))
			})
		}
	}
}

// TestRenderCalls: the preview renders only the rows on screen.
func TestRenderCalls(t *testing.T) {
	e := newEnv(t, fixture.Sized(20_000), 3, 80, 24)
	calls := 0
	real := e.m.pv.renderRow
	e.m.pv.renderRow = func(st *theme.Styles, i int) string { calls++; return real(st, i) }
	e.press("pgdown", "down")
	e.m.View()
	if calls == 0 || calls > 24 {
		t.Fatalf("%d row renders", calls)
	}
}

// BenchmarkView: BenchmarkView/operate/<W>x<H>/partitions=<N>/<stage>.
func BenchmarkView(b *testing.B) {
	for _, n := range []int{1_000, 100_000} {
		for _, sz := range [][2]int{{200, 60}, {80, 24}} {
			for _, stage := range []string{"preview", "progress", "move-preview", "add-preview", "add-progress", "elect-preview", "configs"} {
				b.Run(fmt.Sprintf("operate/%dx%d/partitions=%d/%s", sz[0], sz[1], n, stage), func(b *testing.B) {
					if testing.Short() && n > 1_000 {
						b.Skip("large cluster skipped under -short")
					}
					var e *env
					switch stage {
					case "elect-preview":
						sp := fixture.Sized(n)
						sp.Topics[0].Drift = []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
						e = newAnyEnv(b, sp, nav.Operation{Kind: nav.OpElect}, sz[0], sz[1])
					case "configs":
						e = newAnyEnv(b, fixture.Sized(n), nav.Operation{Kind: nav.OpConfigs, Topic: "big"}, sz[0], sz[1])
					case "move-preview":
						e = newOpEnv(b, fixture.Sized(n), 0, "big", sz[0], sz[1])
						e.press("-")
					case "add-preview", "add-progress":
						e = newAnyEnv(b, fixture.Sized(n), nav.Operation{Kind: nav.OpAddPartitions, Topic: "big"}, sz[0], sz[1])
						if e.add().plan == nil { // twice 50,000 partitions exceed the znode's size limit
							e.add().count = n/2 + 1000
							e.m.op.replan()
							e.m.settle()
						}
						if stage == "add-progress" {
							plan := e.add().plan
							e.press("enter", "y")
							e.addOnline(plan)
							e.m.fr.Stage = wizard.StageProgress
						}
					default:
						e = newEnv(b, fixture.Sized(n), 3, sz[0], sz[1])
					}
					e.press("pgdown")
					if stage == "progress" {
						e.press("L", "enter", "y") // the leaders with the copy: straight to the progress
						moves := e.r().plan.Moves
						e.controller(moves[:len(moves)/2], moves[len(moves)/2:len(moves)/2+10])
					}
					b.ReportAllocs()
					for b.Loop() {
						_ = e.m.View()
					}
				})
			}
		}
	}
}

// TestElection: p's wizard: the leaders that will move and those that
// cannot, the znode, the elections as the controller makes them.
func TestElection(t *testing.T) {
	sp := spec()
	sp.Topics[0].Drift = []int{1, 4}            // led by their second replica
	sp.Topics[0].Shrunk = map[int][]int{2: {3}} // preferred 3 out of the ISR
	sp.Topics[0].Drift = append(sp.Topics[0].Drift, 2)
	e := newAnyEnv(t, sp, nav.Operation{Kind: nav.OpElect, Topic: "orders"}, 120, 40)
	if len(e.elect().rowsOf) == 0 {
		t.Fatalf("no rows: %v", e.elect().planErr)
	}
	e.press("w")
	if got := e.m.fr.Ops.Lines(); len(got) == 0 || !strings.Contains(strings.Join(got, "\n"), cluster.PreferredReplicaElectionPath) {
		t.Fatalf("w shows %v", got)
	}
	e.press("w", "enter", "y")
	if e.m.Stage() != "progress" || len(e.z.Sent) != 1 {
		t.Fatalf("stage %s: %v", e.m.Stage(), e.m.err)
	}
	// The controller: the znode seen, the leaders moved, the znode deleted.
	e.apply(ev(zkwatch.Created, cluster.PreferredReplicaElectionPath, e.z.Nodes[cluster.PreferredReplicaElectionPath], 0))
	var evs []zkwatch.Event
	for _, ep := range e.elect().rowsOf {
		if ep.Verdict == clusterops.ElectionWillMove {
			st := cluster.EncodePartitionState(cluster.PartitionState{ControllerEpoch: 7, Leader: ep.Preferred, LeaderEpoch: 2, Version: 1, ISR: ep.ISR})
			evs = append(evs, ev(zkwatch.Changed, cluster.PartitionStatePath(ep.Topic, ep.Partition), st, 3))
		}
	}
	evs = append(evs, zkwatch.Event{Type: zkwatch.Deleted, Path: cluster.PreferredReplicaElectionPath})
	e.apply(evs...)
	if e.m.Stage() != "done" {
		t.Fatalf("stage %s, %v", e.m.Stage(), e.m.pr.Count)
	}
	golden.RequireEqual(t, view(e.m))
}

// TestConfigs: e's editor: the overrides in the field, one edited and one
// removed, enter plans (the config znode read), the change shown before →
// after, y writes the multi kafka-configs --alter would.
func TestConfigs(t *testing.T) {
	sp := spec()
	sp.Topics[0].Config = map[string]string{"retention.ms": "604800000", "min.insync.replicas": "2"}
	e := newAnyEnv(t, sp, nav.Operation{Kind: nav.OpConfigs, Topic: "orders"}, 120, 40)
	cfg := cluster.EncodeEntityConfig(sp.Topics[0].Config)
	e.z.Init()
	e.z.Nodes["/config/topics/orders"] = cfg
	if !e.m.Capturing() || !strings.Contains(e.cfg().in.Value(), "retention.ms=604800000") {
		t.Fatalf("field %q", e.cfg().in.Value())
	}
	e.cfg().in.SetValue("retention.ms=3600000 cleanup.poli")
	e.cfg().check() // as typing would
	e.press("tab")  // completes cleanup.policy=
	if e.cfg().in.Value() != "retention.ms=3600000 cleanup.policy=" {
		t.Fatalf("completed %q", e.cfg().in.Value())
	}
	e.press("c", "o", "m", "p", "a", "c", "t", "enter")
	if e.cfg().alt == nil {
		t.Fatalf("no plan: %s", e.cfg().cfgErr)
	}
	if !slices.Equal(e.cfg().alt.Set, []string{"cleanup.policy", "retention.ms"}) || !slices.Equal(e.cfg().alt.Deleted, []string{"min.insync.replicas"}) {
		t.Fatalf("set %v deleted %v", e.cfg().alt.Set, e.cfg().alt.Deleted)
	}
	golden.RequireEqual(t, view(e.m))
	e.press("enter", "y")
	if len(e.z.Sent) != 1 || e.m.Stage() != "progress" {
		t.Fatalf("stage %s, %d multis (%v)", e.m.Stage(), len(e.z.Sent), e.m.err)
	}
	if line, st := e.m.TaskStatus(); st != nav.TaskRunning || !strings.HasPrefix(line, "Changing the configs of topic orders") {
		t.Fatalf("status %q", line)
	}
	written := e.z.Nodes["/config/topics/orders"]
	e.apply(ev(zkwatch.Changed, "/config/topics/orders", written, 1))
	if e.m.Stage() != "done" || strings.Contains(e.cfg().summaryLine(), "since") {
		t.Fatalf("stage %s after the mirror showed %s: %s", e.m.Stage(), written, e.cfg().summaryLine())
	}
}

// TestConfigsChangedAgain: the wizard waits for the config znode at a
// version after the one its write checked, not for its own values: a
// mirror still behind (an older version) does not end it, and a second
// writer's change that the mirror shows instead of this one does, saying
// so.
func TestConfigsChangedAgain(t *testing.T) {
	e := configsEnv(t, map[string]string{"retention.ms": "604800000"}, "retention.ms=3600000", 120, 40)
	e.press("enter", "enter", "y")
	if e.m.Stage() != "progress" {
		t.Fatalf("stage %s (%v, %s)", e.m.Stage(), e.m.err, e.cfg().cfgErr)
	}
	e.apply(ev(zkwatch.Changed, "/config/topics/orders", cluster.EncodeEntityConfig(map[string]string{"retention.ms": "1000"}), 0))
	if e.m.Stage() != "progress" {
		t.Fatalf("stage %s: ended on the version its write replaced", e.m.Stage())
	}
	e.apply(ev(zkwatch.Changed, "/config/topics/orders", cluster.EncodeEntityConfig(map[string]string{"retention.ms": "7200000"}), 2))
	if line, st := e.m.TaskStatus(); e.m.Stage() != "done" || st != nav.TaskDone || !strings.HasSuffix(line, "; they have been changed again since (version 2)") {
		t.Fatalf("stage %s, status %q", e.m.Stage(), line)
	}
}

// TestThrottledTicksInBackground: closed while it runs, a throttled
// reassignment keeps ticking (its last tick removes the throttles); an
// unthrottled one stops.
func TestThrottledTicksInBackground(t *testing.T) {
	for _, throttle := range []bool{false, true} {
		sp := spec()
		sp.Topics[1] = fixture.Topic{Name: "metrics_raw", Partitions: 6, RF: 2}
		e := newOpEnv(t, sp, 0, "metrics_raw", 120, 40)
		e.press("+")
		if throttle {
			e.press("t")
		}
		e.press("enter", "y")
		if e.m.Stage() != "progress" || !e.m.Detach() {
			t.Fatalf("stage %s", e.m.Stage())
		}
		e.m.fr = wizard.NewFrame(wizard.FrameOptions{Tick: tea.Tick}, wizard.StageProgress)
		e.m.fr.Detach(false)
		if got := e.m.tick() != nil; got != throttle {
			t.Fatalf("throttle %v: ticking in the background %v", throttle, got)
		}
	}
}
