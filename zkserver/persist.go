package zkserver

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/ktopo/ktopo/zkserver/internal/proto"
)

// Persistence (Config.DataDir). Every state change already goes through one
// place with Server.mu held exclusively and a zxid taken (write,
// newSessionLocked, closeSessionLocked, the container check); each appends
// one record to the transaction log there, failed writes included, so the
// log holds every zxid ever handed out. Replies and notifications are
// tagged with the zxid current when they were queued and held back until
// the log is durable up to it (conn.flushLocked), so no client sees a
// state — or a zxid — that a crash could take back. One committer
// goroutine writes and fsyncs whatever has accumulated (group commit).
//
// Snapshots are taken after SnapshotEvery records (or 64 MiB of log): the
// log is switched to a new file at the snapshot's zxid, the tree streamed
// to a temporary file under the read lock, synced and renamed. Once a
// snapshot is in place, files older than the previous good snapshot are
// removed, so one damaged snapshot still leaves a way back.
//
// On start the newest valid snapshot is loaded and the logs after it
// replayed through the same tree functions the live server uses, which
// keeps every stat field, cversion, pzxid and sequence counter exact. A
// torn record at the end of the newest log (a crash mid-write) is cut off;
// it was never acknowledged. A damaged record that a later intact record
// shows was synced stops the start instead. Sessions end with the process:
// ephemerals found after replay are deleted, one closeSession transaction
// per owner (what ZooKeeper 3.8 does when the restored sessions expire),
// before the first client is served.

// defaultSnapshotEvery is ZooKeeper's snapCount.
const defaultSnapshotEvery = 100_000

// snapshotBytes starts a snapshot once this much log was written since
// the last one, whatever the record count.
const snapshotBytes = 64 << 20

// ownerIndex lists the ephemerals of each session during replay.
type ownerIndex map[int64]map[string]struct{}

func (o ownerIndex) add(owner int64, path string) {
	m := o[owner]
	if m == nil {
		m = map[string]struct{}{}
		o[owner] = m
	}
	m[path] = struct{}{}
}

// applyOps replays a transaction's effects. The checks only catch a log
// that does not belong to this tree; a live server never logs an op that
// fails them.
func (t *tree) applyOps(zxid, now int64, ops []txnOp, eph ownerIndex) error {
	for _, op := range ops {
		switch op.typ {
		case txCreate:
			slash := strings.LastIndexByte(op.path, '/')
			if slash < 0 || op.path == "/" || t.nodes[op.path] != nil {
				return fmt.Errorf("create %q: bad path or node exists", op.path)
			}
			parent := t.get(op.path[:slash])
			if parent == nil {
				return fmt.Errorf("create %q: no parent", op.path)
			}
			n := &node{
				data: op.data, acl: t.intern(op.acl), owner: op.owner,
				czxid: zxid, mzxid: zxid, pzxid: zxid, ctime: now, mtime: now,
			}
			t.addNode(op.path, parent, n, zxid, nil)
			if n.isEphemeral() {
				eph.add(n.owner, op.path)
			}
		case txDelete:
			n := t.nodes[op.path]
			if n == nil || isSpecial(op.path) || len(n.children) > 0 {
				return fmt.Errorf("delete %q: missing, special or not empty", op.path)
			}
			t.removeNode(op.path, n, zxid, nil)
			if n.isEphemeral() {
				delete(eph[n.owner], op.path)
			}
		case txSetData:
			n := t.nodes[op.path]
			if n == nil {
				return fmt.Errorf("setData %q: no node", op.path)
			}
			t.setData(n, op.data, zxid, now, nil)
		case txSetACL:
			n := t.nodes[op.path]
			if n == nil {
				return fmt.Errorf("setACL %q: no node", op.path)
			}
			n.acl = t.intern(op.acl)
			n.aversion++
		default:
			return fmt.Errorf("unknown op %d", op.typ)
		}
	}
	return nil
}

// closeOwner deletes a session's ephemerals, as one closeSession does.
func (t *tree) closeOwner(id, zxid int64, eph ownerIndex) {
	for p := range eph[id] {
		if n := t.nodes[p]; n != nil && n.owner == id {
			t.removeNode(p, n, zxid, nil)
		}
	}
	delete(eph, id)
}

