package clusterops

import (
	"bytes"
	"slices"

	"github.com/ktopo/ktopo/assign"
	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/internal/text"
)

// CheckPlacement runs the checks automatic placement makes before any
// replica is placed, in kafka-topics' order: the broker list for the rack
// mode (Enforced with only some brokers in a rack fails with
// MessageNotAllBrokersHaveRack), then AdminUtils' partitions > 0,
// replication factor > 0 and replication factor ≤ registered brokers, and
// then ktopo's bound on what a topic znode can hold (CheckPartitionCount). It
// does not compute the assignment, so a form can run it on every keystroke
// whatever the partition count. Errors are *KafkaError.
func CheckPlacement(s *cluster.Snapshot, partitions, rf int, mode cluster.RackAwareMode) error {
	if s.KRaft() != nil {
		// The KRaft controller's checks: the count, the replication
		// factor, then its placer's on one partition (none depends on
		// the count).
		_, _, err := placeStriped(s, mode, 0, min(partitions, 1), rf, 0, func(int) error { return CheckKRaftPartitionCount(partitions) })
		return err
	}
	brokers, err := s.BrokerMetadatas(mode, nil)
	if err != nil {
		return err
	}
	// One partition runs exactly the checks n partitions would (only
	// n ≤ 0 depends on n, and min keeps it).
	if _, err = assign.Assign(brokers, min(partitions, 1), rf, assign.Fixed(0)); err != nil {
		return cluster.AsKafkaError(err)
	}
	return CheckPartitionCount(partitions)
}

// PlacementBrokers are the brokers a plan of s places replicas on, as
// PlanTopic hands them to its placement: AdminZkClient's (registered,
// sorted by id, rack mode applied) in ZooKeeper mode, the KRaft
// controller's usable brokers that are not fenced on a KRaft cluster.
func PlacementBrokers(s *cluster.Snapshot, mode cluster.RackAwareMode) ([]assign.Broker, error) {
	if s.KRaft() == nil {
		return s.BrokerMetadatas(mode, nil)
	}
	var out []assign.Broker
	for _, b := range s.UsableBrokers(mode) {
		if !b.Fenced {
			out = append(out, assign.Broker{ID: b.ID, Rack: b.Rack, HasRack: b.HasRack})
		}
	}
	return out, nil
}

// SamePlan reports whether two plans write exactly the same znodes with the
// same bytes (topic name, config and assignment JSON).
func SamePlan(a, b *TopicPlan) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Name == b.Name && a.TopicPath == b.TopicPath && a.ConfigPath == b.ConfigPath &&
		bytes.Equal(a.TopicJSON, b.TopicJSON) && bytes.Equal(a.ConfigJSON, b.ConfigJSON)
}

// PlanStats are the plan's replicas and leaders per broker and per rack,
// computed over every registered broker with its rack (also when the rack
// mode ignores racks, so that the preview shows what the placement does to
// the rack spread).
func PlanStats(p *TopicPlan) assign.Stats {
	return assign.ComputeStats(p.Registered, p.Result.Assignment)
}

// PlanWarnings lists what an operator should know before creating the
// plan on the cluster of s: the spread warnings of assign.Stats.Warnings,
// then brokers that are known but not registered (they receive no replica),
// replicas of a manual assignment on brokers that are not registered (those
// partitions stay offline until one registers), and a missing controller
// (no partition comes online until one is elected).
func PlanWarnings(s *cluster.Snapshot, p *TopicPlan, st assign.Stats) []string {
	rf := 0
	if ps := p.Result.Assignment.Partitions(); len(ps) > 0 {
		rf = len(p.Result.Assignment[ps[0]])
	}
	w := st.Warnings(rf)
	if s == nil {
		return w
	}
	var offline []int
	for _, b := range s.Brokers() {
		if !b.Live {
			offline = append(offline, b.ID)
		}
	}
	if len(offline) > 0 {
		slices.Sort(offline)
		w = append(w, text.Plural(len(offline), "broker", "brokers")+" "+text.Join(offline, ", ")+" "+
			text.Plural(len(offline), "is", "are")+" offline (not registered) and "+text.Plural(len(offline), "receives", "receive")+" no replica")
	}
	var unknown []int
	for _, b := range st.Brokers {
		if !b.Known && !s.IsLive(b.ID) {
			unknown = append(unknown, b.ID)
		}
	}
	if len(unknown) > 0 {
		slices.Sort(unknown)
		var parts []int
		for _, id := range p.Result.Assignment.Partitions() {
			live := false
			for _, r := range p.Result.Assignment[id] {
				if s.IsLive(r) {
					live = true
					break
				}
			}
			if !live {
				parts = append(parts, id)
			}
		}
		msg := "replicas on " + text.Plural(len(unknown), "broker", "brokers") + " " + text.Join(unknown, ", ") + " that " +
			text.Plural(len(unknown), "is", "are") + " not registered"
		if len(parts) > 0 {
			msg += ": " + text.Plural(len(parts), "partition", "partitions") + " " + text.Join(parts, ", ") + " " + text.Plural(len(parts), "stays", "stay") + " offline until one of " +
				text.Plural(len(parts), "its", "their") + " brokers registers"
		}
		w = append(w, msg)
	}
	if s.Controller().BrokerID < 0 {
		w = append(w, "no active controller: the topic is written, but no partition comes online until a controller is elected")
	}
	return w
}
