package fidelity

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/internal/testkit/kafkatest"
	"github.com/ktopo/ktopo/internal/testkit/zktest"
	"github.com/ktopo/ktopo/sandbox"
)

func TestMain(m *testing.M) { zktest.Main(m, kafkatest.StopAll) }

// The clusters: brokers 1..5 in racks rack-a, rack-b, rack-c, rack-a,
// rack-b; broker 1 the first controller (the sandbox's is always the first
// broker it starts); the automatic leader rebalance checked every second.
const (
	brokers         = 5
	racks           = 3
	imbalanceCheck  = time.Second
	firstCheck      = 5 * time.Second // Kafka's first rebalance check after a failover
	quietPeriod     = 3 * time.Second
	settleTimeout   = 3 * time.Minute
	pollInterval    = 200 * time.Millisecond
	firstController = 1
)

// topics are created on both sides with fixed assignments (ktopo's way: the
// config znode and a version 3 topic znode without topic id in one multi;
// the controller adds the id).
//
//   - orders: replication factor 3 over all brokers.
//   - solo and pair: broker 3 prefers exactly ten partitions, nine of them
//     with no other replica: when it returns it leads those nine again at
//     once and only pair-0 is led by another broker, an imbalance of 10 %,
//     which is not above Kafka's 10 %: no automatic rebalance, the
//     preferred election of the scenario moves it.
//   - lost: brokers 1 and 5 die together; lost-0's ISR [1,5] keeps 1 (5 is
//     removed first in Scala's hash-map order), not 5 (id order).
//   - doomed: deleted while broker 1 is down; its live replicas leave the
//     ISRs in the order 5, 2, 3 (hash-map order again), so doomed-0's ISR
//     [2,5] keeps 2.
//   - wide: replication factor 5; an ISR of five is a Scala HashSet in
//     the leader, written in hash order.
//   - dirty: unclean leader election enabled; 1 and 5 die together and
//     its ISR [5,1] keeps 1, so when 5 returns first it is elected
//     uncleanly (leader_recovery_state RECOVERING until 1 is back in the
//     ISR).
var topics = []struct {
	name       string
	assignment map[int][]int
	config     map[string]string
}{
	{"orders", map[int][]int{0: {1, 2, 3}, 1: {2, 3, 4}, 2: {4, 3, 5}, 3: {4, 5, 1}, 4: {5, 1, 2}}, nil},
	{"solo", map[int][]int{0: {3}, 1: {3}, 2: {3}, 3: {3}, 4: {3}, 5: {3}, 6: {3}, 7: {3}, 8: {3}}, nil},
	{"pair", map[int][]int{0: {3, 4}}, nil},
	{"lost", map[int][]int{0: {1, 5}, 1: {5, 1, 2}, 2: {2, 1, 5}, 3: {4, 5}}, nil},
	{"doomed", map[int][]int{0: {5, 2, 1}, 1: {2, 3, 1}}, nil},
	{"dirty", map[int][]int{0: {5, 1}}, map[string]string{"unclean.leader.election.enable": "true"}},
	{"wide", map[int][]int{0: {1, 2, 3, 4, 5}}, nil},
}

// accepted lists the differences between the sandbox and Kafka 3.9.2 that
// stay, each with its reason (docs/sandbox-fidelity.md has the same
// table). A difference the table does not name fails the test; so does an
// entry the scenario never meets, unless it is left to chance (it was
// fixed: remove it here and there).
var accepted = []*acceptedDiff{
	{path: `^/controller$`, what: "member brokerid", afterStep: "lose brokers 1 and 5 (the controller) together", chance: true,
		reason: "after a failover every live broker races for /controller, on both sides; which one wins is chance, and nothing else in the tree depends on it"},
	{path: `^/brokers/ids/\d+$`, what: "member order",
		reason: "Kafka writes the registration from a Scala hash map (rack between endpoints and jmx_port); the sandbox writes it through ktopo's encoder; readers ignore the order"},
	{path: `^/brokers/topics/[^/]+$`, what: "member order",
		reason: "Kafka's controller rewrites the topic znode with its topic id from a Scala hash map (partitions, topic_id, adding_replicas, removing_replicas, version); the sandbox writes version first"},
	{path: `^/feature$`, what: "member order",
		reason: "Kafka writes /feature from a Scala hash map (features, version, status)"},
}

