package kafkawatch

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/ktopo/ktopo/cluster"
)

// The Kafka requests of a poll, by API key.
const (
	keyDescribeConfigs         = 32
	keyDescribeLogDirs         = 35
	keyListReassignments       = 46
	keyDescribeQuorum          = 55
	keyDescribeCluster         = 60
	keyDescribeTopicPartitions = 75
)

// Kafka's config sources (DescribeConfigs).
const (
	sourceDynamicTopic         = 1
	sourceDynamicBroker        = 2
	sourceDynamicDefaultBroker = 3
	sourceStaticBroker         = 4
)

// view is what one poll learned of the cluster. Parts that failed carry
// their error; parts not asked this poll are nil.
type view struct {
	at        time.Time
	clusterID string
	// brokers: every broker the cluster lists (DescribeCluster, with the
	// fenced ones where it can, else Metadata).
	brokers      []brokerInfo
	fencedListed bool
	// hasTopics: the poll read the topics, brokers and quorum (a view of
	// configs only has not).
	hasTopics bool
	topics    []metaTopic

	reassign    map[string]map[int32]reassignInfo // nil when unknown
	reassignErr error

	quorum    *kmsg.DescribeQuorumResponseTopicPartition
	quorumErr error

	// configs: the topics whose configs were read this poll.
	configs   map[string]topicConfig
	inherited []cluster.ConfigEntry // nil when no topic config was read
	// brokerConfigs: entity ("<default>", "1") → dynamic configs, when
	// read this poll.
	brokerConfigs map[string]topicConfig

	// elr: topics described with DescribeTopicPartitions this poll;
	// elrKnown says the cluster reports eligible leader replicas.
	elr      map[string][]kmsg.DescribeTopicPartitionsResponseTopicPartition
	elrKnown bool

	// logDirs: broker → (cordoned, all) directories, when read.
	logDirs map[int32][2]int

	features []cluster.Feature // nil when not asked
}

type brokerInfo struct {
	id     int32
	host   string
	port   int32
	rack   *string
	fenced bool
}

type reassignInfo struct{ adding, removing []int32 }

type topicConfig struct {
	entries []cluster.ConfigEntry
	err     error
}

// apiVersions are the brokers' highest versions by API key (ApiVersions).
type apiVersions map[int16]int16

func (a apiVersions) has(key int16, version int16) bool {
	v, ok := a[key]
	return ok && v >= version
}

// fetchVersions asks a broker which requests it serves and the cluster's
// finalized features.
func fetchVersions(ctx context.Context, cl *kgo.Client) (apiVersions, []cluster.Feature, error) {
	resp, err := request[*kmsg.ApiVersionsResponse](ctx, cl, kmsg.NewPtrApiVersionsRequest())
	if err != nil {
		return nil, nil, err
	}
	if err := codeError(resp.ErrorCode, nil); err != nil {
		return nil, nil, err
	}
	apis := apiVersions{}
	for _, k := range resp.ApiKeys {
		apis[k.ApiKey] = k.MaxVersion
	}
	fs := make([]cluster.Feature, 0, len(resp.FinalizedFeatures))
	for _, f := range resp.FinalizedFeatures {
		fs = append(fs, cluster.Feature{Name: f.Name, Level: int(f.MaxVersionLevel)})
	}
	slices.SortFunc(fs, func(a, b cluster.Feature) int { return strings.Compare(a.Name, b.Name) })
	return apis, fs, nil
}

// fetchCore runs a poll's first requests together: Metadata of every
// topic (read against the layout: see metaResponse), DescribeCluster,
// the reassignments and the quorum. Only a failed Metadata fails the
// poll; the others' errors are kept in the view.
func fetchCore(ctx context.Context, cl *kgo.Client, apis apiVersions, lay *layout) (*view, error) {
	v := &view{at: time.Now()}
	var wg sync.WaitGroup
	var metaErr error
	var dc *kmsg.DescribeClusterResponse
	var dcErr error
	wg.Add(1)
	go func() {
		defer wg.Done()
		req := kmsg.NewPtrMetadataRequest() // Topics nil: every topic
		var resp *metaResponse
		resp, metaErr = request[*metaResponse](ctx, cl, metaRequest{req, lay})
		if metaErr != nil {
			return
		}
		if metaErr = codeError(resp.ErrorCode, nil); metaErr != nil {
			return
		}
		if resp.ClusterID != nil {
			v.clusterID = *resp.ClusterID
		}
		v.topics, v.hasTopics = resp.topics, true
		for _, b := range resp.Brokers {
			v.brokers = append(v.brokers, brokerInfo{id: b.NodeID, host: b.Host, port: b.Port, rack: b.Rack})
		}
	}()
	if apis.has(keyDescribeCluster, 0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req := kmsg.NewPtrDescribeClusterRequest()
			req.IncludeFencedBrokers = true
			dc, dcErr = request[*kmsg.DescribeClusterResponse](ctx, cl, req)
			if dcErr == nil {
				dcErr = codeError(dc.ErrorCode, dc.ErrorMessage)
			}
		}()
	}
	if apis.has(keyListReassignments, 0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, err := request[*kmsg.ListPartitionReassignmentsResponse](ctx, cl, kmsg.NewPtrListPartitionReassignmentsRequest())
			if err == nil {
				err = codeError(resp.ErrorCode, resp.ErrorMessage)
			}
			if err != nil {
				v.reassignErr = err
				return
			}
			v.reassign = map[string]map[int32]reassignInfo{}
			for _, t := range resp.Topics {
				ps := map[int32]reassignInfo{}
				for _, p := range t.Partitions {
					ps[p.Partition] = reassignInfo{p.AddingReplicas, p.RemovingReplicas}
				}
				v.reassign[t.Topic] = ps
			}
		}()
	}
	if apis.has(keyDescribeQuorum, 0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			v.quorum, v.quorumErr = describeQuorum(ctx, cl)
		}()
	}
	wg.Wait()
	if metaErr != nil {
		return nil, metaErr
	}
	// DescribeCluster v2 lists the fenced brokers too; an older one only
	// the live ones, as Metadata does.
	if dcErr == nil && dc != nil {
		v.fencedListed = dc.Version >= 2
		v.brokers = v.brokers[:0]
		for _, b := range dc.Brokers {
			v.brokers = append(v.brokers, brokerInfo{id: b.NodeID, host: b.Host, port: b.Port, rack: b.Rack, fenced: b.IsFenced})
		}
		if v.clusterID == "" {
			v.clusterID = dc.ClusterID
		}
	}
	slices.SortFunc(v.brokers, func(a, b brokerInfo) int { return int(a.id - b.id) })
	return v, nil
}

