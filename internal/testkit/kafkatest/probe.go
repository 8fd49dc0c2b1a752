package kafkatest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// The readiness checks of the KRaft rigs ask the nodes themselves over the
// Kafka protocol (franz-go's request types): the quorum's leader answers
// DescribeQuorum on its CONTROLLER listener (KIP-919, Kafka 3.7+), and a
// KRaft broker's Metadata lists the brokers it knows registered and
// unfenced (fenced ones are left out).

// Quorum is the metadata quorum as its leader describes it
// (DescribeQuorum): what kafka-metadata-quorum describe --status and
// --replication print.
type Quorum struct {
	// LeaderID is the active controller's node id (-1: none).
	LeaderID int
	// LeaderEpoch is the leader's epoch (the KRaft controller epoch).
	LeaderEpoch int
	// HighWatermark is the metadata log's committed offset.
	HighWatermark int64
	// Voters are the controllers; Observers the brokers (and, during a
	// migration, the ZooKeeper-mode brokers do not appear at all).
	Voters, Observers []Replica
}

// Replica is one replica of the metadata log, as the leader sees it.
type Replica struct {
	ID           int
	LogEndOffset int64
	// LastFetch is when it last fetched from the leader (zero for the
	// leader itself or when unknown).
	LastFetch time.Time
	// LastCaughtUp is when it was last caught up with the leader.
	LastCaughtUp time.Time
}

// describeQuorum asks the controllers at addrs, one after the other, for
// the quorum: only the leader answers it.
func describeQuorum(ctx context.Context, addrs []string) (Quorum, error) {
	last := errors.New("no controller to ask")
	for _, addr := range addrs {
		q, err := describeQuorumAt(ctx, addr)
		if err == nil {
			return q, nil
		}
		last = fmt.Errorf("%s: %w", addr, err)
	}
	return Quorum{LeaderID: -1}, last
}

func describeQuorumAt(ctx context.Context, addr string) (Quorum, error) {
	req := kmsg.NewPtrDescribeQuorumRequest()
	t := kmsg.NewDescribeQuorumRequestTopic()
	t.Topic = "__cluster_metadata"
	p := kmsg.NewDescribeQuorumRequestTopicPartition()
	t.Partitions = append(t.Partitions, p)
	req.Topics = append(req.Topics, t)
	resp, err := requestAt(ctx, addr, req)
	if err != nil {
		return Quorum{}, err
	}
	r := resp.(*kmsg.DescribeQuorumResponse)
	if err := kerr.ErrorForCode(r.ErrorCode); err != nil {
		return Quorum{}, err
	}
	if len(r.Topics) != 1 || len(r.Topics[0].Partitions) != 1 {
		return Quorum{}, fmt.Errorf("DescribeQuorum: no partition in the answer")
	}
	part := r.Topics[0].Partitions[0]
	if err := kerr.ErrorForCode(part.ErrorCode); err != nil {
		return Quorum{}, err
	}
	q := Quorum{LeaderID: int(part.LeaderID), LeaderEpoch: int(part.LeaderEpoch), HighWatermark: part.HighWatermark}
	conv := func(rs []kmsg.DescribeQuorumResponseTopicPartitionReplicaState) []Replica {
		var out []Replica
		for _, s := range rs {
			out = append(out, Replica{ID: int(s.ReplicaID), LogEndOffset: s.LogEndOffset,
				LastFetch: millis(s.LastFetchTimestamp), LastCaughtUp: millis(s.LastCaughtUpTimestamp)})
		}
		return out
	}
	q.Voters, q.Observers = conv(part.CurrentVoters), conv(part.Observers)
	return q, nil
}

func millis(ms int64) time.Time {
	if ms <= 0 {
		return time.Time{}
	}
	return time.UnixMilli(ms)
}

// Voter returns the voter with id (false if none).
func (q Quorum) Voter(id int) (Replica, bool) {
	i := slices.IndexFunc(q.Voters, func(r Replica) bool { return r.ID == id })
	if i < 0 {
		return Replica{}, false
	}
	return q.Voters[i], true
}

