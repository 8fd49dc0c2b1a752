package cluster

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/ktopo/ktopo/internal/text"
)

// A dynamic quorum's membership changes (KIP-853: ktopo quorum
// add-controller and remove-controller): what a change needs, what Kafka
// and ktopo refuse before anything is sent, and the majority's
// arithmetic before and after. Kafka's leader takes any change it can
// make, a change that leaves the quorum unable to lose a voter it can
// lose today too: that refusal is ktopo's, and --override lifts it.

// RaftListener is one endpoint of a voter as AddRaftVoter carries it.
type RaftListener struct {
	Name string
	Host string
	Port int
}

func (l RaftListener) String() string {
	return l.Name + "://" + l.Host + ":" + strconv.Itoa(l.Port)
}

// ControllerNode is a controller as its registration names it (KIP-919:
// DescribeCluster with endpoint type controller, asked of a controller):
// its id and the host and port of the listener the question came in on.
type ControllerNode struct {
	ID   int
	Host string
	Port int
}

// VoterChange is one AddRaftVoter or RemoveRaftVoter: the voter's id and
// directory id, and for an add its endpoints.
type VoterChange struct {
	Add         bool
	ID          int
	DirectoryID UUID
	Listeners   []RaftListener
}

// Verb is "add controller 3003 to" or "remove controller 3001 from"
// (what the refusals and confirmations say).
func (ch VoterChange) Verb() string {
	if ch.Add {
		return "add controller " + strconv.Itoa(ch.ID) + " to the metadata quorum's voters"
	}
	return "remove controller " + strconv.Itoa(ch.ID) + " from the metadata quorum's voters"
}

// Tolerance is how many more voters may fail with the voters that are
// down now: 0 when none may, negative when the quorum has no majority
// (it elects no leader and commits nothing), so that a change that loses
// the majority counts as lowering it.
func Tolerance(voters, down int) int {
	return voters - (voters/2 + 1) - down
}

// majorityLine is "3 voters: a majority is 2, 1 may fail", with the
// voters down named when there are any.
func majorityLine(voters, down int) string {
	if voters == 0 {
		return "no voters"
	}
	s := fmt.Sprintf("%s: a majority is %d, ", text.Count(voters, "voter"), voters/2+1)
	if down == 0 {
		return s + mayFail(Tolerance(voters, 0))
	}
	if Tolerance(voters, down) < 0 {
		return s + fmt.Sprintf("%d down: no majority", down)
	}
	return s + fmt.Sprintf("%d down, so %s", down, strings.Replace(mayFail(Tolerance(voters, down)), "may fail", "more may fail", 1))
}

// VoterChangeEffect is the majority's arithmetic of a change, counting
// the voters down now.
type VoterChangeEffect struct {
	// Before and After are how many voters may still fail, the ones
	// down now counted, before and after the change.
	Before, After int
	// Text is "3 voters: a majority is 2, 1 may fail → 2 voters: a
	// majority is 2, none may fail".
	Text string
}

// Lowers reports whether the change leaves the quorum able to lose
// fewer voters than it can today.
func (e VoterChangeEffect) Lowers() bool { return e.After < e.Before }

// VoterChangeEffect counts the change's majority before and after, with
// the voters down now (a voter removed that is down no longer counts as
// down; a voter added is an observer that fetches, so up).
func (r *QuorumReport) VoterChangeEffect(ch VoterChange) VoterChangeEffect {
	q := r.Quorum
	n := len(q.Voters)
	down := q.Down(r.At)
	nAfter, downAfter := n+1, len(down)
	if !ch.Add {
		nAfter = n - 1
		if slices.ContainsFunc(down, func(m QuorumMember) bool { return m.ID == ch.ID }) {
			downAfter--
		}
	}
	return VoterChangeEffect{
		Before: Tolerance(n, len(down)), After: Tolerance(nAfter, downAfter),
		Text: majorityLine(n, len(down)) + " → " + majorityLine(nAfter, downAfter),
	}
}

