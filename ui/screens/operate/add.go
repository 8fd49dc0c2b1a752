package operate

import (
	"bytes"
	"context"
	"maps"
	"slices"
	"strconv"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/clusterops"
	"github.com/ktopo/ktopo/internal/text"
	"github.com/ktopo/ktopo/ui/internal/cell"
	"github.com/ktopo/ktopo/ui/internal/wizard"
	"github.com/ktopo/ktopo/ui/nav"
)

// addPartitions adds partitions to a topic: the plan is kafka-topics
// --alter --partitions N's (clusterops.PlanAddPartitions, Kafka's placement
// from partition 0's first replica), the write the writer's AddPartitions
// (through ZooKeeper its one-znode multi), the progress the new
// partitions coming online (clusterops.TopicProgress, the creation
// wizard's phases).
type addPartitions struct {
	*base
	verbs
	topic string
	// count is the partition count asked for, plan its plan, news the new
	// partitions (as moves from nothing), planErr why there is none.
	count   int
	plan    *clusterops.AddPartitionsPlan
	news    []clusterops.PartitionMove
	offline []int // target brokers offline
	planErr error
	// blocked is Kafka's refusal while a partition of the topic is being
	// reassigned (refresh).
	blocked error
	// seed is the KRaft controller's placer's seed, drawn once: a plan
	// made again places alike (r changes it). better is a seed that
	// spreads the new partitions better, when there is one.
	seed   int64
	better *clusterops.SeedSuggestion
}

// partitionsAddedMsg: the topic znode was written.
type partitionsAddedMsg struct{}

func newAddPartitions(b *base, topic string) *addPartitions {
	b.start = &b.km.AddPartitions
	return &addPartitions{base: b, topic: topic, verbs: verbs{"Add partitions to", "Adding partitions to", "Added partitions to"},
		seed: clusterops.DrawSeed(b.rng)}
}

// request is the plan's request: the count asked for, the placer's seed.
func (a *addPartitions) request() clusterops.AddPartitionsRequest {
	return clusterops.AddPartitionsRequest{Topic: a.topic, Partitions: a.count, Seed: a.seed, HasSeed: true}
}

func (a *addPartitions) subject() string { return "topic " + a.topic }

func (a *addPartitions) ready() bool { return len(a.news) > 0 && a.blocked == nil }

// refresh follows a reassignment of the topic started after the preview
// was made: the preview says Kafka's refusal before y, not after; once
// it is done, the plan is made again.
func (a *addPartitions) refresh() {
	was := a.blocked != nil
	a.blocked = clusterops.AddPartitionsBlocked(a.snap, a.topic)
	if was && a.blocked == nil {
		a.replan()
		a.fr.Note.Set("The reassignment of "+a.topic+" is done: this is the plan as the topic stands now.", false)
	}
}

// replan places the new partitions of the count asked for (twice the
// current count at first).
func (a *addPartitions) replan() {
	t := a.snap.Topic(a.topic)
	if a.count == 0 && t != nil {
		a.count = 2 * len(t.Partitions)
	}
	a.plan, a.planErr = clusterops.PlanAddPartitions(a.snap, a.request())
	a.news, a.offline, a.better = nil, nil, nil
	var shown []clusterops.PartitionMove
	if a.plan != nil {
		asg := a.plan.Assignment()
		for _, p := range asg.Partitions() {
			a.news = append(a.news, clusterops.PartitionMove{TopicPartition: cluster.TopicPartition{Topic: a.topic, Partition: p}, Target: asg[p]})
		}
		a.offline = clusterops.WarnMoves(a.snap, a.news).Offline
		if sg, ok := clusterops.BetterAddSeed(a.snap, a.plan); ok {
			a.better = &sg
		}
		// The new partitions, then the existing ones (dimmed).
		shown = slices.Clone(a.news)
		for _, p := range t.Partitions {
			if p.InAssignment {
				shown = append(shown, clusterops.PartitionMove{TopicPartition: cluster.TopicPartition{Topic: a.topic, Partition: p.ID}, Current: p.Replicas, Target: p.Replicas})
			}
		}
	}
	a.fr.Ops.Reset()
	a.pv.set(a.snap, shown)
	a.pv.fresh = len(a.news)
	a.pv.legend = "+n a new partition's replica on broker n, n* its preferred leader  ·  dimmed: the partitions there are, unchanged"
	a.pv.legendShort = "+n a new replica on n, n* leader · dimmed: existing"
}

