package topic

import (
	"strconv"
	"strings"

	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/ui/internal/cell"
	"github.com/ktopo/ktopo/ui/theme"
)

// A topic's sizes: the title says its bytes on disk and growth, each
// partition its size (its largest replica's) and, where there is room,
// each replica's in the order of its replicas, a replica far behind the
// largest in the warning colour, a future replica (moving between the
// broker's log directories) after them as ⇢broker:size. Computed per
// reading and per change of the topic (sizeRows), never per frame.

const (
	cSize = 10
	// A replica lags when it holds under lagShare of the partition's
	// largest replica and more than lagBytes less, or the broker reports
	// its log end more than lagOffsets behind the high watermark: on a
	// partition that is written to, a follower that has not caught up
	// (a new replica copying, or one fallen out of the ISR).
	lagShare   = 0.9
	lagBytes   = 1 << 20
	lagOffsets = 10_000
	// replSizesMinState is the room the STATE column keeps before the
	// replicas' sizes are shown.
	replSizesMinState = 24
)

// replSize is one replica's cell.
type replSize struct {
	text string // "1.2G", "?" when not reported, "⇢3:640M" for a future one
	lag  bool
}

// partSize is what a row shows of a partition's sizes.
type partSize struct {
	known bool
	size  string
	repls []replSize
	w     int // the replicas' cells' width, spaces between included
	lag   bool
	// future: a replica is moving between a broker's log directories.
	future bool
}

// SetSizes implements ui.SizesSetter.
func (m *Model) SetSizes(s *cluster.Sizes) {
	if s == m.sizes {
		return
	}
	m.sizes = s
	m.sizedFor = nil
	m.buildSizes()
}

// buildSizes starts over the rows' sizes when the sizes or the topic
// changed: the title's bytes and the replica sizes' column width now, each
// row's sizes when it is first drawn (partSizeAt). A big topic changes
// with every leader move or ISR change, and reading 50,000 partitions'
// replicas then would cost tens of milliseconds a batch.
func (m *Model) buildSizes() {
	if m.sizes == nil || m.t == nil || m.t == m.sizedFor {
		return
	}
	m.sizedFor = m.t
	s := m.sizes
	m.sizeTitle = ""
	clear(m.partSizes)
	m.replSizesW = 0
	if !s.Known() {
		return
	}
	if disk, _, ok := s.TopicBytes(m.name); ok {
		m.sizeTitle = cluster.FormatBytes(disk) + " on disk"
		if r, ok := s.TopicRate(m.name); ok {
			m.sizeTitle += ", +" + cluster.FormatRate(r)
		}
	}
	most := 0
	for _, p := range m.t.Partitions {
		most = max(most, len(p.Replicas))
	}
	// Each replica's cell is at most 5 columns and a space (shortBytes);
	// a future replica, rare, may push its row's state along.
	m.replSizesW = max(most*(maxShort+1)-1, 0)
}

// partSizeAt is the sizes of the topic's partition at index i, computed
// once per reading and topic.
func (m *Model) partSizeAt(i int) partSize {
	if i < 0 || i >= len(m.t.Partitions) || !m.sizes.Known() {
		return partSize{size: "—"}
	}
	if ps, ok := m.partSizes[i]; ok {
		return ps
	}
	if m.partSizes == nil {
		m.partSizes = map[int]partSize{}
	}
	ps := partSizeOf(m.sizes, m.name, m.t.Partitions[i])
	m.partSizes[i] = ps
	return ps
}

// partSizeOf is partition p's sizes.
func partSizeOf(s *cluster.Sizes, topic string, p *cluster.Partition) partSize {
	ps, ok := s.Partition(topic, p.ID)
	if !ok {
		return partSize{size: "—"}
	}
	largest, _ := ps.Largest()
	out := partSize{known: true, size: cluster.FormatBytes(max(largest, 0))}
	add := func(r replSize) {
		if len(out.repls) > 0 {
			out.w++
		}
		out.repls = append(out.repls, r)
		out.w += cell.Width(r.text)
		out.lag = out.lag || r.lag
	}
	lags := func(r cluster.ReplicaSize) bool {
		behind := largest - r.Bytes
		return (float64(r.Bytes) < lagShare*float64(largest) && behind > lagBytes) || r.OffsetLag > lagOffsets
	}
	for _, id := range p.Replicas {
		r, ok := s.Replica(topic, p.ID, id)
		if !ok {
			add(replSize{text: "?"})
			continue
		}
		add(replSize{text: shortBytes(r.Bytes), lag: lags(r)})
	}
	for _, r := range ps.Replicas {
		if r.Future {
			// A future replica is behind by nature (it is being
			// copied): marked as moving, never as lagging.
			add(replSize{text: "⇢" + strconv.Itoa(int(r.Broker)) + ":" + shortBytes(r.Bytes)})
			out.future = true
		}
	}
	return out
}

