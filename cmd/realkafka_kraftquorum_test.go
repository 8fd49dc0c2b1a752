package cmd

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/internal/testkit/kafkatest"
	"github.com/ktopo/ktopo/kraftsandbox"
)

// ktopo quorum is checked on real Kafka 4.4 and 3.9 (3 controllers, 3
// brokers), against what Kafka's own kafka-metadata-quorum and
// kafka-features print for the same cluster, and on the KRaft sandbox,
// whose output must read as real 4.4's does up to ids, offsets and times.
// Then a broker and a follower controller are killed: the broker is named
// fenced and down, the controller down, and the majority's arithmetic
// says no more voter may fail.

// quorumOut is ktopo quorum --output json, as a test reads it.
type quorumOut struct {
	ClusterID     string     `json:"clusterId"`
	QuorumError   string     `json:"quorumError"`
	LeaderID      *int       `json:"leaderId"`
	LeaderEpoch   *int       `json:"leaderEpoch"`
	HighWatermark *int64     `json:"highWatermark"`
	KRaftVersion  *int       `json:"kraftVersion"`
	StaticQuorum  *bool      `json:"staticQuorum"`
	Majority      string     `json:"majority"`
	Voters        []voterOut `json:"voters"`
	Observers     []struct {
		ID          int    `json:"id"`
		DirectoryID string `json:"directoryId"`
	} `json:"observers"`
	Features []struct {
		Name      string     `json:"name"`
		Finalized int        `json:"finalized"`
		Ceiling   int        `json:"ceiling"`
		Nodes     []rangeOut `json:"nodes"`
		Upgrade   *struct {
			Level    int    `json:"level"`
			Accepted bool   `json:"accepted"`
			Refusal  string `json:"refusal"`
			Error    string `json:"error"`
		} `json:"upgradeCheck"`
	} `json:"features"`
	NotAsked      []string `json:"notAsked"`
	Registrations []struct {
		ID       int  `json:"id"`
		Fenced   bool `json:"fenced"`
		Answered bool `json:"answered"`
		Voter    bool `json:"voter"`
	} `json:"registrations"`
	FencedListed bool `json:"fencedListed"`
}

type voterOut struct {
	ID           int      `json:"id"`
	DirectoryID  string   `json:"directoryId"`
	LogEndOffset int64    `json:"logEndOffset"`
	Lag          int64    `json:"lag"`
	LastFetch    *int64   `json:"lastFetchTimestamp"`
	Endpoints    []string `json:"endpoints"`
	Leader       bool     `json:"leader"`
	Down         bool     `json:"down"`
}

type rangeOut struct {
	Node  string `json:"node"`
	Min   int    `json:"min"`
	Max   int    `json:"max"`
	Known bool   `json:"known"`
}

func readQuorum(t *testing.T, args ...string) quorumOut {
	t.Helper()
	var q quorumOut
	out := runOK(t, append([]string{"quorum", "--output", "json"}, args...)...)
	if err := json.Unmarshal([]byte(out), &q); err != nil {
		t.Fatalf("ktopo quorum --output json: %v\n%s", err, out)
	}
	return q
}

func (q quorumOut) voterIDs() []int {
	var ids []int
	for _, v := range q.Voters {
		ids = append(ids, v.ID)
	}
	return ids
}

func (q quorumOut) observerIDs() []int {
	var ids []int
	for _, o := range q.Observers {
		ids = append(ids, o.ID)
	}
	return ids
}

func (q quorumOut) registration(id int) (fenced, answered, ok bool) {
	for _, r := range q.Registrations {
		if r.ID == id {
			return r.Fenced, r.Answered, true
		}
	}
	return false, false, false
}

func (q quorumOut) voterDown(id int) bool {
	for _, v := range q.Voters {
		if v.ID == id {
			return v.Down
		}
	}
	return false
}

// quorumSide is a cluster ktopo quorum runs on: real (its Kafka's tools
// at hand) or the sandbox.
type quorumSide struct {
	nodes     kafkatest.KRaftNodes
	clusterID string
	// real is the real cluster (nil: the sandbox).
	real   *kafkatest.KRaftCluster
	leader func(t *testing.T) int
	// fencesBrokers: DescribeCluster lists fenced brokers (Kafka 4.0+).
	fencesBrokers bool
}

