package kafkawatch

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/internal/memlimit"
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
	sourceDefault              = 5
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
	// cont: the topics continue those of the view applied before, of the
	// same poll (its other parts are not in this one); more: more of the
	// poll's topics follow, so those not listed are not gone (yet). A
	// first load lays out a large cluster's topics in pieces (split).
	cont, more bool
	// sameTopics: Metadata's topics are byte for byte those the layout
	// applied last (topics is nil); metaHash is their hash.
	sameTopics bool
	metaHash   uint64

	reassign    map[string]map[int32]reassignInfo // nil when unknown
	reassignErr error

	quorum    *kmsg.DescribeQuorumResponseTopicPartition
	quorumErr error
	// quorumDetail is the whole answer (nil when not asked or failed):
	// what the TUI's quorum tab shows live (Poller.LiveQuorum).
	quorumDetail *cluster.QuorumDetail

	// configs: the topics whose configs were read this poll.
	configs   map[string]topicConfig
	inherited *inheritance // nil when no topic config was read
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

// split cuts v's topics into pieces of about parts partitions each (a
// topic is never cut): the first piece is v with its first topics, the
// others hold only topics (and the reassignments they are read with);
// every piece but the last says more follow. A view of fewer partitions is
// one piece, v itself.
func (v *view) split(parts int) []*view {
	var out []*view
	from, n := 0, 0
	for i := range v.topics {
		n += v.topics[i].count()
		if n < parts || i+1 == len(v.topics) {
			continue
		}
		if from == 0 {
			first := *v
			first.topics = v.topics[:i+1]
			out = append(out, &first)
		} else {
			out = append(out, &view{at: v.at, hasTopics: true, topics: v.topics[from : i+1], reassign: v.reassign, cont: true, metaHash: v.metaHash})
		}
		from, n = i+1, 0
	}
	if from == 0 {
		return []*view{v}
	}
	out = append(out, &view{at: v.at, hasTopics: true, topics: v.topics[from:], reassign: v.reassign, cont: true, metaHash: v.metaHash})
	for _, piece := range out[:len(out)-1] {
		piece.more = true
	}
	return out
}

type brokerInfo struct {
	id     int32
	host   string
	port   int32
	rack   *string
	fenced bool
}

// reassignInfo is one partition of ListPartitionReassignments: the
// controller's replicas (the target and the original together, as
// ZooKeeper's topic znode holds them during a move), and those being
// added and removed.
type reassignInfo struct{ replicas, adding, removing []int32 }

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
		v.sameTopics, v.metaHash = resp.same, resp.hash
		// Each poll's response is garbage once read: the process's
		// memory limit keeps room for a few (a million partitions' is
		// 44 MiB).
		memlimit.Recurring(int64(resp.size))
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
					ps[p.Partition] = reassignInfo{p.Replicas, p.AddingReplicas, p.RemovingReplicas}
				}
				v.reassign[t.Topic] = ps
			}
		}()
	}
	if apis.has(keyDescribeQuorum, 0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			v.quorum, v.quorumDetail, v.quorumErr = describeQuorum(ctx, cl)
		}()
	}
	wg.Wait()
	if metaErr != nil {
		return nil, metaErr
	}
	if dcErr == nil && dc != nil {
		v.brokers, v.fencedListed = mergeBrokers(v.brokers, dc)
		if v.clusterID == "" {
			v.clusterID = dc.ClusterID
		}
	}
	slices.SortFunc(v.brokers, func(a, b brokerInfo) int { return int(a.id - b.id) })
	return v, nil
}

// mergeBrokers adds to the live brokers of a Metadata response (a KRaft
// broker lists the unfenced ones) those DescribeCluster lists besides
// them, fenced (v2+ lists the fenced brokers; an older one only the live
// ones, as Metadata does); it reports whether the fenced are listed.
//
// Which brokers are live comes from the Metadata response alone: its
// partitions and its brokers are one broker's metadata at one moment, so
// a fence and the leader moves and ISR shrinks the controller wrote with
// it (one record batch) arrive in the same poll, the fence first.
// DescribeCluster is another request, often answered by another broker,
// or a moment later after a retry: taking liveness from it showed the
// controller's reaction a poll before its cause.
func mergeBrokers(live []brokerInfo, dc *kmsg.DescribeClusterResponse) ([]brokerInfo, bool) {
	out := live
	for _, b := range dc.Brokers {
		i := slices.IndexFunc(live, func(x brokerInfo) bool { return x.id == b.NodeID })
		if i >= 0 {
			if out[i].rack == nil {
				out[i].rack = b.Rack
			}
			continue
		}
		// Fenced, or unfenced since the Metadata's broker answered: live
		// once a Metadata response lists it.
		out = append(out, brokerInfo{id: b.NodeID, host: b.Host, port: b.Port, rack: b.Rack, fenced: true})
	}
	return out, dc.Version >= 2
}

