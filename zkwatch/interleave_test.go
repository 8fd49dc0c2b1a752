package zkwatch

import (
	"fmt"
	"maps"
	"path"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
)

// The tests in this file run a Mirror against a scripted ZooKeeper: every
// request the mirror makes stops at the script, which decides when the
// server answers it (what it sees then) and, separately, when the answer
// reaches the mirror. That reproduces the orderings a real server and
// go-zookeeper's goroutines produce only by chance: a reply overtaken by
// a watch event, two replies handled in the opposite order to the one in
// which they were served, a request lost with the connection.

// failAfter bounds every wait of these tests. It is never reached when the
// mirror behaves; when it does not, the awaited request never comes.
const failAfter = 30 * time.Second

type scriptNode struct {
	data  []byte
	stat  zk.Stat
	kids  map[string]bool
	dataW bool // a data (or exists) watch is armed
	kidsW bool // a child watch is armed
}

// script is the scripted server: a tree, the watches armed on it, and the
// requests waiting for the script.
type script struct {
	t     *testing.T
	mu    sync.Mutex
	nodes map[string]*scriptNode
	zxid  int64
	fire  func(zk.Event) // the mirror's event listener
	reqs  chan *request
	// answered counts the replies released to the mirror.
	answered atomic.Uint64
	absent   map[string]bool // exists watches armed on missing nodes
}

// request is one call of the mirror, held until released.
type request struct {
	s      *script
	op     string // "get", "children" or "exists"
	path   string
	served bool
	fail   error // answer with this error instead of serving it

	data   []byte
	stat   *zk.Stat
	kids   []string
	exists bool
	err    error

	release chan struct{}
}

func newScript(t *testing.T) *script {
	return &script{t: t, nodes: map[string]*scriptNode{"/": {kids: map[string]bool{}}}, reqs: make(chan *request, 64),
		absent: map[string]bool{}}
}

// set creates or changes a node (its parent must exist) and fires the
// watches ZooKeeper would.
func (s *script) set(p, data string) {
	s.mu.Lock()
	s.zxid++
	n := s.nodes[p]
	var evs []zk.Event
	if n == nil {
		n = &scriptNode{kids: map[string]bool{}, stat: zk.Stat{Czxid: s.zxid}}
		s.nodes[p] = n
		parent := s.nodes[path.Dir(p)]
		parent.kids[path.Base(p)] = true
		evs = append(evs, s.fireData(n, p, zk.EventNodeCreated)...)
		evs = append(evs, s.fireKids(parent, path.Dir(p))...)
	} else {
		n.stat.Version++
		evs = append(evs, s.fireData(n, p, zk.EventNodeDataChanged)...)
	}
	n.data, n.stat.Mzxid = []byte(data), s.zxid
	s.mu.Unlock()
	s.deliver(evs)
}

// remove deletes a leaf node and fires the watches.
func (s *script) remove(p string) {
	s.mu.Lock()
	s.zxid++
	n := s.nodes[p]
	delete(s.nodes, p)
	parent := s.nodes[path.Dir(p)]
	delete(parent.kids, path.Base(p))
	evs := s.fireData(n, p, zk.EventNodeDeleted)
	if n.kidsW {
		n.kidsW = false
		evs = append(evs, zk.Event{Type: zk.EventNodeDeleted, Path: p})
	}
	evs = append(evs, s.fireKids(parent, path.Dir(p))...)
	s.mu.Unlock()
	s.deliver(evs)
}

func (s *script) fireData(n *scriptNode, p string, t zk.EventType) []zk.Event {
	armed := n != nil && n.dataW
	if n != nil {
		n.dataW = false
	}
	if t == zk.EventNodeCreated && s.absent[p] {
		armed = true
		delete(s.absent, p)
	}
	if !armed {
		return nil
	}
	return []zk.Event{{Type: t, Path: p}}
}

func (s *script) fireKids(n *scriptNode, p string) []zk.Event {
	if !n.kidsW {
		return nil
	}
	n.kidsW = false
	return []zk.Event{{Type: zk.EventNodeChildrenChanged, Path: p}}
}

func (s *script) deliver(evs []zk.Event) {
	for _, ev := range evs {
		s.fire(ev)
	}
}

// session reports a session state change to the mirror.
func (s *script) session(st zk.State) { s.fire(zk.Event{Type: zk.EventSession, State: st}) }

// next waits for the mirror's next request and checks what it asks.
func (s *script) next(op, p string) *request {
	s.t.Helper()
	select {
	case r := <-s.reqs:
		if r.op != op || r.path != p {
			s.t.Fatalf("request %s %s, want %s %s", r.op, r.path, op, p)
		}
		return r
	case <-time.After(failAfter):
		s.t.Fatalf("no request %s %s from the mirror", op, p)
		return nil
	}
}

