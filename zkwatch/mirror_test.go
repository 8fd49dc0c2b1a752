package zkwatch

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unsafe"

	"github.com/go-zookeeper/zk"
	"go.uber.org/goleak"

	"github.com/ktopo/ktopo/internal/testkit/zktest"
)

var seedsFlag = flag.Int("seeds", 0, "seeds for TestMirrorRandom (default 12, 2 with -short)")

// kafkaShape is an example of the shape the cluster package gives a Mirror:
// Kafka's znodes, with partition states derived from topic assignments.
func kafkaShape() Shape {
	return Shape{
		Lists: []List{
			{Path: "/brokers/ids", ReadChildren: true},
			{Path: "/brokers/topics", ReadChildren: true},
			{Path: "/config/topics", ReadChildren: true},
			{Path: "/admin/delete_topics"},
			{Path: "/isr_change_notification", ReadChildren: true},
		},
		Reads:  []string{"/controller", "/controller_epoch", "/cluster/id", "/admin/reassign_partitions"},
		Derive: deriveStates,
	}
}

// deriveStates names /brokers/topics/<t>/partitions/<p>/state for every
// partition of a topic znode's assignment.
func deriveStates(path string, data []byte) []string {
	const prefix = "/brokers/topics/"
	if !strings.HasPrefix(path, prefix) || strings.Contains(path[len(prefix):], "/") {
		return nil
	}
	var a struct {
		Partitions map[string]json.RawMessage `json:"partitions"`
	}
	if json.Unmarshal(data, &a) != nil {
		return nil
	}
	out := make([]string, 0, len(a.Partitions))
	for p := range a.Partitions {
		out = append(out, path+"/partitions/"+p+"/state")
	}
	return out
}

// readShape is the reference: a fresh, plain read of everything a shape
// names (run while the tree is quiet).
func readShape(c *Conn, s Shape) (map[string]Node, error) {
	out := map[string]Node{}
	seen := map[string]bool{}
	var read func(p string) error
	read = func(p string) error {
		if seen[p] {
			return nil
		}
		seen[p] = true
		data, st, err := c.Get(p)
		if errors.Is(err, zk.ErrNoNode) {
			return nil
		}
		if err != nil {
			return err
		}
		out[p] = Node{Data: data, Stat: st}
		if s.Derive != nil {
			for _, d := range s.Derive(p, data) {
				if err := read(d); err != nil {
					return err
				}
			}
		}
		return nil
	}
	for _, l := range s.Lists {
		kids, _, err := c.Children(l.Path)
		if errors.Is(err, zk.ErrNoNode) {
			continue
		}
		if err != nil {
			return nil, err
		}
		for _, k := range kids {
			p := join(l.Path, k)
			if l.ReadChildren {
				if err := read(p); err != nil {
					return nil, err
				}
			} else {
				out[p] = Node{}
			}
		}
	}
	for _, p := range s.Reads {
		if err := read(p); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// diffTrees describes the differences between two trees ("" when equal).
// Data must match byte for byte (nil and empty differ). Stats must match
// except for the child fields (cversion, numChildren, pzxid): a data watch
// does not fire when a node's children change, so without a child watch on
// every node those are as of the node's last data change.
func diffTrees(want, got map[string]Node) string {
	var diffs []string
	for p, w := range want {
		g, ok := got[p]
		switch {
		case !ok:
			diffs = append(diffs, "missing "+p)
		case !bytes.Equal(w.Data, g.Data) || (w.Data == nil) != (g.Data == nil):
			diffs = append(diffs, fmt.Sprintf("%s: data %q (nil %v), want %q (nil %v)", p, g.Data, g.Data == nil, w.Data, w.Data == nil))
		case (w.Stat == nil) != (g.Stat == nil) || w.Stat != nil && maskStat(*w.Stat) != maskStat(*g.Stat):
			diffs = append(diffs, fmt.Sprintf("%s: stat %+v, want %+v", p, g.Stat, w.Stat))
		}
	}
	for p := range got {
		if _, ok := want[p]; !ok {
			diffs = append(diffs, "extra "+p)
		}
	}
	sort.Strings(diffs)
	if len(diffs) > 12 {
		diffs = append(diffs[:12], fmt.Sprintf("… %d more", len(diffs)-12))
	}
	return strings.Join(diffs, "\n")
}

func maskStat(s zk.Stat) zk.Stat {
	s.Cversion, s.NumChildren, s.Pzxid = 0, 0, 0
	return s
}

// replica is a consumer: it applies batches to its own map and checks that
// every event makes sense against what it has.
type replica struct {
	mu      sync.Mutex
	nodes   map[string]Node
	resets  int
	loaded  int // Loaded batches
	started bool
	// loadChanges: Changed and Deleted events of a load's Partial and
	// Loaded batches.
	loadChanges int
	batches     int
	events      int
	states      []State
	errs        []string
	closed      bool
	hold        sync.Mutex // held by a test to stall the consumer
	changed     chan struct{}
}

func follow(m *Mirror) *replica {
	r := &replica{nodes: map[string]Node{}, changed: make(chan struct{}, 1)}
	go func() {
		for b := range m.Batches() {
			r.hold.Lock()
			r.apply(b)
			r.hold.Unlock()
		}
		r.mu.Lock()
		r.closed = true
		r.mu.Unlock()
	}()
	return r
}

func (r *replica) apply(b Batch) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.batches++
	r.events += len(b.Events)
	r.states = append(r.states, b.States...)
	if b.Loaded {
		r.loaded++
	}
	if b.Reset {
		r.resets++
		r.nodes = make(map[string]Node, len(b.Events))
	} else if !r.started && !b.Partial && !b.Loaded && len(b.Events) > 0 {
		r.errs = append(r.errs, "events before the first load")
	}
	r.started = r.started || b.Reset || b.Partial || b.Loaded
	seen := map[string]bool{}
	for _, ev := range b.Events {
		if seen[ev.Path] {
			r.errs = append(r.errs, "two events for "+ev.Path+" in one batch")
		}
		seen[ev.Path] = true
		old, had := r.nodes[ev.Path]
		if (b.Partial || b.Loaded) && ev.Type != Created {
			r.loadChanges++
		}
		switch ev.Type {
		case Created:
			if had && old.Stat != nil && ev.Stat != nil && old.Stat.Czxid == ev.Stat.Czxid {
				r.errs = append(r.errs, "created again: "+ev.Path)
			}
			r.nodes[ev.Path] = Node{Data: ev.Data, Stat: ev.Stat, Denied: ev.Denied}
		case Changed:
			// A node this session may not read may have no stat.
			statLess := ev.Denied != 0 || old.Denied != 0
			if b.Reset || !had || !statLess && (old.Stat == nil || ev.Stat == nil || old.Stat.Czxid != ev.Stat.Czxid) {
				r.errs = append(r.errs, "changed but not had: "+ev.Path)
			}
			r.nodes[ev.Path] = Node{Data: ev.Data, Stat: ev.Stat, Denied: ev.Denied}
		case Deleted:
			if b.Reset || !had {
				r.errs = append(r.errs, "deleted but not had: "+ev.Path)
			}
			delete(r.nodes, ev.Path)
		default:
			r.errs = append(r.errs, fmt.Sprintf("event type %d", ev.Type))
		}
	}
	select {
	case r.changed <- struct{}{}:
	default:
	}
}

func (r *replica) snapshot() map[string]Node {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make(map[string]Node, len(r.nodes))
	for p, n := range r.nodes {
		out[p] = n
	}
	return out
}

func (r *replica) check(t testing.TB) {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.errs) > 0 {
		t.Fatalf("consumer saw bad events: %q", r.errs)
	}
}

