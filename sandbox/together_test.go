package sandbox

import (
	"strings"
	"testing"
)

// TestKillTogether: brokers lost in one event leave the ISRs broker by
// broker in Scala's hash-map order of their ids (5, 6, 2, 4 here), as
// Kafka 3.9's controller does (internal/testkit/fidelity checks it against a real
// cluster): each ISR keeps the member removed last.
func TestKillTogether(t *testing.T) {
	e := newEnv(t, Config{Brokers: 6, Racks: 3})
	e.createTopic("iso", map[int][]int{0: {2, 5}, 1: {4, 5}, 2: {2, 4, 5, 6}, 3: {6, 2}, 4: {5, 3}}, nil)
	e.waitStates("iso", map[int]*st{0: s(2, 0, 1, 0, 2, 5), 1: s(4, 0, 1, 0, 4, 5), 2: s(2, 0, 1, 0, 2, 4, 5, 6),
		3: s(6, 0, 1, 0, 6, 2), 4: s(5, 0, 1, 0, 5, 3)})
	if err := e.c.KillTogether(2, 4, 5, 6); err != nil {
		t.Fatal(err)
	}
	e.waitRegistered("1", "3")
	e.waitStates("iso", map[int]*st{0: s(-1, 2, 1, 2, 2), 1: s(-1, 2, 1, 2, 4), 2: s(-1, 4, 1, 4, 4),
		3: s(-1, 2, 1, 2, 2), 4: s(3, 1, 1, 1, 3)})
	if !strings.Contains(e.logs.String(), "deleted brokers: 2,4,5,6") {
		t.Error("the controller did not see the four brokers go in one broker change")
	}
	if err := e.c.KillTogether(3, 3); err == nil {
		t.Error("KillTogether(3, 3) succeeded")
	}
	if err := e.c.KillTogether(3, 9); err == nil || !strings.Contains(err.Error(), "no broker 9") {
		t.Errorf("KillTogether(3, 9): %v", err)
	}
	// The controller goes too: the next one finds both gone at failover.
	e.restart(2)
	e.restart(5)
	e.waitRegistered("1", "2", "3", "5")
	if err := e.c.KillTogether(1, 3); err != nil {
		t.Fatal(err)
	}
	e.waitRegistered("2", "5")
	waitFor(t, "a new controller", func() (bool, string) {
		id, epoch := e.controller()
		return (id == 2 || id == 5) && epoch == 2, strings.Join(e.registered(), ",")
	})
}
