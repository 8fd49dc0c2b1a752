package sandbox

import (
	"context"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/internal/testkit/zktest"
	"go.uber.org/goleak"
)

// offlineController is a controller with no ZooKeeper session: any
// ZooKeeper call would panic, which proves that none is made.
func offlineController(logs *logBuffer) *controller {
	cl := &Cluster{log: slog.New(slog.NewTextHandler(logs, nil)), brokers: map[int]*broker{}, racks: map[int]string{},
		paceChanged: make(chan struct{})}
	b := newBroker(cl, 1, "", 1)
	c := b.ctrl
	c.activeControllerID = 1
	c.cc.epoch = 3
	c.cc.liveBrokers = map[int]int64{1: 10, 2: 11}
	return c
}

// TestInvalidTransitionLoggedAndSkipped: an invalid state transition is
// logged with Kafka's wording and not applied (spec §4.3, §4.4).
func TestInvalidTransitionLoggedAndSkipped(t *testing.T) {
	logs := &logBuffer{}
	c := offlineController(logs)
	p := tp{"orders", 0}
	c.cc.setAssignment(p, []int{1, 2})

	if _, err := c.psmHandleStateChanges([]tp{p}, onlinePartition, &offlineElection); err != nil {
		t.Fatal(err)
	}
	if got := c.cc.partitionState(p); got != nonExistentPartition {
		t.Errorf("partition state %s, want NonExistentPartition (not applied)", got)
	}
	if err := c.rsmHandleStateChanges([]replicaKey{{p, 1}}, offlineReplica); err != nil {
		t.Fatal(err)
	}
	if _, err := c.psmHandleStateChanges([]tp{p}, nonExistentPartition, nil); err != nil {
		t.Fatal(err)
	}
	// A valid transition is applied.
	if _, err := c.psmHandleStateChanges([]tp{p}, newPartition, nil); err != nil {
		t.Fatal(err)
	}
	if got := c.cc.partitionState(p); got != newPartition {
		t.Errorf("partition state %s, want NewPartition", got)
	}
	log := logs.String()
	for _, want := range []string{
		"Controller 1 epoch 3 failed to change state for partition orders-0 from NonExistentPartition to OnlinePartition",
		"Partition orders-0 should be in one of NewPartition,OnlinePartition,OfflinePartition states before moving to OnlinePartition state. Instead it is in NonExistentPartition state",
		"Replica [Topic=orders,Partition=0,Replica=1] should be in the NewReplica,OnlineReplica,OfflineReplica,ReplicaDeletionIneligible states before moving to OfflineReplica state. Instead it is in NonExistentReplica state",
		"Partition orders-0 should be in one of OfflinePartition states before moving to NonExistentPartition state. Instead it is in NonExistentPartition state",
	} {
		if !strings.Contains(log, want) {
			t.Errorf("log lacks %q\nlog:\n%s", want, log)
		}
	}
	if got := c.cc.replicaState(replicaKey{p, 1}); got != nonExistentReplica {
		t.Errorf("replica state %s, want NonExistentReplica", got)
	}
	if n := len(c.batch.leaderAndIsr) + len(c.batch.stopReplica); n != 0 {
		t.Errorf("%d requests queued by invalid transitions", n)
	}
}