// checkQuorumHealthy runs ktopo quorum on a cluster whose every node runs
// and checks it against the cluster (and Kafka's tools on a real one).
func checkQuorumHealthy(t *testing.T, s quorumSide) {
	t.Helper()
	bs, cs := s.nodes.Bootstrap(), s.nodes.ControllerBootstrap()
	var q quorumOut
	// Right after a start or a heal a voter or broker may not have
	// fetched from the leader yet.
	waitUntilShowing(t, "every voter and broker fetches from the leader", func() bool {
		q = readQuorum(t, "--bootstrap-server", bs)
		return q.QuorumError == "" && len(q.Observers) == len(s.nodes.BrokerIDs()) && !slices.ContainsFunc(q.Voters, func(v voterOut) bool { return v.Down })
	}, func() string { return fmt.Sprintf("%+v", q) })
	if q.ClusterID != s.clusterID {
		t.Errorf("cluster %q, want %q", q.ClusterID, s.clusterID)
	}
	if q.LeaderID == nil || *q.LeaderID != s.leader(t) {
		t.Errorf("leader %v, want %d", q.LeaderID, s.leader(t))
	}
	if !slices.Equal(q.voterIDs(), s.nodes.ControllerIDs()) || !slices.Equal(q.observerIDs(), s.nodes.BrokerIDs()) {
		t.Errorf("voters %v observers %v, want %v and %v", q.voterIDs(), q.observerIDs(), s.nodes.ControllerIDs(), s.nodes.BrokerIDs())
	}
	if q.KRaftVersion == nil || *q.KRaftVersion != 0 || q.StaticQuorum == nil || !*q.StaticQuorum {
		t.Errorf("kraft.version %v static %v, want 0, a static quorum (controller.quorum.voters)", q.KRaftVersion, q.StaticQuorum)
	}
	if want := "3 voters: a majority is 2, so 1 may fail."; q.Majority != want {
		t.Errorf("majority %q, want %q", q.Majority, want)
	}
	for _, id := range s.nodes.BrokerIDs() {
		if fenced, answered, ok := q.registration(id); !ok || fenced || !answered {
			t.Errorf("broker %d: registered %v fenced %v answered %v, want registered, unfenced, answering", id, ok, fenced, answered)
		}
	}
	if len(q.NotAsked) != 1 || !strings.Contains(q.NotAsked[0], "--bootstrap-controller") {
		t.Errorf("not asked %q, want the controllers", q.NotAsked)
	}

	// With the controllers: they answer the quorum, and their ranges
	// are known. A real 4.4 leader refuses kraft.version 1 on a static
	// quorum until every voter has told it, since the election, that it
	// supports it ("because not all of the voters support it": the
	// leader's in-memory voter set, KRaftVersionUpgrade); the sandbox
	// knows at once. Wait for that, and say how long it took.
	var qc quorumOut
	start := time.Now()
	waitUntilShowing(t, "Kafka's controller accepts kraft.version 1 (every voter has reported its range)", func() bool {
		qc = readQuorum(t, "--bootstrap-server", bs, "--bootstrap-controller", cs)
		for _, f := range qc.Features {
			if f.Name == cluster.FeatureKRaftVersion && f.Upgrade != nil && !f.Upgrade.Accepted {
				return false
			}
		}
		return true
	}, func() string { return fmt.Sprintf("%+v", qc.Features) })
	t.Logf("kraft.version's upgrade accepted %s after the first read", time.Since(start).Round(time.Millisecond))
	if len(qc.NotAsked) != 0 {
		t.Errorf("with --bootstrap-controller, not asked: %q", qc.NotAsked)
	}
	for _, f := range qc.Features {
		if len(f.Nodes) != len(s.nodes.BrokerIDs())+len(s.nodes.ControllerIDs()) {
			t.Errorf("feature %s: %d nodes' ranges, want every broker's and controller's", f.Name, len(f.Nodes))
		}
	}
	for _, v := range qc.Voters {
		if len(v.Endpoints) != 1 || !strings.HasPrefix(v.Endpoints[0], "CONTROLLER://") {
			t.Errorf("voter %d endpoints %q, want its CONTROLLER listener", v.ID, v.Endpoints)
		}
	}
	// Controllers alone.
	qo := readQuorum(t, "--bootstrap-controller", cs)
	if qo.LeaderID == nil || *qo.LeaderID != s.leader(t) || len(qo.Registrations) != 0 {
		t.Errorf("controllers alone: leader %v, registrations %+v", qo.LeaderID, qo.Registrations)
	}

	if s.real == nil {
		return
	}
	// Kafka's kafka-metadata-quorum: the same leader, voters, observers
	// and directory ids.
	status := kafkaTool(t, s.real, "kafka-metadata-quorum", "--bootstrap-server", bs, "describe", "--status")
	if leader := quorumField(t, status, "LeaderId"); *qc.LeaderID != leader {
		t.Errorf("leader %d, kafka-metadata-quorum's %d", *qc.LeaderID, leader)
	}
	if epoch := quorumField(t, status, "LeaderEpoch"); *qc.LeaderEpoch != epoch {
		t.Errorf("epoch %d, kafka-metadata-quorum's %d", *qc.LeaderEpoch, epoch)
	}
	var ours, theirs []string
	for _, v := range qc.Voters {
		ours = append(ours, fmt.Sprintf("voter %d %s %s", v.ID, v.DirectoryID, strings.Join(v.Endpoints, ",")))
	}
	for _, o := range qc.Observers {
		ours = append(ours, fmt.Sprintf("observer %d %s", o.ID, o.DirectoryID))
	}
	theirs = append(theirs, quorumMembers(t, status, "CurrentVoters", "voter")...)
	theirs = append(theirs, quorumMembers(t, status, "CurrentObservers", "observer")...)
	slices.Sort(ours)
	slices.Sort(theirs)
	if !slices.Equal(ours, theirs) {
		t.Errorf("quorum members:\n%s\nkafka-metadata-quorum's:\n%s\n(%s)", strings.Join(ours, "\n"), strings.Join(theirs, "\n"), status)
	}
	// Kafka's controller's answer to each upgrade ktopo asked about is
	// kafka-features upgrade --dry-run's.
	for _, f := range qc.Features {
		if f.Upgrade == nil {
			continue
		}
		if f.Upgrade.Error != "" {
			t.Errorf("%s: the upgrade check failed: %s", f.Name, f.Upgrade.Error)
			continue
		}
		feature := fmt.Sprintf("%s=%d", f.Name, f.Upgrade.Level)
		res, err := s.real.Dist().Command("kafka-features", "--bootstrap-server", bs, "upgrade", "--feature", feature, "--dry-run")
		if err != nil {
			t.Fatal(err)
		}
		if (res.Code == 0) != f.Upgrade.Accepted || !f.Upgrade.Accepted && !strings.Contains(res.Stdout+res.Stderr, strings.TrimSuffix(f.Upgrade.Refusal, " (INVALID_UPDATE_VERSION)")) {
			t.Errorf("%s: accepted %v, refusal %q; kafka-features upgrade --dry-run: exit %d\n%s%s", feature, f.Upgrade.Accepted, f.Upgrade.Refusal, res.Code, res.Stdout, res.Stderr)
		}
		t.Logf("upgrade %s: ktopo %+v; kafka-features --dry-run: exit %d %s%s", feature, *f.Upgrade, res.Code, res.Stdout, res.Stderr)
	}
	// Kafka's kafka-features: every feature's range and finalized
	// level, through a broker and through the controllers.
	for _, flag := range []string{"--bootstrap-server", "--bootstrap-controller"} {
		addr := bs
		if flag == "--bootstrap-controller" {
			addr = cs
		}
		describe := kafkaTool(t, s.real, "kafka-features", flag, addr, "describe")
		want := featureLines(t, describe)
		var got []string
		for _, f := range qc.Features {
			n := f.Nodes[0] // every node runs the same Kafka
			got = append(got, fmt.Sprintf("%s %s %s %s", f.Name, cluster.FeatureLevelText(f.Name, n.Min), cluster.FeatureLevelText(f.Name, n.Max),
				cluster.FeatureLevelText(f.Name, f.Finalized)))
		}
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("features:\n%s\nkafka-features %s describe:\n%s\n(%s)", strings.Join(got, "\n"), flag, strings.Join(want, "\n"), describe)
		}
	}
}

