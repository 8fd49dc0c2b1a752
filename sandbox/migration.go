package sandbox

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/ktopo/ktopo/cluster"
)

// The KRaft side of a ZooKeeper to KRaft migration, as ZooKeeper sees it:
// a simulated KRaft controller quorum makes the writes Kafka 3.9.2's makes
// (internal/testkit/kafkatest/testdata/migration-3.9.2 holds what real
// Kafka left at each phase), so that the migration radar can be tried
// without Java. "migrate" on the sandbox's standard input takes it one
// step further each time:
//
//  1. KRaft controllers started with the migration enabled: /migration
//     created with every field -1 (they wait for the brokers);
//  2. the brokers restarted with the migration enabled (not simulated:
//     their registrations stay as they are) and every one registered with
//     the KRaft controller, which takes the cluster over: /controller_epoch
//     + 1, /controller deleted and created again, persistent, naming
//     controller 3000 with kraftControllerEpoch 1 (one multi); /migration
//     names it; the metadata copied: /migration's offset > 0; then dual
//     write: /migration written with the next offset every 500 ms (the
//     no-op record KRaft commits every metadata.max.idle.interval.ms);
//  3. the brokers rolled to KRaft mode one after the other: each leaves
//     the ISRs it is in (the KRaft controller writes the partition states
//     into ZooKeeper, with /migration, as its dual write does), its
//     ZooKeeper session ends (its registration goes: KRaft brokers do not
//     register in ZooKeeper), and it joins them again once caught up;
//  4. finalized: the controllers restarted without the migration: nothing
//     writes to ZooKeeper any more.
//
// "migrate freeze" stops the sync into ZooKeeper (the KRaft log goes on),
// as when the controller loses ZooKeeper; "migrate thaw" resumes it. The
// sandbox's own ZooKeeper-mode controller steps aside when /controller
// changes hands, as Kafka's does; once the KRaft controller owns the
// cluster, the sandbox's broker failures, elections and controller moves
// are refused (the simulated KRaft controller does no controller work but
// the roll).

// KRaftControllerID is the simulated KRaft controller's node id (Kafka's
// documentation's example).
const KRaftControllerID = 3000

// kraftEpoch is the simulated controller's epoch: the first leader of a
// fresh quorum (Kafka 3.9.2's single controller wrote 1).
const kraftEpoch = 1

// syncInterval is how often the simulated KRaft controller commits a
// no-op record (Kafka's metadata.max.idle.interval.ms default), each
// written into ZooKeeper in dual write.
const syncInterval = 500 * time.Millisecond

// MigrationStep is how far the sandbox's simulated migration has gone.
type MigrationStep int

// Migration steps, in order.
const (
	MigrationNone         MigrationStep = iota
	MigrationControllers                // KRaft controllers wait for the brokers
	MigrationHybrid                     // taken over; brokers in ZooKeeper mode; dual write
	MigrationKRaftBrokers               // brokers in KRaft mode; dual write
	MigrationFinalized                  // nothing writes ZooKeeper any more
)

var migrationStepNames = [...]string{"none", "controllers (waiting for brokers)", "hybrid (dual write)", "brokers on KRaft (dual write)", "finalized"}

// String names the step.
func (s MigrationStep) String() string { return migrationStepNames[s] }

// ErrKRaftOwned is returned by the operations of the sandbox's
// ZooKeeper-mode controller and brokers once the simulated KRaft
// controller owns the cluster.
var ErrKRaftOwned = errors.New("sandbox: KRaft controller 3000 owns the cluster (migrate): the simulation does not run broker failures, elections or controller moves under it")

// migration is the simulated KRaft controller quorum.
type migration struct {
	cl *Cluster

	mu   sync.Mutex
	step MigrationStep
	// offset is the KRaft log's last offset; written the last one written
	// into /migration.
	offset, written int64
	migVersion      int32 // /migration's version after our last write
	epochVersion    int32 // /controller_epoch's version after the takeover
	frozen          bool
	kraft           []int     // brokers rolled to KRaft mode
	pending         []stateOp // partition states to write once thawed
	stop            chan struct{}
	done            chan struct{}
	log             func(string)
}

