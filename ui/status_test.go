package ui

import (
	"strings"
	"testing"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/ktopo/ktopo/internal/testkit/fixture"
	"github.com/ktopo/ktopo/ui/internal/cell"
	"github.com/ktopo/ktopo/ui/nav"
	"github.com/ktopo/ktopo/ui/theme"
)

// fakeTask is a background task whose state the test sets.
type fakeTask struct {
	line  string
	state nav.TaskState
}

func (f *fakeTask) ShortHelp() []key.Binding              { return nil }
func (f *fakeTask) FullHelp() [][]key.Binding             { return nil }
func (f *fakeTask) Title() string                         { return "task" }
func (f *fakeTask) Update(tea.Msg) (tea.Cmd, nav.Request) { return nil, nil }
func (f *fakeTask) View() string                          { return "" }
func (f *fakeTask) SetSize(int, int)                      {}
func (f *fakeTask) SetStyles(theme.Styles)                {}
func (f *fakeTask) Detach() bool                          { return true }
func (f *fakeTask) TaskStatus() (string, nav.TaskState)   { return f.line, f.state }

// TestTaskOutcome: a background task's outcome is shown as an error when
// its state says it failed, whatever its words.
func TestTaskOutcome(t *testing.T) {
	for _, tc := range []struct {
		state  nav.TaskState
		line   string
		kept   bool
		errOut bool
	}{
		{nav.TaskRunning, "working", true, false},
		{nav.TaskDone, "Topic t created, no partition failed", false, false},
		{nav.TaskFailed, "Topic t: the cluster refused it", false, true},
	} {
		a, _, _ := newApp(t, ModeLive)
		a.update(tea.WindowSizeMsg{Width: 80, Height: 24})
		task := &fakeTask{line: "working", state: nav.TaskRunning}
		a.push(task)
		a.pop()
		if len(a.Tasks()) != 1 {
			t.Fatal("a detached task goes to the background")
		}
		task.line, task.state = tc.line, tc.state
		a.finishTasks()
		s, isErr := a.Status()
		if kept := len(a.Tasks()) == 1; kept != tc.kept || (!tc.kept && (s != tc.line || isErr != tc.errOut)) {
			t.Fatalf("%v: kept %v, status %q error %v", tc.state, kept, s, isErr)
		}
	}
}

// TestLongStatusIsReadWhole: a status message wider than the status bar's
// room (the migration steps' explanations on the sandbox) is not cut at
// 80 columns: its first lines show over the bottom of the screen, its
// last in the status bar, every word of it there; a short one stays in
// the status bar alone, and the screen is whole again once it is gone.
func TestLongStatusIsReadWhole(t *testing.T) {
	a, _, _ := newApp(t, ModeSandbox)
	a.update(tea.WindowSizeMsg{Width: 80, Height: 24})
	load(a, fixture.Small())
	before := screen(a)
	msg := "KRaft controller 3000 started with zookeeper.metadata.migration.enable=true: it created /migration and waits " +
		"for every broker to register with it (brokers restarted with the migration flags and the controller quorum)"
	a.setStatus(msg, false)
	out := screen(a)
	lines := strings.Split(out, "\n")
	if len(lines) != 24 {
		t.Fatalf("%d lines", len(lines))
	}
	for i, l := range lines {
		if cell.Width(l) > 80 {
			t.Errorf("line %d is %d wide", i, cell.Width(l))
		}
	}
	if strings.Contains(strings.Join(lines[18:], "\n"), "…") {
		t.Errorf("the message is cut:\n%s", out)
	}
	if got := strings.Join(strings.Fields(strings.Join(lines[18:], " ")), " "); !strings.Contains(got, strings.Join(strings.Fields(msg), " ")) {
		t.Errorf("the message is not whole at the bottom:\n%s", out)
	}
	if !strings.Contains(lines[23], "connected") {
		t.Errorf("the status bar lost its right part: %q", lines[23])
	}
	a.setStatus("Broker 2 killed.", false)
	if out := screen(a); strings.Count(out, "Broker 2 killed.") != 1 || !strings.Contains(strings.Split(out, "\n")[23], "Broker 2 killed.") {
		t.Errorf("a short message:\n%s", out)
	}
	a.update(clearStatusMsg{a.statusID})
	if screen(a) != before {
		t.Errorf("after the message:\n%s", screen(a))
	}
}
