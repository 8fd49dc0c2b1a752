package ui

import (
	"slices"
	"strconv"

	tea "charm.land/bubbletea/v2"
	"github.com/ktopo/ktopo/clusterops"
	"github.com/ktopo/ktopo/clusterwatch"
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

// switchTab shows tab i, clearing the screen stack.
func (a *App) switchTab(i int) tea.Cmd {
	a.showHelp = false
	return a.refocus(func() {
		for len(a.stack) > 0 {
			a.dropTop()
		}
		a.active = i
	})
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
	case a.kraft():
		return a.setStatus(kraftRefusal("create a topic"), true)
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
	case a.kraft():
		return a.setStatus(kraftRefusal(what), true)
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
	case a.kraft():
		return a.setStatus(kraftRefusal("start a preferred leader election"), true)
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
	case a.kraft():
		return a.setStatus(kraftRefusal("alter the configs of topic "+topic), true)
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

// kraft reports a KRaft cluster (read over the Kafka protocol), which
// ktopo does not write to yet.
func (a *App) kraft() bool { return a.sourceKind() == clusterwatch.Kafka }

// kraftRefusal is the status line of a write on a KRaft cluster.
func kraftRefusal(what string) string {
	return "Refusing to " + what + ": ktopo does not write to KRaft clusters yet (Kafka's tools with --bootstrap-server do it meanwhile)."
}
