package zkserver

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/ktopo/ktopo/zkserver/internal/proto"
)

// containerOwner is the stored ephemeralOwner of container nodes (reported
// to clients as 0), as in ZooKeeper's EphemeralType.CONTAINER.
const containerOwner = math.MinInt64

// node is one znode. It is kept small: the path lives only as the key of
// tree.nodes (child names are substrings of it), the ACL list is interned,
// and children is nil for leaves.
type node struct {
	data         []byte // nil = null (length -1 on the wire)
	acl          *aclList
	czxid        int64
	mzxid        int64
	pzxid        int64
	ctime        int64
	mtime        int64
	owner        int64 // stored ephemeralOwner: session id, containerOwner or 0
	version      int32
	aversion     int32
	childCreates int32 // ZooKeeper's stored cversion: successful child creates ever
	children     map[string]struct{}
}

// stat returns the node's Stat as clients see it (spec §7.2).
func (n *node) stat() proto.Stat {
	nc := int32(len(n.children))
	owner := n.owner
	if owner == containerOwner {
		owner = 0
	}
	return proto.Stat{
		Czxid: n.czxid, Mzxid: n.mzxid, Ctime: n.ctime, Mtime: n.mtime,
		Version: n.version, Cversion: 2*n.childCreates - nc, Aversion: n.aversion,
		EphemeralOwner: owner, DataLength: int32(len(n.data)), NumChildren: nc, Pzxid: n.pzxid,
	}
}

// isEphemeral reports whether the node belongs to a session.
func (n *node) isEphemeral() bool { return n.owner != 0 && n.owner != containerOwner }

// aclList is an interned, immutable ACL list shared by every node that has it.
type aclList struct{ acl []proto.ACL }

// tree is the data tree. It is guarded by Server.mu.
type tree struct {
	nodes      map[string]*node
	acls       map[string]*aclList
	containers map[string]struct{}
	lastACL    *aclList
	ephemerals int // count of ephemeral nodes (mntr)
	dataBytes  int64
}

var (
	aclOpenAll  = []proto.ACL{{Perms: proto.PermAll, Scheme: "world", ID: "anyone"}}
	aclReadOnly = []proto.ACL{{Perms: proto.PermRead, Scheme: "world", ID: "anyone"}}
)

// newTree returns the tree a fresh ZooKeeper 3.8 standalone server holds
// (spec §7.5).
func newTree() *tree {
	t := &tree{nodes: map[string]*node{}, acls: map[string]*aclList{}, containers: map[string]struct{}{}}
	all := t.intern(aclOpenAll)
	root := &node{data: []byte{}, acl: all}
	zk := &node{data: []byte{}, acl: all}
	quota := &node{data: []byte{}, acl: all}
	config := &node{data: []byte{}, acl: t.intern(aclReadOnly), aversion: -1}
	t.nodes["/"] = root
	t.nodes["/zookeeper"] = zk
	t.nodes["/zookeeper/quota"] = quota
	t.nodes["/zookeeper/config"] = config
	root.children = map[string]struct{}{"zookeeper": {}}
	zk.children = map[string]struct{}{"quota": {}, "config": {}}
	return t
}

// intern returns the shared copy of an ACL list. Bulk loads use one ACL
// over and over, so the last list is checked first.
func (t *tree) intern(acl []proto.ACL) *aclList {
	if t.lastACL != nil && slices.Equal(t.lastACL.acl, acl) {
		return t.lastACL
	}
	var b []byte
	for _, a := range acl {
		b = strconv.AppendInt(b, int64(a.Perms), 10)
		b = append(b, 0)
		b = append(b, a.Scheme...)
		b = append(b, 0)
		b = append(b, a.ID...)
		b = append(b, 0)
	}
	l, ok := t.acls[string(b)]
	if !ok {
		l = &aclList{acl: slices.Clone(acl)}
		t.acls[string(b)] = l
	}
	t.lastACL = l
	return l
}

// get looks a path up as reads do: no validation, "" aliases the root.
func (t *tree) get(path string) *node {
	if path == "" {
		path = "/"
	}
	return t.nodes[path]
}

// parentPath returns the path before the last slash ("" for top-level nodes).
func parentPath(path string) string {
	return path[:strings.LastIndexByte(path, '/')]
}

// watchParent is the path parents' child watches are registered under.
func watchParent(parent string) string {
	if parent == "" {
		return "/"
	}
	return parent
}

// isSpecial reports the paths that can never be deleted (spec §7.5).
func isSpecial(path string) bool {
	switch path {
	case "/", "/zookeeper", "/zookeeper/quota", "/zookeeper/config":
		return true
	}
	return false
}

