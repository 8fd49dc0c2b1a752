package kafkawatch

import (
	"crypto/tls"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ktopo/ktopo/internal/testkit/tlstest"
)

func TestParseProperties(t *testing.T) {
	p, err := ParseProperties([]byte(`# a comment
! another
security.protocol=SASL_SSL
sasl.mechanism : SCRAM-SHA-512
sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required \
    username="alice" \
    password="s3\\cret";
ssl.truststore.location /etc/kafka/ca.pem
key\ with\ spaces=v\u00e9
empty=
security.protocol=SSL
`))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"security.protocol":       "SSL", // the last one wins, as in Java
		"sasl.mechanism":          "SCRAM-SHA-512",
		"sasl.jaas.config":        `org.apache.kafka.common.security.scram.ScramLoginModule required username="alice" password="s3\cret";`,
		"ssl.truststore.location": "/etc/kafka/ca.pem",
		"key with spaces":         "vé",
		"empty":                   "",
	}
	for k, v := range want {
		if got, ok := p.Get(k); !ok || got != v {
			t.Errorf("%s = %q, want %q", k, got, v)
		}
	}
	if got := strings.Join(p.Keys(), ","); got != "security.protocol,sasl.mechanism,sasl.jaas.config,ssl.truststore.location,key with spaces,empty" {
		t.Errorf("keys %s", got)
	}
}

func TestParseJAAS(t *testing.T) {
	l, err := ParseJAAS(`org.apache.kafka.common.security.plain.PlainLoginModule required username="bob" password="p;a=ss w\"d";`)
	if err != nil {
		t.Fatal(err)
	}
	if l.Module != "org.apache.kafka.common.security.plain.PlainLoginModule" || l.Flag != "required" ||
		l.Options["username"] != "bob" || l.Options["password"] != `p;a=ss w"d` {
		t.Fatalf("%+v", l)
	}
	for _, bad := range []struct{ in, msg string }{
		{`org.X required username="a"`, "not terminated by semi-colon"},
		{`org.X required username="a"; org.Y required;`, "2 login modules"},
		{`org.X mandatory username="a";`, "control flag"},
		{`org.X required username;`, "has no value"},
		{`org.X required username="a;`, "unterminated"},
	} {
		if _, err := ParseJAAS(bad.in); err == nil || !strings.Contains(err.Error(), bad.msg) {
			t.Errorf("%s: %v, want %q", bad.in, err, bad.msg)
		}
	}
}

