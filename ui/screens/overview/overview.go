// Package overview is the cluster screen: a header with the cluster's
// counts, then the racks as columns with a card per broker (id, address,
// replicas, leaders, preferred-leader share), the controller badged with
// its epoch and brokers that hold replicas while unregistered shown
// offline in their last known rack (or under "unknown rack": not seen
// registered since ktopo started).
package overview

import (
	"strconv"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/ui/anim"
	"github.com/ktopo/ktopo/ui/internal/cell"
	"github.com/ktopo/ktopo/ui/internal/cursor"
	"github.com/ktopo/ktopo/ui/internal/heat"
	"github.com/ktopo/ktopo/ui/keys"
	"github.com/ktopo/ktopo/ui/nav"
	"github.com/ktopo/ktopo/ui/theme"
)

const (
	cardH = 6 // lines per card without sizes, borders included
	// maxCardH is a card's height with sizes: the bytes held and a line
	// per log directory (sizes.go).
	maxCardH = cardH + 1 + maxDirLines
	minCardW = 24
	maxCardW = 38
	headH    = 4 // cluster lines + blank + rack header
)

// Model is the overview screen.
type Model struct {
	st      theme.Styles
	list    keys.List
	ops     keys.Ops
	sandbox keys.Sandbox
	anims   *anim.Set
	w, h    int

	snap    *cluster.Snapshot
	connect string
	// noKafka says that the connect string's root holds no Kafka cluster
	// (and where one is), shown while no broker is registered.
	noKafka string

	racks []cluster.Rack

	rack, pos int // cursor: rack column, card within it (-1: the rack's heading)
	rackOff   int // first visible rack column
	rowOff    int // first visible card row

	// Below the cards when there is room (extras.go).
	balance         cluster.BalanceTracker
	ledFromLast     cluster.LedFromLastTracker
	reassignTracker cluster.AllReassignmentsTracker
	reassign        cluster.ReassignmentProgress
	leftThrottles   cluster.LeftThrottles
	unfinished      unfinished
	heatRacks       []heat.Rack
	heatLines       []string
	reassignLines   []string

	// The sizes (nil: none given) and what the cards and headings show of
	// them, computed per reading (sizes.go).
	sizes       *cluster.Sizes
	now         func() time.Time
	sizeLine    string
	brokerSizes map[int]brokerSizes
	rackSizes   []rackSizes
	dirLines    int
	oneDir      bool // every broker reports one log directory

	// renderCard draws one card (its first cardHeight() lines are used); a
	// field so tests can count calls.
	renderCard func(b *cluster.Broker, w int, selected bool) [maxCardH]string
}

// New returns the screen.
func New(st theme.Styles, km keys.Map, anims *anim.Set) *Model {
	m := &Model{st: st, list: km.List, ops: km.Ops, sandbox: km.Sandbox, anims: anims}
	m.renderCard = m.card
	return m
}

// Title implements ui.Screen.
func (m *Model) Title() string { return "Overview" }

// SetSize implements ui.Screen.
func (m *Model) SetSize(w, h int) {
	m.w, m.h = w, h
	m.clamp()
	m.layoutExtras()
}

// SetStyles implements ui.Screen.
func (m *Model) SetStyles(st theme.Styles) {
	m.st = st
	m.buildSizes()
	if m.snap != nil {
		m.buildExtras() // the notes' inks too
	}
}

// Reassignments is the progress of the reassignments, as the overview
// shows it.
func (m *Model) Reassignments() cluster.ReassignmentProgress { return m.reassign }

// SetNoKafka sets what the shell found out about a root without a Kafka
// cluster (zksource.NoKafka's message; "" for none), shown instead of
// an empty cluster while no broker is registered.
func (m *Model) SetNoKafka(msg string) { m.noKafka = msg }

// SetConnect sets the connect string shown in the header.
func (m *Model) SetConnect(s string) { m.connect = s }

// SetSandbox enables the sandbox keys.
func (m *Model) SetSandbox(km keys.Sandbox) { m.sandbox = km }

// SetSnapshot shows a new snapshot. The preferred-leader shares come from
// the model, which keeps them per broker as partitions change.
func (m *Model) SetSnapshot(s *cluster.Snapshot) {
	if s == m.snap {
		return
	}
	m.snap = s
	m.racks = s.Racks()
	m.buildSizes() // the racks' sums, the summary's age
	m.clamp()
	m.buildExtras()
}

