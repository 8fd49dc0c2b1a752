// Package zkserver is a standalone server that speaks the Apache ZooKeeper
// client protocol and behaves as ZooKeeper 3.8 standalone does (spec
// zookeeper-server.md): sessions, ephemeral, sequential and container
// nodes, versions and stat fields, one-shot and persistent watches, multi,
// digest ACLs and the ruok/srvr/mntr four-letter words. The tree lives in
// memory, and optionally also on disk (Config.DataDir).
//
// Design: every connection has a reader goroutine that decodes and executes
// its requests in order and an ordered outbound queue (one buffer).
// Requests run under one RWMutex: writes hold it exclusively (the single
// ordered write path, which also numbers zxids), reads share it. Replies
// and watch notifications are appended to the connections' queues while
// the lock is held, so a notification always precedes the reply of the
// write that caused it and any later reply, but no socket is ever written
// under the lock. The reader writes its replies itself once the requests
// it has buffered are answered (one system call per burst of pipelined
// requests, no goroutine hand-off); a writer goroutine per connection sends
// the rest (notifications caused by others, frames waiting for the log). A
// connection whose queue grows past Config.MaxQueuedBytes is disconnected,
// so one slow client cannot stall or bloat the server.
//
// Every change of state goes through Server.write (or the session create and
// close paths, or the container check) with mu held and a zxid taken. With
// Config.DataDir set, each of them appends one record of its effects to a
// transaction log there, and every frame a connection sends waits until the
// log is durable up to the zxid current when the frame was queued: a write
// is acknowledged only once it is on disk, and many concurrent writes share
// one fsync (group commit). Snapshots are walks of tree.nodes; on start the
// newest one is loaded and the log after it replayed (persist.go). Without
// DataDir nothing touches the disk. Nodes are compact (no stored path,
// interned ACLs, lazily allocated child sets).
//
// Differences from ZooKeeper 3.8 are listed in COMPATIBILITY.md.
package zkserver

import (
	"crypto/rand"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ktopo/ktopo/zkserver/internal/proto"
)

// Logger receives the server's diagnostic messages (go-zookeeper's logger
// interface, so the same adapters work).
type Logger interface {
	Printf(format string, args ...any)
}

// Config tunes a server. The zero value behaves like ZooKeeper 3.8 with
// tickTime 2000 on a free loopback port.
type Config struct {
	// Addr to listen on (host:port); default "127.0.0.1:0".
	Addr string
	// Listener, when set, is used instead of listening on Addr.
	Listener net.Listener
	// TickTime is ZooKeeper's tickTime (default 2s): session expiry is checked
	// at this granularity and bounds the session timeouts.
	TickTime time.Duration
	// MinSessionTimeout and MaxSessionTimeout clamp the timeout clients ask
	// for (defaults 2 and 20 ticks).
	MinSessionTimeout time.Duration
	MaxSessionTimeout time.Duration
	// MaxFrameSize is jute.maxbuffer: larger incoming frames close the
	// connection (default 1048575).
	MaxFrameSize int
	// MaxQueuedBytes bounds a connection's unsent replies and notifications;
	// past it the connection is closed (default 64 MiB).
	MaxQueuedBytes int
	// ContainerCheckInterval is how often empty containers are deleted
	// (default 60s, ZooKeeper's znode.container.checkIntervalMs).
	ContainerCheckInterval time.Duration
	// SuperDigest, "super:<base64 sha1>", grants every permission to
	// connections that authenticate with the matching digest credentials.
	SuperDigest string
	// TLS, when set, also serves TLS on SecureAddr (ZooKeeper's
	// secureClientPort next to its clientPort). When it asks for client
	// certificates (ClientAuth VerifyClientCertIfGiven is ZooKeeper's
	// ssl.clientAuth=want, RequireAndVerifyClientCert its need), a verified
	// certificate authenticates the session as x509:<subject>, the subject
	// spelled as Java's X500Principal.getName() does, as ZooKeeper's
	// X509AuthenticationProvider does.
	TLS *tls.Config
	// SecureAddr is where TLS is served (default "127.0.0.1:0").
	SecureAddr string
	// X509SuperUser, when set, is an x509 id (a subject) granted every
	// permission (zookeeper.X509AuthenticationProvider.superUser).
	X509SuperUser string
	// FourLetterWords is the 4lw whitelist (default ruok, srvr, mntr).
	FourLetterWords []string
	// Logger gets diagnostics; nil discards them.
	Logger Logger
	// DataDir, when set, makes the tree durable: a transaction log and
	// snapshots live there, and a server started on the same directory
	// continues where the last one stopped (or crashed), with the same
	// zxids. Sessions and their ephemeral nodes end with the process. Empty
	// keeps everything in memory and never touches the disk.
	DataDir string
	// SnapshotEvery is how many log records (transactions) are written
	// between snapshots (default 100,000, ZooKeeper's snapCount); a
	// snapshot is also taken after 64 MiB of log.
	SnapshotEvery int
}

