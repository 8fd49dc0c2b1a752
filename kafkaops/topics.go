package kafkaops

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/ktopo/ktopo/assign"
	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/clusterops"
)

// head is a request's first line: its API, its fields that are not per
// resource, and, for one that has validateOnly, that it is sent so first.
func head(api string, validate bool, fields ...string) string {
	s := api
	if len(fields) > 0 {
		s += " " + strings.Join(fields, " ")
	}
	if validate {
		s += " (validateOnly=true first, then false)"
	}
	return s
}

func int32s(xs []int) []int32 {
	out := make([]int32, len(xs))
	for i, x := range xs {
		out[i] = int32(x)
	}
	return out
}

func ints(xs []int32) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = strconv.Itoa(int(x))
	}
	return "[" + strings.Join(parts, ",") + "]"
}

// createTopicsRequest is the plan as Kafka's CreateTopics: the
// assignment given by hand (numPartitions and replicationFactor -1, as
// Kafka wants with one), the configs.
func (w *Writer) createTopicsRequest(p *clusterops.TopicPlan) *kmsg.CreateTopicsRequest {
	req := kmsg.NewPtrCreateTopicsRequest()
	req.TimeoutMillis = w.timeoutMs()
	t := kmsg.NewCreateTopicsRequestTopic()
	t.Topic, t.NumPartitions, t.ReplicationFactor = p.Name, -1, -1
	a := p.Assignment()
	for _, id := range a.Partitions() {
		ra := kmsg.NewCreateTopicsRequestTopicReplicaAssignment()
		ra.Partition, ra.Replicas = int32(id), int32s(a[id])
		t.ReplicaAssignment = append(t.ReplicaAssignment, ra)
	}
	for _, k := range slices.Sorted(maps.Keys(p.Config)) {
		c := kmsg.NewCreateTopicsRequestTopicConfig()
		v := p.Config[k]
		c.Name, c.Value = k, &v
		t.Configs = append(t.Configs, c)
	}
	req.Topics = append(req.Topics, t)
	return req
}

func describeCreateTopics(req *kmsg.CreateTopicsRequest) []string {
	out := []string{head("CreateTopics", true, "timeoutMs="+strconv.Itoa(int(req.TimeoutMillis)))}
	for _, t := range req.Topics {
		out = append(out, fmt.Sprintf("  topic %s numPartitions=%d replicationFactor=%d", t.Topic, t.NumPartitions, t.ReplicationFactor))
		for _, ra := range t.ReplicaAssignment {
			out = append(out, fmt.Sprintf("    partition %d replicas %s", ra.Partition, ints(ra.Replicas)))
		}
		for _, c := range t.Configs {
			out = append(out, "    config "+c.Name+"="+*c.Value)
		}
	}
	return out
}

// CreateTopic sends CreateTopics with the plan's assignment as a manual
// one, so that the controller creates exactly what was previewed.
func (w *Writer) CreateTopic(ctx context.Context, p *clusterops.TopicPlan, m clusterops.Mode) (clusterops.Writes, error) {
	req := w.createTopicsRequest(p)
	ws := writes("create topic "+p.Name, describeCreateTopics(req))
	return ws, validated(ctx, w, m, req, func(v bool) { req.ValidateOnly = v }, func(r *kmsg.CreateTopicsResponse) error {
		for _, t := range r.Topics {
			if err := codeError(t.ErrorCode, t.ErrorMessage, "create topic "+t.Topic, aclCreate(t.Topic)); err != nil {
				return err
			}
		}
		return nil
	})
}

// VerifyCreate finds out what became of a CreateTopics that got no
// answer (or REQUEST_TIMED_OUT: the controller goes on with it): it asks
// the brokers' metadata for the topic until it shows, or ctx ends, or
// twice the request's timeout passed without it. Applied means the topic
// has exactly the planned assignment; another one means someone else
// created it (TopicExistsException).
func (w *Writer) VerifyCreate(ctx context.Context, p *clusterops.TopicPlan, err error) clusterops.Outcome {
	deadline := time.Now().Add(2 * w.timeout)
	for {
		got, found, rerr := w.topicAssignment(ctx, p.Name)
		switch {
		case rerr == nil && found:
			if !maps.EqualFunc(got, p.Assignment(), slices.Equal) {
				return clusterops.Outcome{Known: true, How: "read back from the brokers' metadata",
					Err: fmt.Errorf("%w (its assignment is not the one planned: another client created it)",
						&cluster.KafkaError{Class: cluster.ClassTopicExists, Message: "Topic '" + p.Name + "' already exists."})}
			}
			return clusterops.Outcome{Known: true, Applied: true, How: "read back from the brokers' metadata"}
		case rerr == nil && time.Now().After(deadline):
			return clusterops.Outcome{Known: true, How: "not in the brokers' metadata " + (2 * w.timeout).String() + " after the request"}
		}
		select {
		case <-ctx.Done():
			return clusterops.Outcome{Err: fmt.Errorf("%w (reading back: %w)", err, ctx.Err())}
		case <-time.After(500 * time.Millisecond):
		}
	}
}

