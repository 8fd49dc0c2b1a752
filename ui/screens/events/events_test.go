package events

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/internal/testkit/fixture"
	"github.com/ktopo/ktopo/ui/keys"
	"github.com/ktopo/ktopo/ui/nav"
	"github.com/ktopo/ktopo/ui/theme"
)

var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC).UnixMilli()

func sample() []cluster.Change {
	return []cluster.Change{
		{Kind: cluster.ChangeBrokerGone, Broker: 3},
		{Kind: cluster.ChangeLeaderMoved, Topic: "orders", Partition: 2, From: 3, To: 4, Epoch: 7, Time: t0 + 10},
		{Kind: cluster.ChangeIsrShrank, Topic: "orders", Partition: 2, Removed: []int{3}, ISR: []int{4, 5}, Epoch: 7, Time: t0 + 10},
		{Kind: cluster.ChangeLeaderMoved, Topic: "clicks", Partition: 0, From: 3, To: -1, Epoch: 2, Time: t0 + 11},
		{Kind: cluster.ChangeLeaderMoved, Topic: "__consumer_offsets", Partition: 12, From: 3, To: 5, Epoch: 4, Time: t0 + 12},
		{Kind: cluster.ChangeControllerMoved, From: 3, To: 1, Epoch: 8, Time: t0 + 20},
		{Kind: cluster.ChangeBrokerRegistered, Broker: 3, Rack: "rack-c", Time: t0 + 5000},
		{Kind: cluster.ChangeIsrExpanded, Topic: "orders", Partition: 2, Added: []int{3}, ISR: []int{4, 5, 3}, Epoch: 7, Time: t0 + 6000},
		{Kind: cluster.ChangeTopicCreated, Topic: "new-topic", PartitionCount: 3, ReplicationFactor: 2, Time: t0 + 7000},
		{Kind: cluster.ChangeConfigChanged, Topic: "orders", Keys: []string{"retention.ms"}, Time: t0 + 8000},
		{Kind: cluster.ChangeTopicDeleted, Topic: "legacy"},
	}
}

// newScreen holds the sample, each change arriving 30 ms after its
// znode's mtime (a change without one with the one before it).
func newScreen(w, h int) *Model {
	m := New(theme.New(true), keys.Default(), time.UTC)
	m.SetSize(w, h)
	at := t0
	for _, c := range sample() {
		at = max(at, c.Time+30)
		m.Append([]cluster.Change{c}, at)
	}
	return m
}

// TestOneClock: every row is stamped with when ktopo saw it, so that the
// times read in the rows' order. A deleted znode has no mtime: stamped
// with the arrival while the controller's reaction carried its ZooKeeper
// time, the broker read as leaving after the controller moved.
func TestOneClock(t *testing.T) {
	m := New(theme.New(true), keys.Default(), time.UTC)
	m.SetSize(100, 10)
	m.Append([]cluster.Change{
		{Kind: cluster.ChangeBrokerGone, Broker: 3},
		{Kind: cluster.ChangeControllerMoved, From: 3, To: 2, Epoch: 2, Time: t0 - 37},
		{Kind: cluster.ChangeLeaderMoved, Topic: "orders", Partition: 0, From: 3, To: -1, Epoch: 2, Time: t0 + 97},
	}, t0+100)
	var last int64
	for i := range m.Len() {
		if e := m.Entry(i); e.Time != t0+100 || e.Time < last {
			t.Errorf("row %d (%s) stamped %d, want the arrival %d", i, Words(e.Change.Kind), e.Time-t0, 100)
		}
	}
	v := ansi.Strip(m.View())
	if !strings.Contains(v, "SEEN AT") || strings.Count(v, "03:04:05.100") != 3 {
		t.Errorf("the rows do not say which clock, or not one:\n%s", v)
	}
}

func TestView(t *testing.T) {
	for _, sz := range [][2]int{{80, 24}, {200, 60}} {
		for _, tc := range []struct {
			name string
			keys []string
		}{
			{"follow", nil},
			{"leaders", []string{"K"}},
			{"isr", []string{"K", "K"}},
			{"topic-filter", []string{"/", "o", "r", "d", "enter"}},
			{"paused", []string{"up", "up"}},
		} {
			t.Run(fmt.Sprintf("%dx%d/%s", sz[0], sz[1], tc.name), func(t *testing.T) {
				m := newScreen(sz[0], sz[1])
				fixture.Press(m, tc.keys...)
				golden.RequireEqual(t, ansi.Strip(m.View()))
			})
		}
	}
	t.Run("empty", func(t *testing.T) {
		m := New(theme.New(true), keys.Default(), time.UTC)
		m.SetSize(80, 24)
		golden.RequireEqual(t, ansi.Strip(m.View()))
	})
}

// TestLongWhereKeepsGap: a place too long for its column is cut short of
// the column's last cell, so that the details do not run into it
// ("__consumer_offsets-22 → 6" read as partition 22), and in its topic,
// never its partition number ("__consumer_offset…" hid it).
func TestLongWhereKeepsGap(t *testing.T) {
	m := New(theme.New(true), keys.Default(), time.UTC)
	m.SetSize(100, 10)
	m.Append([]cluster.Change{
		{Kind: cluster.ChangeLeaderMoved, Topic: "__consumer_offsets", Partition: 2, From: 2, To: 6, Epoch: 1, Time: t0},
		{Kind: cluster.ChangeLeaderMoved, Topic: "__consumer_offsets", Partition: 22, From: 2, To: 6, Epoch: 1, Time: t0},
	}, t0)
	v := ansi.Strip(m.View())
	if !strings.Contains(v, "__consumer_offse…-2 2 → 6") || !strings.Contains(v, "__consumer_offs…-22 2 → 6") {
		t.Errorf("the places are not cut in their topic, short of their details:\n%s", v)
	}
}

