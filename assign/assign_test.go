package assign

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestProperties checks Kafka's guarantees over random inputs: every
// partition gets rf distinct brokers; with racks, rf ≤ racks gives rf
// distinct racks and rf ≥ racks covers every rack; a fixed start index is
// deterministic.
func TestProperties(t *testing.T) {
	seeds := 2000
	if testing.Short() {
		seeds = 300
	}
	for seed := range seeds {
		r := rand.New(rand.NewPCG(uint64(seed), 7))
		n := 1 + r.IntN(24)
		numRacks := r.IntN(6) // 0 = no racks
		perm := r.Perm(100)[:n]
		brokers := make([]Broker, n)
		for i, id := range perm {
			brokers[i] = B(id)
			if numRacks > 0 {
				brokers[i] = BR(id, fmt.Sprintf("r%d", r.IntN(numRacks)))
			}
		}
		racks := map[string]bool{}
		for _, b := range brokers {
			if b.HasRack {
				racks[b.Rack] = true
			}
		}
		rf := 1 + r.IntN(n)
		parts := 1 + r.IntN(60)
		o := Options{StartIndex: r.IntN(n), ReplicaShift: -1, StartPartition: r.IntN(30) - 5}
		res, err := Assign(brokers, parts, rf, o)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		again, _ := Assign(slices.Clone(brokers), parts, rf, o)
		if !equalAssignments(res.Assignment, again.Assignment) {
			t.Fatalf("seed %d: not deterministic for a fixed start index", seed)
		}
		if len(res.Assignment) != parts {
			t.Fatalf("seed %d: %d partitions, want %d", seed, len(res.Assignment), parts)
		}
		first := max(0, o.StartPartition)
		for p, rs := range res.Assignment {
			if p < first || p >= first+parts {
				t.Fatalf("seed %d: partition id %d outside [%d,%d)", seed, p, first, first+parts)
			}
			if len(rs) != rf || len(slices.Compact(slices.Sorted(slices.Values(rs)))) != rf {
				t.Fatalf("seed %d: partition %d has %v, want %d distinct brokers", seed, p, rs, rf)
			}
			if len(racks) == 0 {
				continue
			}
			spanned := ComputeStats(brokers, Assignment{p: rs}).RacksSpanned[p]
			if rf <= len(racks) && spanned != rf {
				t.Fatalf("seed %d: partition %d %v spans %d racks, want %d", seed, p, rs, spanned, rf)
			}
			if rf >= len(racks) && spanned != len(racks) {
				t.Fatalf("seed %d: partition %d %v spans %d of %d racks", seed, p, rs, spanned, len(racks))
			}
		}
	}
}

// TestRandomStartDrawsIndependently checks that a random plan draws the
// start index and the shift separately, and that the reported values
// reproduce it.
func TestRandomStartDrawsIndependently(t *testing.T) {
	brokers := []Broker{B(1), B(2), B(3), B(4), B(5)}
	differ := false
	for seed := range 50 {
		res, err := Assign(brokers, 12, 3, Random(rand.New(rand.NewPCG(uint64(seed), 1))))
		if err != nil {
			t.Fatal(err)
		}
		if res.StartIndex != res.ReplicaShift {
			differ = true
		}
		again, _ := Assign(brokers, 12, 3, Options{StartIndex: res.StartIndex, ReplicaShift: res.ReplicaShift, StartPartition: -1})
		if !equalAssignments(res.Assignment, again.Assignment) {
			t.Fatalf("seed %d: start %d shift %d do not reproduce the plan", seed, res.StartIndex, res.ReplicaShift)
		}
	}
	if !differ {
		t.Fatal("start index and shift were always equal: not independent draws")
	}
}

