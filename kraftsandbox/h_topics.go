package kraftsandbox

import (
	"errors"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/ktopo/ktopo/assign"
	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/clusterops"
)

// CreateTopics, CreatePartitions and DeleteTopics as Kafka 4.4's
// controller answers them (ReplicationControlManager), refusals in its
// words, in its order: the name, an existing or colliding topic, the
// configs, then the assignment (a manual one checked partition by
// partition as validateManualPartitionAssignment does, or the
// StripedReplicaPlacer's placement with the cluster's defaults for -1).

func init() {
	handlerSets = append(handlerSets, map[int16]handler{
		kmsg.CreateTopics.Int16():     (*Cluster).createTopics,
		kmsg.CreatePartitions.Int16(): (*Cluster).createPartitions,
		kmsg.DeleteTopics.Int16():     (*Cluster).deleteTopics,
	})
}

// onTopicDeleted are the other parts' cleanups of a deleted topic (its
// groups' offsets, producers' state), registered by their files; called
// with c.mu held after the topic left the metadata.
var onTopicDeleted []func(c *Cluster, t *topic)

// lockForWrite locks c.mu once the metadata quorum has a leader: a
// write goes to the active controller (a broker forwards it), and while
// there is none a real 4.4.0 leaves it unanswered (CreateTopics and
// IncrementalAlterConfigs seen waiting past the client's 30 s). false:
// the node or the cluster stopped meanwhile (the connection closes).
func (c *Cluster) lockForWrite(r *request) bool {
	if d := c.Pace(); d > 0 {
		// The controller is slowed down to watch its changes (pace).
		select {
		case <-c.ctx.Done():
			return false
		case <-time.After(d):
		}
	}
	for {
		c.mu.Lock()
		if c.leader >= 0 {
			return true
		}
		c.mu.Unlock()
		if !r.node.listening() {
			return false
		}
		select {
		case <-c.ctx.Done():
			return false
		case <-time.After(c.cfg.Tick):
		}
	}
}

// createTopics answers CreateTopics.
func (c *Cluster) createTopics(r *request) (kmsg.Response, error) {
	req := r.req.(*kmsg.CreateTopicsRequest)
	resp := req.ResponseKind().(*kmsg.CreateTopicsResponse)
	if !c.lockForWrite(r) {
		return nil, errClose
	}
	defer c.mu.Unlock()
	count := map[string]int{}
	for _, t := range req.Topics {
		count[t.Topic]++
	}
	for _, t := range req.Topics {
		rt := kmsg.NewCreateTopicsResponseTopic()
		rt.Topic = t.Topic
		if count[t.Topic] > 1 {
			// One answer for a name given more than once.
			rt.ErrorCode, rt.ErrorMessage = kerr.InvalidRequest.Code, ptr("Duplicate topic name.")
			resp.Topics = append(resp.Topics, rt)
			count[t.Topic] = 0
			continue
		} else if count[t.Topic] == 0 {
			continue
		}
		a, cfg, err := c.checkCreate(t)
		if err != nil {
			rt.ErrorCode, rt.ErrorMessage = err.fields()
			resp.Topics = append(resp.Topics, rt)
			continue
		}
		rt.NumPartitions, rt.ReplicationFactor = int32(len(a)), int16(len(a[0]))
		for _, e := range c.topicConfigEntries(cfg, c.answeringBroker(r.node), false, false) {
			ce := kmsg.NewCreateTopicsResponseTopicConfig()
			ce.Name, ce.Value, ce.ReadOnly, ce.Source, ce.IsSensitive = e.Name, e.Value, e.ReadOnly, int8(e.Source), e.IsSensitive
			rt.Configs = append(rt.Configs, ce)
		}
		if req.ValidateOnly {
			c.uuidInto(&rt.TopicID) // Kafka draws an id it then drops
		} else {
			rt.TopicID = c.addTopic(t.Topic, a, cfg).id
		}
		resp.Topics = append(resp.Topics, rt)
	}
	return resp, nil
}

