// Package tree is the ZooKeeper browser: the tree on the left (expand and
// collapse), the selected znode on the right with its data pretty-printed,
// Kafka's meanings decoded (timestamps as times, broker endpoints, epochs)
// and its stat. Everything shown is live.
//
// The nodes come from three places; the last two are the screen's own
// commands, through the ports in Options (as the wizard writes through
// create.Options.Writer):
//   - the Kafka mirror (always loaded and watched): every batch's events
//     reach Apply;
//   - one-level probes (Prober) of the nodes above Kafka's data ("/",
//     "/brokers", "/config", a topic, …), to list their other children;
//     a probe is live (re-listed when its watch fires) while the node is
//     expanded and the screen shown;
//   - subtrees outside Kafka's (Subtrees: "/zookeeper", "/consumers",
//     "/config/changes", …), loaded and watched by the mirror only while
//     they are expanded and the screen is shown.
//
// The shell tells the screen when it is shown and hidden (Shown): hiding
// it stops every probe and closes every subtree.
package tree

import (
	"slices"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/internal/text"
	"github.com/ktopo/ktopo/ui/internal/cell"
	"github.com/ktopo/ktopo/ui/internal/cursor"
	"github.com/ktopo/ktopo/ui/keys"
	"github.com/ktopo/ktopo/ui/nav"
	"github.com/ktopo/ktopo/ui/theme"
)

// Subtrees loads subtrees outside Kafka's data into the mirror and stops
// watching them (*zkwatch.Mirror). Its calls wait for the mirror's loop,
// so the screen makes them in commands.
type Subtrees interface {
	OpenSubtree(path string) error
	CloseSubtree(path string) error
}

// Prober reads one node for the screen: its data and its children's names.
type Prober interface {
	Probe(path string) (Probe, error)
}

// Probe is what a probe read. Changed, when set, blocks until the node's
// children change or the watch ends (with the session); it may be set
// with an error too, when the listing worked and the data read did not.
type Probe struct {
	Children []string
	Data     []byte
	Stat     *cluster.Stat
	Changed  func()
	// Denied is what of the node ZooKeeper's ACL keeps from the session.
	Denied cluster.Access
}

// Nodes reads a mirrored node's data and stat as the mirror holds them
// now (*zkwatch.Mirror's Get, adapted): ok is false once it is no longer
// there. The screen then keeps no copy of them: it reads the node it
// shows. It must not block long (it is called from View, for the node
// under the cursor when it or its events change).
type Nodes interface {
	Node(path string) (data []byte, stat *cluster.Stat, ok bool)
}

// Walker lists every node the mirror holds (Nodes may be one). With it the
// screen builds its tree only when first shown, from the mirror, and
// ignores batches until then: a big cluster's tree (a node per znode) is
// not kept by a session that never opens the screen.
type Walker interface {
	Walk(fn func(path string, stat *cluster.Stat, denied cluster.Access))
}

// Options configure the screen.
type Options struct {
	Styles theme.Styles
	Keys   keys.Map
	// Location is the time zone of the times shown (nil: local).
	Location *time.Location
	// Subtrees and Prober are the screen's I/O (nil: the nodes they would
	// bring stay unloaded).
	Subtrees Subtrees
	Prober   Prober
	// Nodes, when set, is where the mirror's nodes' data and stats are
	// read (nil: the screen keeps those of the events it is given).
	Nodes Nodes
	// Task is the id the shell gave the screen: the results of its
	// commands come back in nav.TaskMsg{Task: Task}.
	Task int
}

