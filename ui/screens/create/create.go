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
// back as a message wrapped in nav.TaskMsg (addressed with the id the
// shell gave in Options.Task), so it reaches the wizard even after the
// user closed it with esc: the shell then keeps the wizard in its
// background task list (see ui.Task), feeds it snapshots and shows its
// progress in the status bar until the topic is online. What the wizard
// asks of the shell (close, open the topic, set the sandbox's pace) it
// returns from Update as a nav.Request.
package create

import (
	"context"
	"math/rand/v2"
	"strconv"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/clusterops"
	"github.com/ktopo/ktopo/internal/text"
	"github.com/ktopo/ktopo/ui/anim"
	"github.com/ktopo/ktopo/ui/internal/cursor"
	"github.com/ktopo/ktopo/ui/internal/wizard"
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
	Writer clusterops.ZK
	// Now is the clock (default time.Now); Rand draws the random start
	// index and replica shift (default: randomly seeded).
	Now  func() time.Time
	Rand *rand.Rand
	// Pace reads the sandbox controller's current pace, which can change
	// while the wizard is open; non-nil enables the pace key (sandbox only).
	Pace func() time.Duration
	// Task is the id the shell gave this wizard: the results of its
	// commands come back in nav.TaskMsg{Task: Task}.
	Task int
	// Tick schedules the clock's ticks (nil: tea.Tick).
	Tick wizard.Ticker
}

// The stages: the form (wizard.StageEdit), the preview, the write, the
// partitions coming online (progress), done, failed.
const (
	stageForm     = wizard.StageEdit
	stagePreview  = wizard.StagePreview
	stageWriting  = wizard.StageWriting
	stageProgress = wizard.StageProgress
	stageDone     = wizard.StageDone
	stageFailed   = wizard.StageFailed
)

// Model is the wizard.
type Model struct {
	opt  Options
	st   theme.Styles
	km   keys.Wizard
	back key.Binding // esc in the form: the shell leaves it to a text field
	id   int
	w, h int
	snap *cluster.Snapshot
	now  func() time.Time
	rng  *rand.Rand

	// fr is the stage, the popup, the znodes view, the note, the pace
	// and the ticks, as the operation wizard has them.
	fr   wizard.Frame
	form form
	pv   preview
	tr   *tracker
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
	m := &Model{opt: o, st: o.Styles, km: o.Keys.Wizard, back: o.Keys.Global.Back, id: o.Task, now: o.Now, rng: rng}
	m.fr = wizard.NewFrame(wizard.FrameOptions{Styles: o.Styles, Task: o.Task, Now: o.Now, Tick: o.Tick, Pace: o.Pace}, stageForm)
	m.pv.note, m.pv.ops = &m.fr.Note, &m.fr.Ops
	m.form.init(m.st)
	m.pv.start, m.pv.shift = -1, -1
	m.pv.renderRow = m.pv.row
	m.syncKeys()
	return m
}

// Title implements ui.Screen.
func (m *Model) Title() string {
	name := m.form.in[fName].Value()
	switch m.fr.Stage {
	case stageForm:
		return "Create topic"
	case stagePreview:
		return "Create " + name + ": preview"
	}
	return "Create " + name
}

// SetSize implements ui.Screen.
func (m *Model) SetSize(w, h int) {
	defer m.settle()
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
	m.fr.SetStyles(st)
}

// SetSnapshot implements ui.SnapshotSetter: the form validates against
// it, the preview shows the brokers' load and notices a changed cluster,
// the progress reads every partition's phase from it.
func (m *Model) SetSnapshot(s *cluster.Snapshot) {
	if s == nil || s == m.snap {
		return
	}
	defer m.settle()
	m.snap = s
	m.form.setDefaults(s)
	switch m.fr.Stage {
	case stageForm:
		m.form.validate(s)
	case stagePreview:
		m.pv.observe(s)
	case stageProgress, stageDone:
		m.tr.observe(s, m.now())
		if m.tr.done() {
			m.fr.Stage = stageDone
		}
	}
}