func (a *addPartitions) syncKeys(preview bool) {
	a.km.MorePartitions.SetEnabled(preview && a.snap != nil)
	a.km.FewerPartitions.SetEnabled(preview && a.plan != nil && a.count > a.plan.Existing+1)
	a.km.Reseed.SetEnabled(preview && a.plan != nil && a.plan.Result.Striped && !a.plan.Manual)
}

func (a *addPartitions) key(msg tea.KeyPressMsg) tea.Cmd {
	switch {
	case key.Matches(msg, a.km.MorePartitions):
		a.count++
		a.replan()
	case key.Matches(msg, a.km.FewerPartitions):
		a.count--
		a.replan()
	case key.Matches(msg, a.km.Reseed):
		// The seed that spreads them better, else another one.
		if a.better != nil {
			a.seed = a.better.Seed
		} else {
			for old := a.seed; a.seed == old; {
				a.seed = clusterops.DrawSeed(a.rng)
			}
		}
		a.replan()
	}
	return nil
}

func (a *addPartitions) head(w int) []string {
	if a.fr.Stage == wizard.StagePreview {
		return a.previewHead(w)
	}
	words := a.words()
	t := gridText{n: len(a.news), writing: words.AddSending(cluster.TopicPath(a.topic)), done: a.summaryLine(),
		failed: words.AddRefused + ". enter or esc goes back to the preview, made again from the newest snapshot."}
	if a.err != nil && a.wr != nil && a.wr.MaybeWritten(a.err) {
		t.failed = "The reply was lost: the partitions may have been added. The topic screen shows whether they were."
	}
	return a.gridHead(a, t)
}

// previewHead are the lines above the map when adding partitions.
func (a *addPartitions) previewHead(w int) []string {
	st := &a.st
	title := " " + st.Bold.S("Add partitions to ") + st.Accent.S(a.topic)
	if a.plan != nil {
		title += st.Bold.S("  ·  " + strconv.Itoa(a.plan.Existing) + " → " + strconv.Itoa(a.count) + " partitions")
	} else if a.count > 0 {
		title += st.Bold.S("  ·  " + strconv.Itoa(a.count) + " partitions")
	}
	title += st.Muted.S(" (+/−)")
	out := []string{cell.Clip(title, w)}
	if a.blocked != nil {
		for _, l := range wizard.Wrap("✗ "+a.blocked.Error()+" It can be written once the reassignment is done.", w, 1) {
			out = append(out, st.Error.S(l))
		}
	}
	if a.plan == nil {
		return append(out, planningLines(st, w, a.planErr, "No plan: ")...)
	}
	rf := 0
	if len(a.news) > 0 {
		rf = len(a.news[0].Target)
	}
	how := "placed as Kafka places them (start index " + strconv.Itoa(a.plan.Result.StartIndex) + ", from partition 0's first replica)"
	if a.plan.Result.Striped {
		how = "placed as the KRaft controller places them (StripedReplicaPlacer, seed " + strconv.FormatInt(a.plan.Result.Seed, 10) + ")"
	}
	for _, l := range wizard.Wrap(text.Count(len(a.news), "new partition")+" × RF "+strconv.Itoa(rf)+", "+how+"; the existing ones, dimmed, do not move", w, 1) {
		out = append(out, st.Muted.S(l))
	}
	warns := []string{clusterops.KeyOrderingWarning}
	if b := a.better; b != nil {
		warns = append(warns, "not spread evenly ("+b.Now.String()+"): seed "+strconv.FormatInt(b.Seed, 10)+" spreads them better ("+b.Better.String()+"): r takes it")
	}
	out = append(out, warningLines(st, w, warns)...)
	if len(a.offline) > 0 {
		out = append(out, st.Warning.S(" ⚠ target brokers "+text.Ints(a.offline)+" offline"))
	}
	return append(out, a.fr.Note.Lines(st, w)...)
}

func (a *addPartitions) rows() rows { return a.gridRows() }

