package sandbox

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/ktopo/ktopo/cluster"
)

// s builds an expected state: leader, leader epoch, controller epoch,
// zkVersion, ISR.
func s(leader, leaderEpoch, controllerEpoch int, version int32, isr ...int) *st {
	return &st{leader: leader, leaderEpoch: leaderEpoch, controllerEpoch: controllerEpoch, version: version, isr: isr}
}

// unclean marks an expected state as RECOVERING.
func unclean(x *st) *st { x.recovering = true; return x }

type topicStates map[string]map[int]*st

type step struct {
	name string
	do   func(t *testing.T, e *env)
	want topicStates
}

func (e *env) waitAll(want topicStates) {
	e.t.Helper()
	for _, topic := range sortedKeys(want) {
		e.waitStates(topic, want[topic])
	}
}

// failureTopics are placed on brokers 2..4 of a 4-broker cluster whose
// controller is broker 1, so that broker failures do not move the
// controller.
var failureTopics = map[string]map[int][]int{
	"t":     {0: {2, 3, 4}, 1: {3, 4, 2}, 2: {4, 2, 3}},
	"pair":  {0: {2, 3}},
	"dirty": {0: {2, 3}},
}

// Kafka reads booleans case-insensitively: "TRUE" enables unclean election.
var failureConfigs = map[string]map[string]string{
	"dirty": {"unclean.leader.election.enable": "TRUE"},
}

var failureInitial = topicStates{
	"t":     {0: s(2, 0, 1, 0, 2, 3, 4), 1: s(3, 0, 1, 0, 3, 4, 2), 2: s(4, 0, 1, 0, 4, 2, 3)},
	"pair":  {0: s(2, 0, 1, 0, 2, 3)},
	"dirty": {0: s(2, 0, 1, 0, 2, 3)},
}

func kill(id int) func(*testing.T, *env)    { return func(_ *testing.T, e *env) { e.kill(id) } }
func restart(id int) func(*testing.T, *env) { return func(_ *testing.T, e *env) { e.restart(id) } }

