// Package events is the timeline of model changes: controller moves,
// brokers joining and leaving, topics created and deleted, leader moves,
// ISR shrinks and expands. One row each: when ktopo saw it, the kind in words and
// the topic-partition with the details. It filters by kind (K) and topic
// (/), and opens in follow mode with the newest rows visible.
package events

import (
	"strconv"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/internal/text"
	"github.com/ktopo/ktopo/ui/internal/cell"
	"github.com/ktopo/ktopo/ui/internal/cursor"
	"github.com/ktopo/ktopo/ui/internal/filter"
	"github.com/ktopo/ktopo/ui/keys"
	"github.com/ktopo/ktopo/ui/nav"
	"github.com/ktopo/ktopo/ui/theme"
)

// DefaultCapacity is how many events the timeline keeps.
const DefaultCapacity = 50_000

// Entry is one timeline row.
type Entry struct {
	// Time in ms since the epoch: when ktopo received the change (its
	// batch's arrival), the one clock every row has. A znode's mtime would
	// be the server's, but a deleted znode has none: rows stamped with
	// either read out of order (a broker that left after the controller
	// reacted to it). `ktopo events` prints the same arrival times.
	Time int64
	// Change points into the batch's change slice (never modified), so an
	// entry is two words: the timeline moves little memory when it drops
	// its oldest quarter.
	Change *cluster.Change
}

// Group is a kind filter.
type Group uint8

// Kind filters, in the order K cycles through them.
const (
	All Group = iota
	Leaders
	ISR
	Brokers
	Controller
	Topics
	Problems
	groups
)

var groupNames = [...]string{"all kinds", "leader moves", "ISR changes", "brokers", "controller", "topics", "problems"}

// String names the group.
func (g Group) String() string { return groupNames[g] }

// kindView is how the screen shows a change kind: its words, its group
// and its ink.
type kindView struct {
	words string
	group Group
	ink   func(*theme.Styles) theme.Ink
}

func danger(st *theme.Styles) theme.Ink  { return st.Danger }
func online(st *theme.Styles) theme.Ink  { return st.Online }
func leader(st *theme.Styles) theme.Ink  { return st.Leader }
func warning(st *theme.Styles) theme.Ink { return st.Warning }
func plain(st *theme.Styles) theme.Ink   { return st.Text }

// kinds has a row per cluster.ChangeKinds (TestEveryKindHasAView).
var kinds = map[cluster.ChangeKind]kindView{
	cluster.ChangeBrokerRegistered:       {"broker joined", Brokers, online},
	cluster.ChangeBrokerUpdated:          {"broker updated", Brokers, plain},
	cluster.ChangeBrokerGone:             {"broker left", Brokers, danger},
	cluster.ChangeControllerMoved:        {"controller moved", Controller, leader},
	cluster.ChangeTopicCreated:           {"topic created", Topics, online},
	cluster.ChangeTopicMarkedForDeletion: {"delete requested", Topics, warning},
	cluster.ChangeTopicDeleted:           {"topic deleted", Topics, danger},
	cluster.ChangePartitionsAdded:        {"partitions added", Topics, plain},
	cluster.ChangePartitionAppeared:      {"partition online", Topics, online},
	cluster.ChangeLeaderMoved:            {"leader moved", Leaders, leader},
	cluster.ChangeIsrShrank:              {"ISR shrank", ISR, danger},
	cluster.ChangeIsrExpanded:            {"ISR expanded", ISR, online},
	cluster.ChangeConfigChanged:          {"config changed", Topics, plain},
	cluster.ChangeReassignmentStarted:    {"reassigning", Topics, plain},
	cluster.ChangeReassignmentFinished:   {"reassigned", Topics, plain},
	cluster.ChangeZNodeInvalid:           {"bad znode", Problems, danger},
}

// Of is the group of a kind.
func Of(k cluster.ChangeKind) Group {
	if v, ok := kinds[k]; ok {
		return v.group
	}
	return Problems
}

// Words is the kind in words.
func Words(k cluster.ChangeKind) string {
	if v, ok := kinds[k]; ok {
		return v.words
	}
	return string(k)
}

