package kafkawatch

import (
	"context"
	"errors"
	"log"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/clusterwatch"
	"github.com/ktopo/ktopo/zkwatch"
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

// configChunk is how many topics one DescribeConfigs asks about.
const configChunk = 500

// Poller follows a Kafka cluster over the Kafka protocol: Metadata,
// DescribeCluster, ListPartitionReassignments and DescribeQuorum every
// interval, the topics' configs in turn, and what changed as node events
// in Kafka's ZooKeeper layout (a clusterwatch.Source). A poll is due every
// interval; while the consumer has not taken the last batch the next poll
// waits (nothing queues).
type Poller struct {
	cl     *kgo.Client
	dial   Dial
	opts   Options
	lay    *layout
	out    chan clusterwatch.Batch
	ctx    context.Context
	cancel context.CancelFunc
	done   chan struct{}

	apis      apiVersions
	polls     int
	cfgOrder  []string // the topics in the order their configs are read
	cfgCursor int

	mu        sync.Mutex
	lastHeard time.Time
	pollTime  time.Duration
	parts     int
	lastErr   error
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
	ctx, cancel := context.WithCancel(context.Background())
	p := &Poller{cl: cl, dial: d, opts: o, lay: newLayout(d.Security.Protocol), out: make(chan clusterwatch.Batch),
		ctx: ctx, cancel: cancel, done: make(chan struct{})}
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

// Stats implements clusterwatch.Source: the partitions followed and the
// last poll's duration.
func (p *Poller) Stats() clusterwatch.Stats {
	p.mu.Lock()
	defer p.mu.Unlock()
	return clusterwatch.Stats{LastHeard: p.lastHeard, Counts: []clusterwatch.Count{
		{N: int64(p.parts), Unit: "partitions"}, {N: p.pollTime.Milliseconds(), Unit: "ms a poll"}}}
}

// Err is the last poll's error (nil when it succeeded).
func (p *Poller) Err() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.lastErr
}

// Kind implements clusterwatch.Source.
func (p *Poller) Kind() clusterwatch.Kind { return clusterwatch.Kafka }

// Server implements clusterwatch.Source: the bootstrap servers.
func (p *Poller) Server() string { return strings.Join(p.dial.Bootstrap, ",") }

// Close stops polling and closes the client.
func (p *Poller) Close() error {
	p.cancel()
	<-p.done
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

func (p *Poller) run() {
	defer close(p.done)
	defer close(p.out)
	state := zkwatch.StateConnecting
	loaded := false
	for {
		start := time.Now()
		var b clusterwatch.Batch
		var err error
		if !loaded {
			err = p.load(&state)
			loaded = err == nil
		} else {
			b, err = p.poll()
		}
		if p.ctx.Err() != nil {
			return
		}
		d := time.Since(start)
		p.mu.Lock()
		p.lastErr = err
		if err == nil {
			p.lastHeard, p.pollTime, p.parts = time.Now(), d, p.lay.partitions
		}
		p.mu.Unlock()
		if err != nil {
			p.logf("poll: %v", err)
			lost := zkwatch.StateDisconnected
			if errors.Is(err, context.DeadlineExceeded) {
				lost = zkwatch.StateUnresponsive
			}
			if state != lost {
				state = lost
				if !p.send(clusterwatch.Batch{States: []zkwatch.State{lost}}) {
					return
				}
			}
		} else if loaded && (len(b.Events) > 0 || b.KRaft != nil || len(b.ELR) > 0 || state != zkwatch.StateConnected) {
			if state != zkwatch.StateConnected {
				state = zkwatch.StateConnected
				b.States = []zkwatch.State{state}
			}
			if !p.send(b) {
				return
			}
		}
		if p.opts.Once && loaded {
			return
		}
		select {
		case <-time.After(time.Until(start.Add(p.opts.Interval))):
		case <-p.ctx.Done():
			return
		}
	}
}

// pollCtx bounds one poll.
func (p *Poller) pollCtx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(p.ctx, p.dial.timeout())
}

// load is the first load: the versions, the core, then every topic's
// configs, the broker configs, the eligible leader replicas and the log
// directories; delivered as it goes (Progress) or as one Reset batch.
func (p *Poller) load(state *zkwatch.State) error {
	ctx, cancel := p.pollCtx()
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
	v.features = features
	states := []zkwatch.State{zkwatch.StateConnected}
	*state = zkwatch.StateConnected
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
	events, kraft, elr := p.lay.apply(v)
	names := p.lay.names()
	if !deliver(clusterwatch.Batch{Events: events, KRaft: kraft, ELR: elr, Progress: clusterwatch.Progress{Known: len(names)}}, false) {
		return p.ctx.Err()
	}
	// The configs, a few requests at a time, delivered as they come.
	const group = 4 * configChunk
	for from := 0; from < len(names); from += group {
		part := names[from:min(from+group, len(names))]
		cfgs, inherited, err := describeTopicConfigs(ctx, p.cl, part, configChunk)
		if err != nil {
			return err
		}
		events, kraft, _ := p.lay.apply(&view{at: time.Now(), configs: cfgs, inherited: inherited})
		pr := clusterwatch.Progress{Done: from + len(part), Known: len(names)}
		if !deliver(clusterwatch.Batch{Events: events, KRaft: kraft, Progress: pr}, false) {
			return p.ctx.Err()
		}
	}
	p.cfgOrder = names
	rest := &view{at: time.Now()}
	p.slowParts(ctx, rest, true)
	events, kraft, elr = p.lay.apply(rest)
	if !deliver(clusterwatch.Batch{Events: events, KRaft: kraft, ELR: elr, Progress: clusterwatch.Progress{Done: len(names), Known: len(names)}}, true) {
		return p.ctx.Err()
	}
	p.polls = 1
	return nil
}

// slowParts reads, into v, what is not read every poll: the broker
// configs and log directories (every brokerEvery polls), the eligible
// leader replicas of the topics that may have some, and, in a first
// load, of one topic more to learn whether the cluster has them.
func (p *Poller) slowParts(ctx context.Context, v *view, first bool) {
	var wg sync.WaitGroup
	ids := p.lay.liveBrokers()
	if first || p.polls%brokerEvery == 0 {
		if p.apis.has(keyDescribeConfigs, 0) {
			wg.Add(1)
			go func() {
				defer wg.Done()
				cfgs, err := describeBrokerConfigs(ctx, p.cl, ids)
				if err != nil {
					p.logf("broker configs: %v", err)
				}
				v.brokerConfigs = cfgs
			}()
		}
		if p.apis.has(keyDescribeLogDirs, 5) {
			wg.Add(1)
			go func() {
				defer wg.Done()
				dirs, err := describeLogDirs(ctx, p.cl, ids)
				if err != nil {
					p.logf("log directories: %v", err)
				}
				if len(dirs) > 0 {
					v.logDirs = dirs
				}
			}()
		}
	}
	if p.apis.has(keyDescribeTopicPartitions, 0) {
		topics := p.lay.elrTopics()
		if first && len(topics) == 0 && len(p.lay.topics) > 0 {
			topics = p.lay.names()[:1]
		}
		if len(topics) > 0 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				elr, known, err := describeELR(ctx, p.cl, topics)
				if err != nil {
					p.logf("eligible leader replicas: %v", err)
					return
				}
				v.elr, v.elrKnown = elr, known
			}()
		}
	}
	wg.Wait()
}

