package cluster

import (
	"slices"
	"testing"

	"github.com/go-zookeeper/zk"
)

// TestModelNoAccess: znodes the session may not read are recorded as such,
// not as invalid (no znode_invalid, no Errors) and not as missing: the topic
// stays with its partitions from the assignment, the broker stays
// registered; readable again, they are cleared; a reset forgets them.
func TestModelNoAccess(t *testing.T) {
	z, m := newCluster(t)
	denied := func(path string, a Access) NodeEvent {
		return NodeEvent{Type: NodeChanged, Path: path, Stat: z.nodes[path].stat, Denied: a}
	}
	cs := apply(t, m, []NodeEvent{
		denied(TopicConfigPath("orders"), NoData),
		denied(PartitionStatePath("orders", 1), NoData),
		denied(BrokerIDPath(3), NoData),
		{Type: NodeCreated, Path: BrokerTopicsPath, Denied: NoChildren},
	}, false)
	for _, c := range cs {
		if c.Kind == ChangeZNodeInvalid {
			t.Errorf("a znode that may not be read is reported invalid: %v", c)
		}
	}
	s := m.Snapshot()
	want := []string{BrokerIDPath(3), BrokerTopicsPath, TopicConfigPath("orders"), PartitionStatePath("orders", 1)}
	slices.Sort(want)
	if got := s.NoAccess(); !slices.Equal(got, want) || len(s.Errors()) != 0 {
		t.Fatalf("no access %q (errors %v), want %q", got, s.Errors(), want)
	}
	if s.Access(BrokerTopicsPath) != NoChildren || s.Access(TopicPath("orders")) != 0 {
		t.Errorf("access: %v %v", s.Access(BrokerTopicsPath), s.Access(TopicPath("orders")))
	}
	topic := s.Topic("orders")
	if topic == nil || len(topic.Partitions) != 2 {
		t.Fatalf("orders: %+v", topic)
	}
	if got := s.TopicAccess(topic); !slices.Equal(got, []string{TopicConfigPath("orders"), PartitionStatePath("orders", 1)}) {
		t.Errorf("topic access %q", got)
	}
	if !s.IsLive(3) {
		t.Error("broker 3, whose registration may not be read, is not registered")
	}

	// Readable again: cleared.
	z.tick()
	cs = apply(t, m, []NodeEvent{z.set(BrokerIDPath(3), brokerJSON(3, "b"))}, false)
	if got := m.Snapshot().NoAccess(); slices.Contains(got, BrokerIDPath(3)) {
		t.Errorf("after a readable read: %q (%v)", got, cs)
	}
	// A reset is a complete picture: what it does not mark is readable.
	apply(t, m, z.all(), true)
	if got := m.Snapshot().NoAccess(); len(got) != 0 {
		t.Errorf("after a reset: %q", got)
	}
}

// aclZK is a tree of ACLs for KafkaACLs.
type aclZK struct{ acls map[string][]zk.ACL }

func (a aclZK) Exists(string) (bool, *zk.Stat, error)    { return true, nil, nil }
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
	if err := KafkaACLs(z, ops); err != nil {
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
	if !SensitivePath("/config/brokers/<default>") || SensitivePath("/config/topics") {
		t.Error("SensitivePath")
	}
}