func (c *Config) setDefaults() {
	if c.Addr == "" {
		c.Addr = "127.0.0.1:0"
	}
	if c.TLS != nil && c.SecureAddr == "" {
		c.SecureAddr = "127.0.0.1:0"
	}
	if c.TickTime <= 0 {
		c.TickTime = 2 * time.Second
	}
	if c.MinSessionTimeout <= 0 {
		c.MinSessionTimeout = 2 * c.TickTime
	}
	if c.MaxSessionTimeout <= 0 {
		c.MaxSessionTimeout = 20 * c.TickTime
	}
	if c.MaxFrameSize <= 0 {
		c.MaxFrameSize = 0xfffff
	}
	if c.MaxQueuedBytes <= 0 {
		c.MaxQueuedBytes = 64 << 20
	}
	if c.ContainerCheckInterval <= 0 {
		c.ContainerCheckInterval = 60 * time.Second
	}
	if c.FourLetterWords == nil {
		c.FourLetterWords = []string{"ruok", "srvr", "mntr"}
	}
	if c.SnapshotEvery <= 0 {
		c.SnapshotEvery = defaultSnapshotEvery
	}
}

// session is a client session; it outlives connections until it expires or
// is closed.
type session struct {
	id         int64
	passwd     []byte
	timeout    time.Duration
	lastTouch  atomic.Int64      // server-clock nanoseconds of the last frame
	conn       *conn             // guarded by Server.mu
	ephemerals map[string]uint64 // path → insertion sequence (see javaCloseOrder)
	ephPeak    int               // most ephemerals held at once
	ephSeq     uint64
}

// addEphemeral records a new ephemeral of the session.
func (ss *session) addEphemeral(path string) {
	ss.ephSeq++
	ss.ephemerals[path] = ss.ephSeq
	ss.ephPeak = max(ss.ephPeak, len(ss.ephemerals))
}

// Server is a running embedded ZooKeeper server.
type Server struct {
	cfg   Config
	ln    net.Listener
	tln   net.Listener // TLS (nil without Config.TLS)
	start time.Time

	mu       sync.RWMutex // tree, sessions; exclusive for writes
	tree     *tree
	zxid     atomic.Int64 // written only with mu held exclusively
	sessions map[int64]*session
	nextID   int64

	wmu    sync.Mutex // watch tables and conn.watchPaths
	dataW  watchTable
	childW watchTable

	connMu sync.Mutex
	conns  map[*conn]struct{}

	received atomic.Int64
	sent     atomic.Int64

	// Persistence (nil log: memory only).
	log         *txnLog
	txnBuf      proto.Encoder // record body scratch; guarded by mu (exclusive)
	snapKick    chan struct{}
	snapshots   atomic.Int64 // snapshots written since start
	goodSnaps   []int64      // zxids of the newest snapshots known intact; snapshot goroutine only
	snapStartup bool         // take a snapshot once started; set before the snapshot goroutine starts
	recovered   recovery
	unlockDir   func()

	closed   chan struct{}
	closeErr error
	failErr  error // the I/O error that stopped the server (set before closed)
	once     sync.Once
	failOnce sync.Once
	stopOnce sync.Once
	wg       sync.WaitGroup
}

