// Package clusterwatch joins a cluster's sources to the Kafka model: the
// ZooKeeper mirror (zkwatch, which knows nothing of Kafka; the model never
// imports zkwatch) and the Kafka-protocol poller (kafkawatch) meet at its
// Source port (source.go). The TUI and the command-line readers use it so
// that every view of a cluster is loaded through a Source and decoded by
// the same model.
package clusterwatch

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/ktopo/ktopo/cluster"
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
			ne.Stat = *e.Stat
		}
		out[i] = ne
	}
	slices.SortStableFunc(out, func(a, b cluster.NodeEvent) int { return cmp.Compare(a.Stat.Mzxid, b.Stat.Mzxid) })
	return out
}

// Watch is a cluster source applied to a model: the non-TUI way to
// follow a cluster. It is not safe for concurrent use.
type Watch struct {
	Source Source
	Model  *cluster.Model
	// LostAfter, when positive, makes Next fail once the source has been
	// unusable (disconnected, connecting, its server unresponsive) for
	// that long: what a one-shot command wants. Zero waits for the
	// cluster to come back, as a long-lived watcher should.
	LostAfter time.Duration

	lostSince time.Time // zero while connected
	lostAs    State     // the state it was lost to
}

// Open starts a mirror of the Kafka subtrees on conn.
func Open(conn *zkwatch.Conn, model cluster.ModelOptions, mirror zkwatch.MirrorOptions) (*Watch, error) {
	m, err := zkwatch.NewMirror(conn, Shape(), mirror)
	if err != nil {
		return nil, err
	}
	return NewWatch(FromMirror(m, conn), model), nil
}

// NewWatch follows src with a new model.
func NewWatch(src Source, model cluster.ModelOptions) *Watch {
	return &Watch{Source: src, Model: cluster.NewModel(model)}
}

// Next waits for the next batch, applies it and returns it with the model's
// changes. It fails when ctx ends or the source closes.
func (w *Watch) Next(ctx context.Context) (Batch, []cluster.Change, error) {
	if w.LostAfter > 0 && !w.lostSince.IsZero() {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadlineCause(ctx, w.lostSince.Add(w.LostAfter), errLost)
		defer cancel()
	}
	b, err := w.Source.Next(ctx)
	switch {
	case errors.Is(context.Cause(ctx), errLost) && ctx.Err() != nil:
		d := time.Since(w.lostSince).Round(100 * time.Millisecond)
		kind := strings.ToLower(w.Source.Kind().String())
		if w.lostAs == zkwatch.StateUnresponsive {
			return Batch{}, nil, fmt.Errorf("%s %s has not answered for %s", kind, w.Source.Server(), d)
		}
		if w.Source.Kind() == Kafka {
			return Batch{}, nil, fmt.Errorf("lost the connection to kafka %s: no broker answered for %s", w.Source.Server(), d)
		}
		return Batch{}, nil, fmt.Errorf("lost the connection to zookeeper %s: no session for %s", w.Source.Server(), d)
	case errors.Is(err, ErrClosed):
		return Batch{}, nil, fmt.Errorf("%s source closed", strings.ToLower(w.Source.Kind().String()))
	case err != nil:
		return Batch{}, nil, err
	}
	if n := len(b.States); n > 0 {
		switch {
		case b.States[n-1] == zkwatch.StateConnected:
			w.lostSince = time.Time{}
		case w.lostSince.IsZero():
			// An unresponsive server has been silent for a while
			// already when the source says so.
			w.lostSince, w.lostAs = time.Now(), b.States[n-1]
			if h := w.Source.Stats().LastHeard; w.lostAs == zkwatch.StateUnresponsive && !h.IsZero() && h.Before(w.lostSince) {
				w.lostSince = h
			}
		}
	}
	return b, b.ApplyTo(w.Model), nil
}

// errLost ends a Next whose source has been lost for LostAfter.
var errLost = errors.New("lost")

// Loaded waits until the first full load has been applied (the first reset
// batch) and returns its changes.
func (w *Watch) Loaded(ctx context.Context) ([]cluster.Change, error) {
	for {
		b, changes, err := w.Next(ctx)
		if err != nil {
			return nil, err
		}
		if b.Reset {
			return changes, nil
		}
	}
}

// Close stops the source.
func (w *Watch) Close() error { return w.Source.Close() }

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
