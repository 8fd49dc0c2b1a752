package clusterops

import (
	"context"
	"maps"
	"slices"

	"github.com/ktopo/ktopo/cluster"
)

// PlanTopicConfigReplacement plans replacing topic's config overrides
// with want, as the TUI's config editor does: the overrides read through
// w (ReadConfig), every override want leaves out deleted and every key
// whose value differs set (kafka-configs --alter with the difference as
// --add-config and --delete-config), with Kafka's checks
// (PlanTopicConfigAlteration), and the writes w would make for it.
func PlanTopicConfigReplacement(ctx context.Context, w Writer, s *cluster.Snapshot, topic string, want map[string]string) (*ConfigAlteration, Writes, error) {
	entries, version, err := w.ReadConfig(ctx, cluster.EntityTopics, topic)
	if err != nil {
		return nil, Writes{}, err
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
		return nil, Writes{}, err
	}
	ws, err := w.AlterConfigs(ctx, []*ConfigAlteration{alt}, Describe)
	if err != nil {
		return nil, Writes{}, err
	}
	return alt, ws, nil
}