// Selected returns the broker under the cursor (none while a rack's
// heading is selected).
func (m *Model) Selected() (int, bool) {
	if m.rack < len(m.racks) && m.pos >= 0 && m.pos < len(m.racks[m.rack].Brokers) {
		return m.racks[m.rack].Brokers[m.pos], true
	}
	return 0, false
}

// SelectedRack returns the rack whose heading is under the cursor.
func (m *Model) SelectedRack() (*cluster.Rack, bool) {
	if m.pos < 0 && m.rack < len(m.racks) {
		return &m.racks[m.rack], true
	}
	return nil, false
}

// Select puts the cursor on broker id.
func (m *Model) Select(id int) {
	for r := range m.racks {
		for i, b := range m.racks[r].Brokers {
			if b == id {
				m.rack, m.pos = r, i
				m.clamp()
				return
			}
		}
	}
}

// ShortHelp implements help.KeyMap.
func (m *Model) ShortHelp() []key.Binding {
	return []key.Binding{m.list.Open, m.ops.WhatIf, m.ops.Drain, m.ops.Elect, m.sandbox.Kill, m.sandbox.Elect, m.sandbox.MoveController}
}

// FullHelp implements help.KeyMap.
func (m *Model) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{m.list.Up, m.list.Down, m.list.Left, m.list.Right, m.list.PageUp, m.list.PageDown, m.list.Top, m.list.Bottom, m.list.Open},
		{m.ops.WhatIf, m.ops.Drain, m.ops.Elect, m.sandbox.Kill, m.sandbox.Elect, m.sandbox.MoveController},
	}
}

// Update implements ui.Screen.
func (m *Model) Update(msg tea.Msg) (tea.Cmd, nav.Request) {
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		switch {
		case key.Matches(msg, m.list.Up):
			m.pos--
		case key.Matches(msg, m.list.Down):
			m.pos++
		case key.Matches(msg, m.list.Left):
			m.rack--
		case key.Matches(msg, m.list.Right):
			m.rack++
		case key.Matches(msg, m.list.Top):
			m.pos = 0
		case key.Matches(msg, m.list.Bottom):
			m.pos = 1 << 30
		case key.Matches(msg, m.list.PageDown):
			m.pos += max(m.cardRows()-1, 1)
		case key.Matches(msg, m.list.PageUp):
			m.pos -= max(m.cardRows()-1, 1)
		case key.Matches(msg, m.list.Open):
			if id, ok := m.Selected(); ok {
				return nil, nav.OpenBroker{Broker: id}
			}
		case key.Matches(msg, m.ops.WhatIf):
			if id, ok := m.Selected(); ok {
				return nil, nav.OpenWhatIf{Brokers: []int{id}}
			}
			if r, ok := m.SelectedRack(); ok {
				return nil, nav.OpenWhatIf{Brokers: r.Brokers, Rack: r.Label()}
			}
		case key.Matches(msg, m.ops.Drain):
			if id, ok := m.Selected(); ok {
				return nil, nav.OpenOperation{Op: nav.Operation{Kind: nav.OpDrain, Broker: id}}
			}
		case key.Matches(msg, m.sandbox.Kill):
			if id, ok := m.Selected(); ok {
				return nil, nav.ToggleBroker{Broker: id}
			}
			if r, ok := m.SelectedRack(); ok {
				return nil, nav.ToggleBrokers{Brokers: r.Brokers}
			}
		case key.Matches(msg, m.ops.Elect):
			return nil, nav.OpenOperation{Op: nav.Operation{Kind: nav.OpElect}}
		case key.Matches(msg, m.sandbox.Elect):
			return nil, nav.ElectPreferred{}
		case key.Matches(msg, m.sandbox.MoveController):
			return nil, nav.MoveController{}
		}
		m.clamp()
	case tea.MouseWheelMsg:
		m.pos += cursor.WheelNotch(msg)
		m.clamp()
	}
	return nil, nil
}

func (m *Model) cardRows() int { return max((m.h-m.headH())/m.cardHeight(), 1) }

// headH is headH with a KRaft cluster's quorum line, the sizes' line and
// the racks' line of sizes.
func (m *Model) headH() int {
	h := headH
	if m.snap != nil && m.snap.KRaft() != nil {
		h++
	}
	if m.rackSizesShown() {
		h++
	}
	return h
}

// rackSizesShown reports whether the racks' headings get their line of
// sizes: when sizes are known, unless that line is what keeps the load
// heat map off a screen that would show every card and the heat map
// without it (the heat map says more than a rack's bytes, which its
// cards add up to).
func (m *Model) rackSizesShown() bool {
	if !m.showSizes() {
		return false
	}
	tall := 0
	for _, r := range m.racks {
		tall = max(tall, len(r.Brokers))
	}
	h := headH
	if m.snap != nil && m.snap.KRaft() != nil {
		h++
	}
	room := m.h - h - tall*m.cardHeight() // below every card, without the line
	need := len(m.heatLines) + 1          // the heat map and its blank line
	return len(m.heatLines) == 0 || room-1 >= need || room < need
}

