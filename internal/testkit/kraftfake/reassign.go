package kraftfake

import (
	"slices"
	"strconv"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/clusterops"
)

// alterReassignments is ReplicationControlManager.alterPartitionReassignments:
// each partition on its own (one refused, the others still applied). A
// target is a manual assignment (validateManualPartitionAssignment); the
// replicas it adds are copied until CatchUp, those it removes go then; a
// target that only reorders the replicas is done at once, the leader
// kept. No target cancels the partition's reassignment: its replicas less
// those being added, its leader kept when it stays in sync.
func (c *Cluster) alterReassignments(s *cluster.Snapshot, req *kmsg.AlterPartitionAssignmentsRequest) kmsg.Response {
	resp := req.ResponseKind().(*kmsg.AlterPartitionAssignmentsResponse)
	resp.AllowReplicationFactorChange = req.AllowReplicationFactorChange
	changed := map[string][]*part{}
	var order []string
	for _, t := range req.Topics {
		rt := kmsg.NewAlterPartitionAssignmentsResponseTopic()
		rt.Topic = t.Topic
		for _, rp := range t.Partitions {
			pr := kmsg.NewAlterPartitionAssignmentsResponseTopicPartition()
			pr.Partition = rp.Partition
			parts, ok := changed[t.Topic]
			tp := s.Topic(t.Topic)
			if !ok && tp != nil {
				parts = partitionsOf(tp)
			}
			err, what := c.alterOne(s, t.Topic, tp, parts, rp, req.AllowReplicationFactorChange)
			pr.ErrorCode, pr.ErrorMessage = codeMsg(err)
			if err == nil {
				if !ok {
					order = append(order, t.Topic)
				}
				changed[t.Topic] = parts
				c.note("AlterPartitionReassignments", t.Topic+"-"+strconv.Itoa(int(rp.Partition)), what)
			}
			rt.Partitions = append(rt.Partitions, pr)
		}
		resp.Topics = append(resp.Topics, rt)
	}
	for _, name := range order {
		c.writeTopic(name, s.Topic(name).ID, changed[name])
	}
	return resp
}

// alterOne changes (or cancels) one partition's reassignment in parts.
func (c *Cluster) alterOne(s *cluster.Snapshot, topic string, tp *cluster.Topic, parts []*part, rp kmsg.AlterPartitionAssignmentsRequestTopicPartition, allowRF bool) (*cluster.KafkaError, string) {
	if tp == nil {
		return refuse(kerr.UnknownTopicOrPartition, "Unable to find a topic named "+topic+"."), ""
	}
	i := slices.IndexFunc(parts, func(p *part) bool { return p.id == int(rp.Partition) })
	if i < 0 {
		return refuse(kerr.UnknownTopicOrPartition, "Unable to find partition "+topic+":"+strconv.Itoa(int(rp.Partition))+"."), ""
	}
	p := parts[i]
	if rp.Replicas == nil {
		return c.cancel(s, topic, p), "cancel"
	}
	target := fromInt32s(rp.Replicas)
	if err := clusterops.CheckKRaftManualPartition(s, target, -1); err != nil {
		return asRefusal(err), ""
	}
	if !allowRF {
		n := len(p.replicas)
		if inProgress(p) {
			set := map[int]bool{}
			for _, r := range append(slices.Clone(p.replicas), p.adding...) {
				set[r] = true
			}
			for _, r := range p.removing {
				delete(set, r)
			}
			n = len(set)
		}
		if n != len(target) {
			return refuse(kerr.InvalidReplicationFactor, "The replication factor is changed from "+strconv.Itoa(n)+" to "+strconv.Itoa(len(target))), ""
		}
	}
	removing := sortedMinus(p.replicas, target)
	adding := sortedMinus(target, p.replicas)
	p.replicas = append(slices.Clone(target), removing...)
	p.adding, p.removing = adding, removing
	complete(s, p)
	return nil, ints(target)
}

// cancel is cancelPartitionReassignment (PartitionReassignmentRevert).
func (c *Cluster) cancel(s *cluster.Snapshot, topic string, p *part) *cluster.KafkaError {
	if !inProgress(p) {
		return refuse(kerr.NoReassignmentInProgress, kerr.NoReassignmentInProgress.Description)
	}
	replicas := minus(p.replicas, p.adding)
	isr := minus(p.isr, p.adding)
	if len(isr) == 0 {
		if len(replicas) == 0 {
			return refuse(kerr.InvalidReplicaAssignment, "Invalid replica assignment: addingReplicas contains all replicas.")
		}
		return refuse(kerr.InvalidReplicaAssignment, "Unable to revert partition assignment for "+topic+":"+strconv.Itoa(p.id)+" because it would require an unclean leader election.")
	}
	p.replicas, p.isr, p.adding, p.removing = replicas, isr, nil, nil
	elect(s, p)
	return nil
}

