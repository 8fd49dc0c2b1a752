package zkwatch

import (
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/ktopo/ktopo/internal/testkit/zktest"
)

// TestMirrorNoAccess: nodes the session may not read are in the mirror
// marked as such (never missing, never empty): a single node, a listed
// child, a container that may not be listed, and the nodes of an opened
// subtree; a deletion removes them; once readable they come back with
// their data.
func TestMirrorNoAccess(t *testing.T) {
	base := zktest.Chroot(t)
	alice := connect(t, base, Options{Digest: "alice:secret"})
	private := zk.DigestACL(zk.PermAll, "alice", "secret")
	readOnly := append(zk.DigestACL(zk.PermAll, "alice", "secret"), zk.WorldACL(zk.PermRead)...)
	for _, n := range []struct {
		path string
		data string
		acl  []zk.ACL
	}{
		{"/secret", "s", private},
		{"/list", "", readOnly},
		{"/list/a", "a", open},
		{"/list/b", "b", private},
		{"/hidden", "", private},
		{"/hidden/x", "x", open},
		{"/sub", "", readOnly},
		{"/sub/users", "", private},
		{"/sub/users/u1", "creds", open},
	} {
		if _, err := alice.Create(n.path, []byte(n.data), 0, n.acl); err != nil {
			t.Fatal(n.path, err)
		}
	}
	c := connect(t, base, Options{})
	m, r := startMirror(t, c, Shape{
		Lists: []List{{Path: "/list", ReadChildren: true}, {Path: "/hidden"}},
		Reads: []string{"/secret"},
	})
	if err := m.OpenSubtree("/sub"); err != nil {
		t.Fatal(err)
	}
	want := map[string]Access{"/secret": NoData, "/list/a": 0, "/list/b": NoData, "/hidden": NoChildren,
		"/sub": 0, "/sub/users": NoData | NoChildren}
	waitFor(t, "the mirror to load", 10*time.Second, func() bool {
		got := r.snapshot()
		if len(got) != len(want) {
			return false
		}
		for p, a := range want {
			if n, ok := got[p]; !ok || n.Denied != a {
				return false
			}
		}
		return true
	})
	r.check(t)
	tree := m.Tree()
	if n := tree["/secret"]; n.Data != nil {
		t.Errorf("/secret: data %q of a node that may not be read", n.Data)
	}
	// exists gives the stat where ZooKeeper lets it (not on 3.8.4+/3.9.2+).
	if n := tree["/secret"]; (n.Stat == nil) != zktest.ExistsChecksRead() {
		t.Errorf("/secret: stat %v on ZooKeeper %s", n.Stat, zktest.Version())
	}
	if string(tree["/list/a"].Data) != "a" {
		t.Errorf("/list/a: %q", tree["/list/a"].Data)
	}
	if _, ok := tree["/hidden/x"]; ok {
		t.Error("a child of a container that may not be listed is in the mirror")
	}
	if st := m.Stats(); st.Denied == 0 || st.Errors != 0 {
		t.Errorf("stats: denied %d, errors %d", st.Denied, st.Errors)
	}

	// A deleted child goes (its parent's listing says so).
	if err := alice.Delete("/list/b", -1); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "/list/b to go", 10*time.Second, func() bool { _, ok := r.snapshot()["/list/b"]; return !ok })
	// Made readable and changed, /secret is read again where the exists
	// watch could be set.
	if !zktest.ExistsChecksRead() {
		if _, err := alice.raw.SetACL(alice.chroot+"/secret", open, -1); err != nil {
			t.Fatal(err)
		}
		if _, err := alice.Set("/secret", []byte("s2"), -1); err != nil {
			t.Fatal(err)
		}
		waitFor(t, "/secret readable", 10*time.Second, func() bool {
			n := r.snapshot()["/secret"]
			return n.Denied == 0 && string(n.Data) == "s2"
		})
	}
	r.check(t)
}
