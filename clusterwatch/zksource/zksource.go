// Package zksource is a Kafka cluster in ZooKeeper mode as a
// clusterwatch.Source: the ZooKeeper mirror (zkwatch, which knows nothing
// of Kafka) of Kafka's subtrees, its batches turned into node events and
// connection states of the port. It is the one place where the port meets
// the ZooKeeper client, so that the port, the model and the Kafka-protocol
// source do not depend on it. It also gives the ZooKeeper tree screen what
// it reads: the mirror's nodes (Source.Node, Source.Walk), its subtrees
// (OpenSubtree, CloseSubtree) and single znodes read on demand (Prober).
//
// Types to know: Source (New, or Open for a Watch of one); Load reads a
// cluster once.
package zksource

import (
	"cmp"
	"context"
	"errors"
	"slices"

	"github.com/go-zookeeper/zk"

	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/clusterwatch"
	"github.com/ktopo/ktopo/zkwatch"
)

// Shape is Kafka's mirror shape (cluster.KafkaMirrorShape) in zkwatch terms.
func Shape() zkwatch.Shape {
	ks := cluster.KafkaMirrorShape()
	s := zkwatch.Shape{Reads: ks.Nodes, Derive: ks.Derive}
	for _, c := range ks.Containers {
		s.Lists = append(s.Lists, zkwatch.List{Path: c.Path, ReadChildren: c.ReadChildren, First: c.First})
	}
	return s
}

// stat is a ZooKeeper client's stat as the model's: the same fields, so
// the pointer converts as it is (no copy).
func stat(st *zk.Stat) *cluster.Stat { return (*cluster.Stat)(st) }

// NodeEvents converts a batch's node events for cluster.Model.Apply, in
// ZooKeeper's write order: by the zxid of each node's last write
// (deletions, whose zxid the mirror does not know, first), so the model's
// changes come out in the order they happened.
func NodeEvents(b zkwatch.Batch) []cluster.NodeEvent {
	out := make([]cluster.NodeEvent, len(b.Events))
	for i, e := range b.Events {
		// The Access bits of both packages are the same (TestAccessBits).
		ne := cluster.NodeEvent{Path: e.Path, Data: e.Data, Denied: cluster.Access(e.Denied)}
		switch e.Type {
		case zkwatch.Created:
			ne.Type = cluster.NodeCreated
		case zkwatch.Changed:
			ne.Type = cluster.NodeChanged
		case zkwatch.Deleted:
			ne.Type = cluster.NodeDeleted
		}
		if e.Stat != nil {
			ne.Stat = *stat(e.Stat)
		}
		out[i] = ne
	}
	slices.SortStableFunc(out, func(a, b cluster.NodeEvent) int { return cmp.Compare(a.Stat.Mzxid, b.Stat.Mzxid) })
	return out
}

// State is a ZooKeeper session's state as the port's.
func State(s zkwatch.State) clusterwatch.State {
	switch s {
	case zkwatch.StateConnecting:
		return clusterwatch.StateConnecting
	case zkwatch.StateConnected:
		return clusterwatch.StateConnected
	case zkwatch.StateExpired:
		return clusterwatch.StateSessionLost
	case zkwatch.StateUnresponsive:
		return clusterwatch.StateUnresponsive
	}
	return clusterwatch.StateDisconnected
}

// FromMirrorBatch converts a mirror's batch (its events in write order).
func FromMirrorBatch(b zkwatch.Batch) clusterwatch.Batch {
	out := clusterwatch.Batch{Events: NodeEvents(b), Reset: b.Reset, Partial: b.Partial, Loaded: b.Loaded,
		Progress: clusterwatch.Progress{Done: b.Progress.Done, Known: b.Progress.Known}}
	if len(b.States) > 0 {
		out.States = make([]clusterwatch.State, len(b.States))
		for i, s := range b.States {
			out.States[i] = State(s)
		}
	}
	return out
}

// Source is a ZooKeeper mirror as a clusterwatch.Source, and what the
// ZooKeeper tree screen reads of it.
type Source struct {
	m    *zkwatch.Mirror
	conn *zkwatch.Conn
}

var _ clusterwatch.Source = (*Source)(nil)

// New makes a Source of a mirror on conn (conn names the server in
// messages; nil for none).
func New(m *zkwatch.Mirror, conn *zkwatch.Conn) *Source { return &Source{m: m, conn: conn} }

// Mirror is the mirror the source reads.
func (s *Source) Mirror() *zkwatch.Mirror { return s.m }

// Next implements clusterwatch.Source: the mirror's next batch, converted.
func (s *Source) Next(ctx context.Context) (clusterwatch.Batch, error) {
	select {
	case <-ctx.Done():
		return clusterwatch.Batch{}, ctx.Err()
	case b, ok := <-s.m.Batches():
		if !ok {
			return clusterwatch.Batch{}, clusterwatch.ErrClosed
		}
		return FromMirrorBatch(b), nil
	}
}

