package kafkaops

import (
	"context"
	"errors"
	"strconv"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/clusterops"
)

// Kafka's election types (ElectLeaders' electionType).
const (
	electionPreferred int8 = 0
	electionUnclean   int8 = 1
)

// Elect sends ElectLeaders (preferred or unclean) for the partitions the
// plan writes, and returns the controller's answer per partition in
// Kafka's three groups: elected, not needed (ELECTION_NOT_NEEDED), failed
// with Kafka's error. The plan's partitions that were not sent end as the
// plan says (ElectionPlan.Result's groups for them).
func (w *Writer) Elect(ctx context.Context, p *clusterops.ElectionPlan, m clusterops.Mode) (clusterops.Writes, *clusterops.ElectionResult, error) {
	req := kmsg.NewPtrElectLeadersRequest()
	req.TimeoutMillis = w.timeoutMs()
	req.ElectionType = electionPreferred
	kind := "PREFERRED"
	if p.Unclean {
		req.ElectionType, kind = electionUnclean, "UNCLEAN"
	}
	byTopic := map[string]int{}
	for _, tp := range p.Write {
		j, ok := byTopic[tp.Topic]
		if !ok {
			j = len(req.Topics)
			byTopic[tp.Topic] = j
			t := kmsg.NewElectLeadersRequestTopic()
			t.Topic = tp.Topic
			req.Topics = append(req.Topics, t)
		}
		req.Topics[j].Partitions = append(req.Topics[j].Partitions, int32(tp.Partition))
	}
	lines := []string{head("ElectLeaders", false, "electionType="+kind, "timeoutMs="+strconv.Itoa(int(req.TimeoutMillis)))}
	for _, t := range req.Topics {
		ps := make([]int32, len(t.Partitions))
		copy(ps, t.Partitions)
		lines = append(lines, "  topic "+t.Topic+" partitions "+ints(ps))
	}
	ws := writes("elect leaders", lines)
	if m != clusterops.Apply || len(p.Write) == 0 {
		return ws, nil, nil
	}
	resp, err := send[*kmsg.ElectLeadersResponse](ctx, w.cl, req)
	if err != nil {
		return ws, nil, err
	}
	if err := codeError(resp.ErrorCode, nil, "elect leaders", aclAlterCluster); err != nil {
		return ws, nil, err
	}
	got := map[cluster.TopicPartition]error{}
	for _, t := range resp.Topics {
		for _, pp := range t.Partitions {
			tp := cluster.TopicPartition{Topic: t.Topic, Partition: int(pp.Partition)}
			got[tp] = codeError(pp.ErrorCode, pp.ErrorMessage, "elect the leader of "+tp.String(), aclAlterCluster)
		}
	}
	return ws, electionResult(p, got), nil
}

// electionResult sorts the plan's partitions into Kafka's groups: those
// sent by the controller's answer, the others by the plan.
func electionResult(p *clusterops.ElectionPlan, got map[cluster.TopicPartition]error) *clusterops.ElectionResult {
	planned := p.Result(func(cluster.TopicPartition) int { return cluster.NoLeader })
	r := &clusterops.ElectionResult{NotNeeded: planned.NotNeeded}
	sent := map[cluster.TopicPartition]bool{}
	for _, tp := range p.Write {
		sent[tp] = true
	}
	for _, f := range planned.Failed {
		if !sent[f.TopicPartition] {
			r.Failed = append(r.Failed, f)
		}
	}
	for _, tp := range p.Write {
		err, ok := got[tp]
		switch {
		case !ok:
			r.Failed = append(r.Failed, clusterops.ElectionFailure{TopicPartition: tp, Message: "the controller did not answer for it"})
		case err == nil:
			r.Elected = append(r.Elected, tp)
		case errors.Is(err, kerr.ElectionNotNeeded):
			r.NotNeeded = append(r.NotNeeded, tp)
		default:
			f := clusterops.ElectionFailure{TopicPartition: tp, Message: err.Error()}
			var ke *cluster.KafkaError
			if errors.As(err, &ke) {
				f.Class, f.Message = ke.Class, ke.Message
			}
			r.Failed = append(r.Failed, f)
		}
	}
	return r
}
