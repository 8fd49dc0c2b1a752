package cluster

import (
	"errors"
	"fmt"
	"path"
	"strings"

	"github.com/go-zookeeper/zk"
)

// sensitiveRoots are Kafka's ZkData.SensitiveRootPaths: with
// zookeeper.set.acl=true, znodes under them get no world READ (SCRAM
// credentials, dynamic broker configs with their encrypted passwords,
// delegation tokens). Kafka matches them as string prefixes.
var sensitiveRoots = []string{"/config/users", "/config/brokers", "/delegation_token/tokens"}

// SensitivePath reports whether Kafka keeps world READ off path when it
// sets ACLs (ZkData.sensitivePath: a prefix match).
func SensitivePath(p string) bool {
	for _, root := range sensitiveRoots {
		if strings.HasPrefix(p, root) {
			return true
		}
	}
	return false
}

// KafkaACL is the ACL Kafka gives a znode it creates (ZkData.defaultAcls):
// with secure (zookeeper.set.acl=true) all permissions for the creator's
// authenticated ids plus READ for anyone, READ left out under the sensitive
// paths; otherwise, and always for the old consumers' /consumers, open to
// anyone.
func KafkaACL(p string, secure bool) []zk.ACL {
	if !secure || p == "/consumers" {
		return zk.WorldACL(zk.PermAll)
	}
	acl := zk.AuthACL(zk.PermAll)
	if !SensitivePath(p) {
		acl = append(acl, zk.WorldACL(zk.PermRead)...)
	}
	return acl
}

// OpenACL reports whether an ACL lets anyone create, delete and write:
// what Kafka sets without zookeeper.set.acl. Any other ACL on Kafka's
// znodes means the cluster runs with it.
func OpenACL(acl []zk.ACL) bool {
	const rw = zk.PermCreate | zk.PermDelete | zk.PermWrite
	for _, a := range acl {
		if a.Scheme == "world" && a.ID == "anyone" && a.Perms&rw == rw {
			return true
		}
	}
	return false
}

// ACLReader is the part of a ZooKeeper session that reads ACLs
// (*zkwatch.Conn, *zk.Conn).
type ACLReader interface {
	GetACL(path string) ([]zk.ACL, *zk.Stat, error)
}

// KafkaACLs gives every create of ops the ACL Kafka would give that znode
// on this cluster: secure when the nearest existing ancestor's ACL is not
// open (the brokers created it with zookeeper.set.acl=true), so that what
// ktopo writes is as protected as what Kafka writes, and never opens a
// secured tree. An ancestor whose ACL cannot even be read is secured. A z
// that cannot read ACLs leaves ops unchanged. Creates' ACLs are replaced
// in place.
func KafkaACLs(z ZK, ops []any) error {
	r, ok := z.(ACLReader)
	if !ok {
		return nil
	}
	secure := map[string]bool{} // path → its (new) znode is secured
	var lookup func(p string) (bool, error)
	lookup = func(p string) (bool, error) {
		if s, ok := secure[p]; ok {
			return s, nil
		}
		acl, _, err := r.GetACL(p)
		var s bool
		switch {
		case err == nil:
			s = !OpenACL(acl)
		case errors.Is(err, zk.ErrNoAuth):
			s = true
		case errors.Is(err, zk.ErrNoNode) && p != "/":
			if s, err = lookup(parentPath(p)); err != nil {
				return false, err
			}
		default:
			return false, fmt.Errorf("read the ACL of %s: %w", p, err)
		}
		secure[p] = s
		return s, nil
	}
	for _, op := range ops {
		cr, ok := op.(*zk.CreateRequest)
		if !ok {
			continue
		}
		s, err := lookup(parentPath(cr.Path))
		if err != nil {
			return err
		}
		// A sequential create's name is not known yet; the ACL of its
		// parent decides nothing more about it.
		if cr.Flags&zk.FlagSequence == 0 {
			secure[cr.Path] = s
		}
		cr.Acl = KafkaACL(cr.Path, s)
	}
	return nil
}

// Write runs ops as one multi, with Kafka's ACLs on its creates
// (KafkaACLs): the way every ktopo write reaches ZooKeeper. A refusal
// comes back from a *zkwatch.Conn as a *zkwatch.AccessError saying which
// credentials would do; nothing of a failed multi was written.
func Write(z ZK, ops ...any) ([]zk.MultiResponse, error) {
	if err := KafkaACLs(z, ops); err != nil {
		return nil, err
	}
	return z.Multi(ops...)
}

func parentPath(p string) string {
	if d := path.Dir(p); d != "." {
		return d
	}
	return "/"
}