// Where is the topic-partition (or broker, or znode) a change is about.
func Where(c *cluster.Change) string {
	//exhaustive:enforce
	switch c.Kind.Subject() {
	case cluster.SubjectBroker:
		return "broker " + strconv.Itoa(c.Broker)
	case cluster.SubjectController:
		return ""
	case cluster.SubjectTopic:
		return c.Topic
	case cluster.SubjectZNode:
		return c.Path
	case cluster.SubjectPartition:
	}
	return c.Topic + "-" + strconv.Itoa(c.Partition)
}

// onPartition reports the kinds that are about one partition.
func onPartition(k cluster.ChangeKind) bool { return k.Subject() == cluster.SubjectPartition }

// fitWhere is Where in exactly w columns: a topic-partition too long is
// shortened in its topic, never in its partition number.
func fitWhere(c *cluster.Change, w int) string {
	if onPartition(c.Kind) {
		return cell.FitTopicPartition(c.Topic, c.Partition, w)
	}
	return cell.Fit(Where(c), w)
}

// Details describes a change after its topic-partition.
func Details(c *cluster.Change) string {
	//exhaustive:enforce
	switch c.Kind {
	case cluster.ChangeBrokerRegistered:
		if c.Rack != "" {
			return "rack " + c.Rack
		}
		return ""
	case cluster.ChangeControllerMoved:
		return "broker " + text.Broker(c.From) + " → " + text.Broker(c.To) + "  (epoch " + strconv.Itoa(c.Epoch) + ")"
	case cluster.ChangeTopicCreated:
		return strconv.Itoa(c.PartitionCount) + " partitions, RF " + strconv.Itoa(c.ReplicationFactor)
	case cluster.ChangePartitionsAdded:
		return "partitions " + text.Ints(c.Partitions)
	case cluster.ChangePartitionAppeared:
		return "leader " + text.Broker(c.Leader) + "  ISR " + text.Ints(c.ISR)
	case cluster.ChangeLeaderMoved:
		return text.Broker(c.From) + " → " + text.Broker(c.To) + "  (epoch " + strconv.Itoa(c.Epoch) + ")"
	case cluster.ChangeIsrShrank:
		return "−" + text.Ints(c.Removed) + "  ISR now " + text.Ints(c.ISR)
	case cluster.ChangeIsrExpanded:
		return "+" + text.Ints(c.Added) + "  ISR now " + text.Ints(c.ISR)
	case cluster.ChangeConfigChanged:
		return strings.Join(c.Keys, ", ")
	case cluster.ChangeReassignmentStarted:
		return "adding " + text.Ints(c.Added) + " removing " + text.Ints(c.Removed)
	case cluster.ChangeReassignmentFinished:
		return "replicas " + text.Ints(c.Replicas)
	case cluster.ChangeZNodeInvalid:
		return c.Error
	case cluster.ChangeBrokerUpdated, cluster.ChangeBrokerGone, cluster.ChangeTopicMarkedForDeletion, cluster.ChangeTopicDeleted:
		// Their kind and place say it all.
	}
	return ""
}

// Model is the events screen.
type Model struct {
	st     theme.Styles
	list   keys.List
	fk     keys.Filter
	loc    *time.Location
	w, h   int
	cap    int
	base   int64 // sequence number of entries[0]
	all    []Entry
	group  Group
	filter filter.Field
	shown  []int64 // sequence numbers shown, nil = all
	win    cursor.Window
	follow bool

	renderRow func(e *Entry, selected bool) string
}

// New returns the screen; loc is the time zone of the timestamps (nil:
// local time).
func New(st theme.Styles, km keys.Map, loc *time.Location) *Model {
	if loc == nil {
		loc = time.Local
	}
	m := &Model{st: st, list: km.List, fk: km.Filter, loc: loc, cap: DefaultCapacity, follow: true}
	// While typing a topic the arrows do nothing: they do not leave the
	// filter for the timeline as they do on the topics screen.
	in := km.Input
	in.Leave.SetEnabled(false)
	m.filter = filter.NewField(st, in, "topic substring, or ~regex")
	m.renderRow = m.row
	return m
}

