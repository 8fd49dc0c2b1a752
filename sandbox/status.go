package sandbox

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/ktopo/ktopo/assign"
	"github.com/ktopo/ktopo/cluster"
)

// Status is the sandbox as ZooKeeper shows it (what a watcher sees), plus
// which brokers the sandbox runs.
type Status struct {
	ClusterID string
	// Controller is the broker id in /controller, -1 when there is none.
	Controller      int
	ControllerEpoch int
	// Brokers lists the sandbox's brokers (1..N) and any other broker
	// registered in ZooKeeper, by id.
	Brokers []BrokerStatus
	Topics  []TopicStatus
	Pace    time.Duration
	// Copies are the new replicas copying their partitions (reassignments).
	Copies []CopyStatus
	// Migration is how far the simulated ZooKeeper to KRaft migration has
	// gone (migrate).
	Migration MigrationStep
}

// BrokerStatus is one broker of Status.
type BrokerStatus struct {
	ID   int
	Rack string
	// Sandbox: the broker is one of the sandbox's; Running: the sandbox
	// runs it now (not killed).
	Sandbox, Running bool
	// Registered: /brokers/ids/<id> exists.
	Registered bool
	Controller bool
	// KRaft: rolled to KRaft mode by the simulated migration.
	KRaft bool
	// Disk is what a running broker's log directories hold (its simulated
	// DescribeLogDirs answer); nil when it did not answer.
	Disk *cluster.BrokerDisk
}

// TopicStatus counts a topic's partitions by state.
type TopicStatus struct {
	Name       string
	Partitions int
	// Online: a state znode with a leader; Offline: with leader -1;
	// Uninitialized: no state znode yet.
	Online, Offline, Uninitialized int
	// UnderReplicated: ISR shorter than the replica list.
	UnderReplicated int
	// Reassigning: partitions with replicas being added or removed.
	Reassigning       int
	MarkedForDeletion bool
}

// Status reads the cluster's state from ZooKeeper.
func (cl *Cluster) Status() (Status, error) {
	if cl.isClosed() {
		return Status{}, ErrClosed
	}
	conn := cl.admin
	st := Status{Controller: -1, Pace: cl.Pace(), ClusterID: cl.clusterID.Load().(string)}
	get := func(p string) ([]byte, error) {
		data, _, err := conn.Get(p)
		return data, err
	}
	if data, err := get(cluster.ControllerPath); err == nil {
		if c, err := cluster.DecodeController(data); err == nil {
			st.Controller = c.BrokerID
		}
	} else if !errors.Is(err, zk.ErrNoNode) {
		return st, err
	}
	if data, err := get(cluster.ControllerEpochPath); err == nil {
		st.ControllerEpoch, _ = cluster.DecodeControllerEpoch(data)
	} else if !errors.Is(err, zk.ErrNoNode) {
		return st, err
	}
	registered, err := registeredBrokers(conn)
	if err != nil {
		return st, err
	}
	running, kraft := cl.runningIDs(), cl.kraftBrokers()
	st.Migration = cl.MigrationStep()
	byID := map[int]*BrokerStatus{}
	for id := 1; id <= cl.cfg.Brokers; id++ {
		byID[id] = &BrokerStatus{ID: id, Rack: cl.racks[id], Sandbox: true, Running: slices.Contains(running, id), KRaft: slices.Contains(kraft, id)}
	}
	for _, b := range registered {
		s := byID[b.ID]
		if s == nil {
			s = &BrokerStatus{ID: b.ID, Rack: b.Rack}
			byID[b.ID] = s
		}
		s.Registered = true
	}
	sizes := cl.readSizes(context.Background(), time.Now(), nil)
	for _, id := range sortedInts(byID) {
		s := byID[id]
		s.Controller = id == st.Controller
		if d, ok := sizes.Broker(id); ok {
			s.Disk = d
		}
		st.Brokers = append(st.Brokers, *s)
	}
	topics, _, err := conn.Children(cluster.BrokerTopicsPath)
	if err != nil && !errors.Is(err, zk.ErrNoNode) {
		return st, err
	}
	slices.Sort(topics)
	marked, _, err := conn.Children(cluster.DeleteTopicsPath)
	if err != nil && !errors.Is(err, zk.ErrNoNode) {
		return st, err
	}
	for _, t := range topics {
		ts, err := topicStatus(conn, t)
		if err != nil {
			return st, err
		}
		ts.MarkedForDeletion = slices.Contains(marked, t)
		st.Topics = append(st.Topics, ts)
	}
	st.Copies = cl.Copies()
	return st, nil
}