var quorumMemberRE = regexp.MustCompile(`"id":\s*(\d+)(?:,\s*"directoryId":\s*(?:"([^"]*)"|null))?(?:,\s*"endpoints":\s*\[([^\]]*)\])?`)

// quorumMembers reads a member list of kafka-metadata-quorum --status
// (CurrentVoters: [{"id": 3000, "directoryId": "…", "endpoints":
// ["CONTROLLER://…"]}, …]).
func quorumMembers(t *testing.T, status, field, kind string) []string {
	t.Helper()
	for _, line := range strings.Split(status, "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok || strings.TrimSpace(k) != field {
			continue
		}
		var out []string
		for _, m := range quorumMemberRE.FindAllStringSubmatch(v, -1) {
			dir := m[2]
			if dir == "" { // a static quorum's voter: Kafka 4.4 prints no directoryId, 3.9 null
				dir = cluster.ZeroUUID.String()
			}
			s := fmt.Sprintf("%s %s %s", kind, m[1], dir)
			if kind == "voter" {
				s += " " + strings.NewReplacer(`"`, "", " ", "").Replace(m[3])
			}
			out = append(out, s)
		}
		return out
	}
	t.Fatalf("no %s in\n%s", field, status)
	return nil
}

var featureLineRE = regexp.MustCompile(`Feature: (\S+)\s+SupportedMinVersion: (\S+)\s+SupportedMaxVersion: (\S+)\s+FinalizedVersionLevel: (\S+)`)

