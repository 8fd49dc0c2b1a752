package kafkawatch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/ktopo/ktopo/cluster"
)

// DefaultRequestTimeout bounds a poll's requests (and connecting).
const DefaultRequestTimeout = 10 * time.Second

// Dial describes how to reach a cluster.
type Dial struct {
	// Bootstrap are the brokers to start from (host:port).
	Bootstrap []string
	Security  Security
	// RequestTimeout bounds each request and a poll (default
	// DefaultRequestTimeout, or request.timeout.ms of the properties).
	RequestTimeout time.Duration
	// Logger receives franz-go's warnings (nil: none).
	Logger *log.Logger
}

func (d Dial) timeout() time.Duration {
	switch {
	case d.RequestTimeout > 0:
		return d.RequestTimeout
	case d.Security.RequestTimeout > 0:
		return d.Security.RequestTimeout
	}
	return DefaultRequestTimeout
}

// NewClient makes a franz-go client for d. It connects lazily: the first
// request finds out whether the brokers answer. extra options come last
// (they win).
func NewClient(d Dial, extra ...kgo.Opt) (*kgo.Client, error) {
	if len(d.Bootstrap) == 0 {
		return nil, errors.New("no bootstrap server given")
	}
	id := d.Security.ClientID
	if id == "" {
		id = "ktopo"
	}
	t := d.timeout()
	opts := []kgo.Opt{
		kgo.SeedBrokers(d.Bootstrap...),
		kgo.ClientID(id),
		kgo.DialTimeout(min(t, 10*time.Second)),
		// A poll that cannot be served in time is reported, not retried
		// for half a minute: the next poll tries again.
		kgo.RetryTimeout(t),
		kgo.RequestTimeoutOverhead(t),
		kgo.BrokerMaxReadBytes(maxReadBytes),
	}
	if d.Security.TLS != nil {
		opts = append(opts, kgo.DialTLSConfig(d.Security.TLS.Clone()))
	}
	if d.Security.SASL != nil {
		opts = append(opts, kgo.SASL(d.Security.SASL))
	}
	w := io.Discard
	if d.Logger != nil {
		w = d.Logger.Writer()
	}
	opts = append(opts, kgo.WithLogger(kgo.BasicLogger(w, kgo.LogLevelWarn, func() string { return "kafka: " })))
	return kgo.NewClient(append(opts, extra...)...)
}

// maxReadBytes bounds a response. Large clusters answer Metadata with
// tens of megabytes (franz-go's default, 100 MiB, is too tight for the
// largest), but the bound must stay below 0x15030000 (336 MiB): a TLS
// listener answers a plaintext request with a TLS alert, whose first bytes
// (21, then the version 3.x) read as a size of 0x1503xxxx. Under the bound,
// franz-go names the alert at once; over it, the client waits for 336 MiB
// that never come, and retries the connection the broker then closes
// until the request times out.
const maxReadBytes = 256 << 20

// dialRetries is how many more times a request goes to another broker
// after the one franz-go chose did not answer the dial.
const dialRetries = 4

// request issues req with a deadline and maps the errors. A broker that
// does not take the connection (stopped, or its address gone) is one of
// several: the request goes to the next one franz-go knows (franz-go
// itself gives up on a Metadata request whose broker refused the dial,
// even with live brokers beside it). The error names the request.
func request[R kmsg.Response](ctx context.Context, cl *kgo.Client, req kmsg.Request) (R, error) {
	var zero R
	resp, err := cl.Request(ctx, req)
	for try := 0; err != nil && isDialError(err) && try < dialRetries && ctx.Err() == nil; try++ {
		resp, err = cl.Request(ctx, req)
	}
	if err != nil {
		return zero, fmt.Errorf("%s: %w", kmsg.NameForKey(req.Key()), err)
	}
	r, ok := resp.(R)
	if !ok {
		return zero, fmt.Errorf("unexpected response %T", resp)
	}
	return r, nil
}

// isDialError reports whether err is a refused or failed connection to a
// broker (not a timeout of the request itself).
func isDialError(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "dial" && !op.Timeout()
}

// codeError is an error code in a response and its message as Kafka's
// error (cluster.KafkaErrorForCode), nil for code 0.
func codeError(code int16, msg *string) error {
	if ke := cluster.KafkaErrorForCode(code, msg); ke != nil {
		return ke
	}
	return nil
}

// Check finds out whether the brokers answer and accept the session's
// credentials (one ApiVersions request through cl, made for d), with what
// to do about a TLS failure (Security.Explain) or an address that is no
// Kafka broker (Diagnose).
func Check(ctx context.Context, cl *kgo.Client, d Dial) error {
	_, _, err := fetchVersions(ctx, cl)
	return d.Diagnose(ctx, d.Security.Explain(err))
}