func topicStatus(conn zkConn, topic string) (TopicStatus, error) {
	ts := TopicStatus{Name: topic}
	data, _, err := conn.Get(cluster.TopicPath(topic))
	if errors.Is(err, zk.ErrNoNode) {
		return ts, nil
	}
	if err != nil {
		return ts, err
	}
	a, _ := cluster.DecodeTopicAssignment(data)
	ts.Partitions = len(a.Partitions)
	for p := range a.Partitions {
		if len(a.AddingReplicas[p]) > 0 || len(a.RemovingReplicas[p]) > 0 {
			ts.Reassigning++
		}
	}
	ids := make([]int, 0, len(a.Partitions))
	for p := range a.Partitions {
		ids = append(ids, p)
	}
	slices.Sort(ids)
	type res struct {
		data []byte
		err  error
	}
	out := make([]res, len(ids))
	var wg sync.WaitGroup
	sem := make(chan struct{}, 64)
	for i, p := range ids {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			out[i].data, _, out[i].err = conn.Get(cluster.PartitionStatePath(topic, p))
		}()
	}
	wg.Wait()
	for i, p := range ids {
		r := out[i]
		switch {
		case errors.Is(r.err, zk.ErrNoNode):
			ts.Uninitialized++
			continue
		case r.err != nil:
			return ts, r.err
		}
		s, err := cluster.DecodePartitionState(r.data)
		if err != nil {
			ts.Offline++
			continue
		}
		if s.Leader >= 0 {
			ts.Online++
		} else {
			ts.Offline++
		}
		if len(s.ISR) < len(a.Partitions[p]) {
			ts.UnderReplicated++
		}
	}
	return ts, nil
}

// String renders the status for the control loop and logs.
func (s Status) String() string {
	var b strings.Builder
	if s.Controller == KRaftControllerID && s.Migration >= MigrationHybrid {
		fmt.Fprintf(&b, "controller: KRaft controller %d (ZooKeeper epoch %d)\n", s.Controller, s.ControllerEpoch)
	} else if s.Controller >= 0 {
		fmt.Fprintf(&b, "controller: broker %d (epoch %d)\n", s.Controller, s.ControllerEpoch)
	} else {
		fmt.Fprintf(&b, "controller: none (epoch %d)\n", s.ControllerEpoch)
	}
	if s.ClusterID != "" {
		fmt.Fprintf(&b, "cluster id: %s\n", s.ClusterID)
	}
	fmt.Fprintf(&b, "pace: %s\n", s.Pace)
	if s.Migration != MigrationNone {
		fmt.Fprintf(&b, "migration: %s\n", s.Migration)
	}
	for _, br := range s.Brokers {
		state := "down"
		switch {
		case br.KRaft:
			state = "up, KRaft mode (not registered in ZooKeeper)"
		case br.Running && br.Registered:
			state = "up"
		case br.Running:
			state = "starting"
		case br.Registered:
			state = "registered (not a sandbox broker)"
			if br.Sandbox {
				state = "registered (killed; session not yet closed)"
			}
		}
		rack := br.Rack
		if rack == "" {
			rack = "no rack"
		}
		fmt.Fprintf(&b, "broker %d (%s): %s", br.ID, rack, state)
		if br.Controller {
			b.WriteString(", controller")
		}
		if d := br.Disk; d != nil {
			fmt.Fprintf(&b, ", %s in %d replicas", cluster.FormatBytes(d.Bytes), d.Replicas)
			if total, usable, ok := d.Disk(); ok {
				fmt.Fprintf(&b, ", %s free of %s", cluster.FormatBytes(usable), cluster.FormatBytes(total))
			}
		}
		b.WriteByte('\n')
	}
	for _, t := range s.Topics {
		fmt.Fprintf(&b, "topic %s: %d partitions, %d online, %d offline", t.Name, t.Partitions, t.Online, t.Offline)
		if t.Uninitialized > 0 {
			fmt.Fprintf(&b, ", %d not initialised", t.Uninitialized)
		}
		fmt.Fprintf(&b, ", %d under-replicated", t.UnderReplicated)
		if t.Reassigning > 0 {
			fmt.Fprintf(&b, ", %d being reassigned", t.Reassigning)
		}
		if t.MarkedForDeletion {
			b.WriteString(", marked for deletion")
		}
		b.WriteByte('\n')
	}
	for _, c := range s.Copies {
		fmt.Fprintf(&b, "copying %s-%d to broker %d from broker %d: %d%% of %s at %s/s", c.Topic, c.Partition, c.Broker, c.Leader,
			100*c.Copied/max(c.Size, 1), mib(float64(c.Size)), mib(c.Rate))
		if c.Growth > 0 {
			fmt.Fprintf(&b, " (growing at %s)", cluster.FormatRate(c.Growth))
		}
		if c.Throttled {
			b.WriteString(" (throttled)")
		}
		b.WriteByte('\n')
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// mib renders bytes in MiB with one decimal ("12.5 MiB").
func mib(n float64) string { return strconv.FormatFloat(n/(1<<20), 'f', 1, 64) + " MiB" }

// registeredBrokers reads /brokers/ids and each registration's rack.
func registeredBrokers(conn zkConn) ([]assign.Broker, error) {
	kids, _, err := conn.Children(cluster.BrokerIDsPath)
	if err != nil {
		return nil, fmt.Errorf("sandbox: list %s: %w", cluster.BrokerIDsPath, err)
	}
	var out []assign.Broker
	for _, k := range kids {
		id, err := strconv.Atoi(k)
		if err != nil {
			continue
		}
		data, _, err := conn.Get(cluster.BrokerIDPath(id))
		if errors.Is(err, zk.ErrNoNode) {
			continue
		}
		if err != nil {
			return nil, err
		}
		reg, err := cluster.DecodeBroker(data)
		if err != nil {
			continue
		}
		b := assign.Broker{ID: id}
		if reg.HasRack() {
			b.Rack, b.HasRack = reg.Rack, true
		}
		out = append(out, b)
	}
	return out, nil
}
