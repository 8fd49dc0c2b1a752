package quorum

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/ktopo/ktopo/internal/testkit/kafkatest"
	"github.com/ktopo/ktopo/kraftsandbox"
)

// side is a KRaft cluster the scenarios run on: the sandbox or real
// Kafka (real set: its kafka-metadata-quorum at hand).
type side struct {
	bootstrap   string
	controllers []string // every controller's listener, observers' too
	clusterID   string
	brokerIDs   []int
	observers   []int // the observer controllers
	nodes       kafkatest.KRaftNodes
	real        *kafkatest.KRaftCluster
}

func (s side) controllerBootstrap() string { return strings.Join(s.controllers, ",") }

func sandboxSide(t *testing.T, cfg kraftsandbox.Config) side {
	t.Helper()
	cfg.Host = "127.0.0.1"
	sb, err := kraftsandbox.Start(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sb.Close() })
	s := side{bootstrap: sb.Bootstrap(), controllers: strings.Split(sb.ControllerBootstrap(), ","), clusterID: sb.ClusterID(), brokerIDs: sb.BrokerIDs(), nodes: sb}
	for _, c := range sb.Status().Controllers {
		if !c.Voter {
			s.observers = append(s.observers, c.ID)
		}
	}
	return s
}

func realSide(t *testing.T, o kafkatest.KRaftOptions) side {
	t.Helper()
	kafkatest.Require(t, o.Version)
	c, err := kafkatest.StartKRaft(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Stop)
	return side{bootstrap: c.Bootstrap(), controllers: strings.Split(c.ControllerBootstrap(), ","), clusterID: c.ClusterID(),
		brokerIDs: c.BrokerIDs(), observers: c.ObserverControllerIDs(), nodes: c, real: c}
}

// quorum is DescribeQuorum's answer as the scenarios check it.
type quorum struct {
	leader    int
	voters    map[int][16]byte // id: directory id
	observers map[int][16]byte
	endpoints map[int]string // a voter's CONTROLLER host:port
}

func (q quorum) voterIDs() []int { return sortedKeys(q.voters) }

func sortedKeys(m map[int][16]byte) []int {
	var out []int
	for id := range m {
		out = append(out, id)
	}
	slices.Sort(out)
	return out
}

// send sends req to addr itself (a controller answers only what it
// leads; a broker forwards to the leader).
func send(t *testing.T, addr string, req kmsg.Request) kmsg.Response {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	resp, err := cl.SeedBrokers()[0].Request(ctx, req)
	if err != nil {
		t.Fatalf("%T to %s: %v", req, addr, err)
	}
	return resp
}

// describe asks a broker for the quorum.
func describe(t *testing.T, s side) quorum {
	t.Helper()
	req := kmsg.NewPtrDescribeQuorumRequest()
	rt := kmsg.NewDescribeQuorumRequestTopic()
	rt.Topic = "__cluster_metadata"
	rt.Partitions = []kmsg.DescribeQuorumRequestTopicPartition{kmsg.NewDescribeQuorumRequestTopicPartition()}
	req.Topics = []kmsg.DescribeQuorumRequestTopic{rt}
	resp := send(t, strings.Split(s.bootstrap, ",")[0], req).(*kmsg.DescribeQuorumResponse)
	if resp.ErrorCode != 0 || len(resp.Topics) != 1 || len(resp.Topics[0].Partitions) != 1 || resp.Topics[0].Partitions[0].ErrorCode != 0 {
		t.Fatalf("DescribeQuorum: %+v", resp)
	}
	p := resp.Topics[0].Partitions[0]
	q := quorum{leader: int(p.LeaderID), voters: map[int][16]byte{}, observers: map[int][16]byte{}, endpoints: map[int]string{}}
	for _, v := range p.CurrentVoters {
		q.voters[int(v.ReplicaID)] = v.ReplicaDirectoryID
	}
	for _, o := range p.Observers {
		q.observers[int(o.ReplicaID)] = o.ReplicaDirectoryID
	}
	for _, n := range resp.Nodes {
		for _, l := range n.Listeners {
			q.endpoints[int(n.NodeID)] = fmt.Sprintf("%s:%d", l.Host, l.Port)
		}
	}
	return q
}

