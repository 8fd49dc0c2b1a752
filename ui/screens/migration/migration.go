// Package migration is the migration radar: where a ZooKeeper to KRaft
// migration stands, read live from ZooKeeper alone (cluster.AssessMigration
// of the newest snapshot when the radar is drawn, and once a second while
// shown, so that a sync that stopped is seen without any further event;
// every snapshot, shown or not, times /migration's offset): the phase along Kafka's
// steps, the controller, /migration and when its offset last moved, the
// brokers by mode, what a write through ZooKeeper meets, and the hazards.
// Before a migration it is a readiness check (brokers in assignments that
// are not registered, topics without topic_id).
package migration

import (
	"context"
	"strconv"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/internal/text"
	"github.com/ktopo/ktopo/ui/internal/cell"
	"github.com/ktopo/ktopo/ui/keys"
	"github.com/ktopo/ktopo/ui/nav"
	"github.com/ktopo/ktopo/ui/theme"
)

// tickEvery is how often the shown radar judges the sync's age again
// (and asks the KRaft quorum, when it can).
const tickEvery = time.Second

// askTimeout bounds one question to the KRaft quorum.
const askTimeout = 5 * time.Second

// QuorumAsker asks the KRaft quorum for its high watermark (ktopo
// --bootstrap-controller): what tells how far ZooKeeper lags KRaft.
type QuorumAsker func(context.Context) (cluster.KRaftQuorum, error)

// Model is the migration radar screen.
type Model struct {
	st   theme.Styles
	list keys.List
	now  func() time.Time
	loc  *time.Location
	w, h int

	snap   *cluster.Snapshot
	sync   cluster.SyncWatch
	status cluster.MigrationStatus
	// at is the time of the newest snapshot or tick (what the radar is
	// assessed at); stale: status is not yet of snap at at.
	at    time.Time
	stale bool

	shown bool
	gen   int // the tick chain that is current
	top   int // first line shown (scrolling)

	// ask asks the KRaft quorum while the radar is shown (nil: it cannot
	// be asked); asking is true while a question is out; quorum and
	// quorumErr are the last answer.
	ask       QuorumAsker
	asking    bool
	quorum    *cluster.KRaftQuorum
	quorumErr string
}

// New returns the screen. now is the clock (nil: time.Now); loc the time
// zone of the times shown (nil: local time).
func New(st theme.Styles, km keys.Map, now func() time.Time, loc *time.Location) *Model {
	if now == nil {
		now = time.Now
	}
	if loc == nil {
		loc = time.Local
	}
	return &Model{st: st, list: km.List, now: now, loc: loc}
}

// SetQuorumAsker lets the radar ask the KRaft quorum, once a second
// while shown, how far ZooKeeper lags KRaft.
func (m *Model) SetQuorumAsker(ask QuorumAsker) { m.ask = ask }

// Title implements ui.Screen.
func (m *Model) Title() string { return "Migration" }

// SetSize implements ui.Screen.
func (m *Model) SetSize(w, h int) { m.w, m.h = w, h }

// SetStyles implements ui.Screen.
func (m *Model) SetStyles(st theme.Styles) { m.st = st }

// Status is the radar's reading of the newest snapshot.
func (m *Model) Status() cluster.MigrationStatus {
	m.assess()
	return m.status
}

// SetSnapshot implements ui.SnapshotSetter: every snapshot, shown or not,
// times /migration's offset (cheap); the radar itself is assessed when
// drawn.
func (m *Model) SetSnapshot(s *cluster.Snapshot) {
	m.snap, m.at, m.stale = s, m.now(), true
	m.sync.Observe(s.Migration(), m.at)
}

// assess brings status up to date: O(topics) before a migration, O(partitions)
// once a KRaft controller owns the metadata (the brokers by mode, the
// partitions added behind its back), so it runs only when the radar is
// drawn, at most once per snapshot or tick.
func (m *Model) assess() {
	if m.snap == nil || !m.stale {
		return
	}
	m.stale = false
	m.status = cluster.AssessMigration(m.snap, m.at, &m.sync, m.quorum)
}

// tickMsg asks the shown radar to judge again; gen tells a current chain
// from one left over by an earlier showing.
type tickMsg struct{ gen int }

// quorumMsg is the KRaft quorum's answer.
type quorumMsg struct {
	q   cluster.KRaftQuorum
	err error
}

