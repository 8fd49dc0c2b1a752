package ui

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// handleKey routes a key: ctrl+c, the `:` line and the help page first,
// then a text field that has the keyboard, then the global bindings and
// the tabs' number keys, then the focused screen.
func (a *App) handleKey(msg tea.KeyPressMsg) tea.Cmd {
	g := &a.km.Global
	if a.quitAsk != nil {
		return a.quitKey(msg)
	}
	if key.Matches(msg, g.FieldQuit) {
		return a.quit()
	}
	if a.cmdOpen {
		return a.commandKey(msg)
	}
	if a.showHelp {
		return a.helpKey(msg)
	}
	focused := a.Focused()
	if a.capturing() {
		if key.Matches(msg, g.FieldHelp) {
			a.openHelp()
			return nil
		}
		return a.send(focused, msg)
	}
	for i, t := range a.tabs {
		if key.Matches(msg, t.key) {
			return a.switchTab(i)
		}
	}
	switch {
	case key.Matches(msg, g.Quit):
		return a.quit()
	case key.Matches(msg, g.Help):
		a.openHelp()
		return nil
	case key.Matches(msg, g.Command):
		a.cmdOpen = true
		a.cmd.SetValue("")
		a.suggest()
		return a.cmd.Focus()
	case key.Matches(msg, g.Create):
		return a.openCreate()
	case key.Matches(msg, g.Back):
		if b, ok := focused.(Backer); ok && b.Back() {
			return nil
		}
		if len(a.stack) > 0 {
			return a.pop()
		}
		cmd, _ := a.back()
		return cmd
	}
	return a.send(focused, msg)
}
