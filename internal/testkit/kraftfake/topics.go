package kraftfake

import (
	"slices"
	"strconv"
	"strings"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/clusterops"
)

// createTopics is ReplicationControlManager.createTopics for topics given
// with a manual assignment (ktopo sends no other): the name, then whether
// it exists, the configs, the assignment partition by partition
// (validateManualPartitionAssignment, an active broker in each), the
// partitions numbered from 0.
func (c *Cluster) createTopics(s *cluster.Snapshot, req *kmsg.CreateTopicsRequest) (kmsg.Response, error) {
	resp := req.ResponseKind().(*kmsg.CreateTopicsResponse)
	for _, t := range req.Topics {
		if len(t.ReplicaAssignment) == 0 {
			return nil, notEmulated("CreateTopics without a manual assignment (the controller's own placement)")
		}
	}
	for _, t := range req.Topics {
		rt := kmsg.NewCreateTopicsResponseTopic()
		rt.Topic = t.Topic
		err, parts := c.checkCreate(s, t)
		rt.ErrorCode, rt.ErrorMessage = codeMsg(err)
		if err == nil {
			rt.NumPartitions, rt.ReplicationFactor = int32(len(parts)), int16(len(parts[0].replicas))
			if !req.ValidateOnly {
				cfg := map[string]string{}
				for _, kv := range t.Configs {
					cfg[kv.Name] = *kv.Value
				}
				c.create(t.Topic, parts, cfg)
			}
		}
		resp.Topics = append(resp.Topics, rt)
	}
	return resp, nil
}

// checkCreate checks one topic of CreateTopics and returns its partitions.
func (c *Cluster) checkCreate(s *cluster.Snapshot, t kmsg.CreateTopicsRequestTopic) (*cluster.KafkaError, []*part) {
	if err := cluster.ValidateTopicName(t.Topic); err != nil {
		return asRefusal(err), nil
	}
	if s.Topic(t.Topic) != nil {
		return refuse(kerr.TopicAlreadyExists, "Topic '"+t.Topic+"' already exists."), nil
	}
	if cluster.HasCollisionChars(t.Topic) {
		for _, o := range s.Topics() {
			if o.Name != t.Topic && cluster.TopicsCollide(o.Name, t.Topic) {
				return refuse(kerr.InvalidTopicException, "Topic '"+t.Topic+"' collides with existing topic: "+o.Name), nil
			}
		}
	}
	var nulls []string
	for _, kv := range t.Configs {
		if kv.Value == nil {
			nulls = append(nulls, kv.Name)
		}
	}
	if len(nulls) > 0 {
		return refuse(kerr.InvalidConfig, "Null value not supported for topic configs: "+strings.Join(nulls, ",")), nil
	}
	for _, kv := range t.Configs {
		if err := cluster.ValidateTopicConfigValue(kv.Name, *kv.Value); err != nil {
			return asRefusal(err), nil
		}
	}
	if t.ReplicationFactor != -1 {
		return refuse(kerr.InvalidRequest, "A manual partition assignment was specified, but replication factor was not set to -1."), nil
	}
	if t.NumPartitions != -1 {
		return refuse(kerr.InvalidRequest, "A manual partition assignment was specified, but numPartitions was not set to -1."), nil
	}
	byID := map[int]*part{}
	rf := -1
	for _, a := range t.ReplicaAssignment {
		id := int(a.Partition)
		if byID[id] != nil {
			return refuse(kerr.InvalidReplicaAssignment, "Found multiple manual partition assignments for partition "+strconv.Itoa(id)), nil
		}
		replicas := fromInt32s(a.Replicas)
		if err := clusterops.CheckKRaftManualPartition(s, replicas, rf); err != nil {
			return asRefusal(err), nil
		}
		rf = len(replicas)
		p, err := newPart(s, id, replicas)
		if err != nil {
			return err, nil
		}
		byID[id] = p
	}
	parts := make([]*part, len(byID))
	for i := range parts {
		if parts[i] = byID[i]; parts[i] == nil {
			return refuse(kerr.InvalidReplicaAssignment, "partitions should be a consecutive 0-based integer sequence"), nil
		}
	}
	return nil, parts
}

// newPart is a new partition on replicas: its ISR the active ones, led by
// the first of them (buildPartitionRegistration).
func newPart(s *cluster.Snapshot, id int, replicas []int) (*part, *cluster.KafkaError) {
	var isr []int
	for _, r := range replicas {
		if active(s, r) {
			isr = append(isr, r)
		}
	}
	if len(isr) == 0 {
		return nil, refuse(kerr.InvalidReplicaAssignment, "All brokers specified in the manual partition assignment for partition "+strconv.Itoa(id)+" are fenced or in controlled shutdown.")
	}
	return &part{id: id, replicas: replicas, isr: isr, leader: isr[0]}, nil
}

// create writes a new topic.
func (c *Cluster) create(name string, parts []*part, cfg map[string]string) {
	c.writeTopic(name, topicID(name), parts)
	if len(cfg) > 0 {
		c.set(cluster.TopicConfigPath(name), cluster.EncodeEntityConfig(cfg))
	}
	what := []string{name}
	for _, p := range parts {
		what = append(what, ints(p.replicas))
	}
	c.note("CreateTopics", what...)
}

