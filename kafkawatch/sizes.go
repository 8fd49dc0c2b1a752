package kafkawatch

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/clusterwatch"
	"github.com/ktopo/ktopo/internal/memlimit"
)

// The replicas' sizes come from DescribeLogDirs, which each broker answers
// for itself alone: a reading asks every live broker at once, and a broker
// that does not answer is named (Sizes.Unreached) rather than failing the
// reading. Sizes change slowly, so they are read on a calm interval, and
// often only while a move's progress is watched (Hurry).

// Intervals of a SizePoller.
const (
	// DefaultSizesInterval is how often sizes are read.
	DefaultSizesInterval = 30 * time.Second
	// DefaultSizesHurried is how often while Hurry(true): a reassignment's
	// progress is measured on the new replicas' sizes.
	DefaultSizesHurried = 5 * time.Second
)

// SizeOptions tune a SizePoller.
type SizeOptions struct {
	// Interval and Hurried are the calm and the hurried intervals
	// (defaults DefaultSizesInterval, DefaultSizesHurried).
	Interval, Hurried time.Duration
	// Timeout bounds a reading (default DefaultRequestTimeout).
	Timeout time.Duration
	// Logger receives a note per failed reading (nil: none).
	Logger *log.Logger
}

// SizePoller reads the brokers' log directories on an interval: a
// clusterwatch.SizeSource.
type SizePoller struct {
	opts SizeOptions
	// cl is the client the readings go through; own says the poller made
	// it (from seeds and dial) and closes it.
	mu    sync.Mutex
	cl    *kgo.Client
	own   bool
	seeds func() ([]string, error)
	dial  Dial

	// fake, in tests, answers in place of a client.
	fake asker

	hurry atomic.Bool
	wake  chan struct{}
	out   chan *cluster.Sizes
	done  chan struct{}
	stop  sync.Once
	ended chan struct{}
}

var _ clusterwatch.SizeSource = (*SizePoller)(nil)

// NewSizePoller reads sizes through cl, a client shared with others (a
// KRaft session's poller's, Poller.Client): Close leaves it open.
func NewSizePoller(cl *kgo.Client, o SizeOptions) *SizePoller {
	p := newSizePoller(o)
	p.cl = cl
	go p.run()
	return p
}

// NewSizePollerSeeds reads the sizes of a ZooKeeper-mode cluster, whose
// brokers' addresses are what ZooKeeper holds: seeds gives them (an error
// while none is known yet: tried again at the next interval), and d their
// security (d.Bootstrap is ignored). The poller makes its own client and
// closes it.
func NewSizePollerSeeds(seeds func() ([]string, error), d Dial, o SizeOptions) *SizePoller {
	p := newSizePoller(o)
	p.seeds, p.dial, p.own = seeds, d, true
	go p.run()
	return p
}

func newSizePoller(o SizeOptions) *SizePoller {
	if o.Interval <= 0 {
		o.Interval = DefaultSizesInterval
	}
	if o.Hurried <= 0 {
		o.Hurried = DefaultSizesHurried
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultRequestTimeout
	}
	return &SizePoller{opts: o, wake: make(chan struct{}, 1), out: make(chan *cluster.Sizes, 1),
		done: make(chan struct{}), ended: make(chan struct{})}
}

