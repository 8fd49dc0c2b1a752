// Package operate is the operation wizard, a screen the shell pushes for
// an operation on the cluster (nav.OpenOperation): draining a broker (`d`
// on a broker card), moving a topic's partitions or changing its
// replication factor (`R` on a topic), adding partitions (`a`), a
// preferred leader election (`p` on a real cluster) and a topic's config
// overrides (`e`). Each is a type implementing operation (operation.go):
// reassign (reassign.go, with a drain's leaders-first step in leaders.go
// and the removal of its throttles in throttles.go), addPartitions
// (add.go), election (elect.go) and configs (configs.go). Each plans with
// the domain function its command does (clusterops.PlanDrain and
// PlanTopicMove on top of --generate, PlanAddPartitions,
// PlanPreferredElection, PlanTopicConfigAlteration) and writes through the
// writer it is given, one call per write.
//
// The wizard runs what they share on the frame it shares with the
// creation wizard (wizard.Frame): the stages, the confirmation popup
// (with a typed word on a production cluster), the exact writes (`w`), the
// note, the sandbox pace, the ticks. A drain's, for instance:
//
//  1. preview: the plan, made from the newest snapshot by the same domain
//     function the command line uses; the load by rack and broker
//     before→after (the heat map), then every moved partition by rack,
//     copied and removed replicas marked; the counts of both strategies
//     (`s` switches minimal/kafka), the throttle (`t`), the warnings; `w`
//     shows the exact writes, `enter` asks for confirmation;
//  2. writing: the moves are checked against the newest snapshot (a
//     partition changed since the preview sends the wizard back to it);
//     by default the leaders first leave the broker where Kafka allows it
//     (`L` turns it off), then the throttles and /admin/reassign_partitions
//     are written in one multi;
//  3. progress: every partition's phase (queued, adding, leader, in sync,
//     removing, done) from the snapshots the shell pushes, with what
//     stalled partitions wait for; then a summary.
//
// As in the creation wizard, a write runs in a tea.Cmd holding copies
// and its outcome comes back in a nav.TaskMsg addressed with Options.Task,
// so esc during the write or the progress leaves the operation going:
// the shell keeps the wizard in its background list and shows its
// TaskStatus in the status bar until it is done.
package operate

import (
	"math/rand/v2"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/clusterops"
	"github.com/ktopo/ktopo/ui/internal/cursor"
	"github.com/ktopo/ktopo/ui/internal/wizard"
	"github.com/ktopo/ktopo/ui/keys"
	"github.com/ktopo/ktopo/ui/nav"
	"github.com/ktopo/ktopo/ui/theme"
)

// Options configure an operation wizard.
type Options struct {
	Styles theme.Styles
	Keys   keys.Map
	// Writer is what the operation reads what it changes through and
	// writes through: the ZooKeeper session, or Kafka's Admin API on a
	// KRaft cluster (nil: the preview only).
	Writer clusterops.Writer
	// Op is the operation and what it acts on.
	Op nav.Operation
	// Now is the clock (default time.Now), Tick the ticker (default
	// tea.Tick); Rand draws the kafka strategy's start index and shift
	// (default: randomly seeded).
	Now  func() time.Time
	Tick wizard.Ticker
	Rand *rand.Rand
	// Pace reads the sandbox's pace; non-nil enables the pace key.
	Pace func() time.Duration
	// Task is the id the shell gave this wizard (nav.TaskMsg).
	Task int
	// Production asks, in the confirmation, for the broker's id or the
	// topic's name to be typed before anything is written.
	Production bool
	// SavePlan keeps the plan of a reassignment left running when ktopo
	// exits (nil: it is printed).
	SavePlan PlanSaver
}

// PlanSaver keeps a reassignment's plan (Kafka's reassignment JSON) under
// a name ("drain-broker-3") once ktopo has closed, and returns where, and
// the command that verifies it and removes its throttles:
// ktopo reassign --verify --reassignment-json-file PATH, with the
// cluster's flags.
type PlanSaver func(name string, plan []byte) (path, verify string, err error)

// Model is the operation wizard: the operation, on the base it shares
// with it.
type Model struct {
	*base
	op   operation
	spec nav.Operation
	// head are the lines above the rows, built in Update (settle).
	head []string
}

// New returns the wizard for o.Op; its plan is made from the first
// snapshot the shell gives it.
func New(o Options) *Model {
	rng := o.Rand
	if rng == nil {
		rng = rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64()))
	}
	b := &base{wr: o.Writer, st: o.Styles, km: o.Keys.Operation, wz: o.Keys.Wizard, back: o.Keys.Global.Back, rng: rng, savePlan: o.SavePlan}
	b.fr = wizard.NewFrame(wizard.FrameOptions{Styles: o.Styles, Task: o.Task, Now: o.Now, Tick: o.Tick, Pace: o.Pace, Production: o.Production}, wizard.StagePreview)
	b.wz.BackToForm.SetHelp("enter/esc", "back to the preview")
	b.pv.renderRow = b.pv.row
	b.pg.pr, b.pg.table = &b.pr, &reassignGlyphs
	m := &Model{base: b, spec: o.Op, op: kinds[o.Op.Kind].make(b, o.Op)}
	m.syncKeys()
	return m
}

