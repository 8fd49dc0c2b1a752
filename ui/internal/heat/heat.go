// Package heat draws the load of brokers by rack as a heat map: a line per
// rack and per broker with bars of its replicas and leaders (scaled to the
// busiest live one), the count and its distance from the live brokers'
// mean, tinted from balanced to skewed, so that skew shows at a glance. A load can carry its value
// after a change (a plan's), drawn as before→after, for an operation's
// preview; a line can end with a note (the overview's leader imbalance).
package heat

import (
	"strconv"
	"strings"

	"github.com/ktopo/ktopo/ui/internal/cell"
	"github.com/ktopo/ktopo/ui/theme"
)

// Load is a replica and leader count.
type Load struct{ Replicas, Leaders int }

// Broker is one broker's line.
type Broker struct {
	ID   int
	Live bool
	Load Load
	// After, when set, is the load after a change: the bars and the
	// distance from the mean show it, the counts read before→after.
	After *Load
	// Note ends the line, in NoteInk.
	Note    string
	NoteInk theme.Ink
}

// now is the load the bars show.
func (b *Broker) now() Load {
	if b.After != nil {
		return *b.After
	}
	return b.Load
}

// Rack is a group of brokers, in the order they are drawn.
type Rack struct {
	Label   string
	Brokers []Broker
}

// Height is the number of lines Lines returns: the header, then a line per
// rack (when there are several) and per broker.
func Height(racks []Rack) int {
	n := 1
	if len(racks) > 1 {
		n += len(racks)
	}
	for i := range racks {
		n += len(racks[i].Brokers)
	}
	return n
}

// Column widths: the label, the count (before→after fits), the distance.
const (
	labelW = 15
	countW = 10
	devW   = 6
	// MinWidth is the narrowest terminal the map is drawn for.
	MinWidth = 60
)

// eighths are the partial blocks of a bar's last cell.
var eighths = [...]string{"", "▏", "▎", "▍", "▌", "▋", "▊", "▉"}

// bar is v of max in w cells, to an eighth of a cell (full beyond max).
func bar(v, most, w int) string {
	if most <= 0 || v <= 0 || w <= 0 {
		return cell.Spaces(w)
	}
	v = min(v, most)
	e := v * w * 8 / most
	if e == 0 {
		e = 1 // something is not nothing
	}
	full, part := e/8, e%8
	s := strings.Repeat("█", full) + eighths[part]
	n := full
	if part > 0 {
		n++
	}
	return s + cell.Spaces(w-n)
}

// stats are the mean and the largest value of one measure.
type stats struct {
	sum, n, most int
}

func (s *stats) add(v int) {
	s.sum += v
	s.n++
	s.most = max(s.most, v)
}

// deviation is v's distance from the mean in percent, and its ink:
// within 10 % balanced, within 25 % a warning, beyond that skewed.
func (s *stats) deviation(st *theme.Styles, v int) (string, theme.Ink) {
	if s.n == 0 || s.sum == 0 {
		return "", st.Muted
	}
	// v/mean − 1 in whole percent, rounded towards zero.
	d := (v*s.n - s.sum) * 100 / s.sum
	txt := strconv.Itoa(d) + "%"
	if d > 0 {
		txt = "+" + txt
	} else if d < 0 {
		txt = "−" + strconv.Itoa(-d) + "%"
	}
	switch a := max(d, -d); {
	case a <= 10:
		return txt, st.Online
	case a <= 25:
		return txt, st.Warning
	}
	return txt, st.Danger
}

func count(l Load, after *Load, replicas bool) string {
	v := func(l Load) int {
		if replicas {
			return l.Replicas
		}
		return l.Leaders
	}
	if after != nil && v(*after) != v(l) {
		return cell.Thousands(v(l)) + "→" + cell.Thousands(v(*after))
	}
	return cell.Thousands(v(l))
}

