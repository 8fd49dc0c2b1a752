package kafkawatch

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/ktopo/ktopo/cluster"
)

// MetadataTopic is the KRaft metadata log's topic.
const MetadataTopic = "__cluster_metadata"

// Quorum asks for the KRaft metadata quorum, for the migration radar: the
// leader, its epoch, the high watermark of __cluster_metadata (how far
// ZooKeeper lags KRaft during a ZooKeeper to KRaft migration: /migration
// holds the last offset the controller wrote into ZooKeeper) and the
// voters; and the brokers the cluster's metadata lists. It asks the
// controllers at controllers (their CONTROLLER listener, where only the
// leader answers DescribeQuorum), else d's brokers (KRaft brokers forward
// DescribeQuorum to the active controller; ZooKeeper-mode brokers,
// migrating or not, do not know the request), one server after the other
// until one answers, with d's security (--command-config).
func Quorum(ctx context.Context, d Dial, controllers []string) (cluster.KRaftQuorum, error) {
	askers := controllers
	if len(askers) == 0 {
		askers = d.Bootstrap
	}
	if len(askers) == 0 {
		return cluster.KRaftQuorum{}, errors.New("no bootstrap server")
	}
	var q cluster.KRaftQuorum
	qerr := &QuorumError{Controllers: len(controllers) > 0}
	asked := false
	for _, addr := range askers {
		p, err := askServer(ctx, d, addr, askQuorum)
		if err == nil && p == nil {
			err = errors.New("no metadata partition in the answer")
		}
		if err == nil {
			q = cluster.KRaftQuorum{LeaderID: int(p.LeaderID), LeaderEpoch: int(p.LeaderEpoch), HighWatermark: p.HighWatermark}
			for _, v := range p.CurrentVoters {
				q.Voters = append(q.Voters, int(v.ReplicaID))
			}
			slices.Sort(q.Voters)
			asked = true
			break
		}
		if strings.Contains(err.Error(), "broker is too old") {
			err = errors.New("this broker does not answer DescribeQuorum (a ZooKeeper-mode broker): --bootstrap-controller asks the controllers")
		}
		qerr.Addrs, qerr.Errs = append(qerr.Addrs, addr), append(qerr.Errs, err)
		if ctx.Err() != nil {
			break
		}
	}
	if !asked {
		return cluster.KRaftQuorum{}, qerr
	}
	for _, addr := range d.Bootstrap {
		ids, err := askServer(ctx, d, addr, metadataBrokers)
		if err == nil {
			q.Brokers, q.BrokersKnown = ids, true
			break
		}
	}
	return q, nil
}

// QuorumError is DescribeQuorum left unanswered by every server asked:
// Addrs[i] failed with Errs[i].
type QuorumError struct {
	// Controllers is set when the servers were controllers
	// (--bootstrap-controller), not brokers.
	Controllers bool
	Addrs       []string
	Errs        []error
	// Hint says what the failures together suggest ("" when nothing):
	// a quorum without a leader.
	Hint string
}

func (e *QuorumError) Error() string {
	var says []string
	for i, addr := range e.Addrs {
		var pe *PeerError
		if errors.As(e.Errs[i], &pe) {
			says = append(says, pe.Error()) // it names the address
		} else {
			says = append(says, addr+": "+e.Errs[i].Error())
		}
	}
	msg := "DescribeQuorum: " + strings.Join(says, "; ")
	if e.Hint != "" {
		msg += " (" + e.Hint + ")"
	}
	return msg
}

// DiagnoseQuorum explains each server's failure in a QuorumError of
// Quorum(ctx, d, …) by what answers at its address (Diagnose): a
// ZooKeeper server given as a controller, a silent port. Other errors
// come back as they are.
func (d Dial) DiagnoseQuorum(ctx context.Context, err error) error {
	var qe *QuorumError
	if !errors.As(err, &qe) {
		return err
	}
	flag := flagBootstrapServer
	if qe.Controllers {
		flag = flagBootstrapController
	}
	out := &QuorumError{Controllers: qe.Controllers, Addrs: qe.Addrs, Errs: make([]error, len(qe.Errs)), Hint: qe.Hint}
	for i, addr := range qe.Addrs {
		out.Errs[i] = diagnose(ctx, d.Security, flag, []string{addr}, d.timeout(), qe.Errs[i])
	}
	return out
}

