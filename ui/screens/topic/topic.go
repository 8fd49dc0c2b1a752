// Package topic is the screen of one topic: its id and configs, and a
// partition table (partition, leader, replicas with the leader highlighted
// and out-of-sync replicas marked, ISR, leader epoch, state). A change
// flashes its cell and shows old → new for a moment; `u` shows only the
// unhealthy partitions.
package topic

import (
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/internal/text"
	"github.com/ktopo/ktopo/ui/anim"
	"github.com/ktopo/ktopo/ui/internal/cell"
	"github.com/ktopo/ktopo/ui/internal/cursor"
	"github.com/ktopo/ktopo/ui/internal/part"
	"github.com/ktopo/ktopo/ui/keys"
	"github.com/ktopo/ktopo/ui/nav"
	"github.com/ktopo/ktopo/ui/theme"
)

const headLines = 3 // title, configs, column header

// Model is the topic screen.
type Model struct {
	st      theme.Styles
	list    keys.List
	fk      keys.Filter
	sandbox keys.Sandbox
	// reassign opens the operation wizard on the topic (Ops.Reassign).
	reassign key.Binding
	// add opens the operation wizard adding partitions (Ops.AddPartitions).
	add key.Binding
	// elect opens the preferred election wizard on the topic (Ops.Elect,
	// off in the sandbox, whose own Sandbox.Elect runs it at once).
	elect key.Binding
	// configs opens the config editor on the topic (Ops.Configs).
	configs key.Binding
	anims   *anim.Set
	w, h    int

	name      string
	snap      *cluster.Snapshot
	t         *cluster.Topic // nil: deleted or not there yet
	unhealthy bool
	idx       []int32 // shown partitions (indexes into t.Partitions); nil = all
	builtFor  *cluster.Topic
	builtSnap *cluster.Snapshot
	win       cursor.Window
	wantPart  int // partition id to put the cursor on once known, -1 none
	replW     int
	health    cluster.TopicHealth
	// The topic's reassignments: partitions queued in
	// /admin/reassign_partitions and their target, the replicas still to
	// catch up.
	queued     map[int][]int
	catchingUp int

	// The sizes (nil: none given; no size columns until some are known)
	// and what the rows show of them, for the topic sizedFor, each
	// partition's (by its index) once drawn (sizes.go).
	sizes      *cluster.Sizes
	sizedFor   *cluster.Topic
	sizeTitle  string
	partSizes  map[int]partSize
	replSizesW int

	renderRow func(p *cluster.Partition, selected bool) string
}

// New returns the screen for topic name, the cursor on partition (or -1).
func New(st theme.Styles, km keys.Map, anims *anim.Set, name string, partition int) *Model {
	m := &Model{st: st, list: km.List, fk: km.Filter, sandbox: km.Sandbox, reassign: km.Ops.Reassign, add: km.Ops.AddPartitions, elect: km.Ops.Elect, configs: km.Ops.Configs, anims: anims, name: name, wantPart: partition}
	m.renderRow = m.row
	return m
}

// Name is the topic shown.
func (m *Model) Name() string { return m.name }

// Title implements ui.Screen.
func (m *Model) Title() string { return "Topic " + m.name }

// SetSize implements ui.Screen.
func (m *Model) SetSize(w, h int) { m.w, m.h = w, h; m.win.SetH(h - headLines) }

// SetStyles implements ui.Screen.
func (m *Model) SetStyles(st theme.Styles) { m.st = st }

// SetSnapshot implements ui.SnapshotSetter.
func (m *Model) SetSnapshot(s *cluster.Snapshot) {
	if s == m.snap {
		return
	}
	m.snap = s
	m.t = s.Topic(m.name)
	if m.t != nil {
		m.health = s.TopicHealth(m.t)
	}
	m.queued, m.catchingUp = nil, 0
	if r := s.PendingReassignment(); r != nil {
		for _, e := range r.Partitions {
			if e.Topic == m.name {
				if m.queued == nil {
					m.queued = map[int][]int{}
				}
				m.queued[e.Partition] = e.Replicas
			}
		}
	}
	if m.t != nil && m.health.Reassigning > 0 {
		for _, p := range m.t.Partitions {
			if p.Reassigning() {
				m.catchingUp += len(cluster.ReassignStateOf(p).CatchingUp)
			}
		}
	}
	m.rebuild()
	m.buildSizes()
}

