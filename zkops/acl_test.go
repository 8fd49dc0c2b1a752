package zkops

import (
	"slices"
	"testing"

	"github.com/go-zookeeper/zk"
)

// aclZK is a tree of ACLs for kafkaACLs.
type aclZK struct{ acls map[string][]zk.ACL }

func (a aclZK) Exists(string) (bool, *zk.Stat, error)    { return true, nil, nil }
func (a aclZK) Get(string) ([]byte, *zk.Stat, error)     { return nil, nil, zk.ErrNoNode }
func (a aclZK) Multi(...any) ([]zk.MultiResponse, error) { return nil, nil }
func (a aclZK) GetACL(p string) ([]zk.ACL, *zk.Stat, error) {
	acl, ok := a.acls[p]
	switch {
	case !ok:
		return nil, nil, zk.ErrNoNode
	case acl == nil:
		return nil, nil, zk.ErrNoAuth
	}
	return acl, nil, nil
}

// TestKafkaACLs: creates get Kafka's ACLs: open in an open tree; in a
// secured one the parent's creators plus world READ (none under the
// sensitive paths), "auth" where the creators cannot be read; nodes created
// in the same multi pass their mode on.
func TestKafkaACLs(t *testing.T) {
	broker := zk.ACL{Perms: zk.PermAll, Scheme: "x509", ID: "CN=kafka"}
	secured := []zk.ACL{broker, {Perms: zk.PermRead, Scheme: "world", ID: "anyone"}}
	z := aclZK{acls: map[string][]zk.ACL{
		"/":               zk.WorldACL(zk.PermAll),
		"/open":           zk.WorldACL(zk.PermAll),
		"/config":         secured,
		"/config/topics":  secured,
		"/config/users":   nil, // no READ
		"/brokers/topics": {{Perms: zk.PermAll, Scheme: "digest", ID: "admin:x"}, {Perms: zk.PermRead, Scheme: "world", ID: "anyone"}},
	}}
	ops := []any{
		&zk.CreateRequest{Path: "/open/x"},
		&zk.CreateRequest{Path: "/config/topics/t"},
		&zk.CreateRequest{Path: "/config/users/u"},
		&zk.CreateRequest{Path: "/config/new"},
		&zk.CreateRequest{Path: "/config/new/child"},
		&zk.CreateRequest{Path: "/brokers/topics/t"},
		&zk.CreateRequest{Path: "/config/changes/config_change_", Flags: zk.FlagSequence},
		&zk.SetDataRequest{Path: "/config/topics/t"},
	}
	if err := kafkaACLs(z, ops); err != nil {
		t.Fatal(err)
	}
	want := map[string][]zk.ACL{
		"/open/x":                        zk.WorldACL(zk.PermAll),
		"/config/topics/t":               secured,
		"/config/users/u":                zk.AuthACL(zk.PermAll),
		"/config/new":                    secured,
		"/config/new/child":              secured,
		"/brokers/topics/t":              append(zk.AuthACL(zk.PermAll), zk.WorldACL(zk.PermRead)...), // digest masked
		"/config/changes/config_change_": secured,
	}
	for _, op := range ops {
		if cr, ok := op.(*zk.CreateRequest); ok && !slices.Equal(cr.Acl, want[cr.Path]) {
			t.Errorf("%s: ACL %v, want %v", cr.Path, cr.Acl, want[cr.Path])
		}
	}
	if !sensitivePath("/config/brokers/<default>") || sensitivePath("/config/topics") {
		t.Error("sensitivePath")
	}
}
