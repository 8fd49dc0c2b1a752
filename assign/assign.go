// Package assign places topic replicas on brokers exactly as Kafka's
// AdminUtils.assignReplicasToBrokers does (ZooKeeper-mode Kafka 2.5 to 3.9),
// parses and checks manual assignments as kafka-topics and AdminZkClient do,
// and summarises an assignment for a preview.
//
// The package is pure: no I/O, no clock. Randomness comes from Options.Rand.
package assign

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf16"
)

// Broker is one broker as the assignment sees it: its id and, if it has one,
// its rack (Kafka's Option[String]: HasRack false is None).
type Broker struct {
	ID      int
	Rack    string
	HasRack bool
}

// B returns a broker without a rack.
func B(id int) Broker { return Broker{ID: id} }

// BR returns a broker in a rack.
func BR(id int, rack string) Broker { return Broker{ID: id, Rack: rack, HasRack: true} }

// Assignment maps a partition id to its ordered replica list; the first
// replica is the preferred leader.
type Assignment map[int][]int

// Partitions returns the partition ids in ascending order.
func (a Assignment) Partitions() []int {
	ps := make([]int, len(a))
	// The usual ids 0..n-1 need neither iteration nor sorting.
	for i := range ps {
		if _, ok := a[i]; !ok {
			ps = ps[:0]
			for p := range a {
				ps = append(ps, p)
			}
			sort.Ints(ps)
			return ps
		}
		ps[i] = i
	}
	return ps
}

// MarshalJSON writes the map with partition ids as strings in numeric order,
// the order Kafka's tools and ktopo print.
func (a Assignment) MarshalJSON() ([]byte, error) {
	var b strings.Builder
	b.WriteByte('{')
	for i, p := range a.Partitions() {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`"` + strconv.Itoa(p) + `":[`)
		for j, r := range a[p] {
			if j > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.Itoa(r))
		}
		b.WriteByte(']')
	}
	b.WriteByte('}')
	return []byte(b.String()), nil
}

// String renders the assignment as kafka-topics' --replica-assignment syntax
// ("0:1,1:2") when partition ids are 0..n-1.
func (a Assignment) String() string {
	parts := make([]string, 0, len(a))
	for _, p := range a.Partitions() {
		ids := make([]string, len(a[p]))
		for i, r := range a[p] {
			ids[i] = strconv.Itoa(r)
		}
		parts = append(parts, strings.Join(ids, ":"))
	}
	return strings.Join(parts, ",")
}

// Options are AdminUtils' optional arguments.
type Options struct {
	// StartIndex is Kafka's fixedStartIndex: when ≥ 0 it fixes both the start
	// index and the initial replica shift; when < 0 both are drawn at random.
	StartIndex int
	// ReplicaShift, when ≥ 0 together with StartIndex ≥ 0, fixes the initial
	// shift independently of the start index. Kafka has no such argument; it
	// exists so that a random plan (whose two draws differ) can be reproduced
	// exactly. Values < 0 keep Kafka's behaviour.
	ReplicaShift int
	// StartPartition is Kafka's startPartitionId: partition ids start at
	// max(0, StartPartition).
	StartPartition int
	// Rand draws the random start index and shift (two independent draws, as
	// Kafka does). Nil uses a randomly seeded source.
	Rand *rand.Rand
}

// Fixed returns options with a fixed start index (Kafka's fixedStartIndex)
// and partition ids from 0.
func Fixed(start int) Options {
	return Options{StartIndex: start, ReplicaShift: -1, StartPartition: -1}
}

// Random returns options with Kafka's random start index and shift.
func Random(r *rand.Rand) Options {
	return Options{StartIndex: -1, ReplicaShift: -1, StartPartition: -1, Rand: r}
}

// Result is an assignment together with the choices that produced it.
type Result struct {
	Assignment Assignment
	// StartIndex and ReplicaShift are the values used (drawn or fixed).
	StartIndex   int
	ReplicaShift int
	// RackAware reports whether the rack-aware algorithm ran.
	RackAware bool
	// Order is the broker list the algorithm indexed: the input order for the
	// rack-unaware algorithm, the rack-alternated list for the rack-aware one.
	Order []int
	// Striped: the KRaft controller's placer made it (Striped), drawing
	// from java.util.Random seeded with Seed; StartIndex and ReplicaShift
	// are then -1.
	Striped bool
	Seed    int64
}

