// Package quorum is the quorum tab of a KRaft cluster: its metadata
// quorum live (the leader and its epoch, the high watermark, every voter
// and observer with its directory id, endpoints, log end offset, lag and
// last fetch and caught-up times, and the majority's arithmetic in
// words), kraft.version (a static or a dynamic quorum), the feature
// levels with every node's supported range and what holds an upgrade,
// and the registrations that are fenced or stale, with how long. It is
// ktopo quorum's report (cluster.QuorumReport, whose words it uses), kept
// up to date: the quorum part from every poll of the session (the poller
// asks DescribeQuorum anyway), the rest read again every reportEvery
// while the tab is shown, in commands, never in Update.
//
// On the KRaft sandbox the cursor picks a voter or an observer, and the
// sandbox's keys kill or restart it (x) or move the quorum's leader (m).
package quorum

import (
	"context"
	"strconv"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/ui/internal/cell"
	"github.com/ktopo/ktopo/ui/internal/wizard"
	"github.com/ktopo/ktopo/ui/keys"
	"github.com/ktopo/ktopo/ui/nav"
	"github.com/ktopo/ktopo/ui/theme"
)

// Source is what the tab reads (kafkawatch.QuorumWatch). Both run in
// commands, off the UI goroutine.
type Source interface {
	// LiveQuorum is the newest DescribeQuorum answer of the session's
	// polls as a report's quorum part (At, Quorum, QuorumErr); false
	// when no poll has asked yet. It does not wait on the network.
	LiveQuorum() (cluster.QuorumReport, bool)
	// QuorumReport reads the whole report, as ktopo quorum does.
	QuorumReport(ctx context.Context) (cluster.QuorumReport, error)
}

// How often the shown tab takes the polls' quorum (they run every second
// by default) and reads the rest again: the feature ranges and the
// registrations change with a node's upgrade or removal, and reading
// them asks every broker at its endpoint.
const (
	tickEvery   = time.Second
	reportEvery = 15 * time.Second
	readTimeout = 30 * time.Second
)

// Model is the quorum tab.
type Model struct {
	st      theme.Styles
	list    keys.List
	sandbox keys.Sandbox
	now     func() time.Time
	loc     *time.Location
	w, h    int

	src Source
	// live is the polls' newest quorum, report the last whole report
	// (haveLive, haveReport: one came); reportErr why the last reading
	// of the report failed.
	live, report         cluster.QuorumReport
	haveLive, haveReport bool
	reportErr            string
	// reading: a report is being read; readAt when the last was asked.
	reading bool
	readAt  time.Time

	// kraft is the snapshot's KRaft facts (nil: a ZooKeeper cluster, or
	// none yet): what the tab says before its first reading.
	kraft  *cluster.KRaft
	loaded bool

	shown bool
	gen   int           // the tick chain that is current
	every time.Duration // tickEvery (tests: 0, a tick that does not wait)
	top   int           // the first line shown
	// cur is the member under the cursor (the voters, then the
	// observers), on the sandbox only; follow: bring it into view.
	cur    int
	follow bool

	// cache and curLine are the tab drawn whole (see lines), kept until
	// something it shows changes (dirty): a frame then only cuts its
	// window out of them, whatever the number of brokers.
	cache   []string
	curLine int
	dirty   bool
}

// New returns the tab. now is the clock (nil: time.Now); loc the time
// zone of the times shown (nil: local time).
func New(st theme.Styles, km keys.Map, now func() time.Time, loc *time.Location) *Model {
	if now == nil {
		now = time.Now
	}
	if loc == nil {
		loc = time.Local
	}
	kill := km.Sandbox.Kill
	kill.SetHelp("x", "kill/restart node")
	km.Sandbox.Kill = kill
	return &Model{st: st, list: km.List, sandbox: km.Sandbox, now: now, loc: loc, every: tickEvery, dirty: true}
}

// SetSource lets the tab read the quorum (nil: it says it cannot).
func (m *Model) SetSource(src Source) { m.src, m.dirty = src, true }

// Title implements ui.Screen.
func (m *Model) Title() string { return "Quorum" }

// SetSize implements ui.Screen.
func (m *Model) SetSize(w, h int) { m.w, m.h, m.dirty = w, h, true }

// SetStyles implements ui.Screen.
func (m *Model) SetStyles(st theme.Styles) { m.st, m.dirty = st, true }

// SetSnapshot implements ui.SnapshotSetter.
func (m *Model) SetSnapshot(s *cluster.Snapshot) {
	if k := s.KRaft(); k != m.kraft || !m.loaded {
		m.kraft, m.loaded, m.dirty = k, true, true
	}
}