// SetCapacity changes how many events are kept.
func (m *Model) SetCapacity(n int) { m.cap = max(n, 16) }

// Title implements ui.Screen.
func (m *Model) Title() string { return "Events" }

// SetSize implements ui.Screen.
func (m *Model) SetSize(w, h int) {
	m.w, m.h = w, h
	m.win.SetH(h - 2)
	m.filter.SetWidth(max(w-40, 10))
	m.stick()
}

// SetStyles implements ui.Screen.
func (m *Model) SetStyles(st theme.Styles) { m.st = st; m.filter.SetStyles(st) }

// Capturing reports that the filter field has the keyboard.
func (m *Model) Capturing() bool { return m.filter.Typing() }

// Following reports follow mode.
func (m *Model) Following() bool { return m.follow }

// Len is the number of shown rows.
func (m *Model) Len() int { return m.win.N }

// Entry returns shown row i.
func (m *Model) Entry(i int) *Entry {
	if m.shown == nil {
		return &m.all[i]
	}
	return &m.all[m.shown[i]-m.base]
}

func (m *Model) passes(e *Entry) bool {
	if m.group != All && Of(e.Change.Kind) != m.group {
		return false
	}
	if match := m.filter.Matcher(); !match.Empty() {
		t := e.Change.Topic
		if t == "" || !match.Match(t) {
			return false
		}
	}
	return true
}

// Append adds changes that arrived at now (ms since the epoch), in the
// order they happened (zxid order).
func (m *Model) Append(changes []cluster.Change, now int64) {
	for i := range changes {
		e := Entry{Time: now, Change: &changes[i]}
		seq := m.base + int64(len(m.all))
		m.all = append(m.all, e)
		if m.shown != nil && m.passes(&m.all[len(m.all)-1]) {
			m.shown = append(m.shown, seq)
		}
	}
	if over := len(m.all) - m.cap; over > 0 {
		// Drop a quarter at once: amortised O(1) per event.
		drop := min(len(m.all), over+m.cap/4)
		m.all = append(m.all[:0], m.all[drop:]...)
		clear(m.all[len(m.all):cap(m.all)]) // release the dropped batches
		m.base += int64(drop)
		if m.shown != nil {
			k := 0
			for k < len(m.shown) && m.shown[k] < m.base {
				k++
			}
			m.shown = append(m.shown[:0], m.shown[k:]...)
		}
		m.win.Move(-drop) // keep the cursor on the same entry
	}
	m.setN()
	m.stick()
}

func (m *Model) setN() {
	if m.shown == nil {
		m.win.SetN(len(m.all))
	} else {
		m.win.SetN(len(m.shown))
	}
}

// stick keeps the newest row in view while following.
func (m *Model) stick() {
	if m.follow {
		m.win.To(m.win.N - 1)
	}
}

func (m *Model) refilter() {
	if m.group == All && m.filter.Matcher().Empty() {
		m.shown = nil
	} else {
		m.shown = make([]int64, 0, 64)
		for i := range m.all {
			if m.passes(&m.all[i]) {
				m.shown = append(m.shown, m.base+int64(i))
			}
		}
	}
	m.setN()
	m.stick()
}

// SetGroup sets the kind filter.
func (m *Model) SetGroup(g Group) { m.group = g % groups; m.refilter() }

// SetFilter sets the topic filter text.
func (m *Model) SetFilter(s string) {
	m.filter.Set(s)
	m.refilter()
}

// ShortHelp implements help.KeyMap: while the filter has the keyboard,
// the keys that act there.
func (m *Model) ShortHelp() []key.Binding {
	if m.filter.Typing() {
		return m.filter.Keys()
	}
	return []key.Binding{m.fk.Kind, m.fk.Filter, m.fk.Follow, m.list.Open}
}

// FullHelp implements help.KeyMap.
func (m *Model) FullHelp() [][]key.Binding {
	if m.filter.Typing() {
		return [][]key.Binding{m.filter.Keys()}
	}
	return [][]key.Binding{
		{m.list.Up, m.list.Down, m.list.PageUp, m.list.PageDown, m.list.Top, m.list.Bottom},
		{m.fk.Kind, m.fk.Filter, m.fk.Clear, m.fk.Follow, m.list.Open},
	}
}

