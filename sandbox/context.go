package sandbox

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/internal/text"
)

// tp is Kafka's TopicPartition.
type tp struct {
	topic     string
	partition int
}

// String is TopicPartition.toString: "topic-partition".
func (p tp) String() string { return p.topic + "-" + strconv.Itoa(p.partition) }

func compareTP(a, b tp) int {
	if c := strings.Compare(a.topic, b.topic); c != 0 {
		return c
	}
	return cmp.Compare(a.partition, b.partition)
}

// replicaKey is Kafka's PartitionAndReplica.
type replicaKey struct {
	tp
	replica int
}

// String is PartitionAndReplica.toString.
func (r replicaKey) String() string {
	return fmt.Sprintf("[Topic=%s,Partition=%d,Replica=%d]", r.topic, r.partition, r.replica)
}

// partitionState is the controller's partition state (spec §4.3).
type partitionState uint8

const (
	nonExistentPartition partitionState = iota
	newPartition
	onlinePartition
	offlinePartition
)

var partitionStateNames = [...]string{"NonExistentPartition", "NewPartition", "OnlinePartition", "OfflinePartition"}

func (s partitionState) String() string { return partitionStateNames[s] }

// validPreviousPartitionStates is PartitionState.validPreviousStates, in
// the order Kafka's Set prints them.
var validPreviousPartitionStates = [...][]partitionState{
	nonExistentPartition: {offlinePartition},
	newPartition:         {nonExistentPartition},
	onlinePartition:      {newPartition, onlinePartition, offlinePartition},
	offlinePartition:     {newPartition, onlinePartition, offlinePartition},
}

// replicaState is the controller's replica state (spec §4.4).
type replicaState uint8

const (
	nonExistentReplica replicaState = iota
	newReplica
	onlineReplica
	offlineReplica
	replicaDeletionStarted
	replicaDeletionSuccessful
	replicaDeletionIneligible
)

var replicaStateNames = [...]string{"NonExistentReplica", "NewReplica", "OnlineReplica", "OfflineReplica",
	"ReplicaDeletionStarted", "ReplicaDeletionSuccessful", "ReplicaDeletionIneligible"}

func (s replicaState) String() string { return replicaStateNames[s] }

var validPreviousReplicaStates = [...][]replicaState{
	nonExistentReplica:        {replicaDeletionSuccessful},
	newReplica:                {nonExistentReplica},
	onlineReplica:             {newReplica, onlineReplica, offlineReplica, replicaDeletionIneligible},
	offlineReplica:            {newReplica, onlineReplica, offlineReplica, replicaDeletionIneligible},
	replicaDeletionStarted:    {offlineReplica},
	replicaDeletionSuccessful: {replicaDeletionStarted},
	replicaDeletionIneligible: {offlineReplica, replicaDeletionStarted},
}

func joinStates[S fmt.Stringer](ss []S) string {
	parts := make([]string, len(ss))
	for i, s := range ss {
		parts[i] = s.String()
	}
	return strings.Join(parts, ",")
}

// leaderAndIsr is Kafka's LeaderAndIsr: the content of a state znode plus
// its zkVersion (the partition epoch).
type leaderAndIsr struct {
	leader         int
	leaderEpoch    int
	isr            []int
	recovering     bool // leader_recovery_state RECOVERING
	partitionEpoch int32
}

// newLeaderAndIsr elects leader with isr: leader epoch + 1, the recovery
// state and partition epoch kept.
func (l leaderAndIsr) newLeaderAndIsr(leader int, isr []int) leaderAndIsr {
	return leaderAndIsr{leader: leader, leaderEpoch: l.leaderEpoch + 1, isr: isr,
		recovering: l.recovering, partitionEpoch: l.partitionEpoch}
}

// newRecoveringLeaderAndIsr is an unclean election: the new leader is
// marked RECOVERING.
func (l leaderAndIsr) newRecoveringLeaderAndIsr(leader int, isr []int) leaderAndIsr {
	n := l.newLeaderAndIsr(leader, isr)
	n.recovering = true
	return n
}

func (l leaderAndIsr) newLeader(leader int) leaderAndIsr {
	return l.newLeaderAndIsr(leader, slices.Clone(l.isr))
}

