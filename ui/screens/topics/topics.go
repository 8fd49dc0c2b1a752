// Package topics is the topic list: name, partitions, replication factor,
// under-replicated, offline and under-min-ISR partitions, config
// overrides and the deletion mark, and with sizes each topic's bytes on
// disk and growth; `/` filters (substring, or a regular expression after
// ~), `s` cycles the sort column, `enter` opens a topic.
package topics

import (
	"cmp"
	"slices"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/internal/text"
	"github.com/ktopo/ktopo/ui/anim"
	"github.com/ktopo/ktopo/ui/internal/cell"
	"github.com/ktopo/ktopo/ui/internal/cursor"
	"github.com/ktopo/ktopo/ui/internal/filter"
	"github.com/ktopo/ktopo/ui/keys"
	"github.com/ktopo/ktopo/ui/nav"
	"github.com/ktopo/ktopo/ui/theme"
)

// SortKey is a sort column.
type SortKey uint8

// Sort columns, in the order `s` cycles through them.
const (
	ByName SortKey = iota
	ByPartitions
	ByUnderReplicated
	ByOffline
	ByUnderMinISR
	// BySize sorts by the bytes on disk; `s` passes over it while sizes
	// are unknown.
	BySize
	sortKeys
)

var sortNames = [...]string{"name", "partitions", "under-replicated", "offline", "under min ISR", "size"}

// String names the column.
func (k SortKey) String() string { return sortNames[k] }

// Model is the topics screen.
type Model struct {
	st     theme.Styles
	list   keys.List
	fk     keys.Filter
	anims  *anim.Set
	w, h   int
	snap   *cluster.Snapshot
	sort   SortKey
	filter filter.Field

	// idx lists the shown topics as indexes into snap.Topics(); identity
	// (nil) when unfiltered and sorted by name.
	idx     []int32
	dirty   bool
	win     cursor.Window
	health  map[*cluster.Topic]cluster.TopicHealth // for the current snapshot
	selName string

	// sizes (nil: none given; no size columns until some are known) and
	// each topic's, computed per reading (sizes.go).
	sizes      *cluster.Sizes
	topicSizes map[string]topicSize

	renderRow func(t *cluster.Topic, selected bool) string
}

// New returns the screen.
func New(st theme.Styles, km keys.Map, anims *anim.Set) *Model {
	m := &Model{st: st, list: km.List, fk: km.Filter, anims: anims, health: map[*cluster.Topic]cluster.TopicHealth{}}
	m.filter = filter.NewField(st, km.Input, "substring, or ~regex")
	m.renderRow = m.row
	return m
}

// Title implements ui.Screen.
func (m *Model) Title() string { return "Topics" }

// SetSize implements ui.Screen.
func (m *Model) SetSize(w, h int) {
	m.w, m.h = w, h
	m.win.SetH(h - 2)
	m.filter.SetWidth(max(w-20, 10))
}

// SetStyles implements ui.Screen.
func (m *Model) SetStyles(st theme.Styles) { m.st = st; m.filter.SetStyles(st) }

// Capturing reports that the filter field has the keyboard.
func (m *Model) Capturing() bool { return m.filter.Typing() }

// SetSnapshot implements ui.SnapshotSetter. The list is rebuilt lazily.
func (m *Model) SetSnapshot(s *cluster.Snapshot) {
	if s == m.snap {
		return
	}
	m.snap = s
	clear(m.health)
	m.dirty = true
}

// Selected returns the topic under the cursor.
func (m *Model) Selected() (*cluster.Topic, bool) {
	m.refresh()
	if m.win.N == 0 {
		return nil, false
	}
	return m.topic(m.win.Cursor), true
}

// Rows returns the names of the shown topics (for tests).
func (m *Model) Rows() []string {
	m.refresh()
	out := make([]string, m.win.N)
	for i := range out {
		out[i] = m.topic(i).Name
	}
	return out
}

// Sort returns the sort column.
func (m *Model) Sort() SortKey { return m.sort }

func (m *Model) topic(i int) *cluster.Topic {
	ts := m.snap.Topics()
	if m.idx == nil {
		return ts[i]
	}
	return ts[m.idx[i]]
}

func (m *Model) healthOf(t *cluster.Topic) cluster.TopicHealth {
	h, ok := m.health[t]
	if !ok {
		h = m.snap.TopicHealth(t)
		m.health[t] = h
	}
	return h
}

