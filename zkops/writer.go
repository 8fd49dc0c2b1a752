package zkops

import (
	"context"
	"errors"
	"slices"

	"github.com/go-zookeeper/zk"

	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/clusterops"
)

// Writer is the Writer of a cluster in ZooKeeper mode: every
// operation is the one multi this package builds for it (createOps,
// AddPartitionsOps, ConfigChangeOps, planReassignment's, electionOps, …),
// sent through writeMulti and so through the ZooKeeper to KRaft migration
// guard (guard.go). The context is not used: the session's requests have
// deadlines of their own.
type Writer struct {
	// Z is the session the multis go through (with the operator's
	// confirmation of a migration warning: confirm).
	Z ZK
}

var (
	_ clusterops.Writer          = (*Writer)(nil)
	_ clusterops.Guarded         = (*Writer)(nil)
	_ clusterops.ConfigDescriber = (*Writer)(nil)
)

// NewWriter writes through z.
func NewWriter(z ZK) *Writer { return &Writer{Z: z} }

// Backend is ZooKeeper.
func (w *Writer) Backend() cluster.Backend { return cluster.ViaZooKeeper }

// Words are ZooKeeperWords.
func (w *Writer) Words() *clusterops.Words { return &clusterops.ZooKeeperWords }

// Verdict is the migration guard's verdict on s (SnapshotVerdict).
func (w *Writer) Verdict(s *cluster.Snapshot) cluster.WriteVerdict {
	return clusterops.SnapshotVerdict(s)
}

// Check is the migration guard's verdict on a fresh read (checkWrite).
func (w *Writer) Check(context.Context) (cluster.WriteVerdict, error) {
	return checkWrite(w.Z)
}

// Confirm returns the writer whose multis go ahead under the warning v
// (confirm: the session then carries v).
func (w *Writer) Confirm(v cluster.WriteVerdict) clusterops.Writer {
	return &Writer{Z: confirm(w.Z, v)}
}

// multi is the Writes of one multi.
func multi(ops []any) clusterops.Writes {
	return clusterops.Writes{Backend: cluster.ViaZooKeeper, Steps: []clusterops.WriteStep{{Lines: DescribeOps(ops)}}}
}

// CreateTopic writes createOps' multi (createTopic: the config znode and
// the topic znode, with missing parents).
func (w *Writer) CreateTopic(_ context.Context, p *clusterops.TopicPlan, m clusterops.Mode) (clusterops.Writes, error) {
	ops, err := createOps(w.Z, p)
	if err != nil {
		return clusterops.Writes{}, err
	}
	if m != clusterops.Apply {
		return multi(ops), nil
	}
	return multi(ops), createTopic(w.Z, p)
}

// MaybeWritten is the package's MaybeWritten.
func (w *Writer) MaybeWritten(err error) bool { return MaybeWritten(err) }

// VerifyCreate reads the topic back once the session is back
// (verifyCreate).
func (w *Writer) VerifyCreate(ctx context.Context, p *clusterops.TopicPlan, err error) clusterops.Outcome {
	return verifyCreate(ctx, w.Z, p, err)
}

// AddPartitions sets the topic znodes at the versions the plans read, in
// one multi (writeAlteration).
func (w *Writer) AddPartitions(_ context.Context, ps []*clusterops.AddPartitionsPlan, m clusterops.Mode) (clusterops.Writes, error) {
	var ops []any
	for _, p := range ps {
		ops = append(ops, AddPartitionsOps(p)...)
	}
	if m != clusterops.Apply {
		return multi(ops), nil
	}
	return multi(ops), writeAlteration(w.Z, ops)
}

// ReadConfig reads /config/<type>/<entity> (readEntityConfig).
func (w *Writer) ReadConfig(_ context.Context, entityType, entity string) ([]cluster.ConfigEntry, int32, error) {
	return readEntityConfig(w.Z, entityType, entity)
}

// AlterConfigs writes every alteration's override set and change
// notification in one multi, after the creates of missing parents.
func (w *Writer) AlterConfigs(_ context.Context, as []*clusterops.ConfigAlteration, m clusterops.Mode) (clusterops.Writes, error) {
	var ops []any
	dirs := []string{}
	for _, a := range as {
		ops = append(ops, ConfigChangeOps(a.Change)...)
		if d := cluster.ConfigPath + "/" + a.Change.EntityType; !slices.Contains(dirs, d) {
			dirs = append(dirs, d)
		}
	}
	ops, err := withParents(w.Z, ops, append(dirs, cluster.ConfigChangesPath)...)
	if err != nil {
		return clusterops.Writes{}, err
	}
	if m != clusterops.Apply {
		return multi(ops), nil
	}
	return multi(ops), writeAlteration(w.Z, ops)
}

