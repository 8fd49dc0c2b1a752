package kraftsandbox

import (
	"encoding/base64"
	"fmt"
	"net"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// A dynamic quorum's membership changes (KIP-853) as Kafka 4.4's leader
// makes them (KafkaRaftClient.handleAddVoterRequest and
// handleRemoveVoterRequest, AddVoterHandler, RemoveVoterHandler,
// LeaderState; the messages are read from the 4.4.0 jars):
//
//   - only the quorum's leader takes them; another controller answers
//     NOT_LEADER_OR_FOLLOWER, a broker forwards them to the leader;
//   - a cluster id that is not the cluster's is INCONSISTENT_CLUSTER_ID;
//     a voter without a directory id INVALID_REQUEST; an AddRaftVoter
//     without an endpoint for the controllers' listener (CONTROLLER)
//     INVALID_REQUEST;
//   - one change at a time: while one is under way, REQUEST_TIMED_OUT;
//     while the last VotersRecord is not committed, REQUEST_TIMED_OUT
//     too; a static quorum (kraft.version 0) UNSUPPORTED_VERSION;
//   - AddRaftVoter of an id that is a voter already is DUPLICATE_VOTER;
//     then the leader asks the new voter's endpoint for ApiVersions and
//     takes it only when that node's (id, directory id) is an observer
//     that has fetched (isReplicaCaughtUp), else REQUEST_TIMED_OUT,
//     "lagging behind": a directory id that is not the node's is that;
//   - RemoveRaftVoter of a (id, directory id) that is not a voter, or of
//     the last voter, is VOTER_NOT_FOUND;
//   - the leader appends the VotersRecord, and the new voter set counts
//     at once, uncommitted: the change commits when a majority of the
//     new set has fetched it, and the request is answered then (or
//     REQUEST_TIMED_OUT after controller.quorum.request.timeout.ms, 2 s,
//     the change left in the log to commit later); a leader that removed
//     itself resigns once the change commits, and the remaining voters
//     elect another. A removed voter keeps running as an observer.

// voterChangeTimeout is controller.quorum.request.timeout.ms: how long
// the leader waits for a voter change to commit before it answers
// REQUEST_TIMED_OUT (LeaderState's add and remove handler timers).
var voterChangeTimeout = 2 * time.Second

// requestTimedOut is Errors.REQUEST_TIMED_OUT.message().
const requestTimedOut = "The request timed out."

// voterChange is a VotersRecord the leader appended: which change, at
// which offset, whether it committed, and until when its request waits.
type voterChange struct {
	add       bool
	id        int32
	offset    int64
	committed bool
	// waitUntil is when the handler's timer expires (the request is
	// answered REQUEST_TIMED_OUT; the record stays in the log).
	waitUntil time.Time
}

// uuidText is a Kafka Uuid's toString: URL-safe base64 without padding.
func uuidText(u [16]byte) string { return base64.RawURLEncoding.EncodeToString(u[:]) }

// replicaKeyText is Kafka 4.4's ReplicaKey.toString (3.9's wrapped the
// directory id in Optional[…]).
func replicaKeyText(id int32, dir [16]byte) string {
	d := "<undefined>"
	if dir != ([16]byte{}) {
		d = uuidText(dir)
	}
	return fmt.Sprintf("ReplicaKey(id=%d, directoryId=%s)", id, d)
}

// voterKeysText is VoterSet.voterKeys() as Kafka prints it (a set, in no
// order Kafka promises: here by id). c.mu is held.
func (c *Cluster) voterKeysText() string {
	var ks []string
	for _, ct := range c.controllers {
		if !ct.observer {
			ks = append(ks, replicaKeyText(ct.id, ct.dirID))
		}
	}
	return "[" + strings.Join(ks, ", ") + "]"
}

// liveVoters counts the quorum's voters and those of them that run.
// c.mu is held.
func (c *Cluster) liveVoters() (live, voters int) {
	for _, ct := range c.controllers {
		if !ct.observer {
			voters++
			if ct.alive {
				live++
			}
		}
	}
	return live, voters
}

// voterChangeRefusal runs the checks common to AddRaftVoter and
// RemoveRaftVoter, in KafkaRaftClient's and the handlers' order: the
// cluster id, leadership, then (after the request's own checks, which
// check runs) a change under way, the kraft.version, an uncommitted
// VotersRecord. It returns the error code and message (0: go on). c.mu
// is held.
func (c *Cluster) voterChangeRefusal(r *request, clusterID *string, verb string, check func() (int16, *string)) (int16, *string) {
	if clusterID != nil && *clusterID != c.clusterID {
		return kerr.InconsistentClusterID.Code, strp(fmt.Sprintf("The given id \"%s\" doesn't match the cluster id \"%s\"", *clusterID, c.clusterID))
	}
	if c.leader < 0 || (r.node.controller && r.node.id != c.leader) {
		return kerr.NotLeaderForPartition.Code, nil
	}
	if code, msg := check(); code != 0 {
		return code, msg
	}
	q := &c.ext.quorum
	if ch := q.change; ch != nil && !ch.committed && time.Now().Before(ch.waitUntil) {
		return kerr.RequestTimedOut.Code, strp("Request timed out waiting for leader to handle previous voter change request")
	}
	if c.features["kraft.version"] < 1 {
		return kerr.UnsupportedVersion.Code, strp("Cluster doesn't support " + verb + " voter because the kraft.version feature is 0")
	}
	if ch := q.change; ch != nil && !ch.committed {
		return kerr.RequestTimedOut.Code, strp(fmt.Sprintf("Request timed out waiting for voters to commit the latest voter change at Optional[%d] with HWM %d", ch.offset, ch.offset))
	}
	return 0, nil
}

// addRaftVoter answers AddRaftVoter (KIP-853).
func (c *Cluster) addRaftVoter(r *request) (kmsg.Response, error) {
	req := r.req.(*kmsg.AddRaftVoterRequest)
	resp := req.ResponseKind().(*kmsg.AddRaftVoterResponse)
	if !r.node.controller && !c.awaitQuorumLeader() {
		resp.ErrorCode = kerr.RequestTimedOut.Code
		return resp, nil
	}
	c.mu.Lock()
	var endpoint string
	code, msg := c.voterChangeRefusal(r, req.ClusterID, "adding", func() (int16, *string) {
		if req.VoterID < 0 || req.VoterDirectoryID == ([16]byte{}) {
			return kerr.InvalidRequest.Code, strp("Add voter request didn't include a valid voter")
		}
		var eps []string
		for _, l := range req.Listeners {
			eps = append(eps, fmt.Sprintf("ListenerName(%s)=%s/%s:%d", l.Name, l.Host, l.Host, l.Port))
			if l.Name == "CONTROLLER" {
				endpoint = net.JoinHostPort(l.Host, strconv.Itoa(int(l.Port)))
			}
		}
		if endpoint == "" {
			return kerr.InvalidRequest.Code, strp(fmt.Sprintf("Add voter request didn't include the endpoint (Endpoints(endpoints={%s})) for the default listener ListenerName(CONTROLLER)", strings.Join(eps, ", ")))
		}
		return 0, nil
	})
	if code == 0 {
		code, msg = c.addVoter(req, endpoint)
	}
	c.mu.Unlock()
	if code == 0 {
		code, msg = c.awaitVoterChange()
	}
	resp.ErrorCode, resp.ErrorMessage = code, msg
	return resp, nil
}

// addVoter is AddVoterHandler's part once the common checks passed: the
// duplicate check, the new voter's ApiVersions, its catching up, and the
// VotersRecord. c.mu is held.
func (c *Cluster) addVoter(req *kmsg.AddRaftVoterRequest, endpoint string) (int16, *string) {
	key := replicaKeyText(req.VoterID, req.VoterDirectoryID)
	if ct := c.controller(req.VoterID); ct != nil && !ct.observer {
		return kerr.DuplicateVoter.Code, strp(fmt.Sprintf("The voter id for %s is already part of the set of voters %s.", key, c.voterKeysText()))
	}
	// The leader asks the endpoint given for ApiVersions: a node that
	// does not answer aborts the change (KafkaNetworkChannel answers a
	// lost connection BROKER_NOT_AVAILABLE).
	if !c.answersAt(endpoint) {
		return kerr.RequestTimedOut.Code, strp("Aborted add voter operation for since API_VERSIONS returned an error BROKER_NOT_AVAILABLE")
	}
	// isReplicaCaughtUp: the leader's observer state of exactly this
	// (id, directory id), fetching.
	caughtUp := false
	now := time.Now()
	if f := c.ext.quorum.fetched[req.VoterID]; f != nil && f.epoch == c.leaderEpoch && c.observerDir(req.VoterID) == req.VoterDirectoryID &&
		now.Sub(f.lastFetch) < time.Hour {
		caughtUp = true
	}
	if !caughtUp {
		return kerr.RequestTimedOut.Code, strp(fmt.Sprintf("Aborted add voter operation for %s since it is lagging behind", key))
	}
	ct := c.controller(req.VoterID)
	if ct == nil {
		// A broker's (id, directory id): Kafka would make it a voter
		// at the endpoint given; the sandbox runs no controller for
		// it, so it cannot.
		return kerr.RequestTimedOut.Code, strp(fmt.Sprintf("Aborted add voter operation for %s since it is lagging behind", key))
	}
	ct.observer = false
	c.appendVoterChange(true, ct.id, now)
	c.logf("controller %d added to the metadata quorum's voters (uncommitted)", ct.id)
	return 0, nil
}

// observerDir is the directory id node id fetches with (zero when none
// of the sandbox's processes has that id). c.mu is held.
func (c *Cluster) observerDir(id int32) [16]byte {
	if ct := c.controller(id); ct != nil {
		return ct.dirID
	}
	if b := c.broker(id); b != nil && len(b.dirs) > 0 {
		return b.dirs[0].id
	}
	return [16]byte{}
}

// answersAt reports whether one of the sandbox's running processes
// listens at addr. c.mu is held.
func (c *Cluster) answersAt(addr string) bool {
	for _, ct := range c.controllers {
		if ct.alive && ct.n.addr() == addr {
			return true
		}
	}
	for _, b := range c.brokers {
		if b.alive && b.n.addr() == addr {
			return true
		}
	}
	return false
}

// lastVoter reports whether the quorum has one voter left. c.mu is held.
func (c *Cluster) lastVoter() bool {
	_, voters := c.liveVoters()
	return voters == 1
}

// appendVoterChange appends the VotersRecord of a change. c.mu is held.
func (c *Cluster) appendVoterChange(add bool, id int32, now time.Time) {
	c.ext.quorum.change = &voterChange{add: add, id: id, offset: c.record(), waitUntil: now.Add(voterChangeTimeout)}
}

// awaitVoterChange waits, without c.mu, until the voter change just
// appended commits, or its timer expires (REQUEST_TIMED_OUT:
// LeaderState.maybeExpirePendingOperation gives no message, and
// RaftUtil's response then carries Errors.message(), seen on 4.4).
func (c *Cluster) awaitVoterChange() (int16, *string) {
	for {
		c.mu.Lock()
		ch := c.ext.quorum.change
		done, expired := ch == nil || ch.committed, ch != nil && !time.Now().Before(ch.waitUntil)
		c.mu.Unlock()
		switch {
		case done:
			return 0, nil
		case expired:
			return kerr.RequestTimedOut.Code, strp(requestTimedOut)
		}
		select {
		case <-c.ctx.Done():
			return kerr.RequestTimedOut.Code, strp(requestTimedOut)
		case <-time.After(c.cfg.Tick):
		}
	}
}

// commitVoterChange commits the pending VotersRecord once a majority of
// the new voter set runs (the live voters fetch it within the tick), and
// has a leader that removed itself resign. c.mu is held.
func (c *Cluster) commitVoterChange(time.Time) {
	ch := c.ext.quorum.change
	if ch == nil || ch.committed || c.leader < 0 {
		return
	}
	if live, voters := c.liveVoters(); live*2 <= voters {
		return
	}
	ch.committed = true
	c.logf("the metadata quorum's voter change at offset %d committed: voters %s", ch.offset, c.voterKeysText())
	if lc := c.controller(c.leader); lc != nil && lc.observer {
		c.logf("Leader is not in the committed voter set %s resign from epoch %d", c.voterKeysText(), c.leaderEpoch)
		c.electQuorumLeader()
	}
}

// removeRaftVoter answers RemoveRaftVoter (KIP-853).
func (c *Cluster) removeRaftVoter(r *request) (kmsg.Response, error) {
	req := r.req.(*kmsg.RemoveRaftVoterRequest)
	resp := req.ResponseKind().(*kmsg.RemoveRaftVoterResponse)
	if !r.node.controller && !c.awaitQuorumLeader() {
		resp.ErrorCode = kerr.RequestTimedOut.Code
		return resp, nil
	}
	c.mu.Lock()
	code, msg := c.voterChangeRefusal(r, req.ClusterID, "removing", func() (int16, *string) {
		if req.VoterID < 0 || req.VoterDirectoryID == ([16]byte{}) {
			return kerr.InvalidRequest.Code, strp("Remove voter request didn't include a valid voter")
		}
		return 0, nil
	})
	if code == 0 {
		ct := c.controller(req.VoterID)
		if ct == nil || ct.observer || ct.dirID != req.VoterDirectoryID || c.lastVoter() {
			// VoterSet.removeVoter: not this (id, directory id), or
			// the last voter.
			code, msg = kerr.VoterNotFound.Code, strp(fmt.Sprintf("Cannot remove voter %s from the set of voters %s", replicaKeyText(req.VoterID, req.VoterDirectoryID), c.voterKeysText()))
		} else {
			ct.observer = true
			c.appendVoterChange(false, ct.id, time.Now())
			c.logf("controller %d removed from the metadata quorum's voters (uncommitted)", ct.id)
		}
	}
	c.mu.Unlock()
	if code == 0 {
		code, msg = c.awaitVoterChange()
	}
	resp.ErrorCode, resp.ErrorMessage = code, msg
	return resp, nil
}

// Voters are the metadata quorum's voters' ids now, ascending (with a
// voter change under way, the new set: Kafka's leader counts it as
// soon as it appends it).
func (c *Cluster) Voters() []int {
	c.mu.Lock()
	defer c.mu.Unlock()
	var ids []int
	for _, ct := range c.controllers {
		if !ct.observer {
			ids = append(ids, int(ct.id))
		}
	}
	slices.Sort(ids)
	return ids
}
