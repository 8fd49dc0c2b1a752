package zkserver

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ktopo/ktopo/zkserver/internal/proto"
)

// A data directory (Config.DataDir) holds:
//
//	LOCK               locked while a server uses the directory
//	log.<zxid>         transaction log; <zxid> (16 hex digits) is its first record's
//	snap.<zxid>        the tree as it was after transaction <zxid>
//	snap.<zxid>.tmp    a snapshot being written (deleted on start)
//
// A log file is a 12-byte header (logMagic, version) followed by records:
//
//	uint32 length of payload | uint32 CRC-32C of payload | payload
//	payload: int64 zxid | int64 synced | int64 time (ms) | uint8 kind | body
//
// synced is the zxid up to which the log was durable when the record was
// appended. It tells a torn tail from damage to acknowledged records: a
// record that fails its CRC is cut off with everything after it only if no
// later intact record says it had been synced (see scanDurable).
//
// Every zxid the server hands out has exactly one record, so replay can
// check that the log is contiguous and the restarted server continues
// from the last zxid any client could have seen. Records are effects, not
// requests: a create carries the final (sequential) path, the fixed-up ACL
// and the owner, so replay needs neither sessions nor ACL checks.
const (
	logMagic     = "ktopozkL"
	snapMagic    = "ktopozkS"
	fileVersion  = 1
	headerSize   = 12
	recordHeader = 8
	// maxRecord bounds a record's length when reading: a larger length is
	// corruption, not a record (a multi is at most one request frame,
	// expanded ACLs included).
	maxRecord = 256 << 20
	// recordFixed is the payload size before the body.
	recordFixed = 25
)

// Record kinds.
const (
	recTxn          = 1 // body: uint32 n, then n ops (0 ops: a failed write)
	recCreateSess   = 2 // body: int64 session id
	recCloseSession = 3 // body: int64 session id; deletes its ephemerals
)

