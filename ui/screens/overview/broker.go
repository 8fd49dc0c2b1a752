package overview

import (
	"slices"
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
	refs    []ref
	cache   map[*cluster.Topic][]int32 // partition indexes per unchanged topic
	win     cursor.Window
	leaders int

	renderRow func(r ref, selected bool) string
}

// NewBroker returns the partition list of broker id.
func NewBroker(st theme.Styles, km keys.Map, id int) *Broker {
	b := &Broker{st: st, list: km.List, sandbox: km.Sandbox, id: id, cache: map[*cluster.Topic][]int32{}}
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
	b.refs = b.refs[:0]
	b.leaders = 0
	seen := make(map[*cluster.Topic][]int32, len(b.cache))
	for ti, t := range s.Topics() {
		idx, ok := b.cache[t]
		if !ok {
			for pi := range t.Partitions {
				p := t.Partitions[pi]
				for _, r := range p.Replicas {
					if r == b.id {
						idx = append(idx, int32(pi))
						break
					}
				}
			}
		}
		if len(idx) > 0 {
			seen[t] = idx
		}
		for _, pi := range idx {
			b.refs = append(b.refs, ref{int32(ti), pi})
			if p := t.Partitions[pi]; p.HasLeader() && p.Leader == b.id {
				b.leaders++
			}
		}
	}
	b.cache = seen
	b.win.SetN(len(b.refs))
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
			if b.win.Cursor < len(b.refs) {
				r := b.refs[b.win.Cursor]
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
		cell.Thousands(len(b.refs))+" partitions · "+cell.Thousands(b.leaders)+" led"), b.w), "")
	hdr := " " + cell.Fit("TOPIC", b.topicW()) + " " + cell.FitRight("PART", bPartW) + "  " + cell.Fit("ROLE", bRoleW) +
		cell.Fit("LEADER", bLeadW) + cell.Fit("REPLICAS", bReplW) + cell.Fit("ISR", bISRW) + "STATE"
	lines = append(lines, st.Header.S(cell.Fit(hdr, b.w)))
	from, to := b.win.Visible()
	for i := from; i < to; i++ {
		lines = append(lines, b.renderRow(b.refs[i], i == b.win.Cursor))
	}
	if len(b.refs) == 0 {
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