// refresh rebuilds the shown rows after a snapshot, filter or sort change,
// keeping the cursor on the same topic.
func (m *Model) refresh() {
	if !m.dirty || m.snap == nil {
		return
	}
	m.dirty = false
	ts := m.snap.Topics()
	match := m.filter.Matcher()
	if match.Empty() && m.sort == ByName {
		m.idx = nil
		m.win.SetN(len(ts))
	} else {
		idx := m.idx[:0]
		for i, t := range ts {
			if match.Match(t.Name) {
				idx = append(idx, int32(i))
			}
		}
		if m.sort != ByName {
			key := func(t *cluster.Topic) int64 {
				switch m.sort {
				case ByPartitions:
					return int64(len(t.Partitions))
				case ByUnderReplicated:
					return int64(m.healthOf(t).UnderReplicated)
				case ByOffline:
					return int64(m.healthOf(t).Offline)
				case BySize:
					if ts, ok := m.topicSizes[t.Name]; ok {
						return ts.disk
					}
					return -1 // unknown: last
				}
				return int64(m.healthOf(t).UnderMinISR)
			}
			// Biggest first; ties by name (the snapshot order).
			slices.SortStableFunc(idx, func(a, b int32) int { return cmp.Compare(key(ts[b]), key(ts[a])) })
		}
		if idx == nil {
			idx = []int32{}
		}
		m.idx = idx
		m.win.SetN(len(idx))
	}
	m.reselect()
}

func (m *Model) reselect() {
	if m.selName == "" || m.win.N == 0 {
		return
	}
	if m.idx == nil {
		ts := m.snap.Topics()
		i, _ := slices.BinarySearchFunc(ts, m.selName, func(t *cluster.Topic, n string) int { return strings.Compare(t.Name, n) })
		m.win.To(i)
		return
	}
	for i := range m.idx {
		if m.topic(i).Name == m.selName {
			m.win.To(i)
			return
		}
	}
}

func (m *Model) remember() {
	if m.win.N > 0 {
		m.selName = m.topic(m.win.Cursor).Name
	}
}

// ShortHelp implements help.KeyMap: while the filter has the keyboard,
// the keys that act there.
func (m *Model) ShortHelp() []key.Binding {
	if m.filter.Typing() {
		return m.filter.Keys()
	}
	return []key.Binding{m.list.Open, m.fk.Filter, m.fk.Sort}
}

// FullHelp implements help.KeyMap.
func (m *Model) FullHelp() [][]key.Binding {
	if m.filter.Typing() {
		return [][]key.Binding{m.filter.Keys()}
	}
	return [][]key.Binding{
		{m.list.Up, m.list.Down, m.list.PageUp, m.list.PageDown, m.list.Top, m.list.Bottom},
		{m.list.Open, m.fk.Filter, m.fk.Clear, m.fk.Sort},
	}
}

// SetFilter sets the filter text (as if typed).
func (m *Model) SetFilter(s string) {
	m.filter.Set(s)
	m.dirty = true
	m.refresh()
}

// Update implements ui.Screen.
func (m *Model) Update(msg tea.Msg) (tea.Cmd, nav.Request) {
	m.refresh()
	if m.filter.Typing() {
		cmd, typed := m.filter.Update(msg)
		if typed.Changed {
			m.dirty = true
			m.refresh()
		}
		if typed.HandBack {
			return m.Update(msg)
		}
		return cmd, nil
	}
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		switch {
		case cursor.Move(&m.win, &m.list, msg):
		case key.Matches(msg, m.fk.Filter):
			return m.filter.Start(), nil
		case key.Matches(msg, m.fk.Sort):
			m.remember()
			m.sort = (m.sort + 1) % sortKeys
			if m.sort == BySize && !m.sizes.Known() {
				m.sort = ByName
			}
			m.dirty = true
			m.refresh()
			return nil, nil
		case key.Matches(msg, m.list.Open):
			if t, ok := m.Selected(); ok {
				return nil, nav.OpenTopic{Topic: t.Name, Partition: -1}
			}
		}
		m.remember()
	case tea.MouseWheelMsg:
		cursor.Wheel(&m.win, msg)
		m.remember()
	}
	return nil, nil
}

// Back handles esc: it clears an active filter first. It reports whether
// it used the key.
func (m *Model) Back() bool {
	if m.filter.Active() {
		m.remember()
		m.SetFilter("")
		return true
	}
	return false
}

// column widths
const (
	cPart = 7
	cRF   = 4
	cURP  = 7
	cOff  = 9
	cMin  = 9
	cDel  = 10
)

