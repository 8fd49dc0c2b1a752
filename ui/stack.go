package ui

import (
	"slices"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/ktopo/ktopo/ui/nav"
	"github.com/ktopo/ktopo/ui/screens/create"
	"github.com/ktopo/ktopo/ui/screens/operate"
	"github.com/ktopo/ktopo/ui/screens/topic"
)

// refocus runs change, which may change the screen that has the
// keyboard, and tells the screens that care (Shower) which one lost it and
// which one got it.
func (a *App) refocus(change func()) tea.Cmd {
	was := a.Focused()
	change()
	now := a.Focused()
	if was == now {
		return nil
	}
	var cmds []tea.Cmd
	if s, ok := was.(Shower); ok {
		cmds = append(cmds, s.Shown(false))
	}
	if s, ok := now.(Shower); ok {
		cmds = append(cmds, s.Shown(true))
	}
	return tea.Batch(cmds...)
}

// The views shown before, as k9s and lazygit keep them: a number key (or
// a tab's `:` command) shows that tab at its root and puts the view left,
// its tab and the screens pushed on it, on a.history; esc at a tab's root
// shows the last view of the history again, as it was left.

// view is a tab and the screens pushed on it.
type view struct {
	tab   int
	stack []Screen
}

// maxHistory bounds how many views esc can go back through.
const maxHistory = 32

// switchTab shows tab i at its root; the view left goes to the history.
// The active tab's own key goes back to its root.
func (a *App) switchTab(i int) tea.Cmd {
	a.showHelp = false
	return a.refocus(func() {
		if i == a.active {
			for len(a.stack) > 0 {
				a.dropTop()
			}
			return
		}
		a.remember()
		a.active = i
	})
}

// back shows the view shown before (esc at a tab's root), as it was left;
// false when there is none.
func (a *App) back() (tea.Cmd, bool) {
	n := len(a.history)
	if n == 0 {
		return nil, false
	}
	v := a.history[n-1]
	a.history = a.history[:n-1]
	a.showHelp = false
	return a.refocus(func() { a.active, a.stack = v.tab, v.stack }), true
}

// remember puts the view shown on the history, leaving no screen pushed.
// A Task with work in flight goes to the background list instead (its
// progress in the status bar, its outcome announced), as when it is
// closed.
func (a *App) remember() {
	var kept []Screen
	for _, s := range a.stack {
		if t, ok := s.(Task); ok && t.Detach() {
			a.tasks = append(a.tasks, t)
			continue
		}
		kept = append(kept, s)
	}
	a.stack = nil
	if len(a.history) == maxHistory {
		for _, s := range a.history[0].stack {
			a.forget(s)
		}
		a.history = append(a.history[:0], a.history[1:]...)
	}
	a.history = append(a.history, view{tab: a.active, stack: kept})
}

// push shows a screen on top of the current one.
func (a *App) push(s Screen) tea.Cmd {
	a.showHelp = false
	s.SetSize(a.w, a.contentHeight())
	if ss, ok := s.(SnapshotSetter); ok && a.snap != nil {
		ss.SetSnapshot(a.snap)
	}
	if ss, ok := s.(SizesSetter); ok && a.sizes != nil {
		ss.SetSizes(a.sizes)
	}
	return a.refocus(func() { a.stack = append(a.stack, s) })
}

// pop removes the top screen.
func (a *App) pop() tea.Cmd {
	if len(a.stack) == 0 {
		return nil
	}
	return a.refocus(a.dropTop)
}

// dropTop removes the top screen; a Task with work in flight moves to the
// background list, any other screen is forgotten.
func (a *App) dropTop() {
	n := len(a.stack)
	top := a.stack[n-1]
	a.stack = a.stack[:n-1]
	if t, ok := top.(Task); ok && t.Detach() {
		a.tasks = append(a.tasks, t)
		return
	}
	a.forget(top)
}

// newID gives a screen that runs commands its id (see nav.TaskMsg).
func (a *App) newID() int {
	a.lastID++
	return a.lastID
}

