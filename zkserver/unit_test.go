package zkserver

import (
	"testing"

	"github.com/ktopo/ktopo/zkserver/internal/proto"
)

func TestValidPath(t *testing.T) {
	for p, want := range map[string]bool{
		"/": true, "/a": true, "/a/b": true, "/ok-é": true, "/zwsp-\u200b": true, "/.a": true, "/a..": true,
		"": false, "a": false, "/a/": false, "//": false, "/a//b": false, "/.": false, "/a/.": false,
		"/..": false, "/a/../b": false, "/\x00": false, "/\t": false, "/\x7f": false, "/\u0085": false,
		"/\ue000": false, "/\uf8ff": false, "/\ufff0": false, "/😀": false, "/bad\xff": false,
	} {
		if got := validPath(p); got != want {
			t.Errorf("validPath(%q) = %v, want %v", p, got, want)
		}
	}
}

func TestJavaHashes(t *testing.T) {
	// Values from Java's String.hashCode.
	for s, want := range map[string]int32{"": 0, "hello": 99162322, "/zookeeper": 954481661, "é": 233} {
		if got := javaStringHash(s); got != want {
			t.Errorf("javaStringHash(%q) = %d, want %d", s, got, want)
		}
	}
	if setCapacity(12) != 16 || setCapacity(13) != 32 || tableSizeFor(3) != 4 || tableSizeFor(1) != 1 {
		t.Error("HashMap sizing differs from Java's")
	}
}

func TestDigest(t *testing.T) {
	if got := digestID("alice:secret"); got != "alice:aYXlLOpEooaV1cRAvUL1fp9Qt7E=" {
		t.Errorf("digestID = %q", got)
	}
	for id, want := range map[string]bool{"a:b": true, ":b": true, "a:": false, "a": false, "a:b:c": false, "a:b:": true} {
		if validDigestID(id) != want {
			t.Errorf("validDigestID(%q) != %v", id, want)
		}
	}
	if !ipMatches("127.0.0.1", "127.0.0.0/8") || ipMatches("10.0.0.1", "127.0.0.0/8") || !ipMatches("127.0.0.1", "127.0.0.1") {
		t.Error("ipMatches")
	}
}

// TestMultiRollbackRestoresTree applies a failing multi and checks the tree
// is exactly as before (stats, counters, ephemeral bookkeeping).
func TestMultiRollbackRestoresTree(t *testing.T) {
	s, err := Start(Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	c := fuzzConn(t, s)
	acl := []proto.ACL{{Perms: 31, Scheme: "world", ID: "anyone"}}
	create := func(p string, flags int32) func(e *proto.Encoder) {
		return func(e *proto.Encoder) {
			e.Int(proto.OpCreate)
			e.Bool(false)
			e.Int(-1)
			e.String(p)
			e.Buffer([]byte("d"))
			e.ACLs(acl)
			e.Int(flags)
		}
	}
	s.dispatch(c, reqFrame(1, proto.OpCreate, func(e *proto.Encoder) { e.String("/p"); e.Buffer(nil); e.ACLs(acl); e.Int(0) }))
	snapshot := func() map[string]string {
		s.mu.RLock()
		defer s.mu.RUnlock()
		out := map[string]string{}
		for p, n := range s.tree.nodes {
			st := n.stat()
			out[p] = string(n.data) + "|" + fmtStat(st)
		}
		out["#eph"] = fmtStat(proto.Stat{NumChildren: int32(len(c.sess.ephemerals)), Version: int32(s.tree.ephemerals)})
		return out
	}
	before := snapshot()
	s.dispatch(c, multiFrame(create("/p/a", 1), create("/p/s-", 2), create("/p/a2", 0),
		func(e *proto.Encoder) {
			e.Int(proto.OpDelete)
			e.Bool(false)
			e.Int(-1)
			e.String("/p/a2")
			e.Int(-1)
		},
		create("/nope/x", 0)))
	after := snapshot()
	if len(before) != len(after) {
		t.Fatalf("node count %d → %d", len(before), len(after))
	}
	for p, v := range before {
		if after[p] != v {
			t.Errorf("%s: %s → %s", p, v, after[p])
		}
	}
}

func fmtStat(s proto.Stat) string {
	var e proto.Encoder
	e.Stat(&s)
	return string(e.B)
}