// topicAssignment reads a topic's replicas from Metadata (found false:
// the brokers do not know it, or not all of its partitions yet).
func (w *Writer) topicAssignment(ctx context.Context, topic string) (assign.Assignment, bool, error) {
	req := kmsg.NewPtrMetadataRequest()
	mt := kmsg.NewMetadataRequestTopic()
	mt.Topic = &topic
	req.Topics = append(req.Topics, mt)
	resp, err := send[*kmsg.MetadataResponse](ctx, w.cl, req)
	if err != nil {
		return nil, false, err
	}
	for _, t := range resp.Topics {
		if t.Topic == nil || *t.Topic != topic {
			continue
		}
		if t.ErrorCode == kerr.UnknownTopicOrPartition.Code || t.ErrorCode == kerr.LeaderNotAvailable.Code {
			return nil, false, nil
		}
		if err := codeError(t.ErrorCode, nil, "describe topic "+topic, aclTopic("DESCRIBE", topic)); err != nil {
			return nil, false, err
		}
		a := assign.Assignment{}
		for _, p := range t.Partitions {
			rs := make([]int, len(p.Replicas))
			for i, r := range p.Replicas {
				rs[i] = int(r)
			}
			a[int(p.Partition)] = rs
		}
		return a, len(a) > 0, nil
	}
	return nil, false, nil
}

// createPartitionsRequest is the plans as Kafka's CreatePartitions: each
// topic's new count and the new partitions' replicas (the preview's).
func (w *Writer) createPartitionsRequest(ps []*clusterops.AddPartitionsPlan) *kmsg.CreatePartitionsRequest {
	req := kmsg.NewPtrCreatePartitionsRequest()
	req.TimeoutMillis = w.timeoutMs()
	for _, p := range ps {
		t := kmsg.NewCreatePartitionsRequestTopic()
		t.Topic, t.Count = p.Topic, int32(p.Partitions)
		a := p.Assignment()
		for _, id := range a.Partitions() {
			ta := kmsg.NewCreatePartitionsRequestTopicAssignment()
			ta.Replicas = int32s(a[id])
			t.Assignment = append(t.Assignment, ta)
		}
		req.Topics = append(req.Topics, t)
	}
	return req
}

func describeCreatePartitions(req *kmsg.CreatePartitionsRequest, existing map[string]int) []string {
	out := []string{head("CreatePartitions", true, "timeoutMs="+strconv.Itoa(int(req.TimeoutMillis)))}
	for _, t := range req.Topics {
		out = append(out, fmt.Sprintf("  topic %s count=%d", t.Topic, t.Count))
		for i, a := range t.Assignment {
			out = append(out, fmt.Sprintf("    partition %d replicas %s", existing[t.Topic]+i, ints(a.Replicas)))
		}
	}
	return out
}

// AddPartitions sends CreatePartitions with the new partitions' placement
// given by hand.
func (w *Writer) AddPartitions(ctx context.Context, ps []*clusterops.AddPartitionsPlan, m clusterops.Mode) (clusterops.Writes, error) {
	req := w.createPartitionsRequest(ps)
	existing := map[string]int{}
	for _, p := range ps {
		existing[p.Topic] = p.Existing
	}
	ws := writes("add partitions", describeCreatePartitions(req, existing))
	return ws, validated(ctx, w, m, req, func(v bool) { req.ValidateOnly = v }, func(r *kmsg.CreatePartitionsResponse) error {
		for _, t := range r.Topics {
			if err := codeError(t.ErrorCode, t.ErrorMessage, "add partitions to topic "+t.Topic, aclTopic("ALTER", t.Topic)); err != nil {
				return err
			}
		}
		return nil
	})
}

// DeleteTopic sends DeleteTopics for the topic, after Kafka's tool's
// check (an internal topic is refused). The controller deletes it at
// once: a KRaft cluster has no "marked for deletion".
func (w *Writer) DeleteTopic(ctx context.Context, s *cluster.Snapshot, topic string, m clusterops.Mode) (clusterops.Writes, error) {
	if err := cluster.ValidateTopicDelete(topic, s); err != nil {
		return clusterops.Writes{}, err
	}
	req := kmsg.NewPtrDeleteTopicsRequest()
	req.TimeoutMillis = w.timeoutMs()
	req.TopicNames = []string{topic}
	rt := kmsg.NewDeleteTopicsRequestTopic()
	rt.Topic = &topic
	req.Topics = append(req.Topics, rt)
	ws := writes("delete topic "+topic, []string{head("DeleteTopics", false, "timeoutMs="+strconv.Itoa(int(req.TimeoutMillis))), "  topic " + topic})
	if m != clusterops.Apply {
		return ws, nil
	}
	resp, err := send[*kmsg.DeleteTopicsResponse](ctx, w.cl, req)
	if err != nil {
		return ws, err
	}
	for _, t := range resp.Topics {
		if err := codeError(t.ErrorCode, t.ErrorMessage, "delete topic "+topic, aclTopic("DELETE", topic)); err != nil {
			return ws, err
		}
	}
	return ws, nil
}
