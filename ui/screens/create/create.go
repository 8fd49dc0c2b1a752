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
//     the writer's CreateTopic, through ZooKeeper in one multi
//     (re-validated against the newest snapshot first: if the cluster
//     changed so that the plan would differ, the wizard returns to the
//     preview and says so);
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
	"math/rand/v2"
	"strconv"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/clusterops"
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
	// Writer is what the topic is written through: the ZooKeeper
	// session, or Kafka's Admin API on a KRaft cluster.
	Writer clusterops.Writer
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
	back key.Binding // esc: the confirmation's way back
	id   int
	w, h int
	snap *cluster.Snapshot
	now  func() time.Time
	rng  *rand.Rand
	// verdict is what the migration guard says of a write now (from the
	// newest snapshot): the form and the preview say a refusal or a
	// warning at once, not only at y.
	verdict cluster.WriteVerdict

	// fr is the stage, the popup, the znodes view, the note, the pace
	// and the ticks, as the operation wizard has them.
	fr   wizard.Frame
	form form
	// leaving: esc was pressed in a form typed into (the next esc closes).
	leaving bool
	pv      preview
	tr      *tracker
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
	m.form.init(m.st, &m.km)
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
	was := m.verdict.Level
	m.verdict = clusterops.VerdictOf(m.opt.Writer, s)
	if m.fr.Stage == stagePreview && !m.fr.Confirm.Open() && was != cluster.WriteRefused && m.verdict.Level == cluster.WriteRefused {
		m.pv.setNote("Would not be written: "+m.verdict.Message(), true)
	}
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