// Lines draws the map in w columns (at least MinWidth); the header names
// the columns and the means, and noteHead the notes' column.
func Lines(st *theme.Styles, racks []Rack, w int, noteHead string) []string {
	// The means are over the live brokers (and the racks that have one):
	// they carry the load; a broker that is down is measured against them.
	var rep, lead, rackRep, rackLead stats
	rackNow := make([]Load, len(racks))
	for i := range racks {
		live := false
		for j := range racks[i].Brokers {
			b := &racks[i].Brokers[j]
			l := b.now()
			rackNow[i].Replicas += l.Replicas
			rackNow[i].Leaders += l.Leaders
			if b.Live {
				rep.add(l.Replicas)
				lead.add(l.Leaders)
				live = true
			}
		}
		if live {
			rackRep.add(rackNow[i].Replicas)
			rackLead.add(rackNow[i].Leaders)
		}
	}
	// Each measure is a bar, a space, the count, the distance and a space;
	// the bars get two fifths of what the fixed columns leave, the note the
	// rest.
	w = max(w, MinWidth)
	rest := w - 1 - labelW - 2*(countW+devW+2)
	barW := min(max(rest/5, 4), 40)
	noteW := max(rest-2*barW, 0)
	mean := func(s stats) string {
		if s.n == 0 {
			return "0"
		}
		m := s.sum * 10 / s.n
		return cell.Thousands(m/10) + "." + strconv.Itoa(m%10)
	}
	head := " " + cell.Fit("LOAD", labelW) + cell.Fit("replicas (mean "+mean(rep)+")", barW+1+countW+devW) + " " +
		cell.Fit("leaders (mean "+mean(lead)+")", barW+1+countW+devW) + " "
	out := make([]string, 0, Height(racks))
	out = append(out, st.Header.S(cell.Fit(head, w-noteW))+st.Header.S(cell.Fit(noteHead, noteW)))
	line := func(label string, labelInk theme.Ink, l Load, after *Load, rs, ls *stats, note string, noteInk theme.Ink) string {
		now := l
		if after != nil {
			now = *after
		}
		var b strings.Builder
		b.WriteByte(' ')
		labelInk.Put(&b, cell.Fit(label, labelW))
		for _, m := range []struct {
			v        int
			s        *stats
			replicas bool
		}{{now.Replicas, rs, true}, {now.Leaders, ls, false}} {
			dev, ink := m.s.deviation(st, m.v)
			ink.Put(&b, bar(m.v, m.s.most, barW))
			b.WriteByte(' ')
			b.WriteString(cell.FitRight(count(l, after, m.replicas), countW-1) + " ")
			ink.Put(&b, cell.Fit(dev, devW))
			b.WriteByte(' ')
		}
		if note != "" {
			noteInk.Put(&b, cell.Fit(note, noteW))
		}
		return b.String()
	}
	for i := range racks {
		r := &racks[i]
		if len(racks) > 1 {
			var after *Load
			if hasAfter(r.Brokers) {
				before := Load{}
				for j := range r.Brokers {
					before.Replicas += r.Brokers[j].Load.Replicas
					before.Leaders += r.Brokers[j].Load.Leaders
				}
				after = &rackNow[i]
				out = append(out, line(r.Label, st.Accent, before, after, &rackRep, &rackLead, "", st.Muted))
			} else {
				out = append(out, line(r.Label, st.Accent, rackNow[i], nil, &rackRep, &rackLead, "", st.Muted))
			}
		}
		for j := range r.Brokers {
			b := &r.Brokers[j]
			label, ink := "  broker "+strconv.Itoa(b.ID), st.Text
			if len(racks) <= 1 {
				label = "broker " + strconv.Itoa(b.ID)
			}
			if !b.Live {
				label += " off"
				ink = st.Danger
			}
			out = append(out, line(label, ink, b.Load, b.After, &rep, &lead, b.Note, b.NoteInk))
		}
	}
	return out
}

func hasAfter(bs []Broker) bool {
	for i := range bs {
		if bs[i].After != nil {
			return true
		}
	}
	return false
}
