// Package anim animates changes: a changed cell flashes and fades back to
// normal while it shows its old → new value, then the delta disappears.
//
// One Set is shared by the shell and the screens. The shell feeds it the
// frame clock (Step, from tea.Tick timestamps); screens read it in View
// (Level, Delta). Time never comes from time.Now inside View. The tick chain
// runs only while something animates: when every fade has finished the Set
// asks for a single wake-up at the next expiry, and when nothing is left it
// asks for nothing, so an idle screen costs no frames.
package anim

import (
	"time"

	tea "charm.land/bubbletea/v2"
)

// Durations of a flash.
const (
	// Fade is how long the colour fades from the flash colour to normal.
	Fade = 1200 * time.Millisecond
	// Hold is how long the old → new delta stays visible.
	Hold = 4 * time.Second
	// Frame is the tick interval while a fade runs (30 fps).
	Frame = time.Second / 30
)

// FrameMsg is a tick of the animation clock. Gen tells ticks of a
// superseded chain apart, so that at most one chain runs.
type FrameMsg struct {
	Time time.Time
	Gen  int
}

// Key names an animated cell, e.g. {Topic: "orders", Partition: 3, Field:
// FieldLeader} or {Broker: 2, Field: FieldBroker}.
type Key struct {
	Topic     string
	Partition int
	Broker    int
	Field     Field
}

// Field is the animated column.
type Field uint8

// Animated fields.
const (
	FieldLeader Field = iota + 1
	FieldISR
	FieldState
	FieldBroker // a broker card (Key.Broker)
	FieldTopic  // a topics-list row
)

// Delta is a change being shown.
type Delta struct {
	Old, New string
	Start    time.Time
}

// Set holds the running animations.
type Set struct {
	now     time.Time
	deltas  map[Key]Delta
	ticking bool
	fast    bool // the pending tick is a frame, not a long wake-up
	gen     int
	steps   int
}

// NewSet returns an empty set.
func NewSet(steps int) *Set {
	if steps < 1 {
		steps = 1
	}
	return &Set{deltas: map[Key]Delta{}, steps: steps}
}

// Now is the animation clock: the time of the last Start or Step.
func (s *Set) Now() time.Time { return s.now }

// Len is the number of running animations.
func (s *Set) Len() int { return len(s.deltas) }

// Start flashes k showing old → new from now on. A running flash of k
// restarts, keeping its original old value so that quick successive
// changes read as one (1 → 3 rather than 2 → 3).
func (s *Set) Start(k Key, old, new string, now time.Time) {
	if now.After(s.now) {
		s.now = now
	}
	if d, ok := s.deltas[k]; ok && now.Sub(d.Start) < Hold {
		old = d.Old
	}
	if old == new {
		delete(s.deltas, k)
		return
	}
	s.deltas[k] = Delta{Old: old, New: new, Start: now}
}

// Delta returns the running delta of k.
func (s *Set) Delta(k Key) (Delta, bool) {
	if len(s.deltas) == 0 {
		return Delta{}, false
	}
	d, ok := s.deltas[k]
	return d, ok
}

// Level is the fade step of k: 0 (just changed) … steps-1 (faded), or -1
// when k is not animating or its fade is over.
func (s *Set) Level(k Key) int {
	d, ok := s.Delta(k)
	if !ok {
		return -1
	}
	el := s.now.Sub(d.Start)
	if el >= Fade || el < 0 {
		return -1
	}
	return int(int64(el) * int64(s.steps) / int64(Fade))
}

// Kick returns the tick that starts the animation clock, or nil when it
// is already running or nothing animates. Call it after Start.
func (s *Set) Kick() tea.Cmd {
	if (s.ticking && s.fast) || len(s.deltas) == 0 {
		return nil
	}
	// Not ticking, or waiting for a long wake-up: start a new frame chain
	// and let the old one die (its Gen no longer matches).
	s.gen++
	s.ticking, s.fast = true, true
	return s.tick(Frame)
}

// Step advances the clock to now, drops finished animations and returns
// the next tick: a frame while a fade runs, one wake-up at the next expiry
// while only deltas are held, nothing when idle.
func (s *Set) Step(msg FrameMsg) tea.Cmd {
	if msg.Time.After(s.now) {
		s.now = msg.Time
	}
	fading := false
	var next time.Duration = -1
	for k, d := range s.deltas {
		el := s.now.Sub(d.Start)
		if el >= Hold {
			delete(s.deltas, k)
			continue
		}
		if el < Fade {
			fading = true
		}
		if left := Hold - el; next < 0 || left < next {
			next = left
		}
	}
	if msg.Gen != s.gen || !s.ticking {
		return nil // a superseded chain (or a manual step): no new tick
	}
	switch {
	case fading:
		s.fast = true
		return s.tick(Frame)
	case next > 0:
		s.fast = false
		return s.tick(next)
	}
	s.ticking, s.fast = false, false // idle screens cost nothing
	return nil
}

// Ticking reports whether a tick chain is running.
func (s *Set) Ticking() bool { return s.ticking }

func (s *Set) tick(d time.Duration) tea.Cmd {
	gen := s.gen
	return tea.Tick(d, func(t time.Time) tea.Msg { return FrameMsg{Time: t, Gen: gen} })
}
