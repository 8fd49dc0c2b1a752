package peer

import (
	"context"
	"crypto/tls"
	"encoding/binary"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/ktopo/ktopo/internal/testkit/nettest"
	"github.com/ktopo/ktopo/internal/testkit/tlstest"
	"github.com/ktopo/ktopo/zkserver"
)

// replayKafkaTLS is replayKafka behind TLS (a certificate of the test's
// CA, which the returned client config trusts).
func replayKafkaTLS(t *testing.T, file string) (string, *tls.Config) {
	t.Helper()
	ca := tlstest.NewCA(t, "", "ca")
	cert := ca.Issue(t, "server", tlstest.Options{Server: true})
	plain := replayKafka(t, file)
	addr := nettest.Serve(t, func(c net.Conn) {
		defer c.Close()
		tc := tls.Server(c, &tls.Config{Certificates: []tls.Certificate{cert.TLS}})
		back, err := net.Dial("tcp", plain)
		if err != nil {
			return
		}
		defer back.Close()
		go func() { _, _ = io.Copy(back, tc) }()
		_, _ = io.Copy(tc, back)
	})
	return addr, &tls.Config{RootCAs: ca.Pool(), ServerName: "127.0.0.1"}
}

// replayKafka answers each Kafka request with a response real Kafka gave
// to the same ApiVersions v3 request (testdata, recorded from Kafka's
// listeners), under the request's correlation id.
func replayKafka(t *testing.T, file string) string {
	t.Helper()
	resp, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	return nettest.Serve(t, func(c net.Conn) {
		defer c.Close()
		var hdr [12]byte // length, key, version, correlation id
		if _, err := io.ReadFull(c, hdr[:]); err != nil {
			return
		}
		rest := make([]byte, binary.BigEndian.Uint32(hdr[:4])-8)
		if _, err := io.ReadFull(c, rest); err != nil || binary.BigEndian.Uint16(hdr[4:]) != 18 {
			return // not ApiVersions: Kafka closes
		}
		out := append([]byte(nil), resp...)
		copy(out[4:8], hdr[8:12])
		_, _ = c.Write(out)
	})
}

func identify(t *testing.T, addr string, opts Options) Peer {
	t.Helper()
	p := Identify(context.Background(), addr, opts)
	t.Logf("%s: %s (%s)", addr, p.What(), p.Evidence)
	return p
}

// TestIdentifyKafka: a broker lists Metadata, a KRaft controller's
// listener the quorum's requests and no Metadata, a ZooKeeper-mode broker
// LeaderAndIsr too.
func TestIdentifyKafka(t *testing.T) {
	for _, tc := range []struct {
		file   string
		kind   Kind
		zkMode bool
	}{
		{"apiversions-kafka-4.4.0-broker.bin", KafkaBroker, false},
		{"apiversions-kafka-4.4.0-controller.bin", KafkaController, false},
		{"apiversions-kafka-3.9.2-zkbroker.bin", KafkaBroker, true},
	} {
		p := identify(t, replayKafka(t, "testdata/"+tc.file), Options{})
		if p.Kind != tc.kind || p.ZooKeeperMode != tc.zkMode {
			t.Errorf("%s: %s, ZooKeeper mode %v (%s)", tc.file, p.What(), p.ZooKeeperMode, p.Evidence)
		}
	}
	// Over TLS, with the client's TLS settings: the plaintext question is
	// closed unanswered (a Go TLS server sends no alert), the TLS one
	// answered.
	addr, cfg := replayKafkaTLS(t, "testdata/apiversions-kafka-4.4.0-controller.bin")
	if p := identify(t, addr, Options{TLS: cfg}); p.Kind != KafkaController || !strings.HasPrefix(p.Evidence, "over TLS") {
		t.Errorf("a controller behind TLS: %s (%s)", p.What(), p.Evidence)
	}
}

// TestIdentifyZooKeeper: ktopo's embedded ZooKeeper (checked against
// Apache ZooKeeper by its conformance suite) answers the session request;
// the session the question opened is closed at once. A server that
// closes session requests (no quorum) is told by srvr, answered or not
// whitelisted.
func TestIdentifyZooKeeper(t *testing.T) {
	srv, err := zkserver.Start(zkserver.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	p := identify(t, srv.Addr(), Options{})
	if p.Kind != ZooKeeper || !strings.Contains(p.Evidence, "session request") {
		t.Errorf("the embedded ZooKeeper: %s (%s)", p.What(), p.Evidence)
	}
	for end := time.Now().Add(10 * time.Second); srv.Stats().Sessions != 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("the probe's session is still open: %d sessions", srv.Stats().Sessions)
		}
	}

	// srvr on a server that closes session requests: ZooKeeper's words
	// (ZooKeeper 3.8's NIOServerCnxn and its commands).
	for _, answer := range []string{
		"This ZooKeeper instance is not currently serving requests\n",
		"srvr is not executed because it is not in the whitelist.\n",
	} {
		addr := nettest.Serve(t, func(c net.Conn) {
			defer c.Close()
			b := make([]byte, 64)
			if n, _ := c.Read(b); string(b[:n]) == "srvr" {
				_, _ = c.Write([]byte(answer))
			}
		})
		if p := identify(t, addr, Options{}); p.Kind != ZooKeeper || !strings.Contains(p.Evidence, "srvr") {
			t.Errorf("srvr answered %q: %s (%s)", answer, p.What(), p.Evidence)
		}
	}
}

// TestIdentifyOthers: an HTTP server (which waits for a line, then
// answers 400), a listener that wants TLS (answering a plaintext request
// with an alert), one that accepts and never answers, one that closes at
// once, one that says something else, a port nobody listens on.
func TestIdentifyOthers(t *testing.T) {
	web := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(web.Close)
	// Kafka's SSL listener answers a plaintext request with a fatal
	// handshake_failure alert of TLS 1.2 (what Kafka 4.4 sends; cmd's
	// TestRealKRaftSecurity asks the real one).
	tlsAddr := nettest.Serve(t, func(c net.Conn) {
		defer c.Close()
		_, _ = c.Read(make([]byte, 512))
		_, _ = c.Write([]byte{21, 3, 3, 0, 2, 2, 40})
	})
	// An SSH server speaks first: bytes of no protocol asked about.
	ssh := nettest.Serve(t, func(c net.Conn) {
		defer c.Close()
		_, _ = c.Write([]byte("SSH-2.0-OpenSSH_9.6\r\n"))
		_, _ = c.Read(make([]byte, 512))
	})
	silent := nettest.Silent(t)
	closing := nettest.Closing(t)
	gone, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	goneAddr := gone.Addr().String()
	gone.Close()
	for _, tc := range []struct {
		addr     string
		kind     Kind
		evidence string
	}{
		{web.Listener.Addr().String(), HTTP, `"HTTP/1.1 400 Bad Request"`},
		{tlsAddr, TLS, "TLS alert"},
		{silent, Silent, "answered nothing"},
		{ssh, Unknown, `bytes of no protocol ktopo knows ("SSH-2.0-OpenSSH_`},
		{closing, Closed, "closed it unanswered"},
		{goneAddr, Unreachable, "connection refused"},
	} {
		p := identify(t, tc.addr, Options{Wait: 500 * time.Millisecond})
		if p.Kind != tc.kind || !strings.Contains(p.Evidence, tc.evidence) {
			t.Errorf("%s: %s (%s), want %s", tc.addr, p.What(), p.Evidence, Peer{Kind: tc.kind}.What())
		}
	}
}