// Unhealthy reports whether only unhealthy partitions are shown.
func (m *Model) Unhealthy() bool { return m.unhealthy }

// Cursor returns the partition id under the cursor, or -1.
func (m *Model) Cursor() int {
	if m.t == nil || m.win.N == 0 {
		return -1
	}
	return m.partition(m.win.Cursor).ID
}

// Shown returns the ids of the shown partitions (for tests).
func (m *Model) Shown() []int {
	out := make([]int, m.win.N)
	for i := range out {
		out[i] = m.partition(i).ID
	}
	return out
}

func (m *Model) partition(i int) *cluster.Partition {
	if m.idx == nil {
		return m.t.Partitions[i]
	}
	return m.t.Partitions[m.idx[i]]
}

// rebuild recomputes the shown partitions when the topic, the snapshot
// (liveness decides offline) or the filter changed, keeping the cursor on
// the same partition.
func (m *Model) rebuild() {
	cur := m.wantPart
	if cur < 0 {
		cur = m.Cursor()
	}
	if m.t == nil {
		m.idx, m.builtFor = nil, nil
		m.win.SetN(0)
		return
	}
	if m.t != m.builtFor {
		m.replW = part.ReplicasWidth(m.t)
	}
	m.builtFor, m.builtSnap = m.t, m.snap
	if !m.unhealthy {
		m.idx = nil
		m.win.SetN(len(m.t.Partitions))
	} else {
		idx := make([]int32, 0, 16)
		for i := range m.t.Partitions {
			if !m.snap.PartitionCondition(m.t, m.t.Partitions[i]).Healthy() {
				idx = append(idx, int32(i))
			}
		}
		m.idx = idx
		m.win.SetN(len(idx))
	}
	if cur >= 0 {
		for i := 0; i < m.win.N; i++ {
			if p := m.partition(i); p.ID >= cur {
				m.win.To(i)
				break
			}
		}
		if m.wantPart >= 0 && m.win.N > 0 {
			m.wantPart = -1
		}
	}
}

// ShortHelp implements help.KeyMap.
func (m *Model) ShortHelp() []key.Binding {
	return []key.Binding{m.fk.Unhealthy, m.reassign, m.add, m.elect, m.configs, m.sandbox.Elect}
}

// FullHelp implements help.KeyMap.
func (m *Model) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{m.list.Up, m.list.Down, m.list.PageUp, m.list.PageDown, m.list.Top, m.list.Bottom},
		{m.fk.Unhealthy, m.reassign, m.add, m.elect, m.configs, m.sandbox.Elect},
	}
}

// Update implements ui.Screen.
func (m *Model) Update(msg tea.Msg) (tea.Cmd, nav.Request) {
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		switch {
		case cursor.Move(&m.win, &m.list, msg):
		case key.Matches(msg, m.fk.Unhealthy):
			m.unhealthy = !m.unhealthy
			m.rebuild()
		case key.Matches(msg, m.reassign):
			return nil, nav.OpenOperation{Op: nav.Operation{Kind: nav.OpReassign, Topic: m.name}}
		case key.Matches(msg, m.add):
			return nil, nav.OpenOperation{Op: nav.Operation{Kind: nav.OpAddPartitions, Topic: m.name}}
		case key.Matches(msg, m.configs):
			return nil, nav.OpenOperation{Op: nav.Operation{Kind: nav.OpConfigs, Topic: m.name}}
		case key.Matches(msg, m.elect):
			return nil, nav.OpenOperation{Op: nav.Operation{Kind: nav.OpElect, Topic: m.name}}
		case key.Matches(msg, m.sandbox.Elect):
			return nil, nav.ElectPreferred{Topic: m.name}
		}
	case tea.MouseWheelMsg:
		cursor.Wheel(&m.win, msg)
	}
	return nil, nil
}

