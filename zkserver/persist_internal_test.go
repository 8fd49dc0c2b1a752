package zkserver

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/ktopo/ktopo/zkserver/internal/proto"
)

// sampleTree is a small tree with every kind of node.
func sampleTree() *tree {
	t := newTree()
	acl := []proto.ACL{{Perms: proto.PermAll, Scheme: "world", ID: "anyone"}}
	digest := []proto.ACL{{Perms: proto.PermRead, Scheme: "digest", ID: "u:x"}}
	eph := ownerIndex{}
	ops := []txnOp{
		{typ: txCreate, path: "/a", data: []byte("x"), acl: acl},
		{typ: txCreate, path: "/a/b", acl: digest},
		{typ: txCreate, path: "/a/e", data: []byte{}, acl: acl, owner: 7},
		{typ: txCreate, path: "/c", acl: acl, owner: containerOwner},
	}
	if err := t.applyOps(1, 1000, ops, eph); err != nil {
		panic(err)
	}
	return t
}

// sampleLog returns a log file holding a few records of every kind.
func sampleLog(t testing.TB) []byte {
	dir := t.TempDir()
	l, err := openLog(dir, 1, func(error) {})
	if err != nil {
		t.Fatal(err)
	}
	var e proto.Encoder
	encodeTxnOps(&e, []txnOp{{typ: txCreate, path: "/a", data: []byte("x"), acl: aclOpenAll}, {typ: txSetData, path: "/a", data: []byte("y")}})
	l.append(1, 10, recTxn, e.B)
	l.append(2, 11, recCreateSess, make([]byte, 8))
	l.append(3, 12, recTxn, []byte{0, 0, 0, 0})
	e.B = e.B[:0]
	encodeTxnOps(&e, []txnOp{{typ: txSetACL, path: "/a", acl: aclReadOnly}, {typ: txDelete, path: "/a"}})
	l.append(4, 13, recTxn, e.B)
	l.append(5, 14, recCloseSession, make([]byte, 8))
	if err := l.close(false); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, logName(1)))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// FuzzReadLog: any bytes as a log file are replayed or refused with an
// error, never a panic.
func FuzzReadLog(f *testing.F) {
	good := sampleLog(f)
	f.Add(good)
	f.Add(good[:len(good)-5])
	f.Add(good[:headerSize])
	f.Add(good[:7])
	f.Fuzz(func(t *testing.T, b []byte) {
		next, replayed := int64(1), 0
		if _, err := replayFile(bytes.NewReader(b), int64(len(b)), "log", newTree(), ownerIndex{}, &next, &replayed); err != nil {
			return
		}
		if int64(replayed) != next-1 {
			t.Fatalf("replayed %d records but next is %d", replayed, next)
		}
	})
}

// FuzzReadSnapshot: any bytes as a snapshot are loaded or refused.
func FuzzReadSnapshot(f *testing.F) {
	var buf bytes.Buffer
	if err := sampleTree().writeSnapshot(&buf, 1); err != nil {
		f.Fatal(err)
	}
	good := buf.Bytes()
	f.Add(good)
	f.Add(good[:len(good)-1])
	f.Add(good[:40])
	f.Fuzz(func(t *testing.T, b []byte) {
		_, _ = decodeSnapshot(bytes.NewReader(b), int64(len(b)))
	})
}

// TestSnapshotRoundTrip: a snapshot reads back as the same tree.
func TestSnapshotRoundTrip(t *testing.T) {
	tr := sampleTree()
	var buf bytes.Buffer
	if err := tr.writeSnapshot(&buf, 42); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), snapName(42))
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	lt, err := readSnapshot(path)
	if err != nil {
		t.Fatal(err)
	}
	if lt.zxid != 42 || len(lt.tree.nodes) != len(tr.nodes) || lt.tree.ephemerals != 1 || len(lt.tree.containers) != 1 || lt.tree.dataBytes != tr.dataBytes {
		t.Fatalf("read back zxid %d, %d nodes, %d ephemerals, %d containers, %d bytes", lt.zxid, len(lt.tree.nodes), lt.tree.ephemerals, len(lt.tree.containers), lt.tree.dataBytes)
	}
	for p, n := range tr.nodes {
		m := lt.tree.nodes[p]
		if m == nil || m.stat() != n.stat() || !bytes.Equal(m.data, n.data) || (m.data == nil) != (n.data == nil) || len(m.acl.acl) != len(n.acl.acl) {
			t.Fatalf("%s: read back %+v, want %+v", p, m, n)
		}
	}
}

