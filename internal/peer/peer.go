// Package peer finds out what listens at an address from what it
// answers: a Kafka broker's or a KRaft controller's listener (Kafka's
// ApiVersions), a ZooKeeper server (a session request, or the four-letter
// word srvr), an HTTP server, a listener that wants TLS (a TLS alert), or
// something that accepts connections and says nothing. ktopo asks only
// once a connection made the normal way failed, to tell the operator which
// flag the address belongs to instead of guessing from the failure.
package peer

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// Kind is what answers at an address.
type Kind int

const (
	// Unknown answered with bytes of no protocol this package knows.
	Unknown Kind = iota
	// Unreachable did not take the connection (refused, no route, the
	// name does not resolve).
	Unreachable
	// Silent accepted the connection and answered nothing.
	Silent
	// Closed accepted the connection and closed it unanswered, whatever
	// it was sent (Kafka's ApiVersions, ZooKeeper's session request and
	// srvr).
	Closed
	// ZooKeeper is a ZooKeeper server's client port.
	ZooKeeper
	// KafkaBroker is a Kafka broker's listener: its ApiVersions lists
	// Metadata.
	KafkaBroker
	// KafkaController is a KRaft controller's listener (CONTROLLER): its
	// ApiVersions lists the quorum's requests and no Metadata.
	KafkaController
	// HTTP is an HTTP server.
	HTTP
	// TLS is a listener that wants TLS: it answered a plaintext request
	// with a TLS alert.
	TLS
)

// Peer is what answered at Addr.
type Peer struct {
	Addr string
	Kind Kind
	// ZooKeeperMode is set for a KafkaBroker in ZooKeeper mode (its
	// ApiVersions lists LeaderAndIsr, which only a ZooKeeper-mode
	// broker serves).
	ZooKeeperMode bool
	// Evidence says what it answered, in a few words ("it answered
	// Kafka's ApiVersions, listing Metadata"), for messages.
	Evidence string
	// Err is the connection's error for Unreachable.
	Err error
}

// What names the peer in a sentence: "a ZooKeeper server".
func (p Peer) What() string {
	switch p.Kind {
	case ZooKeeper:
		return "a ZooKeeper server"
	case KafkaBroker:
		if p.ZooKeeperMode {
			return "a Kafka broker in ZooKeeper mode"
		}
		return "a Kafka broker's listener"
	case KafkaController:
		return "a KRaft controller's listener"
	case HTTP:
		return "an HTTP server"
	case TLS:
		return "a listener that wants TLS"
	case Silent:
		return "a listener that answers nothing"
	case Closed:
		return "a listener that closes connections unanswered"
	case Unreachable:
		return "unreachable"
	}
	return "an unknown server"
}

// Options bound Identify.
type Options struct {
	// Wait is how long each question waits for its answer (default
	// DefaultWait); a silent peer costs two of them.
	Wait time.Duration
	// TLS, when set, is used to ask Kafka again over TLS when the
	// listener turns out to want it, to tell a broker from a controller.
	TLS *tls.Config
}

// DefaultWait is Options.Wait's default: a server that answers at all
// answers these questions in milliseconds.
const DefaultWait = 1500 * time.Millisecond

// Identify asks what listens at addr (host:port), within ctx: Kafka's
// ApiVersions first (over TLS first when opts.TLS is set); when that is closed unanswered, a ZooKeeper session
// request (the session it opens is closed at once), then srvr (which a
// ZooKeeper server answers even without quorum, and names when it may
// not run it). An HTTP server waits for a line: a peer silent to
// ApiVersions is sent an empty line too.
func Identify(ctx context.Context, addr string, opts Options) Peer {
	if opts.Wait <= 0 {
		opts.Wait = DefaultWait
	}
	if opts.TLS != nil {
		if q := askKafka(ctx, addr, opts.Wait, opts.TLS); q.Kind == KafkaBroker || q.Kind == KafkaController {
			q.Evidence = "over TLS, " + q.Evidence
			return q
		}
	}
	p := askKafka(ctx, addr, opts.Wait, nil)
	if p.Kind != Closed {
		return p // a ZooKeeper server closes Kafka's request unanswered
	}
	if z := askZooKeeper(ctx, addr, opts.Wait); z.Kind == ZooKeeper {
		return z
	}
	if z := askSrvr(ctx, addr, opts.Wait); z.Kind == ZooKeeper {
		return z
	}
	if p.Kind == Closed {
		p.Evidence = "it accepted the connection and closed it unanswered, to Kafka's ApiVersions as to ZooKeeper's session request"
	}
	return p
}

