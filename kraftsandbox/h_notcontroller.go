package kraftsandbox

import (
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// inactiveControllerAnswer is a controller's answer to a write that only
// the active controller may make, when it is not the active one: Kafka
// 4.4's QuorumController fails the write with NotControllerException and
// ControllerApis answers with the request's error response, its code
// NOT_CONTROLLER and its message naming the active controller (as the
// Admin client with --bootstrap-controller learns where to send it). ok
// is false when the node may answer itself. c.mu is not held.
func (c *Cluster) inactiveControllerAnswer(r *request) (resp kmsg.Response, ok bool) {
	if !r.node.controller {
		return nil, false
	}
	c.mu.Lock()
	active := c.leader == r.node.id
	msg := c.notControllerMessage()
	c.mu.Unlock()
	if active {
		return nil, false
	}
	code := kerr.NotController.Code
	switch req := r.req.(type) {
	case *kmsg.CreateTopicsRequest:
		out := req.ResponseKind().(*kmsg.CreateTopicsResponse)
		for _, t := range req.Topics {
			rt := kmsg.NewCreateTopicsResponseTopic()
			rt.Topic, rt.ErrorCode, rt.ErrorMessage = t.Topic, code, &msg
			rt.NumPartitions, rt.ReplicationFactor = -1, -1
			out.Topics = append(out.Topics, rt)
		}
		return out, true
	case *kmsg.DeleteTopicsRequest:
		out := req.ResponseKind().(*kmsg.DeleteTopicsResponse)
		for _, t := range req.Topics {
			rt := kmsg.NewDeleteTopicsResponseTopic()
			rt.Topic, rt.TopicID, rt.ErrorCode, rt.ErrorMessage = t.Topic, t.TopicID, code, &msg
			out.Topics = append(out.Topics, rt)
		}
		for _, name := range req.TopicNames {
			rt := kmsg.NewDeleteTopicsResponseTopic()
			rt.Topic, rt.ErrorCode, rt.ErrorMessage = &name, code, &msg
			out.Topics = append(out.Topics, rt)
		}
		return out, true
	case *kmsg.CreatePartitionsRequest:
		out := req.ResponseKind().(*kmsg.CreatePartitionsResponse)
		for _, t := range req.Topics {
			rt := kmsg.NewCreatePartitionsResponseTopic()
			rt.Topic, rt.ErrorCode, rt.ErrorMessage = t.Topic, code, &msg
			out.Topics = append(out.Topics, rt)
		}
		return out, true
	case *kmsg.IncrementalAlterConfigsRequest:
		out := req.ResponseKind().(*kmsg.IncrementalAlterConfigsResponse)
		for _, res := range req.Resources {
			rr := kmsg.NewIncrementalAlterConfigsResponseResource()
			rr.ResourceType, rr.ResourceName, rr.ErrorCode, rr.ErrorMessage = res.ResourceType, res.ResourceName, code, &msg
			out.Resources = append(out.Resources, rr)
		}
		return out, true
	case *kmsg.AlterConfigsRequest:
		out := req.ResponseKind().(*kmsg.AlterConfigsResponse)
		for _, res := range req.Resources {
			rr := kmsg.NewAlterConfigsResponseResource()
			rr.ResourceType, rr.ResourceName, rr.ErrorCode, rr.ErrorMessage = res.ResourceType, res.ResourceName, code, &msg
			out.Resources = append(out.Resources, rr)
		}
		return out, true
	case *kmsg.AlterPartitionAssignmentsRequest:
		out := req.ResponseKind().(*kmsg.AlterPartitionAssignmentsResponse)
		out.ErrorCode, out.ErrorMessage = code, &msg
		for _, t := range req.Topics {
			rt := kmsg.NewAlterPartitionAssignmentsResponseTopic()
			rt.Topic = t.Topic
			for _, p := range t.Partitions {
				rp := kmsg.NewAlterPartitionAssignmentsResponseTopicPartition()
				rp.Partition, rp.ErrorCode, rp.ErrorMessage = p.Partition, code, &msg
				rt.Partitions = append(rt.Partitions, rp)
			}
			out.Topics = append(out.Topics, rt)
		}
		return out, true
	case *kmsg.ElectLeadersRequest:
		out := req.ResponseKind().(*kmsg.ElectLeadersResponse)
		out.ErrorCode = code
		for _, t := range req.Topics {
			rt := kmsg.NewElectLeadersResponseTopic()
			rt.Topic = t.Topic
			for _, p := range t.Partitions {
				rp := kmsg.NewElectLeadersResponseTopicPartition()
				rp.Partition, rp.ErrorCode, rp.ErrorMessage = p, code, &msg
				rt.Partitions = append(rt.Partitions, rp)
			}
			out.Topics = append(out.Topics, rt)
		}
		return out, true
	}
	return nil, false
}
