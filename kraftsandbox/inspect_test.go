package kraftsandbox

import (
	"slices"
	"testing"
	"time"
)

// TestRecoveringAfterUncleanElection: a partition whose in-sync replicas
// are all fenced, led again by an unclean election of a replica that was
// out of sync, is RECOVERING (KIP-704) as a real controller's metadata
// log says, until its leader grows the ISR.
func TestRecoveringAfterUncleanElection(t *testing.T) {
	c := startTest(t, Config{Brokers: 3, Racks: 1, SessionTimeout: 300 * time.Millisecond})
	c.mu.Lock()
	tp := c.addTopic("u", [][]int32{{1, 2}}, map[string]string{"unclean.leader.election.enable": "true"})
	c.mu.Unlock()
	state := func() (leader int32, isr []int32) {
		c.mu.Lock()
		defer c.mu.Unlock()
		p := tp.parts[0]
		return p.leader, slices.Clone(p.isr)
	}
	if err := c.Kill(2); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "broker 2 out of the ISR", func() bool { l, isr := state(); return l == 1 && slices.Equal(isr, []int32{1}) })
	if err := c.Kill(1); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "no leader", func() bool { l, _ := state(); return l == -1 })
	if got := c.RecoveringPartitions(); len(got) != 0 {
		t.Fatalf("RECOVERING before any unclean election: %v", got)
	}
	if err := c.Restart(2); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "broker 2 elected uncleanly", func() bool { l, _ := state(); return l == 2 })
	if got := c.RecoveringPartitions(); !slices.Equal(got, []string{"u-0"}) {
		t.Fatalf("after the unclean election, RECOVERING: %v, want [u-0]", got)
	}
	if err := c.Restart(1); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "broker 1 back in the ISR", func() bool { _, isr := state(); return len(isr) == 2 })
	if got := c.RecoveringPartitions(); len(got) != 0 {
		t.Fatalf("after the leader grew the ISR, RECOVERING: %v", got)
	}
}