func (m *Model) visibleRacks() (n, cw int) {
	nr := max(len(m.racks), 1)
	n = max(min(nr, (m.w+1)/(minCardW+1)), 1)
	cw = min((m.w-(n-1))/n, maxCardW)
	return n, max(cw, 8)
}

func (m *Model) clamp() {
	if len(m.racks) == 0 {
		m.rack, m.pos, m.rackOff, m.rowOff = 0, 0, 0, 0
		return
	}
	m.rack = min(max(m.rack, 0), len(m.racks)-1)
	m.pos = min(max(m.pos, -1), len(m.racks[m.rack].Brokers)-1)
	n, _ := m.visibleRacks()
	if m.rack < m.rackOff {
		m.rackOff = m.rack
	}
	if m.rack >= m.rackOff+n {
		m.rackOff = m.rack - n + 1
	}
	m.rackOff = min(max(m.rackOff, 0), max(len(m.racks)-n, 0))
	rowsVis := m.cardRows()
	pos := max(m.pos, 0) // the heading scrolls with the first card
	if pos < m.rowOff {
		m.rowOff = pos
	}
	if pos >= m.rowOff+rowsVis {
		m.rowOff = pos - rowsVis + 1
	}
	most := 0
	for i := range m.racks {
		most = max(most, len(m.racks[i].Brokers))
	}
	m.rowOff = min(max(m.rowOff, 0), max(most-rowsVis, 0))
}

// View implements ui.Screen.
func (m *Model) View() string {
	if m.w <= 0 || m.h <= 0 {
		return ""
	}
	lines := make([]string, 0, m.h)
	lines = append(lines, m.header()...)
	if m.snap == nil || len(m.racks) == 0 {
		msg := "No brokers registered."
		if m.snap == nil {
			msg = "Loading the cluster…"
		}
		lines = append(lines, "", " "+m.st.Muted.S(msg))
		if m.snap != nil && m.noKafka != "" {
			lines = append(lines, "")
			for _, l := range strings.Split(ansi.Wrap(m.noKafka, max(m.w-2, 10), ""), "\n") {
				lines = append(lines, " "+m.st.Warning.S(strings.TrimRight(l, " ")))
			}
		}
		return cell.Lines(lines, m.h)
	}
	n, cw := m.visibleRacks()
	from, to := m.rackOff, min(m.rackOff+n, len(m.racks))
	// rack headers
	var hb strings.Builder
	for ri := from; ri < to; ri++ {
		if ri > from {
			hb.WriteByte(' ')
		}
		r := &m.racks[ri]
		label := r.Label()
		stats := " " + cell.Count(len(r.Brokers), "broker") + " · " + cell.Thousands(r.Leaders) + "/" + cell.Thousands(r.Replicas) + " led"
		if cell.Width(label)+cell.Width(stats) > cw {
			stats = ""
		}
		ink := m.st.Accent
		if ri == m.rack {
			ink = m.st.SelectedMark
		}
		if ri == m.rack && m.pos < 0 {
			// The selected heading: marked, and painted whole (reverse
			// without colour).
			hb.WriteString(m.st.Selected.S(cell.Fit("▸ "+label+stats, cw)))
			continue
		}
		hb.WriteString(ink.S(label) + m.st.Muted.S(cell.Fit(stats, cw-cell.Width(label))))
	}
	lines = append(lines, hb.String())
	if m.rackSizesShown() {
		var sb strings.Builder
		for ri := from; ri < to; ri++ {
			if ri > from {
				sb.WriteByte(' ')
			}
			sb.WriteString(m.rackSizeLine(ri, cw))
		}
		lines = append(lines, sb.String())
	}
	vis := m.cardRows()
	ch := m.cardHeight()
	brokers := m.snap
	for row := m.rowOff; row < m.rowOff+vis; row++ {
		var block [maxCardH]strings.Builder
		any := false
		for ri := from; ri < to; ri++ {
			var card [maxCardH]string
			r := &m.racks[ri]
			if row < len(r.Brokers) {
				b, _ := brokers.Broker(r.Brokers[row])
				card = m.renderCard(b, cw, ri == m.rack && row == m.pos)
				any = true
			} else {
				for i := range ch {
					card[i] = cell.Spaces(cw)
				}
			}
			for i := range ch {
				if ri > from {
					block[i].WriteByte(' ')
				}
				block[i].WriteString(card[i])
			}
		}
		if !any {
			break
		}
		for i := range ch {
			lines = append(lines, block[i].String())
		}
	}
	if extra := len(m.racks) - n; extra > 0 && len(lines) < m.h {
		lines = append(lines, m.st.Muted.S(" racks "+strconv.Itoa(from+1)+"–"+strconv.Itoa(to)+" of "+strconv.Itoa(len(m.racks))+"  ←/→ to scroll"))
	}
	// The heat map only whole, the reassignments as far as they fit.
	if len(m.heatLines) > 0 && m.h-len(lines) > len(m.heatLines) {
		lines = append(lines, "")
		lines = append(lines, m.heatLines...)
	}
	if len(m.reassignLines) > 0 && m.h-len(lines) >= 2 {
		lines = append(lines, "")
		room := m.h - len(lines)
		rl := m.reassignLines
		if len(rl) > room {
			rl = append(rl[:room-1:room-1], m.st.Muted.S("   … "+cell.Count(len(m.reassignLines)-room, "more partition")+": open a topic for all of its"))
		}
		lines = append(lines, rl...)
	}
	return cell.Lines(lines, m.h)
}