// results of the screen's commands, delivered wrapped in nav.TaskMsg.
type (
	// probedMsg: a probe's answer.
	probedMsg struct {
		path  string
		probe Probe
		err   error
	}
	// probeFiredMsg: a probed node's children changed (or the watch ended).
	probeFiredMsg struct{ path string }
	// subtreeFailedMsg: opening or closing a subtree failed.
	subtreeFailedMsg struct{ err error }
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

// row is a line of the flattened tree.
type row struct {
	n     *node
	depth int
}

// Model is the tree screen.
type Model struct {
	st      theme.Styles
	list    keys.List
	tk      keys.Tree
	loc     *time.Location
	subs    Subtrees
	prober  Prober
	nodes   Nodes
	task    int
	w, h    int
	visible bool

	root  *node
	count int // nodes in the tree, the root included
	// mirrorN is how many znodes the mirror reads and watches (what the
	// status bar counts): the tree names more, listed by their parents.
	mirrorN  int
	walker   Walker
	built    bool // the mirror's nodes are in the tree (always, without walker)
	held     map[*node]held
	kidIdx   map[*node]map[string]*node // children by name, of nodes with many
	resets   uint32                     // reset batches applied
	expanded map[string]bool
	opened   map[string]bool // subtrees asked for (while visible)
	probing  map[string]bool // probes asked for (while visible)
	waiting  map[string]bool // requested, no answer yet
	flat     []row
	flatOK   bool
	win      cursor.Window
	selPath  string
	raw      bool

	detail    []string
	detailKey detailKey

	renderRow func(r row, selected bool) string
}

type detailKey struct {
	n      *node
	ver    uint32
	denied cluster.Access
	raw    bool
	w      int
}

// New returns the screen.
func New(o Options) *Model {
	loc := o.Location
	if loc == nil {
		loc = time.Local
	}
	m := &Model{st: o.Styles, list: o.Keys.List, tk: o.Keys.Tree, loc: loc, subs: o.Subtrees, prober: o.Prober, nodes: o.Nodes, task: o.Task, held: map[*node]held{},
		expanded: map[string]bool{"/": true}, opened: map[string]bool{}, probing: map[string]bool{}, waiting: map[string]bool{}}
	m.walker, _ = o.Nodes.(Walker)
	m.built = m.walker == nil
	m.reset()
	m.renderRow = m.row
	return m
}

func (m *Model) reset() {
	m.root = &node{path: "/"}
	m.kidIdx = map[*node]map[string]*node{}
	m.count = 1
	m.flatOK = false
}

// Title implements ui.Screen.
func (m *Model) Title() string { return "ZooKeeper" }

// SetSize implements ui.Screen.
func (m *Model) SetSize(w, h int) { m.w, m.h = w, h; m.win.SetH(h - 1) }

// SetMirrored sets how many znodes the mirror reads and watches, which
// the title shows next to the tree's own count (0: not shown).
func (m *Model) SetMirrored(n int) { m.mirrorN = n }

// SetStyles implements ui.Screen.
func (m *Model) SetStyles(st theme.Styles) { m.st = st; m.detailKey = detailKey{} }

// isProbing reports whether the screen still wants path probed.
func (m *Model) isProbing(path string) bool { return m.visible && m.probing[path] }

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

// how says how the children of path are known.
func how(path string) source {
	info := cluster.ParsePath(path)
	switch info.Kind {
	case cluster.KindRoot, cluster.KindBrokers, cluster.KindTopic, cluster.KindTopicPartitions, cluster.KindPartition,
		cluster.KindConfig, cluster.KindAdmin, cluster.KindCluster:
		return srcProbe
	case cluster.KindBrokerIDs, cluster.KindBrokerTopics, cluster.KindDeleteTopics,
		cluster.KindIsrChangeNotifications, cluster.KindLogDirEventNotifications:
		return srcMirror
	case cluster.KindConfigEntityType:
		if info.EntityType == "topics" {
			return srcMirror
		}
	case cluster.KindBroker, cluster.KindPartitionState, cluster.KindController, cluster.KindControllerEpoch,
		cluster.KindClusterID, cluster.KindTopicConfig, cluster.KindDeleteTopic, cluster.KindReassignPartitions,
		cluster.KindPreferredReplicaElection, cluster.KindIsrChange, cluster.KindLogDirEvent:
		return srcMirror // Kafka's own leaves: the mirror has them
	}
	return srcOpen
}

// inOpened reports whether path lies inside an opened subtree.
func (m *Model) inOpened(path string) bool {
	for p := range m.opened {
		if p == path || strings.HasPrefix(path, p+"/") {
			return true
		}
	}
	return false
}

// probed takes a probe's answer.
func (m *Model) probed(msg probedMsg) {
	delete(m.waiting, msg.path)
	if !m.probing[msg.path] {
		return
	}
	n := m.ensure(msg.path)
	if msg.err != nil {
		// The node is gone (or unreadable): forget what its probe listed.
		for _, c := range slices.Clone(n.kids) { // prune removes kids
			c.listed = false
			m.prune(c)
		}
		n.probed = false
		return
	}
	if !n.inMirror {
		n.probed, n.denied, n.ver = true, msg.probe.Denied, n.ver+1
		m.held[n] = held{data: msg.probe.Data, stat: msg.probe.Stat}
		st := msg.probe.Stat
		n.hasKids, n.eph = st != nil && st.NumChildren > 0, st != nil && st.EphemeralOwner != 0
	}
	now := make(map[string]bool, len(msg.probe.Children))
	for _, name := range msg.probe.Children {
		now[name] = true
		c, created := m.child(n, name, "")
		if created {
			m.count++
		}
		if !c.listed {
			c.listed = true
			m.flatOK = false
		}
	}
	for _, c := range slices.Clone(n.kids) { // prune removes kids
		if !now[c.name()] && c.listed {
			c.listed = false
			m.prune(c)
		}
	}
}

// Shown implements ui.Shower: the shell tells the screen whether it is
// shown. Leaving stops every probe and closes every subtree; coming back
// asks for them again.
func (m *Model) Shown(v bool) tea.Cmd {
	if v == m.visible {
		return nil
	}
	m.visible = v
	if v && !m.built {
		m.build()
	}
	var cmds []tea.Cmd
	if !v {
		for p := range m.opened {
			cmds = append(cmds, m.subtree(p, false))
		}
		clear(m.opened)
		clear(m.probing)
		clear(m.waiting)
		return tea.Batch(cmds...)
	}
	// Re-ask for every expanded node that is still reachable.
	paths := make([]string, 0, len(m.expanded))
	for p := range m.expanded {
		paths = append(paths, p)
	}
	slices.Sort(paths) // parents first
	for _, p := range paths {
		cmds = append(cmds, m.want(p))
	}
	return tea.Batch(cmds...)
}

// want asks for what an expanded node needs.
func (m *Model) want(path string) tea.Cmd {
	if !m.visible || m.inOpened(path) {
		return nil
	}
	switch how(path) {
	case srcProbe:
		if !m.probing[path] {
			m.probing[path] = true
			m.waiting[path] = true
			return m.probe(path)
		}
	case srcOpen:
		if !m.opened[path] {
			m.opened[path] = true
			m.waiting[path] = true
			return m.subtree(path, true)
		}
	}
	return nil
}

// probe lists path's children (with a watch) and reads its data.
func (m *Model) probe(path string) tea.Cmd {
	pr, task := m.prober, m.task
	if pr == nil {
		return nil
	}
	return func() tea.Msg {
		p, err := pr.Probe(path)
		return nav.TaskMsg{Task: task, Msg: probedMsg{path: path, probe: p, err: err}}
	}
}

// rearm waits for a probed node's children to change.
func (m *Model) rearm(path string, changed func()) tea.Cmd {
	task := m.task
	return func() tea.Msg {
		changed()
		return nav.TaskMsg{Task: task, Msg: probeFiredMsg{path}}
	}
}

// subtree opens or closes a subtree of the mirror.
func (m *Model) subtree(path string, open bool) tea.Cmd {
	subs, task := m.subs, m.task
	if subs == nil {
		return nil
	}
	return func() tea.Msg {
		var err error
		if open {
			err = subs.OpenSubtree(path)
		} else {
			err = subs.CloseSubtree(path)
		}
		if err != nil {
			return nav.TaskMsg{Task: task, Msg: subtreeFailedMsg{err}}
		}
		return nil
	}
}

// unwant releases what a collapsed node held.
func (m *Model) unwant(path string) tea.Cmd {
	delete(m.probing, path)
	delete(m.waiting, path)
	if m.opened[path] {
		delete(m.opened, path)
		return m.subtree(path, false)
	}
	return nil
}

// Expand expands path (and reports the requests it needs).
func (m *Model) Expand(path string) tea.Cmd {
	m.expanded[path] = true
	m.flatOK = false
	return m.want(path)
}

// Collapse collapses path, releasing it and every expanded node below.
func (m *Model) Collapse(path string) tea.Cmd {
	var cmds []tea.Cmd
	for p := range m.expanded {
		if p == path || (strings.HasPrefix(p, path+"/") || path == "/") {
			if p == "/" && path != "/" {
				continue
			}
			delete(m.expanded, p)
			cmds = append(cmds, m.unwant(p))
		}
	}
	m.flatOK = false
	return tea.Batch(cmds...)
}

// Select puts the cursor on path, expanding its ancestors.
func (m *Model) Select(path string) tea.Cmd {
	var cmds []tea.Cmd
	for p := parentOf(path); p != ""; p = parentOf(p) {
		if !m.expanded[p] {
			cmds = append(cmds, m.Expand(p))
		}
		if p == "/" {
			break
		}
	}
	m.selPath = path
	m.flatten()
	return tea.Batch(cmds...)
}

func parentOf(p string) string {
	if p == "/" || p == "" {
		return ""
	}
	i := strings.LastIndexByte(p, '/')
	if i == 0 {
		return "/"
	}
	return p[:i]
}

// Selected is the path under the cursor.
func (m *Model) Selected() string {
	m.flatten()
	if m.win.N == 0 {
		return ""
	}
	return m.flat[m.win.Cursor].n.path
}

// Expanded reports whether path is expanded.
func (m *Model) Expanded(path string) bool { return m.expanded[path] }

// Rows returns the visible tree paths (for tests).
func (m *Model) Rows() []string {
	m.flatten()
	out := make([]string, len(m.flat))
	for i, r := range m.flat {
		out[i] = r.n.path
	}
	return out
}

// flatten rebuilds the visible rows after a structural change, keeping
// the cursor on the same path (or its nearest surviving ancestor).
func (m *Model) flatten() {
	if m.flatOK {
		return
	}
	if m.win.N > 0 && m.win.Cursor < len(m.flat) && m.selPath == "" {
		m.selPath = m.flat[m.win.Cursor].n.path
	}
	m.flat = m.flat[:0]
	var walk func(n *node, depth int)
	walk = func(n *node, depth int) {
		m.flat = append(m.flat, row{n, depth})
		if m.expanded[n.path] {
			for _, c := range n.children() {
				walk(c, depth+1)
			}
		}
	}
	walk(m.root, 0)
	m.flatOK = true
	m.win.SetN(len(m.flat))
	if m.selPath != "" {
		for p := m.selPath; p != ""; p = parentOf(p) {
			if i := m.find(p); i >= 0 {
				m.win.To(i)
				break
			}
		}
	}
	m.selPath = ""
}

func (m *Model) find(path string) int {
	if m.lookup(path) == nil {
		return -1
	}
	for i := range m.flat {
		if m.flat[i].n.path == path {
			return i
		}
	}
	return -1
}

// ShortHelp implements help.KeyMap.
func (m *Model) ShortHelp() []key.Binding {
	return []key.Binding{m.tk.Toggle, m.tk.Expand, m.tk.Collapse, m.tk.Raw}
}

// FullHelp implements help.KeyMap.
func (m *Model) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{m.list.Up, m.list.Down, m.list.PageUp, m.list.PageDown, m.list.Top, m.list.Bottom},
		{m.tk.Toggle, m.tk.Expand, m.tk.Collapse, m.tk.Raw},
	}
}