// Next waits for the next reading.
func (p *SizePoller) Next(ctx context.Context) (*cluster.Sizes, error) {
	select {
	case s := <-p.out:
		return s, nil
	case <-p.done:
		return nil, clusterwatch.ErrClosed
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Hurry reads every Hurried interval while on; turned on, the next
// reading comes at once.
func (p *SizePoller) Hurry(on bool) {
	if p.hurry.Swap(on) != on && on {
		select {
		case p.wake <- struct{}{}:
		default:
		}
	}
}

// Close stops the readings (one under way is abandoned) and closes the
// client the poller made.
func (p *SizePoller) Close() error {
	p.stop.Do(func() { close(p.done) })
	<-p.ended
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.own && p.cl != nil {
		p.cl.Close()
		p.cl = nil
	}
	return nil
}

func (p *SizePoller) run() {
	defer close(p.ended)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		<-p.done
		cancel()
	}()
	var prev *cluster.Sizes
	for {
		s := p.read(ctx, prev)
		if ctx.Err() != nil {
			return
		}
		if s.Known() {
			prev = s
		} else if p.opts.Logger != nil {
			p.opts.Logger.Printf("%s", s.Why())
		}
		// Only the newest reading matters: one the consumer has not taken
		// yet is replaced.
		select {
		case <-p.out:
		default:
		}
		p.out <- s
		wait := p.opts.Interval
		if p.hurry.Load() {
			wait = p.opts.Hurried
		}
		t := time.NewTimer(wait)
		select {
		case <-p.done:
			t.Stop()
			return
		case <-p.wake:
		case <-t.C:
		}
		t.Stop()
	}
}

// read takes one reading; a ZooKeeper-mode poller first makes its client
// from the seeds, and drops it when no broker answered, so that the next
// reading starts from the brokers' addresses as they are then.
func (p *SizePoller) read(ctx context.Context, prev *cluster.Sizes) *cluster.Sizes {
	cl, seeds, why := p.client()
	if cl == nil && p.fake == nil {
		return cluster.UnknownSizes(time.Now(), why)
	}
	rctx, cancel := context.WithTimeout(ctx, p.opts.Timeout)
	defer cancel()
	s := readSizes(rctx, p.asker(cl), prev, seeds)
	if p.own && !s.Known() {
		p.mu.Lock()
		if p.cl == cl {
			p.cl.Close()
			p.cl = nil
		}
		p.mu.Unlock()
	}
	return s
}

// asker is what the readings go through: cl, or a test's fake.
func (p *SizePoller) asker(cl *kgo.Client) asker {
	if p.fake != nil {
		return p.fake
	}
	return kgoAsker{cl}
}

func (p *SizePoller) client() (*kgo.Client, []string, string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.fake != nil {
		return nil, nil, ""
	}
	if p.cl != nil || !p.own {
		return p.cl, p.dial.Bootstrap, ""
	}
	seeds, err := p.seeds()
	if err != nil {
		return nil, nil, err.Error()
	}
	if len(seeds) == 0 {
		return nil, nil, "no broker is registered"
	}
	d := p.dial
	d.Bootstrap = seeds
	cl, err := NewSizesClient(d)
	if err != nil {
		return nil, nil, err.Error()
	}
	p.cl, p.dial.Bootstrap = cl, seeds
	return cl, seeds, ""
}

// NewSizesClient is a client of its own for reading sizes (a
// ZooKeeper-mode cluster's, a command's): a broker that refuses the
// connection is not dialled again and again for the request's whole
// retry time (franz-go's default), so that an address that serves no
// Kafka says so at once; the reading asks again at its next interval.
func NewSizesClient(d Dial) (*kgo.Client, error) {
	return NewClient(d, kgo.RequestRetries(0))
}

// ReadSizes reads the sizes once through cl, for a command: never an
// error, an unknown Sizes saying why instead.
func ReadSizes(ctx context.Context, cl *kgo.Client) *cluster.Sizes {
	return readSizes(ctx, kgoAsker{cl}, nil, nil)
}

// asker sends a reading's requests: Metadata to any broker, then
// DescribeLogDirs to each (a kgo.Client; a test's fake).
type asker interface {
	any(ctx context.Context, req kmsg.Request) (kmsg.Response, error)
	broker(ctx context.Context, id int32, req kmsg.Request) (kmsg.Response, error)
}

type kgoAsker struct{ cl *kgo.Client }

func (k kgoAsker) any(ctx context.Context, req kmsg.Request) (kmsg.Response, error) {
	return request[kmsg.Response](ctx, k.cl, req)
}

func (k kgoAsker) broker(ctx context.Context, id int32, req kmsg.Request) (kmsg.Response, error) {
	return k.cl.Broker(int(id)).Request(ctx, req)
}

// readSizes asks the live brokers (Metadata without topics) for their log
// directories, all at once, and builds the sizes; prev gives the growth
// rates; seeds name the addresses tried, for a refusal.
func readSizes(ctx context.Context, cl asker, prev *cluster.Sizes, seeds []string) *cluster.Sizes {
	at := time.Now()
	meta := kmsg.NewPtrMetadataRequest()
	meta.Topics = []kmsg.MetadataRequestTopic{} // none: the brokers only
	resp, err := cl.any(ctx, meta)
	if err != nil {
		return cluster.UnknownSizes(at, unreachable(err, seeds))
	}
	mr, ok := resp.(*kmsg.MetadataResponse)
	if !ok {
		return cluster.UnknownSizes(at, fmt.Sprintf("unexpected response %T", resp))
	}
	ids := make([]int32, 0, len(mr.Brokers))
	for _, b := range mr.Brokers {
		ids = append(ids, b.NodeID)
	}
	slices.Sort(ids)
	resps := make([]*logDirsResponse, len(ids))
	errs := make([]error, len(ids))
	// The brokers' replicas are live only while the reading lasts, and
	// the sizes built from them replace the last ones: held until then,
	// they do not raise the memory limit (at a million partitions, about
	// 100 MB of records, then 100 MB of sizes; peak RSS 840 → 745 MiB).
	var held memlimit.Transient
	defer held.Release()
	var wg sync.WaitGroup
	for i, id := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Topics nil: every partition.
			resp, err := cl.broker(ctx, id, logDirsRequest{kmsg.NewPtrDescribeLogDirsRequest()})
			if err != nil {
				errs[i] = err
				return
			}
			var r *logDirsResponse
			switch t := resp.(type) {
			case *logDirsResponse:
				r = t
			case *kmsg.DescribeLogDirsResponse:
				r = &logDirsResponse{DescribeLogDirsResponse: *t}
				r.dirs = logDirsOf(t, &r.reps)
			default:
				errs[i] = fmt.Errorf("unexpected response %T", resp)
				return
			}
			if err := codeError(r.ErrorCode, nil); err != nil {
				errs[i] = err
				return
			}
			resps[i] = r
			held.Add(r.reps.Footprint())
		}()
	}
	wg.Wait()
	b := cluster.NewSizesBuilder(at)
	for i, id := range ids {
		if errs[i] != nil {
			b.Unreached(int(id), brokerWhy(errs[i]))
			continue
		}
		addBroker(b, id, resps[i])
		resps[i] = nil // its replicas are the builder's now
	}
	held.Add(b.BuildFootprint())
	s := b.Done(prev)
	if !s.Known() && len(s.Unreached) > 0 {
		// Every broker failed: when alike (no access, a timeout), the
		// reason is theirs.
		var why string
		same := true
		for _, w := range s.Unreached {
			if why != "" && w != why {
				same = false
			}
			why = w
		}
		if same {
			s.Err = why
		}
	}
	if len(ids) == 0 {
		s.Err = "the cluster lists no live broker"
	}
	return s
}