func TestValidationOrder(t *testing.T) {
	two := []Broker{B(0), B(1)}
	for _, tc := range []struct {
		name          string
		brokers       []Broker
		parts, rf     int
		class, wanted string
	}{
		{"partitions first", nil, 0, 0, InvalidPartitions, "Number of partitions must be larger than 0."},
		{"rf before brokers", nil, 3, -2, InvalidReplicationFactor, "Replication factor must be larger than 0."},
		{"no brokers", nil, 3, 1, InvalidReplicationFactor, "Replication factor: 1 larger than available brokers: 0."},
		{"rf too large", two, 3, 3, InvalidReplicationFactor, "Replication factor: 3 larger than available brokers: 2."},
		{"partial racks", []Broker{BR(0, "a"), B(1)}, 3, 2, AdminOperation, "Not all brokers have rack information for replica rack aware assignment."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Assign(tc.brokers, tc.parts, tc.rf, Fixed(0))
			wantKafkaError(t, err, tc.class, tc.wanted)
		})
	}
}

// TestUnawareKeepsInputOrder: the rack-unaware algorithm indexes the broker
// list as given (AdminUtils does not sort; AdminZkClient sorts before).
func TestUnawareKeepsInputOrder(t *testing.T) {
	res, err := Assign([]Broker{B(3), B(1), B(2)}, 3, 1, Fixed(0))
	if err != nil {
		t.Fatal(err)
	}
	want := Assignment{0: {3}, 1: {1}, 2: {2}}
	if !equalAssignments(res.Assignment, want) || !slices.Equal(res.Order, []int{3, 1, 2}) {
		t.Fatalf("got %v order %v", res.Assignment, res.Order)
	}
}

