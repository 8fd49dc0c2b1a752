package zkwatch

import (
	"errors"
	"slices"
	"time"

	"github.com/go-zookeeper/zk"
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

func (m *Mirror) worker() {
	for {
		var j job
		select {
		case j = <-m.jobs:
		case <-m.quit:
			return
		}
		r := result{job: j}
		full, err := j.n.full, error(nil)
		if full == "" {
			full, err = m.conn.full(j.n.path)
		}
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
		partial := m.partial()
		if m.frozen == nil && m.ending {
			m.mu.Lock()
			m.frozen = &Batch{Events: m.co.cut(), States: m.states, Loaded: true, Progress: m.progress}
			m.states, m.ending = nil, false
			m.mu.Unlock()
			due = false
			if armed {
				flush.Stop()
				armed = false
			}
		}
		if m.frozen == nil && (m.co.len() > 0 || len(m.states) > 0 || partial && m.progress != m.sentProg) {
			if !armed && !due {
				d := m.opts.FlushInterval
				if partial {
					d *= 2
				}
				flush.Reset(d)
				armed = true
			}
			// A partial load is cut by time only: its batches are big,
			// and each costs the consumer a snapshot and a frame.
			if due || !partial && m.co.len() >= m.opts.FlushEvents {
				m.mu.Lock()
				m.frozen = &Batch{Events: m.co.cut(), States: m.states}
				if partial {
					m.frozen.Partial, m.frozen.Progress = true, m.progress
					m.sentProg, m.partialSent = m.progress, true
				}
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
		if n := len(m.front); n > 0 {
			jobs, head = m.jobs, m.front[n-1]
		} else if m.qhead < len(m.queue) {
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
			if n := len(m.front); n > 0 {
				m.front[n-1] = job{}
				m.front = m.front[:n-1]
			} else {
				m.qhead++
			}
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
			m.checkStall()
			m.mu.Unlock()
		}
	}
}

// sendJobs hands queued jobs to idle workers without blocking.
func (m *Mirror) sendJobs() {
	for n := len(m.front); n > 0; n-- {
		select {
		case m.jobs <- m.front[n-1]:
			m.front[n-1] = job{}
			m.front = m.front[:n-1]
			continue
		default:
		}
		return
	}
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

// partial reports that the load under way is delivered as it goes
// (MirrorOptions.Progress: the first load only).
func (m *Mirror) partial() bool {
	return m.opts.Progress && m.stats.Loading && m.stats.Loads == 0 && !m.needLoad
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
	m.progress, m.sentProg = Progress{}, Progress{}
	m.streaming = m.opts.Progress && m.stats.Loads == 0 && !m.partialSent
	for _, l := range m.shape.Lists {
		n := m.getOrCreate(l.Path)
		before := m.snap(n)
		n.shapeList = true
		n.readKids = n.readKids || l.ReadChildren
		n.first = n.first || l.First
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
	if m.streaming {
		// The consumer has what the Partial batches carried; the rest
		// is in the coalescer: the loop cuts it as the Loaded batch.
		m.streaming, m.ending = false, true
		return
	}
	evs := make([]Event, 0, m.stats.Nodes)
	for p, n := range m.nodes {
		if n.inTree() {
			evs = append(evs, Event{Type: Created, Path: p, Data: n.data, Stat: n.stat, Denied: n.access()})
		}
	}
	states := m.states
	if m.frozen != nil {
		// The consumer has not taken it yet; the reset supersedes it.
		states = append(m.frozen.States, states...)
	}
	m.frozen = &Batch{Reset: true, Events: evs, States: capStates(states), Progress: m.progress}
	m.states = nil
	m.co.reset()
}

// expire throws the tree away after a session expiry; a reload starts
// with the new session.
func (m *Mirror) expire() {
	m.gen++
	m.nodes = map[string]*node{}
	m.queue, m.qhead, m.front = nil, 0, nil
	m.retry = nil
	m.unloaded = 0
	m.co.reset()
	m.streaming, m.ending = false, false
	if m.frozen != nil {
		m.states = capStates(append(m.frozen.States, m.states...))
		m.frozen = nil
	}
	loads, lt, req, rt, errs := m.stats.Loads, m.stats.LoadTime, m.stats.Requests, m.stats.Retries, m.stats.Errors
	m.stats = Stats{Loading: true, Loads: loads, LoadTime: lt, Requests: req, Retries: rt, Errors: errs}
	m.needLoad = true
}

// capStates keeps a batch's states to the last 16 (a consumer that does
// not take batches while go-zookeeper retries would otherwise pile up a
// connecting and a disconnected per attempt), and an expiry among those
// dropped: it tells the consumer that what it holds is gone (the reset or
// reload follows), which no later state says.
func capStates(s []State) []State {
	const most = 16
	if len(s) <= most {
		return s
	}
	keep := append([]State(nil), s[len(s)-most:]...)
	if slices.Contains(s[:len(s)-most], StateExpired) && !slices.Contains(keep, StateExpired) {
		keep[0] = StateExpired
	}
	return keep
}

func (m *Mirror) addState(s State) {
	m.state = s
	m.stalled = false
	m.emitState(s)
}

// emitState reports s in the next batch.
func (m *Mirror) emitState(s State) {
	if n := len(m.states); n > 0 && m.states[n-1] == s {
		return
	}
	m.states = capStates(append(m.states, s))
}

// checkStall reports StateUnresponsive while the session's server leaves
// what it was sent unanswered for StallAfter or more, and StateConnected
// once it answers again. go-zookeeper keeps such a connection until its
// receive timeout; the data shown meanwhile may be stale. A stall shows
// only once something was sent: go-zookeeper pings an idle connection
// every third of the session timeout, so after half of StallAfter without
// a request the mirror asks the server something (whether "/" exists).
func (m *Mirror) checkStall() {
	if m.opts.StallAfter < 0 {
		return
	}
	if m.state == StateConnected && m.conn.idle() >= m.opts.StallAfter/2 && m.probing.CompareAndSwap(false, true) {
		go func() {
			defer m.probing.Store(false)
			if full, err := m.conn.full("/"); err == nil {
				_, _, _ = m.conn.raw.Exists(full)
			}
		}()
	}
	stalled := m.state == StateConnected && m.conn.Silence() >= m.opts.StallAfter
	if stalled == m.stalled {
		return
	}
	m.stalled = stalled
	if stalled {
		m.emitState(StateUnresponsive)
	} else if m.state == StateConnected {
		m.emitState(StateConnected)
	}
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
	noAuth := errors.Is(r.err, zk.ErrNoAuth)
	switch {
	case noAuth:
		m.stats.Denied++
	case r.err != nil && !noNode:
		m.stats.Errors++
		m.conn.log.Printf("zkwatch: %s %s: %v", opName(r.op), n.path, r.err)
	}
	switch {
	case r.op == opGet && noAuth:
		// No watch is set on a refused read. exists sets one (and gives
		// the stat) where ZooKeeper lets it: before 3.8.4/3.9.2 it checks
		// no ACL.
		m.setWatch(n, kData, false)
		if n.wantData() {
			m.setDenied(n, kData)
			m.push(n, kData, opExists)
		}
	case r.op == opChildren && noAuth:
		m.setWatch(n, kList, false)
		// Its children are unknown until it is listed again (when its
		// parent's listing changes, or after a reload): ZooKeeper sets no
		// child watch without READ, and a change of ACL fires no watch.
		if n.wantList() {
			m.setDenied(n, kList)
		}
	case r.op == opExists && noAuth:
		// 3.8.4+/3.9.2+: not even exists; the node stays marked, unwatched.
	case r.op == opExists && r.err == nil && r.exists && n.denied[k]:
		// The refused node's watch is armed: its change re-reads it.
		m.setWatch(n, k, true)
		if k == kData {
			m.setStat(n, r.stat)
		}
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
		m.progress.Done++
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
		m.progress.Known++
	}
	j := job{n: n, kind: uint8(k), op: o, gen: m.gen}
	if o == opGet && (n.derived > 0 || n.parent != nil && n.parent.first) && m.partial() {
		// A partial load reads derived nodes first (last named, first
		// read): a topic's states right after it, so that whole topics
		// can be shown early, rather than every topic, then every state;
		// and the children of First lists.
		m.front = append(m.front, j)
	} else {
		m.queue = append(m.queue, j)
	}
	m.stats.Requests++
}
