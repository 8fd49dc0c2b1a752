package clusterops

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/ktopo/ktopo/cluster"
	"github.com/ktopo/ktopo/internal/testkit/clustertest"
)

// electionFiles are --path-to-json-file documents and what ParseElectionFile
// gives: the partitions "a-0,b-1", or the error.
var electionFiles = []struct{ data, want string }{
	{`{"partitions":[{"topic":"a","partition":0},{"topic":"b","partition":1}]}`, "a-0,b-1"},
	// The znode's own JSON, and members Kafka ignores.
	{`{"version":1,"partitions":[{"topic":"a","partition":2,"x":1}],"other":true}`, "a-2"},
	{`{"partitions":[]}`, ""},
	// Kafka accepts a negative partition (it does not exist, later).
	{`{"partitions":[{"topic":"a","partition":-1}]}`, "a--1"},
	{"", "Replica election data is empty"},
	// Kafka: "Expected JSON object, received " (Jackson's missing node).
	{"  \n", "Replica election data is empty"},
	// Kafka: "Replica election data is empty".
	{`{"partitions":[{"topic":"a","partition":0}`, "Replica election data is not valid JSON: unexpected end of JSON in array at byte 42"},
	// Kafka reads the first value and ignores the rest.
	{`{"partitions":[]} x`, "Replica election data is not valid JSON: unexpected data after the JSON object at byte 18"},
	{`{}`, `Replica election data is missing "partitions" field`},
	{`[]`, "Expected JSON object, received []"},
	{`"x"`, `Expected JSON object, received "x"`},
	{`{"partitions":{}}`, "Expected JSON array, received {}"},
	{`{"partitions":null}`, "Expected JSON array, received null"},
	{`{"partitions":[1]}`, "Expected JSON object, received 1"},
	{`{"partitions":[{"partition":0}]}`, "No such field exists: `topic`"},
	{`{"partitions":[{"topic":"a"}]}`, "No such field exists: `partition`"},
	{`{"partitions":[{"topic":1,"partition":0}]}`, "Expected `String` value, received 1"},
	{`{"partitions":[{"topic":"a","partition":"0"}]}`, "Expected `Integer` value, received \"0\""},
	{`{"partitions":[{"topic":"a","partition":1.5}]}`, "Expected `Integer` value, received 1.5"},
	{`{"partitions":[{"topic":"a","partition":3000000000}]}`, "Expected `Integer` value, received 3000000000"},
	// Kafka lists the duplicates of a Java HashSet: the same set, in
	// hash order ([a-0, b-1] here too).
	{`{"partitions":[{"topic":"a","partition":0},{"topic":"a","partition":0},{"topic":"b","partition":1},{"topic":"b","partition":1},{"topic":"a","partition":0}]}`,
		"Replica election data contains duplicate partitions: [a-0, b-1]"},
}

// TestParseElectionFile: kafka-leader-election.sh's --path-to-json-file
// parser, with the messages Kafka 3.9.2's tool printed for the same files
// (LeaderElectionCommand, run by hand; cmd's real-Kafka test runs
// the tool on a few of them again). Where ktopo differs, the case says so.
func TestParseElectionFile(t *testing.T) {
	for _, tc := range electionFiles {
		ps, err := cluster.ParseElectionFile([]byte(tc.data))
		got := cluster.JoinPartitions(ps, ",")
		if err != nil {
			got = err.Error()
		}
		if got != tc.want {
			t.Errorf("%q: %q, want %q", tc.data, got, tc.want)
		}
	}
}

// FuzzParseElectionFile: the parser never panics, fails only with a
// Kafka-style error, accepts only JSON, and reads back what the znode
// encoder writes from what it parsed.
//
//	go test ./cluster -run '^$' -fuzz '^FuzzParseElectionFile$' -fuzztime 1m
func FuzzParseElectionFile(f *testing.F) {
	for _, tc := range electionFiles {
		f.Add([]byte(tc.data))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		ps, err := cluster.ParseElectionFile(data)
		if err != nil {
			if cluster.ErrorClass(err) == "" || err.Error() == "" {
				t.Fatalf("error %v (%T) is not a Kafka error", err, err)
			}
			return
		}
		if !json.Valid(data) {
			t.Fatalf("accepted invalid JSON %q", data)
		}
		again, err := cluster.ParseElectionFile(cluster.EncodePartitionsNotification(ps))
		if err != nil || !slices.Equal(again, ps) {
			t.Fatalf("re-encoded %v: %v %v", ps, again, err)
		}
	})
}