// Start listens on cfg.Addr and serves until Close. With cfg.DataDir it
// first restores the tree from the directory (see Config.DataDir).
func Start(cfg Config) (*Server, error) {
	cfg.setDefaults()
	s := &Server{
		cfg:      cfg,
		start:    time.Now(),
		tree:     newTree(),
		sessions: map[int64]*session{},
		dataW:    newWatchTable(),
		childW:   newWatchTable(),
		conns:    map[*conn]struct{}{},
		closed:   make(chan struct{}),
		snapKick: make(chan struct{}, 1),
	}
	if cfg.DataDir != "" {
		if err := s.openDataDir(); err != nil {
			return nil, fmt.Errorf("zkserver: %w", err)
		}
	}
	ln := cfg.Listener
	if ln == nil {
		var err error
		if ln, err = net.Listen("tcp", cfg.Addr); err != nil {
			s.stopPersistence(false)
			return nil, fmt.Errorf("zkserver: %w", err)
		}
	}
	s.ln = ln
	if cfg.TLS != nil {
		tln, err := net.Listen("tcp", cfg.SecureAddr)
		if err != nil {
			_ = ln.Close()
			s.stopPersistence(false)
			return nil, fmt.Errorf("zkserver: %w", err)
		}
		s.tln = tls.NewListener(tln, cfg.TLS)
	}
	// Session ids as ZooKeeper's SessionTrackerImpl makes them for server id
	// 1: top byte 0x01, then milliseconds; +1 per session.
	ms := time.Now().UnixMilli()
	s.nextID = int64(1)<<56 | int64(uint64(ms<<24)>>8)
	s.wg.Add(3)
	go s.acceptLoop(s.ln)
	if s.tln != nil {
		s.wg.Add(1)
		go s.acceptLoop(s.tln)
	}
	go s.expiryLoop()
	go s.containerLoop()
	if s.log != nil {
		s.log.start()
		s.wg.Add(1)
		go s.snapshotLoop()
		if s.recovered.replayed > 0 || s.recovered.sessions > 0 {
			s.snapStartup = true // so the next start replays less
			s.kickSnapshot()
		}
	}
	return s, nil
}

// openDataDir locks the data directory and restores the tree from it.
func (s *Server) openDataDir() error {
	dir := s.cfg.DataDir
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	unlock, err := lockDir(dir)
	if err != nil {
		return err
	}
	s.unlockDir = unlock
	rec, err := s.recover()
	if err != nil {
		s.stopPersistence(false)
		return err
	}
	s.recovered = rec
	s.logf("data directory %s: snapshot 0x%x, %d transactions replayed, %d ephemerals of %d ended sessions deleted; zxid 0x%x",
		dir, max(rec.snapshot, 0), rec.replayed, rec.ephemerals, rec.sessions, s.zxid.Load())
	return nil
}

// stopPersistence flushes and closes the log and releases the directory.
func (s *Server) stopPersistence(started bool) error {
	var err error
	if s.log != nil {
		err = s.log.close(started)
	}
	if s.unlockDir != nil {
		s.unlockDir()
	}
	return err
}

// fail stops the server after an I/O error of the transaction log: nothing
// can be acknowledged any more.
func (s *Server) fail(err error) {
	s.failOnce.Do(func() {
		s.logf("%v; stopping the server", err)
		s.failErr = err
		go s.Close()
	})
}

// Done is closed when the server stops: Close was called, or the
// transaction log failed (see Err).
func (s *Server) Done() <-chan struct{} { return s.closed }

// Err returns the error that stopped the server on its own (a failed write
// or sync of the transaction log), or nil.
func (s *Server) Err() error {
	select {
	case <-s.closed:
		return s.failErr
	default:
		return nil
	}
}

// Addr returns the bound host:port.
func (s *Server) Addr() string { return s.ln.Addr().String() }

// SecureAddr returns the bound host:port of the TLS port ("" without
// Config.TLS).
func (s *Server) SecureAddr() string {
	if s.tln == nil {
		return ""
	}
	return s.tln.Addr().String()
}