// Stage names the current stage (for tests and the shell): "form",
// "preview", "confirm", "writing", "progress", "done" or "failed".
func (m *Model) Stage() string {
	if m.fr.Stage == stagePreview && m.fr.Confirm.Open() {
		return "confirm"
	}
	return m.fr.Stage.String()
}

// Plan returns the plan the preview shows (and the creation writes), nil
// before the first preview.
func (m *Model) Plan() *clusterops.TopicPlan { return m.pv.plan }

// Progress is the creation's progress (zero before the write).
func (m *Model) Progress() clusterops.Progress {
	if m.tr == nil {
		return clusterops.Progress{}
	}
	return m.tr.pr
}

// Capturing implements ui.Capturer: the form's text fields take every key.
func (m *Model) Capturing() bool { return m.fr.Stage == stageForm }

// Back implements ui.Backer: esc steps back inside the wizard (closes the
// popup or the znode view, returns from the preview or a failure to the
// form with every value kept) before the shell closes it.
func (m *Model) Back() bool {
	defer m.settle()
	switch m.fr.Stage {
	case stagePreview:
		switch {
		case m.fr.Confirm.Open():
			m.fr.Confirm.Close()
		case m.fr.Ops.Shown():
			m.fr.Ops.Hide()
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
func (m *Model) Detach() bool { return m.fr.Detach(false) }

// TaskStatus implements ui.Task: one line for the status bar while the
// wizard works in the background, and where the creation stands.
func (m *Model) TaskStatus() (string, nav.TaskState) {
	name := m.form.in[fName].Value()
	switch m.fr.Stage {
	case stageWriting:
		if m.tr != nil && m.tr.lostErr != nil {
			return "Creating topic " + name + ": no reply to the write, reading back…", nav.TaskRunning
		}
		return "Creating topic " + name + ": writing…", nav.TaskRunning
	case stageProgress:
		pr := m.tr.pr
		s := "Creating topic " + name + ": " + strconv.Itoa(pr.Online) + "/" + strconv.Itoa(len(pr.Partitions)) + " partitions online"
		if w := m.tr.waiting(); len(w) > 0 {
			s += " — waiting: " + w[0]
		}
		return s, nav.TaskRunning
	case stageDone:
		return m.tr.summaryLine(), nav.TaskDone
	case stageFailed:
		return "Creating topic " + name + " failed: " + m.tr.failLine(), nav.TaskFailed
	}
	return "", nav.TaskDone // nothing was started
}

func (m *Model) toForm() {
	m.fr.Stage = stageForm
	m.fr.Confirm.Close()
	m.fr.Ops.Hide()
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
	// replyLostMsg: the multi failed with an open outcome (its reply was
	// lost); the wizard reads back to find out.
	replyLostMsg struct {
		err  error
		took time.Duration
	}
	// verifiedMsg: what became of a multi whose reply was lost.
	verifiedMsg struct{ o clusterops.Outcome }
)

// Update implements ui.Screen.
func (m *Model) Update(msg tea.Msg) (tea.Cmd, nav.Request) {
	m.syncKeys()
	cmd, req := m.update(msg)
	m.settle()
	return cmd, req
}

// settle brings what derives from the wizard's state up to date after a
// change, wherever in the wizard the change was made: the keys that act
// depend on the stage and the focused field, and the preview's layout on
// its note, warnings and size (a stale one lets the rows push the legend
// off the screen). Every entry point (Update, SetSnapshot, Back, SetSize)
// ends here.
func (m *Model) settle() {
	m.syncKeys()
	m.fr.Ops.Wrap(m.w)
	if m.pv.plan != nil {
		m.pv.layout()
	}
}

// syncKeys enables the bindings of the current stage and no others: the
// help shows only what acts, and enter means one thing at a time.
func (m *Model) syncKeys() {
	km := &m.km
	set := func(on bool, bs ...*key.Binding) {
		for _, b := range bs {
			b.SetEnabled(on)
		}
	}
	confirm := m.fr.Stage == stagePreview && m.fr.Confirm.Open()
	preview := m.fr.Stage == stagePreview && !confirm
	form := m.fr.Stage == stageForm
	working := m.fr.Stage == stageWriting || m.fr.Stage == stageProgress
	after := working || m.fr.Stage == stageDone || m.fr.Stage == stageFailed
	manual := m.pv.plan != nil && m.pv.plan.Manual
	set(form, &km.Next, &km.Prev, &km.Clear, &km.Submit, &m.back)
	set(form && m.form.focus == fRack, &km.Toggle)
	set(form && m.form.focus == fConfigs, &km.Complete)
	set(preview, &km.Create, &km.Written, &km.ColumnsLeft, &km.ColumnsRight)
	set(preview && !manual, &km.Reroll, &km.StepBack, &km.StepForward)
	set(preview || after, &km.ScrollUp, &km.ScrollDown, &km.PageUp, &km.PageDown)
	set(confirm, &km.Confirm, &km.Cancel, &km.SwitchButton, &km.Choose)
	set(m.fr.CanPace() && (working || m.fr.Stage == stageDone), &km.Pace)
	set(m.fr.Stage == stageDone, &km.OpenTopic)
	set(m.fr.Stage == stageFailed, &km.BackToForm)
}

func (m *Model) update(msg tea.Msg) (tea.Cmd, nav.Request) {
	switch msg := msg.(type) {
	case topicCreatedMsg:
		if m.fr.Stage != stageWriting {
			return nil, nil
		}
		m.fr.Stage = stageProgress
		m.tr.written(msg.took)
		if m.snap != nil {
			m.tr.observe(m.snap, m.now())
			if m.tr.done() {
				m.fr.Stage = stageDone
			}
		}
		return m.tick(), nil
	case createFailedMsg:
		if m.fr.Stage != stageWriting {
			return nil, nil
		}
		m.fr.Stage = stageFailed
		m.tr.fail(msg.err)
	case replyLostMsg:
		if m.fr.Stage != stageWriting {
			return nil, nil
		}
		m.tr.replyLost(msg.err, msg.took)
		return m.verify(msg.err), nil
	case verifiedMsg:
		if m.fr.Stage != stageWriting {
			return nil, nil
		}
		m.tr.verified(msg.o)
		if !msg.o.Known || !msg.o.Applied {
			m.fr.Stage = stageFailed
			return nil, nil
		}
		return m.update(topicCreatedMsg{took: m.tr.took})
	case wizard.OpsMsg:
		m.fr.Ops.Set(msg)
	case wizard.TickMsg:
		m.fr.Ticked()
		if m.tr != nil {
			m.tr.now = m.now()
		}
		return m.tick(), nil
	case tea.KeyPressMsg:
		return m.key(msg)
	case tea.PasteMsg:
		if m.fr.Stage == stageForm {
			return m.form.update(msg, m.snap, &m.km), nil
		}
	case tea.MouseWheelMsg:
		m.scroll(cursor.WheelStep * cursor.WheelNotch(msg))
	}
	return nil, nil
}

// tick keeps the elapsed time moving while the wizard is on screen and
// waits; it stops when the topic is online, failed, or in the background.
func (m *Model) tick() tea.Cmd { return m.fr.Tick(false) }

func (m *Model) scroll(d int) {
	switch m.fr.Stage {
	case stagePreview:
		m.pv.Scroll(d)
	case stageProgress, stageDone, stageFailed:
		if m.tr != nil {
			m.tr.win.Scroll(d)
		}
	}
}

func (m *Model) key(msg tea.KeyPressMsg) (tea.Cmd, nav.Request) {
	km := &m.km
	switch m.fr.Stage {
	case stageForm:
		if key.Matches(msg, m.back) {
			return nil, nav.Close{}
		}
		if key.Matches(msg, km.Submit) {
			m.submit()
			return nil, nil
		}
		return m.form.update(msg, m.snap, km), nil
	case stagePreview:
		if m.fr.Confirm.Open() {
			return m.confirmKey(msg)
		}
		switch {
		case key.Matches(msg, km.Create):
			if m.pv.plan != nil {
				m.fr.Note.Clear()
				return m.fr.Confirm.Ask(m.form.in[fName].Value()), nil
			}
		case key.Matches(msg, km.Written):
			if m.fr.Ops.Shown() {
				m.fr.Ops.Hide()
				return nil, nil
			}
			return m.describeOps(), nil
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
		case wizard.ScrollKey(msg, km, &m.pv):
		}
	case stageWriting, stageProgress, stageDone, stageFailed:
		// syncKeys enabled what applies in this stage: the pace while the
		// sandbox can be slowed and the topic is not failed, the topic
		// once it is online, the way back after a failure.
		switch {
		case key.Matches(msg, km.Pace):
			return nil, m.nextPace()
		case key.Matches(msg, km.OpenTopic):
			return nil, nav.OpenTopic{Topic: m.tr.plan.Name, Partition: -1, Replace: true}
		case key.Matches(msg, km.BackToForm):
			m.toForm()
		case m.tr != nil && wizard.ScrollKey(msg, km, &m.tr.win):
		}
	}
	return nil, nil
}

// currentPace is the pace shown: the one chosen here, else the sandbox's.
func (m *Model) currentPace() time.Duration { return m.fr.Pace() }

func (m *Model) nextPace() nav.Request { return m.fr.NextPace() }

func (m *Model) confirmKey(msg tea.KeyPressMsg) (tea.Cmd, nav.Request) {
	km := &m.km
	ck := wizard.ConfirmKeys{Yes: km.Confirm, Cancel: km.Cancel, Switch: km.SwitchButton, Choose: km.Choose, Back: m.back}
	if a, cmd := m.fr.Confirm.Key(msg, &ck); a != wizard.Yes {
		return cmd, nil
	}
	return m.create(), nil
}

// submit leaves the form for the preview when every value is valid, and
// says why not otherwise.
func (m *Model) submit() {
	if m.snap == nil || m.snap.Partial() {
		// A partial snapshot leaves topics out: the name may be taken.
		m.form.msg = "The cluster is still loading."
		return
	}
	req, fld, err := m.form.request(m.snap)
	if err != nil {
		m.form.fail(fld, err)
		return
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
		return
	}
	m.fr.Stage = stagePreview
	m.form.blur()
	m.pv.setNote("", false)
}

func (m *Model) brokerCount(mode cluster.RackAwareMode) int {
	bs, err := m.snap.BrokerMetadatas(mode, nil)
	if err != nil {
		return 0
	}
	return len(bs)
}

// replan computes the plan of req with the chosen start index and shift.
func (m *Model) replan(req clusterops.TopicRequest) error {
	req.StartIndex, req.ReplicaShift = m.pv.start, m.pv.shift
	if req.Assignment != nil {
		req.StartIndex, req.ReplicaShift = -1, -1
	}
	plan, err := clusterops.PlanTopic(m.snap, req)
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
		m.pv.setNote(err.Error(), true)
		return
	}
	m.pv.setNote("", false)
}

// describeOps asks ZooKeeper what the multi would write now (which
// parents are missing, whether an orphan config exists): I/O, so a Cmd.
func (m *Model) describeOps() tea.Cmd {
	plan, z := m.pv.plan, m.opt.Writer
	if plan == nil {
		return nil
	}
	head := wizard.OpsHead{Title: wizard.StepsTitle(1),
		Detail: " — all or nothing; the controller then creates the partition znodes (w or esc closes)", Reading: "Reading what exists…"}
	if z == nil {
		m.fr.Ops.ShowLines(head, nil, wizard.ErrNoWriter)
		return nil
	}
	return m.fr.Describe(head, func() ([]string, [][]string, error) {
		ops, err := clusterops.CreateOps(z, plan)
		if err != nil {
			return nil, nil, err
		}
		lines := clusterops.DescribeOps(ops)
		return lines, [][]string{lines}, nil
	})
}

// create re-validates the previewed plan against the newest snapshot and,
// when it still yields exactly the same znodes, writes that plan.
func (m *Model) create() tea.Cmd {
	shown := m.pv.plan
	if shown == nil {
		return nil
	}
	req := m.pv.req
	req.StartIndex, req.ReplicaShift = shown.Result.StartIndex, shown.Result.ReplicaShift
	if shown.Manual {
		req.StartIndex, req.ReplicaShift = -1, -1
	}
	fresh, err := clusterops.PlanTopic(m.snap, req)
	if err != nil {
		m.pv.setNote("Not created: "+err.Error(), true)
		return nil
	}
	if !clusterops.SamePlan(shown, fresh) {
		m.pv.set(req, fresh, m.snap)
		m.pv.setNote("Not created: the cluster changed since the preview ("+brokerChange(shown, fresh)+"), so the plan would differ. This is the new plan: check it and press enter again.", true)
		return nil
	}
	z := m.opt.Writer
	if z == nil {
		m.pv.setNote(wizard.ErrNoWriter.Error(), true)
		return nil
	}
	m.fr.Begin()
	m.tr = newTracker(shown, m.snap, m.now(), m.opt.Anims)
	m.tr.setSize(m.w, m.h)
	id := m.id
	now := m.now
	write := func() tea.Msg {
		start := now()
		if err := clusterops.CreateTopic(z, shown); err != nil {
			if clusterops.MaybeWritten(err) {
				return nav.TaskMsg{Task: id, Msg: replyLostMsg{err, now().Sub(start)}}
			}
			return nav.TaskMsg{Task: id, Msg: createFailedMsg{err}}
		}
		return nav.TaskMsg{Task: id, Msg: topicCreatedMsg{took: now().Sub(start)}}
	}
	return tea.Batch(write, m.tick())
}

// verifyTimeout bounds finding out what became of a creation whose reply
// was lost: the session's return, then a read back.
const verifyTimeout = time.Minute

// verify finds out what became of the creation whose reply was lost:
// I/O, so a Cmd.
func (m *Model) verify(err error) tea.Cmd {
	z, plan, id := m.opt.Writer, m.tr.plan, m.id
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), verifyTimeout)
		defer cancel()
		return nav.TaskMsg{Task: id, Msg: verifiedMsg{clusterops.VerifyCreate(ctx, z, plan, err)}}
	}
}

