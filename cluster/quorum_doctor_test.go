package cluster

import (
	"slices"
	"strings"
	"testing"
	"time"
)

func TestMajorityText(t *testing.T) {
	at := time.UnixMilli(1_000_000)
	fresh, old := at.Add(-100*time.Millisecond), at.Add(-41*time.Second)
	voters := func(fetched ...time.Time) []QuorumMember {
		var vs []QuorumMember
		for i, f := range fetched {
			vs = append(vs, QuorumMember{ID: 3000 + i, LastFetch: f, LogEndOffset: 10})
		}
		return vs
	}
	for _, tc := range []struct {
		name   string
		voters []QuorumMember
		want   string
	}{
		{"one voter", voters(at), "1 voter: a majority is 1, so none may fail."},
		{"three", voters(at, fresh, fresh), "3 voters: a majority is 2, so 1 may fail."},
		{"three, one down", voters(at, fresh, old), "3 voters: a majority is 2, so 1 may fail; with controller 3002 (last fetch 41s ago) down, none may: one more failure stops the quorum."},
		{"five, one down", voters(at, fresh, fresh, fresh, old), "5 voters: a majority is 3, so 2 may fail; with controller 3004 (last fetch 41s ago) down, 1 more may."},
		{"five, one never fetched", voters(at, fresh, time.Time{}, fresh, fresh), "5 voters: a majority is 3, so 2 may fail; with controller 3002 (never fetched from this leader) down, 1 more may."},
		{"four, two down", voters(at, old, old, fresh), "4 voters: a majority is 3, so 1 may fail; with controllers 3001 (last fetch 41s ago), 3002 (last fetch 41s ago) down, the quorum has no majority: it elects no leader and commits nothing until a majority is back."},
		{"none", nil, "no voters known"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := QuorumReport{At: at, Quorum: QuorumDetail{LeaderID: 3000, Voters: tc.voters}}
			if got := r.MajorityText(); got != tc.want {
				t.Errorf("got  %q\nwant %q", got, tc.want)
			}
		})
	}
}

func TestFeatureStatus(t *testing.T) {
	node := func(id int, controller bool, ranges ...FeatureRange) NodeFeatures {
		return NodeFeatures{ID: id, Controller: controller, Supported: ranges}
	}
	mv := func(lo, hi int) FeatureRange {
		return FeatureRange{Name: FeatureMetadataVersion, MinVersion: lo, MaxVersion: hi}
	}
	gv := func(hi int) FeatureRange { return FeatureRange{Name: "group.version", MinVersion: 0, MaxVersion: hi} }
	r := QuorumReport{
		Finalized: []Feature{{"group.version", 1}, {FeatureMetadataVersion, 21}},
		Nodes: []NodeFeatures{
			node(1, false, mv(7, 33), gv(1)),
			node(2, false, mv(7, 21)), // a 3.9 broker: no group.version
			{ID: 3, Err: "connection refused"},
			node(3000, true, mv(7, 33), gv(1)),
		},
		Brokers:          []KRaftBroker{{ID: 1}, {ID: 2}, {ID: 3, Fenced: true}},
		ControllersAsked: true,
	}
	fs := r.Features()
	if len(fs) != 2 || fs[0].Name != FeatureMetadataVersion || fs[1].Name != "group.version" {
		t.Fatalf("features %+v", fs)
	}
	m := fs[0]
	if m.Finalized != 21 || m.Ceiling != 21 || m.Highest != 33 || !slices.Equal(m.Holders, []string{"broker 2"}) || m.Upgradable() {
		t.Errorf("metadata.version %+v", m)
	}
	g := fs[1]
	if g.Ceiling != 0 || !slices.Equal(g.Holders, []string{"broker 2"}) || g.Ranges[1].Known {
		t.Errorf("group.version %+v", g)
	}
	if len(m.Unknown) != 1 || !strings.Contains(m.Unknown[0], "broker 3 (fenced, did not answer") {
		t.Errorf("unknown %q", m.Unknown)
	}
	if MetadataVersionName(21) != "3.9-IV0" || MetadataVersionName(33) != "4.4-IV2" || MetadataVersionName(7) != "3.3-IV3" || MetadataVersionName(1) != "3.0-IV1" || MetadataVersionName(99) != "" {
		t.Error("metadata.version names")
	}
}