// quorumRefusal is why no voter change can be planned on what was read
// ("" when one can). A static quorum is not refused here: Kafka's own
// refusal is shown, from its answer.
func (r *QuorumReport) quorumRefusal() string {
	switch {
	case r.QuorumErr != "":
		return "the metadata quorum could not be read: " + r.QuorumErr
	case len(r.Quorum.Voters) == 0:
		return "the metadata quorum lists no voters"
	}
	return ""
}

// PlanAddVoter is the AddRaftVoter that makes controller id a voter, or
// why ktopo refuses it: id must be an observer of the quorum with a
// directory id (a controller started with --no-initial-controllers, or a
// voter removed before), not a voter already, not a broker-only node,
// with an endpoint on the voters' listener, and registered as a
// controller when the registrations were read. listeners, when given, are
// its endpoints as the operator gave them; else they are the endpoint of
// its controller registration (controllers, nil when not read) on the
// voters' listener (its name from DescribeQuorum v2's nodes).
func (r *QuorumReport) PlanAddVoter(id int, controllers []ControllerNode, listeners []RaftListener) (VoterChange, string) {
	ch := VoterChange{Add: true, ID: id}
	if why := r.quorumRefusal(); why != "" {
		return ch, why
	}
	q := r.Quorum
	if q.isVoter(id) {
		return ch, fmt.Sprintf("controller %d is a voter of the metadata quorum already (voters %s)", id, voterIDs(q))
	}
	i := slices.IndexFunc(q.Observers, func(m QuorumMember) bool { return m.ID == id })
	if i < 0 {
		return ch, fmt.Sprintf("node %d is not an observer of the metadata quorum: only a controller that runs and fetches the metadata log as an observer (started with --no-initial-controllers) can become a voter (observers now: %s)", id, observerIDs(q))
	}
	ch.DirectoryID = q.Observers[i].DirectoryID
	if ch.DirectoryID == ZeroUUID {
		return ch, fmt.Sprintf("observer %d reports no directory id (the quorum answered DescribeQuorum below v2: Kafka 3.9+ has them)", id)
	}
	registered := slices.ContainsFunc(controllers, func(c ControllerNode) bool { return c.ID == id })
	if _, broker := r.broker(id); broker && !registered {
		return ch, fmt.Sprintf("node %d is a broker (registered as one, no controller registration): a broker fetches the metadata log as an observer but has no controller listener to vote on", id)
	}
	if controllers != nil && !registered {
		return ch, fmt.Sprintf("node %d has no controller registration (the controllers list %s): it is not a controller, or it has not registered yet", id, controllerIDs(controllers))
	}
	name := r.VoterListenerName()
	if len(listeners) > 0 {
		if name != "" && !slices.ContainsFunc(listeners, func(l RaftListener) bool { return l.Name == name }) {
			return ch, fmt.Sprintf("the endpoints given have none on the voters' listener %s: the leader reaches the new voter there", name)
		}
		ch.Listeners = listeners
		return ch, ""
	}
	if controllers == nil {
		return ch, fmt.Sprintf("controller %d's endpoint is unknown: give --bootstrap-controller (its controller registration names it) or --listener NAME://host:port", id)
	}
	if name == "" {
		return ch, "the voters' listener name is unknown (DescribeQuorum v2, Kafka 3.9+, names it): give --listener NAME://host:port"
	}
	for _, c := range controllers {
		if c.ID == id {
			ch.Listeners = []RaftListener{{Name: name, Host: c.Host, Port: c.Port}}
		}
	}
	return ch, ""
}