// dial connects to addr (over TLS with cfg) within wait; the connection's
// deadlines end with ctx. done closes it.
func dial(ctx context.Context, addr string, cfg *tls.Config, wait time.Duration) (c net.Conn, done func(), err error) {
	d := net.Dialer{Timeout: wait}
	dctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	if cfg != nil {
		c, err = (&tls.Dialer{NetDialer: &d, Config: cfg.Clone()}).DialContext(dctx, "tcp", addr)
	} else {
		c, err = d.DialContext(dctx, "tcp", addr)
	}
	if err != nil {
		return nil, nil, err
	}
	stop := context.AfterFunc(ctx, func() { _ = c.SetDeadline(time.Now()) })
	return c, func() { stop(); _ = c.Close() }, nil
}

// send writes b within wait.
func send(c net.Conn, b []byte, wait time.Duration) error {
	_ = c.SetWriteDeadline(time.Now().Add(wait))
	_, err := c.Write(b)
	return err
}

// receive reads until stop says the answer is whole (end nil), the peer
// closes (io.EOF), maxAnswer bytes came, or wait passes without a byte
// (then, if nothing came and nudge is set, it writes nudge and waits
// again). It returns the bytes read and why reading ended.
func receive(ctx context.Context, c net.Conn, wait time.Duration, nudge []byte, stop func([]byte) bool) (got []byte, end error) {
	buf := make([]byte, 4096)
	nudged := nudge == nil
	_ = c.SetReadDeadline(time.Now().Add(wait))
	for len(got) < maxAnswer {
		n, err := c.Read(buf)
		got = append(got, buf[:n]...)
		if stop(got) {
			return got, nil
		}
		if err == nil {
			continue
		}
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() && len(got) == 0 && !nudged && ctx.Err() == nil {
			nudged = true
			if werr := send(c, nudge, wait); werr != nil {
				return got, readEnd(werr)
			}
			_ = c.SetReadDeadline(time.Now().Add(wait))
			continue
		}
		return got, readEnd(err)
	}
	return got, nil
}

// exchange dials addr, sends req and receives the answer (see receive);
// err is the dial's error.
func exchange(ctx context.Context, addr string, cfg *tls.Config, wait time.Duration, req, nudge []byte, stop func([]byte) bool) (got []byte, end, err error) {
	c, done, err := dial(ctx, addr, cfg, wait)
	if err != nil {
		return nil, nil, err
	}
	defer done()
	if err := send(c, req, wait); err != nil {
		return nil, readEnd(err), nil
	}
	got, end = receive(ctx, c, wait, nudge, stop)
	return got, end, nil
}

// maxAnswer bounds what is read of an answer.
const maxAnswer = 64 << 10

// readEnd maps a connection reset to io.EOF: both are a peer that closed.
func readEnd(err error) error {
	var ne net.Error
	switch {
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF), strings.Contains(err.Error(), "connection reset"),
		strings.Contains(err.Error(), "broken pipe"):
		return io.EOF
	case errors.As(err, &ne) && ne.Timeout():
		return err
	}
	return err
}

// apiVersionsCorrelation is the correlation id of the probe's request.
const apiVersionsCorrelation = 0x6b746f70 // "ktop"

// apiVersionsRequest is ApiVersions v3 (Kafka 2.4+; older brokers answer
// a version they lack with v0 and UNSUPPORTED_VERSION).
func apiVersionsRequest() []byte {
	req := kmsg.NewPtrApiVersionsRequest()
	req.Version = 3
	req.ClientSoftwareName = "ktopo"
	req.ClientSoftwareVersion = "probe"
	return kmsg.NewRequestFormatter(kmsg.FormatterClientID("ktopo")).AppendRequest(nil, req, apiVersionsCorrelation)
}

// frameDone reports a whole length-prefixed frame in b.
func frameDone(b []byte) bool {
	return len(b) >= 4 && len(b)-4 >= int(binary.BigEndian.Uint32(b))
}

