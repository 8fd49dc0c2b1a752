package kraftsandbox

import (
	"regexp"
	"slices"
	"strings"

	"github.com/twmb/franz-go/pkg/kbin"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// apiVersions answers ApiVersions: the node's APIs, the features a 4.4.0
// node supports and the cluster's finalized levels. From v3 a request
// whose client software name or version is not of Kafka's pattern (empty
// among them) gets INVALID_REQUEST alone, on brokers and controllers
// (ApiVersionsRequest.isValid, KafkaApis and ControllerApis).
func (c *Cluster) apiVersions(r *request) (kmsg.Response, error) {
	req := r.req.(*kmsg.ApiVersionsRequest)
	resp := req.ResponseKind().(*kmsg.ApiVersionsResponse)
	if req.Version >= 3 && !(softwareNameVersion.MatchString(req.ClientSoftwareName) && softwareNameVersion.MatchString(req.ClientSoftwareVersion)) {
		resp.ErrorCode = kerr.InvalidRequest.Code
		return resp, nil
	}
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

// softwareNameVersion is Kafka's SOFTWARE_NAME_VERSION_PATTERN
// (ApiVersionsRequest), matched whole.
var softwareNameVersion = regexp.MustCompile(`^[a-zA-Z0-9](?:[a-zA-Z0-9\-.]*[a-zA-Z0-9])?$`)

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
// leader, replicas, ISR and offline replicas. The response is encoded
// here, under c.mu, straight from the state (encodeMetadata): a million
// partitions as kmsg structs would take a second and half a GiB.
func (c *Cluster) metadata(r *request) (kmsg.Response, error) {
	req := r.req.(*kmsg.MetadataRequest)
	resp := req.ResponseKind().(*kmsg.MetadataResponse)
	resp.Version = req.Version
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, b := range c.liveBrokers() {
		mb := kmsg.NewMetadataResponseBroker()
		mb.NodeID, mb.Host, mb.Port, mb.Rack = b.id, b.n.host, b.n.port, b.rack
		resp.Brokers = append(resp.Brokers, mb)
	}
	resp.ClusterID = &c.clusterID
	resp.ControllerID = c.someLiveBroker()
	var ts []metaTopic
	if req.Topics == nil {
		sorted := c.sortedTopics()
		ts = make([]metaTopic, 0, len(sorted))
		for _, t := range sorted {
			ts = append(ts, metaTopic{t: t})
		}
		return c.encodeMetadata(resp, ts, req.IncludeTopicAuthorizedOperations), nil
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
			ts = append(ts, metaTopic{missing: &mt})
			continue
		}
		ts = append(ts, metaTopic{t: t})
	}
	return c.encodeMetadata(resp, ts, req.IncludeTopicAuthorizedOperations), nil
}

// topicOrder is the topics in name order, with the number of topics and
// the XOR of their ids when it was sorted.
type topicOrder struct {
	n      int
	ids    [16]byte
	topics []*topic
}

// sortedTopics is every topic in name order. The order is kept while the
// same topics exist (the same number, the same XOR of their random ids: a
// topic deleted and another created change it): sorting 100,000 names
// for every Metadata of every topic took a tenth of a second, walking
// the map takes a few milliseconds. (The metadata log's offset would not
// do: the quorum's leader appends a record every half second.) The
// caller must not change the slice. c.mu is held.
func (c *Cluster) sortedTopics() []*topic {
	var ids [16]byte
	for _, t := range c.topics {
		for i := range ids {
			ids[i] ^= t.id[i]
		}
	}
	if c.byName.topics != nil && c.byName.n == len(c.topics) && c.byName.ids == ids {
		return c.byName.topics
	}
	ts := make([]*topic, 0, len(c.topics))
	for _, t := range c.topics {
		ts = append(ts, t)
	}
	slices.SortFunc(ts, func(a, b *topic) int { return strings.Compare(a.name, b.name) })
	c.byName = topicOrder{n: len(c.topics), ids: ids, topics: ts}
	return ts
}

// metaTopic is one topic of a Metadata response: a topic, or the error
// entry of one that does not exist.
type metaTopic struct {
	t       *topic
	missing *kmsg.MetadataResponseTopic
}

// encodedResponse is a response encoded by its handler: AppendTo appends
// the encoding (of the version the handler encoded, the request's).
type encodedResponse struct {
	kmsg.Response
	raw []byte
}

func (e *encodedResponse) AppendTo(dst []byte) []byte { return append(dst, e.raw...) }

// encodeMetadata encodes a Metadata response: resp's fields but its
// topics (encoded by kmsg, resp.Topics empty) with ts spliced in where
// the topics go, each partition written straight from the state, as
// kmsg's MetadataResponse.AppendTo writes it (the wire test compares
// them, every version). c.mu is held.
func (c *Cluster) encodeMetadata(resp *kmsg.MetadataResponse, ts []metaTopic, authOps bool) kmsg.Response {
	v := resp.Version
	flex := v >= 9
	resp.Topics = nil
	frame := resp.AppendTo(nil)
	// After the (empty) topics array: the cluster's authorized operations
	// (v8-10), the error code (v13+), the tagged fields (flexible).
	tail := 0
	if v >= 8 && v <= 10 {
		tail += 4
	}
	if v >= 13 {
		tail += 2
	}
	empty := 4
	if flex {
		tail++
		empty = 1
	}
	head, rest := frame[:len(frame)-tail-empty], frame[len(frame)-tail:]
	var offline []int32
	for _, b := range c.brokers {
		if !c.usable(b.id) {
			offline = append(offline, b.id)
		}
	}
	size := len(frame)
	for _, mt := range ts {
		if mt.t == nil {
			size += 64
			continue
		}
		size += 40 + len(mt.t.name)
		for _, p := range mt.t.parts {
			size += 32 + 4*(2*len(p.replicas)+len(p.isr))
		}
	}
	dst := make([]byte, 0, size)
	dst = append(dst, head...)
	arrayLen := func(dst []byte, n int) []byte {
		if flex {
			return kbin.AppendCompactArrayLen(dst, n)
		}
		return kbin.AppendArrayLen(dst, n)
	}
	ints := func(dst []byte, ids []int32) []byte {
		dst = arrayLen(dst, len(ids))
		for _, id := range ids {
			dst = kbin.AppendInt32(dst, id)
		}
		return dst
	}
	dst = arrayLen(dst, len(ts))
	for _, mt := range ts {
		if mt.missing != nil {
			// An error entry: let kmsg encode a response of it alone
			// and take the topic out.
			one := kmsg.NewPtrMetadataResponse()
			one.Version = v
			one.Topics = []kmsg.MetadataResponseTopic{*mt.missing}
			enc := one.AppendTo(nil)
			pre := 0
			if v >= 3 {
				pre += 4
			}
			pre += empty // no brokers
			if v >= 2 {
				pre += 2 // a null cluster id: int16 -1 (or one byte when flexible)
				if flex {
					pre--
				}
			}
			if v >= 1 {
				pre += 4
			}
			pre += empty // one topic: the same length as an empty array's
			dst = append(dst, enc[pre:len(enc)-tail]...)
			continue
		}
		t := mt.t
		dst = kbin.AppendInt16(dst, 0)
		switch {
		case v >= 12 && flex:
			dst = kbin.AppendCompactNullableString(dst, &t.name)
		case flex:
			dst = kbin.AppendCompactString(dst, t.name)
		default:
			dst = kbin.AppendString(dst, t.name)
		}
		if v >= 10 {
			dst = kbin.AppendUuid(dst, t.id)
		}
		if v >= 1 {
			dst = kbin.AppendBool(dst, t.name == "__consumer_offsets" || t.name == "__transaction_state")
		}
		dst = arrayLen(dst, len(t.parts))
		for i, p := range t.parts {
			code := int16(0)
			if p.leader < 0 {
				code = kerr.LeaderNotAvailable.Code
			}
			dst = kbin.AppendInt16(dst, code)
			dst = kbin.AppendInt32(dst, int32(i))
			dst = kbin.AppendInt32(dst, p.leader)
			if v >= 7 {
				dst = kbin.AppendInt32(dst, p.leaderEpoch)
			}
			dst = ints(dst, p.replicas)
			dst = ints(dst, p.isr)
			if v >= 5 {
				n := 0
				if len(offline) > 0 {
					for _, r := range p.replicas {
						if slices.Contains(offline, r) {
							n++
						}
					}
				}
				dst = arrayLen(dst, n)
				if n > 0 {
					for _, r := range p.replicas {
						if slices.Contains(offline, r) {
							dst = kbin.AppendInt32(dst, r)
						}
					}
				}
			}
			if flex {
				dst = append(dst, 0)
			}
		}
		if v >= 8 {
			ops := int32(-2147483648)
			if authOps {
				ops = allTopicOperations
			}
			dst = kbin.AppendInt32(dst, ops)
		}
		if flex {
			dst = append(dst, 0)
		}
	}
	dst = append(dst, rest...)
	return &encodedResponse{Response: resp, raw: dst}
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
