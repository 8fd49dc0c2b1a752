// Package whatif is the what-if screen: what losing a broker or a rack now
// would do to the partitions, by topic, as Kafka's controller would do it
// (cluster.FailurePredictor): the leaders lost and who takes over, the
// partitions going under-replicated, under min ISR and offline, the
// unclean elections. It follows the cluster live; once the brokers are
// actually gone it keeps its last prediction and sets it against what the
// controller did, partition by partition.
package whatif

import (
	"slices"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/internal/text"
	"github.com/ktopo/ktopo/ui/internal/cell"
	"github.com/ktopo/ktopo/ui/internal/cursor"
	"github.com/ktopo/ktopo/ui/keys"
	"github.com/ktopo/ktopo/ui/nav"
	"github.com/ktopo/ktopo/ui/theme"
)

// headLines are the lines above the rows: title, counts, note, blank,
// column header.
const headLines = 5

// row is one line of the list: a topic heading (part < 0) or one of its
// partitions, as indexes into the impact shown.
type row struct{ topic, part int32 }

// Model is the what-if screen.
type Model struct {
	st      theme.Styles
	list    keys.List
	ops     keys.Ops
	sandbox keys.Sandbox
	w, h    int

	brokers []int
	rack    string
	fp      *cluster.FailurePredictor

	snap *cluster.Snapshot
	// impact is the prediction on the newest snapshot; held is the last one
	// made while some of the brokers were live, kept once they are all down
	// (then shown against what happened).
	impact, held *cluster.FailureImpact
	verifying    bool
	worst        bool
	rows         []row
	win          cursor.Window
	// what verify mode found, computed in SetSnapshot
	matched  int
	nowCount cluster.FailureCounts
	head     [3][2]string // title, counts, note, in long and short words; styled in View

	renderRow func(r row, selected bool) string
}

// New returns the what-if of losing brokers together; rack names them when
// they are a rack ("" for one broker).
func New(st theme.Styles, km keys.Map, brokers []int, rack string) *Model {
	m := &Model{st: st, list: km.List, ops: km.Ops, sandbox: km.Sandbox, rack: rack,
		fp: cluster.NewFailurePredictor(brokers...)}
	m.brokers = m.fp.Brokers()
	if rack != "" {
		m.sandbox.Kill.SetHelp("x", "kill/restart the rack")
	}
	m.renderRow = m.row
	return m
}

// Brokers are the brokers whose loss is shown.
func (m *Model) Brokers() []int { return m.brokers }

// Impact is the prediction shown: the held one while verifying.
func (m *Model) Impact() *cluster.FailureImpact {
	if m.verifying {
		return m.held
	}
	return m.impact
}

// Verifying reports that the brokers are down and the screen sets its
// prediction against what happened.
func (m *Model) Verifying() bool { return m.verifying }

// Matched counts, while verifying, the partitions whose leader, ISR and
// recovery state are the predicted ones.
func (m *Model) Matched() int { return m.matched }

// upperFirst capitalises a sentence's first word ("broker 2" at its start).
func upperFirst(s string) string {
	if strings.HasPrefix(s, "broker") {
		return "B" + s[1:]
	}
	return s
}

func (m *Model) subject() string {
	if m.rack != "" {
		return m.rack
	}
	if len(m.brokers) == 1 {
		return "broker " + strconv.Itoa(m.brokers[0])
	}
	return "brokers " + text.Ints(m.brokers)
}

// Title implements ui.Screen.
func (m *Model) Title() string { return "What if " + m.subject() + " fails" }

// SetSize implements ui.Screen.
func (m *Model) SetSize(w, h int) { m.w, m.h = w, h; m.win.SetH(h - headLines) }

// SetStyles implements ui.Screen.
func (m *Model) SetStyles(st theme.Styles) { m.st = st }

