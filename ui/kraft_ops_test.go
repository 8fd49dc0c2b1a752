package ui

import (
	"slices"
	"strings"
	"testing"
)

// typeText presses the keys of s one by one.
func typeText(a *App, s string) {
	for _, r := range s {
		k := string(r)
		if r == ' ' {
			k = "space"
		}
		press(a, k)
	}
}

// openTopic opens a topic's screen with the command line.
func openTopic(a *App, topic string) {
	press(a, ":")
	typeText(a, "topic "+topic)
	press(a, "enter")
}

// TestKRaftOperations: the topic operations on a KRaft cluster, each with
// its defaults, through the KRaft writer to a controller that refuses
// what Kafka refuses (broker 4 cordoned, broker 6 fenced): R with one
// more replica places none on the cordoned broker and takes it off the
// partitions that move; a adds partitions as the KRaft controller places
// them; e changes a config; p elects the preferred leaders the preview
// said, and the preview knows the controller is the quorum's leader.
func TestKRaftOperations(t *testing.T) {
	a, fc := kraftApp(t, nil)

	openTopic(a, "orders")
	press(a, "R", "+")
	if s := flat(screen(a)); !strings.Contains(s, "replication factor 3 → 4") ||
		!strings.Contains(s, "the minimal strategy also moves broker 4's 3 replicas (cordoned): Kafka refuses a target naming a cordoned broker") {
		t.Errorf("R +:\n%s", screen(a))
	}
	press(a, "enter")
	if s := flat(screen(a)); !strings.Contains(s, "Sends AlterPartitionReassignments.") || strings.Contains(s, "throttles") {
		t.Errorf("R's popup:\n%s", screen(a))
	}
	press(a, "y")
	settle(a, fc, 2)
	fc.CatchUp()
	settle(a, fc, 2)
	for _, p := range fc.Snapshot().Topic("orders").Partitions {
		if len(p.Replicas) != 4 || slices.Contains(p.Replicas, 4) || slices.Contains(p.Replicas, 6) {
			t.Errorf("orders-%d: replicas %v, want 4 of them, none on cordoned 4 or fenced 6", p.ID, p.Replicas)
		}
	}
	if s := flat(screen(a)); !strings.Contains(s, "Reassigned topic orders: 6 partitions moved") || !strings.Contains(s, "replication factor 4") {
		t.Errorf("R's end:\n%s", screen(a))
	}
	press(a, "esc", "esc")

	openTopic(a, "clicks")
	press(a, "a")
	if s := flat(screen(a)); !strings.Contains(s, "12 → 24 partitions") || !strings.Contains(s, "placed as the KRaft controller places them") {
		t.Errorf("a:\n%s", screen(a))
	}
	press(a, "enter", "y")
	settle(a, fc, 2)
	if tp := fc.Snapshot().Topic("clicks"); len(tp.Partitions) != 24 {
		t.Errorf("clicks has %d partitions", len(tp.Partitions))
	} else {
		for _, p := range tp.Partitions[12:] {
			if slices.Contains(p.Replicas, 4) || slices.Contains(p.Replicas, 6) {
				t.Errorf("new partition clicks-%d on %v: the cordoned or the fenced broker", p.ID, p.Replicas)
			}
		}
	}
	if s := flat(screen(a)); !strings.Contains(s, "Added partitions to topic clicks: 12 new partitions online") {
		t.Errorf("a's end:\n%s", screen(a))
	}
	press(a, "esc", "esc")

	openTopic(a, "payments")
	press(a, "e")
	typeText(a, " retention.ms=3600000")
	press(a, "enter", "enter", "y")
	settle(a, fc, 2)
	if v, _ := fc.Snapshot().Topic("payments").ConfigValue("retention.ms"); v != "3600000" {
		t.Errorf("payments' retention.ms %q", v)
	}
	if s := flat(screen(a)); !strings.Contains(s, "Topic payments's configs changed: 1 override set, 0 overrides removed") {
		t.Errorf("e's end:\n%s", screen(a))
	}
	press(a, "esc", "esc")

	openTopic(a, "orders")
	press(a, "p")
	if s := flat(screen(a)); strings.Contains(s, "no active controller") {
		t.Errorf("p on a KRaft cluster says there is no controller:\n%s", screen(a))
	}
	press(a, "enter", "y")
	settle(a, fc, 2)
	elected := slices.ContainsFunc(fc.Applied(), func(s string) bool { return strings.HasPrefix(s, "ElectLeaders orders-") })
	for _, p := range fc.Snapshot().Topic("orders").Partitions {
		if p.Leader != p.Replicas[0] && slices.Contains(p.ISR, p.Replicas[0]) {
			t.Errorf("orders-%d led by %d, its preferred %d in sync", p.ID, p.Leader, p.Replicas[0])
		}
	}
	if s := flat(screen(a)); !elected || !strings.Contains(s, "Preferred leader election of topic orders:") {
		t.Errorf("p's end (%q):\n%s", fc.Applied(), screen(a))
	}
}

