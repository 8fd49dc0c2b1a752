package zkwatch

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-zookeeper/zk"
)

// zkClient is the part of *zk.Conn the mirror uses, with server paths. The
// watch channels are ignored: events arrive through Conn.Listen, which
// costs no goroutine per watch.
type zkClient interface {
	GetW(path string) ([]byte, *zk.Stat, <-chan zk.Event, error)
	ChildrenW(path string) ([]string, *zk.Stat, <-chan zk.Event, error)
	ExistsW(path string) (bool, *zk.Stat, <-chan zk.Event, error)
}

var _ zkClient = (*zk.Conn)(nil)

// unwatched is a zkClient that reads without watches (MirrorOptions.Once).
type unwatched struct{ c *zk.Conn }

func (u unwatched) GetW(path string) ([]byte, *zk.Stat, <-chan zk.Event, error) {
	d, s, err := u.c.Get(path)
	return d, s, nil, err
}

func (u unwatched) ChildrenW(path string) ([]string, *zk.Stat, <-chan zk.Event, error) {
	k, s, err := u.c.Children(path)
	return k, s, nil, err
}

func (u unwatched) ExistsW(path string) (bool, *zk.Stat, <-chan zk.Event, error) {
	ok, s, err := u.c.Exists(path)
	return ok, s, nil, err
}

// Mirror is a live in-memory copy of the nodes a Shape names.
//
// One goroutine (the loop) owns the tree. Workers issue the requests,
// at most Concurrency at a time, one per node and kind (data or children)
// at a time. Every read sets its watch in the same request (GetW,
// ChildrenW, ExistsW); when a watch fires the node is re-read, which re-arms
// the watch, so no change between the fire and the re-arm is lost. Watch
// events reach the loop through a Conn listener, never blocking
// go-zookeeper.
type Mirror struct {
	conn  *Conn
	zk    zkClient
	shape Shape
	opts  MirrorOptions

	out     chan Batch
	quit    chan struct{}
	done    chan struct{}
	jobs    chan job
	results chan result
	ctl     chan func()
	stop    func() // removes the listener
	once    sync.Once

	evMu sync.Mutex
	evQ  []zk.Event
	wake chan struct{}

	// mu guards everything below (the loop holds it while it works; Tree,
	// Get and Stats take it).
	mu       sync.Mutex
	gen      int
	nodes    map[string]*node
	opens    map[string]int
	queue    []job
	qhead    int
	front    []job // read before queue (a stack): see push
	retry    []job
	unloaded int
	progress Progress // of the load under way
	sentProg Progress // as of the last Partial batch
	// streaming: the load under way ends with a Loaded batch (nothing of
	// an earlier load was delivered); partialSent: a Partial batch was
	// cut; ending: the load is done, its Loaded batch not cut yet.
	streaming, partialSent, ending bool
	stamp                          uint64
	state                          State
	needLoad                       bool
	loadAt                         time.Time
	stats                          Stats

	co      coalescer
	states  []State
	frozen  *Batch // cut and waiting for the consumer
	stalled bool   // StateUnresponsive is the last state reported
	probing atomic.Bool

	handled uint64 // replies handled, so tests can wait for one
}

// NewMirror starts mirroring shape over c. The first load begins as soon
// as c has a session; its result is the first Reset batch on Batches.
// Close the Mirror before (or instead of) closing c.
func NewMirror(c *Conn, shape Shape, opts MirrorOptions) (*Mirror, error) {
	var client zkClient = c.raw
	if opts.Once {
		client = unwatched{c.raw}
	}
	state, _ := StateOf(c.raw.State())
	return newMirror(c, client, state, shape, opts)
}

// newMirror is NewMirror with the requests going to client and the session
// in state: tests pass a scripted client to choose the interleavings.
func newMirror(c *Conn, client zkClient, state State, shape Shape, opts MirrorOptions) (*Mirror, error) {
	for _, p := range shape.Reads {
		if err := validatePath(p); err != nil {
			return nil, fmt.Errorf("mirror: read path %q: %w", p, err)
		}
	}
	for _, l := range shape.Lists {
		if err := validatePath(l.Path); err != nil {
			return nil, fmt.Errorf("mirror: list path %q: %w", l.Path, err)
		}
	}
	if opts.Concurrency <= 0 {
		opts.Concurrency = 128
	}
	if opts.FlushInterval <= 0 {
		opts.FlushInterval = 50 * time.Millisecond
	}
	if opts.FlushEvents <= 0 {
		opts.FlushEvents = 512
	}
	if opts.StallAfter == 0 {
		opts.StallAfter = DefaultStallAfter
	}
	m := &Mirror{
		conn:    c,
		zk:      client,
		shape:   shape,
		opts:    opts,
		out:     make(chan Batch),
		quit:    make(chan struct{}),
		done:    make(chan struct{}),
		jobs:    make(chan job, opts.Concurrency),
		results: make(chan result, opts.Concurrency),
		ctl:     make(chan func()),
		wake:    make(chan struct{}, 1),
		nodes:   map[string]*node{},
		opens:   map[string]int{},
	}
	m.stop = c.Listen(m.onEvent)
	m.state = state
	m.states = []State{m.state}
	m.needLoad = true
	m.stats.Loading = true
	for range opts.Concurrency {
		go m.worker()
	}
	go m.loop()
	return m, nil
}