// step is one step of the scenario, done on both sides.
type step struct {
	name string
	do   func(h *harness)
	// witness: partition → leader and ISR expected on both sides after
	// the step ("-1 [1]", "5 [5] recovering"), what the step is there to show.
	witness map[string]string
}

type acceptedDiff struct {
	path      string
	what      string
	afterStep string // if set, accepted from this step on
	chance    bool   // the scenario may not meet it (both sides may happen to agree)
	reason    string

	re   *regexp.Regexp
	seen bool
}

// harness drives the two clusters through the scenario in lockstep.
type harness struct {
	t      *testing.T
	conn   *zk.Conn // on the shared server, no chroot
	kafka  *kafkatest.Cluster
	sb     *sandbox.Cluster
	sbLogs *logBuffer
	sroot  string // the sandbox's chroot
	addr   string // the shared server
	live   map[int]bool
}

func (h *harness) kroot() string { return h.kafka.Chroot() }

// dumpTrees (KTOPO_FIDELITY_DUMP=<part of a step name>) logs both trees after the step.
var dumpTrees = os.Getenv("KTOPO_FIDELITY_DUMP")

// TestSandboxMatchesKafka runs one scenario on real Kafka 3.9 and on the
// sandbox, on the same Apache ZooKeeper in two chroots, and compares the
// two trees after every step once both have settled: every znode, its
// dataVersion and its data (JSON compared member by member, random values
// masked). Differences must be listed in accepted.
func TestSandboxMatchesKafka(t *testing.T) {
	kafkatest.Require(t, kafkatest.Kafka39)
	addr := zktest.Addr(t)
	h := &harness{t: t, conn: zktest.Connect(t, addr), addr: addr, sbLogs: &logBuffer{}, live: map[int]bool{}}
	for id := 1; id <= brokers; id++ {
		h.live[id] = true
	}
	for _, a := range accepted {
		a.re, a.seen = regexp.MustCompile(a.path), false
	}
	h.sroot = zktest.ChrootPath("fidelity-sandbox")
	var kerr, serr error
	parallel(func() {
		h.kafka, kerr = kafkatest.Start(kafkatest.Options{
			Version: kafkatest.Kafka39, Connect: addr + zktest.ChrootPath("fidelity-kafka"),
			Brokers: brokers, Racks: racks, FirstController: firstController,
			Props: map[string]string{"leader.imbalance.check.interval.seconds": strconv.Itoa(int(imbalanceCheck / time.Second))},
		})
	}, func() {
		h.sb, serr = sandbox.Start(context.Background(), sandbox.Config{
			Connect: addr + h.sroot, Brokers: brokers, Racks: racks,
			LeaderImbalanceCheckInterval: imbalanceCheck,
			// Kafka's partitions hold no data: a new replica is in sync as
			// soon as it fetches.
			PartitionSize: -1,
			Logger:        slog.New(slog.NewTextHandler(h.sbLogs, &slog.HandlerOptions{Level: slog.LevelInfo})),
		})
	})
	if h.kafka != nil {
		kafkatest.Attach(t, h.kafka)
		t.Cleanup(func() {
			for _, b := range h.kafka.Brokers() {
				b.Kill() // no controlled shutdowns to wait for
			}
			h.kafka.Stop()
		})
	}
	if h.sb != nil {
		t.Cleanup(func() {
			_ = h.sb.Close()
			if t.Failed() {
				t.Logf("sandbox log:\n%s", lastLines(h.sbLogs.String(), 300))
			}
		})
	}
	if kerr != nil {
		t.Fatal(kerr)
	}
	if serr != nil {
		t.Fatal(serr)
	}

	steps := []step{
		{name: "start", do: func(*harness) {}},
		{name: "create topics", do: (*harness).createTopics, witness: map[string]string{
			"orders-0": "1 [1,2,3]", "pair-0": "3 [3,4]", "lost-0": "1 [1,5]", "doomed-0": "5 [5,2,1]"}},
		{name: "kill broker 3, which leads pair-0 and solo", do: func(h *harness) { h.crash(3) }, witness: map[string]string{
			"pair-0": "4 [4]", "solo-0": "-1 [3]", "orders-0": "1 [1,2]"}},
		{name: "restart broker 3", do: func(h *harness) { h.start(3) }, witness: map[string]string{
			// 1 of the 10 partitions broker 3 prefers is led by another: 10 % is no imbalance.
			"pair-0": "4 [4,3]", "solo-0": "3 [3]", "orders-1": "2 [2,4,3]",
			// The leader's ISR set of five is a Scala HashSet: [1,2,4,5] plus 3 is written in hash order.
			"wide-0": "1 [5,1,2,3,4]"}},
		{name: "preferred election of pair-0 and orders-0 through /admin/preferred_replica_election", do: func(h *harness) {
			h.both(func(root string) error {
				_, err := h.conn.Create(root+cluster.PreferredReplicaElectionPath, cluster.EncodePartitionsNotification(
					[]cluster.TopicPartition{{Topic: "pair", Partition: 0}, {Topic: "orders", Partition: 0}}), 0, zk.WorldACL(zk.PermAll))
				return err
			})
		}, witness: map[string]string{"pair-0": "3 [4,3]", "orders-0": "1 [1,2,3]"}},
		{name: "reassign orders-2, lost-3 and pair-0 through /admin/reassign_partitions", do: func(h *harness) {
			h.both(func(root string) error {
				_, err := h.conn.Create(root+cluster.ReassignPartitionsPath, cluster.EncodeReassignPartitions([]cluster.PartitionReassignment{
					{Topic: "orders", Partition: 2, Replicas: []int{3, 1, 2}},
					{Topic: "lost", Partition: 3, Replicas: []int{4, 5, 1}},
					{Topic: "pair", Partition: 0, Replicas: []int{3}},
				}), 0, zk.WorldACL(zk.PermAll))
				return err
			})
		}, witness: map[string]string{
			// 1 and 2 join (a five-member ISR is written in hash order), 3
			// is elected (the leader 4 is not in the target), 5 then 4 leave
			// (hash-map order).
			"orders-2": "3 [1,2,3]",
			// 1 joins; the leader stays (its epoch is bumped).
			"lost-3": "4 [4,5,1]",
			// Complete at once: the epoch is bumped, 4 leaves.
			"pair-0": "3 [3]"}},
		{name: "lose brokers 1 and 5 (the controller) together", do: func(h *harness) { h.crash(1, 5) }, witness: map[string]string{
			// 5 leaves the ISRs before 1 (Scala hash-map order), so [1,5] keeps 1.
			"lost-0": "-1 [1]", "lost-1": "2 [2]", "orders-0": "2 [2,3]", "doomed-0": "2 [2]", "dirty-0": "-1 [1]"}},
		{name: "a preferred election that moves nothing: preferred replicas down, a partition led by its own, unknown partitions", do: func(h *harness) {
			h.both(func(root string) error {
				_, err := h.conn.Create(root+cluster.PreferredReplicaElectionPath, cluster.EncodePartitionsNotification([]cluster.TopicPartition{
					{Topic: "orders", Partition: 0}, {Topic: "lost", Partition: 1}, {Topic: "pair", Partition: 0},
					{Topic: "orders", Partition: 9}, {Topic: "gone", Partition: 0}}), 0, zk.WorldACL(zk.PermAll))
				return err
			})
		}, witness: map[string]string{"orders-0": "2 [2,3]", "lost-1": "2 [2]", "pair-0": "3 [3]"}},
		{name: "a preferred election znode that is not JSON", do: func(h *harness) {
			// Kafka's decoder takes text that does not parse for no
			// partitions: an election of nothing, and the znode deleted.
			h.both(func(root string) error {
				_, err := h.conn.Create(root+cluster.PreferredReplicaElectionPath, []byte(`{"version":1,"partitions":[`), 0, zk.WorldACL(zk.PermAll))
				return err
			})
		}},
		{name: "restart broker 5", do: func(h *harness) { h.start(5) }, witness: map[string]string{
			// 5 is not lost-0's last ISR member: no leader. Auto rebalance gives 5 its partitions back.
			"lost-0": "-1 [1]", "lost-1": "5 [2,5]", "doomed-0": "5 [2,5]", "orders-4": "5 [2,5]",
			// dirty-0 allows an unclean election.
			"dirty-0": "5 [5] recovering",
			// Four members: 5 appended.
			"wide-0": "2 [2,3,4,5]"}},
		{name: "enable unclean leader election on lost (ktopo configs: config and notification in one multi)", do: func(h *harness) {
			h.setTopicConfig("lost", map[string]string{"unclean.leader.election.enable": "true"})
		}, witness: map[string]string{
			// The controller's broker applies the notification and elects
			// the live replica of lost-0 at once (TopicUncleanLeaderElectionEnable).
			"lost-0": "5 [5] recovering"}},
		{name: "delete doomed while broker 1 is down", do: func(h *harness) {
			h.both(func(root string) error {
				_, err := h.conn.Create(root+cluster.DeleteTopicPath("doomed"), nil, 0, zk.WorldACL(zk.PermAll))
				return err
			})
		}, witness: map[string]string{
			// Its live replicas leave the ISRs in the order 5, 2, 3: [2,5] keeps 2.
			"doomed-0": "-1 [2]", "doomed-1": "-1 [3]"}},
		{name: "restart broker 1", do: func(h *harness) { h.start(1) }, witness: map[string]string{
			"orders-0": "1 [2,3,1]", "doomed-0": "absent", "dirty-0": "5 [5,1]"}},
		{name: "add partitions to orders (ktopo topics alter: the topic znode at its version)", do: func(h *harness) { h.addPartitions("orders", 8) }},
	}
	if !testing.Short() {
		// Brokers lost by the expiry of their sessions, as in production
		// (the short scenario deletes their registrations in one multi,
		// which the same-tick expiry of their sessions amounts to): the
		// sandbox is then driven the way Kafka's controller saw it, one
		// broker change or two.
		steps = append(steps, []step{
			{name: "lose brokers 1 and 5 again, their sessions expiring", do: func(h *harness) { h.loseByExpiry(1, 5) }},
			{name: "restart broker 5 again", do: func(h *harness) { h.start(5) }},
			{name: "restart broker 1 again", do: func(h *harness) { h.start(1) }},
		}...)
	}
	stepIndex := map[string]int{}
	for i, s := range steps {
		stepIndex[s.name] = i
	}
	for _, a := range accepted {
		if _, ok := stepIndex[a.afterStep]; a.afterStep != "" && !ok {
			t.Fatalf("accepted difference %s %s names no step %q", a.path, a.what, a.afterStep)
		}
	}
	start := time.Now()
	for i, s := range steps {
		stepStart := time.Now()
		s.do(h)
		kt, st := h.settle(s.name)
		diffs := compare(kt, st)
		var unexplained []string
		for _, d := range diffs {
			if a := h.accept(d, i, stepIndex); a != nil {
				a.seen = true
				continue
			}
			unexplained = append(unexplained, d.String())
		}
		for _, name := range slices.Sorted(maps.Keys(s.witness)) {
			want := s.witness[name]
			for side, tr := range map[string]tree{"kafka": kt, "sandbox": st} {
				if got := leaderISR(tr, name); got != want {
					t.Errorf("step %q: %s on %s: leader and ISR %s, want %s", s.name, name, side, got, want)
				}
			}
		}
		t.Logf("step %d %q settled in %s: %d znodes, %d accepted differences",
			i, s.name, time.Since(stepStart).Round(100*time.Millisecond), len(kt), len(diffs)-len(unexplained))
		if dumpTrees != "" && strings.Contains(s.name, dumpTrees) {
			t.Logf("kafka tree:\n%s\nsandbox tree:\n%s\ndifferences:\n%s", kt.fingerprint(), st.fingerprint(), diffs)
		}
		if len(unexplained) > 0 {
			t.Fatalf("step %q: the sandbox differs from Kafka %s:\n  %s\nkafka tree:\n%s\nsandbox tree:\n%s",
				s.name, kafkatest.Kafka39, strings.Join(unexplained, "\n  "), kt.fingerprint(), st.fingerprint())
		}
	}
	for _, a := range accepted {
		if !a.seen && !a.chance {
			t.Errorf("accepted difference %s %q never showed: fixed? Remove it from accepted and docs/sandbox-fidelity.md", a.path, a.what)
		}
	}
	t.Logf("scenario done in %s", time.Since(start).Round(time.Second))
}