// serve answers r from the tree as it is now, arming r's watch.
func (r *request) serve() *request {
	s := r.s
	s.mu.Lock()
	defer s.mu.Unlock()
	r.served = true
	if r.fail != nil {
		r.err = r.fail
		return r
	}
	n := s.nodes[r.path]
	switch {
	case r.op == "exists" && n == nil:
		s.absent[r.path] = true
	case n == nil:
		r.err = zk.ErrNoNode
	case r.op == "get" || r.op == "exists":
		st := n.stat
		r.data, r.stat, r.exists = n.data, &st, true
		n.dataW = true
	default:
		for k := range n.kids {
			r.kids = append(r.kids, k)
		}
		slices.Sort(r.kids)
		n.kidsW = true
	}
	return r
}

// answer lets the reply reach the mirror.
func (r *request) answer() {
	if !r.served {
		r.serve()
	}
	r.s.answered.Add(1)
	close(r.release)
}

// failWith makes r end with err (a lost connection), served or not.
func (r *request) failWith(err error) {
	r.fail = err
	r.err = err
	r.served = true
	r.s.answered.Add(1)
	close(r.release)
}

// settle waits until the mirror has handled every reply released and
// every event fired so far. It asks the mirror's loop, which handles the
// events it takes from its queue in the same turn.
func (s *script) settle(m *Mirror) {
	s.t.Helper()
	deadline := time.Now().Add(failAfter)
	for {
		ch := make(chan bool, 1)
		if err := m.control(func() {
			m.evMu.Lock()
			empty := len(m.evQ) == 0
			m.evMu.Unlock()
			ch <- empty && m.handled == s.answered.Load()
		}); err != nil {
			s.t.Fatal(err)
		}
		if <-ch {
			return
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("the mirror has not handled the %d replies released", s.answered.Load())
		}
		runtime.Gosched()
	}
}

// collect waits for the mirror's next n requests, in any order.
func (s *script) collect(n int) map[string]*request {
	s.t.Helper()
	got := map[string]*request{}
	for range n {
		select {
		case r := <-s.reqs:
			got[r.op+" "+r.path] = r
		case <-time.After(failAfter):
			s.t.Fatalf("the mirror sent %d of %d requests: %v", len(got), n, got)
		}
	}
	return got
}

// want returns the collected request op+" "+path.
func want(t *testing.T, reqs map[string]*request, key string) *request {
	t.Helper()
	r := reqs[key]
	if r == nil {
		t.Fatalf("no request %s among %v", key, reqs)
	}
	return r
}

func (s *script) call(op, p string) *request {
	r := &request{s: s, op: op, path: p, release: make(chan struct{})}
	s.reqs <- r
	<-r.release
	return r
}

func (s *script) GetW(p string) ([]byte, *zk.Stat, <-chan zk.Event, error) {
	r := s.call("get", p)
	return r.data, r.stat, nil, r.err
}

func (s *script) ChildrenW(p string) ([]string, *zk.Stat, <-chan zk.Event, error) {
	r := s.call("children", p)
	return r.kids, nil, nil, r.err
}

func (s *script) ExistsW(p string) (bool, *zk.Stat, <-chan zk.Event, error) {
	r := s.call("exists", p)
	return r.exists, r.stat, nil, r.err
}

// startScripted starts a Mirror on the script, connected.
// Its retry ticker is ticks (nil: never ticks).
func startScripted(t *testing.T, s *script, shape Shape, ticks <-chan time.Time) (*Mirror, *consumer) {
	t.Helper()
	return startScriptedWith(t, s, shape, MirrorOptions{retryTicks: ticks})
}

// startScriptedWith is startScripted with options (concurrency 16 and a
// 1 ms flush unless o says else).
func startScriptedWith(t *testing.T, s *script, shape Shape, o MirrorOptions) (*Mirror, *consumer) {
	t.Helper()
	c := &Conn{closed: make(chan struct{}), log: &logTap{}}
	if o.retryTicks == nil {
		o.retryTicks = make(chan time.Time)
	}
	if o.Concurrency == 0 {
		o.Concurrency = 16
	}
	if o.FlushInterval == 0 {
		o.FlushInterval = time.Millisecond
	}
	m, err := newMirror(c, s, StateConnected, shape, o)
	if err != nil {
		t.Fatal(err)
	}
	s.fire = m.onEvent
	cons := &consumer{m: m, got: make(chan Batch, 1024)}
	go func() {
		for b := range m.Batches() {
			cons.got <- b
		}
		close(cons.got)
	}()
	t.Cleanup(func() {
		_ = m.Close()
		// Workers still waiting on the script end with the connection.
		for {
			select {
			case r := <-s.reqs:
				r.failWith(zk.ErrClosing)
			default:
				return
			}
		}
	})
	return m, cons
}

