package cluster

import (
	"slices"
	"testing"
)

func TestRefusalBlocker(t *testing.T) {
	for _, tc := range []struct {
		refusal string
		want    Blocker
		ok      bool
	}{
		{"The update failed for all features since the following feature had an error: Invalid update version 33 for feature metadata.version. Broker 3 only supports versions 1-21 (INVALID_UPDATE_VERSION)",
			Blocker{Feature: FeatureMetadataVersion, Level: 33, ID: 3, Max: 21, Known: true, FromRefusal: true}, true},
		{"Invalid update version 1 for feature group.version. Broker 4 does not support this feature.",
			Blocker{Feature: FeatureMetadataVersion, Level: 33, ID: 4, FromRefusal: true}, true},
		{"Invalid update version 33 for feature metadata.version. Controller 3001 only supports versions 7-26",
			Blocker{Feature: FeatureMetadataVersion, Level: 33, ID: 3001, Controller: true, Max: 26, Known: true, FromRefusal: true}, true},
		// Refusals that name no node: a dependency, an unregistered
		// controller (whose range is unknown to Kafka too).
		{"Invalid update version 1 for feature eligible.leader.replicas.version. eligible.leader.replicas.version could not be set to 1 because it depends on metadata.version level 23", Blocker{}, false},
		{"controller 3002 has not registered, and may not support this feature", Blocker{}, false},
		{"", Blocker{}, false},
	} {
		got, ok := RefusalBlocker(UpgradeCheck{Feature: FeatureMetadataVersion, Level: 33, Refusal: tc.refusal})
		if ok != tc.ok || got != tc.want {
			t.Errorf("%q:\ngot  %+v %v\nwant %+v %v", tc.refusal, got, ok, tc.want, tc.ok)
		}
	}
}

// A 3.9 broker among 4.4 nodes at 3.9-IV0: running, it holds
// metadata.version and the features it does not know by its own
// ranges; stopped, Kafka's controller's refusals name its registration.
func TestBlockers(t *testing.T) {
	mv := func(hi int) FeatureRange {
		return FeatureRange{Name: FeatureMetadataVersion, MinVersion: 7, MaxVersion: hi}
	}
	gv := FeatureRange{Name: "group.version", MaxVersion: 1}
	new44 := func(id int, controller bool) NodeFeatures {
		return NodeFeatures{ID: id, Controller: controller, Supported: []FeatureRange{mv(33), gv}}
	}
	running := QuorumReport{
		Finalized:        []Feature{{FeatureMetadataVersion, 21}},
		Nodes:            []NodeFeatures{new44(1, false), {ID: 3, Supported: []FeatureRange{mv(21)}}, new44(3000, true)},
		Brokers:          []KRaftBroker{{ID: 1}, {ID: 3, Host: "k3", Port: 9092}},
		ControllersAsked: true,
	}
	checks := UpgradeChecksOf(running.Features())
	if want := []UpgradeCheck{{Feature: FeatureMetadataVersion, Level: 33, Held: true}, {Feature: "group.version", Level: 1, Held: true}}; !slices.Equal(checks, want) {
		t.Errorf("checks %+v, want %+v", checks, want)
	}
	running.UpgradeChecks = []UpgradeCheck{{Feature: FeatureMetadataVersion, Level: 33, Held: true,
		Refusal: "Invalid update version 33 for feature metadata.version. Broker 3 only supports versions 1-21"}}
	bs := running.Blockers()
	if len(bs) != 2 || bs[0].ID != 3 || bs[0].Max != 21 || bs[0].FromRefusal || !bs[0].Registered || bs[1].Feature != "group.version" || bs[1].Known {
		t.Fatalf("blockers %+v", bs)
	}
	if c, ok := running.HeldCheck(FeatureMetadataVersion); !ok || c.Level != 33 {
		t.Errorf("held check %+v %v", c, ok)
	}
	if _, ok := running.UpgradeCheck(FeatureMetadataVersion); ok {
		t.Error("an upgrade check to the ceiling, which is the finalized level")
	}
	groups := BlockersByNode(bs)
	want := "broker 3 blocks metadata.version 4.4-IV2 (it supports up to 3.9-IV0, as Kafka 3.9 does) and group.version 1 (it does not support it): " +
		"upgrade its software (or, to remove the broker, stop it for good and unregister it: ktopo brokers unregister 3)"
	if len(groups) != 1 || BlockerText(groups[0]) != want {
		t.Errorf("got  %q\nwant %q", BlockerText(groups[0]), want)
	}

	stopped := running
	stopped.Nodes = []NodeFeatures{new44(1, false), {ID: 3, Err: "connection refused"}, new44(3000, true)}
	stopped.Brokers = []KRaftBroker{{ID: 1}, {ID: 3, Fenced: true, Host: "k3", Port: 9092}}
	stopped.UpgradeChecks = []UpgradeCheck{
		{Feature: FeatureMetadataVersion, Level: 33, Refusal: "Invalid update version 33 for feature metadata.version. Broker 3 only supports versions 1-21"},
		{Feature: "group.version", Level: 1, Refusal: "Invalid update version 1 for feature group.version. Broker 3 does not support this feature."},
	}
	if checks := UpgradeChecksOf(stopped.Features()); len(checks) != 2 || checks[0].Held || checks[1].Held {
		t.Errorf("checks %+v: the ranges asked allow both", checks)
	}
	bs = stopped.Blockers()
	if len(bs) != 2 || !bs[0].FromRefusal || !bs[0].Registration.Fenced || bs[0].Max != 21 {
		t.Fatalf("blockers %+v", bs)
	}
	if len(BlockersOf(bs, 3, false)) != 2 || len(BlockersOf(bs, 3, true)) != 0 || len(BlockersOf(bs, 1, false)) != 0 {
		t.Errorf("BlockersOf %+v", bs)
	}
	want = "broker 3's registration blocks metadata.version 4.4-IV2 (it supports up to 3.9-IV0, as Kafka 3.9 does) and group.version 1 (it does not support it), " +
		"as Kafka's controller's refusals say; the broker is fenced and does not answer: if it is gone for good, ktopo brokers unregister 3 removes its registration, else upgrade its software"
	if got := BlockerText(BlockersByNode(bs)[0]); got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}

	// Nothing in the way: no blockers, no held check.
	done := stopped
	done.Brokers = []KRaftBroker{{ID: 1}}
	done.Nodes = []NodeFeatures{new44(1, false), new44(3000, true)}
	done.UpgradeChecks = []UpgradeCheck{{Feature: FeatureMetadataVersion, Level: 33}}
	if bs := done.Blockers(); len(bs) != 0 {
		t.Errorf("blockers %+v", bs)
	}
}

func TestReleaseOfNewest(t *testing.T) {
	for level, want := range map[int]string{21: "3.9", 20: "3.8", 19: "3.7", 18: "", 7: "3.3", 33: "4.4", 32: "", 0: "", 99: ""} {
		if got := releaseOfNewest(level); got != want {
			t.Errorf("releaseOfNewest(%d) = %q, want %q", level, got, want)
		}
	}
}
