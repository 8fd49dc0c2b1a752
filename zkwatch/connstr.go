package zkwatch

import (
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
)

// DefaultPort is the port assumed for a server given without one, as the
// Java client does.
const DefaultPort = 2181

// ConnectString is a parsed ZooKeeper connect string
// "host:port[,host:port…][/chroot]".
type ConnectString struct {
	// Servers are "host:port" entries in the order given (IPv6 hosts keep
	// their brackets).
	Servers []string
	// Chroot is the path every request is relative to ("" for none). It
	// never ends in "/".
	Chroot string
}

// String formats the connect string back ("h1:2181,h2:2181/kafka").
func (cs ConnectString) String() string {
	return strings.Join(cs.Servers, ",") + cs.Chroot
}

// ParseConnectString splits and validates a connect string. Like the Java
// client, everything from the first "/" is the chroot; "/" alone means none.
// A server without a port gets DefaultPort.
func ParseConnectString(s string) (ConnectString, error) {
	var cs ConnectString
	raw := strings.TrimSpace(s)
	if raw == "" {
		return cs, fmt.Errorf("empty ZooKeeper connect string (want host:port[,host:port…][/chroot])")
	}
	if scheme, rest, ok := strings.Cut(raw, "://"); ok && isScheme(scheme) {
		return cs, fmt.Errorf("connect string %q starts with a URL scheme (%s://): a ZooKeeper connect string is host:port[,host:port…][/chroot], without one: %s", s, scheme, rest)
	}
	hosts := raw
	if i := strings.IndexByte(raw, '/'); i >= 0 {
		hosts, cs.Chroot = raw[:i], raw[i:]
		if cs.Chroot == "/" {
			cs.Chroot = ""
		} else if err := validatePath(cs.Chroot); err != nil {
			return ConnectString{}, fmt.Errorf("connect string %q: invalid chroot %q: %w", s, cs.Chroot, err)
		}
	}
	if strings.TrimSpace(hosts) == "" {
		return ConnectString{}, fmt.Errorf("connect string %q names no server", s)
	}
	for _, h := range strings.Split(hosts, ",") {
		h = strings.TrimSpace(h)
		if h == "" {
			return ConnectString{}, fmt.Errorf("connect string %q: empty server entry", s)
		}
		srv, err := parseServer(h)
		if err != nil {
			return ConnectString{}, fmt.Errorf("connect string %q: %w", s, err)
		}
		cs.Servers = append(cs.Servers, srv)
	}
	return cs, nil
}

// isScheme reports a URL scheme (http, zk, PLAINTEXT): a letter, then
// letters, digits, "+", "-", "." or "_".
func isScheme(s string) bool {
	for i, r := range s {
		letter := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z'
		if !letter && (i == 0 || !(r >= '0' && r <= '9' || strings.ContainsRune("+-._", r))) {
			return false
		}
	}
	return s != ""
}

// parseServer validates one "host[:port]" entry and returns "host:port".
func parseServer(h string) (string, error) {
	host, port := h, strconv.Itoa(DefaultPort)
	// A bare IPv6 address has several colons and no brackets: it has no port.
	bareV6 := strings.Count(h, ":") > 1 && !strings.HasPrefix(h, "[")
	if strings.Contains(h, ":") && !bareV6 {
		var err error
		host, port, err = net.SplitHostPort(h)
		if err != nil {
			return "", fmt.Errorf("server %q: %v", h, stripAddrErr(err))
		}
	}
	if host == "" {
		return "", fmt.Errorf("server %q: empty host", h)
	}
	if strings.ContainsAny(host, " \t/") {
		return "", fmt.Errorf("server %q: invalid host %q", h, host)
	}
	n, err := strconv.Atoi(port)
	if err != nil || n < 1 || n > 65535 {
		return "", fmt.Errorf("server %q: bad port %q (want 1-65535)", h, port)
	}
	return net.JoinHostPort(host, port), nil
}

// stripAddrErr keeps only the reason from a *net.AddrError, whose message
// repeats the address.
func stripAddrErr(err error) string {
	if ae := (*net.AddrError)(nil); errors.As(err, &ae) {
		return ae.Err
	}
	return err.Error()
}

// validatePath checks an absolute znode path the way ZooKeeper does (apart
// from the character classes, which the server checks): it starts with "/",
// has no empty, "." or ".." component and does not end in "/" (unless it
// is "/").
func validatePath(p string) error {
	if p == "" || p[0] != '/' {
		return fmt.Errorf("path must start with /")
	}
	if p == "/" {
		return nil
	}
	if strings.HasSuffix(p, "/") {
		return fmt.Errorf("path must not end with /")
	}
	for _, part := range strings.Split(p[1:], "/") {
		switch part {
		case "":
			return fmt.Errorf("empty node name")
		case ".", "..":
			return fmt.Errorf("relative node name %q", part)
		}
		if strings.IndexByte(part, 0) >= 0 {
			return fmt.Errorf("null character in node name")
		}
	}
	return nil
}
