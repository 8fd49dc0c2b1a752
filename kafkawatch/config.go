package kafkawatch

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/sasl"
	"github.com/twmb/franz-go/pkg/sasl/plain"
	"github.com/twmb/franz-go/pkg/sasl/scram"
	"software.sslmate.com/src/go-pkcs12"
)

// Security is how ktopo authenticates to the brokers and protects the
// connection: what a Kafka client's properties file (--command-config)
// says, as far as a Go client can honour it (ClientConfig).
type Security struct {
	// Protocol is security.protocol: PLAINTEXT, SSL, SASL_PLAINTEXT or
	// SASL_SSL.
	Protocol string
	// TLS is set for SSL and SASL_SSL.
	TLS *tls.Config
	// SASL is set for SASL_PLAINTEXT and SASL_SSL; Mechanism names it
	// (PLAIN, SCRAM-SHA-256, SCRAM-SHA-512) and User is its username.
	SASL      sasl.Mechanism
	Mechanism string
	User      string
	// ClientID is client.id ("" for ktopo's own).
	ClientID string
	// RequestTimeout is request.timeout.ms (0: the default).
	RequestTimeout time.Duration
	// Bootstrap is bootstrap.servers, when the file names them.
	Bootstrap []string
	// Ignored are the keys ktopo does not use (producer, consumer and
	// tuning settings), for the log.
	Ignored []string
}

// The properties ktopo refuses whatever their value: they name Java
// classes or providers a Go client cannot load, and ignoring them would
// connect otherwise than the file says.
var refusedKeys = []string{
	"sasl.login.class", "sasl.login.callback.handler.class", "sasl.client.callback.handler.class",
	"ssl.engine.factory.class", "security.providers", "ssl.provider", "config.providers",
}

// honoured are the keys ClientConfig reads.
var honoured = []string{
	"bootstrap.servers", "security.protocol", "client.id", "request.timeout.ms",
	"sasl.mechanism", "sasl.jaas.config",
	"ssl.truststore.type", "ssl.truststore.location", "ssl.truststore.password", "ssl.truststore.certificates",
	"ssl.keystore.type", "ssl.keystore.location", "ssl.keystore.password", "ssl.keystore.key",
	"ssl.keystore.certificate.chain", "ssl.key.password",
	"ssl.endpoint.identification.algorithm", "ssl.enabled.protocols", "ssl.protocol",
}

// ClientConfig reads the connection settings of a Kafka client's
// properties (what kafka-topics.sh --command-config takes): TLS with PEM
// or PKCS12 trust and key stores, SASL PLAIN and SCRAM-SHA-256/512 with
// sasl.jaas.config as Kafka clients write it. What a Go client cannot
// honour is refused with a message saying what to do instead: JKS stores
// (convert them to PKCS12), encrypted PEM keys, GSSAPI and OAUTHBEARER,
// Java classes and config providers. Other client settings (producer,
// consumer, tuning) are listed in Ignored.
func ClientConfig(p *Properties) (Security, error) {
	var s Security
	for _, k := range p.Keys() {
		v, _ := p.Get(k)
		if slices.Contains(refusedKeys, k) {
			return s, fmt.Errorf("%s: ktopo cannot load Java classes or providers (a Go client); remove it", p.where(k))
		}
		if strings.Contains(v, "${") {
			return s, fmt.Errorf("%s: config provider references (${…}) are not supported: put the value itself in the file", p.where(k))
		}
		if !slices.Contains(honoured, k) {
			s.Ignored = append(s.Ignored, k)
		}
	}
	get := func(k string) string { v, _ := p.Get(k); return strings.TrimSpace(v) }
	if b := get("bootstrap.servers"); b != "" {
		s.Bootstrap = SplitBootstrap(b)
	}
	s.ClientID = get("client.id")
	if v := get("request.timeout.ms"); v != "" {
		ms, err := strconv.Atoi(v)
		if err != nil || ms <= 0 {
			return s, fmt.Errorf("%s: Invalid value %s for configuration request.timeout.ms: Not a number of type INT", p.where("request.timeout.ms"), v)
		}
		s.RequestTimeout = time.Duration(ms) * time.Millisecond
	}
	s.Protocol = strings.ToUpper(get("security.protocol"))
	if s.Protocol == "" {
		s.Protocol = "PLAINTEXT"
	}
	var useTLS, useSASL bool
	switch s.Protocol {
	case "PLAINTEXT":
	case "SSL":
		useTLS = true
	case "SASL_PLAINTEXT":
		useSASL = true
	case "SASL_SSL":
		useTLS, useSASL = true, true
	default:
		return s, fmt.Errorf("%s: Invalid value %s for configuration security.protocol: String must be one of: PLAINTEXT, SSL, SASL_PLAINTEXT, SASL_SSL", p.where("security.protocol"), s.Protocol)
	}
	if useTLS {
		cfg, err := tlsConfig(p)
		if err != nil {
			return s, err
		}
		s.TLS = cfg
	}
	if useSASL {
		if err := saslConfig(p, &s); err != nil {
			return s, err
		}
	}
	return s, nil
}

