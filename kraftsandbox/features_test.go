package kraftsandbox

import (
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

type featureUpdate struct {
	name string
	lvl  int16
	typ  int8
}

func updateFeatures(t testing.TB, c *Cluster, node int32, validateOnly bool, us ...featureUpdate) *kmsg.UpdateFeaturesResponse {
	t.Helper()
	req := kmsg.NewPtrUpdateFeaturesRequest()
	req.TimeoutMillis, req.ValidateOnly = 5000, validateOnly
	for _, u := range us {
		fu := kmsg.NewUpdateFeaturesRequestFeatureUpdate()
		fu.Feature, fu.MaxVersionLevel, fu.UpgradeType = u.name, u.lvl, u.typ
		fu.AllowDowngrade = u.typ >= 2
		req.FeatureUpdates = append(req.FeatureUpdates, fu)
	}
	return nodeRequest[*kmsg.UpdateFeaturesResponse](t, c.addrOf(node), req)
}

func finalized(t testing.TB, c *Cluster, node int32) (map[string]int16, int64) {
	t.Helper()
	req := kmsg.NewPtrApiVersionsRequest()
	req.ClientSoftwareName, req.ClientSoftwareVersion = "test", "1"
	resp := nodeRequest[*kmsg.ApiVersionsResponse](t, c.addrOf(node), req)
	out := map[string]int16{}
	for _, f := range resp.FinalizedFeatures {
		out[f.Name] = f.MaxVersionLevel
	}
	return out, resp.FinalizedFeaturesEpoch
}

// The refusals and their messages are a real Kafka 4.4.0 cluster's
// (UpdateFeatures with validateOnly, through a broker and the active
// controller).
func TestUpdateFeaturesRefusals(t *testing.T) {
	c := startTest(t, Config{Brokers: 3, Controllers: 3})
	const prefix = "The update failed for all features since the following feature had an error: "
	for _, tc := range []struct {
		name string
		us   []featureUpdate
		msg  string
	}{
		{"same level", []featureUpdate{{"group.version", 1, 1}}, ""},
		{"unknown", []featureUpdate{{"foo.version", 1, 1}}, "Invalid update version 1 for feature foo.version. Local controller 3000 does not support this feature."},
		{"beyond range", []featureUpdate{{"group.version", 5, 1}}, "Invalid update version 5 for feature group.version. Local controller 3000 only supports versions 0-1"},
		{"negative", []featureUpdate{{"group.version", -1, 1}}, "Invalid update version -1 for feature group.version. A feature version cannot be less than 0."},
		{"unknown type", []featureUpdate{{"group.version", 1, 0}}, "Invalid update version 1 for feature group.version. The controller does not support the given upgrade type."},
		{"downgrade type, same level", []featureUpdate{{"group.version", 1, 2}}, ""},
		{"mv safe downgrade", []featureUpdate{{"metadata.version", 32, 2}}, "Unsupported metadata.version downgrade from 33 to 32. Refusing to perform the requested downgrade because it might delete metadata information."},
		{"mv unsafe downgrade", []featureUpdate{{"metadata.version", 21, 3}}, "Unsupported metadata.version downgrade from 33 to 21. Unsafe metadata downgrade is not supported in this version."},
		{"mv downgrade as upgrade", []featureUpdate{{"metadata.version", 21, 1}}, "Invalid update version 21 for feature metadata.version. Can't downgrade the version of this feature without setting the upgrade type to either safe or unsafe downgrade."},
		{"mv unstable", []featureUpdate{{"metadata.version", 34, 1}}, "Invalid update version 34 for feature metadata.version. Local controller 3000 only supports versions 7-33"},
		{"mv 0", []featureUpdate{{"metadata.version", 0, 2}}, "Invalid update version 0 for feature metadata.version. Local controller 3000 only supports versions 7-33"},
		{"kraft.version 1", []featureUpdate{{"kraft.version", 1, 1}}, ""},
		{"kraft.version 0", []featureUpdate{{"kraft.version", 0, 2}}, ""},
		{"one bad of two", []featureUpdate{{"group.version", 0, 2}, {"foo.version", 1, 1}}, "Invalid update version 1 for feature foo.version. Local controller 3000 does not support this feature."},
		{"group.version 0", []featureUpdate{{"group.version", 0, 2}}, ""},
		{"share.version 1", []featureUpdate{{"share.version", 1, 2}}, ""},
		{"streams.version 0 unsafe", []featureUpdate{{"streams.version", 0, 3}}, ""},
	} {
		for _, node := range []int32{1, 3000} {
			resp := updateFeatures(t, c, node, true, tc.us...)
			got := ""
			if resp.ErrorCode != 0 {
				if resp.ErrorCode != kerr.InvalidUpdateVersion.Code {
					t.Errorf("%s on %d: error %v", tc.name, node, kerr.ErrorForCode(resp.ErrorCode))
				}
				got = "?"
				if resp.ErrorMessage != nil {
					got = *resp.ErrorMessage
				}
			} else if resp.ErrorMessage != nil {
				t.Errorf("%s on %d: message %q on success", tc.name, node, *resp.ErrorMessage)
			}
			want := tc.msg
			if want != "" {
				want = prefix + want
			}
			if got != want {
				t.Errorf("%s on %d:\n got %q\nwant %q", tc.name, node, got, want)
			}
		}
	}
	// validateOnly changed nothing.
	if f, _ := finalized(t, c, 1); f["group.version"] != 1 || f["metadata.version"] != 33 || f["share.version"] != 2 {
		t.Errorf("after validateOnly: %v", f)
	}
	// A follower controller is not the controller.
	resp := updateFeatures(t, c, 3001, true, featureUpdate{"group.version", 1, 1})
	if resp.ErrorCode != kerr.NotController.Code || *resp.ErrorMessage != "The active controller appears to be node 3000." {
		t.Errorf("follower: %v %v", kerr.ErrorForCode(resp.ErrorCode), resp.ErrorMessage)
	}
}

func TestUpdateFeaturesApplies(t *testing.T) {
	c := startTest(t, Config{Brokers: 3, Controllers: 3})
	_, e0 := finalized(t, c, 3000)
	if resp := updateFeatures(t, c, 1, false, featureUpdate{"group.version", 0, 2}, featureUpdate{"share.version", 1, 2}); resp.ErrorCode != 0 {
		t.Fatalf("downgrade: %v %v", kerr.ErrorForCode(resp.ErrorCode), resp.ErrorMessage)
	}
	f, e1 := finalized(t, c, 3000)
	if _, ok := f["group.version"]; ok || f["share.version"] != 1 || e1 <= e0 {
		t.Errorf("after the downgrade: %v epoch %d (was %d)", f, e1, e0)
	}
	fb, eb := finalized(t, c, 1)
	if _, ok := fb["group.version"]; ok || fb["share.version"] != 1 || eb < e1 {
		t.Errorf("a broker's view: %v epoch %d (controller's %d)", fb, eb, e1)
	}
	// Upgrading back needs UPGRADE.
	if resp := updateFeatures(t, c, 1, false, featureUpdate{"group.version", 1, 2}); resp.ErrorCode != kerr.InvalidUpdateVersion.Code ||
		*resp.ErrorMessage != "The update failed for all features since the following feature had an error: Invalid update version 1 for feature group.version. Can't downgrade to a newer version." {
		t.Errorf("upgrade as downgrade: %v %v", kerr.ErrorForCode(resp.ErrorCode), resp.ErrorMessage)
	}
	if resp := updateFeatures(t, c, 3000, false, featureUpdate{"group.version", 1, 1}); resp.ErrorCode != 0 {
		t.Fatalf("upgrade: %v %v", kerr.ErrorForCode(resp.ErrorCode), resp.ErrorMessage)
	}
	if f, _ := finalized(t, c, 1); f["group.version"] != 1 {
		t.Errorf("after the upgrade: %v", f)
	}
	// ELR off: the controller stops keeping eligible leaders.
	if resp := updateFeatures(t, c, 1, false, featureUpdate{"eligible.leader.replicas.version", 0, 2}); resp.ErrorCode != 0 {
		t.Fatalf("elr off: %v", kerr.ErrorForCode(resp.ErrorCode))
	}
	c.mu.Lock()
	elr := c.elrEnabled()
	c.mu.Unlock()
	if elr {
		t.Error("ELR still enabled")
	}
	// Enabling it sets the cluster-wide min.insync.replicas and drops
	// the brokers' own (the controller's ELR safety records).
	c.mu.Lock()
	c.brokerConfigs["2"] = map[string]string{"min.insync.replicas": "2"}
	c.mu.Unlock()
	if resp := updateFeatures(t, c, 1, false, featureUpdate{"eligible.leader.replicas.version", 1, 1}); resp.ErrorCode != 0 {
		t.Fatalf("elr on: %v", kerr.ErrorForCode(resp.ErrorCode))
	}
	c.mu.Lock()
	cluster, ok := c.brokerConfigs[""]["min.insync.replicas"]
	_, own := c.brokerConfigs["2"]["min.insync.replicas"]
	elr = c.elrEnabled()
	c.mu.Unlock()
	if !elr || !ok || cluster != "1" || own {
		t.Errorf("elr on: enabled %v, cluster min.insync.replicas %q (%v), broker 2's kept %v", elr, cluster, ok, own)
	}
}

func TestJavaHashMapOrder(t *testing.T) {
	// What java.util.HashMap<String, Short>.keySet() printed for these
	// names put in this order (a JDK 21 run).
	for _, tc := range []struct{ in, want string }{
		{"metadata.version group.version foo.version kraft.version share.version transaction.version streams.version eligible.leader.replicas.version",
			"group.version kraft.version metadata.version share.version streams.version transaction.version eligible.leader.replicas.version foo.version"},
		{"a b c d e f g h i j k l m n o p q r s t u v w x y z aa bb cc", "bb aa cc a b c d e f g h i j k l m n o p q r s t u v w x y z"},
	} {
		if got := strings.Join(javaHashMapOrder(strings.Fields(tc.in)), " "); got != tc.want {
			t.Errorf("got  %s\nwant %s", got, tc.want)
		}
	}
}