// featureLines reads kafka-features describe: "name min max finalized".
func featureLines(t *testing.T, describe string) []string {
	t.Helper()
	var out []string
	for _, m := range featureLineRE.FindAllStringSubmatch(describe, -1) {
		out = append(out, strings.Join(m[1:], " "))
	}
	if len(out) == 0 {
		t.Fatalf("no feature in kafka-features describe:\n%s", describe)
	}
	slices.Sort(out)
	return out
}

// checkQuorumFailures kills the highest broker and a follower controller
// and checks what ktopo quorum says of them.
func checkQuorumFailures(t *testing.T, s quorumSide) {
	t.Helper()
	bs, cs := s.nodes.Bootstrap(), s.nodes.ControllerBootstrap()
	brokers := s.nodes.BrokerIDs()
	broker := brokers[len(brokers)-1]
	leader := s.leader(t)
	var follower int
	for _, id := range s.nodes.ControllerIDs() {
		if id != leader {
			follower = id
		}
	}
	for _, id := range []int{broker, follower} {
		if err := s.nodes.Kill(id); err != nil {
			t.Fatal(err)
		}
	}
	live := slices.DeleteFunc(strings.Split(bs, ","), func(a string) bool { return strings.HasSuffix(a, ":"+portOf(t, s, broker)) })
	args := []string{"--bootstrap-server", strings.Join(live, ","), "--bootstrap-controller", cs}
	var q quorumOut
	waitUntilShowing(t, fmt.Sprintf("broker %d fenced (or gone) and controller %d down", broker, follower), func() bool {
		q = readQuorum(t, args...)
		fenced, _, registered := q.registration(broker)
		return q.QuorumError == "" && q.voterDown(follower) && (fenced || !registered && !s.fencesBrokers)
	}, func() string { return fmt.Sprintf("%+v", q) })
	want := fmt.Sprintf("3 voters: a majority is 2, so 1 may fail; with controller %d (last fetch ", follower)
	if !strings.HasPrefix(q.Majority, want) || !strings.HasSuffix(q.Majority, " ago) down, none may: one more failure stops the quorum.") {
		t.Errorf("majority %q, want %q… down, none may…", q.Majority, want)
	}
	text := runOK(t, append([]string{"quorum"}, args...)...)
	if s.fencesBrokers {
		if !regexp.MustCompile(fmt.Sprintf(`(?m)^  broker %d: fenced; down: does not answer at 127\.0\.0\.1:%s, last fetched the metadata log \S+ ago; if it is gone for good`, broker, portOf(t, s, broker))).MatchString(text) {
			t.Errorf("no fenced broker %d in:\n%s", broker, text)
		}
		if !strings.Contains(text, fmt.Sprintf("broker %d (fenced, did not answer: its registration's range still counts)", broker)) {
			t.Errorf("the features do not name broker %d as unknown:\n%s", broker, text)
		}
	} else if !strings.Contains(text, "(this Kafka lists no fenced broker: before 4.0, a fenced one is not shown)") {
		t.Errorf("no note that fenced brokers are not listed:\n%s", text)
	}
	if !regexp.MustCompile(fmt.Sprintf(`(?m)^  %d .* follower, down `, follower)).MatchString(text) {
		t.Errorf("controller %d not shown down:\n%s", follower, text)
	}
	if s.real != nil {
		// Kafka's tool shows the controller behind too.
		repl := kafkaTool(t, s.real, "kafka-metadata-quorum", "--bootstrap-controller", cs, "describe", "--replication")
		if !regexp.MustCompile(fmt.Sprintf(`(?m)^%d\s`, follower)).MatchString(repl) {
			t.Errorf("kafka-metadata-quorum --replication does not list controller %d:\n%s", follower, repl)
		}
	}
	t.Logf("ktopo quorum with broker %d and controller %d killed:\n%s", broker, follower, text)

	// The other follower too: the leader, without a majority, resigns.
	// The controllers say none leads; a broker holds the request.
	for _, id := range s.nodes.ControllerIDs() {
		if id != leader && id != follower {
			if err := s.nodes.Kill(id); err != nil {
				t.Fatal(err)
			}
		}
	}
	var qerr string
	waitUntilShowing(t, "the quorum without a leader", func() bool {
		qerr = readQuorum(t, args...).QuorumError
		return strings.Contains(qerr, "1 of the 3 controllers asked answered and none leads the quorum")
	}, func() string { return qerr })
	t.Logf("through the controllers: %s", qerr)
	q = readQuorum(t, "--bootstrap-server", args[1], "--request-timeout", "2s")
	if !strings.Contains(q.QuorumError, "a broker holds DescribeQuorum while the quorum has no leader") {
		t.Errorf("through the brokers: %q", q.QuorumError)
	}
	t.Logf("through the brokers: %s", q.QuorumError)
}

