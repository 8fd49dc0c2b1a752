// Package kraftquorum asks a Kafka cluster for its KRaft metadata quorum
// over the Kafka protocol (DescribeQuorum, franz-go's request types): the
// leader, its epoch, the high watermark of __cluster_metadata and the
// voters. During a ZooKeeper to KRaft migration the high watermark tells
// how far ZooKeeper lags KRaft (/migration holds the last offset the
// controller wrote into ZooKeeper). Like cluster it imports neither Bubble
// Tea nor a ZooKeeper client.
package kraftquorum

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/ktopo/ktopo/cluster"
)

// MetadataTopic is the KRaft metadata log's topic.
const MetadataTopic = "__cluster_metadata"

// Timeout bounds one request to one server.
const Timeout = 5 * time.Second

// Describe asks for the metadata quorum: the controllers at controllers
// (their CONTROLLER listener, where only the leader answers DescribeQuorum),
// else the brokers at brokers (KRaft brokers forward DescribeQuorum to
// the active controller; ZooKeeper-mode brokers, migrating or not, do not
// know the request), one after the other until one answers; and the
// brokers the cluster's metadata lists, from the first broker that
// answers Metadata (a controller does not).
func Describe(ctx context.Context, brokers, controllers []string) (cluster.KRaftQuorum, error) {
	askers := controllers
	if len(askers) == 0 {
		askers = brokers
	}
	if len(askers) == 0 {
		return cluster.KRaftQuorum{}, errors.New("no bootstrap server")
	}
	var q cluster.KRaftQuorum
	var errs []string
	asked := false
	for _, addr := range askers {
		var err error
		if q, err = describeAt(ctx, addr); err == nil {
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
	for _, addr := range brokers {
		if ids, err := brokersAt(ctx, addr); err == nil {
			q.Brokers, q.BrokersKnown = ids, true
			break
		}
	}
	return q, nil
}

// SplitAddrs splits a --bootstrap-server list ("host:port,host:port").
func SplitAddrs(s string) []string {
	var out []string
	for _, a := range strings.Split(s, ",") {
		if a = strings.TrimSpace(a); a != "" {
			out = append(out, a)
		}
	}
	return out
}

// request sends one request to the Kafka server at addr.
func request(ctx context.Context, addr string, req kmsg.Request) (kmsg.Response, error) {
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.DialTimeout(Timeout), kgo.RequestRetries(0), kgo.RetryTimeout(Timeout))
	if err != nil {
		return nil, err
	}
	defer cl.Close()
	seeds := cl.SeedBrokers()
	if len(seeds) == 0 {
		return nil, fmt.Errorf("not a host:port")
	}
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	return seeds[0].Request(ctx, req)
}

func describeAt(ctx context.Context, addr string) (cluster.KRaftQuorum, error) {
	req := kmsg.NewPtrDescribeQuorumRequest()
	t := kmsg.NewDescribeQuorumRequestTopic()
	t.Topic = MetadataTopic
	t.Partitions = append(t.Partitions, kmsg.NewDescribeQuorumRequestTopicPartition())
	req.Topics = append(req.Topics, t)
	resp, err := request(ctx, addr, req)
	if err != nil {
		return cluster.KRaftQuorum{}, err
	}
	r := resp.(*kmsg.DescribeQuorumResponse)
	if err := kerr.ErrorForCode(r.ErrorCode); err != nil {
		return cluster.KRaftQuorum{}, err
	}
	if len(r.Topics) != 1 || len(r.Topics[0].Partitions) != 1 {
		return cluster.KRaftQuorum{}, errors.New("no metadata partition in the answer")
	}
	p := r.Topics[0].Partitions[0]
	if err := kerr.ErrorForCode(p.ErrorCode); err != nil {
		return cluster.KRaftQuorum{}, err
	}
	q := cluster.KRaftQuorum{LeaderID: int(p.LeaderID), LeaderEpoch: int(p.LeaderEpoch), HighWatermark: p.HighWatermark}
	for _, v := range p.CurrentVoters {
		q.Voters = append(q.Voters, int(v.ReplicaID))
	}
	slices.Sort(q.Voters)
	return q, nil
}

// brokersAt asks the broker at addr for the brokers its metadata lists.
func brokersAt(ctx context.Context, addr string) ([]int, error) {
	req := kmsg.NewPtrMetadataRequest()
	req.Topics = []kmsg.MetadataRequestTopic{}
	resp, err := request(ctx, addr, req)
	if err != nil {
		return nil, err
	}
	var ids []int
	for _, b := range resp.(*kmsg.MetadataResponse).Brokers {
		ids = append(ids, int(b.NodeID))
	}
	slices.Sort(ids)
	return ids, nil
}
