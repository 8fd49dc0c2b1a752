package create

import (
	"slices"
	"strconv"
	"strings"

	"github.com/ktopo/ktopo/assign"
	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/clusterops"
	"github.com/ktopo/ktopo/internal/text"
	"github.com/ktopo/ktopo/ui/internal/cell"
	"github.com/ktopo/ktopo/ui/internal/cursor"
	"github.com/ktopo/ktopo/ui/internal/wizard"
	"github.com/ktopo/ktopo/ui/theme"
)

// pcol is one broker column of the matrix.
type pcol struct {
	id    int
	rack  string
	known bool // registered (a manual assignment may name others)
	// replicas and leaders of this topic; exR and exL the broker's replicas
	// and leaders of every other topic now.
	replicas, leaders int
	exR, exL          int
	label             string
}

// pgroup is a run of columns under one rack heading.
type pgroup struct {
	label             string
	from, n           int
	replicas, leaders int
}

// preview is the assignment matrix of one plan. Everything that depends
// only on the plan is computed once in set; View renders the visible rows.
type preview struct {
	req          clusterops.TopicRequest
	plan         *clusterops.TopicPlan
	start, shift int
	// seed is a KRaft cluster's placer seed (hasSeed: drawn).
	seed    int64
	hasSeed bool
	snap    *cluster.Snapshot

	stats    assign.Stats
	warnings []string
	parts    []int
	cols     []pcol
	groups   []pgroup
	colOf    map[int]int
	cw       int // column width
	cwMin    int // the width the numbers need
	rf       int
	racks    int // racks with registered brokers
	stale    string

	w, h   int
	win    cursor.Window
	colOff int

	// note is the frame's line above the matrix (why the last enter or
	// re-plan did not go through); set it with setNote, which lays the
	// preview out again: the note takes lines from the partition rows.
	// ops is the frame's znodes view, drawn in place of the matrix.
	note *wizard.Note
	ops  *wizard.Ops

	roles     []byte // scratch: the role of each column in a row
	renderRow func(st *theme.Styles, i int, from, to int) string
}

func (p *preview) setSize(w, h int) {
	p.w, p.h = w, h
	p.layout()
}

// set shows plan (computed from req against s).
func (p *preview) set(req clusterops.TopicRequest, plan *clusterops.TopicPlan, s *cluster.Snapshot) {
	p.req, p.plan, p.snap = req, plan, s
	p.stale = ""
	p.ops.Reset()
	switch {
	case plan.Result.Striped:
		p.seed, p.hasSeed = plan.Result.Seed, true
	case !plan.Manual:
		p.start, p.shift = plan.Result.StartIndex, plan.Result.ReplicaShift
	}
	p.stats = clusterops.PlanStats(plan)
	p.parts = plan.Result.Assignment.Partitions()
	p.rf = 0
	if len(p.parts) > 0 {
		p.rf = len(plan.Result.Assignment[p.parts[0]])
	}
	p.racks = 0
	for _, r := range p.stats.Racks {
		if r.Rack != assign.NoRack {
			p.racks++
		}
	}
	// Columns: racks by name (no-rack brokers after them), ids ascending,
	// then brokers the assignment names that are not registered.
	p.cols, p.groups = p.cols[:0], p.groups[:0]
	p.colOf = make(map[int]int, len(p.stats.Brokers))
	byRack := map[string][]assign.BrokerStats{}
	var order []string
	for _, b := range p.stats.Brokers {
		k := b.Rack
		if !b.Known {
			k = "\x00unknown"
		}
		if _, ok := byRack[k]; !ok {
			order = append(order, k)
		}
		byRack[k] = append(byRack[k], b)
	}
	slices.SortFunc(order, func(a, b string) int {
		rank := func(s string) int {
			switch s {
			case "\x00unknown":
				return 2
			case assign.NoRack:
				return 1
			}
			return 0
		}
		if ra, rb := rank(a), rank(b); ra != rb {
			return ra - rb
		}
		return strings.Compare(a, b)
	})
	for _, k := range order {
		bs := byRack[k]
		slices.SortFunc(bs, func(a, b assign.BrokerStats) int { return a.ID - b.ID })
		g := pgroup{label: k, from: len(p.cols), n: len(bs)}
		switch k {
		case "\x00unknown":
			g.label = "not registered"
		case assign.NoRack:
			g.label = "(no rack)"
		}
		for _, b := range bs {
			p.colOf[b.ID] = len(p.cols)
			label := strconv.Itoa(b.ID)
			if !b.Known {
				label += "?"
			}
			p.cols = append(p.cols, pcol{id: b.ID, rack: b.Rack, known: b.Known, replicas: b.Replicas, leaders: b.Leaders, label: label})
			g.replicas += b.Replicas
			g.leaders += b.Leaders
		}
		p.groups = append(p.groups, g)
	}
	p.roles = make([]byte, len(p.cols))
	p.win = cursor.Window{}
	p.win.SetN(len(p.parts))
	p.colOff = 0
	p.observe(s)
}