// Op types inside a recTxn.
const (
	txCreate  = 1 // path, data (nullable), int64 owner, ACL vector
	txDelete  = 2 // path
	txSetData = 3 // path, data (nullable)
	txSetACL  = 4 // path, ACL vector
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// txnOp is one effect of a transaction, as logged.
type txnOp struct {
	typ   uint8
	path  string
	data  []byte // immutable once in the tree, so it is referenced, not copied
	acl   []proto.ACL
	owner int64
}

// encodeTxnOps appends a recTxn body.
func encodeTxnOps(e *proto.Encoder, ops []txnOp) {
	e.Int(int32(len(ops)))
	for i := range ops {
		op := &ops[i]
		e.Byte(op.typ)
		e.String(op.path)
		switch op.typ {
		case txCreate:
			e.Buffer(op.data)
			e.Long(op.owner)
			e.ACLs(op.acl)
		case txSetData:
			e.Buffer(op.data)
		case txSetACL:
			e.ACLs(op.acl)
		}
	}
}

// record is a decoded log record.
type record struct {
	zxid   int64
	synced int64
	time   int64
	kind   uint8
	sess   int64
	ops    []txnOp
}

// aclCache keeps the last ACL vector decoded: a log repeats one ACL over
// and over, and each decoded copy costs three allocations.
type aclCache struct {
	raw []byte
	acl []proto.ACL
}

// decode reads an ACL vector, reusing the last one when the bytes match.
// Decoded lists are shared, never modified (the tree interns them).
func (c *aclCache) decode(d *proto.Decoder) []proto.ACL {
	rest := d.Rest()
	if c != nil && c.raw != nil && len(rest) >= len(c.raw) && bytes.Equal(rest[:len(c.raw)], c.raw) {
		d.Skip(len(c.raw))
		return c.acl
	}
	before := d.Remaining()
	acl := d.ACLs()
	if c != nil && d.Err() == nil {
		c.raw = append(c.raw[:0], rest[:before-d.Remaining()]...)
		c.acl = acl
	}
	return acl
}

// decodeRecord decodes a payload whose CRC has been checked.
func decodeRecord(p []byte, acls *aclCache) (record, error) {
	d := proto.NewDecoder(p)
	var r record
	r.zxid, r.synced, r.time = d.Long(), d.Long(), d.Long()
	kind := d.Byte()
	r.kind = kind
	switch kind {
	case recCreateSess, recCloseSession:
		r.sess = d.Long()
	case recTxn:
		n := d.Int()
		if n < 0 || int(n) > d.Remaining()/5 {
			return r, fmt.Errorf("bad op count %d", n)
		}
		r.ops = make([]txnOp, n)
		for i := range r.ops {
			op := &r.ops[i]
			op.typ = d.Byte()
			op.path = d.String()
			switch op.typ {
			case txCreate:
				op.data = cloneNullable(d.Buffer())
				op.owner = d.Long()
				op.acl = acls.decode(d)
			case txDelete:
			case txSetData:
				op.data = cloneNullable(d.Buffer())
			case txSetACL:
				op.acl = acls.decode(d)
			default:
				return r, fmt.Errorf("unknown op type %d", op.typ)
			}
		}
	default:
		return r, fmt.Errorf("unknown record kind %d", kind)
	}
	if d.Err() != nil {
		return r, d.Err()
	}
	if d.Remaining() != 0 {
		return r, fmt.Errorf("%d stray bytes after the record", d.Remaining())
	}
	return r, nil
}

// cloneNullable copies b, keeping nil (null) and empty distinct.
func cloneNullable(b []byte) []byte {
	if b == nil {
		return nil
	}
	return append(make([]byte, 0, len(b)), b...)
}

// logName and snapName name the files of a data directory.
func logName(firstZxid int64) string { return fmt.Sprintf("log.%016x", firstZxid) }
func snapName(zxid int64) string     { return fmt.Sprintf("snap.%016x", zxid) }

// txnLog appends records and makes them durable with group commit: writers
// append to an in-memory batch under the server lock; one committer
// goroutine writes the batch, fsyncs once, and publishes the last zxid it
// covers. Replies wait for that zxid (see conn.writeLoop), so a write is
// acknowledged only once it is on disk, and many concurrent writes share
// one fsync.
type txnLog struct {
	dir  string
	fail func(error) // called once, from the committer, on an I/O error

	f *os.File // the current log file; committer only after start

	mu        sync.Mutex
	pending   []byte // framed records not yet written
	spare     []byte // the committer's last buffer, for reuse
	last      int64  // zxid of the last appended record
	split     int    // offset in pending where the next log file begins; -1 none
	splitZxid int64  // first zxid of that file
	advanced  chan struct{}
	failed    error
	fileFirst int64 // first zxid of the newest log file (or the one a rotation will create)
	records   int   // records appended since the last rotation
	bytes     int64 // bytes appended since the last rotation

	durable  atomic.Int64 // every record up to this zxid is on disk
	pendingN int          // records in pending (mu)
	// What the committer did, for mntr (ZooKeeper's fsynctime and
	// sync_processor_batch_size): syncs, their total time, records per sync.
	syncs, syncNanos, synced atomic.Int64
	kick                     chan struct{}
	stop                     chan struct{}
	done                     chan struct{}
}

// openLog creates a fresh log file for records from firstZxid on (an
// existing file of that name holds no needed record: see recover).
func openLog(dir string, firstZxid int64, fail func(error)) (*txnLog, error) {
	l := &txnLog{
		dir: dir, fail: fail, split: -1, last: firstZxid - 1, fileFirst: firstZxid,
		advanced: make(chan struct{}),
		kick:     make(chan struct{}, 1),
		stop:     make(chan struct{}),
		done:     make(chan struct{}),
	}
	l.durable.Store(firstZxid - 1)
	if err := l.newFile(firstZxid); err != nil {
		return nil, err
	}
	return l, nil
}

// newFile starts log.<firstZxid>: header written and synced, directory
// entry synced, before any record goes in.
func (l *txnLog) newFile(firstZxid int64) error {
	path := filepath.Join(l.dir, logName(firstZxid))
	f, err := os.OpenFile(path, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	var hdr [headerSize]byte
	copy(hdr[:], logMagic)
	binary.BigEndian.PutUint32(hdr[8:], fileVersion)
	if _, err := f.Write(hdr[:]); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := syncDir(l.dir); err != nil {
		f.Close()
		return err
	}
	if l.f != nil {
		if err := l.f.Close(); err != nil {
			f.Close()
			return err
		}
	}
	l.f = f
	return nil
}

// start runs the committer.
func (l *txnLog) start() { go l.run() }

// append adds one record. Callers hold Server.mu exclusively, so records
// are appended in zxid order.
// It returns what was appended since the last rotation.
func (l *txnLog) append(zxid, now int64, kind uint8, body []byte) (records int, bytes int64) {
	l.mu.Lock()
	if l.failed != nil {
		l.mu.Unlock()
		return 0, 0
	}
	off := len(l.pending)
	n := recordFixed + len(body)
	b := append(l.pending, make([]byte, recordHeader+recordFixed)...)
	p := b[off+recordHeader:]
	binary.BigEndian.PutUint64(p, uint64(zxid))
	binary.BigEndian.PutUint64(p[8:], uint64(l.durable.Load()))
	binary.BigEndian.PutUint64(p[16:], uint64(now))
	p[24] = kind
	b = append(b, body...)
	binary.BigEndian.PutUint32(b[off:], uint32(n))
	binary.BigEndian.PutUint32(b[off+4:], crc32.Checksum(b[off+recordHeader:], castagnoli))
	l.pending = b
	l.last = zxid
	l.pendingN++
	l.records++
	l.bytes += int64(recordHeader + n)
	records, bytes = l.records, l.bytes
	l.mu.Unlock()
	select {
	case l.kick <- struct{}{}:
	default:
	}
	return records, bytes
}

// rotate makes records after zxid go to a new log file. Called with
// Server.mu held (shared is enough: it excludes appends), so the split
// falls exactly after zxid. It returns a channel to wait on (and retry)
// when the previous rotation has not happened yet.
func (l *txnLog) rotate(zxid int64) (retry <-chan struct{}, err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.failed != nil {
		return nil, l.failed
	}
	if l.split >= 0 {
		return l.advanced, nil
	}
	if l.fileFirst == zxid+1 {
		return nil, nil // the newest file already starts there (nothing logged since)
	}
	l.split, l.splitZxid, l.fileFirst = len(l.pending), zxid+1, zxid+1
	l.records, l.bytes = 0, 0
	select {
	case l.kick <- struct{}{}:
	default:
	}
	return nil, nil
}

// since reports what was appended since the last rotation.
func (l *txnLog) since() (records int, bytes int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.records, l.bytes
}

// waitChan returns a channel closed when the durable zxid next advances.
// Take it before reading durable, so an advance in between is not missed.
func (l *txnLog) waitChan() <-chan struct{} {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.advanced
}

func (l *txnLog) run() {
	defer close(l.done)
	for {
		select {
		case <-l.kick:
		case <-l.stop:
			l.flush()
			return
		}
		l.flush()
	}
}

// flush writes and syncs everything appended so far (the group commit).
func (l *txnLog) flush() {
	l.mu.Lock()
	buf, last, split, splitZxid := l.pending, l.last, l.split, l.splitZxid
	if (len(buf) == 0 && split < 0) || l.failed != nil {
		l.mu.Unlock()
		return
	}
	batch := l.pendingN
	l.pending, l.spare, l.split, l.pendingN = l.spare[:0], nil, -1, 0
	l.mu.Unlock()

	rest := buf
	var err error
	if split >= 0 {
		// Records up to the split belong in the old file: sync them there
		// before the new file exists, so a torn record can only ever be at
		// the end of the newest file.
		err = l.writeSync(buf[:split])
		if err == nil {
			err = l.newFile(splitZxid)
		}
		rest = buf[split:]
	}
	if err == nil {
		err = l.writeSync(rest)
	}
	if err == nil && batch > 0 {
		l.synced.Add(int64(batch))
	}

	l.mu.Lock()
	if cap(buf) <= 16<<20 {
		l.spare = buf[:0]
	}
	if err != nil {
		l.failed = err
	} else {
		l.durable.Store(last)
		close(l.advanced)
		l.advanced = make(chan struct{})
	}
	l.mu.Unlock()
	if err != nil {
		l.fail(fmt.Errorf("transaction log in %s: %w", l.dir, err))
	}
}

func (l *txnLog) writeSync(b []byte) error {
	if len(b) == 0 {
		return nil
	}
	if _, err := l.f.Write(b); err != nil {
		return err
	}
	start := time.Now()
	err := l.f.Sync()
	l.syncNanos.Add(int64(time.Since(start)))
	l.syncs.Add(1)
	return err
}

// close flushes what is pending and stops the committer (or, when it never
// started, flushes inline).
func (l *txnLog) close(started bool) error {
	if started {
		close(l.stop)
		<-l.done
	} else {
		l.flush()
	}
	l.mu.Lock()
	err := l.failed
	l.mu.Unlock()
	if cerr := l.f.Close(); err == nil {
		err = cerr
	}
	return err
}

// logReader reads the records of one log file.
type logReader struct {
	r    *bufio.Reader
	off  int64 // offset of the next record
	size int64 // of the file
	buf  []byte
	acls aclCache
}

// errTorn marks a record that is incomplete or fails its CRC: the end of
// what was durably written.
var errTorn = errors.New("torn or corrupt record")

// openLogReader checks a log file's header. A file shorter than the
// header (a crash right after it was created) reads as empty.
func openLogReader(ra io.ReaderAt, size int64) (*logReader, error) {
	lr := &logReader{r: bufio.NewReaderSize(io.NewSectionReader(ra, 0, size), 64<<10), off: headerSize, size: size}
	var hdr [headerSize]byte
	n, err := io.ReadFull(lr.r, hdr[:])
	switch {
	case err == io.EOF || err == io.ErrUnexpectedEOF:
		if allZero(hdr[:n]) || string(hdr[:n]) == logMagic[:min(n, len(logMagic))] {
			lr.off = 0
			return lr, io.EOF
		}
		return nil, fmt.Errorf("not a zkserver transaction log (header %q)", hdr[:n])
	case err != nil:
		return nil, err
	case string(hdr[:8]) != logMagic:
		return nil, fmt.Errorf("not a zkserver transaction log (header %q)", hdr[:8])
	case binary.BigEndian.Uint32(hdr[8:]) != fileVersion:
		return nil, fmt.Errorf("transaction log version %d, this server reads %d", binary.BigEndian.Uint32(hdr[8:]), fileVersion)
	}
	return lr, nil
}

func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

// next returns the next record: io.EOF at a clean end, errTorn at a record
// that is cut short or fails its CRC (the caller truncates there).
func (lr *logReader) next() (record, error) {
	var hdr [recordHeader]byte
	_, err := io.ReadFull(lr.r, hdr[:])
	switch {
	case errors.Is(err, io.EOF):
		return record{}, io.EOF
	case errors.Is(err, io.ErrUnexpectedEOF):
		return record{}, errTorn
	case err != nil:
		return record{}, err
	}
	size := binary.BigEndian.Uint32(hdr[:])
	if size < recordFixed || size > maxRecord || int64(size) > lr.size-lr.off-recordHeader {
		return record{}, errTorn // (a length past the end is a cut record)
	}
	if cap(lr.buf) < int(size) {
		lr.buf = make([]byte, size)
	}
	p := lr.buf[:size]
	if _, err := io.ReadFull(lr.r, p); err != nil {
		if err == io.ErrUnexpectedEOF || err == io.EOF {
			return record{}, errTorn
		}
		return record{}, err
	}
	if crc32.Checksum(p, castagnoli) != binary.BigEndian.Uint32(hdr[4:]) {
		return record{}, errTorn
	}
	rec, err := decodeRecord(p, &lr.acls)
	if err != nil {
		// The CRC matched, so this is not a torn write: refuse it.
		return record{}, fmt.Errorf("record at offset %d: %w", lr.off, err)
	}
	lr.off += int64(recordHeader) + int64(size)
	return rec, nil
}

// scanDurable looks past a bad record at off (the next expected zxid
// being next) for an intact record that was appended after the bad one had
// been synced. Finding one means the bad record was acknowledged: damage,
// not a torn write, and cutting there would lose acknowledged transactions.
// The length of the bad record cannot be trusted, so every offset is tried.
func scanDurable(ra io.ReaderAt, size, off, next int64) (found int64, ok bool, err error) {
	b := make([]byte, size-off)
	if _, err := ra.ReadAt(b, off); err != nil && err != io.EOF {
		return 0, false, err
	}
	for i := int64(1); i+recordHeader+recordFixed <= int64(len(b)); i++ {
		size := int64(binary.BigEndian.Uint32(b[i:]))
		if size < recordFixed || size > int64(len(b))-i-recordHeader {
			continue
		}
		p := b[i+recordHeader : i+recordHeader+size]
		zxid := int64(binary.BigEndian.Uint64(p))
		synced := int64(binary.BigEndian.Uint64(p[8:]))
		if zxid <= next || synced < next || synced >= zxid {
			continue
		}
		if crc32.Checksum(p, castagnoli) == binary.BigEndian.Uint32(b[i+4:]) {
			return off + i, true, nil
		}
	}
	return 0, false, nil
}
