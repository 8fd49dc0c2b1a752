package overview

import (
	"slices"
	"sort"
	"strconv"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/internal/text"
	"github.com/ktopo/ktopo/ui/internal/cell"
	"github.com/ktopo/ktopo/ui/internal/cursor"
	"github.com/ktopo/ktopo/ui/internal/part"
	"github.com/ktopo/ktopo/ui/keys"
	"github.com/ktopo/ktopo/ui/nav"
	"github.com/ktopo/ktopo/ui/theme"
)

// ref is one partition of the broker: topic index in the snapshot,
// partition index in the topic.
type ref struct{ t, p int32 }

// Broker lists the partitions a broker holds: the screen `enter` opens on
// a broker card.
type Broker struct {
	st      theme.Styles
	list    keys.List
	sandbox keys.Sandbox
	id      int
	w, h    int
	snap    *cluster.Snapshot
	win     cursor.Window
	leaders int

	// What the broker holds of each topic of the snapshot, kept from one
	// snapshot to the next for the topics unchanged (a *Topic never
	// changes; a change makes a new one): a batch costs its changed
	// topics and a pass over these slices, not a walk of every partition
	// of the cluster (a million: tens of milliseconds).
	topics []*cluster.Topic // the snapshot's (a copy: updated in place)
	held   [][]int32        // per topic, the indexes of its partitions on the broker
	led    []int32          // per topic, how many of those it leads
	start  []int            // held's running sums: topic i's rows are start[i]..start[i+1]-1

	renderRow func(r ref, selected bool) string
}

// NewBroker returns the partition list of broker id.
func NewBroker(st theme.Styles, km keys.Map, id int) *Broker {
	b := &Broker{st: st, list: km.List, sandbox: km.Sandbox, id: id}
	b.renderRow = b.row
	return b
}

// ID is the broker shown.
func (b *Broker) ID() int { return b.id }

// Title implements ui.Screen.
func (b *Broker) Title() string { return "Broker " + strconv.Itoa(b.id) }

// SetSize implements ui.Screen.
func (b *Broker) SetSize(w, h int) { b.w, b.h = w, h; b.win.SetH(h - 3) }

// SetStyles implements ui.Screen.
func (b *Broker) SetStyles(st theme.Styles) { b.st = st }

// SetSnapshot implements ui.SnapshotSetter.
func (b *Broker) SetSnapshot(s *cluster.Snapshot) {
	if s == b.snap {
		return
	}
	b.snap = s
	cur := s.Topics()
	if sameTopics(b.topics, cur) {
		moved := false
		for i, t := range cur {
			if b.topics[i] == t {
				continue
			}
			idx, led := b.holds(t)
			moved = moved || len(idx) != len(b.held[i])
			b.leaders += int(led - b.led[i])
			b.topics[i], b.held[i], b.led[i] = t, idx, led
		}
		if !moved {
			return
		}
	} else {
		// Both lists are sorted by name: one merge, the unchanged
		// topics' memos kept.
		held, led := make([][]int32, len(cur)), make([]int32, len(cur))
		b.leaders = 0
		j := 0
		for i, t := range cur {
			for j < len(b.topics) && b.topics[j].Name < t.Name {
				j++
			}
			if j < len(b.topics) && b.topics[j] == t {
				held[i], led[i] = b.held[j], b.led[j]
			} else {
				held[i], led[i] = b.holds(t)
			}
			b.leaders += int(led[i])
		}
		b.topics, b.held, b.led = slices.Clone(cur), held, led
	}
	b.start = slices.Grow(b.start[:0], len(b.held)+1)
	n := 0
	for _, idx := range b.held {
		b.start = append(b.start, n)
		n += len(idx)
	}
	b.start = append(b.start, n)
	b.win.SetN(n)
}

// holds are the indexes of t's partitions on the broker (nil: none), and
// how many of them it leads.
func (b *Broker) holds(t *cluster.Topic) ([]int32, int32) {
	var idx []int32
	var led int32
	for pi, p := range t.Partitions {
		if slices.Contains(p.Replicas, b.id) {
			idx = append(idx, int32(pi))
			if p.HasLeader() && p.Leader == b.id {
				led++
			}
		}
	}
	return idx, led
}

// rows is the number of partitions listed.
func (b *Broker) rows() int {
	if len(b.start) == 0 {
		return 0
	}
	return b.start[len(b.start)-1]
}

