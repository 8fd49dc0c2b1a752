package assign

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"unicode/utf16"
)

// The KRaft controller's placement. A KRaft cluster's controller places a
// new topic's (or new partitions') replicas with its StripedReplicaPlacer,
// not AdminUtils: the racks (brokers without one form one rack of their
// own) are taken round-robin, each partition starting one rack further
// than the one before, and within a rack the brokers are taken
// round-robin too, the unfenced ones before the fenced ones; a leader is
// never a fenced broker. Each rack's starting broker and the first rack
// are drawn at random when the placement starts, and once as many
// partitions were placed as there are unfenced brokers, the racks and the
// brokers in each are shuffled. The controller draws from a
// java.util.Random; Striped draws from a BitSource, so that a seeded
// JavaRandom gives the very placement a controller would make with that
// seed (the tests check it against Kafka's own placer) and a preview can
// be reproduced.
//
// Which brokers the controller hands the placer (ClusterControlManager's
// usableBrokers): every registered broker, fenced or not, except those in
// controlled shutdown and (Kafka 4.3+, KIP-1066) those all of whose log
// directories are cordoned.

// StripedBroker is a broker as the striped placer sees it.
type StripedBroker struct {
	ID      int
	Rack    string
	HasRack bool
	// Fenced brokers are placed only once the unfenced ones are used up,
	// and never lead.
	Fenced bool
}

// BitSource is what the placer draws from: java.util.Random's protected
// next(bits), the source of its nextInt(bound) and of
// Collections.shuffle's swaps.
type BitSource interface {
	Next(bits int) int32
}

// JavaRandom is java.util.Random: a 48-bit linear congruential generator
// seeded as new Random(seed) seeds it.
type JavaRandom struct{ state int64 }

const (
	javaMultiplier = 0x5DEECE66D
	javaAddend     = 0xB
	javaMask       = 1<<48 - 1
)

// NewJavaRandom returns java.util.Random seeded with seed.
func NewJavaRandom(seed int64) *JavaRandom {
	return &JavaRandom{state: (seed ^ javaMultiplier) & javaMask}
}

// Next is java.util.Random.next(bits).
func (r *JavaRandom) Next(bits int) int32 {
	r.state = (r.state*javaMultiplier + javaAddend) & javaMask
	return int32(r.state >> (48 - bits))
}

// javaNextInt is java.util.Random.nextInt(bound), bound > 0.
func javaNextInt(src BitSource, bound int) int {
	r := src.Next(31)
	m := int32(bound - 1)
	if int32(bound)&m == 0 {
		return int((int64(bound) * int64(r)) >> 31)
	}
	for u := r; ; u = src.Next(31) {
		r = u % int32(bound)
		if u-r+m >= 0 { // no int32 overflow: the draw is unbiased
			return int(r)
		}
	}
}

// javaShuffle is Collections.shuffle(list, rnd) on a random-access list:
// from the last position down, each element swapped with one drawn at or
// before it.
func javaShuffle[T any](src BitSource, list []T) {
	for i := len(list) - 1; i > 0; i-- {
		j := javaNextInt(src, i+1)
		list[i], list[j] = list[j], list[i]
	}
}

// stripedList is one of a rack's broker lists (its unfenced or its fenced
// brokers), taken round-robin from an offset that moves on by one every
// time a new round (epoch) starts.
type stripedList struct {
	brokers              []int
	index, offset, epoch int
}

// next returns the list's next broker in this epoch, -1 when every one of
// them was returned in it.
func (l *stripedList) next(epoch int) int {
	n := len(l.brokers)
	if n == 0 {
		return -1
	}
	if l.epoch != epoch {
		l.epoch, l.index, l.offset = epoch, 0, (l.offset+1)%n
	}
	if l.index >= n {
		return -1
	}
	b := l.brokers[(l.index+l.offset)%n]
	l.index++
	return b
}

// stripedRack is one rack's brokers.
type stripedRack struct{ unfenced, fenced stripedList }

// next returns the rack's next broker in this epoch, unfenced first.
func (r *stripedRack) next(epoch int) int {
	if b := r.unfenced.next(epoch); b >= 0 {
		return b
	}
	return r.fenced.next(epoch)
}

