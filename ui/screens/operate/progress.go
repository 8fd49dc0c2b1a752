package operate

import (
	"strconv"
	"strings"
	"time"

	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/clusterops"
	"github.com/ktopo/ktopo/internal/text"
	"github.com/ktopo/ktopo/ui/internal/cell"
	"github.com/ktopo/ktopo/ui/internal/cursor"
	"github.com/ktopo/ktopo/ui/internal/wizard"
	"github.com/ktopo/ktopo/ui/nav"
	"github.com/ktopo/ktopo/ui/theme"
)

// progress is the reassignment as it happens: a grid of the moved
// partitions, each with its phase's glyph, in the creation grid's
// language (hollow → half → full as the partition gets there).
type progress struct {
	w, h     int
	names    []string // per move, fitted to nameW
	nameW    int
	cellW    int
	per      int
	win      cursor.Window
	throttle int64
	// stalled says, per partition that waits on something the cluster
	// lacks (a target broker down, no leader), what (observe).
	stalled []string
	// table are the glyphs of the phases (reassignGlyphs, addGlyphs).
	table *[6]glyph
	// pr is the progress drawn (the base's).
	pr *clusterops.ReassignProgress
}

// set takes the partitions written, the throttle and the glyphs of
// their phases.
func (g *progress) set(moves []clusterops.PartitionMove, throttle int64, table *[6]glyph) {
	g.throttle, g.table = throttle, table
	g.nameW = 8
	for _, m := range moves {
		if n := len(m.Topic) + 1 + len(strconv.Itoa(m.Partition)); n > g.nameW {
			g.nameW = min(n, 24)
		}
	}
	g.names = make([]string, len(moves))
	for i, m := range moves {
		g.names[i] = cell.Fit(cell.TopicPartition(m.Topic, m.Partition, g.nameW), g.nameW)
	}
}

// observe finds what stalled partitions wait for (at most a few named:
// the summary counts the rest).
func (g *progress) observe(s *cluster.Snapshot, pr *clusterops.ReassignProgress) {
	g.stalled = g.stalled[:0]
	more := 0
	for i := range pr.Partitions {
		p := &pr.Partitions[i]
		if p.Phase == cluster.ReassignDone || p.Phase == cluster.ReassignQueued {
			continue
		}
		var why string
		var down []int
		for _, r := range p.Adding {
			if !s.IsLive(r) {
				down = append(down, r)
			}
		}
		switch {
		case len(down) > 0:
			why = "waits for " + text.Plural(len(down), "broker ", "brokers ") + text.Ints(down) + " (down) to copy it"
		case p.Leader == cluster.NoLeader:
			why = "has no leader: nothing can copy from it"
		default:
			continue
		}
		if len(g.stalled) >= 3 {
			more++
			continue
		}
		g.stalled = append(g.stalled, p.String()+" "+why)
	}
	if more > 0 {
		g.stalled = append(g.stalled, "and "+text.Count(more, "other partition")+" stalled")
	}
}

// waiting is what the reassignment waits for, in words.
func (g *progress) waiting(pr *clusterops.ReassignProgress) []string {
	out := append([]string(nil), pr.Waiting...)
	out = append(out, g.stalled...)
	if g.throttle >= 0 && pr.Count[cluster.ReassignAdding] > 0 {
		out = append(out, "copies throttled to "+throttleText(g.throttle)+" per broker")
	}
	return out
}

// glyph is a phase's mark, its legend word and its ink.
type glyph struct {
	g, word string
	ink     func(*theme.Styles) theme.Ink
}

func subtle(st *theme.Styles) theme.Ink  { return st.Subtle }
func muted(st *theme.Styles) theme.Ink   { return st.Muted }
func warning(st *theme.Styles) theme.Ink { return st.Warning }
func leader(st *theme.Styles) theme.Ink  { return st.Leader }
func online(st *theme.Styles) theme.Ink  { return st.Online }
func danger(st *theme.Styles) theme.Ink  { return st.Danger }

