package operate

import (
	"context"
	"math/rand/v2"
	"slices"
	"strconv"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/clusterops"
	"github.com/ktopo/ktopo/internal/text"
	"github.com/ktopo/ktopo/ui/internal/cell"
	"github.com/ktopo/ktopo/ui/internal/wizard"
)

// reassign moves partitions, as kafka-reassign-partitions --generate then
// --execute: every replica off a broker (a drain: clusterops.PlanDrain,
// the leaders first by default, leaders.go) or a topic's partitions,
// maybe to another replication factor (clusterops.PlanTopicMove); both
// strategies planned, the chosen one's moves written with the throttle
// asked for (removed once done, throttles.go), the progress each
// partition's phase (clusterops.ReassignTracker).
type reassign struct {
	*base
	verbs
	// broker is the broker drained (-1: a topic's move); topic the
	// topic whose partitions move ("" for a drain).
	broker int
	topic  string
	// planSizes are the sizes the plans are made with: the first known
	// reading, kept, so that a newer reading (every partition a little
	// larger) does not re-place the preview's replicas under the
	// operator's eyes; the bytes shown follow every reading (costs).
	planSizes *cluster.Sizes
	// rf is the replication factor asked for (a topic; 0: each partition
	// keeps its own), lo and hi the topic's now (they differ when its
	// partitions do).
	rf, lo, hi int
	strategy   clusterops.Strategy
	throttle   int64
	// seed draws the kafka strategy's start indexes and shifts: the same
	// for every plan of the wizard, so its numbers stay put while the
	// preview is made again.
	seed [2]uint64

	// The plan of both strategies, the chosen one's moves, what they
	// warn of; planErr when there is none.
	gen     *clusterops.GeneratePlan
	moves   []clusterops.PartitionMove
	warn    clusterops.MoveWarnings
	planErr error
	// running are the partitions another reassignment moves: Kafka
	// refuses this one until they are done (refresh). refusal is the KRaft
	// controller's refusal of a target (kraftRefusal), nil for none.
	running []cluster.TopicPartition
	refusal error
	// heavy warn of brokers the plan leaves far above the mean (heavy.go).
	heavy []string
	// cost is the plan by bytes (bytes.go), moved the written plan's
	// progress by bytes.
	cost  moveCost
	moved moved

	lead leading

	// The write and the progress: the plan written, its tracker; the
	// removal of its throttles once done.
	plan       *clusterops.ReassignPlan
	tracker    *clusterops.ReassignTracker
	unthrottle unthrottle
	// stopped: the TUI has closed; the step in flight is finished, no
	// other started (leave.go).
	stopped bool
	// cordoned: the drain cordoned its broker (a KRaft cluster of Kafka
	// 4.3+, KIP-1066: cordon.go); it stays cordoned. written are the steps
	// the write started with, in their order.
	cordoned bool
	written  []drainStep
}

// cordonedMsg: the drained broker is cordoned.
type cordonedMsg struct{}

// throttles are the values `t` cycles through, in bytes per second (-1:
// none).
var throttles = []int64{-1, 10 << 20, 50 << 20, 100 << 20}

// reassignStartedMsg: the reassignment's multi succeeded.
type reassignStartedMsg struct{ plan *clusterops.ReassignPlan }

func newReassign(b *base, broker int, topic string) *reassign {
	r := &reassign{base: b, broker: broker, topic: topic, strategy: clusterops.StrategyMinimal, throttle: -1,
		verbs: verbs{"Reassign", "Reassigning", "Reassigned"}, seed: [2]uint64{b.rng.Uint64(), b.rng.Uint64()}}
	b.start = &b.km.Reassign
	if r.drain() {
		r.verbs = verbs{"Drain", "Draining", "Drained"}
		b.start = &b.km.Drain
	}
	r.lead.on = r.drain()
	return r
}

// drain reports a drain (else a topic's move).
func (r *reassign) drain() bool { return r.topic == "" }

func (r *reassign) subject() string {
	if r.drain() {
		return "broker " + strconv.Itoa(r.broker)
	}
	return "topic " + r.topic
}

func (r *reassign) ready() bool {
	return len(r.moves) > 0 && len(r.running) == 0 && r.refusal == nil && len(r.cost.short) == 0
}