// electionCluster: brokers 1, 2, 3 registered (4 is not), controller 1,
// and topic "el": 0:[1,2,3] led by 2 (will move), 1:[2,1,3] led by 2 (not
// needed), 2:[4,1,2] led by 1 (preferred offline), 3:[3,1,2] led by 1
// with ISR [1,2] (preferred not in the ISR), 4:[1,2] without state (new);
// "doomed" is being deleted, "solo" led by its preferred replica.
func electionCluster(t *testing.T) (*clustertest.FakeZK, *cluster.Model) {
	t.Helper()
	z, m := clustertest.NewCluster(t)
	evs := []cluster.NodeEvent{
		z.Create(cluster.TopicPath("el"), clustertest.TopicJSON(map[int][]int{0: {1, 2, 3}, 1: {2, 1, 3}, 2: {4, 1, 2}, 3: {3, 1, 2}, 4: {1, 2}})),
		z.Create(cluster.PartitionStatePath("el", 0), clustertest.StateJSON(1, 2, 1, 2, 3, 1)),
		z.Create(cluster.PartitionStatePath("el", 1), clustertest.StateJSON(1, 2, 0, 2, 1, 3)),
		z.Create(cluster.PartitionStatePath("el", 2), clustertest.StateJSON(1, 1, 0, 1, 2)),
		z.Create(cluster.PartitionStatePath("el", 3), clustertest.StateJSON(1, 1, 2, 1, 2)),
		z.Create(cluster.TopicPath("doomed"), clustertest.TopicJSON(map[int][]int{0: {3, 1}})),
		z.Create(cluster.PartitionStatePath("doomed", 0), clustertest.StateJSON(1, 1, 1, 1)),
		z.Create(cluster.DeleteTopicPath("doomed"), ""),
		z.Create(cluster.TopicPath("solo"), clustertest.TopicJSON(map[int][]int{0: {3}})),
		z.Create(cluster.PartitionStatePath("solo", 0), clustertest.StateJSON(1, 3, 0, 3)),
	}
	clustertest.Apply(t, m, evs, false)
	return z, m
}

func verdicts(p *ElectionPlan) string {
	var out []string
	for _, ep := range p.Partitions {
		out = append(out, fmt.Sprintf("%s:%d", ep.String(), ep.Verdict))
	}
	return strings.Join(out, " ")
}

func TestPlanPreferredElection(t *testing.T) {
	z, m := electionCluster(t)
	s := m.Snapshot()
	p, err := PlanPreferredElection(s, ElectionRequest{Topic: "el"})
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("el-0:%d el-1:%d el-2:%d el-3:%d el-4:%d", ElectionWillMove, ElectionNotNeeded,
		ElectionPreferredOffline, ElectionPreferredNotInISR, ElectionNoState)
	if got := verdicts(p); got != want {
		t.Errorf("verdicts %s, want %s", got, want)
	}
	reasons := []string{"", "already led by its preferred replica 2", "preferred replica 4 is offline",
		"preferred replica 3 is not in the ISR [1,2]",
		"no leader and ISR state: the controller has not initialised the partition (or its state znode cannot be read)"}
	for i, ep := range p.Partitions {
		if ep.Reason() != reasons[i] {
			t.Errorf("%s: reason %q, want %q", ep.String(), ep.Reason(), reasons[i])
		}
	}
	if got := cluster.JoinPartitions(p.Write, ","); got != "el-0,el-2,el-3" {
		t.Errorf("written %s", got)
	}
	if string(p.JSON) != `{"version":1,"partitions":[{"topic":"el","partition":0},{"topic":"el","partition":2},{"topic":"el","partition":3}]}` {
		t.Errorf("znode %s", p.JSON)
	}
	if p.Controller != 1 || p.Path != cluster.PreferredReplicaElectionPath {
		t.Errorf("controller %d path %s", p.Controller, p.Path)
	}

	// The controller elected el-0 only: el-2 and el-3 failed with its message.
	r := p.Result(func(tp cluster.TopicPartition) int {
		return map[string]int{"el-0": 1, "el-2": 1, "el-3": 1}[tp.String()]
	})
	if cluster.JoinPartitions(r.Elected, ",") != "el-0" || cluster.JoinPartitions(r.NotNeeded, ",") != "el-1" || len(r.Failed) != 3 {
		t.Fatalf("result %+v", r)
	}
	if f := r.Failed[0]; f.String() != "el-2" || f.Class != cluster.ClassPreferredLeaderNotAvailable ||
		f.Message != "Failed to elect leader for partition el-2 under strategy PreferredReplicaPartitionLeaderElectionStrategy" {
		t.Errorf("failure %+v", f)
	}
	if f := r.Failed[2]; f.String() != "el-4" || f.Class != "" {
		t.Errorf("failure %+v", f)
	}

	// Named partitions, in any order; the topic being deleted is left out.
	p, err = PlanPreferredElection(s, ElectionRequest{Partitions: []cluster.TopicPartition{{Topic: "solo", Partition: 0}, {Topic: "doomed", Partition: 0}, {Topic: "el", Partition: 0}}})
	if err != nil {
		t.Fatal(err)
	}
	want = fmt.Sprintf("doomed-0:%d el-0:%d solo-0:%d", ElectionTopicBeingDeleted, ElectionWillMove, ElectionNotNeeded)
	if got := verdicts(p); got != want || cluster.JoinPartitions(p.Write, ",") != "el-0" {
		t.Errorf("verdicts %s written %v, want %s", got, p.Write, want)
	}
	if f := p.Result(func(cluster.TopicPartition) int { return 1 }).Failed; len(f) != 1 || f[0].Class != cluster.ClassInvalidTopic || f[0].Message != "The topic is being deleted" {
		t.Errorf("failures %+v", f)
	}

	// Every partition: those of orders are led by their first replica.
	p, err = PlanPreferredElection(s, ElectionRequest{All: true})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(p.Partitions); n != 9 || p.Count(ElectionNotNeeded) != 4 || p.Count(ElectionWillMove) != 1 {
		t.Errorf("all: %s", verdicts(p))
	}

	// Unknown partitions and topics: nothing is planned.
	_, err = PlanPreferredElection(s, ElectionRequest{Partitions: []cluster.TopicPartition{{Topic: "el", Partition: 9}, {Topic: "el", Partition: 0}, {Topic: "nope", Partition: 0}}})
	if err == nil || err.Error() != "The partitions do not exist: el-9, nope-0 (nothing was written)" || cluster.ErrorClass(err) != cluster.ClassUnknownTopicOrPartition {
		t.Errorf("unknown: %v", err)
	}
	_, err = PlanPreferredElection(s, ElectionRequest{Partitions: []cluster.TopicPartition{{Topic: "el", Partition: -1}}})
	if err == nil || err.Error() != "The partition does not exist: el--1 (nothing was written)" {
		t.Errorf("negative: %v", err)
	}
	if _, err = PlanPreferredElection(s, ElectionRequest{Topic: "nope"}); err == nil || err.Error() != "Topic 'nope' does not exist as expected" {
		t.Errorf("unknown topic: %v", err)
	}

	// A pending election: Kafka's refusal, naming it.
	clustertest.Apply(t, m, []cluster.NodeEvent{z.Create(cluster.PreferredReplicaElectionPath, string(cluster.EncodePartitionsNotification([]cluster.TopicPartition{{Topic: "b", Partition: 1}, {Topic: "a", Partition: 0}})))}, false)
	_, err = PlanPreferredElection(m.Snapshot(), ElectionRequest{All: true})
	if err == nil || err.Error() != "Preferred replica leader election currently in progress for b-1,a-0. Aborting operation" {
		t.Errorf("pending: %v", err)
	}
}

