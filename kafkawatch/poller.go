package kafkawatch

import (
	"context"
	"errors"
	"log"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/clusterwatch"
)

// DefaultInterval is how often a Poller polls.
const DefaultInterval = time.Second

// Options tune a Poller. The zero value is usable.
type Options struct {
	// Interval between the starts of two polls (default
	// DefaultInterval).
	Interval time.Duration
	// Progress delivers the first load as it goes, as the TUI wants: a
	// Partial batch with the topics, partitions and brokers, Partial
	// batches as the topics' configs are read, then a Loaded batch.
	// Without it the first load is one Reset batch.
	Progress bool
	// Once stops after the first load (the one-shot commands).
	Once bool
	// ConfigTopics is how many topics' configs a poll reads after the
	// first load (default 250): new topics first, then the others in
	// turn. Kafka has no way to ask what changed, and reading every
	// topic's configs every second would cost a large cluster more than
	// all the rest of a poll.
	ConfigTopics int
	// Logger receives what the poller has to say (nil: nothing).
	Logger *log.Logger
}

// Every how many polls the slower-changing parts are read again.
const (
	brokerEvery  = 5  // broker configs and log directories (cordons)
	versionEvery = 10 // the APIs served and the finalized features
)

// How a first load asks for every topic's configs: configChunk topics a
// DescribeConfigs, configInFlight requests at a time, each to the next
// live broker in turn. A broker answers the requests of one connection
// one after the other, and a DescribeConfigs costs it about 0.15 ms a
// topic (10,000 topics: 1.4–2 s of a broker's CPU, the benchmark's): so
// requests to different brokers, on connections of their own, are what
// runs them side by side.
const (
	configChunk    = 250
	configInFlight = 4
)

// loadPiece is about how many partitions a first load lays out in one
// batch (see view.split).
const loadPiece = 50_000

// progressEvery is how often a first load delivers the configs read so
// far.
const progressEvery = 250 * time.Millisecond

// Poller follows a Kafka cluster over the Kafka protocol: Metadata,
// DescribeCluster, ListPartitionReassignments and DescribeQuorum every
// interval, the topics' configs in turn, and what changed as node events
// in Kafka's ZooKeeper layout (a clusterwatch.Source). A poll is due every
// interval; while the consumer has not taken the last batch the next poll
// waits (nothing queues).
//
// The polls never wait for the slower requests: the configs' turn, the
// broker configs, the log directories and the eligible leader replicas
// run in the background on a client of their own (their own connections:
// a broker answers the requests of one connection one after the other,
// so a Metadata request queued behind a DescribeConfigs of hundreds of
// topics would wait for it), and what they read is delivered as a batch
// of its own when they are done. Only a new topic's configs are read in
// the poll that finds it, so that it shows with them.
type Poller struct {
	cl     *kgo.Client // the polls' requests
	aux    *kgo.Client // the slower requests, on connections of their own
	dial   Dial
	opts   Options
	lay    *layout
	out    chan clusterwatch.Batch
	ctx    context.Context
	cancel context.CancelFunc
	done   chan struct{}

	apis       apiVersions
	polls      int
	brokerPoll int // the poll whose background work last read the broker parts
	// brokersSoon: polls left whose background work reads the broker
	// parts whatever brokerPoll says (RefreshBrokers).
	brokersSoon atomic.Int32
	cfgOrder    []string // the topics in the order their configs are read
	cfgCursor   int
	cfgGen      uint64 // the layout's setGen when cfgOrder was taken

	mu        sync.Mutex
	lastHeard time.Time
	pollTime  time.Duration
	parts     int
	lastErr   error
	// live is the last poll's DescribeQuorum (LiveQuorum); liveOK says a
	// poll asked it.
	live   cluster.QuorumReport
	liveOK bool
}

var _ clusterwatch.Source = (*Poller)(nil)

// Start connects (lazily) and starts polling.
func Start(d Dial, o Options) (*Poller, error) {
	cl, err := NewClient(d)
	if err != nil {
		return nil, err
	}
	return StartWith(cl, d, o), nil
}