// describeQuorum reads the metadata quorum (a broker forwards it to the
// controllers): the metadata partition's answer, and the whole answer
// read (nil, nil when it has no metadata partition).
func describeQuorum(ctx context.Context, cl *kgo.Client) (*kmsg.DescribeQuorumResponseTopicPartition, *cluster.QuorumDetail, error) {
	resp, err := describeQuorumFull(ctx, cl.Request)
	if errors.Is(err, errNoMetadataPartition) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	q := quorumDetail(resp)
	return &resp.Topics[0].Partitions[0], &q, nil
}

// askQuorum sends DescribeQuorum through send (a client's routing, or one
// server: a controller's CONTROLLER listener) and returns the metadata
// partition's answer.
func askQuorum(ctx context.Context, send func(context.Context, kmsg.Request) (kmsg.Response, error)) (*kmsg.DescribeQuorumResponseTopicPartition, error) {
	resp, err := describeQuorumFull(ctx, send)
	if errors.Is(err, errNoMetadataPartition) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &resp.Topics[0].Partitions[0], nil
}

// configPart is the answer to one DescribeConfigs of topics.
type configPart struct {
	topics    int                    // how many topics it asked about
	configs   map[string]topicConfig // their own overrides, or their errors
	inherited *inheritance           // what they inherit from the brokers (nil: no topic answered)
	err       error                  // the request failed
}

// streamTopicConfigs asks for the configs of names, chunk topics a
// request and inFlight requests at a time, each to the next of brokers in
// turn (any broker when brokers is empty, or when the one asked fails),
// each request bounded by timeout (0: by ctx alone). Every answer is sent
// on the channel it returns, which is closed after the last (early when
// ctx ends).
func streamTopicConfigs(ctx context.Context, cl *kgo.Client, timeout time.Duration, brokers []int32, names []string, chunk, inFlight int) <-chan configPart {
	n := (len(names) + chunk - 1) / chunk
	out := make(chan configPart, n)
	go func() {
		defer close(out)
		sem := make(chan struct{}, inFlight)
		var wg sync.WaitGroup
		defer wg.Wait()
		for i := range n {
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				return
			}
			broker := int32(-1)
			if len(brokers) > 0 {
				broker = brokers[i%len(brokers)]
			}
			part := names[i*chunk : min((i+1)*chunk, len(names))]
			wg.Add(1)
			go func() {
				defer func() { <-sem; wg.Done() }()
				out <- askTopicConfigs(ctx, cl, timeout, broker, part)
			}()
		}
	}()
	return out
}

// describeTopicConfigs reads the configs of topics (a few requests at a
// time, to any broker): their own overrides and the inherited values
// that are not Kafka's defaults.
func describeTopicConfigs(ctx context.Context, cl *kgo.Client, names []string) (map[string]topicConfig, *inheritance, error) {
	out := make(map[string]topicConfig, len(names))
	var inherited *inheritance
	var firstErr error
	for part := range streamTopicConfigs(ctx, cl, 0, nil, names, configChunk, configInFlight) {
		if part.err != nil && firstErr == nil {
			firstErr = part.err
		}
		maps.Copy(out, part.configs)
		inherited = inherited.merge(part.inherited)
	}
	return out, inherited, firstErr
}

// inheritance is what one or more DescribeConfigs of topics said of the
// values a topic inherits from the brokers. set: the keys a topic that
// does not override them takes from a broker config (one broker's
// dynamic config, the dynamic cluster-wide default, or the broker's
// server.properties), with that value; unset: the keys a topic reported
// at Kafka's default (no broker config sets them). A key that every topic
// asked about overrides is in neither: the answer does not tell, and
// what an earlier answer said of it stands. (Taking the inherited values
// of one topic for all dropped every key that topic overrides.)
type inheritance struct {
	set   map[string]string
	unset map[string]bool
}

