package kraftsandbox

import (
	"fmt"
	"strconv"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// UpdateFeatures as Kafka 4.4's controller answers it
// (QuorumController.updateFeatures, FeatureControlManager.updateFeature,
// read from the 4.4.0 jars and checked against a real 4.4.0 cluster):
//
//   - the updates are checked one by one, in the order of Java's HashMap
//     of their names; the first refusal fails them all, as
//     INVALID_UPDATE_VERSION with "The update failed for all features
//     since the following feature had an error: " and the reason;
//   - a level beyond what the nodes support: "Local controller 3000 only
//     supports versions 0-1", an unknown feature: "… does not support
//     this feature."; a downgrade needs SAFE_DOWNGRADE or UNSAFE_DOWNGRADE
//     (v0: AllowDowngrade); a downgrade type with a higher level is
//     refused; metadata.version is never downgraded past a version that
//     changed the metadata (from 4.4-IV2: never at all);
//   - validateOnly (v1+) checks and changes nothing;
//   - a follower controller answers NOT_CONTROLLER; a broker forwards.
//
// Not simulated: the features' dependencies on one another
// (Feature.validateVersion): every level a 4.4.0 node supports depends
// only on metadata.version levels below 4.4-IV2's, which cannot be
// downgraded.

func init() {
	handlerSets = append(handlerSets, map[int16]handler{
		kmsg.UpdateFeatures.Int16(): (*Cluster).updateFeatures,
	})
}

// finalizedFeaturesEpoch is the FinalizedFeaturesEpoch a node answers in
// ApiVersions: a broker's is its metadata image's offset (the log's last
// offset), a controller's the offset of the last feature level change.
// c.mu is held.
func (c *Cluster) finalizedFeaturesEpoch(controller bool) int64 {
	if controller {
		return c.featuresEpoch
	}
	return c.offset - 1
}

// Kafka's FeatureUpdate.UpgradeType codes.
const (
	upgradeUnknown       int8 = 0
	upgradeUpgrade       int8 = 1
	upgradeSafeDowngrade int8 = 2
	upgradeUnsafe        int8 = 3
)

// metadataChanged lists the metadata.version levels whose
// didMetadataChange is true (MetadataVersion, 4.4.0): a downgrade across
// one of them is refused.
var metadataChanged = map[int16]bool{7: true, 8: true, 11: true, 13: true, 14: true, 15: true, 17: true,
	23: true, 30: true, 32: true, 33: true}

// featureLevel is the finalized level of a feature (0: not finalized).
// c.mu is held.
func (c *Cluster) featureLevel(name string) int16 { return c.features[name] }

// updateFeatures answers UpdateFeatures.
func (c *Cluster) updateFeatures(r *request) (kmsg.Response, error) {
	req := r.req.(*kmsg.UpdateFeaturesRequest)
	resp := req.ResponseKind().(*kmsg.UpdateFeaturesResponse)
	if !r.node.controller && !c.awaitQuorumLeader() {
		resp.ErrorCode = kerr.RequestTimedOut.Code // no message, as a real broker answers after 60 s
		return resp, nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.leader < 0 || (r.node.controller && r.node.id != c.leader) {
		resp.ErrorCode, resp.ErrorMessage = kerr.NotController.Code, strp(c.notControllerMessage())
		return resp, nil
	}
	levels := map[string]int16{}
	types := map[string]int8{}
	var names []string
	for _, u := range req.FeatureUpdates {
		if _, dup := levels[u.Feature]; !dup {
			names = append(names, u.Feature)
		}
		levels[u.Feature] = u.MaxVersionLevel
		t := u.UpgradeType
		if req.Version == 0 {
			t = upgradeUpgrade
			if u.AllowDowngrade {
				t = upgradeSafeDowngrade
			}
		}
		types[u.Feature] = t
	}
	validateOnly := req.Version >= 1 && req.ValidateOnly
	names = javaHashMapOrder(names)
	for _, name := range names {
		if msg := c.checkFeatureUpdate(name, levels[name], types[name]); msg != "" {
			resp.ErrorCode = kerr.InvalidUpdateVersion.Code
			resp.ErrorMessage = strp("The update failed for all features since the following feature had an error: " + msg)
			return resp, nil
		}
	}
	if req.Version <= 1 {
		for _, u := range req.FeatureUpdates {
			res := kmsg.NewUpdateFeaturesResponseResult()
			res.Feature, res.ErrorMessage = u.Feature, strp("NONE")
			resp.Results = append(resp.Results, res)
		}
	}
	if validateOnly {
		return resp, nil
	}
	for _, name := range names {
		lvl := levels[name]
		if name == "kraft.version" {
			if lvl == c.featureLevel(name) {
				continue
			}
			c.record() // NoOpRecord; the KRaftVersionRecord is in the raft log
		}
		if lvl == 0 && name != "metadata.version" {
			delete(c.features, name)
		} else {
			c.features[name] = lvl
		}
		c.featuresEpoch = c.record()
		c.logf("feature %s finalized at level %d", name, lvl)
	}
	if levels["eligible.leader.replicas.version"] > 0 {
		c.elrSafetyConfigs()
	}
	return resp, nil
}

// elrSafetyConfigs is ConfigurationControlManager.maybeGenerateElrSafetyRecords,
// which an update enabling eligible leader replicas brings along: the
// cluster-wide min.insync.replicas is set (to the brokers' static value,
// Kafka's default 1 in the sandbox) when it is not, and the brokers' own
// min.insync.replicas are removed. c.mu is held.
func (c *Cluster) elrSafetyConfigs() {
	if c.brokerConfigs[""] == nil {
		c.brokerConfigs[""] = map[string]string{}
	}
	if _, ok := c.brokerConfigs[""]["min.insync.replicas"]; !ok {
		c.brokerConfigs[""]["min.insync.replicas"] = "1"
		c.record()
	}
	for k, m := range c.brokerConfigs {
		if _, ok := m["min.insync.replicas"]; ok && k != "" {
			delete(m, "min.insync.replicas")
			c.record()
		}
	}
}

// checkFeatureUpdate is FeatureControlManager.updateFeature's checks of
// one update: "" when allowed, else the reason. c.mu is held.
func (c *Cluster) checkFeatureUpdate(name string, lvl int16, typ int8) string {
	invalid := func(why string) string {
		return fmt.Sprintf("Invalid update version %d for feature %s. %s", lvl, name, why)
	}
	if typ != upgradeUpgrade && typ != upgradeSafeDowngrade && typ != upgradeUnsafe {
		return invalid("The controller does not support the given upgrade type.")
	}
	cur := c.featureLevel(name)
	if lvl < 0 {
		return invalid("A feature version cannot be less than 0.")
	}
	// QuorumFeatures.reasonNotSupported: the active controller's own
	// range first (every node of the sandbox supports the same).
	var sf *supportedFeature
	for i := range supportedFeatures {
		if supportedFeatures[i].name == name {
			sf = &supportedFeatures[i]
		}
	}
	who := "Local controller " + strconv.Itoa(int(c.leader))
	switch {
	case sf == nil && lvl != 0:
		return invalid(who + " does not support this feature.")
	case sf != nil && (lvl < sf.min || lvl > sf.max):
		if sf.max == 0 {
			return invalid(who + " does not support this feature.")
		}
		return invalid(fmt.Sprintf("%s only supports versions %d-%d", who, sf.min, sf.max))
	}
	switch {
	case lvl < cur && typ == upgradeUpgrade:
		return invalid("Can't downgrade the version of this feature without setting the upgrade type to either safe or unsafe downgrade.")
	case lvl > cur && typ != upgradeUpgrade:
		return invalid("Can't downgrade to a newer version.")
	}
	switch name {
	case "metadata.version":
		if lvl < cur && metadataChangedBetween(lvl, cur) {
			why := "Refusing to perform the requested downgrade because it might delete metadata information."
			if typ == upgradeUnsafe {
				why = "Unsafe metadata downgrade is not supported in this version."
			}
			return fmt.Sprintf("Unsupported metadata.version downgrade from %d to %d. %s", cur, lvl, why)
		}
	case "kraft.version":
		if typ != upgradeUpgrade && lvl != cur {
			return invalid("Can't downgrade the version of this feature.")
		}
	default:
		if sf == nil {
			// Feature.featureFromName of a name it does not know.
			return invalid("Feature " + name + " not found.")
		}
	}
	return ""
}

// metadataChangedBetween is MetadataVersion.checkIfMetadataChanged for a
// downgrade from high to low.
func metadataChangedBetween(low, high int16) bool {
	v := high
	for v != low && !metadataChanged[v] && v > 7 {
		v--
	}
	return v != low
}

// javaHashMapOrder is the order in which a java.util.HashMap of these
// strings iterates them (String.hashCode, HashMap's buckets and resizes),
// the order in which Kafka checks a request's feature updates.
func javaHashMapOrder(keys []string) []string {
	capacity := 16
	for float64(len(keys)) > float64(capacity)*0.75 {
		capacity *= 2
	}
	buckets := make([][]string, capacity)
	for _, k := range keys {
		var h int32
		for _, r := range k {
			if r >= 0x10000 {
				// UTF-16 surrogate pair, as Java's char sequence.
				r -= 0x10000
				h = 31*h + int32(0xD800+(r>>10))
				h = 31*h + int32(0xDC00+(r&0x3ff))
				continue
			}
			h = 31*h + int32(r)
		}
		u := uint32(h)
		i := int((u ^ (u >> 16)) & uint32(capacity-1))
		buckets[i] = append(buckets[i], k)
	}
	out := make([]string, 0, len(keys))
	for _, b := range buckets {
		out = append(out, b...)
	}
	return out
}
