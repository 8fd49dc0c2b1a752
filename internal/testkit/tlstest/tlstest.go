// Package tlstest makes certificate authorities and certificates for tests
// of ZooKeeper over TLS: a CA, a server certificate for 127.0.0.1 and
// client certificates whose subject becomes ZooKeeper's x509 ACL id, written
// as PEM files that ktopo (--zk-tls-ca/-cert/-key), the embedded server and
// Apache ZooKeeper and Kafka (ssl.keyStore.type=PEM) all read.
package tlstest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"
)

// CA is a self-signed certificate authority.
type CA struct {
	Cert *x509.Certificate
	Key  *ecdsa.PrivateKey
	// File is the CA certificate as PEM (what --zk-tls-ca takes).
	File string
	dir  string
}

// Pair is a certificate issued by a CA, with its key, as PEM files.
type Pair struct {
	Cert *x509.Certificate
	Key  *ecdsa.PrivateKey
	// CertFile holds the certificate, KeyFile the PKCS#8 private key;
	// Combined holds both (ZooKeeper's PEM keystore: key, then chain).
	CertFile, KeyFile, Combined string
	// TLS is the pair for a tls.Config.
	TLS tls.Certificate
}

var serial atomic.Int64

// NewCA makes a CA named cn. Its files, and those of the certificates it
// issues, live in dir; empty means a directory of the test (removed when
// it ends: a server shared by a package's tests needs a dir that outlives
// the test that made it).
func NewCA(t testing.TB, dir, cn string) *CA {
	t.Helper()
	key := newKey(t)
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(serial.Add(1)),
		Subject:               pkix.Name{CommonName: cn, Organization: []string{"ktopo tests"}},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(24 * time.Hour),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign | x509.KeyUsageDigitalSignature,
		IsCA:                  true,
		BasicConstraintsValid: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	if dir == "" {
		dir = t.TempDir()
	}
	ca := &CA{Cert: cert, Key: key, dir: dir, File: filepath.Join(dir, cn+".pem")}
	writeFile(t, ca.File, pemBlock("CERTIFICATE", der))
	return ca
}

// Pool is a pool trusting only this CA.
func (ca *CA) Pool() *x509.CertPool {
	p := x509.NewCertPool()
	p.AddCert(ca.Cert)
	return p
}

// Options shape an issued certificate.
type Options struct {
	// Subject; CommonName "localhost" when empty.
	Subject pkix.Name
	// Server makes a server certificate for 127.0.0.1 and localhost;
	// otherwise a client certificate.
	Server bool
	// NotAfter, when set, replaces a day from now (a past time makes an
	// expired certificate).
	NotAfter time.Time
}

// Issue signs a new certificate; name names its files.
func (ca *CA) Issue(t testing.TB, name string, o Options) *Pair {
	t.Helper()
	key := newKey(t)
	subject := o.Subject
	if subject.CommonName == "" && len(subject.Organization) == 0 {
		subject.CommonName = "localhost"
	}
	notAfter := o.NotAfter
	if notAfter.IsZero() {
		notAfter = time.Now().Add(24 * time.Hour)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(serial.Add(1)),
		Subject:      subject,
		NotBefore:    time.Now().Add(-2 * time.Hour),
		NotAfter:     notAfter,
		KeyUsage:     x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
		// Java's SunX509 key manager picks a server key only when its
		// usage allows it; clients and servers both get both usages so a
		// broker's certificate serves either side, as Kafka's often do.
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth, x509.ExtKeyUsageServerAuth},
	}
	if o.Server {
		tmpl.IPAddresses = []net.IP{net.ParseIP("127.0.0.1")}
		tmpl.DNSNames = []string{"localhost"}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.Cert, &key.PublicKey, ca.Key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	pkcs8, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	p := &Pair{
		Cert:     cert,
		Key:      key,
		CertFile: filepath.Join(ca.dir, name+".crt"),
		KeyFile:  filepath.Join(ca.dir, name+".key"),
		Combined: filepath.Join(ca.dir, name+".pem"),
		TLS:      tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: cert},
	}
	certPEM, keyPEM := pemBlock("CERTIFICATE", der), pemBlock("PRIVATE KEY", pkcs8)
	writeFile(t, p.CertFile, certPEM)
	writeFile(t, p.KeyFile, keyPEM)
	writeFile(t, p.Combined, append(append([]byte{}, keyPEM...), certPEM...))
	return p
}

// ServerConfig is a tls.Config serving pair that checks client
// certificates against ca as clientAuth says
// (tls.RequireAndVerifyClientCert is ZooKeeper's ssl.clientAuth=need,
// tls.VerifyClientCertIfGiven its want).
func ServerConfig(pair *Pair, ca *CA, clientAuth tls.ClientAuthType) *tls.Config {
	return &tls.Config{Certificates: []tls.Certificate{pair.TLS}, ClientCAs: ca.Pool(), ClientAuth: clientAuth}
}

func newKey(t testing.TB) *ecdsa.PrivateKey {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return key
}

func pemBlock(typ string, der []byte) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der})
}

func writeFile(t testing.TB, path string, data []byte) {
	t.Helper()
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
}
