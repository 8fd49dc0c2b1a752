package zkwatch

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"
)

// Shape says which znodes a Mirror keeps. Paths are chroot-relative.
type Shape struct {
	// Lists are containers whose children are listed with a child watch.
	// The containers themselves are not in the mirror (unless also in Reads).
	Lists []List
	// Reads are single nodes read with a data watch; while one is absent an
	// exist watch waits for its creation.
	Reads []string
	// Derive, if set, is called with every node's data when it is read or
	// changes (and never for absent nodes). It returns the paths of further
	// nodes to read and watch because of that data, like Reads; when the
	// data changes the set is recomputed, and paths no longer named by any
	// node are forgotten (Deleted events). It runs on the mirror's loop: it
	// must be quick, must not block and must not keep data.
	Derive func(path string, data []byte) []string
}

// List is a container of a Shape.
type List struct {
	Path string
	// ReadChildren also reads each child's data with a data watch. Without
	// it children appear as nodes with nil Data and nil Stat.
	ReadChildren bool
}

// EventType says what happened to a node since the previous batch.
type EventType int

// Event types.
const (
	// Created: the node is new to the consumer (or was deleted and
	// re-created since the previous batch; its czxid differs).
	Created EventType = iota + 1
	// Changed: the node's data or stat changed.
	Changed
	// Deleted: the node is gone from the mirror (deleted in ZooKeeper, or
	// no longer named by the Shape).
	Deleted
)

// String names the event type.
func (t EventType) String() string {
	switch t {
	case Created:
		return "created"
	case Changed:
		return "changed"
	case Deleted:
		return "deleted"
	}
	return "unknown"
}

// Event is the latest state of one node. Data and Stat are shared with the
// mirror and must not be modified. They are nil for Deleted events and for
// the children of a List without ReadChildren. A node created with no data
// has nil Data, one created with empty data a non-nil empty slice.
type Event struct {
	Type EventType
	Path string // chroot-relative
	Data []byte
	Stat *zk.Stat
}

// Batch is what a Mirror emits: node events coalesced per path (at most one
// per path), and the connection states entered since the previous batch.
type Batch struct {
	// Reset means: replace everything with Events (all Created). The first
	// batch with events is a reset, and so is the first after every session
	// expiry. Batches before the first reset carry only States.
	Reset bool
	// Events in unspecified order.
	Events []Event
	// States entered since the previous batch, oldest first (consecutive
	// repeats collapsed, at most the last 16). The first batch starts with
	// the state the mirror started in.
	States []State
}

// Node is a mirrored node's data and stat (nil for names-only children).
type Node struct {
	Data []byte
	Stat *zk.Stat
}

// Stats describe a Mirror.
type Stats struct {
	Nodes    int           // nodes in the mirror (what Tree returns)
	Tracked  int           // paths followed, including absent ones and list containers
	Watches  int           // watches the mirror holds (data, child and exist)
	Bytes    int64         // data bytes held
	Loading  bool          // a (re)load is in progress
	Loads    int           // completed loads (the first, plus one per session expiry)
	LoadTime time.Duration // duration of the last completed load
	Requests int64         // requests issued (reads, lists, exists)
	Retries  int64         // requests re-issued after a connection loss
	Errors   int64         // requests that failed for another reason (e.g. no ACL to read); logged
}

// MirrorOptions tune a Mirror. The zero value is usable.
type MirrorOptions struct {
	// Concurrency is the number of requests in flight on the connection
	// (default 128; go-zookeeper pipelines them on its one socket).
	Concurrency int
	// FlushInterval is how long events are coalesced before a batch is cut
	// (default 50 ms).
	FlushInterval time.Duration
	// FlushEvents cuts a batch early once this many paths have pending
	// events (default 512). It is not a cap: a batch can be larger when the
	// consumer is slow, since events keep merging until it receives.
	FlushEvents int
	// Once reads the tree without setting watches: the first batch is
	// complete and none follows unless the session is lost. One-shot
	// readers (ktopo topics describe) save the server and the client a
	// watch per znode (about a quarter of the memory of a first load).
	Once bool

	// retryTicks replaces the half-second ticker that re-sends requests
	// failed by a lost connection (tests tick it themselves).
	retryTicks <-chan time.Time
}

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
	retry    []job
	unloaded int
	stamp    uint64
	state    State
	needLoad bool
	loadAt   time.Time
	stats    Stats

	co     coalescer
	states []State
	frozen *Batch // cut and waiting for the consumer

	handled uint64 // replies handled, so tests can wait for one
}