// maxShort is shortBytes' widest.
const maxShort = 5

// shortBytes writes n in at most five columns: "812M", "1.2G", "12G".
func shortBytes(n int64) string {
	if n < 1024 {
		return strconv.FormatInt(max(n, 0), 10) + "B"
	}
	v := float64(n)
	for _, u := range []string{"K", "M", "G", "T", "P"} {
		v /= 1024
		if v < 1024 || u == "P" {
			if v < 10 {
				return strconv.FormatFloat(v, 'f', 1, 64) + u
			}
			return strconv.FormatFloat(v, 'f', 0, 64) + u
		}
	}
	return "?"
}

// sizesShown reports whether the size columns are shown: sizes are known
// (unknown ones are the title's reason, the columns left out).
func (m *Model) sizesShown() bool { return m.sizes.Known() }

// replSizesShown reports whether the replicas' sizes fit beside the
// other columns, leaving the state its room.
func (m *Model) replSizesShown(fixed int) bool {
	return m.sizes.Known() && m.replSizesW > 0 && m.w-fixed-cSize-m.replSizesCol() >= replSizesMinState
}

// replSizesCol is the replica sizes' column width.
func (m *Model) replSizesCol() int { return max(m.replSizesW, len("REPLICA SIZES")) + 2 }

// sizeHeader is the size columns' header.
func (m *Model) sizeHeader(fixed int) string {
	if !m.sizesShown() {
		return ""
	}
	h := cell.FitRight("SIZE", cSize-2) + "  "
	if m.replSizesShown(fixed) {
		h += cell.Fit("REPLICA SIZES", m.replSizesCol())
	}
	return h
}

// sizeCells are a row's size columns and their width.
func (m *Model) sizeCells(p *cluster.Partition, i int, fixed int, selected bool) (string, int) {
	if !m.sizesShown() {
		return "", 0
	}
	st := &m.st
	ps := m.partSizeAt(i)
	ink := st.Text
	switch {
	case !ps.known:
		ink = st.Muted
	case m.sizes.StaleWhy != "":
		ink = st.Muted
	}
	showRepl := m.replSizesShown(fixed)
	size := ps.size
	switch {
	case showRepl:
	case ps.lag:
		// No room for the replicas: the partition's size says one lags,
		size += "!"
		ink = st.Warning
	case ps.future:
		// or that one moves between log directories.
		size += "⇢"
		ink = st.Accent
	}
	out := ink.Unless(selected).S(cell.FitRight(size, cSize-2)) + "  "
	w := cSize
	if showRepl {
		col := m.replSizesCol()
		gap := max(col-ps.w, 2) // a future replica may overflow the column
		out += replCells(st, ps, selected) + cell.Spaces(gap)
		w += ps.w + gap
	}
	return out, w
}

// replCells draws a partition's replica sizes.
func replCells(st *theme.Styles, ps partSize, selected bool) string {
	var b strings.Builder
	for i, r := range ps.repls {
		if i > 0 {
			b.WriteByte(' ')
		}
		ink := st.Muted
		switch {
		case r.lag:
			ink = st.Warning
		case strings.HasPrefix(r.text, "⇢"):
			ink = st.Accent
		case r.text != "?":
			ink = st.Text
		}
		b.WriteString(ink.Unless(selected).S(r.text))
	}
	return b.String()
}

// sizesNote is the title's word on the sizes: the topic's bytes, why they
// are unknown, or that they are stale.
func (m *Model) sizesNote() string {
	st := &m.st
	switch {
	case m.sizes == nil:
		return ""
	case !m.sizes.Known():
		return st.Muted.S("  ·  " + m.sizes.Why())
	case m.sizes.StaleWhy != "":
		note := "stale sizes (newer " + m.sizes.StaleWhy + ")"
		if m.sizeTitle != "" {
			note = m.sizeTitle + ", " + note
		}
		return "  " + st.Warning.S(note)
	case m.sizeTitle != "":
		return st.Muted.S("  ·  " + m.sizeTitle)
	}
	return ""
}

// indexOf is p's index in the topic's partitions (-1: not there), which
// the rows' sizes are kept by.
func (m *Model) indexOf(p *cluster.Partition) int {
	ps := m.t.Partitions
	if p.ID >= 0 && p.ID < len(ps) && ps[p.ID] == p {
		return p.ID
	}
	for i := range ps {
		if ps[i] == p {
			return i
		}
	}
	return -1
}