// stateOp is a partition state the KRaft controller writes into ZooKeeper.
type stateOp struct {
	path string
	data []byte
}

func (cl *Cluster) migrationSim() *migration {
	cl.migOnce.Do(func() {
		cl.mig = &migration{cl: cl, log: func(s string) { cl.log.Info(s, "node", KRaftControllerID) }}
	})
	return cl.mig
}

// MigrationStep returns how far the simulated migration has gone.
func (cl *Cluster) MigrationStep() MigrationStep {
	m := cl.migrationSim()
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.step
}

// kraftOwned reports whether the simulated KRaft controller owns the cluster.
func (cl *Cluster) kraftOwned() bool { return cl.MigrationStep() >= MigrationHybrid }

// Migrate runs one migration command ("", "freeze", "thaw") and returns
// what it did.
func (cl *Cluster) Migrate(arg string) (string, error) {
	if cl.isClosed() {
		return "", ErrClosed
	}
	cl.ops.Lock()
	defer cl.ops.Unlock()
	m := cl.migrationSim()
	m.mu.Lock()
	defer m.mu.Unlock()
	switch arg {
	case "freeze", "thaw":
		if m.step != MigrationHybrid && m.step != MigrationKRaftBrokers {
			return "", fmt.Errorf("sandbox: migrate %s: the KRaft controller writes into ZooKeeper only in dual write (now: %s)", arg, m.step)
		}
		m.frozen = arg == "freeze"
		if m.frozen {
			return "the KRaft controller's sync into ZooKeeper is frozen (its log goes on); migrate thaw resumes it", nil
		}
		return "the KRaft controller's sync into ZooKeeper resumed", nil
	case "":
	default:
		return "", fmt.Errorf("sandbox: migrate takes nothing, freeze or thaw, not %q", arg)
	}
	switch m.step {
	case MigrationNone:
		if err := m.provision(); err != nil {
			return "", err
		}
		m.step = MigrationControllers
		return "KRaft controller 3000 started with zookeeper.metadata.migration.enable=true: /migration created; it waits for the brokers (migrate again: they restart with the migration enabled)", nil
	case MigrationControllers:
		if err := m.takeOver(); err != nil {
			return "", err
		}
		m.step = MigrationHybrid
		m.stop, m.done = make(chan struct{}), make(chan struct{})
		go m.syncLoop(m.stop, m.done)
		return fmt.Sprintf("the brokers restarted with the migration enabled; KRaft controller 3000 (epoch 1) took the cluster over and copied the metadata (offset %d): dual write (migrate again: the brokers roll to KRaft mode)", m.written), nil
	case MigrationHybrid:
		ids := cl.runningIDs()
		if len(ids) == 0 {
			return "", errors.New("sandbox: no broker runs to roll to KRaft mode")
		}
		m.step = MigrationKRaftBrokers
		go m.roll(ids)
		return "rolling brokers " + joinInts(ids) + " to KRaft mode, one every " + m.rollGap().String() + " (migrate again: finalize)", nil
	case MigrationKRaftBrokers:
		stop, done := m.stop, m.done
		m.stop = nil
		close(stop)
		m.mu.Unlock()
		<-done
		m.mu.Lock()
		m.step = MigrationFinalized
		return "the controllers restarted without the migration: the migration is finalized, nothing writes ZooKeeper any more", nil
	}
	return "", errors.New("sandbox: the migration is finalized: nothing further to simulate")
}

func joinInts(ids []int) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = strconv.Itoa(id)
	}
	return strings.Join(s, ", ")
}