// rackKey is a rack's name as the controller keys it (Optional<String>:
// present or empty).
type rackKey struct {
	name    string
	present bool
}

// stripedPlacer is the controller's RackList: the racks in name order
// (the rack of brokers without one first), the round-robin state.
type stripedPlacer struct {
	src   BitSource
	opts  StripedOptions
	names []rackKey
	// order is the racks in the order they were first seen: with their
	// names it fixes the iteration order of the controller's HashMap of
	// them, in which their random draws are made.
	order           []rackKey
	racks           map[rackKey]*stripedRack
	total, unfenced int
	epoch, offset   int
}

func newStripedPlacer(brokers []StripedBroker, src BitSource, o StripedOptions) *stripedPlacer {
	p := &stripedPlacer{src: src, opts: o, racks: map[rackKey]*stripedRack{}}
	for _, b := range brokers {
		k := rackKey{b.Rack, b.HasRack}
		r := p.racks[k]
		if r == nil {
			r = &stripedRack{}
			p.racks[k] = r
			p.order = append(p.order, k)
		}
		if b.Fenced {
			r.fenced.brokers = append(r.fenced.brokers, b.ID)
		} else {
			r.unfenced.brokers = append(r.unfenced.brokers, b.ID)
			p.unfenced++
		}
		p.total++
	}
	// Each rack's lists are sorted and given a random offset, the racks
	// taken in the iteration order of the controller's HashMap of them.
	for _, k := range javaHashMapOrder(p.order, rackHash) {
		r := p.racks[k]
		for _, l := range []*stripedList{&r.fenced, &r.unfenced} {
			if len(l.brokers) > 0 {
				slices.Sort(l.brokers)
				l.offset = javaNextInt(src, len(l.brokers))
			}
		}
	}
	p.names = slices.Clone(p.order)
	slices.SortFunc(p.names, compareRackKeys)
	if len(p.names) > 0 {
		p.offset = javaNextInt(src, len(p.names))
	}
	return p
}

// compareRackKeys orders racks as Kafka's OptionalStringComparator does:
// the empty rack first, then by name (String.compareTo: UTF-16 units).
func compareRackKeys(a, b rackKey) int {
	switch {
	case a.present != b.present:
		if !a.present {
			return -1
		}
		return 1
	case !a.present:
		return 0
	}
	return slices.Compare(utf16.Encode([]rune(a.name)), utf16.Encode([]rune(b.name)))
}

// rackHash is Optional<String>.hashCode: the name's String.hashCode, 0
// for the empty rack.
func rackHash(k rackKey) int32 {
	if !k.present {
		return 0
	}
	var h int32
	for _, u := range utf16.Encode([]rune(k.name)) {
		h = 31*h + int32(u)
	}
	return h
}

// javaHashMapOrder returns keys (distinct, in insertion order) in the
// iteration order of a java.util.HashMap they were put into one by one:
// by bucket (the spread hash h ^ h>>>16 masked to the table's size, 16
// doubling whenever it is more than three quarters full), then by
// insertion within a bucket.
func javaHashMapOrder[T any](keys []T, hash func(T) int32) []T {
	capacity := 16
	for len(keys) > capacity*3/4 {
		capacity *= 2
	}
	type entry struct {
		bucket uint32
		k      T
	}
	es := make([]entry, len(keys))
	for i, k := range keys {
		h := uint32(hash(k))
		es[i] = entry{(h ^ h>>16) & uint32(capacity-1), k}
	}
	slices.SortStableFunc(es, func(a, b entry) int { return cmp.Compare(a.bucket, b.bucket) })
	out := make([]T, len(es))
	for i, e := range es {
		out[i] = e.k
	}
	return out
}

// StripedOptions are the placer's settings that are not placement.
type StripedOptions struct {
	// Cordoning gives the placer's messages of Kafka 4.3+, which name the
	// brokers whose log directories are all cordoned (KIP-1066) among
	// those it cannot use.
	Cordoning bool
}

// allFenced is the placer's refusal when no broker may lead.
func (o StripedOptions) allFenced() error {
	msg := "All brokers are currently fenced."
	if o.Cordoning {
		msg = "All brokers are currently fenced, or have all their log directories cordoned."
	}
	return &Error{Class: InvalidReplicationFactor, Message: msg}
}

