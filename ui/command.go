package ui

import (
	"slices"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/ktopo/ktopo/cluster"
)

// command is a `:` command.
type command struct {
	// names are the command and its aliases; the first is completed.
	names []string
	// usage is how the help and the "unknown command" hint list it, ""
	// for not at all.
	usage string
	about string
	run   func(a *App, args []string) tea.Cmd
	// args, when set, completes the command's argument: the values that
	// start with prefix, at most limit of them.
	args func(a *App, prefix string, limit int) []string
	// enabled reports whether the command applies (nil: always); a
	// disabled command is neither completed nor listed.
	enabled func(a *App) bool
}

// commands are the `:` commands: one per tab (from the tab table), then
// the others.
func (a *App) commands() []command {
	out := make([]command, 0, len(a.tabs)+4)
	for i, t := range a.tabs {
		out = append(out, command{names: t.commands, usage: ":" + t.commands[0], about: t.about,
			run: func(a *App, _ []string) tea.Cmd { return a.switchTab(i) }})
	}
	return append(out,
		command{names: []string{"topic"}, usage: ":topic NAME", about: "open a topic", args: topicNames, run: func(a *App, args []string) tea.Cmd {
			if len(args) != 1 {
				return a.setStatus("usage: :topic NAME (tab completes the name)", true)
			}
			if s := a.snap; s != nil && !s.Partial() && s.Topic(args[0]) == nil {
				return a.setStatus("There is no topic "+args[0]+" in this cluster (tab completes topic names after :topic).", true)
			}
			return a.openTopic(args[0], -1)
		}},
		command{names: []string{"create", "c"}, usage: ":create", about: "create a topic",
			run:     func(a *App, _ []string) tea.Cmd { return a.openCreate() },
			enabled: func(a *App) bool { return a.km.Global.Create.Enabled() }},
		command{names: []string{"migrate"}, usage: ":migrate [freeze/thaw]", about: "sandbox: the next step of a ZooKeeper to KRaft migration",
			run: func(a *App, args []string) tea.Cmd { return a.migrate(args) },
			enabled: func(a *App) bool {
				_, ok := a.cfg.Sandbox.(Migrator)
				return ok && a.cfg.Mode == ModeSandbox
			}},
		command{names: []string{"help", "h"}, about: "show the keys", run: func(a *App, _ []string) tea.Cmd {
			a.openHelp()
			return nil
		}},
		command{names: []string{"quit", "q", "q!"}, usage: ":q", about: "quit", run: func(a *App, _ []string) tea.Cmd { return a.quit() }},
	)
}

func (c command) applies(a *App) bool { return c.enabled == nil || c.enabled(a) }

// maxCompletions bounds the argument completions offered at once (ctrl+n
// and ctrl+p go through them; typing more narrows them).
const maxCompletions = 100

// completions are what tab completes for the line typed so far: the
// command names it starts, a command that takes an argument followed by
// a space first ("topic " before "topics"), then, once the command and a
// space are typed, its argument's values ("topic orders").
func (a *App) completions(line string) []string {
	name, arg, hasArg := strings.Cut(line, " ")
	var out []string
	for _, c := range a.commands() {
		if !c.applies(a) {
			continue
		}
		switch {
		case hasArg && c.args != nil && slices.Contains(c.names, name):
			for _, v := range c.args(a, arg, maxCompletions) {
				out = append(out, name+" "+v)
			}
			return out
		case hasArg:
		case c.args != nil && c.names[0] == line:
			out = slices.Insert(out, 0, line+" ")
		case strings.HasPrefix(c.names[0], line):
			out = append(out, c.names[0])
		}
	}
	return out
}

// topicNames completes a topic name from the newest snapshot: the topics
// are sorted by name, so those starting with prefix are one run.
func topicNames(a *App, prefix string, limit int) []string {
	if a.snap == nil {
		return nil
	}
	ts := a.snap.Topics()
	i, _ := slices.BinarySearchFunc(ts, prefix, func(t *cluster.Topic, p string) int { return strings.Compare(t.Name, p) })
	var out []string
	for ; i < len(ts) && len(out) < limit && strings.HasPrefix(ts[i].Name, prefix); i++ {
		out = append(out, ts[i].Name)
	}
	return out
}

// commandHints list the commands for the help's legend and the "unknown
// command" message.
func (a *App) commandHints() []string {
	var out []string
	for _, c := range a.commands() {
		if c.usage != "" && c.applies(a) {
			out = append(out, c.usage)
		}
	}
	return out
}

// commandKey handles a key while the `:` line is open.
func (a *App) commandKey(msg tea.KeyPressMsg) tea.Cmd {
	in := &a.km.Input
	switch {
	case key.Matches(msg, in.Cancel):
		a.cmdOpen = false
		a.cmd.Blur()
		return nil
	case key.Matches(msg, in.Accept):
		a.cmdOpen = false
		a.cmd.Blur()
		return a.runCommand(a.cmd.Value())
	}
	var cmd tea.Cmd
	a.cmd, cmd = a.cmd.Update(msg)
	a.suggest()
	return cmd
}

// suggest offers what tab completes next, from what is typed now (the
// matches stay the same while ctrl+n and ctrl+p go through them), and
// enables the completion keys while there are matches.
func (a *App) suggest() {
	a.cmd.SetSuggestions(a.completions(a.cmd.Value()))
	n := len(a.cmd.MatchedSuggestions())
	in := &a.km.Input
	in.Complete.SetEnabled(n > 0)
	in.NextMatch.SetEnabled(n > 1)
	in.PrevMatch.SetEnabled(n > 1)
	a.cmd.KeyMap.AcceptSuggestion, a.cmd.KeyMap.NextSuggestion, a.cmd.KeyMap.PrevSuggestion = in.Complete, in.NextMatch, in.PrevMatch
}

// runCommand runs a `:` command line.
func (a *App) runCommand(line string) tea.Cmd {
	f := strings.Fields(line)
	if len(f) == 0 {
		return nil
	}
	name, args := f[0], f[1:]
	for _, c := range a.commands() {
		if slices.Contains(c.names, name) {
			return c.run(a, args)
		}
	}
	if s := a.absentTab(name); s != "" {
		return a.setStatus(s, true)
	}
	return a.setStatus("unknown command :"+name+" (try "+strings.Join(a.commandHints(), ", ")+")", true)
}
