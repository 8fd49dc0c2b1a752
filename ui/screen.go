package ui

import (
	"time"

	"charm.land/bubbles/v2/help"
	tea "charm.land/bubbletea/v2"
	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/clusterwatch"
	"github.com/ktopo/ktopo/ui/nav"
	"github.com/ktopo/ktopo/ui/theme"
)

// Screen is what the shell needs from a view. Defined here, at the
// consumer. Update returns the command to run (real I/O only) and at most
// one request to the shell, which the shell handles before its own Update
// returns (see package nav).
type Screen interface {
	help.KeyMap
	Title() string
	Update(tea.Msg) (tea.Cmd, nav.Request)
	View() string
	SetSize(w, h int)
	SetStyles(theme.Styles)
}

// The optional parts of a screen, found by type assertion.
type (
	// SnapshotSetter is a screen that shows the cluster: it gets every new
	// snapshot, focused or not.
	SnapshotSetter interface {
		SetSnapshot(*cluster.Snapshot)
	}

	// SizesSetter is a screen that shows sizes (Config.Sizes): it gets
	// every new reading, focused or not, after the snapshot of its time.
	// A reading may be unknown (Sizes.Why says why).
	SizesSetter interface {
		SetSizes(*cluster.Sizes)
	}

	// Shower is a screen that wants to know when it is shown and hidden
	// (the tree watches what it shows only while it is shown). The shell
	// calls Shown whenever the screen with the keyboard changes: false for
	// the one that lost it, then true for the one that got it.
	Shower interface {
		Shown(shown bool) tea.Cmd
	}

	// Capturer is a screen with a text field; while it captures, single-key
	// global bindings (q, ?, 1–4) go to the screen.
	Capturer interface {
		Capturing() bool
	}

	// Backer is a screen that uses esc itself (to clear a filter) before
	// the shell pops it.
	Backer interface {
		Back() bool
	}

	// Task is a screen whose work can outlive it (the creation wizard).
	// When the user closes it, Detach reports whether work is still in
	// flight; if so the shell keeps it in a background list, feeds it
	// snapshots and the nav.TaskMsg results addressed to the id the shell
	// gave it, and shows TaskStatus in the status bar until it is no longer
	// running, when the final line is shown once and the task is dropped.
	Task interface {
		Screen
		Detach() bool
		TaskStatus() (line string, state nav.TaskState)
	}

	// Modal is a screen that may show a popup (the wizard's confirmation);
	// the shell composites a non-empty Modal() centred over the screen.
	Modal interface {
		Modal() string
	}

	// Leaver is a screen whose work quitting can leave half done: an
	// operation between two of its writes, or one whose throttles stay
	// until a command removes them. Leaving says what, and how to finish
	// or undo it (nil: nothing); the shell asks before quitting when any
	// says something, and prints it (final) once the TUI has closed. Stop
	// asks it to finish the step it started and start no other (the
	// returned command carries on); Stopping reports that it still is.
	Leaver interface {
		Leaving(final bool) []string
		Stop() tea.Cmd
		Stopping() bool
	}
)

// The ports: what the shell talks to outside the UI.
type (
	// Source is the live cluster: the ZooKeeper mirror (*zksource.Source)
	// or the Kafka-protocol poller (*kafkawatch.Poller). A source that
	// also has the mirror's subtrees and nodes (tree.Subtrees, tree.Nodes,
	// tree.Walker) feeds the ZooKeeper tree, which is not shown otherwise.
	Source = clusterwatch.Source

	// SandboxControl drives the sandbox cluster ktopo started itself.
	SandboxControl interface {
		Kill(id int) error
		Restart(id int) error
		// ElectPreferred runs a preferred leader election for a topic (""
		// for all) and returns a one-line summary.
		ElectPreferred(topic string) (string, error)
		// MoveController makes the controller resign and returns the
		// broker that took over.
		MoveController() (int, error)
		Running(id int) bool
	}

	// TogetherKiller is implemented by a SandboxControl that can crash
	// several brokers in one event, as when a rack loses power: the
	// controller then sees them go in one broker change.
	TogetherKiller interface {
		KillTogether(ids ...int) error
	}

	// Migrator is implemented by a SandboxControl that simulates a
	// ZooKeeper to KRaft migration: Migrate("") takes it one step further,
	// "freeze" and "thaw" stop and resume the KRaft controller's sync into
	// ZooKeeper; it returns what it did.
	Migrator interface {
		Migrate(arg string) (string, error)
	}

	// Pacer is implemented by a SandboxControl whose simulated controller
	// and brokers can be slowed down, so that each step is visible.
	// SetPace must not block: the shell calls it in Update.
	Pacer interface {
		SetPace(d time.Duration)
		Pace() time.Duration
	}
)
