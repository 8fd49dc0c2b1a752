package kafkawatch_test

import (
	"context"
	"testing"
	"time"

	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/kafkawatch"
	"github.com/ktopo/ktopo/kraftsandbox"
)

// TestSandboxPollerLiveQuorum: the poller keeps its polls' DescribeQuorum
// answer in full for the TUI's quorum tab (LiveQuorum): the voters with
// their endpoints and log end offsets, the observers, a high watermark
// that moves with the leader's records; when the leader is killed, the
// next polls show the new leader in a later epoch and the old one down
// in the majority's words.
func TestSandboxPollerLiveQuorum(t *testing.T) {
	c, err := kraftsandbox.Start(kraftsandbox.Config{Brokers: 2, Controllers: 3})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	d := kafkawatch.Dial{}
	if d.Bootstrap, err = kafkawatch.ParseBootstrap(c.Bootstrap()); err != nil {
		t.Fatal(err)
	}
	p, err := kafkawatch.Start(d, kafkawatch.Options{Interval: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	go func() { // the consumer: the poller waits for its batches to be taken
		for {
			if _, err := p.Next(ctx); err != nil {
				return
			}
		}
	}()
	wait := func(what string, ok func(cluster.QuorumReport) bool) cluster.QuorumReport {
		t.Helper()
		for ctx.Err() == nil {
			if r, live := p.LiveQuorum(); live && ok(r) {
				return r
			}
			time.Sleep(20 * time.Millisecond)
		}
		r, live := p.LiveQuorum()
		t.Fatalf("%s: never seen; last %v %+v", what, live, r)
		return r
	}
	first := wait("the quorum", func(r cluster.QuorumReport) bool { return r.QuorumErr == "" && len(r.Quorum.Voters) == 3 })
	q := first.Quorum
	if len(q.Observers) != 2 || q.Version < 2 {
		t.Errorf("observers %+v, version %d: want the 2 brokers, DescribeQuorum v2+", q.Observers, q.Version)
	}
	for _, v := range q.Voters {
		if len(v.Endpoints) == 0 || v.LogEndOffset < 0 {
			t.Errorf("voter %+v: want its endpoints and log end offset", v)
		}
	}
	leader, epoch := q.LeaderID, q.LeaderEpoch
	wait("the high watermark moving", func(r cluster.QuorumReport) bool { return r.Quorum.HighWatermark > q.HighWatermark })
	if err := c.Kill(leader); err != nil {
		t.Fatal(err)
	}
	after := wait("a new leader", func(r cluster.QuorumReport) bool {
		return r.QuorumErr == "" && r.Quorum.LeaderID >= 0 && r.Quorum.LeaderID != leader && r.Quorum.LeaderEpoch > epoch
	})
	t.Logf("leader %d (epoch %d) killed: %s", leader, epoch, after.MajorityText())
	down := wait("the old leader down", func(r cluster.QuorumReport) bool { return len(r.Quorum.Down(r.At)) == 1 })
	if got := down.Quorum.Down(down.At)[0].ID; got != leader {
		t.Errorf("down: %d, want the old leader %d", got, leader)
	}
}
