package sandbox

import (
	"context"
	"encoding/binary"
	"errors"
	"hash/fnv"
	"math/rand/v2"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/clusterwatch"
)

// Simulated sizes. Every partition has a size that grows from its base
// (DemoTopic.PartitionSize, Config.PartitionSize) at its produce rate
// (DemoTopic.ProduceRate, Config.ProduceRate) from the moment the sandbox
// first sizes it; there is no data, no segment and no retention. A leader
// and its in-sync followers hold the whole partition, a new replica what
// it has copied so far (replication.go), and a copy ends only when it has
// caught up with the size the partition has grown to: a partition growing
// at G bytes/s copied at T takes its size / (T − G), the estimate
// clusterops.MoveBytes.ETA makes. SizeSource reads them as a
// clusterwatch.SizeSource, each running broker answering for its own log
// directories as DescribeLogDirs does.

// Defaults of the sizes.
const (
	// DefaultDiskSize is Config.DiskSize's default: each log directory's
	// volume.
	DefaultDiskSize = 100 << 30
	// DefaultSizeInterval and DefaultHurriedSizeInterval are how often a
	// SizeSource reads the sizes, calmly and while hurried.
	DefaultSizeInterval        = 2 * time.Second
	DefaultHurriedSizeInterval = time.Second

	maxLogDirs = 16
	// logDirPath is the one log directory's path; several are numbered.
	logDirPath = "/var/lib/kafka/data"
	// describeTimeout bounds one broker's answer: a broker being killed
	// may never answer.
	describeTimeout = 2 * time.Second
)

// sizeModel holds what the partitions' sizes are computed from.
type sizeModel struct {
	mu sync.Mutex
	// born is when each partition was first sized: its growth starts then.
	born map[tp]time.Time

	seedOnce sync.Once
	seed     uint64
}

func newSizeModel() *sizeModel { return &sizeModel{born: map[tp]time.Time{}} }

// sizeSeed is the seed of the demo topics' skew: drawn from Config.Rand
// when set (one seed, the same sizes), at random otherwise.
func (cl *Cluster) sizeSeed() uint64 {
	m := cl.sizes
	m.seedOnce.Do(func() {
		if cl.cfg.Rand == nil {
			m.seed = rand.Uint64()
			return
		}
		cl.randMu.Lock()
		m.seed = cl.cfg.Rand.Uint64()
		cl.randMu.Unlock()
	})
	return m.seed
}

// partitionShape is a partition's base size in bytes and its produce rate
// in bytes per second.
func (cl *Cluster) partitionShape(p tp) (int64, float64) {
	if cl.cfg.DemoTopics {
		if t, ok := demoShapes()[p.topic]; ok {
			w := cl.skew(p)
			return int64(float64(t.PartitionSize) * w), float64(t.ProduceRate) / float64(max(t.Partitions, 1)) * w
		}
	}
	base := cl.cfg.PartitionSize
	switch {
	case base < 0:
		base = 0
	case base == 0:
		base = DefaultPartitionSize
	}
	return base, float64(cl.cfg.ProduceRate)
}

// demoShapes are the demo topics by name, built once: sizes are computed
// for every replica at every reading.
var demoShapes = sync.OnceValue(func() map[string]DemoTopic {
	m := map[string]DemoTopic{}
	for _, t := range DemoTopics() {
		m[t.Name] = t
	}
	return m
})

// skew is a demo partition's weight, 0.5 to 1.5, from the seed, its topic
// and its number: a few partitions hot, a few cold, as keyed ones are.
func (cl *Cluster) skew(p tp) float64 {
	h := fnv.New64a()
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], cl.sizeSeed())
	h.Write(b[:])
	h.Write([]byte(p.topic))
	binary.BigEndian.PutUint64(b[:], uint64(p.partition))
	h.Write(b[:])
	return 0.5 + float64(h.Sum64()>>11)/(1<<53)
}

// partitionBytes is p's size at now: its base plus what was produced to
// it since it was first sized.
func (cl *Cluster) partitionBytes(p tp, now time.Time) int64 {
	base, rate := cl.partitionShape(p)
	if rate <= 0 {
		return base
	}
	m := cl.sizes
	m.mu.Lock()
	born, ok := m.born[p]
	if !ok {
		born = now
		m.born[p] = now
	}
	m.mu.Unlock()
	return base + int64(rate*max(now.Sub(born).Seconds(), 0))
}

