// Package zkserver is a standalone, in-memory server that speaks the Apache
// ZooKeeper client protocol and behaves as ZooKeeper 3.8 standalone does
// (spec zookeeper-server.md): sessions, ephemeral, sequential and container
// nodes, versions and stat fields, one-shot and persistent watches, multi,
// digest ACLs and the ruok/srvr/mntr four-letter words.
//
// Design: every connection has a reader goroutine that decodes and executes
// its requests in order and a writer goroutine that drains an ordered
// outbound queue. Requests run under one RWMutex: writes hold it exclusively
// (the single ordered write path, which also numbers zxids), reads share it.
// Replies and watch notifications are appended to the connections' queues
// while the lock is held, so a notification always precedes the reply of the
// write that caused it and any later reply, but no socket is ever written
// under the lock. A connection whose queue grows past Config.MaxQueuedBytes
// is disconnected, so one slow client cannot stall or bloat the server.
//
// Every change of state goes through Server.write (or the session create and
// close paths) with mu held and a zxid taken: that is where a transaction
// log would append the decoded request, its zxid, time and session, and
// replaying the log through the same functions would rebuild the tree; a
// snapshot is a walk of tree.nodes. Nodes are compact (no stored path,
// interned ACLs, lazily allocated child sets).
//
// Differences from ZooKeeper 3.8 are listed in COMPATIBILITY.md.
package zkserver

import (
	"crypto/rand"
	"errors"
	"fmt"
	"net"
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
	// FourLetterWords is the 4lw whitelist (default ruok, srvr, mntr).
	FourLetterWords []string
	// Logger gets diagnostics; nil discards them.
	Logger Logger
}

func (c *Config) setDefaults() {
	if c.Addr == "" {
		c.Addr = "127.0.0.1:0"
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

	closed   chan struct{}
	closeErr error
	once     sync.Once
	wg       sync.WaitGroup
}

// Start listens on cfg.Addr and serves until Close.
func Start(cfg Config) (*Server, error) {
	cfg.setDefaults()
	ln := cfg.Listener
	if ln == nil {
		var err error
		if ln, err = net.Listen("tcp", cfg.Addr); err != nil {
			return nil, fmt.Errorf("zkserver: %w", err)
		}
	}
	s := &Server{
		cfg:      cfg,
		ln:       ln,
		start:    time.Now(),
		tree:     newTree(),
		sessions: map[int64]*session{},
		dataW:    newWatchTable(),
		childW:   newWatchTable(),
		conns:    map[*conn]struct{}{},
		closed:   make(chan struct{}),
	}
	// Session ids as ZooKeeper's SessionTrackerImpl makes them for server id
	// 1: top byte 0x01, then milliseconds; +1 per session.
	ms := time.Now().UnixMilli()
	s.nextID = int64(1)<<56 | int64(uint64(ms<<24)>>8)
	s.wg.Add(3)
	go s.acceptLoop()
	go s.expiryLoop()
	go s.containerLoop()
	return s, nil
}

// Addr returns the bound host:port.
func (s *Server) Addr() string { return s.ln.Addr().String() }

// Close stops listening, closes every connection (sessions are dropped
// without running their close transactions) and waits for the goroutines.
func (s *Server) Close() error {
	s.once.Do(func() {
		close(s.closed)
		s.closeErr = s.ln.Close()
		s.connMu.Lock()
		for c := range s.conns {
			c.close()
		}
		s.connMu.Unlock()
	})
	s.wg.Wait()
	if errors.Is(s.closeErr, net.ErrClosed) {
		return nil
	}
	return s.closeErr
}

func (s *Server) logf(format string, args ...any) {
	if s.cfg.Logger != nil {
		s.cfg.Logger.Printf("zkserver: "+format, args...)
	}
}

func (s *Server) acceptLoop() {
	defer s.wg.Done()
	var delay time.Duration
	for {
		nc, err := s.ln.Accept()
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
	s.zxid.Add(1)
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
	return ss
}

// closeSessionLocked runs a closeSession transaction: one zxid, every
// ephemeral of the session deleted with it, watches fired. Caller holds mu
// exclusively.
func (s *Server) closeSessionLocked(ss *session) int64 {
	zxid := s.zxid.Add(1)
	delete(s.sessions, ss.id)
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