// askQuorum asks the KRaft quorum, when it can be asked, the radar shows a
// KRaft controller's migration and no question is out.
func (m *Model) askQuorum() tea.Cmd {
	if m.ask == nil || m.asking || m.snap == nil || !m.snap.Migration().Present {
		return nil
	}
	m.asking = true
	ask := m.ask
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), askTimeout)
		defer cancel()
		q, err := ask(ctx)
		return quorumMsg{q: q, err: err}
	}
}

func (m *Model) tick() tea.Cmd {
	gen := m.gen
	return tea.Tick(tickEvery, func(time.Time) tea.Msg { return tickMsg{gen: gen} })
}

// Shown implements ui.Shower: while shown, the radar judges again every
// second.
func (m *Model) Shown(shown bool) tea.Cmd {
	m.shown = shown
	m.gen++
	if !shown {
		return nil
	}
	m.at, m.stale = m.now(), true
	return tea.Batch(m.tick(), m.askQuorum())
}

// ShortHelp implements help.KeyMap.
func (m *Model) ShortHelp() []key.Binding {
	return []key.Binding{m.list.Up, m.list.Down}
}

// FullHelp implements help.KeyMap.
func (m *Model) FullHelp() [][]key.Binding {
	return [][]key.Binding{{m.list.Up, m.list.Down, m.list.PageUp, m.list.PageDown, m.list.Top, m.list.Bottom}}
}

// Update implements ui.Screen.
func (m *Model) Update(msg tea.Msg) (tea.Cmd, nav.Request) {
	switch msg := msg.(type) {
	case tickMsg:
		if msg.gen != m.gen || !m.shown {
			return nil, nil
		}
		m.at, m.stale = m.now(), true
		return tea.Batch(m.tick(), m.askQuorum()), nil
	case quorumMsg:
		m.asking, m.stale = false, true
		if msg.err != nil { // an older answer would show a lag that is no longer known
			m.quorum, m.quorumErr = nil, msg.err.Error()
			return nil, nil
		}
		m.quorum, m.quorumErr = &msg.q, ""
	case tea.KeyPressMsg:
		m.list.Scroll(msg, &m.top, max(m.h-1, 1))
	case tea.MouseWheelMsg:
		switch msg.Button {
		case tea.MouseWheelUp:
			m.top -= 3
		case tea.MouseWheelDown:
			m.top += 3
		}
	}
	return nil, nil
}

// phaseLine are the phases of a migration, in order, as the strip names
// them (short: in fewer than 100 columns).
var phaseLine = []struct {
	p           cluster.MigrationPhase
	name, short string
}{
	{cluster.PhaseNone, "none", "none"},
	{cluster.PhaseWaiting, "controllers ready", "ready"},
	{cluster.PhaseCopying, "copying", "copying"},
	{cluster.PhaseDualWrite, "dual write", "dual write"},
	{cluster.PhaseKRaftBrokers, "brokers on KRaft", "KRaft brokers"},
	{cluster.PhaseFinalized, "finalized", "finalized"},
}

// View implements ui.Screen.
func (m *Model) View() string {
	if m.w <= 0 || m.h <= 0 {
		return ""
	}
	m.assess()
	return cell.Scroll(m.lines(), &m.top, m.h, m.w, m.st.Muted.S)
}

const labelW = 16