// forgetTopic drops a deleted topic's growth, so that a topic created
// again under its name starts from its base size.
func (cl *Cluster) forgetTopic(topic string) {
	m := cl.sizes
	m.mu.Lock()
	defer m.mu.Unlock()
	for p := range m.born {
		if p.topic == topic {
			delete(m.born, p)
		}
	}
}

// logDirs are broker id's log directories, empty (the sizes builder adds
// what they hold).
func (cl *Cluster) logDirs() []cluster.LogDir {
	n := max(cl.cfg.LogDirs, 1)
	size := cl.cfg.DiskSize
	if size == 0 {
		size = DefaultDiskSize
	}
	dirs := make([]cluster.LogDir, n)
	for i := range dirs {
		dirs[i] = cluster.LogDir{Path: logDirPath, Total: size, Usable: size}
		if n > 1 {
			dirs[i].Path = logDirPath + "-" + strconv.Itoa(i+1)
		}
	}
	return dirs
}

// logDirOf is the directory a replica lives in: fixed for the replica, so
// that its directory does not change between readings.
func logDirOf(p tp, broker, dirs int) int {
	if dirs <= 1 {
		return 0
	}
	h := fnv.New32a()
	h.Write([]byte(p.topic))
	h.Write([]byte{byte(p.partition), byte(p.partition >> 8), byte(broker), byte(broker >> 8)})
	return int(h.Sum32() % uint32(dirs))
}

// msgDescribeLogDirs asks a broker for the replicas it holds.
type msgDescribeLogDirs struct{ reply chan []tp }

// errNotRunning is a broker's answer when the sandbox does not run it.
var errNotRunning = errors.New("broker not running")

// heldReplicas asks broker id (its inbox goroutine, which owns the replica
// manager) which partitions it holds a replica of.
func (cl *Cluster) heldReplicas(ctx context.Context, id int) ([]tp, error) {
	cl.mu.Lock()
	b := cl.brokers[id]
	cl.mu.Unlock()
	if b == nil || b.stopped() {
		return nil, errNotRunning
	}
	reply := make(chan []tp, 1)
	b.inbox.push(&msgDescribeLogDirs{reply: reply})
	t := time.NewTimer(describeTimeout)
	defer t.Stop()
	select {
	case ps := <-reply:
		return ps, nil
	case <-b.stop:
		return nil, errNotRunning
	case <-t.C:
		return nil, errors.New("no answer within " + describeTimeout.String())
	case <-ctx.Done():
		return nil, context.Cause(ctx)
	}
}

// describeLogDirs answers msgDescribeLogDirs (on the inbox goroutine).
func (b *broker) describeLogDirs(m *msgDescribeLogDirs) {
	ps := make([]tp, 0, len(b.parts))
	for p := range b.parts {
		ps = append(ps, p)
	}
	slices.SortFunc(ps, compareTP)
	m.reply <- ps
}

// readSizes reads every sandbox broker's log directories at at, as the
// brokers' DescribeLogDirs answers: a broker the sandbox does not run is
// unreached. prev (nil for none) gives the growth rates.
func (cl *Cluster) readSizes(ctx context.Context, at time.Time, prev *cluster.Sizes) *cluster.Sizes {
	b := cluster.NewSizesBuilder(at)
	helds := make([][]tp, cl.cfg.Brokers+1)
	answered := make([]bool, cl.cfg.Brokers+1)
	for id := 1; id <= cl.cfg.Brokers; id++ {
		held, err := cl.heldReplicas(ctx, id)
		if err != nil {
			b.Unreached(id, err.Error())
			continue
		}
		helds[id], answered[id] = held, true
	}
	// The copies are read after the brokers answered: a copy starts on
	// its broker's goroutine before the broker answers, so every copy of
	// a replica an answer names is here, unless it has finished since
	// (then the replica holds the whole partition).
	copied := cl.repl.copiedBytes(at)
	for id := 1; id <= cl.cfg.Brokers; id++ {
		if !answered[id] {
			continue
		}
		held := helds[id]
		dirs := cl.logDirs()
		sizes := make([]cluster.ReplicaSize, len(held))
		used := make([]int64, len(dirs))
		for i, p := range held {
			n, ok := copied[replicaKey{p, id}]
			if !ok {
				n = cl.partitionBytes(p, at)
			}
			d := logDirOf(p, id, len(dirs))
			sizes[i] = cluster.ReplicaSize{Broker: int32(id), Dir: int16(d), Bytes: n}
			used[d] += n
		}
		for d := range dirs {
			dirs[d].Usable = max(dirs[d].Total-used[d], 0)
		}
		b.Broker(id, dirs)
		for i, p := range held {
			b.Replica(p.topic, p.partition, sizes[i])
		}
	}
	return b.Done(prev)
}

