package operate

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/clusterops"
	"github.com/ktopo/ktopo/internal/text"
	"github.com/ktopo/ktopo/ui/internal/cell"
	"github.com/ktopo/ktopo/ui/internal/wizard"
	"github.com/ktopo/ktopo/ui/nav"
	"github.com/ktopo/ktopo/ui/theme"
)

// election is a preferred leader election, on any cluster: the plan is
// `ktopo leader-election --election-type preferred`'s
// (clusterops.PlanPreferredElection: what Kafka's controller will do with
// each partition), the write the writer's Elect (through ZooKeeper its
// znode), the progress each written partition's leader as the controller
// elects.
type election struct {
	*base
	verbs
	topic string // "" for every topic
	// plan is the election previewed, rows the partitions it writes (those
	// that need none are only counted), each as a leader change; planErr
	// why there is none.
	plan    *clusterops.ElectionPlan
	rowsOf  []clusterops.ElectionPartition
	changes []clusterops.PartitionMove
	planErr error
	// sawPending: the mirror showed the election's znode.
	sawPending bool
	// result is a KRaft controller's answer (ElectLeaders): the
	// partitions it elected, those it did not and why (nil through
	// ZooKeeper, whose controller answers by deleting the znode).
	result *clusterops.ElectionResult
}

// electionStartedMsg: the election's znode was created, or Kafka's
// controller answered (result).
type electionStartedMsg struct{ result *clusterops.ElectionResult }

// electGrace is how long an election whose znode the mirror never
// showed is waited for.
const electGrace = 30 * time.Second

func newElection(b *base, topic string) *election {
	e := &election{base: b, topic: topic, verbs: verbs{"Elect the preferred leaders of", "Electing the preferred leaders of", "Elected the preferred leaders of"}}
	b.pv.renderRow = e.row
	b.start = &b.km.Elect
	return e
}

func (e *election) subject() string {
	if e.topic == "" {
		return "every topic"
	}
	return "topic " + e.topic
}

func (e *election) ready() bool { return len(e.rowsOf) > 0 }

func (e *election) request() clusterops.ElectionRequest {
	return clusterops.ElectionRequest{All: e.topic == "", Topic: e.topic}
}

// replan decides every partition's verdict on the newest snapshot.
func (e *election) replan() {
	e.plan, e.planErr = clusterops.PlanPreferredElection(e.snap, e.request())
	e.rowsOf, e.changes = nil, nil
	var heatMoves []clusterops.PartitionMove
	if e.plan != nil {
		for _, ep := range e.plan.Partitions {
			if !ep.Written() {
				continue
			}
			e.rowsOf = append(e.rowsOf, ep)
			// A leader change only: the same replicas, the preferred first.
			mv := clusterops.PartitionMove{TopicPartition: ep.TopicPartition, Current: []int{ep.Leader, ep.Preferred}, Target: []int{ep.Preferred, ep.Leader}}
			e.changes = append(e.changes, mv)
			if ep.Verdict == clusterops.ElectionWillMove && ep.Leader >= 0 {
				heatMoves = append(heatMoves, mv)
			}
		}
	}
	e.fr.Ops.Reset()
	e.pv.set(e.snap, heatMoves)
	e.pv.win.SetN(len(e.rowsOf))
	e.pv.colHeader = " LEADER → PREFERRED"
	e.pv.legend = "the partitions " + e.words().ElectNamer + " names: their leader now → their preferred replica (first in the replica list)"
	e.pv.nameW = 12
	for _, ep := range e.rowsOf {
		e.pv.nameW = min(max(e.pv.nameW, len(ep.String())), 32)
	}
}

func (e *election) syncKeys(bool) {}

func (e *election) key(tea.KeyPressMsg) tea.Cmd { return nil }

