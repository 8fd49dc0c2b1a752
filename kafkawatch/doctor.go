package kafkawatch

import (
	"context"
	"errors"
	"fmt"
	"net"
	"regexp"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/ktopo/ktopo/cluster"
)

// ReadQuorumReport reads what ktopo quorum shows of a KRaft cluster: the
// metadata quorum in full (DescribeQuorum, asked of the controllers at
// controllers when given, else of d's brokers, which forward it), the
// registered brokers, fenced ones too (DescribeCluster), the finalized
// feature levels, and every registered broker's supported feature ranges
// (ApiVersions at its registered endpoint) and, with controllers, every
// voter's (at its endpoint from DescribeQuorum v2, else at the addresses
// given). What fails is said in the report; err is set only when no
// server answered at all (the first failure, to be diagnosed).
func ReadQuorumReport(ctx context.Context, d Dial, controllers []string) (cluster.QuorumReport, error) {
	r := cluster.QuorumReport{ViaControllers: len(controllers) > 0, ControllersAsked: len(controllers) > 0}
	var wg sync.WaitGroup
	var qerr, berr error
	var q *kmsg.DescribeQuorumResponse
	wg.Add(2)
	go func() {
		defer wg.Done()
		q, qerr = quorumAnswer(ctx, d, controllers)
	}()
	var dc *kmsg.DescribeClusterResponse
	go func() {
		defer wg.Done()
		if len(d.Bootstrap) == 0 {
			berr = errors.New("not asked: give --bootstrap-server (the brokers)")
			return
		}
		dc, berr = describeClusterAll(ctx, d)
	}()
	wg.Wait()
	r.At = time.Now()
	if qerr != nil {
		r.QuorumErr = d.DiagnoseQuorum(ctx, qerr).Error()
	} else {
		r.Quorum = quorumDetail(q)
	}
	if berr != nil {
		r.BrokersErr = berr.Error()
	} else {
		r.FencedListed, r.ClusterID = dc.Version >= 2, dc.ClusterID
		for _, b := range dc.Brokers {
			kb := cluster.KRaftBroker{ID: int(b.NodeID), Fenced: b.IsFenced, Host: b.Host, Port: int(b.Port)}
			if b.Rack != nil {
				kb.Rack, kb.HasRack = *b.Rack, true
			}
			r.Brokers = append(r.Brokers, kb)
		}
		slices.SortFunc(r.Brokers, func(a, b cluster.KRaftBroker) int { return a.ID - b.ID })
	}
	switch {
	case qerr != nil && berr != nil && len(d.Bootstrap) == 0:
		return r, errors.New(r.QuorumErr)
	case berr != nil && (qerr != nil || len(controllers) == 0) && len(d.Bootstrap) > 0:
		// The brokers given do not answer as brokers: without the
		// controllers, a report would rest on whatever answered.
		return r, berr
	}

	// Every node's ApiVersions, at once.
	type ask struct {
		id         int
		controller bool
		addr       string
	}
	var asks []ask
	if berr == nil {
		for _, b := range r.Brokers {
			asks = append(asks, ask{b.ID, false, net.JoinHostPort(b.Host, strconv.Itoa(b.Port))})
		}
	} else {
		for _, a := range d.Bootstrap {
			asks = append(asks, ask{-1, false, a})
		}
	}
	if len(controllers) > 0 {
		byVoter := false
		for _, v := range r.Quorum.Voters {
			if len(v.Endpoints) > 0 {
				byVoter = true
				asks = append(asks, ask{v.ID, true, endpointAddr(v.Endpoints[0])})
			}
		}
		if !byVoter {
			for _, a := range controllers {
				asks = append(asks, ask{-1, true, a})
			}
		}
	}
	answers := make([]cluster.NodeFeatures, len(asks))
	finals := make([][]cluster.Feature, len(asks))
	for i, a := range asks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			n := cluster.NodeFeatures{ID: a.id, Controller: a.controller, Addr: a.addr}
			resp, err := askServer(ctx, d, a.addr, apiVersionsAnswer)
			if err != nil {
				n.Err = err.Error()
			} else {
				for _, f := range resp.SupportedFeatures {
					n.Supported = append(n.Supported, cluster.FeatureRange{Name: f.Name, MinVersion: int(f.MinVersion), MaxVersion: int(f.MaxVersion)})
				}
				fs := []cluster.Feature{}
				for _, f := range resp.FinalizedFeatures {
					fs = append(fs, cluster.Feature{Name: f.Name, Level: int(f.MaxVersionLevel)})
				}
				finals[i] = fs
			}
			answers[i] = n
		}()
	}
	wg.Wait()
	r.Nodes = answers
	r.FinalizedErr = "no node answered ApiVersions"
	// The finalized levels of the first broker that answered (a
	// broker's metadata image), else of a controller.
	for _, want := range []bool{false, true} {
		for i, a := range asks {
			if a.controller == want && finals[i] != nil && r.FinalizedErr != "" {
				r.Finalized, r.FinalizedErr = finals[i], ""
				slices.SortFunc(r.Finalized, func(a, b cluster.Feature) int { return strings.Compare(a.Name, b.Name) })
			}
		}
	}
	if r.FinalizedErr == "" && qerr == nil {
		// Without a leader the question would only wait.
		r.UpgradeChecks = checkUpgrades(ctx, d, controllers, r.Features())
	}
	return r, nil
}

