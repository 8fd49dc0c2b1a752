package anim

import (
	"slices"
	"time"

	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/internal/text"
)

// FromChange is the flash a model change starts: the cell it changed and
// the from → to it shows there. ok is false for a change no cell shows
// (a config change, a deletion: the events screen keeps their record).
func FromChange(c *cluster.Change) (k Key, from, to string, ok bool) {
	//exhaustive:enforce
	switch c.Kind {
	case cluster.ChangeLeaderMoved:
		return Key{Topic: c.Topic, Partition: c.Partition, Field: FieldLeader}, text.Broker(c.From), text.Broker(c.To), true
	case cluster.ChangePartitionAppeared:
		return Key{Topic: c.Topic, Partition: c.Partition, Field: FieldLeader}, "new", text.Broker(c.Leader), true
	case cluster.ChangeIsrShrank:
		was := slices.Concat(c.ISR, c.Removed)
		slices.Sort(was)
		return Key{Topic: c.Topic, Partition: c.Partition, Field: FieldISR}, text.Ints(was), text.Ints(c.ISR), true
	case cluster.ChangeIsrExpanded:
		var was []int
		for _, r := range c.ISR {
			if !slices.Contains(c.Added, r) {
				was = append(was, r)
			}
		}
		return Key{Topic: c.Topic, Partition: c.Partition, Field: FieldISR}, text.Ints(was), text.Ints(c.ISR), true
	case cluster.ChangeBrokerRegistered:
		return Key{Broker: c.Broker, Field: FieldBroker}, "down", "up", true
	case cluster.ChangeBrokerGone:
		return Key{Broker: c.Broker, Field: FieldBroker}, "up", "down", true
	case cluster.ChangeTopicCreated:
		return Key{Topic: c.Topic, Field: FieldTopic}, "", "new", true
	case cluster.ChangeBrokerUpdated, cluster.ChangeControllerMoved, cluster.ChangeTopicMarkedForDeletion,
		cluster.ChangeTopicDeleted, cluster.ChangePartitionsAdded, cluster.ChangeConfigChanged,
		cluster.ChangeReassignmentStarted, cluster.ChangeReassignmentFinished, cluster.ChangeZNodeInvalid:
		// No cell shows them: the events screen keeps their record.
	}
	return Key{}, "", "", false
}

// StartChanges starts the flashes of changes at now.
func (s *Set) StartChanges(changes []cluster.Change, now time.Time) {
	for i := range changes {
		if k, from, to, ok := FromChange(&changes[i]); ok {
			s.Start(k, from, to, now)
		}
	}
}
