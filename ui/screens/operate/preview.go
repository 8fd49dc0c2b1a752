package operate

import (
	"slices"
	"strconv"
	"strings"

	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/clusterops"
	"github.com/ktopo/ktopo/internal/text"
	"github.com/ktopo/ktopo/ui/internal/cell"
	"github.com/ktopo/ktopo/ui/internal/cursor"
	"github.com/ktopo/ktopo/ui/internal/heat"
	"github.com/ktopo/ktopo/ui/internal/wizard"
	"github.com/ktopo/ktopo/ui/theme"
)

// rackCol is one rack's column of the moves matrix.
type rackCol struct {
	label string
	ids   []int
}

// preview is the plan drawn: the heat map before→after, then a row per
// moved partition with a column per rack. Everything but the visible rows
// is built in set and layout (Update); View renders only what shows.
type preview struct {
	w, h   int
	racks  []rackCol
	rackOf map[int]int // broker id → index in racks (-1: no rack column)
	heat   []heat.Rack
	moves  []clusterops.PartitionMove
	nameW  int
	colW   int
	// fresh: the rows from fresh on are existing partitions, drawn dimmed
	// (adding partitions); len(moves) otherwise.
	fresh int
	// colHeader and legend replace the matrix's (an election's rows).
	colHeader, legend string
	win               cursor.Window
	// head are the lines above the map (built in layout), heatLines the
	// map when it fits.
	head, heatLines []string

	renderRow func(st *theme.Styles, i int) string
}

// set takes the moves to show and the load from s.
func (p *preview) set(s *cluster.Snapshot, moves []clusterops.PartitionMove) {
	p.moves = moves
	p.fresh = len(moves)
	p.win = cursor.Window{N: len(moves), H: p.win.H}
	if s == nil {
		return
	}
	p.racks, p.rackOf = p.racks[:0], map[int]int{}
	for _, r := range s.Racks() {
		if len(r.Brokers) == 0 {
			continue
		}
		label := r.Label()
		if len(s.Racks()) == 1 {
			label = "replicas"
		}
		for _, id := range r.Brokers {
			p.rackOf[id] = len(p.racks)
		}
		p.racks = append(p.racks, rackCol{label: label, ids: r.Brokers})
	}
	// The load after: every copied replica lands on its broker, every
	// removed one leaves; leaders follow the preferred leader (the
	// controller elects it when the old one leaves the replicas).
	delta := map[int]heat.Load{}
	for _, m := range moves {
		for _, a := range m.Adding() {
			d := delta[a]
			d.Replicas++
			delta[a] = d
		}
		for _, r := range m.Removing() {
			d := delta[r]
			d.Replicas--
			delta[r] = d
		}
		if len(m.Current) == 0 && len(m.Target) > 0 { // a new partition
			d := delta[m.Target[0]]
			d.Leaders++
			delta[m.Target[0]] = d
		}
		if len(m.Current) > 0 && len(m.Target) > 0 && m.Current[0] != m.Target[0] {
			d := delta[m.Current[0]]
			d.Leaders--
			delta[m.Current[0]] = d
			d = delta[m.Target[0]]
			d.Leaders++
			delta[m.Target[0]] = d
		}
	}
	p.heat = p.heat[:0]
	for _, r := range s.Racks() {
		hr := heat.Rack{Label: r.Label()}
		for _, id := range r.Brokers {
			b, _ := s.Broker(id)
			hb := heat.Broker{ID: id, Live: b.Live, Load: heat.Load{Replicas: b.Replicas, Leaders: b.Leaders}}
			if d, ok := delta[id]; ok {
				after := heat.Load{Replicas: max(b.Replicas+d.Replicas, 0), Leaders: max(b.Leaders+d.Leaders, 0)}
				hb.After = &after
			}
			hr.Brokers = append(hr.Brokers, hb)
		}
		p.heat = append(p.heat, hr)
	}
	p.nameW = 10
	for _, m := range moves {
		if n := len(m.Topic) + 1 + len(strconv.Itoa(m.Partition)); n > p.nameW {
			p.nameW = n
			if n >= 32 {
				p.nameW = 32
				break
			}
		}
	}
}

// layout sizes the matrix for the lines above it and the window.
func (p *preview) layout(st *theme.Styles, w, h int, head []string) {
	p.w, p.h, p.head = w, h, head
	p.heatLines = nil
	used := len(head) + 3 // blank, column header, legend
	if hh := heat.Height(p.heat); w >= heat.MinWidth && len(p.heat) > 0 && h-used-hh-1 >= 5 {
		p.heatLines = heat.Lines(st, p.heat, w, "")
		used += len(p.heatLines) + 1
	}
	p.win.SetH(max(h-used, 1))
	p.colW = 0
	if n := len(p.racks); n > 0 {
		p.colW = min(max((w-p.nameW-3)/n, 8), 28)
	}
}