// SetSnapshot implements ui.SnapshotSetter: the prediction is made here,
// once per snapshot (O(partitions of the brokers)), never in View.
func (m *Model) SetSnapshot(s *cluster.Snapshot) {
	if s == m.snap {
		return
	}
	cur := m.cursorKey()
	m.snap = s
	m.impact = m.fp.Predict(s)
	switch {
	case m.held != nil && lostSince(m.held.Live, m.impact.Live):
		// One of the brokers went down since the held prediction: it is
		// the state before the failure, kept until they are all back
		// (a KRaft controller fences brokers lost together one by one,
		// a poll or more apart: the polls between must not replace it).
		m.verifying = true
	case len(m.impact.Live) > 0:
		m.held, m.verifying = m.impact, false
	case m.held != nil:
		m.verifying = true
	}
	m.rebuild(cur)
}

// lostSince reports that a broker of was is not in now.
func lostSince(was, now []int) bool {
	for _, id := range was {
		if !slices.Contains(now, id) {
			return true
		}
	}
	return false
}

// rowKey names a row: a topic and partition, -1 for the topic's heading,
// -2 for none.
type rowKey struct {
	topic string
	part  int
}

// cursorKey is the row under the cursor.
func (m *Model) cursorKey() (k rowKey) {
	k.part = -2
	if m.win.N == 0 {
		return k
	}
	r := m.rows[m.win.Cursor]
	tf := &m.Impact().Topics[r.topic]
	k.topic, k.part = tf.Topic.Name, -1
	if r.part >= 0 {
		k.part = tf.Partitions[r.part].Partition.ID
	}
	return k
}

// keep reports whether the worst-only filter keeps f.
func (m *Model) keep(f *cluster.PartitionFailure) bool {
	return !m.worst || f.Offline() || f.UnderMinISR()
}

// rebuild lists the rows of the impact shown and what verify mode
// compares, keeping the cursor on the same row.
func (m *Model) rebuild(cur rowKey) {
	fi := m.Impact()
	m.rows = m.rows[:0]
	m.matched, m.nowCount = 0, cluster.FailureCounts{}
	at := -1
	for ti := range fi.Topics {
		tf := &fi.Topics[ti]
		head := len(m.rows)
		m.rows = append(m.rows, row{int32(ti), -1})
		if tf.Topic.Name == cur.topic && cur.part == -1 {
			at = head
		}
		kept := 0
		for pi := range tf.Partitions {
			f := &tf.Partitions[pi]
			if m.verifying {
				m.compare(tf.Topic.Name, f)
			}
			if !m.keep(f) {
				continue
			}
			kept++
			if tf.Topic.Name == cur.topic && f.Partition.ID == cur.part {
				at = len(m.rows)
			}
			m.rows = append(m.rows, row{int32(ti), int32(pi)})
		}
		if kept == 0 {
			m.rows = m.rows[:head]
		}
	}
	m.win.SetN(len(m.rows))
	if at >= 0 {
		m.win.To(at)
	}
	m.heading()
}

// now is partition id of topic in the newest snapshot (nil if gone).
func (m *Model) now(topic string, id int) (*cluster.Topic, *cluster.Partition) {
	t := m.snap.Topic(topic)
	if t == nil {
		return nil, nil
	}
	return t, t.Partition(id)
}

// compare counts one held prediction against the partition now.
func (m *Model) compare(topic string, f *cluster.PartitionFailure) {
	t, p := m.now(topic, f.Partition.ID)
	if p == nil {
		return
	}
	if m.same(f, p) {
		m.matched++
	}
	m.nowCount.Partitions++
	if m.snap.PartitionOffline(p) {
		m.nowCount.Offline++
	}
	if p.UnderMinISR(m.snap.MinISR(t, p)) {
		m.nowCount.UnderMinISR++
	}
}

// same reports that p is in a state f predicted: its leader and ISR, and
// what the snapshot knows besides: the recovery state on ZooKeeper (no
// Kafka API tells it), the eligible leader replicas on KRaft when read.
func (m *Model) same(f *cluster.PartitionFailure, p *cluster.Partition) bool {
	what := cluster.CompareRecovery
	if k := m.snap.KRaft(); k != nil {
		what = 0
		if k.ELR {
			what = cluster.CompareELR
		}
	}
	return f.Matches(p, what)
}

// ShortHelp implements help.KeyMap.
func (m *Model) ShortHelp() []key.Binding {
	return []key.Binding{m.ops.Worst, m.list.Open, m.sandbox.Kill}
}

