package zkserver_test

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/ktopo/ktopo/internal/testkit/zktest"
	"github.com/ktopo/ktopo/zkserver"
)

// znode is everything a client can read of a node.
type znode struct {
	Data []byte
	Stat zk.Stat
	ACL  []zk.ACL
}

// dumpTree reads every node of the server's tree.
func dumpTree(t testing.TB, c *zk.Conn) map[string]znode {
	t.Helper()
	out := map[string]znode{}
	var walk func(p string)
	walk = func(p string) {
		data, st, err := c.Get(p)
		if err != nil {
			t.Fatalf("get %s: %v", p, err)
		}
		acl, _, err := c.GetACL(p)
		if err != nil {
			t.Fatalf("getACL %s: %v", p, err)
		}
		out[p] = znode{Data: data, Stat: *st, ACL: acl}
		kids, _, err := c.Children(p)
		if err != nil {
			t.Fatalf("children %s: %v", p, err)
		}
		for _, k := range kids {
			if p == "/" {
				walk("/" + k)
			} else {
				walk(p + "/" + k)
			}
		}
	}
	walk("/")
	return out
}

// afterRestart is what a dump taken before a restart should read after
// it: the ephemerals' sessions have ended, one closeSession transaction per
// owner in ascending id order, numbered from lastZxid+1.
func afterRestart(before map[string]znode, lastZxid int64) map[string]znode {
	out := map[string]znode{}
	var owners []int64
	for p, n := range before {
		out[p] = n
		if o := n.Stat.EphemeralOwner; o != 0 && !slices.Contains(owners, o) {
			owners = append(owners, o)
		}
	}
	slices.Sort(owners)
	for p, n := range before {
		o := n.Stat.EphemeralOwner
		if o == 0 {
			continue
		}
		delete(out, p)
		zxid := lastZxid + 1 + int64(slices.Index(owners, o))
		parent := p[:strings.LastIndexByte(p, '/')]
		if parent == "" {
			parent = "/"
		}
		pn := out[parent]
		pn.Stat.NumChildren--
		pn.Stat.Cversion++
		pn.Stat.Pzxid = max(pn.Stat.Pzxid, zxid)
		out[parent] = pn
	}
	return out
}

// diffTrees describes how two dumps differ ("" when equal).
func diffTrees(want, got map[string]znode) string {
	var b strings.Builder
	var paths []string
	for p := range want {
		paths = append(paths, p)
	}
	for p := range got {
		if _, ok := want[p]; !ok {
			paths = append(paths, p)
		}
	}
	sort.Strings(paths)
	for _, p := range paths {
		w, wok := want[p]
		g, gok := got[p]
		switch {
		case !gok:
			fmt.Fprintf(&b, "  %s: missing\n", p)
		case !wok:
			fmt.Fprintf(&b, "  %s: unexpected (%q %+v)\n", p, g.Data, g.Stat)
		case !reflect.DeepEqual(w, g):
			fmt.Fprintf(&b, "  %s:\n    want %q %+v %v\n    got  %q %+v %v\n", p, w.Data, w.Stat, w.ACL, g.Data, g.Stat, g.ACL)
		}
		if b.Len() > 4000 {
			b.WriteString("  …\n")
			break
		}
	}
	return b.String()
}