// Operation is the operation the wizard runs.
func (m *Model) Operation() nav.Operation { return m.spec }

// Stage names the current stage: "form" (a field being edited),
// "preview", "confirm", "writing" (a write in steps between them too),
// "progress", "done" or "failed".
func (m *Model) Stage() string {
	if m.fr.Stage == wizard.StagePreview && m.fr.Confirm.Open() {
		return "confirm"
	}
	return m.fr.Stage.String()
}

// Written are the writes `w` showed, in the order they are sent, each as
// zkops.DescribeOps lines (a drain's leadership step first; nil
// before they were read).
func (m *Model) Written() [][]string { return m.fr.Ops.Steps() }

// Title implements ui.Screen.
func (m *Model) Title() string {
	switch m.fr.Stage {
	case wizard.StageEdit, wizard.StagePreview:
		return m.op.verb(formBare) + " " + m.op.subject() + ": preview"
	case wizard.StageDone:
		return m.op.verb(formEd) + " " + m.op.subject()
	}
	return m.op.verb(formIng) + " " + m.op.subject()
}

// SetSize implements ui.Screen.
func (m *Model) SetSize(w, h int) {
	m.w, m.h = w, h
	m.settle()
}

// SetStyles implements ui.Screen.
func (m *Model) SetStyles(st theme.Styles) {
	m.st = st
	m.fr.SetStyles(st)
	m.settle()
}

// SetSnapshot implements ui.SnapshotSetter: the first one makes the plan;
// later ones refresh the load the preview shows (the plan stays what was
// shown until the write re-checks it) and move the written operation on.
func (m *Model) SetSnapshot(s *cluster.Snapshot) {
	if s == nil || s == m.snap {
		return
	}
	first := m.snap == nil
	m.snap = s
	switch {
	case m.fr.Stage <= wizard.StagePreview:
		if first {
			m.op.replan()
		} else if r, ok := m.op.(refresher); ok {
			r.refresh()
		}
	default:
		m.op.observe()
	}
	m.settle()
}

// SetSizes implements ui.SizesSetter: a reading of the brokers' log
// directories re-measures the preview's plan by bytes, or the written
// one's progress; in the background too, where the status bar shows it.
func (m *Model) SetSizes(s *cluster.Sizes) {
	if s == nil || s == m.sizes {
		return
	}
	m.sizes = s
	if sz, ok := m.op.(sizer); ok {
		sz.sized()
	}
	m.settle()
}

// Update implements ui.Screen.
func (m *Model) Update(msg tea.Msg) (tea.Cmd, nav.Request) {
	cmd, req := m.update(msg)
	m.settle()
	return cmd, req
}

// settle brings what derives from the state up to date: the keys in
// force, the head, the layout. Every entry point ends here, so View only
// draws.
func (m *Model) settle() {
	m.syncKeys()
	if m.w <= 0 || m.h <= 0 {
		return
	}
	m.head = m.op.head(m.w)
	if r := m.op.rows(); r != nil {
		r.layout(&m.st, m.w, m.h, m.head)
	}
	m.fr.Ops.Wrap(m.w)
}

func (m *Model) update(msg tea.Msg) (tea.Cmd, nav.Request) {
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		return m.key(msg)
	case tea.MouseWheelMsg:
		scroller{m}.Scroll(cursor.WheelStep * cursor.WheelNotch(msg))
		return nil, nil
	case wizard.OpsMsg:
		m.fr.Ops.Set(msg)
		return nil, nil
	case writeFailedMsg:
		if m.working() {
			m.fr.Stage, m.err = wizard.StageFailed, msg.err
		}
		return nil, nil
	case wizard.TickMsg:
		m.fr.Ticked()
		return tea.Batch(m.op.update(msg), m.tick()), nil
	}
	return tea.Batch(m.op.update(msg), m.tick()), nil
}

// backgrounder is an operation that must tick in the background too (a
// step that moves on by the ticks).
type backgrounder interface{ background() bool }

// tick redraws the elapsed time while the wizard works.
func (m *Model) tick() tea.Cmd {
	bg, ok := m.op.(backgrounder)
	return m.fr.Tick(ok && bg.background())
}

// Capturing implements ui.Capturer: a field being edited, or the
// production confirmation's, takes every key.
func (m *Model) Capturing() bool { return m.fr.Stage == wizard.StageEdit || m.fr.Confirm.Typing() }

// editor is an operation with a field edited before its preview: esc in
// the preview goes back to it.
type editor interface{ edit() }