// TestBrokerFailure kills and restarts brokers and checks the exact state
// znodes after each step (spec §5.3, §5.4): leader to the first live ISR
// member in assignment order, ISR filtered, leader epoch + 1, ISR never
// emptied, unclean election only where enabled, followers back in the ISR
// through the leader's AlterPartition with the same leader epoch.
func TestBrokerFailure(t *testing.T) {
	for _, sc := range []struct {
		name  string
		steps []step
	}{
		{"leader", []step{
			{"kill 2", kill(2), topicStates{
				"t":    {0: s(3, 1, 1, 1, 3, 4), 1: s(3, 1, 1, 1, 3, 4), 2: s(4, 1, 1, 1, 4, 3)},
				"pair": {0: s(3, 1, 1, 1, 3)},
			}},
			{"restart 2", restart(2), topicStates{
				"t":    {0: s(3, 1, 1, 2, 3, 4, 2), 1: s(3, 1, 1, 2, 3, 4, 2), 2: s(4, 1, 1, 2, 4, 3, 2)},
				"pair": {0: s(3, 1, 1, 2, 3, 2)},
			}},
			{"elect preferred", func(t *testing.T, e *env) {
				sum, err := e.c.ElectPreferred("")
				if err != nil {
					t.Fatal(err)
				}
				if sum.Elected != 3 || sum.NotNeeded != 2 || len(sum.Failed) != 0 {
					t.Errorf("ElectPreferred = %+v, want 3 elected (t-0, pair-0, dirty-0), 2 not needed", sum)
				}
			}, topicStates{
				"t":     {0: s(2, 2, 1, 3, 3, 4, 2), 1: s(3, 1, 1, 2, 3, 4, 2), 2: s(4, 1, 1, 2, 4, 3, 2)},
				"pair":  {0: s(2, 2, 1, 3, 3, 2)},
				"dirty": {0: s(2, 2, 1, 3, 3, 2)},
			}},
		}},
		{"follower", []step{
			{"kill 4", kill(4), topicStates{
				"t":    {0: s(2, 1, 1, 1, 2, 3), 1: s(3, 1, 1, 1, 3, 2), 2: s(2, 1, 1, 1, 2, 3)},
				"pair": {0: s(2, 0, 1, 0, 2, 3)},
			}},
			{"restart 4", restart(4), topicStates{
				"t":    {0: s(2, 1, 1, 2, 2, 3, 4), 1: s(3, 1, 1, 2, 3, 2, 4), 2: s(2, 1, 1, 2, 2, 3, 4)},
				"pair": {0: s(2, 0, 1, 0, 2, 3)},
			}},
		}},
		{"all replicas", []step{
			{"kill 3", kill(3), topicStates{
				"t":     {0: s(2, 1, 1, 1, 2, 4), 1: s(4, 1, 1, 1, 4, 2), 2: s(4, 1, 1, 1, 4, 2)},
				"pair":  {0: s(2, 1, 1, 1, 2)},
				"dirty": {0: s(2, 1, 1, 1, 2)},
			}},
			{"kill 2", kill(2), topicStates{
				"t":     {0: s(4, 2, 1, 2, 4), 1: s(4, 2, 1, 2, 4), 2: s(4, 2, 1, 2, 4)},
				"pair":  {0: s(-1, 2, 1, 2, 2)},
				"dirty": {0: s(-1, 2, 1, 2, 2)},
			}},
			{"elect preferred, leaders dead", func(t *testing.T, e *env) {
				// pair-0 and dirty-0 keep their last ISR member, broker 2,
				// which is dead: the preferred election must not pick it.
				sum, err := e.c.ElectPreferred("")
				if err != nil {
					t.Fatal(err)
				}
				if sum.Elected != 0 || sum.NotNeeded != 1 || len(sum.Failed) != 4 {
					t.Errorf("ElectPreferred = %+v, want 0 elected, 1 not needed (t-2), 4 failed", sum)
				}
				for _, p := range []string{"dirty-0", "pair-0", "t-0", "t-1"} {
					if !slices.ContainsFunc(sum.Failed, func(l string) bool { return strings.HasPrefix(l, p+": ") }) {
						t.Errorf("%s not among the failed: %q", p, sum.Failed)
					}
				}
			}, topicStates{
				"t":     {0: s(4, 2, 1, 2, 4), 1: s(4, 2, 1, 2, 4), 2: s(4, 2, 1, 2, 4)},
				"pair":  {0: s(-1, 2, 1, 2, 2)},
				"dirty": {0: s(-1, 2, 1, 2, 2)},
			}},
			{"restart 3", restart(3), topicStates{
				"t":     {0: s(4, 2, 1, 3, 4, 3), 1: s(4, 2, 1, 3, 4, 3), 2: s(4, 2, 1, 3, 4, 3)},
				"pair":  {0: s(-1, 2, 1, 2, 2)},
				"dirty": {0: unclean(s(3, 3, 1, 3, 3))},
			}},
			{"restart 2", restart(2), topicStates{
				"t":     {0: s(4, 2, 1, 4, 4, 3, 2), 1: s(4, 2, 1, 4, 4, 3, 2), 2: s(4, 2, 1, 4, 4, 3, 2)},
				"pair":  {0: s(2, 3, 1, 4, 2, 3)},
				"dirty": {0: s(3, 3, 1, 4, 3, 2)},
			}},
		}},
	} {
		t.Run(sc.name, func(t *testing.T) {
			e := newEnv(t, Config{Brokers: 4, Racks: 2})
			for _, topic := range sortedKeys(failureTopics) {
				e.createTopic(topic, failureTopics[topic], failureConfigs[topic])
			}
			e.waitAll(failureInitial)
			for _, stp := range sc.steps {
				t.Logf("step: %s", stp.name)
				stp.do(t, e)
				e.waitAll(stp.want)
			}
			if id, epoch := e.controller(); id != 1 || epoch != 1 {
				t.Errorf("controller %d epoch %d, want broker 1 epoch 1", id, epoch)
			}
			if kids, _, _ := e.zk.Children(cluster.IsrChangeNotificationPath); len(kids) != 0 {
				t.Errorf("isr change notifications written: %v", kids)
			}
		})
	}
}