func TestRackNamesSortAsJavaStrings(t *testing.T) {
	got := RackAlternated([]Broker{BR(1, "r2"), BR(2, "r10"), BR(3, "r2"), BR(4, "r10")})
	if want := []int{2, 1, 4, 3}; !slices.Equal(got, want) {
		t.Fatalf("got %v, want %v (r10 sorts before r2)", got, want)
	}
	// U+10000 (a surrogate pair, D800 DC00) sorts before U+FF5E in Java's
	// UTF-16 order but after it in Go's UTF-8 byte order.
	got = RackAlternated([]Broker{BR(1, "\U00010000"), BR(2, "\uff5e")})
	if want := []int{1, 2}; !slices.Equal(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
}

func TestParseReplicaAssignmentEdges(t *testing.T) {
	for _, tc := range []struct{ in, want, err string }{
		{"1:2,3:4,", "1:2,3:4", ""},
		{" 1 : 2 , 3:4", "1:2,3:4", ""},
		{"1:2:,3:4", "1:2,3:4", ""},
		{"1:2,,3:4", "", `For input string: ""`},
		{"", "", `For input string: ""`},
		{"1:x", "", `For input string: "x"`},
		{"2147483648", "", `For input string: "2147483648"`},
		{"1:2:1:2:3", "", "Partition replica lists may not contain duplicate entries: 1,2"},
		// java.util.HashSet order: 17 and 1 share bucket 1 (insertion order), 2 is in bucket 2.
		{"17:1:17:1", "", "Partition replica lists may not contain duplicate entries: 17,1"},
		{"2:1:2:1", "", "Partition replica lists may not contain duplicate entries: 1,2"},
		{"1:2,3", "", "Partition 1 has different replication factor: [3]"},
		{"-1:-2,0:5", "-1:-2,0:5", ""},
	} {
		a, err := ParseReplicaAssignment(tc.in)
		if tc.err != "" {
			if err == nil || err.Error() != tc.err {
				t.Errorf("%q: error %v, want %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || a.String() != tc.want {
			t.Errorf("%q: %v %v, want %s", tc.in, a, err, tc.want)
		}
	}
}

func TestValidateManualQuirks(t *testing.T) {
	// Kafka's consecutive-id check sums the non-negative ids only.
	for _, a := range []Assignment{{-3: {1}, 1: {2}, 2: {3}, 3: {1}}, {0: {1}, 3: {2}, -5: {3}}} {
		if err := ValidateManual(a); err != nil {
			t.Errorf("%v: Kafka accepts this, got %v", a, err)
		}
	}
	if err := ValidateManual(Assignment{}); err == nil || err.Error() != MessageSameNumberOfReplicas {
		t.Errorf("empty assignment: %v", err)
	}
	err := ValidateManual(Assignment{0: {1, 1}, 1: {2, 3}})
	if err == nil || err.Error() != "Duplicate replica assignment found: Map(0 -> List(1, 1), 1 -> List(2, 3))" {
		t.Errorf("duplicate: %v", err)
	}
}

func TestStats(t *testing.T) {
	brokers := []Broker{BR(1, "a"), BR(2, "b"), BR(3, "a"), BR(4, "c")}
	a := Assignment{0: {1, 2}, 1: {2, 3}, 2: {3, 1}, 3: {1, 9}}
	st := ComputeStats(brokers, a)
	got, _ := json.Marshal(st)
	want := `{"brokers":[{"id":1,"rack":"a","replicas":3,"leaders":2,"known":true},{"id":2,"rack":"b","replicas":2,"leaders":1,"known":true},` +
		`{"id":3,"rack":"a","replicas":2,"leaders":1,"known":true},{"id":4,"rack":"c","replicas":0,"leaders":0,"known":true},{"id":9,"replicas":1,"leaders":0,"known":false}],` +
		`"racks":[{"rack":"","brokers":[9],"replicas":1,"leaders":0},{"rack":"a","brokers":[1,3],"replicas":5,"leaders":3},{"rack":"b","brokers":[2],"replicas":2,"leaders":1},{"rack":"c","brokers":[4],"replicas":0,"leaders":0}],` +
		`"racksSpanned":{"0":2,"1":2,"2":1,"3":1},"minRacksSpanned":1,"evenReplicas":false,"evenLeaders":false,"racksWithoutReplicas":["c"]}`
	if string(got) != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	even := ComputeStats([]Broker{B(0), B(1), B(2)}, mustAssign(t, []Broker{B(0), B(1), B(2)}, 6, 2))
	if !even.Even() || even.MinRacksSpanned != 0 {
		t.Fatalf("6x2 on 3 brokers should be even: %+v", even)
	}
}

func mustAssign(t testing.TB, brokers []Broker, parts, rf int) Assignment {
	t.Helper()
	res, err := Assign(brokers, parts, rf, Fixed(0))
	if err != nil {
		t.Fatal(err)
	}
	return res.Assignment
}

func TestAssignmentJSONAndString(t *testing.T) {
	a := Assignment{10: {1}, 2: {3, 4}, 0: {5}}
	b, _ := json.Marshal(a)
	if string(b) != `{"0":[5],"2":[3,4],"10":[1]}` {
		t.Fatalf("json %s", b)
	}
	if a.String() != "5,3:4,1" {
		t.Fatalf("string %s", a.String())
	}
}

// BenchmarkAssign: 100,000 partitions, RF 3, 1,000 brokers in 10 racks.
// Budget: under 100 ms per run.
func BenchmarkAssign(b *testing.B) {
	brokers := make([]Broker, 1000)
	for i := range brokers {
		brokers[i] = BR(i, fmt.Sprintf("rack-%d", i%10))
	}
	unaware := make([]Broker, len(brokers))
	for i, br := range brokers {
		unaware[i] = B(br.ID)
	}
	for _, bc := range []struct {
		name    string
		brokers []Broker
	}{{"rack-aware", brokers}, {"rack-unaware", unaware}} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Assign(bc.brokers, 100_000, 3, Fixed(7)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestAddPartitionsDuplicateMessage: Kafka's validateReplicaAssignment
// names the partition's whole replica list, not only the repeated broker.
func TestAddPartitionsDuplicateMessage(t *testing.T) {
	existing := Assignment{0: {1, 2}}
	_, err := AddPartitions("t", existing, 2, [][]int{{3, 1, 3}}, []Broker{B(1), B(2), B(3)})
	if want := "Duplicate brokers not allowed in replica assignment: 3, 1, 3 for partition id 1."; err == nil || err.Error() != want {
		t.Fatalf("%v, want %q", err, want)
	}
}
