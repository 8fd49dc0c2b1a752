package kafkatest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/ktopo/ktopo/internal/testkit/zktest"
)

// Phase is how far a Migration has gone. The names follow Kafka's
// "ZooKeeper to KRaft Migration" (docs/ops.html, 3.9), whose steps the
// Migration's methods are.
type Phase string

// The phases of a Migration, in order (PhaseAbandoned leaves the line).
const (
	// PhaseZK: ZooKeeper-mode brokers (inter.broker.protocol.version=3.9)
	// and a ZooKeeper-mode controller among them; no KRaft process runs.
	PhaseZK Phase = "zk"
	// PhaseControllers: the KRaft controllers run, formatted with the ZK
	// cluster's id, with zookeeper.metadata.migration.enable=true; the
	// brokers do not know them yet and a broker is still the controller.
	PhaseControllers Phase = "controllers"
	// PhaseMigrating: some brokers restarted with the migration enabled
	// (zookeeper.metadata.migration.enable, the controllers' quorum): the
	// KRaft controller waits for all of them before it migrates.
	PhaseMigrating Phase = "migrating"
	// PhaseHybrid: the metadata is migrated; the KRaft controller is the
	// cluster's controller (it claimed /controller), writes every change
	// to ZooKeeper as well (dual write) and sends the ZooKeeper-mode
	// brokers their controller requests.
	PhaseHybrid Phase = "hybrid"
	// PhaseDualWrite: every broker is in KRaft mode (process.roles=broker,
	// no ZooKeeper); the controller still writes the metadata to
	// ZooKeeper.
	PhaseDualWrite Phase = "dual-write"
	// PhaseFinalized: the controllers restarted without the migration and
	// without zookeeper.connect: nothing writes to ZooKeeper any more.
	PhaseFinalized Phase = "finalized"
	// PhaseAbandoned: the migration given up before any broker ran in
	// KRaft mode: controllers deprovisioned, /controller deleted, brokers
	// rolled back to plain ZooKeeper mode, and /migration left behind (the
	// revert Kafka documents removes it; an operator who forgets leaves a
	// hazard for the next attempt).
	PhaseAbandoned Phase = "abandoned"
)

// MigrationOptions describe a ZooKeeper→KRaft migration of a Kafka 3.9
// cluster.
type MigrationOptions struct {
	// Connect is the ZooKeeper connect string with a chroot.
	Connect string
	// Brokers is the number of brokers, ids 1..N (default 3).
	Brokers int
	// Racks spreads the brokers over racks rack-a, rack-b, … (default 3;
	// -1: none).
	Racks int
	// Controllers is the number of KRaft controllers, ids
	// FirstControllerID.. (default 1: the quickest migration; 3 for a
	// quorum that survives a controller's loss).
	Controllers int
	// SessionTimeout is the brokers' and the controllers'
	// zookeeper.session.timeout.ms and the KRaft brokers'
	// broker.session.timeout.ms (default 6 s).
	SessionTimeout time.Duration
	// Props are extra server.properties of the brokers, in every mode
	// (they win over the defaults).
	Props map[string]string
	// ControllerProps are extra server.properties of the controllers.
	ControllerProps map[string]string
	// Dir holds each node's data, properties and logs; empty makes a
	// temporary directory that Stop removes.
	Dir string
	// Heap is the brokers' -Xmx (default 384m), ControllerHeap the
	// controllers' (default 256m).
	Heap, ControllerHeap string
	// Rolling restarts brokers one at a time, each registered again
	// before the next stops, as an operator keeping the cluster available
	// does; false (the default) restarts them all at once, which is
	// quicker (the phases and what ZooKeeper holds at their ends are the
	// same).
	Rolling bool
}

// Migration is a Kafka 3.9.2 cluster that starts in ZooKeeper mode and is
// migrated to KRaft step by step, as Kafka's documentation describes:
// ProvisionControllers, EnableMigration (then WaitMigrated), RollToKRaft,
// Finalize; or Abandon. The brokers stay the same Nodes (ids, ports, data)
// through every phase; their Role changes.
//
// The controllers reach ZooKeeper through a fault-injecting proxy
// (SyncProxy): StallSync black-holes it, so that the controllers' writes
// to ZooKeeper stop while KRaft goes on (a stuck dual write), and
// ResumeSync lets them through again.
type Migration struct {
	zk          *Cluster // the brokers, their ZooKeeper, chroot and directory
	controllers []*Node
	proxy       *zktest.Proxy
	clusterID   string

	rolling bool

	mu    sync.Mutex
	phase Phase
}