// TestControllerFailover kills the controller's broker: another broker
// wins with epoch 2, rebuilds its context from ZooKeeper, removes the dead
// broker from the ISRs and elects leaders (two writes for a partition it
// led, as Kafka's replica then partition state machine startup do), and
// keeps working.
func TestControllerFailover(t *testing.T) {
	e := newEnv(t, Config{Brokers: 3})
	e.createTopic("one", map[int][]int{0: {1, 2}, 1: {2, 1}, 2: {2, 3}}, nil)
	e.waitStates("one", map[int]*st{0: s(1, 0, 1, 0, 1, 2), 1: s(2, 0, 1, 0, 2, 1), 2: s(2, 0, 1, 0, 2, 3)})
	e.kill(1)
	waitFor(t, "a new controller", func() (bool, string) {
		id, epoch := e.controller()
		return id > 1 && epoch == 2, e.get(cluster.ControllerPath).String()
	})
	// The winner writes /controller, then takes up the role: its
	// ActiveController follows a moment later.
	waitFor(t, "ActiveController to name the new controller", func() (bool, string) {
		id, _ := e.controller()
		return e.c.ActiveController() == id, fmt.Sprintf("ActiveController %d, /controller %d", e.c.ActiveController(), id)
	})
	if n := e.get(cluster.ControllerEpochPath); string(n.data) != "2" || n.version != 2 {
		t.Errorf("/controller_epoch = %q v%d, want \"2\" v2", n.data, n.version)
	}
	e.waitStates("one", map[int]*st{0: s(2, 2, 2, 2, 2), 1: s(2, 1, 2, 1, 2), 2: s(2, 0, 1, 0, 2, 3)})
	// The new controller keeps working: creation, failure, return.
	e.createTopic("after", map[int][]int{0: {3, 2}}, nil)
	e.waitStates("after", map[int]*st{0: s(3, 0, 2, 0, 3, 2)})
	e.restart(1)
	e.waitStates("one", map[int]*st{0: s(2, 2, 2, 3, 2, 1), 1: s(2, 1, 2, 2, 2, 1), 2: s(2, 0, 1, 0, 2, 3)})
	ctrl, _ := e.controller()
	other := 5 - ctrl // the live broker among 2 and 3 that is not the controller
	e.kill(other)
	switch other {
	case 2:
		e.waitStates("one", map[int]*st{0: s(1, 3, 2, 4, 1), 1: s(1, 2, 2, 3, 1), 2: s(3, 1, 2, 1, 3)})
	case 3:
		e.waitStates("one", map[int]*st{0: s(2, 2, 2, 3, 2, 1), 1: s(2, 1, 2, 2, 2, 1), 2: s(2, 1, 2, 1, 2)})
	}
}

// TestMoveController: the controller resigns and sits out; another broker
// wins with the next epoch and keeps working.
func TestMoveController(t *testing.T) {
	e := newEnv(t, Config{Brokers: 3})
	if err := e.c.MoveController(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "a new controller", func() (bool, string) {
		id, epoch := e.controller()
		return id > 1 && epoch == 2, e.get(cluster.ControllerPath).String()
	})
	// The winner writes /controller, then takes up the role: its
	// ActiveController follows a moment later.
	waitFor(t, "ActiveController to name the new controller", func() (bool, string) {
		id, _ := e.controller()
		return e.c.ActiveController() == id, fmt.Sprintf("ActiveController %d, /controller %d", e.c.ActiveController(), id)
	})
	if n := e.get(cluster.ControllerEpochPath); string(n.data) != "2" || n.version != 2 {
		t.Errorf("/controller_epoch = %q v%d", n.data, n.version)
	}
	if got := e.registered(); !slices.Equal(got, []string{"1", "2", "3"}) {
		t.Errorf("registered brokers %v", got)
	}
	e.createTopic("x", map[int][]int{0: {1, 2, 3}}, nil)
	e.waitStates("x", map[int]*st{0: s(1, 0, 2, 0, 1, 2, 3)})
	if !strings.Contains(e.logs.String(), "msg=Resigned") {
		t.Errorf("no resignation in the log")
	}
}

func (n node) String() string { return string(n.data) }