// refresh follows another reassignment: while one runs this one cannot
// be written (the preview says Kafka's reason); once it is done, the
// plan is made again on the cluster it left.
func (r *reassign) refresh() {
	was := len(r.running) > 0
	r.running = r.runningNow()
	if r.fr.Stage == wizard.StagePreview {
		r.refusal = r.kraftRefusal()
	}
	if was && len(r.running) == 0 {
		r.replan()
		r.fr.Note.Set("The other reassignment is done: this is the plan as the cluster stands now.", false)
	}
}

// runningNow are the partitions reassigned in the newest snapshot.
func (r *reassign) runningNow() []cluster.TopicPartition {
	if !clusterops.ReassignmentRunning(r.snap) {
		return nil
	}
	var out []cluster.TopicPartition
	for _, p := range cluster.Reassignments(r.snap) {
		out = append(out, cluster.TopicPartition{Topic: p.Topic, Partition: p.Partition})
	}
	if len(out) == 0 { // requested, not yet started
		for _, e := range r.snap.PendingReassignment().Partitions {
			out = append(out, cluster.TopicPartition{Topic: e.Topic, Partition: e.Partition})
		}
	}
	return out
}

// runningLines say why the plan cannot be written while another
// reassignment runs, in Kafka's words, and when it can.
func (r *reassign) runningLines(w int) []string {
	if len(r.running) == 0 {
		return nil
	}
	st := &r.st
	var out []string
	for _, l := range wizard.Wrap("✗ "+clusterops.ReassignmentInProgress, w, 1) {
		out = append(out, st.Error.S(l))
	}
	what := "Another reassignment moves " + text.Count(len(r.running), "partition") + " (" + cell.Clip(cluster.JoinPartitions(r.running, ", "), 60) +
		"): this one can be written once it is done; the overview's REASSIGNMENTS follows it."
	for _, l := range wizard.Wrap(what, w, 1) {
		out = append(out, st.Muted.S(l))
	}
	return out
}

// replan makes the plan of both strategies from the newest snapshot,
// forgetting any write of an earlier one.
func (r *reassign) replan() {
	r.running = r.runningNow()
	r.plan, r.tracker, r.unthrottle = nil, nil, unthrottle{}
	r.moved, r.bytesNow = moved{}, ""
	r.lead.phase, r.lead.wrote = leadNone, false
	rng := rand.New(rand.NewPCG(r.seed[0], r.seed[1]))
	if !r.planSizes.Known() && r.sizes.Known() {
		r.planSizes = r.sizes
	}
	if r.drain() {
		r.gen, r.planErr = clusterops.PlanDrain(r.snap, clusterops.DrainRequest{Broker: r.broker, Strategy: r.strategy, Rand: rng, Sizes: r.planSizes})
		r.choose()
		return
	}
	if t := r.snap.Topic(r.topic); t != nil && r.hi == 0 {
		r.lo, r.hi = t.ReplicationFactors()
	}
	r.gen, r.planErr = clusterops.PlanTopicMove(r.snap, clusterops.TopicMoveRequest{Topic: r.topic, RF: r.rf, Strategy: r.strategy, Rand: rng, Sizes: r.planSizes})
	r.choose()
}

// choose takes the chosen strategy's moves from the plan.
func (r *reassign) choose() {
	r.moves, r.warn = nil, clusterops.MoveWarnings{}
	if r.gen != nil {
		r.moves = r.gen.Moves(r.strategy)
		r.warn = clusterops.WarnMoves(r.snap, r.moves)
	}
	r.lead.plan = nil
	if r.drain() && r.snap != nil {
		r.lead.plan = clusterops.PlanLeadershipFirst(r.snap, r.broker, r.moves)
	}
	r.refusal = r.kraftRefusal()
	r.heavy = r.heavyLines()
	r.costs()
	r.fr.Ops.Reset()
	r.pv.set(r.snap, r.moves)
}

func (r *reassign) syncKeys(preview bool) {
	km := &r.km
	km.Throttle.SetEnabled(preview && len(r.moves) > 0)
	km.Strategy.SetEnabled(preview && r.gen != nil)
	km.LeadersFirst.SetEnabled(preview && r.drain() && !r.lead.plan.Empty())
	km.MoreReplicas.SetEnabled(preview && !r.drain() && r.snap != nil && r.hi > 0 && r.nextRF(1) <= len(r.snap.LiveBrokerIDs()))
	km.FewerReplicas.SetEnabled(preview && !r.drain() && r.hi > 0 && r.nextRF(-1) >= 1)
}

