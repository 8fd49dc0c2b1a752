package kraftsandbox

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"

	"github.com/twmb/franz-go/pkg/kbin"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// maxRequestSize is Kafka's socket.request.max.bytes default: a larger
// frame closes the connection (Kafka's InvalidReceiveException).
const maxRequestSize = 100 << 20

// request is one decoded request on a node's listener.
type request struct {
	node     *node
	req      kmsg.Request
	clientID string
	// noReply is set by a handler whose request gets no response (a
	// Produce with acks=0).
	noReply bool
}

// handler answers one request. An error closes the connection, as Kafka
// does for a request it cannot parse or serve; a refusal is an error code
// in the response, never an error here.
type handler func(c *Cluster, r *request) (kmsg.Response, error)

// errClose closes a connection without a log line of its own.
var errClose = errors.New("connection closed by the sandbox")

// node is one simulated process: a broker or a controller, with its own
// listener on loopback.
type node struct {
	id         int32
	controller bool
	host       string
	port       int32

	mu    sync.Mutex
	ln    net.Listener
	conns map[net.Conn]struct{}
	wg    sync.WaitGroup
}

// addr is the node's listener as host:port.
func (n *node) addr() string { return net.JoinHostPort(n.host, fmt.Sprint(n.port)) }

// listen opens the node's listener: on its port once it has one (a
// restart keeps its address, as a restarted Kafka process does), else on
// a free port.
func (c *Cluster) listen(n *node) error {
	addr := net.JoinHostPort(n.host, fmt.Sprint(n.port))
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("node %d: %w", n.id, err)
	}
	n.mu.Lock()
	n.ln = ln
	if n.port == 0 {
		// Set once, before anyone knows the address: handlers read every
		// node's port without its lock (a restart keeps it).
		n.port = int32(ln.Addr().(*net.TCPAddr).Port)
	}
	n.conns = map[net.Conn]struct{}{}
	n.mu.Unlock()
	n.wg.Add(1)
	go c.accept(n, ln)
	return nil
}

// stopListening closes the node's listener and every connection to it,
// as a killed process's sockets close, and waits for their goroutines.
func (n *node) stopListening() {
	n.mu.Lock()
	ln := n.ln
	n.ln = nil
	for conn := range n.conns {
		conn.Close()
	}
	n.mu.Unlock()
	if ln != nil {
		ln.Close()
	}
	n.wg.Wait()
}

// listening says whether the node's process is up.
func (n *node) listening() bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.ln != nil
}

func (c *Cluster) accept(n *node, ln net.Listener) {
	defer n.wg.Done()
	for {
		conn, err := ln.Accept()
		if err != nil {
			return
		}
		n.mu.Lock()
		if n.ln != ln {
			n.mu.Unlock()
			conn.Close()
			return
		}
		n.conns[conn] = struct{}{}
		n.wg.Add(1)
		n.mu.Unlock()
		go func() {
			defer n.wg.Done()
			c.serve(n, conn)
			n.mu.Lock()
			delete(n.conns, conn)
			n.mu.Unlock()
		}()
	}
}

// serve reads requests from one connection and answers them in order,
// one at a time, as a Kafka broker processes a connection's requests.
func (c *Cluster) serve(n *node, conn net.Conn) {
	defer conn.Close()
	var size [4]byte
	var out []byte
	for {
		if _, err := io.ReadFull(conn, size[:]); err != nil {
			return
		}
		l := int32(binary.BigEndian.Uint32(size[:]))
		if l < 8 || l > maxRequestSize {
			c.logf("node %d: closing %s: request of %d bytes (socket.request.max.bytes is %d)", n.id, conn.RemoteAddr(), l, maxRequestSize)
			return
		}
		body := make([]byte, l)
		if _, err := io.ReadFull(conn, body); err != nil {
			return
		}
		resp, corr, err := c.handleSafely(n, body)
		if err != nil {
			if !errors.Is(err, errClose) {
				c.logf("node %d: closing %s: %v", n.id, conn.RemoteAddr(), err)
			}
			return
		}
		if resp == nil {
			continue
		}
		out = append(out[:0], 0, 0, 0, 0, 0, 0, 0, 0)
		binary.BigEndian.PutUint32(out[4:], uint32(corr))
		if resp.IsFlexible() && resp.Key() != kmsg.ApiVersions.Int16() {
			out = append(out, 0) // no tagged fields in the response header
		}
		if e, ok := resp.(*encodedResponse); ok {
			// Encoded by its handler: written as it is, after the header.
			binary.BigEndian.PutUint32(out, uint32(len(out)-4+len(e.raw)))
			bufs := net.Buffers{out, e.raw}
			if _, err := bufs.WriteTo(conn); err != nil {
				return
			}
			continue
		}
		out = resp.AppendTo(out)
		binary.BigEndian.PutUint32(out, uint32(len(out)-4))
		if _, err := conn.Write(out); err != nil {
			return
		}
		if cap(out) > 1<<20 {
			out = nil // a Metadata of a million partitions is 40 MiB: not kept per connection
		}
	}
}