func (h *harness) accept(d difference, step int, stepIndex map[string]int) *acceptedDiff {
	for _, a := range accepted {
		if a.re.MatchString(d.path) && a.what == d.what && (a.afterStep == "" || step >= stepIndex[a.afterStep]) {
			return a
		}
	}
	return nil
}

// both runs f on the Kafka chroot and the sandbox chroot.
func (h *harness) both(f func(root string) error) {
	h.t.Helper()
	for _, root := range []string{h.kroot(), h.sroot} {
		if err := f(root); err != nil {
			h.t.Fatalf("%s: %v", root, err)
		}
	}
}

func (h *harness) createTopics() {
	h.t.Helper()
	acl := zk.WorldACL(zk.PermAll)
	for _, tp := range topics {
		a := cluster.NewTopicAssignment(tp.assignment, "")
		h.both(func(root string) error {
			_, err := h.conn.Multi(
				&zk.CreateRequest{Path: root + cluster.TopicConfigPath(tp.name), Data: cluster.EncodeEntityConfig(tp.config), Acl: acl},
				&zk.CreateRequest{Path: root + cluster.TopicPath(tp.name), Data: cluster.EncodeTopicAssignment(a), Acl: acl},
			)
			return err
		})
	}
}

// crash kills brokers on both sides. One broker: Kafka's is SIGKILLed and
// its registration goes when ZooKeeper expires its session; the sandbox's
// session closes at once. Several: they must go in one event, as a lost
// rack whose sessions expire in the same tick, which killed processes do
// not guarantee (their sessions may expire a tick apart): Kafka's are
// SIGKILLed and their ephemeral znodes (registrations, /controller) deleted
// in one multi, what the sandbox's KillTogether does.
func (h *harness) crash(ids ...int) {
	h.t.Helper()
	for _, id := range ids {
		delete(h.live, id)
	}
	parallel(func() {
		var wg sync.WaitGroup
		for _, id := range ids {
			wg.Add(1)
			go func() { defer wg.Done(); h.kafka.Broker(id).Kill() }()
		}
		wg.Wait()
		if len(ids) > 1 {
			if err := deleteEphemerals(h.conn, h.kroot(), ids); err != nil {
				h.t.Error(err)
			}
		}
	}, func() {
		var err error
		if len(ids) == 1 {
			err = h.sb.Kill(ids[0])
		} else {
			err = h.sb.KillTogether(ids...)
		}
		if err != nil {
			h.t.Error(err)
		}
	})
	if h.t.Failed() {
		h.t.FailNow()
	}
}

