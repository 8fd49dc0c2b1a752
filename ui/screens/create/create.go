// Package create is the topic-creation wizard, a screen the shell pushes
// with `c` or `:create`. It walks through four stages:
//
//  1. form: name, partitions, replication factor, rack mode, config
//     overrides, or a manual assignment, each validated as typed with
//     Kafka's messages;
//  2. preview: the assignment matrix (partitions × brokers grouped by rack,
//     leaders marked), per-broker and per-rack totals, each broker's load
//     after creation and warnings; the start index and shift are chosen
//     here (random first, then r, ←/→) and shown, so the plan is
//     reproducible; `w` shows the exact znodes and JSON, `enter` asks for
//     confirmation;
//  3. creation: the plan the preview rendered, and no other, is written by
//     cluster.CreateTopic in one ZooKeeper multi (re-validated against the
//     newest snapshot first: if the cluster changed so that the plan would
//     differ, the wizard returns to the preview and says so);
//  4. progress: a grid of partitions moving NonExistent → New → Online →
//     in sync, read from the snapshots the shell pushes (no polling), with
//     what it waits for when it stalls, then a summary.
//
// The write runs in a tea.Cmd that holds only copies; its outcome comes
// back as a message wrapped in nav.TaskMsg, so it reaches the wizard even
// after the user closed it with esc: the shell then keeps the wizard in its
// background task list (see ui.Task), feeds it snapshots and shows its
// progress in the status bar until the topic is online.
package create

import (
	"math/rand/v2"
	"slices"
	"strconv"
	"sync/atomic"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/ktopo/ktopo/assign"
	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/internal/text"
	"github.com/ktopo/ktopo/ui/anim"
	"github.com/ktopo/ktopo/ui/keys"
	"github.com/ktopo/ktopo/ui/nav"
	"github.com/ktopo/ktopo/ui/theme"
)

// Options configure a wizard.
type Options struct {
	Styles theme.Styles
	Keys   keys.Map
	// Anims is the shell's animation set: partitions flash as they change
	// phase (nil: no flashing).
	Anims *anim.Set
	// Writer is the ZooKeeper session the topic is written through.
	Writer cluster.ZK
	// Now is the clock (default time.Now); Rand draws the random start
	// index and replica shift (default: randomly seeded).
	Now  func() time.Time
	Rand *rand.Rand
	// Pace reads the sandbox controller's current pace, which can change
	// while the wizard is open; non-nil enables the pace key (sandbox only).
	Pace func() time.Duration
}

type stage uint8

const (
	stageForm     stage = iota
	stagePreview        // the plan, maybe with the confirmation popup
	stageWriting        // the multi is in flight
	stageProgress       // written; waiting for the controller
	stageDone           // every partition has a leader
	stageFailed         // the write failed: nothing was written
)

var taskIDs atomic.Int64

// Model is the wizard.
type Model struct {
	opt  Options
	st   theme.Styles
	km   keys.Wizard
	id   int
	w, h int
	snap *cluster.Snapshot
	now  func() time.Time
	rng  *rand.Rand

	stage stage
	form  form
	pv    preview
	tr    *tracker

	// detached: the user closed the wizard while it worked; it runs on in
	// the shell's background list and stops its clock ticks.
	detached bool
	ticking  bool
	noTicks  bool // tests: no clock ticks
	// pace is the pace last chosen with the pace key (paceSet); until then
	// the sandbox's own, read at each render.
	pace    time.Duration
	paceSet bool
}

// New returns a wizard with an empty, focused name field.
func New(o Options) *Model {
	if o.Now == nil {
		o.Now = time.Now
	}
	rng := o.Rand
	if rng == nil {
		rng = rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64()))
	}
	m := &Model{opt: o, st: o.Styles, km: o.Keys.Wizard, id: int(taskIDs.Add(1)), now: o.Now, rng: rng}
	m.km.Pace.SetEnabled(o.Pace != nil)
	m.form.init(m.st)
	m.pv.start, m.pv.shift = -1, -1
	m.pv.renderRow = m.pv.row
	return m
}

// TaskID implements ui.Task: the id nav.TaskMsg carries.
func (m *Model) TaskID() int { return m.id }

// Title implements ui.Screen.
func (m *Model) Title() string {
	name := m.form.in[fName].Value()
	switch m.stage {
	case stageForm:
		return "Create topic"
	case stagePreview:
		return "Create " + name + ": preview"
	}
	return "Create " + name
}