// DeleteTopic creates /admin/delete_topics/<t> (deleteTopic).
func (w *Writer) DeleteTopic(_ context.Context, s *cluster.Snapshot, topic string, m clusterops.Mode) (clusterops.Writes, error) {
	ops, err := deleteTopicOps(w.Z, topic, s)
	if err != nil {
		return clusterops.Writes{}, err
	}
	if m != clusterops.Apply {
		return multi(ops), nil
	}
	return multi(ops), deleteTopic(w.Z, topic, s)
}

// StartReassignment is planReassignment's multi (the throttles and
// /admin/reassign_partitions), written with executeReassignment.
func (w *Writer) StartReassignment(_ context.Context, s *cluster.Snapshot, rs []cluster.Reassignment, throttle int64, m clusterops.Mode) (*clusterops.ReassignPlan, clusterops.Writes, error) {
	p, ops, err := planReassignment(s, w.Z, rs, throttle)
	if err != nil {
		return nil, clusterops.Writes{}, err
	}
	if m != clusterops.Apply {
		return p, multi(ops), nil
	}
	return p, multi(ops), executeReassignment(w.Z, ops)
}

// RemoveThrottles is what --verify does with the throttles of rs once
// they are done: while another reassignment runs, nothing (kept names the
// throttles that stay: removing the brokers' rates would lift its
// throttle too); else the one multi clearing them (PlanThrottleClear,
// clearThrottles).
func (w *Writer) RemoveThrottles(_ context.Context, s *cluster.Snapshot, rs []cluster.Reassignment, m clusterops.Mode) (*clusterops.ThrottleClear, []string, clusterops.Writes, error) {
	if _, ongoing := clusterops.VerifyReassignment(s, rs); ongoing {
		kept, err := clusterops.ThrottlesLeft(s, configReader{w.Z}, rs)
		return nil, kept, clusterops.Writes{Backend: cluster.ViaZooKeeper}, err
	}
	c, err := clusterops.PlanThrottleClear(s, configReader{w.Z}, rs)
	if err != nil {
		return nil, nil, clusterops.Writes{}, err
	}
	ws := clusterops.Writes{Backend: cluster.ViaZooKeeper}
	ops := ConfigChangeOps(c.Changes...)
	if len(ops) > 0 {
		ws = multi(ops)
	}
	if m != clusterops.Apply {
		return c, nil, ws, nil
	}
	return c, nil, ws, clearThrottles(w.Z, ops)
}

// Elect creates /admin/preferred_replica_election (startPreferredElection);
// the controller carries it out and deletes it. Unclean elections cannot
// be asked for through ZooKeeper.
func (w *Writer) Elect(_ context.Context, p *clusterops.ElectionPlan, m clusterops.Mode) (clusterops.Writes, *clusterops.ElectionResult, error) {
	if p.Unclean {
		return clusterops.Writes{}, nil, errors.New(UncleanThroughZooKeeper)
	}
	ops, err := electionOps(w.Z, p)
	if err != nil {
		return clusterops.Writes{}, nil, err
	}
	if m != clusterops.Apply {
		return multi(ops), nil, nil
	}
	return multi(ops), nil, startPreferredElection(w.Z, p)
}

// DescribeConfigs implements ConfigDescriber as kafka-configs --zookeeper
// --describe reads: the config znode of the entity, or with entity "" of
// every entity of the type that has one (sorted); each override is a
// dynamic config of the entity's level, with no synonyms (ZooKeeper holds
// none). An entity without a znode has none: Kafka's ZooKeeper tool does
// not check that it exists.
func (w *Writer) DescribeConfigs(_ context.Context, entityType, entity string) ([]clusterops.DescribedEntity, error) {
	names := []string{entity}
	if entity == "" {
		l, ok := w.Z.(interface {
			Children(path string) ([]string, *zk.Stat, error)
		})
		if !ok {
			return nil, errors.New("this ZooKeeper session cannot list the entities")
		}
		kids, _, err := l.Children(cluster.ConfigPath + "/" + entityType)
		if err != nil && !errors.Is(err, zk.ErrNoNode) {
			return nil, readErr(cluster.ConfigPath+"/"+entityType, err)
		}
		slices.Sort(kids)
		names = kids
	}
	out := make([]clusterops.DescribedEntity, 0, len(names))
	for _, n := range names {
		entries, _, err := readEntityConfig(w.Z, entityType, n)
		if err != nil {
			return nil, err
		}
		source := "DYNAMIC_TOPIC_CONFIG"
		switch {
		case entityType == cluster.EntityBrokers && n == cluster.BrokerDefaultEntity:
			source = "DYNAMIC_DEFAULT_BROKER_CONFIG"
		case entityType == cluster.EntityBrokers:
			source = "DYNAMIC_BROKER_CONFIG"
		}
		e := clusterops.DescribedEntity{Name: n}
		for _, c := range entries {
			v := c.Value
			e.Configs = append(e.Configs, clusterops.DescribedConfig{Name: c.Key, Value: &v,
				Synonyms: []clusterops.ConfigSynonym{{Source: source, Name: c.Key, Value: &v}}})
		}
		out = append(out, e)
	}
	return out, nil
}