// tooFew is the placer's refusal of more replicas than brokers.
func (o StripedOptions) tooFew(rf, total int) error {
	msg := fmt.Sprintf("The target replication factor of %d cannot be reached because only %d broker(s) are registered.", rf, total)
	if o.Cordoning {
		msg = strings.TrimSuffix(msg, ".") + " or some brokers have all their log directories cordoned."
	}
	return &Error{Class: InvalidReplicationFactor, Message: msg}
}

// place returns the next partition's replicas, leader first.
func (p *stripedPlacer) place(rf int) ([]int, error) {
	if err := p.check(rf); err != nil {
		return nil, err
	}
	// Once as many partitions were placed as there are unfenced brokers,
	// the racks and their brokers are shuffled so that the same
	// placements do not repeat (never with one unfenced broker: the epoch
	// would never move on).
	if p.epoch == p.unfenced && p.unfenced > 1 {
		javaShuffle(p.src, p.names)
		for _, k := range javaHashMapOrder(p.order, rackHash) {
			r := p.racks[k]
			javaShuffle(p.src, r.fenced.brokers)
			javaShuffle(p.src, r.unfenced.brokers)
		}
		p.epoch = 0
	}
	if p.offset == len(p.names) {
		p.offset = 0
	}
	out := make([]int, 0, rf)
	// The leader: the first unfenced broker from the current rack on.
	first := p.offset
	for {
		if b := p.racks[p.names[first]].unfenced.next(p.epoch); b >= 0 {
			out = append(out, b)
			break
		}
		if first++; first == len(p.names) {
			first = 0
		}
	}
	// The followers: one from each rack in turn, from the current rack on,
	// the leader's rack skipped the first time round.
	at := p.offset
	for len(out) < rf {
		b := -1
		for b < 0 {
			if at == first {
				first = -1
			} else {
				b = p.racks[p.names[at]].next(p.epoch)
			}
			if at++; at == len(p.names) {
				at = 0
			}
		}
		out = append(out, b)
	}
	p.epoch++
	p.offset++
	return out, nil
}

// check is the placer's validation of a replication factor, with Kafka's
// messages, in its order.
func (p *stripedPlacer) check(rf int) error {
	switch {
	case rf <= 0:
		return errorf(InvalidReplicationFactor, "Invalid replication factor %d: the replication factor must be positive.", rf)
	case rf > p.total:
		return p.opts.tooFew(rf, p.total)
	case p.unfenced == 0:
		return p.opts.allFenced()
	}
	return nil
}

// Striped places nPartitions partitions of rf replicas on brokers as the
// KRaft controller's StripedReplicaPlacer does, drawing from src, with
// partition ids from startPartition. Its errors are the placer's
// (InvalidReplicationFactorException), checked before anything is placed
// in the placer's order: a replication factor that is not positive, no
// unfenced broker, more replicas than brokers.
func Striped(brokers []StripedBroker, startPartition, nPartitions, rf int, src BitSource, o StripedOptions) (Assignment, error) {
	p := newStripedPlacer(brokers, src, o)
	switch {
	case rf <= 0:
		return nil, p.check(rf)
	case p.unfenced == 0:
		return nil, o.allFenced()
	}
	if err := p.check(rf); err != nil {
		return nil, err
	}
	a := make(Assignment, nPartitions)
	for i := range nPartitions {
		rs, err := p.place(rf)
		if err != nil {
			return nil, err
		}
		a[startPartition+i] = rs
	}
	return a, nil
}

// StripedResult is Striped with a java.util.Random seeded with seed, as a
// Result (RackAware when some broker has a rack).
func StripedResult(brokers []StripedBroker, startPartition, nPartitions, rf int, seed int64, o StripedOptions) (Result, error) {
	a, err := Striped(brokers, startPartition, nPartitions, rf, NewJavaRandom(seed), o)
	if err != nil {
		return Result{}, err
	}
	rackAware := slices.ContainsFunc(brokers, func(b StripedBroker) bool { return b.HasRack })
	return Result{Assignment: a, StartIndex: -1, ReplicaShift: -1, RackAware: rackAware, Striped: true, Seed: seed}, nil
}