func (a *addPartitions) popup() ([]string, string, string) {
	if a.plan == nil {
		return nil, "", a.topic
	}
	st := &a.st
	var how []string
	for _, l := range a.words().AddHow(a.plan.TopicPath, a.plan.Version) {
		how = append(how, st.Muted.S(l))
	}
	return append([]string{st.Bold.S("Add "+text.Count(len(a.news), "partition")+" to ") + st.Accent.S(a.topic) + st.Bold.S("?"), "",
		a.topic + ": " + strconv.Itoa(a.plan.Existing) + " → " + strconv.Itoa(a.count) + " partitions"}, append(how, "")...), "Add", a.topic
}

// describe shows the writes: they read nothing, but the writer may (a
// command).
func (a *addPartitions) describe() tea.Cmd {
	head := wizard.OpsHead{Title: wizard.StepsTitle(a.target(), 1), Detail: " — all or nothing; the controller then creates the new partitions (w or esc closes)"}
	plan := a.plan
	return a.fr.DescribeWrites(head, a.wr, func(w clusterops.Writer) (clusterops.Writes, error) {
		return w.AddPartitions(context.Background(), []*clusterops.AddPartitionsPlan{plan}, clusterops.Describe)
	})
}

// write checks the plan against the newest snapshot (the same topic
// znode would be written) and writes it.
func (a *addPartitions) write() tea.Cmd {
	shown := a.plan
	fresh, err := clusterops.PlanAddPartitions(a.snap, a.request())
	stale := ""
	switch {
	case err != nil:
		stale = err.Error()
	case !bytes.Equal(fresh.TopicJSON, shown.TopicJSON) || fresh.Version != shown.Version ||
		!maps.EqualFunc(fresh.Assignment(), shown.Assignment(), slices.Equal):
		stale = "the topic changed since the preview. This is the new plan: check it and press enter again."
	}
	w := a.begin(a, stale)
	if w == nil {
		return nil
	}
	reply := a.fr.Reply()
	write := func() tea.Msg {
		if _, err := w.AddPartitions(context.Background(), []*clusterops.AddPartitionsPlan{shown}, clusterops.Apply); err != nil {
			return fail(reply, err)
		}
		return reply(partitionsAddedMsg{})
	}
	return tea.Batch(write, a.fr.Tick(false))
}

func (a *addPartitions) update(msg tea.Msg) tea.Cmd {
	if _, ok := msg.(partitionsAddedMsg); ok && a.fr.Stage == wizard.StageWriting {
		a.fr.Stage = wizard.StageProgress
		a.pg.set(a.news, -1, &addGlyphs)
		a.observe()
	}
	return nil
}

// observe reads the new partitions' phases from the snapshot.
func (a *addPartitions) observe() {
	if a.plan == nil || a.fr.Stage < wizard.StageProgress {
		return
	}
	tp := clusterops.TopicProgress(a.snap, a.topic, a.plan.Assignment())
	pr := clusterops.ReassignProgress{Partitions: make([]clusterops.PartitionReassignProgress, len(tp.Partitions)), Waiting: tp.Waiting}
	for i, p := range tp.Partitions {
		slot := addSlot(p.Phase)
		pr.Partitions[i] = clusterops.PartitionReassignProgress{
			PartitionMove: clusterops.PartitionMove{TopicPartition: cluster.TopicPartition{Topic: a.topic, Partition: p.ID}, Target: p.Replicas},
			Phase:         slot, Replicas: p.Replicas, ISR: p.ISR, Leader: p.Leader}
		pr.Count[slot]++
	}
	a.pr = pr
	a.pg.stalled = a.pg.stalled[:0]
	if a.fr.Stage == wizard.StageProgress && tp.Done() && tp.Online == len(tp.Partitions) {
		a.fr.Finish()
	}
}

func (a *addPartitions) summary() (string, nav.TaskState) {
	return a.status(a, a.words().AddStatus, a.summaryLine())
}

func (a *addPartitions) summaryLine() string {
	return a.verb(formEd) + " " + a.subject() + ": " + text.Count(len(a.pr.Partitions), "new partition") + " online in " +
		a.fr.Elapsed().Round(time.Millisecond).String() + "; it has " + strconv.Itoa(a.count) + " partitions"
}
