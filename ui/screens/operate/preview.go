package operate

import (
	"slices"
	"strconv"
	"strings"

	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/clusterops"
	"github.com/ktopo/ktopo/ui/internal/cell"
	"github.com/ktopo/ktopo/ui/internal/cursor"
	"github.com/ktopo/ktopo/ui/internal/heat"
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
	// colHeader and legend replace the matrix's (an election's rows);
	// legendShort replaces legend where it does not fit.
	colHeader, legend, legendShort string
	win                            cursor.Window
	// heatLines are the map when it fits (built in layout).
	heatLines []string

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
	p.w, p.h = w, h
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

func (p *preview) scroll(d int) { p.win.Scroll(d) }

func (p *preview) page(d int) { p.win.Scroll(d * max(p.win.H-1, 1)) }

func (p *preview) end(d int) { p.win.Scroll(d * p.win.N) }

// lines draws the map and the matrix under the head.
func (p *preview) lines(st *theme.Styles, out []string) []string {
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
	rows := ""
	if n := len(p.moves); n > p.win.H {
		rows = "  ·  rows " + cell.Thousands(from+1) + "–" + cell.Thousands(to) + " of " + cell.Thousands(n)
	}
	if p.legendShort != "" && cell.Width(legend)+cell.Width(rows) > p.w {
		legend = " " + st.Muted.S(p.legendShort)
	}
	legend += st.Muted.S(rows)
	out = append(out, cell.Clip(legend, p.w))
	return out
}
