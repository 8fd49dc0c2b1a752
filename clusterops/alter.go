package clusterops

import (
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/go-zookeeper/zk"

	"github.com/ktopo/ktopo/assign"
	"github.com/ktopo/ktopo/cluster"
)

// KeyOrderingWarning is what Kafka 2.8's kafka-topics --alter --partitions
// prints before adding partitions (3.x prints it only in the option's help).
const KeyOrderingWarning = "WARNING: If partitions are increased for a topic that has a key, the partition logic or ordering of the messages will be affected"

// AddPartitionsRequest is kafka-topics --alter --partitions N
// [--replica-assignment …] for one topic.
type AddPartitionsRequest struct {
	Topic string
	// Partitions is the new partition count.
	Partitions int
	// Assignment is the parsed --replica-assignment, nil when absent. As in
	// Kafka's tools (2.8's ZooKeeper path and 3.x's), it lists every
	// partition: the entries from the current partition count on are the
	// new partitions, the ones before are ignored.
	Assignment assign.Assignment
}

// AddPartitionsPlan is a validated partition addition: the new partitions'
// placement and the exact topic znode that adding them writes.
type AddPartitionsPlan struct {
	Topic string
	// Existing is the current partition count; the new partitions are
	// Existing..Partitions-1.
	Existing, Partitions int
	// Brokers are the brokers AdminZkClient hands AdminUtils (registered,
	// sorted by id, racks enforced); Registered keeps every rack, for
	// display.
	Brokers, Registered []assign.Broker
	// Manual is true for a --replica-assignment plan.
	Manual bool
	// Result holds the new partitions only, with the start index (derived
	// from partition 0's first replica) and shift Kafka used.
	Result assign.Result
	// Ignored names the --replica-assignment entries of existing partitions
	// that differ from their current replicas: Kafka ignores them (adding
	// partitions never moves existing ones), which an operator may not
	// expect.
	Ignored []int
	// TopicPath, TopicJSON and Version: the topic znode rewritten with every
	// partition (topic id and reassignment state kept), set only if its
	// dataVersion is still Version.
	TopicPath string
	TopicJSON []byte
	Version   int32
}

// Assignment is the new partitions' assignment.
func (p *AddPartitionsPlan) Assignment() assign.Assignment { return p.Result.Assignment }

// PlanAddPartitions validates req against the cluster and places the new
// partitions as AdminZkClient.addPartitions does (spec §2.6), with Kafka's
// checks in the order a ZooKeeper-mode alter meets them:
//   - the topic exists (kafka-topics' "Topic '<t>' does not exist as expected");
//   - it is not an internal topic (2.8's kafka-topics: "The number of
//     partitions for the internal topic <t> cannot be changed.");
//   - it is not queued for deletion and no partition of it is being
//     reassigned (3.x's broker-side checks: the controller would undo the
//     first, and race the second);
//   - createNewPartitionsAssignment: partition 0 exists, the count grows,
//     a manual assignment has one entry per new partition, its brokers are
//     registered, no duplicates, partition 0's replication factor;
//     otherwise AdminUtils over the registered brokers sorted by id (racks
//     enforced), the start index the position of partition 0's first
//     replica in that list, the partition ids from the current count.
//
// Errors are *KafkaError.
func PlanAddPartitions(s *cluster.Snapshot, req AddPartitionsRequest) (*AddPartitionsPlan, error) {
	t := s.Topic(req.Topic)
	if t == nil {
		return nil, cluster.TopicDoesNotExistError(req.Topic)
	}
	if t.Internal() {
		return nil, kafkaErr(cluster.ClassIllegalArgument, "The number of partitions for the internal topic "+t.Name+" cannot be changed.")
	}
	if t.Err != nil {
		return nil, kafkaErr(cluster.ClassAdminOperation, fmt.Sprintf("The topic znode of %s cannot be read (%v): ktopo does not rewrite it", t.Name, t.Err))
	}
	existing := assign.Assignment{}
	adding, removing := map[int][]int{}, map[int][]int{}
	for _, p := range t.Partitions {
		if !p.InAssignment {
			continue
		}
		existing[p.ID] = p.Replicas
		if p.Reassigning() {
			return nil, reassigningTopicErr(t)
		}
		if len(p.Adding) > 0 {
			adding[p.ID] = p.Adding
		}
		if len(p.Removing) > 0 {
			removing[p.ID] = p.Removing
		}
	}
	if len(existing) == 0 {
		return nil, kafkaErr(cluster.ClassInvalidTopic, "The topic "+t.Name+" does not exist")
	}
	if t.MarkedForDeletion {
		return nil, kafkaErr(cluster.ClassInvalidTopic, "The topic is queued for deletion.")
	}
	if err := requestedTopicErr(s, t); err != nil {
		return nil, err
	}
	if err := CheckPartitionCount(req.Partitions); err != nil {
		return nil, err
	}
	brokers, err := s.BrokerMetadatas(cluster.RackAwareEnforced, nil)
	if err != nil {
		return nil, err
	}
	p := &AddPartitionsPlan{Topic: t.Name, Existing: len(existing), Partitions: req.Partitions,
		Brokers: brokers, Registered: s.RegisteredBrokers(), Version: t.ZkVersion, TopicPath: cluster.TopicPath(t.Name)}
	var manual [][]int
	if req.Assignment != nil {
		p.Manual = true
		manual = [][]int{}
		for i := range len(req.Assignment) {
			if i >= len(existing) {
				manual = append(manual, req.Assignment[i])
			} else if cur, ok := existing[i]; ok && !slices.Equal(cur, req.Assignment[i]) {
				p.Ignored = append(p.Ignored, i)
			}
		}
	}
	res, err := assign.AddPartitionsResult(t.Name, existing, req.Partitions, manual, brokers)
	if err != nil {
		return nil, cluster.AsKafkaError(err)
	}
	p.Result = res
	all := maps.Clone(existing)
	maps.Copy(all, res.Assignment)
	p.TopicJSON = cluster.EncodeTopicAssignment(cluster.TopicAssignment{Version: 3, Partitions: all,
		AddingReplicas: adding, RemovingReplicas: removing, TopicID: t.ID})
	if err := checkZnodeSize(t.Name, p.TopicJSON, len(all), len(existing[0])); err != nil {
		return nil, err
	}
	return p, nil
}

