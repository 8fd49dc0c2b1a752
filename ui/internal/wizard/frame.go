package wizard

import (
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/ui/nav"
	"github.com/ktopo/ktopo/ui/theme"
)

// Stage is where a wizard is. Both wizards go through the same stages;
// what each draws and writes in them is its own.
type Stage uint8

// Stages, in order.
const (
	// StageEdit: a form or a field is being filled in (the creation
	// form, the config editor's field); it has the keyboard.
	StageEdit Stage = iota
	// StagePreview: the plan, maybe with the confirmation popup or the
	// exact writes over it.
	StagePreview
	// StageWriting: the writes are in flight; an operation written in
	// steps stays here between them.
	StageWriting
	// StageProgress: written; the cluster carries it out.
	StageProgress
	// StageDone: carried out.
	StageDone
	// StageFailed: nothing was written, or it is not known.
	StageFailed
)

var stageNames = [...]string{"form", "preview", "writing", "progress", "done", "failed"}

// String names the stage: "form", "preview", "writing", "progress",
// "done" or "failed".
func (s Stage) String() string {
	if int(s) < len(stageNames) {
		return stageNames[s]
	}
	return "stage?"
}

// Working reports a stage whose work is in flight: closing the wizard
// then leaves it running in the background.
func (s Stage) Working() bool { return s == StageWriting || s == StageProgress }

// Error is a wizard's own error.
type Error string

func (e Error) Error() string { return string(e) }

// ErrNoWriter: the wizard was given no session to write through.
const ErrNoWriter = Error("This session cannot write to the cluster (read-only).")

// Ticker schedules a wizard's clock tick, as tea.Tick does (the default);
// tests give one that never ticks, or ticks at once.
type Ticker func(d time.Duration, fn func(time.Time) tea.Msg) tea.Cmd

// TickMsg moves a wizard's elapsed time on; it comes back in a
// nav.TaskMsg addressed to the wizard.
type TickMsg struct{ At time.Time }

// tickEvery is how often a working wizard redraws its elapsed time.
const tickEvery = 500 * time.Millisecond

// FrameOptions configure a Frame.
type FrameOptions struct {
	Styles theme.Styles
	// Task is the id the shell gave the wizard: its commands' results
	// come back in nav.TaskMsg{Task: Task}.
	Task int
	// Now is the clock (nil: time.Now); Tick the ticker (nil: tea.Tick).
	Now  func() time.Time
	Tick Ticker
	// Pace reads the sandbox's pace; non-nil enables the pace key.
	Pace func() time.Duration
	// Production asks the confirmation for a word to be typed.
	Production bool
}

// Frame is what both wizards share around their own content: the stage,
// the confirmation popup, the exact-writes view, the note above the plan,
// the sandbox pace, the clock, and the ticks that keep a working
// wizard's elapsed time moving, on screen or, when it must, in the
// background. A wizard holds one and adds its plan, its writes and its
// drawing.
type Frame struct {
	Stage   Stage
	Confirm Confirm
	Ops     Ops
	Note    Note
	// Started and Finished are when the write was sent and when the
	// cluster had carried it out.
	Started, Finished time.Time

	id       int
	now      func() time.Time
	tick     Ticker
	paceOf   func() time.Duration
	pace     Pace
	detached bool
	ticking  bool
	// guard is the migration guard's verdict the popup was opened with
	// (Ask, Writer).
	guard cluster.WriteVerdict
}

// NewFrame returns a frame at stage.
func NewFrame(o FrameOptions, stage Stage) Frame {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Tick == nil {
		o.Tick = tea.Tick
	}
	return Frame{Stage: stage, Confirm: newConfirm(o.Styles, o.Production), id: o.Task, now: o.Now, tick: o.Tick, paceOf: o.Pace}
}

// Now is the wizard's clock.
func (f *Frame) Now() time.Time { return f.now() }

// Reply returns what a command uses to address its result to the
// wizard; it holds a copy of the id, so a Cmd may call it.
func (f *Frame) Reply() func(tea.Msg) tea.Msg {
	id := f.id
	return func(msg tea.Msg) tea.Msg { return nav.TaskMsg{Task: id, Msg: msg} }
}

// Begin enters the writing stage now.
func (f *Frame) Begin() {
	f.Stage, f.Started = StageWriting, f.now()
	f.Confirm.Close()
}

// Finish enters the done stage now.
func (f *Frame) Finish() { f.Stage, f.Finished = StageDone, f.now() }

// Elapsed is how long the write has been going on, or took once done.
func (f *Frame) Elapsed() time.Duration {
	if f.Stage == StageDone {
		return f.Finished.Sub(f.Started)
	}
	return f.now().Sub(f.Started)
}

// Tick is the next clock tick while the wizard works and none is
// pending: on screen always, in the background only when background
// says the work needs it (a step that moves on by the ticks).
func (f *Frame) Tick(background bool) tea.Cmd {
	if f.ticking || (f.detached && !background) || !f.Stage.Working() {
		return nil
	}
	f.ticking = true
	reply := f.Reply()
	return f.tick(tickEvery, func(t time.Time) tea.Msg { return reply(TickMsg{At: t}) })
}

// Ticked notes that the pending tick came.
func (f *Frame) Ticked() { f.ticking = false }

// Detach is the shell's Task.Detach: closed while it works (or, busy,
// while it still does something after its stage says done), the wizard
// goes on in the background, and stops ticking unless it must.
func (f *Frame) Detach(busy bool) bool {
	if f.Stage.Working() || busy {
		f.detached = true
		return true
	}
	return false
}

// Detached reports that the wizard was closed while it worked.
func (f *Frame) Detached() bool { return f.detached }

// CanPace reports that the wizard runs on the sandbox, whose pace it can
// set.
func (f *Frame) CanPace() bool { return f.paceOf != nil }

// Pace is the pace shown: the one chosen here, else the sandbox's.
func (f *Frame) Pace() time.Duration { return f.pace.Current(f.paceOf) }

// NextPace chooses the next pace and asks the shell to set it.
func (f *Frame) NextPace() nav.Request { return nav.SetPace{Pace: f.pace.Next(f.paceOf)} }

// SetStyles restyles the frame's text field.
func (f *Frame) SetStyles(st theme.Styles) { theme.StyleInput(&f.Confirm.typed, st) }

// Note is the line above a plan: why the last enter did not write, or
// what changed.
type Note struct {
	Text string
	Err  bool
}

// Set shows s ("" for none); isErr draws it as an error.
func (n *Note) Set(s string, isErr bool) { n.Text, n.Err = s, isErr }

// Clear removes the note.
func (n *Note) Clear() { n.Text, n.Err = "", false }

// Lines are the note wrapped to w columns (none without a note).
func (n *Note) Lines(st *theme.Styles, w int) []string {
	if n.Text == "" {
		return nil
	}
	ink := st.Muted
	if n.Err {
		ink = st.Error
	}
	out := Wrap(n.Text, w, 1)
	for i, l := range out {
		out[i] = ink.S(l)
	}
	return out
}
