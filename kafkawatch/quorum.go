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
	var errs []string
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
		errs = append(errs, addr+": "+err.Error())
		if ctx.Err() != nil {
			break
		}
	}
	if !asked {
		return cluster.KRaftQuorum{}, fmt.Errorf("DescribeQuorum: %s", strings.Join(errs, "; "))
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