func (r *reassign) key(msg tea.KeyPressMsg) tea.Cmd {
	km := &r.km
	switch {
	case key.Matches(msg, km.Strategy):
		all := clusterops.Strategies()
		r.strategy = all[(slices.Index(all, r.strategy)+1)%len(all)]
		r.choose()
	case key.Matches(msg, km.LeadersFirst):
		r.lead.on = !r.lead.on
		r.costs() // the leaders' new brokers send their copies
		r.fr.Ops.Reset()
	case key.Matches(msg, km.MoreReplicas):
		r.rf = r.nextRF(1)
		r.replan()
	case key.Matches(msg, km.FewerReplicas):
		r.rf = r.nextRF(-1)
		r.replan()
	case key.Matches(msg, km.Throttle):
		r.throttle = nextThrottle(r.throttle)
		shown := r.fr.Ops.Shown()
		r.fr.Ops.Reset()
		if shown {
			return r.describe()
		}
	}
	return nil
}

// nextRF is the replication factor + (d = 1) or − (d = -1) asks for:
// from a topic whose partitions differ, the highest or the lowest of
// theirs first.
func (r *reassign) nextRF(d int) int {
	switch {
	case r.rf > 0:
		return r.rf + d
	case r.lo != r.hi && d > 0:
		return r.hi
	case r.lo != r.hi:
		return r.lo
	}
	return r.lo + d
}

// rfAsked reports a replication factor asked for that changes one.
func (r *reassign) rfAsked() bool { return r.rf > 0 && (r.rf != r.lo || r.rf != r.hi) }

// rfText is the topic's replication factor, and the one asked for.
func (r *reassign) rfText() string {
	s := text.Range(r.lo, r.hi)
	if r.rfAsked() {
		s += " → " + strconv.Itoa(r.rf)
	}
	return s
}

func nextThrottle(cur int64) int64 {
	for i, t := range throttles {
		if t == cur {
			return throttles[(i+1)%len(throttles)]
		}
	}
	return -1
}

// opsHead is what the exact writes say above their lines.
func (r *reassign) opsHead() wizard.OpsHead {
	h := wizard.OpsHead{Title: wizard.StepsTitle(r.target(), 1), Detail: r.words().ReassignThen, Reading: r.words().ReassignReading}
	steps := r.steps()
	h.Title = wizard.StepsTitle(r.target(), len(steps))
	switch {
	case slices.Contains(steps, stepReorder) && slices.Contains(steps, stepCordon):
		h.Detail = " — the reorder first (Kafka refuses one naming a cordoned broker), then the cordon, the election, the replicas (w or esc closes)"
	case slices.Contains(steps, stepCordon):
		h.Detail = " — the broker cordoned first, so no new partition lands there (w or esc closes)"
	case r.leadingFirst():
		h.Detail = " — the leaders first, then the replicas (w or esc closes)"
	}
	if r.throttle >= 0 {
		h.Notes = []string{r.words().ThrottlesRemoved}
	}
	return h
}

// describe reads the configs the throttles change and shows the exact
// writes the writer's StartReassignment makes (a drain's leadership
// step's writes first).
func (r *reassign) describe() tea.Cmd {
	if r.wr != nil && r.leadingFirst() {
		return r.describeLeading()
	}
	snap, rs, throttle, cordon, broker := r.snap, clusterops.MovesAsReassignments(r.moves), r.throttle, r.cordonFirst(), r.broker
	return r.fr.DescribeWrites(r.opsHead(), r.wr, func(w clusterops.Writer) (clusterops.Writes, error) {
		ctx := context.Background()
		var ws clusterops.Writes
		if cordon {
			c, err := cordonWrites(w, broker)
			if err != nil {
				return c, err
			}
			ws = c
		}
		_, moves, err := w.StartReassignment(ctx, snap, rs, throttle, clusterops.Describe)
		if err != nil {
			return ws, err
		}
		if cordon {
			return ws.Then(moves), nil
		}
		return moves, nil
	})
}

