package zkwatch

import (
	"errors"
	"fmt"
	"path"
	"strings"

	"github.com/go-zookeeper/zk"
)

// AccessError is a write ZooKeeper refused for want of permission
// (NoAuth, -102): it names the node whose ACL decided, what that ACL
// grants to whom, who this session is, and which credentials would be
// allowed. A refused multi wrote nothing (ZooKeeper applies it whole or
// not at all). errors.Is(err, zk.ErrNoAuth) holds.
type AccessError struct {
	Op   string // "create", "set", "delete", "check"
	Path string // the refused operation's path (chroot-relative)
	// Node is the node whose ACL is checked: the parent for create and
	// delete, the node itself for set and check.
	Node string
	Perm int32 // the permission needed on Node (zk.PermCreate, …)
	// ACL is Node's ACL; nil when it could not be read (ACLErr says why).
	ACL    []zk.ACL
	ACLErr error
	// Identities are the session's authenticated ids ("x509:CN=…",
	// "digest:admin"; never a password); none means world:anyone only.
	Identities []string
	// Multi is set when the operation was one of a multi's.
	Multi bool
}

// Unwrap makes errors.Is(err, zk.ErrNoAuth) true.
func (e *AccessError) Unwrap() error { return zk.ErrNoAuth }

func (e *AccessError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "zookeeper refused to %s %s: no %s permission on %s", e.Op, e.Path, PermName(e.Perm), e.Node)
	switch {
	case e.ACL != nil:
		grants := e.grants()
		if len(grants) == 0 {
			fmt.Fprintf(&b, ", whose ACL (%s) grants it to no one", FormatACL(e.ACL))
		} else {
			fmt.Fprintf(&b, ", whose ACL grants it only to %s", strings.Join(grants, ", "))
		}
	case e.ACLErr != nil:
		fmt.Fprintf(&b, " (its ACL cannot be read either: %v)", e.ACLErr)
	}
	if len(e.Identities) == 0 {
		b.WriteString("; this session is not authenticated (world:anyone)")
	} else {
		fmt.Fprintf(&b, "; this session is %s", strings.Join(e.Identities, ", "))
	}
	if e.Multi {
		b.WriteString("; nothing was written (the multi failed as a whole)")
	} else {
		b.WriteString("; nothing was written")
	}
	b.WriteString(". Needed: " + strings.Join(e.Credentials(), ", or "))
	return b.String()
}

// grants lists the ACL's ids that hold the permission.
func (e *AccessError) grants() []string {
	var out []string
	for _, a := range e.ACL {
		if a.Perms&e.Perm != 0 {
			out = append(out, aclID(a))
		}
	}
	return out
}

// Credentials says, for each ACL entry that grants the permission, what
// ktopo would have to connect with, and always ZooKeeper's super user.
func (e *AccessError) Credentials() []string {
	var out []string
	for _, a := range e.ACL {
		if a.Perms&e.Perm == 0 {
			continue
		}
		switch a.Scheme {
		case "digest":
			user, _, _ := strings.Cut(a.ID, ":")
			out = append(out, fmt.Sprintf("the digest user %q (--zk-digest %s:PASSWORD, or KTOPO_ZK_DIGEST, or a context's digest)", user, user))
		case "x509":
			out = append(out, fmt.Sprintf("a TLS client certificate with the subject %q, signed by a CA the server trusts (--zk-tls-cert, --zk-tls-key)", a.ID))
		case "sasl":
			out = append(out, fmt.Sprintf("the SASL principal %q (which ktopo cannot use: its ZooKeeper client has no SASL)", a.ID))
		case "ip":
			out = append(out, "a connection from "+a.ID)
		case "world":
		default:
			out = append(out, "the "+a.Scheme+" id "+a.ID)
		}
	}
	return append(out, "ZooKeeper's super user (--zk-digest super:PASSWORD where the server sets zookeeper.DigestAuthenticationProvider.superDigest, "+
		"or the certificate named by zookeeper.X509AuthenticationProvider.superUser)")
}

// aclID shows an ACL entry's id; a digest id's hash is left out (it is a
// password equivalent for an offline guess).
func aclID(a zk.ACL) string {
	if a.Scheme == "digest" {
		user, _, _ := strings.Cut(a.ID, ":")
		return "digest:" + user
	}
	return a.Scheme + ":" + a.ID
}

