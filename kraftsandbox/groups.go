package kraftsandbox

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// The group coordinator: classic consumer groups (JoinGroup, SyncGroup,
// Heartbeat, LeaveGroup), their committed offsets (OffsetCommit,
// OffsetFetch) and the admin's view (FindCoordinator, ListGroups,
// DescribeGroups, DeleteGroups).
//
// A group's coordinator is the leader of its __consumer_offsets partition
// (abs(groupId.hashCode) % partitions, Java's String.hashCode), as in
// Kafka; the first FindCoordinator creates __consumer_offsets as a broker
// does (offsets.topic.num.partitions 50, offsets.topic.replication.factor
// 3, here capped at the number of brokers). The groups' state itself is
// held once for the cluster: when the coordinator moves, the new one has
// the groups and their offsets, as a broker loading the partition has.
//
// Kafka 4.4's console consumer uses the classic protocol by default
// (group.protocol=classic, ConsumerConfig.DEFAULT_GROUP_PROTOCOL), and so
// does franz-go; ConsumerGroupHeartbeat (KIP-848) is not served, so that a
// consumer with group.protocol=consumer is told the broker does not
// support it (UnsupportedVersionException), never misled.
//
// Lenient against Kafka: static members (group.instance.id) are kept
// and reported, but treated as dynamic ones (a restarted static member
// rejoins under a new member id); a leader that never sends its
// SyncGroup is caught by its session timeout, not by a sync timer.

// groupState is the group coordinator's state: classic consumer groups
// and their committed offsets.
type groupState struct {
	groups map[string]*group
	// initialDelay is group.initial.rebalance.delay.ms (Kafka's 3 s,
	// set at the first use): how long an empty group's first rebalance
	// waits for more members. noInitialDelay turns it off (tests).
	initialDelay   time.Duration
	noInitialDelay bool
}

// group is one classic group.
type group struct {
	id           string
	state        string
	protocolType string
	protocol     string
	generation   int32
	leader       string
	members      map[string]*member
	// order is the members' ids by joining order (the leader is the
	// first still there).
	order []string
	// pending are the member ids handed out with MEMBER_ID_REQUIRED,
	// with when they expire.
	pending map[string]time.Time
	// rebalanceEnd ends the join phase (members that have not rejoined
	// are removed); delayEnd is the initial delay's end.
	rebalanceEnd, delayEnd time.Time
	offsets                map[string]map[int32]committed
}

// member is one member of a classic group.
type member struct {
	id                   string
	instanceID           *string
	clientID, clientHost string
	session, rebalance   time.Duration
	protocols            []kmsg.JoinGroupRequestProtocol
	assignment           []byte
	lastSeen             time.Time
	// joined: rejoined in the rebalance under way. joinCh and syncCh
	// take the answer of a JoinGroup or SyncGroup waiting for it.
	joined bool
	joinCh chan *kmsg.JoinGroupResponse
	syncCh chan *kmsg.SyncGroupResponse
}

// committed is one committed offset.
type committed struct {
	offset int64
	epoch  int32
	meta   string
}

// The classic groups' states, as Kafka names them.
const (
	groupEmpty       = "Empty"
	groupPreparing   = "PreparingRebalance"
	groupCompleting  = "CompletingRebalance"
	groupStable      = "Stable"
	groupDead        = "Dead"
	minSessionMillis = 6000    // group.min.session.timeout.ms
	maxSessionMillis = 1800000 // group.max.session.timeout.ms
)

func init() {
	handlerSets = append(handlerSets, map[int16]handler{
		kmsg.FindCoordinator.Int16(): (*Cluster).findCoordinator,
		kmsg.JoinGroup.Int16():       (*Cluster).joinGroup,
		kmsg.SyncGroup.Int16():       (*Cluster).syncGroup,
		kmsg.Heartbeat.Int16():       (*Cluster).heartbeat,
		kmsg.LeaveGroup.Int16():      (*Cluster).leaveGroup,
		kmsg.OffsetCommit.Int16():    (*Cluster).offsetCommit,
		kmsg.OffsetFetch.Int16():     (*Cluster).offsetFetch,
		kmsg.ListGroups.Int16():      (*Cluster).listGroups,
		kmsg.DescribeGroups.Int16():  (*Cluster).describeGroups,
		kmsg.DeleteGroups.Int16():    (*Cluster).deleteGroups,
	})
	tickers = append(tickers, (*Cluster).tickGroups)
}

// javaHashCode is Java's String.hashCode of s (UTF-16 code units).
func javaHashCode(s string) int32 {
	var h int32
	for _, r := range s {
		if r >= 0x10000 {
			r -= 0x10000
			h = 31*h + int32(0xD800+(r>>10))
			h = 31*h + int32(0xDC00+(r&0x3FF))
			continue
		}
		h = 31*h + r
	}
	return h
}