// provision creates /migration as every Kafka 3.9 KRaft controller with
// the migration enabled does at startup (ZkMigrationLeadershipState.EMPTY).
func (m *migration) provision() error {
	data := cluster.EncodeMigration(cluster.MigrationState{KRaftControllerID: -1, KRaftControllerEpoch: -1, KRaftMetadataOffset: -1, KRaftMetadataEpoch: -1})
	if _, err := m.cl.admin.Create(cluster.MigrationPath, data, 0, openACL); err != nil {
		if errors.Is(err, zk.ErrNodeExists) {
			return errors.New("sandbox: /migration exists already (an earlier migration?)")
		}
		return fmt.Errorf("sandbox: create %s: %w", cluster.MigrationPath, err)
	}
	m.log("Created /migration: waiting for the ZooKeeper brokers to register")
	return nil
}

// takeOver claims the cluster as KafkaZkClient.tryRegisterKRaftControllerAsActiveController
// does, then writes /migration: unconditionally after the claim, then the
// offset the copy of the metadata ended at.
func (m *migration) takeOver() error {
	z := m.cl.admin
	data, st, err := z.Get(cluster.ControllerEpochPath)
	if err != nil {
		return fmt.Errorf("sandbox: read %s: %w", cluster.ControllerEpochPath, err)
	}
	epoch, err := cluster.DecodeControllerEpoch(data)
	if err != nil {
		return fmt.Errorf("sandbox: %w", err)
	}
	ctrl := cluster.EncodeController(cluster.ControllerInfo{Version: 2, BrokerID: KRaftControllerID,
		Timestamp: strconv.FormatInt(time.Now().UnixMilli(), 10), KRaftControllerEpoch: kraftEpoch})
	ops := []any{&zk.SetDataRequest{Path: cluster.ControllerEpochPath, Data: cluster.EncodeControllerEpoch(epoch + 1), Version: st.Version}}
	if _, cst, err := z.Get(cluster.ControllerPath); err == nil {
		ops = append(ops, &zk.DeleteRequest{Path: cluster.ControllerPath, Version: cst.Version})
	} else if !errors.Is(err, zk.ErrNoNode) {
		return fmt.Errorf("sandbox: read %s: %w", cluster.ControllerPath, err)
	}
	ops = append(ops, &zk.CreateRequest{Path: cluster.ControllerPath, Data: ctrl, Acl: openACL})
	res, err := z.Multi(ops...)
	if err != nil {
		return fmt.Errorf("sandbox: KRaft controller 3000 could not register as the active controller: %w", err)
	}
	m.epochVersion = res[0].Stat.Version
	m.log(fmt.Sprintf("KRaft controller %d overwriting /controller to become the active controller with ZK epoch %d", KRaftControllerID, epoch+1))
	// The state after the claim, written unconditionally (KAFKA-16171).
	st2, err := z.Set(cluster.MigrationPath, m.migrationData(-1, -1), -1)
	if err != nil {
		return fmt.Errorf("sandbox: write %s: %w", cluster.MigrationPath, err)
	}
	m.migVersion = st2.Version
	// The copy: the bootstrap records, then one record a broker, topic,
	// partition and config, between the migration's begin and end markers.
	s, err := m.records()
	if err != nil {
		return err
	}
	m.offset = s
	return m.writeOffset()
}

// records estimates the KRaft log's last offset once the metadata is
// copied (Kafka 3.9.2 ended at 33 for 3 brokers and 1 topic of 3
// partitions; the exact count does not matter to ZooKeeper).
func (m *migration) records() (int64, error) {
	z := m.cl.admin
	n := int64(6 + 2) // bootstrap records, begin and end markers
	for _, p := range []string{cluster.BrokerIDsPath, cluster.ConfigTopicsPath} {
		kids, _, err := z.Children(p)
		if err != nil && !errors.Is(err, zk.ErrNoNode) {
			return 0, fmt.Errorf("sandbox: list %s: %w", p, err)
		}
		n += int64(len(kids))
	}
	topics, _, err := z.Children(cluster.BrokerTopicsPath)
	if err != nil && !errors.Is(err, zk.ErrNoNode) {
		return 0, fmt.Errorf("sandbox: list %s: %w", cluster.BrokerTopicsPath, err)
	}
	for _, t := range topics {
		n++
		if data, _, err := z.Get(cluster.TopicPath(t)); err == nil {
			a, _ := cluster.DecodeTopicAssignment(data)
			n += int64(len(a.Partitions))
		}
	}
	return n, nil
}