// StartMigration starts the ZooKeeper-mode cluster a migration begins
// from: Kafka 3.9.2 brokers with inter.broker.protocol.version=3.9 on
// Connect, ready (PhaseZK). Nothing of KRaft runs yet.
func StartMigration(o MigrationOptions) (*Migration, error) {
	if o.Controllers <= 0 {
		o.Controllers = 1
	}
	if o.ControllerHeap == "" {
		o.ControllerHeap = "256m"
	}
	props := map[string]string{"inter.broker.protocol.version": "3.9"}
	maps.Copy(props, o.Props)
	c, err := newCluster(Options{Version: Kafka39, Connect: o.Connect, Brokers: o.Brokers, Racks: o.Racks,
		SessionTimeout: o.SessionTimeout, Props: props, Dir: o.Dir, Heap: o.Heap})
	if err != nil {
		return nil, err
	}
	m := &Migration{zk: c, phase: PhaseZK, rolling: o.Rolling}
	m.proxy, err = zktest.NewProxy(c.hosts[0])
	if err != nil {
		return nil, err
	}
	for _, b := range c.brokers {
		b.conf = func(n *Node) map[string]string { return m.brokerProps(n, o) }
	}
	for i := range o.Controllers {
		id := FirstControllerID + i
		m.controllers = append(m.controllers, newNode(id, KRaftController, fmt.Sprintf("controller-%d", id), c.dist, c.dir, o.ControllerHeap,
			func(n *Node) map[string]string { return m.controllerProps(n, o) }))
	}
	if err := allocatePorts(append(slices.Clone(c.brokers), m.controllers...)); err != nil {
		m.Stop()
		return nil, err
	}
	if err := startAll(c.brokers); err != nil {
		m.Stop()
		return nil, err
	}
	if err := m.WaitReady(2 * time.Minute); err != nil {
		err = fmt.Errorf("%w\n%s", err, m.LogTails(40))
		m.Stop()
		return nil, err
	}
	if m.clusterID, err = m.readClusterID(); err != nil {
		m.Stop()
		return nil, err
	}
	return m, nil
}

// migrationEnabled reports whether brokers in ZooKeeper mode run with
// the migration configuration in the current phase.
func (m *Migration) migrationEnabled() bool {
	switch m.Phase() {
	case PhaseMigrating, PhaseHybrid, PhaseDualWrite:
		return true
	}
	return false
}

// brokerProps is a broker's server.properties in the current phase and
// its Role: plain ZooKeeper mode, ZooKeeper mode with the migration
// enabled, or KRaft mode.
func (m *Migration) brokerProps(n *Node, o MigrationOptions) map[string]string {
	if n.Role == KRaftBroker {
		p := kraftProps(n, m.zk.dist, m.QuorumVoters(), m.zk.opts.Brokers, m.zk.opts.SessionTimeout, o.Props, nil)
		return p
	}
	p := m.zk.zkBrokerProps(n)
	if m.migrationEnabled() {
		p["zookeeper.metadata.migration.enable"] = "true"
		p["controller.quorum.voters"] = m.QuorumVoters()
		p["controller.listener.names"] = "CONTROLLER"
		p["listener.security.protocol.map"] = "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT"
		maps.Copy(p, o.Props)
	}
	return p
}

// controllerProps is a controller's server.properties: with the
// migration enabled and ZooKeeper (through the proxy) until Finalize.
func (m *Migration) controllerProps(n *Node, o MigrationOptions) map[string]string {
	p := kraftProps(n, m.zk.dist, m.QuorumVoters(), m.zk.opts.Brokers, m.zk.opts.SessionTimeout, nil, o.ControllerProps)
	if m.Phase() != PhaseFinalized {
		p["zookeeper.metadata.migration.enable"] = "true"
		p["zookeeper.connect"] = m.proxy.Addr() + m.zk.chroot
		p["zookeeper.session.timeout.ms"] = strconv.FormatInt(m.zk.opts.SessionTimeout.Milliseconds(), 10)
		// The brokers' listener, which the controller sends the
		// ZooKeeper-mode brokers' requests to.
		p["inter.broker.listener.name"] = "PLAINTEXT"
		maps.Copy(p, o.ControllerProps)
	}
	return p
}