// checkUpgrades asks Kafka's controller, with validateOnly, whether each
// feature every node asked supports above its finalized level may be
// raised to the highest such level, and each feature a node holds back
// to the highest level any supports (cluster.UpgradeChecksOf): one
// request a question (the first refusal of a request fails all its
// updates). Through the brokers (they forward it to the active
// controller), else the controllers.
func checkUpgrades(ctx context.Context, d Dial, controllers []string, fs []cluster.FeatureStatus) []cluster.UpgradeCheck {
	out := cluster.UpgradeChecksOf(fs)
	if len(out) == 0 {
		return nil
	}
	var wg sync.WaitGroup
	for i := range out {
		wg.Go(func() {
			c := &out[i]
			var err error
			if len(d.Bootstrap) > 0 {
				err = validateUpgrade(ctx, d, c)
			} else {
				for _, addr := range controllers {
					if err = askUpgradeAt(ctx, d, addr, c); !errors.Is(err, kerr.NotController) {
						break
					}
				}
			}
			if err != nil {
				c.Err = err.Error()
			}
		})
	}
	wg.Wait()
	return out
}

// upgradeRequest is UpdateFeatures raising c's feature to c.Level, with
// validateOnly.
func upgradeRequest(c *cluster.UpgradeCheck) *kmsg.UpdateFeaturesRequest {
	req := kmsg.NewPtrUpdateFeaturesRequest()
	req.TimeoutMillis, req.ValidateOnly = 30_000, true
	u := kmsg.NewUpdateFeaturesRequestFeatureUpdate()
	u.Feature, u.MaxVersionLevel, u.UpgradeType = c.Feature, int16(c.Level), 1 // UPGRADE
	req.FeatureUpdates = append(req.FeatureUpdates, u)
	return req
}

// readUpgrade reads an UpdateFeatures answer into c: Kafka's refusal
// (INVALID_UPDATE_VERSION and its message) as c.Refusal; other errors
// (no access, no controller) are returned.
func readUpgrade(raw kmsg.Response, c *cluster.UpgradeCheck) error {
	resp, ok := raw.(*kmsg.UpdateFeaturesResponse)
	if !ok {
		return fmt.Errorf("unexpected response %T", raw)
	}
	err := codeError(resp.ErrorCode, resp.ErrorMessage)
	for _, res := range resp.Results {
		if err == nil && res.ErrorCode != 0 {
			err = codeError(res.ErrorCode, res.ErrorMessage)
		}
	}
	if errors.Is(err, kerr.InvalidUpdateVersion) {
		c.Refusal = err.Error()
		return nil
	}
	return err
}