func (m *migration) migrationData(offset int64, metaEpoch int) []byte {
	return cluster.EncodeMigration(cluster.MigrationState{KRaftControllerID: KRaftControllerID, KRaftControllerEpoch: kraftEpoch,
		KRaftMetadataOffset: offset, KRaftMetadataEpoch: metaEpoch})
}

// writeOffset writes /migration with the log's last offset, at the
// version it last wrote (Kafka's conditional update: another writer
// fails it).
func (m *migration) writeOffset() error {
	st, err := m.cl.admin.Set(cluster.MigrationPath, m.migrationData(m.offset, kraftEpoch), m.migVersion)
	if err != nil {
		return fmt.Errorf("sandbox: KRaft controller 3000: update %s: %w", cluster.MigrationPath, err)
	}
	m.migVersion, m.written = st.Version, m.offset
	return nil
}

// writeStates writes partition states as the dual write does
// (KafkaZkClient.retryMigrationRequestsUntilConnected): each in a multi
// with a check of /controller_epoch's version and of /migration's, the
// last one setting /migration to the log's last offset instead.
func (m *migration) writeStates(ops []stateOp) error {
	for i, op := range ops {
		var mig any = &zk.CheckVersionRequest{Path: cluster.MigrationPath, Version: m.migVersion}
		if i == len(ops)-1 {
			mig = &zk.SetDataRequest{Path: cluster.MigrationPath, Data: m.migrationData(m.offset, kraftEpoch), Version: m.migVersion}
		}
		res, err := m.cl.admin.Multi(
			&zk.CheckVersionRequest{Path: cluster.ControllerEpochPath, Version: m.epochVersion},
			mig,
			&zk.SetDataRequest{Path: op.path, Data: op.data, Version: -1},
		)
		if err != nil {
			return fmt.Errorf("sandbox: KRaft controller 3000: write %s: %w", op.path, err)
		}
		if i == len(ops)-1 {
			m.migVersion, m.written = res[1].Stat.Version, m.offset
		}
	}
	return nil
}

// syncLoop commits a no-op record every syncInterval and, unless frozen,
// writes it (and what waited while frozen) into ZooKeeper.
func (m *migration) syncLoop(stop <-chan struct{}, done chan<- struct{}) {
	defer close(done)
	t := time.NewTicker(syncInterval)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
		}
		m.mu.Lock()
		m.offset++
		var err error
		if !m.frozen {
			pending := m.pending
			m.pending = nil
			if err = m.writeStates(pending); err == nil {
				err = m.writeOffset()
			}
		}
		m.mu.Unlock()
		if err != nil {
			m.log(err.Error())
		}
	}
}

// rollGap is how long a broker takes to restart in KRaft mode and catch
// up: a second, or the pace's three steps when longer.
func (m *migration) rollGap() time.Duration { return max(time.Second, 3*m.cl.Pace()) }

// roll restarts the brokers ids in KRaft mode, one after the other.
func (m *migration) roll(ids []int) {
	for _, id := range ids {
		if m.cl.isClosed() {
			return
		}
		m.mu.Lock()
		if m.step == MigrationFinalized {
			m.mu.Unlock()
			return
		}
		err := m.fence(id)
		m.mu.Unlock()
		if err != nil {
			m.log(err.Error())
		}
		// The ZooKeeper-mode broker stops: its session, registration with it.
		m.cl.ops.Lock()
		m.cl.mu.Lock()
		b := m.cl.brokers[id]
		delete(m.cl.brokers, id)
		closed := m.cl.closed
		m.cl.mu.Unlock()
		if b != nil && !closed {
			b.log.Info("restarting in KRaft mode (process.roles=broker)")
			b.kill()
		}
		m.cl.ops.Unlock()
		time.Sleep(m.rollGap())
		m.mu.Lock()
		m.kraft = append(m.kraft, id)
		if err := m.unfence(id); err != nil {
			m.log(err.Error())
		}
		m.mu.Unlock()
	}
}