// checkCreate checks one topic of CreateTopics and returns its replicas
// by partition and its configs. c.mu is held.
func (c *Cluster) checkCreate(t kmsg.CreateTopicsRequestTopic) ([][]int32, map[string]string, *apiError) {
	if err := validTopicName(t.Topic); err != nil {
		return nil, nil, &apiError{code: kerr.InvalidTopicException, msg: err.Error()}
	}
	if c.topics[t.Topic] != nil {
		return nil, nil, refuse(kerr.TopicAlreadyExists, "Topic '%s' already exists.", t.Topic)
	}
	if cluster.HasCollisionChars(t.Topic) {
		for _, name := range slices.Sorted(maps.Keys(c.topics)) {
			if cluster.TopicsCollide(name, t.Topic) {
				return nil, nil, refuse(kerr.InvalidTopicException, "Topic '%s' collides with existing topic: %s", t.Topic, name)
			}
		}
	}
	var nulls []string
	cfg := map[string]string{}
	for _, kv := range t.Configs {
		if kv.Value == nil {
			nulls = append(nulls, kv.Name)
			continue
		}
		cfg[kv.Name] = *kv.Value
	}
	if len(nulls) > 0 {
		return nil, nil, refuse(kerr.InvalidConfig, "Null value not supported for topic configs: %s", strings.Join(nulls, ","))
	}
	if err := validateTopicConfigs(cfg); err != nil {
		return nil, nil, err
	}
	if len(t.ReplicaAssignment) > 0 {
		a, err := c.checkManualCreate(t)
		return a, cfg, err
	}
	rf, n := int(t.ReplicationFactor), int(t.NumPartitions)
	switch {
	case rf < -1 || rf == 0:
		return nil, nil, refuse(kerr.InvalidReplicationFactor, "Replication factor must be larger than 0, or -1 to use the default value.")
	case n < -1 || n == 0:
		return nil, nil, refuse(kerr.InvalidPartitions, "Number of partitions was set to an invalid non-positive value.")
	}
	if rf == -1 {
		rf = c.intBrokerDefault("default.replication.factor", 1)
	}
	if n == -1 {
		n = c.intBrokerDefault("num.partitions", 1)
	}
	a, err := c.place(0, n, rf)
	if err != nil {
		return nil, nil, placementError(rf, err)
	}
	return a, cfg, nil
}

// placementError is the controller's refusal when the placer cannot
// place rf replicas.
func placementError(rf int, err error) *apiError {
	var ae *assign.Error
	if errors.As(err, &ae) {
		return refuse(kerr.InvalidReplicationFactor, "Unable to replicate the partition %d time(s): %s", rf, ae.Message)
	}
	return refuse(kerr.UnknownServerError, "%v", err)
}

// checkManualCreate checks a CreateTopics' manual assignment.
func (c *Cluster) checkManualCreate(t kmsg.CreateTopicsRequestTopic) ([][]int32, *apiError) {
	if t.ReplicationFactor != -1 {
		return nil, refuse(kerr.InvalidRequest, "A manual partition assignment was specified, but replication factor was not set to -1.")
	}
	if t.NumPartitions != -1 {
		return nil, refuse(kerr.InvalidRequest, "A manual partition assignment was specified, but numPartitions was not set to -1.")
	}
	byID := map[int32][]int32{}
	rf := -1
	for _, a := range t.ReplicaAssignment {
		if _, ok := byID[a.Partition]; ok {
			return nil, refuse(kerr.InvalidReplicaAssignment, "Found multiple manual partition assignments for partition %d", a.Partition)
		}
		if err := c.checkManualPartition(int(a.Partition), a.Replicas, rf); err != nil {
			return nil, err
		}
		rf = len(a.Replicas)
		byID[a.Partition] = a.Replicas
	}
	out := make([][]int32, len(byID))
	for i := range out {
		rs, ok := byID[int32(i)]
		if !ok {
			return nil, refuse(kerr.InvalidReplicaAssignment, "partitions should be a consecutive 0-based integer sequence")
		}
		out[i] = rs
	}
	return out, nil
}