// FullHelp implements help.KeyMap.
func (m *Model) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{m.list.Up, m.list.Down, m.list.PageUp, m.list.PageDown, m.list.Top, m.list.Bottom, m.list.Open},
		{m.ops.Worst, m.sandbox.Kill},
	}
}

// Update implements ui.Screen.
func (m *Model) Update(msg tea.Msg) (tea.Cmd, nav.Request) {
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		switch {
		case cursor.Move(&m.win, &m.list, msg):
		case key.Matches(msg, m.ops.Worst):
			m.worst = !m.worst
			m.rebuild(m.cursorKey())
		case key.Matches(msg, m.list.Open):
			if m.win.N > 0 {
				k := m.cursorKey()
				return nil, nav.OpenTopic{Topic: k.topic, Partition: k.part}
			}
		case key.Matches(msg, m.sandbox.Kill):
			if len(m.brokers) == 1 {
				return nil, nav.ToggleBroker{Broker: m.brokers[0]}
			}
			return nil, nav.ToggleBrokers{Brokers: m.brokers}
		}
	case tea.MouseWheelMsg:
		cursor.Wheel(&m.win, msg)
	}
	return nil, nil
}

// Column widths. The partition column takes what the others leave, within
// bounds; the topic in it is shortened, never the partition number.
const (
	cLeader = 8
	cArrow  = 3
	cMark   = 2
)

// showBefore: the state before is shown, except while verifying when it
// would leave the result too little room (the prediction and what
// happened matter then).
func (m *Model) showBefore() bool {
	return !m.verifying || m.w-m.fixedW(true) >= longResult
}

// longResult is the room the result needs for its long words.
const longResult = 32

// fixedW is the width of the columns before the result.
func (m *Model) fixedW(before bool) int {
	w := 1 + m.partW() + 1 + cLeader + m.isrW()
	if before {
		w += cLeader + m.isrW() + cArrow
	}
	if m.verifying {
		w += cArrow + cLeader + m.isrW() + cMark
	}
	return w
}

func (m *Model) partW() int { return min(max(m.w/4, 16), 40) }

func (m *Model) isrW() int { return min(max((m.w-60)/6, 10), 24) }

// View implements ui.Screen.
func (m *Model) View() string {
	if m.w <= 0 || m.h <= 0 {
		return ""
	}
	st := m.st
	lines := make([]string, 0, m.h)
	if m.snap == nil || m.snap.Partial() {
		// No prediction from half a cluster.
		lines = append(lines, " "+st.Bold.S(m.Title()), "", " "+st.Muted.S("Loading the cluster…"))
		return cell.Lines(lines, m.h)
	}
	fi := m.Impact()
	titleInk := st.Bold
	if m.verifying {
		titleInk = st.Danger
	}
	lines = append(lines, cell.Clip(" "+titleInk.S(m.pick(m.head[0])), m.w))
	countInk := st.Text
	if fi.Counts.NewlyOffline > 0 || fi.Counts.Unclean > 0 {
		countInk = st.Danger
	} else if fi.Counts.NewlyUnderMinISR > 0 {
		countInk = st.Warning
	}
	lines = append(lines, cell.Clip(" "+countInk.S(m.pick(m.head[1])), m.w))
	noteInk := st.Muted
	if m.verifying {
		noteInk = st.Warning
		if m.matched == m.nowCount.Partitions {
			noteInk = st.Online
		}
	}
	lines = append(lines, cell.Clip(" "+noteInk.S(m.pick(m.head[2])), m.w), "")
	pw, iw := m.partW(), m.isrW()
	hdr := " " + cell.Fit("PARTITION", pw) + " "
	switch {
	case !m.verifying:
		hdr += cell.Fit("NOW", cLeader) + cell.Fit("ISR", iw) + cell.Fit("", cArrow) + cell.Fit("AFTER", cLeader) + cell.Fit("ISR", iw)
	case m.showBefore():
		hdr += cell.Fit("WAS", cLeader) + cell.Fit("ISR", iw) + cell.Fit("", cArrow) + cell.Fit("PREDICT", cLeader) + cell.Fit("ISR", iw)
	default:
		hdr += cell.Fit("PREDICT", cLeader) + cell.Fit("ISR", iw)
	}
	if m.verifying {
		hdr += cell.Fit("", cArrow) + cell.Fit("NOW", cLeader) + cell.Fit("ISR", iw) + cell.Fit("", cMark)
	}
	hdr += "RESULT"
	lines = append(lines, st.Header.S(cell.Fit(hdr, m.w)))
	from, to := m.win.Visible()
	for i := from; i < to; i++ {
		lines = append(lines, m.renderRow(m.rows[i], i == m.win.Cursor))
	}
	if m.win.N == 0 {
		msg := "No partition has a replica on " + m.subject() + "."
		if m.worst {
			msg = "No partition would go offline or under its min ISR."
		}
		lines = append(lines, " "+st.Online.S(msg))
	}
	return cell.Lines(lines, m.h)
}