// FormatACL shows an ACL as "x509:CN=kafka=cdrwa, world:anyone=r", with
// digest hashes left out.
func FormatACL(acl []zk.ACL) string {
	parts := make([]string, len(acl))
	for i, a := range acl {
		parts[i] = aclID(a) + "=" + permLetters(a.Perms)
	}
	return strings.Join(parts, ", ")
}

// permLetters is zkCli's cdrwa notation.
func permLetters(p int32) string {
	var b strings.Builder
	for _, x := range []struct {
		bit int32
		c   byte
	}{{zk.PermCreate, 'c'}, {zk.PermDelete, 'd'}, {zk.PermRead, 'r'}, {zk.PermWrite, 'w'}, {zk.PermAdmin, 'a'}} {
		if p&x.bit != 0 {
			b.WriteByte(x.c)
		}
	}
	return b.String()
}

// PermName names one permission bit as ZooKeeper's docs do.
func PermName(p int32) string {
	switch p {
	case zk.PermCreate:
		return "CREATE"
	case zk.PermDelete:
		return "DELETE"
	case zk.PermRead:
		return "READ"
	case zk.PermWrite:
		return "WRITE"
	case zk.PermAdmin:
		return "ADMIN"
	}
	return permLetters(p)
}

// Identities returns the session's authenticated ids as ZooKeeper names
// them: "digest:<user>" (never the password) and "x509:<subject>" of the
// client certificate presented (the server authenticates it when it asks
// for certificates, ssl.clientAuth=need or want).
func (c *Conn) Identities() []string { return c.ids }

// GetACL returns a node's ACL and stat. ZooKeeper (3.5+) answers it only
// with READ or ADMIN permission on the node; without ADMIN digest hashes
// come back as "x".
func (c *Conn) GetACL(p string) ([]zk.ACL, *zk.Stat, error) {
	fp, err := c.full(p)
	if err != nil {
		return nil, nil, err
	}
	return deadline3(bg, c, "getACL", p, func() ([]zk.ACL, *zk.Stat, error) { return c.raw.GetACL(fp) })
}

// refused turns a NoAuth answer to a write into an *AccessError (reading
// the deciding node's ACL to say who may); any other error passes.
func (c *Conn) refused(op, p string, multi bool, err error) error {
	if !errors.Is(err, zk.ErrNoAuth) {
		return err
	}
	e := &AccessError{Op: op, Path: p, Node: p, Identities: c.ids, Multi: multi}
	switch op {
	case "create":
		e.Node, e.Perm = parentOf(p), zk.PermCreate
	case "delete":
		e.Node, e.Perm = parentOf(p), zk.PermDelete
	case "set":
		e.Perm = zk.PermWrite
	case "setACL":
		e.Perm = zk.PermAdmin
	case "check":
		e.Perm = zk.PermRead
	}
	e.ACL, _, e.ACLErr = c.GetACL(e.Node)
	if e.ACLErr != nil {
		e.ACL = nil
	}
	return e
}

// refusedMulti explains a multi refused at one of its operations.
func (c *Conn) refusedMulti(ops []any, res []zk.MultiResponse, err error) error {
	if !errors.Is(err, zk.ErrNoAuth) {
		return err
	}
	for i, r := range res {
		if !errors.Is(r.Error, zk.ErrNoAuth) || i >= len(ops) {
			continue
		}
		switch o := ops[i].(type) {
		case *zk.CreateRequest:
			return c.refused("create", o.Path, true, err)
		case *zk.SetDataRequest:
			return c.refused("set", o.Path, true, err)
		case *zk.DeleteRequest:
			return c.refused("delete", o.Path, true, err)
		case *zk.CheckVersionRequest:
			return c.refused("check", o.Path, true, err)
		}
	}
	return err
}

func parentOf(p string) string {
	if d := path.Dir(p); d != "." {
		return d
	}
	return "/"
}

// SetACL replaces a node's ACL if its ACL version (aversion) matches (-1:
// any). It needs ADMIN on the node.
func (c *Conn) SetACL(p string, acl []zk.ACL, version int32) (*zk.Stat, error) {
	if err := c.writable("setACL", p); err != nil {
		return nil, err
	}
	fp, err := c.full(p)
	if err != nil {
		return nil, err
	}
	st, err := deadline(bg, c, "setACL", p, func() (*zk.Stat, error) { return c.raw.SetACL(fp, acl, version) })
	return st, c.refused("setACL", p, false, err)
}