// SetSize implements ui.Screen.
func (m *Model) SetSize(w, h int) {
	m.w, m.h = w, h
	m.form.setWidth(w)
	m.pv.setSize(w, h)
	if m.tr != nil {
		m.tr.setSize(w, h)
	}
}

// SetStyles implements ui.Screen.
func (m *Model) SetStyles(st theme.Styles) {
	m.st = st
	for i := range m.form.in {
		theme.StyleInput(&m.form.in[i], st)
	}
}

// SetSnapshot implements ui.SnapshotSetter: the form validates against
// it, the preview shows the brokers' load and notices a changed cluster,
// the progress reads every partition's phase from it.
func (m *Model) SetSnapshot(s *cluster.Snapshot) {
	if s == nil || s == m.snap {
		return
	}
	m.snap = s
	m.form.setDefaults(s)
	switch m.stage {
	case stageForm:
		m.form.validate(s)
	case stagePreview:
		m.pv.observe(s)
	case stageProgress, stageDone:
		m.tr.observe(s, m.now())
		if m.tr.done() {
			m.stage = stageDone
		}
	}
}

// Stage names the current stage (for tests and the shell): "form",
// "preview", "confirm", "writing", "progress", "done" or "failed".
func (m *Model) Stage() string {
	switch m.stage {
	case stageForm:
		return "form"
	case stagePreview:
		if m.pv.confirm {
			return "confirm"
		}
		return "preview"
	case stageWriting:
		return "writing"
	case stageProgress:
		return "progress"
	case stageDone:
		return "done"
	}
	return "failed"
}

// Plan returns the plan the preview shows (and the creation writes), nil
// before the first preview.
func (m *Model) Plan() *cluster.TopicPlan { return m.pv.plan }

// Progress is the creation's progress (zero before the write).
func (m *Model) Progress() cluster.Progress {
	if m.tr == nil {
		return cluster.Progress{}
	}
	return m.tr.pr
}

// Capturing implements ui.Capturer: the form's text fields take every key.
func (m *Model) Capturing() bool { return m.stage == stageForm }

// Back implements ui.Backer: esc steps back inside the wizard (closes the
// popup or the znode view, returns from the preview or a failure to the
// form with every value kept) before the shell closes it.
func (m *Model) Back() bool {
	switch m.stage {
	case stagePreview:
		switch {
		case m.pv.confirm:
			m.pv.confirm = false
		case m.pv.showOps:
			m.pv.showOps = false
		default:
			m.toForm()
		}
		return true
	case stageFailed:
		m.toForm()
		return true
	}
	return false
}

// Detach implements ui.Task: closing the wizard while the topic is being
// written or brought online keeps it running in the background.
func (m *Model) Detach() bool {
	if m.stage == stageWriting || m.stage == stageProgress {
		m.detached = true
		return true
	}
	return false
}

// TaskStatus implements ui.Task: one line for the status bar while the
// wizard works in the background, and whether it has finished.
func (m *Model) TaskStatus() (string, bool) {
	name := m.form.in[fName].Value()
	switch m.stage {
	case stageWriting:
		return "Creating topic " + name + ": writing…", false
	case stageProgress:
		pr := m.tr.pr
		s := "Creating topic " + name + ": " + strconv.Itoa(pr.Online) + "/" + strconv.Itoa(len(pr.Partitions)) + " partitions online"
		if w := m.tr.waiting(); len(w) > 0 {
			s += " — waiting: " + w[0]
		}
		return s, false
	case stageDone:
		return m.tr.summaryLine(), true
	case stageFailed:
		return "Creating topic " + name + " failed: " + m.tr.failLine(), true
	}
	return "", true
}

func (m *Model) toForm() {
	m.stage = stageForm
	m.pv.confirm, m.pv.showOps = false, false
	m.tr = nil
	m.form.focusField(m.form.focus)
	if m.snap != nil {
		m.form.validate(m.snap)
	}
}

// msgs of the wizard's own commands, delivered wrapped in nav.TaskMsg.
type (
	// topicCreatedMsg: the multi succeeded after took.
	topicCreatedMsg struct{ took time.Duration }
	// createFailedMsg: the multi failed; nothing was written.
	createFailedMsg struct{ err error }
	// opsDescribedMsg: what the multi would write now (the `w` view).
	opsDescribedMsg struct {
		plan  *cluster.TopicPlan
		lines []string
		err   error
	}
	// tickMsg advances the elapsed-time display while waiting.
	tickMsg struct{ t time.Time }
)

