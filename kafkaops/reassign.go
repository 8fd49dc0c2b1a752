package kafkaops

import (
	"context"
	"fmt"
	"slices"
	"strconv"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/clusterops"
)

// Reassignments as kafka-reassign-partitions --bootstrap-server makes
// them: the throttles first (IncrementalAlterConfigs: each moved topic's
// leader and follower throttled replicas, each broker's rates), then
// AlterPartitionReassignments with the target replicas; --cancel sends
// the partitions with no replicas; --verify's end deletes the throttle
// configs of every broker and of the file's topics.

// throttleRequest is the plan's throttles as IncrementalAlterConfigs (nil
// without a throttle).
func throttleRequest(p *clusterops.ReassignPlan) *kmsg.IncrementalAlterConfigsRequest {
	if p.Throttle < 0 {
		return nil
	}
	req := kmsg.NewPtrIncrementalAlterConfigsRequest()
	set := func(r *kmsg.IncrementalAlterConfigsRequestResource, k, v string) {
		c := kmsg.NewIncrementalAlterConfigsRequestResourceConfig()
		c.Name, c.Op, c.Value = k, kmsg.IncrementalAlterConfigOpSet, &v
		r.Configs = append(r.Configs, c)
	}
	for _, tt := range p.TopicThrottles {
		r := kmsg.NewIncrementalAlterConfigsRequestResource()
		r.ResourceType, r.ResourceName = kmsg.ConfigResourceTypeTopic, tt.Topic
		set(&r, cluster.ConfigLeaderThrottledReplicas, tt.Leader)
		set(&r, cluster.ConfigFollowerThrottledReplicas, tt.Follower)
		req.Resources = append(req.Resources, r)
	}
	rate := strconv.FormatInt(p.Throttle, 10)
	for _, b := range p.ThrottledBrokers {
		r := kmsg.NewIncrementalAlterConfigsRequestResource()
		r.ResourceType, r.ResourceName = kmsg.ConfigResourceTypeBroker, strconv.Itoa(b)
		set(&r, cluster.ConfigLeaderThrottledRate, rate)
		set(&r, cluster.ConfigFollowerThrottledRate, rate)
		req.Resources = append(req.Resources, r)
	}
	return req
}

// reassignRequest is AlterPartitionReassignments of partitions, each to
// its target (nil: cancel its reassignment).
func (w *Writer) reassignRequest(parts []cluster.TopicPartition, target func(i int) []int) *kmsg.AlterPartitionAssignmentsRequest {
	req := kmsg.NewPtrAlterPartitionAssignmentsRequest()
	req.TimeoutMillis = w.timeoutMs()
	byTopic := map[string]int{}
	for i, tp := range parts {
		j, ok := byTopic[tp.Topic]
		if !ok {
			j = len(req.Topics)
			byTopic[tp.Topic] = j
			t := kmsg.NewAlterPartitionAssignmentsRequestTopic()
			t.Topic = tp.Topic
			req.Topics = append(req.Topics, t)
		}
		pp := kmsg.NewAlterPartitionAssignmentsRequestTopicPartition()
		pp.Partition = int32(tp.Partition)
		if rs := target(i); rs != nil {
			pp.Replicas = int32s(rs)
		}
		req.Topics[j].Partitions = append(req.Topics[j].Partitions, pp)
	}
	return req
}

func describeReassign(req *kmsg.AlterPartitionAssignmentsRequest) []string {
	out := []string{head("AlterPartitionReassignments", false, "timeoutMs="+strconv.Itoa(int(req.TimeoutMillis)))}
	for _, t := range req.Topics {
		out = append(out, "  topic "+t.Topic)
		for _, p := range t.Partitions {
			if p.Replicas == nil {
				out = append(out, fmt.Sprintf("    partition %d replicas null (cancel)", p.Partition))
				continue
			}
			out = append(out, fmt.Sprintf("    partition %d replicas %s", p.Partition, ints(p.Replicas)))
		}
	}
	return out
}

// sendReassign sends req and reads its refusals (the request's, then each
// partition's: the first).
func (w *Writer) sendReassign(ctx context.Context, req *kmsg.AlterPartitionAssignmentsRequest, what string) error {
	resp, err := send[*kmsg.AlterPartitionAssignmentsResponse](ctx, w.cl, req)
	if err != nil {
		return err
	}
	if err := codeError(resp.ErrorCode, resp.ErrorMessage, what, aclAlterCluster); err != nil {
		return err
	}
	for _, t := range resp.Topics {
		for _, p := range t.Partitions {
			tp := cluster.TopicPartition{Topic: t.Topic, Partition: int(p.Partition)}
			if err := codeError(p.ErrorCode, p.ErrorMessage, what+" ("+tp.String()+")", aclAlterCluster); err != nil {
				return err
			}
		}
	}
	return nil
}

// StartReassignment makes the plan on s (clusterops.CheckReassignment:
// Kafka's checks and throttles), then sends the throttles and the
// reassignment. The throttles are set even when the reassignment is then
// refused: the error says so, and --verify removes them.
func (w *Writer) StartReassignment(ctx context.Context, s *cluster.Snapshot, rs []cluster.Reassignment, throttle int64, m clusterops.Mode) (*clusterops.ReassignPlan, clusterops.Writes, error) {
	p, err := clusterops.CheckReassignment(s, rs, throttle)
	if err != nil {
		return nil, clusterops.Writes{}, err
	}
	return w.sendReassignPlan(ctx, p, m)
}