// row renders election row i.
func (e *election) row(st *theme.Styles, i int) string {
	ep := &e.rowsOf[i]
	var b strings.Builder
	b.WriteByte(' ')
	b.WriteString(cell.Fit(cell.TopicPartition(ep.Topic, ep.Partition, e.pv.nameW), e.pv.nameW))
	b.WriteString("  ")
	b.WriteString(cell.FitRight(text.Broker(ep.Leader), 6))
	b.WriteString(" → ")
	if ep.Verdict == clusterops.ElectionWillMove {
		st.Leader.Put(&b, cell.Fit(strconv.Itoa(ep.Preferred), 6))
		st.Online.Put(&b, "moves")
	} else {
		st.Muted.Put(&b, cell.Fit(strconv.Itoa(ep.Preferred), 6))
		st.Warning.Put(&b, "cannot move: "+ep.Reason())
	}
	return cell.Clip(b.String(), e.w)
}

func (e *election) head(w int) []string {
	if e.fr.Stage == wizard.StagePreview {
		return e.previewHead(w)
	}
	words := e.words()
	return e.gridHead(e, gridText{n: len(e.changes), writing: words.ElectSending, done: e.summaryLine(),
		failed: words.Refused + ". enter or esc goes back to the preview, made again from the newest snapshot."})
}

// previewHead are the lines above the map for an election.
func (e *election) previewHead(w int) []string {
	st := &e.st
	out := []string{cell.Clip(" "+st.Bold.S("Preferred leader election")+st.Muted.S(" of ")+st.Accent.S(e.subject()), w)}
	if e.plan == nil {
		return append(out, planningLines(st, w, e.planErr, "No election: ")...)
	}
	p := e.plan
	will := p.Count(clusterops.ElectionWillMove)
	cannot := p.Count(clusterops.ElectionPreferredOffline, clusterops.ElectionPreferredNotInISR)
	out = append(out, cell.Clip(" "+st.Online.S(text.Count(will, "leader")+" will move")+st.Muted.S(" · ")+
		st.Warning.S(strconv.Itoa(cannot)+" cannot (preferred replica offline or out of the ISR)")+st.Muted.S(" · "+
		strconv.Itoa(p.Count(clusterops.ElectionNotNeeded))+" already led by their preferred replica"), w))
	if n := p.Count(clusterops.ElectionTopicBeingDeleted, clusterops.ElectionNoState); n > 0 {
		out = append(out, cell.Clip(" "+st.Muted.S(text.Count(n, "partition")+" left out: being deleted, or no leader and ISR state yet"), w))
	}
	if p.Controller < 0 {
		out = append(out, st.Warning.S(" ⚠ no active controller: the election runs when one is elected"))
	}
	if len(p.Write) == 0 {
		out = append(out, " "+st.Online.S("Nothing to elect."))
	}
	return append(out, e.fr.Note.Lines(st, w)...)
}

func (e *election) rows() rows { return e.gridRows() }

func (e *election) popup() ([]string, string, string) {
	word := e.topic
	if word == "" {
		word = "all"
	}
	if e.plan == nil {
		return nil, "", word
	}
	st := &e.st
	how := st.Muted.S(e.words().ElectHow(e.plan.Path))
	return []string{st.Bold.S("Elect the preferred leaders of ") + st.Accent.S(e.subject()) + st.Bold.S("?"), "",
		text.Count(len(e.plan.Write), "partition") + " named; " + strconv.Itoa(e.plan.Count(clusterops.ElectionWillMove)) + " will move",
		how, ""}, "Elect", word
}

// describe shows the znode's create (after its missing parents): an
// Exists per parent, so a command.
func (e *election) describe() tea.Cmd {
	head := wizard.OpsHead{Title: wizard.StepsTitle(e.target(), 1), Detail: e.words().ElectThen}
	plan := e.plan
	return e.fr.DescribeWrites(head, e.wr, func(w clusterops.Writer) (clusterops.Writes, error) {
		ws, _, err := w.Elect(context.Background(), plan, clusterops.Describe)
		return ws, err
	})
}

