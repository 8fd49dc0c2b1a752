package tree

import (
	"slices"
	"strings"

	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/internal/text"
)

// How a node's children are known.
type source uint8

const (
	srcMirror source = iota // Kafka's mirror lists them
	srcProbe                // a one-level probe lists them
	srcOpen                 // an opened subtree holds them
)

// node is one znode of the tree. A big cluster has hundreds of thousands
// (a state znode and its partition's, per partition), so it is kept small
// (64 bytes): its path is the mirror's string (its name the end of it),
// its children are a slice, with an index by name (Model.kidIdx) only
// where there are many, and its data and stat are not in it: they are read
// from the mirror (Options.Nodes) or kept aside (Model.held). It keeps the
// two stat facts its row shows.
type node struct {
	path   string
	parent *node
	kids   []*node // natural order unless sortDirty
	reset  uint32  // the reset that last named it (Model.resets)
	ver    uint32  // bumped when its data or stat change (detailKey)

	sortDirty bool
	indexed   bool           // its children are in Model.kidIdx
	denied    cluster.Access // what of it the session may not read
	inMirror  bool           // data and stat come from the mirror
	listed    bool           // the parent's probe lists it
	probed    bool           // data and stat come from a probe
	hasKids   bool           // its stat says it has children
	eph       bool           // its stat says it is ephemeral
}

// held is a node's data and stat when the screen keeps them: a probe's,
// or the mirror's without Options.Nodes.
type held struct {
	data []byte
	stat *cluster.Stat
}

// name is the last part of n's path ("/" for the root).
func (n *node) name() string {
	if n.path == "/" {
		return "/"
	}
	return n.path[strings.LastIndexByte(n.path, '/')+1:]
}

// manyKids is where a node's children get an index by name.
const manyKids = 16

// kid returns n's child called name, or nil.
func (m *Model) kid(n *node, name string) *node {
	if n.indexed {
		return m.kidIdx[n][name]
	}
	for _, c := range n.kids {
		if c.name() == name {
			return c
		}
	}
	return nil
}

// child returns n's child called name, creating it (created); path, when
// not "", is its path (a string the caller holds anyway, shared).
func (m *Model) child(n *node, name, path string) (c *node, created bool) {
	if c := m.kid(n, name); c != nil {
		return c, false
	}
	if path == "" {
		path = n.path + "/" + name
		if n.path == "/" {
			path = "/" + name
		}
	}
	c = &node{path: path, parent: n}
	n.kids = append(n.kids, c)
	switch {
	case n.indexed:
		m.kidIdx[n][name] = c
	case len(n.kids) > manyKids:
		idx := make(map[string]*node, 2*len(n.kids))
		for _, k := range n.kids {
			idx[k.name()] = k
		}
		m.kidIdx[n], n.indexed = idx, true
	}
	n.sortDirty = true
	return c, true
}

// removeKid drops n's child c.
func (m *Model) removeKid(n, c *node) {
	if i := slices.Index(n.kids, c); i >= 0 {
		n.kids = slices.Delete(n.kids, i, i+1)
	}
	if n.indexed {
		delete(m.kidIdx[n], c.name())
		if len(n.kids) <= manyKids/2 {
			delete(m.kidIdx, n)
			n.indexed = false
		}
	}
}

func (n *node) children() []*node {
	if n.sortDirty {
		slices.SortFunc(n.kids, func(a, b *node) int { return text.CompareNatural(a.name(), b.name()) })
		n.sortDirty = false
	}
	return n.kids
}