// Back implements ui.Backer: esc closes the popup or the znodes, returns
// from a preview to its field or from a failure to the preview;
// otherwise the shell closes the wizard (a running operation then goes
// on in the background).
func (m *Model) Back() bool {
	defer m.settle()
	ed, edits := m.op.(editor)
	switch {
	case m.fr.Stage == wizard.StagePreview && m.fr.Confirm.Open():
		m.fr.Confirm.Close()
	case m.fr.Stage == wizard.StagePreview && m.fr.Ops.Shown():
		m.fr.Ops.Hide()
	case m.fr.Stage == wizard.StagePreview && edits:
		ed.edit()
	case m.fr.Stage == wizard.StageFailed:
		m.toPreview()
	default:
		return false
	}
	return true
}

// detacher is an operation that may still be busy once its stage says
// done (a reassignment removing its throttles).
type detacher interface{ busy() bool }

// Detach implements ui.Task: closing the wizard while the operation is
// written or carried out, or while it is still busy (a detacher), keeps
// it in the background.
func (m *Model) Detach() bool {
	d, ok := m.op.(detacher)
	return m.fr.Detach(ok && d.busy())
}

// TaskStatus implements ui.Task: the status bar's line while the wizard
// works in the background.
func (m *Model) TaskStatus() (string, nav.TaskState) { return m.op.summary() }

// toPreview goes back to the preview, made again from the newest
// snapshot.
func (m *Model) toPreview() {
	m.fr.Stage = wizard.StagePreview
	m.fr.Confirm.Close()
	m.fr.Ops.Hide()
	m.err = nil
	if m.snap != nil {
		m.op.replan()
	}
}

// scroller moves what shows: the exact writes when `w` shows them, else
// the operation's rows.
type scroller struct{ m *Model }

func (s scroller) target() (ops *wizard.Ops, r rows) {
	if s.m.fr.Stage <= wizard.StagePreview && s.m.fr.Ops.Shown() {
		return &s.m.fr.Ops, nil
	}
	return nil, s.m.op.rows()
}

// Scroll moves by d rows.
func (s scroller) Scroll(d int) { s.move(d, 0) }

// Page moves by d pages.
func (s scroller) Page(d int) { s.move(d, 1) }

// End moves to the top (d < 0) or the bottom.
func (s scroller) End(d int) { s.move(d, 2) }

// move moves by d rows (by 0), pages (1) or to an end (2).
func (s scroller) move(d, by int) {
	ops, r := s.target()
	switch {
	case ops != nil:
		[...]func(int){ops.Scroll, ops.Page, ops.End}[by](d)
	case r != nil:
		[...]func(int){r.scroll, r.page, r.end}[by](d)
	}
}

// confirmKeys are the popup's bindings.
func (m *Model) confirmKeys() *wizard.ConfirmKeys {
	return &wizard.ConfirmKeys{Yes: m.km.Confirm, Cancel: m.wz.Cancel, Switch: m.wz.SwitchButton, Choose: m.wz.Choose, Back: m.back}
}

// ShortHelp implements help.KeyMap.
func (m *Model) ShortHelp() []key.Binding {
	km, wz := &m.km, &m.wz
	switch {
	case m.fr.Stage == wizard.StageEdit:
		return []key.Binding{wz.Submit, wz.Complete, wz.Clear, m.back}
	case m.fr.Stage == wizard.StagePreview && m.fr.Confirm.Open():
		return []key.Binding{km.Confirm, wz.Cancel, wz.Choose, m.back}
	case m.fr.Stage == wizard.StagePreview:
		return []key.Binding{*m.start, km.MoreReplicas, km.FewerReplicas, km.MorePartitions, km.FewerPartitions, km.Reseed, km.Strategy, km.Throttle, km.LeadersFirst, km.Written}
	case m.fr.Stage == wizard.StageFailed:
		return []key.Binding{wz.BackToForm}
	}
	return []key.Binding{wz.Pace, wz.ScrollDown}
}

// FullHelp implements help.KeyMap: every binding; the current stage's are
// enabled (syncKeys).
func (m *Model) FullHelp() [][]key.Binding {
	km, wz := &m.km, &m.wz
	return [][]key.Binding{
		{*m.start, km.MoreReplicas, km.FewerReplicas, km.MorePartitions, km.FewerPartitions, km.Reseed, km.Strategy, km.Throttle, km.LeadersFirst, km.Written},
		{km.Confirm, wz.Cancel, wz.SwitchButton, wz.Choose, m.back},
		{wz.Pace, wz.BackToForm},
		{wz.Submit, wz.Complete, wz.NextMatch, wz.PrevMatch, wz.Clear},
		{wz.ScrollUp, wz.ScrollDown, wz.PageUp, wz.PageDown, wz.Top, wz.Bottom},
	}
}
