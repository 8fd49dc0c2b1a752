package kraftsandbox

import (
	"slices"
	"strconv"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// The metadata quorum (__cluster_metadata-0) as Kafka 4.4's KRaft answers
// DescribeQuorum: the leader's view of its voters (the controllers) and
// observers (the brokers), read from a real 4.4.0 cluster with a static
// quorum (controller.quorum.voters):
//
//   - only the quorum's leader answers; another controller answers
//     NOT_LEADER_OR_FOLLOWER at once, and a broker forwards the request
//     to the leader (waiting, while there is none, up to its forwarding
//     timeout, then REQUEST_TIMED_OUT: ForwardingManager's onTimeout);
//   - a static quorum's voters have no directory id (zeros); the
//     observers report their metadata log directory's id;
//   - the leader's own entry is stamped with the time of the answer; a
//     follower's log end offset and fetch times are those of its last
//     fetch in the leader's epoch, frozen when it dies, so its lag grows
//     with every record appended since; a voter that has not fetched
//     from this leader at all (it died before the leader was elected) is
//     -1, -1, -1, as a new LeaderState starts;
//   - observers are the brokers that fetched from this leader in the
//     last five minutes (LeaderState's observer session timeout); a
//     killed broker's entry freezes, then goes;
//   - the leader appends a NoOpRecord every 500 ms
//     (metadata.max.idle.interval.ms), so the offsets move on an idle
//     cluster as a real one's do;
//   - a leader that has not heard from a majority of the voters for 3 s
//     (1.5 × controller.quorum.fetch.timeout.ms, check-quorum) resigns:
//     the quorum has no leader until a majority is back.

// Kafka's timings of the quorum.
const (
	// metadataIdleInterval is metadata.max.idle.interval.ms: the
	// leader's NoOpRecord interval.
	metadataIdleInterval = 500 * time.Millisecond
	// observerSessionTimeout is how long the leader keeps an observer
	// that stopped fetching (LeaderState.OBSERVER_SESSION_TIMEOUT_MS).
	observerSessionTimeout = 5 * time.Minute
	// checkQuorumTimeout is how long a leader keeps leading without
	// fetches from a majority (1.5 × controller.quorum.fetch.timeout.ms).
	checkQuorumTimeout = 3 * time.Second
)

// forwardTimeout is how long a broker holds a request it forwards to the
// active controller while there is none before answering
// REQUEST_TIMED_OUT (the broker's controller channel's retry timeout,
// 60 s). Tests shorten it.
var forwardTimeout = 60 * time.Second

// metadataTopic is the metadata log's topic.
const metadataTopic = "__cluster_metadata"

// quorumState is the leader's view of its followers and observers.
type quorumState struct {
	// fetched is, by node id, the leader epoch in which the voter or
	// observer last fetched, what it had then and when.
	fetched map[int32]*replicaFetch
	// lastLeader is the last leader the quorum had (0, never a
	// controller's id, before the first tick).
	lastLeader int32
	// lastNoOp is when the leader last appended a NoOpRecord;
	// noMajoritySince when it stopped hearing from a majority.
	lastNoOp, noMajoritySince time.Time
	// change is the last voter change (h_voters.go), nil before any.
	change *voterChange
}

type replicaFetch struct {
	epoch        int32
	leo          int64
	lastFetch    time.Time
	lastCaughtUp time.Time
}

func init() {
	handlerSets = append(handlerSets, map[int16]handler{
		kmsg.DescribeQuorum.Int16():   (*Cluster).describeQuorum,
		kmsg.AddRaftVoter.Int16():     (*Cluster).addRaftVoter,
		kmsg.RemoveRaftVoter.Int16():  (*Cluster).removeRaftVoter,
		kmsg.UnregisterBroker.Int16(): (*Cluster).unregisterBroker,
	})
	tickers = append(tickers, (*Cluster).quorumTick)
}

// quorumTick is the quorum's step: the live voters and brokers fetch from
// the leader, the leader appends its NoOpRecord, and a leader without a
// majority resigns. c.mu is held.
func (c *Cluster) quorumTick(now time.Time, _ time.Duration) {
	q := &c.ext.quorum
	if c.leader < 0 {
		q.noMajoritySince = time.Time{}
		return
	}
	q.lastLeader = c.leader
	live, voters := c.liveVoters()
	if live*2 <= voters {
		if q.noMajoritySince.IsZero() {
			q.noMajoritySince = now
		} else if now.Sub(q.noMajoritySince) >= checkQuorumTimeout {
			c.logf("controller %d resigns the metadata quorum's leadership in epoch %d: %d of %d voters alive", c.leader, c.leaderEpoch, live, voters)
			c.leader = -1
			q.noMajoritySince = time.Time{}
			return
		}
	} else {
		q.noMajoritySince = time.Time{}
	}
	if now.Sub(q.lastNoOp) >= metadataIdleInterval {
		c.record() // NoOpRecord
		q.lastNoOp = now
	}
	c.liveFetch(now, false)
	c.commitVoterChange(now)
}

// liveFetch records a fetch from the leader by every live voter and
// broker (onlyNew: by those that have not fetched in this epoch yet, as
// they do within moments of an election). c.mu is held.
func (c *Cluster) liveFetch(now time.Time, onlyNew bool) {
	q := &c.ext.quorum
	if q.fetched == nil {
		q.fetched = map[int32]*replicaFetch{}
	}
	fetch := func(id int32) {
		f := q.fetched[id]
		if f == nil {
			f = &replicaFetch{}
			q.fetched[id] = f
		} else if onlyNew && f.epoch == c.leaderEpoch {
			return
		}
		f.epoch, f.leo, f.lastFetch, f.lastCaughtUp = c.leaderEpoch, c.offset, now, now
	}
	for _, ct := range c.controllers {
		if ct.alive && ct.id != c.leader {
			fetch(ct.id)
		}
	}
	for _, b := range c.brokers {
		if b.alive {
			fetch(b.id)
		}
	}
}

// awaitQuorumLeader is a broker forwarding a request to the active
// controller: it waits, without c.mu, while the quorum has no leader, up
// to forwardTimeout, and says whether there is one. Call it without
// c.mu held.
func (c *Cluster) awaitQuorumLeader() bool {
	deadline := time.Now().Add(forwardTimeout)
	for {
		c.mu.Lock()
		ok := c.leader >= 0
		c.mu.Unlock()
		if ok {
			return true
		}
		if !time.Now().Before(deadline) {
			return false
		}
		select {
		case <-c.ctx.Done():
			return false
		case <-time.After(min(c.cfg.Tick, time.Until(deadline))):
		}
	}
}

// notControllerMessage is a follower controller's NOT_CONTROLLER message
// (ControllerExceptions.newWrongControllerException): while the quorum
// has no leader, a real 4.4 controller keeps naming the last leader it
// knew (seen on a real cluster a minute after its leader was killed).
// c.mu is held.
func (c *Cluster) notControllerMessage() string {
	leader := c.leader
	if leader < 0 {
		leader = c.ext.quorum.lastLeader
	}
	if leader <= 0 {
		return "No controller appears to be active."
	}
	return "The active controller appears to be node " + strconv.Itoa(int(leader)) + "."
}

func strp(s string) *string { return &s }

// describeQuorum answers DescribeQuorum.
func (c *Cluster) describeQuorum(r *request) (kmsg.Response, error) {
	req := r.req.(*kmsg.DescribeQuorumRequest)
	resp := req.ResponseKind().(*kmsg.DescribeQuorumResponse)
	if req.Version >= 2 {
		resp.ErrorMessage = strp("")
	}
	if len(req.Topics) == 0 {
		return resp, nil
	}
	partErr := func(topic string, part int32, e *kerr.Error) kmsg.DescribeQuorumResponseTopicPartition {
		p := kmsg.NewDescribeQuorumResponseTopicPartition()
		p.Partition, p.ErrorCode = part, e.Code
		if req.Version >= 2 {
			p.ErrorMessage = strp(kafkaErrorMessage(e))
		}
		return p
	}
	valid := len(req.Topics) == 1 && req.Topics[0].Topic == metadataTopic &&
		len(req.Topics[0].Partitions) == 1 && req.Topics[0].Partitions[0].Partition == 0
	if !valid {
		// KafkaRaftClient.hasValidTopicPartition: every partition asked
		// for is unknown.
		for _, rt := range req.Topics {
			t := kmsg.NewDescribeQuorumResponseTopic()
			t.Topic = rt.Topic
			for _, rp := range rt.Partitions {
				t.Partitions = append(t.Partitions, partErr(rt.Topic, rp.Partition, kerr.UnknownTopicOrPartition))
			}
			resp.Topics = append(resp.Topics, t)
		}
		return resp, nil
	}
	if !r.node.controller && !c.awaitQuorumLeader() {
		resp.ErrorCode = kerr.RequestTimedOut.Code
		return resp, nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	t := kmsg.NewDescribeQuorumResponseTopic()
	t.Topic = metadataTopic
	if c.leader < 0 || (r.node.controller && r.node.id != c.leader) {
		t.Partitions = append(t.Partitions, partErr(metadataTopic, 0, kerr.NotLeaderForPartition))
		resp.Topics = append(resp.Topics, t)
		return resp, nil
	}
	now := time.Now()
	c.liveFetch(now, true)
	p := kmsg.NewDescribeQuorumResponseTopicPartition()
	p.LeaderID, p.LeaderEpoch, p.HighWatermark = c.leader, c.leaderEpoch, c.offset
	if req.Version >= 2 {
		p.ErrorMessage = strp("")
	}
	q := &c.ext.quorum
	state := func(id int32, dir [16]byte) kmsg.DescribeQuorumResponseTopicPartitionReplicaState {
		s := kmsg.NewDescribeQuorumResponseTopicPartitionReplicaState()
		s.ReplicaID, s.ReplicaDirectoryID, s.LogEndOffset = id, dir, -1
		if id == c.leader {
			s.LogEndOffset = c.offset
			s.LastFetchTimestamp, s.LastCaughtUpTimestamp = now.UnixMilli(), now.UnixMilli()
			return s
		}
		if f := q.fetched[id]; f != nil && f.epoch == c.leaderEpoch {
			s.LogEndOffset = f.leo
			s.LastFetchTimestamp, s.LastCaughtUpTimestamp = f.lastFetch.UnixMilli(), f.lastCaughtUp.UnixMilli()
		}
		return s
	}
	dynamic := c.features["kraft.version"] >= 1
	observing := func(id int32) bool {
		f := q.fetched[id]
		return f != nil && f.epoch == c.leaderEpoch && now.Sub(f.lastFetch) < observerSessionTimeout
	}
	for _, ct := range c.controllers {
		var dir [16]byte
		if dynamic {
			dir = ct.dirID
		}
		switch {
		case !ct.observer:
			p.CurrentVoters = append(p.CurrentVoters, state(ct.id, dir))
		case observing(ct.id):
			// An observer controller fetches with its directory
			// id, as a broker does.
			p.Observers = append(p.Observers, state(ct.id, ct.dirID))
		}
	}
	for _, b := range c.brokers {
		if !observing(b.id) {
			continue
		}
		var dir [16]byte
		if len(b.dirs) > 0 {
			dir = b.dirs[0].id
		}
		p.Observers = append(p.Observers, state(b.id, dir))
	}
	t.Partitions = append(t.Partitions, p)
	resp.Topics = append(resp.Topics, t)
	for _, ct := range c.controllers {
		if ct.observer {
			// Nodes are the voters' endpoints only.
			continue
		}
		n := kmsg.NewDescribeQuorumResponseNode()
		n.NodeID = ct.id
		l := kmsg.NewDescribeQuorumResponseNodeListener()
		l.Name, l.Host, l.Port = "CONTROLLER", ct.n.host, uint16(ct.n.port)
		n.Listeners = append(n.Listeners, l)
		resp.Nodes = append(resp.Nodes, n)
	}
	return resp, nil
}

// kafkaErrorMessage is Errors.message() of Kafka for the codes the quorum
// answers with.
func kafkaErrorMessage(e *kerr.Error) string {
	switch e {
	case kerr.NotLeaderForPartition:
		return "For requests intended only for the leader, this error indicates that the broker is not the current leader. For requests intended for any replica, this error indicates that the broker is not a replica of the topic partition."
	case kerr.UnknownTopicOrPartition:
		return "This server does not host this topic-partition."
	}
	return e.Description
}

// unregisterBroker answers UnregisterBroker (KIP-500's
// kafka-cluster unregister): Kafka 4.4's controller removes any
// registered broker's registration, live or not
// (ReplicationControlManager.unregisterBroker): it leaves every ISR and
// ELR, leads nothing, and drops out of the metadata. A live broker's
// process keeps running without a registration (its heartbeats are
// refused) until it is restarted, when it registers anew.
func (c *Cluster) unregisterBroker(r *request) (kmsg.Response, error) {
	req := r.req.(*kmsg.UnregisterBrokerRequest)
	resp := req.ResponseKind().(*kmsg.UnregisterBrokerResponse)
	if !r.node.controller && !c.awaitQuorumLeader() {
		resp.ErrorCode = kerr.RequestTimedOut.Code
		return resp, nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.leader < 0 || (r.node.controller && r.node.id != c.leader) {
		resp.ErrorCode, resp.ErrorMessage = kerr.NotController.Code, strp(c.notControllerMessage())
		return resp, nil
	}
	b := c.broker(req.BrokerID)
	if b == nil || !b.registered {
		resp.ErrorCode = kerr.BrokerIDNotRegistered.Code
		resp.ErrorMessage = strp("Broker ID " + strconv.Itoa(int(req.BrokerID)) + " is not currently registered")
		return resp, nil
	}
	c.unregister(b)
	resp.ErrorMessage = strp("")
	return resp, nil
}

// unregister removes a broker's registration (handleBrokerUnregistered):
// out of every ISR (electing new leaders) and ELR, then an
// UnregisterBrokerRecord. c.mu is held.
func (c *Cluster) unregister(b *broker) {
	b.registered, b.fenced, b.unfenceAt = false, true, time.Time{}
	c.forEachPartition(func(t *topic, p *partition) {
		if slices.Contains(p.isr, b.id) || p.leader == b.id {
			c.change(t, p, without(p.isr, b.id), electAny)
		}
		if slices.Contains(p.elr, b.id) || slices.Contains(p.lastKnownELR, b.id) {
			p.elr, p.lastKnownELR = without(p.elr, b.id), without(p.lastKnownELR, b.id)
			p.epoch++
			c.record()
		}
	})
	c.record()
	c.logf("broker %d unregistered", b.id)
}
