package cmd

import (
	"context"
	"crypto/sha1"
	"crypto/x509/pkix"
	"encoding/base64"
	"errors"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/go-zookeeper/zk"

	"github.com/ktopo/ktopo/internal/testkit/kafkatest"
	"github.com/ktopo/ktopo/internal/testkit/tlstest"
	"github.com/ktopo/ktopo/internal/testkit/zktest"
	"github.com/ktopo/ktopo/zkwatch"
)

// secured is the package's secured Kafka: an Apache ZooKeeper serving TLS
// with client certificates (x509 authentication) and a super user digest,
// and a Kafka 3.9 broker that talks to it over TLS as
// x509:CN=kafka-broker,O=ktopo tests with zookeeper.set.acl=true, so that
// its znodes carry Kafka's ACLs: the broker may do all, anyone may read,
// except under /config/users, /config/brokers and /delegation_token/tokens.
type secured struct {
	zk      *zktest.Server
	kafka   *kafkatest.Cluster
	connect string // the TLS port and the cluster's chroot
	ca      *tlstest.CA
	broker  *tlstest.Pair // the brokers' identity
	op      *tlstest.Pair // an operator's certificate: another subject
	dir     string
}

const superPassword = "super-secret-pw"

var securedOnce struct {
	once sync.Once
	s    *secured
	err  error
}

// stopSecured ends the secured cluster (TestMain).
func stopSecured() {
	if s := securedOnce.s; s != nil {
		if s.kafka != nil {
			s.kafka.Stop()
		}
		s.zk.Stop()
		_ = os.RemoveAll(s.dir)
	}
}

// securedKafka starts the secured cluster on first use.
func securedKafka(t *testing.T) *secured {
	t.Helper()
	kafkatest.Require(t, kafkatest.Kafka39)
	securedOnce.once.Do(func() {
		s := &secured{}
		if s.dir, securedOnce.err = os.MkdirTemp("", "ktopo-secured-"); securedOnce.err != nil {
			return
		}
		s.ca = tlstest.NewCA(t, s.dir, "zk-ca")
		server := s.ca.Issue(t, "zookeeper", tlstest.Options{Server: true})
		s.broker = s.ca.Issue(t, "broker", tlstest.Options{Subject: pkix.Name{CommonName: "kafka-broker", Organization: []string{"ktopo tests"}}})
		s.op = s.ca.Issue(t, "operator", tlstest.Options{Subject: pkix.Name{CommonName: "operator", Organization: []string{"ktopo tests"}}})
		sum := sha1.Sum([]byte("super:" + superPassword))
		s.zk, securedOnce.err = zktest.Start(zktest.Options{
			TLS:      &zktest.TLS{KeyStore: server.Combined, TrustStore: s.ca.File},
			JVMFlags: []string{"-Dzookeeper.DigestAuthenticationProvider.superDigest=super:" + base64.StdEncoding.EncodeToString(sum[:])},
		})
		if securedOnce.err != nil {
			return
		}
		securedOnce.s = s
		s.connect = s.zk.SecureAddr() + "/kafka-secured"
		brokerTLS, err := zkwatch.TLSFiles{CA: s.ca.File, Cert: s.broker.CertFile, Key: s.broker.KeyFile}.Config()
		if err != nil {
			securedOnce.err = err
			return
		}
		s.kafka, securedOnce.err = kafkatest.Start(kafkatest.Options{
			Version: kafkatest.Kafka39, Connect: s.connect, Brokers: 1, Racks: 1, ZKTLS: brokerTLS,
			Props: map[string]string{
				"zookeeper.set.acl":                 "true",
				"zookeeper.ssl.client.enable":       "true",
				"zookeeper.clientCnxnSocket":        "org.apache.zookeeper.ClientCnxnSocketNetty",
				"zookeeper.ssl.keystore.location":   s.broker.Combined,
				"zookeeper.ssl.keystore.type":       "PEM",
				"zookeeper.ssl.truststore.location": s.ca.File,
				"zookeeper.ssl.truststore.type":     "PEM",
				"delegation.token.secret.key":       "ktopo-test-token-secret",
				"offsets.topic.replication.factor":  "1",
			},
		})
	})
	if errors.Is(securedOnce.err, zktest.ErrNotInstalled) && os.Getenv("CI") != "true" {
		t.Skip("skipping: " + securedOnce.err.Error())
	}
	if securedOnce.err != nil {
		t.Fatal(securedOnce.err)
	}
	kafkatest.Attach(t, securedOnce.s.kafka)
	return securedOnce.s
}