// write checks the previewed moves against the newest snapshot and, when
// every moved partition still has the replicas the plan was made from,
// writes them as the command line's --execute does.
func (r *reassign) write() tea.Cmd {
	if r.running = r.runningNow(); len(r.running) > 0 {
		// Not "changed since the preview": another reassignment runs.
		r.noteErr("Not written: " + clusterops.ReassignmentInProgress)
		return nil
	}
	stale := ""
	if tps := clusterops.StaleMoves(r.snap, r.moves); len(tps) > 0 {
		stale = text.Count(len(tps), "partition") + " changed since the preview (" + tps[0].String() +
			"…). This is the new plan: check it and press enter again."
	}
	if r.replanned(r, stale) {
		return nil
	}
	w := r.writer()
	if w == nil {
		return nil
	}
	r.written = r.steps()
	switch {
	case r.leadingFirst():
		return r.writeLeading(w)
	case r.cordonFirst():
		// The broker first: from then on no new partition is placed there.
		r.fr.Begin()
		return tea.Batch(r.cordon(w), r.fr.Tick(true))
	}
	return r.writeMoves(w)
}

// writeMoves writes the reassignment: the drain's (after its cordon, or
// its leadership step: leaders.go) or the move's.
func (r *reassign) writeMoves(w clusterops.Writer) tea.Cmd {
	r.fr.Begin()
	return tea.Batch(startReassignment(r.fr.Reply(), w, r.snap, r.moves, r.throttle), r.fr.Tick(r.background()))
}

// startReassignment is the command writing moves with throttle, as
// --execute does: its plan on snap, then its writes.
func startReassignment(reply func(tea.Msg) tea.Msg, w clusterops.Writer, snap *cluster.Snapshot, moves []clusterops.PartitionMove, throttle int64) tea.Cmd {
	rs := clusterops.MovesAsReassignments(moves)
	return func() tea.Msg {
		plan, _, err := w.StartReassignment(context.Background(), snap, rs, throttle, clusterops.Apply)
		if err != nil {
			return fail(reply, err)
		}
		return reply(reassignStartedMsg{plan})
	}
}

func (r *reassign) update(msg tea.Msg) tea.Cmd {
	var cmd tea.Cmd
	switch msg := msg.(type) {
	case reassignStartedMsg:
		if r.fr.Stage != wizard.StageWriting {
			return nil
		}
		if r.leading() {
			r.moves = msg.plan.Moves
			r.lead.phase = leadDone
		}
		r.plan = msg.plan
		r.fr.Stage = wizard.StageProgress
		r.tracker = clusterops.NewReassignTracker(msg.plan.Moves, msg.plan.TopicVersions)
		r.pg.set(msg.plan.Moves, msg.plan.Throttle, &reassignGlyphs)
		r.moved.start(r.snap, r.sizes, msg.plan.Moves, msg.plan.Throttle)
		r.observe()
	case leadWrittenMsg, leadElectionMsg:
		cmd = r.leadStep(msg)
	case cordonedMsg:
		if r.fr.Stage != wizard.StageWriting {
			return nil
		}
		if r.leading() {
			cmd = r.leadCordoned()
			break
		}
		r.cordoned = true
		if r.stopped {
			return nil // the TUI closed: the step in flight (the cordon) is done
		}
		if w := r.writer(); w != nil {
			cmd = r.writeMoves(w)
		}
	case throttlesMsg:
		r.throttlesDone(msg)
	case wizard.TickMsg:
		if r.leading() {
			cmd = r.leadStep(nil)
		}
	}
	if r.unthrottle.phase == unthrottleDue {
		// Done since the last message (or by this one): the throttles go.
		cmd = tea.Batch(cmd, r.clearThrottles())
	}
	return cmd
}

// background: the leadership step moves on by the ticks, in the
// background too, and so does a throttled reassignment (the tick after
// its last partition is done removes the throttles).
func (r *reassign) background() bool { return r.leading() || r.throttled() }

func (r *reassign) observe() {
	if r.leading() {
		r.observeLeading()
		return
	}
	if r.tracker == nil {
		return
	}
	r.pr = r.tracker.Update(r.snap)
	r.pg.observe(r.snap, &r.pr)
	r.moved.measure(r.snap, r.sizes, r.plan.Moves, &r.pr)
	r.bytesNow = r.moved.status()
	if r.fr.Stage == wizard.StageProgress && r.pr.Done() {
		r.fr.Finish()
		if r.throttled() {
			r.unthrottle.phase = unthrottleDue
		}
	}
}

func (r *reassign) rows() rows { return r.gridRows() }