// lines is the whole radar, line by line, each at most m.w wide.
func (m *Model) lines() []string {
	st := &m.st
	if m.snap == nil {
		return []string{" " + st.Bold.S("Migration") + "  " + st.Muted.S("loading…")}
	}
	s := m.status
	var out []string
	phaseInk := st.Accent
	switch {
	case s.SyncStopped || s.Phase == cluster.PhaseReverted:
		phaseInk = st.Danger
	case s.Phase == cluster.PhaseNone:
		phaseInk = st.Bold
	}
	title := " " + st.Bold.S("Migration") + "  " + phaseInk.S(s.Phase.Title()) + st.Muted.S("  ["+s.Phase.String()+"]  ·  "+m.at.In(m.loc).Format("15:04:05"))
	out = append(out, cell.Clip(title, m.w), m.strip(), "")

	row := func(label string, value string, ink theme.Ink) {
		first := true
		for _, l := range cell.Wrap(value, m.w-labelW-2) {
			lab := ""
			if first {
				lab = label
			}
			out = append(out, cell.Clip(" "+st.Muted.S(cell.Fit(lab, labelW))+" "+ink.S(l), m.w))
			first = false
		}
	}
	row("controller", m.controller(), st.Controller)
	row("/migration", m.znode(), st.Text)
	if s.Phase.KRaftOwned() && s.Migration.Present {
		ink, what := st.Online, "moved "+age(s.SyncAge)+" ago"
		switch {
		case !s.SyncKnown:
			ink, what = st.Muted, "unknown"
		case s.SyncStopped:
			ink, what = st.Danger, "stopped: the offset has not moved for "+age(s.SyncAge)
		case s.Phase == cluster.PhaseFinalized:
			ink, what = st.Muted, "no longer written ("+age(s.SyncAge)+"): finalized, or frozen"
		}
		row("sync", what, ink)
		lagInk := st.Text
		if !s.LagKnown {
			lagInk = st.Muted
		}
		row("lag", s.LagLine(m.ask != nil, m.quorumErr, "ktopo --bootstrap-controller"), lagInk)
	}
	row("ZooKeeper mode", ids(s.ZKBrokers), st.Text)
	if s.Phase.KRaftOwned() {
		row("KRaft mode", ids(s.KRaftBrokers), st.Online)
	}
	if len(s.Unregistered) > 0 {
		what := "hold replicas, not registered in ZooKeeper"
		if s.Phase.KRaftOwned() {
			what += " nor in any ISR (down, or KRaft brokers catching up)"
		}
		row("unregistered", text.Ints(s.Unregistered)+": "+what, st.Warning)
	}
	switch s.Verdict.Level {
	case cluster.WriteOK:
		row("ZK writes", "allowed", st.Online)
	case cluster.WriteWarn:
		row("ZK writes", "asked first: a KRaft controller may take over before a write is carried out", st.Warning)
	default:
		row("ZK writes", "refused (a write would be lost or undone): use --bootstrap-server", st.Danger)
	}
	out = append(out, "")
	if len(s.Hazards) == 0 {
		out = append(out, " "+st.Header.S("HAZARDS")+"  "+st.Online.S("none"))
		return out
	}
	out = append(out, " "+st.Header.S("HAZARDS")+"  "+st.Danger.S(strconv.Itoa(len(s.Hazards))))
	for _, h := range s.Hazards {
		for i, l := range cell.Wrap(h.Code+": "+h.Text, m.w-4) {
			lead := "   "
			if i == 0 {
				lead = " " + st.Danger.S("!") + " "
			}
			out = append(out, cell.Clip(lead+l, m.w))
		}
	}
	return out
}

// strip is the phases in order: those passed, the current one, those to
// come (a reverted cluster is off the line).
func (m *Model) strip() string {
	st := &m.st
	cur := m.status.Phase
	if cur == cluster.PhaseReverted {
		return " " + st.Danger.S("◆ reverted to ZooKeeper") + st.Muted.S(" · /migration left from an earlier attempt")
	}
	var parts []string
	for _, p := range phaseLine {
		name := p.name
		if m.w < 100 {
			name = p.short
		}
		switch {
		case p.p == cur:
			parts = append(parts, st.Accent.S("● "+name))
		case p.p < cur:
			parts = append(parts, st.Online.S("✓ "+name))
		default:
			parts = append(parts, st.Muted.S("○ "+name))
		}
	}
	return cell.Clip(" "+strings.Join(parts, st.Muted.S(" › ")), m.w)
}

func (m *Model) controller() string {
	at := func(ms int64) string { return time.UnixMilli(ms).In(m.loc).Format("2006-01-02 15:04 MST") }
	return m.status.Owner(at) + " · /controller_epoch " + strconv.Itoa(m.status.ControllerEpoch)
}

func (m *Model) znode() string {
	mg := m.status.Migration
	switch {
	case !mg.Present:
		return "absent"
	case mg.Err != nil:
		return "unreadable: " + mg.Err.Error()
	}
	x := mg.State
	if x.KRaftControllerID < 0 && x.KRaftMetadataOffset <= 0 {
		return "created " + time.UnixMilli(mg.Ctime).In(m.loc).Format("2006-01-02 15:04:05 MST") + " by the KRaft controllers; no KRaft controller has taken over (every field -1)"
	}
	return "KRaft controller " + strconv.Itoa(x.KRaftControllerID) + " · epoch " + strconv.Itoa(x.KRaftControllerEpoch) +
		" · metadata offset " + strconv.FormatInt(x.KRaftMetadataOffset, 10) + " (epoch " + strconv.Itoa(x.KRaftMetadataEpoch) + ")"
}

func ids(v []int) string {
	if len(v) == 0 {
		return "—"
	}
	return text.Join(v, ", ")
}

// age renders a duration: "0.4s", "12s", "3m4s".
func age(d time.Duration) string {
	if d < 10*time.Second {
		return strconv.FormatFloat(d.Seconds(), 'f', 1, 64) + "s"
	}
	return d.Round(time.Second).String()
}