// as returns the connection flags for ktopo with a certificate.
func (s *secured) as(p *tlstest.Pair) []string {
	return []string{"--zookeeper", s.connect, "--zk-tls-ca", s.ca.File, "--zk-tls-cert", p.CertFile, "--zk-tls-key", p.KeyFile}
}

// conn opens a session as p (for checks beside ktopo's commands).
func (s *secured) conn(t *testing.T, p *tlstest.Pair) *zkwatch.Conn {
	t.Helper()
	cfg, err := zkwatch.TLSFiles{CA: s.ca.File, Cert: p.CertFile, Key: p.KeyFile}.Config()
	if err != nil {
		t.Fatal(err)
	}
	c, err := zkwatch.Connect(context.Background(), s.connect, zkwatch.Options{TLS: cfg, Logger: zktest.NewLogger(t)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

const brokerID = "x509:CN=kafka-broker,O=ktopo tests"

// TestSecuredKafkaWrites: on a cluster with zookeeper.set.acl=true, an
// operator whose certificate is not the brokers' reads everything Kafka
// lets anyone read, and a creation is refused with a message naming the
// certificate (or super user) that may write, leaving nothing behind.
// With the brokers' certificate, or as ZooKeeper's super user through
// KTOPO_ZK_DIGEST, the topic is created with the ACL Kafka gives its own
// topics, and the real controller brings it online.
func TestSecuredKafkaWrites(t *testing.T) {
	s := securedKafka(t)
	// What Kafka set (read as the operator: world READ).
	op := s.conn(t, s.op)
	for p, want := range map[string]string{
		"/brokers/topics": brokerID + "=cdrwa, world:anyone=r",
		"/config/topics":  brokerID + "=cdrwa, world:anyone=r",
		"/config/users":   "",
		"/config/brokers": "",
	} {
		acl, _, err := op.GetACL(p)
		switch {
		case want == "" && !errors.Is(err, zk.ErrNoAuth):
			t.Errorf("ACL of %s: %v %v, want no READ for the operator", p, acl, err)
		case want != "" && (err != nil || zkwatch.FormatACL(acl) != want):
			t.Errorf("ACL of %s: %s %v, want %s", p, zkwatch.FormatACL(acl), err, want)
		}
	}

	code, out, errOut := runCLI(t, append([]string{"topics", "create", "--topic", "refused", "--partitions", "1",
		"--replication-factor", "1"}, s.as(s.op)...)...)
	if code != 1 {
		t.Fatalf("create as the operator: exit %d\n%s%s", code, out, errOut)
	}
	for _, want := range []string{"zookeeper refused to create /config/topics/refused: no CREATE permission on /config/topics",
		"grants it only to " + brokerID, "this session is x509:CN=operator,O=ktopo tests", "the multi failed as a whole",
		`a TLS client certificate with the subject "CN=kafka-broker,O=ktopo tests"`, "--zk-tls-cert", "super user"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("refusal lacks %q:\n%s", want, errOut)
		}
	}
	for _, p := range []string{"/config/topics/refused", "/brokers/topics/refused"} {
		if ok, _, err := op.Exists(p); ok || err != nil {
			t.Errorf("%s after the refused creation: %v %v", p, ok, err)
		}
	}

	// The brokers' identity, and the super user, may.
	runOK(t, append([]string{"topics", "create", "--topic", "as-broker", "--partitions", "2", "--replication-factor", "1",
		"--timeout", "90s"}, s.as(s.broker)...)...)
	t.Setenv(envDigest, "super:"+superPassword)
	runOK(t, append([]string{"topics", "create", "--topic", "as-super", "--partitions", "2", "--replication-factor", "1",
		"--timeout", "90s"}, s.as(s.op)...)...)
	t.Setenv(envDigest, "")
	// Kafka's own creation (the controller, through the admin API) for
	// comparison: the same ACLs.
	if res, err := s.kafka.Topics("--create", "--topic", "by-kafka", "--partitions", "1", "--replication-factor", "1"); err != nil {
		t.Fatalf("kafka-topics --create: %v %s", err, kafkatest.ToolError(res))
	}
	waitUntil(t, "kafka created by-kafka", func() bool { ok, _, _ := op.Exists("/brokers/topics/by-kafka"); return ok })
	for _, topic := range []string{"as-broker", "as-super", "by-kafka"} {
		for _, p := range []string{"/config/topics/" + topic, "/brokers/topics/" + topic} {
			acl, _, err := op.GetACL(p)
			if want := brokerID + "=cdrwa, world:anyone=r"; err != nil || zkwatch.FormatACL(acl) != want {
				t.Errorf("ACL of %s: %s %v, want %s (as Kafka sets it)", p, zkwatch.FormatACL(acl), err, want)
			}
		}
	}
	// The partitions came online (the controller could write below them).
	out = runOK(t, append([]string{"topics", "describe", "--topic", "as-super"}, s.as(s.op)...)...)
	if !strings.Contains(out, "Partition: 1\tLeader: 1") {
		t.Errorf("describe as-super:\n%s", out)
	}
}

// TestSecuredKafkaReads: what the session may not read is shown as "no
// access", never as missing or empty: Kafka's sensitive znodes in the
// tree's mirror, and, once an operator locked them to the brokers, a
// topic's config and partition state in topics describe and a broker's
// registration in brokers.
func TestSecuredKafkaReads(t *testing.T) {
	s := securedKafka(t)
	runOK(t, append([]string{"topics", "create", "--topic", "locked", "--partitions", "1", "--replication-factor", "1",
		"--config", "retention.ms=1000", "--timeout", "90s"}, s.as(s.broker)...)...)
	admin := s.conn(t, s.broker)
	brokerOnly := zk.ACL{Perms: zk.PermAll, Scheme: "x509", ID: "CN=kafka-broker,O=ktopo tests"}
	locked := []string{"/config/topics/locked", "/brokers/topics/locked/partitions/0/state", "/brokers/ids/1"}
	for _, p := range locked {
		if _, err := admin.SetACL(p, []zk.ACL{brokerOnly}, -1); err != nil {
			t.Fatal(p, err)
		}
		t.Cleanup(func() {
			if _, err := admin.SetACL(p, append([]zk.ACL{brokerOnly}, zk.WorldACL(zk.PermRead)...), -1); err != nil {
				t.Errorf("restore the ACL of %s: %v", p, err)
			}
		})
	}

	code, out, errOut := runCLI(t, append([]string{"topics", "describe", "--topic", "locked"}, s.as(s.op)...)...)
	if code != 0 || !strings.Contains(out, "Configs: (no access)") || !strings.Contains(out, "Leader: (no access)") ||
		!strings.Contains(out, "Isr: (no access)") || !strings.Contains(out, "Replicas: 1") {
		t.Errorf("describe of a locked topic: exit %d\n%s%s", code, out, errOut)
	}
	for _, p := range locked {
		if !strings.Contains(errOut, "ktopo: no access to "+p+": ") {
			t.Errorf("describe's standard error does not name %s:\n%s", p, errOut)
		}
	}
	out = runOK(t, append([]string{"brokers"}, s.as(s.op)...)...)
	if !strings.Contains(out, "(no access) to /brokers/ids/1") {
		t.Errorf("brokers with an unreadable registration:\n%s", out)
	}
	out = runOK(t, append([]string{"brokers", "--output", "json"}, s.as(s.op)...)...)
	if !strings.Contains(out, `"noAccess":true`) {
		t.Errorf("brokers --output json: %s", out)
	}

	// The tree: Kafka's sensitive znodes, opened as subtrees.
	op := s.conn(t, s.op)
	m, err := zkwatch.NewMirror(op, zkwatch.Shape{}, zkwatch.MirrorOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	go func() {
		for range m.Batches() {
		}
	}()
	want := []string{"/config/users", "/config/brokers"}
	if ok, _, _ := admin.Exists("/delegation_token/tokens"); ok {
		want = append(want, "/delegation_token/tokens")
	} else {
		t.Errorf("the broker made no /delegation_token/tokens")
	}
	for _, p := range []string{"/config", "/delegation_token"} {
		if err := m.OpenSubtree(p); err != nil {
			t.Fatal(err)
		}
	}
	defer func() {
		if t.Failed() {
			tree := m.Tree()
			for _, p := range append(want, "/config/topics/locked", "/config/topics") {
				t.Logf("%s: %+v", p, tree[p])
			}
		}
	}()
	waitUntil(t, "the sensitive znodes marked", func() bool {
		tree := m.Tree()
		for _, p := range want {
			if tree[p].Denied != zkwatch.NoData|zkwatch.NoChildren {
				return false
			}
		}
		topics, ok := tree["/config/topics"]
		return ok && topics.Denied == 0 && tree["/config/topics/locked"].Denied == zkwatch.NoData|zkwatch.NoChildren
	})
}
