package zkwatch

import (
	"context"
	"crypto/tls"
	"crypto/x509/pkix"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/ktopo/ktopo/internal/testkit/tlstest"
	"github.com/ktopo/ktopo/internal/testkit/zktest"
	"github.com/ktopo/ktopo/zkserver"
)

// tlsEnv is a ZooKeeper serving TLS with client certificates (ssl.clientAuth
// need) and x509 authentication, with the certificates to try on it.
type tlsEnv struct {
	secure, plain string // its TLS and plaintext ports
	ca, other     *tlstest.CA
	client        *tlstest.Pair // signed by ca: authenticates as x509:<subject>
	reader        *tlstest.Pair // signed by ca, another subject
	rogue         *tlstest.Pair // signed by other
	expired       *tlstest.Pair // signed by ca, expired
}

func newTLSCerts(t testing.TB, dir string) *tlsEnv {
	ca := tlstest.NewCA(t, dir, "zk-ca")
	e := &tlsEnv{ca: ca, other: tlstest.NewCA(t, dir, "other-ca")}
	e.client = ca.Issue(t, "client", tlstest.Options{Subject: pkix.Name{CommonName: "ktopo-client", Organization: []string{"ktopo tests"}}})
	e.reader = ca.Issue(t, "reader", tlstest.Options{Subject: pkix.Name{CommonName: "reader, the second", OrganizationalUnit: []string{"ops"}}})
	e.rogue = e.other.Issue(t, "rogue", tlstest.Options{Subject: pkix.Name{CommonName: "ktopo-client", Organization: []string{"ktopo tests"}}})
	e.expired = ca.Issue(t, "expired", tlstest.Options{Subject: pkix.Name{CommonName: "old"}, NotAfter: time.Now().Add(-time.Hour)})
	return e
}

// apacheTLS is the package's Apache ZooKeeper with a secureClientPort,
// started on first use and stopped by TestMain.
var apacheTLS struct {
	once sync.Once
	env  *tlsEnv
	srv  *zktest.Server
	dir  string
	err  error
}

func stopApacheTLS() {
	if apacheTLS.srv != nil {
		apacheTLS.srv.Stop()
	}
	if apacheTLS.dir != "" {
		_ = os.RemoveAll(apacheTLS.dir)
	}
}

func apacheTLSEnv(t *testing.T) *tlsEnv {
	t.Helper()
	apacheTLS.once.Do(func() {
		apacheTLS.dir, apacheTLS.err = os.MkdirTemp("", "zkwatch-tls-")
		if apacheTLS.err != nil {
			return
		}
		e := newTLSCerts(t, apacheTLS.dir)
		server := e.ca.Issue(t, "server", tlstest.Options{Server: true})
		apacheTLS.srv, apacheTLS.err = zktest.Start(zktest.Options{TLS: &zktest.TLS{KeyStore: server.Combined, TrustStore: e.ca.File}})
		if apacheTLS.err == nil {
			e.secure, e.plain = apacheTLS.srv.SecureAddr(), apacheTLS.srv.Addr()
			apacheTLS.env = e
		}
	})
	if errors.Is(apacheTLS.err, zktest.ErrNotInstalled) && os.Getenv("CI") != "true" {
		t.Skip("skipping: " + apacheTLS.err.Error())
	}
	if apacheTLS.err != nil {
		t.Fatal(apacheTLS.err)
	}
	return apacheTLS.env
}