// SplitBootstrap splits a bootstrap list (host:port[,host:port…]).
func SplitBootstrap(list string) []string {
	var out []string
	for _, h := range strings.Split(list, ",") {
		if h = strings.TrimSpace(h); h != "" {
			out = append(out, h)
		}
	}
	return out
}

// bootstrapEntry is how Kafka's clients read an entry of
// bootstrap.servers (Utils.getHost and getPort): host:port, the host
// perhaps in brackets (IPv6), perhaps after a scheme, which they drop
// (PLAINTEXT://, as listeners are written, or http://).
var bootstrapEntry = regexp.MustCompile(`^(?:[0-9a-zA-Z\-%._]*://)?\[?([0-9a-zA-Z\-%._:]*)]?:([0-9]+)$`)

// ParseBootstrap reads a bootstrap list (host:port[,host:port…]) as
// Kafka's clients read bootstrap.servers: a scheme before an entry is
// dropped, an entry without a port is refused in Kafka's words.
func ParseBootstrap(list string) ([]string, error) {
	var out []string
	for _, e := range SplitBootstrap(list) {
		m := bootstrapEntry.FindStringSubmatch(e)
		if m == nil {
			return nil, fmt.Errorf("Invalid url in bootstrap.servers: %s (want host:port, a broker's listener)", e)
		}
		if port, err := strconv.Atoi(m[2]); err != nil || port > 65535 {
			return nil, fmt.Errorf("Invalid url in bootstrap.servers: %s: port out of range: %s", e, m[2])
		}
		out = append(out, net.JoinHostPort(m[1], m[2]))
	}
	return out, nil
}

func saslConfig(p *Properties, s *Security) error {
	mech, _ := p.Get("sasl.mechanism")
	mech = strings.ToUpper(strings.TrimSpace(mech))
	if mech == "" {
		mech = "GSSAPI" // Kafka's default
	}
	s.Mechanism = mech
	switch mech {
	case "PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512":
	case "GSSAPI", "OAUTHBEARER":
		return fmt.Errorf("%s: SASL mechanism %s is not supported by ktopo (PLAIN, SCRAM-SHA-256 and SCRAM-SHA-512 are)", p.where("sasl.mechanism"), mech)
	default:
		return fmt.Errorf("%s: unknown SASL mechanism %s (ktopo supports PLAIN, SCRAM-SHA-256 and SCRAM-SHA-512)", p.where("sasl.mechanism"), mech)
	}
	jaas, ok := p.Get("sasl.jaas.config")
	if !ok || strings.TrimSpace(jaas) == "" {
		return fmt.Errorf("%s: sasl.jaas.config is missing: a SASL/%s client needs its username and password there", p.Path, mech)
	}
	login, err := ParseJAAS(jaas)
	if err != nil {
		return fmt.Errorf("%s: %w", p.where("sasl.jaas.config"), err)
	}
	want := "org.apache.kafka.common.security.plain.PlainLoginModule"
	if mech != "PLAIN" {
		want = "org.apache.kafka.common.security.scram.ScramLoginModule"
	}
	if login.Module != want {
		return fmt.Errorf("%s: SASL/%s needs %s, not %s", p.where("sasl.jaas.config"), mech, want, login.Module)
	}
	user, pass := login.Options["username"], login.Options["password"]
	if user == "" {
		return fmt.Errorf("%s: %s has no username", p.where("sasl.jaas.config"), login.Module)
	}
	s.User = user
	switch mech {
	case "PLAIN":
		s.SASL = plain.Auth{User: user, Pass: pass}.AsMechanism()
	default:
		a := scram.Auth{User: user, Pass: pass, IsToken: login.Options["tokenauth"] == "true"}
		if mech == "SCRAM-SHA-256" {
			s.SASL = a.AsSha256Mechanism()
		} else {
			s.SASL = a.AsSha512Mechanism()
		}
	}
	return nil
}