// observe refreshes what depends on the cluster: each broker's current
// load, the warnings, and whether the cluster changed under the plan.
func (p *preview) observe(s *cluster.Snapshot) {
	if p.plan == nil || s == nil {
		return
	}
	p.snap = s
	for i := range p.cols {
		c := &p.cols[i]
		c.exR, c.exL = 0, 0
		if b, ok := s.Broker(c.id); ok {
			c.exR, c.exL = b.Replicas, b.Leaders
		}
	}
	// The widest number a column shows decides its width.
	p.cwMin = 3
	for _, c := range p.cols {
		p.cwMin = max(p.cwMin, len(c.label)+1, len(strconv.Itoa(c.exR+c.replicas))+1)
	}
	p.warnings = clusterops.PlanWarnings(s, p.plan, p.stats)
	p.stale = ""
	if !p.plan.Manual {
		if now, err := clusterops.PlacementBrokers(s, p.req.RackAware); err != nil || !slices.Equal(now, p.plan.Brokers) {
			p.stale = "The brokers changed since this preview: enter re-checks the plan against the cluster before writing anything."
		}
	}
	p.layout()
}

// setNote shows s above the matrix ("" for none) and gives the partition
// rows what the note leaves.
func (p *preview) setNote(s string, isErr bool) {
	p.note.Set(s, isErr)
	p.layout()
}

// fixed lines around the partition rows.
const (
	pvHead   = 2 // title, start index
	pvMatrix = 2 // rack and broker headings
	pvTotals = 6 // replicas, leaders, after ×2, rack totals ×2
)

// layout gives the partition rows what the other lines leave, and the
// columns room to breathe when the window is wide.
func (p *preview) layout() {
	p.cw = p.cwMin
	if n := len(p.cols); n > 0 {
		room := (p.w - labelCol - racksCol - 2 - 2*len(p.groups)) / n
		p.cw = max(p.cwMin, min(room, 6))
	}
	fixed := pvHead + pvMatrix + pvTotals + len(p.noteLines()) + len(p.warnLines()) + 1
	p.win.SetH(max(min(p.h-fixed, len(p.parts)), 1))
}

func (p *preview) noteLines() []string {
	var out []string
	for _, n := range []string{p.note.Text, p.stale} {
		if n != "" {
			out = append(out, wizard.Wrap(n, p.w, 1)...)
		}
	}
	return out
}

// warnLines are the warnings, at most a third of the height.
func (p *preview) warnLines() []string {
	var out []string
	for _, w := range p.warnings {
		out = append(out, wizard.Wrap("⚠ "+w, p.w, 1)...)
	}
	if limit := max(p.h/3, 1); len(out) > limit {
		more := len(out) - limit + 1
		out = append(out[:limit-1], " ⚠ … "+strconv.Itoa(more)+" more lines of warnings (a taller window shows them)")
	}
	return out
}

// Scroll moves the matrix, or the znodes shown, by d rows.
func (p *preview) Scroll(d int) {
	if p.ops.Shown() {
		p.ops.Scroll(d)
		return
	}
	p.win.Scroll(d)
}

