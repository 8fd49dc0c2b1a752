package kafkatest

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ktopo/ktopo/internal/testkit/zktest"
)

// Require returns the jars of a Kafka version, fetching them if needed. It
// skips the test when Java or Maven is missing or Maven Central cannot be
// reached, except under CI=true, where that fails the test: CI must run the
// real-Kafka suite.
func Require(t testing.TB, version string) *Dist {
	t.Helper()
	if MinTimeout > 0 && os.Getenv("CI") != "true" {
		if f := flag.Lookup("test.timeout"); f != nil {
			if d, ok := f.Value.(flag.Getter).Get().(time.Duration); ok && d > 0 && d < MinTimeout {
				t.Skipf("skipping real-Kafka test: this package's real-Kafka tests take longer than go test's -timeout %v; "+
					"run them with go test -timeout 40m (CI does)", d)
			}
		}
	}
	d, err := FetchKafka(version)
	if err != nil {
		failOrSkip(t, err)
	}
	return d
}

// MinTimeout, when set (by a package's tests, before they run), is the
// -timeout its real-Kafka tests need: with a shorter one (go test's
// default 10 minutes) Require skips them, except under CI=true, so that
// go test ./... passes on a user's machine instead of timing out.
var MinTimeout time.Duration

// RequireZooKeeper returns the class path of a ZooKeeper server version, as
// Require does for Kafka.
func RequireZooKeeper(t testing.TB, version string) string {
	t.Helper()
	cp, err := FetchZooKeeper(version)
	if err != nil {
		failOrSkip(t, err)
	}
	return cp
}

func failOrSkip(t testing.TB, err error) {
	t.Helper()
	if errors.Is(err, ErrUnavailable) && os.Getenv("CI") != "true" {
		t.Skip("skipping real-Kafka test: " + err.Error())
	}
	t.Fatal(err)
}

var shared struct {
	sync.Mutex
	clusters map[string]*sharedCluster
	kraft    map[string]*sharedKRaft
}

type sharedKRaft struct {
	once sync.Once
	c    *KRaftCluster
	err  error
}

type sharedCluster struct {
	once sync.Once
	c    *Cluster
	err  error
}

// Shared returns the package's cluster of a Kafka version: 3 brokers in 3
// racks on the package's ZooKeeper (zktest), in a chroot of its own,
// without automatic leader rebalance, started on first use and reused by
// the package's tests (a JVM start costs seconds on a 2-core machine). StopAll, given to zktest.Main,
// stops it. A test that stops or kills brokers gets them back when it
// ends; a failed test prints what the brokers logged meanwhile.
func Shared(t testing.TB, version string) *Cluster {
	t.Helper()
	Require(t, version)
	shared.Lock()
	if shared.clusters == nil {
		shared.clusters = map[string]*sharedCluster{}
	}
	sc := shared.clusters[version]
	if sc == nil {
		sc = &sharedCluster{}
		shared.clusters[version] = sc
	}
	shared.Unlock()
	sc.once.Do(func() {
		name := "kafka-" + strings.ReplaceAll(version, ".", "")
		// No automatic leader rebalance: it would move leaders back to a
		// restarted broker behind a test's back (the first check comes 5 s
		// after a failover, then every 300 s), while tests watch leaders
		// stay or elect them themselves.
		sc.c, sc.err = Start(Options{Version: version, Connect: zktest.Addr(t) + zktest.ChrootPath(name),
			Props: map[string]string{"auto.leader.rebalance.enable": "false"}})
	})
	if sc.err != nil {
		failOrSkip(t, sc.err)
	}
	Attach(t, sc.c)
	t.Cleanup(func() {
		if len(sc.c.Running()) < len(sc.c.brokers) {
			if err := sc.c.Heal(); err != nil {
				t.Errorf("kafkatest: bring the shared cluster back: %v", err)
			}
		}
	})
	return sc.c
}

// SharedKRaft returns the package's KRaft cluster of a Kafka version (Kafka44,
// Kafka39): 3 controllers (ids 3000-3002) and 3 brokers (ids 1-3, racks
// rack-a..c), without automatic leader rebalance, started on first use and
// reused by the package's tests; StopAll, given to zktest.Main (or called
// at the end of TestMain), stops it. A test that stops or kills nodes gets
// them back when it ends; a failed test prints what the nodes logged
// meanwhile.
func SharedKRaft(t testing.TB, version string) *KRaftCluster {
	t.Helper()
	return sharedKRaftOf(t, version, false)
}

// SharedCombined returns the package's one-node KRaft cluster of a Kafka
// version (node 1: process.roles=broker,controller, rack-a), as SharedKRaft
// does: the quickest real Kafka to start (about 1.2 s of JVM start once
// its class archive is made, see cds.go).
func SharedCombined(t testing.TB, version string) *KRaftCluster {
	t.Helper()
	return sharedKRaftOf(t, version, true)
}

