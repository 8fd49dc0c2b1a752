package zksource

import (
	"testing"

	"github.com/go-zookeeper/zk"

	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/zkwatch"
)

// TestNodeEventsWriteOrder: events come out in zxid order, deletions
// (zxid unknown) first, whatever order the mirror used.
func TestNodeEventsWriteOrder(t *testing.T) {
	b := zkwatch.Batch{Events: []zkwatch.Event{
		{Type: zkwatch.Changed, Path: "/c", Stat: &zk.Stat{Mzxid: 30}},
		{Type: zkwatch.Created, Path: "/a", Data: []byte("x"), Stat: &zk.Stat{Mzxid: 10}},
		{Type: zkwatch.Deleted, Path: "/gone"},
		{Type: zkwatch.Changed, Path: "/b", Stat: &zk.Stat{Mzxid: 20}},
	}}
	got := NodeEvents(b)
	want := []struct {
		path string
		typ  cluster.NodeEventType
	}{{"/gone", cluster.NodeDeleted}, {"/a", cluster.NodeCreated}, {"/b", cluster.NodeChanged}, {"/c", cluster.NodeChanged}}
	for i, w := range want {
		if got[i].Path != w.path || got[i].Type != w.typ {
			t.Fatalf("event %d: %s %v, want %s %v", i, got[i].Path, got[i].Type, w.path, w.typ)
		}
	}
	if string(got[1].Data) != "x" || got[1].Stat.Mzxid != 10 {
		t.Fatalf("data or stat lost: %+v", got[1])
	}
}

func TestShape(t *testing.T) {
	s := Shape()
	if len(s.Lists) == 0 || len(s.Reads) == 0 || s.Derive == nil {
		t.Fatalf("incomplete shape %+v", s)
	}
	paths := s.Derive("/brokers/topics/t", []byte(`{"version":3,"partitions":{"1":[1],"0":[2]}}`))
	if len(paths) != 2 || paths[0] != "/brokers/topics/t/partitions/0/state" {
		t.Fatalf("derived %v", paths)
	}
}

// TestAccessBits: NodeEvents passes zkwatch's Access bits on as cluster's.
func TestAccessBits(t *testing.T) {
	evs := NodeEvents(zkwatch.Batch{Events: []zkwatch.Event{
		{Type: zkwatch.Created, Path: "/a", Denied: zkwatch.NoData},
		{Type: zkwatch.Created, Path: "/b", Denied: zkwatch.NoChildren},
		{Type: zkwatch.Created, Path: "/c", Denied: zkwatch.NoData | zkwatch.NoChildren},
	}})
	want := map[string]cluster.Access{"/a": cluster.NoData, "/b": cluster.NoChildren, "/c": cluster.NoData | cluster.NoChildren}
	for _, e := range evs {
		if e.Denied != want[e.Path] {
			t.Errorf("%s: %v, want %v", e.Path, e.Denied, want[e.Path])
		}
	}
}
