package ui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/ui/screens/migration"
)

// TestFlowCreateRefusedUnderKRaft: on a sandbox whose simulated KRaft
// controller has taken the cluster over, the creation wizard's write is
// refused by the migration guard, and the wizard says why and what to use
// instead, nothing written; the radar tab names the phase.
func TestFlowCreateRefusedUnderKRaft(t *testing.T) {
	f := startCreate(t, 200, 50, 0, ModeLive, nil)
	for range 2 {
		if _, err := f.sb.Migrate(""); err != nil {
			t.Fatal(err)
		}
	}
	waitApp(t, f.tm, "the takeover", func(a *App) bool {
		_, _, ok := a.Snapshot().KRaftController()
		return ok
	})
	f.fillForm(t, "payments")
	send(f.tm, "enter")
	waitApp(t, f.tm, "the preview", stageIs("preview"))
	send(f.tm, "enter")
	waitApp(t, f.tm, "the confirmation", stageIs("confirm"))
	send(f.tm, "y")
	waitApp(t, f.tm, "the refusal", stageIs("failed"))
	fm := final(t, f.tm)
	out := strings.Join(strings.Fields(ansi.Strip(fm.View().Content)), " ")
	for _, want := range []string{"write through ZooKeeper refused: KRaft controller 3000 (epoch 1) owns this cluster's metadata",
		"use Kafka's tools with --bootstrap-server"} {
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
