package kafkatest

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/ktopo/ktopo/internal/testkit/zktest"
)

// A migration's state as the tests read it: healing, the stuck-sync fault,
// /migration, readiness, and the nodes.

// Heal starts every stopped node again (in its current role), lets the
// controllers reach ZooKeeper if StallSync cut them off, and waits until
// the cluster is ready for its phase: what a test that failed nodes of a
// shared migration calls last.
func (m *Migration) Heal() error {
	m.ResumeSync()
	controllersUp := m.Phase() != PhaseZK && m.Phase() != PhaseAbandoned
	var down []*Node
	for _, n := range m.Nodes() {
		if !n.Running() && (n.Role != KRaftController || controllersUp) {
			down = append(down, n)
		}
	}
	if err := m.waitUnregistered(down); err != nil {
		return err
	}
	if err := startAll(down); err != nil {
		return err
	}
	return m.waitReady(2 * time.Minute)
}

// SyncProxy is the proxy between the controllers and ZooKeeper (their
// zookeeper.connect): its faults (latency, stalls, a black hole) reach
// only the controllers' dual writes, never the brokers.
func (m *Migration) SyncProxy() *zktest.Proxy { return m.proxy }

// StallSync black-holes the controllers' ZooKeeper connection: their
// writes to ZooKeeper stop (/migration's kraft_metadata_offset freezes,
// and so do the topics' znodes) while the KRaft quorum goes on
// committing metadata. Their ZooKeeper session expires on the server
// after the session timeout.
func (m *Migration) StallSync() { m.proxy.BlackHole() }

// ResumeSync lets the controllers reach ZooKeeper again: they reconnect
// and write what they missed.
func (m *Migration) ResumeSync() { m.proxy.Pass() }

// MigrationState is what /migration holds: the KRaft controller's
// position in the dual write, which it updates with every batch of
// metadata it writes to ZooKeeper.
type MigrationState struct {
	// Version is the znode's format version (0).
	Version int `json:"version"`
	// KRaftControllerID is the node id of the KRaft controller that last
	// wrote the znode (-1 before any KRaft controller led).
	KRaftControllerID int `json:"kraft_controller_id"`
	// KRaftControllerEpoch is that controller's KRaft leader epoch.
	KRaftControllerEpoch int `json:"kraft_controller_epoch"`
	// KRaftMetadataOffset is the offset of the last KRaft metadata
	// record written to ZooKeeper (-1 before the migration copied the
	// metadata).
	KRaftMetadataOffset int64 `json:"kraft_metadata_offset"`
	// KRaftMetadataEpoch is the epoch of that record.
	KRaftMetadataEpoch int `json:"kraft_metadata_epoch"`
	// ZNodeVersion and Mtime are the znode's stat: its data version (one
	// more per update) and last modification.
	ZNodeVersion int32     `json:"-"`
	Mtime        time.Time `json:"-"`
}

// MigrationState reads /migration (zk.ErrNoNode when there is none).
func (m *Migration) MigrationState() (MigrationState, error) {
	conn, err := m.zk.zk()
	if err != nil {
		return MigrationState{}, err
	}
	defer conn.Close()
	return readMigrationState(conn, m.zk.chroot)
}

func readMigrationState(conn *zk.Conn, chroot string) (MigrationState, error) {
	data, stat, err := conn.Get(chroot + "/migration")
	if err != nil {
		return MigrationState{}, err
	}
	var st MigrationState
	if err := json.Unmarshal(data, &st); err != nil {
		return MigrationState{}, fmt.Errorf("kafkatest: /migration holds %q: %w", data, err)
	}
	st.ZNodeVersion, st.Mtime = stat.Version, time.UnixMilli(stat.Mtime)
	return st, nil
}

// WaitReady waits until the cluster is ready for its phase: every
// running ZooKeeper-mode broker registered in ZooKeeper (and no stopped
// one), every running KRaft broker registered and unfenced in KRaft, a
// quorum leader among the running controllers (once provisioned), and
// the controller in /controller one of the running brokers (before the
// migration) or the quorum leader (from PhaseHybrid until Finalize).
func (m *Migration) WaitReady(timeout time.Duration) error {
	return m.waitReady(timeout)
}