// write re-plans on the newest snapshot and, when it names the same
// partitions, creates the znode.
func (e *election) write() tea.Cmd {
	shown := e.plan
	fresh, err := clusterops.PlanPreferredElection(e.snap, e.request())
	stale := ""
	switch {
	case err != nil:
		stale = err.Error()
	case !slices.Equal(fresh.Write, shown.Write):
		stale = "the leaders changed since the preview. This is the new election: check it and press enter again."
	}
	w := e.begin(e, stale)
	if w == nil {
		return nil
	}
	e.sawPending, e.result = false, nil
	reply := e.fr.Reply()
	write := func() tea.Msg {
		_, result, err := w.Elect(context.Background(), fresh, clusterops.Apply)
		if err != nil {
			return fail(reply, err)
		}
		return reply(electionStartedMsg{result})
	}
	return tea.Batch(write, e.fr.Tick(false))
}

func (e *election) update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case electionStartedMsg:
		if e.fr.Stage == wizard.StageWriting {
			e.result = msg.result
			e.fr.Stage = wizard.StageProgress
			e.pg.set(e.changes, -1, &electGlyphs)
			e.observe()
		}
	case wizard.TickMsg:
		if e.fr.Stage == wizard.StageProgress {
			e.observe() // the grace for an unseen znode runs out
		}
	}
	return nil
}

// observe reads the written partitions' leaders. The election is over
// once the controller has deleted the znode (seen, or every partition it
// could elect elected); the partitions not led by their preferred
// replica then failed.
func (e *election) observe() {
	if e.plan == nil || e.fr.Stage < wizard.StageProgress {
		return
	}
	pending := e.snap.PendingPreferredElection() != nil
	if pending {
		e.sawPending = true
	}
	pr := clusterops.ReassignProgress{Partitions: make([]clusterops.PartitionReassignProgress, len(e.rowsOf))}
	waiting := 0
	for i, ep := range e.rowsOf {
		leader := cluster.NoLeader
		if t := e.snap.Topic(ep.Topic); t != nil {
			if p := t.Partition(ep.Partition); p != nil && p.HasLeader() {
				leader = p.Leader
			}
		}
		slot := cluster.ReassignPhase(0)
		switch {
		case leader == ep.Preferred:
			slot = 5
		case e.result != nil && !slices.Contains(e.result.Elected, ep.TopicPartition):
			slot = 2 // Kafka's controller did not elect it
		case ep.Verdict == clusterops.ElectionWillMove:
			waiting++
		}
		pr.Partitions[i] = clusterops.PartitionReassignProgress{PartitionMove: e.changes[i], Leader: leader, Phase: slot}
	}
	// A controller quicker than the mirror deletes the znode before the
	// mirror reads it: after electGrace without it, the election is over.
	over := !pending && (e.sawPending || waiting == 0 || e.fr.Now().Sub(e.fr.Started) > electGrace)
	if e.result != nil {
		// Kafka's controller answered: over once the brokers show the
		// leaders it elected.
		over = waiting == 0 || e.fr.Now().Sub(e.fr.Started) > electGrace
	}
	for i := range pr.Partitions {
		if over && pr.Partitions[i].Phase == 0 {
			pr.Partitions[i].Phase = 2
		}
		pr.Count[pr.Partitions[i].Phase]++
	}
	if !over && e.plan.Controller < 0 && e.snap.Controller().BrokerID < 0 {
		pr.Waiting = append(pr.Waiting, "no active controller: the election runs when one is elected")
	}
	e.pr = pr
	if e.fr.Stage == wizard.StageProgress && over {
		e.fr.Finish()
	}
}

func (e *election) summary() (string, nav.TaskState) {
	return e.status(e, "writing the election…", e.summaryLine())
}

func (e *election) summaryLine() string {
	s := "Preferred leader election of " + e.subject() + ": " + strconv.Itoa(e.pr.Count[5]) + " elected"
	if n := e.pr.Count[2]; n > 0 {
		s += ", " + strconv.Itoa(n) + " not (preferred replica not available)"
	}
	if e.plan != nil {
		if n := e.plan.Count(clusterops.ElectionNotNeeded); n > 0 {
			s += ", " + strconv.Itoa(n) + " not needed"
		}
	}
	return s + " in " + e.fr.Elapsed().Round(time.Millisecond).String()
}