// TestElectionRules: the pure election rules of spec §4.5 and §4.4.
func TestElectionRules(t *testing.T) {
	live := func(ids ...int) func(int) bool { return func(b int) bool { return slices.Contains(ids, b) } }
	cur := leaderAndIsr{leader: 1, leaderEpoch: 4, isr: []int{3, 1, 2}, partitionEpoch: 7}
	for _, tc := range []struct {
		name    string
		live    func(int) bool
		unclean bool
		ok      bool
		want    leaderAndIsr
	}{
		{"first live ISR member in assignment order", live(2, 3), false, true,
			leaderAndIsr{leader: 2, leaderEpoch: 5, isr: []int{3, 2}, partitionEpoch: 7}},
		{"none in ISR, clean", live(4), false, false, leaderAndIsr{}},
		{"none in ISR, unclean", live(4), true, true,
			leaderAndIsr{leader: 4, leaderEpoch: 5, isr: []int{4}, recovering: true, partitionEpoch: 7}},
	} {
		got, ok := leaderForOffline(cur, []int{1, 2, 4, 3}, tc.live, tc.unclean)
		if ok != tc.ok || ok && (got.leader != tc.want.leader || got.leaderEpoch != tc.want.leaderEpoch ||
			!slices.Equal(got.isr, tc.want.isr) || got.recovering != tc.want.recovering || got.partitionEpoch != tc.want.partitionEpoch) {
			t.Errorf("%s: got %s %v, want %s %v", tc.name, got, ok, tc.want, tc.ok)
		}
	}
	if got, ok := leaderForPreferred(cur, []int{2, 1, 3}, live(1, 2, 3)); !ok || got.leader != 2 || got.leaderEpoch != 5 || !slices.Equal(got.isr, cur.isr) {
		t.Errorf("preferred: %s %v", got, ok)
	}
	if _, ok := leaderForPreferred(cur, []int{4, 1, 3}, live(1, 3, 4)); ok {
		t.Errorf("preferred replica not in ISR elected")
	}
	// The last ISR member is the preferred replica, and it is dead.
	lastIsr := leaderAndIsr{leader: -1, leaderEpoch: 2, isr: []int{3}}
	if got, ok := leaderForPreferred(lastIsr, []int{3, 1, 2}, live(1, 2)); ok {
		t.Errorf("dead preferred replica elected: %s", got)
	}
	if got, ok := leaderForOffline(lastIsr, []int{3, 1, 2}, live(1, 2), false); ok {
		t.Errorf("clean offline election chose %s with the only ISR member dead", got)
	}
	for _, tc := range []struct {
		isr     []int
		replica int
		leader  int
		want    []int
	}{
		{[]int{1, 2, 3}, 2, 1, []int{1, 3}},
		{[]int{1, 2, 3}, 1, -1, []int{2, 3}},
		{[]int{1}, 1, -1, []int{1}},
	} {
		got := removeReplicaFromIsr(leaderAndIsr{leader: 1, leaderEpoch: 2, isr: tc.isr}, tc.replica)
		if got.leader != tc.leader || !slices.Equal(got.isr, tc.want) || got.leaderEpoch != 3 {
			t.Errorf("remove %d from %v: %s", tc.replica, tc.isr, got)
		}
	}
}

// TestNoGoroutineLeak: nothing of the sandbox runs after Close.
func TestNoGoroutineLeak(t *testing.T) {
	connect := zktest.Chroot(t)
	opt := goleak.IgnoreCurrent()
	c, err := Start(context.Background(), Config{Connect: connect, Brokers: 3, Racks: 3, DemoTopics: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Kill(2); err != nil {
		t.Fatal(err)
	}
	if err := c.Restart(2); err != nil {
		t.Fatal(err)
	}
	if err := c.MoveController(); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ElectPreferred("orders"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Status(); err != nil {
		t.Fatal(err)
	}
	c.SetPace(time.Millisecond)
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	goleak.VerifyNone(t, opt)
}

// TestPace: with a pace, partitions are initialised one at a time (each in
// its own ZooKeeper transaction, so each state znode has its own czxid);
// without, in one batch. SetPace applies at run time.
func TestPace(t *testing.T) {
	e := newEnv(t, Config{Brokers: 2, Pace: 5 * time.Millisecond})
	czxids := func(topic string, n int) []int64 {
		var out []int64
		for p := range n {
			_, stat, err := e.zk.Get(cluster.PartitionStatePath(topic, p))
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, stat.Czxid)
		}
		return out
	}
	want := map[int]*st{}
	for p := range 5 {
		want[p] = s(1, 0, 1, 0, 1, 2)
	}
	e.createTopic("slow", map[int][]int{0: {1, 2}, 1: {1, 2}, 2: {1, 2}, 3: {1, 2}, 4: {1, 2}}, nil)
	e.waitStates("slow", want)
	z := czxids("slow", 5)
	for i := 1; i < len(z); i++ {
		if z[i] <= z[i-1] {
			t.Errorf("paced states created together: czxids %v", z)
		}
	}
	e.c.SetPace(0)
	if e.c.Pace() != 0 {
		t.Fatalf("Pace() = %s", e.c.Pace())
	}
	e.createTopic("fast", map[int][]int{0: {1, 2}, 1: {1, 2}, 2: {1, 2}, 3: {1, 2}, 4: {1, 2}}, nil)
	e.waitStates("fast", want)
	if z := czxids("fast", 5); len(slices.Compact(slices.Clone(z))) != 1 {
		t.Errorf("unpaced states not created in one transaction: czxids %v", z)
	}
}