// SizeOptions are a SizeSource's intervals; zero values take the
// defaults.
type SizeOptions struct {
	// Interval is the time between readings (DefaultSizeInterval).
	Interval time.Duration
	// Hurried is the time between readings while hurried
	// (DefaultHurriedSizeInterval).
	Hurried time.Duration
}

// SizeSource reads the sandbox's simulated sizes: a
// clusterwatch.SizeSource, as kafkawatch's poller is for a real cluster.
type SizeSource struct {
	cl   *Cluster
	opts SizeOptions

	next sync.Mutex // one Next at a time

	mu      sync.Mutex
	hurried bool
	closed  bool
	changed chan struct{} // closed when hurried or closed changes
	// last is when the last reading was taken; prev is the last one with
	// sizes known.
	last time.Time
	prev *cluster.Sizes
}

var _ clusterwatch.SizeSource = (*SizeSource)(nil)

// Sizes returns a source of the cluster's sizes: the first reading at
// once, then one every opts.Interval (opts.Hurried while hurried).
func (cl *Cluster) Sizes(opts SizeOptions) *SizeSource {
	if opts.Interval <= 0 {
		opts.Interval = DefaultSizeInterval
	}
	if opts.Hurried <= 0 {
		opts.Hurried = DefaultHurriedSizeInterval
	}
	return &SizeSource{cl: cl, opts: opts, changed: make(chan struct{})}
}

// Next waits for the next reading. A cluster with no broker running gives
// sizes that say so; the error is clusterwatch.ErrClosed once the source
// is closed, or ctx's.
func (s *SizeSource) Next(ctx context.Context) (*cluster.Sizes, error) {
	s.next.Lock()
	defer s.next.Unlock()
	for {
		s.mu.Lock()
		closed, changed, last := s.closed, s.changed, s.last
		interval := s.opts.Interval
		if s.hurried {
			interval = s.opts.Hurried
		}
		s.mu.Unlock()
		if closed {
			return nil, clusterwatch.ErrClosed
		}
		var wait time.Duration
		if !last.IsZero() {
			wait = time.Until(last.Add(interval))
		}
		if wait <= 0 {
			break
		}
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-changed:
			// Hurried (the wait may be shorter now) or closed.
			t.Stop()
		case <-ctx.Done():
			t.Stop()
			return nil, context.Cause(ctx)
		}
	}
	var sz *cluster.Sizes
	if s.cl.isClosed() {
		sz = cluster.UnknownSizes(time.Now(), "the sandbox is closed")
	} else {
		sz = s.cl.readSizes(ctx, time.Now(), s.prevSizes())
	}
	if err := ctx.Err(); err != nil {
		return nil, context.Cause(ctx)
	}
	s.mu.Lock()
	s.last = sz.At
	if sz.Known() || s.prev == nil {
		// Rates are measured from the last known reading: one without
		// sizes in between (every broker down) is no base.
		s.prev = sz
	}
	s.mu.Unlock()
	return sz, nil
}

func (s *SizeSource) prevSizes() *cluster.Sizes {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.prev
}

// Hurry reads every opts.Hurried instead of every opts.Interval while on.
func (s *SizeSource) Hurry(on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.hurried != on && !s.closed {
		s.hurried = on
		close(s.changed)
		s.changed = make(chan struct{})
	}
}

// Close ends the source: a waiting Next returns clusterwatch.ErrClosed.
// The cluster keeps running.
func (s *SizeSource) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.closed {
		s.closed = true
		close(s.changed)
	}
	return nil
}