// offsetsTopic is __consumer_offsets, created when create is set and it
// does not exist (nil when it cannot be). c.mu is held.
func (c *Cluster) offsetsTopic(create bool) *topic {
	if t := c.topics["__consumer_offsets"]; t != nil || !create {
		return t
	}
	n := 0
	for _, b := range c.brokers {
		if b.registered && !b.fenced {
			n++
		}
	}
	rf := c.intBrokerDefault("offsets.topic.replication.factor", min(3, n))
	a, err := c.place(0, c.intBrokerDefault("offsets.topic.num.partitions", 50), rf)
	if err != nil {
		return nil
	}
	return c.addTopic("__consumer_offsets", a, map[string]string{
		"cleanup.policy": "compact", "compression.type": "producer", "segment.bytes": "104857600"})
}

// coordinator is the broker coordinating a group: the leader of its
// __consumer_offsets partition. c.mu is held.
func (c *Cluster) coordinator(groupID string, create bool) (int32, *kerr.Error) {
	t := c.offsetsTopic(create)
	if t == nil || len(t.parts) == 0 {
		return -1, kerr.CoordinatorNotAvailable
	}
	h := javaHashCode(groupID)
	if h == -1<<31 {
		h = 0
	} else if h < 0 {
		h = -h
	}
	p := t.parts[int(h)%len(t.parts)]
	if p.leader < 0 {
		return -1, kerr.CoordinatorNotAvailable
	}
	return p.leader, nil
}

// checkCoordinator is the error of a group request sent to a broker that
// does not coordinate the group (nil when it does). c.mu is held.
func (c *Cluster) checkCoordinator(n *node, groupID string) *kerr.Error {
	id, err := c.coordinator(groupID, false)
	if err != nil {
		return err
	}
	if id != n.id {
		return kerr.NotCoordinator
	}
	return nil
}

// findCoordinator answers FindCoordinator: a group's coordinator (v4+:
// for each key). Transactions have no coordinator in the sandbox.
func (c *Cluster) findCoordinator(r *request) (kmsg.Response, error) {
	req := r.req.(*kmsg.FindCoordinatorRequest)
	resp := req.ResponseKind().(*kmsg.FindCoordinatorResponse)
	c.mu.Lock()
	defer c.mu.Unlock()
	find := func(key string) (co kmsg.FindCoordinatorResponseCoordinator) {
		co = kmsg.NewFindCoordinatorResponseCoordinator()
		co.Key, co.NodeID, co.Port = key, -1, -1
		var err *kerr.Error
		var id int32
		switch req.CoordinatorType {
		case 0:
			if key == "" {
				err = kerr.InvalidGroupID
				break
			}
			id, err = c.coordinator(key, true)
		case 1:
			err = kerr.CoordinatorNotAvailable
		default:
			err = kerr.InvalidRequest
		}
		if err == nil {
			b, ok := c.endpoint(id)
			if !ok {
				err = kerr.CoordinatorNotAvailable
			} else {
				co.NodeID, co.Host, co.Port = b.id, b.n.host, b.n.port
			}
		}
		if err != nil {
			co.ErrorCode = err.Code
			msg := errMessage(err)
			co.ErrorMessage = &msg
			co.Host = ""
		}
		return co
	}
	if req.Version >= 4 {
		for _, k := range req.CoordinatorKeys {
			resp.Coordinators = append(resp.Coordinators, find(k))
		}
		return resp, nil
	}
	co := find(req.CoordinatorKey)
	resp.ErrorCode, resp.ErrorMessage, resp.NodeID, resp.Host, resp.Port = co.ErrorCode, co.ErrorMessage, co.NodeID, co.Host, co.Port
	return resp, nil
}

// errMessage is the message of Kafka's exception for an error code (its
// Errors enum's default message).
func errMessage(e *kerr.Error) string {
	switch e {
	case kerr.CoordinatorNotAvailable:
		return "The coordinator is not available."
	case kerr.NotCoordinator:
		return "This is not the correct coordinator."
	case kerr.InvalidGroupID:
		return "The configured groupId is invalid."
	case kerr.InvalidRequest:
		return "This most likely occurs because of a request being malformed by the client library or the message was sent to an incompatible broker. See the broker logs for more details."
	}
	return e.Description
}

// groupFor is a group by id, created (empty) when create is set. c.mu is
// held.
func (c *Cluster) groupFor(id string, create bool) *group {
	gs := &c.ext.groups
	if g := gs.groups[id]; g != nil || !create {
		return g
	}
	if gs.groups == nil {
		gs.groups = map[string]*group{}
	}
	g := &group{id: id, state: groupEmpty, members: map[string]*member{}, pending: map[string]time.Time{},
		offsets: map[string]map[int32]committed{}}
	gs.groups[id] = g
	return g
}

// newMemberID is a new member's id: the client id, a dash and a UUID.
// c.mu is held.
func (c *Cluster) newMemberID(clientID string) string {
	var u [16]byte
	c.uuidInto(&u)
	s := fmt.Sprintf("%x-%x-%x-%x-%x", u[0:4], u[4:6], u[6:8], u[8:10], u[10:16])
	return clientID + "-" + s
}

