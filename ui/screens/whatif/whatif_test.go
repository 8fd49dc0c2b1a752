package whatif

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/clusterwatch/zksource"
	"github.com/ktopo/ktopo/internal/testkit/fixture"
	"github.com/ktopo/ktopo/internal/text"
	"github.com/ktopo/ktopo/ui/keys"
	"github.com/ktopo/ktopo/ui/nav"
	"github.com/ktopo/ktopo/ui/theme"
	"github.com/ktopo/ktopo/zkwatch"
)

func newScreen(model *cluster.Model, brokers []int, rack string, w, h int) *Model {
	km := keys.Default()
	km.SetSandbox(true)
	m := New(theme.New(true), km, brokers, rack)
	m.SetSize(w, h)
	m.SetSnapshot(model.Snapshot())
	return m
}

// fail applies to model the failure m predicts, as the controller would
// write it; skip leaves one partition's writes out.
func fail(model *cluster.Model, m *Model, skip string) {
	b := fixture.Failed(m.Impact(), 5000, 1_700_000_100_000)
	if skip != "" {
		kept := b.Events[:0]
		for _, e := range b.Events {
			if !strings.Contains(e.Path, skip) {
				kept = append(kept, e)
			}
		}
		b.Events = kept
	}
	model.Apply(zksource.NodeEvents(b), false)
	m.SetSnapshot(model.Snapshot())
}

func TestView(t *testing.T) {
	for _, sz := range [][2]int{{80, 24}, {200, 60}} {
		for _, tc := range []struct {
			name    string
			brokers []int
			rack    string
			keys    []string
			after   func(*cluster.Model, *Model)
		}{
			{"broker", []int{2}, "", nil, nil},
			{"rack", []int{1, 4}, "rack-a", nil, nil},
			{"worst", []int{1, 4}, "rack-a", []string{"u"}, nil},
			{"scrolled", []int{1, 4}, "rack-a", []string{"pgdown", "down"}, nil},
			{"down-already", []int{6}, "", nil, nil},
			{"verified", []int{2}, "", nil, func(md *cluster.Model, m *Model) { fail(md, m, "") }},
			{"verifying", []int{2}, "", nil, func(md *cluster.Model, m *Model) { fail(md, m, "/clicks/partitions/1/") }},
		} {
			t.Run(fmt.Sprintf("%dx%d/%s", sz[0], sz[1], tc.name), func(t *testing.T) {
				model := fixture.Small().Model()
				m := newScreen(model, tc.brokers, tc.rack, sz[0], sz[1])
				if tc.after != nil {
					tc.after(model, m)
				}
				fixture.Press(m, tc.keys...)
				golden.RequireEqual(t, ansi.Strip(m.View()))
			})
		}
	}
}

// TestAlreadyVersusNewly: a partition under its min ISR now is not
// blamed on the failure: the counts are of what the failure causes, the
// note counts the others, and their rows say "already".
func TestAlreadyVersusNewly(t *testing.T) {
	m := newScreen(fixture.Small().Model(), []int{2}, "", 200, 40)
	c := m.Impact().Counts
	if c.UnderMinISR != 3 || c.NewlyUnderMinISR != 2 {
		t.Fatalf("under min ISR %d, newly %d", c.UnderMinISR, c.NewlyUnderMinISR)
	}
	v := ansi.Strip(m.View())
	for _, want := range []string{
		"0 newly offline · 2 newly under min ISR ·",
		"Already now, not counted above: 1 under min ISR.",
		"NOW     ISR", "AFTER   ISR",
	} {
		if !strings.Contains(v, want) {
			t.Errorf("no %q in\n%s", want, v)
		}
	}
	rows := map[string]string{}
	for _, l := range strings.Split(v, "\n") {
		if f := strings.Fields(l); len(f) > 0 && strings.HasPrefix(f[0], "payments-") {
			rows[f[0]] = l
		}
	}
	if !strings.HasSuffix(strings.TrimSpace(rows["payments-0"]), "already under min ISR") {
		t.Errorf("payments-0 is under min ISR now: %q", rows["payments-0"])
	}
	if r := rows["payments-1"]; strings.Contains(r, "already") || !strings.Contains(r, "under min ISR") {
		t.Errorf("payments-1 goes under min ISR with broker 2: %q", r)
	}
}