// applyRecord replays one record.
func (t *tree) applyRecord(r *record, eph ownerIndex) error {
	switch r.kind {
	case recTxn:
		return t.applyOps(r.zxid, r.time, r.ops, eph)
	case recCloseSession:
		t.closeOwner(r.sess, r.zxid, eph)
	}
	return nil
}

// dataFiles lists a data directory's snapshots and logs by zxid, oldest
// first; leftover temporary files are deleted.
func dataFiles(dir string) (snaps, logs []int64, err error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, nil, err
	}
	for _, e := range entries {
		name := e.Name()
		if strings.HasSuffix(name, ".tmp") {
			_ = os.Remove(filepath.Join(dir, name))
			continue
		}
		kind, hex, ok := strings.Cut(name, ".")
		if !ok || len(hex) != 16 {
			continue
		}
		z, perr := strconv.ParseInt(hex, 16, 64)
		if perr != nil {
			continue
		}
		switch kind {
		case "snap":
			snaps = append(snaps, z)
		case "log":
			logs = append(logs, z)
		}
	}
	slices.Sort(snaps)
	slices.Sort(logs)
	return snaps, logs, nil
}

// recovery is what recover found, for the start-up log line and tests.
type recovery struct {
	snapshot   int64 // zxid of the snapshot loaded; -1 for none
	replayed   int   // log records applied
	truncated  bool  // a torn tail was cut off
	sessions   int   // leftover sessions closed
	ephemerals int   // their ephemerals deleted
}

// recover loads the data directory into s (tree, zxid, log) before the
// server serves anyone.
func (s *Server) recover() (recovery, error) {
	dir := s.cfg.DataDir
	rec := recovery{snapshot: -1}
	snaps, logs, err := dataFiles(dir)
	if err != nil {
		return rec, err
	}
	var t *tree
	var z int64
	for i := len(snaps) - 1; i >= 0 && t == nil; i-- {
		path := filepath.Join(dir, snapName(snaps[i]))
		lt, err := readSnapshot(path)
		if err == nil && lt.zxid != snaps[i] {
			err = fmt.Errorf("holds zxid 0x%x", lt.zxid)
		}
		if err != nil {
			s.logf("ignoring snapshot %s: %v", path, err)
			continue
		}
		t, z, rec.snapshot = lt.tree, lt.zxid, lt.zxid
		s.goodSnaps = append(s.goodSnaps, z)
	}
	if t == nil {
		if len(snaps) > 0 && (len(logs) == 0 || logs[0] != 1) {
			return rec, fmt.Errorf("no usable snapshot in %s and its transaction logs do not go back to the first transaction", dir)
		}
		t, z = newTree(), 0
	}
	eph := ownerIndex{}
	if t.ephemerals > 0 {
		for p, n := range t.nodes {
			if n.isEphemeral() {
				eph.add(n.owner, p)
			}
		}
	}

	// The first log to read is the last one starting at or before z+1.
	start := 0
	for i, first := range logs {
		if first <= z+1 {
			start = i
		}
	}
	next := z + 1
	for i := start; i < len(logs); i++ {
		path := filepath.Join(dir, logName(logs[i]))
		tornAt, err := replayLog(path, t, eph, &next, &rec.replayed)
		if err != nil {
			return rec, err
		}
		if tornAt < 0 {
			continue
		}
		// Nothing after a torn record was ever synced; make sure of it
		// before cutting the log there.
		for _, later := range logs[i+1:] {
			lp := filepath.Join(dir, logName(later))
			if holdsRecords(lp) {
				return rec, fmt.Errorf("%s is corrupt at offset %d, but %s holds later transactions", path, tornAt, lp)
			}
		}
		if err := truncateFile(path, tornAt); err != nil {
			return rec, err
		}
		for _, later := range logs[i+1:] {
			_ = os.Remove(filepath.Join(dir, logName(later)))
		}
		if err := syncDir(dir); err != nil {
			return rec, err
		}
		s.logf("%s: cut a torn or corrupt record at offset %d (never acknowledged)", path, tornAt)
		rec.truncated = true
		break
	}
	s.tree = t
	s.zxid.Store(next - 1)
	l, err := openLog(dir, next, s.fail)
	if err != nil {
		return rec, err
	}
	s.log = l

	// Sessions end with the process: close the ones that still own nodes.
	owners := make([]int64, 0, len(eph))
	for id, paths := range eph {
		if len(paths) > 0 {
			owners = append(owners, id)
		}
	}
	slices.Sort(owners)
	for _, id := range owners {
		zxid := s.zxid.Add(1)
		rec.ephemerals += len(eph[id])
		t.closeOwner(id, zxid, eph)
		s.logSession(zxid, recCloseSession, id)
	}
	rec.sessions = len(owners)
	l.flush()
	if l.failed != nil {
		return rec, fmt.Errorf("transaction log in %s: %w", dir, l.failed)
	}
	return rec, nil
}