// row renders one row: a topic heading with its counts, or a partition
// with its state now, the predicted state and what it means.
func (m *Model) row(r row, selected bool) string {
	st := &m.st
	fi := m.Impact()
	tf := &fi.Topics[r.topic]
	if r.part < 0 {
		c := tf.Counts
		s := cell.Count(c.Partitions, "partition")
		for _, n := range []struct {
			v    int
			what string
		}{{c.NewlyOffline, " offline"}, {c.Offline - c.NewlyOffline, " already offline"},
			{c.NewlyUnderMinISR, " under min ISR"}, {c.UnderMinISR - c.NewlyUnderMinISR, " already under min ISR"},
			{c.Unclean, " unclean"}, {c.LeadersLost, " lost"}} {
			switch {
			case n.v == 0:
			case n.what == " lost":
				s += " · " + cell.Count(n.v, "leader") + n.what
			default:
				s += " · " + cell.Thousands(n.v) + n.what
			}
		}
		line := " " + st.Accent.Unless(selected).S(tf.Topic.Name) + "  " + st.Muted.Unless(selected).S(s)
		line = cell.Row(line, 3+cell.Width(tf.Topic.Name)+cell.Width(s), m.w, selected)
		return st.Selected.If(selected).S(line)
	}
	f := &tf.Partitions[r.part]
	p := f.Partition
	pw, iw := m.partW(), m.isrW()
	var b strings.Builder
	b.WriteString("   ")
	b.WriteString(cell.FitTopicPartition(tf.Topic.Name, p.ID, pw-2))
	b.WriteByte(' ')
	width := 1 + pw + 1 + cLeader + iw
	if m.showBefore() {
		b.WriteString(cell.Fit(text.Broker(p.Leader), cLeader))
		b.WriteString(cell.Fit(text.Ints(p.ISR), iw))
		b.WriteString(cell.Fit(" →", cArrow))
		width += cLeader + iw + cArrow
	}
	leaderInk := st.Text
	if f.Leader != p.Leader {
		leaderInk = st.Leader
	}
	if f.Leader < 0 {
		leaderInk = st.Danger
	}
	b.WriteString(leaderInk.Unless(selected).S(cell.Fit(text.Broker(f.Leader), cLeader)))
	isrInk := st.Text
	if f.UnderMinISR() {
		isrInk = st.Danger
	} else if f.UnderReplicated() {
		isrInk = st.Warning
	}
	b.WriteString(isrInk.Unless(selected).S(cell.Fit(text.Ints(f.ISR), iw)))
	if m.verifying {
		b.WriteString(cell.Fit(" →", cArrow))
		mark, markInk := "?", st.Muted
		if _, now := m.now(tf.Topic.Name, p.ID); now != nil {
			b.WriteString(cell.Fit(text.Broker(now.Leader), cLeader))
			b.WriteString(cell.Fit(text.Ints(now.ISR), iw))
			mark, markInk = "≠", st.Warning
			if m.same(f, now) {
				mark, markInk = "✓", st.Online
			}
		} else {
			b.WriteString(cell.Fit("gone", cLeader+iw))
		}
		b.WriteString(markInk.Unless(selected).S(cell.Fit(mark, cMark)))
		width += cArrow + cLeader + iw + cMark
	}
	word, wordInk := result(st, f, m.w-width < longResult, fi.KRaft)
	b.WriteString(wordInk.Unless(selected).S(word))
	width += cell.Width(word)
	line := cell.Row(b.String(), width, m.w, selected)
	return st.Selected.If(selected).S(line)
}