// End shows the first rows (d < 0) or the last.
func (p *preview) End(d int) {
	if p.ops.Shown() {
		p.ops.End(d)
		return
	}
	p.win.End(d)
}

// Page moves them by d pages.
func (p *preview) Page(d int) {
	if p.ops.Shown() {
		p.ops.Page(d)
		return
	}
	p.win.Scroll(d * max(p.win.H-1, 1))
}

// visibleCols returns the columns that fit from colOff.
func (p *preview) visibleCols() (from, to int) {
	from, to, _ = p.visibleColsW()
	return from, to
}

// visibleColsW also returns the width the columns take.
func (p *preview) visibleColsW() (from, to, used int) {
	avail := p.w - labelCol - racksCol - 2
	from = min(p.colOff, max(len(p.cols)-1, 0))
	to = from
	for to < len(p.cols) {
		cw := p.cw + p.gapBefore(to, from)
		if used+cw > avail && to > from {
			break
		}
		used += cw
		to++
	}
	return from, to, used
}

// gapBefore is the separator before column i (two columns at a rack
// boundary, none at the first shown column).
func (p *preview) gapBefore(i, from int) int {
	if i == from {
		return 0
	}
	for _, g := range p.groups {
		if g.from == i {
			return 2
		}
	}
	return 0
}

func (p *preview) scrollColumns(d int) {
	from, to := p.visibleCols()
	if d > 0 && to < len(p.cols) {
		p.colOff = from + max((to-from)/2, 1)
	}
	if d < 0 {
		p.colOff = max(from-max((to-from)/2, 1), 0)
	}
}

const (
	labelCol = 17 // " after: replicas " …
	racksCol = 7
)

// row renders partition row i with columns [from, to).
func (p *preview) row(st *theme.Styles, i int, from, to int) string {
	id := p.parts[i]
	reps := p.plan.Result.Assignment[id]
	for j := from; j < to; j++ {
		p.roles[j] = 0
	}
	for k, r := range reps {
		if j, ok := p.colOf[r]; ok && j >= from && j < to {
			if k == 0 {
				p.roles[j] = 'L'
			} else {
				p.roles[j] = 'F'
			}
		}
	}
	var b strings.Builder
	b.Grow(16 + (to-from)*(p.cw+12))
	b.WriteString(cell.FitRight(strconv.Itoa(id), 10))
	b.WriteString(cell.Spaces(labelCol - 10))
	pad := cell.Spaces(p.cw - 1)
	for j := from; j < to; j++ {
		if p.gapBefore(j, from) > 0 {
			b.WriteString(st.Subtle.S(" │"))
		}
		b.WriteString(pad)
		switch p.roles[j] {
		case 'L':
			b.WriteString(st.Leader.S("L"))
		case 'F':
			b.WriteString("F")
		default:
			b.WriteString(st.Subtle.S("·"))
		}
	}
	if p.racks > 0 {
		n := p.stats.RacksSpanned[id]
		ink := st.Text
		if p.racks > 1 && n < min(p.rf, p.racks) {
			ink = st.Warning
		}
		b.WriteString("  ")
		b.WriteString(ink.S(cell.FitRight(strconv.Itoa(n), racksCol-2)))
	}
	return b.String()
}