// StartWith starts polling with a client made by NewClient(d); Close
// closes it.
func StartWith(cl *kgo.Client, d Dial, o Options) *Poller {
	if o.Interval <= 0 {
		o.Interval = DefaultInterval
	}
	if o.ConfigTopics <= 0 {
		o.ConfigTopics = 250
	}
	aux, err := NewClient(d)
	if err != nil {
		aux = nil // cl serves (NewClient(d) made cl: it cannot fail here)
	}
	ctx, cancel := context.WithCancel(context.Background())
	p := &Poller{cl: cl, aux: aux, dial: d, opts: o, lay: newLayout(d.Security.Protocol), out: make(chan clusterwatch.Batch),
		ctx: ctx, cancel: cancel, done: make(chan struct{})}
	if p.aux == nil {
		p.aux = cl
	}
	go p.run()
	return p
}

// Client is the poller's franz-go client.
func (p *Poller) Client() *kgo.Client { return p.cl }

// Next implements clusterwatch.Source.
func (p *Poller) Next(ctx context.Context) (clusterwatch.Batch, error) {
	select {
	case <-ctx.Done():
		return clusterwatch.Batch{}, ctx.Err()
	case b, ok := <-p.out:
		if !ok {
			return clusterwatch.Batch{}, clusterwatch.ErrClosed
		}
		return b, nil
	}
}

// brokersAfterChange is how many polls read the broker parts after
// RefreshBrokers: a broker applies a dynamic config (a cordon) a moment
// after the controller commits it, so the first read may not see it yet.
const brokersAfterChange = 3

// RefreshBrokers makes the next polls read the brokers' configs and log
// directories (their cordons), which they read only every brokerEvery
// polls otherwise: what ktopo's own writer calls once it has changed a
// broker's config (kafkaops.Writer.OnBrokerConfigs), so that a cordon it
// sent shows within a poll or two and the next plan leaves the broker out.
// Safe from any goroutine.
func (p *Poller) RefreshBrokers() { p.brokersSoon.Store(brokersAfterChange) }

// Stats implements clusterwatch.Source: the partitions followed and the
// last poll's duration; none before the first load is over (not "0
// partitions · 0 ms a poll").
func (p *Poller) Stats() clusterwatch.Stats {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.lastHeard.IsZero() {
		return clusterwatch.Stats{}
	}
	return clusterwatch.Stats{LastHeard: p.lastHeard, Counts: []clusterwatch.Count{
		{N: int64(p.parts), Unit: "partitions"}, {N: p.pollTime.Milliseconds(), Unit: "ms a poll"}}}
}

// Err is the last poll's error (nil when it succeeded).
func (p *Poller) Err() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.lastErr
}

// LiveQuorum is the newest poll's DescribeQuorum answer in full (the
// voters' and observers' log end offsets, fetch times, directory ids and
// endpoints, which the model leaves out: they move with every record) as
// the quorum part of a report: At, Quorum and QuorumErr. False before a
// poll has asked (or when the cluster does not serve DescribeQuorum).
// What the TUI's quorum tab shows live, without a request of its own.
// Safe from any goroutine.
func (p *Poller) LiveQuorum() (cluster.QuorumReport, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.live, p.liveOK
}