// Update implements ui.Screen.
func (m *Model) Update(msg tea.Msg) (tea.Cmd, nav.Request) {
	m.flatten()
	switch msg := msg.(type) {
	case probedMsg:
		m.probed(msg)
		if msg.probe.Changed == nil {
			return nil, nil
		}
		// Re-armed whether or not the node is still wanted: when it fires
		// the screen decides (isProbing).
		return m.rearm(msg.path, msg.probe.Changed), nil
	case probeFiredMsg:
		if m.isProbing(msg.path) {
			return m.probe(msg.path), nil
		}
	case subtreeFailedMsg:
		return nil, nav.ShowStatus{Text: msg.err.Error(), Err: true}
	case tea.KeyPressMsg:
		cur := m.win.Cursor
		var n *node
		if cur < len(m.flat) {
			n = m.flat[cur].n
		}
		switch {
		case cursor.Move(&m.win, &m.list, msg):
		case key.Matches(msg, m.tk.Raw):
			m.raw = !m.raw
		case n == nil:
		case key.Matches(msg, m.tk.Toggle):
			m.selPath = n.path
			if m.expanded[n.path] {
				return m.Collapse(n.path), nil
			}
			return m.Expand(n.path), nil
		case key.Matches(msg, m.tk.Expand):
			m.selPath = n.path
			if m.expanded[n.path] && len(n.kids) > 0 {
				m.flatten()
				m.win.Move(1) // already open: step into it
				return nil, nil
			}
			return m.Expand(n.path), nil
		case key.Matches(msg, m.tk.Collapse):
			if m.expanded[n.path] && n != m.root {
				m.selPath = n.path
				return m.Collapse(n.path), nil
			}
			if p := parentOf(n.path); p != "" {
				m.selPath = p
				m.flatOK = false
			}
		}
	case tea.MouseWheelMsg:
		cursor.Wheel(&m.win, msg)
	}
	return nil, nil
}