// view renders the preview (without the confirmation popup, which the
// shell composites over the screen).
func (p *preview) view(st *theme.Styles, name string) []string {
	lines := make([]string, 0, p.h)
	plan := p.plan
	title := " " + st.Bold.S("Preview ") + st.Accent.S(name) + st.Muted.S("  ·  "+cell.Thousands(len(p.parts))+" partitions × RF "+
		strconv.Itoa(p.rf)+"  ·  "+strconv.Itoa(len(plan.Registered))+" brokers")
	switch {
	case plan.Manual:
		title += st.Muted.S(", placed by hand")
	case plan.Result.RackAware:
		title += st.Muted.S(" in " + strconv.Itoa(p.racks) + " racks, rack-aware")
	case p.req.RackAware == cluster.RackAwareDisabled:
		title += st.Muted.S(", racks ignored (disabled)")
	default:
		title += st.Muted.S(", rack-unaware (no racks)")
	}
	lines = append(lines, cell.Clip(title, p.w))
	var info string
	switch {
	case plan.Manual:
		info = " " + st.Muted.S("No start index or shift: every replica exactly where the manual assignment puts it.")
	case plan.Result.Striped:
		base := "the KRaft controller's placement, seed " + strconv.FormatInt(p.seed, 10)
		keys := "  r re-roll · ←/→ step · w request"
		repro := "  (StripedReplicaPlacer; ktopo plan --seed " + strconv.FormatInt(p.seed, 10) + ")"
		info = " " + st.Bold.S(base)
		used := 1 + len(base)
		if used+cell.Width(keys) <= p.w {
			info += st.Key.S(keys)
			used += cell.Width(keys)
		}
		if used+cell.Width(repro) <= p.w {
			info += st.Muted.S(repro)
		}
	default:
		repro := "--start-index " + strconv.Itoa(p.start)
		if p.shift != p.start {
			repro += " --replica-shift " + strconv.Itoa(p.shift)
		}
		base := "start index " + strconv.Itoa(p.start) + ", replica shift " + strconv.Itoa(p.shift)
		keys := "  r re-roll · ←/→ step · w znodes"
		repro = "  (ktopo plan " + repro + ")"
		info = " " + st.Bold.S(base)
		used := 1 + len(base)
		if used+cell.Width(keys) <= p.w {
			info += st.Key.S(keys)
			used += cell.Width(keys)
		}
		if used+len(repro) <= p.w {
			info += st.Muted.S(repro)
		}
	}
	lines = append(lines, cell.Clip(info, p.w))
	for i, l := range p.noteLines() {
		ink := st.Warning
		if i == 0 && p.note.Text != "" && p.note.Err {
			ink = st.Error
		}
		lines = append(lines, ink.S(l))
	}
	if p.ops.Shown() {
		return p.ops.View(st, lines, p.w, p.h)
	}
	from, to, used := p.visibleColsW()
	// Rows that surely fit skip the (costly) clipping of styled text.
	fits := labelCol+used+racksCol <= p.w
	clip := func(s string) string {
		if fits {
			return s
		}
		return cell.Clip(s, p.w)
	}
	// rack headings and broker ids
	var rh, bh strings.Builder
	rh.WriteString(cell.Spaces(labelCol))
	bh.WriteString(st.Header.S(cell.Fit(" partition", labelCol)))
	for _, g := range p.groups {
		gf, gt := max(g.from, from), min(g.from+g.n, to)
		if gf >= gt {
			continue
		}
		w := 0
		for j := gf; j < gt; j++ {
			w += p.cw + p.gapBefore(j, from)
		}
		sep := p.gapBefore(gf, from)
		rh.WriteString(cell.Spaces(sep))
		rh.WriteString(st.Accent.S(center(g.label, w-sep)))
	}
	for j := from; j < to; j++ {
		if p.gapBefore(j, from) > 0 {
			bh.WriteString(st.Subtle.S(" │"))
		}
		c := &p.cols[j]
		ink := st.Header
		if !c.known {
			ink = st.Danger
		}
		bh.WriteString(ink.S(cell.FitRight(c.label, p.cw)))
	}
	if p.racks > 0 {
		bh.WriteString(st.Header.S(cell.FitRight("racks", racksCol)))
	}
	lines = append(lines, cell.Clip(rh.String(), p.w), cell.Clip(bh.String(), p.w))
	wf, wt := p.win.Visible()
	for i := wf; i < wt; i++ {
		lines = append(lines, clip(p.renderRow(st, i, from, to)))
	}
	for _, l := range p.totals(st, from, to) {
		lines = append(lines, clip(l))
	}
	for _, l := range p.warnLines() {
		lines = append(lines, st.Warning.S(l))
	}
	legend := " "
	if from > 0 || to < len(p.cols) {
		legend += st.Accent.S("brokers "+strconv.Itoa(from+1)+"–"+strconv.Itoa(to)+" of "+strconv.Itoa(len(p.cols))) + st.Muted.S(" < >  ·  ")
	}
	if len(p.parts) > p.win.H {
		legend += st.Accent.S("rows "+strconv.Itoa(wf+1)+"–"+strconv.Itoa(wt)+" of "+cell.Thousands(len(p.parts))) + st.Muted.S(" ↑↓  ·  ")
	}
	legend += st.Leader.S("L") + st.Muted.S(" leader  F follower  ·  after: the broker's load once created")
	lines = append(lines, cell.Clip(legend, p.w))
	return lines
}

