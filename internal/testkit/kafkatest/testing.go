package kafkatest

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/ktopo/ktopo/internal/testkit/zktest"
)

// Require returns the jars of a Kafka version, fetching them if needed. It
// skips the test when Java or Maven is missing or Maven Central cannot be
// reached, except under CI=true, where that fails the test: CI must run the
// real-Kafka suite.
func Require(t testing.TB, version string) *Dist {
	t.Helper()
	d, err := FetchKafka(version)
	if err != nil {
		failOrSkip(t, err)
	}
	return d
}

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

// StopAll stops the package's shared clusters (zktest.Main(m, kafkatest.StopAll)).
func StopAll() {
	shared.Lock()
	defer shared.Unlock()
	for _, sc := range shared.clusters {
		if sc.c != nil {
			sc.c.Stop()
		}
	}
	shared.clusters = nil
	stopRunners()
}

// Attach prints, when the test fails, what each broker of c logged while
// the test ran (the last 60 lines of it; the whole log stays in the cluster's directory while it runs).
func Attach(t testing.TB, c *Cluster) {
	t.Helper()
	from := map[int]int{}
	for _, b := range c.brokers {
		from[b.ID] = len(readFile(b.logFile))
	}
	t.Cleanup(func() {
		if !t.Failed() {
			return
		}
		var sb strings.Builder
		for _, b := range c.brokers {
			log := readFile(b.logFile)
			if n := from[b.ID]; n <= len(log) {
				log = log[n:]
			}
			fmt.Fprintf(&sb, "--- broker %d log (%s) during %s ---\n%s\n", b.ID, b.logFile, t.Name(), tail(log, 60))
		}
		t.Log(sb.String())
	})
}
