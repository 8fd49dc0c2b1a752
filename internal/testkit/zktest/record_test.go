package zktest

import (
	"testing"

	"github.com/go-zookeeper/zk"
)

// TestRecorder sends go-zookeeper requests through a Recorder and checks
// what it noted, and the opcode table.
func TestRecorder(t *testing.T) {
	rec := Record(t, Addr(t))
	conn := Connect(t, rec.Addr())
	root := "/ktopo-test/recorder-" + t.Name()
	if err := CreateAll(conn, root); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Create(root+"/seq-", nil, zk.FlagEphemeral|zk.FlagSequence, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	if _, _, _, err := conn.ChildrenW(root); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Multi(&zk.CheckVersionRequest{Path: root, Version: -1}, &zk.SetDataRequest{Path: root, Data: []byte("x"), Version: -1}); err != nil {
		t.Fatal(err)
	}
	if _, err := FourLetter(rec.Addr(), "ruok"); err != nil {
		t.Fatal(err)
	}
	ops, d := rec.Ops(), rec.Details()
	if ops[OpConnect] != 1 || ops[1] < 2 || ops[12] != 1 || ops[14] != 1 || rec.Words()["ruok"] != 1 {
		t.Errorf("ops %s", rec.Summary())
	}
	if d["create:ephemeral_sequential"] != 1 || d["getChildren2:watch"] != 1 || d["multi:check"] != 1 || d["multi:setData"] != 1 {
		t.Errorf("details %s", rec.DetailSummary())
	}
	if bad := rec.Unsupported("3.5.9"); len(bad) != 0 {
		t.Errorf("go-zookeeper sent %v, unknown to 3.5.9", bad)
	}
	for _, tc := range []struct {
		version string
		op      int32
		want    bool
	}{{"3.5.9", 106, false}, {"3.6.0", 106, true}, {"3.5.9", 22, false}, {"3.6.4", 107, false}, {"3.7.0", 107, true},
		{"3.9.5", 107, true}, {"3.5.9", 19, true}, {"3.4.14", 19, false}, {"3.9.5", 999, false}} {
		if got := Supports(tc.version, tc.op); got != tc.want {
			t.Errorf("Supports(%s, %s) = %v, want %v", tc.version, OpName(tc.op), got, tc.want)
		}
	}
}
