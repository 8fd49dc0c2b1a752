package ui

import (
	"slices"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
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
		command{names: []string{"topic"}, usage: ":topic NAME", about: "open a topic", run: func(a *App, args []string) tea.Cmd {
			if len(args) != 1 {
				return a.setStatus("usage: :topic NAME", true)
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
			a.showHelp = true
			return nil
		}},
		command{names: []string{"quit", "q", "q!"}, usage: ":q", about: "quit", run: func(*App, []string) tea.Cmd { return tea.Quit }},
	)
}

func (c command) applies(a *App) bool { return c.enabled == nil || c.enabled(a) }

// commandNames are what tab completes on the `:` line.
func (a *App) commandNames() []string {
	var out []string
	for _, c := range a.commands() {
		if c.applies(a) {
			out = append(out, c.names[0])
		}
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
	return cmd
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
	return a.setStatus("unknown command :"+name+" (try "+strings.Join(a.commandHints(), ", ")+")", true)
}
