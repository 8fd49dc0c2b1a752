package ui

import (
	"github.com/ktopo/ktopo/clusterwatch"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/ktopo/ktopo/internal/testkit/fixture"
)

// TestBannerStates: the banner in each state the mirror reports, and the
// time it says the data is as of: when the server last spoke, not when
// the last batch came (an idle cluster sends none for minutes).
func TestBannerStates(t *testing.T) {
	clock := t0
	src := newSource()
	a := New(Config{Source: src, Connect: "zk1:2181,zk2:2181/kafka", Mode: ModeLive,
		Now: func() time.Time { return clock }, Location: time.UTC})
	a.update(tea.WindowSizeMsg{Width: 120, Height: 24})
	load(a, fixture.Small())
	if s := screen(a); strings.Contains(s, "⚠") {
		t.Fatalf("loaded and connected: no banner\n%s", s)
	}
	step := func(d time.Duration, heardAgo time.Duration, states ...clusterwatch.State) string {
		t.Helper()
		clock = clock.Add(d)
		src.mu.Lock()
		src.heard = clock.Add(-heardAgo)
		src.mu.Unlock()
		run(a, batchMsg{States: states})
		return screen(a)
	}
	// Ten quiet minutes, then the server stops answering.
	s := step(10*time.Minute, 3*time.Second, clusterwatch.StateUnresponsive)
	if !strings.Contains(s, "ZooKeeper is not answering — waiting; the data shown is as of 03:14:02 and may be stale") {
		t.Fatalf("unresponsive:\n%s", s)
	}
	if !strings.Contains(s, "unresponsive ·") {
		t.Fatalf("status bar:\n%s", s)
	}
	// It answers again: live, no banner.
	if s := step(time.Second, 0, clusterwatch.StateConnected); strings.Contains(s, "⚠") {
		t.Fatalf("answering again:\n%s", s)
	}
	// The connection is lost after a minute: as of when the server last
	// answered a ping.
	s = step(time.Minute, 4*time.Second, clusterwatch.StateDisconnected, clusterwatch.StateConnecting)
	if !strings.Contains(s, "Disconnected from ZooKeeper — reconnecting; the data shown is as of 03:15:02 and may be stale") {
		t.Fatalf("disconnected:\n%s", s)
	}
	// Reconnected with the session: live again.
	if s := step(time.Second, 0, clusterwatch.StateConnected); strings.Contains(s, "⚠") {
		t.Fatalf("reconnected:\n%s", s)
	}
	// Lost again, then expired: resyncing, still as of the loss, even
	// while the new session's server answers.
	step(time.Minute, time.Second, clusterwatch.StateDisconnected)
	s = step(30*time.Second, 0, clusterwatch.StateSessionLost, clusterwatch.StateConnected)
	if !strings.Contains(s, "ZooKeeper session expired — resyncing; the data shown is as of 03:16:06 and may be stale") {
		t.Fatalf("expired:\n%s", s)
	}
	run(a, mirrorBatch(fixture.Small().Batches()[0]))
	if s := screen(a); strings.Contains(s, "⚠") {
		t.Fatalf("resynced:\n%s", s)
	}
}
