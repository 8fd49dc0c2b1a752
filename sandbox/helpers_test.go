package sandbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/ktopo/ktopo/assign"
	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/internal/testkit/zktest"
)

func TestMain(m *testing.M) { zktest.Main(m) }

// waitDeadline is generous: conditions are polled, never slept on.
const waitDeadline = 60 * time.Second

// logBuffer collects log lines for assertions.
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

// env is one sandbox on its own chroot plus a test session on it.
type env struct {
	t       testing.TB
	connect string
	c       *Cluster
	zk      zkConn
	logs    *logBuffer
}

// newEnv starts a sandbox (pace 0) on a fresh chroot. The automatic
// leader rebalance is off unless the test sets its interval: a check 5 s
// after the failover would move leaders back behind the tests' backs.
func newEnv(t testing.TB, cfg Config) *env {
	t.Helper()
	if cfg.Connect == "" {
		cfg.Connect = zktest.Chroot(t)
	}
	if cfg.LeaderImbalanceCheckInterval == 0 {
		cfg.NoAutoLeaderRebalance = true
	}
	logs := &logBuffer{}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	e := &env{t: t, connect: cfg.Connect, logs: logs}
	e.zk = testSession(t, cfg.Connect)
	c, err := Start(context.Background(), cfg)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	e.c = c
	t.Cleanup(func() {
		if err := c.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
		if t.Failed() {
			t.Logf("sandbox log:\n%s", lastLines(logs.String(), 400))
		}
	})
	return e
}

func lastLines(s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// testSession opens a chroot-relative session closed at the end of the test.
func testSession(t testing.TB, connect string) zkConn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	conn, err := connectSession(ctx, connect, dialOptions{sessionTimeout: 10 * time.Second})
	if err != nil {
		t.Fatalf("connect %s: %v", connect, err)
	}
	t.Cleanup(conn.Close)
	return conn
}

