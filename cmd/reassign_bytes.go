package cmd

// What a reassignment moves in bytes, read from the brokers' log
// directories (DescribeLogDirs): printed by --generate and --execute after
// their own output, with the time it takes under --throttle, and, by
// --verify and --list, how far the copies have got.

import (
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/clusterops"
)

// writeMoveBytes prints what moves copy ("Bytes to move: …", in and out
// per broker) and how long they take under throttle (< 0: none), or on
// errOut why that is unknown. It
// refuses, with the brokers named, moves that would fill a broker's log
// directories past their usable bytes (clusterops.CheckDisk).
func writeMoveBytes(out, errOut io.Writer, s *cluster.Snapshot, sz *cluster.Sizes, moves []clusterops.PartitionMove, throttle int64) error {
	mb := clusterops.BytesOfMoves(s, sz, moves)
	if !mb.Known {
		// Standard output stays as without sizes; the note says why.
		_, err := fmt.Fprintf(errOut, "Note: bytes to move unknown: %s\n", sz.Why())
		return err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Bytes to move: %s (%d bytes)", cluster.FormatBytes(mb.Total), mb.Total)
	if ids := mb.Brokers(); len(ids) > 0 {
		parts := make([]string, 0, len(ids))
		for _, id := range ids {
			parts = append(parts, fmt.Sprintf("%d: in %s, out %s", id, cluster.FormatBytes(mb.In[id]), cluster.FormatBytes(mb.Out[id])))
		}
		b.WriteString("; in/out per broker: " + strings.Join(parts, "; "))
	}
	b.WriteString("\n")
	if mb.Unknown > 0 {
		fmt.Fprintf(&b, "Note: no broker reported the size of %d of the %d partitions that copy (counted as 0 bytes).\n", mb.Unknown, mb.Partitions)
	}
	if n := len(sz.Unreached); n > 0 {
		b.WriteString(strings.TrimSuffix(sizesNoteLine(sz), "\n") + "\n")
	}
	switch {
	case mb.Total == 0:
	case throttle < 0:
		b.WriteString("Estimated time: no --throttle, the copies go as fast as the network and the disks allow.\n")
	default:
		fmt.Fprintf(&b, "Estimated time at --throttle %d B/s: %s\n", throttle, mb.ETA(throttle))
	}
	if _, err := io.WriteString(out, b.String()); err != nil {
		return err
	}
	if short := clusterops.CheckDisk(sz, mb); len(short) > 0 {
		msgs := make([]string, 0, len(short))
		for _, d := range short {
			msgs = append(msgs, d.Error())
		}
		return errors.New("refusing the reassignment: " + strings.Join(msgs, "; ") + ": free space there, or move fewer partitions to it")
	}
	return nil
}

// sizesNoteLine names the brokers that did not report their sizes.
func sizesNoteLine(sz *cluster.Sizes) string {
	ids := make([]int, 0, len(sz.Unreached))
	for id := range sz.Unreached {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	parts := make([]string, 0, len(ids))
	for _, id := range ids {
		parts = append(parts, fmt.Sprintf("broker %d: %s", id, sz.Unreached[id]))
	}
	return "Note: sizes incomplete, not answered by " + strings.Join(parts, "; ")
}

// runningMoves are the moves of the reassignments in progress (all of
// them, or those of rs when given), and, for rs, its partitions whose
// reassignment has finished, told from the throttled replicas lists
// --execute left on their topics (the leader list names the replicas a
// partition had): without those lists a finished partition counts as
// nothing to copy.
func runningMoves(s *cluster.Snapshot, rs []cluster.Reassignment) (moves, pending []clusterops.PartitionMove) {
	running := map[cluster.TopicPartition]clusterops.ListedReassignment{}
	for _, l := range clusterops.ListReassignments(s) {
		if l.Started {
			running[l.TopicPartition] = l
		}
	}
	if rs == nil {
		for tp, l := range running {
			moves = append(moves, clusterops.PartitionMove{TopicPartition: tp, Current: l.RevertsTo(), Target: l.Target()})
		}
	}
	for _, r := range rs {
		if l, ok := running[r.TopicPartition]; ok {
			moves = append(moves, clusterops.PartitionMove{TopicPartition: r.TopicPartition, Current: l.RevertsTo(), Target: l.Target()})
			continue
		}
		before := throttledLeaders(s, r.TopicPartition)
		if len(before) == 0 {
			continue
		}
		m := clusterops.PartitionMove{TopicPartition: r.TopicPartition, Current: before, Target: r.Replicas}
		if holds(s, r.TopicPartition, r.Replicas) {
			moves = append(moves, m) // done: copied whole
		} else {
			// Not started yet (ZooKeeper's controller has not taken the
			// request up): nothing copied.
			pending = append(pending, m)
		}
	}
	slices.SortFunc(moves, func(a, b clusterops.PartitionMove) int {
		return cluster.CompareTopicPartitions(a.TopicPartition, b.TopicPartition)
	})
	return moves, pending
}

// holds reports whether the partition's replicas are replicas (as a set).
func holds(s *cluster.Snapshot, tp cluster.TopicPartition, replicas []int) bool {
	t := s.Topic(tp.Topic)
	if t == nil {
		return false
	}
	p := t.Partition(tp.Partition)
	if p == nil || len(p.Replicas) != len(replicas) {
		return false
	}
	for _, id := range replicas {
		if !slices.Contains(p.Replicas, id) {
			return false
		}
	}
	return true
}

// throttledLeaders are the brokers the topic's
// leader.replication.throttled.replicas names for the partition.
func throttledLeaders(s *cluster.Snapshot, tp cluster.TopicPartition) []int {
	t := s.Topic(tp.Topic)
	if t == nil {
		return nil
	}
	v, ok := t.ConfigValue(cluster.ConfigLeaderThrottledReplicas)
	if !ok {
		return nil
	}
	var out []int
	for _, e := range strings.Split(v, ",") {
		p, b, ok := strings.Cut(strings.TrimSpace(e), ":")
		if !ok || p != strconv.Itoa(tp.Partition) {
			continue
		}
		if id, err := strconv.Atoi(b); err == nil {
			out = append(out, id)
		}
	}
	return out
}

// brokerThrottle is the throttle the brokers that copy have (the least
// of their leader and follower rates), -1 when none has one.
func brokerThrottle(s *cluster.Snapshot, mb clusterops.MoveBytes) int64 {
	var least int64 = -1
	for _, id := range mb.Brokers() {
		entries, _ := s.BrokerConfig(strconv.Itoa(id))
		for _, e := range entries {
			if e.Key != cluster.ConfigLeaderThrottledRate && e.Key != cluster.ConfigFollowerThrottledRate {
				continue
			}
			if n, err := strconv.ParseInt(e.Value, 10, 64); err == nil && n > 0 && (least < 0 || n < least) {
				least = n
			}
		}
	}
	return least
}

// writeProgress prints how far moves have copied, by the new replicas'
// sizes, and the time left ("Progress by bytes: …"), after a blank line;
// nothing when the moves copy no byte (empty partitions, or all done).
func writeProgress(out io.Writer, s *cluster.Snapshot, sz *cluster.Sizes, moves, pending []clusterops.PartitionMove) error {
	if len(moves)+len(pending) == 0 {
		return nil
	}
	if !sz.Known() {
		// Kafka's lines alone, as without sizes; why is in the log.
		kafkaLogger().Printf("progress by bytes: %s", sz.Why())
		return nil
	}
	pr := clusterops.ProgressOf(s, sz, moves)
	// A move the controller has not started has copied nothing yet (its
	// new replicas are empty), which ProgressOf, reading the partition as
	// not moving, would count as done.
	for _, m := range pending {
		n, ok := sz.PartitionBytes(m.Topic, m.Partition)
		if !ok {
			continue
		}
		pp := clusterops.PartitionCopy{TopicPartition: m.TopicPartition}
		for _, b := range m.Adding() {
			pp.Total += n
			if r, ok := sz.Replica(m.Topic, m.Partition, b); ok {
				pp.Copied += min(r.Bytes, n)
			}
		}
		pr.Copied += pp.Copied
		pr.Total += pp.Total
		pr.Partitions = append(pr.Partitions, pp)
	}
	if pr.Total == 0 {
		return nil
	}
	mb := clusterops.BytesOfMoves(s, sz, append(slices.Clone(moves), pending...))
	throttle := brokerThrottle(s, mb)
	eta := pr.Reestimate(nil, mb.ETA(throttle))
	var b strings.Builder
	fmt.Fprintf(&b, "\nProgress by bytes: %s of %s copied (%s)", cluster.FormatBytes(pr.Copied), cluster.FormatBytes(pr.Total), percent(pr.Percent()))
	switch {
	case pr.Copied >= pr.Total:
	case eta.Known && !eta.Never:
		fmt.Fprintf(&b, ", %s left at the throttle of %d B/s", strings.TrimPrefix(eta.String(), "about "), throttle)
	case eta.Never:
		b.WriteString(", " + eta.String())
	default:
		b.WriteString(", unthrottled")
	}
	b.WriteString("\n")
	for _, p := range pr.Partitions {
		pct := 100.0
		if p.Total > 0 {
			pct = math.Min(100, 100*float64(p.Copied)/float64(p.Total))
		}
		fmt.Fprintf(&b, "  %s: %s of %s copied (%s)\n", p.TopicPartition, cluster.FormatBytes(p.Copied), cluster.FormatBytes(p.Total), percent(pct))
	}
	if len(sz.Unreached) > 0 {
		b.WriteString(sizesNoteLine(sz) + "\n")
	}
	_, err := io.WriteString(out, b.String())
	return err
}

// percent writes a progress percentage, never rounding up to 100 before
// the end.
func percent(p float64) string {
	v := math.Floor(p*10) / 10
	return strconv.FormatFloat(v, 'f', 1, 64) + "%"
}
