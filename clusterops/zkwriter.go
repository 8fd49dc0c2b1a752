package clusterops

import (
	"context"
	"errors"
	"slices"

	"github.com/go-zookeeper/zk"

	"github.com/ktopo/ktopo/cluster"
)

// ZooKeeperWriter is the Writer of a cluster in ZooKeeper mode: every
// operation is the one multi this package builds for it (createOps,
// AddPartitionsOps, ConfigChangeOps, planReassignment's, electionOps, …),
// sent through writeMulti and so through the ZooKeeper to KRaft migration
// guard (guard.go). The context is not used: the session's requests have
// deadlines of their own.
type ZooKeeperWriter struct {
	// Z is the session the multis go through (with the operator's
	// confirmation of a migration warning: confirm).
	Z ZK
}

var (
	_ Writer          = (*ZooKeeperWriter)(nil)
	_ Guarded         = (*ZooKeeperWriter)(nil)
	_ ConfigDescriber = (*ZooKeeperWriter)(nil)
)

// NewZooKeeperWriter writes through z.
func NewZooKeeperWriter(z ZK) *ZooKeeperWriter { return &ZooKeeperWriter{Z: z} }

// Backend is ZooKeeper.
func (w *ZooKeeperWriter) Backend() cluster.Backend { return cluster.ViaZooKeeper }

// Words are ZooKeeperWords.
func (w *ZooKeeperWriter) Words() *Words { return &ZooKeeperWords }

// Verdict is the migration guard's verdict on s (SnapshotVerdict).
func (w *ZooKeeperWriter) Verdict(s *cluster.Snapshot) cluster.WriteVerdict {
	return SnapshotVerdict(s)
}

// Check is the migration guard's verdict on a fresh read (checkWrite).
func (w *ZooKeeperWriter) Check(context.Context) (cluster.WriteVerdict, error) {
	return checkWrite(w.Z)
}

// Confirm returns the writer whose multis go ahead under the warning v
// (confirm: the session then carries v).
func (w *ZooKeeperWriter) Confirm(v cluster.WriteVerdict) Writer {
	return &ZooKeeperWriter{Z: confirm(w.Z, v)}
}

// multi is the Writes of one multi.
func multi(ops []any) Writes {
	return Writes{Backend: cluster.ViaZooKeeper, Steps: []WriteStep{{Lines: DescribeOps(ops)}}}
}

// CreateTopic writes createOps' multi (createTopic: the config znode and
// the topic znode, with missing parents).
func (w *ZooKeeperWriter) CreateTopic(_ context.Context, p *TopicPlan, m Mode) (Writes, error) {
	ops, err := createOps(w.Z, p)
	if err != nil {
		return Writes{}, err
	}
	if m != Apply {
		return multi(ops), nil
	}
	return multi(ops), createTopic(w.Z, p)
}

// MaybeWritten is the package's MaybeWritten.
func (w *ZooKeeperWriter) MaybeWritten(err error) bool { return MaybeWritten(err) }

// VerifyCreate reads the topic back once the session is back
// (verifyCreate).
func (w *ZooKeeperWriter) VerifyCreate(ctx context.Context, p *TopicPlan, err error) Outcome {
	return verifyCreate(ctx, w.Z, p, err)
}

// AddPartitions sets the topic znodes at the versions the plans read, in
// one multi (writeAlteration).
func (w *ZooKeeperWriter) AddPartitions(_ context.Context, ps []*AddPartitionsPlan, m Mode) (Writes, error) {
	var ops []any
	for _, p := range ps {
		ops = append(ops, AddPartitionsOps(p)...)
	}
	if m != Apply {
		return multi(ops), nil
	}
	return multi(ops), writeAlteration(w.Z, ops)
}

// ReadConfig reads /config/<type>/<entity> (readEntityConfig).
func (w *ZooKeeperWriter) ReadConfig(_ context.Context, entityType, entity string) ([]cluster.ConfigEntry, int32, error) {
	return readEntityConfig(w.Z, entityType, entity)
}

// AlterConfigs writes every alteration's override set and change
// notification in one multi, after the creates of missing parents.
func (w *ZooKeeperWriter) AlterConfigs(_ context.Context, as []*ConfigAlteration, m Mode) (Writes, error) {
	var ops []any
	dirs := []string{}
	for _, a := range as {
		ops = append(ops, a.Ops()...)
		if d := cluster.ConfigPath + "/" + a.Change.EntityType; !slices.Contains(dirs, d) {
			dirs = append(dirs, d)
		}
	}
	ops, err := withParents(w.Z, ops, append(dirs, cluster.ConfigChangesPath)...)
	if err != nil {
		return Writes{}, err
	}
	if m != Apply {
		return multi(ops), nil
	}
	return multi(ops), writeAlteration(w.Z, ops)
}

