package kafkawatch

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ktopo/ktopo/cluster"
)

// TestIsDialError: a refused connection is a dial error (the request goes
// to another broker); a dial that timed out, a request's own deadline and
// other errors are not.
func TestIsDialError(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	_, refused := net.Dial("tcp", addr)
	if refused == nil {
		t.Skip("the closed port took the connection")
	}
	if !isDialError(fmt.Errorf("unable to dial: %w", refused)) {
		t.Errorf("refused connection %v: not a dial error", refused)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Nanosecond)
	defer cancel()
	<-ctx.Done()
	_, timedOut := (&net.Dialer{}).DialContext(ctx, "tcp", addr)
	for _, err := range []error{timedOut, context.DeadlineExceeded, fmt.Errorf("broker said no")} {
		if err != nil && isDialError(err) {
			t.Errorf("%v: a dial error", err)
		}
	}
}

// TestExplain: the TLS failures whose Go wording does not say what to do
// get a hint naming the properties to fix; other errors pass unchanged.
func TestExplain(t *testing.T) {
	refused := errors.New("ApiVersions: remote error: tls: bad certificate")
	noCert := Security{Protocol: "SSL", TLS: &tls.Config{}}
	withCert := Security{Protocol: "SSL", TLS: &tls.Config{Certificates: []tls.Certificate{{}}}}
	for _, tc := range []struct {
		s    Security
		err  error
		want string
	}{
		{noCert, refused, "wants a client certificate (ssl.client.auth=required): give one in --command-config"},
		{withCert, refused, "did not accept the client certificate"},
		{noCert, errors.New("tls: first record does not look like a TLS handshake"), "the listener is not an SSL one"},
		{Security{}, refused, ""},
		{Security{}, fmt.Errorf("ApiVersions: %w", io.ErrUnexpectedEOF), "the broker closed the connection, as a listener that wants TLS does"},
		{Security{}, errors.New("ApiVersions: invalid large response size 352518912 > limit 268435456; the first three bytes received appear to be a tls alert record for TLS v1.2; is this a plaintext connection speaking to a tls endpoint?"),
			"the broker answered with a TLS alert, as a listener that wants TLS does"},
		{noCert, io.ErrUnexpectedEOF, ""},
		{noCert, errors.New("connection refused"), ""},
	} {
		got := tc.s.Explain(tc.err)
		if !errors.Is(got, tc.err) {
			t.Errorf("%v: the error is lost: %v", tc.err, got)
		}
		if tc.want == "" && got.Error() != tc.err.Error() || !strings.Contains(got.Error(), tc.want) {
			t.Errorf("%+v %v: %v, want %q", tc.s.TLS != nil, tc.err, got, tc.want)
		}
	}
	if (Security{}).Explain(nil) != nil {
		t.Error("nil explained")
	}
}

// TestPlaintextOnTLSListener: a broker whose listener wants TLS answers a
// plaintext client's first request with a TLS alert and closes the
// connection (what Kafka 4.4 does). ktopo says so at once, with what to
// fix, on the one connection: read as a response's size, the alert's
// bytes are 336 MiB, which the client must not wait for and retry.
func TestPlaintextOnTLSListener(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var conns atomic.Int32
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			conns.Add(1)
			go func() {
				defer c.Close()
				_, _ = c.Read(make([]byte, 512))
				// A fatal handshake_failure alert of TLS 1.2.
				_, _ = c.Write([]byte{21, 3, 3, 0, 2, 2, 40})
			}()
		}
	}()
	d := Dial{Bootstrap: []string{ln.Addr().String()}, RequestTimeout: 5 * time.Second}
	check := func(what string, err error) {
		t.Helper()
		if err == nil || !strings.Contains(err.Error(), "the broker answered with a TLS alert") ||
			!strings.Contains(err.Error(), "check the listener's security.protocol (SSL, SASL_SSL) and give it in --command-config") {
			t.Errorf("%s, plaintext on a TLS listener: %v", what, err)
		}
		if n := conns.Swap(0); n != 1 {
			t.Errorf("%s: %d connections, want 1 (the alert is an answer, not a failure to retry)", what, n)
		}
	}
	// The one-shot commands' load.
	_, err = Load(context.Background(), d, cluster.ModelOptions{}, nil)
	check("Load", err)
	// The TUI's check before it takes the screen.
	cl, err := NewClient(d)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	check("Check", Check(context.Background(), cl, d))
}