// TestLogReaderStopsAtTornRecord: records before a cut are read, the cut
// one is reported torn.
func TestLogReaderStopsAtTornRecord(t *testing.T) {
	b := sampleLog(t)
	path := filepath.Join(t.TempDir(), "log")
	if err := os.WriteFile(path, b[:len(b)-3], 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	lr, err := openLogReader(f, int64(len(b)-3))
	if err != nil {
		t.Fatal(err)
	}
	var zxids []int64
	for {
		r, err := lr.next()
		if errors.Is(err, io.EOF) {
			t.Fatal("a cut record read as a clean end")
		}
		if errors.Is(err, errTorn) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		zxids = append(zxids, r.zxid)
	}
	if len(zxids) != 4 || zxids[3] != 4 {
		t.Fatalf("read %v before the torn record, want 1..4", zxids)
	}
}

// bigTree returns a tree of n znodes of 150 bytes under /bench (names as
// long as Kafka topic paths), built as n/1000 multi transactions, and the
// records that built it.
func bigTree(n int) (*tree, [][]txnOp) {
	t := newTree()
	acl := aclOpenAll
	data := make([]byte, 150)
	var txns [][]txnOp
	zxid := int64(0)
	for i := 0; i < n; i += 1000 {
		parent := fmt.Sprintf("/bench%03d", i/1000)
		ops := []txnOp{{typ: txCreate, path: parent, acl: acl}}
		for j := range min(1000, n-i) {
			ops = append(ops, txnOp{typ: txCreate, path: fmt.Sprintf("%s/bench-topic-name-%06d", parent, j), data: data, acl: acl})
		}
		zxid++
		if err := t.applyOps(zxid, 1000, ops, ownerIndex{}); err != nil {
			panic(err)
		}
		txns = append(txns, ops)
	}
	return t, txns
}

// BenchmarkSnapshot100k: writing (what happens under the read lock: writes
// wait meanwhile) and loading a snapshot of 100,000 znodes of 150 bytes.
func BenchmarkSnapshot100k(b *testing.B) {
	t, _ := bigTree(100_000)
	path := filepath.Join(b.TempDir(), snapName(1))
	b.Run("write", func(b *testing.B) {
		for b.Loop() {
			f, err := os.Create(path)
			if err != nil {
				b.Fatal(err)
			}
			if err := t.writeSnapshot(f, 1); err != nil {
				b.Fatal(err)
			}
			f.Close()
		}
		fi, _ := os.Stat(path)
		b.ReportMetric(float64(fi.Size())/(1<<20), "MiB")
	})
	b.Run("load", func(b *testing.B) {
		for b.Loop() {
			if _, err := readSnapshot(path); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkReplay100k: replaying a log of 100 multis of 1,000 creates.
func BenchmarkReplay100k(b *testing.B) {
	_, txns := bigTree(100_000)
	dir := b.TempDir()
	l, err := openLog(dir, 1, func(error) {})
	if err != nil {
		b.Fatal(err)
	}
	var e proto.Encoder
	for i, ops := range txns {
		e.B = e.B[:0]
		encodeTxnOps(&e, ops)
		l.append(int64(i+1), 1000, recTxn, e.B)
	}
	if err := l.close(false); err != nil {
		b.Fatal(err)
	}
	path := filepath.Join(dir, logName(1))
	fi, _ := os.Stat(path)
	b.ReportMetric(float64(fi.Size())/(1<<20), "MiB")
	for b.Loop() {
		next, n := int64(1), 0
		if _, err := replayLog(path, newTree(), ownerIndex{}, &next, &n); err != nil || n != len(txns) {
			b.Fatal(err, n)
		}
	}
}
