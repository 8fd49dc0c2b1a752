package topics

import (
	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/ui/internal/cell"
)

// The topics' sizes: a SIZE column (the topic's bytes on disk over all its
// replicas) and, on a wide screen, a GROWTH column (its partitions'
// growth since the reading before), "—" for a topic no broker reported.
// While no size is known the columns are left out and the title says
// why. Each topic's are computed once per reading (SetSizes), never per
// frame.

const (
	cSize   = 11
	cGrowth = 12
	// growthMinW is the width from which the growth column is shown.
	growthMinW = 120
)

// topicSize is what a row shows of a topic's sizes.
type topicSize struct {
	disk   int64
	rate   float64
	rateOK bool
	// cells are the formatted size and growth.
	size, growth string
}

// SetSizes implements ui.SizesSetter.
func (m *Model) SetSizes(s *cluster.Sizes) {
	if s == m.sizes {
		return
	}
	m.sizes = s
	m.topicSizes = nil
	if s.Known() {
		names := s.Topics()
		m.topicSizes = make(map[string]topicSize, len(names))
		for _, name := range names {
			disk, _, ok := s.TopicBytes(name)
			if !ok {
				continue
			}
			ts := topicSize{disk: disk, size: cluster.FormatBytes(disk), growth: "—"}
			if r, ok := s.TopicRate(name); ok {
				ts.rate, ts.rateOK = r, true
				ts.growth = "+" + cluster.FormatRate(r)
			}
			m.topicSizes[name] = ts
		}
	} else if m.sort == BySize {
		m.sort = ByName // nothing to sort by
	}
	if m.sort == BySize || !s.Known() {
		m.remember()
		m.dirty = true
	}
}

// sizeW is the width of the size columns (0 without sizes).
func (m *Model) sizeW() int {
	switch {
	case !m.sizes.Known():
		return 0
	case m.growthShown():
		return cSize + cGrowth
	}
	return cSize
}

func (m *Model) growthShown() bool { return m.sizes.Known() && m.w >= growthMinW }

// sizeCells are a row's size columns.
func (m *Model) sizeCells(t *cluster.Topic, selected bool) string {
	if !m.sizes.Known() {
		return ""
	}
	st := &m.st
	ts, ok := m.topicSizes[t.Name]
	if !ok {
		s := st.Muted.Unless(selected).S(cell.FitRight("—", cSize-1) + " ")
		if m.growthShown() {
			s += st.Muted.Unless(selected).S(cell.FitRight("—", cGrowth-1) + " ")
		}
		return s
	}
	ink := st.Text
	if m.sizes.StaleWhy != "" {
		ink = st.Muted
	}
	s := ink.Unless(selected).S(cell.FitRight(ts.size, cSize-1) + " ")
	if m.growthShown() {
		gi := st.Muted
		if ts.rateOK && ts.rate > 0 {
			gi = st.Text
		}
		s += gi.Unless(selected).S(cell.FitRight(ts.growth, cGrowth-1) + " ")
	}
	return s
}

// sizesNote is what the title says of the sizes: why they are unknown, or
// that they are stale ("" when known and fresh, or none given).
func (m *Model) sizesNote() string {
	switch {
	case m.sizes == nil:
		return ""
	case !m.sizes.Known():
		return m.st.Muted.S("  ·  " + m.sizes.Why())
	case m.sizes.StaleWhy != "":
		return m.st.Warning.S("  ·  sizes stale (newer " + m.sizes.StaleWhy + ")")
	}
	return ""
}
