package cmd

import (
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/ktopo/ktopo/internal/testkit/kafkatest"
	"github.com/ktopo/ktopo/internal/testkit/zktest"
)

// ledBy returns a broker that is not the controller, and an assignment of
// three partitions where it leads partition 0 and follows in 1 and 2.
func ledBy(t *testing.T, c *kafkatest.Cluster) (victim int, assignment string, replicas [][]int) {
	t.Helper()
	ctrl, _, err := c.Controller()
	if err != nil {
		t.Fatal(err)
	}
	var others []int
	for _, b := range c.Brokers() {
		if b.ID != ctrl && victim == 0 {
			victim = b.ID
		} else {
			others = append(others, b.ID)
		}
	}
	x, y := others[0], others[1]
	replicas = [][]int{{victim, x, y}, {x, y, victim}, {y, victim, x}}
	return victim, fmt.Sprintf("%d:%d:%d,%d:%d:%d,%d:%d:%d", victim, x, y, x, y, victim, y, victim, x), replicas
}

func without(xs []int, v int) []int {
	return slices.DeleteFunc(slices.Clone(xs), func(x int) bool { return x == v })
}

func num(v any) int {
	f, _ := v.(float64)
	return int(f)
}

func nums(v any) []int {
	a, _ := v.([]any)
	out := make([]int, len(a))
	for i, x := range a {
		out[i] = num(x)
	}
	return out
}

