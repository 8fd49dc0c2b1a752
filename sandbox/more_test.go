package sandbox

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/internal/testkit/zktest"
)

// TestDemoTopics: the demo topics are created like ktopo creates topics
// (config + v3 topic znode with id, Kafka's rack-aware assignment on the
// brokers sorted by id) and go online.
func TestDemoTopics(t *testing.T) {
	e := newEnv(t, Config{Brokers: 6, Racks: 3, DemoTopics: true})
	for _, d := range DemoTopics() {
		cfg := e.get(cluster.TopicConfigPath(d.Name))
		if string(cfg.data) != string(cluster.EncodeEntityConfig(d.Config)) {
			t.Errorf("%s config = %s", d.Name, cfg.data)
		}
		var a cluster.TopicAssignment
		waitFor(t, d.Name+"'s topic id", func() (bool, string) {
			var err error
			n := e.get(cluster.TopicPath(d.Name))
			a, err = cluster.DecodeTopicAssignment(n.data)
			return err == nil && a.TopicID != "" && n.version == 1, string(n.data)
		})
		if a.Version != 3 || len(a.Partitions) != d.Partitions {
			t.Fatalf("%s: %+v", d.Name, a)
		}
		want := map[int]*st{}
		for p, r := range a.Partitions {
			if len(r) != d.ReplicationFactor {
				t.Errorf("%s-%d: replicas %v", d.Name, p, r)
			}
			racks := map[string]bool{}
			for _, b := range r {
				racks[RackName((b-1)%3)] = true
			}
			if len(racks) != min(len(r), 3) {
				t.Errorf("%s-%d: replicas %v not spread over racks", d.Name, p, r)
			}
			want[p] = s(r[0], 0, 1, 0, r...)
		}
		e.waitStates(d.Name, want)
	}
}

// TestAutoRebalance: with auto.leader.rebalance enabled, leadership goes
// back to the preferred replica once it is in sync (the first check 5 s
// after the failover, then every interval), but only when the broker
// leads less than 90 % of the partitions it prefers: 1 of 10 elsewhere is
// no imbalance.
func TestAutoRebalance(t *testing.T) {
	e := newEnv(t, Config{Brokers: 3, LeaderImbalanceCheckInterval: 100 * time.Millisecond})
	e.createTopic("t", map[int][]int{0: {2, 3}, 1: {3, 2}}, nil)
	solo := map[int][]int{}
	for p := range 9 {
		solo[p] = []int{3}
	}
	e.createTopic("solo", solo, nil)
	e.waitStates("t", map[int]*st{0: s(2, 0, 1, 0, 2, 3), 1: s(3, 0, 1, 0, 3, 2)})
	e.kill(2)
	e.waitStates("t", map[int]*st{0: s(3, 1, 1, 1, 3), 1: s(3, 1, 1, 1, 3)})
	e.restart(2)
	e.waitStates("t", map[int]*st{0: s(2, 2, 1, 3, 3, 2), 1: s(3, 1, 1, 2, 3, 2)})

	// Broker 3 prefers t-1 and the nine solo partitions; back, it leads
	// the nine at once and t-1 stays with 2: 10 % is not above 10 %.
	e.kill(3)
	e.waitStates("t", map[int]*st{0: s(2, 3, 1, 4, 2), 1: s(2, 2, 1, 3, 2)})
	e.restart(3)
	e.waitStates("t", map[int]*st{0: s(2, 3, 1, 5, 2, 3), 1: s(2, 2, 1, 4, 2, 3)})
	const check = "Processing automatic preferred replica leader election"
	checks := strings.Count(e.logs.String(), check)
	waitFor(t, "two more rebalance checks", func() (bool, string) {
		n := strings.Count(e.logs.String(), check)
		return n >= checks+2, fmt.Sprint(n, " checks")
	})
	e.waitStates("t", map[int]*st{0: s(2, 3, 1, 5, 2, 3), 1: s(2, 2, 1, 4, 2, 3)})
}

// TestChurn kills and restarts random brokers (the controller included)
// without waiting for the controller, then restarts all and checks that
// the cluster converges: every partition led, every replica back in the
// ISR, Kafka's invariants held, no ISR notification written.
func TestChurn(t *testing.T) {
	if testing.Short() {
		t.Skip("repetition test skipped in -short mode")
	}
	seeds := uint64(4)
	if n, err := strconv.ParseUint(os.Getenv("KTOPO_CHURN_SEEDS"), 10, 32); err == nil {
		seeds = n // more seeds for a soak run
	}
	for seed := range seeds {
		t.Run(fmt.Sprint("seed-", seed), func(t *testing.T) { churn(t, seed) })
	}
}

