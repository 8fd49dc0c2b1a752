package operate

// What a reassignment (a drain, or a topic's move) shows: its status-bar
// summary, its head lines, the preview's, the confirmation popup, and the
// wording of its strategy, throttle and replication factor.

import (
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/clusterops"
	"github.com/ktopo/ktopo/internal/text"
	"github.com/ktopo/ktopo/ui/internal/cell"
	"github.com/ktopo/ktopo/ui/internal/wizard"
	"github.com/ktopo/ktopo/ui/nav"
)

func (r *reassign) summary() (string, nav.TaskState) {
	switch {
	case r.leading():
		return r.verb(formIng) + " " + r.subject() + ": leaders first, " + strconv.Itoa(r.lead.moved) + "/" + strconv.Itoa(len(r.lead.plan.Elect)) + " moved off", nav.TaskRunning
	case r.removingThrottles():
		return r.verb(formIng) + " " + r.subject() + ": every partition " + r.pg.doneWord() + "; removing the throttles…", nav.TaskRunning
	}
	return r.status(r, "writing the reassignment…", r.summaryLine())
}

func (r *reassign) summaryLine() string {
	s := r.verb(formEd) + " " + r.subject() + ": " + text.Count(len(r.pr.Partitions), "partition") + " moved in " + r.fr.Elapsed().Round(time.Millisecond).String()
	if r.moved.known {
		s += " (" + cluster.FormatBytes(r.moved.total) + " copied)"
	}
	if !r.drain() {
		rf := text.Range(r.lo, r.hi)
		if r.rfAsked() {
			rf = strconv.Itoa(r.rf)
		}
		s += "; replication factor " + rf
		if t := r.throttlesLine(); t != "" {
			s += "; " + t
		}
		return s
	}
	if b, ok := r.snap.Broker(r.broker); ok && b.Replicas > 0 {
		s += "; it still holds " + text.Count(b.Replicas, "replica") + " (placed there since the plan)"
	} else {
		s += "; it holds no replica"
	}
	if r.lead.wrote && r.lead.plan != nil {
		s += "; leaders first: " + strconv.Itoa(r.lead.moved) + "/" + strconv.Itoa(len(r.lead.plan.Elect)) + " moved off before the copy"
	}
	if t := r.throttlesLine(); t != "" {
		s += "; " + t
	}
	if r.cordoned {
		s += "; broker " + strconv.Itoa(r.broker) + " stays cordoned (" + r.uncordonHint() + ")"
	}
	return s
}

// head is the preview's lines above the map, or the progress's above the
// grid.
func (r *reassign) head(w int) []string {
	switch {
	case r.fr.Stage == wizard.StagePreview:
		return r.previewHead(w)
	case r.leading():
		return r.leadingHead(w)
	}
	t := gridText{n: len(r.moves), tail: "  ·  strategy " + r.strategy.String() + "  ·  throttle " + throttleText(r.throttle),
		writing: r.words().ReassignSending, done: r.summaryLine()}
	if r.throttle >= 0 {
		t.writing = r.words().ReassignSendingThrottled
	}
	if slices.Contains(r.written, stepCordon) && !r.cordoned {
		t.writing = "Cordoning broker " + strconv.Itoa(r.broker) + " (IncrementalAlterConfigs " + uncordonConfig + "=*)…"
	}
	if r.lead.wrote && r.lead.plan != nil {
		t.extra = []string{"leaders first: " + strconv.Itoa(r.lead.moved) + "/" + strconv.Itoa(len(r.lead.plan.Elect)) +
			" moved off broker " + strconv.Itoa(r.broker) + " before the copy"}
	}
	if r.fr.Stage == wizard.StageProgress {
		if b := r.moved.status(); b != "" {
			t.extra = append(t.extra, "bytes: "+b)
		}
		if c := r.moved.copying(); c != "" {
			t.extra = append(t.extra, c)
		}
	}
	if r.err != nil && r.wr != nil && r.wr.MaybeWritten(r.err) {
		t.failed = "The reply was lost: the reassignment may have started. ktopo reassign --list shows whether it did."
	} else {
		t.failed = r.failedAdvice()
	}
	return r.gridHead(r, t)
}

