package clusterops

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"time"

	"github.com/ktopo/ktopo/cluster"
)

// What a reassignment costs in bytes and time. Each replica a move adds is
// a copy of the partition, fetched from its leader, throttled (when a
// throttle is set, as kafka-reassign-partitions sets it: one rate for every
// broker involved) on both ends: the leader's outgoing bytes of its
// throttled partitions to a follower not in sync, the new replica's
// incoming ones. A partition keeps growing while it is copied, at its
// produce rate, which the follower must copy too; so a broker that sends
// O bytes of partitions growing at G bytes/s under a throttle T takes
// O / (T − G) seconds, and never finishes when G ≥ T.

// MoveBytes is what a list of moves copies, by bytes.
type MoveBytes struct {
	// Total is the bytes copied: each added replica's partition size.
	Total int64
	// In are the bytes each broker receives (its new replicas); Out those
	// each broker sends (the partitions it leads, once per new replica).
	In, Out map[int]int64
	// InRate and OutRate are the produce rates, in bytes per second, of
	// the partitions each broker receives and sends: what it must copy
	// on top of In and Out while the move lasts.
	InRate, OutRate map[int]float64
	// Matrix is the bytes copied from a broker (key [0]) to another ([1]).
	Matrix map[[2]int]int64
	// Partitions counts the moves that copy; Unknown those among them
	// whose size no broker reported (counted as 0 bytes).
	Partitions, Unknown int
	// Known is false when no sizes were known at all.
	Known bool
}

// BytesOfMoves is what moves copy in s by the sizes sz (nil or unknown
// sizes: Known false, every byte count zero).
func BytesOfMoves(s *cluster.Snapshot, sz *cluster.Sizes, moves []PartitionMove) MoveBytes {
	mb := MoveBytes{In: map[int]int64{}, Out: map[int]int64{}, InRate: map[int]float64{}, OutRate: map[int]float64{},
		Matrix: map[[2]int]int64{}, Known: sz.Known()}
	for _, m := range moves {
		adding := m.Adding()
		if len(adding) == 0 {
			continue
		}
		mb.Partitions++
		if !mb.Known {
			continue
		}
		n, ok := sz.PartitionBytes(m.Topic, m.Partition)
		if !ok {
			mb.Unknown++
			continue
		}
		var rate float64
		if ps, ok := sz.Partition(m.Topic, m.Partition); ok && ps.RateKnown {
			rate = ps.Rate
		}
		src := copySource(s, m)
		for _, b := range adding {
			mb.Total += n
			mb.In[b] += n
			mb.InRate[b] += rate
			mb.Out[src] += n
			mb.OutRate[src] += rate
			mb.Matrix[[2]int{src, b}] += n
		}
	}
	return mb
}

// copySource is the broker a move's new replicas copy from: the
// partition's leader, or its first current replica when it has none
// (the copy waits for one).
func copySource(s *cluster.Snapshot, m PartitionMove) int {
	if t := s.Topic(m.Topic); t != nil {
		if p := t.Partition(m.Partition); p != nil && p.HasLeader() {
			return p.Leader
		}
	}
	if len(m.Current) > 0 {
		return m.Current[0]
	}
	return -1
}