// noteLive keeps a poll's DescribeQuorum answer for LiveQuorum (nothing
// when the poll did not ask).
func (p *Poller) noteLive(v *view) {
	if v.quorumDetail == nil && v.quorumErr == nil {
		return
	}
	r := cluster.QuorumReport{At: time.Now()}
	switch {
	case v.quorumErr != nil && cluster.IsDenied(v.quorumErr):
		r.QuorumErr = "DescribeQuorum: " + cluster.NoAccessText
	case v.quorumErr != nil:
		r.QuorumErr = "DescribeQuorum: " + v.quorumErr.Error()
	default:
		r.Quorum = *v.quorumDetail
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.live, p.liveOK = r, true
}

// Backend implements clusterwatch.Source.
func (p *Poller) Backend() cluster.Backend { return cluster.ViaKafka }

// Server implements clusterwatch.Source: the bootstrap servers.
func (p *Poller) Server() string { return strings.Join(p.dial.Bootstrap, ",") }

// Close stops polling and closes the clients.
func (p *Poller) Close() error {
	p.cancel()
	<-p.done
	if p.aux != p.cl {
		p.aux.Close()
	}
	p.cl.Close()
	return nil
}

func (p *Poller) logf(format string, args ...any) {
	if p.opts.Logger != nil {
		p.opts.Logger.Printf(format, args...)
	}
}

// send hands a batch to the consumer, waiting for it (false: closed).
func (p *Poller) send(b clusterwatch.Batch) bool {
	select {
	case p.out <- b:
		return true
	case <-p.ctx.Done():
		return false
	}
}

// noted records how a poll (or the first load) that began at start went.
func (p *Poller) noted(start time.Time, err error) {
	d := time.Since(start)
	p.mu.Lock()
	defer p.mu.Unlock()
	p.lastErr = err
	if err == nil {
		p.lastHeard, p.pollTime, p.parts = time.Now(), d, p.lay.partitions
	}
}

// lost tells the consumer that a poll failed (once per state); false
// when the poller was closed.
func (p *Poller) lost(state *clusterwatch.State, err error) bool {
	p.logf("poll: %v", err)
	lost := clusterwatch.StateDisconnected
	if errors.Is(err, context.DeadlineExceeded) {
		lost = clusterwatch.StateUnresponsive
	}
	if *state == lost {
		return true
	}
	*state = lost
	return p.send(clusterwatch.Batch{States: []clusterwatch.State{lost}})
}

// pause waits until the next poll is due, interval after start (false:
// closed).
func (p *Poller) pause(start time.Time) bool {
	select {
	case <-time.After(time.Until(start.Add(p.opts.Interval))):
		return true
	case <-p.ctx.Done():
		return false
	}
}

func (p *Poller) run() {
	defer close(p.done)
	defer close(p.out)
	state := clusterwatch.StateConnecting
	for {
		start := time.Now()
		err := p.load(&state)
		if p.ctx.Err() != nil {
			return
		}
		p.noted(start, err)
		if err == nil {
			break
		}
		if !p.lost(&state, err) || !p.pause(start) {
			return
		}
	}
	if p.opts.Once {
		return
	}
	// The polls, and the slower parts' work in the background: at most
	// one at a time, started after a poll, applied when it is done.
	var work chan *view
	var wg sync.WaitGroup
	defer wg.Wait()
	due := time.After(p.opts.Interval)
	for {
		select {
		case <-p.ctx.Done():
			return
		case v := <-work:
			work = nil
			events, kraft, elr := p.lay.apply(v)
			if len(events) > 0 || kraft != nil || len(elr) > 0 {
				if !p.send(clusterwatch.Batch{Events: events, KRaft: kraft, ELR: elr}) {
					return
				}
			}
		case <-due:
			start := time.Now()
			b, err := p.poll()
			if p.ctx.Err() != nil {
				return
			}
			p.noted(start, err)
			due = time.After(time.Until(start.Add(p.opts.Interval)))
			if err != nil {
				if !p.lost(&state, err) {
					return
				}
				continue
			}
			if len(b.Events) > 0 || b.KRaft != nil || len(b.ELR) > 0 || state != clusterwatch.StateConnected {
				if state != clusterwatch.StateConnected {
					state = clusterwatch.StateConnected
					b.States = []clusterwatch.State{state}
				}
				if !p.send(b) {
					return
				}
			}
			if work == nil {
				job := p.nextJob(false)
				work = make(chan *view, 1)
				wg.Add(1)
				go func() {
					defer wg.Done()
					work <- p.slowWork(p.ctx, job)
				}()
			}
		}
	}
}

// requestCtx bounds one request, or a poll's requests.
func (p *Poller) requestCtx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(p.ctx, p.dial.timeout())
}

