package kraftsandbox

import (
	"strconv"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// ElectLeaders, as Kafka 4.4's ReplicationControlManager.electLeaders
// answers it (a broker forwards it to the controller).

func init() {
	handlerSets = append(handlerSets, map[int16]handler{
		kmsg.ElectLeaders.Int16(): (*Cluster).electLeaders,
	})
}

// electLeaders elects the preferred (ElectionType 0) or an unclean (1)
// leader of each partition asked for; Topics nil asks for every
// partition and leaves out those that need no election.
func (c *Cluster) electLeaders(r *request) (kmsg.Response, error) {
	req := r.req.(*kmsg.ElectLeadersRequest)
	resp := req.ResponseKind().(*kmsg.ElectLeadersResponse)
	if !c.lockForWrite(r) {
		return nil, errClose
	}
	defer c.mu.Unlock()
	kind := electPreferred
	switch req.ElectionType {
	case 0:
	case 1:
		kind = electUnclean
	default:
		// InvalidRequestException: every partition fails with it.
		resp.ErrorCode = kerr.InvalidRequest.Code
		msg := "Unknown election type " + strconv.Itoa(int(req.ElectionType))
		for _, rt := range req.Topics {
			ot := kmsg.NewElectLeadersResponseTopic()
			ot.Topic = rt.Topic
			for _, id := range rt.Partitions {
				op := kmsg.NewElectLeadersResponseTopicPartition()
				op.Partition, op.ErrorCode, op.ErrorMessage = id, kerr.InvalidRequest.Code, &msg
				ot.Partitions = append(ot.Partitions, op)
			}
			resp.Topics = append(resp.Topics, ot)
		}
		return resp, nil
	}
	if req.Topics == nil {
		c.forEachTopic(func(t *topic) {
			ot := kmsg.NewElectLeadersResponseTopic()
			ot.Topic = t.name
			for i := range t.parts {
				err := c.electOne(t.name, int32(i), kind)
				if err != nil && err.code == kerr.ElectionNotNeeded {
					continue
				}
				op := kmsg.NewElectLeadersResponseTopicPartition()
				op.Partition = int32(i)
				op.ErrorCode, op.ErrorMessage = err.fields()
				ot.Partitions = append(ot.Partitions, op)
			}
			resp.Topics = append(resp.Topics, ot)
		})
		return resp, nil
	}
	for _, rt := range req.Topics {
		ot := kmsg.NewElectLeadersResponseTopic()
		ot.Topic = rt.Topic
		for _, id := range rt.Partitions {
			op := kmsg.NewElectLeadersResponseTopicPartition()
			op.Partition = id
			op.ErrorCode, op.ErrorMessage = c.electOne(rt.Topic, id, kind).fields()
			ot.Partitions = append(ot.Partitions, op)
		}
		resp.Topics = append(resp.Topics, ot)
	}
	return resp, nil
}

// electOne is ReplicationControlManager.electLeader. c.mu is held.
func (c *Cluster) electOne(name string, id int32, kind electionKind) *apiError {
	t := c.topics[name]
	if t == nil {
		return refuse(kerr.UnknownTopicOrPartition, "No such topic as %s", name)
	}
	if id < 0 || int(id) >= len(t.parts) {
		return refuse(kerr.UnknownTopicOrPartition, "No such partition as %s-%d", name, id)
	}
	p := t.parts[id]
	if kind == electPreferred && len(p.replicas) > 0 && p.leader == p.replicas[0] || kind == electUnclean && p.leader >= 0 {
		return refuseBare(kerr.ElectionNotNeeded)
	}
	if !c.build(t, p, spec(p.isr, kind)) {
		if kind == electPreferred {
			return refuseBare(kerr.PreferredLeaderNotAvailable)
		}
		return refuseBare(kerr.EligibleLeadersNotAvailable)
	}
	return nil
}
