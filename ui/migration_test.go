package ui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/clusterops"
	"github.com/ktopo/ktopo/ui/screens/migration"
)

// TestFlowCreateRefusedUnderKRaft: on a sandbox whose simulated KRaft
// controller has taken the cluster over, the creation wizard's write is
// refused by the migration guard, and the wizard says why and what to use
// instead, nothing written: at once in the form (open before the
// takeover) and in the preview, again at enter; the radar tab names the
// phase.
func TestFlowCreateRefusedUnderKRaft(t *testing.T) {
	f := startCreate(t, 200, 50, 0, ModeLive, nil)
	send(f.tm, "c")
	waitApp(t, f.tm, "the wizard", stageIs("form"))
	for range 2 {
		if _, err := f.sb.Migrate(""); err != nil {
			t.Fatal(err)
		}
	}
	waitApp(t, f.tm, "the takeover", func(a *App) bool {
		_, _, ok := a.Snapshot().KRaftController()
		return ok
	})
	waitApp(t, f.tm, "the form saying so", func(a *App) bool {
		out := strings.Join(strings.Fields(ansi.Strip(a.View().Content)), " ")
		return stageIs("form")(a) && strings.Contains(out, "✗ A topic created here would not be written: KRaft controller 3000")
	})
	f.tm.Type("payments")
	send(f.tm, "tab", "ctrl+u")
	f.tm.Type("12")
	send(f.tm, "tab", "ctrl+u")
	f.tm.Type("3")
	send(f.tm, "enter")
	waitApp(t, f.tm, "the preview saying so", func(a *App) bool {
		out := strings.Join(strings.Fields(ansi.Strip(a.View().Content)), " ")
		return stageIs("preview")(a) && strings.Contains(out, "Would not be written: KRaft controller 3000")
	})
	// The confirmation does not even open: the preview says why and
	// what to use instead.
	send(f.tm, "enter")
	var last string
	defer func() {
		if t.Failed() {
			t.Log(last)
		}
	}()
	waitApp(t, f.tm, "the refusal", func(a *App) bool {
		last = ansi.Strip(a.View().Content)
		out := strings.Join(strings.Fields(last), " ")
		return strings.Contains(out, "Not written: KRaft controller 3000")
	})
	_ = last
	// The sandbox's simulated controller goes on from the takeover to the
	// dual write (the radar names it once its offset is written).
	waitApp(t, f.tm, "the dual write", func(a *App) bool {
		for _, tb := range a.tabs {
			if r, ok := tb.screen.(*migration.Model); ok {
				return r.Status().Phase == cluster.PhaseDualWrite
			}
		}
		return false
	})
	fm := final(t, f.tm)
	if !stageIs("preview")(fm) {
		t.Errorf("stage %q, want the preview (no confirmation for a refused write)", wizard(fm).Stage())
	}
	out := strings.Join(strings.Fields(ansi.Strip(fm.View().Content)), " ")
	for _, want := range []string{"Not written: KRaft controller 3000 (epoch 1) owns this cluster's metadata",
		"a write through ZooKeeper would be lost or undone", "use Kafka's tools with --bootstrap-server"} {
		if !strings.Contains(out, want) {
			t.Errorf("the wizard does not say %q:\n%s", want, ansi.Strip(fm.View().Content))
		}
	}
	if ok, _, _ := f.conn.Exists(cluster.TopicPath("payments")); ok {
		t.Error("the topic was written")
	}
	var radar *migration.Model
	for _, tb := range fm.tabs {
		if r, ok := tb.screen.(*migration.Model); ok {
			radar = r
		}
	}
	if radar == nil || radar.Status().Phase != cluster.PhaseDualWrite {
		t.Errorf("the radar tab: %+v", radar)
	}
}

// TestFlowCreateWarnedWhilePrepared: while a migration is prepared (the
// KRaft controllers wait for the brokers; a ZooKeeper controller still
// holds /controller) the confirmation shows the guard's warning, and y
// writes: the operator read it.
func TestFlowCreateWarnedWhilePrepared(t *testing.T) {
	f := startCreate(t, 200, 50, 0, ModeLive, nil)
	if _, err := f.sb.Migrate(""); err != nil {
		t.Fatal(err)
	}
	waitApp(t, f.tm, "/migration", func(a *App) bool {
		return clusterops.SnapshotVerdict(a.Snapshot()).Level == cluster.WriteWarn
	})
	f.fillForm(t, "payments")
	waitApp(t, f.tm, "the form's warning", func(a *App) bool {
		out := strings.Join(strings.Fields(ansi.Strip(a.View().Content)), " ")
		return strings.Contains(out, "⚠ a ZooKeeper to KRaft migration is being prepared") && strings.Contains(out, "(the confirmation asks first)")
	})
	send(f.tm, "enter")
	waitApp(t, f.tm, "the preview", stageIs("preview"))
	send(f.tm, "enter")
	waitApp(t, f.tm, "the warning in the confirmation", func(a *App) bool {
		out := strings.Join(strings.Fields(ansi.Strip(a.View().Content)), " ")
		return stageIs("confirm")(a) && strings.Contains(out, "migration")
	})
	send(f.tm, "y")
	waitApp(t, f.tm, "the topic online", stageIs("done"))
	final(t, f.tm)
	if ok, _, _ := f.conn.Exists(cluster.TopicPath("payments")); !ok {
		t.Error("the confirmed write did not reach ZooKeeper")
	}
}