// previewHead are the preview's lines above the map: what moves, the
// counts of both strategies, the throttle, the leaders-first step, the
// warnings and the note.
func (r *reassign) previewHead(w int) []string {
	st := &r.st
	var title string
	if r.drain() {
		title = " " + st.Bold.S("Drain broker ") + st.Accent.S(strconv.Itoa(r.broker))
		if s := r.snap; s != nil {
			if b, ok := s.Broker(r.broker); ok {
				if b.HasRack {
					title += st.Muted.S(" (" + b.Rack + ")")
				}
				title += st.Muted.S("  ·  holds " + text.Count(b.Replicas, "replica") + ", leads " + strconv.Itoa(b.Leaders))
				if !b.Live {
					title += st.Danger.S("  ·  offline")
				}
			}
		}
	} else {
		title = " " + st.Bold.S("Reassign topic ") + st.Accent.S(r.topic)
		if r.snap != nil {
			if t := r.snap.Topic(r.topic); t != nil {
				title += st.Muted.S("  ·  " + text.Count(len(t.Partitions), "partition"))
			}
		}
		title += st.Bold.S("  ·  replication factor " + r.rfText())
		if r.lo != r.hi && !r.rfAsked() {
			title += st.Warning.S(" (mixed: each partition keeps its own; +/− sets one for all)")
		} else {
			title += st.Muted.S(" (+/−)")
		}
	}
	out := []string{cell.Clip(title, w)}
	out = append(out, r.runningLines(w)...)
	if r.gen == nil {
		out = append(out, planningLines(st, w, r.planErr, "No plan: ")...)
		if c := r.cordonedOthers(); r.planErr != nil && len(c) > 0 {
			for _, l := range wizard.Wrap(text.Plural(len(c), "broker ", "brokers ")+text.Ints(c)+text.Plural(len(c), " is", " are")+
				" cordoned: "+text.Plural(len(c), "it takes", "they take")+" no new replica (uncordoned, "+text.Plural(len(c), "it counts", "they count")+" again)", w, 1) {
				out = append(out, st.Muted.S(l))
			}
		}
		return out
	}
	if len(r.moves) == 0 {
		msg := "Nothing to move: broker " + strconv.Itoa(r.broker) + " holds no replica."
		if !r.drain() {
			msg = "Nothing to move: every partition is where the " + r.strategy.String() + " strategy would put it (s switches, +/− changes the replication factor)."
		}
		for _, l := range wizard.Wrap(msg, w, 1) {
			out = append(out, st.Online.S(l))
		}
		if r.drain() {
			return out
		}
		for _, stg := range clusterops.Strategies() {
			if c := r.gen.Count(stg); stg != r.strategy && c.Replicas > 0 {
				out = append(out, cell.Clip(" "+st.Muted.S("○ "+stg.String()+": "+cell.Thousands(c.Replicas)+" of "+cell.Thousands(c.TotalReplicas)+" replicas would be copied"+r.strategyBytes(stg)), w))
			}
		}
		return out
	}
	for _, stg := range clusterops.Strategies() {
		out = append(out, cell.Clip(" "+r.strategyLine(stg), w))
	}
	out = append(out, cell.Clip(" "+st.Muted.S(text.Count(len(r.moves), "partition")+" move · rack-safe · throttle ")+st.Text.S(throttleText(r.throttle))+st.Muted.S(removedWhenDone(r.throttle)), w))
	out = append(out, r.bytesLines(w)...)
	out = append(out, r.stepLines(w)...)
	if err := r.refusal; err != nil {
		for _, l := range wizard.Wrap("✗ Kafka would refuse this plan: "+err.Error()+" enter writes nothing; s tries another strategy.", w, 1) {
			out = append(out, st.Error.S(l))
		}
	}
	out = append(out, r.diskLines(w)...)
	var warns []string
	if off := r.gen.Count(r.strategy).Offline; len(off) > 0 {
		why := ": their partitions move anyway, and Kafka refuses a target naming a broker that is down"
		if r.strategy != clusterops.StrategyMinimal {
			why = ": placed afresh on the live brokers (the minimal strategy leaves them where they are)"
		}
		warns = append(warns, "the "+r.strategy.String()+" strategy "+alsoMoves(off)+why)
	}
	if n := r.warn.SpreadLost; n > 0 {
		warns = append(warns, text.Count(n, "partition")+" would span fewer racks than now")
	}
	if r.warn.RFAboveRack > 0 {
		warns = append(warns, r.warn.RFAboveRackText())
	}
	if len(r.warn.Offline) > 0 {
		warns = append(warns, "target "+text.Plural(len(r.warn.Offline), "broker ", "brokers ")+text.Ints(r.warn.Offline)+" offline: their copies wait until they return")
	}
	if c := r.cannotLine(); c != "" && r.lead.on {
		warns = append(warns, c)
	}
	if c := r.cordonedLine(); c != "" && r.lead.on {
		warns = append(warns, c)
	}
	if cb := r.gen.Count(r.strategy).Cordoned; len(cb) > 0 {
		warns = append(warns, "the "+r.strategy.String()+" strategy "+movesOff(cb, "cordoned")+": Kafka refuses a target naming a cordoned broker, so a partition that moves leaves it")
	}
	warns = append(warns, r.heavy...)
	warns = append(warns, r.cost.heavy...)

	if b, ok := r.snap.Broker(r.broker); ok && !b.Live && r.drain() {
		warns = append(warns, "broker "+strconv.Itoa(r.broker)+" is offline: the new replicas copy from the other replicas")
	}
	out = append(out, warningLines(st, w, warns)...)
	return append(out, r.fr.Note.Lines(st, w)...)
}

