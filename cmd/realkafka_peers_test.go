package cmd

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/internal/testkit/kafkatest"
	"github.com/ktopo/ktopo/internal/testkit/nettest"
	"github.com/ktopo/ktopo/internal/testkit/zktest"
)

// TestRealWrongPeer: an address given to the wrong flag is named for what
// it is, from what it answers, with the flag it belongs to: Apache
// ZooKeeper (the package's) to --bootstrap-server, a Kafka 4.4 broker's
// and a KRaft controller's listener to --zookeeper, the controller's to
// --bootstrap-server, an HTTP server to either; a port that closes every
// connection or never answers is named with what was waited for, by
// every one-shot command; malformed addresses are refused in Kafka's and
// ZooKeeper's terms, and a scheme before a broker is dropped as Kafka's
// clients drop it.
func TestRealWrongPeer(t *testing.T) {
	c := kafkatest.SharedKRaft(t, kafkatest.Kafka44)
	zkAddr := zktest.Addr(t)
	broker, controller := c.Brokers()[0].Addr(), c.Controllers()[0].ControllerAddr()
	web := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(web.Close)
	webAddr := web.Listener.Addr().String()
	closing := nettest.Closing(t)
	silent := nettest.Silent(t)
	// A generous deadline: the answers, not the deadline, end these.
	const wait = "--request-timeout=60s"
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"topics", "list", "--bootstrap-server", zkAddr},
			[]string{zkAddr + " is a ZooKeeper server (it answered a ZooKeeper session request), not a Kafka broker: for a cluster in ZooKeeper mode give --zookeeper " + zkAddr + "[/chroot] instead"}},
		{[]string{"topics", "list", "--bootstrap-server", controller},
			[]string{controller + " is a KRaft controller's listener (it answered Kafka's ApiVersions with the quorum's requests, DescribeQuorum and Vote, and no Metadata): give --bootstrap-server the brokers' listeners",
				"take controllers with --bootstrap-controller"}},
		{[]string{"topics", "list", wait, "--zookeeper", broker},
			[]string{broker + " is a Kafka broker's listener (it answered Kafka's ApiVersions, listing Metadata), not a ZooKeeper server: for a KRaft cluster give --bootstrap-server " + broker + " instead"}},
		{[]string{"brokers", wait, "--zookeeper", controller},
			[]string{controller + " is a KRaft controller's listener", "not a ZooKeeper server: for a KRaft cluster give --bootstrap-server its brokers' listeners"}},
		// (Go's HTTP server waits for a line: the normal path gives up
		// at its deadline, kept short.)
		{[]string{"topics", "list", "--request-timeout=2s", "--bootstrap-server", webAddr},
			[]string{webAddr + ` is an HTTP server (it answered "HTTP/1.1 400 Bad Request"), not a Kafka listener: --bootstrap-server takes the brokers' listeners`}},
		{[]string{"topics", "list", wait, "--session-timeout=3s", "--zookeeper", webAddr},
			[]string{webAddr + ` is an HTTP server (it answered "HTTP/1.1 400 Bad Request"), not a ZooKeeper server: --zookeeper takes ZooKeeper's client port`}},
		{[]string{"brokers", "--bootstrap-server", closing},
			[]string{closing + " accepted the connection and closed it unanswered, to Kafka's ApiVersions as to ZooKeeper's session request: if it is a Kafka listener, it may want TLS"}},
		{[]string{"topics", "list", "--zookeeper", "http://" + zkAddr},
			[]string{`connect string "http://` + zkAddr + `" starts with a URL scheme (http://): a ZooKeeper connect string is host:port[,host:port…][/chroot], without one: ` + zkAddr}},
		{[]string{"topics", "list", "--bootstrap-server", "127.0.0.1"},
			[]string{"--bootstrap-server: Invalid url in bootstrap.servers: 127.0.0.1 (want host:port"}},
		{[]string{"migration", "--bootstrap-server", broker},
			[]string{"migration reads the cluster from its ZooKeeper: give --zookeeper host:port[/chroot]", "--bootstrap-controller (the KRaft controllers) and --bootstrap-server (the brokers) add the KRaft side"}},
	} {
		code, out, errOut := runCLI(t, tc.args...)
		t.Logf("ktopo %s: %s", strings.Join(tc.args, " "), strings.TrimSpace(errOut))
		for _, w := range tc.want {
			if code == 0 || !strings.Contains(errOut, w) {
				t.Errorf("ktopo %s: exit %d\n%s%s\nwant %q", strings.Join(tc.args, " "), code, out, errOut, w)
			}
		}
	}
	// Kafka's clients drop a scheme before host:port (PLAINTEXT://, as
	// listeners are written, or http://): so does --bootstrap-server.
	for _, scheme := range []string{"PLAINTEXT://", "http://"} {
		runOK(t, "topics", "list", "--bootstrap-server", scheme+broker)
	}
	// A port that accepts and never answers: every one-shot read names it
	// and what it waited for.
	for _, args := range [][]string{{"brokers"}, {"topics", "describe"}, {"topics", "list"}, {"reassign", "--list"}} {
		args = append(args, "--bootstrap-server", silent, "--request-timeout", "1s")
		code, out, errOut := runCLI(t, args...)
		want := silent + " accepted the connection but did not answer ApiVersions, Kafka's first request, within 1s"
		if code == 0 || !strings.Contains(errOut, want) {
			t.Errorf("ktopo %s: exit %d\n%s%s\nwant %q", strings.Join(args, " "), code, out, errOut, want)
		}
	}
}

