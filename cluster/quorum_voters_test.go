package cluster

import (
	"strings"
	"testing"
	"time"
)

// voterReport is a dynamic quorum read at now: voters 3000-3002 (3000
// leads), observer controller 3003 and broker 1; down are voters the
// leader last heard from a minute ago.
func voterReport(down ...int) QuorumReport {
	now := time.Now()
	r := QuorumReport{At: now, Brokers: []KRaftBroker{{ID: 1, Host: "b1", Port: 9092}}}
	r.Quorum.LeaderID = 3000
	for i, id := range []int{3000, 3001, 3002} {
		m := QuorumMember{ID: id, DirectoryID: UUID{0: byte(i + 1)}, LastFetch: now,
			Endpoints: []string{"CONTROLLER://c" + string(rune('0'+i)) + ":9093"}}
		for _, d := range down {
			if d == id {
				m.LastFetch = now.Add(-time.Minute)
			}
		}
		r.Quorum.Voters = append(r.Quorum.Voters, m)
	}
	r.Quorum.Observers = []QuorumMember{{ID: 1, DirectoryID: UUID{0: 9}, LastFetch: now}, {ID: 3003, DirectoryID: UUID{0: 4}, LastFetch: now}}
	return r
}

var registered = []ControllerNode{{3000, "c0", 9093}, {3001, "c1", 9093}, {3002, "c2", 9093}, {3003, "c3", 9093}}

func TestPlanAddVoter(t *testing.T) {
	r := voterReport()
	ch, why := r.PlanAddVoter(3003, registered, nil)
	if why != "" || ch.DirectoryID != (UUID{0: 4}) || len(ch.Listeners) != 1 || ch.Listeners[0].String() != "CONTROLLER://c3:9093" {
		t.Errorf("add 3003: %+v %q", ch, why)
	}
	if ch, why := r.PlanAddVoter(3003, nil, []RaftListener{{"CONTROLLER", "h", 1}}); why != "" || ch.Listeners[0].String() != "CONTROLLER://h:1" {
		t.Errorf("add 3003 by hand: %+v %q", ch, why)
	}
	for _, tc := range []struct {
		id          int
		controllers []ControllerNode
		listeners   []RaftListener
		want        string
	}{
		{3001, registered, nil, "controller 3001 is a voter of the metadata quorum already (voters 3000, 3001, 3002)"},
		{1, registered, nil, "node 1 is a broker (registered as one, no controller registration)"},
		{7, registered, nil, "node 7 is not an observer of the metadata quorum"},
		{3003, nil, nil, "controller 3003's endpoint is unknown: give --bootstrap-controller"},
		{3003, registered[:3], nil, "node 3003 has no controller registration (the controllers list 3000, 3001, 3002)"},
		{3003, nil, []RaftListener{{"OTHER", "h", 1}}, "the endpoints given have none on the voters' listener CONTROLLER"},
		{3003, registered[:3], []RaftListener{{"CONTROLLER", "h", 1}}, "node 3003 has no controller registration"},
	} {
		if _, why := r.PlanAddVoter(tc.id, tc.controllers, tc.listeners); !strings.Contains(why, tc.want) {
			t.Errorf("add %d: %q, want %q", tc.id, why, tc.want)
		}
	}
	r.Quorum.Observers[1].DirectoryID = ZeroUUID
	if _, why := r.PlanAddVoter(3003, registered, nil); !strings.Contains(why, "observer 3003 reports no directory id") {
		t.Errorf("add without a directory id: %q", why)
	}
}

func TestPlanRemoveVoter(t *testing.T) {
	r := voterReport()
	if ch, why := r.PlanRemoveVoter(3001); why != "" || ch.DirectoryID != (UUID{0: 2}) || ch.Add {
		t.Errorf("remove 3001: %+v %q", ch, why)
	}
	if _, why := r.PlanRemoveVoter(3003); !strings.Contains(why, "node 3003 is not a voter of the metadata quorum (voters 3000, 3001, 3002)") {
		t.Errorf("remove an observer: %q", why)
	}
	r.Quorum.Voters = r.Quorum.Voters[:1]
	if _, why := r.PlanRemoveVoter(3000); !strings.Contains(why, "the quorum's only voter") {
		t.Errorf("remove the last voter: %q", why)
	}
}

// TestVoterChangeEffect: the majority before and after, the voters down
// counted, and which changes lower what may fail.
func TestVoterChangeEffect(t *testing.T) {
	for _, tc := range []struct {
		down   []int
		ch     VoterChange
		text   string
		lowers bool
	}{
		{nil, VoterChange{Add: true, ID: 3003}, "3 voters: a majority is 2, 1 may fail → 4 voters: a majority is 3, 1 may fail", false},
		{nil, VoterChange{ID: 3001}, "3 voters: a majority is 2, 1 may fail → 2 voters: a majority is 2, none may fail", true},
		{[]int{3002}, VoterChange{ID: 3002}, "3 voters: a majority is 2, 1 down, so none more may fail → 2 voters: a majority is 2, none may fail", false},
		{[]int{3002}, VoterChange{ID: 3001}, "3 voters: a majority is 2, 1 down, so none more may fail → 2 voters: a majority is 2, 1 down: no majority", true},
		{[]int{3002}, VoterChange{Add: true, ID: 3003}, "3 voters: a majority is 2, 1 down, so none more may fail → 4 voters: a majority is 3, 1 down, so none more may fail", false},
		{[]int{3001, 3002}, VoterChange{ID: 3001}, "3 voters: a majority is 2, 2 down: no majority → 2 voters: a majority is 2, 1 down: no majority", false},
	} {
		r := voterReport(tc.down...)
		e := r.VoterChangeEffect(tc.ch)
		if e.Text != tc.text || e.Lowers() != tc.lowers {
			t.Errorf("%s with %v down: %q lowers %v, want %q lowers %v", tc.ch.Verb(), tc.down, e.Text, e.Lowers(), tc.text, tc.lowers)
		}
	}
}

func TestStaticProbe(t *testing.T) {
	r := voterReport()
	add, ok := r.StaticProbe(true)
	if !ok || !add.Add || add.ID != 3000 || add.DirectoryID == ZeroUUID || add.Listeners[0].String() != "CONTROLLER://c0:9093" {
		t.Errorf("add probe: %+v", add)
	}
	rm, ok := r.StaticProbe(false)
	if !ok || rm.Add || rm.ID != 3004 || rm.DirectoryID == ZeroUUID {
		t.Errorf("remove probe: %+v, want a node that is no voter (3004)", rm)
	}
}