// TestVerify: the prediction is held once the broker is down and set
// against what the controller did; the broker's return starts predicting
// again.
func TestVerify(t *testing.T) {
	model := fixture.Small().Model()
	m := newScreen(model, []int{2}, "", 120, 40)
	pred := m.Impact()
	if m.Verifying() || pred.Counts.Partitions == 0 || len(pred.Live) != 1 {
		t.Fatalf("before: verifying %t, %+v", m.Verifying(), pred.Counts)
	}
	fail(model, m, "/clicks/partitions/1/")
	if !m.Verifying() || m.Impact() != pred {
		t.Fatal("the broker is down: the held prediction is shown")
	}
	if m.Matched() != pred.Counts.Partitions-1 {
		t.Fatalf("matched %d of %d (one partition's write held back)", m.Matched(), pred.Counts.Partitions)
	}
	if v := ansi.Strip(m.View()); !strings.Contains(v, "≠") || !strings.Contains(v, "as predicted") {
		t.Fatalf("the mismatch is not marked:\n%s", v)
	}
	// The controller catches up: all as predicted.
	f := pred.Partition("clicks", 1)
	model.Apply(zksource.NodeEvents(zkwatch.Batch{Events: []zkwatch.Event{fixture.StateEvent("clicks", 1, f.State(), 6000, 1)}}), false)
	m.SetSnapshot(model.Snapshot())
	if m.Matched() != pred.Counts.Partitions || !strings.Contains(ansi.Strip(m.View()), "✓ As predicted") {
		t.Fatalf("matched %d of %d:\n%s", m.Matched(), pred.Counts.Partitions, ansi.Strip(m.View()))
	}
	// The broker returns: a new prediction, on the cluster as it is now.
	for _, e := range fixture.Small().Events() {
		if e.Path == cluster.BrokerIDPath(2) {
			model.Apply(zksource.NodeEvents(zkwatch.Batch{Events: []zkwatch.Event{e}}), false)
		}
	}
	m.SetSnapshot(model.Snapshot())
	if m.Verifying() || m.Impact() == pred || len(m.Impact().Live) != 1 {
		t.Fatalf("after the return: verifying %t", m.Verifying())
	}
}

func TestKeys(t *testing.T) {
	model := fixture.Small().Model()
	m := newScreen(model, []int{1, 4}, "rack-a", 120, 40)
	if got := fixture.Press(m, "x"); len(got) != 1 || fmt.Sprint(got[0]) != fmt.Sprint(nav.ToggleBrokers{Brokers: []int{1, 4}}) {
		t.Fatalf("x on a rack: %v", got)
	}
	r := fixture.Press(m, "down", "enter")
	if len(r) != 1 {
		t.Fatalf("enter: %v", r)
	}
	open, ok := r[0].(nav.OpenTopic)
	if !ok || open.Partition < 0 || m.Impact().Partition(open.Topic, open.Partition) == nil {
		t.Fatalf("enter opens the partition under the cursor: %+v", r[0])
	}
	all := m.win.N
	fixture.Press(m, "u")
	if m.win.N >= all {
		t.Fatalf("u keeps %d of %d rows", m.win.N, all)
	}
	m2 := newScreen(model, []int{2}, "", 120, 40)
	if got := fixture.Press(m2, "x"); len(got) != 1 || got[0] != (nav.ToggleBroker{Broker: 2}) {
		t.Fatalf("x on a broker: %v", got)
	}
	// Outside the sandbox x does nothing.
	m3 := New(theme.New(true), keys.Default(), []int{2}, "")
	m3.SetSize(80, 24)
	m3.SetSnapshot(model.Snapshot())
	if got := fixture.Press(m3, "x"); len(got) != 0 {
		t.Fatalf("x outside the sandbox: %v", got)
	}
}

// TestRenderCalls: View renders only the visible rows, however many
// partitions the broker holds.
func TestRenderCalls(t *testing.T) {
	for _, n := range []int{100, 10_000} {
		m := newScreen(fixture.Sized(n).Model(), []int{1}, "", 80, 24)
		calls := 0
		real := m.renderRow
		m.renderRow = func(r row, sel bool) string { calls++; return real(r, sel) }
		m.View()
		if calls > 24 {
			t.Fatalf("%d partitions: %d row renders for 24 lines", n, calls)
		}
	}
}

func BenchmarkView(b *testing.B) {
	for _, n := range []int{100, 10_000, 100_000} {
		model := fixture.Sized(n).Model()
		for _, sz := range [][2]int{{200, 60}, {80, 24}} {
			b.Run(fmt.Sprintf("whatif/%dx%d/partitions=%d", sz[0], sz[1], n), func(b *testing.B) {
				if testing.Short() && n > 10_000 {
					b.Skip("large fixture skipped under -short")
				}
				m := New(theme.New(true), keys.Default(), []int{1}, "")
				m.SetSize(sz[0], sz[1])
				m.SetSnapshot(model.Snapshot())
				fixture.Press(m, "pgdown")
				b.ReportAllocs()
				for b.Loop() {
					_ = m.View()
				}
			})
		}
	}
}