// Brokers are the brokers that send or receive, sorted.
func (mb MoveBytes) Brokers() []int {
	var ids []int
	for id := range mb.In {
		ids = append(ids, id)
	}
	for id := range mb.Out {
		if _, ok := mb.In[id]; !ok {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	return ids
}

// ETA is how long a move takes under a throttle.
type ETA struct {
	// Duration is the estimate when Known.
	Duration time.Duration
	// Known is false without a throttle (the network and the disks set
	// the pace) or without sizes.
	Known bool
	// Never: a broker's partitions grow at least as fast as the throttle
	// lets it copy them; the move would not finish.
	Never bool
	// Broker is the broker that takes longest (or, Never, that cannot
	// keep up), and In whether by what it receives.
	Broker int
	In     bool
}

// ETA estimates how long the moves take under throttle (bytes per second
// per broker; < 0: none).
func (mb MoveBytes) ETA(throttle int64) ETA {
	if !mb.Known || throttle <= 0 {
		return ETA{}
	}
	e := ETA{Known: true, Broker: -1}
	var worst float64
	for _, id := range mb.Brokers() {
		for _, side := range []struct {
			bytes int64
			rate  float64
			in    bool
		}{{mb.Out[id], mb.OutRate[id], false}, {mb.In[id], mb.InRate[id], true}} {
			if side.bytes == 0 {
				continue
			}
			left := float64(throttle) - side.rate
			if left <= 0 {
				return ETA{Known: true, Never: true, Broker: id, In: side.in}
			}
			if t := float64(side.bytes) / left; t > worst {
				worst, e.Broker, e.In = t, id, side.in
			}
		}
	}
	e.Duration = time.Duration(worst * float64(time.Second))
	return e
}

// String is the estimate for a preview: "about 4m10s (broker 3
// receiving)", "never: broker 2's partitions grow faster than the
// throttle" or "unthrottled: as fast as the network and disks allow".
func (e ETA) String() string {
	side := func() string {
		if e.In {
			return "receiving"
		}
		return "sending"
	}
	switch {
	case !e.Known:
		return "unknown"
	case e.Never:
		return "never: the partitions broker " + strconv.Itoa(e.Broker) + " is " + side() + " grow faster than the throttle"
	case e.Duration == 0:
		return "nothing to copy"
	}
	if e.Broker < 0 {
		return About(e.Duration)
	}
	return About(e.Duration) + " (broker " + strconv.Itoa(e.Broker) + " " + side() + ")"
}

// About is an estimate of d for a person: "about 4m10s", or "under 1s".
func About(d time.Duration) string {
	if d < time.Second {
		return "under 1s"
	}
	return "about " + FormatDuration(d)
}

// FormatDuration rounds a duration for a person: "45s", "4m10s",
// "2h05m".
func FormatDuration(d time.Duration) string {
	switch {
	case d < time.Second:
		return "under 1s"
	case d < time.Minute:
		return strconv.Itoa(int(d.Round(time.Second)/time.Second)) + "s"
	case d < time.Hour:
		d = d.Round(time.Second)
		return fmt.Sprintf("%dm%02ds", int(d/time.Minute), int(d%time.Minute/time.Second))
	}
	d = d.Round(time.Minute)
	return fmt.Sprintf("%dh%02dm", int(d/time.Hour), int(d%time.Hour/time.Minute))
}

// DiskShortfall is a broker a plan would fill past its log directories'
// usable bytes.
type DiskShortfall struct {
	Broker          int
	Incoming        int64
	Usable          int64
	UsableUnknown   bool
	BrokerUnreached bool
}

// Error is the refusal: "broker 3 would receive 12.0 GiB but its log
// directories have 9.5 GiB usable".
func (d DiskShortfall) Error() string {
	return "broker " + strconv.Itoa(d.Broker) + " would receive " + cluster.FormatBytes(d.Incoming) +
		" but its log directories have " + cluster.FormatBytes(d.Usable) + " usable"
}

// CheckDisk refuses moves that would fill a broker's log directories past
// their usable bytes: every byte a broker receives lands in one of its
// directories, so what it receives must fit in what they have left (a
// broker that does not report its volumes, Kafka before 3.3, is not
// checked). It returns the brokers that would not fit, worst first.
func CheckDisk(sz *cluster.Sizes, mb MoveBytes) []DiskShortfall {
	if !mb.Known {
		return nil
	}
	var out []DiskShortfall
	for id, in := range mb.In {
		d, ok := sz.Broker(id)
		if !ok {
			continue
		}
		_, usable, known := d.Disk()
		if known && in > usable {
			out = append(out, DiskShortfall{Broker: id, Incoming: in, Usable: usable})
		}
	}
	slices.SortFunc(out, func(a, b DiskShortfall) int {
		return cmp.Compare(b.Incoming-b.Usable, a.Incoming-a.Usable)
	})
	return out
}

// BytesAfter is what each broker would hold after moves: what it holds
// now, plus what it receives, less the replicas it gives up.
func BytesAfter(s *cluster.Snapshot, sz *cluster.Sizes, moves []PartitionMove) map[int]int64 {
	out := map[int]int64{}
	if !sz.Known() {
		return out
	}
	for _, id := range sz.BrokerIDs() {
		d, _ := sz.Broker(id)
		out[id] = d.Bytes
	}
	for _, m := range moves {
		n, ok := sz.PartitionBytes(m.Topic, m.Partition)
		if !ok {
			continue
		}
		for _, b := range m.Adding() {
			out[b] += n
		}
		for _, b := range m.Removing() {
			if r, ok := sz.Replica(m.Topic, m.Partition, b); ok {
				out[b] -= r.Bytes
			}
		}
	}
	return out
}

// HeavyBytes are the brokers moves leave holding more than 1.5× the mean
// bytes of the live brokers that hold any, and more than 1 MiB above it,
// with the mean.
func HeavyBytes(s *cluster.Snapshot, sz *cluster.Sizes, moves []PartitionMove) ([]int, float64) {
	return heavyBytesOf(s, BytesAfter(s, sz, moves))
}

// heavyBytesOf is HeavyBytes of the brokers' bytes after the moves. A
// broker left holding nothing (the one a drain empties) is not in the
// mean: it would make every other broker look heavier.
func heavyBytesOf(s *cluster.Snapshot, after map[int]int64) ([]int, float64) {
	if len(after) < 2 {
		return nil, 0
	}
	var sum float64
	n := 0
	for id, b := range after {
		if s.IsLive(id) && b > 0 {
			sum += float64(b)
			n++
		}
	}
	if n < 2 || sum == 0 {
		return nil, 0
	}
	mean := sum / float64(n)
	var out []int
	for id, b := range after {
		if s.IsLive(id) && float64(b) > 1.5*mean && float64(b)-mean > 1<<20 {
			out = append(out, id)
		}
	}
	slices.Sort(out)
	return out, mean
}

// MoveProgress is how far the copies of a reassignment have got, by
// bytes, measured on the new replicas' sizes.
type MoveProgress struct {
	// At is when the sizes were read.
	At time.Time
	// Copied and Total are over every move; a move the cluster finished
	// counts whole.
	Copied, Total int64
	// Partitions are the moves still copying, with their own counts.
	Partitions []PartitionCopy
	// Known is false without sizes.
	Known bool
}

// PartitionCopy is one moving partition's copies.
type PartitionCopy struct {
	cluster.TopicPartition
	Copied, Total int64
}

// Percent is how much is copied, 0–100 (100 when nothing is to copy).
func (p MoveProgress) Percent() float64 {
	if p.Total <= 0 {
		return 100
	}
	return math.Min(100, 100*float64(p.Copied)/float64(p.Total))
}

// ProgressOf measures moves in s by the sizes sz: for each move the
// cluster still runs (its partition lists adding replicas), each new
// replica's size against the partition's largest; a move no longer
// running counts as copied.
func ProgressOf(s *cluster.Snapshot, sz *cluster.Sizes, moves []PartitionMove) MoveProgress {
	pr := MoveProgress{Known: sz.Known()}
	if !pr.Known {
		return pr
	}
	pr.At = sz.At
	for _, m := range moves {
		n, ok := sz.PartitionBytes(m.Topic, m.Partition)
		if !ok {
			continue
		}
		var adding []int
		if t := s.Topic(m.Topic); t != nil {
			if p := t.Partition(m.Partition); p != nil {
				adding = p.Adding()
			}
		}
		planned := len(m.Adding())
		if len(adding) == 0 {
			pr.Copied += n * int64(planned)
			pr.Total += n * int64(planned)
			continue
		}
		pp := PartitionCopy{TopicPartition: m.TopicPartition}
		for _, b := range adding {
			pp.Total += n
			if r, ok := sz.Replica(m.Topic, m.Partition, b); ok {
				pp.Copied += min(r.Bytes, n)
			}
		}
		// New replicas already in sync are copied whole.
		if done := planned - len(adding); done > 0 {
			pr.Copied += n * int64(done)
			pr.Total += n * int64(done)
		}
		pr.Copied += pp.Copied
		pr.Total += pp.Total
		pr.Partitions = append(pr.Partitions, pp)
	}
	return pr
}

// Reestimate is the time left: the bytes left at the copy rate measured
// since prev (an earlier progress of the same moves), or, before there is
// one, at the throttle's pace (est, the preview's estimate of the whole,
// scaled to what is left).
func (p MoveProgress) Reestimate(prev *MoveProgress, est ETA) ETA {
	left := p.Total - p.Copied
	if left <= 0 {
		return ETA{Known: true}
	}
	if prev != nil && prev.Known && p.At.After(prev.At) && p.Copied > prev.Copied {
		rate := float64(p.Copied-prev.Copied) / p.At.Sub(prev.At).Seconds()
		return ETA{Known: true, Duration: time.Duration(float64(left) / rate * float64(time.Second)), Broker: -1}
	}
	if !est.Known || est.Never || p.Total == 0 {
		return est
	}
	est.Duration = time.Duration(float64(est.Duration) * float64(left) / float64(p.Total))
	return est
}
