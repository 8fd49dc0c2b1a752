package kafkawatch

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/internal/testkit/nettest"
	"github.com/ktopo/ktopo/zkserver"
)

// TestDiagnoseLoad: the one-shot read (Load, then Diagnose as the
// commands do) and the TUI's Check, given a ZooKeeper server (ktopo's
// embedded one, which answers ZooKeeper's session request as Apache
// ZooKeeper does), a port that accepts and never answers, one that closes
// at once: each error names the address, what it is and what to give
// instead.
func TestDiagnoseLoad(t *testing.T) {
	srv, err := zkserver.Start(zkserver.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	silent := nettest.Silent(t)
	closing := nettest.Closing(t)
	for _, tc := range []struct {
		addr string
		want []string
	}{
		{srv.Addr(), []string{srv.Addr() + " is a ZooKeeper server (it answered a ZooKeeper session request), not a Kafka broker",
			"give --zookeeper " + srv.Addr() + "[/chroot] instead"}},
		{silent, []string{silent + " accepted the connection but did not answer ApiVersions, Kafka's first request, within 1s"}},
		{closing, []string{closing + " accepted the connection and closed it unanswered", "it may want TLS"}},
	} {
		d := Dial{Bootstrap: []string{tc.addr}, RequestTimeout: time.Second}
		_, err := Load(context.Background(), d, cluster.ModelOptions{}, nil)
		err = d.Diagnose(context.Background(), err)
		cl, cerr := NewClient(d)
		if cerr != nil {
			t.Fatal(cerr)
		}
		checked := Check(context.Background(), cl, d)
		cl.Close()
		for what, err := range map[string]error{"Load": err, "Check": checked} {
			t.Logf("%s %s: %v", what, tc.addr, err)
			var pe *PeerError
			if !errors.As(err, &pe) {
				t.Errorf("%s %s: %v, not explained", what, tc.addr, err)
				continue
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%s %s: %v\nwant %q", what, tc.addr, err, w)
				}
			}
		}
	}
}

// TestDiagnoseLeavesAnswers: what a broker answered, a refused login, a
// refused connection (which names its address) and an interruption are
// not for the peers to explain: nothing is asked, the error stays.
func TestDiagnoseLeavesAnswers(t *testing.T) {
	asked := false
	addr := nettest.Serve(t, func(c net.Conn) { asked = true; c.Close() })
	d := Dial{Bootstrap: []string{addr}}
	for _, err := range []error{
		codeError(kerr.TopicAuthorizationFailed.Code, nil),
		kerr.SaslAuthenticationFailed,
		&net.OpError{Op: "dial", Net: "tcp", Err: errors.New("connect: connection refused")},
		context.Canceled,
	} {
		if got := d.Diagnose(context.Background(), err); !errors.Is(got, err) || got.Error() != err.Error() {
			t.Errorf("%v became %v", err, got)
		}
	}
	if asked {
		t.Error("a server was asked")
	}
}

// TestDiagnoseQuorum: a ZooKeeper server given as a controller
// (--bootstrap-controller) is named so, with the flag it belongs to.
func TestDiagnoseQuorum(t *testing.T) {
	srv, err := zkserver.Start(zkserver.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	d := Dial{RequestTimeout: time.Second}
	_, err = Quorum(context.Background(), d, []string{srv.Addr()})
	err = d.DiagnoseQuorum(context.Background(), err)
	t.Log(err)
	if err == nil || !strings.HasPrefix(err.Error(), "DescribeQuorum: "+srv.Addr()+" is a ZooKeeper server") ||
		!strings.Contains(err.Error(), "not a KRaft controller: ZooKeeper goes to --zookeeper") {
		t.Errorf("DescribeQuorum of a ZooKeeper server: %v", err)
	}
}

// TestParseBootstrap: bootstrap lists as Kafka's clients read
// bootstrap.servers (Utils.getHost, getPort, ClientUtils).
func TestParseBootstrap(t *testing.T) {
	for _, tc := range []struct{ in, want, err string }{
		{"kafka1:9092, kafka2:9092", "kafka1:9092,kafka2:9092", ""},
		{"PLAINTEXT://kafka1:9092", "kafka1:9092", ""},
		{"http://127.0.0.1:23621", "127.0.0.1:23621", ""},
		{"[::1]:9092", "[::1]:9092", ""},
		{"127.0.0.1", "", "Invalid url in bootstrap.servers: 127.0.0.1 (want host:port"},
		{"kafka1:9092,kafka2", "", "Invalid url in bootstrap.servers: kafka2"},
		{"kafka1:99999", "", "port out of range: 99999"},
		{"kafka 1:9092", "", "Invalid url in bootstrap.servers: kafka 1:9092"},
	} {
		got, err := ParseBootstrap(tc.in)
		switch {
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%q: %v, %v; want an error with %q", tc.in, got, err, tc.err)
		case tc.err == "" && (err != nil || strings.Join(got, ",") != tc.want):
			t.Errorf("%q: %v, %v; want %s", tc.in, got, err, tc.want)
		}
	}
}
