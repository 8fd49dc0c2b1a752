package sandbox

import (
	"fmt"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/internal/testkit/zktest"
)

// TestLostReplies: the controller's write of a new partition's state
// reaches ZooKeeper but its reply is lost (a proxy holds the replies, from
// a moment between two writes, then cuts every connection). The brokers resume their sessions and, as
// Kafka's KafkaZkClient.retryRequestsUntilConnected does, the controller
// sends the write again: NODEEXISTS. Kafka's partition state machine then
// logs a failed New → Online change and keeps the partition New in its
// context (no LeaderAndIsr goes out), although ZooKeeper holds its state,
// written once (zkVersion 0); the sandbox does the same. A new controller
// reads the state from ZooKeeper and leads the partition normally again:
// the partition's leader dies and it moves.
func TestLostReplies(t *testing.T) {
	p := zktest.StartProxy(t, zktest.Addr(t))
	cs := zktest.Chroot(t)
	chroot := cs[len(zktest.Addr(t)):]
	e := newEnv(t, Config{Connect: p.Addr() + chroot, Brokers: 3, SessionTimeout: 20 * time.Second})
	e.zk = testSession(t, cs)
	replicas := rackAwareAssignment(t, 3, 1, 12, 3)
	// One partition per write at this pace, each waiting for its reply.
	e.c.SetPace(200 * time.Millisecond)
	e.createTopic("lost", replicas, nil)
	count := func() int {
		n := 0
		for part := range replicas {
			if e.exists(cluster.PartitionStatePath("lost", part)) {
				n++
			}
		}
		return n
	}
	waitFor(t, "the controller at work", func() (bool, string) { return count() > 0, "" })
	// The replies are held from a moment no write straddles: a write
	// applied between the two counts may have had its reply through
	// before the hold, so the replies pass again and it is tried anew.
	var before int
	for {
		b := count()
		p.HoldReplies()
		if before = count(); before == b {
			break
		}
		p.Pass()
		if before == len(replicas) {
			t.Fatal("every partition was written before a reply could be held")
		}
	}
	waitFor(t, "a write applied without its reply", func() (bool, string) { return count() > before, "" })
	p.Cut()
	p.Pass()
	want := map[int]*st{}
	for part, r := range replicas {
		want[part] = &st{leader: r[0], controllerEpoch: 1, isr: r, version: 0}
	}
	e.waitStates("lost", want)
	e.waitRegistered("1", "2", "3")
	failed := regexp.MustCompile(`failed to change state for partition lost-(\d+) from NewPartition to OnlinePartition.*node already exists`)
	var m []string
	waitFor(t, "Kafka's failed state change", func() (bool, string) {
		m = failed.FindStringSubmatch(e.logs.String())
		return m != nil, ""
	})
	part, _ := strconv.Atoi(m[1])
	t.Logf("lost-%d: its state written once, its New → Online change failed on the resend, as in Kafka", part)

	e.c.SetPace(0)
	if err := e.c.MoveController(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "a new controller", func() (bool, string) {
		id, epoch := e.controller()
		return id > 0 && epoch == 2, fmt.Sprintf("controller %d epoch %d", id, epoch)
	})
	leader := replicas[part][0]
	e.kill(leader)
	var rest []int
	for _, r := range replicas[part] {
		if r != leader {
			rest = append(rest, r)
		}
	}
	waitFor(t, "lost-"+m[1]+"'s leadership moved off broker "+strconv.Itoa(leader), func() (bool, string) {
		data, _, err := e.zk.Get(cluster.PartitionStatePath("lost", part))
		if err != nil {
			return false, err.Error()
		}
		s, err := cluster.DecodePartitionState(data)
		return err == nil && s.Leader == rest[0] && len(s.ISR) == 2, string(data)
	})
}
