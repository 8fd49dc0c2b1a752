package cmd

import (
	"crypto/x509/pkix"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ktopo/ktopo/internal/testkit/kafkatest"
	"github.com/ktopo/ktopo/internal/testkit/tlstest"
)

// TestRealKRaftSecurity: ktopo reaches a KRaft cluster (Kafka 4.4.0,
// one node) through its SASL and SSL listeners as Kafka's clients do,
// from a --command-config properties file, under Kafka's
// StandardAuthorizer, and shows what Kafka's own tool shows with the
// same file.
func TestRealKRaftSecurity(t *testing.T) {
	kafkatest.Require(t, kafkatest.Kafka44)
	dir := t.TempDir()
	ca := tlstest.NewCA(t, dir, "kafka-ca")
	broker := ca.Issue(t, "broker", tlstest.Options{Server: true})
	c, err := kafkatest.StartKRaft(kafkatest.KRaftOptions{Version: kafkatest.Kafka44, Combined: true,
		SASLUsers: map[string]string{"alice": "alice-secret"},
		TLS: &kafkatest.TLSListener{KeyStore: broker.Combined, TrustStore: ca.File, ClientAuth: "required",
			SuperUsers: []string{"User:CN=ktopo-admin"}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Stop)
	kafkatest.Attach(t, c)
	kafkaTool(t, c, "kafka-topics", "--bootstrap-server", c.Bootstrap(), "--create", "--topic", "sasl-open", "--partitions", "2", "--replication-factor", "1")
	t.Run("SASL", func(t *testing.T) { testSASL(t, c, t.TempDir()) })
	t.Run("TLS", func(t *testing.T) { testTLS(t, c, ca, t.TempDir()) })
}

// testSASL: SCRAM-SHA-256 and PLAIN; what the user's ACLs hide stays
// hidden, and a wrong password is Kafka's authentication error, not a
// hang.
func testSASL(t *testing.T, c *kafkatest.KRaftCluster, dir string) {
	props := func(name, mechanism, module, password string) string {
		p := filepath.Join(dir, name)
		body := "security.protocol=SASL_PLAINTEXT\nsasl.mechanism=" + mechanism + "\n" +
			"sasl.jaas.config=" + module + ` required username="alice" password="` + password + "\";\n"
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	const scramModule = "org.apache.kafka.common.security.scram.ScramLoginModule"
	scram := props("scram.properties", "SCRAM-SHA-256", scramModule, "alice-secret")
	plain := props("plain.properties", "PLAIN", "org.apache.kafka.common.security.plain.PlainLoginModule", "alice-secret")
	wrong := props("wrong.properties", "SCRAM-SHA-256", scramModule, "not-her-password")
	sb := c.SASLBootstrap()
	list := func(p string) string {
		return runOK(t, "topics", "list", "--bootstrap-server", sb, "--command-config", p)
	}

	// No ACL yet: alice is let in and sees no topic, as Kafka's tool.
	if out := list(scram); strings.Contains(out, "sasl-open") {
		t.Errorf("alice, without ACLs, sees the topic:\n%s", out)
	}
	if out := kafkaTool(t, c, "kafka-topics", "--bootstrap-server", sb, "--command-config", scram, "--list"); strings.Contains(out, "sasl-open") {
		t.Fatalf("Kafka's tool shows alice the topic without ACLs:\n%s", out)
	}
	kafkaTool(t, c, "kafka-acls", "--bootstrap-server", c.Bootstrap(), "--add", "--allow-principal", "User:alice",
		"--operation", "Describe", "--operation", "DescribeConfigs", "--topic", "*")
	waitUntilShowing(t, "alice sees the topic", func() bool { return strings.Contains(list(scram), "sasl-open") }, func() string { return list(scram) })
	for _, p := range []string{scram, plain} {
		want := kafkaTool(t, c, "kafka-topics", "--bootstrap-server", sb, "--command-config", p, "--list")
		if got := list(p); got != want {
			t.Errorf("%s: ktopo topics list\n%s\nKafka's kafka-topics --list\n%s", filepath.Base(p), got, want)
		}
	}
	// Topic ACLs only: the cluster-wide reads (the quorum, the
	// reassignments, the brokers' configs) are denied; the brokers show.
	brokers := runOK(t, "brokers", "--bootstrap-server", sb, "--command-config", scram)
	if !strings.Contains(brokers, "SASL_PLAINTEXT://"+c.Node(1).SASLAddr()) || !strings.Contains(brokers, "online") ||
		!strings.Contains(brokers, "Controller: unknown: no access") {
		t.Errorf("ktopo brokers as alice:\n%s", brokers)
	}
	code, out, errOut := runCLI(t, "topics", "list", "--bootstrap-server", sb, "--command-config", wrong)
	if code == 0 || !strings.Contains(errOut, "Authentication failed") {
		t.Errorf("a wrong password: exit %d\n%s%s", code, out, errOut)
	}
	t.Logf("a wrong password: %s", strings.TrimSpace(errOut))
	// No SASL at all: the listener answers ApiVersions (before any
	// login, as Kafka's do) and closes the connection at the next
	// request. That is SASL missing, not TLS.
	first := strings.Split(sb, ",")[0]
	code, out, errOut = runCLI(t, "topics", "list", "--bootstrap-server", first)
	t.Logf("no SASL: %s", strings.TrimSpace(errOut))
	if want := first + " answers Kafka's ApiVersions but closed the connection at the next request, as a listener that wants SASL does with a client without it: give security.protocol (SASL_PLAINTEXT, SASL_SSL), sasl.mechanism and sasl.jaas.config in --command-config"; code == 0 ||
		!strings.Contains(errOut, want) || strings.Contains(errOut, "TLS") {
		t.Errorf("no SASL on a SASL listener: exit %d\n%s%s\nwant %q", code, out, errOut, want)
	}
}

// testTLS: mutual TLS with Kafka's PEM stores (the client's certificate is
// a super user); a trust store without the brokers' CA, and no client
// certificate, are refused with what went wrong.
func testTLS(t *testing.T, c *kafkatest.KRaftCluster, ca *tlstest.CA, dir string) {
	admin := ca.Issue(t, "ktopo-admin", tlstest.Options{Subject: pkix.Name{CommonName: "ktopo-admin"}})
	other := tlstest.NewCA(t, dir, "other-ca")
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	mtls := write("mtls.properties", "security.protocol=SSL\nssl.truststore.type=PEM\nssl.truststore.location="+ca.File+
		"\nssl.keystore.type=PEM\nssl.keystore.location="+admin.Combined+"\n")
	strange := write("other-ca.properties", "security.protocol=SSL\nssl.truststore.type=PEM\nssl.truststore.location="+other.File+
		"\nssl.keystore.type=PEM\nssl.keystore.location="+admin.Combined+"\n")
	plaintext := write("plaintext.properties", "security.protocol=PLAINTEXT\n")
	anonymous := write("no-cert.properties", "security.protocol=SSL\nssl.truststore.type=PEM\nssl.truststore.location="+ca.File+"\n")
	sb := c.SSLBootstrap()

	want := kafkaTool(t, c, "kafka-topics", "--bootstrap-server", sb, "--command-config", mtls, "--list")
	got := runOK(t, "topics", "list", "--bootstrap-server", sb, "--command-config", mtls)
	if !strings.Contains(got, "sasl-open") || got != want {
		t.Errorf("ktopo topics list over mutual TLS\n%s\nKafka's kafka-topics --list\n%s", got, want)
	}
	for _, tc := range []struct{ props, want string }{
		{mtls + "@plaintext", " answers Kafka's ApiVersions without TLS: the listener is not an SSL one: check security.protocol in --command-config"},
		{plaintext, "check the listener's security.protocol (SSL, SASL_SSL) and give it in --command-config"},
		{strange, "certificate signed by unknown authority"},
		{anonymous, "the broker's listener wants a client certificate"},
	} {
		bs := sb
		if p, ok := strings.CutSuffix(tc.props, "@plaintext"); ok {
			tc.props, bs = p, c.Bootstrap()
		}
		code, out, errOut := runCLI(t, "topics", "list", "--bootstrap-server", bs, "--command-config", tc.props)
		t.Logf("%s: %s", filepath.Base(tc.props), strings.TrimSpace(errOut))
		if code == 0 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%s: exit %d, want an error with %q\n%s%s", filepath.Base(tc.props), code, tc.want, out, errOut)
		}
	}
}