func props(t *testing.T, text string) *Properties {
	t.Helper()
	p, err := ParseProperties([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	p.Path = "client.properties"
	return p
}

// TestClientConfig: what a Go client can honour is honoured; the rest is
// refused with what to do instead.
func TestClientConfig(t *testing.T) {
	dir := t.TempDir()
	ca := tlstest.NewCA(t, dir, "kafka-ca")
	caPEM := ca.File
	pair := ca.Issue(t, "ktopo", tlstest.Options{})
	both := pair.Combined
	cert, err := os.ReadFile(pair.CertFile)
	if err != nil {
		t.Fatal(err)
	}
	jks := filepath.Join(dir, "trust.jks")
	os.WriteFile(jks, []byte{0xfe, 0xed, 0xfe, 0xed, 0, 0, 0, 2}, 0o600)

	s, err := ClientConfig(props(t, "security.protocol=SASL_SSL\nsasl.mechanism=SCRAM-SHA-256\n"+
		`sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="alice" password="pw";`+"\n"+
		"ssl.truststore.type=PEM\nssl.truststore.location="+caPEM+"\nssl.keystore.type=PEM\nssl.keystore.location="+both+"\nlinger.ms=5\n"))
	if err != nil {
		t.Fatal(err)
	}
	if s.Protocol != "SASL_SSL" || s.TLS == nil || s.TLS.RootCAs == nil || len(s.TLS.Certificates) != 1 || s.SASL == nil ||
		s.SASL.Name() != "SCRAM-SHA-256" || s.User != "alice" || strings.Join(s.Ignored, ",") != "linger.ms" {
		t.Fatalf("%+v", s)
	}
	if s.TLS.MinVersion != tls.VersionTLS12 || s.TLS.InsecureSkipVerify {
		t.Fatalf("TLS %+v", s.TLS)
	}
	// Without host name verification Go's check is replaced, not dropped.
	s, err = ClientConfig(props(t, "security.protocol=SSL\nssl.truststore.location="+caPEM+"\nssl.endpoint.identification.algorithm=\n"))
	if err != nil || !s.TLS.InsecureSkipVerify || s.TLS.VerifyConnection == nil {
		t.Fatalf("no host name check: %v %+v", err, s.TLS)
	}
	s, err = ClientConfig(props(t, "security.protocol=SASL_PLAINTEXT\nsasl.mechanism=PLAIN\n"+
		`sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username="bob" password="x";`))
	if err != nil || s.TLS != nil || s.SASL.Name() != "PLAIN" {
		t.Fatalf("PLAIN: %v %+v", err, s)
	}
	for _, c := range []struct{ text, msg string }{
		{"security.protocol=TLS", "String must be one of: PLAINTEXT, SSL, SASL_PLAINTEXT, SASL_SSL"},
		{"security.protocol=SASL_SSL\nsasl.jaas.config=x required;", "SASL mechanism GSSAPI is not supported"},
		{"security.protocol=SASL_SSL\nsasl.mechanism=OAUTHBEARER", "OAUTHBEARER is not supported"},
		{"security.protocol=SASL_PLAINTEXT\nsasl.mechanism=PLAIN", "sasl.jaas.config is missing"},
		{"security.protocol=SASL_PLAINTEXT\nsasl.mechanism=PLAIN\nsasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username=\"a\" password=\"b\";", "needs org.apache.kafka.common.security.plain.PlainLoginModule"},
		{"security.protocol=SSL\nssl.truststore.location=" + jks + "\nssl.truststore.password=changeit", "JKS stores cannot be read by ktopo; convert it to PKCS12"},
		{"security.protocol=SSL\nssl.truststore.type=JKS\nssl.truststore.location=" + jks, "keytool -importkeystore -srckeystore " + jks},
		{"security.protocol=SSL\nssl.keystore.certificate.chain=" + strings.ReplaceAll(string(cert), "\n", "\\n") + "\nssl.keystore.key=-----BEGIN ENCRYPTED PRIVATE KEY-----\\nAAAA\\n-----END ENCRYPTED PRIVATE KEY-----\\n", "the private key is encrypted"},
		{"security.protocol=SSL\nssl.truststore.location=/nonexistent/ca.pem", "client.properties:2: ssl.truststore.location"},
		{"sasl.login.callback.handler.class=com.example.Handler", "cannot load Java classes"},
		{"sasl.jaas.config=${file:/etc/secrets.properties:jaas}", "config provider references"},
		{"request.timeout.ms=soon", "Invalid value soon for configuration request.timeout.ms"},
	} {
		if _, err := ClientConfig(props(t, c.text)); err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%q: %v, want %q", c.text, err, c.msg)
		}
	}
}

// TestClientConfigHandshake: the TLS settings a properties file gives
// work against a server: its CA trusted from a PEM file, the host name
// checked (a certificate for another name refused), or only the chain
// when ssl.endpoint.identification.algorithm is empty; a client
// certificate from a PEM key store presented.
func TestClientConfigHandshake(t *testing.T) {
	dir := t.TempDir()
	ca := tlstest.NewCA(t, dir, "kafka-ca")
	server := ca.Issue(t, "broker", tlstest.Options{Server: true})
	client := ca.Issue(t, "ktopo", tlstest.Options{})
	ln, err := tls.Listen("tcp", "127.0.0.1:0", tlstest.ServerConfig(server, ca, tls.RequireAndVerifyClientCert))
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	peers := make(chan string, 8)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			tc := c.(*tls.Conn)
			if tc.Handshake() == nil && len(tc.ConnectionState().PeerCertificates) > 0 {
				peers <- tc.ConnectionState().PeerCertificates[0].Subject.CommonName
			}
			c.Close()
		}
	}()
	_, port, _ := strings.Cut(ln.Addr().String(), ":")
	dial := func(host, extra string) error {
		s, err := ClientConfig(props(t, "security.protocol=SSL\nssl.truststore.type=PEM\nssl.truststore.location="+ca.File+
			"\nssl.keystore.type=PEM\nssl.keystore.location="+client.Combined+"\n"+extra))
		if err != nil {
			t.Fatal(err)
		}
		cfg := s.TLS.Clone()
		if !cfg.InsecureSkipVerify {
			cfg.ServerName = host
		}
		c, err := tls.Dial("tcp", "127.0.0.1:"+port, cfg)
		if err != nil {
			return err
		}
		return c.Close()
	}
	if err := dial("localhost", ""); err != nil {
		t.Fatalf("a trusted server: %v", err)
	}
	if cn := <-peers; cn == "" {
		t.Fatal("no client certificate presented")
	}
	if err := dial("kafka.example.com", ""); err == nil {
		t.Fatal("a certificate for another host name was accepted")
	}
	if err := dial("kafka.example.com", "ssl.endpoint.identification.algorithm="); err != nil {
		t.Fatalf("without host name checks, the chain alone: %v", err)
	}
	other := tlstest.NewCA(t, t.TempDir(), "other-ca")
	s, err := ClientConfig(props(t, "security.protocol=SSL\nssl.truststore.location="+other.File+"\nssl.endpoint.identification.algorithm="))
	if err != nil {
		t.Fatal(err)
	}
	if c, err := tls.Dial("tcp", "127.0.0.1:"+port, s.TLS); err == nil {
		c.Close()
		t.Fatal("a server signed by an untrusted CA was accepted without host name checks")
	}
}
