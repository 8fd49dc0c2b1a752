package assign

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"
)

// referenceAssign is AdminUtils.assignReplicasToBrokers written a second
// time, straight from spec §3 (docs/spec/kafka-zk.md) with none of Assign's
// speed-ups: broker ids and rack names instead of positions, sets as maps,
// the rack-alternated list built by repeated scans. It only serves to check
// Assign; inputs are valid (rf ≤ brokers, racks on all or none).
func referenceAssign(brokers []Broker, nPartitions, rf, start, shift, startPartition int) Assignment {
	out := Assignment{}
	rackAware := len(brokers) > 0 && brokers[0].HasRack
	var list []int
	rack := map[int]string{}
	numRacks := 0
	if !rackAware {
		for _, b := range brokers {
			list = append(list, b.ID)
		}
	} else {
		byRack := map[string][]int{}
		for _, b := range brokers {
			rack[b.ID] = b.Rack
			byRack[b.Rack] = append(byRack[b.Rack], b.ID)
		}
		var names []string
		for name, ids := range byRack {
			names = append(names, name)
			sort.Ints(ids)
		}
		sort.Strings(names) // the tests' rack names are ASCII: Java's order
		numRacks = len(names)
		taken := map[string]int{}
		for len(list) < len(brokers) {
			for _, name := range names {
				if ids := byRack[name]; taken[name] < len(ids) {
					list = append(list, ids[taken[name]])
					taken[name]++
				}
			}
		}
	}
	n := len(list)
	index := func(first, shift, j int) int { return (first + 1 + (shift+j)%(n-1)) % n }
	p := startPartition
	if p < 0 {
		p = 0
	}
	for i := 0; i < nPartitions; i++ {
		if p > 0 && p%n == 0 {
			shift++
		}
		first := (p + start) % n
		replicas := []int{list[first]}
		if !rackAware {
			for j := 0; j < rf-1; j++ {
				replicas = append(replicas, list[index(first, shift, j)])
			}
		} else {
			racksUsed := map[string]bool{rack[list[first]]: true}
			brokersUsed := map[int]bool{list[first]: true}
			k := 0
			for len(replicas) < rf {
				b := list[index(first, shift*numRacks, k)]
				k++
				if (!racksUsed[rack[b]] || len(racksUsed) == numRacks) && (!brokersUsed[b] || len(brokersUsed) == n) {
					replicas = append(replicas, b)
					racksUsed[rack[b]] = true
					brokersUsed[b] = true
				}
			}
		}
		out[p] = replicas
		p++
	}
	return out
}

// TestMatchesReference compares Assign with referenceAssign on random
// clusters, start indexes, shifts and start partitions: uneven racks, rf
// above and below the number of racks, shifts past a full round. Resetting
// the rack-aware candidate counter per replica, say, changes about a quarter
// of these plans.
func TestMatchesReference(t *testing.T) {
	cases := 3000
	if testing.Short() {
		cases = 600
	}
	r := rand.New(rand.NewPCG(16, 3))
	differ := 0
	for c := range cases {
		n := 1 + r.IntN(12)
		numRacks := r.IntN(5) // 0: no racks
		brokers := make([]Broker, n)
		for i, id := range r.Perm(40)[:n] {
			brokers[i] = B(id)
			if numRacks > 0 {
				brokers[i] = BR(id, fmt.Sprintf("rack%d", r.IntN(numRacks)))
			}
		}
		rf := 1 + r.IntN(n)
		parts := 1 + r.IntN(3*n)
		start, shift := r.IntN(n), r.IntN(n)
		startPartition := -1
		if r.IntN(3) == 0 {
			startPartition = r.IntN(4 * n)
		}
		o := Options{StartIndex: start, ReplicaShift: shift, StartPartition: startPartition}
		got, err := Assign(brokers, parts, rf, o)
		if err != nil {
			t.Fatalf("case %d: %v", c, err)
		}
		want := referenceAssign(brokers, parts, rf, start, shift, startPartition)
		if len(got.Assignment) != len(want) {
			t.Fatalf("case %d: %d partitions, want %d", c, len(got.Assignment), len(want))
		}
		for p, w := range want {
			if !slices.Equal(got.Assignment[p], w) {
				differ++
				if differ <= 5 {
					t.Errorf("case %d (brokers %v, %d partitions, rf %d, start %d, shift %d, from %d): partition %d = %v, want %v",
						c, brokers, parts, rf, start, shift, startPartition, p, got.Assignment[p], w)
				}
				break
			}
		}
	}
	if differ > 0 {
		t.Errorf("%d of %d plans differ from the reference", differ, cases)
	}
}

// TestRackAwareCounterRunsAcrossReplicas is one plan worked by hand from
// spec §3.4 in which the candidate counter k must carry over from one
// replica to the next. The rack-alternated list is [6 12 0 13 36]; for
// partition 1 the leader is 36 (rack1), k=0 takes 6 (rack0), k=1 skips 12
// (rack1 taken, rack3 not yet), k=2 takes 0 (rack3), and k=3 takes 13 now
// that every rack is used. Restarting at k=0 would take 12 instead.
func TestRackAwareCounterRunsAcrossReplicas(t *testing.T) {
	brokers := []Broker{BR(6, "rack0"), BR(0, "rack3"), BR(13, "rack1"), BR(12, "rack1"), BR(36, "rack1")}
	res, err := Assign(brokers, 4, 4, Options{StartIndex: 3, ReplicaShift: 0, StartPartition: -1})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := res.Order, []int{6, 12, 0, 13, 36}; !slices.Equal(got, want) {
		t.Fatalf("rack-alternated list %v, want %v", got, want)
	}
	if got, want := res.Assignment[1], []int{36, 6, 0, 13}; !slices.Equal(got, want) {
		t.Errorf("partition 1: %v, want %v", got, want)
	}
}