// checkManualPartition is validateManualPartitionAssignment for one
// partition (clusterops.CheckKRaftManualPartition's rules, on the
// sandbox's brokers): replicas in id order, each registered, not
// cordoned (4.3+), not twice; rf replicas (rf < 0: any); for a new
// partition (id >= 0, not a reassignment's target) one of them unfenced. c.mu is held.
func (c *Cluster) checkManualPartition(id int, replicas []int32, rf int) *apiError {
	if len(replicas) == 0 {
		return refuse(kerr.InvalidReplicaAssignment, "The manual partition assignment includes an empty replica list.")
	}
	sorted := slices.Sorted(slices.Values(replicas))
	for i, r := range sorted {
		b := c.broker(r)
		switch {
		case b == nil || !b.registered:
			return refuse(kerr.InvalidReplicaAssignment, "The manual partition assignment includes broker %d, but no such broker is registered.", r)
		case c.cordonSupported() && allCordoned(b):
			return refuse(kerr.InvalidReplicaAssignment, "%s", clusterops.CordonedAssignmentMessage(int(r)))
		case i > 0 && sorted[i-1] == r:
			return refuse(kerr.InvalidReplicaAssignment, "The manual partition assignment includes the broker %d more than once.", r)
		}
	}
	if rf >= 0 && len(replicas) != rf {
		return refuse(kerr.InvalidReplicaAssignment, "The manual partition assignment includes a partition with %d replica(s), but this is not consistent with previous partitions, which have %d replica(s).", len(replicas), rf)
	}
	if id >= 0 && !slices.ContainsFunc(replicas, c.usable) {
		return refuse(kerr.InvalidReplicaAssignment, "All brokers specified in the manual partition assignment for partition %d are fenced or in controlled shutdown.", id)
	}
	return nil
}

// createPartitions answers CreatePartitions.
func (c *Cluster) createPartitions(r *request) (kmsg.Response, error) {
	req := r.req.(*kmsg.CreatePartitionsRequest)
	resp := req.ResponseKind().(*kmsg.CreatePartitionsResponse)
	if !c.lockForWrite(r) {
		return nil, errClose
	}
	defer c.mu.Unlock()
	count := map[string]int{}
	for _, t := range req.Topics {
		count[t.Topic]++
	}
	for _, t := range req.Topics {
		rt := kmsg.NewCreatePartitionsResponseTopic()
		rt.Topic = t.Topic
		if count[t.Topic] > 1 {
			rt.ErrorCode, rt.ErrorMessage = kerr.InvalidRequest.Code, ptr("Duplicate topic name.")
			resp.Topics = append(resp.Topics, rt)
			count[t.Topic] = 0
			continue
		} else if count[t.Topic] == 0 {
			continue
		}
		tp, a, err := c.checkAddPartitions(t)
		switch {
		case err != nil:
			rt.ErrorCode = err.code.Code
			if err.msg != "" {
				rt.ErrorMessage = &err.msg
			}
		case !req.ValidateOnly:
			for _, rs := range a {
				tp.parts = append(tp.parts, c.newPartition(rs))
			}
			c.logf("topic %s has %d partitions", tp.name, len(tp.parts))
		}
		resp.Topics = append(resp.Topics, rt)
	}
	return resp, nil
}

// checkAddPartitions checks one topic of CreatePartitions and returns
// its new partitions' replicas. c.mu is held.
func (c *Cluster) checkAddPartitions(t kmsg.CreatePartitionsRequestTopic) (*topic, [][]int32, *apiError) {
	tp := c.topics[t.Topic]
	if tp == nil {
		return nil, nil, &apiError{code: kerr.UnknownTopicOrPartition}
	}
	n, want := len(tp.parts), int(t.Count)
	switch {
	case want == n:
		return nil, nil, refuse(kerr.InvalidPartitions, "Topic already has %d partition(s).", n)
	case want < n:
		return nil, nil, refuse(kerr.InvalidPartitions, "The topic %s currently has %d partition(s); %d would not be an increase.", t.Topic, n, want)
	case t.Assignment != nil && len(t.Assignment) != want-n:
		return nil, nil, refuse(kerr.InvalidReplicaAssignment, "Attempted to add %d additional partition(s), but only %d assignment(s) were specified.", want-n, len(t.Assignment))
	}
	rf := len(tp.parts[0].replicas)
	if t.Assignment == nil {
		a, err := c.place(n, want-n, rf)
		if err != nil {
			return nil, nil, placementError(rf, err)
		}
		return tp, a, nil
	}
	var a [][]int32
	for i, as := range t.Assignment {
		if err := c.checkManualPartition(n+i, as.Replicas, rf); err != nil {
			return nil, nil, err
		}
		a = append(a, as.Replicas)
	}
	return tp, a, nil
}