// Stats implements clusterwatch.Source: the znodes mirrored and the
// watches set.
func (s *Source) Stats() clusterwatch.Stats {
	st := s.m.Stats()
	return clusterwatch.Stats{LastHeard: st.LastHeard, Counts: []clusterwatch.Count{{N: int64(st.Nodes), Unit: "znodes"}, {N: int64(st.Watches), Unit: "watches"}}}
}

// MirroredNodes is how many znodes the mirror holds (the tree shows it).
func (s *Source) MirroredNodes() int { return s.m.Stats().Nodes }

// Backend implements clusterwatch.Source.
func (s *Source) Backend() cluster.Backend { return cluster.ViaZooKeeper }

// Server implements clusterwatch.Source.
func (s *Source) Server() string {
	if s.conn == nil {
		return ""
	}
	return s.conn.Server()
}

// Close implements clusterwatch.Source.
func (s *Source) Close() error { return s.m.Close() }

// OpenSubtree and CloseSubtree mirror a subtree the Kafka shape does not
// follow, and stop (the tree screen's tree.Subtrees).
func (s *Source) OpenSubtree(path string) error  { return s.m.OpenSubtree(path) }
func (s *Source) CloseSubtree(path string) error { return s.m.CloseSubtree(path) }

// Node is a mirrored node's data and stat as the mirror holds them now
// (the tree screen's tree.Nodes: it keeps no copy of them).
func (s *Source) Node(path string) ([]byte, *cluster.Stat, bool) {
	n, ok := s.m.Get(path)
	return n.Data, stat(n.Stat), ok
}

// Walk lists every node the mirror holds (the tree screen's tree.Walker:
// its tree is built when first shown).
func (s *Source) Walk(fn func(path string, stat *cluster.Stat, denied cluster.Access)) {
	s.m.Walk(func(path string, n zkwatch.Node) { fn(path, stat(n.Stat), cluster.Access(n.Denied)) })
}

// TUIMirror are the options the TUI's mirror is made with (cmd's runTUI,
// the scale benchmark): the first load delivered as it goes, so that the
// screens show what is read while the rest loads.
func TUIMirror() zkwatch.MirrorOptions { return zkwatch.MirrorOptions{Progress: true} }

// Open starts a mirror of the Kafka subtrees on conn and follows it with
// a new model.
func Open(conn *zkwatch.Conn, model cluster.ModelOptions, mirror zkwatch.MirrorOptions) (*clusterwatch.Watch, error) {
	m, err := zkwatch.NewMirror(conn, Shape(), mirror)
	if err != nil {
		return nil, err
	}
	return clusterwatch.NewWatch(New(m, conn), model), nil
}

// Load reads the cluster once through the mirror, without watches or
// changes, and returns its snapshot: a picture as consistent as a
// sequence of reads gives (kafka-topics --describe gives no more). It
// fails once the session has been unusable for the connection's request
// timeout (when it has one): a one-shot read must not wait forever for a
// server that went away or stopped answering mid-load.
func Load(ctx context.Context, conn *zkwatch.Conn, model cluster.ModelOptions) (*cluster.Snapshot, error) {
	model.NoChanges = true
	w, err := Open(conn, model, zkwatch.MirrorOptions{Once: true})
	if err != nil {
		return nil, err
	}
	defer w.Close()
	w.LostAfter = max(conn.RequestTimeout(), 0)
	if _, err := w.Loaded(ctx); err != nil {
		return nil, err
	}
	return w.Model.Snapshot(), nil
}

// Browser reads single znodes (*zkwatch.Conn).
type Browser interface {
	ChildrenW(path string) ([]string, *zk.Stat, <-chan zk.Event, error)
	Get(path string) ([]byte, *zk.Stat, error)
}

var _ Browser = (*zkwatch.Conn)(nil)

// Prober reads single znodes for the tree screen's probes.
type Prober struct{ Browser Browser }

// Probe reads path: its children (watched), its data and stat.
func (p Prober) Probe(path string) (clusterwatch.Probe, error) {
	var denied cluster.Access
	kids, _, w, err := p.Browser.ChildrenW(path)
	switch {
	case errors.Is(err, zk.ErrNoAuth):
		denied |= cluster.NoChildren // it exists; its children are unknown
	case err != nil:
		return clusterwatch.Probe{}, err
	}
	var changed func()
	if w != nil {
		changed = func() { <-w } // one-shot: fires on a change, or ends with the session
	}
	data, st, err := p.Browser.Get(path)
	switch {
	case errors.Is(err, zk.ErrNoAuth):
		denied |= cluster.NoData
	case err != nil && !errors.Is(err, zk.ErrNoNode):
		return clusterwatch.Probe{Changed: changed}, err
	}
	return clusterwatch.Probe{Children: kids, Data: data, Stat: stat(st), Changed: changed, Denied: denied}, nil
}
