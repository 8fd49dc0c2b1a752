package zkops

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/clusterops"
)

// The optional capabilities of a ZK that finding out an outcome uses
// (*zkwatch.Conn has them all; *zk.Conn lacks WaitSession).
type (
	// lateOutcome is an error that can wait for the late result of the
	// request it stands for (zkwatch.OpError).
	lateOutcome interface {
		Outcome(ctx context.Context) (done bool, err error)
	}
	sessionWaiter interface {
		WaitSession(ctx context.Context) error
	}
	syncer interface {
		Sync(path string) (string, error)
	}
	reader interface {
		Get(path string) ([]byte, *zk.Stat, error)
	}
)

// findOutcome finds out whether a write that failed with an open outcome
// (MaybeWritten(err)) was applied, until ctx ends. First the request's own
// result: go-zookeeper cannot cancel a request, so one that missed its
// deadline goes on until it is answered (applied, or refused: a failed
// multi changes nothing) or dropped. A request dropped unsent was not
// applied. One the connection lost unanswered may have been: once the
// session is back, the server is synced with the ensemble's leader (a
// write still in the pipeline of the server the session left is then
// committed or, the session having moved, refused) and check reads what
// the write would have left.
func findOutcome(ctx context.Context, z ZK, err error, path string, check func() (applied bool, err error)) clusterops.Outcome {
	var lo lateOutcome
	if errors.As(err, &lo) {
		done, late := lo.Outcome(ctx)
		switch {
		case !done:
			return clusterops.Outcome{Err: fmt.Errorf("no reply: %w", err)}
		case late == nil:
			return clusterops.Outcome{Known: true, Applied: true, How: "its reply came late"}
		case errors.Is(late, zk.ErrNoServer):
			return clusterops.Outcome{Known: true, How: "it was never sent", Err: late}
		case !MaybeWritten(late):
			return clusterops.Outcome{Known: true, How: "ZooKeeper refused it", Err: late}
		}
		err = late
	}
	for {
		if sw, ok := base(z).(sessionWaiter); ok {
			if werr := sw.WaitSession(ctx); werr != nil {
				return clusterops.Outcome{Err: fmt.Errorf("%w (%w)", err, werr)}
			}
		}
		rerr := error(nil)
		if s, ok := base(z).(syncer); ok {
			_, rerr = s.Sync(path)
		}
		var applied bool
		if rerr == nil {
			applied, rerr = check()
		}
		switch {
		case rerr == nil:
			return clusterops.Outcome{Known: true, Applied: applied, How: "read back after reconnecting"}
		case cluster.ErrorClass(rerr) != "":
			return clusterops.Outcome{Known: true, How: "read back after reconnecting", Err: rerr}
		case !MaybeWritten(rerr):
			return clusterops.Outcome{Err: fmt.Errorf("%w (reading back: %w)", err, rerr)}
		}
		// The connection failed again: wait for the next session.
		select {
		case <-ctx.Done():
			return clusterops.Outcome{Err: fmt.Errorf("%w (reading back: %w)", err, rerr)}
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// verifyCreate finds out what became of a createTopic that failed with an
// open outcome (MaybeWritten(err)), as findOutcome does: applied means the
// topic znode holds exactly the planned assignment (the controller may
// have added its topic id since) and the config znode the planned
// overrides. A topic found with another assignment or config was created
// by someone else: Err is then Kafka's TopicExistsException.
func verifyCreate(ctx context.Context, z ZK, p *clusterops.TopicPlan, err error) clusterops.Outcome {
	r, ok := base(z).(reader)
	if !ok {
		return clusterops.Outcome{Err: fmt.Errorf("%w (this session cannot read the topic back)", err)}
	}
	return findOutcome(ctx, z, err, p.TopicPath, func() (bool, error) { return createdAsPlanned(r, p) })
}

// createdAsPlanned reads back the znodes a creation writes: (true, nil)
// when they hold the plan, (false, nil) when the topic znode is absent,
// TopicExistsException when it holds something else.
func createdAsPlanned(r reader, p *clusterops.TopicPlan) (bool, error) {
	data, _, err := r.Get(p.TopicPath)
	if errors.Is(err, zk.ErrNoNode) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	// Someone else created it: Kafka's answer, and what differs.
	other := func(what string) error {
		return fmt.Errorf("%w (its %s is not the one planned: another client created it)",
			kafkaErr(cluster.ClassTopicExists, "Topic '"+p.Name+"' already exists."), what)
	}
	got, derr := cluster.DecodeTopicAssignment(data)
	want := p.Assignment()
	if derr != nil || len(got.AddingReplicas) > 0 || len(got.RemovingReplicas) > 0 ||
		!maps.EqualFunc(got.Partitions, map[int][]int(want), slices.Equal) {
		return false, other("assignment")
	}
	cfg, _, err := r.Get(p.ConfigPath)
	if err != nil && !errors.Is(err, zk.ErrNoNode) {
		return false, err
	}
	ec, derr := cluster.DecodeEntityConfig(cfg)
	have := map[string]string{}
	for _, e := range ec.Config {
		have[e.Key] = e.Value
	}
	if derr != nil || !maps.Equal(have, p.Config) && (len(have) > 0 || len(p.Config) > 0) {
		return false, other("config")
	}
	return true, nil
}
