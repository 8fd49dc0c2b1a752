// Package x509id computes the id ZooKeeper's X509AuthenticationProvider
// gives a TLS client: its certificate's subject as Java's
// X500Principal.getName() prints it (RFC 2253). ACLs name clients by it
// ("x509:CN=kafka,O=example"), so the client (to say who it is) and the
// embedded server (to match ACLs) must both spell it exactly as Java does.
package x509id

import (
	"crypto/x509"
	"encoding/asn1"
	"encoding/hex"
	"strings"
	"unicode/utf16"
)

// Scheme is ZooKeeper's auth scheme for these ids.
const Scheme = "x509"

// keywords are the attribute types Java's RFC 2253 output names by keyword
// (X500Name's RFC2253 keyword map); every other type is printed as its
// dotted OID with the value's DER in hex ("1.2.840.113549.1.9.1=#16…"),
// the e-mail address and the serial number among them.
var keywords = map[string]string{
	"2.5.4.3":                    "CN",
	"2.5.4.6":                    "C",
	"2.5.4.7":                    "L",
	"2.5.4.8":                    "ST",
	"2.5.4.10":                   "O",
	"2.5.4.11":                   "OU",
	"2.5.4.9":                    "STREET",
	"0.9.2342.19200300.100.1.25": "DC",
	"0.9.2342.19200300.100.1.1":  "UID",
}

type attribute struct {
	Type  asn1.ObjectIdentifier
	Value asn1.RawValue
}

// Subject returns the certificate's subject in Java's RFC 2253 form:
// relative names last to first, comma-separated, "+" between the
// attributes of a multi-valued one.
func Subject(cert *x509.Certificate) string {
	var rdns [][]attribute
	if rest, err := asn1.Unmarshal(cert.RawSubject, &rdns); err != nil || len(rest) > 0 {
		return cert.Subject.String() // unparsable: Go's rendering is the best guess
	}
	parts := make([]string, 0, len(rdns))
	for i := len(rdns) - 1; i >= 0; i-- {
		atvs := make([]string, 0, len(rdns[i]))
		for _, a := range rdns[i] {
			atvs = append(atvs, format(a))
		}
		parts = append(parts, strings.Join(atvs, "+"))
	}
	return strings.Join(parts, ",")
}

// ID is the certificate's ZooKeeper id: the subject (without the scheme).
func ID(cert *x509.Certificate) string { return Subject(cert) }

func format(a attribute) string {
	oid := a.Type.String()
	kw, known := keywords[oid]
	s, isString := decodeString(a.Value)
	if !known || !isString {
		return oid + "=#" + hex.EncodeToString(a.Value.FullBytes)
	}
	return kw + "=" + escape(s)
}

// decodeString decodes the directory string types Java prints as text.
func decodeString(v asn1.RawValue) (string, bool) {
	if v.Class != asn1.ClassUniversal {
		return "", false
	}
	switch v.Tag {
	case asn1.TagUTF8String, asn1.TagPrintableString, asn1.TagIA5String, asn1.TagT61String, 28 /* UniversalString */ :
		if v.Tag == 28 {
			var rs []rune
			for i := 0; i+3 < len(v.Bytes); i += 4 {
				rs = append(rs, rune(uint32(v.Bytes[i])<<24|uint32(v.Bytes[i+1])<<16|uint32(v.Bytes[i+2])<<8|uint32(v.Bytes[i+3])))
			}
			return string(rs), true
		}
		return string(v.Bytes), true
	case asn1.TagBMPString:
		u := make([]uint16, 0, len(v.Bytes)/2)
		for i := 0; i+1 < len(v.Bytes); i += 2 {
			u = append(u, uint16(v.Bytes[i])<<8|uint16(v.Bytes[i+1]))
		}
		return string(utf16.Decode(u)), true
	}
	return "", false
}

// escape quotes a value as Java's AVA.toRFC2253String does: a backslash
// before each of , = + < > # ; " \ anywhere, and before every leading and
// trailing space.
func escape(s string) string {
	lead := len(s) - len(strings.TrimLeft(s, " "))
	trail := len(s) - len(strings.TrimRight(s, " "))
	if lead == len(s) {
		trail = 0
	}
	var b strings.Builder
	for i, r := range s {
		if strings.ContainsRune(",=+<>#;\"\\", r) || (r == ' ' && (i < lead || i >= len(s)-trail)) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}
