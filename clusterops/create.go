package clusterops

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/ktopo/ktopo/assign"
	"github.com/ktopo/ktopo/cluster"
)

// TopicRequest is a topic to create, as kafka-topics --create takes it.
type TopicRequest struct {
	Name string
	// Partitions and ReplicationFactor place replicas with Kafka's
	// AdminUtils; they are ignored when Assignment is set.
	Partitions, ReplicationFactor int
	// Assignment is a manual assignment (--replica-assignment).
	Assignment assign.Assignment
	// Config holds the overrides for /config/topics/<t>.
	Config map[string]string
	// RackAware is Enforced by default, Disabled with --disable-rack-aware.
	RackAware cluster.RackAwareMode
	// StartIndex and ReplicaShift fix AdminUtils' random choices (< 0: draw
	// them, with Rand if set). See assign.Options.
	StartIndex, ReplicaShift int
	Rand                     *rand.Rand
	// Seed seeds the KRaft controller's placer (a KRaft cluster's
	// automatic placement, assign.Striped) when HasSeed; else one is
	// drawn (with Rand if set).
	Seed    int64
	HasSeed bool
	// TopicID, when set, is written into the topic znode (what a 2.8+
	// broker with IBP ≥ 2.8 does); empty lets the controller add one.
	TopicID string
}

// TopicPlan is a validated topic creation: the assignment and the exact
// znodes and JSON that creating it writes.
type TopicPlan struct {
	Name string
	// Brokers are the registered brokers as AdminZkClient hands them to
	// AdminUtils: sorted by id, rack mode applied. Registered keeps every
	// known rack, for display.
	Brokers, Registered []assign.Broker
	// Manual is true for a --replica-assignment plan.
	Manual bool
	// Result is the assignment and the start index and shift that made it.
	Result assign.Result
	// Config is the overrides, written as ConfigJSON to ConfigPath.
	Config     map[string]string
	ConfigPath string
	ConfigJSON []byte
	// TopicPath and TopicJSON: the topic znode with the assignment.
	TopicPath string
	TopicJSON []byte
}

// Assignment is the planned assignment.
func (p *TopicPlan) Assignment() assign.Assignment { return p.Result.Assignment }

// PlanTopic validates req against the cluster and computes its assignment,
// in kafka-topics' order (ZooKeeper mode): the config overrides (checked
// when the options are parsed), then the brokers and AdminUtils' checks
// (automatic placement: partitions, replication factor, racks), then
// AdminZkClient.validateTopicCreate (name, deletion marker, existence,
// collisions, assignment, config). Errors are *KafkaError.
func PlanTopic(s *cluster.Snapshot, req TopicRequest) (*TopicPlan, error) {
	if err := validateTopicConfig(req.Config, s); err != nil {
		return nil, err
	}
	p := &TopicPlan{Name: req.Name, Registered: s.RegisteredBrokers(), Config: req.Config}
	kraft := s.KRaft() != nil
	switch {
	case req.Assignment != nil:
		p.Manual = true
		p.Result = assign.Result{Assignment: req.Assignment, StartIndex: -1, ReplicaShift: -1}
		p.Brokers = p.Registered
		if kraft {
			if err := checkKRaftManual(s, req.Assignment); err != nil {
				return nil, err
			}
		}
	case kraft:
		res, brokers, err := placeStriped(s, req.RackAware, 0, req.Partitions, req.ReplicationFactor, req.seed(), CheckKRaftPartitionCount)
		if err != nil {
			return nil, err
		}
		p.Result, p.Brokers = res, brokers
	default:
		brokers, err := s.BrokerMetadatas(req.RackAware, nil)
		if err != nil {
			return nil, err
		}
		p.Brokers = brokers
		if err := CheckPartitionCount(req.Partitions); err != nil {
			return nil, err
		}
		opts := assign.Options{StartIndex: req.StartIndex, ReplicaShift: req.ReplicaShift, StartPartition: -1, Rand: req.Rand}
		res, err := assign.Assign(brokers, req.Partitions, req.ReplicationFactor, opts)
		if err != nil {
			return nil, cluster.AsKafkaError(err)
		}
		p.Result = res
	}
	if err := cluster.ValidateTopicCreate(req.Name, p.Result.Assignment, req.Config, s); err != nil {
		return nil, err
	}
	p.ConfigPath = cluster.TopicConfigPath(req.Name)
	p.ConfigJSON = cluster.EncodeEntityConfig(req.Config)
	p.TopicPath = cluster.TopicPath(req.Name)
	p.TopicJSON = cluster.EncodeTopicAssignment(cluster.NewTopicAssignment(p.Result.Assignment, req.TopicID))
	if kraft {
		return p, nil // no znode holds it
	}
	if err := checkZnodeSize(req.Name, p.TopicJSON, len(p.Result.Assignment), len(p.Result.Assignment[0])); err != nil {
		return nil, err
	}
	return p, nil
}

// checkKRaftManual is the KRaft controller's check of a new topic's
// manual assignment, partition by partition: its brokers
// (CheckKRaftManualPartition, partition 0's replication factor for all),
// then a live one in each.
func checkKRaftManual(s *cluster.Snapshot, a assign.Assignment) error {
	rf := -1
	for _, id := range a.Partitions() {
		if err := CheckKRaftManualPartition(s, a[id], rf); err != nil {
			return err
		}
		rf = len(a[id])
		if !slices.ContainsFunc(a[id], s.IsLive) {
			return kafkaErr(cluster.ClassInvalidReplicaAssignment, fmt.Sprintf("All brokers specified in the manual partition assignment for partition %d are fenced or in controlled shutdown.", id))
		}
	}
	return nil
}

