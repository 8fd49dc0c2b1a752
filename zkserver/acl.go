package zkserver

import (
	"crypto/sha1"
	"encoding/base64"
	"net"
	"strconv"
	"strings"

	"github.com/ktopo/ktopo/internal/x509id"
	"github.com/ktopo/ktopo/zkserver/internal/proto"
)

// digestID returns ZooKeeper's digest id for "user:password" credentials:
// user:base64(sha1("user:password")) (DigestAuthenticationProvider).
func digestID(cred string) string {
	sum := sha1.Sum([]byte(cred))
	user, _, _ := strings.Cut(cred, ":")
	return user + ":" + base64.StdEncoding.EncodeToString(sum[:])
}

// validDigestID mirrors Java's id.split(":").length == 2: trailing empty
// fields are dropped by String.split.
func validDigestID(id string) bool {
	parts := strings.Split(id, ":")
	for len(parts) > 0 && parts[len(parts)-1] == "" {
		parts = parts[:len(parts)-1]
	}
	return len(parts) == 2
}

// ipv4 parses a dotted IPv4 address as IPAuthenticationProvider does.
func ipv4(s string) net.IP {
	ip := net.ParseIP(s)
	if ip == nil || ip.To4() == nil || strings.Contains(s, ":") {
		return nil
	}
	return ip.To4()
}

// validIPID checks an "a.b.c.d[/bits]" ACL id.
func validIPID(id string) bool {
	addr, bits, hasBits := strings.Cut(id, "/")
	if ipv4(addr) == nil {
		return false
	}
	if hasBits {
		n, err := strconv.Atoi(bits)
		return err == nil && n >= 0 && n <= 32
	}
	return true
}

// ipMatches reports whether client address ip falls in ACL id "a.b.c.d[/bits]".
func ipMatches(ip, id string) bool {
	client := ipv4(ip)
	addr, bits, hasBits := strings.Cut(id, "/")
	acl := ipv4(addr)
	if client == nil || acl == nil {
		return false
	}
	n := 32
	if hasBits {
		var err error
		if n, err = strconv.Atoi(bits); err != nil || n < 0 || n > 32 {
			return false
		}
	}
	mask := net.CIDRMask(n, 32)
	return client.Mask(mask).Equal(acl.Mask(mask))
}

// fixupACL validates and expands an ACL list for create and setACL
// (PrepRequestProcessor.fixupACL, spec §13.3). ok is false for -114.
func fixupACL(c *conn, acl []proto.ACL) ([]proto.ACL, bool) {
	if len(acl) == 1 && acl[0].Scheme == "world" && acl[0].ID == "anyone" {
		return acl, true // the common case, without copies (callers never modify it)
	}
	// Remove exact duplicates, keeping the first occurrence.
	uniq := make([]proto.ACL, 0, len(acl))
	for _, a := range acl {
		dup := false
		for _, b := range uniq {
			if a == b {
				dup = true
				break
			}
		}
		if !dup {
			uniq = append(uniq, a)
		}
	}
	if len(uniq) == 0 {
		return nil, false
	}
	out := make([]proto.ACL, 0, len(uniq))
	for _, a := range uniq {
		switch {
		case a.Scheme == "world" && a.ID == "anyone":
			out = append(out, a)
		case a.Scheme == "auth":
			// Expanded to the connection's authenticated ids; ip ids are not
			// "authenticated" in ZooKeeper's sense.
			found := false
			for _, id := range authOrder(c.auth) {
				// The providers whose isAuthenticated() is true.
				if id.scheme == "digest" || id.scheme == x509id.Scheme {
					found = true
					out = append(out, proto.ACL{Perms: a.Perms, Scheme: id.scheme, ID: id.id})
				}
			}
			if !found {
				return nil, false
			}
		case a.Scheme == "digest" && validDigestID(a.ID), a.Scheme == "ip" && validIPID(a.ID),
			a.Scheme == x509id.Scheme && validX509ID(a.ID):
			out = append(out, a)
		default:
			return nil, false
		}
	}
	return out, true
}

// allowed reports whether the connection may do perm on a node with this
// ACL (ZooKeeperServer.checkACL, spec §13.4).
func allowed(c *conn, l *aclList, perm int32) bool {
	if c == nil || l == nil || len(l.acl) == 0 {
		return true
	}
	for _, id := range c.auth {
		if id.scheme == "super" {
			return true
		}
	}
	for _, a := range l.acl {
		if a.Perms&perm == 0 {
			continue
		}
		if a.Scheme == "world" && a.ID == "anyone" {
			return true
		}
		for _, id := range c.auth {
			if id.scheme != a.Scheme {
				continue
			}
			switch a.Scheme {
			case "digest":
				if id.id == a.ID {
					return true
				}
			case "ip":
				if ipMatches(id.id, a.ID) {
					return true
				}
			case x509id.Scheme:
				if id.id == a.ID {
					return true
				}
			}
		}
	}
	return false
}

// addAuth records an authenticated id once per connection.
func (c *conn) addAuth(scheme, id string) {
	for _, a := range c.auth {
		if a.scheme == scheme && a.id == id {
			return
		}
	}
	c.auth = append(c.auth, authID{scheme, id})
}

// validX509ID approximates X509AuthenticationProvider.isValid (an
// X500Principal parses the id): one or more type=value pairs.
func validX509ID(id string) bool {
	for _, part := range strings.Split(id, ",") {
		typ, _, ok := strings.Cut(part, "=")
		if !ok || strings.TrimSpace(typ) == "" {
			return false
		}
	}
	return id != ""
}
