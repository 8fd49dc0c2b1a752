package clusterops

import (
	"maps"
	"slices"

	"github.com/ktopo/ktopo/cluster"
)

// PlanTopicConfigReplacement plans replacing topic's config overrides
// with want, as the TUI's config editor does: the config znode read
// through z, every override want leaves out deleted and every key whose
// value differs set (kafka-configs --alter with the difference as
// --add-config and --delete-config), with Kafka's checks
// (PlanTopicConfigAlteration), and the multi, after the creates of any
// missing parent (WithParents).
func PlanTopicConfigReplacement(z ZK, s *cluster.Snapshot, topic string, want map[string]string) (*ConfigAlteration, []any, error) {
	entries, version, err := ReadEntityConfig(z, cluster.EntityTopics, topic)
	if err != nil {
		return nil, nil, err
	}
	add := map[string]string{}
	var del []string
	now := map[string]string{}
	for _, e := range entries {
		now[e.Key] = e.Value
		if _, ok := want[e.Key]; !ok {
			del = append(del, e.Key)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(want)) {
		if v, ok := now[k]; !ok || v != want[k] {
			add[k] = want[k]
		}
	}
	alt, err := PlanTopicConfigAlteration(topic, entries, version, add, del, s)
	if err != nil {
		return nil, nil, err
	}
	ops, err := WithParents(z, alt.Ops(), cluster.ConfigTopicsPath, cluster.ConfigChangesPath)
	if err != nil {
		return nil, nil, err
	}
	return alt, ops, nil
}
