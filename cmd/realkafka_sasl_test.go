package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ktopo/ktopo/internal/testkit/kafkatest"
)

// TestRealKRaftSASL: ktopo reaches a KRaft cluster through a SASL
// listener as Kafka's clients do, from a --command-config properties file
// (SCRAM-SHA-256 and PLAIN), under Kafka's StandardAuthorizer: what the
// user's ACLs hide stays hidden (as Kafka's tool shows it), and a wrong
// password is Kafka's authentication error, not a hang.
func TestRealKRaftSASL(t *testing.T) {
	kafkatest.Require(t, kafkatest.Kafka44)
	c, err := kafkatest.StartKRaft(kafkatest.KRaftOptions{Version: kafkatest.Kafka44, Combined: true,
		SASLUsers: map[string]string{"alice": "alice-secret"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Stop)
	kafkatest.Attach(t, c)
	kafkaTool(t, c, "kafka-topics", "--bootstrap-server", c.Bootstrap(), "--create", "--topic", "sasl-open", "--partitions", "2", "--replication-factor", "1")

	dir := t.TempDir()
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
	if !strings.Contains(brokers, "SASL_PLAINTEXT://"+c.Node(1).SASLAddr()) || !strings.Contains(brokers, "online") {
		t.Errorf("ktopo brokers as alice:\n%s", brokers)
	}
	code, out, errOut := runCLI(t, "topics", "list", "--bootstrap-server", sb, "--command-config", wrong)
	if code == 0 || !strings.Contains(errOut, "Authentication failed") {
		t.Errorf("a wrong password: exit %d\n%s%s", code, out, errOut)
	}
	t.Logf("a wrong password: %s", strings.TrimSpace(errOut))
}