// describeQuorum reads the metadata quorum (a broker forwards it to the
// controllers).
func describeQuorum(ctx context.Context, cl *kgo.Client) (*kmsg.DescribeQuorumResponseTopicPartition, error) {
	return askQuorum(ctx, cl.Request)
}

// askQuorum sends DescribeQuorum through send (a client's routing, or one
// server: a controller's CONTROLLER listener) and returns the metadata
// partition's answer.
func askQuorum(ctx context.Context, send func(context.Context, kmsg.Request) (kmsg.Response, error)) (*kmsg.DescribeQuorumResponseTopicPartition, error) {
	req := kmsg.NewPtrDescribeQuorumRequest()
	t := kmsg.NewDescribeQuorumRequestTopic()
	t.Topic = MetadataTopic
	t.Partitions = []kmsg.DescribeQuorumRequestTopicPartition{kmsg.NewDescribeQuorumRequestTopicPartition()}
	req.Topics = []kmsg.DescribeQuorumRequestTopic{t}
	raw, err := send(ctx, req)
	if err != nil {
		return nil, err
	}
	resp, ok := raw.(*kmsg.DescribeQuorumResponse)
	if !ok {
		return nil, fmt.Errorf("unexpected response %T", raw)
	}
	if err := codeError(resp.ErrorCode, resp.ErrorMessage); err != nil {
		return nil, err
	}
	for _, t := range resp.Topics {
		if len(t.Partitions) == 0 {
			continue
		}
		p := &t.Partitions[0]
		if err := codeError(p.ErrorCode, p.ErrorMessage); err != nil {
			return nil, err
		}
		return p, nil
	}
	return nil, nil
}

// describeTopicConfigs reads the configs of topics (one request per
// chunk, four chunks in flight): their own overrides and the inherited
// values that are not Kafka's defaults. (Spread over eight brokers
// sharing two cores, the benchmark's, a first load's were slower.)
func describeTopicConfigs(ctx context.Context, cl *kgo.Client, names []string, chunk int) (map[string]topicConfig, []cluster.ConfigEntry, error) {
	out := make(map[string]topicConfig, len(names))
	var inherited []cluster.ConfigEntry
	var mu sync.Mutex
	var firstErr error
	sem := make(chan struct{}, 4)
	var wg sync.WaitGroup
	for from := 0; from < len(names); from += chunk {
		part := names[from:min(from+chunk, len(names))]
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			req := kmsg.NewPtrDescribeConfigsRequest()
			for _, n := range part {
				r := kmsg.NewDescribeConfigsRequestResource()
				r.ResourceType, r.ResourceName = kmsg.ConfigResourceTypeTopic, n
				req.Resources = append(req.Resources, r)
			}
			resp, err := request[*kmsg.DescribeConfigsResponse](ctx, cl, req)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				if firstErr == nil {
					firstErr = err
				}
				return
			}
			for i := range resp.Resources {
				r := &resp.Resources[i]
				if err := codeError(r.ErrorCode, r.ErrorMessage); err != nil {
					out[r.ResourceName] = topicConfig{err: err}
					continue
				}
				var own, inh []cluster.ConfigEntry
				for _, c := range r.Configs {
					val := ""
					if c.Value != nil {
						val = *c.Value
					}
					switch c.Source {
					case sourceDynamicTopic:
						own = append(own, cluster.ConfigEntry{Key: c.Name, Value: val})
					case sourceDynamicBroker, sourceDynamicDefaultBroker, sourceStaticBroker:
						inh = append(inh, cluster.ConfigEntry{Key: c.Name, Value: val})
					}
				}
				out[r.ResourceName] = topicConfig{entries: own}
				inherited = inh
				if inherited == nil {
					inherited = []cluster.ConfigEntry{}
				}
			}
		}()
	}
	wg.Wait()
	slices.SortFunc(inherited, func(a, b cluster.ConfigEntry) int { return strings.Compare(a.Key, b.Key) })
	return out, inherited, firstErr
}