func (m *Model) header() []string {
	st := m.st
	if m.snap == nil {
		return []string{" " + st.Bold.S("Cluster") + " " + st.Muted.S(m.connect), "", ""}
	}
	s := m.snap
	id := s.ClusterID()
	if id == "" {
		id = "(no cluster id)"
	}
	c := s.Controller()
	ctrl := "no controller"
	if id, epoch, ok := s.KRaftController(); ok && s.KRaft() == nil {
		// A ZooKeeper to KRaft migration: the KRaft controller owns the
		// metadata (its epoch is KRaft's; /controller_epoch is not).
		ctrl = "KRaft controller " + strconv.Itoa(id)
		if epoch >= 0 {
			ctrl += " (epoch " + strconv.Itoa(epoch) + ")"
		}
	} else if c.BrokerID >= 0 {
		ctrl = "controller " + strconv.Itoa(c.BrokerID) + " (epoch " + strconv.Itoa(c.Epoch) + ")"
	}
	if k := s.KRaft(); k != nil && k.QuorumErr != "" && c.BrokerID < 0 {
		ctrl = "controller: " + k.QuorumErr
	}
	l1 := " " + st.Bold.S("Cluster ") + st.Accent.S(id) + st.Muted.S("  ·  "+m.connect+"  ·  ") + st.Controller.S(ctrl)
	if cell.Width(l1) > m.w {
		// Narrow: tighter separators; then, on a KRaft cluster, the epoch
		// only on the quorum line below rather than a cut controller.
		l1 = " " + st.Bold.S("Cluster ") + st.Accent.S(id) + st.Muted.S(" · "+m.connect+" · ") + st.Controller.S(ctrl)
		if k := s.KRaft(); cell.Width(l1) > m.w && c.BrokerID >= 0 && k != nil && k.QuorumErr == "" {
			l1 = " " + st.Bold.S("Cluster ") + st.Accent.S(id) + st.Muted.S(" · "+m.connect+" · ") + st.Controller.S("controller "+strconv.Itoa(c.BrokerID))
		}
	}
	h := s.Health()
	nLive := 0
	for i := range s.Brokers() {
		if s.Brokers()[i].Live {
			nLive++
		}
	}
	nb := len(s.Brokers())
	count := func(label string, n int, bad theme.Ink) string {
		v := cell.Thousands(n)
		if n > 0 {
			v = bad.S(v)
		} else {
			v = st.Bold.S(v)
		}
		return st.Muted.S(label+" ") + v + "   "
	}
	brokers := st.Bold.S(strconv.Itoa(nLive))
	if nLive < nb {
		brokers = st.Danger.S(strconv.Itoa(nLive))
	}
	urp, minISR, live := "under-replicated", "under-min-ISR", " live   "
	if m.w < 100 {
		urp, minISR, live = "URP", "<minISR", "   " // short labels fit 80 columns
	}
	l2 := " " + st.Muted.S("brokers ") + brokers + st.Muted.S("/"+strconv.Itoa(nb)+live) +
		count("topics", len(s.Topics()), st.Bold) + count("partitions", h.Partitions, st.Bold) +
		count(urp, h.UnderReplicated, st.Warning) + count("offline", h.Offline, st.Danger) +
		count(minISR, h.UnderMinISR, st.Danger)
	out := []string{cell.Clip(l1, m.w), cell.Clip(l2, m.w)}
	if q := quorumLine(&m.st, s, m.w); q != "" {
		out = append(out, q)
	}
	// The sizes' line takes the place of the blank line under the
	// counts: the cards keep their room.
	if m.sizeLine != "" {
		return append(out, cell.Clip(m.sizeLine, m.w))
	}
	return append(out, "")
}

