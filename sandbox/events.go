package sandbox

import (
	"slices"
	"strconv"
	"strings"
)

// event is one ControllerEvent; String is its name for logs.
type event interface{ String() string }

type (
	evStartup                  struct{ done chan struct{} }
	evControllerChange         struct{}
	evReelect                  struct{}
	evExpire                   struct{}
	evRegisterBrokerAndReelect struct{}
	evBrokerChange             struct{}
	evBrokerModifications      struct{ id int }
	evTopicChange              struct{}
	evPartitionModifications   struct{ topic string }
	evTopicDeletion            struct{}
	evIsrChangeNotification    struct{}
	evLogDirEventNotification  struct{}
	evPartitionReassignment    struct{}
	// evMoveController asks the active controller to resign and sit out
	// the next election (a sandbox control, not a Kafka event).
	evMoveController struct{ reply chan error }
	// evLiveBrokers asks the controller which brokers it knows live (a
	// sandbox control: Start waits until they are every registered one).
	evLiveBrokers struct{ reply chan []int }
	// evAutoPreferredReplicaLeaderElection comes from the rebalance timer.
	evAutoPreferredReplicaLeaderElection struct{ term int }
)

// evReplicaLeaderElection is a preferred election: from ZooKeeper
// (/admin/preferred_replica_election, partitions nil) or from the API.
type evReplicaLeaderElection struct {
	trigger electionTrigger
	// Admin-client elections name a topic ("" = every topic).
	topic string
	reply chan electionReply
}

type electionTrigger uint8

const (
	zkTriggered electionTrigger = iota
	adminClientTriggered
	autoTriggered
)

func (t electionTrigger) String() string {
	return [...]string{"ZkTriggered", "AdminClientTriggered", "AutoTriggered"}[t]
}

// electionReply carries the per-partition results of an API election.
type electionReply struct {
	results map[tp]electionOutcome
	err     error
}

type electionOutcome struct {
	leader int
	err    apiError
	msg    string
}

// evAlterPartition is an AlterPartition request from a partition leader
// (an in-process call standing for the RPC).
type evAlterPartition struct {
	brokerID    int
	brokerEpoch int64
	p           tp
	proposed    leaderAndIsr
	reply       func(leaderAndIsr, apiError)
}

// evStopReplicaResponse is a broker's answer to StopReplica(delete=true).
type evStopReplicaResponse struct {
	replica         int
	parts           []tp
	controllerEpoch int
	err             apiError
}

func (*evStartup) String() string                  { return "Startup" }
func (*evControllerChange) String() string         { return "ControllerChange" }
func (*evReelect) String() string                  { return "Reelect" }
func (*evExpire) String() string                   { return "Expire" }
func (*evRegisterBrokerAndReelect) String() string { return "RegisterBrokerAndReelect" }
func (*evBrokerChange) String() string             { return "BrokerChange" }
func (e *evBrokerModifications) String() string {
	return "BrokerModifications(" + strconv.Itoa(e.id) + ")"
}
func (*evTopicChange) String() string { return "TopicChange" }
func (e *evPartitionModifications) String() string {
	return "PartitionModifications(" + e.topic + ")"
}
func (*evTopicDeletion) String() string           { return "TopicDeletion" }
func (*evIsrChangeNotification) String() string   { return "IsrChangeNotification" }
func (*evLogDirEventNotification) String() string { return "LogDirEventNotification" }
func (*evPartitionReassignment) String() string   { return "ZkPartitionReassignment" }
func (*evMoveController) String() string          { return "MoveController" }
func (*evLiveBrokers) String() string             { return "LiveBrokers" }
func (*evAutoPreferredReplicaLeaderElection) String() string {
	return "AutoPreferredReplicaLeaderElection"
}
func (e *evReplicaLeaderElection) String() string {
	return "ReplicaLeaderElection(PREFERRED, " + e.trigger.String() + ")"
}
func (e *evAlterPartition) String() string { return "AlterPartitionReceived(" + e.p.String() + ")" }
func (e *evStopReplicaResponse) String() string {
	return "TopicDeletionStopReplicaResponseReceived(" + strconv.Itoa(e.replica) + ")"
}

// apiError is a Kafka protocol error code name ("" = NONE).
type apiError string