// load is the first load: the versions and the core, delivered at once;
// then, side by side, every topic's configs (delivered as they come) and
// the slower parts (the broker configs, the log directories, the
// eligible leader replicas); delivered as it goes (Progress) or as one
// Reset batch.
func (p *Poller) load(state *clusterwatch.State) error {
	start := time.Now()
	ctx, cancel := p.requestCtx()
	defer cancel()
	apis, features, err := fetchVersions(ctx, p.cl)
	if err != nil {
		return err
	}
	p.apis = apis
	v, err := fetchCore(ctx, p.cl, apis, p.lay)
	if err != nil {
		return err
	}
	p.noteLive(v)
	v.features = features
	states := []clusterwatch.State{clusterwatch.StateConnected}
	*state = clusterwatch.StateConnected
	var all clusterwatch.Batch
	deliver := func(b clusterwatch.Batch, last bool) bool {
		b.States, states = states, nil
		if p.opts.Progress {
			b.Partial, b.Loaded = !last, last
			return p.send(b)
		}
		all.States = append(all.States, b.States...)
		all.Events = append(all.Events, b.Events...)
		all.ELR = append(all.ELR, b.ELR...)
		if b.KRaft != nil {
			all.KRaft = b.KRaft
		}
		if last {
			all.Reset = true
			return p.send(all)
		}
		return true
	}
	core := time.Since(start)
	// A large cluster's topics are laid out and delivered in pieces, so
	// that the first screen shows the first of them while the rest are
	// laid out (and no poll holds the events of a million partitions at
	// once).
	pieces := v.split(loadPiece)
	laid := 0
	for i, piece := range pieces {
		events, kraft, elr := p.lay.apply(piece)
		laid += len(piece.topics)
		pr := clusterwatch.Progress{Known: len(v.topics)}
		if i < len(pieces)-1 {
			pr.Topics = laid
		}
		if !deliver(clusterwatch.Batch{Events: events, KRaft: kraft, ELR: elr, Progress: pr}, false) {
			return p.ctx.Err()
		}
	}
	names := p.lay.names()
	// The rest is asked once the consumer has taken the topics in (it
	// takes the next batch, this one of progress alone, only then): the
	// first screen never waits for the decoding of the configs, nor, on a
	// machine that runs brokers too, for the brokers' work on them.
	if p.opts.Progress && !deliver(clusterwatch.Batch{Progress: clusterwatch.Progress{Known: len(names)}}, false) {
		return p.ctx.Err()
	}
	// Whatever way load returns, its requests are ended and waited for
	// (Close closes the client they use once load has returned).
	wctx, wcancel := context.WithCancel(p.ctx)
	var parts <-chan configPart
	var wg sync.WaitGroup
	defer func() {
		wcancel()
		// Drained: the stream closes once its requests are done (nil when
		// the brokers serve no DescribeConfigs: nothing to drain, and a
		// range over a nil channel would block for ever).
		for parts != nil {
			if _, ok := <-parts; !ok {
				break
			}
		}
		wg.Wait()
	}()
	if apis.has(keyDescribeConfigs, 0) {
		parts = streamTopicConfigs(wctx, p.aux, p.dial.timeout(), p.lay.liveBrokers(), names, configChunk, configInFlight)
	}
	rest := make(chan *view, 1)
	job := p.nextJob(true)
	wg.Add(1)
	go func() {
		defer wg.Done()
		rest <- p.slowWork(wctx, job)
	}()
	// The configs as they come, progressEvery's answers a batch (the
	// consumer takes each batch in whole: fewer, bigger ones cost it
	// less); the last ones with the rest, in the Loaded batch.
	done := 0
	var last []cluster.NodeEvent
	var lastKRaft *cluster.KRaft
	for in := orEmpty(parts); in != nil; {
		cfgs := map[string]topicConfig{}
		var inherited *inheritance
		n := 0
		flush := time.After(progressEvery)
	collect:
		for {
			select {
			case q, ok := <-in:
				if !ok {
					in = nil
					break collect
				}
				if q.err != nil {
					return q.err
				}
				maps.Copy(cfgs, q.configs)
				inherited = inherited.merge(q.inherited)
				n += q.topics
			case <-flush:
				if n > 0 {
					break collect
				}
				flush = time.After(progressEvery)
			case <-p.ctx.Done():
				return p.ctx.Err()
			}
		}
		done += n
		events, kraft, _ := p.lay.apply(&view{at: time.Now(), configs: cfgs, inherited: inherited})
		if in == nil {
			last, lastKRaft = events, kraft
			break
		}
		if !deliver(clusterwatch.Batch{Events: events, KRaft: kraft, Progress: clusterwatch.Progress{Done: done, Known: len(names)}}, false) {
			return p.ctx.Err()
		}
	}
	p.cfgOrder, p.cfgGen = names, p.lay.setGen
	configs := time.Since(start)
	var r *view
	select {
	case r = <-rest:
	case <-p.ctx.Done():
		return p.ctx.Err()
	}
	events, kraft, elr := p.lay.apply(r)
	events = append(last, events...)
	if kraft == nil {
		kraft = lastKRaft
	}
	if !deliver(clusterwatch.Batch{Events: events, KRaft: kraft, ELR: elr, Progress: clusterwatch.Progress{Done: len(names), Known: len(names)}}, true) {
		return p.ctx.Err()
	}
	p.logf("first load: %d topics, %d partitions: topics read in %s, their configs in %s, the rest in %s",
		len(names), p.lay.partitions, core.Round(time.Millisecond), configs.Round(time.Millisecond), time.Since(start).Round(time.Millisecond))
	p.polls = 1
	return nil
}

