package ui

import (
	"slices"
	"strconv"

	tea "charm.land/bubbletea/v2"
	"github.com/ktopo/ktopo/clusterops"
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

func (a *App) openCreate() tea.Cmd {
	switch {
	case a.cfg.Mode == ModeReadOnly:
		return a.setStatus("Read-only mode: topic creation is disabled.", true)
	case a.cfg.Writer == nil:
		return a.setStatus("Topic creation is not available: this session cannot write to ZooKeeper.", true)
	}
	if n := len(a.stack); n > 0 {
		if _, ok := a.stack[n-1].(*create.Model); ok {
			return nil // already open
		}
	}
	o := create.Options{Styles: a.st, Keys: a.km, Anims: a.anims, Writer: a.cfg.Writer, Now: a.cfg.Now, Rand: a.cfg.Rand, Task: a.newID()}
	if p, ok := a.cfg.Sandbox.(Pacer); ok && a.cfg.Mode == ModeSandbox {
		o.Pace = p.Pace
	}
	w := create.New(o)
	a.owners[o.Task] = w
	return a.push(w)
}

// openOperation pushes the operation wizard draining broker id, or
// moving topic's partitions when topic is set (adding partitions to it
// with add), or says why it cannot write (read-only mode: the command
// line's refusal).
func (a *App) openOperation(id int, topic string, add bool) tea.Cmd {
	what := "drain broker " + strconv.Itoa(id) + " (f shows what losing it would do)"
	switch {
	case add:
		what = "add partitions to topic " + topic
	case topic != "":
		what = "reassign topic " + topic
	}
	z, ok := a.cfg.Writer.(clusterops.ZK)
	switch {
	case a.cfg.Mode == ModeReadOnly:
		return a.setStatus("read-only mode: refusing to "+what, true)
	case a.cfg.Writer == nil || !ok:
		return a.setStatus("Reassignments are not available: this session cannot write to ZooKeeper.", true)
	}
	if n := len(a.stack); n > 0 {
		if w, ok := a.stack[n-1].(*operate.Model); ok && w.Broker() == id && w.Topic() == topic && w.Adding() == add {
			return nil // already open
		}
	}
	o := operate.Options{Styles: a.st, Keys: a.km, Writer: z, Broker: id, Topic: topic, AddPartitions: add, Now: a.cfg.Now, Rand: a.cfg.Rand, Task: a.newID(),
		Production: a.cfg.Production}
	if p, ok := a.cfg.Sandbox.(Pacer); ok && a.cfg.Mode == ModeSandbox {
		o.Pace = p.Pace
	}
	w := operate.New(o)
	a.owners[o.Task] = w
	return a.push(w)
}

// openElection pushes the operation wizard for a preferred leader
// election of topic ("" for all), or says why it cannot write.
func (a *App) openElection(topic string) tea.Cmd {
	z, ok := a.cfg.Writer.(clusterops.ZK)
	switch {
	case a.cfg.Mode == ModeReadOnly:
		return a.setStatus("read-only mode: refusing to start a preferred leader election", true)
	case a.cfg.Writer == nil || !ok:
		return a.setStatus("Preferred leader elections are not available: this session cannot write to ZooKeeper.", true)
	}
	o := operate.Options{Styles: a.st, Keys: a.km, Writer: z, Broker: -1, Topic: topic, Elect: true, Now: a.cfg.Now, Task: a.newID(),
		Production: a.cfg.Production}
	w := operate.New(o)
	a.owners[o.Task] = w
	return a.push(w)
}

// openConfigs pushes the operation wizard editing topic's config
// overrides, or says why it cannot write.
func (a *App) openConfigs(topic string) tea.Cmd {
	z, ok := a.cfg.Writer.(clusterops.ZK)
	switch {
	case a.cfg.Mode == ModeReadOnly:
		return a.setStatus("read-only mode: refusing to alter the configs of topic "+topic, true)
	case a.cfg.Writer == nil || !ok:
		return a.setStatus("Config changes are not available: this session cannot write to ZooKeeper.", true)
	}
	o := operate.Options{Styles: a.st, Keys: a.km, Writer: z, Broker: -1, Topic: topic, Configs: true, Now: a.cfg.Now, Task: a.newID(),
		Production: a.cfg.Production}
	w := operate.New(o)
	a.owners[o.Task] = w
	return a.push(w)
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
