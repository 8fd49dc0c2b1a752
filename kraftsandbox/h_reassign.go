package kraftsandbox

import (
	"slices"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// AlterPartitionReassignments and ListPartitionReassignments, as Kafka
// 4.4's ReplicationControlManager answers them (a broker forwards them to
// the controller; the sandbox answers on both listeners).

func init() {
	handlerSets = append(handlerSets, map[int16]handler{
		kmsg.AlterPartitionAssignments.Int16():  (*Cluster).alterPartitionReassignments,
		kmsg.ListPartitionReassignments.Int16(): (*Cluster).listPartitionReassignments,
	})
}

// alterPartitionReassignments is alterPartitionReassignments: each
// partition on its own, a refused one leaving the others applied.
func (c *Cluster) alterPartitionReassignments(r *request) (kmsg.Response, error) {
	req := r.req.(*kmsg.AlterPartitionAssignmentsRequest)
	resp := req.ResponseKind().(*kmsg.AlterPartitionAssignmentsResponse)
	resp.AllowReplicationFactorChange = req.AllowReplicationFactorChange
	if !c.lockForWrite(r) {
		return nil, errClose
	}
	defer c.mu.Unlock()
	ok, total := 0, 0
	for _, rt := range req.Topics {
		ot := kmsg.NewAlterPartitionAssignmentsResponseTopic()
		ot.Topic = rt.Topic
		for _, rp := range rt.Partitions {
			op := kmsg.NewAlterPartitionAssignmentsResponseTopicPartition()
			op.Partition = rp.Partition
			err := c.alterReassignment(rt.Topic, rp, req.Version < 1 || req.AllowReplicationFactorChange)
			op.ErrorCode, op.ErrorMessage = err.fields()
			if err == nil {
				ok++
			} else {
				c.logf("Unable to alter partition reassignment for %s:%d because of an error: %s", rt.Topic, rp.Partition, err.msg)
			}
			total++
			ot.Partitions = append(ot.Partitions, op)
		}
		resp.Topics = append(resp.Topics, ot)
	}
	c.logf("Successfully altered %d out of %d partition reassignment(s).", ok, total)
	return resp, nil
}

// alterReassignment is alterPartitionReassignment: a target starts (or
// changes) the partition's reassignment, none cancels it. c.mu is held.
func (c *Cluster) alterReassignment(name string, rp kmsg.AlterPartitionAssignmentsRequestTopicPartition, allowRF bool) *apiError {
	t := c.topics[name]
	if t == nil {
		return refuse(kerr.UnknownTopicOrPartition, "Unable to find a topic named %s.", name)
	}
	if rp.Partition < 0 || int(rp.Partition) >= len(t.parts) {
		return refuse(kerr.UnknownTopicOrPartition, "Unable to find partition %s:%d.", name, rp.Partition)
	}
	p := t.parts[rp.Partition]
	if rp.Replicas == nil {
		return c.cancelReassignment(t, int(rp.Partition), p)
	}
	return c.changeReassignment(t, p, rp.Replicas, allowRF)
}

// changeReassignment is changePartitionReassignment: the replicas become
// the target followed by the replicas it removes (ascending), adding the
// target's new replicas (ascending); a target that only reorders or
// shrinks completes at once. c.mu is held.
func (c *Cluster) changeReassignment(t *topic, p *partition, target []int32, allowRF bool) *apiError {
	if err := c.checkManualPartition(-1, target, -1); err != nil {
		return err
	}
	if !allowRF {
		if n := len(p.target()); n != len(target) {
			return refuse(kerr.InvalidReplicationFactor, "The replication factor is changed from %d to %d", n, len(target))
		}
	}
	removing := sortedMinus(p.replicas, target)
	adding := sortedMinus(target, p.replicas)
	replicas := append(slices.Clone(target), removing...)
	s := spec(p.isr, electAny)
	if !slices.Equal(replicas, p.replicas) {
		s.replicas, s.setReplicas = replicas, true
	}
	if len(removing) > 0 {
		s.removing, s.setRemoving = removing, true
	}
	if len(adding) > 0 {
		s.adding, s.setAdding = adding, true
	}
	c.build(t, p, s)
	return nil
}

// cancelReassignment is cancelPartitionReassignment with
// PartitionReassignmentRevert: the replicas less those being added, the
// ISR likewise (when that empties it, the first remaining replica, an
// unclean election the topic must allow). c.mu is held.
func (c *Cluster) cancelReassignment(t *topic, id int, p *partition) *apiError {
	if !p.reassigning() {
		// NoReassignmentInProgressException with the code's own message,
		// which ApiError.fromThrowable leaves out.
		return &apiError{code: kerr.NoReassignmentInProgress, null: true}
	}
	replicas := minus(p.replicas, p.adding)
	isr := minus(p.isr, p.adding)
	if len(isr) == 0 {
		if len(replicas) == 0 {
			return refuse(kerr.InvalidReplicaAssignment, "Invalid replica assignment: addingReplicas contains all replicas.")
		}
		if !c.uncleanAllowed(t) {
			return refuse(kerr.InvalidReplicaAssignment, "Unable to revert partition assignment for %s:%d because it would require an unclean leader election.", t.name, id)
		}
		isr = []int32{replicas[0]}
	}
	s := spec(isr, c.topicElection(t))
	s.replicas, s.setReplicas = replicas, true
	s.adding, s.setAdding = nil, true
	s.removing, s.setRemoving = nil, true
	c.build(t, p, s)
	return nil
}

// sortedMinus is a less b, ascending (Java's TreeSet difference).
func sortedMinus(a, b []int32) []int32 {
	out := minus(a, b)
	slices.Sort(out)
	return slices.Compact(out)
}

// listPartitionReassignments is listPartitionReassignments: every
// reassigning partition (Topics nil), else those asked for that are.
func (c *Cluster) listPartitionReassignments(r *request) (kmsg.Response, error) {
	req := r.req.(*kmsg.ListPartitionReassignmentsRequest)
	resp := req.ResponseKind().(*kmsg.ListPartitionReassignmentsResponse)
	c.mu.Lock()
	defer c.mu.Unlock()
	list := func(t *topic, ids []int32) {
		ot := kmsg.NewListPartitionReassignmentsResponseTopic()
		ot.Topic = t.name
		for _, id := range ids {
			if id < 0 || int(id) >= len(t.parts) || !t.parts[id].reassigning() {
				continue
			}
			p := t.parts[id]
			op := kmsg.NewListPartitionReassignmentsResponseTopicPartition()
			op.Partition = id
			op.Replicas = slices.Clone(p.replicas)
			op.AddingReplicas = nonNil(p.adding)
			op.RemovingReplicas = nonNil(p.removing)
			ot.Partitions = append(ot.Partitions, op)
		}
		if len(ot.Partitions) > 0 {
			resp.Topics = append(resp.Topics, ot)
		}
	}
	if req.Topics == nil {
		c.forEachTopic(func(t *topic) {
			var ids []int32
			for i, p := range t.parts {
				if p.reassigning() {
					ids = append(ids, int32(i))
				}
			}
			list(t, ids)
		})
		return resp, nil
	}
	for _, rt := range req.Topics {
		if t := c.topics[rt.Topic]; t != nil {
			list(t, rt.Partitions)
		}
	}
	return resp, nil
}

// forEachTopic calls fn on every topic by name. c.mu is held.
func (c *Cluster) forEachTopic(fn func(t *topic)) {
	names := make([]string, 0, len(c.topics))
	for n := range c.topics {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		fn(c.topics[n])
	}
}

func nonNil(ids []int32) []int32 {
	if ids == nil {
		return []int32{}
	}
	return slices.Clone(ids)
}