func TestRegistrations(t *testing.T) {
	at := time.UnixMilli(10_000_000)
	r := QuorumReport{
		At:      at,
		Brokers: []KRaftBroker{{ID: 1}, {ID: 2, Fenced: true, Host: "k2", Port: 9092}, {ID: 3, Fenced: true, Host: "k3", Port: 9092}, {ID: 4, Fenced: true, Host: "k4", Port: 9092}},
		Quorum: QuorumDetail{Voters: []QuorumMember{{ID: 3000}}, Observers: []QuorumMember{
			{ID: 1, LastFetch: at}, {ID: 2, LastFetch: at.Add(-12 * time.Second)}, {ID: 4, LastFetch: at}}},
		Nodes: []NodeFeatures{{ID: 1}, {ID: 2, Err: "refused"}, {ID: 3, Err: "refused"}, {ID: 4}},
	}
	regs := r.Registrations()
	if len(regs) != 4 {
		t.Fatalf("%+v", regs)
	}
	want := []string{
		"",
		"down: does not answer at k2:9092, last fetched the metadata log 12s ago; if it is gone for good, its registration still counts when a feature level is raised until it is unregistered (ktopo brokers unregister 2, or kafka-cluster unregister --id 2)",
		"stale: does not answer at k3:9092 and has not fetched the metadata log for over 5 minutes (not among the quorum's observers); a registration left behind by a broker that is gone still counts when a feature level is raised, until it is unregistered (ktopo brokers unregister 3, or kafka-cluster unregister --id 3)",
		"answers at k4:9092: running (starting, catching up or shutting down); last fetched the metadata log 0ms ago",
	}
	for i, g := range regs {
		if !g.Fenced {
			continue
		}
		if got := g.FencedText(at); got != want[i] {
			t.Errorf("broker %d:\ngot  %q\nwant %q", g.ID, got, want[i])
		}
	}
	if regs[1].Stale() || !regs[2].Stale() || regs[3].Stale() {
		t.Errorf("stale: %v %v %v", regs[1].Stale(), regs[2].Stale(), regs[3].Stale())
	}
}

func TestAge(t *testing.T) {
	for d, want := range map[time.Duration]string{
		-time.Second: "0s", 350 * time.Millisecond: "350ms", 4 * time.Second: "4s",
		133 * time.Second: "2m13s", 3*time.Hour + 5*time.Minute: "3h05m",
	} {
		if got := Age(d); got != want {
			t.Errorf("Age(%s) = %q, want %q", d, got, want)
		}
	}
}

func TestJudgeUnregister(t *testing.T) {
	r := QuorumReport{
		Brokers: []KRaftBroker{{ID: 1}, {ID: 2, Fenced: true, Host: "k2", Port: 9092}, {ID: 3, Fenced: true}, {ID: 3000}},
		Quorum:  QuorumDetail{Voters: []QuorumMember{{ID: 3000}}},
		Nodes:   []NodeFeatures{{ID: 1}, {ID: 2}, {ID: 3, Err: "refused"}, {ID: 3000}},
	}
	for id, want := range map[int]string{
		1:    "broker 1 is alive (registered and unfenced)",
		2:    "broker 2 is fenced but answers at k2:9092",
		3:    "",
		9:    "Broker ID 9 is not currently registered",
		3000: "broker 3000 is a voter of the metadata quorum",
	} {
		got := r.JudgeUnregister(id)
		if want == "" && got != "" || !strings.HasPrefix(got, want) {
			t.Errorf("JudgeUnregister(%d) = %q, want %q…", id, got, want)
		}
	}
	r.BrokersErr = "no broker answered"
	if got := r.JudgeUnregister(3); !strings.Contains(got, "could not be read") {
		t.Errorf("registrations unknown: %q", got)
	}
}