// job is what a background work asks: taken from the layout by the
// poller's goroutine, so that the work itself never reads it.
type job struct {
	apis    apiVersions
	configs []string // topics whose configs are read
	brokers []int32  // live brokers whose configs and log directories are read (nil: not this time)
	elr     []string // topics described for their eligible leader replicas
	first   bool
}

// nextJob picks what the next background work reads: the configs' turn
// (none in a first load, which reads them all), the broker parts every
// brokerEvery polls, and the eligible leader replicas of the topics that
// may have some (in a first load, of one topic more to learn whether the
// cluster has them).
func (p *Poller) nextJob(first bool) job {
	j := job{apis: p.apis, first: first}
	if !first {
		j.configs = p.configTurn()
	}
	soon := p.brokersSoon.Load() > 0
	if soon {
		p.brokersSoon.Add(-1)
	}
	if first || soon || p.polls-p.brokerPoll >= brokerEvery {
		j.brokers = p.lay.liveBrokers()
		if j.brokers == nil {
			j.brokers = []int32{}
		}
		p.brokerPoll = p.polls
	}
	j.elr = p.lay.elrTopics()
	if first && len(j.elr) == 0 && len(p.lay.topics) > 0 {
		j.elr = p.lay.names()[:1]
	}
	return j
}

// slowWork reads what j asks, on the poller's second client, side by
// side; what fails is logged and left out (the next turn asks again).
func (p *Poller) slowWork(parent context.Context, j job) *view {
	ctx, cancel := context.WithTimeout(parent, p.dial.timeout())
	defer cancel()
	logf := func(format string, args ...any) {
		if parent.Err() == nil { // not when the poller closes under it
			p.logf(format, args...)
		}
	}
	v := &view{}
	var wg sync.WaitGroup
	if j.brokers != nil {
		if j.apis.has(keyDescribeConfigs, 0) {
			wg.Add(1)
			go func() {
				defer wg.Done()
				cfgs, err := describeBrokerConfigs(ctx, p.aux, j.brokers)
				if err != nil {
					logf("broker configs: %v", err)
				}
				v.brokerConfigs = cfgs
			}()
		}
		if j.apis.has(keyDescribeLogDirs, 5) {
			wg.Add(1)
			go func() {
				defer wg.Done()
				dirs, err := describeLogDirs(ctx, p.aux, j.brokers)
				if err != nil {
					logf("log directories: %v", err)
				}
				if len(dirs) > 0 {
					v.logDirs = dirs
				}
			}()
		}
	}
	if len(j.elr) > 0 && j.apis.has(keyDescribeTopicPartitions, 0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			elr, known, err := describeELR(ctx, p.aux, j.elr)
			if err != nil {
				logf("eligible leader replicas: %v", err)
				return
			}
			v.elr, v.elrKnown = elr, known
		}()
	}
	if len(j.configs) > 0 && j.apis.has(keyDescribeConfigs, 0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cfgs, inherited, err := describeTopicConfigs(ctx, p.aux, j.configs)
			if err != nil {
				logf("topic configs: %v", err)
			}
			v.configs, v.inherited = cfgs, inherited
		}()
	}
	wg.Wait()
	v.at = time.Now()
	return v
}