func (l leaderAndIsr) recoveryName() string {
	if l.recovering {
		return "RECOVERING"
	}
	return "RECOVERED"
}

func (l leaderAndIsr) String() string {
	return fmt.Sprintf("LeaderAndIsr(leader=%d, leaderEpoch=%d, isr=%s, leaderRecoveryState=%s, partitionEpoch=%d)",
		l.leader, l.leaderEpoch, text.Ints(l.isr), l.recoveryName(), l.partitionEpoch)
}

// equalsAllowStalePartitionEpoch is LeaderAndIsr.equalsAllowStalePartitionEpoch.
func (l leaderAndIsr) equalsAllowStalePartitionEpoch(o leaderAndIsr) bool {
	return l.leader == o.leader && l.leaderEpoch == o.leaderEpoch && slices.Equal(l.isr, o.isr) &&
		l.recovering == o.recovering
}

// leaderIsrAndControllerEpoch is a state znode as the controller caches it.
type leaderIsrAndControllerEpoch struct {
	leaderAndIsr
	controllerEpoch int
}

// encode renders the state znode JSON through the cluster encoder.
func (l leaderIsrAndControllerEpoch) encode() []byte {
	s := cluster.PartitionState{ControllerEpoch: l.controllerEpoch, Leader: l.leader, Version: 1,
		LeaderEpoch: l.leaderEpoch, ISR: l.isr}
	if l.recovering {
		s.LeaderRecoveryState = cluster.LeaderRecovering
	}
	return cluster.EncodePartitionState(s)
}

func decodeLeaderIsr(data []byte, version int32) (leaderIsrAndControllerEpoch, error) {
	s, err := cluster.DecodePartitionState(data)
	if err != nil {
		return leaderIsrAndControllerEpoch{}, err
	}
	return leaderIsrAndControllerEpoch{
		leaderAndIsr: leaderAndIsr{leader: s.Leader, leaderEpoch: s.LeaderEpoch, isr: s.ISR,
			recovering: s.LeaderRecoveryState == cluster.LeaderRecovering, partitionEpoch: version},
		controllerEpoch: s.ControllerEpoch,
	}, nil
}

// controllerContext is Kafka's ControllerContext: the controller's cache.
type controllerContext struct {
	epoch          int
	epochZkVersion int32

	liveBrokers map[int]int64 // broker id → broker epoch (czxid of its znode)
	allTopics   map[string]bool
	topicIDs    map[string]string
	// assignment: topic → partition → replicas (assignment order).
	assignment map[string]map[int][]int
	leadership map[tp]leaderIsrAndControllerEpoch
	// partitionsNode: topics whose /brokers/topics/<t>/partitions exists.
	partitionsNode map[string]bool

	partitionStates map[tp]partitionState
	replicaStates   map[replicaKey]replicaState

	topicsToBeDeleted           map[string]bool
	topicsWithDeletionStarted   map[string]bool
	topicsIneligibleForDeletion map[string]bool

	// ra holds the reassignments in progress (reassign.go).
	ra *reassignContext
}

func newControllerContext() *controllerContext {
	return &controllerContext{
		liveBrokers:                 map[int]int64{},
		allTopics:                   map[string]bool{},
		topicIDs:                    map[string]string{},
		assignment:                  map[string]map[int][]int{},
		leadership:                  map[tp]leaderIsrAndControllerEpoch{},
		partitionsNode:              map[string]bool{},
		partitionStates:             map[tp]partitionState{},
		replicaStates:               map[replicaKey]replicaState{},
		topicsToBeDeleted:           map[string]bool{},
		topicsWithDeletionStarted:   map[string]bool{},
		topicsIneligibleForDeletion: map[string]bool{},
		ra:                          newReassignContext(),
	}
}

func (cc *controllerContext) isReplicaOnline(broker int) bool {
	_, ok := cc.liveBrokers[broker]
	return ok
}