// replayLog applies a log file's records after *next-1. It returns the
// offset of a torn record (-1 when the file ends cleanly).
func replayLog(path string, t *tree, eph ownerIndex, next *int64, replayed *int) (int64, error) {
	// Read-write: what a killed process left in the page cache is synced
	// before the new log builds on it.
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return -1, err
	}
	defer f.Close()
	if err := f.Sync(); err != nil {
		return -1, err
	}
	fi, err := f.Stat()
	if err != nil {
		return -1, err
	}
	return replayFile(f, fi.Size(), path, t, eph, next, replayed)
}

// replayFile is replayLog on an open file (path names it in errors).
func replayFile(f io.ReaderAt, size int64, path string, t *tree, eph ownerIndex, next *int64, replayed *int) (int64, error) {
	lr, err := openLogReader(f, size)
	if errors.Is(err, io.EOF) {
		return 0, nil // shorter than its header
	}
	if err != nil {
		return -1, fmt.Errorf("%s: %w", path, err)
	}
	for {
		r, err := lr.next()
		switch {
		case errors.Is(err, io.EOF):
			return -1, nil
		case errors.Is(err, errTorn):
			at, bad, serr := scanDurable(f, size, lr.off, *next)
			if serr != nil {
				return -1, serr
			}
			if bad {
				return -1, fmt.Errorf("%s: the record at offset %d (transaction 0x%x) is damaged, and the intact record at offset %d shows it had been synced: refusing to drop acknowledged transactions",
					path, lr.off, *next, at)
			}
			return lr.off, nil
		case err != nil:
			return -1, fmt.Errorf("%s: %w", path, err)
		}
		if r.zxid < *next {
			if *replayed == 0 {
				continue // covered by the snapshot
			}
			return -1, fmt.Errorf("%s: transaction 0x%x out of order (expected 0x%x)", path, r.zxid, *next)
		}
		if r.zxid > *next {
			return -1, fmt.Errorf("%s: transactions 0x%x to 0x%x are missing", path, *next, r.zxid-1)
		}
		if err := t.applyRecord(&r, eph); err != nil {
			return -1, fmt.Errorf("%s: transaction 0x%x: %w", path, r.zxid, err)
		}
		*next++
		*replayed++
	}
}

// holdsRecords reports whether a log file has at least one valid record.
func holdsRecords(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return false
	}
	lr, err := openLogReader(f, fi.Size())
	if err != nil {
		return false
	}
	_, err = lr.next()
	return err == nil
}

// truncateFile cuts a file at off and syncs it.
func truncateFile(path string, off int64) error {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := f.Truncate(off); err != nil {
		return err
	}
	return f.Sync()
}

// durableZxid is the zxid up to which frames may be sent.
func (s *Server) durableZxid() int64 {
	if s.log == nil {
		return math.MaxInt64
	}
	return s.log.durable.Load()
}

// logOps appends a write transaction's record (no ops: a failed write).
// Caller holds mu exclusively.
func (s *Server) logOps(zxid, now int64, ops []txnOp) {
	if s.log == nil {
		return
	}
	s.txnBuf.B = s.txnBuf.B[:0]
	encodeTxnOps(&s.txnBuf, ops)
	s.appendRecord(zxid, now, recTxn, s.txnBuf.B)
	if cap(s.txnBuf.B) > 4<<20 {
		s.txnBuf.B = nil
	}
}