func (r *replica) resetCount() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.resets
}

func (r *replica) sawState(s State) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Contains(r.states, s)
}

// waitFor polls cond until it holds or the timeout passes.
func waitFor(t testing.TB, what string, timeout time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// converge waits until the mirror's tree and the consumer's replica both
// equal a fresh read of the shape.
func converge(t testing.TB, c *Conn, m *Mirror, r *replica, s Shape) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		fresh, err := readShape(c, s)
		if err == nil {
			d1, d2 := diffTrees(fresh, m.Tree()), diffTrees(fresh, r.snapshot())
			if d1 == "" && d2 == "" {
				r.check(t)
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("mirror does not converge:\nmirror vs fresh read:\n%s\nconsumer vs fresh read:\n%s", d1, d2)
			}
		} else if time.Now().After(deadline) {
			t.Fatalf("fresh read: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func startMirror(t testing.TB, c *Conn, s Shape) (*Mirror, *replica) {
	t.Helper()
	return startMirrorWith(t, c, s, MirrorOptions{})
}

func startMirrorWith(t testing.TB, c *Conn, s Shape, o MirrorOptions) (*Mirror, *replica) {
	t.Helper()
	m, err := NewMirror(c, s, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = m.Close() })
	return m, follow(m)
}

// sim mutates a Kafka-like tree the way brokers, the controller and admin
// tools do, at random.
type sim struct {
	t       testing.TB
	c       *Conn
	r       *rand.Rand
	topics  map[string]int // topic → partitions in its assignment
	brokers map[int]bool
	next    int
	isr     []string
}

func newSim(t testing.TB, c *Conn, seed uint64) *sim {
	s := &sim{t: t, c: c, r: newRand(seed), topics: map[string]int{}, brokers: map[int]bool{}}
	for _, p := range []string{"/brokers/ids", "/brokers/topics", "/config/topics", "/admin/delete_topics", "/isr_change_notification"} {
		s.must(c.CreateAll(p))
	}
	return s
}

func (s *sim) must(err error) {
	s.t.Helper()
	if err != nil {
		s.t.Fatal(err)
	}
}

func (s *sim) ok(err error, allowed ...error) {
	s.t.Helper()
	for _, a := range allowed {
		if errors.Is(err, a) {
			return
		}
	}
	s.must(err)
}

func assignment(parts, rf int) []byte {
	var b strings.Builder
	b.WriteString(`{"version":3,"partitions":{`)
	for p := range parts {
		if p > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"%d":[`, p)
		for r := range rf {
			if r > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, "%d", (p+r)%5+1)
		}
		b.WriteByte(']')
	}
	b.WriteString(`},"adding_replicas":{},"removing_replicas":{},"topic_id":"AAAAAAAAAAAAAAAAAAAAAA"}`)
	return []byte(b.String())
}

func stateJSON(leader, epoch int) []byte {
	return fmt.Appendf(nil, `{"controller_epoch":1,"leader":%d,"version":1,"leader_epoch":%d,"isr":[%d]}`, leader, epoch, leader)
}

func (s *sim) anyTopic() (string, bool) {
	if len(s.topics) == 0 {
		return "", false
	}
	names := make([]string, 0, len(s.topics))
	for t := range s.topics {
		names = append(names, t)
	}
	slices.Sort(names)
	return names[s.r.IntN(len(names))], true
}

func (s *sim) step() {
	c := s.c
	switch s.r.IntN(14) {
	case 0, 1: // create a topic (config, then assignment, as AdminZkClient does)
		s.next++
		t := fmt.Sprintf("t%d", s.next)
		s.must(ignore(c.Create("/config/topics/"+t, []byte(`{"version":1,"config":{}}`), 0, open)))
		n := 1 + s.r.IntN(4)
		s.must(ignore(c.Create("/brokers/topics/"+t, assignment(n, 3), 0, open)))
		s.topics[t] = n
	case 2, 3: // the controller writes missing partition states
		t, ok := s.anyTopic()
		if !ok {
			return
		}
		for p := range s.topics[t] {
			dir := fmt.Sprintf("/brokers/topics/%s/partitions/%d", t, p)
			s.must(c.CreateAll(dir))
			_, err := c.Create(dir+"/state", stateJSON(1, 0), 0, open)
			s.ok(err, zk.ErrNodeExists)
		}
	case 4, 5: // leader / ISR change
		t, ok := s.anyTopic()
		if !ok {
			return
		}
		p := s.r.IntN(s.topics[t])
		_, err := c.Set(fmt.Sprintf("/brokers/topics/%s/partitions/%d/state", t, p), stateJSON(s.r.IntN(5)+1, s.r.IntN(100)), -1)
		s.ok(err, zk.ErrNoNode)
	case 6: // add a partition
		t, ok := s.anyTopic()
		if !ok {
			return
		}
		s.topics[t]++
		s.must(ignore(c.Set("/brokers/topics/"+t, assignment(s.topics[t], 3), -1)))
	case 7: // delete a topic: request, controller removes everything, request gone
		t, ok := s.anyTopic()
		if !ok {
			return
		}
		_, err := c.Create("/admin/delete_topics/"+t, nil, 0, open)
		s.ok(err, zk.ErrNoNode) // the container may be deleted (case 11)
		s.deleteTree("/brokers/topics/" + t)
		s.ok(c.Delete("/config/topics/"+t, -1))
		s.ok(c.Delete("/admin/delete_topics/"+t, -1), zk.ErrNoNode)
		delete(s.topics, t)
	case 8: // broker registers or goes away
		id := s.r.IntN(5) + 1
		p := "/brokers/ids/" + strconv.Itoa(id)
		if s.brokers[id] {
			s.must(c.Delete(p, -1))
		} else {
			s.must(ignore(c.Create(p, fmt.Appendf(nil, `{"version":5,"host":"b%d","port":9092,"rack":"r%d"}`, id, id%3), zk.FlagEphemeral, open)))
		}
		s.brokers[id] = !s.brokers[id]
	case 9: // controller moves; epoch bumps (created on first use)
		s.ok(c.Delete("/controller", -1), zk.ErrNoNode)
		if s.r.IntN(4) > 0 {
			s.must(ignore(c.Create("/controller", fmt.Appendf(nil, `{"version":1,"brokerid":%d,"timestamp":"1"}`, s.r.IntN(5)+1), zk.FlagEphemeral, open)))
		}
		if _, err := c.Set("/controller_epoch", []byte(strconv.Itoa(s.r.IntN(1000))), -1); errors.Is(err, zk.ErrNoNode) {
			s.must(ignore(c.Create("/controller_epoch", []byte("1"), 0, open)))
		} else {
			s.must(err)
		}
	case 10: // ISR change notifications come and go; reassignment requests too
		if len(s.isr) > 0 && s.r.IntN(2) == 0 {
			s.must(c.Delete(s.isr[0], -1))
			s.isr = s.isr[1:]
		} else {
			p, err := c.Create("/isr_change_notification/isr_change_", []byte(`{"version":1,"partitions":[]}`), zk.FlagSequence, open)
			s.must(err)
			s.isr = append(s.isr, p)
		}
		if s.r.IntN(2) == 0 {
			s.ok(c.Delete("/admin/reassign_partitions", -1), zk.ErrNoNode)
		} else {
			_, err := c.Create("/admin/reassign_partitions", []byte(`{"version":1,"partitions":[]}`), 0, open)
			s.ok(err, zk.ErrNodeExists)
		}
	case 11: // nil versus empty data; a container deleted and re-created
		var data []byte
		switch s.r.IntN(3) {
		case 0:
			data = []byte{}
		case 1:
			data = []byte("cluster-" + strconv.Itoa(s.r.IntN(9)))
		}
		if _, err := c.Set("/cluster/id", data, -1); errors.Is(err, zk.ErrNoNode) {
			s.must(c.CreateAll("/cluster"))
			s.must(ignore(c.Create("/cluster/id", data, 0, open)))
		} else {
			s.must(err)
		}
		if err := c.Delete("/admin/delete_topics", -1); errors.Is(err, zk.ErrNoNode) {
			s.must(c.CreateAll("/admin/delete_topics"))
		} else {
			s.ok(err, zk.ErrNotEmpty)
		}
	case 12, 13:
		s.bounce()
	}
}

// bounce is a broker restarting quickly, or a topic deleted and created
// again with the same name: a listed node deleted and re-created between
// two listings of its parent.
func (s *sim) bounce() {
	c := s.c
	if s.r.IntN(2) == 0 {
		id := s.r.IntN(5) + 1
		p := "/brokers/ids/" + strconv.Itoa(id)
		s.ok(c.Delete(p, -1), zk.ErrNoNode)
		s.must(ignore(c.Create(p, fmt.Appendf(nil, `{"version":5,"host":"b%d","port":%d}`, id, 9000+s.r.IntN(999)), zk.FlagEphemeral, open)))
		s.brokers[id] = true
		return
	}
	t, ok := s.anyTopic()
	if !ok {
		return
	}
	s.deleteTree("/brokers/topics/" + t)
	n := 1 + s.r.IntN(4)
	s.must(ignore(c.Create("/brokers/topics/"+t, assignment(n, 3), 0, open)))
	s.topics[t] = n
}

// deleteTree deletes p and everything below it, children first.
func (s *sim) deleteTree(p string) {
	kids, _, err := s.c.Children(p)
	if errors.Is(err, zk.ErrNoNode) {
		return
	}
	s.must(err)
	for _, k := range kids {
		s.deleteTree(p + "/" + k)
	}
	s.ok(s.c.Delete(p, -1), zk.ErrNoNode)
}

func ignore[T any](_ T, err error) error { return err }

// TestMirrorBasic: a first load, a reset batch, and changes as events.
// smallTree is a topic "a" of two partitions, only partition 0 with a
// state, and a controller epoch, in a fresh chroot.
func smallTree(t *testing.T) (*Conn, *sim) {
	t.Helper()
	c := connect(t, zktest.Chroot(t), Options{})
	s := newSim(t, c, 1)
	s.must(ignore(c.Create("/brokers/topics/a", assignment(2, 1), 0, open)))
	s.must(c.CreateAll("/brokers/topics/a/partitions/0"))
	s.must(ignore(c.Create("/brokers/topics/a/partitions/0/state", stateJSON(1, 0), 0, open)))
	s.must(ignore(c.Create("/controller_epoch", []byte("7"), 0, open)))
	return c, s
}

func TestMirrorBasic(t *testing.T) {
	c, s := smallTree(t)

	shape := kafkaShape()
	m, r := startMirror(t, c, shape)
	converge(t, c, m, r, shape)
	if r.resetCount() != 1 {
		t.Fatalf("%d resets", r.resetCount())
	}
	tree := m.Tree()
	want := []string{"/brokers/topics/a", "/brokers/topics/a/partitions/0/state", "/controller_epoch"}
	var got []string
	for p := range tree {
		got = append(got, p)
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Fatalf("tree %q, want %q", got, want)
	}
	st := m.Stats()
	// One request per node that matters: 5 listings, the topic, its two
	// derived states and the 4 single reads; a missing node costs a second
	// request (exists, to watch for its creation): state 1 and 3 reads.
	// Watches: 5 child, 3 data, 4 exist.
	if st.Nodes != 3 || st.Loads != 1 || st.Loading || st.Requests != 5+1+2+4+4 || st.Watches != 12 ||
		st.Bytes != int64(len(tree["/brokers/topics/a"].Data)+len(tree["/brokers/topics/a/partitions/0/state"].Data)+1) {
		t.Fatalf("stats %+v", st)
	}
	// The derived state of partition 1 does not exist yet: it is
	// exist-watched, so its creation shows up.
	s.must(c.CreateAll("/brokers/topics/a/partitions/1"))
	s.must(ignore(c.Create("/brokers/topics/a/partitions/1/state", stateJSON(2, 0), 0, open)))
	converge(t, c, m, r, shape)
	// Shrinking the assignment forgets the dropped partition's state.
	s.must(ignore(c.Set("/brokers/topics/a", assignment(1, 1), -1)))
	converge(t, c, m, r, shape)
	if _, ok := m.Get("/brokers/topics/a/partitions/1/state"); ok {
		t.Fatal("state of a partition no longer assigned is still mirrored")
	}
	// Nodes that vanish, come back, and containers that vanish.
	s.deleteTree("/brokers/topics")
	converge(t, c, m, r, shape)
	s.must(c.CreateAll("/brokers/topics"))
	s.must(ignore(c.Create("/brokers/topics/b", assignment(1, 1), 0, open)))
	converge(t, c, m, r, shape)
	if m.Stats().Loads != 1 {
		t.Fatal("reloaded without a session expiry")
	}
}

// TestMirrorNilAndEmpty: nodes with nil and with empty data keep the
// difference through the mirror and the batches.
func TestMirrorNilAndEmpty(t *testing.T) {
	c := connect(t, zktest.Chroot(t), Options{})
	shape := Shape{Lists: []List{{Path: "/l", ReadChildren: true}, {Path: "/names"}}, Reads: []string{"/r"}}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(c.CreateAll("/l"))
	must(c.CreateAll("/names/x"))
	must(ignore(c.Create("/l/nil", nil, 0, open)))
	must(ignore(c.Create("/l/empty", []byte{}, 0, open)))
	m, r := startMirror(t, c, shape)
	converge(t, c, m, r, shape)
	check := func(p string, wantNil bool) {
		t.Helper()
		n, ok := m.Get(p)
		if !ok || (n.Data == nil) != wantNil || len(n.Data) != 0 {
			t.Fatalf("%s: %v %#v, want nil=%v", p, ok, n.Data, wantNil)
		}
		rn := r.snapshot()[p]
		if (rn.Data == nil) != wantNil || len(rn.Data) != 0 {
			t.Fatalf("consumer %s: %#v, want nil=%v", p, rn.Data, wantNil)
		}
	}
	check("/l/nil", true)
	check("/l/empty", false)
	if n, ok := m.Get("/names/x"); !ok || n.Data != nil || n.Stat != nil {
		t.Fatalf("names-only child: %v %+v", ok, n)
	}
	// Flip them: the data changes from nil to empty and back.
	must(ignore(c.Set("/l/nil", []byte{}, -1)))
	must(ignore(c.Set("/l/empty", nil, -1)))
	must(ignore(c.Create("/r", nil, 0, open)))
	converge(t, c, m, r, shape)
	check("/l/nil", false)
	check("/l/empty", true)
	check("/r", true)
}

// TestMirrorRandom applies random Kafka-like mutation sequences while the
// mirror runs; after each quiet period the mirror and its consumer equal a
// fresh full read.
//
// go test ./zkwatch -run MirrorRandom -seeds 200 runs more seeds.
func TestMirrorRandom(t *testing.T) {
	seeds, rounds := 12, 6
	if testing.Short() {
		seeds, rounds = 2, 3
	}
	if *seedsFlag > 0 {
		seeds = *seedsFlag
	}
	shape := kafkaShape()
	for seed := range seeds {
		t.Run(fmt.Sprint("seed=", seed), func(t *testing.T) {
			c := connect(t, zktest.Chroot(t), Options{})
			s := newSim(t, c, uint64(seed))
			for range 20 {
				s.step() // something to load
			}
			m, r := startMirror(t, c, shape)
			// Mutate during the first load too.
			for range 30 {
				s.step()
			}
			converge(t, c, m, r, shape)
			for range rounds {
				for range 10 + s.r.IntN(60) {
					s.step()
				}
				converge(t, c, m, r, shape)
			}
			st := m.Stats()
			if st.Loads != 1 || st.Errors != 0 || st.Nodes != len(m.Tree()) {
				t.Fatalf("stats %+v", st)
			}
			t.Logf("%d nodes, %d watches, %d requests, %d batches", st.Nodes, st.Watches, st.Requests, r.batches)
		})
	}
}

// TestMirrorSlowConsumer: while the consumer does not receive, the mirror
// keeps following changes (its tree converges) and merges the events; when
// the consumer receives again it catches up.
func TestMirrorSlowConsumer(t *testing.T) {
	shape := kafkaShape()
	c := connect(t, zktest.Chroot(t), Options{})
	s := newSim(t, c, 42)
	m, r := startMirror(t, c, shape)
	converge(t, c, m, r, shape)
	r.hold.Lock()
	for range 300 {
		s.step()
	}
	fresh, err := readShape(c, shape)
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, "mirror tree to follow while the consumer is stalled", 20*time.Second, func() bool {
		return diffTrees(fresh, m.Tree()) == ""
	})
	before := r.batches
	r.hold.Unlock()
	converge(t, c, m, r, shape)
	t.Logf("caught up in %d batches", r.batches-before)
}

// TestMirrorDisconnect: a short loss of the connection (shorter than the
// session timeout) is resumed without a reload: the session's watches
// survive, and changes made meanwhile arrive.
func TestMirrorDisconnect(t *testing.T) {
	cs := zktest.Chroot(t)
	chroot := cs[strings.Index(cs, "/"):]
	p := zktest.StartProxy(t, zktest.Addr(t))
	c := connect(t, p.Addr()+chroot, Options{SessionTimeout: 15 * time.Second})
	direct := connect(t, cs, Options{})
	s := newSim(t, direct, 7)
	for range 40 {
		s.step()
	}
	shape := kafkaShape()
	m, r := startMirror(t, c, shape)
	converge(t, direct, m, r, shape)
	sid := c.SessionID()
	p.Cut()
	waitFor(t, "disconnected state", 10*time.Second, func() bool { return r.sawState(StateDisconnected) })
	for range 40 {
		s.step()
	}
	p.Pass()
	converge(t, direct, m, r, shape)
	if c.SessionID() != sid || m.Stats().Loads != 1 || r.resetCount() != 1 {
		t.Fatalf("session %x→%x, loads %d, resets %d: want the same session and no reload", sid, c.SessionID(), m.Stats().Loads, r.resetCount())
	}
	for range 20 {
		s.step()
	}
	converge(t, direct, m, r, shape)
}

// TestMirrorServerRestart: ZooKeeper stopped and restarted with the same
// data directory mid-stream; the mirror reconnects and converges.
func TestMirrorServerRestart(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a dedicated server")
	}
	srv := zktest.StartServer(t, zktest.Options{})
	c := connect(t, srv.Addr(), Options{SessionTimeout: 20 * time.Second})
	s := newSim(t, c, 3)
	for range 40 {
		s.step()
	}
	shape := kafkaShape()
	m, r := startMirror(t, c, shape)
	converge(t, c, m, r, shape)
	// Writes stream in from another session while the server goes down, so
	// the mirror has re-reads in flight when it dies.
	w := connect(t, srv.Addr(), Options{SessionTimeout: 20 * time.Second, RequestTimeout: time.Second})
	tree := m.Tree()
	stop := churn(w, tree)
	time.Sleep(300 * time.Millisecond)
	// The writes stop just before the kill: with forceSync=no a server
	// killed mid-write can lose its last transactions, and a client that
	// saw them is then refused by the restarted server forever
	// (go-zookeeper-notes §2.14). The mirror's re-reads still run, and
	// opening a subtree puts more reads in flight as the server dies.
	stop()
	time.Sleep(50 * time.Millisecond)
	if err := m.OpenSubtree("/brokers"); err != nil {
		t.Fatal(err)
	}
	// The sim's ephemeral nodes belong to c's session, which survives.
	srv.Kill()
	waitFor(t, "disconnected state", 10*time.Second, func() bool { return r.sawState(StateDisconnected) })
	if err := srv.Restart(); err != nil {
		t.Fatal(err)
	}
	stop = churn(w, tree)
	time.Sleep(time.Second)
	stop()
	// A client that connects while the server still loads its database may
	// wait out the handshake timeout before it retries.
	waitFor(t, "reconnection", 30*time.Second, func() bool { return c.State() == StateConnected })
	if err := m.CloseSubtree("/brokers"); err != nil {
		t.Fatal(err)
	}
	for range 60 {
		s.step()
	}
	converge(t, c, m, r, shape)
	t.Logf("loads %d, resets %d, stats %+v", m.Stats().Loads, r.resetCount(), m.Stats())
}

// churn rewrites the given nodes' data from c, as fast as it can, until
// the returned func is called. Errors (a server going away) are ignored.
func churn(c *Conn, tree map[string]Node) (stop func()) {
	var paths []string
	for p, n := range tree {
		if n.Stat != nil && n.Stat.EphemeralOwner == 0 {
			paths = append(paths, p)
		}
	}
	slices.Sort(paths)
	done := make(chan struct{})
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for i := w; ; i += 4 {
				select {
				case <-done:
					return
				default:
				}
				p := paths[i%len(paths)]
				data, _, err := c.Get(p)
				if err == nil {
					_, err = c.Set(p, append(data[:len(data):len(data)], ' '), -1)
				}
				if err != nil {
					time.Sleep(10 * time.Millisecond)
				}
			}
		})
	}
	return func() { close(done); wg.Wait() }
}

// registerProbe registers broker 99 through c's session (an ephemeral
// znode): it vanishes when the session expires.
func registerProbe(t testing.TB, c *Conn) {
	t.Helper()
	if _, err := c.Create("/brokers/ids/99", []byte(`{"version":5}`), zk.FlagEphemeral, open); err != nil {
		t.Fatal(err)
	}
}

// waitExpired waits, through another session, until the server has
// expired the session that registered the probe.
func waitExpired(t testing.TB, direct *Conn) {
	t.Helper()
	waitFor(t, "the session to expire on the server", 20*time.Second, func() bool {
		ok, _, err := direct.Exists("/brokers/ids/99")
		return err == nil && !ok
	})
}

// TestMirrorSessionExpiry: the mirror's connection is cut until the server
// expires its session. The mirror then reloads from scratch and sends a
// reset: it converges, and the expired session's ephemeral node is gone.
//
// It runs under -short too (one extra JVM, a few seconds): expiry handling
// is what a long-running TUI depends on most.
func TestMirrorSessionExpiry(t *testing.T) {
	srv := zktest.StartServer(t, zktest.Options{TickTime: 500})
	p := zktest.StartProxy(t, srv.Addr())
	c := connect(t, p.Addr(), Options{SessionTimeout: time.Second})
	direct := connect(t, srv.Addr(), Options{SessionTimeout: 10 * time.Second})
	s := newSim(t, direct, 5)
	for range 40 {
		s.step()
	}
	// A broker registered through the mirror's session: it must vanish.
	registerProbe(t, c)
	shape := kafkaShape()
	m, r := startMirror(t, c, shape)
	converge(t, direct, m, r, shape)
	if _, ok := m.Get("/brokers/ids/99"); !ok {
		t.Fatal("ephemeral broker not mirrored")
	}
	sid := c.SessionID()
	p.Cut()
	waitExpired(t, direct)
	for range 40 {
		s.step()
	}
	p.Pass()
	waitFor(t, "expired state and a second reset", 30*time.Second, func() bool {
		return r.sawState(StateExpired) && r.resetCount() == 2
	})
	converge(t, direct, m, r, shape)
	if _, ok := m.Get("/brokers/ids/99"); ok {
		t.Fatal("stale ephemeral node in the mirror")
	}
	if c.SessionID() == sid || m.Stats().Loads != 2 {
		t.Fatalf("session %x→%x, loads %d", sid, c.SessionID(), m.Stats().Loads)
	}
	for range 20 {
		s.step()
	}
	converge(t, direct, m, r, shape)
}

// TestMirrorOpenSubtree: an opened subtree is loaded recursively and
// watched; closing it forgets what only it needed.
func TestMirrorOpenSubtree(t *testing.T) {
	shape := kafkaShape()
	c := connect(t, zktest.Chroot(t), Options{})
	s := newSim(t, c, 9)
	s.must(ignore(c.Create("/brokers/topics/a", assignment(2, 1), 0, open)))
	for p := range 2 {
		s.must(c.CreateAll(fmt.Sprintf("/brokers/topics/a/partitions/%d", p)))
		s.must(ignore(c.Create(fmt.Sprintf("/brokers/topics/a/partitions/%d/state", p), stateJSON(1, 0), 0, open)))
	}
	m, r := startMirror(t, c, shape)
	converge(t, c, m, r, shape)
	base := len(m.Tree())

	// The opened subtree: every node below /brokers/topics/a, read and listed.
	withOpen := func() (map[string]Node, error) {
		tree, err := readShape(c, shape)
		if err != nil {
			return nil, err
		}
		var walk func(p string) error
		walk = func(p string) error {
			data, st, err := c.Get(p)
			if errors.Is(err, zk.ErrNoNode) {
				return nil
			}
			if err != nil {
				return err
			}
			tree[p] = Node{Data: data, Stat: st}
			kids, _, err := c.Children(p)
			if err != nil && !errors.Is(err, zk.ErrNoNode) {
				return err
			}
			for _, k := range kids {
				if err := walk(join(p, k)); err != nil {
					return err
				}
			}
			return nil
		}
		return tree, walk("/brokers/topics/a")
	}
	same := func() bool {
		want, err := withOpen()
		return err == nil && diffTrees(want, m.Tree()) == "" && diffTrees(want, r.snapshot()) == ""
	}
	if err := m.OpenSubtree("/brokers/topics/a"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "opened subtree", 10*time.Second, same)
	// partitions, partitions/0, partitions/1 appear (the rest was there).
	if n := len(m.Tree()); n != base+3 {
		t.Fatalf("%d nodes with the subtree open, want %d", n, base+3)
	}
	// Changes inside it are followed, including new nodes at any depth.
	s.must(c.CreateAll("/brokers/topics/a/partitions/7/deep/er"))
	s.must(ignore(c.Set("/brokers/topics/a/partitions", []byte("x"), -1)))
	waitFor(t, "changes in the subtree", 10*time.Second, same)
	s.deleteTree("/brokers/topics/a/partitions/7")
	waitFor(t, "deletions in the subtree", 10*time.Second, same)
	// Opens are counted.
	s.must(m.OpenSubtree("/brokers/topics/a"))
	s.must(m.CloseSubtree("/brokers/topics/a"))
	waitFor(t, "still open", 10*time.Second, same)
	s.must(m.CloseSubtree("/brokers/topics/a"))
	converge(t, c, m, r, shape)
	if n := len(m.Tree()); n != base {
		t.Fatalf("%d nodes after closing, want %d", n, base)
	}
	// A subtree that does not exist yet appears when created.
	s.must(m.OpenSubtree("/later"))
	s.must(c.CreateAll("/later/x"))
	waitFor(t, "a subtree created after opening", 10*time.Second, func() bool {
		_, ok := m.Get("/later/x")
		return ok
	})
}

// TestMirrorNoLeak: closing the mirror and the connection leaves no
// goroutine behind (go-zookeeper's get about a second to drain).
func TestMirrorNoLeak(t *testing.T) {
	cs := zktest.Chroot(t)
	setup := connect(t, cs, Options{})
	s := newSim(t, setup, 11)
	for range 30 {
		s.step()
	}
	ignoreCurrent := goleak.IgnoreCurrent()
	c, err := Connect(t.Context(), cs, Options{Logger: zktest.NewLogger(t)})
	if err != nil {
		t.Fatal(err)
	}
	m, err := NewMirror(c, kafkaShape(), MirrorOptions{})
	if err != nil {
		t.Fatal(err)
	}
	r := follow(m)
	converge(t, setup, m, r, kafkaShape())
	for range 30 {
		s.step()
	}
	if err := m.OpenSubtree("/brokers"); err != nil {
		t.Fatal(err)
	}
	_ = m.Close()
	c.Close()
	// A barrier: wait for a callback that holds the lock.
	r.mu.Lock()
	r.mu.Unlock() //nolint:staticcheck // empty on purpose (a barrier)
	deadline := time.Now().Add(2 * time.Second)
	for goleak.Find(ignoreCurrent) != nil && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	goleak.VerifyNone(t, ignoreCurrent)
	if err := m.OpenSubtree("/x"); err == nil {
		t.Fatal("open on a closed mirror")
	}
}

// TestMirrorConnClosed: closing the Conn under a running mirror ends it and
// closes its batch channel.
func TestMirrorConnClosed(t *testing.T) {
	c, err := Connect(t.Context(), zktest.Chroot(t), Options{Logger: zktest.NewLogger(t)})
	if err != nil {
		t.Fatal(err)
	}
	m, err := NewMirror(c, kafkaShape(), MirrorOptions{})
	if err != nil {
		t.Fatal(err)
	}
	r := follow(m)
	c.Close()
	waitFor(t, "batch channel closed", 10*time.Second, func() bool {
		r.mu.Lock()
		defer r.mu.Unlock()
		return r.closed
	})
	_ = m.Close()
}

// TestMirrorDerivePanics: a Derive that panics on some data costs those
// derived paths, not the mirror.
func TestMirrorDerivePanics(t *testing.T) {
	c := connect(t, zktest.Chroot(t), Options{})
	shape := Shape{
		Lists: []List{{Path: "/l", ReadChildren: true}},
		Derive: func(path string, data []byte) []string {
			if string(data) == "boom" {
				panic("bad data")
			}
			if strings.HasPrefix(path, "/l/") {
				return []string{"/d/" + string(data)}
			}
			return nil
		},
	}
	for _, p := range []string{"/l", "/d/x"} {
		if err := c.CreateAll(p); err != nil {
			t.Fatal(err)
		}
	}
	for _, n := range []string{"a", "b"} {
		data := "x"
		if n == "b" {
			data = "boom"
		}
		if _, err := c.Create("/l/"+n, []byte(data), 0, open); err != nil {
			t.Fatal(err)
		}
	}
	m, r := startMirror(t, c, shape)
	waitFor(t, "load", 10*time.Second, func() bool { return r.resetCount() == 1 })
	if _, ok := m.Get("/d/x"); !ok || m.Stats().Errors != 1 {
		t.Fatalf("derived node missing or errors %d", m.Stats().Errors)
	}
	if _, ok := m.Get("/l/b"); !ok {
		t.Fatal("the node whose Derive panicked is not mirrored")
	}
}

func TestMirrorBadShape(t *testing.T) {
	c := connect(t, zktest.Chroot(t), Options{})
	for _, s := range []Shape{{Reads: []string{"rel"}}, {Lists: []List{{Path: "/a/"}}}} {
		if _, err := NewMirror(c, s, MirrorOptions{}); err == nil {
			t.Errorf("shape %+v accepted", s)
		}
	}
}

// TestMirrorOnce: a mirror with Once reads the same tree as a watching one
// but leaves no watch on the server (mntr's zk_watch_count is unchanged).
func TestMirrorOnce(t *testing.T) {
	c, _ := smallTree(t)
	watches := func() string {
		t.Helper()
		reply, err := zktest.FourLetter(zktest.Addr(t), "mntr")
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(reply, "\n") {
			if v, ok := strings.CutPrefix(line, "zk_watch_count"); ok {
				return strings.TrimSpace(v)
			}
		}
		t.Fatalf("mntr has no zk_watch_count:\n%s", reply)
		return ""
	}
	before := watches()
	m, err := NewMirror(c, kafkaShape(), MirrorOptions{Once: true})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	var got []string
	timeout := time.After(10 * time.Second)
	for len(got) == 0 {
		select {
		case b := <-m.Batches():
			if len(b.Events) == 0 {
				continue
			}
			if !b.Reset {
				t.Fatalf("first batch with events is not a reset: %+v", b)
			}
			for _, e := range b.Events {
				got = append(got, e.Path)
			}
		case <-timeout:
			t.Fatal("no first load in 10s")
		}
	}
	slices.Sort(got)
	want := []string{"/brokers/topics/a", "/brokers/topics/a/partitions/0/state", "/controller_epoch"}
	if !slices.Equal(got, want) {
		t.Fatalf("loaded %q, want %q", got, want)
	}
	if st := m.Stats(); st.Watches != 0 || st.Nodes != 3 || st.Loads != 1 {
		t.Fatalf("stats %+v; want 3 nodes, no watches", st)
	}
	if after := watches(); after != before {
		t.Fatalf("zk_watch_count %s before the load, %s after: the mirror set watches", before, after)
	}
}

// TestMirrorProgress: with MirrorOptions.Progress the first load arrives
// as it goes, in Partial batches whose Progress counts up, and ends with a
// Loaded batch (no reset): together they deliver every node once.
func TestMirrorProgress(t *testing.T) {
	c := connect(t, zktest.Chroot(t), Options{})
	s := newSim(t, c, 1)
	var ops []any
	for i := range 400 {
		tp := fmt.Sprintf("/brokers/topics/t%03d", i)
		ops = append(ops, &zk.CreateRequest{Path: tp, Data: assignment(3, 1), Acl: open},
			&zk.CreateRequest{Path: tp + "/partitions", Acl: open})
		for p := range 3 {
			pp := fmt.Sprintf("%s/partitions/%d", tp, p)
			ops = append(ops, &zk.CreateRequest{Path: pp, Acl: open},
				&zk.CreateRequest{Path: pp + "/state", Data: stateJSON(1, 0), Acl: open})
		}
		if len(ops) > 500 {
			s.must(ignore(c.Multi(ops...)))
			ops = ops[:0]
		}
	}
	s.must(ignore(c.Multi(ops...)))

	m, err := NewMirror(c, kafkaShape(), MirrorOptions{Progress: true, Concurrency: 2, FlushInterval: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	got := map[string]Node{}
	partials, last := 0, Progress{}
	var end Batch
	timeout := time.After(30 * time.Second)
	for !end.Loaded {
		var b Batch
		select {
		case b = <-m.Batches():
		case <-timeout:
			t.Fatal("the load does not end")
		}
		switch {
		case b.Reset:
			t.Fatalf("a load delivered as it goes ends with a reset of %d events", len(b.Events))
		case b.Partial || b.Loaded:
			if b.Partial {
				partials++
			}
			if b.Progress.Done < last.Done || b.Progress.Done > b.Progress.Known {
				t.Fatalf("progress %+v after %+v", b.Progress, last)
			}
			last = b.Progress
			for _, ev := range b.Events {
				if ev.Type != Created {
					t.Fatalf("%s %s during a load of a still tree", ev.Type, ev.Path)
				}
				if _, dup := got[ev.Path]; dup {
					t.Fatalf("%s delivered twice", ev.Path)
				}
				got[ev.Path] = Node{Data: ev.Data, Stat: ev.Stat}
			}
			end = b
		case len(b.Events) > 0:
			t.Fatalf("events neither partial nor loaded: %+v", b)
		}
	}
	if partials < 2 {
		t.Fatalf("%d partial batches", partials)
	}
	if p := end.Progress; p.Done != p.Known || p.Done < 400*4 {
		t.Fatalf("the last batch's progress %+v", p)
	}
	// What the batches delivered is the whole tree.
	if d := diffTrees(m.Tree(), got); d != "" || len(got) != 400*4 {
		t.Fatalf("%d nodes delivered, differing from the mirror's:\n%s", len(got), d)
	}
	// After the load, batches are ordinary again.
	s.must(ignore(c.Set("/brokers/topics/t000/partitions/0/state", stateJSON(2, 1), -1)))
	for b := range m.Batches() {
		if b.Partial || b.Reset || b.Loaded || b.Progress != (Progress{}) {
			t.Fatalf("after the load: %+v", b)
		}
		if len(b.Events) > 0 {
			break
		}
	}
}

// TestMirrorProgressChurn: a load delivered as it goes while the cluster
// changes (topics created and deleted, states rewritten, brokers coming
// and going) ends with what the consumer holds equal to the tree: every
// change to a node already delivered came as an event, nothing as a reset.
func TestMirrorProgressChurn(t *testing.T) {
	c := connect(t, zktest.Chroot(t), Options{})
	s := newSim(t, c, 5)
	for range 400 {
		s.step()
	}
	shape := kafkaShape()
	done, stopped := make(chan struct{}), make(chan struct{})
	go func() {
		// The sim's writes fail the test from here with t.Fatal, which
		// ends this goroutine only: the test then fails at converge.
		defer close(stopped)
		for {
			select {
			case <-done:
				return
			default:
				s.step()
			}
		}
	}()
	m, r := startMirrorWith(t, c, shape, MirrorOptions{Progress: true, Concurrency: 1, FlushInterval: time.Millisecond})
	waitFor(t, "the end of the load", 30*time.Second, func() bool {
		r.mu.Lock()
		defer r.mu.Unlock()
		return r.loaded > 0
	})
	close(done)
	<-stopped
	converge(t, c, m, r, shape)
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.resets != 0 || r.loaded != 1 || r.loadChanges == 0 {
		t.Fatalf("%d resets, %d loaded batches, %d changes during the load; want none, one, some", r.resets, r.loaded, r.loadChanges)
	}
}

// TestNodeSize: a big tree has a node per znode; it fits the allocator's
// 128-byte class.
func TestNodeSize(t *testing.T) {
	if s := unsafe.Sizeof(node{}); s > 128 {
		t.Fatalf("a node is %d bytes", s)
	}
}