// seed is the request's placer seed, drawn when it has none.
func (r TopicRequest) seed() int64 {
	if r.HasSeed {
		return r.Seed
	}
	return DrawSeed(r.Rand)
}

// DrawSeed draws a seed for the KRaft controller's placer (from r when
// set): a non-negative one, short enough to type back.
func DrawSeed(r *rand.Rand) int64 {
	if r != nil {
		return r.Int64N(1 << 31)
	}
	return rand.Int64N(1 << 31)
}

// Kafka's limits on the partitions of one request (KRaft controller's
// ReplicationControlManager).
const (
	// MaxKRaftPartitionsPerRequest is MAX_PARTITIONS_PER_BATCH.
	MaxKRaftPartitionsPerRequest = 10000
)

// CheckKRaftPartitionCount is the KRaft controller's check of a new
// topic's partition count: positive (InvalidPartitionsException), at
// most MaxKRaftPartitionsPerRequest in a request (PolicyViolationException).
func CheckKRaftPartitionCount(n int) error {
	switch {
	case n <= 0:
		return kafkaErr(ClassInvalidPartitions, "Number of partitions was set to an invalid non-positive value.")
	case n > MaxKRaftPartitionsPerRequest:
		return kafkaErr(ClassPolicyViolation, "Excessively large number of partitions per request.")
	}
	return nil
}

// checkKRaftAdditionalPartitions is the same check of the partitions a
// CreatePartitions adds.
func checkKRaftAdditionalPartitions(n int) error {
	if n > MaxKRaftPartitionsPerRequest {
		return kafkaErr(ClassPolicyViolation, "Excessively large number of additional partitions per request.")
	}
	return nil
}

// Exception classes of a KRaft controller's refusals that cluster does
// not name.
const (
	ClassInvalidPartitions        = "InvalidPartitionsException"
	ClassPolicyViolation          = "PolicyViolationException"
	ClassInvalidReplicationFactor = "InvalidReplicationFactorException"
)

// placeStriped places n partitions of rf replicas from partition start
// as the KRaft controller of s would (assign.Striped, seeded), after the
// controller's checks of the count (check) and of the replication
// factor. It returns the placement and the brokers it was placed on
// (usable brokers: fenced and cordoned ones left out of the list shown).
func placeStriped(s *cluster.Snapshot, mode cluster.RackAwareMode, start, n, rf int, seed int64, check func(int) error) (assign.Result, []assign.Broker, error) {
	if err := check(n); err != nil {
		return assign.Result{}, nil, err
	}
	if rf == 0 || rf < -1 {
		return assign.Result{}, nil, kafkaErr(ClassInvalidReplicationFactor, "Replication factor must be larger than 0, or -1 to use the default value.")
	}
	usable := s.UsableBrokers(mode)
	res, err := assign.StripedResult(usable, start, n, rf, seed, assign.StripedOptions{Cordoning: s.KRaft().CordonSupported()})
	if err != nil {
		// The controller says which replication factor it could not meet.
		var ae *assign.Error
		if errors.As(err, &ae) && ae.Class == assign.InvalidReplicationFactor {
			return assign.Result{}, nil, kafkaErr(ae.Class, fmt.Sprintf("Unable to replicate the partition %d time(s): %s", rf, ae.Message))
		}
		return assign.Result{}, nil, cluster.AsKafkaError(err)
	}
	var brokers []assign.Broker
	for _, b := range usable {
		if !b.Fenced {
			brokers = append(brokers, assign.Broker{ID: b.ID, Rack: b.Rack, HasRack: b.HasRack})
		}
	}
	return res, brokers, nil
}

// MaxZnodeData is the largest znode Kafka's brokers can read: ZooKeeper's
// default jute.maxbuffer (1 MiB − 1), which its Java client also applies to
// replies. A topic znode above it can be written to a server configured
// with more, but no broker or controller could read it back.
const MaxZnodeData = 0xfffff

// topicIDRoom is what the controller adds to a topic znode (its topic id)
// and the reply's framing: the assignment must leave room for both.
const topicIDRoom = 64

// MaxPartitions bounds a topic's partition count before anything is
// computed: every partition takes at least 6 bytes of the topic znode
// ("0":[1],), so more can never fit in MaxZnodeData.
const MaxPartitions = MaxZnodeData / 6

// CheckPartitionCount refuses a partition count no topic znode can hold,
// before an assignment of that size is computed (Kafka would try, and run
// out of memory or hang). ktopo's message, not Kafka's.
func CheckPartitionCount(n int) error {
	if n <= MaxPartitions {
		return nil
	}
	return kafkaErr(cluster.ClassInvalidReplicaAssignment, fmt.Sprintf(
		"%d partitions cannot fit in a topic znode: Kafka's ZooKeeper clients read at most %d bytes per znode (jute.maxbuffer), room for fewer than %d partitions",
		n, MaxZnodeData, MaxPartitions))
}

// checkZnodeSize refuses an assignment whose topic znode would be too large
// for Kafka to read. Kafka has no such check: its own tools keep retrying
// a write ZooKeeper refuses, and hang. (ktopo's message, not Kafka's.)
func checkZnodeSize(topic string, data []byte, partitions, rf int) error {
	n := len(data) + topicIDRoom
	if n <= MaxZnodeData {
		return nil
	}
	fit := MaxZnodeData * partitions / n
	return kafkaErr(cluster.ClassInvalidReplicaAssignment, fmt.Sprintf(
		"Topic '%s' cannot be created: its assignment is %d bytes of JSON, and Kafka's ZooKeeper clients read at most %d bytes per znode (jute.maxbuffer); "+
			"with replication factor %d about %d partitions fit", topic, len(data), MaxZnodeData-topicIDRoom, rf, fit))
}