// reassignWords says where p's reassignment stands (started elsewhere: by
// Kafka's tools or the Admin API), "" when none; queued is what
// /admin/reassign_partitions asks that the controller has not started.
// Short words fit a narrow STATE column.
func (m *Model) reassignWords(p *cluster.Partition, short bool) string {
	pick := func(long, brief string) string {
		if short {
			return "⟳ " + brief
		}
		return "reassigning: " + long
	}
	if !p.Reassigning() {
		if target, ok := m.queued[p.ID]; ok {
			if short {
				return "⟳ queued → " + text.Ints(target)
			}
			return "reassignment queued → " + text.Ints(target)
		}
		return ""
	}
	r := cluster.ReassignStateOf(p)
	//exhaustive:enforce
	switch r.Phase {
	case cluster.ReassignAdding:
		var down []int
		for _, id := range r.CatchingUp {
			if !m.snap.IsLive(id) {
				down = append(down, id)
			}
		}
		if len(down) > 0 {
			return pick("adding "+text.Ints(r.CatchingUp)+", waits for "+text.Ints(down)+" (down)", text.Ints(down)+" down")
		}
		return pick("adding "+text.Ints(r.CatchingUp)+", catching up", "catching up")
	case cluster.ReassignLeader:
		return pick("all in sync, the leader moves to "+text.Ints(r.Target), "leader moves")
	case cluster.ReassignInSync:
		if len(r.Removing) > 0 {
			return pick("all in sync, removing "+text.Ints(r.Removing)+" next", "in sync")
		}
		return pick("all in sync", "in sync")
	case cluster.ReassignRemoving:
		return pick("removing "+text.Ints(r.Removing), "removing")
	case cluster.ReassignQueued, cluster.ReassignDone:
	}
	return ""
}

// column widths
const (
	cPart   = 6
	cLeader = 11
	cEpoch  = 7
)

func (m *Model) isrW() int { return min(max(2*m.replW+3, 12), 40) }

// View implements ui.Screen.
func (m *Model) View() string {
	if m.w <= 0 || m.h <= 0 {
		return ""
	}
	st := m.st
	lines := make([]string, 0, m.h)
	if m.t == nil {
		lines = append(lines, " "+st.Bold.S("Topic "+m.name), "")
		msg := "Loading…"
		if m.snap != nil {
			msg = "This topic does not exist (any more)."
			if m.snap.MarkedForDeletion(m.name) {
				msg = "This topic was deleted; its deletion marker is still there."
			}
		}
		lines = append(lines, " "+st.Muted.S(msg))
		return cell.Lines(lines, m.h)
	}
	t := m.t
	title := " " + st.Bold.S("Topic ") + st.Accent.S(t.Name)
	h := m.health
	rf := text.Range(t.ReplicationFactors())
	if lo, hi := t.ReplicationFactors(); lo != hi {
		rf += " (mixed)"
	}
	title += st.Muted.S("  ·  " + cell.Thousands(len(t.Partitions)) + " partitions · RF " + rf + " · min ISR " + strconv.Itoa(t.MinISR))
	if h.UnderReplicated > 0 {
		title += "  " + st.Warning.S(strconv.Itoa(h.UnderReplicated)+" under-replicated")
	}
	if h.Offline > 0 {
		title += "  " + st.Danger.S(strconv.Itoa(h.Offline)+" offline")
	}
	if h.Reassigning > 0 || len(m.queued) > 0 {
		var parts []string
		if h.Reassigning > 0 {
			parts = append(parts, cell.Count(h.Reassigning, "partition")+" reassigning")
		}
		if m.catchingUp > 0 {
			parts = append(parts, cell.Count(m.catchingUp, "replica")+" to catch up")
		}
		if len(m.queued) > 0 {
			parts = append(parts, cell.Thousands(len(m.queued))+" in /admin/reassign_partitions")
		}
		r := "⟳ " + strings.Join(parts, ", ")
		title += "  " + st.Accent.S(r)
	}
	if t.MarkedForDeletion {
		title += "  " + st.Danger.S("MARKED FOR DELETION")
	}
	if t.Err != nil {
		title += "  " + st.Error.S(t.Err.Error())
	}
	title += m.sizesNote()
	lines = append(lines, cell.Clip(title, m.w))
	var cfg string
	switch {
	case t.ConfigErr != nil:
		cfg = st.Error.S("config: " + t.ConfigErr.Error())
	case len(t.Config) == 0:
		cfg = st.Muted.S("no config overrides")
	default:
		var b strings.Builder
		for i, e := range t.Config {
			if i > 0 {
				b.WriteString(st.Muted.S("  "))
			}
			b.WriteString(st.Muted.S(e.Key+"=") + e.Value)
		}
		cfg = b.String()
	}
	show := st.Muted.S("  ·  all partitions")
	if m.unhealthy {
		show = "  ·  " + st.Warning.S("only unhealthy: "+strconv.Itoa(m.win.N))
	}
	id := ""
	if t.ID != "" {
		id = st.Muted.S("id " + t.ID + "  ·  ")
	}
	lines = append(lines, cell.Clip(" "+id+cfg+show, m.w))
	iw := m.isrW()
	rw := m.replW + 2
	hdr := " " + cell.FitRight("PART", cPart-2) + "  " + cell.Fit("LEADER", cLeader) + cell.Fit("REPLICAS", rw) + cell.Fit("ISR", iw) +
		cell.FitRight("EPOCH", cEpoch-2) + "  " + m.sizeHeader(1+cPart+cLeader+rw+iw+cEpoch) + "STATE"
	lines = append(lines, st.Header.S(cell.Fit(hdr, m.w)))
	from, to := m.win.Visible()
	for i := from; i < to; i++ {
		lines = append(lines, m.renderRow(m.partition(i), i == m.win.Cursor))
	}
	if m.win.N == 0 {
		msg := "No partitions."
		if m.unhealthy {
			msg = "Every partition is healthy."
		}
		lines = append(lines, " "+st.Online.S(msg))
	}
	return cell.Lines(lines, m.h)
}