// createPartitions is ReplicationControlManager.createPartitions for new
// partitions given with their replicas.
func (c *Cluster) createPartitions(s *cluster.Snapshot, req *kmsg.CreatePartitionsRequest) (kmsg.Response, error) {
	resp := req.ResponseKind().(*kmsg.CreatePartitionsResponse)
	for _, t := range req.Topics {
		rt := kmsg.NewCreatePartitionsResponseTopic()
		rt.Topic = t.Topic
		err, parts := c.checkAddPartitions(s, t)
		if err == nil && parts == nil {
			return nil, notEmulated("CreatePartitions without assignments (the controller's own placement)")
		}
		rt.ErrorCode, rt.ErrorMessage = codeMsg(err)
		if err == nil && !req.ValidateOnly {
			tp, all := c.topicParts(s, t.Topic)
			all = append(all, parts...)
			c.writeTopic(t.Topic, tp.ID, all)
			what := []string{t.Topic}
			for _, p := range parts {
				what = append(what, strconv.Itoa(p.id)+ints(p.replicas))
			}
			c.note("CreatePartitions", what...)
		}
		resp.Topics = append(resp.Topics, rt)
	}
	return resp, nil
}

// checkAddPartitions checks one topic of CreatePartitions and returns its
// new partitions (nil without assignments: placed by the controller).
func (c *Cluster) checkAddPartitions(s *cluster.Snapshot, t kmsg.CreatePartitionsRequestTopic) (*cluster.KafkaError, []*part) {
	tp, cur := c.topicParts(s, t.Topic)
	if tp == nil {
		return refuseBare(kerr.UnknownTopicOrPartition), nil
	}
	n, count := len(cur), int(t.Count)
	switch {
	case count == n:
		return refuse(kerr.InvalidPartitions, "Topic already has "+strconv.Itoa(n)+" partition(s)."), nil
	case count < n:
		return refuse(kerr.InvalidPartitions, "The topic "+t.Topic+" currently has "+strconv.Itoa(n)+" partition(s); "+strconv.Itoa(count)+" would not be an increase."), nil
	case t.Assignment != nil && len(t.Assignment) != count-n:
		return refuse(kerr.InvalidReplicaAssignment, "Attempted to add "+strconv.Itoa(count-n)+" additional partition(s), but only "+strconv.Itoa(len(t.Assignment))+" assignment(s) were specified."), nil
	case t.Assignment == nil:
		return nil, nil
	}
	rf := len(cur[0].replicas)
	var parts []*part
	for i, a := range t.Assignment {
		replicas := fromInt32s(a.Replicas)
		if err := clusterops.CheckKRaftManualPartition(s, replicas, rf); err != nil {
			return asRefusal(err), nil
		}
		p, err := newPart(s, n+i, replicas)
		if err != nil {
			return err, nil
		}
		parts = append(parts, p)
	}
	return nil, parts
}

// deleteTopics deletes topics at once, as a KRaft controller does.
func (c *Cluster) deleteTopics(s *cluster.Snapshot, req *kmsg.DeleteTopicsRequest) kmsg.Response {
	resp := req.ResponseKind().(*kmsg.DeleteTopicsResponse)
	names := slices.Clone(req.TopicNames)
	for _, t := range req.Topics {
		if t.Topic != nil && !slices.Contains(names, *t.Topic) {
			names = append(names, *t.Topic)
		}
	}
	for _, name := range names {
		rt := kmsg.NewDeleteTopicsResponseTopic()
		rt.Topic = &name
		t := s.Topic(name)
		if t == nil {
			rt.ErrorCode, rt.ErrorMessage = codeMsg(refuseBare(kerr.UnknownTopicOrPartition))
			resp.Topics = append(resp.Topics, rt)
			continue
		}
		for _, p := range t.Partitions {
			c.del(cluster.PartitionStatePath(name, p.ID))
		}
		c.del(cluster.TopicConfigPath(name))
		c.del(cluster.TopicPath(name))
		c.note("DeleteTopics", name)
		resp.Topics = append(resp.Topics, rt)
	}
	return resp
}

// metadata answers a Metadata request for topics: their partitions'
// replicas, leaders and ISRs (what a creation is read back from).
func (c *Cluster) metadata(s *cluster.Snapshot, req *kmsg.MetadataRequest) kmsg.Response {
	resp := req.ResponseKind().(*kmsg.MetadataResponse)
	for _, b := range s.Brokers() {
		if b.Live {
			mb := kmsg.NewMetadataResponseBroker()
			mb.NodeID, mb.Host, mb.Port = int32(b.ID), b.Registration.Host, int32(b.Registration.Port)
			resp.Brokers = append(resp.Brokers, mb)
		}
	}
	var names []string
	if req.Topics == nil {
		for _, t := range s.Topics() {
			names = append(names, t.Name)
		}
	}
	for _, t := range req.Topics {
		if t.Topic != nil {
			names = append(names, *t.Topic)
		}
	}
	for _, name := range names {
		mt := kmsg.NewMetadataResponseTopic()
		mt.Topic = &name
		t := s.Topic(name)
		if t == nil {
			mt.ErrorCode = kerr.UnknownTopicOrPartition.Code
			resp.Topics = append(resp.Topics, mt)
			continue
		}
		for _, p := range partitionsOf(t) {
			mp := kmsg.NewMetadataResponseTopicPartition()
			mp.Partition, mp.Leader, mp.LeaderEpoch = int32(p.id), int32(p.leader), int32(p.leaderEpoch)
			mp.Replicas, mp.ISR = int32s(p.replicas), int32s(p.isr)
			mt.Partitions = append(mt.Partitions, mp)
		}
		resp.Topics = append(resp.Topics, mt)
	}
	return resp
}