// popup is the confirmation's body: what moves and what is written.
func (r *reassign) popup() ([]string, string, string) {
	word := strconv.Itoa(r.broker)
	if !r.drain() {
		word = r.topic
	}
	if r.gen == nil {
		return nil, "", word
	}
	st := &r.st
	c := r.gen.Count(r.strategy)
	head := st.Bold.S("Drain broker ") + st.Accent.S(strconv.Itoa(r.broker)) + st.Bold.S("?")
	if !r.drain() {
		head = st.Bold.S("Reassign topic ") + st.Accent.S(r.topic) + st.Bold.S("?")
	}
	b := []string{
		head, "",
		text.Count(len(r.moves), "partition") + " move: " + text.Count(c.Replicas, "replica") + " copied,",
		strconv.Itoa(c.Leaders) + " preferred " + text.Plural(c.Leaders, "leader changes", "leaders change") + " (strategy " + r.strategy.String() + ")",
		"throttle " + throttleText(r.throttle) + removedWhenDone(r.throttle) + r.rfChange(),
	}
	if pb := r.popupBytes(); pb != "" {
		b = append(b, pb)
	}
	steps := r.steps()
	switch {
	case len(steps) > 1:
		b = append(b, st.Muted.S("In this order:"))
		for i, stp := range steps {
			b = append(b, strconv.Itoa(i+1)+". "+r.stepText(stp))
		}
	default:
		for _, l := range r.words().ReassignHow {
			b = append(b, st.Muted.S(l))
		}
	}
	b = append(b, "")
	return b, "Reassign", word
}

// rfChange names a replication factor change, for the popup.
func (r *reassign) rfChange() string {
	if r.drain() || !r.rfAsked() {
		return ""
	}
	return ", replication factor " + r.rfText()
}

// throttleText names a throttle.
func throttleText(t int64) string {
	if t < 0 {
		return "none"
	}
	return strconv.FormatInt(t>>20, 10) + " MiB/s"
}

// removedWhenDone says, after a throttle, that it goes with the
// reassignment (throttles.go).
func removedWhenDone(throttle int64) string {
	if throttle < 0 {
		return ""
	}
	return ", removed when done"
}

// strategyLine is what strategy stg copies and changes, marked when
// chosen: the balanced one says how much more than the minimal one it
// copies, each what it moves off brokers that are down.
func (r *reassign) strategyLine(stg clusterops.Strategy) string {
	st := &r.st
	c := r.gen.Count(stg)
	s := stg.String() + ": " + cell.Thousands(c.Replicas) + " of " + cell.Thousands(c.TotalReplicas) + " replicas copied" + r.strategyBytes(stg)
	if d := c.Replicas - r.gen.Minimal.Replicas; stg == clusterops.StrategyBalanced && d > 0 {
		s += " (" + cell.Thousands(d) + " more, to even the load out)"
	}
	s += ", " + cell.Thousands(c.Leaders) + text.Plural(c.Leaders, " preferred leader changes", " preferred leaders change")
	if len(c.Offline) > 0 {
		s += "; " + alsoMoves(c.Offline)
	}
	if stg == r.strategy {
		return st.SelectedMark.S("◉ ") + st.Bold.S(s)
	}
	return st.Muted.S("○ " + s)
}

// alsoMoves names the replicas a plan moves off brokers that are down:
// "also moves broker 4's 62 replicas (offline)".
func alsoMoves(off map[int]int) string { return movesOff(off, "offline") }

// movesOff names the replicas a plan moves off brokers in a state:
// "also moves broker 4's 62 replicas (cordoned)".
func movesOff(by map[int]int, state string) string {
	ids := slices.Sorted(maps.Keys(by))
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = "broker " + strconv.Itoa(id) + "'s " + text.Count(by[id], "replica")
	}
	return "also moves " + strings.Join(parts, ", ") + " (" + state + ")"
}