// PlanRemoveVoter is the RemoveRaftVoter that takes voter id out of the
// quorum, or why ktopo refuses it: id must be a voter, with a directory
// id (DescribeQuorum v2), and not the last voter.
func (r *QuorumReport) PlanRemoveVoter(id int) (VoterChange, string) {
	ch := VoterChange{ID: id}
	if why := r.quorumRefusal(); why != "" {
		return ch, why
	}
	q := r.Quorum
	i := slices.IndexFunc(q.Voters, func(m QuorumMember) bool { return m.ID == id })
	if i < 0 {
		return ch, fmt.Sprintf("node %d is not a voter of the metadata quorum (voters %s)", id, voterIDs(q))
	}
	if len(q.Voters) == 1 {
		return ch, fmt.Sprintf("controller %d is the quorum's only voter: a quorum without voters has no leader", id)
	}
	ch.DirectoryID = q.Voters[i].DirectoryID
	return ch, ""
}

// VoterListenerName is the name of the voters' listener (the first
// listener of the first voter in DescribeQuorum v2's nodes, "CONTROLLER"
// by convention), "" when unknown.
func (r *QuorumReport) VoterListenerName() string {
	for _, v := range r.Quorum.Voters {
		for _, e := range v.Endpoints {
			if name, _, ok := strings.Cut(e, "://"); ok {
				return name
			}
		}
	}
	return ""
}

// VoterChanged reports whether the quorum shows ch made: the id among
// the voters (an add) or not (a remove).
func (q QuorumDetail) VoterChanged(ch VoterChange) bool {
	return q.isVoter(ch.ID) == ch.Add
}

// VoterIDs are the voters' ids, "3000, 3001, 3002".
func (q QuorumDetail) VoterIDs() string { return voterIDs(q) }

func voterIDs(q QuorumDetail) string { return memberIDs(q.Voters) }

func observerIDs(q QuorumDetail) string {
	if len(q.Observers) == 0 {
		return "none"
	}
	return memberIDs(q.Observers)
}

func memberIDs(ms []QuorumMember) string {
	var s []string
	for _, m := range ms {
		s = append(s, strconv.Itoa(m.ID))
	}
	return strings.Join(s, ", ")
}

func controllerIDs(cs []ControllerNode) string {
	if len(cs) == 0 {
		return "none"
	}
	var s []string
	for _, c := range cs {
		s = append(s, strconv.Itoa(c.ID))
	}
	return strings.Join(s, ", ")
}

// StaticProbe is a voter change Kafka's leader can only refuse, to ask
// it, on a quorum read as static (kraft.version 0), for its own refusal:
// an add of a voter that is one already (a dynamic quorum would answer
// DUPLICATE_VOTER), a remove of a node that is no voter
// (VOTER_NOT_FOUND). Both pass the request's own checks (a directory
// id, an endpoint on the voters' listener), which Kafka makes before it
// looks at kraft.version. False when no voter is known.
func (r *QuorumReport) StaticProbe(add bool) (VoterChange, bool) {
	q := r.Quorum
	if len(q.Voters) == 0 {
		return VoterChange{}, false
	}
	// Any directory id but the zero one: a static voter has none.
	probeDir := UUID{0: 'k', 1: 't', 2: 'o', 3: 'p', 4: 'o'}
	if !add {
		next := 0
		for _, m := range append(slices.Clone(q.Voters), q.Observers...) {
			next = max(next, m.ID+1)
		}
		return VoterChange{ID: next, DirectoryID: probeDir}, true
	}
	v := q.Voters[0]
	ch := VoterChange{Add: true, ID: v.ID, DirectoryID: probeDir}
	for _, e := range v.Endpoints {
		name, addr, _ := strings.Cut(e, "://")
		i := strings.LastIndexByte(addr, ':')
		if i < 0 {
			continue
		}
		port, err := strconv.Atoi(addr[i+1:])
		if err != nil {
			continue
		}
		ch.Listeners = append(ch.Listeners, RaftListener{Name: name, Host: strings.Trim(addr[:i], "[]"), Port: port})
	}
	if len(ch.Listeners) == 0 {
		// Without DescribeQuorum v2's nodes: the conventional name.
		ch.Listeners = []RaftListener{{Name: "CONTROLLER", Host: "localhost", Port: 9093}}
	}
	return ch, true
}
