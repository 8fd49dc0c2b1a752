package topics

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/internal/testkit/fixture"
	"github.com/ktopo/ktopo/ui/anim"
	"github.com/ktopo/ktopo/ui/keys"
	"github.com/ktopo/ktopo/ui/nav"
	"github.com/ktopo/ktopo/ui/theme"
)

func newScreen(snap *cluster.Snapshot, w, h int) *Model {
	m := New(theme.New(true), keys.Default(), anim.NewSet(theme.FlashSteps))
	m.SetSize(w, h)
	m.SetSnapshot(snap)
	return m
}

func TestView(t *testing.T) {
	for _, sz := range [][2]int{{80, 24}, {200, 60}} {
		for _, tc := range []struct {
			name string
			keys []string
		}{
			{"initial", nil},
			{"sorted-by-urp", []string{"s", "s"}},
			{"filtered", []string{"/", "o", "r", "enter"}},
			{"regex", []string{"/", "~", "^(c|p)", "enter"}},
			{"typing", []string{"/", "a"}},
		} {
			t.Run(fmt.Sprintf("%dx%d/%s", sz[0], sz[1], tc.name), func(t *testing.T) {
				m := newScreen(fixture.Small().Model().Snapshot(), sz[0], sz[1])
				fixture.Press(m, tc.keys...)
				golden.RequireEqual(t, ansi.Strip(m.View()))
			})
		}
	}
}

func TestFilterSortOpen(t *testing.T) {
	m := newScreen(fixture.Small().Model().Snapshot(), 80, 24)
	want := []string{"__consumer_offsets", "audit-log", "clicks", "legacy", "orders", "payments"}
	if got := m.Rows(); !slices.Equal(got, want) {
		t.Fatalf("rows %v", got)
	}
	fixture.Press(m, "/", "P", "A", "Y")
	if !m.Capturing() {
		t.Fatal("the filter field should capture keys while typing")
	}
	if got := m.Rows(); !slices.Equal(got, []string{"payments"}) {
		t.Fatalf("case-insensitive substring: %v", got)
	}
	fixture.Press(m, "enter")
	if m.Capturing() {
		t.Fatal("enter leaves the field")
	}
	if msgs := fixture.Press(m, "enter"); len(msgs) != 1 || msgs[0] != (nav.OpenTopic{Topic: "payments", Partition: -1}) {
		t.Fatalf("enter opens: %v", msgs)
	}
	if !m.Back() || len(m.Rows()) != 6 {
		t.Fatal("esc clears the filter")
	}
	fixture.Press(m, "/", "~", "[", "enter")
	if m.filter.Err() == "" || !strings.Contains(m.filter.Err(), "regular expression") {
		t.Fatalf("bad regex error: %q", m.filter.Err())
	}
	m.Back()
	// s cycles: partitions, under-replicated, offline, under min ISR, name.
	fixture.Press(m, "s")
	if m.Sort() != ByPartitions || m.Rows()[0] != "clicks" {
		t.Fatalf("by partitions: %v %v", m.Sort(), m.Rows())
	}
	fixture.Press(m, "s", "s")
	if m.Sort() != ByOffline || m.Rows()[0] != "audit-log" {
		t.Fatalf("by offline: %v", m.Rows())
	}
	fixture.Press(m, "s", "s")
	if m.Sort() != ByName {
		t.Fatalf("cycle back to name: %v", m.Sort())
	}
}

func TestCursorFollowsTopicAcrossSnapshots(t *testing.T) {
	spec := fixture.Small()
	m := newScreen(spec.Model().Snapshot(), 80, 24)
	fixture.Press(m, "down", "down") // clicks
	spec.Topics = append(spec.Topics, fixture.Topic{Name: "a-new-one", Partitions: 1, RF: 1})
	m.SetSnapshot(spec.Model().Snapshot())
	if tp, _ := m.Selected(); tp.Name != "clicks" {
		t.Fatalf("cursor on %s after a topic was added above", tp.Name)
	}
}

func TestRenderCalls(t *testing.T) {
	for _, n := range []int{100, 10_000, 100_000} {
		if testing.Short() && n > 10_000 {
			continue
		}
		m := newScreen(fixture.Sized(n).Model().Snapshot(), 80, 24)
		calls := 0
		real := m.renderRow
		m.renderRow = func(t *cluster.Topic, sel bool) string { calls++; return real(t, sel) }
		fixture.Press(m, "pgdown", "j")
		m.View()
		if calls > 24+2 {
			t.Fatalf("partitions=%d: %d row renders for 24 lines", n, calls)
		}
	}
}

func BenchmarkView(b *testing.B) {
	for _, n := range []int{100, 10_000, 100_000} {
		snap := fixture.Sized(n).Model().Snapshot()
		for _, sz := range [][2]int{{200, 60}, {80, 24}} {
			b.Run(fmt.Sprintf("topics/%dx%d/partitions=%d", sz[0], sz[1], n), func(b *testing.B) {
				m := newScreen(snap, sz[0], sz[1])
				fixture.Press(m, "pgdown")
				b.ReportAllocs()
				for b.Loop() {
					_ = m.View()
				}
			})
		}
	}
}
