package zkwatch

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"syscall"

	"github.com/ktopo/ktopo/internal/x509id"
)

// TLSFiles name the PEM files of a TLS connection to ZooKeeper's
// secureClientPort, as Kafka's zookeeper.ssl.* settings do with keystores.
type TLSFiles struct {
	// CA holds the certificates of the authorities that sign the servers'
	// certificates; empty trusts the system's roots.
	CA string
	// Cert and Key are the client's certificate (with its chain) and its
	// private key (unencrypted PKCS#8, PKCS#1 or EC), for servers that ask
	// for one (ssl.clientAuth=need or want). Its subject becomes the
	// session's x509 id in ACLs. Key may be empty when Cert holds both.
	Cert, Key string
}

// Empty reports whether no file is named.
func (f TLSFiles) Empty() bool { return f.CA == "" && f.Cert == "" && f.Key == "" }

// Config loads the files into a tls.Config. Errors name the file and what
// is wrong with it.
func (f TLSFiles) Config() (*tls.Config, error) {
	cfg := &tls.Config{MinVersion: tls.VersionTLS12}
	if f.CA != "" {
		data, err := os.ReadFile(f.CA)
		if err != nil {
			return nil, fmt.Errorf("TLS CA file: %w", err)
		}
		pool := x509.NewCertPool()
		n, err := addPEMCerts(pool, data)
		if err != nil {
			return nil, fmt.Errorf("TLS CA file %s: %w", f.CA, err)
		}
		if n == 0 {
			return nil, fmt.Errorf("TLS CA file %s: no PEM certificate in it", f.CA)
		}
		cfg.RootCAs = pool
	}
	switch {
	case f.Cert == "" && f.Key != "":
		return nil, fmt.Errorf("TLS key file %s given without a certificate file", f.Key)
	case f.Cert != "":
		key := f.Key
		if key == "" {
			key = f.Cert
		}
		pair, err := tls.LoadX509KeyPair(f.Cert, key)
		if err != nil {
			return nil, fmt.Errorf("TLS client certificate %s, key %s: %w", f.Cert, key, keyPairCause(err))
		}
		cfg.Certificates = []tls.Certificate{pair}
		// Go's client leaves out a certificate whose issuer is not among
		// the CAs the server says it accepts, and the server then
		// complains that none came; sending it anyway gets the server's
		// real verdict on it.
		cfg.GetClientCertificate = func(*tls.CertificateRequestInfo) (*tls.Certificate, error) { return &pair, nil }
	}
	return cfg, nil
}

// addPEMCerts adds every CERTIFICATE block of data to pool.
func addPEMCerts(pool *x509.CertPool, data []byte) (int, error) {
	n := 0
	for {
		var block *pem.Block
		block, data = pem.Decode(data)
		if block == nil {
			return n, nil
		}
		if block.Type != "CERTIFICATE" {
			continue
		}
		cert, err := x509.ParseCertificate(block.Bytes)
		if err != nil {
			return n, fmt.Errorf("certificate %d: %w", n+1, err)
		}
		pool.AddCert(cert)
		n++
	}
}

// keyPairCause rewords crypto/tls's key pair errors, which speak of
// "input" without saying which file.
func keyPairCause(err error) error {
	msg := err.Error()
	switch {
	case strings.Contains(msg, "failed to find any PEM data in certificate input"):
		return errors.New("the certificate file holds no PEM data")
	case strings.Contains(msg, "failed to find certificate PEM data"):
		return errors.New("the certificate file holds no CERTIFICATE block")
	case strings.Contains(msg, "failed to find any PEM data in key input"), strings.Contains(msg, "failed to find PEM block with type ending in"):
		return errors.New("the key file holds no PRIVATE KEY block (an encrypted key is not supported: decrypt it with openssl pkey)")
	case strings.Contains(msg, "private key does not match public key"):
		return errors.New("the private key does not belong to the certificate")
	}
	return err
}