// Report is what the tab shows: the last whole report with the polls'
// quorum when that is newer (ok false: nothing read yet). A poll that
// could not read the quorum replaces its error, not the members the
// report read: a fenced broker's registration is judged stale only when
// it is not among them, which an unknown quorum does not say.
func (m *Model) Report() (cluster.QuorumReport, bool) {
	r := m.report
	if m.haveLive && (!m.haveReport || m.live.At.After(r.At)) {
		r.At, r.QuorumErr = m.live.At, m.live.QuorumErr
		if m.live.QuorumErr == "" || !m.haveReport {
			r.Quorum = m.live.Quorum
		}
	}
	return r, m.haveLive || m.haveReport
}

// tickMsg asks the shown tab to take the polls' quorum again; gen tells
// a current chain from one left over by an earlier showing.
type tickMsg struct{ gen int }

// liveMsg is the polls' newest quorum.
type liveMsg struct {
	r  cluster.QuorumReport
	ok bool
}

// reportReadMsg is a whole report read.
type reportReadMsg struct {
	r   cluster.QuorumReport
	err error
}

func (m *Model) tick() tea.Cmd {
	gen := m.gen
	return tea.Tick(m.every, func(time.Time) tea.Msg { return tickMsg{gen: gen} })
}

// readLive takes the polls' quorum (a copy under the poller's lock).
func (m *Model) readLive() tea.Cmd {
	src := m.src
	if src == nil {
		return nil
	}
	return func() tea.Msg {
		r, ok := src.LiveQuorum()
		return liveMsg{r: r, ok: ok}
	}
}

// readReport reads the whole report when none is being read and the
// last is reportEvery old (or force).
func (m *Model) readReport(force bool) tea.Cmd {
	now := m.now()
	if m.src == nil || m.reading || (!force && m.haveReport && now.Sub(m.readAt) < reportEvery) {
		return nil
	}
	m.reading, m.readAt = true, now
	src := m.src
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), readTimeout)
		defer cancel()
		r, err := src.QuorumReport(ctx)
		return reportReadMsg{r: r, err: err}
	}
}

// Shown implements ui.Shower: while shown, the tab takes the polls'
// quorum every second and reads the rest every reportEvery.
func (m *Model) Shown(shown bool) tea.Cmd {
	m.shown = shown
	m.gen++
	if !shown {
		return nil
	}
	return tea.Batch(m.tick(), m.readLive(), m.readReport(false))
}

// ShortHelp implements help.KeyMap.
func (m *Model) ShortHelp() []key.Binding {
	return []key.Binding{m.list.Up, m.list.Down, m.sandbox.Kill, m.sandbox.MoveController}
}

// FullHelp implements help.KeyMap.
func (m *Model) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{m.list.Up, m.list.Down, m.list.PageUp, m.list.PageDown, m.list.Top, m.list.Bottom},
		{m.sandbox.Kill, m.sandbox.MoveController},
	}
}

// members are the voters then the observers of r.
func members(r cluster.QuorumReport) []cluster.QuorumMember {
	q := r.Quorum
	out := make([]cluster.QuorumMember, 0, len(q.Voters)+len(q.Observers))
	return append(append(out, q.Voters...), q.Observers...)
}

// Selected is the member under the cursor and whether it is a voter
// (ok false: none, or not on the sandbox, where the cursor is not
// shown).
func (m *Model) Selected() (id int, voter, ok bool) {
	r, _ := m.Report()
	ms := members(r)
	if !m.sandbox.Kill.Enabled() || len(ms) == 0 {
		return 0, false, false
	}
	i := min(max(m.cur, 0), len(ms)-1)
	return ms[i].ID, i < len(r.Quorum.Voters), true
}