// askServer runs ask against the one server at addr (not the brokers a
// client would route to: a controller answers neither Metadata nor
// requests meant for another), with d's security, within d's timeout.
func askServer[T any](ctx context.Context, d Dial, addr string, ask func(context.Context, func(context.Context, kmsg.Request) (kmsg.Response, error)) (T, error)) (T, error) {
	var zero T
	one := d
	one.Bootstrap = []string{addr}
	cl, err := NewClient(one)
	if err != nil {
		return zero, err
	}
	defer cl.Close()
	seeds := cl.SeedBrokers()
	if len(seeds) == 0 {
		return zero, errors.New("not a host:port")
	}
	ctx, cancel := context.WithTimeout(ctx, one.timeout())
	defer cancel()
	return ask(ctx, seeds[0].Request)
}

// metadataBrokers asks for the brokers the metadata lists, ascending.
func metadataBrokers(ctx context.Context, send func(context.Context, kmsg.Request) (kmsg.Response, error)) ([]int, error) {
	req := kmsg.NewPtrMetadataRequest()
	req.Topics = []kmsg.MetadataRequestTopic{}
	raw, err := send(ctx, req)
	if err != nil {
		return nil, err
	}
	resp, ok := raw.(*kmsg.MetadataResponse)
	if !ok {
		return nil, fmt.Errorf("unexpected response %T", raw)
	}
	var ids []int
	for _, b := range resp.Brokers {
		ids = append(ids, int(b.NodeID))
	}
	slices.Sort(ids)
	return ids, nil
}

// ClusterID asks the servers at addrs, one after the other until one
// answers, which cluster they belong to, with d's security: a KRaft
// controller's CONTROLLER listener (controllers set) answers DescribeCluster
// for endpoint type controller (Kafka 3.7+, KIP-919), a broker Metadata.
// from is the address that answered; err says why none did (a controller
// before Kafka 3.7 does not serve DescribeCluster).
func ClusterID(ctx context.Context, d Dial, addrs []string, controllers bool) (id, from string, err error) {
	ask := metadataClusterID
	if controllers {
		ask = controllerClusterID
	}
	var errs []string
	for _, addr := range addrs {
		id, err := askServer(ctx, d, addr, ask)
		if err == nil {
			return id, addr, nil
		}
		errs = append(errs, addr+": "+err.Error())
		if ctx.Err() != nil {
			break
		}
	}
	if len(errs) == 0 {
		return "", "", errors.New("no server to ask")
	}
	return "", "", errors.New(strings.Join(errs, "; "))
}

// endpointController is DescribeCluster's endpoint type of a controller.
const endpointController = 2

// controllerClusterID asks a controller's listener DescribeCluster.
func controllerClusterID(ctx context.Context, send func(context.Context, kmsg.Request) (kmsg.Response, error)) (string, error) {
	req := kmsg.NewPtrDescribeClusterRequest()
	req.EndpointType = endpointController
	raw, err := send(ctx, req)
	if err != nil {
		if strings.Contains(err.Error(), "broker is too old") {
			return "", errors.New("it does not serve DescribeCluster (a controller before Kafka 3.7)")
		}
		return "", fmt.Errorf("DescribeCluster: %w", err)
	}
	resp, ok := raw.(*kmsg.DescribeClusterResponse)
	if !ok {
		return "", fmt.Errorf("unexpected response %T", raw)
	}
	if err := codeError(resp.ErrorCode, resp.ErrorMessage); err != nil {
		return "", fmt.Errorf("DescribeCluster: %w", err)
	}
	return resp.ClusterID, nil
}

// metadataClusterID asks a broker Metadata of no topic for the cluster id.
func metadataClusterID(ctx context.Context, send func(context.Context, kmsg.Request) (kmsg.Response, error)) (string, error) {
	req := kmsg.NewPtrMetadataRequest()
	req.Topics = []kmsg.MetadataRequestTopic{}
	raw, err := send(ctx, req)
	if err != nil {
		return "", fmt.Errorf("Metadata: %w", err)
	}
	resp, ok := raw.(*kmsg.MetadataResponse)
	if !ok {
		return "", fmt.Errorf("unexpected response %T", raw)
	}
	if resp.ClusterID == nil || *resp.ClusterID == "" {
		return "", errors.New("Metadata named no cluster id")
	}
	return *resp.ClusterID, nil
}