// describeBrokerConfigs reads the dynamic broker configs: the
// cluster-wide defaults and each broker's own, each asked of its broker
// (franz-go's sharding would first read every topic's metadata).
func describeBrokerConfigs(ctx context.Context, cl *kgo.Client, ids []int32) (map[string]topicConfig, error) {
	out := map[string]topicConfig{}
	var mu sync.Mutex
	var firstErr error
	ask := func(entity string, broker *kgo.Broker) {
		req := kmsg.NewPtrDescribeConfigsRequest()
		r := kmsg.NewDescribeConfigsRequestResource()
		r.ResourceType, r.ResourceName = kmsg.ConfigResourceTypeBroker, entity
		req.Resources = append(req.Resources, r)
		var resp kmsg.Response
		var err error
		if broker != nil {
			resp, err = broker.Request(ctx, req)
		} else {
			resp, err = cl.Request(ctx, req)
		}
		mu.Lock()
		defer mu.Unlock()
		if err != nil {
			if firstErr == nil {
				firstErr = err
			}
			return
		}
		name := entity
		if name == "" {
			name = cluster.BrokerDefaultEntity
		}
		for _, r := range resp.(*kmsg.DescribeConfigsResponse).Resources {
			if err := codeError(r.ErrorCode, r.ErrorMessage); err != nil {
				out[name] = topicConfig{err: err}
				continue
			}
			want := kmsg.ConfigSource(sourceDynamicBroker)
			if entity == "" {
				want = sourceDynamicDefaultBroker
			}
			entries := []cluster.ConfigEntry{}
			for _, c := range r.Configs {
				if c.Source == want && c.Value != nil {
					entries = append(entries, cluster.ConfigEntry{Key: c.Name, Value: *c.Value})
				}
			}
			out[name] = topicConfig{entries: entries}
		}
	}
	var wg sync.WaitGroup
	wg.Add(1 + len(ids))
	go func() { defer wg.Done(); ask("", nil) }()
	for _, id := range ids {
		go func() { defer wg.Done(); ask(strconv.Itoa(int(id)), cl.Broker(int(id))) }()
	}
	wg.Wait()
	return out, firstErr
}

// describeELR reads the partitions of topics with DescribeTopicPartitions
// (page after page), for their eligible leader replicas.
func describeELR(ctx context.Context, cl *kgo.Client, names []string) (map[string][]kmsg.DescribeTopicPartitionsResponseTopicPartition, bool, error) {
	out := map[string][]kmsg.DescribeTopicPartitionsResponseTopicPartition{}
	known := false
	req := kmsg.NewPtrDescribeTopicPartitionsRequest()
	for _, n := range names {
		t := kmsg.NewDescribeTopicPartitionsRequestTopic()
		t.Topic = n
		req.Topics = append(req.Topics, t)
	}
	req.ResponsePartitionLimit = 2000
	for {
		resp, err := request[*kmsg.DescribeTopicPartitionsResponse](ctx, cl, req)
		if err != nil {
			return out, known, err
		}
		for _, t := range resp.Topics {
			if t.Topic == nil || t.ErrorCode != 0 {
				continue
			}
			for _, p := range t.Partitions {
				if p.EligibleLeaderReplicas != nil {
					known = true
				}
			}
			out[*t.Topic] = append(out[*t.Topic], t.Partitions...)
		}
		if resp.NextCursor == nil {
			return out, known, nil
		}
		req.Cursor = &kmsg.DescribeTopicPartitionsRequestCursor{Topic: resp.NextCursor.Topic, Partition: resp.NextCursor.Partition}
	}
}

// describeLogDirs asks every live broker for its log directories
// (without their partitions) and counts the cordoned ones.
func describeLogDirs(ctx context.Context, cl *kgo.Client, ids []int32) (map[int32][2]int, error) {
	out := map[int32][2]int{}
	var mu sync.Mutex
	var firstErr error
	var wg sync.WaitGroup
	wg.Add(len(ids))
	for _, id := range ids {
		go func() {
			defer wg.Done()
			req := kmsg.NewPtrDescribeLogDirsRequest()
			req.Topics = []kmsg.DescribeLogDirsRequestTopic{} // none: the directories only
			resp, err := cl.Broker(int(id)).Request(ctx, req)
			if err == nil {
				err = codeError(resp.(*kmsg.DescribeLogDirsResponse).ErrorCode, nil)
			}
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				if firstErr == nil {
					firstErr = err
				}
				return
			}
			var n [2]int
			for _, d := range resp.(*kmsg.DescribeLogDirsResponse).Dirs {
				n[1]++
				if d.IsCordoned {
					n[0]++
				}
			}
			out[id] = n
		}()
	}
	wg.Wait()
	return out, firstErr
}