func (m *Migration) waitReady(timeout time.Duration) error {
	conn, err := m.zk.zk()
	if err != nil {
		return err
	}
	defer conn.Close()
	deadline := time.Now().Add(timeout)
	var last string
	for {
		ok, why, err := m.ready(conn)
		if err != nil {
			return err
		}
		if ok {
			return nil
		}
		last = why
		if time.Now().After(deadline) {
			return fmt.Errorf("kafkatest: migration (phase %s) not ready after %s: %s\n%s", m.Phase(), timeout, last, m.LogTails(30))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func (m *Migration) ready(conn *zk.Conn) (bool, string, error) {
	var zkBrokers []int
	var kraftNodes []*Node
	for _, n := range m.Nodes() {
		if n.crashed() {
			return false, "", n.exitedError()
		}
		if !n.Running() {
			continue
		}
		if n.Role == ZKBroker {
			zkBrokers = append(zkBrokers, n.ID)
		} else {
			kraftNodes = append(kraftNodes, n)
		}
	}
	ids, _, err := conn.Children(m.zk.chroot + "/brokers/ids")
	if err != nil {
		return false, "no /brokers/ids yet", nil
	}
	if got := atoiAll(ids); !slices.Equal(got, zkBrokers) {
		return false, fmt.Sprintf("registered in ZooKeeper %v, ZooKeeper-mode brokers running %v", got, zkBrokers), nil
	}
	if stale := staleRegistration(conn, m.zk.chroot, m.zk.brokers); stale != "" {
		return false, stale, nil
	}
	// KRaft brokers list the brokers registered with the controller: in a
	// hybrid cluster the ZooKeeper-mode brokers too.
	if len(kraftNodes) > 0 {
		if ok, why, err := kraftReadyWith(kraftNodes, runningBrokerIDs(m.zk.brokers)); !ok || err != nil {
			return ok, why, err
		}
	}
	ctrl, _, cerr := conn.Get(m.zk.chroot + "/controller")
	switch m.Phase() {
	case PhaseZK, PhaseControllers, PhaseMigrating, PhaseAbandoned:
		if cerr != nil {
			return false, "no controller in ZooKeeper yet", nil
		}
		if id := controllerID(ctrl); !slices.Contains(zkBrokers, id) && m.Phase() != PhaseMigrating {
			return false, fmt.Sprintf("controller %d is not a running broker", id), nil
		}
	case PhaseHybrid, PhaseDualWrite:
		q, err := describeQuorum(context.Background(), runningControllerAddrs(m.controllers))
		if err != nil {
			return false, "no quorum leader: " + err.Error(), nil
		}
		if cerr != nil || controllerID(ctrl) != q.LeaderID {
			return false, fmt.Sprintf("/controller %s, quorum leader %d", ctrl, q.LeaderID), nil
		}
	}
	return true, "", nil
}

func runningBrokerIDs(brokers []*Node) []int {
	var out []int
	for _, b := range brokers {
		if b.Running() {
			out = append(out, b.ID)
		}
	}
	slices.Sort(out)
	return out
}

// ClusterID is the cluster's id, which the ZooKeeper-mode brokers made
// (/cluster/id) and the controllers are formatted with.
func (m *Migration) ClusterID() string { return m.clusterID }

// Dist is the Kafka 3.9.2 jars and tools.
func (m *Migration) Dist() *Dist { return m.zk.dist }

// Dir holds the nodes' data, properties and logs.
func (m *Migration) Dir() string { return m.zk.dir }

// Connect is the ZooKeeper connect string with the chroot (what ktopo's
// --zookeeper takes).
func (m *Migration) Connect() string { return m.zk.Connect() }

// Chroot is the cluster's ZooKeeper chroot.
func (m *Migration) Chroot() string { return m.zk.chroot }

// Bootstrap is the brokers' listener list (the same ports in every mode).
func (m *Migration) Bootstrap() string { return m.zk.Bootstrap() }

// ControllerBootstrap is the KRaft controllers' listener list
// (--bootstrap-controller).
func (m *Migration) ControllerBootstrap() string { return controllerBootstrap(m.controllers) }

// QuorumVoters is controller.quorum.voters of the controllers and of the
// brokers from EnableMigration on.
func (m *Migration) QuorumVoters() string { return quorumVoters(m.controllers) }

// Brokers returns the brokers by id (their Role says their mode).
func (m *Migration) Brokers() []*Node { return m.zk.brokers }

// Controllers returns the KRaft controllers by id (provisioned or not).
func (m *Migration) Controllers() []*Node { return m.controllers }

// Nodes returns the brokers, then the controllers.
func (m *Migration) Nodes() []*Node { return append(slices.Clone(m.zk.brokers), m.controllers...) }

// Node returns the broker or controller with id (nil if none).
func (m *Migration) Node(id int) *Node { return nodeByID(m.Nodes(), id) }

// Quorum describes the KRaft metadata quorum (an error before
// ProvisionControllers or once every controller is stopped).
func (m *Migration) Quorum() (Quorum, error) {
	return describeQuorum(context.Background(), runningControllerAddrs(m.controllers))
}

// Topics runs kafka-topics --bootstrap-server against the brokers.
func (m *Migration) Topics(args ...string) (Result, error) {
	return m.zk.dist.Command("kafka-topics", append([]string{"--bootstrap-server", m.Bootstrap()}, args...)...)
}

// LogTails returns the last n lines of every node's log.
func (m *Migration) LogTails(n int) string { return logTails(m.Nodes(), n) }

// Stop stops the brokers, then the controllers, closes the proxy and
// removes the directory if StartMigration made it.
func (m *Migration) Stop() {
	stopAll(m.zk.brokers)
	stopAll(m.controllers)
	if m.proxy != nil {
		m.proxy.Close()
	}
	m.zk.Stop()
}