// loseByExpiry SIGKILLs brokers (not the controller) on Kafka and lets
// ZooKeeper expire their sessions, reads from the controller's log how it
// saw them go ("deleted brokers: 1,5", or one line per broker), and kills
// the sandbox's the same way: together, or one after the other, each
// handled before the next.
func (h *harness) loseByExpiry(ids ...int) {
	h.t.Helper()
	ctrl, _, err := h.kafka.Controller()
	if err != nil || slices.Contains(ids, ctrl) {
		h.t.Fatalf("controller %d (%v): the brokers lost by expiry must not include it", ctrl, err)
	}
	logFile := h.kafka.Broker(ctrl).LogFile()
	from := len(readFile(logFile))
	for _, id := range ids {
		delete(h.live, id)
	}
	var wg sync.WaitGroup
	for _, id := range ids {
		wg.Add(1)
		go func() { defer wg.Done(); h.kafka.Broker(id).Kill() }()
	}
	wg.Wait()
	deleted := regexp.MustCompile(`deleted brokers: ([0-9,]*),`)
	var groups [][]int
	deadline := time.Now().Add(settleTimeout)
	for {
		groups = nil
		n := 0
		for _, m := range deleted.FindAllStringSubmatch(readFile(logFile)[from:], -1) {
			var g []int
			for _, f := range strings.Split(m[1], ",") {
				if id, err := strconv.Atoi(f); err == nil && slices.Contains(ids, id) {
					g = append(g, id)
				}
			}
			if len(g) > 0 {
				groups = append(groups, g)
				n += len(g)
			}
		}
		if n == len(ids) {
			break
		}
		if time.Now().After(deadline) {
			h.t.Fatalf("Kafka's controller %d did not log the loss of brokers %v (saw %v)", ctrl, ids, groups)
		}
		time.Sleep(pollInterval)
	}
	h.t.Logf("Kafka's controller saw brokers %v go as %v", ids, groups)
	live := maps.Clone(h.live)
	for i, g := range groups {
		var err error
		if len(g) == 1 {
			err = h.sb.Kill(g[0])
		} else {
			err = h.sb.KillTogether(g...)
		}
		if err != nil {
			h.t.Fatal(err)
		}
		if i < len(groups)-1 {
			h.settleSandbox(live, groups[i+1:])
		}
	}
	h.live = live
}

