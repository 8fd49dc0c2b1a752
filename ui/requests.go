package ui

import (
	"errors"
	"strconv"
	"sync"

	tea "charm.land/bubbletea/v2"
	"github.com/go-zookeeper/zk"
	"github.com/ktopo/ktopo/ui/nav"
	"github.com/ktopo/ktopo/ui/screens/overview"
	"github.com/ktopo/ktopo/ui/screens/tree"
)

// probedMsg is a probe's answer with the watch of its listing.
type probedMsg struct {
	tree.ProbedMsg
	watch <-chan zk.Event
}

// probeFiredMsg: a probed node's children changed (or the watch ended).
type probeFiredMsg struct{ path string }

// subtreeFailedMsg: opening or closing a subtree failed.
type subtreeFailedMsg struct{ err error }

// sandboxDoneMsg is the outcome of a sandbox action.
type sandboxDoneMsg struct {
	text string
	err  error
}

// handleRequest runs the requests screens send. It reports whether msg
// was one.
func (a *App) handleRequest(msg tea.Msg) (tea.Cmd, bool) {
	switch msg := msg.(type) {
	case nav.OpenTopicMsg:
		if msg.Replace {
			a.pop()
		}
		return a.openTopic(msg.Topic, msg.Partition), true
	case nav.CloseMsg:
		return a.pop(), true
	case nav.TaskMsg:
		s, background := a.task(msg.Task)
		if s == nil {
			return nil, true // closed and finished: nobody waits for it
		}
		cmd := s.Update(msg.Msg)
		if background {
			cmd = tea.Batch(cmd, a.finishTasks())
		}
		return cmd, true
	case nav.OpenBrokerMsg:
		return a.push(overview.NewBroker(a.st, a.km, msg.Broker)), true
	case nav.StatusMsg:
		return a.setStatus(msg.Text, msg.Err), true
	case nav.SandboxMsg:
		return a.sandboxAction(msg), true
	case sandboxDoneMsg:
		if msg.err != nil {
			return a.setStatus(msg.err.Error(), true), true
		}
		return a.setStatus(msg.text, false), true
	case tree.OpenSubtreeMsg:
		return a.subtree(msg.Path, true), true
	case tree.CloseSubtreeMsg:
		return a.subtree(msg.Path, false), true
	case subtreeFailedMsg:
		return a.setStatus(msg.err.Error(), true), true
	case tree.ProbeMsg:
		return a.probe(msg.Path), true
	case probedMsg:
		a.tree.Probed(msg.ProbedMsg)
		if msg.watch == nil {
			return nil, true
		}
		w, p := msg.watch, msg.Path
		return func() tea.Msg {
			<-w // one-shot: fires on a change, or ends with the session
			return probeFiredMsg{p}
		}, true
	case probeFiredMsg:
		if a.tree.Probing(msg.path) {
			return a.probe(msg.path), true
		}
		return nil, true
	}
	return nil, false
}

// subtree opens or closes a subtree of the mirror. The mirror's control
// call waits for its loop, so it runs as a command.
func (a *App) subtree(path string, open bool) tea.Cmd {
	src := a.cfg.Source
	if src == nil {
		return nil
	}
	return func() tea.Msg {
		var err error
		if open {
			err = src.OpenSubtree(path)
		} else {
			err = src.CloseSubtree(path)
		}
		if err != nil {
			return subtreeFailedMsg{err}
		}
		return nil
	}
}

// probe lists path's children (with a watch) and reads its data.
func (a *App) probe(path string) tea.Cmd {
	br := a.cfg.Browser
	if br == nil {
		return nil
	}
	return func() tea.Msg {
		kids, _, w, err := br.ChildrenW(path)
		if err != nil {
			return probedMsg{ProbedMsg: tree.ProbedMsg{Path: path, Err: err}}
		}
		data, st, err := br.Get(path)
		if err != nil && !errors.Is(err, zk.ErrNoNode) {
			return probedMsg{ProbedMsg: tree.ProbedMsg{Path: path, Err: err}, watch: w}
		}
		return probedMsg{ProbedMsg: tree.ProbedMsg{Path: path, Children: kids, Data: data, Stat: st}, watch: w}
	}
}

// paceOrder applies pace changes in the order the user asked for them:
// each runs in its own command goroutine, so a quick p p p could land out
// of order. Requests without a sequence number (0) always apply.
type paceOrder struct {
	mu      sync.Mutex
	applied uint64
}

func (o *paceOrder) apply(seq uint64, set func()) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if seq == 0 || seq > o.applied {
		set()
		o.applied = max(o.applied, seq)
	}
}

// sandboxAction runs a sandbox control call off the event loop.
func (a *App) sandboxAction(msg nav.SandboxMsg) tea.Cmd {
	sb := a.cfg.Sandbox
	if sb == nil || a.cfg.Mode != ModeSandbox {
		return a.setStatus("Sandbox actions work only in the sandbox.", true)
	}
	switch msg.Action {
	case nav.ToggleBroker:
		id := msg.Broker
		verb := "Killing"
		if !a.snap.IsLive(id) {
			verb = "Restarting"
		}
		return tea.Batch(a.setStatus(verb+" broker "+strconv.Itoa(id)+"…", false), func() tea.Msg {
			if sb.Running(id) {
				if err := sb.Kill(id); err != nil {
					return sandboxDoneMsg{err: err}
				}
				return sandboxDoneMsg{text: "Killed broker " + strconv.Itoa(id) + ": watch its leaders move and the ISRs shrink. x again restarts it."}
			}
			if err := sb.Restart(id); err != nil {
				return sandboxDoneMsg{err: err}
			}
			return sandboxDoneMsg{text: "Restarted broker " + strconv.Itoa(id) + ": it rejoins the ISRs once caught up."}
		})
	case nav.ElectPreferred:
		topic := msg.Topic
		return tea.Batch(a.setStatus("Running a preferred leader election…", false), func() tea.Msg {
			s, err := sb.ElectPreferred(topic)
			return sandboxDoneMsg{text: "Preferred leader election: " + s, err: err}
		})
	case nav.SetPace:
		p, ok := sb.(Pacer)
		if !ok {
			return a.setStatus("This sandbox cannot change its pace.", true)
		}
		// Requests reach the shell in any order (each came from its own
		// command): apply only the newest, here and in the command.
		if msg.Seq != 0 && msg.Seq < a.paceSeq {
			return nil
		}
		a.paceSeq = max(a.paceSeq, msg.Seq)
		d, seq, order := msg.Pace, msg.Seq, a.paceOrder
		return tea.Batch(a.setStatus("Sandbox pace: "+d.String()+" per controller step.", false), func() tea.Msg {
			order.apply(seq, func() { p.SetPace(d) })
			return nil
		})
	case nav.MoveController:
		return tea.Batch(a.setStatus("Moving the controller…", false), func() tea.Msg {
			if err := sb.MoveController(); err != nil {
				return sandboxDoneMsg{err: err}
			}
			return sandboxDoneMsg{text: "The controller moved."}
		})
	}
	return nil
}