// validPath implements ZooKeeper's PathUtils.validatePath (spec §7.6).
// Java checks UTF-16 code units, so runes outside the BMP (surrogates) and
// invalid UTF-8 (decoded as U+FFFD) are rejected.
func validPath(path string) bool {
	if path == "" || path[0] != '/' {
		return false
	}
	if len(path) == 1 {
		return true
	}
	if path[len(path)-1] == '/' {
		return false
	}
	for i := 1; i < len(path); {
		r, size := utf8.DecodeRuneInString(path[i:])
		switch {
		case r == '/' && path[i-1] == '/':
			return false
		case r == '.' && path[i-1] == '/':
			// "." and ".." components
			rest := path[i:]
			if rest == "." || strings.HasPrefix(rest, "./") || rest == ".." || strings.HasPrefix(rest, "../") {
				return false
			}
		case r == 0, r < 0x20, r >= 0x7f && r <= 0x9f, r >= 0xd800 && r <= 0xf8ff, r >= 0xfff0:
			// r >= 0xfff0 also covers every rune outside the BMP and U+FFFD
			// from invalid UTF-8.
			return false
		}
		i += size
	}
	return true
}

// undoLog records how to revert tree mutations; a multi uses it to roll back
// when one of its ops fails.
type undoLog []func()

func (u *undoLog) add(f func()) {
	if u != nil {
		*u = append(*u, f)
	}
}

func (u *undoLog) rollback() {
	for i := len(*u) - 1; i >= 0; i-- {
		(*u)[i]()
	}
	*u = nil
}

// addNode inserts a new node under parent (which must exist) and updates the
// parent as a create transaction does (spec §8.1 step 11).
func (t *tree) addNode(path string, parent *node, n *node, zxid int64, u *undoLog) {
	old := *parent
	t.nodes[path] = n
	if parent.children == nil {
		parent.children = map[string]struct{}{}
	}
	name := path[strings.LastIndexByte(path, '/')+1:]
	parent.children[name] = struct{}{}
	parent.childCreates++
	parent.pzxid = zxid
	if n.isEphemeral() {
		t.ephemerals++
	}
	if n.owner == containerOwner {
		t.containers[path] = struct{}{}
	}
	t.dataBytes += int64(len(n.data))
	u.add(func() {
		children := parent.children
		*parent = old
		parent.children = children
		delete(parent.children, name)
		delete(t.nodes, path)
		delete(t.containers, path)
		if n.isEphemeral() {
			t.ephemerals--
		}
		t.dataBytes -= int64(len(n.data))
	})
}

// removeNode deletes a node and updates its parent (spec §8.2 step 7).
func (t *tree) removeNode(path string, n *node, zxid int64, u *undoLog) {
	parent := t.get(parentPath(path))
	old := *parent
	name := path[strings.LastIndexByte(path, '/')+1:]
	delete(t.nodes, path)
	delete(parent.children, name)
	if zxid > parent.pzxid {
		parent.pzxid = zxid
	}
	if n.isEphemeral() {
		t.ephemerals--
	}
	_, wasContainer := t.containers[path]
	delete(t.containers, path)
	t.dataBytes -= int64(len(n.data))
	u.add(func() {
		children := parent.children
		*parent = old
		parent.children = children
		parent.children[name] = struct{}{}
		t.nodes[path] = n
		if wasContainer {
			t.containers[path] = struct{}{}
		}
		if n.isEphemeral() {
			t.ephemerals++
		}
		t.dataBytes += int64(len(n.data))
	})
}

// setData replaces a node's data (spec §8.3 step 5).
func (t *tree) setData(n *node, data []byte, zxid, now int64, u *undoLog) {
	old := *n
	t.dataBytes += int64(len(data) - len(n.data))
	n.data = data
	n.version++
	n.mzxid = zxid
	n.mtime = now
	u.add(func() {
		children := n.children
		*n = old
		n.children = children
		t.dataBytes -= int64(len(data) - len(old.data))
	})
}

// sortedChildren returns a node's child names in sorted order.
func sortedChildren(n *node) []string {
	out := make([]string, 0, len(n.children))
	for c := range n.children {
		out = append(out, c)
	}
	slices.Sort(out)
	return out
}

// countDescendants counts every node below path.
func (t *tree) countDescendants(path string, n *node) int {
	total := 0
	for c := range n.children {
		cp := joinPath(path, c)
		if cn := t.nodes[cp]; cn != nil {
			total += 1 + t.countDescendants(cp, cn)
		}
	}
	return total
}

// joinPath appends a child name to a parent path.
func joinPath(parent, name string) string {
	if parent == "/" || parent == "" {
		return "/" + name
	}
	return parent + "/" + name
}