// DeleteTopic creates /admin/delete_topics/<t> (deleteTopic).
func (w *ZooKeeperWriter) DeleteTopic(_ context.Context, s *cluster.Snapshot, topic string, m Mode) (Writes, error) {
	ops, err := deleteTopicOps(w.Z, topic, s)
	if err != nil {
		return Writes{}, err
	}
	if m != Apply {
		return multi(ops), nil
	}
	return multi(ops), deleteTopic(w.Z, topic, s)
}

// StartReassignment is planReassignment's multi (the throttles and
// /admin/reassign_partitions), written with executeReassignment.
func (w *ZooKeeperWriter) StartReassignment(_ context.Context, s *cluster.Snapshot, rs []cluster.Reassignment, throttle int64, m Mode) (*ReassignPlan, Writes, error) {
	p, err := planReassignment(s, w.Z, rs, throttle)
	if err != nil {
		return nil, Writes{}, err
	}
	if m != Apply {
		return p, multi(p.Ops), nil
	}
	return p, multi(p.Ops), executeReassignment(w.Z, p)
}

// ErrAdditionalNeedsKafka is the refusal of --additional through
// ZooKeeper (a writer that is not Additive).
var ErrAdditionalNeedsKafka = errors.New("--additional needs Kafka's Admin API (AlterPartitionReassignments): through ZooKeeper a reassignment starts only when " +
	cluster.ReassignPartitionsPath + " is created, so nothing can be added to one in progress. Wait until it completes (ktopo reassign --verify)")

// ErrCancelNeedsKafka is the refusal to cancel a reassignment through
// ZooKeeper (a writer that is not a Canceller).
var ErrCancelNeedsKafka = errors.New("--cancel needs Kafka's Admin API (AlterPartitionReassignments): ZooKeeper has no way to cancel a reassignment. " +
	"Use kafka-reassign-partitions.sh --bootstrap-server … --cancel, or start a reassignment back to the current assignment once this one completes")

// RemoveThrottles is what --verify does with the throttles of rs once
// they are done: while another reassignment runs, nothing (kept names the
// throttles that stay: removing the brokers' rates would lift its
// throttle too); else the one multi clearing them (PlanThrottleClear,
// clearThrottles).
func (w *ZooKeeperWriter) RemoveThrottles(_ context.Context, s *cluster.Snapshot, rs []cluster.Reassignment, m Mode) (*ThrottleClear, []string, Writes, error) {
	if _, ongoing := VerifyReassignment(s, rs); ongoing {
		kept, err := ThrottlesLeft(s, w.Z, rs)
		return nil, kept, Writes{Backend: cluster.ViaZooKeeper}, err
	}
	c, err := PlanThrottleClear(s, w.Z, rs)
	if err != nil {
		return nil, nil, Writes{}, err
	}
	ws := Writes{Backend: cluster.ViaZooKeeper}
	if len(c.Ops) > 0 {
		ws = multi(c.Ops)
	}
	if m != Apply {
		return c, nil, ws, nil
	}
	return c, nil, ws, clearThrottles(w.Z, c)
}

// Elect creates /admin/preferred_replica_election (startPreferredElection);
// the controller carries it out and deletes it. Unclean elections cannot
// be asked for through ZooKeeper.
func (w *ZooKeeperWriter) Elect(_ context.Context, p *ElectionPlan, m Mode) (Writes, *ElectionResult, error) {
	if p.Unclean {
		return Writes{}, nil, errors.New(UncleanThroughZooKeeper)
	}
	ops, err := electionOps(w.Z, p)
	if err != nil {
		return Writes{}, nil, err
	}
	if m != Apply {
		return multi(ops), nil, nil
	}
	return multi(ops), nil, startPreferredElection(w.Z, p)
}

// ErrCordonNeedsKRaft is the refusal to cordon a broker of a ZooKeeper
// cluster (a writer that is not a Cordoner).
var ErrCordonNeedsKRaft = errors.New("cordoning a broker (KIP-1066, cordoned.log.dirs) is a KRaft cluster's, Kafka 4.3 or later: ZooKeeper-mode brokers cannot be cordoned")

// DescribeConfigs implements ConfigDescriber as kafka-configs --zookeeper
// --describe reads: the config znode of the entity, or with entity "" of
// every entity of the type that has one (sorted); each override is a
// dynamic config of the entity's level, with no synonyms (ZooKeeper holds
// none). An entity without a znode has none: Kafka's ZooKeeper tool does
// not check that it exists.
func (w *ZooKeeperWriter) DescribeConfigs(_ context.Context, entityType, entity string) ([]DescribedEntity, error) {
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
	out := make([]DescribedEntity, 0, len(names))
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
		e := DescribedEntity{Name: n}
		for _, c := range entries {
			v := c.Value
			e.Configs = append(e.Configs, DescribedConfig{Name: c.Key, Value: &v,
				Synonyms: []ConfigSynonym{{Source: source, Name: c.Key, Value: &v}}})
		}
		out = append(out, e)
	}
	return out, nil
}
