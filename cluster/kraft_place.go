package cluster

import (
	"slices"

	"github.com/ktopo/ktopo/assign"
)

// What a KRaft controller places new replicas on, as a snapshot shows it.

// MetadataVersionFeature is the feature whose finalized level is the
// cluster's metadata.version.
const MetadataVersionFeature = "metadata.version"

// metadataVersionCordon is metadata.version 4.3-IV0 (feature level 30):
// from it on a broker's log directories can be cordoned (KIP-1066).
const metadataVersionCordon = 30

// CordonSupported reports whether the cluster's metadata.version lets its
// brokers be cordoned (Kafka 4.3+, KIP-1066: cordoned.log.dirs). The
// placer's messages then name cordoned brokers too.
func (k *KRaft) CordonSupported() bool {
	if k == nil {
		return false
	}
	v, ok := k.Feature(MetadataVersionFeature)
	return ok && v >= metadataVersionCordon
}

// UsableBrokers are the brokers a KRaft controller hands its replica
// placer (ClusterControlManager.usableBrokers) as s shows them: every
// registered broker, the fenced ones marked (placed only when the others
// are too few, never as a leader), except those all of whose log
// directories are cordoned. The controller also leaves out brokers in
// controlled shutdown, which the Kafka protocol does not show. With
// RackAwareDisabled every broker is placed as if it had no rack. Sorted
// by id.
func (s *Snapshot) UsableBrokers(mode RackAwareMode) []assign.StripedBroker {
	var out []assign.StripedBroker
	for i := range s.brokers {
		b := &s.brokers[i]
		if (!b.Live && !b.Fenced) || b.Cordoned || b.Live && b.Err != nil {
			continue
		}
		sb := assign.StripedBroker{ID: b.ID, Rack: b.Rack, HasRack: b.HasRack, Fenced: !b.Live}
		if mode == RackAwareDisabled {
			sb.Rack, sb.HasRack = "", false
		}
		out = append(out, sb)
	}
	slices.SortFunc(out, func(a, b assign.StripedBroker) int { return a.ID - b.ID })
	return out
}