// settleSandbox waits until the sandbox is at rest with the brokers of
// pending still running.
func (h *harness) settleSandbox(live map[int]bool, pending [][]int) {
	h.t.Helper()
	saved := h.live
	h.live = maps.Clone(live)
	for _, g := range pending {
		for _, id := range g {
			h.live[id] = true
		}
	}
	defer func() { h.live = saved }()
	deadline := time.Now().Add(settleTimeout)
	for {
		st, err := readTree(h.conn, h.sroot)
		if err != nil {
			h.t.Fatal(err)
		}
		why := h.atRest(st, "sandbox")
		if why == "" {
			return
		}
		if time.Now().After(deadline) {
			h.t.Fatalf("the sandbox did not settle: %s", why)
		}
		time.Sleep(pollInterval)
	}
}

func readFile(p string) string {
	b, _ := os.ReadFile(p)
	return string(b)
}

// deleteEphemerals deletes the registrations of brokers, and /controller
// if one of them holds it, in one multi.
func deleteEphemerals(conn *zk.Conn, root string, ids []int) error {
	owners := map[int64]bool{}
	var ops []any
	for _, id := range ids {
		p := root + cluster.BrokerIDPath(id)
		_, st, err := conn.Get(p)
		if err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		owners[st.EphemeralOwner] = true
		ops = append(ops, &zk.DeleteRequest{Path: p, Version: -1})
	}
	if _, st, err := conn.Get(root + cluster.ControllerPath); err == nil && owners[st.EphemeralOwner] {
		ops = append(ops, &zk.DeleteRequest{Path: root + cluster.ControllerPath, Version: -1})
	}
	_, err := conn.Multi(ops...)
	return err
}

