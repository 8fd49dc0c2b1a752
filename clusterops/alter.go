package clusterops

import (
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strconv"

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
	// Seed seeds a KRaft controller's placer (see TopicRequest.Seed).
	Seed    int64
	HasSeed bool
	Rand    *rand.Rand
}

// seed is the request's placer seed, drawn when it has none.
func (r AddPartitionsRequest) seed() int64 {
	if r.HasSeed {
		return r.Seed
	}
	return DrawSeed(r.Rand)
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
	kraft := s.KRaft() != nil
	for _, p := range t.Partitions {
		if !p.InAssignment {
			continue
		}
		existing[p.ID] = p.Replicas
		if p.Reassigning() && !kraft {
			return nil, reassigningTopicErr(t)
		}
		if len(p.Adding()) > 0 {
			adding[p.ID] = p.Adding()
		}
		if len(p.Removing()) > 0 {
			removing[p.ID] = p.Removing()
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
	if kraft {
		return planAddKRaft(s, t, existing, req)
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

// planAddKRaft places the new partitions of t as a KRaft controller's
// createPartitions does, with its checks and messages: the count must
// grow; a manual assignment needs an entry per new partition (its
// brokers registered, not cordoned, none twice, partition 0's
// replication factor); else the controller's placer (assign.Striped)
// places them, with partition 0's replication factor.
func planAddKRaft(s *cluster.Snapshot, t *cluster.Topic, existing assign.Assignment, req AddPartitionsRequest) (*AddPartitionsPlan, error) {
	n := len(existing)
	switch {
	case req.Partitions == n:
		return nil, kafkaErr(ClassInvalidPartitions, "Topic already has "+strconv.Itoa(n)+" partition(s).")
	case req.Partitions < n:
		return nil, kafkaErr(ClassInvalidPartitions, fmt.Sprintf("The topic %s currently has %d partition(s); %d would not be an increase.", t.Name, n, req.Partitions))
	}
	if err := checkKRaftAdditionalPartitions(req.Partitions - n); err != nil {
		return nil, err
	}
	rf := len(existing[0])
	p := &AddPartitionsPlan{Topic: t.Name, Existing: n, Partitions: req.Partitions, Registered: s.RegisteredBrokers(),
		Version: t.ZkVersion, TopicPath: cluster.TopicPath(t.Name)}
	if req.Assignment == nil {
		res, brokers, err := placeStriped(s, cluster.RackAwareEnforced, n, req.Partitions-n, rf, req.seed(), func(int) error { return nil })
		if err != nil {
			return nil, err
		}
		p.Result, p.Brokers = res, brokers
		return p, nil
	}
	p.Manual, p.Brokers = true, p.Registered
	a := assign.Assignment{}
	for i := range len(req.Assignment) {
		if i >= n {
			a[i] = req.Assignment[i]
		} else if cur, ok := existing[i]; ok && !slices.Equal(cur, req.Assignment[i]) {
			p.Ignored = append(p.Ignored, i)
		}
	}
	if len(a) < req.Partitions-n {
		return nil, kafkaErr(cluster.ClassInvalidReplicaAssignment, fmt.Sprintf("Attempted to add %d additional partition(s), but only %d assignment(s) were specified.", req.Partitions-n, len(a)))
	}
	for _, id := range a.Partitions() {
		if err := CheckKRaftManualPartition(s, a[id], rf); err != nil {
			return nil, err
		}
	}
	p.Result = assign.Result{Assignment: a, StartIndex: -1, ReplicaShift: -1}
	return p, nil
}

// CheckKRaftManualPartition is the KRaft controller's check of one
// partition of a manual assignment (validateManualPartitionAssignment),
// which every manual assignment meets: CreateTopics' and
// CreatePartitions' assignments, AlterPartitionReassignments' targets.
// The replicas are checked in broker id order, as Kafka sorts them: not
// empty, every broker registered (fenced ones are) and not cordoned (all
// its log directories), none twice; then rf replicas (rf < 0: any).
func CheckKRaftManualPartition(s *cluster.Snapshot, replicas []int, rf int) error {
	if len(replicas) == 0 {
		return kafkaErr(cluster.ClassInvalidReplicaAssignment, "The manual partition assignment includes an empty replica list.")
	}
	sorted := slices.Sorted(slices.Values(replicas))
	for i, id := range sorted {
		b, ok := s.Broker(id)
		switch {
		case !ok || !b.Live && !b.Fenced:
			return kafkaErr(cluster.ClassInvalidReplicaAssignment, fmt.Sprintf("The manual partition assignment includes broker %d, but no such broker is registered.", id))
		case b.Cordoned:
			return kafkaErr(cluster.ClassInvalidReplicaAssignment, CordonedAssignmentMessage(id))
		case i > 0 && sorted[i-1] == id:
			return kafkaErr(cluster.ClassInvalidReplicaAssignment, fmt.Sprintf("The manual partition assignment includes the broker %d more than once.", id))
		}
	}
	if rf >= 0 && len(replicas) != rf {
		return kafkaErr(cluster.ClassInvalidReplicaAssignment, fmt.Sprintf("The manual partition assignment includes a partition with %d replica(s), but this is not consistent with previous partitions, which have %d replica(s).", len(replicas), rf))
	}
	return nil
}

// CordonedAssignmentMessage is the KRaft controller's refusal of a manual
// assignment naming broker, all of whose log directories are cordoned
// (INVALID_REPLICA_ASSIGNMENT).
func CordonedAssignmentMessage(broker int) string {
	return fmt.Sprintf("The manual partition assignment includes broker %d, but all its log directories are cordoned.", broker)
}

// CordonedRefusal reports whether err is a KRaft controller's refusal of
// a manual assignment naming a cordoned broker (CordonedAssignmentMessage),
// and which broker it names.
func CordonedRefusal(err error) (broker int, ok bool) {
	var ke *cluster.KafkaError
	if !errors.As(err, &ke) || ke.Class != cluster.ClassInvalidReplicaAssignment {
		return 0, false
	}
	if _, err := fmt.Sscanf(ke.Message, "The manual partition assignment includes broker %d,", &broker); err != nil {
		return 0, false
	}
	return broker, ke.Message == CordonedAssignmentMessage(broker)
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
	if t == nil || s.KRaft() != nil { // a KRaft controller adds partitions during a reassignment
		return nil
	}
	for _, p := range t.Partitions {
		if p.InAssignment && p.Reassigning() {
			return reassigningTopicErr(t)
		}
	}
	return requestedTopicErr(s, t)
}