// portOf is the port of node id's listener in the side's bootstrap list
// (in id order).
func portOf(t *testing.T, s quorumSide, id int) string {
	t.Helper()
	i := slices.Index(s.nodes.BrokerIDs(), id)
	addrs := strings.Split(s.nodes.Bootstrap(), ",")
	if i < 0 || i >= len(addrs) {
		t.Fatalf("no listener of broker %d in %s", id, s.nodes.Bootstrap())
	}
	_, port, _ := strings.Cut(addrs[i], ":")
	return port
}

func sandboxQuorumSide(t *testing.T) quorumSide {
	t.Helper()
	c := startSandboxKRaft(t, kraftsandbox.Config{Brokers: 3, Controllers: 3, Racks: 3})
	return quorumSide{nodes: c, clusterID: c.ClusterID(), leader: c.quorumLeader, fencesBrokers: true}
}

func realQuorumSide(c *kafkatest.KRaftCluster) quorumSide {
	return quorumSide{nodes: c, clusterID: c.ClusterID(), real: c, leader: realKRaft{c}.quorumLeader,
		fencesBrokers: c.Version() != kafkatest.Kafka39}
}

// TestSandboxQuorum: ktopo quorum on the KRaft sandbox (no Java).
func TestSandboxQuorum(t *testing.T) {
	s := sandboxQuorumSide(t)
	checkQuorumHealthy(t, s)
	checkQuorumFailures(t, s)
}