func (h *harness) start(id int) {
	h.t.Helper()
	h.live[id] = true
	var kerr, serr error
	parallel(func() { kerr = h.kafka.Broker(id).Start() }, func() { serr = h.sb.Restart(id) })
	if kerr != nil || serr != nil {
		h.t.Fatalf("start broker %d: kafka %v, sandbox %v", id, kerr, serr)
	}
}

// settle waits until both trees are at rest and have not changed for the
// quiet period, and, after a controller change, until the new controller's
// first rebalance check (5 s) and one more have run. At rest means what
// Kafka's controller converges to: the live brokers registered, a live
// controller, no pending preferred election, and every partition of a topic
// not being deleted either led by a live in-sync broker with every live
// replica in its ISR, or leaderless with no live ISR member.
func (h *harness) settle(step string) (kt, st tree) {
	h.t.Helper()
	deadline := time.Now().Add(settleTimeout)
	var last, why string
	var since time.Time
	for {
		var kerr, serr error
		parallel(func() { kt, kerr = readTree(h.conn, h.kroot()) }, func() { st, serr = readTree(h.conn, h.sroot) })
		if kerr != nil || serr != nil {
			h.t.Fatalf("step %q: read the trees: kafka %v, sandbox %v", step, kerr, serr)
		}
		now := time.Now()
		fp := kt.fingerprint() + "\x00" + st.fingerprint()
		kwhy, swhy := h.atRest(kt, "kafka"), h.atRest(st, "sandbox")
		wait := failoverWait(now, kt, st)
		switch {
		case fp != last:
			last, since, why = fp, now, "changing"
		case kwhy != "" || swhy != "":
			since, why = now, strings.TrimSpace(kwhy+" "+swhy)
		case now.Sub(since) >= quietPeriod && wait <= 0:
			return kt, st
		case wait > 0:
			why = "waiting for the new controller's first rebalance checks"
		}
		if now.After(deadline) {
			h.t.Fatalf("step %q: the trees did not settle within %s (%s)\nkafka tree:\n%s\nsandbox tree:\n%s",
				step, settleTimeout, why, kt.fingerprint(), st.fingerprint())
		}
		time.Sleep(pollInterval)
	}
}