// card draws a broker card of width w.
func (m *Model) card(b *cluster.Broker, w int, selected bool) [maxCardH]string {
	st := m.st
	iw := w - 4 // borders and one space of padding on each side
	var out [maxCardH]string
	ch := m.cardHeight()
	border := st.Subtle
	switch {
	case selected:
		border = st.SelectedMark
	case !b.Live:
		border = st.Danger
	}
	// The selected card has a double border: visible without colour too.
	tl, tr, bl, br, hz, vt := "╭", "╮", "╰", "╯", "─", "│"
	if selected {
		tl, tr, bl, br, hz, vt = "╔", "╗", "╚", "╝", "═", "║"
	}
	out[0] = border.S(tl + strings.Repeat(hz, w-2) + tr)
	out[ch-1] = border.S(bl + strings.Repeat(hz, w-2) + br)
	line := func(i int, left string, leftW int, right string, rightW int) {
		gap := iw - leftW - rightW
		if gap < 1 {
			right, gap = "", iw-leftW
		}
		out[i] = border.S(vt) + " " + left + cell.Spaces(gap) + right + " " + border.S(vt)
	}
	// line 1: id and badge
	title := cell.Fit("broker "+strconv.Itoa(b.ID), min(iw, 12))
	tw := cell.Width(title)
	titleInk := st.Bold
	if lvl := m.anims.Level(anim.Key{Field: anim.FieldBroker, Broker: b.ID}); lvl >= 0 {
		titleInk = st.FlashRamp[lvl]
	}
	badge, bw := "", 0
	switch {
	case b.Fenced:
		badge, bw = st.Danger.S("FENCED"), 6
	case !b.Live:
		badge, bw = st.Danger.S("OFFLINE"), 7
	case b.IsController:
		t := "★ ctrl e" + strconv.Itoa(m.snap.Controller().Epoch)
		badge, bw = st.Controller.S(t), cell.Width(t)
	case b.Cordoned:
		badge, bw = st.Warning.S("cordoned"), 8
	default:
		badge, bw = st.Online.S("online"), 6
	}
	line(1, titleInk.S(title), tw, badge, bw)
	// line 2: address or where it was last seen
	addr := b.Addr()
	ink := st.Muted
	switch {
	case b.Fenced:
		addr, ink = strings.TrimSpace("fenced "+addr), st.Offline
	case !b.Live && !b.RackKnown:
		// Down since before ktopo started (or never up): ktopo has not
		// seen it registered, which is all it knows.
		addr, ink = "not registered since ktopo started", st.Offline
		if cell.Width(addr) > iw {
			addr = "not seen registered"
		}
	case !b.Live:
		addr = "last seen " + addr
		ink = st.Offline
	case addr == "":
		addr = "(no endpoint)"
	}
	addr = cell.Fit(addr, iw)
	line(2, ink.S(addr), iw, "", 0)
	// line 3: replicas and leaders
	rep := cell.Count(b.Replicas, "replica") + " · " + cell.Count(b.Leaders, "leader")
	if cell.Width(rep) > iw {
		rep = cell.Thousands(b.Replicas) + " rep · " + cell.Thousands(b.Leaders) + " lead"
	}
	rep = cell.Fit(rep, iw)
	line(3, st.Text.S(rep), iw, "", 0)
	// line 4: preferred-leader share
	var pref string
	pink := st.Muted
	if b.Preferred == 0 {
		pref = "not a preferred leader"
	} else {
		pct := b.PreferredLed * 100 / b.Preferred
		pref = "preferred " + cell.Thousands(b.PreferredLed) + "/" + cell.Thousands(b.Preferred) + " " + strconv.Itoa(pct) + "%"
		switch {
		case pct == 100:
			pink = st.Online
		case pct >= 50:
			pink = st.Warning
		default:
			pink = st.Danger
		}
	}
	pref = cell.Fit(pref, iw)
	line(4, pink.S(pref), iw, "", 0)
	if m.showSizes() {
		for i, l := range m.sizeLines(b.ID, iw) {
			line(5+i, l, iw, "", 0)
		}
	}
	return out
}
