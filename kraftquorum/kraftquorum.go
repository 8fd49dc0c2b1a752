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

// Describe asks the servers at addrs (brokers, which forward
// DescribeQuorum to the active controller, or controllers' CONTROLLER
// listeners, where only the leader answers), one after the other until
// one answers, for the metadata quorum, and the server that answered for
// the brokers the metadata lists (Metadata; a controller does not say).
func Describe(ctx context.Context, addrs []string) (cluster.KRaftQuorum, error) {
	if len(addrs) == 0 {
		return cluster.KRaftQuorum{}, errors.New("no bootstrap server")
	}
	var errs []string
	for _, addr := range addrs {
		q, err := describeAt(ctx, addr)
		if err == nil {
			return q, nil
		}
		errs = append(errs, addr+": "+err.Error())
		if ctx.Err() != nil {
			break
		}
	}
	return cluster.KRaftQuorum{}, fmt.Errorf("DescribeQuorum: %s", strings.Join(errs, "; "))
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

func describeAt(ctx context.Context, addr string) (cluster.KRaftQuorum, error) {
	req := kmsg.NewPtrDescribeQuorumRequest()
	t := kmsg.NewDescribeQuorumRequestTopic()
	t.Topic = MetadataTopic
	t.Partitions = append(t.Partitions, kmsg.NewDescribeQuorumRequestTopicPartition())
	req.Topics = append(req.Topics, t)
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.DialTimeout(Timeout), kgo.RequestRetries(0), kgo.RetryTimeout(Timeout))
	if err != nil {
		return cluster.KRaftQuorum{}, err
	}
	defer cl.Close()
	seeds := cl.SeedBrokers()
	if len(seeds) == 0 {
		return cluster.KRaftQuorum{}, fmt.Errorf("not a host:port")
	}
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	resp, err := seeds[0].Request(ctx, req)
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
	// The brokers the metadata lists: a broker answers Metadata (a
	// controller does not; the brokers are then unknown).
	mreq := kmsg.NewPtrMetadataRequest()
	mreq.Topics = []kmsg.MetadataRequestTopic{}
	if resp, err := seeds[0].Request(ctx, mreq); err == nil {
		q.BrokersKnown = true
		for _, b := range resp.(*kmsg.MetadataResponse).Brokers {
			q.Brokers = append(q.Brokers, int(b.NodeID))
		}
		slices.Sort(q.Brokers)
	}
	return q, nil
}