func validateUpgrade(ctx context.Context, d Dial, c *cluster.UpgradeCheck) error {
	cl, err := NewClient(d)
	if err != nil {
		return err
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(ctx, d.timeout())
	defer cancel()
	raw, err := cl.Request(ctx, upgradeRequest(c))
	if err != nil {
		return fmt.Errorf("UpdateFeatures: %w", err)
	}
	return readUpgrade(raw, c)
}

func askUpgradeAt(ctx context.Context, d Dial, addr string, c *cluster.UpgradeCheck) error {
	_, err := askServer(ctx, d, addr, func(ctx context.Context, send func(context.Context, kmsg.Request) (kmsg.Response, error)) (struct{}, error) {
		raw, err := send(ctx, upgradeRequest(c))
		if err != nil {
			return struct{}{}, fmt.Errorf("UpdateFeatures: %w", err)
		}
		return struct{}{}, readUpgrade(raw, c)
	})
	return err
}

// quorumAnswer asks DescribeQuorum of the controllers (the leader
// answers; the others say NOT_LEADER_OR_FOLLOWER), else of d's brokers,
// one after the other until one answers.
func quorumAnswer(ctx context.Context, d Dial, controllers []string) (*kmsg.DescribeQuorumResponse, error) {
	askers := controllers
	if len(askers) == 0 {
		askers = d.Bootstrap
	}
	qerr := &QuorumError{Controllers: len(controllers) > 0}
	notLeader := 0
	for _, addr := range askers {
		resp, err := askServer(ctx, d, addr, describeQuorumFull)
		if err == nil {
			return resp, nil
		}
		if strings.Contains(err.Error(), "broker is too old") {
			err = errors.New("it does not answer DescribeQuorum")
		}
		qerr.Addrs, qerr.Errs = append(qerr.Addrs, addr), append(qerr.Errs, err)
		if errors.Is(err, kerr.NotLeaderForPartition) {
			notLeader++
		}
		if ctx.Err() != nil {
			break
		}
		if len(controllers) == 0 && isTimeout(err) && !isDialError(err) {
			// A broker holds a forwarded DescribeQuorum while the
			// quorum has no leader (up to 60 s): the next would too.
			qerr.Hint = "a broker holds DescribeQuorum while the quorum has no leader, up to a minute: the quorum may have lost its majority; --bootstrap-controller asks the controllers themselves"
			break
		}
	}
	if len(controllers) > 0 && notLeader > 0 {
		qerr.Hint = fmt.Sprintf("%d of the %d controllers asked answered and none leads the quorum: if these are all the voters, it has no leader, as when a majority of them is down", notLeader, len(askers))
	}
	return nil, qerr
}

// errNoMetadataPartition: a DescribeQuorum answer without the metadata
// log's partition.
var errNoMetadataPartition = errors.New("no metadata partition in the answer")

// describeQuorumFull asks DescribeQuorum of the metadata partition and
// returns the whole answer (the partition's and the voters' nodes),
// refusing one whose partition holds an error.
func describeQuorumFull(ctx context.Context, send func(context.Context, kmsg.Request) (kmsg.Response, error)) (*kmsg.DescribeQuorumResponse, error) {
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
	if len(resp.Topics) == 0 || len(resp.Topics[0].Partitions) == 0 {
		return nil, errNoMetadataPartition
	}
	p := &resp.Topics[0].Partitions[0]
	if err := codeError(p.ErrorCode, p.ErrorMessage); err != nil {
		return nil, err
	}
	return resp, nil
}

// quorumDetail reads a DescribeQuorum answer.
func quorumDetail(resp *kmsg.DescribeQuorumResponse) cluster.QuorumDetail {
	p := resp.Topics[0].Partitions[0]
	q := cluster.QuorumDetail{LeaderID: int(p.LeaderID), LeaderEpoch: int(p.LeaderEpoch), HighWatermark: p.HighWatermark, Version: int(resp.Version)}
	endpoints := map[int32][]string{}
	for _, n := range resp.Nodes {
		for _, l := range n.Listeners {
			endpoints[n.NodeID] = append(endpoints[n.NodeID], l.Name+"://"+net.JoinHostPort(l.Host, strconv.Itoa(int(l.Port))))
		}
	}
	member := func(s kmsg.DescribeQuorumResponseTopicPartitionReplicaState) cluster.QuorumMember {
		m := cluster.QuorumMember{ID: int(s.ReplicaID), DirectoryID: cluster.UUID(s.ReplicaDirectoryID), LogEndOffset: s.LogEndOffset,
			Endpoints: endpoints[s.ReplicaID]}
		if s.LastFetchTimestamp >= 0 {
			m.LastFetch = time.UnixMilli(s.LastFetchTimestamp)
		}
		if s.LastCaughtUpTimestamp >= 0 {
			m.LastCaughtUp = time.UnixMilli(s.LastCaughtUpTimestamp)
		}
		return m
	}
	for _, v := range p.CurrentVoters {
		q.Voters = append(q.Voters, member(v))
	}
	for _, o := range p.Observers {
		q.Observers = append(q.Observers, member(o))
	}
	byID := func(a, b cluster.QuorumMember) int { return a.ID - b.ID }
	slices.SortFunc(q.Voters, byID)
	slices.SortFunc(q.Observers, byID)
	return q
}

// endpointAddr is the host:port of "NAME://host:port".
func endpointAddr(e string) string {
	if _, rest, ok := strings.Cut(e, "://"); ok {
		return rest
	}
	return e
}

// describeClusterAll asks d's brokers for every registered broker,
// fenced ones too (DescribeCluster v2, Kafka 4.0+).
func describeClusterAll(ctx context.Context, d Dial) (*kmsg.DescribeClusterResponse, error) {
	cl, err := NewClient(d)
	if err != nil {
		return nil, err
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(ctx, d.timeout())
	defer cancel()
	req := kmsg.NewPtrDescribeClusterRequest()
	req.IncludeFencedBrokers = true
	resp, err := request[*kmsg.DescribeClusterResponse](ctx, cl, req)
	if err != nil {
		return nil, d.Diagnose(ctx, d.Security.Explain(err))
	}
	if err := codeError(resp.ErrorCode, resp.ErrorMessage); err != nil {
		err = fmt.Errorf("DescribeCluster: %w", err)
		if errors.Is(err, kerr.MismatchedEndpointType) {
			// A controller's listener given as a broker's: say what
			// answers there and which flag takes it (an error code
			// alone is not diagnosed).
			return nil, d.Diagnose(ctx, errors.New(err.Error()))
		}
		return nil, err
	}
	if resp.Version < 2 {
		if v2 := describeClusterFenced(ctx, d, resp); v2 != nil {
			return v2, nil
		}
	}
	return resp, nil
}

// describeClusterFenced asks DescribeCluster of every broker an answer
// without fenced brokers lists (a broker before Kafka 4.0 answers v1 at
// most), 16 at a time, and returns the answer with fenced brokers (v2)
// of the lowest id (nil when none gives one). On a cluster in the middle of an
// upgrade to 4.x, whichever broker the client asked first, a fenced
// registration is then listed while an upgraded broker runs: unlisted,
// it would be taken for no registration at all.
func describeClusterFenced(ctx context.Context, d Dial, v1 *kmsg.DescribeClusterResponse) *kmsg.DescribeClusterResponse {
	answers := make([]*kmsg.DescribeClusterResponse, len(v1.Brokers))
	var wg sync.WaitGroup
	slots := make(chan struct{}, 16)
	for i, b := range v1.Brokers {
		wg.Go(func() {
			slots <- struct{}{}
			defer func() { <-slots }()
			resp, err := askServer(ctx, d, net.JoinHostPort(b.Host, strconv.Itoa(int(b.Port))), func(ctx context.Context, send func(context.Context, kmsg.Request) (kmsg.Response, error)) (*kmsg.DescribeClusterResponse, error) {
				req := kmsg.NewPtrDescribeClusterRequest()
				req.IncludeFencedBrokers = true
				raw, err := send(ctx, req)
				if err != nil {
					return nil, err
				}
				resp, ok := raw.(*kmsg.DescribeClusterResponse)
				if !ok || resp.Version < 2 || resp.ErrorCode != 0 {
					return nil, errors.New("no fenced brokers listed")
				}
				return resp, nil
			})
			if err == nil {
				answers[i] = resp
			}
		})
	}
	wg.Wait()
	var best *kmsg.DescribeClusterResponse
	bestID := int32(0)
	for i, a := range answers {
		if a != nil && (best == nil || v1.Brokers[i].NodeID < bestID) {
			best, bestID = a, v1.Brokers[i].NodeID
		}
	}
	return best
}

// apiVersionsAnswer asks one server ApiVersions. Sent to one broker
// directly, the request carries the client's software name and version
// itself (franz-go fills them in only for requests it routes): from v3
// Kafka refuses an ApiVersions without them, INVALID_REQUEST
// (ApiVersionsRequest.isValid).
func apiVersionsAnswer(ctx context.Context, send func(context.Context, kmsg.Request) (kmsg.Response, error)) (*kmsg.ApiVersionsResponse, error) {
	req := kmsg.NewPtrApiVersionsRequest()
	req.ClientSoftwareName, req.ClientSoftwareVersion = "ktopo", softwareVersion()
	raw, err := send(ctx, req)
	if err != nil {
		return nil, err
	}
	resp, ok := raw.(*kmsg.ApiVersionsResponse)
	if !ok {
		return nil, fmt.Errorf("unexpected response %T", raw)
	}
	if err := codeError(resp.ErrorCode, nil); err != nil {
		return nil, err
	}
	return resp, nil
}

// softwareNameVersion is Kafka's SOFTWARE_NAME_VERSION_PATTERN
// (ApiVersionsRequest): what an ApiVersions request's client software
// name and version must match from v3.
var softwareNameVersion = regexp.MustCompile(`^[a-zA-Z0-9](?:[a-zA-Z0-9\-.]*[a-zA-Z0-9])?$`)

// softwareVersion is ktopo's module version as ApiVersions takes it
// ("dev" when the build has none Kafka would accept).
func softwareVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok && softwareNameVersion.MatchString(bi.Main.Version) {
		return bi.Main.Version
	}
	return "dev"
}

// QuorumWatch is what the TUI's quorum tab reads of a KRaft cluster: the
// poller's live DescribeQuorum answer (LiveQuorum, read every poll at no
// cost of its own) and, less often, the whole report (ReadQuorumReport
// with Dial and Controllers: the features with every node's range, the
// registrations).
type QuorumWatch struct {
	Poller *Poller
	Dial   Dial
	// Controllers are the controllers' CONTROLLER listeners to ask too
	// (--bootstrap-controller; nil: only the brokers are asked).
	Controllers []string
}

// LiveQuorum is the poller's newest DescribeQuorum answer (see
// Poller.LiveQuorum).
func (w QuorumWatch) LiveQuorum() (cluster.QuorumReport, bool) { return w.Poller.LiveQuorum() }

// QuorumReport reads the whole report, as ktopo quorum does.
func (w QuorumWatch) QuorumReport(ctx context.Context) (cluster.QuorumReport, error) {
	return ReadQuorumReport(ctx, w.Dial, w.Controllers)
}
