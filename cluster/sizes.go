package cluster

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// Sizes are the replicas' sizes on disk and the brokers' log directories
// at one moment, as Kafka's DescribeLogDirs reports them (each broker for
// itself). A size is a log's local bytes: a tiered topic
// (remote.storage.enable) counts what its brokers hold, not what is in
// remote storage. Sizes are immutable once built (SizesBuilder.Done).
type Sizes struct {
	// At is when the sizes were read.
	At time.Time
	// Err is why no size is known at all ("" when some are): no broker
	// reachable, no Kafka protocol, no access.
	Err string
	// Unreached are the brokers that did not answer, with why.
	Unreached map[int]string
	brokers   map[int]*BrokerDisk
	topics    map[string][]PartitionSize
	// StaleWhy is set on sizes kept after a newer reading failed: why the
	// newer one did not come (Stale).
	StaleWhy string
	// Interval is the time since the sizes before these (0: the first):
	// what PartitionSize.Rate was measured over.
	Interval time.Duration
}

// UnknownSizes are sizes that could not be read, for why.
func UnknownSizes(at time.Time, why string) *Sizes { return &Sizes{At: at, Err: why} }

// Stale is s kept in place of a newer reading that failed (newer says
// why): a screen keeps showing the last sizes, marked as old.
func (s *Sizes) Stale(newer *Sizes) *Sizes {
	c := *s
	c.StaleWhy = newer.Why()
	return &c
}

// Known reports whether any size is known.
func (s *Sizes) Known() bool { return s != nil && s.Err == "" && len(s.brokers) > 0 }

// Why is what a screen says where sizes are missing: "sizes unknown: <why>".
func (s *Sizes) Why() string {
	switch {
	case s == nil:
		return "sizes unknown: not read yet"
	case s.Err != "":
		return "sizes unknown: " + s.Err
	case len(s.brokers) == 0:
		return "sizes unknown: no broker answered"
	}
	return ""
}

// LogDir is one of a broker's log directories.
type LogDir struct {
	Path string
	// Total and Usable are the volume's bytes (KIP-827, Kafka 3.3+); -1
	// when the broker does not report them.
	Total, Usable int64
	// Err is the directory's error ("" when it is online).
	Err string
	// Bytes and Replicas are what the directory holds (future replicas
	// included).
	Bytes    int64
	Replicas int
}

// BrokerDisk is one broker's log directories and what they hold.
type BrokerDisk struct {
	ID   int
	Dirs []LogDir
	// Bytes and Replicas sum the directories'.
	Bytes    int64
	Replicas int
}

// Disk sums the directories' volumes; ok is false when a directory does
// not report them. Directories on one volume count once per directory, as
// Kafka reports them.
func (d *BrokerDisk) Disk() (total, usable int64, ok bool) {
	if len(d.Dirs) == 0 {
		return 0, 0, false
	}
	for _, dir := range d.Dirs {
		if dir.Err != "" {
			continue
		}
		if dir.Total < 0 || dir.Usable < 0 {
			return 0, 0, false
		}
		total += dir.Total
		usable += dir.Usable
	}
	return total, usable, true
}

// ReplicaSize is one replica's log on one broker.
type ReplicaSize struct {
	Broker int32
	// Dir indexes the broker's BrokerDisk.Dirs.
	Dir int16
	// Future is a replica being moved between the broker's directories.
	Future bool
	Bytes  int64
	// OffsetLag is how far the replica's log end is behind the high
	// watermark (a follower), or the leader's high watermark behind its log
	// end; as the broker reports it.
	OffsetLag int64
}

// PartitionSize is a partition's replicas as the brokers reported them.
type PartitionSize struct {
	Replicas []ReplicaSize
	// Rate is how fast the partition grew since the previous sizes, in
	// bytes per second (its largest replica's growth: the produce rate as
	// the disk sees it); RateKnown is false for the first sizes and while
	// retention shrinks the log.
	Rate      float64
	RateKnown bool
}

// Largest is the size of the partition's largest replica that is not a
// future one: the leader's, or an up-to-date follower's.
func (p PartitionSize) Largest() (int64, bool) {
	var n int64 = -1
	for _, r := range p.Replicas {
		if !r.Future && r.Bytes > n {
			n = r.Bytes
		}
	}
	return n, n >= 0
}