// kraftModel is the small fixture as a KRaft cluster (ELR on unless
// elrOff), and its KRaft facts.
func kraftModel(elrOff bool) (*cluster.Model, *cluster.KRaft) {
	spec, k := fixture.SmallKRaft()
	if elrOff {
		k.Features = []cluster.Feature{{Name: cluster.FeatureMetadataVersion, Level: 33}}
	}
	model := spec.Model()
	model.SetKRaft(k)
	return model, k
}

// fence applies to model what the KRaft controller writes when it fences
// ids (as the what-if predicts it, one outcome), the brokers marked fenced
// in the KRaft facts k; it returns the new facts.
func fence(model *cluster.Model, k *cluster.KRaft, zxid int64, ids ...int) *cluster.KRaft {
	fi := cluster.PredictFailure(model.Snapshot(), ids...)
	model.Apply(zksource.NodeEvents(fixture.Failed(fi, zxid, 1_700_000_100_000)), false)
	var elr []cluster.PartitionELR
	for _, tf := range fi.Topics {
		for _, f := range tf.Partitions {
			elr = append(elr, cluster.PartitionELR{Topic: tf.Topic.Name, Partition: f.Partition.ID, ELR: f.ELR(), LastKnownELR: f.LastKnownELR()})
		}
	}
	model.ApplyELR(elr)
	nk := *k
	nk.Brokers = slices.Clone(k.Brokers)
	for i := range nk.Brokers {
		if slices.Contains(ids, nk.Brokers[i].ID) {
			nk.Brokers[i].Fenced = true
		}
	}
	model.SetKRaft(&nk)
	return &nk
}

// TestKRaftView: the what-if of a KRaft cluster in the KRaft controller's
// words: fencing, the eligible leader replicas, whom a partition without
// leader waits for, the fencing order where it decides.
func TestKRaftView(t *testing.T) {
	for _, sz := range [][2]int{{80, 24}, {200, 60}} {
		for _, tc := range []struct {
			name    string
			elrOff  bool
			brokers []int
			rack    string
			keys    []string
		}{
			{"broker", false, []int{2}, "", []string{"u"}},
			{"rack", false, []int{1, 4}, "rack-a", []string{"u"}},
			{"rack-elr-off", true, []int{1, 4}, "rack-a", []string{"u"}},
		} {
			t.Run(fmt.Sprintf("%dx%d/%s", sz[0], sz[1], tc.name), func(t *testing.T) {
				model, _ := kraftModel(tc.elrOff)
				m := newScreen(model, tc.brokers, tc.rack, sz[0], sz[1])
				fixture.Press(m, tc.keys...)
				golden.RequireEqual(t, ansi.Strip(m.View()))
			})
		}
	}
}

// TestKRaftHeldAcrossFencing: a KRaft controller fences a rack's brokers
// one by one, a poll or more apart; the prediction held is the one made
// before the first was fenced (WAS is the state before the failure), and
// once both are fenced, in that order, the cluster is in one of the
// states it predicted for every partition.
func TestKRaftHeldAcrossFencing(t *testing.T) {
	model, k := kraftModel(false)
	m := newScreen(model, []int{1, 4}, "rack-a", 200, 60)
	pred := m.Impact()
	if m.Verifying() || !pred.KRaft || len(pred.Live) != 2 {
		t.Fatalf("before: verifying %t, %+v", m.Verifying(), pred)
	}
	was := pred.Partition("orders", 0).Partition
	k = fence(model, k, 5000, 1)
	m.SetSnapshot(model.Snapshot())
	v := ansi.Strip(m.View())
	if !m.Verifying() || m.Impact() != pred || !strings.Contains(v, "rack-a: 1 fenced, 4 not fenced yet: the prediction against what happened so far") {
		t.Fatalf("broker 1 fenced: the prediction before the failure is held:\n%s", v)
	}
	row := func(v, name string) string {
		for _, l := range strings.Split(v, "\n") {
			if f := strings.Fields(l); len(f) > 0 && f[0] == name {
				return l
			}
		}
		return ""
	}
	if r := strings.Fields(row(v, "orders-0")); len(r) < 3 || r[1] != fmt.Sprint(was.Leader) || r[2] != text.Ints(was.ISR) {
		t.Fatalf("WAS of orders-0 is not its state before (leader %d, ISR %v): %q", was.Leader, was.ISR, r)
	}
	fence(model, k, 6000, 4)
	m.SetSnapshot(model.Snapshot())
	if !m.Verifying() || m.Impact() != pred || m.Matched() != pred.Counts.Partitions {
		t.Fatalf("both fenced: matched %d of %d:\n%s", m.Matched(), pred.Counts.Partitions, ansi.Strip(m.View()))
	}
	if v := ansi.Strip(m.View()); !strings.Contains(v, "rack-a is fenced: the prediction against what happened") || !strings.Contains(v, "✓ As predicted") {
		t.Fatalf("both fenced:\n%s", v)
	}
}