// Back handles esc: it clears filters first.
func (m *Model) Back() bool {
	if m.group != All || m.filter.Active() {
		m.group = All
		m.SetFilter("")
		return true
	}
	return false
}

// Update implements ui.Screen.
func (m *Model) Update(msg tea.Msg) (tea.Cmd, nav.Request) {
	if m.filter.Typing() {
		cmd, typed := m.filter.Update(msg)
		if typed.Changed {
			m.refilter()
		}
		return cmd, nil
	}
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		switch {
		case cursor.Move(&m.win, &m.list, msg):
		case key.Matches(msg, m.fk.Follow):
			m.follow = !m.follow
			m.stick()
			return nil, nil
		case key.Matches(msg, m.fk.Kind):
			m.SetGroup(m.group + 1)
			return nil, nil
		case key.Matches(msg, m.fk.Filter):
			return m.filter.Start(), nil
		case key.Matches(msg, m.list.Open):
			if m.win.N > 0 {
				c := m.Entry(m.win.Cursor).Change
				if c.Topic != "" && c.Kind != cluster.ChangeTopicDeleted {
					p := -1
					if onPartition(c.Kind) {
						p = c.Partition
					}
					return nil, nav.OpenTopic{Topic: c.Topic, Partition: p}
				}
			}
			return nil, nil
		default:
			return nil, nil
		}
		// Moving off the last row leaves follow mode; reaching it resumes.
		m.follow = m.win.Bottom()
	case tea.MouseWheelMsg:
		cursor.Wheel(&m.win, msg)
		m.follow = m.win.Bottom()
	}
	return nil, nil
}

const (
	cTime = 14
	cKind = 18
)

// View implements ui.Screen.
func (m *Model) View() string {
	if m.w <= 0 || m.h <= 0 {
		return ""
	}
	st := m.st
	lines := make([]string, 0, m.h)
	title := " " + st.Bold.S("Events") + st.Muted.S("  "+cell.Thousands(m.win.N)+" shown  ·  "+m.group.String())
	if m.follow {
		title += "  " + st.Online.S("● following")
	} else {
		title += "  " + st.Muted.S("○ paused (f to follow)")
	}
	title += m.filter.Title(&st, "")
	lines = append(lines, cell.Clip(title, m.w))
	hdr := " " + cell.Fit("SEEN AT", cTime) + cell.Fit("KIND", cKind) + cell.Fit("WHERE", m.whereW()) + "DETAILS"
	lines = append(lines, st.Header.S(cell.Fit(hdr, m.w)))
	from, to := m.win.Visible()
	for i := from; i < to; i++ {
		lines = append(lines, m.renderRow(m.Entry(i), i == m.win.Cursor && !m.follow))
	}
	if m.win.N == 0 {
		msg := "No changes yet. They appear here as the cluster changes."
		if m.shown != nil {
			msg = "No change matches the filter."
		}
		lines = append(lines, " "+st.Muted.S(msg))
	}
	return cell.Lines(lines, m.h)
}

func (m *Model) whereW() int { return min(max(m.w/5, 18), 40) }

func (m *Model) row(e *Entry, selected bool) string {
	st := &m.st
	c := e.Change
	ts := time.UnixMilli(e.Time).In(m.loc).Format("15:04:05.000")
	kInk := plain(st)
	if v, ok := kinds[c.Kind]; ok {
		kInk = v.ink(st)
	}
	if c.Kind == cluster.ChangeLeaderMoved && c.To < 0 {
		kInk = st.Danger
	}
	ww := m.whereW()
	dw := max(m.w-1-cTime-cKind-ww, 0)
	// The place is cut one cell short, so its details never run into it.
	line := " " + st.Muted.Unless(selected).S(cell.Fit(ts, cTime)) + kInk.Unless(selected).S(cell.Fit(Words(c.Kind), cKind)) +
		fitWhere(c, ww-1) + " " + st.Muted.Unless(selected).S(cell.Fit(Details(c), dw))
	return st.Selected.If(selected).S(line)
}