// deleteTopics answers DeleteTopics, by name (v1+) or topic id (v6):
// the topic, its partitions and their data are gone at once, as a KRaft
// controller removes them.
func (c *Cluster) deleteTopics(r *request) (kmsg.Response, error) {
	req := r.req.(*kmsg.DeleteTopicsRequest)
	resp := req.ResponseKind().(*kmsg.DeleteTopicsResponse)
	if !c.lockForWrite(r) {
		return nil, errClose
	}
	defer c.mu.Unlock()
	type ask struct {
		name *string
		id   [16]byte
	}
	var asks []ask
	for _, n := range req.TopicNames {
		asks = append(asks, ask{name: &n})
	}
	for _, t := range req.Topics {
		asks = append(asks, ask{name: t.Topic, id: t.TopicID})
	}
	names, ids := map[string]int{}, map[[16]byte]int{}
	for _, a := range asks {
		if a.name != nil {
			names[*a.name]++
		} else {
			ids[a.id]++
		}
	}
	for _, a := range asks {
		rt := kmsg.NewDeleteTopicsResponseTopic()
		var t *topic
		switch {
		case a.name != nil && a.id != [16]byte{}:
			rt.Topic, rt.TopicID = a.name, a.id
			rt.ErrorCode, rt.ErrorMessage = kerr.InvalidRequest.Code, ptr("You may not specify both topic name and topic id.")
			resp.Topics = append(resp.Topics, rt)
			continue
		case a.name != nil && names[*a.name] != 1, a.name == nil && ids[a.id] != 1:
			// One answer for a name (an id) given more than once.
			if a.name != nil && names[*a.name] > 1 {
				names[*a.name] = 0
				rt.Topic = a.name
				rt.ErrorCode, rt.ErrorMessage = kerr.InvalidRequest.Code, ptr("Duplicate topic name.")
				resp.Topics = append(resp.Topics, rt)
			} else if a.name == nil && ids[a.id] > 1 {
				ids[a.id] = 0
				rt.TopicID = a.id
				rt.ErrorCode, rt.ErrorMessage = kerr.InvalidRequest.Code, ptr("Duplicate topic id.")
				resp.Topics = append(resp.Topics, rt)
			}
			continue
		}
		if a.name != nil {
			rt.Topic = a.name
			if t = c.topics[*a.name]; t == nil {
				rt.ErrorCode, rt.ErrorMessage = kerr.UnknownTopicOrPartition.Code, ptr(kerr.UnknownTopicOrPartition.Description)
			}
		} else {
			rt.TopicID = a.id
			if t = c.topicIDs[a.id]; t == nil {
				rt.ErrorCode, rt.ErrorMessage = kerr.UnknownTopicID.Code, ptr(kerr.UnknownTopicID.Description)
			}
		}
		if t != nil {
			name := t.name
			rt.Topic, rt.TopicID = &name, t.id
			c.removeTopic(t)
		}
		resp.Topics = append(resp.Topics, rt)
	}
	return resp, nil
}

// removeTopic removes a topic from the metadata (a RemoveTopicRecord)
// with its partitions and their data. c.mu is held.
func (c *Cluster) removeTopic(t *topic) {
	delete(c.topics, t.name)
	delete(c.topicIDs, t.id)
	c.record()
	for _, fn := range onTopicDeleted {
		fn(c, t)
	}
	c.logf("deleted topic %s", t.name)
}