// reassignGlyphs mark a reassignment's phases, by cluster.ReassignPhase,
// in the creation grid's language: hollow → half → full.
var reassignGlyphs = [6]glyph{
	cluster.ReassignQueued:   {"·", "queued", subtle},
	cluster.ReassignAdding:   {"○", "adding", muted},
	cluster.ReassignLeader:   {"◔", "leader to move", warning},
	cluster.ReassignInSync:   {"◐", "in sync", leader},
	cluster.ReassignRemoving: {"◕", "removing", leader},
	cluster.ReassignDone:     {"●", "done", online},
}

// addGlyphs mark the phases of added partitions (the creation grid's own,
// cluster.Phase), in the ReassignPhase slots addSlot maps them to.
var addGlyphs = [6]glyph{
	{"·", "not yet listed", subtle},
	{"○", "new", muted},
	{"✗", "offline", danger},
	{"◐", "online", leader},
	{},
	{"●", "in sync", online},
}

// electGlyphs mark an election's partitions.
var electGlyphs = [6]glyph{
	{"·", "waiting for the controller", subtle},
	{},
	{"✗", "not elected", danger},
	{},
	{},
	{"●", "elected", online},
}

// doneWord is what the done slot's partitions are, for the status bar.
func (g *progress) doneWord() string {
	switch g.table {
	case &electGlyphs:
		return "elected"
	case &addGlyphs:
		return "in sync"
	}
	return "moved"
}

// addSlot is the display slot of an added partition's phase.
func addSlot(p clusterops.Phase) cluster.ReassignPhase {
	switch p {
	case clusterops.PhaseNew:
		return 1
	case clusterops.PhaseOffline:
		return 2
	case clusterops.PhaseOnline:
		return 3
	case clusterops.PhaseInSync:
		return 5
	}
	return 0
}

// layout sizes the grid for the lines above it.
func (g *progress) layout(_ *theme.Styles, w, h int, head []string) {
	g.w, g.h = w, h
	g.cellW = g.nameW + 4
	g.per = max((w-1)/g.cellW, 1)
	rows := (len(g.names) + g.per - 1) / g.per
	g.win.SetN(rows)
	g.win.SetH(max(h-len(head)-2, 1))
}

func (g *progress) scroll(d int) { g.win.Scroll(d) }

func (g *progress) page(d int) { g.win.Scroll(d * max(g.win.H-1, 1)) }

func (g *progress) end(d int) { g.win.Scroll(d * g.win.N) }

// lines draws the grid under the head.
func (g *progress) lines(st *theme.Styles, out []string) []string {
	out = append(out, "")
	from, to := g.win.Visible()
	for r := from; r < to; r++ {
		out = append(out, g.row(st, g.pr, r))
	}
	return out
}

// row renders grid row r.
func (g *progress) row(st *theme.Styles, pr *clusterops.ReassignProgress, r int) string {
	var b strings.Builder
	b.WriteByte(' ')
	for c := range g.per {
		i := r*g.per + c
		if i >= len(g.names) || i >= len(pr.Partitions) {
			break
		}
		ph := pr.Partitions[i].Phase
		ink := st.Text
		if ph == cluster.ReassignDone {
			ink = st.Muted
		}
		gl := &g.table[ph]
		gl.ink(st).Put(&b, gl.g)
		b.WriteByte(' ')
		ink.Put(&b, g.names[i])
		b.WriteString("  ")
	}
	return b.String()
}

// bar is the reassignment's progress: done solid, the partitions under
// way half.
func bar(st *theme.Styles, pr *clusterops.ReassignProgress, width int) string {
	n := len(pr.Partitions)
	if n == 0 || width <= 0 {
		return ""
	}
	done := pr.Count[cluster.ReassignDone] * width / n
	going := (n - pr.Count[cluster.ReassignDone] - pr.Count[cluster.ReassignQueued]) * width / n
	return st.Online.S(strings.Repeat("█", done)) + st.Leader.S(strings.Repeat("▒", going)) + st.Subtle.S(strings.Repeat("░", width-done-going))
}

// gridText is what an operation says around its progress grid.
type gridText struct {
	// n is the partitions written; tail follows them in the title.
	n    int
	tail string
	// writing is the line while the write is in flight, failed what
	// became of it once it failed.
	writing, failed string
	// extra are lines under the bar; done the summary once done.
	extra []string
	done  string
}