// waitFor polls cond until it reports true or the deadline passes; cond
// returns a description of what it saw, for the failure message.
func waitFor(t testing.TB, what string, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(waitDeadline)
	last := ""
	for {
		ok, seen := cond()
		if ok {
			return
		}
		last = seen
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s; last seen:\n%s", waitDeadline, what, last)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// node is a znode's raw content.
type node struct {
	data    []byte
	version int32
	exists  bool
}

func (e *env) get(p string) node {
	e.t.Helper()
	data, stat, err := e.zk.Get(p)
	if errors.Is(err, zk.ErrNoNode) {
		return node{}
	}
	if err != nil {
		e.t.Fatalf("get %s: %v", p, err)
	}
	return node{data: data, version: stat.Version, exists: true}
}

func (e *env) exists(p string) bool {
	e.t.Helper()
	ok, _, err := e.zk.Exists(p)
	if err != nil {
		e.t.Fatalf("exists %s: %v", p, err)
	}
	return ok
}

// st is an expected partition state znode: its JSON (through the cluster
// encoder, so byte-for-byte Kafka's) and its zkVersion.
type st struct {
	leader, leaderEpoch, controllerEpoch int
	isr                                  []int
	version                              int32
	recovering                           bool
}

func (s st) json() string {
	ps := cluster.PartitionState{ControllerEpoch: s.controllerEpoch, Leader: s.leader, Version: 1, LeaderEpoch: s.leaderEpoch, ISR: s.isr}
	if s.recovering {
		ps.LeaderRecoveryState = cluster.LeaderRecovering
	}
	return string(cluster.EncodePartitionState(ps))
}

func (s st) String() string { return fmt.Sprintf("%s (v%d)", s.json(), s.version) }

// states compares the state znodes of topic's partitions with want;
// a missing want entry means the znode must not exist.
func (e *env) states(topic string, want map[int]*st) (bool, string) {
	ids := sortedInts(want)
	got := make([]string, len(ids))
	var wg sync.WaitGroup
	sem := make(chan struct{}, 64)
	for i, p := range ids {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			data, stat, err := e.zk.Get(cluster.PartitionStatePath(topic, p))
			switch {
			case errors.Is(err, zk.ErrNoNode):
				got[i] = "absent"
			case err != nil:
				got[i] = "error: " + err.Error()
			default:
				got[i] = fmt.Sprintf("%s (v%d)", data, stat.Version)
			}
		}()
	}
	wg.Wait()
	var b strings.Builder
	ok := true
	for i, p := range ids {
		exp := "absent"
		if w := want[p]; w != nil {
			exp = w.String()
		}
		if got[i] != exp {
			ok = false
			fmt.Fprintf(&b, "  %s-%d: got %s, want %s\n", topic, p, got[i], exp)
		}
	}
	return ok, b.String()
}

func (e *env) waitStates(topic string, want map[int]*st) {
	e.t.Helper()
	waitFor(e.t, "partition states of "+topic, func() (bool, string) { return e.states(topic, want) })
}

// createTopic writes a topic the way "ktopo topics create" does (config
// znode + version 3 topic znode without topic id, one multi); the
// controller adds the topic id.
func (e *env) createTopic(topic string, assignment map[int][]int, config map[string]string) {
	e.t.Helper()
	e.createTopicWithID(topic, assignment, config, "")
}

// createTopicWithID writes the topic with a topic id, as a 2.8+ broker
// handling CreateTopics does.
func (e *env) createTopicWithID(topic string, assignment map[int][]int, config map[string]string, id string) {
	e.t.Helper()
	a := cluster.NewTopicAssignment(assignment, id)
	_, err := e.zk.Multi(
		&zk.CreateRequest{Path: cluster.TopicConfigPath(topic), Data: cluster.EncodeEntityConfig(config), Acl: openACL},
		&zk.CreateRequest{Path: cluster.TopicPath(topic), Data: cluster.EncodeTopicAssignment(a), Acl: openACL},
	)
	if err != nil {
		e.t.Fatalf("create topic %s: %v", topic, err)
	}
}

func (e *env) create(p string, data []byte) {
	e.t.Helper()
	if _, err := e.zk.Create(p, data, 0, openACL); err != nil {
		e.t.Fatalf("create %s: %v", p, err)
	}
}

func (e *env) kill(id int) {
	e.t.Helper()
	if err := e.c.Kill(id); err != nil {
		e.t.Fatalf("kill %d: %v", id, err)
	}
}

func (e *env) restart(id int) {
	e.t.Helper()
	if err := e.c.Restart(id); err != nil {
		e.t.Fatalf("restart %d: %v", id, err)
	}
}

// registered lists /brokers/ids.
func (e *env) registered() []string {
	kids, _, err := e.zk.Children(cluster.BrokerIDsPath)
	if err != nil {
		e.t.Fatalf("children %s: %v", cluster.BrokerIDsPath, err)
	}
	slices.Sort(kids)
	return kids
}

// waitBrokerDown waits until the controller has handled broker id's
// departure: its znode is gone and no state znode of topics lists it in
// an ISR of more than one member (it is removed from every ISR).
func (e *env) waitRegistered(ids ...string) {
	e.t.Helper()
	slices.Sort(ids)
	waitFor(e.t, "registered brokers "+strings.Join(ids, ","), func() (bool, string) {
		got := e.registered()
		return slices.Equal(got, ids), strings.Join(got, ",")
	})
}

// controller returns the id in /controller (-1 if none) and the epoch.
func (e *env) controller() (int, int) {
	id := -1
	if n := e.get(cluster.ControllerPath); n.exists {
		c, err := cluster.DecodeController(n.data)
		if err != nil {
			e.t.Fatalf("decode /controller: %v", err)
		}
		id = c.BrokerID
	}
	epoch := 0
	if n := e.get(cluster.ControllerEpochPath); n.exists {
		epoch, _ = cluster.DecodeControllerEpoch(n.data)
	}
	return id, epoch
}

// rackAwareAssignment is Kafka's assignment (fixed start 0) on brokers
// 1..n spread round-robin over racks.
func rackAwareAssignment(t testing.TB, n, racks, partitions, rf int) map[int][]int {
	t.Helper()
	var bs []assign.Broker
	for id := 1; id <= n; id++ {
		bs = append(bs, assign.BR(id, RackName((id-1)%racks)))
	}
	res, err := assign.Assign(bs, partitions, rf, assign.Fixed(0))
	if err != nil {
		t.Fatal(err)
	}
	return res.Assignment
}