// consumer keeps what the mirror's batches said about each node.
type consumer struct {
	m     *Mirror
	got   chan Batch
	nodes map[string]string
}

// waitNode reads batches until the consumer's picture has p with data.
func (c *consumer) waitNode(t *testing.T, p, data string) {
	t.Helper()
	if c.nodes == nil {
		c.nodes = map[string]string{}
	}
	deadline := time.After(failAfter)
	for {
		if v, ok := c.nodes[p]; ok && v == data {
			return
		}
		select {
		case b := <-c.got:
			if b.Reset {
				clear(c.nodes)
			}
			for _, e := range b.Events {
				if e.Type == Deleted {
					delete(c.nodes, e.Path)
				} else {
					c.nodes[e.Path] = string(e.Data)
				}
			}
		case <-deadline:
			t.Fatalf("%s=%q never reached the consumer; it has %v; the mirror has %v", p, data, c.nodes, treeString(c.m.Tree()))
		}
	}
}

func treeString(tree map[string]Node) string {
	var b strings.Builder
	for _, p := range slices.Sorted(maps.Keys(tree)) {
		fmt.Fprintf(&b, "%s=%q ", p, tree[p].Data)
	}
	return b.String()
}

var idsShape = Shape{Lists: []List{{Path: "/ids", ReadChildren: true}}}

// idsScript is a server with /ids/1 = "a".
func idsScript(t *testing.T) *script {
	s := newScript(t)
	s.set("/ids", "")
	s.set("/ids/1", "a")
	return s
}

// TestMirrorRelistsWhenChildReadsMissing: a child's read is served after
// the child was deleted, but handled after a listing served once it was
// created again. That listing found the child already known and busy, and
// the read set no watch: only listing the parent again finds the new child.
func TestMirrorRelistsWhenChildReadsMissing(t *testing.T) {
	s := idsScript(t)
	m, cons := startScripted(t, s, idsShape, nil)
	s.next("children", "/ids").answer()
	s.settle(m)
	get := s.next("get", "/ids/1")
	s.remove("/ids/1") // fires the child watch of /ids
	get.serve()        // NoNode, held
	relist := s.next("children", "/ids")
	s.set("/ids/1", "b")
	relist.answer() // [1], handled before the read
	s.settle(m)
	get.answer()
	s.settle(m)
	s.next("children", "/ids").answer()
	s.next("get", "/ids/1").answer()
	cons.waitNode(t, "/ids/1", "b")
}

// TestMirrorClearsFiredWatchFlag: a read's reply is handled after the
// deletion event of the very watch it armed, so the data watch flag it
// sets is stale. The NoNode re-read must clear it: otherwise, when a
// listing shows the child created again, the mirror believes a watch
// covers it and never reads it.
func TestMirrorClearsFiredWatchFlag(t *testing.T) {
	s := idsScript(t)
	m, cons := startScripted(t, s, idsShape, nil)
	s.next("children", "/ids").answer()
	s.settle(m)
	s.next("get", "/ids/1").answer()
	s.settle(m)
	cons.waitNode(t, "/ids/1", "a")
	s.set("/ids/1", "a2") // the data watch fires: re-read
	get := s.next("get", "/ids/1")
	get.serve()        // arms a data watch; the reply is held
	s.remove("/ids/1") // fires that watch and the child watch of /ids
	// The listing is asked for after both events were handled.
	relist := s.next("children", "/ids")
	get.answer() // "a2", with a watch flag for a watch that has fired
	s.settle(m)
	s.next("get", "/ids/1").answer() // NoNode
	s.settle(m)
	s.set("/ids/1", "c") // no watch is armed to see it
	relist.answer()      // [1]
	s.settle(m)
	reqs := s.collect(2)
	want(t, reqs, "get /ids/1").answer()
	want(t, reqs, "children /ids").answer()
	cons.waitNode(t, "/ids/1", "c")
}

var retryShape = Shape{Lists: idsShape.Lists, Reads: []string{"/controller"}}

func retryScript(t *testing.T) *script {
	s := idsScript(t)
	s.set("/controller", "x")
	return s
}