// Close stops listening, closes every connection (sessions are dropped
// without running their close transactions) and waits for the goroutines.
// With a data directory, what was logged is synced and the directory
// released. It returns the error that stopped the server, if one did.
func (s *Server) Close() error {
	s.once.Do(func() {
		close(s.closed)
		s.closeErr = s.ln.Close()
		if errors.Is(s.closeErr, net.ErrClosed) {
			s.closeErr = nil
		}
		if s.tln != nil {
			_ = s.tln.Close()
		}
		s.connMu.Lock()
		for c := range s.conns {
			c.close()
		}
		s.connMu.Unlock()
	})
	s.wg.Wait()
	s.stopOnce.Do(func() {
		if err := s.stopPersistence(true); err != nil && s.closeErr == nil {
			s.closeErr = err
		}
	})
	if s.failErr != nil {
		return s.failErr
	}
	return s.closeErr
}

func (s *Server) logf(format string, args ...any) {
	if s.cfg.Logger != nil {
		s.cfg.Logger.Printf("zkserver: "+format, args...)
	}
}

func (s *Server) acceptLoop(ln net.Listener) {
	defer s.wg.Done()
	var delay time.Duration
	for {
		nc, err := ln.Accept()
		if err != nil {
			select {
			case <-s.closed:
				return
			default:
			}
			if errors.Is(err, net.ErrClosed) {
				return
			}
			// Temporary trouble (e.g. out of file descriptors): back off.
			delay = min(max(2*delay, 5*time.Millisecond), time.Second)
			s.logf("accept: %v; retrying in %v", err, delay)
			select {
			case <-time.After(delay):
				continue
			case <-s.closed:
				return
			}
		}
		delay = 0
		c := newConn(s, nc)
		s.connMu.Lock()
		select {
		case <-s.closed:
			s.connMu.Unlock()
			_ = nc.Close()
			continue
		default:
		}
		s.conns[c] = struct{}{}
		s.connMu.Unlock()
		s.wg.Add(2)
		go c.readLoop()
		go c.writeLoop()
	}
}

// now is the server clock in nanoseconds since start (monotonic).
func (s *Server) now() int64 { return int64(time.Since(s.start)) }

// expiryLoop expires sessions at tick boundaries, as ZooKeeper's
// ExpiryQueue does: a session expires at the first tick boundary after
// lastTouch+timeout, so between timeout and timeout+tick after its last frame.
func (s *Server) expiryLoop() {
	defer s.wg.Done()
	tick := int64(s.cfg.TickTime)
	for {
		next := (s.now()/tick + 1) * tick
		select {
		case <-s.closed:
			return
		case <-time.After(time.Duration(next - s.now())):
		}
		now := s.now()
		var expired []*session
		s.mu.RLock()
		for _, ss := range s.sessions {
			deadline := ((ss.lastTouch.Load()+int64(ss.timeout))/tick + 1) * tick
			if deadline <= now {
				expired = append(expired, ss)
			}
		}
		s.mu.RUnlock()
		for _, ss := range expired {
			s.mu.Lock()
			// Re-check: a frame may have touched it meanwhile.
			deadline := ((ss.lastTouch.Load()+int64(ss.timeout))/tick + 1) * tick
			if s.sessions[ss.id] == ss && deadline <= s.now() {
				s.logf("session 0x%x expired", ss.id)
				c := ss.conn
				s.closeSessionLocked(ss)
				if c != nil {
					c.close() // silently, as ZooKeeper does
				}
			}
			s.mu.Unlock()
		}
	}
}