// piece is a fragment of a row with its ink.
type piece struct {
	s   string
	ink theme.Ink
}

// cellPieces is rack r's cell of move mv: its target brokers (copied ones
// +id, the new preferred leader id*), then the brokers that leave (−id).
func (p *preview) cellPieces(st *theme.Styles, mv *clusterops.PartitionMove, r int, out []piece) []piece {
	leaderMoves := len(mv.Current) == 0 || mv.Current[0] != mv.Target[0]
	for i, id := range mv.Target {
		if k, ok := p.rackOf[id]; !ok || k != r {
			continue
		}
		s, ink := strconv.Itoa(id), st.Text
		if !slices.Contains(mv.Current, id) {
			s, ink = "+"+s, st.Accent
		}
		if i == 0 && leaderMoves {
			s += "*"
			ink = st.Leader
			if !slices.Contains(mv.Current, id) {
				ink = st.Accent
			}
		}
		out = append(out, piece{s, ink})
	}
	for _, id := range mv.Current {
		if k, ok := p.rackOf[id]; ok && k == r && !slices.Contains(mv.Target, id) {
			out = append(out, piece{"−" + strconv.Itoa(id), st.Danger})
		}
	}
	return out
}

// row renders moved partition i.
func (p *preview) row(st *theme.Styles, i int) string {
	mv := &p.moves[i]
	dim := i >= p.fresh
	var b strings.Builder
	b.WriteByte(' ')
	st.Subtle.If(dim).Put(&b, cell.Fit(cell.TopicPartition(mv.Topic, mv.Partition, p.nameW), p.nameW))
	b.WriteString(" ")
	var ps []piece
	for r := range p.racks {
		st.Subtle.Put(&b, "│")
		ps = p.cellPieces(st, mv, r, ps[:0])
		n := 1
		b.WriteByte(' ')
		for j, pc := range ps {
			if n+len(pc.s)+1 > p.colW-1 {
				b.WriteString("…")
				n++
				break
			}
			if j > 0 {
				b.WriteByte(' ')
				n++
			}
			ink := pc.ink
			if dim {
				ink = st.Subtle
			}
			ink.Put(&b, pc.s)
			n += cell.Width(pc.s)
		}
		b.WriteString(cell.Spaces(p.colW - 1 - n))
	}
	return cell.Clip(b.String(), p.w)
}

// lines draws the preview: the head, the map, the matrix (or the exact
// multi when ops is set).
func (p *preview) lines(st *theme.Styles, ops *opsView) []string {
	out := make([]string, 0, p.h)
	out = append(out, p.head...)
	if ops != nil {
		return ops.lines(st, out, p.w, p.h)
	}
	out = append(out, "")
	if p.heatLines != nil {
		out = append(out, p.heatLines...)
		out = append(out, "")
	}
	var hb strings.Builder
	hb.WriteString(" " + cell.Fit("PARTITION", p.nameW) + " ")
	if p.colHeader != "" {
		hb.WriteString(p.colHeader)
	}
	for _, r := range p.racks {
		if p.colHeader != "" {
			break
		}
		hb.WriteString("│ " + cell.Fit(r.label, p.colW-2))
	}
	out = append(out, st.Header.S(cell.Fit(hb.String(), p.w)))
	from, to := p.win.Visible()
	for i := from; i < to; i++ {
		out = append(out, p.renderRow(st, i))
	}
	legend := " " + st.Accent.S("+n") + st.Muted.S(" copied to n  ") + st.Danger.S("−n") + st.Muted.S(" removed from n  ") +
		st.Leader.S("n*") + st.Muted.S(" new preferred leader")
	if p.legend != "" {
		legend = " " + st.Muted.S(p.legend)
	}
	if n := len(p.moves); n > p.win.H {
		legend += st.Muted.S("  ·  rows " + cell.Thousands(from+1) + "–" + cell.Thousands(to) + " of " + cell.Thousands(n))
	}
	out = append(out, cell.Clip(legend, p.w))
	return out
}