// Phase is how far the migration has gone.
func (m *Migration) Phase() Phase {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.phase
}

func (m *Migration) setPhase(p Phase) {
	m.mu.Lock()
	m.phase = p
	m.mu.Unlock()
}

// expect refuses a step taken from the wrong phase.
func (m *Migration) expect(step string, from ...Phase) error {
	if p := m.Phase(); !slices.Contains(from, p) {
		return fmt.Errorf("kafkatest: migration: %s from phase %q (it follows %v)", step, p, from)
	}
	return nil
}

// ProvisionControllers formats the KRaft controllers with the ZooKeeper
// cluster's id (/cluster/id, ClusterID), starts them with the migration enabled and
// zookeeper.connect (through SyncProxy), and waits for a quorum leader
// (PhaseZK → PhaseControllers). The brokers are not touched.
func (m *Migration) ProvisionControllers() error {
	if err := m.expect("provision the controllers", PhaseZK); err != nil {
		return err
	}
	for _, n := range m.controllers {
		if err := format(m.zk.dist, n, m.clusterID); err != nil {
			return err
		}
	}
	m.setPhase(PhaseControllers)
	if err := startAll(m.controllers); err != nil {
		return err
	}
	if err := m.waitReady(2 * time.Minute); err != nil {
		return err
	}
	// The active controller's migration driver reads (or creates)
	// /migration, then waits for the brokers: the phase's end.
	return m.waitLeaderLog("to WAIT_FOR_BROKERS state", 2*time.Minute)
}

// stopGrace is how long a clean stop may take before the node is killed
// (Node.Stop's).
const stopGrace = 45 * time.Second

