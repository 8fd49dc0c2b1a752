package ui

import (
	"slices"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/ktopo/ktopo/internal/testkit/fixture"
	"github.com/ktopo/ktopo/ui/keys"
	"github.com/ktopo/ktopo/ui/screens/whatif"
	"github.com/ktopo/ktopo/ui/theme"
)

func whatIf(a *App) *whatif.Model {
	w, _ := a.Focused().(*whatif.Model)
	return w
}

// TestWhatIfFromOverview: f on a card shows the broker's what-if, f on a
// rack heading the rack's; x there kills the broker, or the rack's brokers
// in one event; esc goes back.
func TestWhatIfFromOverview(t *testing.T) {
	a, _, sb := newApp(t, ModeSandbox)
	a.update(tea.WindowSizeMsg{Width: 100, Height: 30})
	load(a, fixture.Small())
	press(a, "f")
	w := whatIf(a)
	if w == nil || !slices.Equal(w.Brokers(), []int{1}) || !strings.Contains(screen(a), "What if broker 1 fails") {
		t.Fatalf("f on broker 1:\n%s", screen(a))
	}
	press(a, "x")
	press(a, "esc", "up")
	if id, ok := a.Overview().Selected(); ok {
		t.Fatalf("up from the first card selects the heading, not broker %d", id)
	}
	press(a, "f")
	if w := whatIf(a); w == nil || !slices.Equal(w.Brokers(), []int{1, 4}) || !strings.Contains(screen(a), "What if rack-a fails") {
		t.Fatalf("f on rack-a:\n%s", screen(a))
	}
	press(a, "x")
	// Broker 1 is down already: x kills the rest of the rack.
	if want := []string{"kill 1", "kill together [4]"}; !slices.Equal(sb.actions, want) {
		t.Fatalf("actions %v, want %v", sb.actions, want)
	}
	press(a, "esc")
	if len(a.Stack()) != 0 {
		t.Fatal("esc closes the what-if")
	}
}

// TestWhatIfReadOnly: the what-if only reads: it opens in read-only mode,
// where nothing in it acts on the cluster.
func TestWhatIfReadOnly(t *testing.T) {
	a, _, sb := newApp(t, ModeReadOnly)
	a.update(tea.WindowSizeMsg{Width: 100, Height: 30})
	load(a, fixture.Small())
	press(a, "right", "f")
	if w := whatIf(a); w == nil || !slices.Equal(w.Brokers(), []int{2}) {
		t.Fatalf("read-only: %v", a.Focused().Title())
	}
	press(a, "x", "u", "enter")
	if len(sb.actions) != 0 {
		t.Fatalf("read-only: %v", sb.actions)
	}
}

// TestFlowWhatIf: the what-if of broker 2, then the failure happening
// exactly as predicted: the screen says so.
func TestFlowWhatIf(t *testing.T) {
	tm, src := startFlow(t, 100, 30)
	send(tm, "right", "f")
	waitOut(t, tm, "What if broker 2 fails")
	// What the controller would write, from a twin of the App's model.
	model := fixture.Small().Model()
	w := whatif.New(theme.New(true), keys.Default(), []int{2}, "")
	w.SetSnapshot(model.Snapshot())
	src.ch <- fixture.Failed(w.Impact(), 9000, t0.UnixMilli())
	waitOut(t, tm, "As predicted")
	fm := final(t, tm)
	if w := whatIf(fm); w == nil || !w.Verifying() || w.Matched() != w.Impact().Counts.Partitions {
		t.Fatalf("not verified: %v", fm.Focused().Title())
	}
	golden.RequireEqual(t, ansi.Strip(fm.View().Content))
}