func (m *Model) row(p *cluster.Partition, selected bool) string {
	st := &m.st
	iw := m.isrW()
	rw := m.replW + 2
	s := m.snap.PartitionCondition(m.t, p)
	// leader cell, with old → new while a change is shown
	lk := anim.Key{Topic: m.name, Partition: p.ID, Field: anim.FieldLeader}
	leader := text.Broker(p.Leader)
	lInk := st.Leader
	if !p.HasLeader() {
		lInk = st.Danger
	}
	if d, ok := m.anims.Delta(lk); ok {
		leader = d.Old + "→" + d.New
	}
	if lvl := m.anims.Level(lk); lvl >= 0 {
		lInk = st.FlashRamp[lvl]
	}
	ik := anim.Key{Topic: m.name, Partition: p.ID, Field: anim.FieldISR}
	isr := text.Ints(p.ISR)
	iInk := st.Text
	if p.UnderReplicated() {
		iInk = st.Warning
	}
	if d, ok := m.anims.Delta(ik); ok {
		isr = d.Old + "→" + d.New
	}
	if lvl := m.anims.Level(ik); lvl >= 0 {
		iInk = st.FlashRamp[lvl]
	}
	repl, replW := part.Replicas(st, m.snap, p, selected)
	epoch := strconv.Itoa(p.LeaderEpoch)
	if !p.HasState {
		epoch = "-"
	}
	word := s.String()
	fixed := 1 + cPart + cLeader + max(replW, rw) + iw + cEpoch
	sizes, sizesW := m.sizeCells(p, m.indexOf(p), 1+cPart+cLeader+rw+iw+cEpoch, selected)
	fixed += sizesW
	if r := m.reassignWords(p, m.w-fixed < 40); r != "" {
		if s == cluster.ConditionReassigning {
			word = r
		} else {
			word += " · " + r
		}
	}
	line := " " + cell.FitRight(strconv.Itoa(p.ID), cPart-2) + "  " + lInk.Unless(selected).S(cell.Fit(leader, cLeader)) +
		cell.PadStyled(repl, replW, rw) + iInk.Unless(selected).S(cell.Fit(isr, iw)) + cell.FitRight(epoch, cEpoch-2) + "  " +
		sizes + part.Ink(st, s).Unless(selected).S(word)
	width := fixed + cell.Width(word)
	line = cell.Row(line, width, m.w, selected)
	return st.Selected.If(selected).S(line)
}