// TestKRaftDrainCordonedMeanwhile: the broker cordoned by someone else
// between the preview and y: Kafka refuses the reorder, which names it;
// nothing was written and the advice says so, without asking to uncordon
// it; the preview made again sends no reorder, and that drain runs to its
// end.
func TestKRaftDrainCordonedMeanwhile(t *testing.T) {
	a, fc := kraftApp(t, nil)
	press(a, "1", "right", "d")
	fc.SetCordoned(2, true) // Kafka knows it; the shell has not polled yet
	press(a, "enter", "y")
	s := flat(screen(a))
	if !strings.Contains(s, "✗ The manual partition assignment includes broker 2, but all its log directories are cordoned. (INVALID_REPLICA_ASSIGNMENT)") ||
		!strings.Contains(s, "Kafka refused it: nothing was written. Broker 2 was cordoned since the preview, and Kafka refuses a reassignment naming a cordoned broker: enter or esc goes back to the preview") ||
		strings.Contains(s, "uncordons it") {
		t.Fatalf("the refusal:\n%s", screen(a))
	}
	if got := fc.Applied(); len(got) != 0 {
		t.Fatalf("applied %q", got)
	}
	settle(a, fc, 1)
	press(a, "enter")
	if s := flat(screen(a)); !strings.Contains(s, "broker 2 is cordoned already") || strings.Contains(s, "reorder 2 partitions") ||
		!strings.Contains(s, "4 partitions led by 2 keep their leaders until the copy") {
		t.Fatalf("the preview made again:\n%s", screen(a))
	}
	press(a, "enter", "y")
	settle(a, fc, 4)
	fc.CatchUp()
	settle(a, fc, 4)
	if on := holds(fc.Snapshot(), 2); len(on) > 0 {
		t.Errorf("broker 2 still holds %v", on)
	}
	for _, w := range applied(fc) {
		if !strings.HasPrefix(w, "AlterPartitionReassignments ") {
			t.Errorf("the drain of a cordoned broker wrote %q", w)
		}
	}
}

// TestKRaftQuitMidDrain: quitting right after Kafka took the reorder and
// the cordon (the brokers not showing the reorder yet): the reorder is
// done (Kafka's controller reorders at once), the broker cordoned, and
// the step finishes with the election; the drain's moves are not written.
func TestKRaftQuitMidDrain(t *testing.T) {
	a, fc := kraftApp(t, nil)
	press(a, "1", "right", "d", "enter", "y")
	w := drainer(a)
	left := strings.Join(w.Leaving(false), " ")
	if !strings.Contains(left, "the replicas of 2 partitions are reordered (broker 2 last) and broker 2 still leads them") ||
		!strings.Contains(left, "Quitting first finishes this step (their preferred election)") || strings.Contains(left, "in progress") {
		t.Fatalf("leaving: %q", left)
	}
	run(a, w.Stop())
	settle(a, fc, 4)
	final := strings.Join(w.Leaving(true), " ")
	if !strings.Contains(final, "its leaders-first step is done") || !strings.Contains(final, "broker 2 is cordoned and stays so") {
		t.Errorf("final: %q", final)
	}
	want := []string{"AlterPartitionReassignments clicks-1", "AlterPartitionReassignments clicks-7", "IncrementalAlterConfigs BROKER", "ElectLeaders clicks-1", "ElectLeaders clicks-7"}
	if got := applied(fc); !slices.Equal(got, want) {
		t.Errorf("writes, quitting mid-drain: %q, want %q (no move)", got, want)
	}
}

// TestKRaftDrainNowhere: with brokers 1, 3 and 4 cordoned and 6 fenced,
// broker 2's replicas have one broker to go to, too few for replication
// factor 3: no plan, in Kafka's words, and the preview says the cordoned
// brokers take nothing.
func TestKRaftDrainNowhere(t *testing.T) {
	a, fc := kraftApp(t, nil)
	fc.SetCordoned(1, true)
	fc.SetCordoned(3, true)
	settle(a, fc, 1)
	press(a, "1", "right", "d")
	if s := flat(screen(a)); !strings.Contains(s, "No plan: Replication factor: 3 larger than available brokers: 1.") ||
		!strings.Contains(s, "brokers 1,3,4 are cordoned: they take no new replica (uncordoned, they count again)") {
		t.Errorf("the preview:\n%s", screen(a))
	}
}