// brokerChange says how the registered brokers of two plans differ.
func brokerChange(a, b *clusterops.TopicPlan) string {
	d := a.BrokerDiff(b)
	s := ""
	if len(d.Left) > 0 {
		s = text.Plural(len(d.Left), "broker ", "brokers ") + text.Ints(d.Left) + " left"
	}
	if len(d.Joined) > 0 {
		if s != "" {
			s += ", "
		}
		s += text.Plural(len(d.Joined), "broker ", "brokers ") + text.Ints(d.Joined) + " joined"
	}
	if d.Empty() {
		s = "racks or registrations changed"
	}
	return s
}

// ShortHelp implements help.KeyMap: the few keys of the stage that the
// footer has room for.
func (m *Model) ShortHelp() []key.Binding {
	km := &m.km
	switch m.fr.Stage {
	case stageForm:
		return []key.Binding{km.Submit, km.Next, km.Clear, m.back}
	case stagePreview:
		if m.fr.Confirm.Open() {
			return []key.Binding{km.Confirm, km.Cancel}
		}
		return []key.Binding{km.Create, km.Reroll, km.StepBack, km.StepForward, km.Written}
	case stageDone:
		return []key.Binding{km.OpenTopic, km.Pace}
	case stageFailed:
		return []key.Binding{km.BackToForm}
	}
	return []key.Binding{km.Pace, km.ScrollUp}
}

// FullHelp implements help.KeyMap: every binding, of which the help shows
// the current stage's (the others are disabled, see syncKeys).
func (m *Model) FullHelp() [][]key.Binding {
	km := &m.km
	return [][]key.Binding{
		{km.Next, km.Prev, km.Complete, km.Clear, km.Toggle, km.Submit},
		{km.Create, km.Reroll, km.StepBack, km.StepForward, km.Written, km.ColumnsLeft, km.ColumnsRight},
		{km.Confirm, km.Cancel, km.SwitchButton, km.Choose},
		{km.Pace, km.OpenTopic, km.BackToForm},
		{km.ScrollUp, km.ScrollDown, km.PageUp, km.PageDown},
	}
}