// Kafka's error class names, as carried by Error.Class.
const (
	InvalidPartitions                 = "InvalidPartitionsException"
	InvalidReplicationFactor          = "InvalidReplicationFactorException"
	AdminOperation                    = "AdminOperationException"
	InvalidReplicaAssignment          = "InvalidReplicaAssignmentException"
	AdminCommandFailed                = "AdminCommandFailedException"
	NumberFormat                      = "NumberFormatException"
	MessageNotAllBrokersHaveRackInfo  = "Not all brokers have rack information for replica rack aware assignment."
	MessagePartitionsMustBePositive   = "Number of partitions must be larger than 0."
	MessageReplicationMustBePositive  = "Replication factor must be larger than 0."
	MessageSameNumberOfReplicas       = "All partitions should have the same number of replicas"
	MessagePartitionsNotConsecutive   = "partitions should be a consecutive 0-based integer sequence"
	messageDuplicateReplicaAssignment = "Duplicate replica assignment found: "
)

// Error is a Kafka exception: its class name and its exact message.
type Error struct {
	Class   string
	Message string
}

func (e *Error) Error() string { return e.Message }

func errorf(class, format string, args ...any) *Error {
	return &Error{Class: class, Message: fmt.Sprintf(format, args...)}
}

// Assign places nPartitions partitions of rf replicas on brokers, exactly as
// AdminUtils.assignReplicasToBrokers: brokers are used in the order given by
// the rack-unaware algorithm; the rack-aware one runs when every broker has a
// rack. Validation order and messages are Kafka's.
func Assign(brokers []Broker, nPartitions, rf int, o Options) (Result, error) {
	return NewPlacement(brokers).Assign(nPartitions, rf, o)
}

// Placement is a broker list ready for Assign, for placing many topics on
// the same brokers: the rack-alternated list and the racks are worked out
// once.
type Placement struct {
	brokers  []Broker
	withRack int
	order    []int // RackAlternated, when every broker has a rack
	rackAt   []int // rack number of each position of order
	numRacks int
}

// NewPlacement prepares brokers for Placement.Assign.
func NewPlacement(brokers []Broker) *Placement {
	p := &Placement{brokers: brokers}
	for _, b := range brokers {
		if b.HasRack {
			p.withRack++
		}
	}
	if p.withRack == len(brokers) && len(brokers) > 0 {
		p.order = RackAlternated(brokers)
		p.rackAt, p.numRacks = rackPositions(brokers, p.order)
	}
	return p
}

// Assign is Assign on the prepared brokers.
func (pl *Placement) Assign(nPartitions, rf int, o Options) (Result, error) {
	brokers := pl.brokers
	if nPartitions <= 0 {
		return Result{}, &Error{InvalidPartitions, MessagePartitionsMustBePositive}
	}
	if rf <= 0 {
		return Result{}, &Error{InvalidReplicationFactor, MessageReplicationMustBePositive}
	}
	if rf > len(brokers) {
		return Result{}, errorf(InvalidReplicationFactor, "Replication factor: %d larger than available brokers: %d.", rf, len(brokers))
	}
	withRack := pl.withRack
	n := len(brokers)
	start, shift := o.StartIndex, o.StartIndex
	if o.StartIndex >= 0 && o.ReplicaShift >= 0 {
		shift = o.ReplicaShift
	}
	if o.StartIndex < 0 {
		r := o.Rand
		if r == nil {
			r = rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64()))
		}
		// Two independent draws, start first, as Kafka's shared Random does.
		start, shift = r.IntN(n), r.IntN(n)
	}
	res := Result{StartIndex: start, ReplicaShift: shift}
	switch {
	case withRack == 0:
		res.Order = make([]int, n)
		for i, b := range brokers {
			res.Order[i] = b.ID
		}
		res.Assignment = unaware(res.Order, nPartitions, rf, start, shift, o.StartPartition)
	case withRack < n:
		return Result{}, &Error{AdminOperation, MessageNotAllBrokersHaveRackInfo}
	default:
		res.RackAware = true
		res.Order = slices.Clone(pl.order)
		res.Assignment = aware(pl.order, pl.rackAt, pl.numRacks, nPartitions, rf, start, shift, o.StartPartition)
	}
	return res, nil
}

