// Package nav is what a screen asks of the shell. A screen's Update
// returns at most one Request next to its command, and the shell handles
// it before the Update returns: requests never travel as messages, so they
// are handled in the order the user pressed the keys and need no sequence
// numbers. Commands are for real I/O only; their results come back to the
// screen that ran them in a TaskMsg.
//
// A request is named in the imperative. Every request type is here,
// because the shell's switch over them is the list of what screens can ask.
package nav

import (
	"time"

	tea "charm.land/bubbletea/v2"
)

// Request is a screen's request to the shell (nil: nothing asked).
type Request interface{ request() }

// OpenTopic asks the shell to show a topic (Partition -1: no cursor).
// Replace closes the asking screen first.
type OpenTopic struct {
	Topic     string
	Partition int
	Replace   bool
}

// OpenBroker asks the shell to list a broker's partitions.
type OpenBroker struct{ Broker int }

// OpenWhatIf asks the shell to show what losing Brokers together would do;
// Rack names them when they are a rack ("" for one broker).
type OpenWhatIf struct {
	Brokers []int
	Rack    string
}

// OperationKind is an operation the operation wizard runs.
type OperationKind uint8

// Operations.
const (
	// OpDrain moves every replica off Broker.
	OpDrain OperationKind = iota
	// OpReassign moves Topic's partitions (and changes its replication
	// factor).
	OpReassign
	// OpAddPartitions adds partitions to Topic.
	OpAddPartitions
	// OpElect runs a preferred leader election of Topic ("" for every
	// topic).
	OpElect
	// OpConfigs edits Topic's config overrides.
	OpConfigs
)

// Operation names what the operation wizard is opened for: the kind and
// its broker or topic.
type Operation struct {
	Kind   OperationKind
	Broker int
	Topic  string
}

// OpenOperation asks the shell for the operation wizard running Op (the
// shell refuses in read-only mode).
type OpenOperation struct{ Op Operation }

// Close asks the shell to close the asking screen, as esc does; a screen
// with work in flight moves to the background (see ui.Task).
type Close struct{}

// ShowStatus asks the shell to show a line in the status bar.
type ShowStatus struct {
	Text string
	Err  bool
}

// ToggleBroker asks the sandbox to kill a running broker or restart a
// stopped one.
type ToggleBroker struct{ Broker int }

// ToggleController asks the KRaft sandbox to kill a running controller
// (a voter of its metadata quorum) or restart a stopped one.
type ToggleController struct{ Controller int }

// ToggleBrokers asks the sandbox to kill those of Brokers that run, all
// at once as when a rack loses power, or, when none runs, to restart them.
type ToggleBrokers struct{ Brokers []int }

// ElectPreferred asks the sandbox for a preferred leader election of a
// topic ("" for every topic).
type ElectPreferred struct{ Topic string }

// MoveController asks the sandbox's controller to resign.
type MoveController struct{}

// SetPace sets the sandbox's pace: the delay before each controller and
// broker step.
type SetPace struct{ Pace time.Duration }

func (OpenTopic) request()        {}
func (OpenBroker) request()       {}
func (OpenWhatIf) request()       {}
func (ToggleBrokers) request()    {}
func (OpenOperation) request()    {}
func (Close) request()            {}
func (ShowStatus) request()       {}
func (ToggleBroker) request()     {}
func (ToggleController) request() {}
func (ElectPreferred) request()   {}
func (MoveController) request()   {}
func (SetPace) request()          {}

// TaskState is where a screen's background work stands (ui.Task).
type TaskState uint8

// Task states.
const (
	// TaskRunning: the work goes on; its status line says how far.
	TaskRunning TaskState = iota
	// TaskDone: finished; the status line is the outcome.
	TaskDone
	// TaskFailed: finished without doing what it was for; the status line
	// says why, and the shell shows it as an error.
	TaskFailed
)

// TaskMsg carries the result of a screen's command back to that screen,
// wherever it is by then: focused, under other screens, or in the shell's
// background list after the user closed it. Task is the id the shell gave
// the screen when it made it (create.Options.Task, tree.Options.Task); a
// task the shell no longer knows drops the message.
type TaskMsg struct {
	Task int
	Msg  tea.Msg
}