// LeaderEndOffset is the leader's log end offset (what the rest of the
// quorum catches up to): it moves with every metadata change.
func (q Quorum) LeaderEndOffset() int64 {
	if r, ok := q.Voter(q.LeaderID); ok {
		return r.LogEndOffset
	}
	return -1
}

// brokerView is what one broker's Metadata answer says: the brokers it
// knows registered and unfenced, and the controller id it reports (in
// KRaft mode a random live broker, in ZooKeeper mode the controller).
type brokerView struct {
	brokers    []int
	controller int
}

// metadataAt asks the broker at addr for its Metadata (no topics).
func metadataAt(ctx context.Context, addr string) (brokerView, error) {
	req := kmsg.NewPtrMetadataRequest()
	req.Topics = []kmsg.MetadataRequestTopic{}
	resp, err := requestAt(ctx, addr, req)
	if err != nil {
		return brokerView{}, err
	}
	r := resp.(*kmsg.MetadataResponse)
	v := brokerView{controller: int(r.ControllerID)}
	for _, b := range r.Brokers {
		v.brokers = append(v.brokers, int(b.NodeID))
	}
	slices.Sort(v.brokers)
	return v, nil
}

// brokersSee checks that each of brokers answers Metadata listing exactly
// want as live (in KRaft mode: registered and unfenced) and, when ctrl >= 0,
// naming ctrl as the controller (a KRaft broker names a random live broker,
// so KRaft callers pass -1). "" when all do, else why not.
func brokersSee(brokers []*Node, want []int, ctrl int) string {
	for _, b := range brokers {
		v, err := metadataAt(context.Background(), b.Addr())
		switch {
		case err != nil:
			return fmt.Sprintf("broker %d does not answer Metadata: %v", b.ID, err)
		case ctrl >= 0 && v.controller != ctrl:
			return fmt.Sprintf("broker %d names controller %d, not %d", b.ID, v.controller, ctrl)
		case !slices.Equal(v.brokers, want):
			return fmt.Sprintf("broker %d sees brokers %v live, running %v", b.ID, v.brokers, want)
		}
	}
	return ""
}

// requestAt sends one request to the Kafka server at addr (a broker or a
// controller listener) and returns its answer.
func requestAt(ctx context.Context, addr string, req kmsg.Request) (kmsg.Response, error) {
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.DialTimeout(3*time.Second),
		kgo.RequestRetries(0), kgo.RetryTimeout(time.Second))
	if err != nil {
		return nil, err
	}
	defer cl.Close()
	seeds := cl.SeedBrokers()
	if len(seeds) == 0 {
		return nil, fmt.Errorf("no seed broker for %s", addr)
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	return seeds[0].Request(ctx, req)
}

// WaitTopicKnown waits until every broker of nodes that is running
// answers Metadata with topic, every partition led: what a client asking
// any broker about it (kafka-configs --bootstrap-server, a producer)
// needs; a controller writes the topic before the brokers learn it.
func WaitTopicKnown(nodes []*Node, topic string, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		why := ""
		for _, n := range nodes {
			if !n.Running() || !n.Role.IsBroker() {
				continue
			}
			if why = topicAt(n, topic); why != "" {
				break
			}
		}
		if why == "" {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("kafkatest: after %s, %s", timeout, why)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// topicAt says why broker n does not know topic with every partition
// led ("" when it does).
func topicAt(n *Node, topic string) string {
	req := kmsg.NewPtrMetadataRequest()
	rt := kmsg.NewMetadataRequestTopic()
	rt.Topic = kmsg.StringPtr(topic)
	req.Topics = []kmsg.MetadataRequestTopic{rt}
	resp, err := requestAt(context.Background(), n.Addr(), req)
	if err != nil {
		return fmt.Sprintf("broker %d does not answer Metadata: %v", n.ID, err)
	}
	for _, t := range resp.(*kmsg.MetadataResponse).Topics {
		if t.ErrorCode != 0 || len(t.Partitions) == 0 {
			return fmt.Sprintf("broker %d does not know %s (error %d)", n.ID, topic, t.ErrorCode)
		}
		for _, p := range t.Partitions {
			if p.Leader < 0 {
				return fmt.Sprintf("broker %d knows no leader of %s-%d", n.ID, topic, p.Partition)
			}
		}
	}
	return ""
}