// rackPositions numbers the racks and gives each position of the
// rack-alternated list its rack number, so that the placement loop does
// no map lookups.
func rackPositions(brokers []Broker, list []int) (rackAt []int, numRacks int) {
	rackNum := map[string]int{}
	for _, b := range brokers {
		if _, ok := rackNum[b.Rack]; !ok {
			rackNum[b.Rack] = len(rackNum)
		}
	}
	rackOfID := make(map[int]int, len(brokers))
	for _, b := range brokers {
		rackOfID[b.ID] = rackNum[b.Rack]
	}
	rackAt = make([]int, len(list))
	for i, id := range list {
		rackAt[i] = rackOfID[id]
	}
	return rackAt, len(rackNum)
}

// replicaIndex is AdminUtils.replicaIndex: for a fixed first, n−1
// consecutive j visit every index except first exactly once.
func replicaIndex(first, shift, j, n int) int {
	return (first + 1 + (shift+j)%(n-1)) % n
}

func unaware(ids []int, nPartitions, rf, start, shift, startPartition int) Assignment {
	n := len(ids)
	out := make(Assignment, nPartitions)
	backing := make([]int, 0, nPartitions*rf) // one allocation for all replica lists
	p := max(0, startPartition)
	for range nPartitions {
		// The shift moves on when the absolute partition id crosses a
		// multiple of n, so startPartition changes the result.
		if p > 0 && p%n == 0 {
			shift++
		}
		first := (p + start) % n
		from := len(backing)
		backing = append(backing, ids[first])
		for j := 0; j < rf-1; j++ {
			backing = append(backing, ids[replicaIndex(first, shift, j, n)])
		}
		out[p] = backing[from:len(backing):len(backing)]
		p++
	}
	return out
}

func aware(list, rackAt []int, numRacks, nPartitions, rf, start, shift, startPartition int) Assignment {
	n := len(list)
	racksUsed := make([]bool, numRacks)
	posUsed := make([]bool, n)
	out := make(Assignment, nPartitions)
	backing := make([]int, 0, nPartitions*rf) // one allocation for all replica lists
	used := make([]int, 0, rf)                // positions to reset after each partition
	p := max(0, startPartition)
	for range nPartitions {
		if p > 0 && p%n == 0 {
			shift++
		}
		first := (p + start) % n
		from := len(backing)
		backing = append(backing, list[first])
		racksUsed[rackAt[first]], posUsed[first] = true, true
		nRacks, nBrokers := 1, 1
		used = append(used[:0], first)
		// k keeps counting across the replicas of one partition, and skipped
		// candidates consume it: Kafka's loop does not reset it per replica.
		k := 0
		for range rf - 1 {
			for {
				pos := replicaIndex(first, shift*numRacks, k, n)
				r := rackAt[pos]
				k++
				if (!racksUsed[r] || nRacks == numRacks) && (!posUsed[pos] || nBrokers == n) {
					backing = append(backing, list[pos])
					if !racksUsed[r] {
						racksUsed[r] = true
						nRacks++
					}
					if !posUsed[pos] {
						posUsed[pos] = true
						nBrokers++
					}
					used = append(used, pos)
					break
				}
			}
		}
		for _, pos := range used {
			racksUsed[rackAt[pos]], posUsed[pos] = false, false
		}
		out[p] = backing[from:len(backing):len(backing)]
		p++
	}
	return out
}

// RackAlternated is AdminUtils.getRackAlternatedBrokerList: racks sorted by
// name (byte order, so "r10" < "r2"), ids ascending within a rack, then one
// broker from each rack in turn until all are taken.
func RackAlternated(brokers []Broker) []int {
	byRack := map[string][]int{}
	for _, b := range brokers {
		byRack[b.Rack] = append(byRack[b.Rack], b.ID)
	}
	names := make([]string, 0, len(byRack))
	for r, ids := range byRack {
		names = append(names, r)
		slices.Sort(ids)
	}
	// Kafka sorts java.lang.String values: UTF-16 code-unit order.
	slices.SortFunc(names, compareUTF16)
	out := make([]int, 0, len(brokers))
	for i := 0; len(out) < len(brokers); i++ {
		for _, r := range names {
			if ids := byRack[r]; i < len(ids) {
				out = append(out, ids[i])
			}
		}
	}
	return out
}

// compareUTF16 orders strings as Java's String.compareTo does (by UTF-16 code
// units), which differs from Go's byte order only beyond the BMP.
func compareUTF16(a, b string) int {
	if a == b {
		return 0
	}
	return slices.Compare(utf16.Encode([]rune(a)), utf16.Encode([]rune(b)))
}