// TestRealMigrationOtherCluster: ktopo migration refuses a KRaft side of
// another cluster: the controllers (DescribeCluster on their CONTROLLER
// listener) and the brokers (Metadata) of a Kafka 4.4 KRaft cluster
// against the ZooKeeper of a Kafka 3.9 cluster in ZooKeeper mode, naming
// both cluster ids; it warns where ZooKeeper holds no /cluster/id to
// compare with. (The matching case, a 3.9.2 migration's own controllers
// and brokers, is TestRealKafkaMigration's.)
func TestRealMigrationOtherCluster(t *testing.T) {
	zkc := kafkatest.Shared(t, kafkatest.Kafka39)
	kc := kafkatest.SharedKRaft(t, kafkatest.Kafka44)
	conn := connectTest(t, zkc.Connect())
	data, _, err := conn.Get(cluster.ClusterIDPath)
	if err != nil {
		t.Fatal(err)
	}
	info, err := cluster.DecodeClusterID(data)
	if err != nil || info.ID == "" || info.ID == kc.ClusterID() {
		t.Fatalf("ZooKeeper's cluster id %q (%v), the KRaft cluster's %q", info.ID, err, kc.ClusterID())
	}
	for _, side := range []struct{ flag, addrs string }{
		{"--bootstrap-controller", kc.ControllerBootstrap()},
		{"--bootstrap-server", kc.Bootstrap()},
	} {
		for _, watch := range []bool{false, true} {
			args := []string{"migration", "--zookeeper", zkc.Connect(), side.flag, side.addrs}
			if watch {
				args = append(args, "--watch")
			}
			code, out, errOut := runCLI(t, args...)
			t.Logf("ktopo %s: %s", strings.Join(args, " "), strings.TrimSpace(errOut))
			want := " belongs to cluster " + kc.ClusterID() + ", but ZooKeeper " + zkc.Connect() + " holds cluster " + info.ID + " (/cluster/id): these are two clusters; give " + side.flag
			if code == 0 || !strings.HasPrefix(errOut, "Error: "+side.flag+" ") || !strings.Contains(errOut, want) {
				t.Errorf("ktopo %s: exit %d\n%s%s\nwant %q", strings.Join(args, " "), code, out, errOut, want)
			}
		}
	}
	// A broker of that cluster, in ZooKeeper mode, given to --zookeeper:
	// sent to its ZooKeeper.
	zkBroker := zkc.Brokers()[0].Addr()
	code, out, errOut := runCLI(t, "topics", "list", "--request-timeout=60s", "--zookeeper", zkBroker)
	if want := zkBroker + " is a Kafka broker in ZooKeeper mode (it answered Kafka's ApiVersions, listing Metadata and LeaderAndIsr, which only a ZooKeeper-mode broker serves), not a ZooKeeper server: give --zookeeper the ZooKeeper of the broker's zookeeper.connect"; code == 0 || !strings.Contains(errOut, want) {
		t.Errorf("a ZooKeeper-mode broker given to --zookeeper: exit %d\n%s%s\nwant %q", code, out, errOut, want)
	}
	// Nothing to compare with: said, and the report goes on.
	empty := zktest.Chroot(t)
	code, out, errOut = runCLI(t, "migration", "--zookeeper", empty, "--bootstrap-controller", kc.ControllerBootstrap())
	if code != 0 || !strings.Contains(errOut, "warning: ZooKeeper "+empty+" holds no /cluster/id") || !strings.Contains(out, "ZooKeeper to KRaft migration") {
		t.Errorf("no /cluster/id: exit %d\n%s%s", code, out, errOut)
	}
}