// opsView is the exact multi (`w`): its lines wrapped to the width
// (in layout), nil while they are read.
type opsView struct {
	wrapped []string
	err     error
	win     *cursor.Window
	// steps is how many multis are written one after the other (a
	// drain's leadership step first); their lines start with "first: "
	// or "then: ".
	steps int
	// throttled: a last multi removes the throttles once every
	// partition is done (throttles.go).
	throttled bool
}

func (o *opsView) lines(st *theme.Styles, out []string, w, h int) []string {
	if o.steps > 1 {
		out = append(out, "", cell.Clip(" "+st.Bold.S("Written in "+strconv.Itoa(o.steps)+" steps, one ZooKeeper multi each")+
			st.Muted.S(" — the leaders first, then the replicas (w or esc closes)"), w))
	} else {
		out = append(out, "", cell.Clip(" "+st.Bold.S("Written in one ZooKeeper multi")+
			st.Muted.S(" — all or nothing; the controller then moves the replicas (w or esc closes)"), w))
	}
	if o.throttled {
		out = append(out, cell.Clip(" "+st.Muted.S("When every partition is done, a last multi removes the throttles."), w))
	}
	switch {
	case o.err != nil:
		for _, l := range wizard.Wrap(o.err.Error(), w, 1) {
			out = append(out, st.Error.S(l))
		}
		return out
	case o.wrapped == nil:
		return append(out, " "+st.Muted.S("Reading the configs the throttles change…"))
	}
	ls := o.wrapped
	o.win.SetN(len(ls))
	o.win.SetH(max(h-len(out), 1))
	from, to := o.win.Visible()
	for i := from; i < to; i++ {
		if strings.HasPrefix(ls[i], "first: ") || strings.HasPrefix(ls[i], "then: ") {
			out = append(out, " "+st.Leader.S(ls[i]))
			continue
		}
		out = append(out, "   "+wizard.OpLine(st, ls[i]))
	}
	return out
}

// throttleText names a throttle.
func throttleText(t int64) string {
	if t < 0 {
		return "none"
	}
	return strconv.FormatInt(t>>20, 10) + " MiB/s"
}

// headLines are the preview's lines above the map: what is drained, the
// counts of both strategies, the throttle, the warnings and the note.
func (m *Model) headLines() []string {
	if m.kind == kindElect {
		return m.electHeadLines()
	}
	if m.kind == kindAdd {
		return m.addHeadLines()
	}
	st := &m.st
	w := m.w
	var title string
	if m.topic != "" {
		title = " " + st.Bold.S("Reassign topic ") + st.Accent.S(m.topic)
		if m.snap != nil {
			if t := m.snap.Topic(m.topic); t != nil {
				title += st.Muted.S("  ·  " + text.Count(len(t.Partitions), "partition"))
			}
		}
		rf := "  ·  replication factor " + strconv.Itoa(m.curRF)
		if m.rf != m.curRF {
			rf += " → " + strconv.Itoa(m.rf)
		}
		title += st.Bold.S(rf) + st.Muted.S(" (+/−)")
	} else {
		title = " " + st.Bold.S("Drain broker ") + st.Accent.S(strconv.Itoa(m.broker))
		if s := m.snap; s != nil {
			if b, ok := s.Broker(m.broker); ok {
				if b.HasRack {
					title += st.Muted.S(" (" + b.Rack + ")")
				}
				title += st.Muted.S("  ·  holds " + text.Count(b.Replicas, "replica") + ", leads " + strconv.Itoa(b.Leaders))
				if !b.Live {
					title += st.Danger.S("  ·  offline")
				}
			}
		}
	}
	out := []string{cell.Clip(title, w)}
	if m.gen == nil {
		msg := "Planning…"
		if m.planErr != nil {
			msg = "No plan: " + m.planErr.Error()
		}
		for _, l := range wizard.Wrap(msg, w, 1) {
			out = append(out, st.Error.If(m.planErr != nil).S(l))
		}
		return out
	}
	if len(m.moves) == 0 {
		msg := "Nothing to move: broker " + strconv.Itoa(m.broker) + " holds no replica."
		if m.topic != "" {
			msg = "Nothing to move: every partition is where the " + m.strategy.String() + " strategy would put it (s switches, +/− changes the replication factor)."
		}
		for _, l := range wizard.Wrap(msg, w, 1) {
			out = append(out, st.Online.S(l))
		}
		if m.topic == "" || m.strategy != clusterops.StrategyMinimal || m.gen.Count(clusterops.StrategyKafka).Replicas == 0 {
			return out
		}
		out = append(out, cell.Clip(" "+st.Muted.S("○ kafka: "+cell.Thousands(m.gen.Kafka.Replicas)+" of "+cell.Thousands(m.gen.Kafka.TotalReplicas)+" replicas would be copied"), w))
		return out
	}
	line := func(stg clusterops.Strategy) string {
		c := m.gen.Count(stg)
		s := stg.String() + ": " + cell.Thousands(c.Replicas) + " of " + cell.Thousands(c.TotalReplicas) + " replicas copied, " +
			cell.Thousands(c.Leaders) + " preferred leaders change"
		if stg == m.strategy {
			return st.SelectedMark.S("◉ ") + st.Bold.S(s)
		}
		return st.Muted.S("○ " + s)
	}
	out = append(out, cell.Clip(" "+line(clusterops.StrategyMinimal), w), cell.Clip(" "+line(clusterops.StrategyKafka), w))
	out = append(out, cell.Clip(" "+st.Muted.S(text.Count(len(m.moves), "partition")+" move · rack-safe · throttle ")+st.Text.S(throttleText(m.throttle))+st.Muted.S(removedWhenDone(m.throttle)), w))
	if l, on := m.leadLine(w); l != "" {
		ink := st.Muted
		if on {
			ink = st.Leader
		}
		for _, x := range wizard.Wrap(l, w, 1) {
			out = append(out, ink.S(x))
		}
	}
	var warns []string
	if n := m.warn.SpreadLost; n > 0 {
		warns = append(warns, text.Count(n, "partition")+" would span fewer racks than now")
	}
	if n := m.warn.RFAboveRack; n > 0 {
		warns = append(warns, text.Count(n, "partition")+" have more replicas than there are racks")
	}
	if len(m.warn.Offline) > 0 {
		warns = append(warns, "target "+text.Plural(len(m.warn.Offline), "broker ", "brokers ")+text.Ints(m.warn.Offline)+" offline: their copies wait until they return")
	}
	if c := m.cannotLine(); c != "" && m.leadFirst {
		warns = append(warns, c)
	}
	if b, ok := m.snap.Broker(m.broker); ok && !b.Live && m.topic == "" {
		warns = append(warns, "broker "+strconv.Itoa(m.broker)+" is offline: the new replicas copy from the other replicas")
	}
	for _, wn := range warns {
		for _, l := range wizard.Wrap("⚠ "+wn, w, 1) {
			out = append(out, st.Warning.S(l))
		}
	}
	if m.note != "" {
		ink := st.Muted
		if m.noteErr {
			ink = st.Error
		}
		for _, l := range wizard.Wrap(m.note, w, 1) {
			out = append(out, ink.S(l))
		}
	}
	return out
}

