package kraftsandbox

import (
	"sync/atomic"
	"time"
)

// hold is a tick of the stopped clock: the deadlines the simulation
// keeps in wall-clock time move on by dt, so that resuming takes up
// where pausing stopped (a killed broker is fenced a whole session
// timeout after its last heartbeat, paused time aside). c.mu is held.
func (c *Cluster) hold(dt time.Duration) {
	for _, b := range c.brokers {
		b.lastHeartbeat = b.lastHeartbeat.Add(dt)
		if !b.unfenceAt.IsZero() {
			b.unfenceAt = b.unfenceAt.Add(dt)
		}
	}
	if rs := &c.ext.repl; !rs.nextRebalance.IsZero() {
		rs.nextRebalance = rs.nextRebalance.Add(dt)
	}
}

// pacing slows or stops the simulation so that its changes can be
// watched: pace delays every write the controller applies (as the
// ZooKeeper sandbox's pace delays each controller step), pause stops the
// simulated clock (no heartbeats missed or fenced, no copy progress, no
// growth) while requests are still answered. Neither needs c.mu.
type pacing struct {
	pace   atomic.Int64 // a time.Duration
	paused atomic.Bool
}

// SetPace sets the delay before each write the controller applies (0:
// none).
func (c *Cluster) SetPace(d time.Duration) { c.pacing.pace.Store(int64(max(d, 0))) }

// Pace is the delay before each write the controller applies.
func (c *Cluster) Pace() time.Duration { return time.Duration(c.pacing.pace.Load()) }

// Pause stops the simulated clock: killed brokers are not fenced,
// restarted ones not unfenced, copies and sizes stand still, until
// Resume.
func (c *Cluster) Pause() { c.pacing.paused.Store(true) }

// Resume starts the simulated clock again where it stopped.
func (c *Cluster) Resume() { c.pacing.paused.Store(false) }

// Paused says whether the simulated clock is stopped.
func (c *Cluster) Paused() bool { return c.pacing.paused.Load() }