func sharedKRaftOf(t testing.TB, version string, combined bool) *KRaftCluster {
	t.Helper()
	Require(t, version)
	key := version + "/kraft"
	if combined {
		key = version + "/combined"
	}
	shared.Lock()
	if shared.kraft == nil {
		shared.kraft = map[string]*sharedKRaft{}
	}
	sk := shared.kraft[key]
	if sk == nil {
		sk = &sharedKRaft{}
		shared.kraft[key] = sk
	}
	shared.Unlock()
	sk.once.Do(func() {
		sk.c, sk.err = StartKRaft(KRaftOptions{Version: version, Combined: combined,
			Props: map[string]string{"auto.leader.rebalance.enable": "false"}})
	})
	if sk.err != nil {
		failOrSkip(t, sk.err)
	}
	Attach(t, sk.c)
	t.Cleanup(func() {
		if len(sk.c.Running()) < len(sk.c.nodes) {
			if err := sk.c.Heal(); err != nil {
				t.Errorf("kafkatest: bring the shared KRaft cluster back: %v", err)
			}
		}
	})
	return sk.c
}

var sharedMig struct {
	once sync.Once
	m    *Migration
	err  error
}

// SharedMigration returns the package's migration: Kafka 3.9.2 brokers
// (ids 1-3, racks rack-a..c) and one KRaft controller (3000) on the
// package's ZooKeeper (zktest), in a chroot of its own, started in
// PhaseZK on first use and reused by the package's tests; StopAll stops
// it. A migration goes one way: tests take it forward with MigrateTo, so
// the tests that need an earlier phase must run first (Go runs a
// package's tests in the order of their files' names, then of their
// place in the file). A test that stops or kills nodes, or stalls the
// sync, gets them back when it ends (Migration.Heal); a failed test
// prints what the nodes logged meanwhile. A whole migration takes about
// 40 s here.
func SharedMigration(t testing.TB) *Migration {
	t.Helper()
	Require(t, Kafka39)
	sharedMig.once.Do(func() {
		sharedMig.m, sharedMig.err = StartMigration(MigrationOptions{Connect: zktest.Addr(t) + zktest.ChrootPath("migration")})
	})
	if sharedMig.err != nil {
		failOrSkip(t, sharedMig.err)
	}
	m := sharedMig.m
	Attach(t, m)
	t.Cleanup(func() {
		if err := m.Heal(); err != nil {
			t.Errorf("kafkatest: bring the shared migration back: %v", err)
		}
	})
	return m
}

// StopAll stops the package's shared clusters (zktest.Main(m, kafkatest.StopAll)).
func StopAll() {
	shared.Lock()
	defer shared.Unlock()
	var wg sync.WaitGroup
	for _, sc := range shared.clusters {
		if sc.c != nil {
			wg.Add(1)
			go func() { defer wg.Done(); sc.c.Stop() }()
		}
	}
	for _, sk := range shared.kraft {
		if sk.c != nil {
			wg.Add(1)
			go func() { defer wg.Done(); sk.c.Stop() }()
		}
	}
	if sharedMig.m != nil {
		wg.Add(1)
		go func() { defer wg.Done(); sharedMig.m.Stop() }()
	}
	wg.Wait()
	shared.clusters, shared.kraft = nil, nil
	sharedMig.m, sharedMig.err, sharedMig.once = nil, nil, sync.Once{}
	stopRunners()
}

// NodeSet is what Attach prints the logs of: a Cluster, a KRaftCluster,
// a Migration.
type NodeSet interface {
	// Nodes returns every process of the set, running or not.
	Nodes() []*Node
}

// Attach prints, when the test fails, what each node of c logged while
// the test ran (the last 60 lines of it; the whole log stays in the
// cluster's directory while it runs).
func Attach(t testing.TB, c NodeSet) {
	t.Helper()
	type mark struct{ run, at int }
	from := map[*Node]mark{}
	for _, n := range c.Nodes() {
		from[n] = mark{n.Runs(), len(readFile(n.LogFile()))}
	}
	t.Cleanup(func() {
		if !t.Failed() {
			return
		}
		var sb strings.Builder
		for _, n := range c.Nodes() {
			log := readFile(n.LogFile())
			if f := from[n]; f.run == n.Runs() && f.at <= len(log) {
				log = log[f.at:]
			}
			fmt.Fprintf(&sb, "--- %s log (%s, run %d) during %s ---\n%s\n", n.Name(), n.LogFile(), n.Runs(), t.Name(), tail(log, 60))
		}
		t.Log(sb.String())
	})
}
