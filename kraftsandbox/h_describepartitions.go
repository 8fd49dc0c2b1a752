package kraftsandbox

import (
	"slices"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

func init() {
	handlerSets = append(handlerSets, map[int16]handler{
		kmsg.DescribeTopicPartitions.Int16(): (*Cluster).describeTopicPartitions,
	})
}

// maxRequestPartitionSizeLimit is Kafka's
// max.request.partition.size.limit: the most partitions one
// DescribeTopicPartitions response holds.
const maxRequestPartitionSizeLimit = 2000

// describeTopicPartitions answers DescribeTopicPartitions (KIP-966) as
// Kafka 4.4's DescribeTopicPartitionsRequestHandler does: the topics
// asked for (every topic when none is named), by name, from the cursor
// on, at most min(ResponsePartitionLimit, 2000) partitions, with a next
// cursor when more remain; each partition's leader, replicas, ISR,
// eligible leader replicas and last known ELR. A named topic that does
// not exist is UNKNOWN_TOPIC_OR_PARTITION.
func (c *Cluster) describeTopicPartitions(r *request) (kmsg.Response, error) {
	req := r.req.(*kmsg.DescribeTopicPartitionsRequest)
	resp := req.ResponseKind().(*kmsg.DescribeTopicPartitionsResponse)
	c.mu.Lock()
	defer c.mu.Unlock()
	// The topics by name: every topic's kept order when none is named
	// (sortedTopics), else the names asked for, sorted; from the cursor's
	// topic on (a binary search, so that walking a million partitions a
	// page at a time stays linear).
	var names []string
	if len(req.Topics) == 0 {
		ts := c.sortedTopics()
		names = make([]string, len(ts))
		for i, t := range ts {
			names[i] = t.name
		}
	} else {
		for _, t := range req.Topics {
			names = append(names, t.Topic)
		}
		if !slices.IsSorted(names) {
			slices.Sort(names)
		}
		names = slices.Compact(names)
	}
	limit := min(int(req.ResponsePartitionLimit), maxRequestPartitionSizeLimit)
	if limit <= 0 {
		limit = maxRequestPartitionSizeLimit
	}
	startTopic, startPart := "", 0
	if req.Cursor != nil {
		startTopic, startPart = req.Cursor.Topic, int(req.Cursor.Partition)
	}
	left := limit
	from, _ := slices.BinarySearch(names, startTopic)
	for _, name := range names[from:] {
		t := c.topics[name]
		if t == nil {
			rt := kmsg.NewDescribeTopicPartitionsResponseTopic()
			rt.Topic, rt.ErrorCode = &name, kerr.UnknownTopicOrPartition.Code
			resp.Topics = append(resp.Topics, rt)
			continue
		}
		first := 0
		if name == startTopic {
			first = startPart
		}
		if left == 0 {
			resp.NextCursor = &kmsg.DescribeTopicPartitionsResponseNextCursor{Topic: name, Partition: int32(first)}
			break
		}
		rt := kmsg.NewDescribeTopicPartitionsResponseTopic()
		rt.Topic, rt.TopicID, rt.IsInternal = &t.name, t.id, isInternal(t.name)
		rt.AuthorizedOperations = allTopicOperations
		for i := first; i < len(t.parts); i++ {
			if left == 0 {
				resp.NextCursor = &kmsg.DescribeTopicPartitionsResponseNextCursor{Topic: name, Partition: int32(i)}
				break
			}
			left--
			rt.Partitions = append(rt.Partitions, c.describePartition(i, t.parts[i]))
		}
		resp.Topics = append(resp.Topics, rt)
		if resp.NextCursor != nil {
			break
		}
	}
	return resp, nil
}

// describePartition is one partition of a DescribeTopicPartitions
// response. c.mu is held.
func (c *Cluster) describePartition(i int, p *partition) kmsg.DescribeTopicPartitionsResponseTopicPartition {
	rp := kmsg.NewDescribeTopicPartitionsResponseTopicPartition()
	rp.Partition, rp.LeaderID, rp.LeaderEpoch = int32(i), p.leader, p.leaderEpoch
	rp.Replicas, rp.ISR = orEmpty(p.replicas), orEmpty(p.isr)
	rp.EligibleLeaderReplicas, rp.LastKnownELR = orEmpty(p.elr), orEmpty(p.lastKnownELR)
	rp.OfflineReplicas = []int32{}
	for _, id := range p.replicas {
		if !c.usable(id) {
			rp.OfflineReplicas = append(rp.OfflineReplicas, id)
		}
	}
	if p.leader < 0 {
		rp.ErrorCode = kerr.LeaderNotAvailable.Code
	}
	return rp
}

// orEmpty is a copy of ids, an empty list rather than nil.
func orEmpty(ids []int32) []int32 { return append([]int32{}, ids...) }

// isInternal says whether a topic is one of Kafka's internal topics.
func isInternal(name string) bool {
	return name == "__consumer_offsets" || name == "__transaction_state"
}