func (m *Model) task(msg tea.Msg) tea.Msg { return nav.TaskMsg{Task: m.id, Msg: msg} }

// Update implements ui.Screen.
func (m *Model) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case topicCreatedMsg:
		if m.stage != stageWriting {
			return nil
		}
		m.stage = stageProgress
		m.tr.written(msg.took)
		if m.snap != nil {
			m.tr.observe(m.snap, m.now())
			if m.tr.done() {
				m.stage = stageDone
			}
		}
		return m.tick()
	case createFailedMsg:
		if m.stage != stageWriting {
			return nil
		}
		m.stage = stageFailed
		m.tr.fail(msg.err)
		return nil
	case opsDescribedMsg:
		if msg.plan == m.pv.plan {
			m.pv.setOps(msg.lines, msg.err)
		}
		return nil
	case tickMsg:
		m.ticking = false
		if m.tr != nil {
			m.tr.now = m.now()
		}
		return m.tick()
	case tea.KeyPressMsg:
		return m.key(msg)
	case tea.PasteMsg:
		if m.stage == stageForm {
			return m.form.update(msg, m.snap)
		}
	case tea.MouseWheelMsg:
		d := 0
		switch msg.Mouse().Button {
		case tea.MouseWheelUp:
			d = -3
		case tea.MouseWheelDown:
			d = 3
		}
		m.scroll(d)
	}
	return nil
}

// tick keeps the elapsed time moving while the wizard is on screen and
// waits; it stops when the topic is online, failed, or in the background.
func (m *Model) tick() tea.Cmd {
	if m.ticking || m.detached || m.noTicks || (m.stage != stageWriting && m.stage != stageProgress) {
		return nil
	}
	m.ticking = true
	id := m.id
	return tea.Tick(500*time.Millisecond, func(t time.Time) tea.Msg { return nav.TaskMsg{Task: id, Msg: tickMsg{t}} })
}

func (m *Model) scroll(d int) {
	switch m.stage {
	case stagePreview:
		m.pv.scroll(d)
	case stageProgress, stageDone, stageFailed:
		if m.tr != nil {
			m.tr.win.Scroll(d)
		}
	}
}

func (m *Model) key(msg tea.KeyPressMsg) tea.Cmd {
	km := &m.km
	switch m.stage {
	case stageForm:
		if msg.String() == "esc" {
			return nav.Cmd(nav.CloseMsg{})
		}
		if key.Matches(msg, km.Submit) {
			return m.submit()
		}
		return m.form.update(msg, m.snap)
	case stagePreview:
		if m.pv.confirm {
			return m.confirmKey(msg)
		}
		switch {
		case key.Matches(msg, km.Submit):
			if m.pv.plan != nil {
				m.pv.confirm, m.pv.button = true, 0
				m.pv.note, m.pv.noteErr = "", false
			}
		case key.Matches(msg, km.Written):
			if m.pv.showOps {
				m.pv.showOps = false
				return nil
			}
			return m.describeOps()
		case key.Matches(msg, km.Reroll):
			m.reroll()
		case key.Matches(msg, km.StepBack):
			m.step(-1)
		case key.Matches(msg, km.StepForward):
			m.step(1)
		case key.Matches(msg, km.ColumnsLeft):
			m.pv.scrollColumns(-1)
		case key.Matches(msg, km.ColumnsRight):
			m.pv.scrollColumns(1)
		case msg.String() == "pgup":
			m.pv.page(-1)
		case msg.String() == "pgdown", msg.String() == "space":
			m.pv.page(1)
		case key.Matches(msg, km.ScrollUp):
			m.pv.scroll(-1)
		case key.Matches(msg, km.ScrollDown):
			m.pv.scroll(1)
		}
	case stageWriting, stageProgress, stageDone, stageFailed:
		switch {
		case key.Matches(msg, km.Pace) && m.stage != stageFailed:
			return m.nextPace()
		case key.Matches(msg, km.OpenTopic) && m.stage == stageDone:
			return nav.Cmd(nav.OpenTopicMsg{Topic: m.tr.plan.Name, Partition: -1, Replace: true})
		case key.Matches(msg, km.Submit) && m.stage == stageFailed:
			m.toForm()
		case msg.String() == "pgup":
			m.tr.win.Page(-1)
		case msg.String() == "pgdown", msg.String() == "space":
			m.tr.win.Page(1)
		case key.Matches(msg, km.ScrollUp):
			m.tr.win.Scroll(-1)
		case key.Matches(msg, km.ScrollDown):
			m.tr.win.Scroll(1)
		}
	}
	return nil
}

