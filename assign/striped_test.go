package assign

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"github.com/ktopo/ktopo/internal/testkit/testvectors"
)

type stripedVectors struct {
	Cases []struct {
		Seed              int64          `json:"seed"`
		StartPartition    int            `json:"startPartition"`
		Partitions        int            `json:"partitions"`
		ReplicationFactor int            `json:"replicationFactor"`
		Brokers           []vectorBroker `json:"brokers"`
		Assignment        [][]int        `json:"assignment"`
		ErrorClass        string         `json:"errorClass"`
		ErrorMessage44    string         `json:"errorMessage44"`
		ErrorMessage39    string         `json:"errorMessage39"`
	} `json:"cases"`
	KafkaTestCases []struct {
		Test              string         `json:"test"`
		Brokers           []vectorBroker `json:"brokers"`
		ReplicationFactor int            `json:"replicationFactor"`
		Places            [][]int        `json:"places"`
	} `json:"kafkaTestCases"`
}

type vectorBroker struct {
	ID     int     `json:"id"`
	Rack   *string `json:"rack"`
	Fenced bool    `json:"fenced"`
}

func stripedBrokers(vs []vectorBroker) []StripedBroker {
	out := make([]StripedBroker, len(vs))
	for i, v := range vs {
		out[i] = StripedBroker{ID: v.ID, Fenced: v.Fenced}
		if v.Rack != nil {
			out[i].Rack, out[i].HasRack = *v.Rack, true
		}
	}
	return out
}

func loadStripedVectors(t *testing.T) stripedVectors {
	t.Helper()
	var v stripedVectors
	if err := json.Unmarshal(testvectors.StripedPlacerCases, &v); err != nil {
		t.Fatal(err)
	}
	if len(v.Cases) == 0 || len(v.KafkaTestCases) == 0 {
		t.Fatal("no striped placer vectors")
	}
	return v
}

// TestStripedMatchesKafka: with java.util.Random seeded alike, Striped
// places exactly as the StripedReplicaPlacer of Kafka 4.4.0's and 3.9.2's
// controllers did (the vectors were made by running their jars), and
// refuses with their messages.
func TestStripedMatchesKafka(t *testing.T) {
	v := loadStripedVectors(t)
	for i, c := range v.Cases {
		t.Run(fmt.Sprintf("%d-seed%d", i, c.Seed), func(t *testing.T) {
			for _, cordoning := range []bool{true, false} {
				a, err := Striped(stripedBrokers(c.Brokers), c.StartPartition, c.Partitions, c.ReplicationFactor,
					NewJavaRandom(c.Seed), StripedOptions{Cordoning: cordoning})
				if c.ErrorClass != "" {
					want := c.ErrorMessage39
					if cordoning {
						want = c.ErrorMessage44
					}
					wantKafkaError(t, err, c.ErrorClass, want)
					continue
				}
				if err != nil {
					t.Fatal(err)
				}
				if len(a) != len(c.Assignment) {
					t.Fatalf("%d partitions, want %d", len(a), len(c.Assignment))
				}
				for j, want := range c.Assignment {
					if got := a[c.StartPartition+j]; !slices.Equal(got, want) {
						t.Errorf("partition %d: %v, want %v", c.StartPartition+j, got, want)
					}
				}
			}
		})
	}
}

// kafkaMockRandom is the MockRandom of Kafka's tests: a linear
// congruential generator that starts at 17.
type kafkaMockRandom struct{ state int64 }

func (r *kafkaMockRandom) Next(bits int) int32 {
	r.state = r.state*2862933555777941757 + 3037000493
	return int32(uint64(r.state) >> (64 - bits))
}

// TestStripedKafkaTests: the placements Kafka's own StripedReplicaPlacerTest
// expects with its MockRandom, one placement after the other on one
// placer.
func TestStripedKafkaTests(t *testing.T) {
	v := loadStripedVectors(t)
	for _, c := range v.KafkaTestCases {
		t.Run(c.Test, func(t *testing.T) {
			p := newStripedPlacer(stripedBrokers(c.Brokers), &kafkaMockRandom{state: 17}, StripedOptions{})
			for i, want := range c.Places {
				got, err := p.place(c.ReplicationFactor)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(got, want) {
					t.Errorf("placement %d: %v, want %v", i, got, want)
				}
			}
		})
	}
}

// TestStripedNeverLeadsFenced: whatever the seed, no partition is led by a
// fenced broker, no partition has a broker twice, every rack gets a
// replica before any gets a second, and fenced brokers get replicas only
// when the unfenced ones are too few.
func TestStripedNeverLeadsFenced(t *testing.T) {
	brokers := []StripedBroker{
		{ID: 1, Rack: "a", HasRack: true}, {ID: 2, Rack: "a", HasRack: true, Fenced: true},
		{ID: 3, Rack: "b", HasRack: true}, {ID: 4, Rack: "b", HasRack: true},
		{ID: 5, Rack: "c", HasRack: true, Fenced: true}, {ID: 6, Rack: "c", HasRack: true},
	}
	fenced := map[int]bool{2: true, 5: true}
	for seed := range int64(200) {
		a, err := Striped(brokers, 0, 13, 3, NewJavaRandom(seed), StripedOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for p, rs := range a {
			if fenced[rs[0]] {
				t.Fatalf("seed %d: partition %d led by fenced broker %d: %v", seed, p, rs[0], rs)
			}
			seen := map[int]bool{}
			for _, r := range rs {
				if seen[r] {
					t.Fatalf("seed %d: partition %d has broker %d twice: %v", seed, p, r, rs)
				}
				seen[r] = true
			}
		}
	}
	// Three racks with an unfenced broker each: three replicas never need
	// a fenced one.
	for seed := range int64(200) {
		a, _ := Striped(brokers, 0, 13, 3, NewJavaRandom(seed), StripedOptions{})
		for p, rs := range a {
			if slices.ContainsFunc(rs, func(id int) bool { return fenced[id] }) {
				t.Fatalf("seed %d: partition %d placed on a fenced broker: %v", seed, p, rs)
			}
		}
	}
}

// TestJavaRandom: java.util.Random's first draws for a seed (new
// Random(42).nextInt(10) … as any JVM gives them).
func TestJavaRandom(t *testing.T) {
	r := NewJavaRandom(42)
	var got []int
	for range 8 {
		got = append(got, javaNextInt(r, 10))
	}
	if want := []int{0, 3, 8, 4, 0, 5, 5, 8}; !slices.Equal(got, want) {
		t.Errorf("new Random(42).nextInt(10) ×8 = %v, want %v", got, want)
	}
	if got, want := javaNextInt(NewJavaRandom(0), 1<<4), 11; got != want { // a power of two takes the high bits
		t.Errorf("new Random(0).nextInt(16) = %d, want %d", got, want)
	}
	r = NewJavaRandom(-5)
	if a, b := javaNextInt(r, 7), javaNextInt(r, 1000000007); a != 5 || b != 780466721 {
		t.Errorf("new Random(-5).nextInt(7), nextInt(1000000007) = %d, %d, want 5, 780466721", a, b)
	}
}
