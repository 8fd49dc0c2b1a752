package kraftsandbox

import (
	"slices"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// apiVersions answers ApiVersions: the node's APIs, the features a 4.4.0
// node supports and the cluster's finalized levels.
func (c *Cluster) apiVersions(r *request) (kmsg.Response, error) {
	resp := r.req.ResponseKind().(*kmsg.ApiVersionsResponse)
	resp.ApiKeys = c.apiKeys(r.node)
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, f := range supportedFeatures {
		sf := kmsg.NewApiVersionsResponseSupportedFeature()
		sf.Name, sf.MinVersion, sf.MaxVersion = f.name, f.min, f.max
		resp.SupportedFeatures = append(resp.SupportedFeatures, sf)
		if lvl, ok := c.features[f.name]; ok && lvl > 0 {
			ff := kmsg.NewApiVersionsResponseFinalizedFeature()
			ff.Name, ff.MinVersionLevel, ff.MaxVersionLevel = f.name, lvl, lvl
			resp.FinalizedFeatures = append(resp.FinalizedFeatures, ff)
		}
	}
	resp.FinalizedFeaturesEpoch = c.finalizedFeaturesEpoch(r.node.controller)
	return resp, nil
}

// liveBrokers are the brokers a broker's metadata lists: registered,
// unfenced. c.mu is held.
func (c *Cluster) liveBrokers() []*broker {
	var out []*broker
	for _, b := range c.brokers {
		if b.registered && !b.fenced {
			out = append(out, b)
		}
	}
	return out
}

// someLiveBroker is the controller id a broker reports: KRaft hides the
// active controller from clients and names a random live broker. -1 when
// none. c.mu is held.
func (c *Cluster) someLiveBroker() int32 {
	live := c.liveBrokers()
	if len(live) == 0 {
		return -1
	}
	return live[c.rnd.IntN(len(live))].id
}

// metadata answers Metadata from the brokers' metadata: live brokers,
// every topic asked for (all when Topics is nil), each partition's
// leader, replicas, ISR and offline replicas.
func (c *Cluster) metadata(r *request) (kmsg.Response, error) {
	req := r.req.(*kmsg.MetadataRequest)
	resp := req.ResponseKind().(*kmsg.MetadataResponse)
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, b := range c.liveBrokers() {
		mb := kmsg.NewMetadataResponseBroker()
		mb.NodeID, mb.Host, mb.Port, mb.Rack = b.id, b.n.host, b.n.port, b.rack
		resp.Brokers = append(resp.Brokers, mb)
	}
	resp.ClusterID = &c.clusterID
	resp.ControllerID = c.someLiveBroker()
	if req.Topics == nil {
		names := make([]string, 0, len(c.topics))
		for n := range c.topics {
			names = append(names, n)
		}
		slices.Sort(names)
		for _, n := range names {
			resp.Topics = append(resp.Topics, c.metadataTopic(c.topics[n], req.IncludeTopicAuthorizedOperations))
		}
		return resp, nil
	}
	for _, rt := range req.Topics {
		var t *topic
		if rt.Topic != nil {
			t = c.topics[*rt.Topic]
			if t == nil && req.AllowAutoTopicCreation && c.autoCreate() {
				t = c.autoCreateTopic(*rt.Topic)
			}
		} else {
			t = c.topicIDs[rt.TopicID]
		}
		if t == nil {
			mt := kmsg.NewMetadataResponseTopic()
			mt.Topic, mt.TopicID = rt.Topic, rt.TopicID
			mt.ErrorCode = kerr.UnknownTopicOrPartition.Code
			if rt.Topic == nil {
				mt.ErrorCode = kerr.UnknownTopicID.Code
			}
			resp.Topics = append(resp.Topics, mt)
			continue
		}
		resp.Topics = append(resp.Topics, c.metadataTopic(t, req.IncludeTopicAuthorizedOperations))
	}
	return resp, nil
}

// metadataTopic is one topic in a Metadata response. c.mu is held.
func (c *Cluster) metadataTopic(t *topic, authOps bool) kmsg.MetadataResponseTopic {
	mt := kmsg.NewMetadataResponseTopic()
	name := t.name
	mt.Topic, mt.TopicID, mt.IsInternal = &name, t.id, t.name == "__consumer_offsets" || t.name == "__transaction_state"
	if authOps {
		mt.AuthorizedOperations = allTopicOperations
	}
	for i, p := range t.parts {
		mp := kmsg.NewMetadataResponseTopicPartition()
		mp.Partition, mp.Leader, mp.LeaderEpoch = int32(i), p.leader, p.leaderEpoch
		mp.Replicas, mp.ISR = slices.Clone(p.replicas), slices.Clone(p.isr)
		for _, rid := range p.replicas {
			if !c.usable(rid) {
				mp.OfflineReplicas = append(mp.OfflineReplicas, rid)
			}
		}
		if mp.OfflineReplicas == nil {
			mp.OfflineReplicas = []int32{}
		}
		if p.leader < 0 {
			mp.ErrorCode = kerr.LeaderNotAvailable.Code
		}
		mt.Partitions = append(mt.Partitions, mp)
	}
	return mt
}

// allTopicOperations is the authorized operations of a topic without an
// authorizer (every operation: READ … ALTER_CONFIGS as the bits Kafka
// sets).
const allTopicOperations = 0b1111111111000

// autoCreate is auto.create.topics.enable (Kafka's default: true). c.mu
// is held.
func (c *Cluster) autoCreate() bool {
	return c.brokerConfigs[""]["auto.create.topics.enable"] != "false"
}

// autoCreateTopic creates a topic a producer or consumer asked for, with
// num.partitions and default.replication.factor (1 and 1 by default), as
// a broker's auto topic creation does. nil when it cannot be placed.
// c.mu is held.
func (c *Cluster) autoCreateTopic(name string) *topic {
	if err := validTopicName(name); err != nil {
		return nil
	}
	a, err := c.place(0, c.intBrokerDefault("num.partitions", 1), c.intBrokerDefault("default.replication.factor", 1))
	if err != nil {
		return nil
	}
	return c.addTopic(name, a, nil)
}

// describeCluster answers DescribeCluster: on a broker's listener the
// brokers (fenced too when asked, v2) and a random live broker as the
// controller; on a controller's (EndpointType 2) the controllers and the
// active one.
func (c *Cluster) describeCluster(r *request) (kmsg.Response, error) {
	req := r.req.(*kmsg.DescribeClusterRequest)
	resp := req.ResponseKind().(*kmsg.DescribeClusterResponse)
	c.mu.Lock()
	defer c.mu.Unlock()
	resp.ClusterID = c.clusterID
	resp.ClusterAuthorizedOperations = -2147483648
	if req.IncludeClusterAuthorizedOperations {
		resp.ClusterAuthorizedOperations = allClusterOperations
	}
	wantControllers := req.EndpointType == 2
	switch {
	case wantControllers && !r.node.controller, !wantControllers && r.node.controller && req.Version >= 1:
		resp.ErrorCode = kerr.MismatchedEndpointType.Code
		msg := "The request was sent to an endpoint of type BROKER, but we wanted an endpoint of type CONTROLLER"
		if r.node.controller {
			msg = "The request was sent to an endpoint of type CONTROLLER, but we wanted an endpoint of type BROKER"
		}
		resp.ErrorMessage = &msg
		return resp, nil
	case wantControllers || r.node.controller:
		resp.EndpointType = 2
		resp.ControllerID = c.leader
		for _, ct := range c.controllers {
			if !ct.alive {
				continue
			}
			rb := kmsg.NewDescribeClusterResponseBroker()
			rb.NodeID, rb.Host, rb.Port = ct.id, ct.n.host, ct.n.port
			resp.Brokers = append(resp.Brokers, rb)
		}
		return resp, nil
	}
	resp.EndpointType = 1
	resp.ControllerID = c.someLiveBroker()
	for _, b := range c.brokers {
		if !b.registered || (b.fenced && !req.IncludeFencedBrokers) {
			continue
		}
		rb := kmsg.NewDescribeClusterResponseBroker()
		rb.NodeID, rb.Host, rb.Port, rb.Rack, rb.IsFenced = b.id, b.n.host, b.n.port, b.rack, b.fenced
		resp.Brokers = append(resp.Brokers, rb)
	}
	return resp, nil
}

// allClusterOperations is the cluster's authorized operations without an
// authorizer.
const allClusterOperations = 0b111111110000