// TestPlanPreferredElectionLeaderless: a partition without a leader whose
// preferred replica is back in the ISR is electable (the controller's
// PreferredReplica election does not care who led); without a controller
// the plan says so.
func TestPlanPreferredElectionLeaderless(t *testing.T) {
	z, m := clustertest.NewCluster(t)
	clustertest.Apply(t, m, []cluster.NodeEvent{
		z.Set(cluster.PartitionStatePath("orders", 0), clustertest.StateJSON(1, -1, 3, 1)),
		z.Del(cluster.ControllerPath),
	}, false)
	p, err := PlanPreferredElection(m.Snapshot(), ElectionRequest{Partitions: []cluster.TopicPartition{{Topic: "orders", Partition: 0}}})
	if err != nil {
		t.Fatal(err)
	}
	if ep := p.Partitions[0]; ep.Verdict != ElectionWillMove || ep.Leader != cluster.NoLeader || ep.Preferred != 1 || p.Controller != -1 {
		t.Errorf("%+v controller %d", ep, p.Controller)
	}
}

// TestPlanPreferredElectionTooLarge: an election the controller could not
// read is refused.
func TestPlanPreferredElectionTooLarge(t *testing.T) {
	z, m := clustertest.NewCluster(t)
	parts := map[int][]int{}
	var evs []cluster.NodeEvent
	for i := range 40000 {
		parts[i] = []int{1, 2}
	}
	evs = append(evs, z.Create(cluster.TopicPath("big"), clustertest.TopicJSON(parts)))
	for i := range 40000 {
		evs = append(evs, z.Create(cluster.PartitionStatePath("big", i), clustertest.StateJSON(1, 2, 1, 1, 2)))
	}
	clustertest.Apply(t, m, evs, false)
	_, err := PlanPreferredElection(m.Snapshot(), ElectionRequest{Topic: "big"})
	if err == nil || !strings.HasPrefix(err.Error(), "The election of 40000 partitions is 1348918 bytes of JSON") {
		t.Errorf("%v", err)
	}
	if cluster.ErrorClass(err) != cluster.ClassAdminOperation {
		t.Errorf("class %q", cluster.ErrorClass(err))
	}
}

// BenchmarkPlanPreferredElection plans --all-topic-partitions on 100,000
// partitions (10,000 topics × 10, 30 brokers) of which 512 are led by
// their second replica, and computes the outcome.
func BenchmarkPlanPreferredElection(b *testing.B) {
	m := cluster.NewModel(cluster.ModelOptions{})
	m.Apply(clustertest.Big(30, 10_000, 10), true)
	m.Apply(clustertest.Churn(1, 512, 30, 10_000, 10)[0], false)
	s := m.Snapshot()
	b.ReportAllocs()
	for b.Loop() {
		p, err := PlanPreferredElection(s, ElectionRequest{All: true})
		if err != nil || len(p.Write) == 0 {
			b.Fatal(err, len(p.Write))
		}
		p.Result(func(cluster.TopicPartition) int { return -1 })
	}
}