// ref is row i (0 <= i < rows()): of the topic whose rows hold it, the
// last whose rows start at i or before (binary search in the running
// sums; those of topics holding none are equal to the next's).
func (b *Broker) ref(i int) ref {
	ti := sort.Search(len(b.start), func(k int) bool { return b.start[k] > i }) - 1
	return ref{int32(ti), b.held[ti][i-b.start[ti]]}
}

// sameTopics reports that two sorted topic lists name the same topics.
func sameTopics(a, b []*cluster.Topic) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] && a[i].Name != b[i].Name {
			return false
		}
	}
	return true
}

// ShortHelp implements help.KeyMap.
func (b *Broker) ShortHelp() []key.Binding {
	return []key.Binding{b.list.Open, b.sandbox.Kill}
}

// FullHelp implements help.KeyMap.
func (b *Broker) FullHelp() [][]key.Binding {
	return [][]key.Binding{{b.list.Up, b.list.Down, b.list.PageUp, b.list.PageDown, b.list.Top, b.list.Bottom, b.list.Open}, {b.sandbox.Kill}}
}

// Update implements ui.Screen.
func (b *Broker) Update(msg tea.Msg) (tea.Cmd, nav.Request) {
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		switch {
		case cursor.Move(&b.win, &b.list, msg):
		case key.Matches(msg, b.list.Open):
			if b.win.Cursor < b.rows() {
				r := b.ref(b.win.Cursor)
				t := b.snap.Topics()[r.t]
				return nil, nav.OpenTopic{Topic: t.Name, Partition: t.Partitions[r.p].ID}
			}
		case key.Matches(msg, b.sandbox.Kill):
			return nil, nav.ToggleBroker{Broker: b.id}
		}
	case tea.MouseWheelMsg:
		cursor.Wheel(&b.win, msg)
	}
	return nil, nil
}

const (
	bTopicW = 28
	bPartW  = 5
	bRoleW  = 9
	bLeadW  = 7
	bReplW  = 14
	bISRW   = 14
)

// View implements ui.Screen.
func (b *Broker) View() string {
	if b.w <= 0 || b.h <= 0 {
		return ""
	}
	st := b.st
	lines := make([]string, 0, b.h)
	state := st.Online.S("live")
	if br, ok := b.snap.Broker(b.id); !ok || !br.Live {
		state = st.Danger.S("OFFLINE")
	}
	lines = append(lines, cell.Clip(" "+st.Bold.S("Broker "+strconv.Itoa(b.id))+"  "+state+st.Muted.S("  ·  "+
		cell.Thousands(b.rows())+" partitions · "+cell.Thousands(b.leaders)+" led"), b.w), "")
	hdr := " " + cell.Fit("TOPIC", b.topicW()) + " " + cell.FitRight("PART", bPartW) + "  " + cell.Fit("ROLE", bRoleW) +
		cell.Fit("LEADER", bLeadW) + cell.Fit("REPLICAS", bReplW) + cell.Fit("ISR", bISRW) + "STATE"
	lines = append(lines, st.Header.S(cell.Fit(hdr, b.w)))
	from, to := b.win.Visible()
	for i := from; i < to; i++ {
		lines = append(lines, b.renderRow(b.ref(i), i == b.win.Cursor))
	}
	if b.rows() == 0 {
		lines = append(lines, " "+st.Muted.S("This broker holds no replicas."))
	}
	return cell.Lines(lines, b.h)
}

func (b *Broker) topicW() int { return min(max(b.w-70, 8), 40) }

func (b *Broker) row(r ref, selected bool) string {
	st := &b.st
	t := b.snap.Topics()[r.t]
	p := t.Partitions[r.p]
	role, rink := "follower", st.Text
	switch {
	case p.HasLeader() && p.Leader == b.id:
		role, rink = "leader", st.Leader
	case !slices.Contains(p.ISR, b.id):
		role, rink = "out of sync", st.Danger
	}
	s := b.snap.PartitionCondition(t, p)
	repl, rw := part.Replicas(st, b.snap, p, selected)
	word := s.String()
	line := " " + cell.Fit(t.Name, b.topicW()) + " " + cell.FitRight(strconv.Itoa(p.ID), bPartW) + "  " +
		rink.Unless(selected).S(cell.Fit(role, bRoleW)) + cell.Fit(text.Broker(p.Leader), bLeadW) +
		cell.PadStyled(repl, rw, bReplW) + cell.Fit(text.Ints(p.ISR), bISRW) + part.Ink(st, s).Unless(selected).S(word)
	width := 1 + b.topicW() + 1 + bPartW + 2 + bRoleW + bLeadW + max(rw, bReplW) + bISRW + len(word)
	line = cell.Row(line, width, b.w, selected)
	return st.Selected.If(selected).S(line)
}
