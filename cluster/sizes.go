package cluster

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
	"unsafe"
)

// Sizes are the replicas' sizes on disk and the brokers' log directories
// at one moment, as Kafka's DescribeLogDirs reports them (each broker for
// itself). A size is a log's local bytes: a tiered topic
// (remote.storage.enable) counts what its brokers hold, not what is in
// remote storage. Sizes are immutable once built (SizesBuilder.Done).
//
// A cluster of a million partitions has three million replicas: they are
// kept in a few flat arrays, without a pointer or an allocation each, so
// that a reading costs the collector next to nothing to keep and little
// to build.
type Sizes struct {
	// At is when the sizes were read.
	At time.Time
	// Err is why no size is known at all ("" when some are): no broker
	// reachable, no Kafka protocol, no access.
	Err string
	// Unreached are the brokers that did not answer, with why.
	Unreached map[int]string
	brokers   map[int]*BrokerDisk
	// names are the topics with a reported replica, index their indexes.
	// Topic i's partitions are firstPart[i] to firstPart[i+1]-1, sorted by
	// number (pids); partition k's replicas are reps[firstRep[k]:
	// firstRep[k+1]], sorted by broker, a broker's future replica last.
	names     []string
	index     map[string]int32
	firstPart []int32
	pids      []int32
	firstRep  []int32
	reps      []ReplicaSize
	// rates and rateKnown are each partition's PartitionSize.Rate and
	// RateKnown (nil: no rate is known).
	rates     []float64
	rateKnown []bool
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

// Partition is what the brokers reported of one partition. Its Replicas
// are the sizes' own: not to be changed.
func (s *Sizes) Partition(topic string, partition int) (PartitionSize, bool) {
	if s == nil {
		return PartitionSize{}, false
	}
	ti, ok := s.index[topic]
	if !ok {
		return PartitionSize{}, false
	}
	k, ok := s.find(ti, partition)
	if !ok {
		return PartitionSize{}, false
	}
	return s.partition(k), true
}

// find is the index of topic ti's partition: at its number in the usual
// case of partitions numbered from 0 without a gap, else searched.
func (s *Sizes) find(ti int32, partition int) (int, bool) {
	if partition < 0 || partition > math.MaxInt32 {
		return 0, false
	}
	a, b := int(s.firstPart[ti]), int(s.firstPart[ti+1])
	if partition < b-a && int(s.pids[a+partition]) == partition {
		return a + partition, true
	}
	k, ok := slices.BinarySearch(s.pids[a:b], int32(partition))
	return a + k, ok
}

// partition is the partition at index k.
func (s *Sizes) partition(k int) PartitionSize {
	lo, hi := s.firstRep[k], s.firstRep[k+1]
	p := PartitionSize{Replicas: s.reps[lo:hi:hi]}
	if s.rates != nil {
		p.Rate, p.RateKnown = s.rates[k], s.rateKnown[k]
	}
	return p
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
	ti, found := s.index[topic]
	if !found {
		return 0, 0, false
	}
	for k := s.firstPart[ti]; k < s.firstPart[ti+1]; k++ {
		var largest int64 = -1
		for _, r := range s.reps[s.firstRep[k]:s.firstRep[k+1]] {
			disk += r.Bytes
			ok = true
			if !r.Future && r.Bytes > largest {
				largest = r.Bytes
			}
		}
		if largest >= 0 {
			data += largest
		}
	}
	return disk, data, ok
}

// TopicRate is the topic's growth in bytes per second (its partitions'
// known rates).
func (s *Sizes) TopicRate(topic string) (float64, bool) {
	if s == nil || s.rates == nil {
		return 0, false
	}
	ti, found := s.index[topic]
	if !found {
		return 0, false
	}
	var sum float64
	known := false
	for k := s.firstPart[ti]; k < s.firstPart[ti+1]; k++ {
		if s.rateKnown[k] {
			sum += s.rates[k]
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
	out := slices.Clone(s.names)
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
type SizesBuilder struct {
	s *Sizes
	// chunks are the replicas recorded, each with its topic's index in
	// s.names; loose are those recorded one by one (Replica).
	chunks [][]sizeRec
	loose  []sizeRec
	n      int
}

// sizeRec is a replica as recorded: its topic (an index) and partition
// beside its size.
type sizeRec struct {
	bytes, lag       int64
	topic, partition int32
	broker           int32
	dir              int16
	future           bool
}

// NewSizesBuilder starts sizes read at at.
func NewSizesBuilder(at time.Time) *SizesBuilder {
	return &SizesBuilder{s: &Sizes{At: at, brokers: map[int]*BrokerDisk{}, index: map[string]int32{}}}
}

// Unreached records that broker id did not answer.
func (b *SizesBuilder) Unreached(id int, why string) {
	if b.s.Unreached == nil {
		b.s.Unreached = map[int]string{}
	}
	b.s.Unreached[id] = why
}

// Broker records broker id's directories; the replicas follow with
// Replica or Replicas, naming a directory by its index in dirs.
func (b *SizesBuilder) Broker(id int, dirs []LogDir) {
	b.s.brokers[id] = &BrokerDisk{ID: id, Dirs: dirs}
}

// topic is the index of the topic named name (no allocation when known).
func (b *SizesBuilder) topic(name []byte) int32 {
	if i, ok := b.s.index[string(name)]; ok {
		return i
	}
	i := int32(len(b.s.names))
	n := string(name)
	b.s.names = append(b.s.names, n)
	b.s.index[n] = i
	return i
}

// count adds a replica to its broker's and its directory's totals.
func (b *SizesBuilder) count(bd *BrokerDisk, r *sizeRec) {
	if bd == nil {
		return
	}
	bd.Bytes += r.bytes
	bd.Replicas++
	if int(r.dir) >= 0 && int(r.dir) < len(bd.Dirs) {
		bd.Dirs[r.dir].Bytes += r.bytes
		bd.Dirs[r.dir].Replicas++
	}
}

// Replica records a replica of topic's partition on r.Broker, in the
// directory r.Dir of that broker's.
func (b *SizesBuilder) Replica(topic string, partition int, r ReplicaSize) {
	if partition < 0 || partition > math.MaxInt32 {
		return
	}
	rec := sizeRec{bytes: r.Bytes, lag: r.OffsetLag, topic: b.topic([]byte(topic)), partition: int32(partition),
		broker: r.Broker, dir: r.Dir, future: r.Future}
	b.count(b.s.brokers[int(r.Broker)], &rec)
	b.loose = append(b.loose, rec)
	b.n++
}

// BrokerReplicas are the replicas of one broker's answer, gathered apart
// from a SizesBuilder (while the other brokers' answers are read) and
// added to it whole (SizesBuilder.Replicas): a topic's name is kept once,
// a replica in a flat array.
type BrokerReplicas struct {
	names []byte
	ends  []int32
	// chunks hold the replicas, recChunk each but the last: half a
	// million replicas grow in place of being copied as one array grows.
	chunks [][]sizeRec
	n      int
}

// recChunk is how many replicas a BrokerReplicas' chunk holds (256 KiB).
const recChunk = 8192

// Topic starts a topic: the replicas that follow are of it. name is
// copied.
func (r *BrokerReplicas) Topic(name []byte) {
	r.names = append(r.names, name...)
	r.ends = append(r.ends, int32(len(r.names)))
}

// Replica records a replica of the current topic's partition in the
// broker's directory dir (a negative partition is ignored, as one of no
// topic).
func (r *BrokerReplicas) Replica(partition int32, dir int16, future bool, bytes, offsetLag int64) {
	if partition < 0 || len(r.ends) == 0 {
		return
	}
	if len(r.chunks) == 0 || len(r.chunks[len(r.chunks)-1]) == recChunk {
		r.chunks = append(r.chunks, make([]sizeRec, 0, recChunk))
	}
	c := &r.chunks[len(r.chunks)-1]
	*c = append(*c, sizeRec{bytes: bytes, lag: offsetLag, topic: int32(len(r.ends) - 1),
		partition: partition, dir: dir, future: future})
	r.n++
}

// Len is how many replicas are recorded.
func (r *BrokerReplicas) Len() int { return r.n }

// Footprint is about how many bytes r keeps live: what a reading holds
// for each broker until its sizes are built (memlimit.Transient).
func (r *BrokerReplicas) Footprint() int64 {
	return int64(cap(r.names)) + 4*int64(cap(r.ends)) + int64(len(r.chunks))*recChunk*int64(unsafe.Sizeof(sizeRec{}))
}

// BuildFootprint is about how many bytes Done allocates for the sizes
// of the replicas recorded so far: each replica's ReplicaSize and
// partition number while they are placed, and per partition its number,
// its first replica and its rate (about a third as many partitions as
// replicas, as many at most).
func (b *SizesBuilder) BuildFootprint() int64 {
	return int64(b.n) * (int64(unsafe.Sizeof(ReplicaSize{})) + 4 + 4 + 4 + 3)
}

// Replicas records broker id's replicas r, which the builder keeps.
func (b *SizesBuilder) Replicas(id int, r *BrokerReplicas) {
	if r.n == 0 {
		return
	}
	if len(b.s.index) == 0 {
		// The first broker's topics are most of the cluster's: the map
		// is made once at their size rather than grown to it.
		b.s.index = make(map[string]int32, len(r.ends))
		b.s.names = make([]string, 0, len(r.ends))
	}
	global := make([]int32, len(r.ends))
	// The names new to the builder are cut from one string (the first
	// broker's: a hundred thousand names, one object for the collector).
	var all string
	from := int32(0)
	for i, end := range r.ends {
		name := r.names[from:end]
		ti, ok := b.s.index[string(name)]
		if !ok {
			if all == "" {
				all = string(r.names)
			}
			ti = int32(len(b.s.names))
			n := all[from:end]
			b.s.names = append(b.s.names, n)
			b.s.index[n] = ti
		}
		global[i] = ti
		from = end
	}
	bd := b.s.brokers[id]
	for _, c := range r.chunks {
		for i := range c {
			rec := &c[i]
			rec.topic, rec.broker = global[rec.topic], int32(id)
			b.count(bd, rec)
		}
	}
	b.chunks = append(b.chunks, r.chunks...)
	b.n += r.n
	*r = BrokerReplicas{}
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
	b.place(s)
	if !prev.Known() || !s.Known() {
		return s
	}
	dt := s.At.Sub(prev.At)
	if dt <= 0 {
		return s
	}
	s.Interval = dt
	s.rates = make([]float64, len(s.pids))
	s.rateKnown = make([]bool, len(s.pids))
	for ti, name := range s.names {
		pi, ok := prev.index[name]
		if !ok {
			continue
		}
		// Both topics' partitions are sorted by number: walked together.
		j, jend := int(prev.firstPart[pi]), int(prev.firstPart[pi+1])
		for k := int(s.firstPart[ti]); k < int(s.firstPart[ti+1]); k++ {
			for j < jend && prev.pids[j] < s.pids[k] {
				j++
			}
			if j == jend {
				break
			}
			if prev.pids[j] != s.pids[k] {
				continue
			}
			now, ok1 := s.partition(k).Largest()
			old := prev.partition(j)
			then, ok2 := old.Largest()
			switch {
			case !ok1 || !ok2:
			case now >= then:
				s.rates[k], s.rateKnown[k] = float64(now-then)/dt.Seconds(), true
			case old.RateKnown:
				// Retention dropped a segment: the produce rate is not
				// what the disk shows; keep the one measured before.
				s.rates[k], s.rateKnown[k] = old.Rate, true
			}
		}
	}
	return s
}

// place lays the recorded replicas out in the sizes' arrays: by topic (a
// counting sort), then by partition, broker and future within a topic.
func (b *SizesBuilder) place(s *Sizes) {
	nt := len(s.names)
	recs := b.chunks
	if len(b.loose) > 0 {
		recs = append(recs, b.loose)
	}
	at := make([]int32, nt+1)
	for _, c := range recs {
		for i := range c {
			at[c[i].topic+1]++
		}
	}
	for t := range nt {
		at[t+1] += at[t]
	}
	topicStart := slices.Clone(at)
	s.reps = make([]ReplicaSize, b.n)
	parts := make([]int32, b.n)
	b.chunks, b.loose = nil, nil
	for ci, c := range recs {
		for i := range c {
			r := &c[i]
			k := at[r.topic]
			at[r.topic]++
			s.reps[k] = ReplicaSize{Broker: r.broker, Dir: r.dir, Future: r.future, Bytes: r.bytes, OffsetLag: r.lag}
			parts[k] = r.partition
		}
		recs[ci] = nil // placed: the collector may take it back while the rest are
	}
	s.firstPart = make([]int32, nt+1)
	s.pids = make([]int32, 0, b.n/2+nt)
	s.firstRep = make([]int32, 0, b.n/2+nt+1)
	for t := range nt {
		lo, hi := int(topicStart[t]), int(topicStart[t+1])
		sortReplicas(parts[lo:hi], s.reps[lo:hi])
		s.firstPart[t] = int32(len(s.pids))
		for k := lo; k < hi; k++ {
			if k == lo || parts[k] != parts[k-1] {
				s.pids = append(s.pids, parts[k])
				s.firstRep = append(s.firstRep, int32(k))
			}
		}
	}
	s.firstPart[nt] = int32(len(s.pids))
	s.firstRep = append(s.firstRep, int32(b.n))
}

// replicaLess orders a topic's replicas: by partition, then broker, a
// broker's future replica after its current one.
func replicaLess(pa int32, a *ReplicaSize, pb int32, b *ReplicaSize) bool {
	if pa != pb {
		return pa < pb
	}
	if a.Broker != b.Broker {
		return a.Broker < b.Broker
	}
	return !a.Future && b.Future
}

// sortReplicas sorts a topic's replicas (reps, their partitions parts
// beside them), keeping the order of those alike: an insertion sort for
// the usual few dozen, a sort of their indexes for a large topic.
func sortReplicas(parts []int32, reps []ReplicaSize) {
	if len(reps) <= 64 {
		for i := 1; i < len(reps); i++ {
			p, r := parts[i], reps[i]
			j := i
			for ; j > 0 && replicaLess(p, &r, parts[j-1], &reps[j-1]); j-- {
				parts[j], reps[j] = parts[j-1], reps[j-1]
			}
			parts[j], reps[j] = p, r
		}
		return
	}
	idx := make([]int32, len(reps))
	for i := range idx {
		idx[i] = int32(i)
	}
	slices.SortStableFunc(idx, func(x, y int32) int {
		switch {
		case replicaLess(parts[x], &reps[x], parts[y], &reps[y]):
			return -1
		case replicaLess(parts[y], &reps[y], parts[x], &reps[x]):
			return 1
		}
		return 0
	})
	ps, rs := slices.Clone(parts), slices.Clone(reps)
	for i, j := range idx {
		parts[i], reps[i] = ps[j], rs[j]
	}
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
