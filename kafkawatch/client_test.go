package kafkawatch

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"testing"
	"time"
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