// forget drops a screen's id: results of its commands that still arrive
// find nobody and are dropped.
func (a *App) forget(s Screen) {
	for id, o := range a.owners {
		if o == s {
			delete(a.owners, id)
		}
	}
}

// deliver hands the result of a command to the screen that ran it.
func (a *App) deliver(msg nav.TaskMsg) tea.Cmd {
	s := a.owners[msg.Task]
	if s == nil {
		return nil // closed and finished: nobody waits for it
	}
	cmd := a.send(s, msg.Msg)
	if t, ok := s.(Task); ok && slices.Contains(a.tasks, t) {
		cmd = tea.Batch(cmd, a.finishTasks())
	}
	return cmd
}

// finishTasks drops the background tasks that finished and shows the
// outcome of the last one in the status bar.
func (a *App) finishTasks() tea.Cmd {
	var cmd tea.Cmd
	kept := a.tasks[:0]
	for _, t := range a.tasks {
		line, state := t.TaskStatus()
		if state == nav.TaskRunning {
			kept = append(kept, t)
			continue
		}
		a.forget(t)
		if line != "" {
			cmd = a.setStatus(line, state == nav.TaskFailed)
		}
	}
	clear(a.tasks[len(kept):])
	a.tasks = kept
	return cmd
}

// openWizard pushes the wizard build makes, with the id its commands'
// results come back to, unless refuse says why none can be opened ("":
// it can) or the top screen is already that wizard (same).
func (a *App) openWizard(refuse string, same func(Screen) bool, build func(task int, pace func() time.Duration) Screen) tea.Cmd {
	if refuse != "" {
		return a.setStatus(refuse, true)
	}
	if n := len(a.stack); n > 0 && same(a.stack[n-1]) {
		return nil // already open
	}
	var pace func() time.Duration
	if p, ok := a.cfg.Sandbox.(Pacer); ok && a.cfg.Mode == ModeSandbox {
		pace = p.Pace
	}
	id := a.newID()
	w := build(id, pace)
	a.owners[id] = w
	return a.push(w)
}

// openCreate pushes the creation wizard, or says why it cannot write.
func (a *App) openCreate() tea.Cmd {
	refuse := ""
	switch {
	case a.cfg.Mode == ModeReadOnly:
		refuse = "read-only mode: refusing to create a topic"
	case a.cfg.Writer == nil:
		refuse = "Topic creation is not available: this session cannot write to the cluster."
	}
	return a.openWizard(refuse, func(s Screen) bool { _, ok := s.(*create.Model); return ok }, func(id int, pace func() time.Duration) Screen {
		return create.New(create.Options{Styles: a.st, Keys: a.km, Anims: a.anims, Writer: a.cfg.Writer, Now: a.cfg.Now, Rand: a.cfg.Rand, Task: id, Pace: pace})
	})
}

// openOperation pushes the operation wizard for op, or says why it
// cannot write (read-only mode: the command line's refusal).
func (a *App) openOperation(op nav.Operation) tea.Cmd {
	readOnly, noWriter := operate.Refusals(op)
	refuse := ""
	switch {
	case a.cfg.Mode == ModeReadOnly:
		refuse = readOnly
	case a.cfg.Writer == nil:
		refuse = noWriter
	}
	same := func(s Screen) bool { w, ok := s.(*operate.Model); return ok && w.Operation() == op }
	return a.openWizard(refuse, same, func(id int, pace func() time.Duration) Screen {
		return operate.New(operate.Options{Styles: a.st, Keys: a.km, Writer: a.cfg.Writer, Op: op, Now: a.cfg.Now, Rand: a.cfg.Rand, Task: id,
			Pace: pace, Production: a.cfg.Production, SavePlan: a.cfg.SavePlan})
	})
}

func (a *App) openTopic(name string, partition int) tea.Cmd {
	// Re-opening the topic on top of the stack just moves the cursor.
	if n := len(a.stack); n > 0 {
		if t, ok := a.stack[n-1].(*topic.Model); ok && t.Name() == name {
			a.stack = a.stack[:n-1]
		}
	}
	return a.push(topic.New(a.st, a.km, a.anims, name, partition))
}