// complete ends a reassignment whose added replicas are all in sync
// (PartitionReassignmentReplicas.maybeCompleteReassignment), then elects
// a leader if the current one left (electAnyLeader).
func complete(s *cluster.Snapshot, p *part) {
	if inProgress(p) {
		isr := p.isr
		replicas := p.replicas
		done := true
		if len(p.removing) > 0 {
			isr = minus(p.isr, p.removing)
			replicas = minus(p.replicas, p.removing)
			done = len(isr) > 0 && len(replicas) > 0
		}
		done = done && containsAll(isr, p.adding)
		if done && len(p.adding) < len(p.removing) && !containsAll(isr, replicas) {
			done = false
		}
		if done {
			p.replicas, p.isr, p.adding, p.removing = replicas, isr, nil, nil
		}
	}
	elect(s, p)
}

// elect keeps the leader when it is still an in-sync replica of an active
// broker, else elects the first replica that is (electAnyLeader).
func elect(s *cluster.Snapshot, p *part) {
	valid := func(r int) bool { return slices.Contains(p.isr, r) && active(s, r) }
	if p.leader >= 0 && valid(p.leader) && slices.Contains(p.replicas, p.leader) {
		return
	}
	for _, r := range p.replicas {
		if valid(r) {
			p.leader = r
			p.leaderEpoch++
			return
		}
	}
}

// CatchUp lets every copy of every reassignment in progress finish: the
// replicas being added join the ISR, and the reassignments complete as
// the controller completes them (the replicas removed leave; a leader
// that left is replaced by the first in-sync replica of the target).
func (c *Cluster) CatchUp() {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.m.Snapshot()
	for _, t := range s.Topics() {
		parts := partitionsOf(t)
		moved := false
		for _, p := range parts {
			if !inProgress(p) {
				continue
			}
			for _, r := range p.adding {
				if !slices.Contains(p.isr, r) && active(s, r) {
					p.isr = append(p.isr, r)
				}
			}
			complete(s, p)
			moved = true
		}
		if moved {
			c.writeTopic(t.Name, t.ID, parts)
		}
	}
	c.flush()
}

func inProgress(p *part) bool { return len(p.adding) > 0 || len(p.removing) > 0 }

// sortedMinus is a less b, sorted (Java's TreeSet difference).
func sortedMinus(a, b []int) []int {
	out := minus(a, b)
	slices.Sort(out)
	return slices.Compact(out)
}

// minus is a less b, in a's order.
func minus(a, b []int) []int {
	var out []int
	for _, x := range a {
		if !slices.Contains(b, x) {
			out = append(out, x)
		}
	}
	return out
}

func containsAll(a, b []int) bool {
	for _, x := range b {
		if !slices.Contains(a, x) {
			return false
		}
	}
	return true
}

// electLeaders is ReplicationControlManager.electLeaders for preferred
// elections: each partition elects its first replica when it is an
// in-sync replica of an active broker and does not lead already
// (ELECTION_NOT_NEEDED), else PREFERRED_LEADER_NOT_AVAILABLE.
func (c *Cluster) electLeaders(s *cluster.Snapshot, req *kmsg.ElectLeadersRequest) (kmsg.Response, error) {
	if req.ElectionType != 0 {
		return nil, notEmulated("an unclean ElectLeaders")
	}
	if req.Topics == nil {
		return nil, notEmulated("ElectLeaders of every partition")
	}
	resp := req.ResponseKind().(*kmsg.ElectLeadersResponse)
	changed := map[string][]*part{}
	var order []string
	for _, t := range req.Topics {
		rt := kmsg.NewElectLeadersResponseTopic()
		rt.Topic = t.Topic
		tp := s.Topic(t.Topic)
		for _, id := range t.Partitions {
			pr := kmsg.NewElectLeadersResponseTopicPartition()
			pr.Partition = id
			parts, ok := changed[t.Topic]
			if !ok && tp != nil {
				parts = partitionsOf(tp)
			}
			err := c.electOne(s, t.Topic, tp, parts, int(id))
			pr.ErrorCode, pr.ErrorMessage = codeMsg(err)
			if err == nil {
				if !ok {
					order = append(order, t.Topic)
				}
				changed[t.Topic] = parts
				c.note("ElectLeaders", t.Topic+"-"+strconv.Itoa(int(id)))
			}
			rt.Partitions = append(rt.Partitions, pr)
		}
		resp.Topics = append(resp.Topics, rt)
	}
	for _, name := range order {
		tp := s.Topic(name)
		for _, p := range changed[name] {
			if old := tp.Partition(p.id); old != nil && old.Leader != p.leader {
				c.writeState(name, p)
			}
		}
	}
	return resp, nil
}

// electOne elects one partition's preferred leader in parts.
func (c *Cluster) electOne(s *cluster.Snapshot, topic string, tp *cluster.Topic, parts []*part, id int) *cluster.KafkaError {
	if tp == nil {
		return refuse(kerr.UnknownTopicOrPartition, "No such topic as "+topic)
	}
	i := slices.IndexFunc(parts, func(p *part) bool { return p.id == id })
	if i < 0 {
		return refuse(kerr.UnknownTopicOrPartition, "No such partition as "+topic+"-"+strconv.Itoa(id))
	}
	p := parts[i]
	if len(p.replicas) > 0 && p.leader == p.replicas[0] {
		return refuseBare(kerr.ElectionNotNeeded)
	}
	if pref := p.replicas[0]; slices.Contains(p.isr, pref) && active(s, pref) {
		p.leader = pref
		p.leaderEpoch++
		return nil
	}
	return refuseBare(kerr.PreferredLeaderNotAvailable)
}
