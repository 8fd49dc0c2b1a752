package ui

import (
	"slices"
	"strconv"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/ktopo/ktopo/internal/text"
	"github.com/ktopo/ktopo/ui/nav"
	"github.com/ktopo/ktopo/ui/screens/overview"
	"github.com/ktopo/ktopo/ui/screens/tree"
	"github.com/ktopo/ktopo/ui/screens/whatif"
)

// sandboxDoneMsg is the outcome of a sandbox action.
type sandboxDoneMsg struct {
	text string
	err  error
}

// handle does what screen from asked, in the Update that asked it.
func (a *App) handle(from Screen, req nav.Request) tea.Cmd {
	switch r := req.(type) {
	case nil:
		return nil
	case nav.OpenTopic:
		if r.Replace {
			a.close(from)
		}
		return a.openTopic(r.Topic, r.Partition)
	case nav.OpenBroker:
		return a.push(overview.NewBroker(a.st, a.km, r.Broker))
	case nav.OpenWhatIf:
		return a.push(whatif.New(a.st, a.km, r.Brokers, r.Rack))
	case nav.OpenOperation:
		return a.openOperation(r.Op)
	case nav.Close:
		return a.close(from)
	case nav.ShowStatus:
		return a.setStatus(r.Text, r.Err)
	case nav.ToggleBroker, nav.ToggleController, nav.ToggleBrokers, nav.ElectPreferred, nav.MoveController, nav.SetPace:
		return a.sandboxAction(req)
	}
	return nil
}

// close closes screen s when it is the top of the stack (a screen under
// others or in the background has nothing to close).
func (a *App) close(s Screen) tea.Cmd {
	if n := len(a.stack); n > 0 && a.stack[n-1] == s {
		return a.pop()
	}
	return nil
}

// sandboxAction runs a sandbox control call: off the event loop, except
// the pace, a non-blocking setter applied at once (so quick presses apply
// in the order they were made).
func (a *App) sandboxAction(req nav.Request) tea.Cmd {
	sb := a.cfg.Sandbox
	if sb == nil || a.cfg.Mode != ModeSandbox {
		return a.setStatus("Sandbox actions work only in the sandbox.", true)
	}
	kraft := a.kraftSandbox()
	switch r := req.(type) {
	case nav.ToggleBroker:
		id := r.Broker
		verb := "Killing"
		if !a.snap.IsLive(id) {
			verb = "Restarting"
		}
		return tea.Batch(a.setStatus(verb+" broker "+strconv.Itoa(id)+"…", false), func() tea.Msg {
			if sb.Running(id) {
				if err := sb.Kill(id); err != nil {
					return sandboxDoneMsg{err: err}
				}
				if kraft {
					return sandboxDoneMsg{text: "Killed broker " + strconv.Itoa(id) + ": the controller fences it after broker.session.timeout.ms without heartbeats. x again restarts it."}
				}
				return sandboxDoneMsg{text: "Killed broker " + strconv.Itoa(id) + ": watch its leaders move and the ISRs shrink. x again restarts it."}
			}
			if err := sb.Restart(id); err != nil {
				return sandboxDoneMsg{err: err}
			}
			return sandboxDoneMsg{text: "Restarted broker " + strconv.Itoa(id) + ": it rejoins the ISRs once caught up."}
		})
	case nav.ToggleController:
		return a.toggleController(sb, r.Controller)
	case nav.ToggleBrokers:
		return a.toggleBrokers(sb, r.Brokers)
	case nav.ElectPreferred:
		topic := r.Topic
		return tea.Batch(a.setStatus("Running a preferred leader election…", false), func() tea.Msg {
			s, err := sb.ElectPreferred(topic)
			return sandboxDoneMsg{text: "Preferred leader election: " + s, err: err}
		})
	case nav.SetPace:
		p, ok := sb.(Pacer)
		if !ok {
			return a.setStatus("This sandbox cannot change its pace.", true)
		}
		p.SetPace(r.Pace)
		return a.setStatus("Sandbox pace: "+r.Pace.String()+" per controller step.", false)
	case nav.MoveController:
		return tea.Batch(a.setStatus("Moving the controller…", false), func() tea.Msg {
			id, err := sb.MoveController()
			if err != nil {
				return sandboxDoneMsg{err: err}
			}
			if kraft {
				return sandboxDoneMsg{text: "The metadata quorum's leader moved to controller " + strconv.Itoa(id) + "."}
			}
			return sandboxDoneMsg{text: "The controller moved to broker " + strconv.Itoa(id) + "."}
		})
	}
	return nil
}