// JAASLogin is one login module entry of a JAAS configuration.
type JAASLogin struct {
	Module  string
	Flag    string
	Options map[string]string
}

// ParseJAAS parses sasl.jaas.config: "<LoginModule> <flag> key=value …;"
// with double-quoted values (\" and \\ escaped) as Kafka clients write it.
// One entry only, as Kafka requires of a client.
func ParseJAAS(s string) (JAASLogin, error) {
	var l JAASLogin
	toks, err := jaasTokens(s)
	if err != nil {
		return l, err
	}
	if len(toks) < 3 || toks[len(toks)-1] != ";" {
		return l, errors.New("JAAS config entry not terminated by semi-colon")
	}
	toks = toks[:len(toks)-1]
	if slices.Contains(toks, ";") {
		return l, errors.New("JAAS config property contains 2 login modules, should be 1 module")
	}
	l.Module, l.Flag = toks[0], strings.ToLower(toks[1])
	switch l.Flag {
	case "required", "requisite", "sufficient", "optional":
	default:
		return l, fmt.Errorf("invalid JAAS login module control flag %q", toks[1])
	}
	l.Options = map[string]string{}
	rest := toks[2:]
	for i := 0; i < len(rest); i += 3 {
		k := rest[i]
		if i+2 >= len(rest) || rest[i+1] != "=" || strings.HasPrefix(k, "\x00") || k == "=" {
			return l, fmt.Errorf("JAAS option %s has no value (key=value)", strings.TrimPrefix(k, "\x00"))
		}
		l.Options[k] = strings.TrimPrefix(rest[i+2], "\x00")
	}
	return l, nil
}

// jaasTokens splits a JAAS entry into words, "=", ";" and quoted values
// (prefixed with NUL so that a quoted "=" is not the separator).
func jaasTokens(s string) ([]string, error) {
	var toks []string
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case c == '=' || c == ';':
			toks = append(toks, string(c))
			i++
		case c == '"':
			var b strings.Builder
			i++
			for ; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) {
					i++
				}
				b.WriteByte(s[i])
			}
			if i >= len(s) {
				return nil, errors.New("unterminated quoted string in sasl.jaas.config")
			}
			i++
			toks = append(toks, "\x00"+b.String())
		default:
			j := i
			for j < len(s) && !strings.ContainsRune(" \t\n\r=;\"", rune(s[j])) {
				j++
			}
			toks = append(toks, s[i:j])
			i = j
		}
	}
	return toks, nil
}

func tlsConfig(p *Properties) (*tls.Config, error) {
	get := func(k string) string { v, _ := p.Get(k); return strings.TrimSpace(v) }
	cfg := &tls.Config{MinVersion: tls.VersionTLS12}
	if v := get("ssl.enabled.protocols"); v != "" {
		lowest := uint16(0)
		for _, name := range strings.Split(v, ",") {
			ver, ok := tlsVersions[strings.TrimSpace(name)]
			if !ok {
				return nil, fmt.Errorf("%s: unknown TLS protocol %q (TLSv1.2, TLSv1.3)", p.where("ssl.enabled.protocols"), strings.TrimSpace(name))
			}
			if lowest == 0 || ver < lowest {
				lowest = ver
			}
		}
		cfg.MinVersion = lowest
	}
	// The trust store: the servers' CAs (default: the system's).
	roots, err := trustStore(p)
	if err != nil {
		return nil, err
	}
	cfg.RootCAs = roots
	// The key store: the client's certificate for mutual TLS.
	cert, err := keyStore(p)
	if err != nil {
		return nil, err
	}
	if cert != nil {
		cfg.Certificates = []tls.Certificate{*cert}
	}
	alg, set := p.Get("ssl.endpoint.identification.algorithm")
	switch alg = strings.TrimSpace(alg); {
	case !set || strings.EqualFold(alg, "https"):
	case alg == "":
		// Kafka checks the chain but not the host name: Go's verifier
		// does both, so the chain is verified here instead.
		cfg.InsecureSkipVerify = true
		cfg.VerifyConnection = verifyChainOnly(roots)
	default:
		return nil, fmt.Errorf("%s: unknown endpoint identification algorithm %q (https, or empty for none)", p.where("ssl.endpoint.identification.algorithm"), alg)
	}
	return cfg, nil
}