// waitLeaderLog waits until the quorum leader's log (of its current run)
// has a line containing what.
func (m *Migration) waitLeaderLog(what string, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		q, err := m.Quorum()
		if err == nil {
			if n := m.Node(q.LeaderID); n != nil && strings.Contains(readFile(n.LogFile()), what) {
				return nil
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("kafkatest: migration: the active controller did not log %q in %s\n%s", what, timeout, m.LogTails(30))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// readClusterID reads the cluster id the ZooKeeper-mode brokers made.
func (m *Migration) readClusterID() (string, error) {
	conn, err := m.zk.zk()
	if err != nil {
		return "", err
	}
	defer conn.Close()
	data, _, err := conn.Get(m.zk.chroot + "/cluster/id")
	if err != nil {
		return "", fmt.Errorf("kafkatest: migration: read /cluster/id: %w", err)
	}
	var v struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal(data, &v); err != nil {
		return "", fmt.Errorf("kafkatest: migration: /cluster/id holds %q: %w", data, err)
	}
	if v.ID == "" {
		return "", fmt.Errorf("kafkatest: migration: /cluster/id holds %q: no id", data)
	}
	return v.ID, nil
}

// EnableMigration restarts the ZooKeeper-mode brokers with the migration
// enabled (zookeeper.metadata.migration.enable=true, the controllers'
// quorum, the CONTROLLER listener's security protocol), and waits until
// the KRaft controller has migrated the metadata and is in dual-write
// mode (PhaseControllers → PhaseMigrating → PhaseHybrid).
func (m *Migration) EnableMigration() error {
	if err := m.expect("enable the migration on the brokers", PhaseControllers); err != nil {
		return err
	}
	m.setPhase(PhaseMigrating)
	if err := m.restart(m.zk.brokers, nil, stopGrace); err != nil {
		return err
	}
	return m.WaitMigrated(2 * time.Minute)
}

// restart restarts nodes (all at once, or one at a time when Rolling),
// changing each one's role to role (nil: unchanged) while it is down.
// A node that does not stop within grace is killed.
func (m *Migration) restart(nodes []*Node, role *Role, grace time.Duration) error {
	batches := [][]*Node{nodes}
	if m.rolling {
		batches = nil
		for _, n := range nodes {
			batches = append(batches, []*Node{n})
		}
	}
	for _, batch := range batches {
		var wg sync.WaitGroup
		for _, n := range batch {
			wg.Add(1)
			go func() { defer wg.Done(); n.signal(syscall.SIGTERM, grace) }()
		}
		wg.Wait()
		if err := m.waitUnregistered(batch); err != nil {
			return err
		}
		for _, n := range batch {
			if role != nil {
				n.Role = *role
			}
		}
		if err := startAll(batch); err != nil {
			return err
		}
		if err := m.waitReady(2 * time.Minute); err != nil {
			return err
		}
	}
	return nil
}

// waitUnregistered waits until no ZooKeeper-mode broker among nodes is
// registered any more: a killed broker's registration lasts until its
// session expires, and a broker started before that fails to register
// and exits.
func (m *Migration) waitUnregistered(nodes []*Node) error {
	conn, err := m.zk.zk()
	if err != nil {
		return err
	}
	defer conn.Close()
	deadline := time.Now().Add(m.zk.opts.SessionTimeout + 30*time.Second)
	for _, n := range nodes {
		if n.Role != ZKBroker {
			continue
		}
		for {
			ok, _, err := conn.Exists(m.zk.chroot + "/brokers/ids/" + strconv.Itoa(n.ID))
			if err == nil && !ok {
				break
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("kafkatest: migration: broker %d still registered in ZooKeeper after it stopped", n.ID)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	return nil
}

// WaitMigrated waits until the active controller has migrated the
// metadata from ZooKeeper and entered dual-write mode (its log: "…
// transitioning from KRAFT_CONTROLLER_TO_BROKER_COMM to DUAL_WRITE
// state"), /migration holds the migrated offset and /controller names it,
// and every broker is registered; the phase is then PhaseHybrid. After a
// controller's restart in PhaseHybrid or PhaseDualWrite it waits for the
// same: the new active controller claims /controller and fully
// reconciles ZooKeeper with KRaft (SYNC_KRAFT_TO_ZK) before it writes
// deltas again.
func (m *Migration) WaitMigrated(timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	var last string
	for {
		ok, why, err := m.migrated()
		if err != nil {
			return err
		}
		if ok {
			if m.Phase() == PhaseMigrating {
				m.setPhase(PhaseHybrid)
			}
			return m.waitReady(time.Until(deadline) + time.Second)
		}
		last = why
		if time.Now().After(deadline) {
			return fmt.Errorf("kafkatest: migration not done after %s: %s\n%s", timeout, last, m.LogTails(30))
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func (m *Migration) migrated() (bool, string, error) {
	for _, n := range m.Nodes() {
		if n.crashed() {
			return false, "", n.exitedError()
		}
	}
	q, err := describeQuorum(context.Background(), runningControllerAddrs(m.controllers))
	if err != nil {
		return false, "no quorum leader: " + err.Error(), nil
	}
	leader := m.Node(q.LeaderID)
	if leader == nil {
		return false, fmt.Sprintf("quorum leader %d unknown", q.LeaderID), nil
	}
	if !strings.Contains(readFile(leader.LogFile()), "to DUAL_WRITE state") {
		return false, fmt.Sprintf("controller %d is not in dual-write mode yet", leader.ID), nil
	}
	st, err := m.MigrationState()
	if err != nil {
		return false, "no /migration yet: " + err.Error(), nil
	}
	if st.KRaftMetadataOffset < 0 {
		return false, fmt.Sprintf("/migration %+v: nothing migrated yet", st), nil
	}
	return true, "", nil
}

// RollToKRaft restarts every broker still in ZooKeeper mode in KRaft mode (process.roles=broker,
// node.id = its broker.id, the same listener and data, no ZooKeeper
// configuration), and waits until each is registered and unfenced
// (PhaseHybrid → PhaseDualWrite).
func (m *Migration) RollToKRaft() error {
	if err := m.expect("roll the brokers to KRaft", PhaseHybrid); err != nil {
		return err
	}
	role := KRaftBroker
	zkMode := slices.DeleteFunc(slices.Clone(m.zk.brokers), func(n *Node) bool { return n.Role != ZKBroker })
	if err := m.restart(zkMode, &role, stopGrace); err != nil {
		return err
	}
	m.setPhase(PhaseDualWrite)
	return m.waitReady(2 * time.Minute)
}

// RollBrokerToKRaft restarts one broker in KRaft mode and waits for it,
// leaving the others in ZooKeeper mode: the middle of RollToKRaft, where
// a transcript records what ZooKeeper shows of a half-rolled cluster.
// When it was the last ZooKeeper-mode broker the phase becomes
// PhaseDualWrite.
func (m *Migration) RollBrokerToKRaft(id int) error {
	if err := m.expect("roll a broker to KRaft", PhaseHybrid); err != nil {
		return err
	}
	b := m.zk.Broker(id)
	if b == nil {
		return fmt.Errorf("kafkatest: migration: no broker %d", id)
	}
	role := KRaftBroker
	if err := m.restart([]*Node{b}, &role, stopGrace); err != nil {
		return err
	}
	if !slices.ContainsFunc(m.zk.brokers, func(n *Node) bool { return n.Role == ZKBroker }) {
		m.setPhase(PhaseDualWrite)
	}
	return nil
}

// Finalize restarts the controllers without the migration and without
// zookeeper.connect, and waits (PhaseDualWrite → PhaseFinalized). After
// it nothing writes to ZooKeeper; what the migration left there stays.
func (m *Migration) Finalize() error {
	if err := m.expect("finalize", PhaseDualWrite); err != nil {
		return err
	}
	m.setPhase(PhaseFinalized)
	if err := m.restart(m.controllers, nil, stopGrace); err != nil {
		return err
	}
	return m.waitReady(2 * time.Minute)
}

// Abandon gives the migration up before any broker runs in KRaft mode,
// as Kafka's revert steps do for "Enter Migration Mode on the brokers"
// but one: the controllers are stopped (deprovisioned), /controller is
// deleted so that a broker becomes the ZooKeeper-mode controller again,
// and the brokers are restarted without the migration configuration; but
// /migration is left behind (PhaseControllers, PhaseMigrating or
// PhaseHybrid → PhaseAbandoned).
func (m *Migration) Abandon() error {
	if err := m.expect("abandon the migration", PhaseControllers, PhaseMigrating, PhaseHybrid); err != nil {
		return err
	}
	stopAll(m.controllers)
	conn, err := m.zk.zk()
	if err != nil {
		return err
	}
	defer conn.Close()
	if err := conn.Delete(m.zk.chroot+"/controller", -1); err != nil && !errors.Is(err, zk.ErrNoNode) {
		return fmt.Errorf("kafkatest: migration: delete /controller: %w", err)
	}
	m.setPhase(PhaseAbandoned)
	// A broker becomes the ZooKeeper-mode controller; only then can the
	// brokers shut down in a controlled way (while they believe a KRaft
	// controller leads, they ask it, and it is gone).
	if err := m.waitReady(2 * time.Minute); err != nil {
		return err
	}
	// A broker that still believes a KRaft controller leads asks it for
	// its controlled shutdown, and it is gone: such a broker is killed
	// after 15 s.
	return m.restart(m.zk.brokers, nil, 15*time.Second)
}

// phaseOrder is the order of the phases a migration goes through.
var phaseOrder = []Phase{PhaseZK, PhaseControllers, PhaseMigrating, PhaseHybrid, PhaseDualWrite, PhaseFinalized}

// MigrateTo takes the steps from the current phase to p:
// ProvisionControllers, EnableMigration, RollToKRaft, Finalize; none when
// the migration is there already. It refuses a phase behind the current
// one (a migration goes one way), PhaseMigrating (EnableMigration passes
// through it) and PhaseAbandoned (Abandon).
func (m *Migration) MigrateTo(p Phase) error {
	want := slices.Index(phaseOrder, p)
	if want < 0 || p == PhaseMigrating {
		return fmt.Errorf("kafkatest: migration: MigrateTo cannot reach phase %q", p)
	}
	for {
		cur := m.Phase()
		at := slices.Index(phaseOrder, cur)
		switch {
		case at < 0:
			return fmt.Errorf("kafkatest: migration: phase %q leads nowhere", cur)
		case at == want:
			return nil
		case at > want:
			return fmt.Errorf("kafkatest: migration: already in phase %q, past %q", cur, p)
		}
		var err error
		switch cur {
		case PhaseZK:
			err = m.ProvisionControllers()
		case PhaseControllers:
			err = m.EnableMigration()
		case PhaseMigrating:
			err = m.WaitMigrated(2 * time.Minute)
		case PhaseHybrid:
			err = m.RollToKRaft()
		case PhaseDualWrite:
			err = m.Finalize()
		}
		if err != nil {
			return err
		}
	}
}