// TestRealKafkaEvents: ktopo events follows a real cluster while a broker
// that leads a partition is killed and comes back: the real controller's
// election and ISR shrinks, then the leaders' ISR expansions, each with the
// exact values Kafka's rules give.
func TestRealKafkaEvents(t *testing.T) {
	for _, v := range realVersions {
		t.Run(v, func(t *testing.T) {
			c := kafkatest.Shared(t, v)
			victim, assignment, replicas := ledBy(t, c)
			topic := "ev-" + versionTag(v)
			runOK(t, "topics", "create", "--zookeeper", c.Connect(), "--topic", topic, "--replica-assignment", assignment, "--timeout", "90s")
			waitUntil(t, "every replica is in sync", func() bool {
				s := loadSnapshot(t, connectTest(t, c.Connect()))
				tp := s.Topic(topic)
				return tp != nil && tp.Health.UnderReplicated == 0
			})
			ev := startEvents(t, c.Connect())
			ev.waitFor("the connection", func(m map[string]any) bool { return m["kind"] == "connection" && m["state"] == "connected" })
			time.Sleep(500 * time.Millisecond) // the first load is not a change: let it land

			c.Broker(victim).Kill()
			ev.waitFor("broker_gone", func(m map[string]any) bool { return m["kind"] == "broker_gone" && num(m["broker"]) == victim })
			// Partition 0 loses its leader: the next live ISR member in
			// assignment order leads, the ISR keeps the others in order,
			// the leader epoch goes 0 → 1.
			lm := ev.waitFor("leader_moved", func(m map[string]any) bool { return m["kind"] == "leader_moved" && m["topic"] == topic })
			if num(lm["partition"]) != 0 || num(lm["from"]) != victim || num(lm["to"]) != replicas[0][1] || num(lm["leader_epoch"]) != 1 {
				t.Errorf("leader_moved %v, want partition 0 from %d to %d at leader epoch 1", lm, victim, replicas[0][1])
			}
			// Every partition's ISR drops the victim with one write each.
			shrunk := map[int]bool{}
			for len(shrunk) < 3 {
				m := ev.waitFor("isr_shrank", func(m map[string]any) bool { return m["kind"] == "isr_shrank" && m["topic"] == topic })
				p := num(m["partition"])
				if want := without(replicas[p], victim); !slices.Equal(nums(m["removed"]), []int{victim}) || !slices.Equal(nums(m["isr"]), want) || num(m["leader_epoch"]) != 1 {
					t.Errorf("isr_shrank %v, want -[%d] isr %v at leader epoch 1", m, victim, want)
				}
				shrunk[p] = true
			}
			// It comes back: registered, then each leader takes it back into
			// the ISR once it has caught up (no leader epoch change), and
			// no leader moves (no preferred election was asked for).
			if err := c.Broker(victim).Start(); err != nil {
				t.Fatal(err)
			}
			ev.waitFor("broker_registered", func(m map[string]any) bool { return m["kind"] == "broker_registered" && num(m["broker"]) == victim })
			expanded := map[int]bool{}
			for len(expanded) < 3 {
				m := ev.waitFor("isr_expanded", func(m map[string]any) bool {
					if m["kind"] == "leader_moved" && m["topic"] == topic {
						t.Errorf("unexpected %v", m)
					}
					return m["kind"] == "isr_expanded" && m["topic"] == topic
				})
				p := num(m["partition"])
				if !slices.Equal(nums(m["added"]), []int{victim}) || num(m["leader_epoch"]) != 1 || len(nums(m["isr"])) != 3 {
					t.Errorf("isr_expanded %v, want +[%d], 3 in sync, leader epoch 1", m, victim)
				}
				expanded[p] = true
			}
			ev.stop()
			if err := c.WaitReady(time.Minute); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestTUIRealKafka: the TUI, in a real terminal, on a real 3.9 cluster:
// the what-if of a broker (f), then the broker killed: Kafka's own
// controller does what the screen predicted, partition by partition, and
// the partitions offline and under min ISR in ZooKeeper are the predicted
// ones; the broker goes OFFLINE on the overview and its leader move and
// ISR shrinks appear on the events screen as they happen.
func TestTUIRealKafka(t *testing.T) {
	needTmux(t)
	c := kafkatest.Shared(t, kafkatest.Kafka39)
	victim, assignment, replicas := ledBy(t, c)
	topic := "tui-real"
	runOK(t, "topics", "create", "--zookeeper", c.Connect(), "--topic", topic, "--replica-assignment", assignment, "--timeout", "90s")
	// What the victim's loss takes offline and under min ISR.
	other := replicas[0][1]
	runOK(t, "topics", "create", "--zookeeper", c.Connect(), "--topic", topic+"-single", "--replica-assignment", fmt.Sprint(victim), "--timeout", "90s")
	runOK(t, "topics", "create", "--zookeeper", c.Connect(), "--topic", topic+"-strict", "--replica-assignment", fmt.Sprintf("%d:%d,%d:%d", victim, other, other, victim),
		"--config", "min.insync.replicas=2", "--timeout", "90s")
	w := newWhatIfCheck(t, c.Connect())
	w.predict(victim, nil)
	bin := buildKtopo(t)
	logf := filepath.Join(t.TempDir(), "ktopo.log")
	tm := startTmux(t, 120, 36, []string{"KTOPO_LOG=" + logf, "TERM=xterm-256color"}, bin, "--zookeeper", c.Connect())
	tm.waitFor("overview", 20*time.Second, "rack-a", "rack-b", "rack-c", "broker 1", "broker 2", "broker 3", "★ ctrl", "LIVE")
	// The victim's card: the racks hold one broker each, by id.
	for range victim - 1 {
		tm.keys("l")
	}
	tm.keys("f")
	w.shown(tm)
	c.Broker(victim).Kill()
	w.held(tm)
	tm.keys("4")
	tm.waitFor("the broker's leader move and ISR shrinks", time.Minute,
		fmt.Sprintf("%s-0", topic), "leader moved", "ISR shrank", fmt.Sprintf("%d → %d", victim, replicas[0][1]))
	tm.keys("1")
	tm.waitFor("the broker offline", 10*time.Second, fmt.Sprintf("broker %d", victim), "OFFLINE")
}

// TestRealKafkaOldInterBrokerProtocol: with inter.broker.protocol.version
// below 2.7 the partition leaders write ISR changes into the state znodes
// themselves and announce them under /isr_change_notification (spec §4.9).
// ktopo decodes what the leaders write and reports the expansions. Not in
// -short: a cluster of its own.
func TestRealKafkaOldInterBrokerProtocol(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a Kafka 2.8 cluster of its own")
	}
	kafkatest.Require(t, kafkatest.Kafka28)
	c, err := kafkatest.Start(kafkatest.Options{Version: kafkatest.Kafka28, Connect: zktest.Addr(t) + zktest.ChrootPath("ibp26"),
		Props: map[string]string{"inter.broker.protocol.version": "2.6", "log.message.format.version": "2.6"}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Stop()
	kafkatest.Attach(t, c)
	victim, assignment, replicas := ledBy(t, c)
	topic := "ibp26"
	runOK(t, "topics", "create", "--zookeeper", c.Connect(), "--topic", topic, "--replica-assignment", assignment, "--timeout", "90s")
	c.Broker(victim).Stop()
	if err := c.WaitReady(time.Minute); err != nil {
		t.Fatal(err)
	}
	ev := startEvents(t, c.Connect(), "--from-start")
	ev.waitFor("the connection", func(m map[string]any) bool { return m["kind"] == "connection" && m["state"] == "connected" })
	if err := c.Broker(victim).Start(); err != nil {
		t.Fatal(err)
	}
	// The leaders of partitions 1 and 2 take the victim back themselves.
	expanded := map[int]bool{}
	for len(expanded) < 2 {
		m := ev.waitFor("isr_expanded written by a leader", func(m map[string]any) bool {
			if m["kind"] == "znode_invalid" {
				t.Errorf("a znode did not decode: %v", m)
			}
			return m["kind"] == "isr_expanded" && m["topic"] == topic && num(m["partition"]) != 0
		})
		p := num(m["partition"])
		if !slices.Equal(nums(m["added"]), []int{victim}) || len(nums(m["isr"])) != len(replicas[p]) {
			t.Errorf("isr_expanded %v, want +[%d] and a full ISR", m, victim)
		}
		expanded[p] = true
	}
	ev.stop()
}