func churn(t *testing.T, seed uint64) {
	e := newEnv(t, Config{Brokers: 5, Racks: 3})
	topics := map[string]map[int][]int{
		"c1": rackAwareAssignment(t, 5, 3, 20, 3),
		"c2": rackAwareAssignment(t, 5, 3, 10, 2),
	}
	for _, name := range sortedKeys(topics) {
		e.createTopic(name, topics[name], nil)
	}
	rng := rand.New(rand.NewPCG(seed, 11))
	down := map[int]bool{}
	for round := range 40 {
		var up []int
		for id := 1; id <= 5; id++ {
			if !down[id] {
				up = append(up, id)
			}
		}
		switch op := rng.IntN(10); {
		case op < 4 && len(up) > 2:
			id := up[rng.IntN(len(up))]
			t.Logf("round %d: kill %d", round, id)
			e.kill(id)
			down[id] = true
		case op < 7 && len(down) > 0:
			ids := sortedInts(down)
			id := ids[rng.IntN(len(ids))]
			t.Logf("round %d: restart %d", round, id)
			e.restart(id)
			delete(down, id)
		case op < 8:
			id := up[rng.IntN(len(up))]
			t.Logf("round %d: bounce %d", round, id)
			e.kill(id)
			e.restart(id)
		case op < 9 && len(up) > 1:
			t.Logf("round %d: move controller", round)
			if err := e.c.MoveController(); err != nil && !errors.Is(err, ErrNoController) {
				t.Fatal(err)
			}
		default:
			t.Logf("round %d: elect preferred", round)
			if _, err := e.c.ElectPreferred(""); err != nil && !errors.Is(err, ErrNoController) {
				t.Fatal(err)
			}
		}
	}
	for _, id := range sortedInts(down) {
		e.restart(id)
	}
	waitFor(t, "a converged cluster", func() (bool, string) {
		ctrl, epoch := e.controller()
		if ctrl < 1 {
			return false, "no controller"
		}
		var b strings.Builder
		ok := true
		for _, name := range sortedKeys(topics) {
			for p, replicas := range topics[name] {
				n := e.get(cluster.PartitionStatePath(name, p))
				ps, err := cluster.DecodePartitionState(n.data)
				if err != nil {
					ok = false
					fmt.Fprintf(&b, "%s-%d: %v\n", name, p, err)
					continue
				}
				if ps.ControllerEpoch > epoch || !slices.Contains(ps.ISR, ps.Leader) && ps.Leader >= 0 {
					t.Fatalf("%s-%d: invariant broken: %s (controller epoch %d)", name, p, n.data, epoch)
				}
				for _, r := range ps.ISR {
					if !slices.Contains(replicas, r) {
						t.Fatalf("%s-%d: ISR member %d not a replica: %s", name, p, r, n.data)
					}
				}
				if ps.Leader < 0 || len(ps.ISR) != len(replicas) {
					ok = false
					fmt.Fprintf(&b, "%s-%d: %s\n", name, p, n.data)
				}
			}
		}
		return ok, b.String()
	})
	if kids, _, _ := e.zk.Children(cluster.IsrChangeNotificationPath); len(kids) != 0 {
		t.Errorf("isr change notifications: %v", kids)
	}
	// The converged cluster still deletes topics.
	e.create(cluster.DeleteTopicPath("c2"), nil)
	e.waitGone(topicPaths("c2")...)
}

// TestSessionExpiry: when the brokers' sessions expire (their connections
// cut for longer than the session timeout while ZooKeeper runs on), they
// register again (new broker epochs), a controller is elected with the
// next epoch and the cluster keeps working (Kafka's Expire and
// RegisterBrokerAndReelect events).
func TestSessionExpiry(t *testing.T) {
	if testing.Short() {
		t.Skip("session expiry skipped in -short mode")
	}
	srv := zktest.StartServer(t, zktest.Options{TickTime: 200})
	proxy := zktest.StartProxy(t, srv.Addr())
	e := newEnv(t, Config{Connect: proxy.Addr() + "/expiry", Brokers: 3, SessionTimeout: time.Second})
	e.zk = testSession(t, srv.Addr()+"/expiry") // the test's own session does not go through the proxy
	e.createTopic("t", map[int][]int{0: {2, 3}}, nil)
	e.waitStates("t", map[int]*st{0: s(2, 0, 1, 0, 2, 3)})
	_, before, err := e.zk.Get(cluster.BrokerIDPath(2))
	if err != nil {
		t.Fatal(err)
	}
	proxy.Cut()
	// Wait until the server has expired the sessions: the registrations go.
	waitFor(t, "the sessions to expire", func() (bool, string) {
		kids := e.registered()
		return len(kids) == 0, fmt.Sprint(kids)
	})
	proxy.Pass()
	waitFor(t, "re-registration and a new controller", func() (bool, string) {
		n := e.get(cluster.BrokerIDPath(2))
		_, stat, _ := e.zk.Get(cluster.BrokerIDPath(2))
		id, epoch := e.controller()
		seen := fmt.Sprintf("broker 2 %v, controller %d epoch %d, brokers %v", n.exists, id, epoch, e.registered())
		return n.exists && stat != nil && stat.Czxid > before.Czxid && id > 0 && epoch == 2 && len(e.registered()) == 3, seen
	})
	e.createTopic("after", map[int][]int{0: {3, 1}}, nil)
	e.waitStates("after", map[int]*st{0: s(3, 0, 2, 0, 3, 1)})
	// Both topics still have their leaders; the old one's state was
	// written by epoch 1 and is left alone.
	e.waitStates("t", map[int]*st{0: s(2, 0, 1, 0, 2, 3)})
}

// TestBounce: a broker that re-registers (new czxid) before the controller
// noticed its departure is a bounced broker, handled as a failure followed
// by a startup (spec §4.7). The controller is held in a long pace while
// the broker bounces, so that it sees only the new registration.
func TestBounce(t *testing.T) {
	e := newEnv(t, Config{Brokers: 3})
	// Start returns before the controller has handled every registration:
	// a topic online means its queue holds nothing older.
	e.createTopic("sentinel", map[int][]int{0: {1, 2, 3}}, nil)
	e.waitStates("sentinel", map[int]*st{0: s(1, 0, 1, 0, 1, 2, 3)})
	e.c.SetPace(time.Minute)
	e.createTopic("b", map[int][]int{0: {2, 3}, 1: {3, 2}}, nil)
	e.kill(2)
	e.restart(2)
	e.c.SetPace(0)
	e.waitStates("b", map[int]*st{0: s(3, 1, 1, 2, 3, 2), 1: s(3, 1, 1, 2, 3, 2)})
	if !strings.Contains(e.logs.String(), "bounced brokers: 2,") {
		t.Errorf("no bounce in the log")
	}
}