// kraftSandbox reports the KRaft sandbox: a sandbox whose source is a
// KRaft cluster's (no ZooKeeper tree), whose controller is the metadata
// quorum's leader and whose elections are the election wizard's.
func (a *App) kraftSandbox() bool {
	if a.cfg.Sandbox == nil || a.cfg.Mode != ModeSandbox || a.cfg.Source == nil {
		return false
	}
	_, zk := a.cfg.Source.(tree.Subtrees)
	return !zk
}

// toggleController kills a running controller of the KRaft sandbox or
// restarts a stopped one (the quorum tab's x on a voter).
func (a *App) toggleController(sb SandboxControl, id int) tea.Cmd {
	if !a.kraftSandbox() {
		return a.setStatus("Only the KRaft sandbox has controllers to kill.", true)
	}
	name := "controller " + strconv.Itoa(id)
	return func() tea.Msg {
		if sb.Running(id) {
			if err := sb.Kill(id); err != nil {
				return sandboxDoneMsg{err: err}
			}
			return sandboxDoneMsg{text: "Killed " + name + ": if it led, the voters left elect another (while a majority runs). x again restarts it."}
		}
		if err := sb.Restart(id); err != nil {
			return sandboxDoneMsg{err: err}
		}
		return sandboxDoneMsg{text: "Restarted " + name + ": it fetches from the quorum's leader again."}
	}
}

// toggleBrokers kills the running brokers of ids in one event (a rack
// losing power: the controller sees them go together, as the what-if
// predicts), or restarts them all when none runs.
func (a *App) toggleBrokers(sb SandboxControl, ids []int) tea.Cmd {
	ids = slices.Clone(ids)
	kraft := a.kraftSandbox()
	verb := "Restarting"
	if slices.ContainsFunc(ids, a.snap.IsLive) {
		verb = "Killing"
	}
	return tea.Batch(a.setStatus(verb+" brokers "+text.Ints(ids)+"…", false), func() tea.Msg {
		var running []int
		for _, id := range ids {
			if sb.Running(id) {
				running = append(running, id)
			}
		}
		if len(running) == 0 {
			for _, id := range ids {
				if err := sb.Restart(id); err != nil {
					return sandboxDoneMsg{err: err}
				}
			}
			return sandboxDoneMsg{text: "Restarted brokers " + text.Ints(ids) + ": they rejoin the ISRs once caught up."}
		}
		if k, ok := sb.(TogetherKiller); ok {
			if err := k.KillTogether(running...); err != nil {
				return sandboxDoneMsg{err: err}
			}
		} else {
			for _, id := range running {
				if err := sb.Kill(id); err != nil {
					return sandboxDoneMsg{err: err}
				}
			}
		}
		if kraft {
			return sandboxDoneMsg{text: "Killed brokers " + text.Ints(running) + " together: the controller fences each after broker.session.timeout.ms without heartbeats. x again restarts them."}
		}
		return sandboxDoneMsg{text: "Killed brokers " + text.Ints(running) + " together: watch the leaders move and the ISRs shrink. x again restarts them."}
	})
}

// migrate steps the sandbox's simulated migration (:migrate): the
// sandbox's writes, in a command; what it did comes back to the status
// bar.
func (a *App) migrate(args []string) tea.Cmd {
	m, ok := a.cfg.Sandbox.(Migrator)
	if !ok || a.cfg.Mode != ModeSandbox {
		return a.setStatus(":migrate runs only on the sandbox", true)
	}
	if len(args) > 1 {
		return a.setStatus("usage: :migrate [freeze/thaw]", true)
	}
	arg := ""
	if len(args) == 1 {
		arg = args[0]
	}
	return func() tea.Msg {
		text, err := m.Migrate(arg)
		return sandboxDoneMsg{text: upperFirst(text), err: err}
	}
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
