package assign

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ktopo/ktopo/internal/text"
)

// Error classes used when adding partitions.
const (
	BrokerNotAvailable      = "BrokerNotAvailableException"
	messageOnlyIncrease     = "The number of partitions for a topic can only be increased. Topic %s currently has %d partitions, %d would not be an increase."
	messageMissingPartition = "Unexpected existing replica assignment for topic '%s', partition id 0 is missing. Assignment: %s"
)

// AddPartitions computes the replicas of the partitions added to a topic
// when its partition count grows to numPartitions, as AdminZkClient's
// createNewPartitionsAssignment does (spec §2.6). brokers are the registered
// brokers, sorted by id with the rack mode already applied. newReplicas, when
// not nil, is a manual assignment of the new partitions only (in order);
// otherwise AdminUtils places them, starting from the broker that leads
// partition 0. The result holds only the new partitions.
func AddPartitions(topic string, existing Assignment, numPartitions int, newReplicas [][]int, brokers []Broker) (Assignment, error) {
	res, err := AddPartitionsResult(topic, existing, numPartitions, newReplicas, brokers)
	return res.Assignment, err
}

// AddPartitionsResult is AddPartitions with the start index, shift and
// broker order AdminUtils used (StartIndex and ReplicaShift are -1 for a
// manual assignment), so that a preview can show and reproduce them.
func AddPartitionsResult(topic string, existing Assignment, numPartitions int, newReplicas [][]int, brokers []Broker) (Result, error) {
	none := Result{StartIndex: -1, ReplicaShift: -1}
	p0, ok := existing[0]
	if !ok {
		return none, errorf(AdminOperation, messageMissingPartition, topic, ScalaString(existing))
	}
	toAdd := numPartitions - len(existing)
	if toAdd <= 0 {
		return none, errorf(InvalidPartitions, messageOnlyIncrease, topic, len(existing), numPartitions)
	}
	rf := len(p0)
	if newReplicas != nil {
		if len(newReplicas) != toAdd {
			return none, errorf(InvalidReplicaAssignment, "Increasing the number of partitions by %d but %d assignments provided.", toAdd, len(newReplicas))
		}
		out := make(Assignment, toAdd)
		for i, rs := range newReplicas {
			out[len(existing)+i] = rs
		}
		none.Assignment = out
		return none, validateNewPartitions(out, rf, brokers)
	}
	// Kafka's start index is found in the id-sorted list, even when the
	// rack-aware algorithm then indexes its rack-alternated list with it.
	start := 0
	for i, b := range brokers {
		if b.ID >= p0[0] {
			start = i
			break
		}
	}
	o := Options{StartIndex: start, ReplicaShift: -1, StartPartition: len(existing)}
	return Assign(brokers, toAdd, rf, o)
}

// validateNewPartitions is AdminZkClient.validateReplicaAssignment.
func validateNewPartitions(a Assignment, rf int, brokers []Broker) error {
	live := make([]int, len(brokers))
	for i, b := range brokers {
		live[i] = b.ID
	}
	var badIDs, badRFs []string
	for _, p := range a.Partitions() {
		rs := a[p]
		if len(rs) == 0 {
			return errorf(InvalidReplicaAssignment, "Cannot have replication factor of 0 for partition id %d.", p)
		}
		if len(duplicates(rs)) > 0 {
			// Kafka lists the partition's whole replica list, not the duplicates.
			return errorf(InvalidReplicaAssignment, "Duplicate brokers not allowed in replica assignment: %s for partition id %d.", text.Join(rs, ", "), p)
		}
		for _, r := range rs {
			if !slices.Contains(live, r) {
				return errorf(BrokerNotAvailable, "Some brokers specified for partition id %d are not available. Specified brokers: %s, available brokers: %s.", p, text.Join(rs, ", "), text.Join(live, ", "))
			}
		}
		if len(rs) != rf {
			badIDs = append(badIDs, fmt.Sprint(p))
			badRFs = append(badRFs, fmt.Sprint(len(rs)))
		}
	}
	if len(badIDs) > 0 {
		return errorf(InvalidReplicaAssignment, "Inconsistent replication factor between partitions, partition 0 has %d while partitions [%s] have replication factors [%s], respectively.", rf, strings.Join(badIDs, ", "), strings.Join(badRFs, ", "))
	}
	return nil
}
