package zkwatch

import (
	"fmt"
	"reflect"
	"slices"
	"sort"
	"testing"

	"github.com/go-zookeeper/zk"
)

func st(czxid, version int64) *zk.Stat { return &zk.Stat{Czxid: czxid, Version: int32(version)} }

type cin struct {
	typ   EventType
	path  string
	data  string
	stat  *zk.Stat
	had   bool
	czxid int64
}

func (c cin) event() Event {
	ev := Event{Type: c.typ, Path: c.path, Stat: c.stat}
	if c.typ != Deleted {
		ev.Data = []byte(c.data)
	}
	return ev
}

// TestCoalescer checks the merge table of coalescer's doc comment.
func TestCoalescer(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   []cin
		want []string // "type path data version"
	}{
		{"created", []cin{{typ: Created, path: "/a", data: "1", stat: st(5, 0)}}, []string{"created /a 1 v0"}},
		{"created then changed", []cin{
			{typ: Created, path: "/a", data: "1", stat: st(5, 0)},
			{typ: Changed, path: "/a", data: "2", stat: st(5, 1)},
		}, []string{"created /a 2 v1"}},
		{"created then deleted", []cin{
			{typ: Created, path: "/a", data: "1", stat: st(5, 0)},
			{typ: Deleted, path: "/a", had: false},
		}, nil},
		{"changed twice", []cin{
			{typ: Changed, path: "/a", data: "2", stat: st(5, 1), had: true, czxid: 5},
			{typ: Changed, path: "/a", data: "3", stat: st(5, 2), had: true, czxid: 5},
		}, []string{"changed /a 3 v2"}},
		{"changed then deleted", []cin{
			{typ: Changed, path: "/a", data: "2", stat: st(5, 1), had: true, czxid: 5},
			{typ: Deleted, path: "/a", had: true, czxid: 5},
		}, []string{"deleted /a  -"}},
		{"deleted then re-created", []cin{
			{typ: Deleted, path: "/a", had: true, czxid: 5},
			{typ: Created, path: "/a", data: "new", stat: st(9, 0)},
		}, []string{"created /a new v0"}},
		{"deleted then created with same czxid is impossible; unknown czxid is a create", []cin{
			{typ: Deleted, path: "/n", had: true},
			{typ: Created, path: "/n"},
		}, []string{"created /n  -"}},
		{"independent paths", []cin{
			{typ: Created, path: "/a", data: "1", stat: st(5, 0)},
			{typ: Changed, path: "/b", data: "x", stat: st(3, 4), had: true, czxid: 3},
			{typ: Deleted, path: "/c", had: true, czxid: 2},
		}, []string{"changed /b x v4", "created /a 1 v0", "deleted /c  -"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var c coalescer
			for _, in := range tc.in {
				c.add(in.event(), in.had, in.czxid)
			}
			var got []string
			for _, ev := range c.cut() {
				v := "-"
				if ev.Stat != nil {
					v = fmt.Sprintf("v%d", ev.Stat.Version)
				}
				got = append(got, fmt.Sprintf("%s %s %s %s", ev.Type, ev.Path, ev.Data, v))
			}
			sort.Strings(got)
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got %q\nwant %q", got, tc.want)
			}
			if c.len() != 0 || c.cut() != nil {
				t.Fatal("cut did not start over")
			}
		})
	}
}

// TestCoalescerBounded: a stream of short-lived unique paths (sequential
// notifications) leaves nothing behind, and many changes of one path are one
// entry.
func TestCoalescerBounded(t *testing.T) {
	var c coalescer
	for i := range 10000 {
		p := fmt.Sprintf("/isr_change_%010d", i)
		c.add(Event{Type: Created, Path: p, Stat: st(int64(i), 0)}, false, 0)
		c.add(Event{Type: Deleted, Path: p}, false, 0)
		c.add(Event{Type: Changed, Path: "/hot", Stat: st(1, int64(i))}, true, 1)
	}
	if c.len() != 1 {
		t.Fatalf("pending %d paths, want 1", c.len())
	}
	evs := c.cut()
	if len(evs) != 1 || evs[0].Type != Changed || evs[0].Stat.Version != 9999 {
		t.Fatalf("got %+v", evs)
	}
}

// TestCoalescerRandom compares the coalescer with a model: applying the cut
// batch to the consumer's map gives the same map as applying every event.
func TestCoalescerRandom(t *testing.T) {
	type state struct {
		data  string
		czxid int64
	}
	for seed := range 200 {
		r := newRand(uint64(seed))
		consumer := map[string]state{}
		truth := map[string]state{}
		var c coalescer
		zxid := int64(1)
		for round := 0; round < 20; round++ {
			for range 30 {
				p := fmt.Sprintf("/n%d", r.IntN(8))
				old, had := truth[p]
				zxid++
				switch {
				case had && r.IntN(3) == 0:
					delete(truth, p)
					c.add(Event{Type: Deleted, Path: p}, had, old.czxid)
				case had:
					s := state{fmt.Sprint(zxid), old.czxid}
					truth[p] = s
					c.add(Event{Type: Changed, Path: p, Data: []byte(s.data), Stat: st(s.czxid, zxid)}, true, old.czxid)
				default:
					s := state{fmt.Sprint(zxid), zxid}
					truth[p] = s
					c.add(Event{Type: Created, Path: p, Data: []byte(s.data), Stat: st(s.czxid, 0)}, false, 0)
				}
			}
			seen := map[string]bool{}
			for _, ev := range c.cut() {
				if seen[ev.Path] {
					t.Fatalf("seed %d: two events for %s", seed, ev.Path)
				}
				seen[ev.Path] = true
				old, had := consumer[ev.Path]
				switch ev.Type {
				case Created:
					if had && old.czxid == ev.Stat.Czxid {
						t.Fatalf("seed %d: Created for %s the consumer has with the same czxid", seed, ev.Path)
					}
					consumer[ev.Path] = state{string(ev.Data), ev.Stat.Czxid}
				case Changed:
					if !had || old.czxid != ev.Stat.Czxid {
						t.Fatalf("seed %d: Changed for %s the consumer does not have as such", seed, ev.Path)
					}
					consumer[ev.Path] = state{string(ev.Data), ev.Stat.Czxid}
				case Deleted:
					if !had {
						t.Fatalf("seed %d: Deleted for unknown %s", seed, ev.Path)
					}
					delete(consumer, ev.Path)
				}
			}
			if !reflect.DeepEqual(consumer, truth) {
				t.Fatalf("seed %d round %d: consumer %v, truth %v", seed, round, consumer, truth)
			}
		}
	}
}

// TestCapStates: a batch keeps its last 16 states, and an expiry among
// those dropped, in the place of the oldest kept.
func TestCapStates(t *testing.T) {
	var many []State
	many = append(many, StateDisconnected, StateExpired)
	for range 20 {
		many = append(many, StateConnecting, StateDisconnected)
	}
	many = append(many, StateConnected)
	got := capStates(many)
	if len(got) != 16 || got[0] != StateExpired || got[15] != StateConnected || !slices.Equal(got[1:], many[len(many)-15:]) {
		t.Fatalf("capped %v", got)
	}
	plain := append([]State(nil), many[2:]...)
	if got := capStates(plain); !slices.Equal(got, plain[len(plain)-16:]) {
		t.Fatalf("capped without an expiry %v", got)
	}
	if short := many[:5]; !slices.Equal(capStates(short), short) {
		t.Fatal("a short list changed")
	}
}