// containerLoop deletes containers that are empty and have had children,
// like ZooKeeper's ContainerManager.
func (s *Server) containerLoop() {
	defer s.wg.Done()
	t := time.NewTicker(s.cfg.ContainerCheckInterval)
	defer t.Stop()
	for {
		select {
		case <-s.closed:
			return
		case <-t.C:
		}
		s.mu.RLock()
		var candidates []string
		for p := range s.tree.containers {
			if n := s.tree.nodes[p]; n != nil && len(n.children) == 0 && n.childCreates > 0 {
				candidates = append(candidates, p)
			}
		}
		s.mu.RUnlock()
		for _, p := range candidates {
			s.mu.Lock()
			n := s.tree.nodes[p]
			if n != nil && n.owner == containerOwner && len(n.children) == 0 && n.childCreates > 0 {
				zxid := s.zxid.Add(1)
				var events []pendingEvent
				s.tree.removeNode(p, n, zxid, nil)
				s.logOps(zxid, time.Now().UnixMilli(), []txnOp{{typ: txDelete, path: p}})
				s.triggerDelete(p, &events)
				s.deliver(events)
			}
			s.mu.Unlock()
		}
	}
}

// newSessionLocked creates a session (one zxid, as ZooKeeper's
// createSession transaction). Caller holds mu exclusively.
func (s *Server) newSessionLocked(timeout time.Duration) *session {
	zxid := s.zxid.Add(1)
	id := s.nextID
	s.nextID++
	for id == 0 || id == containerOwner || s.sessions[id] != nil {
		id = s.nextID
		s.nextID++
	}
	pw := make([]byte, 16)
	_, _ = rand.Read(pw)
	ss := &session{id: id, passwd: pw, timeout: timeout, ephemerals: map[string]uint64{}}
	ss.lastTouch.Store(s.now())
	s.sessions[id] = ss
	s.logSession(zxid, recCreateSess, id)
	return ss
}

// closeSessionLocked runs a closeSession transaction: one zxid, every
// ephemeral of the session deleted with it, watches fired. Caller holds mu
// exclusively.
func (s *Server) closeSessionLocked(ss *session) int64 {
	zxid := s.zxid.Add(1)
	delete(s.sessions, ss.id)
	s.logSession(zxid, recCloseSession, ss.id)
	// Delete in ZooKeeper's order so watchers get events in the same order.
	paths := javaCloseOrder(ss.ephemerals, ss.ephPeak)
	var events []pendingEvent
	for _, p := range paths {
		if n := s.tree.nodes[p]; n != nil && n.owner == ss.id {
			s.tree.removeNode(p, n, zxid, nil)
			s.triggerDelete(p, &events)
		}
	}
	clear(ss.ephemerals)
	s.deliver(events)
	return zxid
}

// triggerCreate queues the watch events of a create (spec §10.2).
func (s *Server) triggerCreate(path string, events *[]pendingEvent) {
	s.wmu.Lock()
	s.dataW.trigger(path, proto.EventNodeCreated, nil, events)
	s.childW.trigger(watchParent(parentPath(path)), proto.EventNodeChildrenChanged, nil, events)
	s.wmu.Unlock()
}

// triggerDelete queues the watch events of a delete.
func (s *Server) triggerDelete(path string, events *[]pendingEvent) {
	s.wmu.Lock()
	fired := s.dataW.trigger(path, proto.EventNodeDeleted, nil, events)
	s.childW.trigger(path, proto.EventNodeDeleted, fired, events)
	s.childW.trigger(watchParent(parentPath(path)), proto.EventNodeChildrenChanged, nil, events)
	s.wmu.Unlock()
}

// triggerData queues the watch events of a setData.
func (s *Server) triggerData(path string, events *[]pendingEvent) {
	s.wmu.Lock()
	s.dataW.trigger(path, proto.EventNodeDataChanged, nil, events)
	s.wmu.Unlock()
}

// deliver queues notifications on their connections. Called with mu held so
// they precede any reply queued after the change.
func (s *Server) deliver(events []pendingEvent) {
	for _, ev := range events {
		ev.c.send(notification(ev.typ, ev.path))
	}
}

// notification encodes a watch event frame (spec §10.3).
func notification(typ int32, path string) []byte {
	e := proto.Encoder{B: make([]byte, 0, 32+len(path))}
	off := e.BeginFrame()
	e.Int(proto.XidNotification)
	e.Long(-1)
	e.Int(0)
	e.Int(typ)
	e.Int(proto.StateSyncConnected)
	e.String(path)
	e.EndFrame(off)
	return e.B
}