// waitQuorum reads the quorum until ok holds (a new observer fetches
// within moments; a voter change commits within moments).
func waitQuorum(t *testing.T, s side, what string, ok func(quorum) bool) quorum {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		q := describe(t, s)
		if ok(q) {
			return q
		}
		if time.Now().After(deadline) {
			t.Fatalf("the quorum does not show %s: %+v", what, q)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// replicationStatus runs Kafka's kafka-metadata-quorum describe
// --replication and returns each node's status (Leader, Follower,
// Observer) by id.
func replicationStatus(t *testing.T, s side) map[int]string {
	t.Helper()
	res, err := s.real.Dist().Command("kafka-metadata-quorum", "--bootstrap-controller", s.controllerBootstrap(), "describe", "--replication")
	if err != nil || res.Code != 0 {
		t.Fatalf("kafka-metadata-quorum describe --replication: %v exit %d\n%s%s", err, res.Code, res.Stdout, res.Stderr)
	}
	out := map[int]string{}
	for _, line := range strings.Split(res.Stdout, "\n") {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		id, err := strconv.Atoi(f[0])
		if err != nil {
			continue
		}
		out[id] = f[len(f)-1]
	}
	return out
}

func runOK(t *testing.T, stdin string, args ...string) string {
	t.Helper()
	code, out, errOut := ktopo(t, stdin, args...)
	if code != 0 {
		t.Fatalf("ktopo %s: exit %d\n%s%s", strings.Join(args, " "), code, out, errOut)
	}
	return out
}

func refused(t *testing.T, want string, args ...string) {
	t.Helper()
	code, out, errOut := ktopo(t, "", args...)
	if code == 0 || !strings.Contains(errOut, want) {
		t.Errorf("ktopo %s: exit %d\n%s%s\nwant a refusal saying %q", strings.Join(args, " "), code, out, errOut, want)
	}
}

// kafkaRefusal is one voter change Kafka's leader refuses, sent as is,
// and what it answers.
type kafkaRefusal struct {
	name string
	// to is where it goes: "broker" (forwarded to the leader) or
	// "follower" (a voter that does not lead).
	to   string
	req  func(q quorum, s side) kmsg.Request
	code *kerr.Error
	// msg matches the answer's message.
	msg string
}

func addReq(id int, dir [16]byte, listeners ...[3]string) *kmsg.AddRaftVoterRequest {
	r := kmsg.NewPtrAddRaftVoterRequest()
	r.VoterID, r.VoterDirectoryID, r.TimeoutMillis = int32(id), dir, 30000
	for _, l := range listeners {
		rl := kmsg.NewAddRaftVoterRequestListener()
		port, _ := strconv.Atoi(l[2])
		rl.Name, rl.Host, rl.Port = l[0], l[1], uint16(port)
		r.Listeners = append(r.Listeners, rl)
	}
	return r
}

func removeReq(id int, dir [16]byte) *kmsg.RemoveRaftVoterRequest {
	r := kmsg.NewPtrRemoveRaftVoterRequest()
	r.VoterID, r.VoterDirectoryID = int32(id), dir
	return r
}

func controllerListener(addr string) [3]string {
	host, port, _ := strings.Cut(addr, ":")
	return [3]string{"CONTROLLER", host, port}
}

func firstFollower(q quorum) int {
	for _, id := range q.voterIDs() {
		if id != q.leader {
			return id
		}
	}
	return -1
}

var otherDir = [16]byte{0: 7, 15: 7}

// dynamicRefusals are the voter changes a dynamic quorum's leader
// refuses (KafkaRaftClient, AddVoterHandler, RemoveVoterHandler), with
// 3 voters and one observer controller: the same answers from the
// sandbox as from Kafka 4.4.
var dynamicRefusals = []kafkaRefusal{
	{"add a voter again", "broker", func(q quorum, _ side) kmsg.Request {
		id := q.leader
		return addReq(id, q.voters[id], controllerListener(q.endpoints[id]))
	}, kerr.DuplicateVoter, `^The voter id for ReplicaKey\(id=\d+, directoryId=[\w-]+\) is already part of the set of voters \[`},
	{"add without a directory id", "broker", func(q quorum, s side) kmsg.Request {
		return addReq(s.observers[0], [16]byte{}, controllerListener(s.controllers[len(s.controllers)-1]))
	}, kerr.InvalidRequest, `^Add voter request didn't include a valid voter$`},
	{"add without the controllers' listener", "broker", func(q quorum, s side) kmsg.Request {
		return addReq(s.observers[0], q.observers[s.observers[0]])
	}, kerr.InvalidRequest, `^Add voter request didn't include the endpoint \(Endpoints\(endpoints=\{\}\)\) for the default listener ListenerName\(CONTROLLER\)$`},
	// Before any other request reaches the leader's ApiVersions to the
	// observer: Kafka's leader keys its connections by node id, and
	// once it has one to the observer it asks there, whatever endpoint
	// a later request gives (seen on 4.4: a request with this endpoint
	// after the next case was accepted).
	{"add an observer at an endpoint where nothing listens", "broker", func(q quorum, s side) kmsg.Request {
		return addReq(s.observers[0], q.observers[s.observers[0]], [3]string{"CONTROLLER", "127.0.0.1", "1"})
	}, kerr.RequestTimedOut, `^Aborted add voter operation for since API_VERSIONS returned an error BROKER_NOT_AVAILABLE$`},
	{"add an observer with another directory id", "broker", func(q quorum, s side) kmsg.Request {
		return addReq(s.observers[0], otherDir, controllerListener(s.controllers[len(s.controllers)-1]))
	}, kerr.RequestTimedOut, `^Aborted add voter operation for ReplicaKey\(id=\d+, directoryId=[\w-]+\) since it is lagging behind$`},
	{"remove an observer", "broker", func(q quorum, s side) kmsg.Request {
		return removeReq(s.observers[0], q.observers[s.observers[0]])
	}, kerr.VoterNotFound, `^Cannot remove voter ReplicaKey\(id=\d+, directoryId=[\w-]+\) from the set of voters \[`},
	{"remove a voter with another directory id", "broker", func(q quorum, _ side) kmsg.Request {
		return removeReq(firstFollower(q), otherDir)
	}, kerr.VoterNotFound, `^Cannot remove voter ReplicaKey\(id=\d+, directoryId=[\w-]+\) from the set of voters \[`},
	{"remove without a directory id", "broker", func(q quorum, _ side) kmsg.Request {
		return removeReq(firstFollower(q), [16]byte{})
	}, kerr.InvalidRequest, `^Remove voter request didn't include a valid voter$`},
	{"another cluster's id", "broker", func(q quorum, _ side) kmsg.Request {
		r := removeReq(firstFollower(q), q.voters[firstFollower(q)])
		r.ClusterID = kmsg.StringPtr("not-this-cluster")
		return r
	}, kerr.InconsistentClusterID, `^The given id "not-this-cluster" doesn't match the cluster id "[\w-]+"$`},
	{"a controller that does not lead", "follower", func(q quorum, _ side) kmsg.Request {
		return removeReq(firstFollower(q), q.voters[firstFollower(q)])
	}, kerr.NotLeaderForPartition, ``},
}

// checkKafkaRefusals sends each refusal and checks the answer.
func checkKafkaRefusals(t *testing.T, s side, cases []kafkaRefusal) {
	t.Helper()
	q := waitQuorum(t, s, "the observer controllers fetching", func(q quorum) bool {
		for _, id := range s.observers {
			if _, ok := q.observers[id]; !ok {
				return false
			}
		}
		return true
	})
	for _, tc := range cases {
		addr := strings.Split(s.bootstrap, ",")[0]
		if tc.to == "follower" {
			addr = q.endpoints[firstFollower(q)]
		}
		var code int16
		got := ""
		for range 20 {
			var msg *string
			switch r := send(t, addr, tc.req(q, s)).(type) {
			case *kmsg.AddRaftVoterResponse:
				code, msg = r.ErrorCode, r.ErrorMessage
			case *kmsg.RemoveRaftVoterResponse:
				code, msg = r.ErrorCode, r.ErrorMessage
			}
			got = ""
			if msg != nil {
				got = *msg
			}
			// Kafka's leader backs off reconnecting to a node id its
			// ApiVersions could not reach, and says so meanwhile: a
			// client asks again.
			if !strings.HasSuffix(got, "is not ready to receive requests") {
				break
			}
			time.Sleep(500 * time.Millisecond)
		}
		if code != tc.code.Code || (tc.msg != "" && !regexp.MustCompile(tc.msg).MatchString(got)) {
			t.Errorf("%s: %v %q, want %s matching %q", tc.name, kerr.ErrorForCode(code), got, tc.code.Message, tc.msg)
		}
	}
	if after := describe(t, s); !slices.Equal(after.voterIDs(), q.voterIDs()) {
		t.Errorf("voters %v after the refusals, want %v unchanged", after.voterIDs(), q.voterIDs())
	}
}

// checkVoterChanges runs ktopo quorum add-controller and remove-controller
// on a dynamic quorum of 3 voters and one observer controller: ktopo's
// refusals, the previews' majorities, the observer added, a follower
// removed, then a removal that lowers what the quorum may lose refused
// until --override and the id typed. On real Kafka each change is
// checked with kafka-metadata-quorum describe --replication.
func checkVoterChanges(t *testing.T, s side) {
	t.Helper()
	q := waitQuorum(t, s, "the observer controllers fetching", func(q quorum) bool { _, ok := q.observers[s.observers[0]]; return ok })
	conn := []string{"--bootstrap-server", s.bootstrap, "--bootstrap-controller", s.controllerBootstrap()}
	observer, broker := s.observers[0], s.brokerIDs[0]
	leader, follower := q.leader, firstFollower(q)
	cmd := func(verb string, id int, extra ...string) []string {
		return append(append([]string{"quorum", verb, strconv.Itoa(id)}, conn...), extra...)
	}
	refused(t, fmt.Sprintf("controller %d is a voter of the metadata quorum already", leader), cmd("add-controller", leader)...)
	refused(t, fmt.Sprintf("node %d is a broker (registered as one, no controller registration)", broker), cmd("add-controller", broker)...)
	refused(t, "node 4242 is not an observer of the metadata quorum", cmd("add-controller", 4242)...)
	refused(t, fmt.Sprintf("node %d is not a voter of the metadata quorum", observer), cmd("remove-controller", observer)...)
	refused(t, "the endpoints given have none on the voters' listener CONTROLLER", cmd("add-controller", observer, "--listener", "OTHER://127.0.0.1:1")...)
	refused(t, `--listener "x": want NAME://host:port`, cmd("add-controller", observer, "--listener", "x")...)
	refused(t, fmt.Sprintf("read-only mode: refusing to add controller %d to the metadata quorum's voters", observer), cmd("add-controller", observer, "--execute", "--read-only")...)
	refused(t, fmt.Sprintf("read-only mode: refusing to remove controller %d from the metadata quorum's voters", follower), cmd("remove-controller", follower, "--execute", "--read-only")...)

	// Add the observer: 3 voters → 4.
	preview := runOK(t, "", cmd("add-controller", observer)...)
	dir := q.observers[observer]
	for _, want := range []string{
		"Majority: 3 voters: a majority is 2, 1 may fail → 4 voters: a majority is 3, 1 may fail.",
		fmt.Sprintf("AddRaftVoter voterId=%d voterDirectoryId=%s listeners=CONTROLLER://%s", observer, uuid(dir), s.controllers[len(s.controllers)-1]),
		"Nothing sent: --execute sends it.",
	} {
		if !strings.Contains(preview, want) {
			t.Errorf("add-controller preview:\n%s\nwant %q", preview, want)
		}
	}
	if got := describe(t, s).voterIDs(); len(got) != 3 {
		t.Fatalf("voters %v after a preview, want 3", got)
	}
	out := runOK(t, "", cmd("add-controller", observer, "--execute")...)
	if !strings.Contains(out, "The quorum reports it: ") {
		t.Errorf("add-controller --execute:\n%s\nwant the quorum reporting it", out)
	}
	if q := describe(t, s); !slices.Contains(q.voterIDs(), observer) || q.voters[observer] != dir {
		t.Errorf("voters %v (%v), want %d with its directory id", q.voterIDs(), q.voters, observer)
	}
	if s.real != nil {
		if st := replicationStatus(t, s); st[observer] != "Follower" && st[observer] != "Leader" {
			t.Errorf("kafka-metadata-quorum describe --replication: %d is %q, want a voter (Follower or Leader): %v", observer, st[observer], st)
		}
	}

	// Remove a follower: 4 voters → 3, as many may fail.
	out = runOK(t, "", cmd("remove-controller", follower, "--execute")...)
	if !strings.Contains(out, "Majority: 4 voters: a majority is 3, 1 may fail → 3 voters: a majority is 2, 1 may fail.") ||
		!strings.Contains(out, "The quorum reports it: ") {
		t.Errorf("remove-controller --execute:\n%s\nwant the majorities and the quorum reporting it", out)
	}
	if q := describe(t, s); slices.Contains(q.voterIDs(), follower) || len(q.voterIDs()) != 3 {
		t.Errorf("voters %v, want 3 without %d", q.voterIDs(), follower)
	}
	if s.real != nil {
		if st := replicationStatus(t, s); st[follower] == "Follower" || st[follower] == "Leader" {
			t.Errorf("kafka-metadata-quorum describe --replication: %d is still a voter (%q): %v", follower, st[follower], st)
		}
	}

	// 3 voters → 2 lowers what may fail: refused, then --override.
	q = describe(t, s)
	victim := firstFollower(q)
	lowers := fmt.Sprintf("refusing to remove controller %d from the metadata quorum's voters: it leaves the quorum less able to lose voters (today it can lose 1 voter, after it none); --override makes it anyway, asking for %d to be typed", victim, victim)
	refused(t, lowers, cmd("remove-controller", victim, "--execute")...)
	code, _, errOut := ktopo(t, "123\n", cmd("remove-controller", victim, "--execute", "--override")...)
	if code == 0 || !strings.Contains(errOut, fmt.Sprintf(`not confirmed (typed "123", not %d)`, victim)) {
		t.Errorf("remove-controller --override with the wrong id typed: exit %d %q", code, errOut)
	}
	if got := describe(t, s).voterIDs(); len(got) != 3 {
		t.Fatalf("voters %v after refusals, want 3", got)
	}
	out = runOK(t, strconv.Itoa(victim)+"\n", cmd("remove-controller", victim, "--execute", "--override")...)
	if !strings.Contains(out, "3 voters: a majority is 2, 1 may fail → 2 voters: a majority is 2, none may fail") || !strings.Contains(out, "The quorum reports it: ") {
		t.Errorf("remove-controller --override:\n%s", out)
	}
	if got := describe(t, s).voterIDs(); len(got) != 2 || slices.Contains(got, victim) {
		t.Errorf("voters %v, want 2 without %d", got, victim)
	}
	if s.real != nil {
		st := replicationStatus(t, s)
		voters := 0
		for _, v := range st {
			if v == "Leader" || v == "Follower" {
				voters++
			}
		}
		if voters != 2 {
			t.Errorf("kafka-metadata-quorum describe --replication: %d voters, want 2: %v", voters, st)
		}
	}
}

func uuid(u [16]byte) string {
	const enc = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	var sb strings.Builder
	var bits, n uint
	for _, b := range u {
		bits = bits<<8 | uint(b)
		n += 8
		for n >= 6 {
			n -= 6
			sb.WriteByte(enc[bits>>n&63])
		}
	}
	if n > 0 {
		sb.WriteByte(enc[bits<<(6-n)&63])
	}
	return sb.String()
}

// checkLeaderAndDown: with the observer added (4 voters), ktopo removes
// the quorum's leader, which resigns once the change commits (the others
// elect a leader; it keeps running as an observer); then, with a voter
// killed, the majority counts it down: removing a live voter would leave
// no majority and is refused, removing the dead one is not; started
// again, the removed voter fetches as an observer.
func checkLeaderAndDown(t *testing.T, s side) {
	t.Helper()
	waitQuorum(t, s, "the observer controllers fetching", func(q quorum) bool { _, ok := q.observers[s.observers[0]]; return ok })
	conn := []string{"--bootstrap-server", s.bootstrap, "--bootstrap-controller", s.controllerBootstrap()}
	cmd := func(verb string, id int, extra ...string) []string {
		return append(append([]string{"quorum", verb, strconv.Itoa(id)}, conn...), extra...)
	}
	// Through the controllers alone: the registration read from them,
	// the request sent to each until the leader takes it.
	out := runOK(t, "", "quorum", "add-controller", strconv.Itoa(s.observers[0]), "--bootstrap-controller", s.controllerBootstrap(), "--execute")
	if !strings.Contains(out, "The quorum reports it: ") {
		t.Errorf("add-controller through the controllers:\n%s", out)
	}
	old := describe(t, s).leader
	out = runOK(t, "", cmd("remove-controller", old, "--execute")...)
	if !strings.Contains(out, "Majority: 4 voters: a majority is 3, 1 may fail → 3 voters: a majority is 2, 1 may fail.") {
		t.Errorf("remove-controller of the leader:\n%s", out)
	}
	q := waitQuorum(t, s, "a new leader", func(q quorum) bool {
		_, voter := q.voters[old]
		return q.leader >= 0 && q.leader != old && !voter
	})
	if len(q.voters) != 3 {
		t.Errorf("voters %v, want 3", q.voterIDs())
	}
	waitQuorum(t, s, fmt.Sprintf("the old leader %d fetching as an observer", old), func(q quorum) bool { _, ok := q.observers[old]; return ok })
	if s.real != nil {
		if st := replicationStatus(t, s); st[old] != "Observer" {
			t.Errorf("kafka-metadata-quorum describe --replication: the old leader %d is %q, want Observer: %v", old, st[old], st)
		}
	}

	dead, live := -1, -1
	for _, id := range q.voterIDs() {
		switch {
		case id == q.leader:
		case dead < 0:
			dead = id
		default:
			live = id
		}
	}
	if err := s.nodes.Kill(dead); err != nil {
		t.Fatal(err)
	}
	// The leader has no fetch from it for 5 s: ktopo counts it down.
	deadline := time.Now().Add(60 * time.Second)
	for {
		code, out, errOut := ktopo(t, "", cmd("remove-controller", live)...)
		if strings.Contains(errOut, "today it can lose none, after it none: no majority") {
			if !strings.Contains(out, "3 voters: a majority is 2, 1 down, so none more may fail → 2 voters: a majority is 2, 1 down: no majority") {
				t.Errorf("remove-controller of a live voter with one down:\n%s", out)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("remove-controller %d with %d killed: exit %d\n%s%s\nwant it refused for losing the majority", live, dead, code, out, errOut)
		}
		time.Sleep(time.Second)
	}
	out = runOK(t, "", cmd("remove-controller", dead, "--execute")...)
	if !strings.Contains(out, "Majority: 3 voters: a majority is 2, 1 down, so none more may fail → 2 voters: a majority is 2, none may fail.") {
		t.Errorf("remove-controller of the dead voter:\n%s", out)
	}
	if got := describe(t, s).voterIDs(); len(got) != 2 || slices.Contains(got, dead) {
		t.Errorf("voters %v, want 2 without %d", got, dead)
	}
	if err := s.nodes.Restart(dead); err != nil {
		t.Fatal(err)
	}
	waitQuorum(t, s, fmt.Sprintf("the removed voter %d fetching as an observer", dead), func(q quorum) bool {
		_, obs := q.observers[dead]
		_, voter := q.voters[dead]
		return obs && !voter
	})
}

// voterAnswer sends a voter change to addr and returns Kafka's code and
// message.
func voterAnswer(t *testing.T, addr string, req kmsg.Request) (int16, string) {
	t.Helper()
	var code int16
	var msg *string
	switch r := send(t, addr, req).(type) {
	case *kmsg.AddRaftVoterResponse:
		code, msg = r.ErrorCode, r.ErrorMessage
	case *kmsg.RemoveRaftVoterResponse:
		code, msg = r.ErrorCode, r.ErrorMessage
	}
	if msg == nil {
		return code, "<null>"
	}
	return code, *msg
}

// checkStuckChange: a removal whose new voter set has no majority alive
// (one follower killed, the other live one removed, as ktopo refuses
// without --override) does not commit: the leader answers it
// REQUEST_TIMED_OUT when its timer expires (2 s), and a second change
// meanwhile "waiting for leader to handle previous voter change
// request"; once the killed voter is back the change commits.
func checkStuckChange(t *testing.T, s side) {
	t.Helper()
	q := waitQuorum(t, s, "the observer controllers fetching", func(q quorum) bool { _, ok := q.observers[s.observers[0]]; return ok })
	var followers []int
	for _, id := range q.voterIDs() {
		if id != q.leader {
			followers = append(followers, id)
		}
	}
	dead, removed := followers[0], followers[1]
	if err := s.nodes.Kill(dead); err != nil {
		t.Fatal(err)
	}
	broker := strings.Split(s.bootstrap, ",")[0]
	type answer struct {
		code int16
		msg  string
	}
	first := make(chan answer, 1)
	start := time.Now()
	go func() {
		code, msg := voterAnswer(t, broker, removeReq(removed, q.voters[removed]))
		first <- answer{code, msg}
	}()
	// The leader holds the first for controller.quorum.request.timeout.ms
	// (2 s): the second arrives meanwhile, sent to the leader itself (a
	// broker forwards one request at a time: it would hold the second
	// until the first is answered).
	time.Sleep(500 * time.Millisecond)
	obs := s.observers[0]
	code, msg := voterAnswer(t, q.endpoints[q.leader], addReq(obs, q.observers[obs], controllerListener(s.controllers[len(s.controllers)-1])))
	t.Logf("the second change answered after %s: %q", time.Since(start), msg)
	if code != kerr.RequestTimedOut.Code || msg != "Request timed out waiting for leader to handle previous voter change request" {
		t.Errorf("a second change while one is under way: %v %q", kerr.ErrorForCode(code), msg)
	}
	a := <-first
	t.Logf("the change without a majority answered after %s", time.Since(start))
	// RaftUtil gives an error without a message Errors.message().
	if a.code != kerr.RequestTimedOut.Code || a.msg != "The request timed out." {
		t.Errorf("the change without a majority: %v %q, want REQUEST_TIMED_OUT", kerr.ErrorForCode(a.code), a.msg)
	}
	if err := s.nodes.Restart(dead); err != nil {
		t.Fatal(err)
	}
	waitQuorum(t, s, fmt.Sprintf("the removal of %d committed under a leader", removed), func(q quorum) bool {
		_, voter := q.voters[removed]
		return q.leader >= 0 && !voter && len(q.voters) == 2
	})
	if s.real != nil {
		if st := replicationStatus(t, s); st[removed] == "Leader" || st[removed] == "Follower" {
			t.Errorf("kafka-metadata-quorum describe --replication: %d still a voter: %v", removed, st)
		}
	}
}

var dynamicSandbox = kraftsandbox.Config{Brokers: 1, Controllers: 3, DynamicQuorum: true, ObserverControllers: 1}

var dynamicReal = kafkatest.KRaftOptions{Version: kafkatest.Kafka44, Brokers: 1, Racks: -1, Dynamic: &kafkatest.DynamicQuorum{ObserverControllers: 1}}

// TestSandboxVoterChanges: the scenario and Kafka's refusals on the
// sandbox (no Java).
func TestSandboxVoterChanges(t *testing.T) {
	s := sandboxSide(t, dynamicSandbox)
	checkKafkaRefusals(t, s, dynamicRefusals)
	checkVoterChanges(t, s)
	checkLeaderAndDown(t, sandboxSide(t, dynamicSandbox))
	checkStuckChange(t, sandboxSide(t, dynamicSandbox))
}

// TestRealVoterChanges: the same on Kafka 4.4 with a dynamic quorum.
func TestRealVoterChanges(t *testing.T) {
	s := realSide(t, dynamicReal)
	checkKafkaRefusals(t, s, dynamicRefusals)
	checkVoterChanges(t, s)
	s.real.Stop()
	s2 := realSide(t, dynamicReal)
	checkLeaderAndDown(t, s2)
	s2.real.Stop()
	checkStuckChange(t, realSide(t, dynamicReal))
}

// checkStaticRefusal: on a static quorum (kraft.version 0) ktopo shows
// Kafka's own refusal of a voter change, for an add and a remove.
func checkStaticRefusal(t *testing.T, s side) {
	t.Helper()
	q := describe(t, s)
	conn := []string{"--bootstrap-server", s.bootstrap, "--bootstrap-controller", s.controllerBootstrap()}
	voter := q.voterIDs()[0]
	refused(t, fmt.Sprintf("refusing to add controller %d to the metadata quorum's voters: kraft.version is 0, a static quorum (controller.quorum.voters): Kafka's leader refuses every voter change (asked with one it can only refuse, it answered Cluster doesn't support adding voter because the kraft.version feature is 0 (UNSUPPORTED_VERSION))", voter),
		append([]string{"quorum", "add-controller", strconv.Itoa(voter)}, conn...)...)
	refused(t, fmt.Sprintf("refusing to remove controller %d from the metadata quorum's voters: kraft.version is 0, a static quorum (controller.quorum.voters): Kafka's leader refuses every voter change (asked with one it can only refuse, it answered Cluster doesn't support removing voter because the kraft.version feature is 0 (UNSUPPORTED_VERSION))", voter),
		append([]string{"quorum", "remove-controller", strconv.Itoa(voter), "--execute"}, conn...)...)
	if got := describe(t, s).voterIDs(); !slices.Equal(got, q.voterIDs()) {
		t.Errorf("voters %v, want %v unchanged", got, q.voterIDs())
	}
}

func TestSandboxStaticRefusal(t *testing.T) {
	checkStaticRefusal(t, sandboxSide(t, kraftsandbox.Config{Brokers: 1, Controllers: 3}))
}

func TestRealStaticRefusal(t *testing.T) {
	for _, v := range []string{kafkatest.Kafka44, kafkatest.Kafka39} {
		t.Run(v, func(t *testing.T) {
			checkStaticRefusal(t, realSide(t, kafkatest.KRaftOptions{Version: v, Controllers: 1, Brokers: 1, Racks: -1}))
		})
	}
}
