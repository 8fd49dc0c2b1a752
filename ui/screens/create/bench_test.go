package create

import (
	"fmt"
	"testing"

	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/internal/testkit/fixture"
	"github.com/ktopo/ktopo/ui/theme"
)

// maxTopic is about the most partitions an RF 3 topic's znode holds
// (jute.maxbuffer).
const maxTopic = 60_000

// sized opens the preview of an n-partition RF 3 topic on the 6-broker
// cluster; above maxTopic, of a maxTopic-partition topic on a cluster
// whose other topic holds the rest.
func sized(tb testing.TB, n, w, h int) *env {
	sp := spec()
	if n > maxTopic {
		sp.Topics = append(sp.Topics, fixture.Topic{Name: "rest", Partitions: n - maxTopic, RF: 3})
		n = maxTopic
	}
	e := newSpecEnv(tb, sp, w, h)
	e.typeText("big")
	e.press("tab", "ctrl+u")
	e.typeText(fmt.Sprint(n))
	e.press("enter")
	if e.m.Stage() != "preview" {
		tb.Fatalf("stage %s: %s", e.m.Stage(), e.m.form.msg)
	}
	return e
}

// progressing creates the topic and brings half its partitions online.
func progressing(tb testing.TB, e *env) {
	e.press("enter", "y")
	plan := e.m.Plan()
	evs := topicWritten(plan, 1_800_000_000_000)
	for p := 0; p < len(plan.Assignment())/2; p++ {
		reps := plan.Assignment()[p]
		evs = append(evs, stateAt("big", p, reps[0], reps, 1_800_000_000_100))
	}
	e.apply(evs...)
}

// TestRenderCalls: the preview and the progress grid render only the rows
// on screen, whatever the partition count.
func TestRenderCalls(t *testing.T) {
	for _, n := range []int{100, 1_000, 20_000} {
		if testing.Short() && n > 1_000 {
			continue
		}
		e := sized(t, n, 80, 24)
		calls := 0
		real := e.m.pv.renderRow
		e.m.pv.renderRow = func(st *theme.Styles, i, from, to int) string { calls++; return real(st, i, from, to) }
		e.press("pgdown", "pgdown", "down")
		e.m.View()
		if calls > 24+2 || calls == 0 {
			t.Fatalf("preview, partitions=%d: %d row renders", n, calls)
		}
		progressing(t, e)
		calls = 0
		realG := e.m.tr.renderRow
		e.m.tr.renderRow = func(st *theme.Styles, r int) string { calls++; return realG(st, r) }
		e.press("pgdown")
		e.m.View()
		if calls > 24+2 || calls == 0 {
			t.Fatalf("progress, partitions=%d: %d grid rows rendered", n, calls)
		}
	}
}

// BenchmarkView: BenchmarkView/create/<W>x<H>/partitions=<N>/<stage>
// (N partitions in the cluster once created: at 100,000, a topic of
// maxTopic on a cluster holding the rest).
func BenchmarkView(b *testing.B) {
	for _, n := range []int{100, 1_000, 100_000} {
		for _, sz := range [][2]int{{200, 60}, {80, 24}} {
			for _, stage := range []string{"form", "preview", "progress"} {
				b.Run(fmt.Sprintf("create/%dx%d/partitions=%d/%s", sz[0], sz[1], n, stage), func(b *testing.B) {
					if testing.Short() && n > 1_000 {
						b.Skip("large plan skipped under -short")
					}
					var e *env
					switch stage {
					case "form":
						e = sized(b, n, sz[0], sz[1])
						e.m.Back() // esc: back to the form, filled in
					case "preview":
						e = sized(b, n, sz[0], sz[1])
						e.press("pgdown")
					case "progress":
						e = sized(b, n, sz[0], sz[1])
						progressing(b, e)
					}
					b.ReportAllocs()
					for b.Loop() {
						_ = e.m.View()
					}
				})
			}
		}
	}
}

// BenchmarkObserve is the cost of one snapshot for a creation in
// progress (the controller initialised one more partition).
func BenchmarkObserve(b *testing.B) {
	for _, n := range []int{1_000, 100_000} {
		b.Run(fmt.Sprintf("partitions=%d", n), func(b *testing.B) {
			if testing.Short() && n > 1_000 {
				b.Skip("large plan skipped under -short")
			}
			e := sized(b, n, 200, 60)
			progressing(b, e)
			plan := e.m.Plan()
			snaps := make([]*cluster.Snapshot, 0, 64)
			for p := n / 2; p < n/2+64 && p < n; p++ {
				reps := plan.Assignment()[p]
				e.model.Apply(nodeEvents(stateAt("big", p, reps[0], reps, 1_800_000_000_200)), false)
				snaps = append(snaps, e.model.Snapshot())
			}
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				e.m.fr.Stage = stageProgress
				e.m.SetSnapshot(snaps[i%len(snaps)])
				i++
			}
		})
	}
}