// totals are the per-broker and per-rack rows under the matrix.
func (p *preview) totals(st *theme.Styles, from, to int) []string {
	row := func(label string, ink theme.Ink, val func(c *pcol) int) string {
		var b strings.Builder
		b.WriteString(st.Header.S(cell.Fit(" "+label, labelCol)))
		for j := from; j < to; j++ {
			if p.gapBefore(j, from) > 0 {
				b.WriteString(st.Subtle.S(" │"))
			}
			b.WriteString(ink.S(cell.FitRight(strconv.Itoa(val(&p.cols[j])), p.cw)))
		}
		return b.String()
	}
	rack := func(label string, val func(g *pgroup) int) string {
		var b strings.Builder
		b.WriteString(st.Header.S(cell.Fit(" "+label, labelCol)))
		for _, g := range p.groups {
			gf, gt := max(g.from, from), min(g.from+g.n, to)
			if gf >= gt {
				continue
			}
			w := 0
			for j := gf; j < gt; j++ {
				w += p.cw + p.gapBefore(j, from)
			}
			sep := p.gapBefore(gf, from)
			b.WriteString(cell.Spaces(sep))
			v := strconv.Itoa(val(&g))
			b.WriteString(cell.FitRight(v, p.cw) + cell.Spaces(w-sep-p.cw))
		}
		return b.String()
	}
	return []string{
		row("replicas", st.Text, func(c *pcol) int { return c.replicas }),
		row("leaders", st.Leader, func(c *pcol) int { return c.leaders }),
		row("after: replicas", st.Muted, func(c *pcol) int { return c.exR + c.replicas }),
		row("after: leaders", st.Muted, func(c *pcol) int { return c.exL + c.leaders }),
		rack("rack replicas", func(g *pgroup) int { return g.replicas }),
		rack("rack leaders", func(g *pgroup) int { return g.leaders }),
	}
}

// popup is the confirmation's body: what is written, where.
func (p *preview) popup(st *theme.Styles, name string) []string {
	plan := p.plan
	var b []string
	b = append(b, st.Bold.S("Create topic ")+st.Accent.S(name)+st.Bold.S("?"), "")
	desc := cell.Thousands(len(p.parts)) + " partitions × RF " + strconv.Itoa(p.rf) + " on " + strconv.Itoa(len(plan.Registered)) + " brokers"
	switch {
	case plan.Manual:
		desc += ", placed by hand"
	case plan.Result.Striped:
		desc += ", the controller's placement, seed " + strconv.FormatInt(p.seed, 10)
	default:
		desc += ", start index " + strconv.Itoa(p.start) + ", shift " + strconv.Itoa(p.shift)
	}
	b = append(b, desc)
	if n := len(plan.Config); n > 0 {
		b = append(b, strconv.Itoa(n)+text.Plural(n, " config override", " config overrides"))
	}
	if p.snap != nil && p.snap.KRaft() != nil {
		return append(b, st.Muted.S("Sends CreateTopics with this assignment"), st.Muted.S("(validateOnly first, then for real)."), "")
	}
	return append(b, st.Muted.S("Writes "+plan.ConfigPath+" and"), st.Muted.S(plan.TopicPath+" in one multi."), "")
}

// center centres plain text in w columns.
func center(s string, w int) string {
	n := cell.Width(s)
	if n >= w {
		return cell.Fit(s, w)
	}
	left := (w - n) / 2
	return cell.Spaces(left) + s + cell.Spaces(w-n-left)
}