func embeddedTLSEnv(t *testing.T) *tlsEnv {
	e := newTLSCerts(t, "")
	server := e.ca.Issue(t, "server", tlstest.Options{Server: true})
	s, err := zkserver.Start(zkserver.Config{TLS: tlstest.ServerConfig(server, e.ca, tls.RequireAndVerifyClientCert)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	e.secure, e.plain = s.SecureAddr(), s.Addr()
	return e
}

func TestTLSApache(t *testing.T)   { testTLS(t, apacheTLSEnv(t)) }
func TestTLSEmbedded(t *testing.T) { testTLS(t, embeddedTLSEnv(t)) }

var tlsSeq atomic.Int64

// testTLS: a client certificate gets a session whose x509 id is the
// certificate's subject as ZooKeeper spells it (an ACL made with the auth
// scheme names it), another subject is refused by that ACL with a message
// naming the certificate needed, and every kind of TLS mistake fails with
// a message saying which.
func testTLS(t *testing.T, e *tlsEnv) {
	ctx := context.Background()
	files := func(ca string, p *tlstest.Pair) *tls.Config {
		t.Helper()
		f := TLSFiles{CA: ca}
		if p != nil {
			f.Cert, f.Key = p.CertFile, p.KeyFile
		}
		cfg, err := f.Config()
		if err != nil {
			t.Fatal(err)
		}
		return cfg
	}
	node := fmt.Sprintf("/tls-%d-%d", os.Getpid(), tlsSeq.Add(1))

	owner := connect(t, e.secure, Options{TLS: files(e.ca.File, e.client)})
	want := "x509:CN=ktopo-client,O=ktopo tests"
	if got := owner.Identities(); !slices.Equal(got, []string{want}) {
		t.Fatalf("identities %q, want %q", got, want)
	}
	// Kafka's ACL with zookeeper.set.acl: the creator may do all, anyone read.
	if _, err := owner.Create(node, []byte("mine"), 0, append(zk.AuthACL(zk.PermAll), zk.WorldACL(zk.PermRead)...)); err != nil {
		t.Fatal(err)
	}
	acl, _, err := owner.GetACL(node)
	if err != nil || len(acl) != 2 || acl[0].Scheme+":"+acl[0].ID != want {
		t.Fatalf("the server's id for the certificate: %v %v, want %s", acl, err, want)
	}
	if data, _, err := owner.Get(node); err != nil || string(data) != "mine" {
		t.Fatalf("get: %q %v", data, err)
	}
	t.Cleanup(func() { _ = owner.Delete(node, -1) })

	// Another subject reads it, and a write gets an explanation.
	reader := connect(t, e.secure, Options{TLS: files(e.ca.File, e.reader)})
	if got := reader.Identities(); !slices.Equal(got, []string{`x509:CN=reader\, the second,OU=ops`}) {
		t.Errorf("escaped subject: %q", got)
	}
	if _, _, err := reader.Get(node); err != nil {
		t.Fatalf("get by another subject: %v", err)
	}
	_, err = reader.Set(node, []byte("theirs"), -1)
	var ae *AccessError
	if !errors.As(err, &ae) || !errors.Is(err, zk.ErrNoAuth) {
		t.Fatalf("set by another subject: %v", err)
	}
	for _, s := range []string{"no WRITE permission on " + node, `this session is x509:CN=reader\, the second,OU=ops`,
		`a TLS client certificate with the subject "CN=ktopo-client,O=ktopo tests"`, "--zk-tls-cert"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("refusal %q lacks %q", err, s)
		}
	}
	if data, _, _ := owner.Get(node); string(data) != "mine" {
		t.Errorf("after the refused set: %q", data)
	}
	// Without READ not even the ACL can be read: the message says so.
	private := node + "-private"
	if _, err := owner.Create(private, nil, 0, zk.AuthACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = owner.Delete(private, -1) })
	if _, _, err := reader.Get(private); !errors.Is(err, zk.ErrNoAuth) {
		t.Fatalf("get of a private node: %v", err)
	}
	if _, err := owner.Create(private+"/child", nil, 0, open); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = owner.Delete(private+"/child", -1) })
	err = reader.Delete(private+"/child", -1)
	if !errors.As(err, &ae) || ae.Node != private || ae.Perm != zk.PermDelete {
		t.Fatalf("delete needs DELETE on the parent: %v", err)
	}
	_, err = reader.Multi(&zk.SetDataRequest{Path: private, Data: []byte("x"), Version: -1})
	if !errors.As(err, &ae) || !ae.Multi || ae.ACLErr == nil || !strings.Contains(err.Error(), "its ACL cannot be read either") {
		t.Fatalf("multi on a private node: %v", err)
	}

	// Mistakes fail at the first attempt (the connect timeout is an hour),
	// each saying what is wrong.
	for _, c := range []struct {
		name string
		addr string
		cfg  *tls.Config
		want string
	}{
		{"wrong CA", e.secure, files(e.other.File, e.client), "is not signed by a trusted CA"},
		{"client certificate of another CA", e.secure, files(e.ca.File, e.rogue), "the server refused the client certificate"},
		{"expired client certificate", e.secure, files(e.ca.File, e.expired), "the server refused the client certificate"},
		{"no client certificate", e.secure, files(e.ca.File, nil), "client certificate"},
		{"TLS on the plaintext port", e.plain, files(e.ca.File, e.client), "probably a plaintext port"},
	} {
		_, err := Connect(ctx, c.addr, Options{TLS: c.cfg, ConnectTimeout: time.Hour, Logger: zktest.NewLogger(t)})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error saying %q", c.name, err, c.want)
		}
	}
	// A plaintext client on the TLS port cannot be told from a server
	// still starting, so it waits out the connect timeout, with a hint.
	_, err = Connect(ctx, e.secure, Options{ConnectTimeout: 2 * time.Second, Logger: zktest.NewLogger(t)})
	if err == nil || !strings.Contains(err.Error(), "secureClientPort") {
		t.Errorf("plaintext client on the TLS port: %v", err)
	}
}

// TestTLSFiles: bad files are named with what is wrong with them.
func TestTLSFiles(t *testing.T) {
	ca := tlstest.NewCA(t, "", "files-ca")
	p := ca.Issue(t, "c", tlstest.Options{})
	q := ca.Issue(t, "d", tlstest.Options{})
	dir := t.TempDir()
	garbage := filepath.Join(dir, "garbage.pem")
	if err := os.WriteFile(garbage, []byte("not a certificate\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		f    TLSFiles
		want string
	}{
		{TLSFiles{CA: filepath.Join(dir, "missing.pem")}, "TLS CA file: open " + filepath.Join(dir, "missing.pem")},
		{TLSFiles{CA: garbage}, "TLS CA file " + garbage + ": no PEM certificate in it"},
		{TLSFiles{CA: p.KeyFile}, "no PEM certificate in it"},
		{TLSFiles{Cert: p.CertFile, Key: q.KeyFile}, "the private key does not belong to the certificate"},
		{TLSFiles{Cert: garbage, Key: p.KeyFile}, "the certificate file holds no PEM data"},
		{TLSFiles{Cert: p.CertFile, Key: garbage}, "the key file holds no PRIVATE KEY block"},
		{TLSFiles{Key: p.KeyFile}, "given without a certificate file"},
	} {
		if _, err := c.f.Config(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.f, err, c.want)
		}
	}
	// A combined file serves as both.
	cfg, err := TLSFiles{CA: ca.File, Cert: p.Combined}.Config()
	if err != nil || ClientID(cfg) != "CN=localhost" {
		t.Fatalf("combined: %v %q", err, ClientID(cfg))
	}
}