// askKafka sends ApiVersions and reads the answer.
func askKafka(ctx context.Context, addr string, wait time.Duration, cfg *tls.Config) Peer {
	p := Peer{Addr: addr}
	stop := func(b []byte) bool {
		return frameDone(b) || isHTTP(b) && bytes.Contains(b, []byte("\n")) || isTLSAlert(b)
	}
	got, end, err := exchange(ctx, addr, cfg, wait, apiVersionsRequest(), []byte("\r\n\r\n"), stop)
	switch {
	case err != nil:
		p.Kind, p.Err, p.Evidence = Unreachable, err, err.Error()
		return p
	case isHTTP(got):
		line, _, _ := bytes.Cut(got, []byte("\n"))
		p.Kind, p.Evidence = HTTP, fmt.Sprintf("it answered %q", strings.TrimSpace(string(line)))
		return p
	case isTLSAlert(got):
		p.Kind, p.Evidence = TLS, "it answered Kafka's ApiVersions with a TLS alert"
		return p
	case len(got) == 0 && end != nil && !errors.Is(end, io.EOF):
		p.Kind, p.Evidence = Silent, fmt.Sprintf("it accepted the connection and answered nothing within %s", 2*wait)
		return p
	case len(got) == 0:
		p.Kind, p.Evidence = Closed, "it closed Kafka's ApiVersions unanswered"
		return p
	}
	if apis, ok := readApiVersions(got); ok {
		return kafkaPeer(p, apis)
	}
	p.Kind, p.Evidence = Unknown, fmt.Sprintf("it answered Kafka's ApiVersions with bytes of no protocol ktopo knows (%q)", clip(got))
	return p
}

// readApiVersions decodes an ApiVersions response frame (header v0, body
// v3, or v0 when the broker does not serve v3) into the keys served.
func readApiVersions(b []byte) (map[int16]bool, bool) {
	if !frameDone(b) || len(b) < 8 || int32(binary.BigEndian.Uint32(b[4:])) != apiVersionsCorrelation {
		return nil, false
	}
	body := b[8 : 4+binary.BigEndian.Uint32(b)]
	for _, v := range []int16{3, 0} {
		resp := kmsg.NewPtrApiVersionsResponse()
		resp.Version = v
		if resp.ReadFrom(body) != nil || len(resp.ApiKeys) == 0 {
			continue
		}
		apis := map[int16]bool{}
		for _, k := range resp.ApiKeys {
			apis[k.ApiKey] = true
		}
		return apis, true
	}
	return nil, false
}

// Kafka's API keys that tell the roles apart.
const (
	keyMetadata       = 3
	keyLeaderAndIsr   = 4
	keyVote           = 52
	keyDescribeQuorum = 55
)

func kafkaPeer(p Peer, apis map[int16]bool) Peer {
	switch {
	case apis[keyMetadata]:
		p.Kind, p.Evidence = KafkaBroker, "it answered Kafka's ApiVersions, listing Metadata"
		if apis[keyLeaderAndIsr] {
			p.ZooKeeperMode = true
			p.Evidence += " and LeaderAndIsr, which only a ZooKeeper-mode broker serves"
		}
	case apis[keyDescribeQuorum] || apis[keyVote]:
		p.Kind, p.Evidence = KafkaController, "it answered Kafka's ApiVersions with the quorum's requests, DescribeQuorum and Vote, and no Metadata"
	default:
		p.Kind, p.Evidence = Unknown, "it answered Kafka's ApiVersions without Metadata nor a controller's requests"
	}
	return p
}

// isHTTP reports an HTTP server's answer: a status line, or (a server
// that took the request for HTTP/0.9) an HTML page.
func isHTTP(b []byte) bool {
	for _, start := range []string{"HTTP/", "<!DOCTYPE HTML", "<html"} {
		if len(b) >= len(start) && strings.EqualFold(string(b[:len(start)]), start) {
			return true
		}
	}
	return false
}

// isTLSAlert reports a TLS alert record: content type 21, version 3.x.
func isTLSAlert(b []byte) bool { return len(b) >= 2 && b[0] == 21 && b[1] == 3 }

// clip shows the start of unknown bytes.
func clip(b []byte) []byte {
	if len(b) > 16 {
		return b[:16]
	}
	return b
}