var tlsVersions = map[string]uint16{"TLSv1.2": tls.VersionTLS12, "TLSv1.3": tls.VersionTLS13, "TLSv1.1": tls.VersionTLS11, "TLSv1": tls.VersionTLS10}

// verifyChainOnly verifies the server's chain against roots without the
// host name (ssl.endpoint.identification.algorithm empty).
func verifyChainOnly(roots *x509.CertPool) func(tls.ConnectionState) error {
	return func(cs tls.ConnectionState) error {
		if len(cs.PeerCertificates) == 0 {
			return errors.New("the broker sent no certificate")
		}
		inter := x509.NewCertPool()
		for _, c := range cs.PeerCertificates[1:] {
			inter.AddCert(c)
		}
		_, err := cs.PeerCertificates[0].Verify(x509.VerifyOptions{Roots: roots, Intermediates: inter})
		return err
	}
}

// storeType is a store's type: as given, else guessed from the file
// (Kafka assumes JKS; ktopo reads what it can recognise).
func storeType(p *Properties, typeKey string, data []byte) string {
	if t, ok := p.Get(typeKey); ok && strings.TrimSpace(t) != "" {
		return strings.ToUpper(strings.TrimSpace(t))
	}
	switch {
	case bytes.Contains(data, []byte("-----BEGIN ")):
		return "PEM"
	case len(data) >= 4 && data[0] == 0xfe && data[1] == 0xed && data[2] == 0xfe && data[3] == 0xed:
		return "JKS"
	case len(data) > 0 && data[0] == 0x30:
		return "PKCS12"
	}
	return "JKS"
}

func jksRefusal(p *Properties, key, loc string) error {
	return fmt.Errorf("%s: JKS stores cannot be read by ktopo; convert it to PKCS12 and set %s=PKCS12:\n  keytool -importkeystore -srckeystore %s -destkeystore %s.p12 -deststoretype PKCS12",
		p.where(key), key, loc, strings.TrimSuffix(loc, ".jks"))
}

func trustStore(p *Properties) (*x509.CertPool, error) {
	get := func(k string) string { v, _ := p.Get(k); return strings.TrimSpace(v) }
	inline, loc := get("ssl.truststore.certificates"), get("ssl.truststore.location")
	if inline == "" && loc == "" {
		return nil, nil // the system's
	}
	if inline != "" {
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM([]byte(inline)) {
			return nil, fmt.Errorf("%s: no PEM certificate in it", p.where("ssl.truststore.certificates"))
		}
		return pool, nil
	}
	data, err := os.ReadFile(loc)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p.where("ssl.truststore.location"), err)
	}
	switch t := storeType(p, "ssl.truststore.type", data); t {
	case "PEM":
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(data) {
			return nil, fmt.Errorf("%s: %s holds no PEM certificate", p.where("ssl.truststore.location"), loc)
		}
		return pool, nil
	case "PKCS12":
		certs, err := pkcs12.DecodeTrustStore(data, get("ssl.truststore.password"))
		if err != nil {
			// A PKCS12 file holding a key entry rather than trusted
			// certificates: its chain's certificates are what to trust.
			if _, cert, cas, err2 := pkcs12.DecodeChain(data, get("ssl.truststore.password")); err2 == nil {
				certs = append([]*x509.Certificate{cert}, cas...)
			} else {
				return nil, fmt.Errorf("%s: %s: %w", p.where("ssl.truststore.location"), loc, err)
			}
		}
		pool := x509.NewCertPool()
		for _, c := range certs {
			pool.AddCert(c)
		}
		return pool, nil
	case "JKS":
		return nil, jksRefusal(p, "ssl.truststore.type", loc)
	default:
		return nil, fmt.Errorf("%s: unknown store type %s (PEM, PKCS12)", p.where("ssl.truststore.type"), t)
	}
}