// note records what one topic's config entry says of its key.
func (in *inheritance) note(key, value string, source kmsg.ConfigSource) {
	switch source {
	case sourceDynamicBroker, sourceDynamicDefaultBroker, sourceStaticBroker:
		in.set[key] = value
		delete(in.unset, key)
	case sourceDefault:
		if _, ok := in.set[key]; !ok {
			in.unset[key] = true
		}
	}
}

// merge returns what in and o say together, o the newer (either may be
// nil).
func (in *inheritance) merge(o *inheritance) *inheritance {
	switch {
	case o == nil:
		return in
	case in == nil:
		return o
	}
	for k := range o.unset {
		delete(in.set, k)
		in.unset[k] = true
	}
	for k, v := range o.set {
		in.set[k] = v
		delete(in.unset, k)
	}
	return in
}

// update returns the inherited configs of list changed as in says
// (sorted by key).
func (in *inheritance) update(list []cluster.ConfigEntry) []cluster.ConfigEntry {
	out := make([]cluster.ConfigEntry, 0, len(list)+len(in.set))
	for _, e := range list {
		if _, ok := in.set[e.Key]; !ok && !in.unset[e.Key] {
			out = append(out, e)
		}
	}
	for k, v := range in.set {
		out = append(out, cluster.ConfigEntry{Key: k, Value: v})
	}
	slices.SortFunc(out, func(a, b cluster.ConfigEntry) int { return strings.Compare(a.Key, b.Key) })
	return out
}

// askTopicConfigs sends one DescribeConfigs of topics to broker (-1: any)
// and reads its answer (see topicConfigsResponse).
func askTopicConfigs(ctx context.Context, cl *kgo.Client, timeout time.Duration, broker int32, names []string) configPart {
	part := configPart{topics: len(names)}
	req := newTopicConfigsRequest(names)
	ask := func(broker int32) (*topicConfigsResponse, error) {
		rctx, cancel := ctx, context.CancelFunc(func() {})
		if timeout > 0 {
			rctx, cancel = context.WithTimeout(ctx, timeout)
		}
		defer cancel()
		if broker < 0 {
			return request[*topicConfigsResponse](rctx, cl, req)
		}
		resp, err := cl.Broker(int(broker)).Request(rctx, req)
		if err != nil {
			return nil, err
		}
		r, ok := resp.(*topicConfigsResponse)
		if !ok {
			return nil, fmt.Errorf("unexpected response %T", resp)
		}
		return r, nil
	}
	resp, err := ask(broker)
	if err != nil && broker >= 0 && ctx.Err() == nil {
		resp, err = ask(-1) // that broker failed: any other
	}
	if err != nil {
		part.err = err
		return part
	}
	part.configs, part.inherited = resp.part.configs, resp.part.inherited
	return part
}

// read takes a DescribeConfigs answer of topics: each topic's own
// overrides, or its error, and what they inherit from the brokers. It
// reads what kmsg decoded (an answer of a version before 4);
// topicConfigsResponse reads a newer one as bytes, to the same result.
func (part *configPart) read(resp *kmsg.DescribeConfigsResponse) {
	part.configs = make(map[string]topicConfig, len(resp.Resources))
	for i := range resp.Resources {
		r := &resp.Resources[i]
		if err := codeError(r.ErrorCode, r.ErrorMessage); err != nil {
			part.configs[r.ResourceName] = topicConfig{err: err}
			continue
		}
		if part.inherited == nil {
			part.inherited = &inheritance{set: map[string]string{}, unset: map[string]bool{}}
		}
		var own []cluster.ConfigEntry
		for _, c := range r.Configs {
			val := ""
			if c.Value != nil {
				val = *c.Value
			}
			if c.Source == sourceDynamicTopic {
				own = append(own, cluster.ConfigEntry{Key: c.Name, Value: val})
				continue
			}
			part.inherited.note(c.Name, val, c.Source)
		}
		part.configs[r.ResourceName] = topicConfig{entries: own}
	}
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