// addBroker records one broker's answer: its directories (with their
// volumes from version 4, Kafka 3.3), then every replica in them.
func addBroker(b *cluster.SizesBuilder, id int32, r *logDirsResponse) {
	b.Broker(int(id), r.dirs)
	b.Replicas(int(id), &r.reps)
}

// brokerWhy says in words why a broker gave no sizes.
func brokerWhy(err error) string {
	var ke *cluster.KafkaError
	switch {
	case errors.Is(err, kerr.ClusterAuthorizationFailed) || errors.As(err, &ke) && ke.Code == kerr.ClusterAuthorizationFailed:
		return "no access (DESCRIBE on the cluster)"
	case isTimeout(err):
		return "no answer in time"
	}
	return err.Error()
}

// unreachable says why no broker could be asked: "brokers not reachable
// at 10.0.0.5:9092: connection refused".
func unreachable(err error, seeds []string) string {
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "dial" {
		at := strings.Join(seeds, ",")
		if op.Addr != nil {
			at = op.Addr.String()
		}
		why := op.Err.Error()
		var se interface{ Unwrap() error }
		if errors.As(op.Err, &se) && se.Unwrap() != nil {
			why = se.Unwrap().Error()
		}
		if at == "" {
			return "brokers not reachable: " + why
		}
		return "brokers not reachable at " + at + ": " + why
	}
	if errors.Is(err, context.DeadlineExceeded) {
		if len(seeds) > 0 {
			return "brokers not reachable at " + strings.Join(seeds, ",") + ": no answer in time"
		}
		return "no answer in time"
	}
	return fmt.Sprint(err)
}