// kinds of request state a node has: its data, its children.
const (
	kData = 0
	kList = 1
)

type op uint8

const (
	opGet op = iota
	opChildren
	opExists
)

type job struct {
	n    *node
	kind uint8
	op   op
	gen  int
}

type result struct {
	job
	data   []byte
	stat   *zk.Stat
	kids   []string
	exists bool
	err    error
}

// node is one followed path. Its reasons for being followed decide what
// is read; the rest is its state and its request bookkeeping.
type node struct {
	path     string
	parent   *node            // set while listed by its parent
	children map[string]*node // listing (nil: not listed yet, or container absent)
	seen     uint64

	single    bool  // in Shape.Reads
	derived   int32 // named by this many nodes' Derive
	shapeList bool  // in Shape.Lists
	readKids  bool  // ... with ReadChildren
	opened    int32 // OpenSubtree count of this path
	browse    bool  // within an opened subtree

	exists bool
	data   []byte
	stat   *zk.Stat
	deriv  []string // sorted paths Derive named
	dkey   *zk.Stat // stat the current deriv was computed for

	busy    [2]bool // a request of this kind is queued or in flight
	dirty   [2]bool // re-read when it completes
	watch   [2]bool // a watch of this kind is armed
	pending [2]bool // first read not done yet (counted in unloaded)
	loaded  [2]bool
}

func (n *node) wantData() bool {
	return n.single || n.derived > 0 || n.browse || (n.parent != nil && n.parent.readKids)
}

func (n *node) wantList() bool { return n.shapeList || n.browse }

// watchAbsent: the node is followed even while it does not exist (nodes
// only known from a listing are not: the parent's listing covers them).
func (n *node) watchAbsent() bool {
	return n.single || n.derived > 0 || n.shapeList || n.opened > 0
}

func (n *node) keep() bool {
	return n.single || n.derived > 0 || n.shapeList || n.opened > 0 || n.browse || n.parent != nil
}

// inTree: the node is part of the mirror the consumer sees.
func (n *node) inTree() bool {
	return n.exists && (n.wantData() || n.parent != nil)
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
			return nil, fmt.Errorf("mirror: read path %q: %v", p, err)
		}
	}
	for _, l := range shape.Lists {
		if err := validatePath(l.Path); err != nil {
			return nil, fmt.Errorf("mirror: list path %q: %v", l.Path, err)
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
			t[p] = Node{Data: n.data, Stat: n.stat}
		}
	}
	return t
}

// Get returns one node of the mirror.
func (m *Mirror) Get(path string) (Node, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := m.nodes[path]
	if n == nil || !n.inTree() {
		return Node{}, false
	}
	return Node{Data: n.data, Stat: n.stat}, true
}

