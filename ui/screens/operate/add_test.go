package operate

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/ktopo/ktopo/clusterops"
	"github.com/ktopo/ktopo/internal/testkit/fixture"
	"github.com/ktopo/ktopo/ui/nav"
)

// TestAddPartitionsReseed: on a KRaft cluster, when the controller's
// placer spreads the new partitions unevenly for the seed drawn, the
// preview says so and names the seed that spreads them better; r takes
// it (the plan is made again with it, and the warning goes); with no
// better seed named, r draws another.
func TestAddPartitionsReseed(t *testing.T) {
	sp := fixture.Spec{ClusterID: "c", Brokers: 4, Racks: 2, Controller: 3000, ControllerEpoch: 1, Time: 1,
		Topics: []fixture.Topic{{Name: "orders", Partitions: 12, RF: 3}}}
	model := sp.Model()
	model.SetKRaft(fixture.KRaftFacts(sp))
	e := newAnyEnvModel(t, model, nav.Operation{Kind: nav.OpAddPartitions, Topic: "orders"}, 200, 60)
	a := e.add()
	// A seed the placer spreads unevenly.
	for seed := range int64(100) {
		a.seed = seed
		a.replan()
		if a.better != nil {
			break
		}
	}
	if a.better == nil {
		t.Fatal("no seed of 100 spreads 12 new partitions unevenly: the test proves nothing")
	}
	b := *a.better
	want := "not spread evenly (" + b.Now.String() + "): seed " + fmt.Sprint(b.Seed) + " spreads them better (" + b.Better.String() + "): r takes it"
	if out := strings.Join(strings.Fields(ansi.Strip(e.m.View())), " "); !strings.Contains(out, want) {
		t.Fatalf("no %q in\n%s", want, ansi.Strip(e.m.View()))
	}
	// At 80×24 nothing of the head or the legend is cut.
	e.m.SetSize(80, 24)
	for i, l := range strings.Split(ansi.Strip(e.m.View()), "\n") {
		if strings.Contains(l, "…") {
			t.Errorf("80×24, line %d is cut: %q", i, l)
		}
	}
	e.m.SetSize(200, 60)
	if !e.m.km.Reseed.Enabled() {
		t.Fatal("r is not enabled in the preview")
	}
	e.press("r")
	if a.seed != b.Seed || a.plan.Result.Seed != b.Seed || a.better != nil {
		t.Fatalf("r: seed %d (plan %d), better %v; want seed %d and nothing better", a.seed, a.plan.Result.Seed, a.better, b.Seed)
	}
	if got := clusterops.SpreadOf(a.plan.Brokers, a.plan.Assignment()); got != b.Better {
		t.Fatalf("seed %d places %v, not the %v promised", b.Seed, got, b.Better)
	}
	if out := ansi.Strip(e.m.View()); strings.Contains(out, "spreads them better") || !strings.Contains(out, fmt.Sprintf("seed %d)", b.Seed)) {
		t.Fatalf("after r:\n%s", out)
	}
	e.press("r")
	if a.seed == b.Seed {
		t.Fatal("r with no better seed named kept the seed")
	}
}