const (
	errNone                        apiError = ""
	errNotController               apiError = "NOT_CONTROLLER"
	errStaleBrokerEpoch            apiError = "STALE_BROKER_EPOCH"
	errFencedLeaderEpoch           apiError = "FENCED_LEADER_EPOCH"
	errInvalidUpdateVersion        apiError = "INVALID_UPDATE_VERSION"
	errInvalidRequest              apiError = "INVALID_REQUEST"
	errIneligibleReplica           apiError = "INELIGIBLE_REPLICA"
	errOperationNotAttempted       apiError = "OPERATION_NOT_ATTEMPTED"
	errUnknownTopicOrPartition     apiError = "UNKNOWN_TOPIC_OR_PARTITION"
	errPreferredLeaderNotAvailable apiError = "PREFERRED_LEADER_NOT_AVAILABLE"
	errElectionNotNeeded           apiError = "ELECTION_NOT_NEEDED"
	errInvalidTopic                apiError = "INVALID_TOPIC_EXCEPTION"
	errUnknownServerError          apiError = "UNKNOWN_SERVER_ERROR"
)

func (e apiError) String() string {
	if e == errNone {
		return "NONE"
	}
	return string(e)
}

// requestBatch is ControllerBrokerRequestBatch: the LeaderAndIsr and
// StopReplica requests a state-machine call produces, sent together at its
// end. (UpdateMetadata is not simulated: sandbox brokers keep no metadata
// cache.)
type requestBatch struct {
	leaderAndIsr map[int]map[tp]partitionStateMsg
	stopReplica  map[int]map[tp]bool // broker → partition → delete
}

func newRequestBatch() *requestBatch {
	return &requestBatch{leaderAndIsr: map[int]map[tp]partitionStateMsg{}, stopReplica: map[int]map[tp]bool{}}
}

func (r *requestBatch) addLeaderAndIsr(brokers []int, p tp, li leaderIsrAndControllerEpoch, replicas []int, isNew bool) {
	for _, b := range brokers {
		if b < 0 {
			continue
		}
		m := r.leaderAndIsr[b]
		if m == nil {
			m = map[tp]partitionStateMsg{}
			r.leaderAndIsr[b] = m
		}
		alreadyNew := m[p].isNew
		m[p] = partitionStateMsg{p: p, li: li, replicas: slices.Clone(replicas), isNew: isNew || alreadyNew}
	}
}

func (r *requestBatch) addStopReplica(brokers []int, p tp, del bool) {
	for _, b := range brokers {
		m := r.stopReplica[b]
		if m == nil {
			m = map[tp]bool{}
			r.stopReplica[b] = m
		}
		m[p] = m[p] || del
	}
}

// sendRequests delivers the batch to the live brokers (requests to others
// are dropped, as Kafka's channel manager has no connection to them).
func (c *controller) sendRequests() {
	r := c.batch
	c.batch = newRequestBatch()
	for _, b := range sortedInts(r.leaderAndIsr) {
		if !c.cc.isReplicaOnline(b) {
			continue
		}
		m := &msgLeaderAndIsr{controllerEpoch: c.cc.epoch}
		for _, p := range sortedTPs(r.leaderAndIsr[b]) {
			m.parts = append(m.parts, r.leaderAndIsr[b][p])
		}
		c.b.cl.deliver(b, m)
	}
	for _, b := range sortedInts(r.stopReplica) {
		if !c.cc.isReplicaOnline(b) {
			continue
		}
		var del, keep []tp
		for _, p := range sortedTPs(r.stopReplica[b]) {
			if r.stopReplica[b][p] {
				del = append(del, p)
			} else {
				keep = append(keep, p)
			}
		}
		if len(keep) > 0 {
			c.b.cl.deliver(b, &msgStopReplica{controllerEpoch: c.cc.epoch, parts: keep})
		}
		if len(del) > 0 {
			c.b.cl.deliver(b, &msgStopReplica{controllerEpoch: c.cc.epoch, parts: del, delete: true, from: c})
		}
	}
}

func sortedInts[V any](m map[int]V) []int {
	ks := make([]int, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

func sortedTPs[V any](m map[tp]V) []tp {
	ks := make([]tp, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.SortFunc(ks, compareTP)
	return ks
}

func joinStrings(xs []string) string { return strings.Join(xs, ",") }

func tpsString(ps []tp) string {
	parts := make([]string, len(ps))
	for i, p := range ps {
		parts[i] = p.String()
	}
	return strings.Join(parts, ",")
}