// poll is one poll after the first load: the core, then the configs of
// the topics it found new (so that a new topic shows with its configs),
// as one batch. The rest is the background work's.
func (p *Poller) poll() (clusterwatch.Batch, error) {
	ctx, cancel := p.requestCtx()
	defer cancel()
	if p.polls%versionEvery == 0 {
		if apis, features, err := fetchVersions(ctx, p.cl); err == nil {
			p.apis = apis
			p.lay.features = features
		}
	}
	v, err := fetchCore(ctx, p.cl, p.apis, p.lay)
	if err != nil {
		return clusterwatch.Batch{}, err
	}
	p.noteLive(v)
	p.polls++
	events, kraft, elr := p.lay.apply(v)
	if fresh := p.freshTopics(); len(fresh) > 0 && p.apis.has(keyDescribeConfigs, 0) {
		cfgs, inherited, err := describeTopicConfigs(ctx, p.cl, fresh)
		if err != nil {
			p.logf("topic configs: %v", err)
		}
		more, k2, _ := p.lay.apply(&view{at: time.Now(), configs: cfgs, inherited: inherited})
		events = append(events, more...)
		if k2 != nil {
			kraft = k2
		}
	}
	return clusterwatch.Batch{Events: events, KRaft: kraft, ELR: elr}, nil
}

// orEmpty is ch, or a closed channel when ch is nil.
func orEmpty[T any](ch <-chan T) <-chan T {
	if ch == nil {
		c := make(chan T)
		close(c)
		return c
	}
	return ch
}

// freshTopics are the topics whose configs were never read (new ones),
// at most ConfigTopics, sorted.
func (p *Poller) freshTopics() []string {
	var fresh []string
	for name := range p.lay.fresh {
		if len(fresh) == p.opts.ConfigTopics {
			break
		}
		fresh = append(fresh, name)
	}
	slices.Sort(fresh)
	return fresh
}

// configTurn picks the topics whose configs the next background work
// reads: ConfigTopics of them in turn (the order taken again when the
// topics changed).
func (p *Poller) configTurn() []string {
	if p.cfgGen != p.lay.setGen {
		p.cfgOrder, p.cfgGen = p.lay.names(), p.lay.setGen
		p.cfgCursor = 0
	}
	n := min(p.opts.ConfigTopics, len(p.cfgOrder))
	out := make([]string, 0, n)
	for i := 0; i < n; i++ {
		out = append(out, p.cfgOrder[(p.cfgCursor+i)%len(p.cfgOrder)])
	}
	if len(p.cfgOrder) > 0 {
		p.cfgCursor = (p.cfgCursor + n) % len(p.cfgOrder)
	}
	return out
}

// Load reads the cluster once and returns its snapshot: what the one-shot
// commands (ktopo topics describe, brokers, plan) read. Configs of every
// topic are read, so that nothing in it is partial.
func Load(ctx context.Context, d Dial, model cluster.ModelOptions, logger *log.Logger) (*cluster.Snapshot, error) {
	p, err := Start(d, Options{Once: true, Logger: logger})
	if err != nil {
		return nil, err
	}
	defer p.Close()
	s, err := LoadFrom(ctx, p, model)
	return s, d.Security.Explain(err)
}

// LoadFrom waits for a poller's first load (Options.Once, without
// Progress) and returns its snapshot; a poll that fails ends it with the
// error.
func LoadFrom(ctx context.Context, p *Poller, model cluster.ModelOptions) (*cluster.Snapshot, error) {
	model.NoChanges, model.PackPartitions = true, true
	w := clusterwatch.NewWatch(p, model)
	for {
		b, _, err := w.Next(ctx)
		if err != nil {
			if perr := p.Err(); perr != nil {
				return nil, perr
			}
			return nil, err
		}
		if b.Reset {
			return w.Model.Snapshot(), nil
		}
		if len(b.States) > 0 && b.States[len(b.States)-1] != clusterwatch.StateConnected {
			if perr := p.Err(); perr != nil {
				return nil, perr
			}
		}
	}
}