// joinGroup answers JoinGroup, waiting (without c.mu) for the join phase
// of the rebalance to complete.
func (c *Cluster) joinGroup(r *request) (kmsg.Response, error) {
	req := r.req.(*kmsg.JoinGroupRequest)
	c.mu.Lock()
	resp, ch, wait := c.join(r, req, time.Now())
	c.mu.Unlock()
	if ch == nil {
		return resp, nil
	}
	timer := time.NewTimer(wait)
	defer timer.Stop()
	poll := time.NewTicker(c.cfg.Tick)
	defer poll.Stop()
	for {
		select {
		case out := <-ch:
			return out, nil
		case <-timer.C:
			resp.ErrorCode = kerr.UnknownMemberID.Code
			return resp, nil
		case <-c.ctx.Done():
			return nil, errClose
		case <-poll.C:
			if !r.node.listening() {
				return nil, errClose
			}
		}
	}
}

// join handles a JoinGroup under c.mu: an answer now, or a channel the
// answer comes on and how long to wait for it at most.
func (c *Cluster) join(r *request, req *kmsg.JoinGroupRequest, now time.Time) (*kmsg.JoinGroupResponse, chan *kmsg.JoinGroupResponse, time.Duration) {
	resp := req.ResponseKind().(*kmsg.JoinGroupResponse)
	resp.Generation, resp.MemberID = -1, req.MemberID
	fail := func(e *kerr.Error) (*kmsg.JoinGroupResponse, chan *kmsg.JoinGroupResponse, time.Duration) {
		resp.ErrorCode = e.Code
		return resp, nil, 0
	}
	if req.Group == "" {
		return fail(kerr.InvalidGroupID)
	}
	if err := c.checkCoordinator(r.node, req.Group); err != nil {
		return fail(err)
	}
	if req.SessionTimeoutMillis < minSessionMillis || req.SessionTimeoutMillis > maxSessionMillis {
		return fail(kerr.InvalidSessionTimeout)
	}
	rebalance := req.RebalanceTimeoutMillis
	if req.Version == 0 {
		rebalance = req.SessionTimeoutMillis
	}
	g := c.groupFor(req.Group, req.MemberID == "")
	if g == nil {
		return fail(kerr.UnknownMemberID)
	}
	if req.ProtocolType == "" || len(req.Protocols) == 0 ||
		len(g.members) > 0 && (req.ProtocolType != g.protocolType || !g.supports(req.Protocols)) {
		return fail(kerr.InconsistentGroupProtocol)
	}
	if g.state == groupDead {
		return fail(kerr.CoordinatorNotAvailable)
	}
	m := g.members[req.MemberID]
	if req.MemberID == "" {
		id := c.newMemberID(r.clientID)
		if req.Version >= 4 {
			// KIP-394: the member learns its id and joins again with it.
			g.pending[id] = now.Add(time.Duration(req.SessionTimeoutMillis) * time.Millisecond)
			resp.MemberID = id
			return fail(kerr.MemberIDRequired)
		}
		req.MemberID = id
	} else if m == nil {
		if _, ok := g.pending[req.MemberID]; !ok {
			return fail(kerr.UnknownMemberID)
		}
		delete(g.pending, req.MemberID)
	}
	resp.MemberID = req.MemberID
	if m == nil {
		m = &member{id: req.MemberID, clientID: r.clientID, clientHost: "/" + r.node.host}
		g.members[m.id] = m
		g.order = append(g.order, m.id)
		if g.state == groupPreparing && !g.delayEnd.IsZero() {
			// A member joining during the initial delay extends it,
			// up to the rebalance timeout.
			g.delayEnd = minTime(now.Add(c.initialDelay()), g.rebalanceEnd)
		}
	}
	changed := !slices.EqualFunc(m.protocols, req.Protocols, func(a, b kmsg.JoinGroupRequestProtocol) bool {
		return a.Name == b.Name && string(a.Metadata) == string(b.Metadata)
	})
	m.instanceID = req.InstanceID
	m.session = time.Duration(req.SessionTimeoutMillis) * time.Millisecond
	m.rebalance = time.Duration(rebalance) * time.Millisecond
	m.protocols = slices.Clone(req.Protocols)
	m.lastSeen = now
	if len(g.members) == 1 {
		g.protocolType = req.ProtocolType
	}
	if (g.state == groupStable || g.state == groupCompleting) && !changed && m.id != g.leader && g.generation > 0 {
		// A follower rejoining with what it had: the current generation.
		return c.joinResponse(g, m, req.Version), nil, 0
	}
	m.joined = true
	m.joinCh = make(chan *kmsg.JoinGroupResponse, 1)
	ch := m.joinCh
	if g.state != groupPreparing {
		c.prepareRebalance(g, now)
	}
	c.tryCompleteJoin(g, now)
	return resp, ch, m.rebalance + 5*time.Second
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

// initialDelay is group.initial.rebalance.delay.ms. c.mu is held.
func (c *Cluster) initialDelay() time.Duration {
	if c.ext.groups.noInitialDelay {
		return 0
	}
	if c.ext.groups.initialDelay == 0 {
		return 3 * time.Second
	}
	return c.ext.groups.initialDelay
}

// supports says whether every member supports one of protocols.
func (g *group) supports(protocols []kmsg.JoinGroupRequestProtocol) bool {
	for _, p := range protocols {
		all := true
		for _, m := range g.members {
			if !slices.ContainsFunc(m.protocols, func(q kmsg.JoinGroupRequestProtocol) bool { return q.Name == p.Name }) {
				all = false
				break
			}
		}
		if all {
			return true
		}
	}
	return false
}

// prepareRebalance starts a rebalance: every member must rejoin before
// the largest of their rebalance timeouts. c.mu is held.
func (c *Cluster) prepareRebalance(g *group, now time.Time) {
	var timeout time.Duration
	for _, m := range g.members {
		timeout = max(timeout, m.rebalance)
		if m.syncCh != nil {
			resp := kmsg.NewPtrSyncGroupResponse()
			resp.ErrorCode = kerr.RebalanceInProgress.Code
			m.syncCh <- resp
			m.syncCh = nil
		}
	}
	g.rebalanceEnd = now.Add(timeout)
	g.delayEnd = time.Time{}
	if g.state == groupEmpty {
		g.delayEnd = minTime(now.Add(c.initialDelay()), g.rebalanceEnd)
	}
	g.state = groupPreparing
	c.logf("group coordinator: preparing to rebalance group %s (generation %d)", g.id, g.generation)
}

// tryCompleteJoin ends the join phase when every member has rejoined (and
// the initial delay is over) or the rebalance timeout has passed: a new
// generation, its protocol and leader, the answers to the members'
// JoinGroups. c.mu is held.
func (c *Cluster) tryCompleteJoin(g *group, now time.Time) {
	if g.state != groupPreparing {
		return
	}
	all := true
	for _, m := range g.members {
		all = all && m.joined
	}
	timedOut := !now.Before(g.rebalanceEnd)
	if !timedOut && (!all || now.Before(g.delayEnd)) {
		return
	}
	for _, id := range slices.Clone(g.order) {
		if m := g.members[id]; !m.joined {
			c.removeMember(g, m)
		}
	}
	g.generation++
	g.delayEnd = time.Time{}
	if len(g.members) == 0 {
		g.state, g.protocol, g.leader = groupEmpty, "", ""
		return
	}
	g.protocol = g.selectProtocol()
	if g.members[g.leader] == nil {
		g.leader = g.order[0]
	}
	g.state = groupCompleting
	for _, m := range g.members {
		m.joined = false
		m.lastSeen = now
		m.assignment = nil
		if m.joinCh != nil {
			m.joinCh <- c.joinResponse(g, m, -1)
			m.joinCh = nil
		}
	}
	c.logf("group coordinator: group %s generation %d (%s) with %d members", g.id, g.generation, g.protocol, len(g.members))
}

// selectProtocol is the protocol every member supports that most members
// prefer (each votes for its first supported one), as Kafka's
// ClassicGroup.selectProtocol.
func (g *group) selectProtocol() string {
	var candidates []string
	for _, p := range g.members[g.order[0]].protocols {
		if g.supports([]kmsg.JoinGroupRequestProtocol{p}) {
			candidates = append(candidates, p.Name)
		}
	}
	votes := map[string]int{}
	for _, id := range g.order {
		for _, p := range g.members[id].protocols {
			if slices.Contains(candidates, p.Name) {
				votes[p.Name]++
				break
			}
		}
	}
	best := ""
	for _, name := range candidates {
		if best == "" || votes[name] > votes[best] {
			best = name
		}
	}
	return best
}

// joinResponse is a member's answer at the end of the join phase: the
// leader gets every member's metadata. c.mu is held.
func (c *Cluster) joinResponse(g *group, m *member, version int16) *kmsg.JoinGroupResponse {
	resp := kmsg.NewPtrJoinGroupResponse()
	if version >= 0 {
		resp.Version = version
	}
	resp.Generation, resp.MemberID, resp.LeaderID = g.generation, m.id, g.leader
	pt, p := g.protocolType, g.protocol
	resp.ProtocolType, resp.Protocol = &pt, &p
	if m.id == g.leader {
		for _, id := range g.order {
			o := g.members[id]
			jm := kmsg.NewJoinGroupResponseMember()
			jm.MemberID, jm.InstanceID = o.id, o.instanceID
			for _, pr := range o.protocols {
				if pr.Name == g.protocol {
					jm.ProtocolMetadata = pr.Metadata
				}
			}
			resp.Members = append(resp.Members, jm)
		}
	}
	return resp
}

// removeMember takes a member out of its group. c.mu is held.
func (c *Cluster) removeMember(g *group, m *member) {
	delete(g.members, m.id)
	g.order = slices.DeleteFunc(g.order, func(id string) bool { return id == m.id })
	if m.joinCh != nil {
		resp := kmsg.NewPtrJoinGroupResponse()
		resp.ErrorCode, resp.Generation, resp.MemberID = kerr.UnknownMemberID.Code, -1, m.id
		m.joinCh <- resp
		m.joinCh = nil
	}
	if m.syncCh != nil {
		resp := kmsg.NewPtrSyncGroupResponse()
		resp.ErrorCode = kerr.UnknownMemberID.Code
		m.syncCh <- resp
		m.syncCh = nil
	}
	if g.leader == m.id {
		g.leader = ""
	}
}

// memberLeft handles a member gone (left or expired): a rebalance, or
// an empty group. c.mu is held.
func (c *Cluster) memberLeft(g *group, m *member, now time.Time) {
	c.removeMember(g, m)
	switch g.state {
	case groupStable, groupCompleting:
		if len(g.members) == 0 {
			g.generation++
			g.state, g.protocol, g.leader = groupEmpty, "", ""
			return
		}
		c.prepareRebalance(g, now)
	case groupPreparing:
		c.tryCompleteJoin(g, now)
	}
}

// tickGroups expires members whose session timed out, ends join phases
// whose time is up and drops stale pending member ids. c.mu is held.
func (c *Cluster) tickGroups(now time.Time, _ time.Duration) {
	for _, g := range c.ext.groups.groups {
		for id, until := range g.pending {
			if now.After(until) {
				delete(g.pending, id)
			}
		}
		for _, id := range slices.Clone(g.order) {
			m := g.members[id]
			if m == nil || m.joinCh != nil || now.Sub(m.lastSeen) < m.session {
				continue
			}
			c.logf("group coordinator: member %s of group %s expired (session timeout %s)", m.id, g.id, m.session)
			c.memberLeft(g, m, now)
		}
		c.tryCompleteJoin(g, now)
	}
}

// groupMember finds a member for a request naming a generation: the
// error Kafka gives when it is unknown or of another generation. c.mu is
// held.
func (c *Cluster) groupMember(n *node, groupID, memberID string, generation int32) (*group, *member, *kerr.Error) {
	if err := c.checkCoordinator(n, groupID); err != nil {
		return nil, nil, err
	}
	g := c.groupFor(groupID, false)
	if g == nil || g.state == groupDead {
		return nil, nil, kerr.UnknownMemberID
	}
	m := g.members[memberID]
	if m == nil {
		return g, nil, kerr.UnknownMemberID
	}
	if generation != g.generation {
		return g, m, kerr.IllegalGeneration
	}
	return g, m, nil
}

// syncGroup answers SyncGroup: the leader's assignment ends the
// rebalance; the followers wait for it (without c.mu).
func (c *Cluster) syncGroup(r *request) (kmsg.Response, error) {
	req := r.req.(*kmsg.SyncGroupRequest)
	resp := req.ResponseKind().(*kmsg.SyncGroupResponse)
	c.mu.Lock()
	g, m, err := c.groupMember(r.node, req.Group, req.MemberID, req.Generation)
	if err == nil && (req.ProtocolType != nil && *req.ProtocolType != g.protocolType || req.Protocol != nil && *req.Protocol != g.protocol) {
		err = kerr.InconsistentGroupProtocol
	}
	if err == nil && g.state == groupPreparing {
		err = kerr.RebalanceInProgress
	}
	if err != nil {
		c.mu.Unlock()
		resp.ErrorCode = err.Code
		return resp, nil
	}
	m.lastSeen = time.Now()
	pt, p := g.protocolType, g.protocol
	resp.ProtocolType, resp.Protocol = &pt, &p
	if g.state == groupStable {
		resp.MemberAssignment = m.assignment
		c.mu.Unlock()
		return resp, nil
	}
	// CompletingRebalance.
	if m.id == g.leader {
		for _, a := range req.GroupAssignment {
			if o := g.members[a.MemberID]; o != nil {
				o.assignment = a.MemberAssignment
			}
		}
		g.state = groupStable
		for _, o := range g.members {
			if o.syncCh != nil {
				sr := kmsg.NewPtrSyncGroupResponse()
				sr.ProtocolType, sr.Protocol, sr.MemberAssignment = &pt, &p, o.assignment
				o.syncCh <- sr
				o.syncCh = nil
			}
		}
		resp.MemberAssignment = m.assignment
		c.mu.Unlock()
		return resp, nil
	}
	ch := make(chan *kmsg.SyncGroupResponse, 1)
	m.syncCh = ch
	wait := m.session
	c.mu.Unlock()
	timer := time.NewTimer(wait)
	defer timer.Stop()
	poll := time.NewTicker(c.cfg.Tick)
	defer poll.Stop()
	for {
		select {
		case out := <-ch:
			out.Version = req.Version
			return out, nil
		case <-timer.C:
			c.mu.Lock()
			if m.syncCh == ch {
				m.syncCh = nil
			}
			c.mu.Unlock()
			resp.ErrorCode = kerr.RebalanceInProgress.Code
			return resp, nil
		case <-c.ctx.Done():
			return nil, errClose
		case <-poll.C:
			if !r.node.listening() {
				return nil, errClose
			}
		}
	}
}

// heartbeat answers Heartbeat: REBALANCE_IN_PROGRESS while the group
// prepares a rebalance, so that its members rejoin.
func (c *Cluster) heartbeat(r *request) (kmsg.Response, error) {
	req := r.req.(*kmsg.HeartbeatRequest)
	resp := req.ResponseKind().(*kmsg.HeartbeatResponse)
	c.mu.Lock()
	defer c.mu.Unlock()
	g, m, err := c.groupMember(r.node, req.Group, req.MemberID, req.Generation)
	if m != nil {
		m.lastSeen = time.Now()
	}
	if err == nil && g.state == groupPreparing {
		err = kerr.RebalanceInProgress
	}
	if err != nil {
		resp.ErrorCode = err.Code
	}
	return resp, nil
}

// leaveGroup answers LeaveGroup: the members leave (v3+: each with its
// own error), and the group rebalances.
func (c *Cluster) leaveGroup(r *request) (kmsg.Response, error) {
	req := r.req.(*kmsg.LeaveGroupRequest)
	resp := req.ResponseKind().(*kmsg.LeaveGroupResponse)
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.checkCoordinator(r.node, req.Group); err != nil {
		resp.ErrorCode = err.Code
		return resp, nil
	}
	g := c.groupFor(req.Group, false)
	now := time.Now()
	leave := func(id string, instance *string) int16 {
		if g == nil {
			return kerr.UnknownMemberID.Code
		}
		if id == "" && instance != nil {
			for _, m := range g.members {
				if m.instanceID != nil && *m.instanceID == *instance {
					id = m.id
				}
			}
		}
		m := g.members[id]
		if m == nil {
			return kerr.UnknownMemberID.Code
		}
		c.logf("group coordinator: member %s left group %s", id, g.id)
		c.memberLeft(g, m, now)
		return 0
	}
	if req.Version < 3 {
		resp.ErrorCode = leave(req.MemberID, nil)
		return resp, nil
	}
	for _, rm := range req.Members {
		lm := kmsg.NewLeaveGroupResponseMember()
		lm.MemberID, lm.InstanceID = rm.MemberID, rm.InstanceID
		lm.ErrorCode = leave(rm.MemberID, rm.InstanceID)
		resp.Members = append(resp.Members, lm)
	}
	if g == nil {
		resp.ErrorCode = kerr.UnknownMemberID.Code
	}
	return resp, nil
}

// topicName is a topic's name by id (ok false when unknown). c.mu is held.
func (c *Cluster) topicName(id [16]byte) (string, bool) {
	if t := c.topicIDs[id]; t != nil {
		return t.name, true
	}
	return "", false
}

// offsetCommit answers OffsetCommit: a member's commit in its generation,
// or a commit without group management to an empty group.
func (c *Cluster) offsetCommit(r *request) (kmsg.Response, error) {
	req := r.req.(*kmsg.OffsetCommitRequest)
	resp := req.ResponseKind().(*kmsg.OffsetCommitResponse)
	c.mu.Lock()
	defer c.mu.Unlock()
	err := c.validateCommit(r.node, req)
	var g *group
	if err == nil {
		g = c.groupFor(req.Group, true)
	}
	for _, rt := range req.Topics {
		st := kmsg.NewOffsetCommitResponseTopic()
		st.Topic, st.TopicID = rt.Topic, rt.TopicID
		name, terr := rt.Topic, err
		if req.Version >= 10 && terr == nil {
			var ok bool
			if name, ok = c.topicName(rt.TopicID); !ok {
				terr = kerr.UnknownTopicID
			}
		}
		for _, rp := range rt.Partitions {
			sp := kmsg.NewOffsetCommitResponseTopicPartition()
			sp.Partition = rp.Partition
			if terr != nil {
				sp.ErrorCode = terr.Code
			} else {
				if g.offsets[name] == nil {
					g.offsets[name] = map[int32]committed{}
				}
				meta := ""
				if rp.Metadata != nil {
					meta = *rp.Metadata
				}
				g.offsets[name][rp.Partition] = committed{offset: rp.Offset, epoch: rp.LeaderEpoch, meta: meta}
			}
			st.Partitions = append(st.Partitions, sp)
		}
		resp.Topics = append(resp.Topics, st)
	}
	return resp, nil
}

// validateCommit is Kafka's ClassicGroup.validateOffsetCommit. c.mu is
// held.
func (c *Cluster) validateCommit(n *node, req *kmsg.OffsetCommitRequest) *kerr.Error {
	if req.Group == "" {
		return kerr.InvalidGroupID
	}
	if err := c.checkCoordinator(n, req.Group); err != nil {
		return err
	}
	g := c.groupFor(req.Group, false)
	if g == nil {
		if req.Generation < 0 {
			return nil
		}
		if req.Version >= 9 {
			return kerr.GroupIDNotFound
		}
		return kerr.IllegalGeneration
	}
	if g.state == groupDead {
		return kerr.CoordinatorNotAvailable
	}
	if req.Generation < 0 && g.state == groupEmpty {
		return nil
	}
	if req.Generation >= 0 || req.MemberID != "" || req.InstanceID != nil {
		m := g.members[req.MemberID]
		if m == nil {
			return kerr.UnknownMemberID
		}
		if req.Generation != g.generation {
			return kerr.IllegalGeneration
		}
		m.lastSeen = time.Now()
	} else if g.state != groupEmpty {
		return kerr.UnknownMemberID
	}
	if g.state == groupCompleting {
		return kerr.RebalanceInProgress
	}
	return nil
}

// offsetFetch answers OffsetFetch: a group's committed offsets (v8+: of
// several groups), all of them when no topic is named.
func (c *Cluster) offsetFetch(r *request) (kmsg.Response, error) {
	req := r.req.(*kmsg.OffsetFetchRequest)
	resp := req.ResponseKind().(*kmsg.OffsetFetchResponse)
	c.mu.Lock()
	defer c.mu.Unlock()
	if req.Version < 8 {
		var topics []kmsg.OffsetFetchRequestGroupTopic
		for _, t := range req.Topics {
			topics = append(topics, kmsg.OffsetFetchRequestGroupTopic{Topic: t.Topic, Partitions: t.Partitions})
		}
		if req.Topics == nil {
			topics = nil
		}
		rg := c.fetchGroupOffsets(r.node, req.Version, req.Group, topics)
		resp.ErrorCode = rg.ErrorCode
		for _, gt := range rg.Topics {
			st := kmsg.NewOffsetFetchResponseTopic()
			st.Topic = gt.Topic
			for _, gp := range gt.Partitions {
				sp := kmsg.NewOffsetFetchResponseTopicPartition()
				sp.Partition, sp.Offset, sp.LeaderEpoch, sp.Metadata, sp.ErrorCode = gp.Partition, gp.Offset, gp.LeaderEpoch, gp.Metadata, gp.ErrorCode
				st.Partitions = append(st.Partitions, sp)
			}
			resp.Topics = append(resp.Topics, st)
		}
		if req.Version < 2 && rg.ErrorCode != 0 {
			for i := range resp.Topics {
				for j := range resp.Topics[i].Partitions {
					resp.Topics[i].Partitions[j].ErrorCode = rg.ErrorCode
				}
			}
		}
		return resp, nil
	}
	for _, rg := range req.Groups {
		resp.Groups = append(resp.Groups, c.fetchGroupOffsets(r.node, req.Version, rg.Group, rg.Topics))
	}
	return resp, nil
}

// fetchGroupOffsets is one group's committed offsets for topics (all
// when nil). c.mu is held.
func (c *Cluster) fetchGroupOffsets(n *node, version int16, groupID string, topics []kmsg.OffsetFetchRequestGroupTopic) kmsg.OffsetFetchResponseGroup {
	out := kmsg.NewOffsetFetchResponseGroup()
	out.Group = groupID
	if err := c.checkCoordinator(n, groupID); err != nil {
		out.ErrorCode = err.Code
		return out
	}
	g := c.groupFor(groupID, false)
	empty := ""
	if topics == nil {
		if g == nil {
			return out
		}
		for _, name := range slices.Sorted(mapKeys(g.offsets)) {
			gt := kmsg.NewOffsetFetchResponseGroupTopic()
			gt.Topic = name
			if t := c.topics[name]; t != nil {
				gt.TopicID = t.id
			} else if version >= 10 {
				continue
			}
			for _, p := range slices.Sorted(mapKeys(g.offsets[name])) {
				gt.Partitions = append(gt.Partitions, committedPartition(p, g.offsets[name][p]))
			}
			out.Topics = append(out.Topics, gt)
		}
		return out
	}
	for _, rt := range topics {
		gt := kmsg.NewOffsetFetchResponseGroupTopic()
		gt.Topic, gt.TopicID = rt.Topic, rt.TopicID
		name, known := rt.Topic, true
		if version >= 10 {
			name, known = c.topicName(rt.TopicID)
		}
		for _, p := range rt.Partitions {
			gp := kmsg.NewOffsetFetchResponseGroupTopicPartition()
			gp.Partition, gp.Offset, gp.LeaderEpoch, gp.Metadata = p, -1, -1, &empty
			if !known {
				gp.ErrorCode = kerr.UnknownTopicID.Code
			} else if g != nil {
				if o, ok := g.offsets[name][p]; ok {
					gp = committedPartition(p, o)
				}
			}
			gt.Partitions = append(gt.Partitions, gp)
		}
		out.Topics = append(out.Topics, gt)
	}
	return out
}

func committedPartition(p int32, o committed) kmsg.OffsetFetchResponseGroupTopicPartition {
	gp := kmsg.NewOffsetFetchResponseGroupTopicPartition()
	meta := o.meta
	gp.Partition, gp.Offset, gp.LeaderEpoch, gp.Metadata = p, o.offset, o.epoch, &meta
	return gp
}

// listGroups answers ListGroups: the groups this broker coordinates
// (v4+: in the states asked for; v5+: of the types asked for).
func (c *Cluster) listGroups(r *request) (kmsg.Response, error) {
	req := r.req.(*kmsg.ListGroupsRequest)
	resp := req.ResponseKind().(*kmsg.ListGroupsResponse)
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, id := range slices.Sorted(mapKeys(c.ext.groups.groups)) {
		g := c.ext.groups.groups[id]
		if c.checkCoordinator(r.node, id) != nil || g.state == groupDead {
			continue
		}
		if len(req.StatesFilter) > 0 && !slices.ContainsFunc(req.StatesFilter, func(s string) bool { return strings.EqualFold(s, g.state) }) {
			continue
		}
		if len(req.TypesFilter) > 0 && !slices.ContainsFunc(req.TypesFilter, func(s string) bool { return strings.EqualFold(s, "classic") }) {
			continue
		}
		lg := kmsg.NewListGroupsResponseGroup()
		lg.Group, lg.ProtocolType, lg.GroupState, lg.GroupType = id, g.protocolType, g.state, "classic"
		resp.Groups = append(resp.Groups, lg)
	}
	return resp, nil
}

// describeGroups answers DescribeGroups: state, protocol and members
// (their metadata and assignments once the group is stable).
func (c *Cluster) describeGroups(r *request) (kmsg.Response, error) {
	req := r.req.(*kmsg.DescribeGroupsRequest)
	resp := req.ResponseKind().(*kmsg.DescribeGroupsResponse)
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, id := range req.Groups {
		dg := kmsg.NewDescribeGroupsResponseGroup()
		dg.Group = id
		dg.AuthorizedOperations = -2147483648
		if req.IncludeAuthorizedOperations {
			dg.AuthorizedOperations = allGroupOperations
		}
		if err := c.checkCoordinator(r.node, id); err != nil {
			dg.ErrorCode = err.Code
			resp.Groups = append(resp.Groups, dg)
			continue
		}
		g := c.groupFor(id, false)
		if g == nil || g.state == groupDead {
			dg.State = groupDead
			if req.Version >= 6 {
				dg.ErrorCode = kerr.GroupIDNotFound.Code
				msg := fmt.Sprintf("Group %s not found.", id)
				dg.ErrorMessage = &msg
			}
			resp.Groups = append(resp.Groups, dg)
			continue
		}
		dg.State, dg.ProtocolType = g.state, g.protocolType
		if g.state == groupStable {
			dg.Protocol = g.protocol
		}
		for _, mid := range g.order {
			m := g.members[mid]
			dm := kmsg.NewDescribeGroupsResponseGroupMember()
			dm.MemberID, dm.InstanceID, dm.ClientID, dm.ClientHost = m.id, m.instanceID, m.clientID, m.clientHost
			if g.state == groupStable {
				for _, p := range m.protocols {
					if p.Name == g.protocol {
						dm.ProtocolMetadata = p.Metadata
					}
				}
				dm.MemberAssignment = m.assignment
			}
			dg.Members = append(dg.Members, dm)
		}
		resp.Groups = append(resp.Groups, dg)
	}
	return resp, nil
}

// allGroupOperations is a group's authorized operations without an
// authorizer (READ, DESCRIBE, DELETE).
const allGroupOperations = 1<<3 | 1<<6 | 1<<8

// deleteGroups answers DeleteGroups: an empty group and its offsets go;
// a group with members is NON_EMPTY_GROUP.
func (c *Cluster) deleteGroups(r *request) (kmsg.Response, error) {
	req := r.req.(*kmsg.DeleteGroupsRequest)
	resp := req.ResponseKind().(*kmsg.DeleteGroupsResponse)
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, id := range req.Groups {
		dg := kmsg.NewDeleteGroupsResponseGroup()
		dg.Group = id
		g := c.groupFor(id, false)
		switch err := c.checkCoordinator(r.node, id); {
		case err != nil:
			dg.ErrorCode = err.Code
		case g == nil || g.state == groupDead:
			dg.ErrorCode = kerr.GroupIDNotFound.Code
		case g.state != groupEmpty:
			dg.ErrorCode = kerr.NonEmptyGroup.Code
		default:
			delete(c.ext.groups.groups, id)
		}
		resp.Groups = append(resp.Groups, dg)
	}
	return resp, nil
}