// TestRealKRaftQuorum: ktopo quorum on real Kafka 4.4 and 3.9, against
// Kafka's own tools; on 4.4 its output reads as the sandbox's does.
func TestRealKRaftQuorum(t *testing.T) {
	for _, k := range kraftClusters {
		if k.combined {
			continue
		}
		t.Run(k.name, func(t *testing.T) {
			c := k.start(t)
			s := realQuorumSide(c)
			checkQuorumHealthy(t, s)
			if k.version == kafkatest.Kafka44 {
				// A controller's listener given as a broker's is named
				// so, as on the sandbox (TestQuorumRefusals).
				ctrl := strings.Split(c.ControllerBootstrap(), ",")[0]
				if code, _, errOut := runCLI(t, "quorum", "--bootstrap-server", ctrl); code == 0 || !strings.Contains(errOut, ctrl+" is a KRaft controller's listener") {
					t.Errorf("quorum --bootstrap-server %s (a controller): exit %d, %s", ctrl, code, errOut)
				}
				sb := sandboxQuorumSide(t)
				checkQuorumHealthy(t, sb)
				args := func(n kafkatest.KRaftNodes) []string {
					return []string{"quorum", "--bootstrap-server", n.Bootstrap(), "--bootstrap-controller", n.ControllerBootstrap()}
				}
				real, sandbox := runOK(t, args(c)...), runOK(t, args(sb.nodes)...)
				if nr, ns := normalQuorumText(real), normalQuorumText(sandbox); nr != ns {
					t.Errorf("ktopo quorum reads differently on the sandbox:\n%s\nthan on real Kafka 4.4:\n%s\n(as printed:\n%s\nand\n%s)", ns, nr, sandbox, real)
				}
			}
			checkQuorumFailures(t, s)
		})
	}
}

var (
	quorumAgo    = regexp.MustCompile(`\S+ ago`)
	quorumDirID  = regexp.MustCompile(`\b[A-Za-z0-9_-]{22}\b`)
	quorumDigits = regexp.MustCompile(`[0-9]+`)
	quorumSpaces = regexp.MustCompile(`[ \t]+`)
)

// normalQuorumText is ktopo quorum's text up to ids, offsets, times,
// addresses, columns' widths and the order of its lines (which voter
// leads is the election's draw); a static voter's zero directory id
// stays.
func normalQuorumText(s string) string {
	s = quorumAgo.ReplaceAllString(s, "AGO")
	s = quorumDirID.ReplaceAllStringFunc(s, func(id string) string {
		if id == cluster.ZeroUUID.String() {
			return id
		}
		return "DIRID"
	})
	s = quorumDigits.ReplaceAllString(s, "N")
	lines := strings.Split(quorumSpaces.ReplaceAllString(s, " "), "\n")
	slices.Sort(lines)
	return strings.Join(lines, "\n")
}

// TestQuorumRefusals: ktopo quorum refuses what it cannot read, naming
// the problem: a ZooKeeper-mode cluster, no cluster, a bad flag value, a
// controller's listener given as a broker's, nothing listening.
func TestQuorumRefusals(t *testing.T) {
	t.Setenv(envZookeeper, "")
	t.Setenv(envBootstrap, "")
	s := sandboxQuorumSide(t)
	ctrl := strings.Split(s.nodes.ControllerBootstrap(), ",")[0]
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--zookeeper", "127.0.0.1:2181"}, "a ZooKeeper-mode cluster (--zookeeper 127.0.0.1:2181) has none"},
		{nil, "no cluster given: --bootstrap-server host:port"},
		{[]string{"--bootstrap-server", s.nodes.Bootstrap(), "--output", "yaml"}, `invalid --output "yaml": want text or json`},
		{[]string{"--bootstrap-controller", "a:b:c"}, "--bootstrap-controller: Invalid url in bootstrap.servers: a:b:c"},
		{[]string{"--bootstrap-server", ctrl}, ctrl + " is a KRaft controller's listener"},
		{[]string{"--bootstrap-server", "127.0.0.1:1"}, "127.0.0.1:1: connect: connection refused"},
		{[]string{"--bootstrap-controller", "127.0.0.1:1"}, "DescribeQuorum: 127.0.0.1:1: unable to dial"},
	} {
		code, out, errOut := runCLI(t, append([]string{"quorum"}, tc.args...)...)
		if code == 0 || !strings.Contains(errOut, tc.want) || out != "" {
			t.Errorf("quorum %s: exit %d, %q%q; want a failure saying %q", strings.Join(tc.args, " "), code, out, errOut, tc.want)
		}
	}
	// A controller's listener given as a broker's beside the
	// controllers: the quorum is read, the registrations say why not.
	text := runOK(t, "quorum", "--bootstrap-server", ctrl, "--bootstrap-controller", s.nodes.ControllerBootstrap())
	if !strings.Contains(text, "Registrations: unknown: "+ctrl+" is a KRaft controller's listener") || !strings.Contains(text, "majority        3 voters") {
		t.Errorf("quorum with a controller as the broker:\n%s", text)
	}
}