// Batches delivers the mirror's batches, one receive at a time: while the
// consumer is busy, events keep merging. It is closed when the Mirror or
// its Conn is closed.
func (m *Mirror) Batches() <-chan Batch { return m.out }

// Close stops the mirror and closes Batches. It does not wait for requests
// in flight (go-zookeeper cannot cancel them; their workers exit when they
// return, at the latest when the Conn closes) and does not close the Conn.
func (m *Mirror) Close() error {
	m.once.Do(func() { close(m.quit) })
	<-m.done
	return nil
}

// Stats returns the mirror's counters.
func (m *Mirror) Stats() Stats {
	m.mu.Lock()
	defer m.mu.Unlock()
	s := m.stats
	s.Tracked = len(m.nodes)
	s.LastHeard = m.conn.LastHeard()
	return s
}

// Tree returns a copy of the mirror: path → data and stat of every node in
// it. It may be ahead of the batches delivered so far.
func (m *Mirror) Tree() map[string]Node {
	m.mu.Lock()
	defer m.mu.Unlock()
	t := make(map[string]Node, m.stats.Nodes)
	for p, n := range m.nodes {
		if n.inTree() {
			t[p] = Node{Data: n.data, Stat: n.stat, Denied: n.access()}
		}
	}
	return t
}

// Walk calls fn for every node of the mirror, in no order, with the
// mirror locked: fn must not call the Mirror. Like Tree, it may be ahead
// of the batches delivered so far.
func (m *Mirror) Walk(fn func(path string, n Node)) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for p, n := range m.nodes {
		if n.inTree() {
			fn(p, Node{Data: n.data, Stat: n.stat, Denied: n.access()})
		}
	}
}

// Get returns one node of the mirror.
func (m *Mirror) Get(path string) (Node, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := m.nodes[path]
	if n == nil || !n.inTree() {
		return Node{}, false
	}
	return Node{Data: n.data, Stat: n.stat, Denied: n.access()}, true
}

// OpenSubtree adds path and everything below it to the mirror (data and
// children, recursively, all watched) until the matching CloseSubtree.
// Opens are counted. The nodes arrive as Created events.
func (m *Mirror) OpenSubtree(path string) error {
	if err := validatePath(path); err != nil {
		return fmt.Errorf("open subtree %q: %w", path, err)
	}
	return m.control(func() {
		m.opens[path]++
		if m.needLoad {
			return // startLoad opens it
		}
		n := m.getOrCreate(path)
		before := m.snap(n)
		n.opened = int32(m.opens[path])
		m.rebrowse(n, before)
	})
}

// CloseSubtree undoes one OpenSubtree: when the last open of path is
// closed, nodes followed only because of it are forgotten (Deleted events)
// and their watches are no longer re-armed.
func (m *Mirror) CloseSubtree(path string) error {
	return m.control(func() {
		if m.opens[path] == 0 {
			return
		}
		m.opens[path]--
		if m.opens[path] == 0 {
			delete(m.opens, path)
		}
		if n := m.nodes[path]; n != nil {
			before := m.snap(n)
			n.opened = int32(m.opens[path])
			m.rebrowse(n, before)
		}
	})
}

// control runs f on the loop.
func (m *Mirror) control(f func()) error {
	select {
	case m.ctl <- f:
		return nil
	case <-m.done:
		return errors.New("mirror closed")
	}
}

// onEvent is the Conn listener: it queues the event for the loop and
// never blocks go-zookeeper's receive goroutine.
func (m *Mirror) onEvent(ev zk.Event) {
	// One EventNotWatching per watch follows an expiry or close; the
	// session event says all that is needed.
	if ev.Type == zk.EventNotWatching {
		return
	}
	m.evMu.Lock()
	m.evQ = append(m.evQ, ev)
	m.evMu.Unlock()
	select {
	case m.wake <- struct{}{}:
	default:
	}
}
