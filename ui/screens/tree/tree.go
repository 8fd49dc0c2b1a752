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
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/clusterwatch"
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

// Probe is what a probe read (clusterwatch.Probe).
type Probe = clusterwatch.Probe

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
