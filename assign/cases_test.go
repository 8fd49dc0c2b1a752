package assign

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ktopo/ktopo/internal/testkit/testvectors"
)

// The test vectors come from Kafka's own test suites, unchanged, in
// internal/testkit/testvectors/assignment-cases.json (embedded).

type caseBroker struct {
	ID   int     `json:"id"`
	Rack *string `json:"rack"`
}

type property struct {
	Name  string `json:"name"`
	Value int    `json:"value"`
}

type assignCase struct {
	ID                       string                     `json:"id"`
	Brokers                  []caseBroker               `json:"brokers"`
	RackAware                bool                       `json:"rackAware"`
	Partitions               int                        `json:"partitions"`
	ReplicationFactor        int                        `json:"replicationFactor"`
	FixedStartIndex          int                        `json:"fixedStartIndex"`
	StartPartitionID         int                        `json:"startPartitionId"`
	RackAlternatedBrokerList []int                      `json:"rackAlternatedBrokerList"`
	Expected                 map[string][]int           `json:"expected"`
	ExpectedPartitionIDs     []int                      `json:"expectedPartitionIds"`
	Properties               []property                 `json:"properties"`
	ErrorClass               string                     `json:"errorClass"`
	ErrorMessage             string                     `json:"errorMessage"`
	ExistingAssignment       map[string][]int           `json:"existingAssignment"`
	NewTotalPartitions       int                        `json:"newTotalPartitions"`
	ExpectedLeaderAndReplica map[string]leaderAndRepSet `json:"expectedLeaderAndReplicaSet"`
	FollowUp                 *struct {
		AlterToPartitions   int      `json:"alterToPartitions"`
		PropertiesOverAll36 []string `json:"propertiesOverAll36"`
	} `json:"followUp"`
}

type leaderAndRepSet struct {
	Leader     int   `json:"leader"`
	ReplicaSet []int `json:"replicaSet"`
}

type manualCase struct {
	Note                string           `json:"note"`
	Operation           string           `json:"operation"`
	Topic               string           `json:"topic"`
	Assignment          map[string][]int `json:"assignment"`
	Valid               bool             `json:"valid"`
	ExistingAssignment  map[string][]int `json:"existingAssignment"`
	Brokers             []int            `json:"brokers"`
	NumPartitions       int              `json:"numPartitions"`
	ManualAssignment    map[string][]int `json:"manualAssignment"`
	IncreaseTo          int              `json:"increaseTo"`
	NewAssignments      [][]int          `json:"newAssignments"`
	ErrorClass          string           `json:"errorClass"`
	ErrorMessage        string           `json:"errorMessage"`
	ErrorMessagePrefix  string           `json:"errorMessagePrefix"`
	ErrorMessageContain string           `json:"errorMessageContains"`
}

type vectors struct {
	Cases                   []assignCase `json:"cases"`
	RackAlternatedListCases []struct {
		BrokerRacks map[string]string `json:"brokerRacks"`
		Expected    []int             `json:"expected"`
	} `json:"rackAlternatedListCases"`
	ManualAssignmentValidationCases []manualCase `json:"manualAssignmentValidationCases"`
	ParseReplicaAssignmentCases     []struct {
		Input                 string           `json:"input"`
		Expected              map[string][]int `json:"expected"`
		ExpectedStoredReplica map[string][]int `json:"expectedStoredReplicas"`
		ErrorClass            string           `json:"errorClass"`
		ErrorMessage          string           `json:"errorMessage"`
	} `json:"parseReplicaAssignmentCases"`
}

func loadVectors(t testing.TB) vectors {
	t.Helper()
	b := testvectors.AssignmentCases
	var v vectors
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	if len(v.Cases) == 0 {
		t.Fatal("no cases in assignment-cases.json")
	}
	return v
}

func toBrokers(cbs []caseBroker, rackAware bool) []Broker {
	out := make([]Broker, len(cbs))
	for i, b := range cbs {
		out[i] = Broker{ID: b.ID}
		if b.Rack != nil && rackAware {
			out[i].Rack, out[i].HasRack = *b.Rack, true
		}
	}
	return out
}

func toAssignment(t testing.TB, m map[string][]int) Assignment {
	t.Helper()
	a := make(Assignment, len(m))
	for k, v := range m {
		p, err := strconv.Atoi(k)
		if err != nil {
			t.Fatalf("partition key %q: %v", k, err)
		}
		a[p] = v
	}
	return a
}

