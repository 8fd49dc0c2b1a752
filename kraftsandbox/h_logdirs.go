package kraftsandbox

import (
	"slices"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// DescribeLogDirs as a Kafka 4.4 broker answers it: the broker asked
// describes its own log directories only (each with its volume's total
// and usable bytes from v4, and whether it is cordoned from v5,
// KIP-1066) and the replicas it holds in them:
//
//   - a replica in the ISR (or the leader) holds the partition's size;
//   - a replica being added by a reassignment, or out of the ISR and
//     catching up, holds what it has copied so far (partition.copied,
//     which the replication's tick advances), and its OffsetLag is the
//     offsets it is behind the high watermark;
//   - IsFuture is false (the sandbox does not move replicas between a
//     broker's directories);
//   - Topics nil asks for every replica; a topic or partition the broker
//     does not hold is left out, as Kafka does.
//
// Usable bytes are the directory's total less what its replicas hold.

func init() {
	handlerSets = append(handlerSets, map[int16]handler{
		kmsg.DescribeLogDirs.Int16(): (*Cluster).describeLogDirs,
	})
}

// replicaBytes is what broker id's replica of p holds, in bytes, and how
// many offsets it is behind the high watermark. c.mu is held.
func (p *partition) replicaBytes(id int32) (size, offsetLag int64) {
	inSync := p.leader == id || slices.Contains(p.isr, id)
	if inSync {
		return int64(p.size), 0
	}
	copied, ok := p.copied[id]
	if !ok {
		if slices.Contains(p.adding, id) {
			copied = 0
		} else {
			// Out of the ISR without a copy under way (its broker is
			// fenced or was): it holds what it had.
			return int64(p.size), 0
		}
	}
	copied = min(copied, p.size)
	size = int64(copied)
	if p.size > 0 {
		var hw int64
		if p.log != nil {
			hw = p.log.hw
		} else {
			hw = int64(p.size / simulatedRecordBytes)
		}
		offsetLag = int64(float64(hw) * (1 - copied/p.size))
	}
	return size, max(offsetLag, 0)
}

// simulatedRecordBytes is the size of a simulated record, to turn the
// simulated bytes into offsets.
const simulatedRecordBytes = 1024

// heldBytes is what broker b's replicas hold in directory dir (the only
// one, dirs[0], holds them all). c.mu is held.
func (c *Cluster) heldBytes(b *broker) int64 {
	var n int64
	c.forEachPartition(func(t *topic, p *partition) {
		if slices.Contains(p.replicas, b.id) {
			s, _ := p.replicaBytes(b.id)
			n += s
		}
	})
	return n
}

// describeLogDirs answers DescribeLogDirs on a broker's listener.
func (c *Cluster) describeLogDirs(r *request) (kmsg.Response, error) {
	req := r.req.(*kmsg.DescribeLogDirsRequest)
	resp := req.ResponseKind().(*kmsg.DescribeLogDirsResponse)
	c.mu.Lock()
	defer c.mu.Unlock()
	b := c.broker(r.node.id)
	if b == nil {
		return resp, nil
	}
	var want map[string][]int32
	if req.Topics != nil {
		want = map[string][]int32{}
		for _, t := range req.Topics {
			want[t.Topic] = append(want[t.Topic], t.Partitions...)
		}
	}
	held := c.heldBytes(b)
	for i, d := range b.dirs {
		rd := kmsg.NewDescribeLogDirsResponseDir()
		rd.Dir = d.path
		if req.Version >= 4 {
			rd.TotalBytes, rd.UsableBytes = d.total, max(d.total-held, 0)
		}
		rd.IsCordoned = d.cordoned
		if i == 0 {
			rd.Topics = c.logDirTopics(b.id, want)
		}
		resp.Dirs = append(resp.Dirs, rd)
	}
	return resp, nil
}

// logDirTopics are the replicas broker id holds, of the partitions asked
// for (want nil: all), topics by name. c.mu is held.
func (c *Cluster) logDirTopics(id int32, want map[string][]int32) []kmsg.DescribeLogDirsResponseDirTopic {
	var out []kmsg.DescribeLogDirsResponseDirTopic
	var cur *kmsg.DescribeLogDirsResponseDirTopic
	c.forEachPartition(func(t *topic, p *partition) {
		if !slices.Contains(p.replicas, id) {
			return
		}
		part := int32(slices.Index(t.parts, p))
		if want != nil {
			ps, ok := want[t.name]
			if !ok || !slices.Contains(ps, part) {
				return
			}
		}
		if cur == nil || cur.Topic != t.name {
			out = append(out, kmsg.NewDescribeLogDirsResponseDirTopic())
			cur = &out[len(out)-1]
			cur.Topic = t.name
		}
		rp := kmsg.NewDescribeLogDirsResponseDirTopicPartition()
		rp.Partition = part
		rp.Size, rp.OffsetLag = p.replicaBytes(id)
		cur.Partitions = append(cur.Partitions, rp)
	})
	return out
}
