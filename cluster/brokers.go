package cluster

import (
	"slices"

	"github.com/ktopo/ktopo/assign"
)

// RackAwareMode is Kafka's RackAwareMode (spec §2.1).
type RackAwareMode uint8

// Rack-aware modes.
const (
	// RackAwareEnforced uses racks; some-but-not-all brokers with a rack is
	// an error. The default of kafka-topics.
	RackAwareEnforced RackAwareMode = iota
	// RackAwareSafe uses racks only if every broker has one, else ignores them.
	RackAwareSafe
	// RackAwareDisabled ignores racks (--disable-rack-aware).
	RackAwareDisabled
)

// String returns Kafka's name of the mode.
func (m RackAwareMode) String() string {
	switch m {
	case RackAwareEnforced:
		return "Enforced"
	case RackAwareSafe:
		return "Safe"
	case RackAwareDisabled:
		return "Disabled"
	}
	return "RackAwareMode(?)"
}

// MessageNotAllBrokersHaveRack is AdminZkClient's Enforced-mode error.
const MessageNotAllBrokersHaveRack = "Not all brokers have rack information. Add --disable-rack-aware in command line to make replica assignment without rack information."

// BrokerMetadatas is AdminZkClient.getBrokerMetadatas (spec §2.1): from the
// registered brokers (optionally only those in brokerList, when it is not
// nil), fail in Enforced mode when some but not all have a rack
// (AdminOperationException, MessageNotAllBrokersHaveRack), drop racks in
// Disabled mode and in Safe mode when not all have one, and sort by id. The
// result is what assign.Assign takes.
func BrokerMetadatas(registered []assign.Broker, mode RackAwareMode, brokerList []int) ([]assign.Broker, error) {
	brokers := make([]assign.Broker, 0, len(registered))
	for _, b := range registered {
		if brokerList == nil || slices.Contains(brokerList, b.ID) {
			brokers = append(brokers, b)
		}
	}
	withRack := 0
	for _, b := range brokers {
		if b.HasRack {
			withRack++
		}
	}
	if mode == RackAwareEnforced && withRack > 0 && withRack < len(brokers) {
		return nil, kafkaErr(ClassAdminOperation, MessageNotAllBrokersHaveRack)
	}
	if mode == RackAwareDisabled || (mode == RackAwareSafe && withRack < len(brokers)) {
		for i := range brokers {
			brokers[i].Rack, brokers[i].HasRack = "", false
		}
	}
	slices.SortFunc(brokers, func(a, b assign.Broker) int { return a.ID - b.ID })
	return brokers, nil
}