// OpenSubtree adds path and everything below it to the mirror (data and
// children, recursively, all watched) until the matching CloseSubtree.
// Opens are counted. The nodes arrive as Created events.
func (m *Mirror) OpenSubtree(path string) error {
	if err := validatePath(path); err != nil {
		return fmt.Errorf("open subtree %q: %v", path, err)
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

func (m *Mirror) worker() {
	for {
		var j job
		select {
		case j = <-m.jobs:
		case <-m.quit:
			return
		}
		r := result{job: j}
		full, err := m.conn.full(j.n.path)
		if err == nil {
			switch j.op {
			case opGet:
				r.data, r.stat, _, err = m.zk.GetW(full)
			case opChildren:
				r.kids, _, _, err = m.zk.ChildrenW(full)
			case opExists:
				r.exists, r.stat, _, err = m.zk.ExistsW(full)
			}
		}
		r.err = err
		select {
		case m.results <- r:
		case <-m.quit:
			return
		}
	}
}

func (m *Mirror) loop() {
	defer close(m.done)
	defer close(m.out)
	defer m.stop()
	// Also when the Conn closed first: the workers wait on quit.
	defer m.once.Do(func() { close(m.quit) })

	flush := time.NewTimer(time.Hour)
	flush.Stop()
	armed, due := false, false
	retryTicks := m.opts.retryTicks
	if retryTicks == nil {
		// Requests can fail with the connection after the new session's
		// event was handled: the ticker re-sends those.
		t := time.NewTicker(500 * time.Millisecond)
		defer t.Stop()
		retryTicks = t.C
	}
	defer flush.Stop()

	m.mu.Lock()
	if m.state == StateConnected {
		m.startLoad()
	}
	m.mu.Unlock()

	var spare []zk.Event
	for {
		// Cut a batch when one is due and the previous one was taken.
		if m.frozen == nil && (m.co.len() > 0 || len(m.states) > 0) {
			if !armed && !due {
				flush.Reset(m.opts.FlushInterval)
				armed = true
			}
			if due || m.co.len() >= m.opts.FlushEvents {
				m.mu.Lock()
				m.frozen = &Batch{Events: m.co.cut(), States: m.states}
				m.states = nil
				m.mu.Unlock()
				due = false
				if armed {
					flush.Stop()
					armed = false
				}
			}
		}
		var out chan Batch
		var next Batch
		if m.frozen != nil {
			out, next = m.out, *m.frozen
		}
		var jobs chan job
		var head job
		if m.qhead < len(m.queue) {
			jobs, head = m.jobs, m.queue[m.qhead]
		}

		select {
		case <-m.quit:
			return
		case <-m.conn.Done():
			return
		case out <- next:
			m.frozen = nil
		case jobs <- head:
			m.qhead++
			m.sendJobs()
		case r := <-m.results:
			m.mu.Lock()
			m.handle(r)
			// Drain what else is ready under the same lock.
			for i := 0; i < 256; i++ {
				select {
				case r = <-m.results:
					m.handle(r)
					continue
				default:
				}
				break
			}
			m.afterWork()
			m.mu.Unlock()
			m.sendJobs()
		case <-m.wake:
			m.evMu.Lock()
			evs := m.evQ
			m.evQ = spare[:0]
			m.evMu.Unlock()
			m.mu.Lock()
			for _, ev := range evs {
				m.handleEvent(ev)
			}
			m.afterWork()
			m.mu.Unlock()
			clear(evs)
			spare = evs
			m.sendJobs()
		case f := <-m.ctl:
			m.mu.Lock()
			f()
			m.afterWork()
			m.mu.Unlock()
		case <-flush.C:
			armed, due = false, true
		case <-retryTicks:
			m.mu.Lock()
			if m.state == StateConnected {
				m.flushRetries()
			}
			m.mu.Unlock()
		}
	}
}

// sendJobs hands queued jobs to idle workers without blocking.
func (m *Mirror) sendJobs() {
	for m.qhead < len(m.queue) {
		select {
		case m.jobs <- m.queue[m.qhead]:
			m.queue[m.qhead] = job{}
			m.qhead++
			continue
		default:
		}
		break
	}
	if m.qhead == len(m.queue) {
		m.queue, m.qhead = m.queue[:0], 0
	} else if m.qhead > 4096 && m.qhead > len(m.queue)/2 {
		m.queue = append(m.queue[:0], m.queue[m.qhead:]...)
		m.qhead = 0
	}
}

// afterWork finishes a load once every followed node has been read.
func (m *Mirror) afterWork() {
	if m.stats.Loading && !m.needLoad && m.unloaded == 0 {
		m.finishLoad()
	}
}

func (m *Mirror) startLoad() {
	m.needLoad = false
	m.stats.Loading = true
	m.loadAt = time.Now()
	for _, l := range m.shape.Lists {
		n := m.getOrCreate(l.Path)
		before := m.snap(n)
		n.shapeList = true
		n.readKids = n.readKids || l.ReadChildren
		m.settle(n, before)
	}
	for _, p := range m.shape.Reads {
		n := m.getOrCreate(p)
		before := m.snap(n)
		n.single = true
		m.settle(n, before)
	}
	for p, k := range m.opens {
		n := m.getOrCreate(p)
		before := m.snap(n)
		n.opened = int32(k)
		m.rebrowse(n, before)
	}
}

func (m *Mirror) finishLoad() {
	m.stats.Loading = false
	m.stats.Loads++
	m.stats.LoadTime = time.Since(m.loadAt)
	evs := make([]Event, 0, m.stats.Nodes)
	for p, n := range m.nodes {
		if n.inTree() {
			evs = append(evs, Event{Type: Created, Path: p, Data: n.data, Stat: n.stat})
		}
	}
	states := m.states
	if m.frozen != nil {
		// The consumer has not taken it yet; the reset supersedes it.
		states = append(m.frozen.States, states...)
	}
	m.frozen = &Batch{Reset: true, Events: evs, States: capStates(states)}
	m.states = nil
	m.co.reset()
}

// expire throws the tree away after a session expiry; a reload starts
// with the new session.
func (m *Mirror) expire() {
	m.gen++
	m.nodes = map[string]*node{}
	m.queue, m.qhead = nil, 0
	m.retry = nil
	m.unloaded = 0
	m.co.reset()
	if m.frozen != nil {
		m.states = capStates(append(m.frozen.States, m.states...))
		m.frozen = nil
	}
	loads, lt, req, rt, errs := m.stats.Loads, m.stats.LoadTime, m.stats.Requests, m.stats.Retries, m.stats.Errors
	m.stats = Stats{Loading: true, Loads: loads, LoadTime: lt, Requests: req, Retries: rt, Errors: errs}
	m.needLoad = true
}

func capStates(s []State) []State {
	if len(s) > 16 {
		return append([]State(nil), s[len(s)-16:]...)
	}
	return s
}

func (m *Mirror) addState(s State) {
	m.state = s
	if n := len(m.states); n > 0 && m.states[n-1] == s {
		return
	}
	m.states = capStates(append(m.states, s))
}

func (m *Mirror) flushRetries() {
	for _, j := range m.retry {
		if j.gen == m.gen && m.nodes[j.n.path] == j.n {
			m.queue = append(m.queue, j)
			m.stats.Retries++
		}
	}
	m.retry = m.retry[:0]
}

func (m *Mirror) handleEvent(ev zk.Event) {
	if ev.Type == zk.EventSession {
		s, ok := StateOf(ev.State)
		if !ok {
			return
		}
		if s == StateExpired {
			m.expire()
		}
		// A TCP connect is still "connecting"; do not repeat it.
		m.addState(s)
		if s == StateConnected {
			if m.needLoad {
				m.startLoad()
			}
			m.flushRetries()
		}
		return
	}
	n := m.nodes[ev.Path]
	if n == nil {
		return // not followed (any more)
	}
	switch ev.Type {
	case zk.EventNodeCreated:
		m.setWatch(n, kData, false)
		m.setWatch(n, kList, false)
		if n.wantData() {
			m.schedule(n, kData)
		}
		if n.wantList() {
			m.schedule(n, kList)
		}
	case zk.EventNodeDataChanged:
		m.setWatch(n, kData, false)
		if n.wantData() {
			m.schedule(n, kData)
		}
	case zk.EventNodeChildrenChanged:
		m.setWatch(n, kList, false)
		if n.wantList() {
			m.schedule(n, kList)
		}
	case zk.EventNodeDeleted:
		m.setWatch(n, kData, false)
		m.setWatch(n, kList, false)
		if n.wantData() {
			if n.busy[kData] {
				n.dirty[kData] = true
			} else {
				m.setAbsent(n)
				if n.watchAbsent() {
					m.push(n, kData, opExists)
				}
			}
		}
		if n.wantList() {
			if n.busy[kList] {
				n.dirty[kList] = true
			} else {
				m.listGone(n)
				if n.watchAbsent() {
					m.push(n, kList, opExists)
				}
			}
		}
		if !n.keep() {
			m.forget(n)
		}
	}
}

func (m *Mirror) handle(r result) {
	m.handled++
	n := r.n
	if r.gen != m.gen || m.nodes[n.path] != n {
		return // forgotten, or from before a session expiry
	}
	if r.err != nil && connErr(r.err) && !errors.Is(r.err, zk.ErrSessionExpired) && !errors.Is(r.err, zk.ErrClosing) {
		// Connection lost: retry once a session is there. The node stays
		// busy, so nothing else queues the same request.
		m.retry = append(m.retry, r.job)
		return
	}
	if r.err != nil && (errors.Is(r.err, zk.ErrSessionExpired) || errors.Is(r.err, zk.ErrClosing)) {
		return // the expiry reset or the close takes care of it
	}
	k := int(r.kind)
	n.busy[k] = false
	noNode := errors.Is(r.err, zk.ErrNoNode)
	if r.err != nil && !noNode {
		m.stats.Errors++
		m.conn.log.Printf("zkwatch: %s %s: %v", opName(r.op), n.path, r.err)
	}
	switch {
	case r.op == opGet && r.err == nil:
		m.setWatch(n, kData, true)
		if n.wantData() {
			m.setPresent(n, r.data, r.stat)
		}
	case r.op == opGet && noNode:
		// No watch is set on a missing node, and a data watch armed by an
		// earlier read has fired with the deletion (maybe before that read's
		// reply was handled here, which set the flag again).
		m.setWatch(n, kData, false)
		m.setAbsent(n)
		m.followAbsent(n, kData)
	case r.op == opChildren && r.err == nil:
		m.setWatch(n, kList, true)
		if n.wantList() {
			m.setChildren(n, r.kids)
		}
	case r.op == opChildren && noNode:
		m.setWatch(n, kList, false)
		m.listGone(n)
		m.followAbsent(n, kList)
	case r.op == opExists && r.err == nil:
		m.setWatch(n, k, true)
		if r.exists {
			// Created meanwhile: read it (the exists set a data watch).
			if k == kData && n.wantData() {
				m.push(n, kData, opGet)
			} else if k == kList && n.wantList() {
				m.push(n, kList, opChildren)
			}
		} else if k == kData {
			m.setAbsent(n)
		}
	}
	if n.pending[k] && !n.busy[k] {
		n.pending[k] = false
		n.loaded[k] = true
		m.unloaded--
	}
	if n.dirty[k] && !n.busy[k] {
		n.dirty[k] = false
		if k == kData && n.wantData() {
			m.push(n, kData, opGet)
		} else if k == kList && n.wantList() {
			m.push(n, kList, opChildren)
		}
	}
	if !n.keep() {
		m.forget(n)
	}
}

// followAbsent makes sure a node found missing is noticed when it comes
// back. A read of a missing node sets no watch. Nodes followed while absent
// get an exist watch. A listed child is covered by its parent's listing,
// but only by one served after this read: a listing served earlier may have
// been processed already (replies reach the loop through different
// workers, not in wire order), so the parent is listed again.
func (m *Mirror) followAbsent(n *node, k int) {
	want := k == kData && n.wantData() || k == kList && n.wantList()
	switch {
	case !want:
	case n.watchAbsent():
		m.push(n, k, opExists)
	case n.parent != nil:
		m.schedule(n.parent, kList)
	}
}

func opName(o op) string {
	switch o {
	case opGet:
		return "get"
	case opChildren:
		return "children"
	}
	return "exists"
}

func (m *Mirror) setWatch(n *node, k int, on bool) {
	if n.watch[k] == on {
		return
	}
	n.watch[k] = on
	switch {
	case m.opts.Once: // read without a watch: none to count
	case on:
		m.stats.Watches++
	default:
		m.stats.Watches--
	}
}

// schedule reads a node's data or children, or marks it for a re-read when
// a request of that kind is already under way.
func (m *Mirror) schedule(n *node, k int) {
	if n.busy[k] {
		n.dirty[k] = true
		return
	}
	if k == kData {
		m.push(n, kData, opGet)
	} else {
		m.push(n, kList, opChildren)
	}
}

func (m *Mirror) push(n *node, k int, o op) {
	n.busy[k] = true
	if !n.loaded[k] && !n.pending[k] {
		n.pending[k] = true
		m.unloaded++
	}
	m.queue = append(m.queue, job{n: n, kind: uint8(k), op: o, gen: m.gen})
	m.stats.Requests++
}

func (m *Mirror) getOrCreate(p string) *node {
	n := m.nodes[p]
	if n == nil {
		n = &node{path: p}
		m.nodes[p] = n
	}
	return n
}

// snapshot of a node before a change, to tell what the consumer sees change.
type snap struct {
	in   bool
	stat *zk.Stat
	size int
}

func (m *Mirror) snap(n *node) snap {
	return snap{in: n.inTree(), stat: n.stat, size: len(n.data)}
}

// after accounts for a change of n and emits its event.
func (m *Mirror) after(n *node, b snap) {
	now := n.inTree()
	switch {
	case !b.in && now:
		m.stats.Nodes++
		m.stats.Bytes += int64(len(n.data))
		m.emit(Created, n, false, 0)
	case b.in && !now:
		m.stats.Nodes--
		m.stats.Bytes -= int64(b.size)
		m.emit(Deleted, n, true, czxidOf(b.stat))
	case b.in && now && b.stat != n.stat:
		m.stats.Bytes += int64(len(n.data) - b.size)
		m.emit(Changed, n, true, czxidOf(b.stat))
	}
}

func (m *Mirror) emit(t EventType, n *node, had bool, czxid int64) {
	if m.stats.Loading {
		return // the reset batch carries the tree
	}
	ev := Event{Type: t, Path: n.path}
	if t != Deleted {
		ev.Data, ev.Stat = n.data, n.stat
	}
	m.co.add(ev, had, czxid)
}

// setPresent stores a read. Unchanged data keeps the old pointers, so no
// event is emitted and Derive is not called again.
func (m *Mirror) setPresent(n *node, data []byte, stat *zk.Stat) {
	b := m.snap(n)
	same := n.exists && n.stat != nil && *n.stat == *stat &&
		bytes.Equal(n.data, data) && (n.data == nil) == (data == nil)
	if !same {
		n.data, n.stat = data, stat
	}
	n.exists = true
	m.derive(n)
	m.after(n, b)
}

func (m *Mirror) setAbsent(n *node) {
	b := m.snap(n)
	n.exists, n.data, n.stat = false, nil, nil
	m.derive(n)
	m.after(n, b)
}

// setChildren applies a listing of n.
func (m *Mirror) setChildren(n *node, kids []string) {
	m.stamp++
	if n.children == nil {
		n.children = make(map[string]*node, len(kids))
	}
	for _, name := range kids {
		ch := n.children[name]
		if ch == nil {
			ch = m.getOrCreate(join(n.path, name))
			b := m.snap(ch)
			n.children[name] = ch
			ch.parent = n
			ch.seen = m.stamp
			m.rebrowse(ch, b)
			continue
		}
		ch.seen = m.stamp
		// Deleted and re-created between two listings: read it again.
		if ch.wantData() && !ch.exists && !ch.busy[kData] && !ch.watch[kData] {
			m.schedule(ch, kData)
		}
	}
	for name, ch := range n.children {
		if ch.seen != m.stamp {
			delete(n.children, name)
			b := m.snap(ch)
			ch.parent = nil
			m.rebrowse(ch, b)
		}
	}
}

// listGone drops the children of a container that no longer exists.
func (m *Mirror) listGone(n *node) {
	m.setChildren(n, nil)
	n.children = nil
}

func join(parent, name string) string {
	if parent == "/" {
		return "/" + name
	}
	return parent + "/" + name
}

// rebrowse recomputes whether n is inside an opened subtree (for it and,
// if that changed, its children) and settles it.
func (m *Mirror) rebrowse(n *node, b snap) {
	nb := n.opened > 0 || (n.parent != nil && n.parent.browse)
	if nb != n.browse {
		n.browse = nb
		for _, ch := range n.children {
			m.rebrowse(ch, m.snap(ch))
		}
	}
	m.settle(n, b)
}

// settle brings a node in line with its reasons after they changed: reads
// what is newly wanted, drops what no longer is, emits the event, and
// forgets the node when nothing follows it any more.
func (m *Mirror) settle(n *node, b snap) {
	if !n.wantData() {
		n.exists = n.parent != nil // a names-only child exists while listed
		n.data, n.stat = nil, nil
	} else if !n.exists && !n.busy[kData] && !n.watch[kData] {
		m.schedule(n, kData)
	}
	m.derive(n)
	if !n.wantList() {
		for name, ch := range n.children {
			delete(n.children, name)
			cb := m.snap(ch)
			ch.parent = nil
			m.rebrowse(ch, cb)
		}
		n.children = nil
	} else if n.children == nil && !n.busy[kList] && !n.watch[kList] {
		m.schedule(n, kList)
	}
	m.after(n, b)
	if !n.keep() {
		m.forget(n)
	}
}

// forget stops following n. Its server-side watches stay until they fire;
// their events are then ignored.
func (m *Mirror) forget(n *node) {
	if m.nodes[n.path] != n {
		return
	}
	delete(m.nodes, n.path)
	for k := range 2 {
		if n.pending[k] {
			n.pending[k] = false
			m.unloaded--
		}
		m.setWatch(n, k, false)
	}
}

// callDerive runs Shape.Derive; a panic in it (a decoder bug meeting odd
// data) is logged and means no derived paths, rather than a dead mirror.
func (m *Mirror) callDerive(n *node) (paths []string) {
	defer func() {
		if r := recover(); r != nil {
			m.stats.Errors++
			m.conn.log.Printf("zkwatch: Derive(%s) panicked: %v", n.path, r)
			paths = nil
		}
	}()
	return m.shape.Derive(n.path, n.data)
}

// derive recomputes the paths n's data names and follows or releases them.
func (m *Mirror) derive(n *node) {
	var key *zk.Stat
	if n.exists && n.wantData() && n.stat != nil {
		key = n.stat
	}
	if key == n.dkey {
		return
	}
	n.dkey = key
	var want []string
	if key != nil && m.shape.Derive != nil {
		for _, p := range m.callDerive(n) {
			if p == n.path || validatePath(p) != nil {
				continue
			}
			want = append(want, p)
		}
		slices.Sort(want)
		want = slices.Compact(want)
	}
	if slices.Equal(want, n.deriv) {
		return
	}
	old := n.deriv
	n.deriv = want
	i, j := 0, 0
	for i < len(old) || j < len(want) {
		switch {
		case j == len(want) || i < len(old) && old[i] < want[j]:
			if t := m.nodes[old[i]]; t != nil {
				b := m.snap(t)
				t.derived--
				m.settle(t, b)
			}
			i++
		case i == len(old) || want[j] < old[i]:
			t := m.getOrCreate(want[j])
			b := m.snap(t)
			t.derived++
			m.settle(t, b)
			j++
		default:
			i++
			j++
		}
	}
}