// poll is one poll after the first load: the core first (applied), then
// what depends on it (the configs' turn, the slow parts), as one batch.
func (p *Poller) poll() (clusterwatch.Batch, error) {
	ctx, cancel := p.pollCtx()
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
	events, kraft, elr := p.lay.apply(v)
	rest := &view{at: v.at}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		p.slowParts(ctx, rest, false)
	}()
	if names := p.configTurn(); len(names) > 0 && p.apis.has(keyDescribeConfigs, 0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cfgs, inherited, err := describeTopicConfigs(ctx, p.cl, names, configChunk)
			if err != nil {
				p.logf("topic configs: %v", err)
			}
			rest.configs, rest.inherited = cfgs, inherited
		}()
	}
	wg.Wait()
	p.polls++
	more, k2, elr2 := p.lay.apply(rest)
	if k2 != nil {
		kraft = k2
	}
	return clusterwatch.Batch{Events: append(events, more...), KRaft: kraft, ELR: append(elr, elr2...)}, nil
}

// configTurn picks the topics whose configs this poll reads: the new
// ones (never read), then the others in turn, at most ConfigTopics.
func (p *Poller) configTurn() []string {
	var fresh []string
	for name, tn := range p.lay.topics {
		if !tn.config.present && len(fresh) < p.opts.ConfigTopics {
			fresh = append(fresh, name)
		}
	}
	if len(fresh) > 0 || len(p.lay.topics) != len(p.cfgOrder) {
		// The set changed: read the new ones now, and take the order
		// again.
		p.cfgOrder = p.lay.names()
		p.cfgCursor = 0
		slices.Sort(fresh)
		return fresh
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
	model.NoChanges = true
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
		if len(b.States) > 0 && b.States[len(b.States)-1] != zkwatch.StateConnected {
			if perr := p.Err(); perr != nil {
				return nil, perr
			}
		}
	}
}
