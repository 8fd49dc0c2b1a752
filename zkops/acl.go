package zkops

import (
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/go-zookeeper/zk"
)

// sensitiveRoots are Kafka's ZkData.SensitiveRootPaths: with
// zookeeper.set.acl=true, znodes under them get no world READ (SCRAM
// credentials, dynamic broker configs with their encrypted passwords,
// delegation tokens). Kafka matches them as string prefixes.
var sensitiveRoots = []string{"/config/users", "/config/brokers", "/delegation_token/tokens"}

// sensitivePath reports whether Kafka keeps world READ off path when it
// sets ACLs (ZkData.sensitivePath: a prefix match).
func sensitivePath(p string) bool {
	for _, root := range sensitiveRoots {
		if strings.HasPrefix(p, root) {
			return true
		}
	}
	return false
}

// kafkaACL is the ACL Kafka gives a znode it creates (ZkData.defaultAcls):
// with secure (zookeeper.set.acl=true) all permissions for the creator's
// authenticated ids plus READ for anyone, READ left out under the sensitive
// paths; otherwise, and always for the old consumers' /consumers, open to
// anyone.
func kafkaACL(p string, secure bool) []zk.ACL {
	if !secure || p == "/consumers" {
		return zk.WorldACL(zk.PermAll)
	}
	acl := zk.AuthACL(zk.PermAll)
	if !sensitivePath(p) {
		acl = append(acl, zk.WorldACL(zk.PermRead)...)
	}
	return acl
}

// openACL reports whether an ACL lets anyone create, delete and write:
// what Kafka sets without zookeeper.set.acl. Any other ACL on Kafka's
// znodes means the cluster runs with it.
func openACL(acl []zk.ACL) bool {
	const rw = zk.PermCreate | zk.PermDelete | zk.PermWrite
	for _, a := range acl {
		if a.Scheme == "world" && a.ID == "anyone" && a.Perms&rw == rw {
			return true
		}
	}
	return false
}

// aclReader is the part of a ZooKeeper session that reads ACLs
// (*zkwatch.Conn, *zk.Conn).
type aclReader interface {
	GetACL(path string) ([]zk.ACL, *zk.Stat, error)
}

// kafkaACLs gives every create of ops the ACL Kafka would give that znode
// on this cluster: secure when the nearest existing ancestor's ACL is not
// open (the brokers created it with zookeeper.set.acl=true), so that what
// ktopo writes is as protected as what Kafka writes, and never opens a
// secured tree. An ancestor whose ACL cannot even be read is secured. A z
// that cannot read ACLs leaves ops unchanged. Creates' ACLs are replaced
// in place.
//
// Kafka gives its znodes CREATOR_ALL, which is right when every broker and
// tool uses one identity, as Kafka asks of them. ktopo may write as
// another (ZooKeeper's super user): then the brokers, creators of the
// parent, would lose access to what it creates (the controller could not
// add a new topic's partitions). So a secured znode gets the parent's
// creators, the ids it grants every permission to, and "auth" (whoever
// writes) only when those cannot be read (no READ or ADMIN on the parent,
// or digest hashes masked without ADMIN); with the brokers' identity the
// result is Kafka's.
func kafkaACLs(z ZK, ops []any) error {
	r, ok := base(z).(aclReader)
	if !ok {
		return nil
	}
	type mode struct {
		secure   bool
		creators []zk.ACL // nil: "auth"
	}
	modes := map[string]mode{} // path → how its (new) children are protected
	var lookup func(p string) (mode, error)
	lookup = func(p string) (mode, error) {
		if m, ok := modes[p]; ok {
			return m, nil
		}
		acl, _, err := r.GetACL(p)
		var m mode
		switch {
		case err == nil:
			m = mode{secure: !openACL(acl), creators: creators(acl)}
		case errors.Is(err, zk.ErrNoAuth):
			m = mode{secure: true}
		case errors.Is(err, zk.ErrNoNode) && p != "/":
			if m, err = lookup(parentPath(p)); err != nil {
				return mode{}, err
			}
		default:
			return mode{}, fmt.Errorf("read the ACL of %s: %w", p, err)
		}
		modes[p] = m
		return m, nil
	}
	for _, op := range ops {
		cr, ok := op.(*zk.CreateRequest)
		if !ok {
			continue
		}
		m, err := lookup(parentPath(cr.Path))
		if err != nil {
			return err
		}
		// A sequential create's name is not known yet; nothing in the
		// multi can be below it.
		if cr.Flags&zk.FlagSequence == 0 {
			modes[cr.Path] = m
		}
		cr.Acl = kafkaACL(cr.Path, m.secure)
		if m.secure && m.creators != nil {
			cr.Acl = append(slices.Clone(m.creators), cr.Acl[1:]...)
		}
	}
	return nil
}

// creators returns an ACL's entries that grant every permission to an
// authenticated id (what CREATOR_ALL became), nil when there is none or a
// digest id is masked ("user:x", read without ADMIN).
func creators(acl []zk.ACL) []zk.ACL {
	var out []zk.ACL
	for _, a := range acl {
		if a.Perms != zk.PermAll || a.Scheme == "world" || a.Scheme == "ip" {
			continue
		}
		if a.Scheme == "digest" && strings.HasSuffix(a.ID, ":x") {
			return nil
		}
		out = append(out, a)
	}
	return out
}

func parentPath(p string) string {
	if d := path.Dir(p); d != "." {
		return d
	}
	return "/"
}