// paces are the values the pace key cycles through.
var paces = []time.Duration{0, 250 * time.Millisecond, time.Second, 3 * time.Second}

// currentPace is the pace shown: the one chosen here, else the sandbox's.
func (m *Model) currentPace() time.Duration {
	if m.paceSet || m.opt.Pace == nil {
		return m.pace
	}
	return m.opt.Pace()
}

func (m *Model) nextPace() tea.Cmd {
	i, cur := 0, m.currentPace()
	for j, p := range paces {
		if p <= cur {
			i = j
		}
	}
	m.pace, m.paceSet = paces[(i+1)%len(paces)], true
	return nav.Cmd(nav.SandboxMsg{Action: nav.SetPace, Pace: m.pace, Seq: nav.NextSeq()})
}

func (m *Model) confirmKey(msg tea.KeyPressMsg) tea.Cmd {
	km := &m.km
	switch {
	case key.Matches(msg, km.Confirm):
		return m.create()
	case key.Matches(msg, km.Cancel), msg.String() == "esc":
		m.pv.confirm = false
	case msg.String() == "enter":
		if m.pv.button == 0 {
			return m.create()
		}
		m.pv.confirm = false
	case msg.String() == "tab", msg.String() == "shift+tab", msg.String() == "left", msg.String() == "right", msg.String() == "h", msg.String() == "l":
		m.pv.button = 1 - m.pv.button
	}
	return nil
}

// submit leaves the form for the preview when every value is valid, and
// says why not otherwise.
func (m *Model) submit() tea.Cmd {
	if m.snap == nil {
		m.form.msg = "The cluster is still loading."
		return nil
	}
	req, fld, err := m.form.request(m.snap)
	if err != nil {
		m.form.fail(fld, err)
		return nil
	}
	m.form.msg = ""
	if req.Assignment == nil {
		n := m.brokerCount(req.RackAware)
		if m.pv.start < 0 || m.pv.start >= n || m.pv.shift >= n {
			m.pv.start, m.pv.shift = m.rng.IntN(max(n, 1)), m.rng.IntN(max(n, 1))
		}
	}
	if err := m.replan(req); err != nil {
		m.form.fail(fieldOf(err), err)
		return nil
	}
	m.stage = stagePreview
	m.form.blur()
	m.pv.note, m.pv.noteErr = "", false
	return nil
}

func (m *Model) brokerCount(mode cluster.RackAwareMode) int {
	bs, err := m.snap.BrokerMetadatas(mode, nil)
	if err != nil {
		return 0
	}
	return len(bs)
}

// replan computes the plan of req with the chosen start index and shift.
func (m *Model) replan(req cluster.TopicRequest) error {
	req.StartIndex, req.ReplicaShift = m.pv.start, m.pv.shift
	if req.Assignment != nil {
		req.StartIndex, req.ReplicaShift = -1, -1
	}
	plan, err := cluster.PlanTopic(m.snap, req)
	if err != nil {
		return err
	}
	m.pv.set(req, plan, m.snap)
	return nil
}

// reroll draws a new random start index and shift (different from the
// current pair whenever another exists).
func (m *Model) reroll() {
	if m.pv.plan == nil || m.pv.plan.Manual {
		return
	}
	n := len(m.pv.plan.Brokers)
	if n == 0 {
		return
	}
	for range 16 {
		s, h := m.rng.IntN(n), m.rng.IntN(n)
		if s != m.pv.start || h != m.pv.shift || n == 1 {
			m.pv.start, m.pv.shift = s, h
			break
		}
	}
	m.replanPreview()
}

// step moves the start index by d, keeping the shift.
func (m *Model) step(d int) {
	if m.pv.plan == nil || m.pv.plan.Manual {
		return
	}
	n := len(m.pv.plan.Brokers)
	if n == 0 {
		return
	}
	m.pv.start = ((m.pv.start+d)%n + n) % n
	m.replanPreview()
}

func (m *Model) replanPreview() {
	if err := m.replan(m.pv.req); err != nil {
		m.pv.note, m.pv.noteErr = err.Error(), true
		return
	}
	m.pv.note, m.pv.noteErr = "", false
}

