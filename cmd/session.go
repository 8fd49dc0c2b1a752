package cmd

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/clusterops"
	"github.com/ktopo/ktopo/clusterwatch"
	"github.com/ktopo/ktopo/clusterwatch/zksource"
	"github.com/ktopo/ktopo/cmd/render"
	"github.com/ktopo/ktopo/kafkaops"
	"github.com/ktopo/ktopo/zkops"
	"github.com/ktopo/ktopo/zkwatch"
)

// session is one command's cluster, opened in one place from the target
// (--zookeeper, --bootstrap-server, --context), whichever way the cluster
// is reached (cli/cli's Factory: a command never builds its clients):
//
//   - snap: the snapshot the command plans on (open: read once; openLive:
//     the first of the live ones);
//   - watch: the cluster followed (openLive, follow);
//   - Writer: what its writes go through: ZooKeeper's multis behind the
//     migration guard, or Kafka's Admin API on a KRaft cluster; made when
//     first asked.
//
// close ends all of it. What only one kind of cluster has is asked for
// and refused in words (zooKeeper).
type session struct {
	f     *connFlags
	t     target
	snap  *cluster.Snapshot
	watch *clusterwatch.Watch
	// zk is a ZooKeeper-mode cluster's connection; kafka a KRaft cluster's
	// writer over the poller's client (a live session's), when made.
	zk      *zkwatch.Conn
	writer  clusterops.Writer
	closers []func()
}

// kraft reports a KRaft cluster (read and written over the Kafka
// protocol).
func (s *session) kraft() bool { return s.t.kraft }

// close ends the session: its watch, its clients, its connection, the
// last opened first.
func (s *session) close() {
	for i := len(s.closers) - 1; i >= 0; i-- {
		s.closers[i]()
	}
	s.closers = nil
}

// Writer is the writer the session's writes go through.
func (s *session) Writer() (clusterops.Writer, error) {
	if s.writer != nil {
		return s.writer, nil
	}
	if !s.t.kraft {
		s.writer = zkops.NewWriter(s.zk)
		return s.writer, nil
	}
	w, closeW, err := s.f.kafkaWriter()
	if err != nil {
		return nil, err
	}
	s.writer = w
	s.closers = append(s.closers, closeW)
	return w, nil
}

// open reads the cluster once: a one-shot command's session. On
// ZooKeeper it checks that the connect string names a Kafka cluster (see
// checkKafkaRoot) when no broker is registered.
func (f *connFlags) open(c *cobra.Command) (*session, error) {
	t, err := f.target()
	if err != nil {
		return nil, err
	}
	ctx := c.Context()
	s := &session{f: f, t: t}
	if t.kraft {
		if s.snap, err = f.loadKRaft(ctx); err != nil {
			return nil, err
		}
		return s, nil
	}
	if s.zk, err = f.connect(ctx); err != nil {
		return nil, err
	}
	s.closers = append(s.closers, s.zk.Close)
	if s.snap, err = loadCluster(ctx, c, s.zk); err == nil && len(s.snap.LiveBrokerIDs()) == 0 {
		err = checkKafkaRoot(c.ErrOrStderr(), s.zk, t.connect)
	}
	if err != nil {
		s.close()
		return nil, err
	}
	return s, nil
}

// reach is a session that reads nothing yet, for a command that asks the
// cluster through its writer alone (configs --describe): on ZooKeeper the
// connection (checked to name a Kafka cluster), on a KRaft cluster the
// writer's client when first asked.
func (f *connFlags) reach(c *cobra.Command) (*session, error) {
	t, err := f.target()
	if err != nil {
		return nil, err
	}
	s := &session{f: f, t: t}
	if t.kraft {
		return s, nil
	}
	if s.zk, err = f.connect(c.Context()); err != nil {
		return nil, err
	}
	s.closers = append(s.closers, s.zk.Close)
	if err := checkKafkaRoot(c.ErrOrStderr(), s.zk, t.connect); err != nil {
		s.close()
		return nil, err
	}
	return s, nil
}

// follow starts following the cluster (the mirror, or a poller of a
// KRaft cluster), not loaded yet: for the commands that follow it from
// the start (events, migration --watch).
func (f *connFlags) follow(ctx context.Context) (*session, error) {
	t, err := f.target()
	if err != nil {
		return nil, err
	}
	s := &session{f: f, t: t}
	if t.kraft {
		w, p, closeWatch, err := f.watchKRaft()
		if err != nil {
			return nil, err
		}
		kw := kafkaops.New(p.Client(), f.requestTimeoutOr(kafkaops.DefaultTimeout))
		kw.OnBrokerConfigs(p.RefreshBrokers)
		s.watch, s.writer = w, kw
		s.closers = append(s.closers, closeWatch)
		return s, nil
	}
	if s.zk, err = f.connect(ctx); err != nil {
		return nil, err
	}
	s.closers = append(s.closers, s.zk.Close)
	if s.watch, err = zksource.Open(s.zk, cluster.ModelOptions{}, zkwatch.MirrorOptions{}); err != nil {
		s.close()
		return nil, err
	}
	s.closers = append(s.closers, func() { s.watch.Close() })
	s.writer = zkops.NewWriter(s.zk)
	return s, nil
}

// openLive is follow for a command that writes and then follows the
// cluster: loaded (a lost connection fails it after the request
// timeout), its first snapshot, undecodable znodes reported on stderr.
func (f *connFlags) openLive(c *cobra.Command) (*session, error) {
	ctx := c.Context()
	s, err := f.follow(ctx)
	if err != nil {
		return nil, err
	}
	s.watch.LostAfter = f.requestTimeout
	if _, err := s.watch.Loaded(ctx); err != nil {
		s.close()
		if s.t.kraft {
			if d, derr := f.dial(); derr == nil {
				err = d.Diagnose(ctx, err)
			}
		}
		return nil, err
	}
	s.snap = s.watch.Model.Snapshot()
	render.WriteNodeErrors(c.ErrOrStderr(), s.snap)
	return s, nil
}

// withCluster opens the cluster once, runs fn on its session and closes
// it.
func withCluster(c *cobra.Command, cf *connFlags, fn func(ctx context.Context, s *session) error) error {
	s, err := cf.open(c)
	if err != nil {
		return err
	}
	defer s.close()
	return fn(c.Context(), s)
}