// AddPartitionsOps returns the multi that adds the plan's partitions: the
// topic znode set at the version the plan read.
func AddPartitionsOps(p *AddPartitionsPlan) []any {
	return []any{&zk.SetDataRequest{Path: p.TopicPath, Data: p.TopicJSON, Version: p.Version}}
}

// ErrConcurrentTopicChange is returned when the topic znode changed between
// planning and writing (a reassignment started, partitions were added, the
// topic was deleted): the version check failed and nothing was written.
var ErrConcurrentTopicChange = errors.New("the topic changed since it was read (its znode's version moved on); nothing was written: run the command again to plan on the new state")

// WriteAlteration sends ops (AddPartitionsOps, ConfigChangeOps or both) as
// one ZooKeeper multi. A version check that failed (or a znode that
// vanished, or a config znode someone created meanwhile) returns
// ErrConcurrentTopicChange or ErrConcurrentConfigChange, depending on the
// znode; nothing is written.
func WriteAlteration(z ZK, ops []any) error {
	results, err := Write(z, ops...) // Kafka's ACLs on what it creates (the notification)
	if err == nil {
		return nil
	}
	path, concurrent := "", false
	switch o := failedOp(ops, results).(type) {
	case *zk.SetDataRequest:
		path, concurrent = o.Path, errors.Is(err, zk.ErrBadVersion) || errors.Is(err, zk.ErrNoNode)
	case *zk.CreateRequest:
		path, concurrent = o.Path, errors.Is(err, zk.ErrNodeExists) && o.Flags&zk.FlagSequence == 0
	}
	switch k := cluster.ParsePath(path).Kind; {
	case !concurrent:
		return fmt.Errorf("write %s: %w (nothing was written)", path, err)
	case k == cluster.KindTopicConfig || k == cluster.KindEntityConfig:
		return fmt.Errorf("%s: %w", path, ErrConcurrentConfigChange)
	default:
		return fmt.Errorf("%s: %w", path, ErrConcurrentTopicChange)
	}
}

func reassigningTopicErr(t *cluster.Topic) error {
	return kafkaErr(cluster.ClassReassignmentInProgress, "A partition reassignment is in progress for the topic '"+t.Name+"'.")
}

// requestedTopicErr is Kafka's refusal when /admin/reassign_partitions
// names a partition of t.
func requestedTopicErr(s *cluster.Snapshot, t *cluster.Topic) error {
	if r := s.PendingReassignment(); r != nil {
		for _, rp := range r.Partitions {
			if rp.Topic == t.Name {
				return kafkaErr(cluster.ClassReassignmentInProgress, "A partition reassignment is in progress for the topic '"+t.Name+"' (/admin/reassign_partitions lists partition "+fmt.Sprint(rp.Partition)+").")
			}
		}
	}
	return nil
}

// AddPartitionsBlocked is PlanAddPartitions' refusal when a partition of
// topic is being reassigned, or is requested to be (nil otherwise): a
// preview made before the reassignment started says so before its write.
func AddPartitionsBlocked(s *cluster.Snapshot, topic string) error {
	t := s.Topic(topic)
	if t == nil {
		return nil
	}
	for _, p := range t.Partitions {
		if p.InAssignment && p.Reassigning() {
			return reassigningTopicErr(t)
		}
	}
	return requestedTopicErr(s, t)
}
