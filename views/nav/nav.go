// Package nav holds the requests screens send to the shell: open a topic
// or a broker, run a sandbox action, report a status line. They cross
// package boundaries, so they are exported; like every request they are
// named in the imperative.
package nav

import tea "charm.land/bubbletea/v2"

// OpenTopicMsg asks the shell to show a topic (Partition -1: no cursor).
type OpenTopicMsg struct {
	Topic     string
	Partition int
}

// OpenBrokerMsg asks the shell to list a broker's partitions.
type OpenBrokerMsg struct{ Broker int }

// SandboxAction is what a sandbox key asks for.
type SandboxAction uint8

// Sandbox actions.
const (
	// ToggleBroker kills a running broker or restarts a stopped one.
	ToggleBroker SandboxAction = iota + 1
	// ElectPreferred runs a preferred leader election (Topic "" = all).
	ElectPreferred
	// MoveController makes the controller resign.
	MoveController
)

// SandboxMsg asks the shell to run a sandbox action.
type SandboxMsg struct {
	Action SandboxAction
	Broker int
	Topic  string
}

// StatusMsg asks the shell to show a line in the status bar.
type StatusMsg struct {
	Text string
	Err  bool
}

// Cmd wraps a message in a command.
func Cmd(m tea.Msg) tea.Cmd { return func() tea.Msg { return m } }