// describeOps asks ZooKeeper what the multi would write now (which
// parents are missing, whether an orphan config exists): I/O, so a Cmd.
func (m *Model) describeOps() tea.Cmd {
	plan, z := m.pv.plan, m.opt.Writer
	if plan == nil {
		return nil
	}
	m.pv.showOps = true
	m.pv.setOps(nil, nil)
	if z == nil {
		m.pv.setOps(nil, errNoWriter)
		return nil
	}
	id := m.id
	return func() tea.Msg {
		ops, err := cluster.CreateOps(z, plan)
		var lines []string
		if err == nil {
			lines = cluster.DescribeOps(ops)
		}
		return nav.TaskMsg{Task: id, Msg: opsDescribedMsg{plan: plan, lines: lines, err: err}}
	}
}

// create re-validates the previewed plan against the newest snapshot and,
// when it still yields exactly the same znodes, writes that plan.
func (m *Model) create() tea.Cmd {
	m.pv.confirm = false
	shown := m.pv.plan
	if shown == nil {
		return nil
	}
	req := m.pv.req
	req.StartIndex, req.ReplicaShift = shown.Result.StartIndex, shown.Result.ReplicaShift
	if shown.Manual {
		req.StartIndex, req.ReplicaShift = -1, -1
	}
	fresh, err := cluster.PlanTopic(m.snap, req)
	if err != nil {
		m.pv.note, m.pv.noteErr = "Not created: "+err.Error(), true
		return nil
	}
	if !cluster.SamePlan(shown, fresh) {
		m.pv.set(req, fresh, m.snap)
		m.pv.note, m.pv.noteErr = "Not created: the cluster changed since the preview ("+brokerChange(shown, fresh)+"), so the plan would differ. This is the new plan: check it and press enter again.", true
		return nil
	}
	z := m.opt.Writer
	if z == nil {
		m.pv.note, m.pv.noteErr = errNoWriter.Error(), true
		return nil
	}
	m.stage = stageWriting
	m.tr = newTracker(shown, m.snap, m.now(), m.opt.Anims)
	m.tr.setSize(m.w, m.h)
	id := m.id
	now := m.now
	write := func() tea.Msg {
		start := now()
		if err := cluster.CreateTopic(z, shown); err != nil {
			return nav.TaskMsg{Task: id, Msg: createFailedMsg{err}}
		}
		return nav.TaskMsg{Task: id, Msg: topicCreatedMsg{took: now().Sub(start)}}
	}
	return tea.Batch(write, m.tick())
}

// brokerChange describes how the registered brokers of two plans differ.
func brokerChange(a, b *cluster.TopicPlan) string {
	ids := func(bs []assign.Broker) []int {
		out := make([]int, len(bs))
		for i, x := range bs {
			out[i] = x.ID
		}
		return out
	}
	was, now := ids(a.Brokers), ids(b.Brokers)
	var left, joined []int
	for _, id := range was {
		if !slices.Contains(now, id) {
			left = append(left, id)
		}
	}
	for _, id := range now {
		if !slices.Contains(was, id) {
			joined = append(joined, id)
		}
	}
	s := ""
	if len(left) > 0 {
		s = text.Plural(len(left), "broker ", "brokers ") + text.Ints(left) + " left"
	}
	if len(joined) > 0 {
		if s != "" {
			s += ", "
		}
		s += text.Plural(len(joined), "broker ", "brokers ") + text.Ints(joined) + " joined"
	}
	if s == "" {
		s = "racks or registrations changed"
	}
	return s
}

type wizardError string

func (e wizardError) Error() string { return string(e) }

const errNoWriter = wizardError("This session cannot write to ZooKeeper (read-only).")

// ShortHelp implements help.KeyMap.
func (m *Model) ShortHelp() []key.Binding {
	km := &m.km
	switch m.stage {
	case stageForm:
		return []key.Binding{km.Submit, km.Next, km.Clear}
	case stagePreview:
		if m.pv.confirm {
			return []key.Binding{km.Confirm, km.Cancel}
		}
		create := key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "create…"))
		return []key.Binding{create, km.Reroll, km.StepBack, km.Written}
	case stageDone:
		return []key.Binding{km.OpenTopic, km.Pace}
	case stageFailed:
		back := key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter/esc", "back to the form"))
		return []key.Binding{back}
	}
	return []key.Binding{km.Pace, km.ScrollUp}
}

// FullHelp implements help.KeyMap.
func (m *Model) FullHelp() [][]key.Binding {
	km := &m.km
	return [][]key.Binding{
		{km.Next, km.Prev, km.Clear, km.Toggle, km.Submit},
		{km.Reroll, km.StepBack, km.Written, km.ScrollUp, km.ColumnsLeft},
		{km.Confirm, km.Cancel, km.Pace, km.OpenTopic},
	}
}