func keyStore(p *Properties) (*tls.Certificate, error) {
	get := func(k string) string { v, _ := p.Get(k); return strings.TrimSpace(v) }
	chain, key, loc := get("ssl.keystore.certificate.chain"), get("ssl.keystore.key"), get("ssl.keystore.location")
	switch {
	case chain != "" || key != "":
		return pemKeyPair(p, "ssl.keystore.key", []byte(chain), []byte(key))
	case loc == "":
		return nil, nil
	}
	data, err := os.ReadFile(loc)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p.where("ssl.keystore.location"), err)
	}
	switch t := storeType(p, "ssl.keystore.type", data); t {
	case "PEM":
		return pemKeyPair(p, "ssl.keystore.location", data, data)
	case "PKCS12":
		pk, cert, cas, err := pkcs12.DecodeChain(data, get("ssl.keystore.password"))
		if err != nil {
			return nil, fmt.Errorf("%s: %s: %w", p.where("ssl.keystore.location"), loc, err)
		}
		c := tls.Certificate{PrivateKey: pk, Leaf: cert, Certificate: [][]byte{cert.Raw}}
		for _, ca := range cas {
			c.Certificate = append(c.Certificate, ca.Raw)
		}
		return &c, nil
	case "JKS":
		return nil, jksRefusal(p, "ssl.keystore.type", loc)
	default:
		return nil, fmt.Errorf("%s: unknown store type %s (PEM, PKCS12)", p.where("ssl.keystore.type"), t)
	}
}

// pemKeyPair reads a PEM certificate chain and its private key, refusing
// an encrypted key clearly (Go reads unencrypted PKCS#1, PKCS#8 and EC
// keys).
func pemKeyPair(p *Properties, key string, chain, keyPEM []byte) (*tls.Certificate, error) {
	for rest := keyPEM; ; {
		var b *pem.Block
		b, rest = pem.Decode(rest)
		if b == nil {
			break
		}
		if b.Type == "ENCRYPTED PRIVATE KEY" || b.Headers["Proc-Type"] != "" {
			return nil, fmt.Errorf("%s: the private key is encrypted, which ktopo cannot read; decrypt it:\n  openssl pkcs8 -topk8 -nocrypt -in key.pem -out key-plain.pem", p.where(key))
		}
	}
	c, err := tls.X509KeyPair(chain, keyPEM)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p.where(key), err)
	}
	return &c, nil
}

// plaintextOnTLS is what Explain says of a plaintext client a broker
// turned away.
const plaintextOnTLS = "as a listener that wants TLS does with a client that speaks without it: check the listener's security.protocol (SSL, SASL_SSL) and give it in --command-config"

// Explain adds to an error of a connection made with s what an operator
// can do about it, for the TLS failures whose Go wording does not say:
// a broker that refused the handshake for want of a (good) client
// certificate, an SSL client on a listener that is not SSL. Other errors
// come back as they are.
func (s Security) Explain(err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	switch {
	case s.TLS != nil && (strings.Contains(msg, "tls: bad certificate") || strings.Contains(msg, "tls: certificate required")):
		if len(s.TLS.Certificates) == 0 && s.TLS.GetClientCertificate == nil {
			return fmt.Errorf("%w: the broker's listener wants a client certificate (ssl.client.auth=required): give one in --command-config (ssl.keystore.location, or ssl.keystore.certificate.chain and ssl.keystore.key)", err)
		}
		return fmt.Errorf("%w: the broker did not accept the client certificate of --command-config (is it signed by a CA of the broker's trust store, and still valid?)", err)
	case s.TLS != nil && strings.Contains(msg, "first record does not look like a TLS handshake"):
		return fmt.Errorf("%w: the listener is not an SSL one: check security.protocol in --command-config against the broker's listener", err)
	case s.TLS == nil && (errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF)):
		return fmt.Errorf("%w: the broker closed the connection, %s", err, plaintextOnTLS)
	case s.TLS == nil && strings.Contains(msg, "appear to be a tls alert record"):
		return fmt.Errorf("%w: the broker answered with a TLS alert, %s", err, plaintextOnTLS)
	}
	return err
}
