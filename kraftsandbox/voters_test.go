package kraftsandbox

import (
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

func voterDir(c *Cluster, id int32) [16]byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.controller(id).dirID
}

// TestVoterChangeStuck: a change whose new voter set has no majority
// alive does not commit: its request is answered REQUEST_TIMED_OUT when
// the leader's timer expires, another change meanwhile is refused (one
// at a time), the leader resigns without a majority of the new set, and
// once a voter of the new set is back the change commits under the
// leader the new set elects. Kafka's end-to-end cases (add, remove, the
// leader removed, a dead voter removed) are internal/e2e/quorum's, run
// against real Kafka too; this one needs the leader stalled at a chosen
// moment, which only the sandbox gives.
func TestVoterChangeStuck(t *testing.T) {
	defer func(d time.Duration) { voterChangeTimeout = d }(voterChangeTimeout)
	// Long enough for the second change to arrive while the first waits.
	voterChangeTimeout = 5 * time.Second
	c := startTest(t, Config{Brokers: 1, Controllers: 3, DynamicQuorum: true, ObserverControllers: 1})
	if err := c.Kill(3002); err != nil {
		t.Fatal(err)
	}
	rm := kmsg.NewPtrRemoveRaftVoterRequest()
	rm.VoterID, rm.VoterDirectoryID = 3001, voterDir(c, 3001)
	var wg sync.WaitGroup
	var first *kmsg.RemoveRaftVoterResponse
	wg.Go(func() { first = nodeRequest[*kmsg.RemoveRaftVoterResponse](t, c.addrOf(3000), rm) })
	eventually(t, "the VotersRecord appended", func() bool { return !slices.Contains(c.Voters(), 3001) })
	add := kmsg.NewPtrAddRaftVoterRequest()
	add.VoterID, add.VoterDirectoryID = 3003, voterDir(c, 3003)
	l := kmsg.NewAddRaftVoterRequestListener()
	l.Name, l.Host, l.Port = "CONTROLLER", "127.0.0.1", uint16(c.controller(3003).n.port)
	add.Listeners = append(add.Listeners, l)
	if r := nodeRequest[*kmsg.AddRaftVoterResponse](t, c.addrOf(3000), add); r.ErrorCode != kerr.RequestTimedOut.Code ||
		r.ErrorMessage == nil || *r.ErrorMessage != "Request timed out waiting for leader to handle previous voter change request" {
		t.Errorf("a second change: %v %v", kerr.ErrorForCode(r.ErrorCode), r.ErrorMessage)
	}
	wg.Wait()
	if first.ErrorCode != kerr.RequestTimedOut.Code || first.ErrorMessage == nil || *first.ErrorMessage != "The request timed out." {
		t.Errorf("the stuck change: %v %v, want REQUEST_TIMED_OUT", kerr.ErrorForCode(first.ErrorCode), first.ErrorMessage)
	}
	// Its timer expired, the record is still uncommitted.
	if r := nodeRequest[*kmsg.AddRaftVoterResponse](t, c.addrOf(3000), add); r.ErrorCode != kerr.RequestTimedOut.Code && r.ErrorCode != kerr.NotLeaderForPartition.Code {
		t.Errorf("a change after the timer: %v %v", kerr.ErrorForCode(r.ErrorCode), r.ErrorMessage)
	}
	eventually(t, "the leader resigning without a majority of 3000, 3002", func() bool { id, _ := c.QuorumLeader(); return id < 0 })
	if err := c.Restart(3002); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the change committed under a new leader", func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		return c.leader >= 0 && c.ext.quorum.change.committed
	})
	if got := c.Voters(); !slices.Equal(got, []int{3000, 3002}) {
		t.Errorf("voters %v, want 3000, 3002", got)
	}
	// 3001 runs on as an observer; another change goes through now.
	if r := nodeRequest[*kmsg.AddRaftVoterResponse](t, c.addrOf(1), add); r.ErrorCode != 0 {
		t.Fatalf("add 3003: %v %v", kerr.ErrorForCode(r.ErrorCode), r.ErrorMessage)
	}
	if got := c.Voters(); !slices.Equal(got, []int{3000, 3002, 3003}) {
		t.Errorf("voters %v, want 3000, 3002, 3003", got)
	}
	// Killing the new voter set's leader elects another of its voters,
	// never the observer 3001.
	if err := c.Kill(3000); err != nil {
		t.Fatal(err)
	}
	if id, _ := c.QuorumLeader(); id != 3002 {
		t.Errorf("leader %d after 3000 was killed, want 3002", id)
	}
}
