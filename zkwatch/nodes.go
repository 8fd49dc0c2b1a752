package zkwatch

import (
	"bytes"
	"slices"

	"github.com/go-zookeeper/zk"
)

// kinds of request state a node has: its data, its children.
const (
	kData = 0
	kList = 1
)

// node is one followed path. Its reasons for being followed decide what
// is read; the rest is its state and its request bookkeeping.
//
// A big tree has one per znode: its fields are ordered to fit 128 bytes,
// and what only some nodes have (what Derive named) is behind a pointer.
type node struct {
	path     string
	full     string           // the server path (path is its end: one string)
	parent   *node            // set while listed by its parent
	children map[string]*node // listing (nil: not listed yet, or container absent)
	seen     uint64
	data     []byte
	stat     *zk.Stat
	dv       *derivation // what Derive named (nil: nothing)

	derived int32 // named by this many nodes' Derive
	opened  int32 // OpenSubtree count of this path

	single    bool // in Shape.Reads
	shapeList bool // in Shape.Lists
	readKids  bool // ... with ReadChildren
	first     bool // ... with First
	browse    bool // within an opened subtree
	exists    bool

	denied  [2]bool // the last read of this kind was refused (NoAuth)
	busy    [2]bool // a request of this kind is queued or in flight
	dirty   [2]bool // re-read when it completes
	watch   [2]bool // a watch of this kind is armed
	pending [2]bool // first read not done yet (counted in unloaded)
	loaded  [2]bool
}

// derivation is what Derive named for a node: the sorted paths, and the
// stat they were computed for. Nodes it names nothing for have none (they
// are the many: Derive is called again when they are re-read).
type derivation struct {
	key   *zk.Stat
	paths []string
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

// inTree: the node is part of the mirror the consumer sees. A container
// that may not be listed is, so that the consumer knows its children are
// unknown.
func (n *node) inTree() bool {
	return n.exists && (n.wantData() || n.parent != nil || n.denied[kList] && n.wantList())
}

// access is what of the node the session may not read.
func (n *node) access() Access {
	var a Access
	if n.denied[kData] && n.wantData() {
		a |= NoData
	}
	if n.denied[kList] && n.wantList() {
		a |= NoChildren
	}
	return a
}

func (m *Mirror) getOrCreate(p string) *node {
	n := m.nodes[p]
	if n == nil {
		n = &node{path: p}
		// One string for both paths: a big tree has one node per znode,
		// and go-zookeeper keeps the server path of every watch.
		if full, err := m.conn.full(p); err == nil {
			n.full = full
			if len(full) > len(p) && full[len(full)-len(p):] == p {
				n.path = full[len(full)-len(p):]
			}
		}
		m.nodes[n.path] = n
	}
	return n
}

// snapshot of a node before a change, to tell what the consumer sees change.
type snap struct {
	in     bool
	stat   *zk.Stat
	size   int
	access Access
}

func (m *Mirror) snap(n *node) snap {
	return snap{in: n.inTree(), stat: n.stat, size: len(n.data), access: n.access()}
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
	case b.in && now && (b.stat != n.stat || b.access != n.access()):
		m.stats.Bytes += int64(len(n.data) - b.size)
		m.emit(Changed, n, true, czxidOf(b.stat))
	}
}

func (m *Mirror) emit(t EventType, n *node, had bool, czxid int64) {
	if m.stats.Loading && !m.partial() {
		return // the reset batch carries the tree
	}
	ev := Event{Type: t, Path: n.path}
	if t != Deleted {
		ev.Data, ev.Stat, ev.Denied = n.data, n.stat, n.access()
	}
	m.co.add(ev, had, czxid)
}

// setPresent stores a read. Unchanged data keeps the old pointers, so no
// event is emitted and Derive is not called again.
func (m *Mirror) setPresent(n *node, data []byte, stat *zk.Stat) {
	b := m.snap(n)
	n.denied[kData] = false
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
	n.denied = [2]bool{}
	m.derive(n)
	m.after(n, b)
}

// setDenied records a read of kind k refused for want of READ: the node
// exists (ZooKeeper checks the ACL of an existing node only), its data or
// children are unknown.
func (m *Mirror) setDenied(n *node, k int) {
	b := m.snap(n)
	n.denied[k] = true
	n.exists = true
	if k == kData {
		n.data, n.stat = nil, nil
	} else {
		m.dropChildren(n) // unknown, not gone: keep none in the mirror
	}
	m.derive(n)
	m.after(n, b)
}

// setStat stores the stat exists gave for a node whose data is denied.
func (m *Mirror) setStat(n *node, stat *zk.Stat) {
	b := m.snap(n)
	if n.stat == nil || *n.stat != *stat {
		n.stat = stat
	}
	m.after(n, b)
}

// setChildren applies a listing of n.
func (m *Mirror) setChildren(n *node, kids []string) {
	m.stamp++
	if n.denied[kList] {
		b := m.snap(n)
		n.denied[kList] = false
		m.after(n, b)
	}
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
		m.dropChildren(n)
	} else if n.children == nil && !n.busy[kList] && !n.watch[kList] {
		m.schedule(n, kList)
	}
	m.after(n, b)
	if !n.keep() {
		m.forget(n)
	}
}

// dropChildren stops following n's listing: its children are no longer
// its (they are forgotten unless followed for another reason).
func (m *Mirror) dropChildren(n *node) {
	for name, ch := range n.children {
		delete(n.children, name)
		cb := m.snap(ch)
		ch.parent = nil
		m.rebrowse(ch, cb)
	}
	n.children = nil
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
			m.progress.Known--
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
	var old []string
	if n.dv != nil {
		if key == n.dv.key {
			return
		}
		old = n.dv.paths
	} else if key == nil {
		return
	}
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
	switch {
	case len(want) == 0:
		n.dv = nil
	case n.dv != nil:
		n.dv.key, n.dv.paths = key, want
	default:
		n.dv = &derivation{key: key, paths: want}
	}
	if slices.Equal(want, old) {
		return
	}
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
			want[j] = t.path // n.dv shares the node's string
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
