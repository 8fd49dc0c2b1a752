// Package clusterwatch is the port where a cluster's sources meet the
// Kafka model: the ZooKeeper mirror (package zksource, over zkwatch, which
// knows nothing of Kafka) and the Kafka-protocol poller (kafkawatch) both
// are a Source (source.go). The TUI and the command-line readers use it so
// that every view of a cluster is loaded through a Source and decoded by
// the same model; the port itself depends on no client library.
//
// Types to know: Source and its Batch; Watch, a Source applied to a model
// (what the commands follow); State and Progress, what a Batch says of
// the connection and a first load.
package clusterwatch

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/ktopo/ktopo/cluster"
)

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
		kind := strings.ToLower(w.Source.Backend().String())
		if w.lostAs == StateUnresponsive {
			return Batch{}, nil, fmt.Errorf("%s %s has not answered for %s", kind, w.Source.Server(), d)
		}
		if w.Source.Backend() == cluster.ViaKafka {
			return Batch{}, nil, fmt.Errorf("lost the connection to kafka %s: no broker answered for %s", w.Source.Server(), d)
		}
		return Batch{}, nil, fmt.Errorf("lost the connection to zookeeper %s: no session for %s", w.Source.Server(), d)
	case errors.Is(err, ErrClosed):
		return Batch{}, nil, fmt.Errorf("%s source closed", strings.ToLower(w.Source.Backend().String()))
	case err != nil:
		return Batch{}, nil, err
	}
	if n := len(b.States); n > 0 {
		switch {
		case b.States[n-1] == StateConnected:
			w.lostSince = time.Time{}
		case w.lostSince.IsZero():
			// An unresponsive server has been silent for a while
			// already when the source says so.
			w.lostSince, w.lostAs = time.Now(), b.States[n-1]
			if h := w.Source.Stats().LastHeard; w.lostAs == StateUnresponsive && !h.IsZero() && h.Before(w.lostSince) {
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
