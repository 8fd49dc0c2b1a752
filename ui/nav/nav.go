// Package nav holds the requests screens send to the shell: open a topic
// or a broker, run a sandbox action, report a status line. They cross
// package boundaries, so they are exported; like every request they are
// named in the imperative.
package nav

import (
	"sync/atomic"
	"time"

	tea "charm.land/bubbletea/v2"
)

// OpenTopicMsg asks the shell to show a topic (Partition -1: no cursor).
// Replace closes the sending screen (the top of the stack) first.
type OpenTopicMsg struct {
	Topic     string
	Partition int
	Replace   bool
}

// CloseMsg asks the shell to close the sending screen (the top of the
// stack), as esc does; a screen with work in flight moves to the
// background (see ui.Task).
type CloseMsg struct{}

// TaskMsg carries the result of a screen's asynchronous work back to that
// screen, wherever it is by then: focused, under other screens, or in the
// shell's background list after the user closed it. Task is the screen's
// TaskID; a task the shell no longer knows drops the message.
type TaskMsg struct {
	Task int
	Msg  tea.Msg
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
	// SetPace sets the sandbox's pace (the delay before each controller
	// and broker step) to Pace.
	SetPace
)

// SandboxMsg asks the shell to run a sandbox action.
type SandboxMsg struct {
	Action SandboxAction
	Broker int
	Topic  string
	Pace   time.Duration
	// Seq orders SetPace requests (from NextSeq): commands deliver their
	// messages in any order, so the shell drops a request older than one
	// it already applied.
	Seq uint64
}

var seq atomic.Uint64

// NextSeq returns a number larger than every one returned before.
func NextSeq() uint64 { return seq.Add(1) }

// StatusMsg asks the shell to show a line in the status bar.
type StatusMsg struct {
	Text string
	Err  bool
}

// Cmd wraps a message in a command.
func Cmd(m tea.Msg) tea.Cmd { return func() tea.Msg { return m } }