// ClientID is the id ZooKeeper's x509 authentication gives a session that
// presents cfg's client certificate ("" without one): the certificate's
// subject as Java prints it, e.g. "CN=ktopo,O=ops".
func ClientID(cfg *tls.Config) string {
	if cfg == nil || len(cfg.Certificates) == 0 || len(cfg.Certificates[0].Certificate) == 0 {
		return ""
	}
	leaf := cfg.Certificates[0].Leaf
	if leaf == nil {
		var err error
		if leaf, err = x509.ParseCertificate(cfg.Certificates[0].Certificate[0]); err != nil {
			return ""
		}
	}
	return x509id.Subject(leaf)
}

// TLSError is a failed TLS handshake with one server, with what it most
// likely means.
type TLSError struct {
	Addr string
	Err  error
	// ClientCert is the subject of the client certificate offered ("" for
	// none).
	ClientCert string
}

func (e *TLSError) Error() string { return "TLS: " + tlsCause(e.Err, e.ClientCert != "") }

// Unwrap returns the handshake's error.
func (e *TLSError) Unwrap() error { return e.Err }

// tlsCause explains a TLS handshake error in an operator's terms.
func tlsCause(err error, clientCert bool) string {
	var unknown x509.UnknownAuthorityError
	var host x509.HostnameError
	var invalid x509.CertificateInvalidError
	var verify *tls.CertificateVerificationError
	switch {
	case errors.As(err, &unknown):
		issuer := ""
		if unknown.Cert != nil {
			issuer = " (issued by " + x509id.Subject(&x509.Certificate{RawSubject: unknown.Cert.RawIssuer, Subject: unknown.Cert.Issuer}) + ")"
		}
		return "the server's certificate" + issuer + " is not signed by a trusted CA: give the CA that signed it with --zk-tls-ca (" + unknown.Error() + ")"
	case errors.As(err, &host):
		return "the server's certificate does not name the address connected to: " + host.Error()
	case errors.As(err, &invalid) && invalid.Reason == x509.Expired:
		return "the server's certificate has expired or is not valid yet: " + invalid.Error()
	case errors.As(err, &verify):
		return "the server's certificate was refused: " + verify.Err.Error()
	case errors.Is(err, io.EOF), errors.Is(err, syscall.ECONNRESET), errors.Is(err, io.ErrUnexpectedEOF):
		return "the server closed the connection during the TLS handshake: this is probably a plaintext port (ZooKeeper serves TLS on its secureClientPort, with serverCnxnFactory=org.apache.zookeeper.server.NettyServerCnxnFactory)"
	case strings.Contains(err.Error(), "first record does not look like a TLS handshake"):
		return "the server answered in plaintext: this is not a TLS port (ZooKeeper serves TLS on its secureClientPort)"
	case strings.Contains(err.Error(), "remote error: tls:"):
		return remoteAlert(err, clientCert)
	}
	return err.Error()
}

// remoteAlert explains an alert the server sent: with TLS 1.3 a refused
// client certificate shows only after the handshake, on the first read.
// Servers name the trouble differently (Java: "bad certificate", "unknown
// certificate"; Go: "certificate required", "expired certificate"), so any
// alert about a certificate is read as about the client's.
func remoteAlert(err error, clientCert bool) string {
	msg := err.Error()
	var op *net.OpError
	if errors.As(err, &op) && op.Err != nil {
		msg = op.Op + ": " + op.Err.Error()
	}
	switch {
	case !clientCert && (strings.Contains(msg, "certificate") || strings.Contains(msg, "handshake failure")):
		return "the server wants a client certificate: give one with --zk-tls-cert and --zk-tls-key (" + msg + ")"
	case strings.Contains(msg, "certificate"):
		return "the server refused the client certificate (--zk-tls-cert): it must be valid (not expired) and signed by a CA in the server's ssl.trustStore (" + msg + ")"
	}
	return "the server ended the handshake: " + msg
}

// isTLSAlert reports whether err is an alert received from the server.
func isTLSAlert(err error) bool {
	return err != nil && strings.Contains(err.Error(), "remote error: tls:")
}
