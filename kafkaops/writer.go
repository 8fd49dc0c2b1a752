// Package kafkaops writes ktopo's operations to a KRaft cluster over the
// Kafka protocol: the Kafka side of the write port (clusterops.Writer).
// Each operation is the Admin API request Kafka's own tools send for it,
// built from the plan the preview showed, so that what was previewed is
// what is sent: a topic is created with the preview's placement as a
// manual assignment (CreateTopics), new partitions likewise
// (CreatePartitions), configs change one key at a time
// (IncrementalAlterConfigs), reassignments start and are cancelled with
// AlterPartitionReassignments after their throttles, leaders are elected
// with ElectLeaders, topics deleted with DeleteTopics, and a broker is
// cordoned (KIP-1066) by its cordoned.log.dirs config. A request that
// has validateOnly is sent so first, then for real.
//
// The requests are franz-go's kmsg messages, sent with the client's
// Request, which routes each to the broker that serves it (the
// controller's, a broker's own configs to that broker); the lines that
// describe a write are drawn from the very messages that are sent.
// Refusals are Kafka's own: an error code's name with the broker's
// message (*Error, around the cluster.KafkaError of the code: errors.Is(err,
// kerr.X) tests for a code), an authorization failure as "no access" with
// the ACL Kafka checks.
//
// Like clusterops it imports no Bubble Tea.
package kafkaops

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/clusterops"
)

// DefaultTimeout is the requests' timeoutMs when none is given: how long
// the controller may take before it answers REQUEST_TIMED_OUT (Kafka's
// tools default to 30 s too).
const DefaultTimeout = 30 * time.Second

// Requester sends one Admin API request and returns its response: a
// franz-go client (kgo.Client.Request routes each request to the broker
// that serves it), or a test's stand-in for a cluster
// (internal/testkit/kraftfake, checked against real Kafka).
type Requester interface {
	Request(ctx context.Context, req kmsg.Request) (kmsg.Response, error)
}

var _ Requester = (*kgo.Client)(nil)

// Writer is the clusterops.Writer of a KRaft cluster: Kafka's Admin API
// requests through a franz-go client.
type Writer struct {
	cl      Requester
	timeout time.Duration
	// onBrokerConfigs, when set, is called once a broker's configs (a
	// cordon) were changed (OnBrokerConfigs).
	onBrokerConfigs func()
}

// OnBrokerConfigs has fn called each time the writer has changed a
// broker's (or the brokers' default) configs, a cordon included: the
// poller that reads the same cluster then reads the brokers' parts again
// at once (kafkawatch.Poller.RefreshBrokers).
func (w *Writer) OnBrokerConfigs(fn func()) { w.onBrokerConfigs = fn }

var (
	_ clusterops.Writer          = (*Writer)(nil)
	_ clusterops.Additive        = (*Writer)(nil)
	_ clusterops.Canceller       = (*Writer)(nil)
	_ clusterops.Cordoner        = (*Writer)(nil)
	_ clusterops.ConfigDescriber = (*Writer)(nil)
)

// New writes through cl (the poller's client will do: kafkawatch.NewClient
// makes it), asking the controller to answer within timeout (0:
// DefaultTimeout).
func New(cl Requester, timeout time.Duration) *Writer {
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	return &Writer{cl: cl, timeout: timeout}
}

// Backend is Kafka.
func (w *Writer) Backend() cluster.Backend { return cluster.ViaKafka }

// Words are clusterops.KafkaWords. No ZooKeeper to KRaft migration guards
// a write over the Kafka protocol (the controller is the KRaft quorum's,
// whatever ZooKeeper says): the writer is not Guarded.
func (w *Writer) Words() *clusterops.Words { return &clusterops.KafkaWords }

func (w *Writer) timeoutMs() int32 { return int32(w.timeout / time.Millisecond) }

// send issues req and returns its response as R.
func send[R kmsg.Response](ctx context.Context, cl Requester, req kmsg.Request) (R, error) {
	var zero R
	resp, err := cl.Request(ctx, req)
	if err != nil {
		return zero, &SendError{API: apiName(req), Err: err}
	}
	r, ok := resp.(R)
	if !ok {
		return zero, fmt.Errorf("%s: unexpected response %T", apiName(req), resp)
	}
	return r, nil
}

// SendError is a request that got no answer from Kafka (no broker
// reachable, the connection lost, the deadline passed): whether it was
// applied is not known.
type SendError struct {
	API string
	Err error
}

func (e *SendError) Error() string { return e.API + ": no answer from Kafka: " + e.Err.Error() }

func (e *SendError) Unwrap() error { return e.Err }

// MaybeWritten reports whether a failed write may have been applied all
// the same: a request that got no answer (*SendError), or that the
// controller answered REQUEST_TIMED_OUT (it goes on with it). Any other
// answer of Kafka's is a refusal: nothing was written.
func (w *Writer) MaybeWritten(err error) bool {
	var se *SendError
	if errors.As(err, &se) {
		return true
	}
	return errors.Is(err, kerr.RequestTimedOut)
}

// apiName is a request's API as Kafka names it (CreateTopics).
func apiName(req kmsg.Request) string {
	return kmsg.NameForKey(req.Key())
}

// validated sends req twice, validateOnly first when apply, only so for a
// dry run (Validate), not at all to describe: setValidate flips its
// field, check reads a response's refusals.
func validated[R kmsg.Response](ctx context.Context, w *Writer, m clusterops.Mode, req kmsg.Request,
	setValidate func(bool), check func(R) error) error {
	if m == clusterops.Describe {
		return nil
	}
	setValidate(true)
	resp, err := send[R](ctx, w.cl, req)
	if err == nil {
		err = check(resp)
	}
	if err != nil || m == clusterops.Validate {
		return err
	}
	setValidate(false)
	resp, err = send[R](ctx, w.cl, req)
	if err != nil {
		return err
	}
	return check(resp)
}

// writes is one request's Writes.
func writes(title string, lines []string) clusterops.Writes {
	return clusterops.Writes{Backend: cluster.ViaKafka, Steps: []clusterops.WriteStep{{Title: title, Lines: lines}}}
}