// logSession appends a createSession or closeSession record. Caller holds
// mu exclusively.
func (s *Server) logSession(zxid int64, kind uint8, id int64) {
	if s.log == nil {
		return
	}
	var b [8]byte
	e := proto.Encoder{B: b[:0]}
	e.Long(id)
	s.appendRecord(zxid, 0, kind, e.B)
}

func (s *Server) appendRecord(zxid, now int64, kind uint8, body []byte) {
	if s.snapshotDue(s.log.append(zxid, now, kind, body)) {
		s.kickSnapshot()
	}
}

func (s *Server) snapshotDue(records int, bytes int64) bool {
	return records >= s.cfg.SnapshotEvery || bytes >= snapshotBytes
}

func (s *Server) kickSnapshot() {
	select {
	case s.snapKick <- struct{}{}:
	default:
	}
}

// snapshotLoop writes snapshots when the log has grown enough.
func (s *Server) snapshotLoop() {
	defer s.wg.Done()
	for {
		select {
		case <-s.closed:
			return
		case <-s.snapKick:
		}
		// A kick queued before the last snapshot's rotation is stale.
		if !s.snapshotDue(s.log.since()) && !s.snapStartup {
			continue
		}
		s.snapStartup = false
		if err := s.snapshot(); err != nil {
			// Not fatal: the log still holds everything.
			s.logf("snapshot: %v", err)
		}
	}
}

// snapshot writes snap.<zxid> for the current tree and starts a new log
// file after zxid. The tree is streamed under the read lock (reads go on,
// writes wait), then synced and renamed outside it; only then are files
// no longer needed removed.
func (s *Server) snapshot() error {
	dir := s.cfg.DataDir
	tmp := filepath.Join(dir, "snap.next.tmp")
	f, err := os.Create(tmp)
	if err != nil {
		return err
	}
	var z int64
	for {
		s.mu.RLock()
		z = s.zxid.Load()
		if len(s.goodSnaps) > 0 && s.goodSnaps[len(s.goodSnaps)-1] == z {
			s.mu.RUnlock() // nothing new since the last one
			f.Close()
			_ = os.Remove(tmp)
			return nil
		}
		retry, rerr := s.log.rotate(z)
		if rerr != nil || retry == nil {
			if rerr == nil {
				err = s.tree.writeSnapshot(f, z)
			} else {
				err = rerr
			}
			s.mu.RUnlock()
			break
		}
		s.mu.RUnlock()
		// The previous rotation is still pending: wait for the committer.
		select {
		case <-retry:
		case <-s.closed:
			f.Close()
			_ = os.Remove(tmp)
			return nil
		}
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, filepath.Join(dir, snapName(z)))
	}
	if err == nil {
		err = syncDir(dir)
	}
	if err != nil {
		_ = os.Remove(tmp)
		return err
	}
	s.snapshots.Add(1)
	s.logf("snapshot %s written", snapName(z))
	s.goodSnaps = append(s.goodSnaps, z)
	if len(s.goodSnaps) > 2 {
		s.goodSnaps = s.goodSnaps[len(s.goodSnaps)-2:]
	}
	return removeOldFiles(dir, s.goodSnaps)
}

// removeOldFiles keeps the two newest good snapshots (loaded at start or
// written since) and the logs the older of them needs, so one damaged
// snapshot still leaves a way back. Files older than that are removed.
func removeOldFiles(dir string, good []int64) error {
	if len(good) < 2 {
		return nil
	}
	keep := good[len(good)-2]
	snaps, logs, err := dataFiles(dir)
	if err != nil {
		return err
	}
	for _, z := range snaps {
		if z >= keep {
			break
		}
		if err := os.Remove(filepath.Join(dir, snapName(z))); err != nil {
			return err
		}
	}
	for i := 0; i+1 < len(logs) && logs[i+1] <= keep+1; i++ {
		if err := os.Remove(filepath.Join(dir, logName(logs[i]))); err != nil {
			return err
		}
	}
	return nil
}