func wantKafkaError(t *testing.T, err error, class, msg string) {
	t.Helper()
	var ke *Error
	if !errors.As(err, &ke) {
		t.Fatalf("got error %v (%T), want %s(%q)", err, err, class, msg)
	}
	if ke.Class != class || ke.Message != msg {
		t.Fatalf("got %s(%q), want %s(%q)", ke.Class, ke.Message, class, msg)
	}
}

func TestKafkaCases(t *testing.T) {
	v := loadVectors(t)
	for _, c := range v.Cases {
		t.Run(c.ID, func(t *testing.T) {
			brokers := toBrokers(c.Brokers, c.RackAware)
			if c.RackAlternatedBrokerList != nil {
				if got := RackAlternated(brokers); !slices.Equal(got, c.RackAlternatedBrokerList) {
					t.Errorf("rack-alternated list %v, want %v", got, c.RackAlternatedBrokerList)
				}
			}
			if c.ExistingAssignment != nil {
				testAddPartitions(t, c, brokers)
				return
			}
			o := Options{StartIndex: c.FixedStartIndex, ReplicaShift: -1, StartPartition: c.StartPartitionID}
			res, err := Assign(brokers, c.Partitions, c.ReplicationFactor, o)
			if c.ErrorClass != "" {
				wantKafkaError(t, err, c.ErrorClass, c.ErrorMessage)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.Expected != nil {
				if want := toAssignment(t, c.Expected); !equalAssignments(res.Assignment, want) {
					t.Fatalf("got %v\nwant %v", res.Assignment, want)
				}
			}
			if c.ExpectedPartitionIDs != nil {
				if got := res.Assignment.Partitions(); !slices.Equal(got, c.ExpectedPartitionIDs) {
					t.Fatalf("partition ids %v, want %v", got, c.ExpectedPartitionIDs)
				}
			}
			if len(c.Properties) == 0 {
				return
			}
			if c.FixedStartIndex >= 0 {
				checkProperties(t, brokers, c.ReplicationFactor, res.Assignment, c.Properties)
				return
			}
			// A random start: the properties must hold for every (start, shift) pair.
			for start := range brokers {
				for shift := range brokers {
					o := Options{StartIndex: start, ReplicaShift: shift, StartPartition: c.StartPartitionID}
					res, err := Assign(brokers, c.Partitions, c.ReplicationFactor, o)
					if err != nil {
						t.Fatal(err)
					}
					checkProperties(t, brokers, c.ReplicationFactor, res.Assignment, c.Properties)
				}
			}
			if c.FollowUp != nil {
				testFollowUp(t, c, brokers)
			}
		})
	}
}

// testAddPartitions derives AdminZkClient.addPartitions' arguments from the
// existing assignment (spec §2.6), as the case's derivation describes.
func testAddPartitions(t *testing.T, c assignCase, brokers []Broker) {
	existing := toAssignment(t, c.ExistingAssignment)
	added, err := AddPartitions("topic", existing, c.NewTotalPartitions, nil, brokers)
	if err != nil {
		t.Fatal(err)
	}
	// The vector also states the derived AdminUtils arguments; check them.
	direct, err := Assign(brokers, c.Partitions, c.ReplicationFactor, Options{StartIndex: c.FixedStartIndex, ReplicaShift: -1, StartPartition: c.StartPartitionID})
	if err != nil {
		t.Fatal(err)
	}
	if !equalAssignments(added, direct.Assignment) {
		t.Fatalf("AddPartitions %v differs from the derived call %v", added, direct.Assignment)
	}
	for k, want := range c.ExpectedLeaderAndReplica {
		p, _ := strconv.Atoi(k)
		got := added[p]
		if len(got) == 0 || got[0] != want.Leader {
			t.Errorf("partition %d: replicas %v, want leader %d", p, got, want.Leader)
		}
		set := slices.Sorted(slices.Values(got))
		if !slices.Equal(set, want.ReplicaSet) {
			t.Errorf("partition %d: replica set %v, want %v", p, set, want.ReplicaSet)
		}
	}
	if len(added) != len(c.ExpectedLeaderAndReplica) {
		t.Errorf("added %d partitions, want %d", len(added), len(c.ExpectedLeaderAndReplica))
	}
}

// testFollowUp grows the topic to 36 partitions as kafka-topics --alter does
// and checks the properties over all of them, for every random start.
func testFollowUp(t *testing.T, c assignCase, brokers []Broker) {
	for start := range brokers {
		for shift := range brokers {
			res, err := Assign(brokers, c.Partitions, c.ReplicationFactor, Options{StartIndex: start, ReplicaShift: shift, StartPartition: -1})
			if err != nil {
				t.Fatal(err)
			}
			sorted := slices.Clone(brokers)
			slices.SortFunc(sorted, func(a, b Broker) int { return a.ID - b.ID })
			added, err := AddPartitions("t", res.Assignment, c.FollowUp.AlterToPartitions, nil, sorted)
			if err != nil {
				t.Fatal(err)
			}
			all := make(Assignment, c.FollowUp.AlterToPartitions)
			for p, rs := range res.Assignment {
				all[p] = rs
			}
			for p, rs := range added {
				all[p] = rs
			}
			var props []property
			for _, name := range c.FollowUp.PropertiesOverAll36 {
				props = append(props, property{Name: name})
			}
			checkProperties(t, brokers, c.ReplicationFactor, all, props)
		}
	}
}

func checkProperties(t *testing.T, brokers []Broker, rf int, a Assignment, props []property) {
	t.Helper()
	rack := map[int]string{}
	for _, b := range brokers {
		rack[b.ID] = b.Rack
	}
	leaders, replicas := map[int]int{}, map[int]int{}
	for _, rs := range a {
		leaders[rs[0]]++
		for _, r := range rs {
			replicas[r]++
		}
	}
	racksOf := func(rs []int) int {
		set := map[string]bool{}
		for _, r := range rs {
			set[rack[r]] = true
		}
		return len(set)
	}
	for _, prop := range props {
		switch prop.Name {
		case "noDuplicateBrokersInPartition":
			for p, rs := range a {
				if len(slices.Compact(slices.Sorted(slices.Values(rs)))) != len(rs) {
					t.Fatalf("%s: partition %d has %v", prop.Name, p, rs)
				}
			}
		case "eachPartitionSpansReplicationFactorDistinctRacks":
			for p, rs := range a {
				if racksOf(rs) != rf {
					t.Fatalf("%s: partition %d %v spans %d racks", prop.Name, p, rs, racksOf(rs))
				}
			}
		case "eachPartitionSpansExactlyNRacks":
			for p, rs := range a {
				if racksOf(rs) != prop.Value {
					t.Fatalf("%s: partition %d %v spans %d racks, want %d", prop.Name, p, rs, racksOf(rs), prop.Value)
				}
			}
		case "everyReplicaListHasLengthReplicationFactor":
			for p, rs := range a {
				if len(rs) != rf {
					t.Fatalf("%s: partition %d has %d replicas", prop.Name, p, len(rs))
				}
			}
		case "leaderCountPerBrokerEqual":
			for _, b := range brokers {
				if want := len(a) / len(brokers); leaders[b.ID] != want {
					t.Fatalf("%s: broker %d leads %d, want %d (%v)", prop.Name, b.ID, leaders[b.ID], want, a)
				}
			}
		case "leaderCountPerBroker":
			for _, b := range brokers {
				if leaders[b.ID] != prop.Value {
					t.Fatalf("%s: broker %d leads %d, want %d", prop.Name, b.ID, leaders[b.ID], prop.Value)
				}
			}
		case "replicaCountPerBrokerEqual":
			for _, b := range brokers {
				if want := len(a) * rf / len(brokers); replicas[b.ID] != want {
					t.Fatalf("%s: broker %d holds %d, want %d", prop.Name, b.ID, replicas[b.ID], want)
				}
			}
		default:
			t.Fatalf("unknown property %q", prop.Name)
		}
	}
}

func equalAssignments(a, b Assignment) bool {
	if len(a) != len(b) {
		return false
	}
	for p, rs := range a {
		if !slices.Equal(rs, b[p]) {
			return false
		}
	}
	return true
}

// TestRackAlternatedCases builds each case's brokers in id order (not the
// JSON map's random order), then checks the list is the same for every
// rotation and for the reverse of that order: Kafka's list does not depend
// on the order of its input.
func TestRackAlternatedCases(t *testing.T) {
	for i, c := range loadVectors(t).RackAlternatedListCases {
		var brokers []Broker
		for _, k := range slices.SortedFunc(maps.Keys(c.BrokerRacks), func(a, b string) int {
			x, _ := strconv.Atoi(a)
			y, _ := strconv.Atoi(b)
			return x - y
		}) {
			id, err := strconv.Atoi(k)
			if err != nil {
				t.Fatalf("case %d: broker id %q: %v", i, k, err)
			}
			brokers = append(brokers, BR(id, c.BrokerRacks[k]))
		}
		orders := [][]Broker{}
		for r := range brokers {
			orders = append(orders, append(slices.Clone(brokers[r:]), brokers[:r]...))
		}
		reversed := slices.Clone(brokers)
		slices.Reverse(reversed)
		orders = append(orders, reversed)
		for j, order := range orders {
			if got := RackAlternated(order); !slices.Equal(got, c.Expected) {
				t.Errorf("case %d, order %d %v: %v, want %v", i, j, order, got, c.Expected)
			}
		}
	}
}

func TestParseReplicaAssignmentCases(t *testing.T) {
	for _, c := range loadVectors(t).ParseReplicaAssignmentCases {
		t.Run(c.Input, func(t *testing.T) {
			got, err := ParseReplicaAssignment(c.Input)
			if c.ErrorClass != "" {
				wantKafkaError(t, err, c.ErrorClass, c.ErrorMessage)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			want := c.Expected
			if want == nil {
				want = c.ExpectedStoredReplica
			}
			if !equalAssignments(got, toAssignment(t, want)) {
				t.Fatalf("got %v, want %v", got, want)
			}
			// Kafka does not check broker ids at creation: the parsed map is valid.
			if err := ValidateManual(got); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestManualValidationCases(t *testing.T) {
	for i, c := range loadVectors(t).ManualAssignmentValidationCases {
		t.Run(fmt.Sprint(i, c.Operation), func(t *testing.T) {
			var err error
			switch {
			case c.Operation == "" || strings.HasPrefix(c.Operation, "CreateTopics"):
				err = ValidateManual(toAssignment(t, c.Assignment))
			case c.Operation == "addPartitions" && c.ManualAssignment != nil:
				existing := toAssignment(t, c.ExistingAssignment)
				manual := toAssignment(t, c.ManualAssignment)
				// 2.5 passes the whole map; only the new partitions are checked.
				var newReplicas [][]int
				for p := len(existing); p < c.NumPartitions; p++ {
					newReplicas = append(newReplicas, manual[p])
				}
				var brokers []Broker
				for _, id := range c.Brokers {
					brokers = append(brokers, B(id))
				}
				_, err = AddPartitions(c.Topic, existing, c.NumPartitions, newReplicas, brokers)
			case c.Operation == "addPartitions":
				_, err = AddPartitions(c.Topic, toAssignment(t, c.ExistingAssignment), c.NumPartitions, nil, []Broker{B(0), B(1)})
			case strings.HasPrefix(c.Operation, "CreatePartitions"):
				_, err = AddPartitions("t", toAssignment(t, c.ExistingAssignment), c.IncreaseTo, c.NewAssignments, []Broker{B(0), B(1), B(2)})
			default:
				t.Fatalf("unknown operation %q", c.Operation)
			}
			if c.Valid {
				if err != nil {
					t.Fatalf("want valid, got %v", err)
				}
				return
			}
			var ke *Error
			if !errors.As(err, &ke) {
				t.Fatalf("got %v, want %s", err, c.ErrorClass)
			}
			if ke.Class != c.ErrorClass {
				t.Errorf("class %s, want %s", ke.Class, c.ErrorClass)
			}
			switch {
			case c.ErrorMessage != "" && ke.Message != c.ErrorMessage:
				t.Errorf("message %q, want %q", ke.Message, c.ErrorMessage)
			case c.ErrorMessagePrefix != "" && !strings.HasPrefix(ke.Message, c.ErrorMessagePrefix):
				t.Errorf("message %q, want prefix %q", ke.Message, c.ErrorMessagePrefix)
			case c.ErrorMessageContain != "" && !strings.Contains(ke.Message, c.ErrorMessageContain):
				t.Errorf("message %q, want it to contain %q", ke.Message, c.ErrorMessageContain)
			}
		})
	}
}