// durable starts an embedded server on dir.
func durable(t testing.TB, dir string, cfg zkserver.Config) *zkserver.Server {
	t.Helper()
	cfg.DataDir = dir
	cfg.Logger = zktest.NewLogger(t)
	s, err := zkserver.Start(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// closeServer closes s and fails the test on an error.
func closeServer(t testing.TB, s *zkserver.Server) {
	t.Helper()
	if err := s.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
}

// workload drives random writes through several sessions: creates of every
// kind (some failing), deletes, sets and setACLs with right and wrong
// versions, multis that succeed and fail, sessions that close.
type workload struct {
	t     *testing.T
	addr  string
	rng   *rand.Rand
	conns []*zk.Conn
}

var workPaths = func() []string {
	var out []string
	for _, a := range []string{"a", "b", "c"} {
		out = append(out, "/w/"+a)
		for _, b := range []string{"x", "y", "z"} {
			out = append(out, "/w/"+a+"/"+b)
			out = append(out, "/w/"+a+"/"+b+"/q")
		}
	}
	return out
}()

func (w *workload) connect() *zk.Conn {
	c, ev := gozk(w.t, w.addr, 30*time.Second)
	waitState(w.t, ev, zk.StateHasSession)
	return c
}

func (w *workload) start(sessions int) {
	w.conns = nil
	for range sessions {
		w.conns = append(w.conns, w.connect())
	}
	if _, err := w.conns[0].Create("/w", nil, 0, zk.WorldACL(zk.PermAll)); err != nil && !errors.Is(err, zk.ErrNodeExists) {
		w.t.Fatal(err)
	}
}

func (w *workload) path() string { return workPaths[w.rng.IntN(len(workPaths))] }

func (w *workload) data() []byte {
	switch w.rng.IntN(4) {
	case 0:
		return nil
	case 1:
		return []byte{}
	}
	return []byte(strconv.Itoa(w.rng.IntN(1000)))
}

func (w *workload) acl() []zk.ACL {
	if w.rng.IntN(2) == 0 {
		return zk.WorldACL(zk.PermAll)
	}
	return []zk.ACL{{Perms: zk.PermAll, Scheme: "world", ID: "anyone"}, {Perms: zk.PermRead, Scheme: "ip", ID: "10.0.0." + strconv.Itoa(w.rng.IntN(3))}}
}

var createFlags = []int32{0, 0, zk.FlagSequence, zk.FlagEphemeral, zk.FlagEphemeral | zk.FlagSequence, zk.FlagContainer}

// run does n random operations.
func (w *workload) run(n int) {
	for range n {
		ci := w.rng.IntN(len(w.conns))
		c := w.conns[ci]
		var err error
		switch op := w.rng.IntN(20); {
		case op < 7:
			flags := createFlags[w.rng.IntN(len(createFlags))]
			if flags == zk.FlagContainer {
				_, err = c.CreateContainer(w.path(), w.data(), flags, w.acl())
			} else {
				_, err = c.Create(w.path(), w.data(), flags, w.acl())
			}
		case op < 10:
			_, err = c.Set(w.path(), w.data(), int32(w.rng.IntN(3))-1)
		case op < 13:
			err = c.Delete(w.path(), int32(w.rng.IntN(2))-1)
		case op < 14:
			_, err = c.SetACL(w.path(), w.acl(), int32(w.rng.IntN(2))-1)
		case op < 19:
			var ops []any
			for range 1 + w.rng.IntN(4) {
				switch w.rng.IntN(4) {
				case 0:
					ops = append(ops, &zk.CreateRequest{Path: w.path(), Data: w.data(), Acl: w.acl(), Flags: createFlags[w.rng.IntN(5)]})
				case 1:
					ops = append(ops, &zk.DeleteRequest{Path: w.path(), Version: -1})
				case 2:
					ops = append(ops, &zk.SetDataRequest{Path: w.path(), Data: w.data(), Version: -1})
				case 3:
					ops = append(ops, &zk.CheckVersionRequest{Path: w.path(), Version: int32(w.rng.IntN(2))})
				}
			}
			_, err = c.Multi(ops...)
		default:
			// A session ends (its ephemerals go with it); a new one takes
			// its place.
			c.Close()
			w.conns[ci] = w.connect()
		}
		if err != nil && !isAPIError(err) {
			w.t.Fatalf("unexpected error: %v", err)
		}
	}
}

// isAPIError reports the errors a server answers with (as opposed to a
// lost connection).
func isAPIError(err error) bool {
	for _, e := range []error{zk.ErrNodeExists, zk.ErrNoNode, zk.ErrBadVersion, zk.ErrNotEmpty,
		zk.ErrNoChildrenForEphemerals, zk.ErrBadArguments, zk.ErrNoAuth, zk.ErrInvalidACL} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

// TestRestartExact: random writes through several sessions, then a
// restart, repeatedly on one data directory (snapshots every few records,
// so every start mixes a snapshot with replayed logs). After each restart
// every node reads exactly as before — data, ACL and every Stat field
// (zxids, versions, cversion, pzxid) — except that ephemerals are gone,
// deleted by one closeSession per owner; and sequence counters continue.
func TestRestartExact(t *testing.T) {
	seeds, rounds, ops := 2, 3, 60
	if !testing.Short() {
		seeds, rounds, ops = 6, 4, 300
	}
	for seed := range seeds {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			dir := t.TempDir()
			rng := rand.New(rand.NewPCG(uint64(seed), 7))
			cfg := zkserver.Config{SnapshotEvery: 3 + rng.IntN(40)}
			for round := range rounds {
				s := durable(t, dir, cfg)
				w := &workload{t: t, addr: s.Addr(), rng: rng}
				w.start(3)
				w.run(ops)
				reader, ev := gozk(t, s.Addr(), 30*time.Second)
				waitState(t, ev, zk.StateHasSession)
				before := dumpTree(t, reader)
				last := s.Stats().Zxid
				closeServer(t, s)
				for _, c := range append(w.conns, reader) {
					c.Close()
				}

				s2 := durable(t, dir, cfg)
				c2, ev := gozk(t, s2.Addr(), 30*time.Second)
				waitState(t, ev, zk.StateHasSession)
				want := afterRestart(before, last)
				if d := diffTrees(want, dumpTree(t, c2)); d != "" {
					t.Fatalf("round %d: tree after restart differs:\n%s", round, d)
				}
				// Sequence counters: the next sequential name under each
				// node is its cversion-derived counter, as before.
				for _, p := range []string{"/w", "/w/a"} {
					n, ok := want[p]
					if !ok {
						continue
					}
					name, err := c2.Create(p+"/seq-", nil, zk.FlagSequence, zk.WorldACL(zk.PermAll))
					if err != nil {
						t.Fatal(err)
					}
					// childCreates = (cversion + numChildren) / 2.
					next := (n.Stat.Cversion + n.Stat.NumChildren) / 2
					if wantName := fmt.Sprintf("%s/seq-%010d", p, next); name != wantName {
						t.Fatalf("round %d: sequential create gave %s, want %s", round, name, wantName)
					}
				}
				c2.Close()
				closeServer(t, s2)
			}
		})
	}
}

// TestRestartSameAddress: a go-zookeeper client that saw the old server's
// zxids reconnects to the restarted one on the same address and is told its
// session expired — not refused forever because the server's zxid went
// back (spec §12).
func TestRestartSameAddress(t *testing.T) {
	dir := t.TempDir()
	s := durable(t, dir, zkserver.Config{})
	addr := s.Addr()
	c, ev := gozk(t, addr, 10*time.Second)
	waitState(t, ev, zk.StateHasSession)
	if _, err := c.Create("/k", []byte("v"), 0, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Create("/k/e", nil, zk.FlagEphemeral, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	st, err := c.Set("/k", []byte("w"), -1)
	if err != nil {
		t.Fatal(err)
	}
	closeServer(t, s)
	waitState(t, ev, zk.StateDisconnected)

	var s2 *zkserver.Server
	for i := 0; ; i++ {
		s2, err = zkserver.Start(zkserver.Config{Addr: addr, DataDir: dir})
		if err == nil {
			break
		}
		if i == 50 {
			t.Fatal(err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Cleanup(func() { _ = s2.Close() })
	if z := s2.Stats().Zxid; z <= st.Mzxid {
		t.Fatalf("restarted at zxid 0x%x, not above 0x%x that the client saw", z, st.Mzxid)
	}
	waitState(t, ev, zk.StateExpired)
	c.Close()
	c2, ev2 := gozk(t, addr, 10*time.Second)
	waitState(t, ev2, zk.StateHasSession)
	data, _, err := c2.Get("/k")
	if err != nil || string(data) != "w" {
		t.Fatalf("get /k = %q, %v", data, err)
	}
	if ok, _, _ := c2.Exists("/k/e"); ok {
		t.Fatal("the ephemeral of the old session came back")
	}
}

// TestDataDirInUse: two servers never share a data directory.
func TestDataDirInUse(t *testing.T) {
	dir := t.TempDir()
	durable(t, dir, zkserver.Config{})
	_, err := zkserver.Start(zkserver.Config{DataDir: dir})
	if err == nil || !strings.Contains(err.Error(), "in use") {
		t.Fatalf("second server on the same directory: %v, want an 'in use' error", err)
	}
}

// TestMemoryOnlyWritesNothing: without DataDir the server creates no file.
func TestMemoryOnlyWritesNothing(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	s := startEmbedded(t, zkserver.Config{})
	c, _ := gozk(t, s.Addr(), 10*time.Second)
	if _, err := c.Create("/x", []byte("y"), 0, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	closeServer(t, s)
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Fatalf("memory-only server wrote %v", entries)
	}
}

// TestSnapshotsReplaceLogs: with frequent snapshots only the two newest
// snapshots and the logs after the older one remain, and a restart reads
// the same tree.
func TestSnapshotsReplaceLogs(t *testing.T) {
	dir := t.TempDir()
	s := durable(t, dir, zkserver.Config{SnapshotEvery: 20})
	c, ev := gozk(t, s.Addr(), 10*time.Second)
	waitState(t, ev, zk.StateHasSession)
	for i := range 300 {
		if _, err := c.Create(fmt.Sprintf("/n%03d", i), []byte{byte(i)}, 0, zk.WorldACL(zk.PermAll)); err != nil {
			t.Fatal(err)
		}
	}
	before := dumpTree(t, c)
	waitSnapshots(t, dir, 2)
	closeServer(t, s)
	snaps, logs := dataDirFiles(t, dir)
	if len(snaps) != 2 || len(logs) > 4 {
		t.Fatalf("after 300 writes with SnapshotEvery 20: snapshots %v, logs %v", snaps, logs)
	}
	s2 := durable(t, dir, zkserver.Config{})
	c2, ev := gozk(t, s2.Addr(), 10*time.Second)
	waitState(t, ev, zk.StateHasSession)
	if d := diffTrees(before, dumpTree(t, c2)); d != "" {
		t.Fatalf("tree after restart differs:\n%s", d)
	}
}

// waitSnapshots waits until dir holds n snapshots (they are written in the
// background).
func waitSnapshots(t testing.TB, dir string, n int) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		snaps, _ := dataDirFiles(t, dir)
		if len(snaps) >= n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("snapshots %v after 30s, want %d", snaps, n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// dataDirFiles lists the snapshot and log files of a data directory.
func dataDirFiles(t testing.TB, dir string) (snaps, logs []string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		switch {
		case strings.HasPrefix(e.Name(), "snap."):
			snaps = append(snaps, e.Name())
		case strings.HasPrefix(e.Name(), "log."):
			logs = append(logs, e.Name())
		}
	}
	return snaps, logs
}

// logRecordOffsets returns the offset of every record in a log file (the
// framing: a 12-byte header, then length, CRC, payload).
func logRecordOffsets(t testing.TB, path string) []int64 {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []int64
	for off := int64(12); off+8 <= int64(len(b)); {
		n := int64(binary.BigEndian.Uint32(b[off:]))
		if off+8+n > int64(len(b)) {
			break
		}
		out = append(out, off)
		off += 8 + n
	}
	return out
}

// TestDamagedLog damages the newest log by hand after a run of writes and
// restarts: a torn or corrupt last record is cut off (the tree is the one
// before that write, and the server goes on from there); garbage or zeros
// after the last record are dropped; damage to a record that later records
// show was synced stops the start with an error naming the file.
func TestDamagedLog(t *testing.T) {
	type damage struct {
		name string
		do   func(t *testing.T, path string, offs []int64) // offs: record offsets
		lost bool                                          // the last write is lost
		fail string                                        // Start fails with this in the error
	}
	damages := []damage{
		{name: "cut-last-record", lost: true, do: func(t *testing.T, path string, offs []int64) {
			st, _ := os.Stat(path)
			truncate(t, path, offs[len(offs)-1]+(st.Size()-offs[len(offs)-1])/2)
		}},
		{name: "cut-record-header", lost: true, do: func(t *testing.T, path string, offs []int64) {
			truncate(t, path, offs[len(offs)-1]+3)
		}},
		{name: "flip-byte-in-last-record", lost: true, do: func(t *testing.T, path string, offs []int64) {
			flip(t, path, offs[len(offs)-1]+30)
		}},
		{name: "garbage-after-last-record", do: func(t *testing.T, path string, offs []int64) {
			appendBytes(t, path, []byte("\x00\x00\x01\x00garbage that is not a record"))
		}},
		{name: "zeros-after-last-record", do: func(t *testing.T, path string, offs []int64) {
			appendBytes(t, path, make([]byte, 4096))
		}},
		{name: "flip-byte-in-synced-record", fail: "refusing to drop acknowledged transactions", do: func(t *testing.T, path string, offs []int64) {
			flip(t, path, offs[len(offs)-10]+30)
		}},
	}
	for _, dm := range damages {
		t.Run(dm.name, func(t *testing.T) {
			dir := t.TempDir()
			s := durable(t, dir, zkserver.Config{})
			c, ev := gozk(t, s.Addr(), 10*time.Second)
			waitState(t, ev, zk.StateHasSession)
			if _, err := c.Create("/d", nil, 0, zk.WorldACL(zk.PermAll)); err != nil {
				t.Fatal(err)
			}
			for i := range 20 {
				if _, err := c.Set("/d", []byte(strconv.Itoa(i)), -1); err != nil {
					t.Fatal(err)
				}
			}
			before := dumpTree(t, c)
			c.Close() // its closeSession is the last record; drop it so the last write is the set
			closeServer(t, s)
			_, logs := dataDirFiles(t, dir)
			path := filepath.Join(dir, logs[len(logs)-1])
			offs := logRecordOffsets(t, path)
			truncate(t, path, offs[len(offs)-1]) // the closeSession record
			offs = offs[:len(offs)-1]
			dm.do(t, path, offs)

			s2, err := zkserver.Start(zkserver.Config{DataDir: dir, Logger: zktest.NewLogger(t)})
			if dm.fail != "" {
				if err == nil || !strings.Contains(err.Error(), dm.fail) || !strings.Contains(err.Error(), path) {
					t.Fatalf("start: %v, want an error naming %s and saying %q", err, path, dm.fail)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = s2.Close() })
			c2, ev := gozk(t, s2.Addr(), 10*time.Second)
			waitState(t, ev, zk.StateHasSession)
			got := dumpTree(t, c2)
			wantData := "19"
			if dm.lost {
				wantData = "18"
			}
			if string(got["/d"].Data) != wantData {
				t.Fatalf("/d = %q after restart, want %q", got["/d"].Data, wantData)
			}
			if !dm.lost {
				if d := diffTrees(before, got); d != "" {
					t.Fatalf("tree differs:\n%s", d)
				}
			}
			// The server goes on from there, and a second restart agrees.
			if _, err := c2.Set("/d", []byte("after"), -1); err != nil {
				t.Fatal(err)
			}
			mid := dumpTree(t, c2)
			c2.Close()
			closeServer(t, s2)
			s3 := durable(t, dir, zkserver.Config{})
			c3, ev := gozk(t, s3.Addr(), 10*time.Second)
			waitState(t, ev, zk.StateHasSession)
			if d := diffTrees(mid, dumpTree(t, c3)); d != "" {
				t.Fatalf("tree after the second restart differs:\n%s", d)
			}
		})
	}
}

// TestDamagedSnapshot: a damaged newest snapshot is skipped in favour of
// the older one and the logs after it; with no usable snapshot and logs that
// no longer go back to the start, Start fails with a clear error.
func TestDamagedSnapshot(t *testing.T) {
	dir := t.TempDir()
	s := durable(t, dir, zkserver.Config{SnapshotEvery: 25})
	c, ev := gozk(t, s.Addr(), 10*time.Second)
	waitState(t, ev, zk.StateHasSession)
	for i := range 200 {
		if _, err := c.Create(fmt.Sprintf("/n%03d", i), []byte{byte(i)}, 0, zk.WorldACL(zk.PermAll)); err != nil {
			t.Fatal(err)
		}
	}
	before := dumpTree(t, c)
	waitSnapshots(t, dir, 2)
	closeServer(t, s)
	snaps, _ := dataDirFiles(t, dir)
	if len(snaps) != 2 {
		t.Fatalf("snapshots %v, want 2", snaps)
	}
	flip(t, filepath.Join(dir, snaps[1]), 100)
	s2 := durable(t, dir, zkserver.Config{})
	c2, ev := gozk(t, s2.Addr(), 10*time.Second)
	waitState(t, ev, zk.StateHasSession)
	if d := diffTrees(before, dumpTree(t, c2)); d != "" {
		t.Fatalf("tree after restart from the older snapshot differs:\n%s", d)
	}
	closeServer(t, s2)

	snaps, _ = dataDirFiles(t, dir)
	for _, sn := range snaps {
		flip(t, filepath.Join(dir, sn), 101)
	}
	if _, err := zkserver.Start(zkserver.Config{DataDir: dir}); err == nil || !strings.Contains(err.Error(), "no usable snapshot") {
		t.Fatalf("start with every snapshot damaged: %v, want a 'no usable snapshot' error", err)
	}
}

func truncate(t *testing.T, path string, size int64) {
	t.Helper()
	if err := os.Truncate(path, size); err != nil {
		t.Fatal(err)
	}
}

func flip(t *testing.T, path string, off int64) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b[off] ^= 0x5a
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func appendBytes(t *testing.T, path string, p []byte) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write(p); err != nil {
		t.Fatal(err)
	}
}