// Update implements ui.Screen.
func (m *Model) Update(msg tea.Msg) (tea.Cmd, nav.Request) {
	if _, ok := msg.(tickMsg); !ok {
		m.dirty = true // a reading, or a key that may move the cursor
	}
	switch msg := msg.(type) {
	case tickMsg:
		if msg.gen != m.gen || !m.shown {
			return nil, nil
		}
		return tea.Batch(m.tick(), m.readLive(), m.readReport(false)), nil
	case liveMsg:
		if msg.ok {
			m.live, m.haveLive = msg.r, true
		}
	case reportReadMsg:
		m.reading = false
		if msg.err != nil {
			m.reportErr = msg.err.Error()
			return nil, nil
		}
		m.report, m.haveReport, m.reportErr = msg.r, true, ""
	case tea.KeyPressMsg:
		return nil, m.key(msg)
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

// key handles a key: the cursor on the sandbox (else the arrows scroll),
// the pages, and the sandbox's actions on the member under the cursor.
func (m *Model) key(msg tea.KeyPressMsg) nav.Request {
	cursor := m.sandbox.Kill.Enabled()
	switch {
	case key.Matches(msg, m.list.Up) && cursor:
		m.cur, m.follow = max(m.cur-1, 0), true
	case key.Matches(msg, m.list.Down) && cursor:
		r, _ := m.Report()
		m.cur, m.follow = min(m.cur+1, max(len(members(r))-1, 0)), true
	case m.list.Scroll(msg, &m.top, max(m.h-1, 1)):
	case key.Matches(msg, m.sandbox.Kill):
		if id, voter, ok := m.Selected(); ok && voter {
			return nav.ToggleController{Controller: id}
		} else if ok {
			return nav.ToggleBroker{Broker: id}
		}
	case key.Matches(msg, m.sandbox.MoveController):
		return nav.MoveController{}
	}
	return nil
}

// View implements ui.Screen.
func (m *Model) View() string {
	if m.w <= 0 || m.h <= 0 {
		return ""
	}
	if m.dirty {
		m.cache, m.curLine = m.lines()
		m.dirty = false
	}
	lines, curLine := m.cache, m.curLine
	if m.follow && curLine >= 0 && len(lines) > m.h {
		// The cursor's row in view, with the tables' headings above it
		// when it is near the top.
		switch {
		case curLine < m.top+1:
			m.top = curLine - 3
		case curLine >= m.top+m.h-1:
			m.top = curLine - m.h + 2
		}
	}
	m.follow = false
	return cell.Scroll(lines, &m.top, m.h, m.w, m.st.Muted.S)
}

// labelW is the width of the quorum's labels.
const labelW = 15

// lines is the whole tab, line by line, each at most m.w wide, and the
// line of the member under the cursor (-1: none).
func (m *Model) lines() ([]string, int) {
	st := &m.st
	title := " " + st.Bold.S("Metadata quorum")
	r, ok := m.Report()
	switch {
	case !ok && m.loaded && m.kraft == nil:
		return []string{title, "", " " + st.Muted.S("A ZooKeeper-mode cluster has no metadata quorum: the Migration tab shows one migrating to KRaft.")}, -1
	case !ok && m.src == nil:
		return []string{title, "", " " + st.Muted.S("This session does not read the quorum (it is read over the Kafka protocol, with --bootstrap-server).")}, -1
	case !ok && m.reportErr != "":
		out := []string{title, ""}
		for _, l := range wizard.Wrap(m.reportErr, m.w, 1) {
			out = append(out, st.Danger.S(l))
		}
		return out, -1
	case !ok:
		return []string{title + "  " + st.Muted.S("reading…")}, -1
	}
	if r.ClusterID != "" {
		title += st.Muted.S(" of cluster " + r.ClusterID)
	}
	title += st.Muted.S("  ·  " + r.At.In(m.loc).Format("15:04:05"))
	out := []string{cell.Clip(title, m.w), ""}
	row := func(label, value string, ink theme.Ink) {
		for i, l := range cell.Wrap(value, m.w-labelW-3) {
			lab := ""
			if i == 0 {
				lab = label
			}
			out = append(out, cell.Clip(" "+st.Muted.S(cell.Fit(lab, labelW))+" "+ink.S(l), m.w))
		}
	}
	q := r.Quorum
	if r.QuorumErr != "" {
		row("quorum", "unknown: "+r.QuorumErr, st.Danger)
	} else {
		if q.LeaderID >= 0 {
			row("leader", "controller "+strconv.Itoa(q.LeaderID)+" (epoch "+strconv.Itoa(q.LeaderEpoch)+")", st.Controller)
		} else {
			row("leader", "none (epoch "+strconv.Itoa(q.LeaderEpoch)+")", st.Danger)
		}
		row("high watermark", cell.Thousands(int(q.HighWatermark)), st.Text)
	}
	kv := st.Text
	if _, known := r.Static(); !known {
		kv = st.Muted
	}
	row("kraft.version", r.KRaftVersionText(), kv)
	curLine := -1
	if r.QuorumErr == "" {
		row("majority", r.MajorityText(), majorityInk(st, r))
		curLine = m.members(&out, r)
	}
	m.features(&out, r)
	m.registrations(&out, r)
	if m.reportErr != "" {
		out = append(out, "")
		for _, l := range wizard.Wrap("The features and registrations could not be read again: "+m.reportErr, m.w, 1) {
			out = append(out, st.Danger.S(l))
		}
	}
	return out, curLine
}

// majorityInk colours the majority's sentence: fine while every voter is
// up, a warning while some are down but a majority is left, danger
// without a leader or a majority.
func majorityInk(st *theme.Styles, r cluster.QuorumReport) theme.Ink {
	q := r.Quorum
	down := len(q.Down(r.At))
	n := len(q.Voters)
	switch {
	case q.LeaderID < 0 || n == 0 || n-down <= n/2:
		return st.Danger
	case down > 0:
		return st.Warning
	}
	return st.Online
}

// memberCols are the members' tables' columns.
var memberCols = []string{"ID", "DIRECTORY ID", "LOG END", "LAG", "LAST FETCH", "LAST CAUGHT UP", "STATUS", "ENDPOINTS"}

// members draws the voters' and the observers' tables and returns the
// line of the member under the cursor (-1: none).
func (m *Model) members(out *[]string, r cluster.QuorumReport) int {
	st := &m.st
	q := r.Quorum
	selID, selVoter, sel := m.Selected()
	curLine := -1
	type rowCells struct {
		cells []string
		ink   theme.Ink
		voter bool
		id    int
	}
	var rows []rowCells
	for i, mb := range members(r) {
		voter := i < len(q.Voters)
		status := q.MemberStatus(mb, voter, r.At)
		id := strconv.Itoa(mb.ID)
		ink := st.Text
		switch {
		case status == "leader":
			id, ink = id+"★", st.Controller
		case strings.HasSuffix(status, "down"):
			ink = st.Danger
		case q.Lag(mb) != 0:
			ink = st.Warning
		}
		eps := "-"
		if len(mb.Endpoints) > 0 {
			eps = strings.Join(mb.Endpoints, ",")
		}
		if !voter {
			eps = ""
		}
		leo := "-"
		if mb.LogEndOffset >= 0 {
			leo = cell.Thousands(int(mb.LogEndOffset))
		}
		rows = append(rows, rowCells{cells: []string{id, q.DirectoryText(mb), leo, q.LagText(mb),
			cluster.Ago(r.At, mb.LastFetch), cluster.Ago(r.At, mb.LastCaughtUp), status, eps}, ink: ink, voter: voter, id: mb.ID})
	}
	widths := make([]int, len(memberCols))
	for i, c := range memberCols {
		widths[i] = cell.Width(c)
	}
	for _, rw := range rows {
		for i, c := range rw.cells {
			widths[i] = max(widths[i], cell.Width(c))
		}
	}
	right := map[int]bool{2: true, 3: true} // the numbers
	line := func(cells []string) string {
		var b strings.Builder
		b.WriteString("   ")
		for i, c := range cells {
			if i == len(cells)-1 {
				b.WriteString(c)
				break
			}
			if right[i] {
				b.WriteString(cell.FitRight(c, widths[i]))
			} else {
				b.WriteString(cell.Fit(c, widths[i]))
			}
			b.WriteString("  ")
		}
		return strings.TrimRight(b.String(), " ")
	}
	section := func(title string, n int, voters bool) {
		*out = append(*out, "", " "+st.Header.S(title)+" "+st.Muted.S(strconv.Itoa(n)))
		if n == 0 {
			return
		}
		*out = append(*out, cell.Clip(st.Header.S(line(memberCols)), m.w))
		for _, rw := range rows {
			if rw.voter != voters {
				continue
			}
			l := line(rw.cells)
			if sel && rw.id == selID && rw.voter == selVoter {
				curLine = len(*out)
				*out = append(*out, st.Selected.S(cell.Fit(l, m.w)))
				continue
			}
			*out = append(*out, cell.Clip(rw.ink.S(l), m.w))
		}
	}
	section("VOTERS", len(q.Voters), true)
	section("OBSERVERS", len(q.Observers), false)
	return curLine
}

// features draws the feature levels: each feature's finalized level and
// every node's range, then how far it may be raised and what holds it.
func (m *Model) features(out *[]string, r cluster.QuorumReport) {
	st := &m.st
	*out = append(*out, "", " "+st.Header.S("FEATURES"))
	if !m.haveReport {
		*out = append(*out, "   "+st.Muted.S("reading every node's supported ranges…"))
		return
	}
	if r.FinalizedErr != "" {
		for _, l := range wizard.Wrap("finalized levels unknown: "+r.FinalizedErr, m.w, 3) {
			*out = append(*out, st.Danger.S(l))
		}
	}
	fs := r.Features()
	if len(fs) == 0 {
		*out = append(*out, "   "+st.Muted.S("none known"))
		return
	}
	nameW, lvlW := cell.Width("FEATURE"), cell.Width("FINALIZED")
	for _, f := range fs {
		nameW = max(nameW, cell.Width(f.Name))
		lvlW = max(lvlW, cell.Width(cluster.FeatureLevelLabel(f.Name, f.Finalized)))
	}
	*out = append(*out, cell.Clip(st.Header.S("   "+cell.Fit("FEATURE", nameW)+"  "+cell.Fit("FINALIZED", lvlW)+"  SUPPORTED"), m.w))
	// The ranges and the upgrade under SUPPORTED; in a narrow window,
	// where that column would be a sliver, under the feature's name.
	indent := 3 + nameW + 2 + lvlW + 2
	ci := indent
	if m.w-indent < 50 {
		ci = 5
	}
	for _, f := range fs {
		lead := "   " + cell.Fit(f.Name, nameW) + "  " + cell.Fit(cluster.FeatureLevelLabel(f.Name, f.Finalized), lvlW) + "  "
		sup := f.SupportedText()
		if ci < indent && cell.Width(lead)+cell.Width(sup) > m.w-1 {
			*out = append(*out, cell.Clip(strings.TrimRight(lead, " "), m.w))
			lead = cell.Spaces(ci)
		}
		for i, l := range cell.Wrap(sup, m.w-cell.Width(lead)-1) {
			if i > 0 {
				lead = cell.Spaces(ci)
			}
			*out = append(*out, cell.Clip(lead+l, m.w))
		}
		ink := st.Muted
		up := r.FeatureUpgradeText(f)
		switch {
		case len(f.Holders) > 0 || strings.Contains(up, "refuses"):
			ink = st.Warning
		case f.Upgradable():
			ink = st.Online
		}
		for i, l := range cell.Wrap(up, m.w-ci-3) {
			arrow := "↳ "
			if i > 0 {
				arrow = "  "
			}
			*out = append(*out, cell.Clip(cell.Spaces(ci)+arrow+ink.S(l), m.w))
		}
	}
	if u := cluster.UnaskedText(fs); u != "" {
		for _, l := range wizard.Wrap(u, m.w, 3) {
			*out = append(*out, st.Muted.S(l))
		}
	}
	// What holds each feature below a level, node by node, as ktopo
	// quorum says it: the node's own range or the controller's refusal.
	if groups := cluster.BlockersByNode(r.Blockers()); len(groups) > 0 {
		*out = append(*out, "", cell.Clip(" "+st.Header.S("UPGRADE BLOCKERS")+"  "+st.Muted.S("Kafka's controller checks every registration, a fenced broker's too"), m.w))
		for _, g := range groups {
			for _, l := range wizard.Wrap(cluster.BlockerText(g), m.w, 3) {
				*out = append(*out, st.Warning.S(l))
			}
		}
	}
}

// registrations draws the registered brokers that are not alive: fenced
// ones, with how long since they fetched the metadata log, whether they
// answer, whether they look stale.
func (m *Model) registrations(out *[]string, r cluster.QuorumReport) {
	st := &m.st
	head := " " + st.Header.S("REGISTRATIONS") + "  "
	if !m.haveReport {
		*out = append(*out, "", head+st.Muted.S("reading…"))
		return
	}
	fenced := r.Fenced()
	ink := st.Online
	switch {
	case r.BrokersErr != "":
		ink = st.Danger
	case len(fenced) > 0:
		ink = st.Warning
	}
	*out = append(*out, "")
	for i, l := range cell.Wrap(r.RegistrationsText(), m.w-16) {
		if i > 0 {
			head = cell.Spaces(16)
		}
		*out = append(*out, cell.Clip(head+ink.S(l), m.w))
	}
	for _, g := range fenced {
		name := "broker " + strconv.Itoa(g.ID)
		gi := st.Warning
		if g.Stale() {
			gi = st.Danger
		}
		lead := "   " + cell.Fit(name, 12) + " "
		for i, l := range cell.Wrap("fenced; "+g.FencedText(r.At), m.w-16-1) {
			if i > 0 {
				lead = cell.Spaces(16)
			}
			*out = append(*out, cell.Clip(lead+gi.S(l), m.w))
		}
	}
}
