package anim

import (
	"testing"
	"time"

	"github.com/ktopo/ktopo/cluster"
)

var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

func TestLifecycle(t *testing.T) {
	s := NewSet(12)
	k := Key{Topic: "t", Partition: 1, Field: FieldLeader}
	if s.Kick() != nil {
		t.Fatal("nothing animates: no tick")
	}
	s.Start(k, "1", "2", t0)
	if s.Level(k) != 0 {
		t.Fatalf("level %d", s.Level(k))
	}
	if s.Kick() == nil || !s.Ticking() {
		t.Fatal("a start needs a tick")
	}
	if s.Kick() != nil {
		t.Fatal("one chain at a time")
	}
	gen := s.gen
	if s.Step(FrameMsg{Time: t0.Add(Fade / 2), Gen: gen}) == nil {
		t.Fatal("mid-fade: keep ticking")
	}
	if l := s.Level(k); l != 6 {
		t.Fatalf("mid-fade level %d, want 6", l)
	}
	// After the fade only the delta is held: one wake-up, not frames.
	if s.Step(FrameMsg{Time: t0.Add(Fade + time.Millisecond), Gen: gen}) == nil || s.fast {
		t.Fatal("after the fade: a single wake-up")
	}
	if s.Level(k) != -1 {
		t.Fatal("faded")
	}
	if d, ok := s.Delta(k); !ok || d.Old != "1" || d.New != "2" {
		t.Fatalf("delta %+v", d)
	}
	// A new change while waiting restarts the frame chain.
	k2 := Key{Topic: "t", Partition: 2, Field: FieldISR}
	s.Start(k2, "1,2", "1", t0.Add(2*time.Second))
	if s.Kick() == nil || s.gen == gen {
		t.Fatal("a new fade starts a new chain")
	}
	if s.Step(FrameMsg{Time: t0.Add(3 * time.Second), Gen: gen}) != nil {
		t.Fatal("the superseded chain must end")
	}
	// Everything expires: the chain stops.
	if cmd := s.Step(FrameMsg{Time: t0.Add(time.Hour), Gen: s.gen}); cmd != nil || s.Ticking() || s.Len() != 0 {
		t.Fatalf("idle: cmd %v ticking %v len %d", cmd != nil, s.Ticking(), s.Len())
	}
}

func TestQuickChangesKeepFirstOld(t *testing.T) {
	s := NewSet(12)
	k := Key{Topic: "t", Field: FieldLeader}
	s.Start(k, "1", "2", t0)
	s.Start(k, "2", "3", t0.Add(time.Second))
	if d, _ := s.Delta(k); d.Old != "1" || d.New != "3" {
		t.Fatalf("delta %+v, want 1 → 3", d)
	}
	s.Start(k, "3", "1", t0.Add(2*time.Second))
	if _, ok := s.Delta(k); ok {
		t.Fatal("back to the old value: no delta")
	}
}

func TestFromChange(t *testing.T) {
	for _, tc := range []struct {
		c        cluster.Change
		k        Key
		old, new string
	}{
		{cluster.Change{Kind: cluster.ChangeLeaderMoved, Topic: "t", Partition: 1, From: 2, To: -1}, Key{Topic: "t", Partition: 1, Field: FieldLeader}, "2", "none"},
		{cluster.Change{Kind: cluster.ChangeIsrShrank, Topic: "t", ISR: []int{1, 3}, Removed: []int{2}}, Key{Topic: "t", Field: FieldISR}, "1,2,3", "1,3"},
		{cluster.Change{Kind: cluster.ChangeIsrExpanded, Topic: "t", ISR: []int{1, 2, 3}, Added: []int{2}}, Key{Topic: "t", Field: FieldISR}, "1,3", "1,2,3"},
		{cluster.Change{Kind: cluster.ChangeBrokerGone, Broker: 4}, Key{Broker: 4, Field: FieldBroker}, "up", "down"},
		{cluster.Change{Kind: cluster.ChangeTopicCreated, Topic: "t"}, Key{Topic: "t", Field: FieldTopic}, "", "new"},
	} {
		k, old, new, ok := FromChange(&tc.c)
		if !ok || k != tc.k || old != tc.old || new != tc.new {
			t.Errorf("%v: %+v %q→%q %v", tc.c.Kind, k, old, new, ok)
		}
	}
	if _, _, _, ok := FromChange(&cluster.Change{Kind: cluster.ChangeConfigChanged}); ok {
		t.Error("a config change flashes no cell")
	}
}
