package kafkawatch

import (
	"context"
	"fmt"
	"net"
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