// AddReassignment is --additional: as StartReassignment, the reassignments
// in progress kept (their throttles set again with the plan's), a
// partition of rs among them sent rs's target instead.
func (w *Writer) AddReassignment(ctx context.Context, s *cluster.Snapshot, rs []cluster.Reassignment, throttle int64, m clusterops.Mode) (*clusterops.ReassignPlan, clusterops.Writes, error) {
	p, err := clusterops.CheckAdditionalReassignment(s, rs, throttle)
	if err != nil {
		return nil, clusterops.Writes{}, err
	}
	return w.sendReassignPlan(ctx, p, m)
}

// sendReassignPlan sends a checked plan: its throttles, then its
// reassignment (m: Describe sends nothing, Validate only the throttles'
// validateOnly).
func (w *Writer) sendReassignPlan(ctx context.Context, p *clusterops.ReassignPlan, m clusterops.Mode) (*clusterops.ReassignPlan, clusterops.Writes, error) {
	ws := clusterops.Writes{Backend: cluster.ViaKafka}
	treq := throttleRequest(p)
	if treq != nil {
		ws.Steps = append(ws.Steps, clusterops.WriteStep{Title: "the throttles", Lines: describeAlterConfigs(treq, true)})
	}
	req := w.reassignRequest(movedPartitions(p), func(i int) []int { return p.Moves[i].Target })
	ws.Steps = append(ws.Steps, clusterops.WriteStep{Title: "the reassignment", Lines: describeReassign(req)})
	if m == clusterops.Describe {
		return p, ws, nil
	}
	if treq != nil {
		if err := w.sendAlterConfigs(ctx, treq, m); err != nil {
			return p, ws, err
		}
	}
	if m != clusterops.Apply {
		return p, ws, nil
	}
	if err := w.sendReassign(ctx, req, "start a reassignment"); err != nil {
		if treq != nil {
			err = fmt.Errorf("%w; the throttles were set (ktopo reassign --verify removes them)", err)
		}
		return p, ws, err
	}
	return p, ws, nil
}

func movedPartitions(p *clusterops.ReassignPlan) []cluster.TopicPartition {
	out := make([]cluster.TopicPartition, len(p.Moves))
	for i, mv := range p.Moves {
		out[i] = mv.TopicPartition
	}
	return out
}

// CancelReassignment sends AlterPartitionReassignments with no replicas
// for each partition: the controller reverts each to the replicas it had
// before (NO_REASSIGNMENT_IN_PROGRESS for one not being reassigned).
func (w *Writer) CancelReassignment(ctx context.Context, tps []cluster.TopicPartition, m clusterops.Mode) (clusterops.Writes, error) {
	req := w.reassignRequest(tps, func(int) []int { return nil })
	ws := writes("cancel the reassignments", describeReassign(req))
	if m != clusterops.Apply {
		return ws, nil
	}
	return ws, w.sendReassign(ctx, req, "cancel a reassignment")
}

// RemoveThrottles is --verify's end as Kafka's tool does it: nothing
// while a reassignment runs in the cluster (kept names the throttles
// left); else IncrementalAlterConfigs deleting the broker throttles of
// every broker and of the file's (leader, follower, log directory rates)
// and the topic throttles of the file's topics, whether set or not.
// cleared tells which had one (from s).
func (w *Writer) RemoveThrottles(ctx context.Context, s *cluster.Snapshot, rs []cluster.Reassignment, m clusterops.Mode) (*clusterops.ThrottleClear, []string, clusterops.Writes, error) {
	cfgs := clusterops.SnapshotConfigs(s)
	if _, ongoing := clusterops.VerifyReassignment(s, rs); ongoing {
		kept, err := clusterops.ThrottlesLeft(s, cfgs, rs)
		return nil, kept, clusterops.Writes{Backend: cluster.ViaKafka}, err
	}
	c, err := clusterops.PlanThrottleClear(s, cfgs, rs)
	if err != nil {
		return nil, nil, clusterops.Writes{}, err
	}
	req := kmsg.NewPtrIncrementalAlterConfigsRequest()
	del := func(rt kmsg.ConfigResourceType, name string, keys []string) {
		r := kmsg.NewIncrementalAlterConfigsRequestResource()
		r.ResourceType, r.ResourceName = rt, name
		for _, k := range keys {
			cf := kmsg.NewIncrementalAlterConfigsRequestResourceConfig()
			cf.Name, cf.Op = k, kmsg.IncrementalAlterConfigOpDelete
			r.Configs = append(r.Configs, cf)
		}
		req.Resources = append(req.Resources, r)
	}
	for _, b := range slices.Sorted(slices.Values(c.Brokers)) {
		del(kmsg.ConfigResourceTypeBroker, strconv.Itoa(b), cluster.BrokerThrottleKeys)
	}
	for _, t := range slices.Sorted(slices.Values(c.Topics)) {
		del(kmsg.ConfigResourceTypeTopic, t, cluster.TopicThrottleKeys)
	}
	c.Blind = true
	ws := writes("remove the throttles", describeAlterConfigs(req, true))
	return c, nil, ws, w.sendAlterConfigs(ctx, req, m)
}