// gridHead are the lines above a progress grid: the title, then the
// write in flight, the failure, or the bar, the counts of each phase
// (the grid's glyphs), what it waits for or the summary, the legend.
func (b *base) gridHead(op operation, t gridText) []string {
	st, w := &b.st, b.w
	verb := op.verb(formIng)
	if b.fr.Stage == wizard.StageDone {
		verb = op.verb(formEd)
	}
	title := " " + st.Bold.S(verb+" ") + st.Accent.S(op.subject()) + st.Muted.S("  ·  "+text.Count(t.n, "partition")+t.tail)
	if b.fr.CanPace() {
		title += st.Muted.S("  ·  sandbox pace " + b.fr.Pace().String())
	}
	out := []string{cell.Clip(title, w)}
	switch b.fr.Stage {
	case wizard.StageWriting:
		return append(out, " "+st.Muted.S(t.writing))
	case wizard.StageFailed:
		for _, l := range wizard.Wrap("✗ "+b.err.Error(), w, 1) {
			out = append(out, st.Error.S(l))
		}
		for _, l := range wizard.Wrap(t.failed, w, 1) {
			out = append(out, st.Muted.S(l))
		}
		return out
	}
	tbl, pr := b.pg.table, &b.pr
	counts := " " + strconv.Itoa(pr.Count[cluster.ReassignDone]) + "/" + strconv.Itoa(t.n) + " " + tbl[cluster.ReassignDone].word
	for _, ph := range []cluster.ReassignPhase{cluster.ReassignAdding, cluster.ReassignLeader, cluster.ReassignInSync, cluster.ReassignRemoving, cluster.ReassignQueued} {
		if c := pr.Count[ph]; c > 0 {
			counts += " · " + strconv.Itoa(c) + " " + tbl[ph].word
		}
	}
	counts += " · " + elapsed(&b.fr)
	out = append(out, cell.Clip(" "+bar(st, pr, barWidth(w))+st.Muted.S(counts), w))
	for _, l := range t.extra {
		out = append(out, cell.Clip(" "+st.Muted.S(l), w))
	}
	if b.fr.Stage == wizard.StageDone {
		for _, l := range wizard.Wrap("✓ "+t.done+".", w, 1) {
			out = append(out, st.Online.S(l))
		}
	} else {
		for _, wt := range b.pg.waiting(pr) {
			for _, l := range wizard.Wrap("waiting for: "+wt, w, 1) {
				out = append(out, st.Warning.S(l))
			}
		}
	}
	var lg strings.Builder
	lg.WriteByte(' ')
	for ph := range tbl {
		if gl := &tbl[ph]; gl.word != "" {
			gl.ink(st).Put(&lg, gl.g)
			st.Muted.Put(&lg, " "+gl.word+"  ")
		}
	}
	return append(out, cell.Clip(lg.String(), w))
}

// barWidth is the progress bar's width on a screen w wide.
func barWidth(w int) int { return min(max(w/3, 10), 40) }

// progressLine is the status bar's line of an operation whose progress
// the grid shows.
func (b *base) progressLine(op operation) string {
	s := op.verb(formIng) + " " + op.subject() + ": " + strconv.Itoa(b.pr.Count[cluster.ReassignDone]) + "/" + strconv.Itoa(len(b.pr.Partitions)) + " partitions " + b.pg.doneWord()
	if b.bytesNow != "" {
		s += ", " + b.bytesNow
	}
	if w := b.pg.waiting(&b.pr); len(w) > 0 {
		s += " — waiting: " + w[0]
	}
	return s
}

// failedLine is the status bar's line of an operation whose write
// failed.
func (b *base) failedLine(op operation) (string, nav.TaskState) {
	return op.verb(formIng) + " " + op.subject() + " failed: " + b.err.Error(), nav.TaskFailed
}

// elapsed is how long the operation has taken: to the tenth of a second
// while it runs, to the millisecond once done (as its summary says).
func elapsed(fr *wizard.Frame) string {
	if fr.Stage == wizard.StageDone {
		return fr.Elapsed().Round(time.Millisecond).String()
	}
	return fr.Elapsed().Round(100 * time.Millisecond).String()
}