// failoverWait is how long is left until each side's controller has run
// its first rebalance check (5 s after it took over: /controller's
// creation) and one more.
func failoverWait(now time.Time, trees ...tree) time.Duration {
	var left time.Duration
	for _, t := range trees {
		if c, ok := t[cluster.ControllerPath]; ok {
			left = max(left, time.UnixMilli(c.ctime).Add(firstCheck+2*imbalanceCheck).Sub(now))
		}
	}
	return left
}

// atRest returns why a tree is not at rest ("" when it is).
func (h *harness) atRest(t tree, side string) string {
	var live []int
	for id := range h.live {
		live = append(live, id)
	}
	slices.Sort(live)
	var registered []int
	for p := range t {
		if rest, ok := strings.CutPrefix(p, cluster.BrokerIDsPath+"/"); ok {
			if id, err := strconv.Atoi(rest); err == nil {
				registered = append(registered, id)
			}
		}
	}
	slices.Sort(registered)
	if !slices.Equal(registered, live) {
		return fmt.Sprintf("%s: registered %v, live %v", side, registered, live)
	}
	c, ok := t[cluster.ControllerPath]
	if !ok {
		return side + ": no controller"
	}
	info, err := cluster.DecodeController(c.raw)
	if err != nil || !h.live[info.BrokerID] {
		return fmt.Sprintf("%s: controller %s", side, c.raw)
	}
	if _, ok := t[cluster.PreferredReplicaElectionPath]; ok {
		return side + ": preferred election pending"
	}
	if _, ok := t[cluster.ReassignPartitionsPath]; ok {
		return side + ": reassignment pending"
	}
	for p, n := range t {
		name, ok := strings.CutPrefix(p, cluster.BrokerTopicsPath+"/")
		if !ok || strings.Contains(name, "/") {
			continue
		}
		if _, deleting := t[cluster.DeleteTopicPath(name)]; deleting {
			continue
		}
		a, err := cluster.DecodeTopicAssignment(n.raw)
		if err != nil {
			return fmt.Sprintf("%s: %s: %v", side, p, err)
		}
		if len(a.AddingReplicas) > 0 || len(a.RemovingReplicas) > 0 {
			return fmt.Sprintf("%s: %s is being reassigned", side, p)
		}
		for part, replicas := range a.Partitions {
			sn, ok := t[cluster.PartitionStatePath(name, part)]
			if !ok {
				return fmt.Sprintf("%s: %s-%d has no state", side, name, part)
			}
			s, err := cluster.DecodePartitionState(sn.raw)
			if err != nil {
				return fmt.Sprintf("%s: %s-%d: %v", side, name, part, err)
			}
			liveISR := slices.ContainsFunc(s.ISR, func(b int) bool { return h.live[b] })
			if s.Leader < 0 {
				if liveISR {
					return fmt.Sprintf("%s: %s-%d leaderless with a live ISR member", side, name, part)
				}
				continue
			}
			if !h.live[s.Leader] || !slices.Contains(s.ISR, s.Leader) {
				return fmt.Sprintf("%s: %s-%d led by %d, ISR %v", side, name, part, s.Leader, s.ISR)
			}
			for _, r := range replicas {
				if h.live[r] != slices.Contains(s.ISR, r) {
					return fmt.Sprintf("%s: %s-%d ISR %v, live %v", side, name, part, s.ISR, live)
				}
			}
		}
	}
	return ""
}

// leaderISR renders a partition's leader and ISR ("2 [2,3]"), "absent"
// without a state znode.
func leaderISR(t tree, name string) string {
	i := strings.LastIndexByte(name, '-')
	p, _ := strconv.Atoi(name[i+1:])
	n, ok := t[cluster.PartitionStatePath(name[:i], p)]
	if !ok {
		return "absent"
	}
	s, err := cluster.DecodePartitionState(n.raw)
	if err != nil {
		return err.Error()
	}
	isr := make([]string, len(s.ISR))
	for i, b := range s.ISR {
		isr[i] = strconv.Itoa(b)
	}
	out := fmt.Sprintf("%d [%s]", s.Leader, strings.Join(isr, ","))
	if s.LeaderRecoveryState == cluster.LeaderRecovering {
		out += " recovering"
	}
	return out
}

func parallel(fs ...func()) {
	var wg sync.WaitGroup
	for _, f := range fs {
		wg.Add(1)
		go func() { defer wg.Done(); f() }()
	}
	wg.Wait()
}

// logBuffer collects the sandbox's log for a failed test.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

func lastLines(s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