// addHeadLines are the lines above the map when adding partitions.
func (m *Model) addHeadLines() []string {
	st := &m.st
	w := m.w
	title := " " + st.Bold.S("Add partitions to ") + st.Accent.S(m.topic)
	if m.add != nil {
		title += st.Bold.S("  ·  " + strconv.Itoa(m.add.Existing) + " → " + strconv.Itoa(m.count) + " partitions")
	} else if m.count > 0 {
		title += st.Bold.S("  ·  " + strconv.Itoa(m.count) + " partitions")
	}
	title += st.Muted.S(" (+/−)")
	out := []string{cell.Clip(title, w)}
	if m.add == nil {
		msg := "Planning…"
		if m.planErr != nil {
			msg = "No plan: " + m.planErr.Error()
		}
		for _, l := range wizard.Wrap(msg, w, 1) {
			out = append(out, st.Error.If(m.planErr != nil).S(l))
		}
		return out
	}
	rf := 0
	if len(m.moves) > 0 {
		rf = len(m.moves[0].Target)
	}
	out = append(out, cell.Clip(" "+st.Muted.S(text.Count(len(m.moves), "new partition")+" × RF "+strconv.Itoa(rf)+", placed as Kafka places them (start index "+
		strconv.Itoa(m.add.Result.StartIndex)+", from partition 0's first replica); the existing ones, dimmed, do not move"), w))
	for _, l := range wizard.Wrap("⚠ "+clusterops.KeyOrderingWarning, w, 1) {
		out = append(out, st.Warning.S(l))
	}
	if len(m.warn.Offline) > 0 {
		out = append(out, st.Warning.S(" ⚠ target brokers "+text.Ints(m.warn.Offline)+" offline"))
	}
	if m.note != "" {
		ink := st.Muted
		if m.noteErr {
			ink = st.Error
		}
		for _, l := range wizard.Wrap(m.note, w, 1) {
			out = append(out, ink.S(l))
		}
	}
	return out
}