func (cc *controllerContext) liveBrokerIDs() []int {
	ids := make([]int, 0, len(cc.liveBrokers))
	for id := range cc.liveBrokers {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// replicas is partitionReplicaAssignment (nil when unknown).
func (cc *controllerContext) replicas(p tp) []int { return cc.assignment[p.topic][p.partition] }

func (cc *controllerContext) setAssignment(p tp, replicas []int) {
	m := cc.assignment[p.topic]
	if m == nil {
		m = map[int][]int{}
		cc.assignment[p.topic] = m
	}
	m[p.partition] = replicas
}

func (cc *controllerContext) partitionsForTopic(topic string) []tp {
	m := cc.assignment[topic]
	ps := make([]tp, 0, len(m))
	for p := range m {
		ps = append(ps, tp{topic, p})
	}
	slices.SortFunc(ps, compareTP)
	return ps
}

func (cc *controllerContext) allPartitions() []tp {
	var ps []tp
	for t, m := range cc.assignment {
		for p := range m {
			ps = append(ps, tp{t, p})
		}
	}
	slices.SortFunc(ps, compareTP)
	return ps
}

func (cc *controllerContext) replicasForPartitions(ps []tp) []replicaKey {
	var rs []replicaKey
	for _, p := range ps {
		for _, r := range cc.replicas(p) {
			rs = append(rs, replicaKey{p, r})
		}
	}
	return rs
}

func (cc *controllerContext) replicasForTopic(topic string) []replicaKey {
	return cc.replicasForPartitions(cc.partitionsForTopic(topic))
}

func (cc *controllerContext) replicasOnBrokers(ids map[int]bool) []replicaKey {
	var rs []replicaKey
	for _, p := range cc.allPartitions() {
		for _, r := range cc.replicas(p) {
			if ids[r] {
				rs = append(rs, replicaKey{p, r})
			}
		}
	}
	return rs
}

func (cc *controllerContext) partitionState(p tp) partitionState { return cc.partitionStates[p] }

func (cc *controllerContext) replicaState(r replicaKey) replicaState { return cc.replicaStates[r] }

func (cc *controllerContext) partitionsInStates(states ...partitionState) []tp {
	var ps []tp
	for p, s := range cc.partitionStates {
		if slices.Contains(states, s) {
			ps = append(ps, p)
		}
	}
	slices.SortFunc(ps, compareTP)
	return ps
}

func (cc *controllerContext) isTopicQueuedUpForDeletion(topic string) bool {
	return cc.topicsToBeDeleted[topic]
}

// partitionsWithOfflineLeader: partitions whose leader is not online, of
// topics not queued for deletion.
func (cc *controllerContext) partitionsWithOfflineLeader() []tp {
	var ps []tp
	for p, l := range cc.leadership {
		if !cc.isReplicaOnline(l.leader) && !cc.isTopicQueuedUpForDeletion(p.topic) {
			ps = append(ps, p)
		}
	}
	slices.SortFunc(ps, compareTP)
	return ps
}

func (cc *controllerContext) replicasInState(topic string, s replicaState) []replicaKey {
	var rs []replicaKey
	for _, r := range cc.replicasForTopic(topic) {
		if cc.replicaStates[r] == s {
			rs = append(rs, r)
		}
	}
	return rs
}

func (cc *controllerContext) areAllReplicasInState(topic string, s replicaState) bool {
	for _, r := range cc.replicasForTopic(topic) {
		if cc.replicaStates[r] != s {
			return false
		}
	}
	return true
}

func (cc *controllerContext) isAnyReplicaInState(topic string, s replicaState) bool {
	for _, r := range cc.replicasForTopic(topic) {
		if cc.replicaStates[r] == s {
			return true
		}
	}
	return false
}

// removeTopic forgets a topic and everything about its partitions.
func (cc *controllerContext) removeTopic(topic string) {
	for _, p := range cc.partitionsForTopic(topic) {
		delete(cc.leadership, p)
		delete(cc.partitionStates, p)
		for _, r := range cc.replicas(p) {
			delete(cc.replicaStates, replicaKey{p, r})
		}
	}
	// Replica states of replicas no longer in the assignment.
	for r := range cc.replicaStates {
		if r.topic == topic {
			delete(cc.replicaStates, r)
		}
	}
	cc.ra.forgetTopic(topic)
	delete(cc.assignment, topic)
	delete(cc.partitionsNode, topic)
	delete(cc.allTopics, topic)
	delete(cc.topicIDs, topic)
	delete(cc.topicsToBeDeleted, topic)
	delete(cc.topicsWithDeletionStarted, topic)
	delete(cc.topicsIneligibleForDeletion, topic)
}

func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}
