package wizard

import (
	"errors"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/clusterops"
	"github.com/ktopo/ktopo/internal/testkit/fixture"
	"github.com/ktopo/ktopo/ui/keys"
	"github.com/ktopo/ktopo/ui/nav"
	"github.com/ktopo/ktopo/ui/theme"
	"github.com/ktopo/ktopo/zkops"
)

func confirmKeys() *ConfirmKeys {
	km := keys.Default()
	return &ConfirmKeys{Yes: km.Operation.Confirm, Cancel: km.Wizard.Cancel, Switch: km.Wizard.SwitchButton, Choose: km.Wizard.Choose, Back: km.Global.Back}
}

// TestConfirm: y writes; tab then enter cancels; the popup shows the
// warnings it was given above its buttons.
func TestConfirm(t *testing.T) {
	f := NewFrame(FrameOptions{Styles: theme.Mono()}, StagePreview)
	f.Confirm.Ask("3")
	f.Confirm.Warnings = []string{"min.insync.replicas 5 is above the replication factor 3"}
	pop := ansi.Strip(f.Confirm.View(&theme.Styles{}, []string{"Drain broker 3?"}, "Reassign", "write"))
	if !strings.Contains(pop, "⚠ min.insync.replicas 5 is above the") || strings.Index(pop, "⚠") > strings.Index(pop, "Reassign") {
		t.Fatalf("popup:\n%s", pop)
	}
	if a, _ := f.Confirm.Key(fixture.Key("y"), confirmKeys()); a != Yes || f.Confirm.Open() {
		t.Fatalf("y: %v, open %v", a, f.Confirm.Open())
	}
	f.Confirm.Ask("3")
	f.Confirm.Key(fixture.Key("tab"), confirmKeys())
	if a, _ := f.Confirm.Key(fixture.Key("enter"), confirmKeys()); a != Pending || f.Confirm.Open() {
		t.Fatalf("cancel: %v, open %v", a, f.Confirm.Open())
	}
}

// TestProductionConfirm: on a production cluster only the typed word
// writes; another word keeps the popup open, saying so, until it is
// typed again.
func TestProductionConfirm(t *testing.T) {
	f := NewFrame(FrameOptions{Styles: theme.Mono(), Production: true}, StagePreview)
	f.Confirm.Ask("orders")
	for _, k := range []string{"y", "o"} {
		f.Confirm.Key(fixture.Key(k), confirmKeys())
	}
	if a, _ := f.Confirm.Key(fixture.Key("enter"), confirmKeys()); a != Mistyped || !f.Confirm.Open() {
		t.Fatalf("yo: %v, open %v", a, f.Confirm.Open())
	}
	if pop := ansi.Strip(f.Confirm.View(&theme.Styles{}, nil, "Reassign", "write")); !strings.Contains(pop, "Not written: “yo” is not orders.") {
		t.Fatalf("popup:\n%s", pop)
	}
	f.Confirm.Key(fixture.Key("ctrl+u"), confirmKeys())
	for _, r := range "orders" {
		f.Confirm.Key(tea.KeyPressMsg{Code: r, Text: string(r)}, confirmKeys())
	}
	if a, _ := f.Confirm.Key(fixture.Key("enter"), confirmKeys()); a != Yes || f.Confirm.Open() {
		t.Fatalf("orders: %v, open %v", a, f.Confirm.Open())
	}
}

// TestOps: the lines of an older plan are dropped; an error is shown.
func TestOps(t *testing.T) {
	f := NewFrame(FrameOptions{Task: 4}, StagePreview)
	cmd := f.Describe(OpsHead{Title: "Written"}, func() ([]string, [][]string, error) { return []string{"create /a"}, nil, nil })
	msg := cmd().(nav.TaskMsg)
	f.Ops.Reset() // the plan changed meanwhile
	f.Ops.Set(msg.Msg.(OpsMsg))
	if f.Ops.Lines() != nil || msg.Task != 4 {
		t.Fatalf("lines of an older plan kept: %v", f.Ops.Lines())
	}
	f.Ops.ShowLines(OpsHead{Title: "Written"}, nil, errors.New("no session"))
	f.Ops.Wrap(80)
	if out := strings.Join(f.Ops.View(&theme.Styles{}, nil, 80, 24), "\n"); !strings.Contains(out, "no session") {
		t.Fatalf("view:\n%s", out)
	}
}

// TestTicks: ticks run while the wizard works, in the background only
// when asked, and one at a time.
func TestTicks(t *testing.T) {
	n := 0
	tick := func(time.Duration, func(time.Time) tea.Msg) tea.Cmd { n++; return func() tea.Msg { return nil } }
	f := NewFrame(FrameOptions{Tick: tick}, StagePreview)
	if f.Tick(false) != nil {
		t.Fatal("ticks in the preview")
	}
	f.Begin()
	if f.Tick(false) == nil || f.Tick(false) != nil {
		t.Fatal("not one tick at a time")
	}
	f.Ticked()
	if !f.Detach(false) || f.Tick(false) != nil || f.Tick(true) == nil || n != 2 {
		t.Fatalf("background ticks: %d", n)
	}
}

// fakeZK is a session the frame only passes on.
type fakeZK struct{ zkops.ZK }

// TestGuardedAsk: the migration guard's verdict decides whether the popup
// opens (a refusal does not, and says why), what it warns about, and
// whether the write it confirms carries the confirmation.
func TestGuardedAsk(t *testing.T) {
	st := theme.Mono()
	z := zkops.NewWriter(fakeZK{})

	f := NewFrame(FrameOptions{Styles: st}, StagePreview)
	if cmd, refused := f.Ask("", cluster.WriteVerdict{}); cmd != nil || refused != "" || !f.Confirm.Open() {
		t.Fatalf("no migration: the popup opens (%v, %q)", f.Confirm.Open(), refused)
	}
	if f.Writer(z) != clusterops.Writer(z) {
		t.Error("no migration: the writer is the session itself")
	}

	f = NewFrame(FrameOptions{Styles: st}, StagePreview)
	refuse := cluster.WriteVerdict{Level: cluster.WriteRefused, Reason: "KRaft controller 3000 (epoch 1) owns this cluster's metadata", Instead: "use Kafka's tools with --bootstrap-server"}
	if _, refused := f.Ask("", refuse); f.Confirm.Open() || refused != "Not written: "+refuse.Message() {
		t.Errorf("a refused write: popup open %v, %q", f.Confirm.Open(), refused)
	}

	f = NewFrame(FrameOptions{Styles: st}, StagePreview)
	warn := cluster.WriteVerdict{Level: cluster.WriteWarn, Reason: "a migration to KRaft is being prepared", Instead: "confirm only if the controllers wait for the brokers", MigrationCzxid: 7}
	f.Confirm.Warnings = []string{"an effect"}
	if _, refused := f.Ask("", warn); !f.Confirm.Open() || refused != "" {
		t.Fatalf("a warned write: popup open %v, %q", f.Confirm.Open(), refused)
	}
	view := strings.Join(strings.Fields(ansi.Strip(f.Confirm.View(&st, []string{"Create t"}, "Create", "create"))), " ")
	if i, j := strings.Index(view, "⚠ a migration to KRaft"), strings.Index(view, "⚠ an effect"); i < 0 || j < i {
		t.Errorf("the popup does not warn first:\n%s", view)
	}
	if f.Writer(z) == clusterops.Writer(z) || f.Writer(nil) != nil {
		t.Error("a warned write: the writer does not carry the confirmation")
	}
}