// loadRetried answers the retried list and read, then the child's read,
// and waits for both nodes to reach the consumer.
func loadRetried(t *testing.T, s *script, cons *consumer) {
	t.Helper()
	again := s.collect(2)
	want(t, again, "children /ids").answer()
	want(t, again, "get /controller").answer()
	s.next("get", "/ids/1").answer()
	cons.waitNode(t, "/ids/1", "a")
	cons.waitNode(t, "/controller", "x")
}

// TestMirrorRetriesOnReconnect: requests failed by the lost connection are
// sent again when the new session's event comes, and the load completes.
func TestMirrorRetriesOnReconnect(t *testing.T) {
	s := retryScript(t)
	m, cons := startScripted(t, s, retryShape, nil)
	first := s.collect(2)
	s.session(zk.StateDisconnected)
	want(t, first, "children /ids").failWith(zk.ErrConnectionClosed)
	want(t, first, "get /controller").failWith(zk.ErrNoServer)
	s.settle(m)
	s.session(zk.StateConnecting)
	s.session(zk.StateHasSession)
	loadRetried(t, s, cons)
	if st := m.Stats(); st.Retries != 2 || st.Loads != 1 {
		t.Errorf("stats %+v, want 2 retries and 1 load", st)
	}
}

// TestMirrorRetriesFailuresAfterReconnect: a request that fails with the
// old connection after the new session's event was handled is sent again
// at the next retry tick.
func TestMirrorRetriesFailuresAfterReconnect(t *testing.T) {
	s := retryScript(t)
	ticks := make(chan time.Time)
	m, cons := startScripted(t, s, retryShape, ticks)
	first := s.collect(2)
	s.session(zk.StateDisconnected)
	s.session(zk.StateHasSession)
	s.settle(m)
	want(t, first, "children /ids").failWith(zk.ErrConnectionClosed)
	want(t, first, "get /controller").failWith(zk.ErrConnectionClosed)
	s.settle(m)
	ticks <- time.Now()
	loadRetried(t, s, cons)
}

// TestMirrorProgressAfterExpiry: a first load delivered as it goes ends
// with a Loaded batch; when its session expired after Partial batches
// had been delivered, the consumer may hold nodes the new session's tree
// lacks, and the reload ends with a Reset.
func TestMirrorProgressAfterExpiry(t *testing.T) {
	next := func(t *testing.T, cons *consumer) Batch {
		t.Helper()
		for {
			select {
			case b := <-cons.got:
				if len(b.Events) > 0 || b.Loaded || b.Reset {
					return b
				}
			case <-time.After(failAfter):
				t.Fatal("no batch")
			}
		}
	}
	t.Run("still", func(t *testing.T) {
		s := idsScript(t)
		m, cons := startScriptedWith(t, s, idsShape, MirrorOptions{Progress: true})
		s.next("children", "/ids").answer()
		s.settle(m)
		s.next("get", "/ids/1").answer()
		s.settle(m)
		var got []string
		for {
			b := next(t, cons)
			if b.Reset {
				t.Fatal("the load ended with a reset")
			}
			for _, ev := range b.Events {
				got = append(got, ev.Path)
			}
			if b.Loaded {
				break
			}
			if !b.Partial {
				t.Fatalf("a batch of the load neither partial nor loaded: %+v", b)
			}
		}
		slices.Sort(got)
		if !slices.Equal(got, []string{"/ids/1"}) {
			t.Fatalf("the load delivered %v", got)
		}
	})
	t.Run("expired", func(t *testing.T) {
		s := idsScript(t)
		s.set("/ids/2", "b")
		m, cons := startScriptedWith(t, s, idsShape, MirrorOptions{Progress: true})
		s.next("children", "/ids").answer()
		s.settle(m)
		reqs := s.collect(2)
		want(t, reqs, "get /ids/1").answer()
		s.settle(m)
		if b := next(t, cons); !b.Partial || len(b.Events) != 1 || b.Events[0].Path != "/ids/1" {
			t.Fatalf("want a partial batch with /ids/1 first, got %+v", b)
		}
		s.session(zk.StateDisconnected)
		s.session(zk.StateExpired)
		want(t, reqs, "get /ids/2").failWith(zk.ErrSessionExpired)
		s.remove("/ids/1")
		s.session(zk.StateHasSession)
		s.next("children", "/ids").answer()
		s.settle(m)
		s.next("get", "/ids/2").answer()
		s.settle(m)
		for {
			b := next(t, cons)
			if b.Loaded {
				t.Fatal("a reload after delivered partial batches ended without a reset")
			}
			if b.Reset {
				if len(b.Events) != 1 || b.Events[0].Path != "/ids/2" {
					t.Fatalf("reset %+v", b.Events)
				}
				break
			}
		}
	})
}