// fence is the KRaft controller's controlled shutdown of broker id: it
// leaves the ISRs it is in (the last member of one stays, leaderless), and
// the partitions it leads get the next ISR member as leader.
func (m *migration) fence(id int) error {
	return m.rewriteStates(func(replicas []int, st *cluster.PartitionState) bool {
		if !slices.Contains(st.ISR, id) {
			return false
		}
		if len(st.ISR) > 1 {
			st.ISR = slices.DeleteFunc(slices.Clone(st.ISR), func(r int) bool { return r == id })
		}
		if st.Leader == id {
			st.Leader = cluster.NoLeader
			for _, r := range replicas {
				if r != id && slices.Contains(st.ISR, r) {
					st.Leader = r
					break
				}
			}
			st.LeaderEpoch++
		}
		return true
	})
}

// unfence is broker id caught up in KRaft mode: it joins the ISR of every
// partition it is a replica of, and leads those without a leader.
func (m *migration) unfence(id int) error {
	return m.rewriteStates(func(replicas []int, st *cluster.PartitionState) bool {
		if !slices.Contains(replicas, id) {
			return false
		}
		changed := false
		if !slices.Contains(st.ISR, id) {
			st.ISR = append(slices.Clone(st.ISR), id)
			changed = true
		}
		if st.Leader == cluster.NoLeader {
			st.Leader = id
			st.LeaderEpoch++
			changed = true
		}
		return changed
	})
}

// rewriteStates applies change to every partition state in ZooKeeper and
// writes those it changed, with the KRaft controller's epoch (queued while
// the sync is frozen).
func (m *migration) rewriteStates(change func(replicas []int, st *cluster.PartitionState) bool) error {
	z := m.cl.admin
	topics, _, err := z.Children(cluster.BrokerTopicsPath)
	if err != nil {
		return fmt.Errorf("sandbox: list %s: %w", cluster.BrokerTopicsPath, err)
	}
	slices.Sort(topics)
	var ops []stateOp
	for _, t := range topics {
		data, _, err := z.Get(cluster.TopicPath(t))
		if err != nil {
			continue
		}
		a, err := cluster.DecodeTopicAssignment(data)
		if err != nil {
			continue
		}
		for _, p := range slices.Sorted(maps.Keys(a.Partitions)) {
			path := cluster.PartitionStatePath(t, p)
			sd, _, err := z.Get(path)
			if err != nil {
				continue
			}
			st, err := cluster.DecodePartitionState(sd)
			if err != nil || !change(a.Partitions[p], &st) {
				continue
			}
			st.ControllerEpoch = kraftEpoch
			ops = append(ops, stateOp{path, cluster.EncodePartitionState(st)})
		}
	}
	// One record a change in the KRaft log, written into ZooKeeper unless
	// the sync is frozen.
	m.offset += int64(len(ops))
	if m.frozen {
		m.pending = append(m.pending, ops...)
		return nil
	}
	return m.writeStates(ops)
}

// kraftBrokers returns the brokers rolled to KRaft mode.
func (cl *Cluster) kraftBrokers() []int {
	m := cl.migrationSim()
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.kraft)
}

// closeMigration stops the simulated controller's sync (Close).
func (cl *Cluster) closeMigration() {
	m := cl.migrationSim()
	m.mu.Lock()
	stop, done := m.stop, m.done
	m.stop = nil
	m.mu.Unlock()
	if stop != nil {
		select {
		case <-stop:
		default:
			close(stop)
		}
		<-done
	}
}