// Broker is what broker id reported.
func (s *Sizes) Broker(id int) (*BrokerDisk, bool) {
	if s == nil {
		return nil, false
	}
	b, ok := s.brokers[id]
	return b, ok
}

// BrokerIDs are the brokers that answered, sorted.
func (s *Sizes) BrokerIDs() []int {
	if s == nil {
		return nil
	}
	ids := make([]int, 0, len(s.brokers))
	for id := range s.brokers {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// Partition is what the brokers reported of one partition.
func (s *Sizes) Partition(topic string, partition int) (PartitionSize, bool) {
	if s == nil {
		return PartitionSize{}, false
	}
	ps := s.topics[topic]
	if partition < 0 || partition >= len(ps) || ps[partition].Replicas == nil {
		return PartitionSize{}, false
	}
	return ps[partition], true
}

// PartitionBytes is the partition's size: its largest replica's.
func (s *Sizes) PartitionBytes(topic string, partition int) (int64, bool) {
	p, ok := s.Partition(topic, partition)
	if !ok {
		return 0, false
	}
	return p.Largest()
}

// Replica is the size of the partition's replica on broker (not its
// future one).
func (s *Sizes) Replica(topic string, partition, broker int) (ReplicaSize, bool) {
	p, ok := s.Partition(topic, partition)
	if !ok {
		return ReplicaSize{}, false
	}
	for _, r := range p.Replicas {
		if int(r.Broker) == broker && !r.Future {
			return r, true
		}
	}
	return ReplicaSize{}, false
}

// TopicBytes is the bytes the topic holds on disk over all its replicas
// (Disk) and one copy of it, the sum of its partitions' largest replicas
// (Data). ok is false when no broker reported a replica of it.
func (s *Sizes) TopicBytes(topic string) (disk, data int64, ok bool) {
	if s == nil {
		return 0, 0, false
	}
	for _, p := range s.topics[topic] {
		for _, r := range p.Replicas {
			disk += r.Bytes
			ok = true
		}
		if n, has := p.Largest(); has {
			data += n
		}
	}
	return disk, data, ok
}

// TopicRate is the topic's growth in bytes per second (its partitions'
// known rates).
func (s *Sizes) TopicRate(topic string) (float64, bool) {
	if s == nil {
		return 0, false
	}
	var sum float64
	known := false
	for _, p := range s.topics[topic] {
		if p.RateKnown {
			sum += p.Rate
			known = true
		}
	}
	return sum, known
}

// Topics are the topics with a reported replica, sorted.
func (s *Sizes) Topics() []string {
	if s == nil {
		return nil
	}
	out := make([]string, 0, len(s.topics))
	for t := range s.topics {
		out = append(out, t)
	}
	slices.Sort(out)
	return out
}

// Summary is a one-line account for a status line: "sizes of 6 brokers,
// 3.2 GiB, 12s ago" or the reason they are unknown.
func (s *Sizes) Summary(now time.Time) string {
	if !s.Known() {
		return s.Why()
	}
	var total int64
	for _, b := range s.brokers {
		total += b.Bytes
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "sizes of %d broker%s, %s", len(s.brokers), plural(len(s.brokers)), FormatBytes(total))
	if n := len(s.Unreached); n > 0 {
		fmt.Fprintf(&sb, " (%d not reached)", n)
	}
	if age := now.Sub(s.At).Truncate(time.Second); age >= time.Second {
		fmt.Fprintf(&sb, ", %s ago", age)
	}
	if s.StaleWhy != "" {
		fmt.Fprintf(&sb, " (newer %s)", s.StaleWhy)
	}
	return sb.String()
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// SizesBuilder builds a Sizes from the brokers' answers.
type SizesBuilder struct{ s *Sizes }

// NewSizesBuilder starts sizes read at at.
func NewSizesBuilder(at time.Time) *SizesBuilder {
	return &SizesBuilder{s: &Sizes{At: at, brokers: map[int]*BrokerDisk{}, topics: map[string][]PartitionSize{}}}
}

// Unreached records that broker id did not answer.
func (b *SizesBuilder) Unreached(id int, why string) {
	if b.s.Unreached == nil {
		b.s.Unreached = map[int]string{}
	}
	b.s.Unreached[id] = why
}

// Broker records broker id's directories; the replicas follow with
// Replica, naming a directory by its index in dirs.
func (b *SizesBuilder) Broker(id int, dirs []LogDir) {
	b.s.brokers[id] = &BrokerDisk{ID: id, Dirs: dirs}
}

// Replica records a replica of topic's partition on r.Broker, in the
// directory r.Dir of that broker's.
func (b *SizesBuilder) Replica(topic string, partition int, r ReplicaSize) {
	if partition < 0 {
		return
	}
	ps := b.s.topics[topic]
	if partition >= len(ps) {
		ps = append(ps, make([]PartitionSize, partition+1-len(ps))...)
		b.s.topics[topic] = ps
	}
	ps[partition].Replicas = append(ps[partition].Replicas, r)
	if bd := b.s.brokers[int(r.Broker)]; bd != nil {
		bd.Bytes += r.Bytes
		bd.Replicas++
		if int(r.Dir) >= 0 && int(r.Dir) < len(bd.Dirs) {
			bd.Dirs[r.Dir].Bytes += r.Bytes
			bd.Dirs[r.Dir].Replicas++
		}
	}
}

// Done finishes the sizes; prev (nil for none) are the sizes before, from
// which each partition's growth rate is measured.
func (b *SizesBuilder) Done(prev *Sizes) *Sizes {
	s := b.s
	b.s = nil
	if len(s.brokers) == 0 && s.Err == "" {
		s.Err = "no broker answered"
		if len(s.Unreached) > 0 {
			ids := make([]int, 0, len(s.Unreached))
			for id := range s.Unreached {
				ids = append(ids, id)
			}
			slices.Sort(ids)
			s.Err = fmt.Sprintf("no broker answered (broker %d: %s)", ids[0], s.Unreached[ids[0]])
		}
	}
	for _, ps := range s.topics {
		for i := range ps {
			slices.SortFunc(ps[i].Replicas, func(x, y ReplicaSize) int {
				if x.Broker != y.Broker {
					return int(x.Broker - y.Broker)
				}
				if x.Future != y.Future {
					if x.Future {
						return 1
					}
					return -1
				}
				return 0
			})
		}
	}
	if !prev.Known() || !s.Known() {
		return s
	}
	dt := s.At.Sub(prev.At)
	if dt <= 0 {
		return s
	}
	s.Interval = dt
	for t, ps := range s.topics {
		old := prev.topics[t]
		for i := range ps {
			if i >= len(old) {
				break
			}
			now, ok1 := ps[i].Largest()
			then, ok2 := old[i].Largest()
			switch {
			case !ok1 || !ok2:
			case now >= then:
				ps[i].Rate, ps[i].RateKnown = float64(now-then)/dt.Seconds(), true
			case old[i].RateKnown:
				// Retention dropped a segment: the produce rate is not
				// what the disk shows; keep the one measured before.
				ps[i].Rate, ps[i].RateKnown = old[i].Rate, true
			}
		}
	}
	return s
}

// FormatBytes writes n in binary units: "512 B", "1.5 KiB", "12.3 GiB".
func FormatBytes(n int64) string {
	if n < 0 {
		return "-" + FormatBytes(-n)
	}
	if n < 1024 {
		return fmt.Sprintf("%d B", n)
	}
	units := []string{"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"}
	v := float64(n) / 1024
	u := 0
	for v >= 1024 && u < len(units)-1 {
		v /= 1024
		u++
	}
	switch {
	case v >= 100:
		return fmt.Sprintf("%.0f %s", v, units[u])
	case v >= 10:
		return fmt.Sprintf("%.1f %s", v, units[u])
	}
	return fmt.Sprintf("%.2f %s", v, units[u])
}

// FormatRate writes a byte rate: "1.5 MiB/s".
func FormatRate(bytesPerSecond float64) string {
	return FormatBytes(int64(bytesPerSecond+0.5)) + "/s"
}
