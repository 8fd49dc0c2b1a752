package clusterops

import (
	"fmt"
	"strconv"

	"github.com/ktopo/ktopo/assign"
	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/internal/text"
)

// Phase is where a partition stands on its way from creation to full health,
// as ZooKeeper shows it (the controller's NonExistent → New → Online).
type Phase uint8

// Phases, in order.
const (
	// PhaseNonExistent: the topic znode does not list the partition yet.
	PhaseNonExistent Phase = iota
	// PhaseNew: assigned, but the controller has not written its state
	// znode (Kafka's NewPartition).
	PhaseNew
	// PhaseOffline: it has a state znode but no live leader.
	PhaseOffline
	// PhaseOnline: it has a leader (Kafka's OnlinePartition).
	PhaseOnline
	// PhaseInSync: online with every replica in the ISR.
	PhaseInSync
)

// String names the phase as the controller's state machine does.
func (p Phase) String() string {
	switch p {
	case PhaseNonExistent:
		return "NonExistent"
	case PhaseNew:
		return "New"
	case PhaseOffline:
		return "Offline"
	case PhaseOnline:
		return "Online"
	case PhaseInSync:
		return "InSync"
	}
	return "Phase(" + strconv.Itoa(int(p)) + ")"
}

// PartitionProgress is one partition's phase with its state.
type PartitionProgress struct {
	ID       int
	Phase    Phase
	Replicas []int
	Leader   int // NoLeader when none
	ISR      []int
}

// Progress is how far a topic's creation has come.
type Progress struct {
	Topic string
	// Exists: the topic znode is there.
	Exists     bool
	Partitions []PartitionProgress
	// Online counts partitions with a leader (Online or InSync); InSync
	// those with every replica in the ISR.
	Online, InSync int
	// Waiting says, in words, what the partitions not yet online wait
	// for (no controller, replicas on unregistered brokers, no live ISR).
	Waiting []string
}

// Done reports that every planned partition has a leader.
func (p Progress) Done() bool { return p.Exists && p.Online == len(p.Partitions) }

// TopicProgress reads the creation progress of topic, whose planned
// assignment is planned, from a snapshot.
func TopicProgress(s *cluster.Snapshot, topic string, planned map[int][]int) Progress {
	pr := Progress{Topic: topic}
	t := s.Topic(topic)
	pr.Exists = t != nil
	ids := assign.Assignment(planned).Partitions()
	pr.Partitions = make([]PartitionProgress, 0, len(ids))
	var unregistered []int
	newCount := 0
	for _, id := range ids {
		pp := PartitionProgress{ID: id, Replicas: planned[id], Leader: cluster.NoLeader}
		var part *cluster.Partition
		if t != nil {
			part = t.Partition(id)
		}
		switch {
		case part == nil || !part.InAssignment:
			pp.Phase = PhaseNonExistent
		case !part.HasState:
			pp.Phase, pp.Replicas = PhaseNew, part.Replicas
			newCount++
			live := false
			for _, r := range part.Replicas {
				if s.IsLive(r) {
					live = true
				}
			}
			if !live {
				unregistered = append(unregistered, id)
			}
		default:
			pp.Replicas, pp.Leader, pp.ISR = part.Replicas, part.Leader, part.ISR
			switch {
			case !part.HasLeader() || !s.IsLive(part.Leader):
				pp.Phase = PhaseOffline
				pr.Waiting = append(pr.Waiting, fmt.Sprintf("partition %d has no leader: no replica in its ISR [%s] is alive", id, text.Ints(part.ISR)))
			case len(part.ISR) >= len(part.Replicas):
				pp.Phase = PhaseInSync
				pr.Online++
				pr.InSync++
			default:
				pp.Phase = PhaseOnline
				pr.Online++
			}
		}
		pr.Partitions = append(pr.Partitions, pp)
	}
	if w := noController(s, "initialises the partitions"); newCount > 0 && w != "" {
		pr.Waiting = append([]string{w}, pr.Waiting...)
	}
	if len(unregistered) > 0 {
		pr.Waiting = append(pr.Waiting, fmt.Sprintf("%s %s only on brokers that are not registered (the controller waits for one of them)",
			text.Plural(len(unregistered), "partition", "partitions")+" ["+text.Ints(unregistered)+"]", verb(len(unregistered))))
	}
	if t != nil && t.MarkedForDeletion {
		pr.Waiting = append(pr.Waiting, "the topic is marked for deletion")
	}
	return pr
}

// noController says that no controller carries out what waits for one
// ("" when there is one, or when a KRaft cluster's quorum could not be
// read, so that nobody knows): ZooKeeper's /controller is absent, or the
// KRaft metadata quorum has no leader.
func noController(s *cluster.Snapshot, does string) string {
	if s.Controller().BrokerID >= 0 {
		return ""
	}
	k := s.KRaft()
	switch {
	case k == nil:
		return "no active controller: /controller is absent, so no broker " + does
	case k.QuorumErr != "":
		return ""
	}
	return "no active controller: the metadata quorum has no leader, so no controller " + does
}

func verb(n int) string {
	if n == 1 {
		return "has replicas"
	}
	return "have replicas"
}