// Apply takes a mirror batch.
func (m *Model) Apply(events []cluster.NodeEvent, reset bool) {
	if !m.built {
		return // built from the mirror when first shown
	}
	if reset {
		// Keep what probes found; the mirror part is replaced: the nodes
		// the reset names are kept (no new copy of a big tree), the
		// others dropped once it is applied.
		m.resets++
		defer m.dropMirror(m.root)
	}
	for i := range events {
		ev := &events[i]
		if ev.Type == cluster.NodeDeleted {
			if n := m.lookup(ev.Path); n != nil {
				n.inMirror = false
				m.forget(n)
				m.prune(n)
			}
			continue
		}
		n := m.mirrored(ev.Path, &ev.Stat, ev.Denied)
		switch {
		case m.nodes != nil:
			delete(m.held, n) // the mirror has them
		case ev.Stat == (cluster.Stat{}):
			m.held[n] = held{data: ev.Data} // a names-only child: no data, no stat
		default:
			st := ev.Stat
			m.held[n] = held{data: ev.Data, stat: &st}
		}
	}
}

// mirrored notes what the mirror holds of path.
func (m *Model) mirrored(path string, st *cluster.Stat, denied cluster.Access) *node {
	n := m.ensure(path)
	n.inMirror, n.reset = true, m.resets
	n.denied, n.ver = denied, n.ver+1
	n.hasKids, n.eph = st.NumChildren > 0, st.EphemeralOwner != 0
	return n
}

// build puts every node the mirror holds in the tree, as a reset would.
// Batches cut before the walk may still come: they are applied as usual
// (a node's events carry its whole state), and the later ones set the
// tree right.
func (m *Model) build() {
	m.built = true
	m.resets++
	var empty cluster.Stat
	m.walker.Walk(func(path string, st *cluster.Stat, denied cluster.Access) {
		if st == nil {
			st = &empty // a names-only child
		}
		m.mirrored(path, st, denied)
	})
	m.dropMirror(m.root)
}

// forget drops n's data and stat (what the mirror or a probe said).
func (m *Model) forget(n *node) {
	delete(m.held, n)
	n.denied, n.hasKids, n.eph, n.ver = 0, false, false, n.ver+1
}

// info returns n's data and stat: the mirror's (Options.Nodes) or those
// the screen keeps.
func (m *Model) info(n *node) ([]byte, *cluster.Stat) {
	if n.inMirror && m.nodes != nil {
		data, stat, _ := m.nodes.Node(n.path)
		return data, stat
	}
	h := m.held[n]
	return h.data, h.stat
}

// dropMirror forgets what the mirror said of n and below that the last
// reset did not repeat.
func (m *Model) dropMirror(n *node) {
	for _, c := range slices.Clone(n.kids) { // prune removes kids
		m.dropMirror(c)
	}
	if n.inMirror && n.reset != m.resets {
		n.inMirror = false
		m.forget(n)
		m.prune(n)
	}
}

// lookup returns the node of path, or nil. There is no index by path (a
// map of every znode would cost more than the nodes): it walks from the
// root, a few steps.
func (m *Model) lookup(path string) *node {
	n := m.root
	for i := 1; n != nil && i < len(path); {
		j := strings.IndexByte(path[i:], '/')
		if j < 0 {
			j = len(path) - i
		}
		n = m.kid(n, path[i:i+j])
		i += j + 1
	}
	return n
}

// ensure returns the node of path, creating it and its ancestors. The
// nodes' paths are parts of path (no copies).
func (m *Model) ensure(path string) *node {
	n := m.root
	for i := 1; i < len(path); {
		j := strings.IndexByte(path[i:], '/')
		if j < 0 {
			j = len(path) - i
		}
		c, created := m.child(n, path[i:i+j], path[:i+j])
		if created {
			m.count++
			m.flatOK = false
		}
		n = c
		i += j + 1
	}
	return n
}

// prune removes n (and empty ancestors) once nothing holds it.
func (m *Model) prune(n *node) {
	for n != nil && n != m.root && !n.inMirror && !n.listed && len(n.kids) == 0 {
		p := n.parent
		m.removeKid(p, n)
		delete(m.held, n)
		if n.indexed { // emptied first: not reached, but never leak an index
			delete(m.kidIdx, n)
		}
		m.count--
		m.flatOK = false
		n = p
	}
}