func (m *Model) nameW() int {
	fixed := 1 + cPart + cRF + m.sizeW() + cURP + cOff + cMin + cDel + 1
	cfg := 24
	switch {
	case m.w >= 120:
		cfg = 48
	case m.sizeW() > 0:
		// The size column's room comes out of the configs' (a name cut
		// short is worse than an override list cut short).
		cfg = 14
	}
	return min(max(m.w-fixed-cfg, 12), 60)
}

// View implements ui.Screen.
func (m *Model) View() string {
	if m.w <= 0 || m.h <= 0 {
		return ""
	}
	m.refresh()
	st := m.st
	lines := make([]string, 0, m.h)
	total := 0
	if m.snap != nil {
		total = len(m.snap.Topics())
	}
	title := " " + st.Bold.S("Topics") + st.Muted.S("  "+cell.Thousands(m.win.N)+" of "+cell.Thousands(total)+"  ·  sorted by "+m.sort.String())
	title += m.filter.Title(&st, "  (esc clears)") + m.sizesNote()
	lines = append(lines, cell.Clip(title, m.w))
	nw := m.nameW()
	mark := func(k SortKey, s string, w int, right bool) string {
		if m.sort == k {
			s += "▼"
		}
		if right {
			return cell.FitRight(s, w-1) + " "
		}
		return cell.Fit(s, w)
	}
	hdr := " " + mark(ByName, "NAME", nw, false) + mark(ByPartitions, "PARTS", cPart, true) + cell.FitRight("RF", cRF-1) + " "
	if m.sizes.Known() {
		hdr += mark(BySize, "SIZE", cSize, true)
		if m.growthShown() {
			hdr += cell.FitRight("GROWTH", cGrowth-1) + " "
		}
	}
	hdr += mark(ByUnderReplicated, "URP", cURP, true) + mark(ByOffline, "OFFLINE", cOff, true) + mark(ByUnderMinISR, "<MINISR", cMin, true) +
		" " + cell.Fit("DELETING", cDel-1) + "CONFIG OVERRIDES"
	lines = append(lines, st.Header.S(cell.Fit(hdr, m.w)))
	if m.snap == nil {
		lines = append(lines, " "+st.Muted.S("Loading…"))
		return cell.Lines(lines, m.h)
	}
	from, to := m.win.Visible()
	for i := from; i < to; i++ {
		lines = append(lines, m.renderRow(m.topic(i), i == m.win.Cursor))
	}
	if m.win.N == 0 {
		msg := "No topics."
		if !m.filter.Matcher().Empty() {
			msg = "No topic matches the filter."
		}
		lines = append(lines, " "+st.Muted.S(msg))
	}
	return cell.Lines(lines, m.h)
}

func (m *Model) row(t *cluster.Topic, selected bool) string {
	st := &m.st
	h := m.healthOf(t)
	num := func(n, w int, bad theme.Ink) string {
		s := cell.FitRight(strconv.Itoa(n), w-1) + " "
		if n == 0 {
			return st.Muted.Unless(selected).S(s)
		}
		return bad.Unless(selected).S(s)
	}
	nw := m.nameW()
	nameInk := st.Text
	if t.Internal() {
		nameInk = st.Muted
	}
	if lvl := m.anims.Level(anim.Key{Topic: t.Name, Field: anim.FieldTopic}); lvl >= 0 {
		nameInk = st.FlashRamp[lvl]
	}
	del := ""
	if t.MarkedForDeletion {
		del = "yes"
	}
	cfgW := max(m.w-(1+nw+cPart+cRF+m.sizeW()+cURP+cOff+cMin+cDel), 0)
	var cfg string
	switch {
	case t.ConfigErr != nil:
		cfg = "(unreadable)"
	case len(t.Config) > 0:
		var b strings.Builder
		for i, e := range t.Config {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(e.Key + "=" + e.Value)
			if b.Len() > cfgW {
				break
			}
		}
		cfg = b.String()
	}
	line := " " + nameInk.Unless(selected).S(cell.Fit(t.Name, nw)) + cell.FitRight(cell.Thousands(len(t.Partitions)), cPart-1) + " " +
		cell.FitRight(text.Range(t.ReplicationFactors()), cRF-1) + " " + m.sizeCells(t, selected) +
		num(h.UnderReplicated, cURP, st.Warning) + num(h.Offline, cOff, st.Danger) + num(h.UnderMinISR, cMin, st.Danger) +
		" " + st.Danger.Unless(selected).S(cell.Fit(del, cDel-1)) + st.Muted.Unless(selected).S(cell.Fit(cfg, cfgW))
	return st.Selected.If(selected).S(line)
}