func TestFollowAndFilters(t *testing.T) {
	m := newScreen(80, 8) // 6 rows visible of 10
	if !m.Following() || m.win.Cursor != 10 {
		t.Fatalf("opens following the newest: cursor %d", m.win.Cursor)
	}
	fixture.Press(m, "k")
	if m.Following() {
		t.Fatal("moving up pauses")
	}
	m.Append(sample()[:1], t0)
	if m.win.Cursor != 9 {
		t.Fatalf("paused: the cursor stays (at %d)", m.win.Cursor)
	}
	fixture.Press(m, "G")
	if !m.Following() {
		t.Fatal("the last row resumes following")
	}
	fixture.Press(m, "K", "K") // ISR changes
	if m.Len() != 2 {
		t.Fatalf("ISR filter: %d rows", m.Len())
	}
	m.Append([]cluster.Change{{Kind: cluster.ChangeIsrShrank, Topic: "x", Partition: 1, Removed: []int{1}, ISR: []int{2}}}, t0)
	if m.Len() != 3 {
		t.Fatalf("an arriving ISR change joins the filtered rows: %d", m.Len())
	}
	fixture.Press(m, "/", "~", "^x$", "enter")
	if m.Len() != 1 {
		t.Fatalf("ISR changes of x: %d", m.Len())
	}
	if msgs := fixture.Press(m, "enter"); len(msgs) != 1 || msgs[0] != (nav.OpenTopic{Topic: "x", Partition: 1}) {
		t.Fatalf("enter: %v", msgs)
	}
	if !m.Back() || m.Len() != 13 {
		t.Fatalf("esc clears both filters: %d rows", m.Len())
	}
}

func TestCapacity(t *testing.T) {
	m := New(theme.New(true), keys.Default(), time.UTC)
	m.SetCapacity(100)
	m.SetSize(80, 24)
	m.SetGroup(Leaders)
	for i := 0; i < 1000; i++ {
		m.Append([]cluster.Change{{Kind: cluster.ChangeLeaderMoved, Topic: "t", Partition: i, From: 1, To: 2}}, t0)
	}
	if len(m.all) > 100 || m.Len() > 100 || m.Len() < 75 {
		t.Fatalf("kept %d, shown %d", len(m.all), m.Len())
	}
	if e := m.Entry(m.Len() - 1); e.Change.Partition != 999 {
		t.Fatalf("newest kept is %d", e.Change.Partition)
	}
}

func TestRenderCalls(t *testing.T) {
	for _, n := range []int{100, 10_000, 100_000} {
		if testing.Short() && n > 10_000 {
			continue
		}
		m := New(theme.New(true), keys.Default(), time.UTC)
		m.SetCapacity(n)
		m.SetSize(80, 24)
		m.Append(many(n), t0)
		calls := 0
		real := m.renderRow
		m.renderRow = func(e *Entry, sel bool) string { calls++; return real(e, sel) }
		m.View()
		if calls > 24+2 {
			t.Fatalf("%d events: %d row renders", n, calls)
		}
	}
}

func many(n int) []cluster.Change {
	cs := make([]cluster.Change, n)
	for i := range cs {
		cs[i] = cluster.Change{Kind: cluster.ChangeLeaderMoved, Topic: "big", Partition: i, From: i % 6, To: (i + 1) % 6, Epoch: i, Time: t0 + int64(i)}
	}
	return cs
}

func BenchmarkView(b *testing.B) {
	for _, n := range []int{100, 10_000, 100_000} {
		cs := many(n)
		for _, sz := range [][2]int{{200, 60}, {80, 24}} {
			b.Run(fmt.Sprintf("events/%dx%d/partitions=%d", sz[0], sz[1], n), func(b *testing.B) {
				m := New(theme.New(true), keys.Default(), time.UTC)
				m.SetCapacity(n)
				m.SetSize(sz[0], sz[1])
				m.Append(cs, t0)
				b.ReportAllocs()
				for b.Loop() {
					_ = m.View()
				}
			})
		}
	}
}

// TestFilterLineFits: the title line while typing a filter ends with what
// is typed, not with the field's padding cut to a stray "…", and says at
// once why a regular expression does not compile.
func TestFilterLineFits(t *testing.T) {
	for _, w := range []int{80, 120, 200} {
		m := newScreen(w, 10)
		fixture.Press(m, "/", "~", "(")
		title := strings.Split(ansi.Strip(m.View()), "\n")[0]
		want := "/~(   bad regular expression: missing closing ): `(`"
		if w == 80 {
			want = "/~(   bad regular expression" // the rest is cut at 80 columns
		} else if strings.Contains(title, "…") {
			t.Errorf("%d columns: a stray …: %q", w, title)
		}
		if !strings.Contains(title, want) {
			t.Errorf("%d columns: %q", w, title)
		}
	}
}

// TestEveryKindHasAView: each change kind the model makes has its words,
// its group and its ink here (a new kind would land nowhere).
func TestEveryKindHasAView(t *testing.T) {
	for _, k := range cluster.ChangeKinds() {
		v, ok := kinds[k]
		if !ok || v.words == "" || v.ink == nil {
			t.Errorf("%s: no view", k)
		}
	}
	if len(kinds) != len(cluster.ChangeKinds()) {
		t.Errorf("%d views for %d kinds", len(kinds), len(cluster.ChangeKinds()))
	}
}