// handleSafely is handle with a handler's panic turned into a closed
// connection and a log line: one hostile or unforeseen request never
// takes the simulated cluster down (the fuzz test looks for the panics
// themselves, calling handle).
func (c *Cluster) handleSafely(n *node, body []byte) (resp kmsg.Response, corr int32, err error) {
	defer func() {
		if p := recover(); p != nil {
			resp, err = nil, fmt.Errorf("internal error: %v", p)
		}
	}()
	return c.handle(n, body)
}

// handle decodes one request and runs its handler. A nil response with a
// nil error is a request that gets no answer.
func (c *Cluster) handle(n *node, body []byte) (resp kmsg.Response, corr int32, err error) {
	rd := kbin.Reader{Src: body}
	key, version, corr := rd.Int16(), rd.Int16(), rd.Int32()
	clientID := rd.NullableString()
	if !rd.Ok() {
		return nil, 0, errors.New("truncated request header")
	}
	r, ok := c.served(n.controller, key)
	if !ok || version < r.min || version > r.max {
		if key == kmsg.ApiVersions.Int16() {
			// Kafka answers an ApiVersions it does not know the version
			// of with version 0 and UNSUPPORTED_VERSION, listing the
			// versions of ApiVersions it serves, so that the client can
			// pick (KIP-511).
			return c.apiVersionsUnsupported(n), corr, nil
		}
		return nil, 0, fmt.Errorf("unsupported request: api key %d (%s) version %d", key, kmsg.NameForKey(key), version)
	}
	req := kmsg.RequestForKey(key)
	req.SetVersion(version)
	if req.IsFlexible() {
		kmsg.SkipTags(&rd)
		if !rd.Ok() {
			return nil, 0, errors.New("truncated request header tags")
		}
	}
	if err := decode(req, rd.Src); err != nil {
		return nil, 0, fmt.Errorf("malformed %s v%d request: %w", kmsg.NameForKey(key), version, err)
	}
	rq := &request{node: n, req: req}
	if clientID != nil {
		rq.clientID = *clientID
	}
	if ans, ok := c.inactiveControllerAnswer(rq); ok {
		ans.SetVersion(version)
		return ans, corr, nil
	}
	resp, err = c.handlers[key](c, rq)
	if err != nil || rq.noReply {
		return nil, 0, err
	}
	resp.SetVersion(version)
	return resp, corr, nil
}

// decode reads a request's body, turning a panic of the decoder on
// hostile input into an error.
func decode(req kmsg.Request, b []byte) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("undecodable: %v", p)
		}
	}()
	return req.ReadFrom(b)
}

// apiVersionsUnsupported is the answer to an ApiVersions of a version the
// node does not serve: UNSUPPORTED_VERSION and ApiVersions' own versions
// alone (ApiVersionsRequest.getErrorResponse; compared with real 4.4 in
// TestApiVersionsLikeRealKafka).
func (c *Cluster) apiVersionsUnsupported(n *node) kmsg.Response {
	resp := kmsg.NewPtrApiVersionsResponse()
	resp.ErrorCode = 35 // UNSUPPORTED_VERSION
	for _, k := range c.apiKeys(n) {
		if k.ApiKey == kmsg.ApiVersions.Int16() {
			resp.ApiKeys = append(resp.ApiKeys, k)
		}
	}
	return resp
}

// apiKeys lists the APIs a node serves, by key.
func (c *Cluster) apiKeys(n *node) []kmsg.ApiVersionsResponseApiKey {
	var keys []kmsg.ApiVersionsResponseApiKey
	for key := int16(0); key <= kmsg.MaxKey; key++ {
		if r, ok := c.served(n.controller, key); ok {
			k := kmsg.NewApiVersionsResponseApiKey()
			k.ApiKey, k.MinVersion, k.MaxVersion = key, r.min, r.max
			keys = append(keys, k)
		}
	}
	return keys
}
