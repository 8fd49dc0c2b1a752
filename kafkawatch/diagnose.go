package kafkawatch

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/ktopo/ktopo/internal/peer"
)

// diagnoseWait bounds a diagnosis: every address is asked at once, each
// question waiting at most peer.DefaultWait.
const diagnoseWait = 8 * time.Second

// PeerError is a connection that failed, explained by what answers at the
// addresses it was made to: what each one is and what to give instead.
// Unwrap returns the failure.
type PeerError struct {
	Peers []peer.Peer
	msg   string
	Err   error
}

func (e *PeerError) Error() string { return e.msg }

// Unwrap returns the failure the peers explain.
func (e *PeerError) Unwrap() error { return e.Err }

// Diagnose explains a failed connection to d's brokers (an error of Load,
// Check or a request) by what answers at d.Bootstrap, once the normal
// path failed: a ZooKeeper server, a KRaft controller's listener, an HTTP
// server, a listener that wants TLS or SASL, one that closes connections
// or never answers. The error then names each address, what it is and the
// flag it belongs to. Errors that are already answers (Kafka's error codes,
// a refused login, a certificate the client does not trust) come back as
// they are, and so do failures the peers do not explain; a timeout then
// names the brokers waited for.
func (d Dial) Diagnose(ctx context.Context, err error) error {
	return diagnose(ctx, d.Security, flagBootstrapServer, d.Bootstrap, d.timeout(), err)
}

// The flags whose addresses a diagnosis judges.
const (
	flagBootstrapServer     = "--bootstrap-server"
	flagBootstrapController = "--bootstrap-controller"
)

func diagnose(ctx context.Context, sec Security, flag string, addrs []string, waited time.Duration, err error) error {
	if !worthAsking(err, sec) || len(addrs) == 0 {
		return err
	}
	if ctx.Err() != nil && !errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return err // interrupted
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), diagnoseWait)
	defer cancel()
	// A question waits no longer than half the request timeout: a
	// server that answers at all answers it in milliseconds.
	opts := peer.Options{TLS: sec.TLS, Wait: min(peer.DefaultWait, max(waited/2, 200*time.Millisecond))}
	peers := make([]peer.Peer, len(addrs))
	var wg sync.WaitGroup
	for i, addr := range addrs {
		wg.Go(func() { peers[i] = peer.Identify(ctx, addr, opts) })
	}
	wg.Wait()
	timedOut := isTimeout(err)
	var says, unreachable []string
	for _, p := range peers {
		if p.Kind == peer.Unreachable {
			unreachable = append(unreachable, p.Addr+": "+p.Evidence)
		} else if s := judge(p, sec, flag, err, timedOut, waited); s != "" {
			says = append(says, s)
		}
	}
	if len(says) == 0 {
		if timedOut {
			msg := fmt.Sprintf("%v (waited %s for %s)", err, waited, strings.Join(addrs, ","))
			return &PeerError{Peers: peers, msg: msg, Err: err}
		}
		return err
	}
	// The addresses that took no connection are named beside the others.
	return &PeerError{Peers: peers, msg: strings.Join(append(says, unreachable...), "; "), Err: err}
}

// worthAsking reports a failure that the peers may explain: not an answer
// of a broker (an error code, a refused login, a certificate not trusted
// or not accepted), not a connection refused (which names its address),
// not a TLS alert on a plaintext connection (Explain says what to do).
func worthAsking(err error, sec Security) bool {
	if err == nil || errors.Is(err, context.Canceled) {
		return false
	}
	var ce *kerr.Error // an error code a broker answered with (a *cluster.KafkaError unwraps to it)
	var ue x509.UnknownAuthorityError
	var he x509.HostnameError
	var ie x509.CertificateInvalidError
	if errors.As(err, &ce) || errors.As(err, &ue) || errors.As(err, &he) || errors.As(err, &ie) {
		return false
	}
	if isDialError(err) {
		return false
	}
	msg := err.Error()
	switch {
	case sec.TLS == nil && strings.Contains(msg, "appear to be a tls alert record"):
		return false
	case sec.TLS != nil && strings.Contains(msg, "remote error: tls:"):
		return false // the listener speaks TLS and refused the handshake
	}
	return true
}

// isTimeout reports a request or a dial that ran out of time.
func isTimeout(err error) bool {
	var ne net.Error
	return errors.Is(err, context.DeadlineExceeded) || errors.As(err, &ne) && ne.Timeout()
}

// closedAfterRequest reports franz-go's guess for a connection closed at
// the first request after ApiVersions (a listener that wants SASL).
func closedAfterRequest(err error) bool {
	return strings.Contains(err.Error(), "closed the connection immediately after a request was issued")
}

// judge says what is wrong with p as an address of flag, and what to give
// instead ("" when it is what the flag wants and explains nothing).
func judge(p peer.Peer, sec Security, flag string, err error, timedOut bool, waited time.Duration) string {
	it := p.Addr + " is " + p.What() + " (" + p.Evidence + ")"
	wants := "--bootstrap-server takes the brokers' listeners"
	if flag == flagBootstrapController {
		wants = "--bootstrap-controller takes the KRaft controllers' listeners (controller.listener.names, CONTROLLER)"
	}
	switch p.Kind {
	case peer.ZooKeeper:
		if flag == flagBootstrapController {
			return it + ", not a KRaft controller: ZooKeeper goes to --zookeeper; " + wants
		}
		return it + ", not a Kafka broker: for a cluster in ZooKeeper mode give --zookeeper " + p.Addr + "[/chroot] instead (--bootstrap-server takes a KRaft cluster's brokers)"
	case peer.KafkaController:
		if flag == flagBootstrapController {
			return ""
		}
		return it + ": give --bootstrap-server the brokers' listeners (Kafka's tools and ktopo migration take controllers with --bootstrap-controller)"
	case peer.KafkaBroker:
		switch {
		case sec.TLS != nil && !strings.HasPrefix(p.Evidence, "over TLS"):
			return p.Addr + " answers Kafka's ApiVersions without TLS: the listener is not an SSL one: check security.protocol in --command-config against the broker's listener (PLAINTEXT, SASL_PLAINTEXT)"
		case flag == flagBootstrapServer && sec.SASL == nil && closedAfterRequest(err):
			return p.Addr + " answers Kafka's ApiVersions but closed the connection at the next request, as a listener that wants SASL does with a client without it: give security.protocol (SASL_PLAINTEXT, SASL_SSL), sasl.mechanism and sasl.jaas.config in --command-config"
		}
		return ""
	case peer.HTTP, peer.Unknown:
		return it + ", not a Kafka listener: " + wants
	case peer.TLS:
		if sec.TLS == nil {
			return p.Addr + " answered Kafka's ApiVersions with a TLS alert, " + plaintextOnTLS
		}
		return ""
	case peer.Silent:
		if timedOut {
			return fmt.Sprintf("%s accepted the connection but did not answer ApiVersions, Kafka's first request, within %s: is it a Kafka listener (or one still starting)? %s", p.Addr, waited, wants)
		}
		return it + ": is it a Kafka listener? " + wants
	case peer.Closed:
		hint := "is it a Kafka listener? " + wants
		if sec.TLS == nil {
			hint = "if it is a Kafka listener, it may want TLS: check the listener's security.protocol (SSL, SASL_SSL) and give it in --command-config"
		}
		return p.Addr + " " + strings.TrimPrefix(p.Evidence, "it ") + ": " + hint
	}
	return ""
}