func (m *Model) leftW() int { return min(max(m.w*2/5, 24), 64) }

// View implements ui.Screen.
func (m *Model) View() string {
	if m.w <= 0 || m.h <= 0 {
		return ""
	}
	m.flatten()
	st := m.st
	lw := m.leftW()
	rw := max(m.w-lw-3, 0)
	var sel *node
	if m.win.Cursor < len(m.flat) {
		sel = m.flat[m.win.Cursor].n
	}
	// Two counts the status bar's "znodes" is one of: the tree names the
	// children its parents list too, which the mirror does not read.
	known := "  " + cell.Thousands(m.count) + " znodes known"
	if m.mirrorN > 0 {
		known += " · " + cell.Thousands(m.mirrorN) + " read and watched"
	}
	title := " " + st.Bold.S("ZooKeeper") + st.Muted.S(known)
	lines := make([]string, 0, m.h)
	lines = append(lines, cell.Clip(title, m.w))
	detail := m.details(sel, rw)
	from, to := m.win.Visible()
	sep := st.Subtle.S("│")
	for i := 0; i < m.h-1; i++ {
		var left string
		if j := from + i; j < to {
			left = m.renderRow(m.flat[j], j == m.win.Cursor)
		} else {
			left = cell.Spaces(lw)
		}
		right := ""
		if i < len(detail) {
			right = detail[i]
		}
		lines = append(lines, left+" "+sep+" "+right)
	}
	return cell.Lines(lines, m.h)
}

func (m *Model) row(r row, selected bool) string {
	st := &m.st
	lw := m.leftW()
	n := r.n
	marker := "  "
	switch {
	case m.expanded[n.path] && (len(n.kids) > 0 || m.waiting[n.path]):
		marker = "▾ "
	case m.expanded[n.path]:
		marker = "  "
	case len(n.kids) > 0 || n.hasKids || (!n.inMirror && !n.probed):
		marker = "▸ "
	}
	indent := min(r.depth*2, lw/2)
	name := n.name()
	suffix := ""
	switch {
	case m.waiting[n.path]:
		suffix = " …"
	case n.denied != 0:
		suffix = " " + noAccess
	case n.eph:
		suffix = " eph"
	}
	plain := cell.Spaces(indent) + marker + name
	text := cell.Fit(plain, lw-len(suffix)) + suffix
	if selected {
		return st.Selected.S(cell.Fit(text, lw))
	}
	ink := st.Text
	if !n.inMirror && !n.probed && len(n.kids) == 0 {
		ink = st.Muted // not loaded yet
	}
	return ink.S(cell.Fit(text, lw))
}
